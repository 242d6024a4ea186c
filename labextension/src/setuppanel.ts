/**
 * The panel's provider setup: a "Model…" button in the header opens the setup view
 * (`ui/setup.ts`) above the conversation; on connecting, the panel asks the kernel what is
 * configured and, when nothing is, opens the view at once with a notice (the first turn's
 * error is not the first news).
 */

import { Reply } from './protocol';
import { button, el } from './ui/dom';
import { SetupBody, SetupView } from './ui/setup';

export const NOTHING_CONFIGURED =
  'No model is connected yet: choose one below (or set ANTHROPIC_API_KEY / OPENAI_API_KEY ' +
  'before starting JupyterLab).';

export class SetupSection {
  constructor(
    header: HTMLElement,
    private readonly _host: HTMLElement,
    private readonly _send: (body: SetupBody) => Promise<Reply>,
    private readonly _saved: (text: string) => void
  ) {
    this._toggle = button(header, 'jp-zengine-setup-open', 'Model…', () =>
      this._view ? this.close() : void this.open('')
    );
    this._toggle.title = 'Choose the provider and model';
    this._toggle.setAttribute('aria-expanded', 'false');
  }

  /** Connected to a kernel: open the view when nothing is configured. */
  async check(): Promise<void> {
    const reply = await this._send({ kind: 'setup_state' });
    const state = reply.setup?.state;
    this._host.dataset.configured = String(state?.configured ?? true);
    if (reply.ok && state && !state.configured && !this._view) {
      await this.open(NOTHING_CONFIGURED);
    }
  }

  async open(notice: string): Promise<void> {
    this.close();
    const holder = el('div', 'jp-zengine-setup-host', null, this._host);
    this._view = new SetupView(holder, this._send, {
      notice,
      close: () => this.close(),
      saved: text => {
        this._host.dataset.configured = 'true';
        this._saved(text); // the words stay in the conversation; the view closes
        this.close();
      }
    });
    this._toggle.setAttribute('aria-expanded', 'true');
    await this._view.load();
  }

  close(): void {
    this._view = null;
    this._host.replaceChildren();
    this._toggle.setAttribute('aria-expanded', 'false');
  }

  private _toggle: HTMLButtonElement;
  private _view: SetupView | null = null;
}
