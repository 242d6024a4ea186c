import { describe, expect, it } from 'vitest';

import { argumentDiff, summarize, ToolCard } from '../src/ui/toolcard';
import { host, texts } from './helpers';

/** Each diff line's class and text, as the card shows it. */
function lines(card: ToolCard): [string, string][] {
  return Array.from(card.node.querySelectorAll('.jp-zengine-diff span')).map(s => [
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
    expect(texts(node, '.jp-zengine-command')).toEqual(['pytest -q']);
    expect(node.dataset.state).toBe('proposed');
    expect(texts(node, '.jp-zengine-tool-state')).toEqual(['proposed']);
    expect(node.querySelector('.jp-zengine-diff')).toBeNull();
    expect(node.lastElementChild).toBe(card.slot);
  });

  it('heads the card with summarize(args), live and rebuilt alike', () => {
    const card = new ToolCard(host(), 'c1', 'Verify', { checks: ['rate'] });
    expect(texts(card.node, '.jp-zengine-tool-head span:not(.jp-zengine-tool-state)')).toEqual([
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
      ['jp-zengine-diff-file', '--- a.py\n'],
      ['jp-zengine-diff-file', '+++ a.py\n'],
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
      ['jp-zengine-diff-file', '--- a/a.py\n'],
      ['jp-zengine-diff-file', '+++ b/a.py\n'],
      ['jp-zengine-diff-hunk', '@@ -1 +1 @@\n'],
      ['', ' ctx\n'],
      ['jp-zengine-diff-del', '-x = 1\n'],
      ['jp-zengine-diff-add', '+x = 2\n']
    ]);
  });

  it('a diff known only at the end is added before the slot', () => {
    const card = new ToolCard(host(), 'c1', 'Bash', { command: 'sed -i s/a/b/ f' });
    card.finish('ok', false, '+++ f\n+b');
    const diff = card.node.querySelector('.jp-zengine-diff')!;
    expect(diff.nextElementSibling).toBe(card.slot);
    expect(lines(card)).toHaveLength(2);
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

  it('finish: done or failed, with the result collapsed; a second result replaces the first', () => {
    const card = new ToolCard(host(), 'c1', 'Bash', { command: 'ls' });
    card.finish('a\nb', false);
    expect(card.node.dataset.state).toBe('done');
    const result = card.node.querySelector<HTMLDetailsElement>('details.jp-zengine-result')!;
    expect(result.open).toBe(false);
    expect(texts(result, 'summary')).toEqual(['Result']);
    expect(texts(result, '.jp-zengine-output')).toEqual(['a\nb']);

    card.finish('exit 1', true);
    expect(card.node.dataset.state).toBe('failed');
    expect(card.node.querySelectorAll('.jp-zengine-result')).toHaveLength(1);
    expect(texts(card.node, '.jp-zengine-result summary')).toEqual(['Error']);
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
