/**
 * The small toolbar on each rendered code block (`pre > code`) of an agent's message: Copy in
 * every view; in the panel also Insert above / Insert below (a new cell in the active notebook,
 * next to its active cell) and Replace selection (in the editor that last had the focus).
 * The panel hands in an `ICodeActions` port that reaches JupyterLab; the cell widget has none,
 * so it shows Copy only. Icon buttons with accessible names and tooltips: four of them fit a
 * 250 px panel on one strip above the code, never over it.
 */

import { el } from './dom';

/** What a code block can reach right now (asked again before every use). */
export interface ICodeTargets {
  /** The active notebook's name; null: no notebook is open. */
  notebook: string | null;
  /** The editor that last had the focus ("pipeline.py", "cell 2 of analysis.ipynb"), or null. */
  editor: string | null;
  /** Whether that editor has a non-empty selection. */
  selection: boolean;
}

/** The panel's port to JupyterLab (implemented in src/codeactions.ts). */
export interface ICodeActions {
  targets(): ICodeTargets;
  /** A new cell of `kind` with `source`, above or below the active cell; false: not done. */
  insert(source: string, kind: CellKind, where: 'above' | 'below'): boolean;
  /** Replace the last focused editor's selection with `source`; false: not done. */
  replaceSelection(source: string): boolean;
}

export type CellKind = 'code' | 'markdown';

const MARKDOWN_LANGS = new Set(['markdown', 'md']);

/** The fence's language from the rendered block (`language-python`), '' when unlabelled. */
export function codeLanguage(code: HTMLElement): string {
  for (const cls of Array.from(code.classList)) {
    if (cls.startsWith('language-')) {
      return cls.slice('language-'.length).toLowerCase();
    }
  }
  return '';
}

/** A markdown cell for a ```markdown fence, a code cell for anything else. */
export function cellKind(language: string): CellKind {
  return MARKDOWN_LANGS.has(language) ? 'markdown' : 'code';
}

/** The block's source as a cell wants it: the code's text without its final newline. */
export function codeSource(code: HTMLElement): string {
  return (code.textContent ?? '').replace(/\n$/, '');
}

function svg(path: string): string {
  return (
    '<svg xmlns="http://www.w3.org/2000/svg" width="14" height="14" viewBox="0 0 24 24" ' +
    `aria-hidden="true" focusable="false"><path fill="currentColor" d="${path}"/></svg>`
  );
}

export const ICONS = {
  copy: svg(
    'M16 1H4a2 2 0 0 0-2 2v14h2V3h12V1zm3 4H8a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h11a2 2 0 0 0 ' +
      '2-2V7a2 2 0 0 0-2-2zm0 16H8V7h11v14z'
  ),
  // a plus over a cell, a cell under a plus (JupyterLab's add-above / add-below, simplified)
  above: svg('M11 2h2v4h4v2h-4v4h-2V8H7V6h4V2zM3 14h18v8H3v-8zm2 2v4h14v-4H5z'),
  below: svg('M3 2h18v8H3V2zm2 2v4h14V4H5zm6 8h2v4h4v2h-4v4h-2v-4H7v-2h4v-4z'),
  replace: svg(
    'M3 17.25V21h3.75L17.81 9.94l-3.75-3.75L3 17.25zM20.71 7.04a1 1 0 0 0 0-1.41l-2.34-2.34' +
      'a1 1 0 0 0-1.41 0l-1.83 1.83 3.75 3.75 1.83-1.83z'
  )
};

/** Words for the buttons: their names, and why one is unavailable. */
export const WORDS = {
  copy: 'Copy code',
  above: 'Insert above the active cell',
  below: 'Insert below the active cell',
  replace: 'Replace the selection',
  noNotebook: 'Open a notebook to insert the code into it',
  noEditor: 'Click into a notebook cell or a file editor and select the text to replace',
  noSelection: 'Select the text to replace first'
};

function iconButton(parent: HTMLElement, cls: string, icon: string, name: string) {
  const node = el('button', `jp-zengine-code-tool ${cls}`, null, parent);
  node.type = 'button';
  node.innerHTML = icon;
  node.setAttribute('aria-label', name);
  node.title = name;
  return node;
}

/** Mark a button (un)available: it stays focusable, its name and tooltip say why not. */
function available(node: HTMLButtonElement, name: string, why: string | null): void {
  node.setAttribute('aria-disabled', String(why !== null));
  node.title = why === null ? name : `${name}: ${why}`;
  node.setAttribute('aria-label', node.title);
}

/** The toolbar of one code block. */
export class CodeTools {
  constructor(
    readonly pre: HTMLElement,
    readonly code: HTMLElement,
    private readonly _actions: ICodeActions | null
  ) {
    pre.classList.add('jp-zengine-code');
    const language = codeLanguage(code);
    if (language) {
      pre.dataset.lang = language;
    }
    this.node = el('div', 'jp-zengine-code-tools', null);
    this.node.setAttribute('role', 'toolbar');
    this.node.setAttribute('aria-label', 'Code block');
    this.copy = iconButton(this.node, 'jp-zengine-copy', ICONS.copy, WORDS.copy);
    this.copy.addEventListener('click', event => {
      event.preventDefault();
      void copyText(code.textContent ?? '').then(ok => {
        this.copy.dataset.copied = String(ok);
        this.copy.title = ok ? 'Copied' : 'Copy failed: select the code and copy it';
        this.copy.setAttribute('aria-label', ok ? 'Copied' : 'Copy failed');
      });
    });
    if (_actions) {
      const kind = cellKind(language);
      this.above = iconButton(this.node, 'jp-zengine-insert-above', ICONS.above, WORDS.above);
      this.below = iconButton(this.node, 'jp-zengine-insert-below', ICONS.below, WORDS.below);
      this.replace = iconButton(this.node, 'jp-zengine-replace', ICONS.replace, WORDS.replace);
      this.above.dataset.cellKind = kind;
      this.below.dataset.cellKind = kind;
      this._on(this.above, () => _actions.insert(codeSource(code), kind, 'above'));
      this._on(this.below, () => _actions.insert(codeSource(code), kind, 'below'));
      this._on(this.replace, () => _actions.replaceSelection(codeSource(code)));
      // asked again whenever the user comes near: the notebook or the selection may be new
      this.node.addEventListener('pointerenter', () => this.refresh());
      this.node.addEventListener('focusin', () => this.refresh());
      this.refresh();
    }
    pre.insertBefore(this.node, pre.firstChild);
  }

  readonly node: HTMLElement;
  readonly copy: HTMLButtonElement;
  readonly above: HTMLButtonElement | null = null;
  readonly below: HTMLButtonElement | null = null;
  readonly replace: HTMLButtonElement | null = null;

  /** Enable or disable Insert and Replace from what JupyterLab has open now. */
  refresh(): void {
    if (!this._actions || !this.above || !this.below || !this.replace) {
      return;
    }
    const targets = this._actions.targets();
    const noNotebook = targets.notebook === null ? WORDS.noNotebook : null;
    const of = targets.notebook === null ? '' : ` of ${targets.notebook}`;
    available(this.above, WORDS.above + of, noNotebook);
    available(this.below, WORDS.below + of, noNotebook);
    const noSelection =
      targets.editor === null ? WORDS.noEditor : targets.selection ? null : WORDS.noSelection;
    const where = noSelection === null ? ` in ${targets.editor}` : '';
    available(this.replace, WORDS.replace + where, noSelection);
  }

  private _on(node: HTMLButtonElement, act: () => boolean): void {
    node.addEventListener('click', event => {
      event.preventDefault();
      this.refresh();
      if (node.getAttribute('aria-disabled') === 'true') {
        return; // the tooltip says why
      }
      node.dataset.done = String(act());
      this.refresh();
    });
  }
}

/**
 * A toolbar on each rendered code block under `host`, after every render (a render replaces
 * the blocks). The buttons carry icons and accessible names, no text, so the block's text
 * stays the code's.
 */
export function addCodeTools(host: HTMLElement, actions: ICodeActions | null = null): void {
  for (const code of host.querySelectorAll<HTMLElement>('pre > code')) {
    const pre = code.parentElement!;
    if (!pre.querySelector(':scope > .jp-zengine-code-tools')) {
      new CodeTools(pre, code, actions);
    }
  }
}

/** Put `text` on the clipboard (false: the page may not). */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // not allowed here (an insecure origin, no focus): try the old way
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  try {
    return document.execCommand('copy');
  } catch {
    return false;
  } finally {
    area.remove();
  }
}
