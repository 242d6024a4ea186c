import { describe, expect, it } from 'vitest';

import { COLLAPSE_LINES, countsText, DiffView, parseDiff } from '../src/ui/diff';
import { host, texts } from './helpers';

const TWO_FILES = [
  'diff --git a/a.py b/a.py',
  '--- a/a.py',
  '+++ b/a.py',
  '@@ -1,2 +1,2 @@',
  ' keep',
  '-x = 1',
  '+x = 2',
  '--- a/b.py',
  '+++ b/b.py',
  '@@ -1 +1,2 @@',
  '+new',
  '+more',
  ''
].join('\n');

describe('parseDiff', () => {
  it('one file per ---/+++ header, with its counts; hunk headers kept as context', () => {
    const files = parseDiff(TWO_FILES);
    expect(files.map(f => [f.path, f.added, f.removed])).toEqual([
      ['a.py', 1, 1],
      ['b.py', 2, 0]
    ]);
    expect(files[0].lines.map(l => l.kind)).toEqual(['hunk', 'ctx', 'del', 'add']);
    expect(countsText(files[0])).toBe('+1 \u22121');
  });

  it('a Write (only +++), a new file (/dev/null), a diff with no header', () => {
    expect(parseDiff('+++ notes.md\n+hi').map(f => [f.path, f.added])).toEqual([['notes.md', 1]]);
    expect(parseDiff('--- /dev/null\n+++ b/new.py\n+x').map(f => f.path)).toEqual(['new.py']);
    expect(parseDiff('--- a/old.py\n+++ /dev/null\n-x').map(f => f.path)).toEqual(['old.py']);
    expect(parseDiff('-a\n+b').map(f => [f.path, f.added, f.removed])).toEqual([['', 1, 1]]);
  });

  it('a removed line that reads "-- x" or an added "++ x" is a line, not a header', () => {
    const files = parseDiff('--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n--- x\n+++ y');
    expect(files).toHaveLength(1);
    expect(files[0].lines.map(l => l.kind)).toEqual(['hunk', 'del', 'add']);
  });
});

describe('DiffView', () => {
  it('a section per file: a head with path and +N \u2212M that folds its lines', () => {
    const view = new DiffView();
    host().appendChild(view.node);
    view.set(TWO_FILES);
    expect(view.node.getAttribute('aria-label')).toBe('Diff');
    expect(texts(view.node, '.jp-zengine-diff-path')).toEqual(['a.py', 'b.py']);
    expect(texts(view.node, '.jp-zengine-diff-counts')).toEqual(['+1\u22121', '+2\u22120']);
    const [head] = view.node.querySelectorAll<HTMLButtonElement>('.jp-zengine-diff-head');
    const lines = view.node.querySelector<HTMLElement>('.jp-zengine-diff-lines')!;
    expect(head.getAttribute('aria-expanded')).toBe('true'); // short: open
    expect(head.getAttribute('aria-controls')).toBe(lines.id);
    expect(Array.from(lines.children).map(s => [s.className, s.textContent])).toEqual([
      ['jp-zengine-diff-hunk', '@@ -1,2 +1,2 @@\n'],
      ['jp-zengine-diff-ctx', ' keep\n'],
      ['jp-zengine-diff-del', '-x = 1\n'],
      ['jp-zengine-diff-add', '+x = 2\n']
    ]);
    head.click();
    expect(lines.hidden).toBe(true);
    expect(head.getAttribute('aria-expanded')).toBe('false');
    expect(head.getAttribute('aria-label')).toBe('Show the diff of a.py: 1 added, 1 removed');
    // the user's choice survives a new diff of the same files (the result's replaces the preview)
    view.set(TWO_FILES);
    expect(view.node.querySelector<HTMLElement>('.jp-zengine-diff-lines')!.hidden).toBe(true);
  });

  it(`folds a file's diff longer than ${COLLAPSE_LINES} lines`, () => {
    const long = ['+++ big.py', ...Array.from({ length: COLLAPSE_LINES + 1 }, (_, i) => `+${i}`)];
    const view = new DiffView();
    view.set(long.join('\n'));
    const section = view.node.querySelector<HTMLElement>('.jp-zengine-diff-section')!;
    expect(section.dataset).toMatchObject({ open: 'false', added: String(COLLAPSE_LINES + 1) });
    view.set(long.slice(0, COLLAPSE_LINES + 1).join('\n')); // exactly the limit: open
    expect(view.node.querySelector<HTMLElement>('.jp-zengine-diff-section')!.dataset.open).toBe(
      'true'
    );
  });
});
