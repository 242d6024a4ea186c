import { describe, expect, it, vi } from 'vitest';

import { Answer, ApprovalPrompt, outcomeText, recordOutcomeText } from '../src/ui/approvals';
import { ApprovalDecision, Reply } from '../src/protocol';
import { flush, host, reply, request, texts } from './helpers';

/** An answer callback whose reply the test releases when it wants. */
function deferred(): { answer: Answer; calls: ApprovalDecision[]; release: (r: Reply) => void } {
  const calls: ApprovalDecision[] = [];
  let release: (r: Reply) => void = () => undefined;
  const answer: Answer = (_request, decision) => {
    calls.push(decision);
    return new Promise<Reply>(resolve => {
      release = resolve;
    });
  };
  return { answer, calls, release: r => release(r) };
}

function click(root: HTMLElement, selector: string): void {
  root.querySelector<HTMLButtonElement>(selector)!.click();
}

describe('ApprovalPrompt', () => {
  it('says in three lines what, why, and what "always" writes where', () => {
    const prompt = new ApprovalPrompt(
      host(),
      request({ command: 'pytest -q', paths: ['a.py', 'b.py'] }),
      vi.fn()
    );
    const node = prompt.node;
    expect(node.dataset.requestId).toBe('r1');
    expect(node.dataset.callId).toBe('c1');
    expect(node.getAttribute('role')).toBe('group');
    const title = node.querySelector<HTMLElement>('.jp-zengine-approval-title')!;
    expect(title.textContent).toBe('Allow Bash: run the tests?');
    expect(node.getAttribute('aria-labelledby')).toBe(title.id);
    // the command and the paths are in the title's tooltip (the card shows the command)
    expect(title.title).toBe('Allow Bash: run the tests?\nCommand: pytest -q\nPaths: a.py, b.py');
    const lines = node.querySelectorAll('.jp-zengine-approval-text > *');
    expect(Array.from(lines).map(n => n.textContent)).toEqual([
      'Allow Bash: run the tests?',
      'Bash needs approval in default mode',
      '"Always" adds Bash(pytest:*) to this project\'s local settings'
    ]);
    const described = node.getAttribute('aria-describedby')!.split(' ');
    expect(described.map(id => document.getElementById(id)?.textContent)).toEqual([
      'Bash needs approval in default mode',
      '"Always" adds Bash(pytest:*) to this project\'s local settings'
    ]);
    // the layer chosen is the one the line names
    const select = node.querySelector<HTMLSelectElement>('select')!;
    select.value = 'user';
    select.dispatchEvent(new Event('change'));
    expect(lines[2].textContent).toBe('"Always" adds Bash(pytest:*) to your user settings');
    expect(texts(node, '.jp-zengine-button')).toEqual([
      'Allow once\u21b5',
      'Always allowA',
      'DenyD'
    ]);
    expect(node.querySelector('.jp-zengine-always')!.getAttribute('aria-label')).toBe(
      'Always allow Bash(pytest:*)'
    );
    expect(Array.from(node.querySelectorAll('option')).map(o => [o.value, o.textContent])).toEqual([
      ['local', 'this project (local)'],
      ['user', 'all my projects (user)']
    ]);
  });

  it("uses JupyterLab's styled components: its HTMLSelect markup, accept / reject / warn", () => {
    const node = new ApprovalPrompt(host(), request(), vi.fn()).node;
    const box = node.querySelector('select')!.parentElement!;
    expect(Array.from(box.classList)).toEqual(
      expect.arrayContaining(['jp-HTMLSelect', 'jp-DefaultStyle', 'jp-FormGroup-content'])
    );
    expect(box.querySelector(':scope > select + span svg')).not.toBeNull(); // the caret
    const classes = (selector: string) => Array.from(node.querySelector(selector)!.classList);
    expect(classes('.jp-zengine-allow')).toEqual(
      expect.arrayContaining(['jp-mod-styled', 'jp-mod-accept'])
    );
    expect(classes('.jp-zengine-always')).toEqual(
      expect.arrayContaining(['jp-mod-styled', 'jp-mod-reject'])
    );
    expect(classes('.jp-zengine-deny')).toEqual(
      expect.arrayContaining(['jp-mod-styled', 'jp-mod-warn'])
    );
    expect(classes('.jp-zengine-deny-reason')).toContain('jp-mod-styled');
  });

  it('answers to its keys while it has the focus, shown on its buttons', () => {
    const key = (target: Element, k: string) =>
      target.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true }));
    const answers: ApprovalDecision[] = [];
    const make = (id: string) =>
      new ApprovalPrompt(host(), request({ id }), async (_r, decision) => {
        answers.push(decision);
        return new Promise<Reply>(() => undefined);
      });
    const node = make('r1').node;
    expect(node.hasAttribute('data-lm-suppress-shortcuts')).toBe(true); // not Lab's A, D D
    expect(node.querySelector('.jp-zengine-allow')!.getAttribute('aria-keyshortcuts')).toBe(
      'Enter'
    );
    expect(node.querySelector('.jp-zengine-always')!.getAttribute('aria-keyshortcuts')).toBe('A');
    expect(node.querySelector('.jp-zengine-deny')!.getAttribute('aria-keyshortcuts')).toBe(
      'D Escape'
    );
    key(node, 'Enter');
    key(make('r2').node, 'a');
    key(make('r3').node, 'd');
    key(make('r4').node, 'Escape');
    expect(answers).toEqual([
      { action: 'allow_once' },
      { action: 'always_allow', layer: 'local', rule: 'Bash(pytest:*)' },
      { action: 'deny', message: null },
      { action: 'deny', message: null }
    ]);
    // letters typed in the reason are the reason's; Escape there denies with it
    const other = make('r5').node;
    const reason = other.querySelector<HTMLInputElement>('.jp-zengine-deny-reason')!;
    key(reason, 'a');
    key(reason, 'd');
    reason.value = 'too slow';
    key(reason, 'Escape');
    expect(answers.slice(4)).toEqual([{ action: 'deny', message: 'too slow' }]);
    // a key typed elsewhere (a notebook editor) is not the prompt's
    const elsewhere = host();
    make('r6');
    key(elsewhere, 'a');
    key(elsewhere, 'Enter');
    expect(answers).toHaveLength(5);
  });

  it('a key with Ctrl, or Enter on a focused button, is left alone', () => {
    const answer = vi.fn<Answer>();
    const node = new ApprovalPrompt(host(), request(), answer).node;
    node.dispatchEvent(new KeyboardEvent('keydown', { key: 'a', ctrlKey: true, bubbles: true }));
    const deny = node.querySelector('.jp-zengine-deny')!;
    deny.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
    expect(answer).not.toHaveBeenCalled(); // the button's own Enter (a click) is the browser's
  });

  it('Allow once sends allow_once and settles on an ok reply', async () => {
    const d = deferred();
    const prompt = new ApprovalPrompt(host(), request(), d.answer);
    click(prompt.node, '.jp-zengine-allow');
    expect(d.calls).toEqual([{ action: 'allow_once' }]);
    const controls = Array.from(
      prompt.node.querySelectorAll<HTMLButtonElement | HTMLInputElement>('button, select, input')
    );
    expect(controls.every(c => c.disabled)).toBe(true); // no second answer while one is on its way
    expect(prompt.answered).toBe(false);
    d.release(reply(true));
    await flush();
    expect(prompt.answered).toBe(true);
    expect(prompt.node.dataset.outcome).toBe('allowed');
    expect(texts(prompt.node, '.jp-zengine-approval-outcome')).toEqual(['Allowed once.']);
    expect(prompt.node.querySelector('button')).toBeNull();
    expect(prompt.node.querySelector('.jp-zengine-ok')).not.toBeNull();
  });

  it('Always allow sends the rule and the chosen settings layer', async () => {
    const d = deferred();
    const prompt = new ApprovalPrompt(host(), request(), d.answer);
    prompt.node.querySelector<HTMLSelectElement>('select')!.value = 'user';
    click(prompt.node, '.jp-zengine-always');
    expect(d.calls).toEqual([{ action: 'always_allow', layer: 'user', rule: 'Bash(pytest:*)' }]);
    d.release(reply(true));
    await flush();
    expect(texts(prompt.node, '.jp-zengine-approval-outcome')).toEqual([
      'Always allowed (Bash(pytest:*)).'
    ]);
  });

  it('Deny sends the typed reason (or null) and settles as denied', async () => {
    const d = deferred();
    const prompt = new ApprovalPrompt(host(), request(), d.answer);
    click(prompt.node, '.jp-zengine-deny');
    expect(d.calls).toEqual([{ action: 'deny', message: null }]);
    d.release(reply(true));
    await flush();
    expect(prompt.node.dataset.outcome).toBe('denied');
    expect(texts(prompt.node, '.jp-zengine-approval-outcome')).toEqual(['Denied by you.']);
    expect(prompt.node.querySelector('.jp-zengine-bad')).not.toBeNull();

    const e = deferred();
    const other = new ApprovalPrompt(host(), request({ id: 'r2' }), e.answer);
    const input = other.node.querySelector<HTMLInputElement>('.jp-zengine-deny-reason')!;
    input.value = 'use the fixture';
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
    expect(e.calls).toEqual([{ action: 'deny', message: 'use the fixture' }]);
  });

  it('a refused answer shows the error and enables the buttons again', async () => {
    const d = deferred();
    const prompt = new ApprovalPrompt(host(), request(), d.answer);
    click(prompt.node, '.jp-zengine-allow');
    d.release(reply(false, 'no such request'));
    await flush();
    expect(prompt.answered).toBe(false);
    expect(texts(prompt.node, '.jp-zengine-approval-error')).toEqual(['no such request']);
    expect(prompt.node.querySelector<HTMLButtonElement>('.jp-zengine-allow')!.disabled).toBe(false);

    const e = deferred();
    const other = new ApprovalPrompt(host(), request({ id: 'r2' }), e.answer);
    click(other.node, '.jp-zengine-allow');
    e.release(reply(false));
    await flush();
    expect(texts(other.node, '.jp-zengine-approval-error')).toEqual([
      'the kernel refused the answer'
    ]);
  });

  it('the event settles it first: the later reply changes nothing', async () => {
    const d = deferred();
    const prompt = new ApprovalPrompt(host(), request(), d.answer);
    click(prompt.node, '.jp-zengine-allow');
    prompt.settle('Denied by a hook.', false);
    d.release(reply(true));
    await flush();
    expect(prompt.node.dataset.outcome).toBe('denied');
    expect(texts(prompt.node, '.jp-zengine-approval-outcome')).toEqual(['Denied by a hook.']);
  });

  it('an answer from the other view settles it without a click', () => {
    const answer = vi.fn<Answer>();
    const prompt = new ApprovalPrompt(host(), request(), answer);
    prompt.settle('Allowed once.', true);
    prompt.settle('Always allowed (Bash(pytest:*)).', true); // one line, updated
    expect(texts(prompt.node, '.jp-zengine-approval-outcome')).toEqual([
      'Always allowed (Bash(pytest:*)).'
    ]);
    expect(prompt.node.querySelector('.jp-zengine-approval-controls')).toBeNull();
    expect(answer).not.toHaveBeenCalled();
  });

  it('keeps the keyboard focus in the prompt when its buttons go', () => {
    const prompt = new ApprovalPrompt(host(), request(), vi.fn());
    prompt.focus();
    expect(document.activeElement?.classList.contains('jp-zengine-allow')).toBe(true);
    prompt.settle('Allowed once.', true);
    expect(document.activeElement).toBe(prompt.node.querySelector('.jp-zengine-approval-outcome'));
  });

  it('does not steal the focus when it did not have it', () => {
    const elsewhere = document.createElement('input');
    host().appendChild(elsewhere);
    const prompt = new ApprovalPrompt(host(), request(), vi.fn());
    elsewhere.focus();
    prompt.settle('Allowed once.', true);
    expect(document.activeElement).toBe(elsewhere);
  });
});

describe('outcomeText', () => {
  // the same table as tests/engine/test_approval_outcome.py (the kernel's and the CLI's words)
  it('a click once, always, or a policy decision', () => {
    expect(outcomeText({ kind: 'tool_call_approved', by: 'user' })).toBe('Allowed once.');
    expect(outcomeText({ kind: 'tool_call_approved', by: 'user', rule: 'Bash(pytest:*)' })).toBe(
      'Always allowed (Bash(pytest:*)).'
    );
    expect(outcomeText({ kind: 'tool_call_approved', by: 'rule', rule: 'Read(*)' })).toBe(
      'Allowed by policy (rule Read(*)).'
    );
    expect(outcomeText({ kind: 'tool_call_approved', by: 'mode', rule: null })).toBe(
      'Allowed by policy.'
    );
    expect(outcomeText({ kind: 'tool_call_approved', by: 'auto_allow' })).toBe(
      'Allowed by policy (sandboxed).'
    );
    expect(outcomeText({ kind: 'tool_call_approved', by: 'hook' })).toBe('Allowed by a hook.');
  });

  it('names who denied and why, never "denied: denied"', () => {
    for (const reason of ['', 'denied']) {
      expect(outcomeText({ kind: 'tool_call_denied', by: 'user', reason })).toBe('Denied by you.');
    }
    expect(outcomeText({ kind: 'tool_call_denied', by: 'user', reason: '99 is too high.' })).toBe(
      'Denied by you: 99 is too high.'
    );
    expect(outcomeText({ kind: 'tool_call_denied', by: 'rule', reason: 'no rm' })).toBe(
      'Denied by policy: no rm.'
    );
    expect(outcomeText({ kind: 'tool_call_denied', by: 'mode', reason: 'plan mode' })).toBe(
      'Denied by policy: plan mode.'
    );
    expect(outcomeText({ kind: 'tool_call_denied', by: 'hook', reason: 'no network' })).toBe(
      'Denied by a hook: no network.'
    );
  });

  it('a stored approval record reads the same as the live event', () => {
    expect(recordOutcomeText({ decision: 'allow_once', decided_by: 'user' })).toBe('Allowed once.');
    expect(
      recordOutcomeText({ decision: 'allow_always', decided_by: 'user', rule: 'Bash(ls:*)' })
    ).toBe('Always allowed (Bash(ls:*)).');
    expect(recordOutcomeText({ decision: 'allow_once', decided_by: 'sandbox' })).toBe(
      'Allowed by policy (sandboxed).'
    );
    expect(recordOutcomeText({ decision: 'deny', decided_by: 'rule', message: 'no rm' })).toBe(
      'Denied by policy: no rm.'
    );
    expect(recordOutcomeText({ decision: 'deny', decided_by: 'user', message: null })).toBe(
      'Denied by you.'
    );
  });
});
