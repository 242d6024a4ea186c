import { describe, expect, it, vi } from 'vitest';

import { argumentDiff, duration, errorLine, summarize, ToolCard } from '../src/ui/toolcard';
import { groupOf, ToolGroup } from '../src/ui/toolgroup';
import { host, texts } from './helpers';

/** Each diff line's class and text, as the card shows it. */
function lines(card: ToolCard): [string, string][] {
  return Array.from(card.node.querySelectorAll('.jp-zengine-diff-lines span')).map(s => [
    s.className,
    s.textContent ?? ''
  ]);
}

describe('summarize', () => {
  it('takes the first of command, path, pattern, url...', () => {
    expect(summarize('Bash', { command: 'ls', path: 'x' })).toBe('ls');
    expect(summarize('Read', { path: 'src/a.py' })).toBe('src/a.py');
    expect(summarize('Grep', { pattern: 'TODO', limit: 3 })).toBe('TODO');
    expect(summarize('Fetch', { url: 'http://127.0.0.1/' })).toBe('http://127.0.0.1/');
  });

  it('reads a list or an object argument as the target, else nothing', () => {
    expect(summarize('Verify', { checks: ['rate'] })).toBe('rate');
    expect(summarize('Verify', { checks: ['rate', 'lint'] })).toBe('rate, lint');
    expect(summarize('Todo', { todos: [{ content: 'a' }] })).toBe('[{"content":"a"}]');
    expect(summarize('Ask', { options: { a: 1 } })).toBe('{"a":1}');
    expect(summarize('Task', { description: 'find  the\nbug', prompt: 'long' })).toBe(
      'find  the\nbug'
    );
    expect(summarize('Ask', { question: 'which\none?' })).toBe('which one?');
    expect(summarize('Todo', { items: [] })).toBe('');
    expect(summarize('Verify', {})).toBe('');
    expect(summarize('Bash', { command: '' })).toBe('');
  });

  it('cuts long values', () => {
    const long = 'x'.repeat(200);
    expect(summarize('Bash', { command: long })).toBe(`${'x'.repeat(117)}…`);
    expect(summarize('Bash', { command: 'y'.repeat(120) })).toBe('y'.repeat(120));
  });
});

describe('argumentDiff', () => {
  it('shows an edit as removed then added lines', () => {
    expect(argumentDiff({ path: 'a.py', old_string: 'x = 1\ny = 2', new_string: 'x = 3' })).toBe(
      ['--- a.py', '+++ a.py', '-x = 1', '-y = 2', '+x = 3'].join('\n')
    );
  });

  it('shows a write as added lines, and nothing for other tools', () => {
    expect(argumentDiff({ path: 'n.txt', content: 'a\nb' })).toBe('+++ n.txt\n+a\n+b');
    expect(argumentDiff({ command: 'ls' })).toBeNull();
    expect(argumentDiff({ path: 'a.py', old_string: 'x' })).toBeNull();
  });
});

describe('ToolCard', () => {
  it('shows name, summary, command and starts proposed', () => {
    const card = new ToolCard(host(), 'c1', 'Bash', { command: 'pytest -q' });
    const node = card.node;
    expect(node.tagName).toBe('LI');
    expect(node.dataset).toMatchObject({ kind: 'tool', callId: 'c1', tool: 'Bash' });
    expect(node.getAttribute('aria-label')).toBe('Tool call Bash');
    expect(texts(node, '.jp-zengine-tool-name')).toEqual(['Bash']);
    expect(texts(node, '.jp-zengine-tool-summary')).toEqual(['pytest -q']);
    expect(texts(node, '.jp-zengine-tool-body .jp-zengine-command')).toEqual(['pytest -q']);
    expect(node.dataset.state).toBe('proposed');
    expect(texts(node, '.jp-zengine-tool-state')).toEqual(['proposed']);
    expect(node.querySelector('.jp-zengine-diff')).toBeNull();
    expect(node.lastElementChild).toBe(card.slot);
  });

  it('heads the card with summarize(args), live and rebuilt alike', () => {
    const card = new ToolCard(host(), 'c1', 'Verify', { checks: ['rate'] });
    expect(texts(card.node, '.jp-zengine-tool-name, .jp-zengine-tool-summary')).toEqual([
      'Verify',
      'rate'
    ]);
  });

  it('colours the arguments diff line by line, above the approval slot', () => {
    const card = new ToolCard(host(), 'c1', 'Edit', {
      path: 'a.py',
      old_string: 'x = 1',
      new_string: 'x = 2'
    });
    expect(lines(card)).toEqual([
      ['jp-zengine-diff-del', '-x = 1\n'],
      ['jp-zengine-diff-add', '+x = 2\n']
    ]);
    const diff = card.node.querySelector('.jp-zengine-diff')!;
    expect(diff.getAttribute('aria-label')).toBe('Diff');
    expect(diff.nextElementSibling).toBe(card.slot);
  });

  it('the real diff replaces the arguments one, hunk headers and context included', () => {
    const card = new ToolCard(host(), 'c1', 'Edit', {
      path: 'a.py',
      old_string: 'x = 1',
      new_string: 'x = 2'
    });
    card.finish('edited', false, '--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n ctx\n-x = 1\n+x = 2');
    expect(card.node.querySelectorAll('.jp-zengine-diff')).toHaveLength(1);
    expect(lines(card)).toEqual([
      ['jp-zengine-diff-hunk', '@@ -1 +1 @@\n'],
      ['jp-zengine-diff-ctx', ' ctx\n'],
      ['jp-zengine-diff-del', '-x = 1\n'],
      ['jp-zengine-diff-add', '+x = 2\n']
    ]);
  });

  it('a diff known only at the end is added before the slot', () => {
    const card = new ToolCard(host(), 'c1', 'Bash', { command: 'sed -i s/a/b/ f' });
    card.finish('ok', false, '+++ f\n+b');
    const diff = card.node.querySelector('.jp-zengine-diff')!;
    expect(diff.nextElementSibling).toBe(card.slot);
    expect(lines(card)).toEqual([['jp-zengine-diff-add', '+b\n']]);
  });

  it('moves through its states, with a detail', () => {
    const card = new ToolCard(host(), 'c1', 'Bash', { command: 'ls' });
    for (const state of ['allowed', 'running'] as const) {
      card.setState(state);
      expect(card.node.dataset.state).toBe(state);
      expect(texts(card.node, '.jp-zengine-tool-state')).toEqual([state]);
    }
    card.setState('denied', 'by you');
    expect(texts(card.node, '.jp-zengine-tool-state')).toEqual(['denied: by you']);
  });

  it('finish: done or failed, the result in the closed body; a second result replaces the first', () => {
    const card = new ToolCard(host(), 'c1', 'Bash', { command: 'ls' });
    card.finish('a\nb', false);
    expect(card.node.dataset.state).toBe('done');
    expect(card.open).toBe(false);
    const body = card.node.querySelector<HTMLElement>('.jp-zengine-tool-body')!;
    expect(body.hidden).toBe(true);
    expect(texts(body, '.jp-zengine-result-label')).toEqual(['Result']);
    expect(texts(body, '.jp-zengine-output')).toEqual(['a\nb']);
    expect(card.node.querySelector<HTMLElement>('.jp-zengine-tool-error')!.hidden).toBe(true);

    card.finish('exit 1', true);
    expect(card.node.dataset.state).toBe('failed');
    expect(card.node.querySelectorAll('.jp-zengine-result')).toHaveLength(1);
    expect(texts(card.node, '.jp-zengine-result-label')).toEqual(['Error']);
    expect(texts(card.node, '.jp-zengine-output')).toEqual(['exit 1']);
  });

  it('a denied call stays denied when its (error) result arrives', () => {
    const card = new ToolCard(host(), 'c1', 'Bash', { command: 'rm -rf /' });
    card.setState('denied', 'by you');
    card.finish('Denied by you', true);
    expect(card.node.dataset.state).toBe('denied');
    expect(texts(card.node, '.jp-zengine-tool-state')).toEqual(['denied: by you']);
  });
});

describe('ToolCard, compact', () => {
  it('is one line (icon, name, target, state) that opens on the input and result', () => {
    const card = new ToolCard(host(), 'c1', 'Grep', { pattern: 'TODO', path: 'src' });
    const head = card.node.querySelector<HTMLButtonElement>('button.jp-zengine-tool-head')!;
    expect(Array.from(head.children).map(c => c.className)).toEqual([
      'jp-zengine-tool-icon',
      'jp-zengine-tool-name',
      'jp-zengine-tool-summary',
      'jp-zengine-tool-state',
      'jp-zengine-tool-time'
    ]);
    expect(head.querySelector('.jp-zengine-tool-icon')!.getAttribute('aria-hidden')).toBe('true');
    expect(head.getAttribute('aria-expanded')).toBe('false');
    const body = card.node.querySelector<HTMLElement>('.jp-zengine-tool-body')!;
    expect(body.hidden).toBe(true);
    expect(JSON.parse(texts(body, '.jp-zengine-tool-input')[0])).toEqual({
      pattern: 'TODO',
      path: 'src'
    });
    card.finish('src/a.py:1: TODO', false);
    head.click();
    expect(card.open).toBe(true);
    expect(body.hidden).toBe(false);
    expect(head.getAttribute('aria-expanded')).toBe('true');
    expect(card.node.dataset.open).toBe('true');
    head.click();
    expect(body.hidden).toBe(true);
  });

  it('an edit shows its diff without a click; its input leaves out what the diff shows', () => {
    const card = new ToolCard(host(), 'c1', 'Edit', {
      path: 'a.py',
      old_string: 'x = 1',
      new_string: 'x = 2'
    });
    const diff = card.node.querySelector<HTMLElement>('.jp-zengine-diff')!;
    expect(card.node.querySelector('.jp-zengine-tool-body')!.contains(diff)).toBe(false);
    expect(diff.hidden).toBe(false);
    // the path is in the summary and the diff's head: no input block repeats it
    expect(card.node.querySelector('.jp-zengine-tool-input')).toBeNull();
    const more = new ToolCard(host(), 'c2', 'Edit', {
      path: 'a.py',
      old_string: 'x',
      new_string: 'y',
      replace_all: true
    });
    expect(JSON.parse(texts(more.node, '.jp-zengine-tool-input')[0])).toEqual({
      replace_all: true
    });
  });

  it('a failed call shows its error line under the summary, closed', () => {
    const card = new ToolCard(host(), 'c1', 'Bash', { command: 'pytest' });
    card.finish('\nE   AssertionError: 1 != 2\nmore\n', true);
    const error = card.node.querySelector<HTMLElement>('.jp-zengine-tool-error')!;
    expect(error.hidden).toBe(false);
    expect(error.textContent).toBe('E   AssertionError: 1 != 2');
    expect(card.open).toBe(false);
    expect(card.node.querySelector('.jp-zengine-tool-body')!.contains(error)).toBe(false);
  });

  it('a denied call shows no error line', () => {
    const card = new ToolCard(host(), 'c1', 'Bash', { command: 'rm x' });
    card.setState('denied', 'by you');
    card.finish('Denied by you', true);
    expect(card.node.querySelector<HTMLElement>('.jp-zengine-tool-error')!.hidden).toBe(true);
  });

  it('measures how long a call ran, from running to its result', () => {
    vi.useFakeTimers();
    try {
      vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
      const card = new ToolCard(host(), 'c1', 'Bash', { command: 'sleep 2' });
      card.setState('running');
      vi.setSystemTime(new Date('2026-01-01T00:00:02.340Z'));
      card.finish('', false);
      expect(texts(card.node, '.jp-zengine-tool-time')).toEqual(['2.3s']);
      expect(card.node.dataset.durationMs).toBe('2340');
    } finally {
      vi.useRealTimers();
    }
  });

  it('words durations and error lines', () => {
    expect(duration(0.04)).toBe('0.0s');
    expect(duration(9.94)).toBe('9.9s');
    expect(duration(12.4)).toBe('12s');
    expect(duration(125)).toBe('2m 5s');
    expect(errorLine('')).toBe('failed');
    expect(errorLine('x'.repeat(200))).toBe(`${'x'.repeat(117)}…`);
  });
});

describe('ToolGroup', () => {
  function read(parent: HTMLElement, id: string, path: string): ToolCard {
    const previous = parent.lastElementChild;
    const card = new ToolCard(parent, id, 'Read', { path });
    ToolGroup.join(previous, card);
    return card;
  }

  it('consecutive reads share one line, "Read 3 files", that opens on each call', () => {
    const list = host();
    const cards = ['a.py', 'b.py', 'c.py'].map((path, i) => read(list, `c${i}`, path));
    expect(list.children).toHaveLength(1);
    const group = list.firstElementChild as HTMLElement;
    expect(group.className).toContain('jp-zengine-tool-group');
    expect(group.dataset.kind).toBe('tool-group');
    const head = group.querySelector<HTMLButtonElement>('.jp-zengine-tool-group-head')!;
    expect(head.textContent).toBe('Read 3 files');
    expect(head.getAttribute('aria-expanded')).toBe('false');
    const inner = group.querySelector<HTMLElement>('.jp-zengine-tool-group-list')!;
    expect(inner.hidden).toBe(true);
    expect(Array.from(inner.children)).toEqual(cards.map(c => c.node));
    expect(groupOf(cards[1])?.size).toBe(3);
    head.click();
    expect(inner.hidden).toBe(false);
  });

  it('a single read, a read after another tool or after a waiting read stands alone', () => {
    const list = host();
    const first = read(list, 'c1', 'a.py');
    expect(groupOf(first)).toBeNull();
    const bash = new ToolCard(list, 'c2', 'Bash', { command: 'ls' });
    const previous = list.lastElementChild;
    const next = new ToolCard(list, 'c3', 'Read', { path: 'b.py' });
    expect(ToolGroup.join(previous, next)).toBeNull();
    expect(
      ToolGroup.join(bash.node, new ToolCard(list, 'c4', 'Bash', { command: 'x' }))
    ).toBeNull();
    next.node.dataset.waiting = 'true';
    expect(read(list, 'c5', 'c.py') && list.children).toHaveLength(5);
  });
});
