import { describe, expect, it, vi } from 'vitest';

import {
  CodeRestore,
  EngineEvent,
  RewindWidgetState,
  StatusDetails,
  TurnResult,
  TurnWidgetState,
  WidgetReply
} from '../src/protocol';
import { publishMarkdown } from '../src/ui/markdown';
import { IModel, Requester } from '../src/widgets/anywidget';
import rewindWidget from '../src/widgets/rewind';
import statusWidget, { needsTrustBanner } from '../src/widgets/status';
import turnWidget, { resultLine } from '../src/widgets/turn';
import { flush, host, texts } from './helpers';

/** anywidget's model, in memory: traits, listeners, and what the view sent. */
class FakeModel<T extends object> implements IModel<T> {
  constructor(private _state: T) {}
  sent: Record<string, unknown>[] = [];
  get<K extends keyof T>(name: K): T[K] {
    return this._state[name];
  }
  set<K extends keyof T>(name: K, value: T[K]): void {
    this._state[name] = value;
    this.emit(`change:${String(name)}`);
  }
  on(name: string, callback: (...args: unknown[]) => void): void {
    (this._listeners[name] ??= []).push(callback);
  }
  off(name?: string | null, callback?: ((...args: unknown[]) => void) | null): void {
    if (name) {
      this._listeners[name] = (this._listeners[name] ?? []).filter(c => c !== callback);
    }
  }
  send(content: unknown): void {
    this.sent.push(content as Record<string, unknown>);
  }
  emit(name: string, ...args: unknown[]): void {
    (this._listeners[name] ?? []).forEach(c => c(...args));
  }
  /** The kernel's reply to the view's last request. */
  reply(extra: Partial<WidgetReply> = {}): void {
    const last = this.sent[this.sent.length - 1];
    this.emit('msg:custom', { v: 1, kind: 'reply', id: last.id, ok: true, ...extra });
  }
  private _listeners: Record<string, ((...args: unknown[]) => void)[]> = {};
}

const S = { session_id: 's1', turn_id: 't1' };

function turnModel(): FakeModel<TurnWidgetState> {
  return new FakeModel<TurnWidgetState>({ status: 'running', interactive: true, sent_note: '' });
}

function events(...list: (EngineEvent | TurnResult)[]): object {
  return { v: 1, kind: 'events', events: list };
}

describe('Requester', () => {
  it('matches a reply to its request by id, once', async () => {
    const model = new FakeModel({});
    const requests = new Requester(model, 'x', 1000);
    const answer = requests.request({ kind: 'refresh' });
    const sent = model.sent[0];
    expect(sent).toMatchObject({ v: 1, kind: 'refresh' });
    expect(requests.settle({ v: 1, kind: 'reply', id: 'other', ok: true })).toBe(false);
    expect(requests.settle({ v: 2, kind: 'reply', id: sent.id, ok: true })).toBe(false);
    expect(requests.settle({ v: 1, kind: 'reply', id: sent.id, ok: true })).toBe(true);
    expect((await answer).ok).toBe(true);
    expect(requests.settle({ v: 1, kind: 'reply', id: sent.id, ok: true })).toBe(false);
  });

  it('fails a request the kernel does not answer in time', async () => {
    vi.useFakeTimers();
    try {
      const requests = new Requester(new FakeModel({}), 'x', 50);
      const answer = requests.request({ kind: 'interrupt' });
      vi.advanceTimersByTime(60);
      const reply = await answer;
      expect(reply.ok).toBe(false);
      expect(reply.error).toContain('did not answer in time');
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('the %%agent turn widget', () => {
  it('shows a whole turn with the panel components and asks for a replay first', async () => {
    const model = turnModel();
    const root = host();
    const dispose = turnWidget.render({ model, el: root });
    expect(model.sent[0]).toMatchObject({ kind: 'replay' });
    const edit = { path: 'a.py', old_string: 'A = 1', new_string: 'A = 2' };
    model.emit(
      'msg:custom',
      events(
        { ...S, kind: 'turn_started', prompt: 'set A' },
        { ...S, kind: 'text_streamed', text: 'I will edit.' },
        { ...S, kind: 'tool_call_proposed', call_id: 'c1', tool: 'Edit', arguments: edit,
          summary: 'a.py' }, // prettier-ignore
        { ...S, kind: 'approval_requested',
          request: { id: 'r1', call_id: 'c1', tool: 'Edit', summary: 'a.py',
                     reason: 'edits ask', suggested_rule: 'Edit(a.py)' } }, // prettier-ignore
        { ...S, kind: 'notice', topic: 'hook', text: 'line one\nline two' }
      )
    );
    // the cell is the message: no user bubble; the card has the diff and the prompt
    expect(texts(root, '.jp-zengine-item-user')).toEqual([]);
    expect(texts(root, '.jp-zengine-diff span')).toContain('+A = 2\n');
    // several lines: the topic on its own line, so they stay aligned
    expect(texts(root, '.jp-zengine-item-notice')).toEqual(['hook:\nline one\nline two']);
    root.querySelector<HTMLButtonElement>('.jp-zengine-allow')!.click();
    expect(model.sent[1]).toMatchObject({
      kind: 'approval_answer',
      request_id: 'r1',
      decision: { action: 'allow_once' }
    });
    model.reply();
    await flush();
    expect(texts(root, '.jp-zengine-approval-outcome')).toEqual(['Allowed once.']);
    model.emit(
      'msg:custom',
      events(
        { ...S, kind: 'tool_call_approved', call_id: 'c1', by: 'user' },
        { ...S, kind: 'verification_changed', badge: 'failed', reason: '1 check failed' },
        { ...S, kind: 'verification_changed', badge: 'verified', reason: 'tests passed' },
        { kind: 'turn_result', status: 'completed', changed: ['a.py'], cost: '$0.01' }
      )
    );
    expect(texts(root, '.jp-zengine-badge')).toEqual(['Verified: tests passed']);
    expect(texts(root, '.jp-zengine-turn-result')).toEqual(['Turn completed. Changed a.py. $0.01']);
    // the turn bar is the cell's footer, after the conversation
    const bar = root.querySelector('.jp-zengine-turnbar')!;
    expect(bar.previousElementSibling?.classList.contains('jp-zengine-messages')).toBe(true);
    dispose();
  });

  it('starts over on a replay and hides Interrupt once the turn is over', () => {
    const model = turnModel();
    const root = host();
    turnWidget.render({ model, el: root });
    model.emit('msg:custom', events({ ...S, kind: 'text_streamed', text: 'old' }));
    model.emit('msg:custom', {
      ...events({ ...S, kind: 'error', message: 'boom', hint: 'do x' }),
      replay: true
    });
    expect(texts(root, '.jp-zengine-item-assistant')).toEqual([]);
    expect(texts(root, '.jp-zengine-item-error')).toEqual(['boom (do x)']);
    const interrupt = root.querySelector<HTMLButtonElement>('.jp-zengine-interrupt')!;
    expect(interrupt.hidden).toBe(false);
    model.set('status', 'completed');
    expect(interrupt.hidden).toBe(true);
  });

  it('says how a turn ended in one line', () => {
    expect(resultLine({ kind: 'turn_result', status: 'failed', reason: 'no key' })).toBe(
      'Turn failed: no key.'
    );
  });

  it('renders markdown through the published renderer', async () => {
    const rendered: string[] = [];
    publishMarkdown({
      block: hostNode => source => {
        rendered.push(source);
        hostNode.innerHTML = `<strong>${source.length}</strong>`;
        return Promise.resolve();
      }
    });
    try {
      const model = turnModel();
      const root = host();
      turnWidget.render({ model, el: root });
      model.emit('msg:custom', events({ ...S, kind: 'text_streamed', text: '**hi**' }));
      model.emit('msg:custom', events({ kind: 'turn_result', status: 'completed' }));
      await flush();
      expect(rendered).toContain('**hi**');
      expect(root.querySelector('.jp-zengine-item-assistant strong')?.textContent).toBe('6');
    } finally {
      publishMarkdown(undefined as never);
    }
  });
});

describe('the status widget', () => {
  it('shows the trust banner with the withheld settings and sends the answer', async () => {
    const model = new FakeModel({
      v: 1 as const,
      info: { version: '0.1', project: '/p', data: '/d' },
      details: {
        trusted: false,
        withheld: [{ key: 'permissions.allow', layer: 'project' as const, detail: 'Bash(ls)' }],
        provider: 'anthropic',
        sandbox: { enabled: true, backend: 'bubblewrap' }
      },
      dismissed: false,
      busy: '',
      error: ''
    });
    const root = host();
    statusWidget.render({ model, el: root });
    expect(texts(root, '.jp-zengine-trust-withheld li')).toEqual([
      'permissions.allow (project): Bash(ls)'
    ]);
    root.querySelector<HTMLButtonElement>('.jp-zengine-trust-yes')!.click();
    expect(model.sent[0]).toMatchObject({ kind: 'trust_answer', trust: true });
    expect(texts(root, '.jp-zengine-status-value')).toContain("the provider's default (anthropic)");
  });
});

describe('the status widget trust banner', () => {
  const state = (details: Partial<StatusDetails>) =>
    new FakeModel({
      v: 1 as const,
      info: { version: '0.1', project: '/p', data: '/d' },
      details: {
        trusted: false,
        provider: 'anthropic',
        sandbox: { enabled: true, backend: 'bubblewrap' },
        ...details
      },
      dismissed: false,
      busy: '',
      error: ''
    });

  it('is not shown for an untrusted project that withholds nothing: only the row', () => {
    const root = host();
    statusWidget.render({ model: state({ withheld: [] }), el: root });
    expect(root.querySelector('.jp-zengine-trust')).toBeNull();
    expect(texts(root, '.jp-zengine-status-value')).toContain('not trusted');
  });

  it('is shown for a trust problem, without an empty withheld list', () => {
    const root = host();
    statusWidget.render({ model: state({ trust_problem: 'trust.json is damaged' }), el: root });
    expect(texts(root, '.jp-zengine-trust-problem')).toEqual(['trust.json is damaged']);
    expect(root.querySelector('.jp-zengine-trust-lead')).toBeNull();
    expect(root.querySelector('.jp-zengine-trust-withheld')).toBeNull();
  });

  it('needsTrustBanner: withheld settings or a problem, never once trusted', () => {
    const base = { provider: 'x', sandbox: { enabled: false } };
    const item = { key: 'k', layer: 'project' as const };
    expect(needsTrustBanner({ ...base, trusted: false })).toBe(false);
    expect(needsTrustBanner({ ...base, trusted: false, withheld: [item] })).toBe(true);
    expect(needsTrustBanner({ ...base, trusted: false, trust_problem: 'p' })).toBe(true);
    expect(needsTrustBanner({ ...base, trusted: true, withheld: [item] })).toBe(false);
  });
});

describe('the rewind widget', () => {
  it('lists the points, sends a rewind and shows the outcome in the panel words', () => {
    const model = new FakeModel<RewindWidgetState>({
      session_id: 's1',
      points: [
        { number: 1, turn_id: 't1', message_id: 'm1', prompt: 'set A', created: '',
          checkpoint_id: 'abcdef1234567890' }, // prettier-ignore
        { number: 2, turn_id: 't2', message_id: 'm2', prompt: 'say hi', created: '' }
      ],
      result: null,
      busy: '',
      error: ''
    });
    const root = host();
    rewindWidget.render({ model, el: root });
    const codes = root.querySelectorAll<HTMLButtonElement>('.jp-zengine-rewind-code');
    expect(codes[1].disabled).toBe(true); // no checkpoint: nothing to put back
    codes[0].click();
    expect(model.sent[0]).toMatchObject({ kind: 'rewind', to: 't1', what: 'code' });
    model.set('result', {
      to_turn_id: 't1',
      prompt: 'set A',
      conversation: false,
      code: { target: 'abc' } as CodeRestore,
      what: 'code',
      text: 'files put back\n  restored a.py'
    });
    expect(texts(root, '.jp-zengine-rewind-result-title')).toEqual([
      'Rewound the files to before “set A”.'
    ]);
    expect(texts(root, '.jp-zengine-rewind-text')).toEqual(['files put back\n  restored a.py']);
  });
});
