/**
 * A unified diff as the panel and the cell widget show it: one section per file, headed by a
 * button with the path and its +N −M counts that folds the section (open when it is short,
 * folded above COLLAPSE_LINES lines), then its lines on red / green / plain grounds, the @@
 * hunk headers among them as context. Colours come from theme variables (style/base.css).
 */

import { el } from './dom';

/** A file's diff longer than this many lines starts folded. */
export const COLLAPSE_LINES = 40;

export type LineKind = 'add' | 'del' | 'hunk' | 'ctx';

export interface IDiffFile {
  /** The file's path ('' when the diff names none). */
  path: string;
  lines: { kind: LineKind; text: string }[];
  added: number;
  removed: number;
}

/** Strip git's `a/` / `b/` prefix; `/dev/null` is no path. */
function cleanPath(raw: string): string {
  const path = raw.split('\t')[0].trim();
  if (path === '/dev/null') {
    return '';
  }
  return /^[ab]\//.test(path) ? path.slice(2) : path;
}

/** Split a unified diff (one or several files, `---`/`+++` headed or not) into files. */
export function parseDiff(diff: string): IDiffFile[] {
  const files: IDiffFile[] = [];
  let file: IDiffFile | null = null;
  let oldPath = '';
  let left = { old: 0, new: 0 }; // lines still due in the current hunk (by its @@ header)
  const rows = diff.replace(/\n$/, '').split('\n');
  for (let i = 0; i < rows.length; i++) {
    const line = rows[i];
    const inHunk = left.old > 0 || left.new > 0;
    if (!inHunk && line.startsWith('diff --git ')) {
      oldPath = '';
      file = null;
      continue;
    }
    if (!inHunk && line.startsWith('--- ') && (rows[i + 1] ?? '').startsWith('+++ ')) {
      oldPath = cleanPath(line.slice(4));
      continue;
    }
    if (!inHunk && line.startsWith('+++ ') && (file === null || rows[i - 1]?.startsWith('--- '))) {
      file = { path: cleanPath(line.slice(4)) || oldPath, lines: [], added: 0, removed: 0 };
      files.push(file);
      oldPath = '';
      continue;
    }
    if (!file) {
      file = { path: oldPath, lines: [], added: 0, removed: 0 };
      files.push(file);
    }
    const hunk = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(line);
    const kind: LineKind = hunk
      ? 'hunk'
      : line.startsWith('+')
        ? 'add'
        : line.startsWith('-')
          ? 'del'
          : 'ctx';
    if (hunk) {
      left = { old: Number(hunk[1] ?? 1), new: Number(hunk[2] ?? 1) };
    } else if (inHunk && !line.startsWith('\\')) {
      left = {
        old: Math.max(0, left.old - (kind === 'add' ? 0 : 1)),
        new: Math.max(0, left.new - (kind === 'del' ? 0 : 1))
      };
    }
    file.added += kind === 'add' ? 1 : 0;
    file.removed += kind === 'del' ? 1 : 0;
    file.lines.push({ kind, text: line });
  }
  return files;
}

/** "+3 −1" (a real minus sign, as a diff viewer writes it). */
export function countsText(file: IDiffFile): string {
  return `+${file.added} \u2212${file.removed}`;
}

/** The diff of one tool call, in its card. */
export class DiffView {
  constructor() {
    this.node = document.createElement('div');
    this.node.className = 'jp-zengine-diff';
    this.node.setAttribute('role', 'group');
    this.node.setAttribute('aria-label', 'Diff');
  }

  readonly node: HTMLElement;

  /** Show `diff`, replacing what was shown; a section the user opened or folded stays so. */
  set(diff: string): void {
    this.node.replaceChildren();
    const files = parseDiff(diff);
    files.forEach((file, index) => this._section(file, index));
  }

  private _section(file: IDiffFile, index: number): void {
    const section = el('section', 'jp-zengine-diff-section', null, this.node);
    section.dataset.path = file.path;
    section.dataset.added = String(file.added);
    section.dataset.removed = String(file.removed);
    const head = el('button', 'jp-zengine-diff-head', null, section);
    head.type = 'button';
    el('span', 'jp-zengine-diff-path', file.path || 'changes', head);
    const counts = el('span', 'jp-zengine-diff-counts', null, head);
    el('span', 'jp-zengine-diff-plus', `+${file.added}`, counts);
    el('span', 'jp-zengine-diff-minus', `\u2212${file.removed}`, counts);
    const what = `${file.path || 'the changes'}: ${file.added} added, ${file.removed} removed`;
    head.title = what;
    const body = el('pre', 'jp-zengine-diff-lines', null, section);
    body.id = `jp-zengine-diff-${++SECTIONS}`;
    head.setAttribute('aria-controls', body.id);
    for (const line of file.lines) {
      el('span', `jp-zengine-diff-${line.kind}`, `${line.text}\n`, body);
    }
    const key = `${index}:${file.path}`;
    const open = this._chosen.get(key) ?? file.lines.length <= COLLAPSE_LINES;
    const show = (value: boolean) => {
      body.hidden = !value;
      head.setAttribute('aria-expanded', String(value));
      head.setAttribute('aria-label', `${value ? 'Hide' : 'Show'} the diff of ${what}`);
      section.dataset.open = String(value);
    };
    show(open);
    head.addEventListener('click', event => {
      event.preventDefault();
      const value = body.hidden;
      this._chosen.set(key, value);
      show(value);
    });
  }

  /** Sections the user opened or folded, by position and path. */
  private _chosen = new Map<string, boolean>();
}

let SECTIONS = 0;
