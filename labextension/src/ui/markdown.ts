/**
 * Markdown for both views, through a renderer the host hands in: the panel gives JupyterLab's
 * rendermime (sanitised, the same renderer as a markdown cell); the cell widgets take the one
 * the zengine labextension publishes on the page (`publishMarkdown`), so in JupyterLab and
 * Notebook 7 they render exactly like the panel. Where no renderer exists (VS Code, a page
 * without the labextension), a block shows its source as plain text: never raw HTML.
 *
 * Streaming text is coalesced: a block re-renders at most every RENDER_INTERVAL_MS, with a
 * final render when the stream ends. Each rendered code block gets its toolbar (`codetools.ts`).
 */

import { ICodeActions, addCodeTools, copyText } from './codetools';

/** How often a streaming block is re-rendered at most. */
export const RENDER_INTERVAL_MS = 80;

/** Renders one block's whole source into the element it was made for. */
export type MarkdownRender = (source: string) => Promise<void>;

/** Makes a renderer for one block (null: this page cannot render markdown). */
export interface IMarkdown {
  block(host: HTMLElement): MarkdownRender | null;
}

/** Where the labextension leaves its renderer for the cell widgets (versioned by name). */
const SHARED = Symbol.for('zengine-jupyter.markdown.v1');

/** The labextension's side: let the cell widgets on this page use `markdown`. */
export function publishMarkdown(markdown: IMarkdown): void {
  (globalThis as Record<symbol, unknown>)[SHARED] = markdown;
}

/** The cell widgets' side: the renderer the labextension published, if any. */
export function sharedMarkdown(): IMarkdown | null {
  const found = (globalThis as Record<symbol, unknown>)[SHARED];
  return found && typeof (found as IMarkdown).block === 'function' ? (found as IMarkdown) : null;
}

export class MarkdownBlock {
  /** `host` receives the rendered markdown; `source` may be the whole text already. */
  constructor(
    private readonly _markdown: IMarkdown | null,
    readonly host: HTMLElement,
    source = '',
    private readonly _actions: ICodeActions | null = null
  ) {
    this._source = source;
    host.classList.add('jp-zengine-markdown');
    host.dataset.source = source;
    if (source) {
      this._render();
    }
  }

  get source(): string {
    return this._source;
  }

  /** Add a streamed delta; the block re-renders within RENDER_INTERVAL_MS. */
  append(delta: string): void {
    this._source += delta;
    this.host.dataset.source = this._source;
    this.host.setAttribute('aria-busy', 'true');
    if (this._timer === null) {
      this._timer = setTimeout(() => {
        this._timer = null;
        this._render();
      }, RENDER_INTERVAL_MS);
    }
  }

  /** The stream ended: render now, and let assistive technology read the final text. */
  finish(): void {
    if (this._timer !== null) {
      clearTimeout(this._timer);
      this._timer = null;
      this._render();
    }
    this.host.setAttribute('aria-busy', 'false');
  }

  /** Number of renders so far (tests check the coalescing through `data-renders`). */
  get renders(): number {
    return this._renders;
  }

  private _render(): void {
    const source = this._source;
    this._renders++;
    this.host.dataset.renders = String(this._renders);
    if (this._renderer === undefined) {
      this._renderer = this._markdown?.block(this.host) ?? null;
    }
    if (this._renderer === null) {
      this.host.classList.add('jp-zengine-plain');
      this.host.textContent = source; // no markdown renderer: plain text, never nothing
      return;
    }
    const done = this._renderer(source);
    this._chain = this._chain
      .then(() => done)
      .then(() => addCodeTools(this.host, this._actions))
      .catch(reason => {
        this.host.classList.add('jp-zengine-plain');
        this.host.textContent = source;
        console.error('zengine: markdown render failed', reason);
      });
  }

  private _source: string;
  private _timer: ReturnType<typeof setTimeout> | null = null;
  private _renderer: MarkdownRender | null | undefined = undefined;
  private _renders = 0;
  private _chain: Promise<void> = Promise.resolve();
}

/** The code blocks' toolbars (kept under its old name for the callers that only copy). */
export function addCopyButtons(host: HTMLElement, actions: ICodeActions | null = null): void {
  addCodeTools(host, actions);
}

export { copyText };
