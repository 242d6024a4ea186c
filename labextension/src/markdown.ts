/**
 * Markdown through JupyterLab's own rendermime (the same renderer as a markdown cell), for
 * text that streams: deltas are coalesced and the block re-rendered at most every
 * RENDER_INTERVAL_MS, with a final render when the stream ends.
 */

import { IRenderMime, IRenderMimeRegistry, MimeModel } from '@jupyterlab/rendermime';

/** How often a streaming block is re-rendered at most. */
export const RENDER_INTERVAL_MS = 80;

const MARKDOWN = 'text/markdown';

export class MarkdownBlock {
  /** `host` receives the rendered markdown; `source` may be the whole text already. */
  constructor(
    private readonly _rendermime: IRenderMimeRegistry,
    readonly host: HTMLElement,
    source = ''
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
    if (!this._renderer) {
      if (!this._rendermime.preferredMimeType({ [MARKDOWN]: source }, 'any')) {
        this.host.textContent = source; // no markdown renderer: plain text, never nothing
        return;
      }
      this._renderer = this._rendermime.createRenderer(MARKDOWN);
      this.host.replaceChildren(this._renderer.node);
    }
    const model = new MimeModel({ data: { [MARKDOWN]: source }, trusted: false });
    const done = this._renderer.renderModel(model);
    this._chain = this._chain
      .then(() => done)
      .catch(reason => {
        this.host.textContent = source;
        console.error('zengine: markdown render failed', reason);
      });
  }

  private _source: string;
  private _timer: ReturnType<typeof setTimeout> | null = null;
  private _renderer: IRenderMime.IRenderer | null = null;
  private _renders = 0;
  private _chain: Promise<void> = Promise.resolve();
}
