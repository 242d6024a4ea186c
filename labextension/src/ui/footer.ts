/**
 * The input footer: the chat's model and permission mode (JupyterLab's styled selects; a
 * choice is sent as `/model X` or `/mode Y`, the slash commands' path, so the log records
 * it), the chat's cost so far, and Stop while a turn runs (the existing interrupt).
 *
 * Two rows that fit a 250 px panel: the pickers (they shrink, their text ends in an
 * ellipsis, the full value is in their title), then the cost and Stop.
 */

import { ChatOptions } from '../protocol';
import { button, el, PRICE_UNKNOWN, usd } from './dom';

export type Pick = { kind: 'model' | 'mode'; value: string };

/** What each mode does, for the picker's options (title) and its accessible description. */
export const MODE_TEXT: Record<string, string> = {
  default: 'Ask before edits and commands',
  accept_edits: 'Edits in the project run; commands ask',
  plan: 'Read-only: no edits, no commands',
  bypass: 'Everything runs unless a deny or ask rule matches'
};

export const MODE_LABEL: Record<string, string> = {
  default: 'Default',
  accept_edits: 'Accept edits',
  plan: 'Plan',
  bypass: 'Bypass'
};

export interface IFooterOptions {
  /** A model or mode was chosen; resolves with false when the kernel refused it. */
  choose(pick: Pick): Promise<boolean>;
  stop(): void;
}

export class ChatFooter {
  constructor(
    parent: HTMLElement,
    private readonly _options: IFooterOptions
  ) {
    this.node = el('div', 'jp-zengine-footer', null, parent);
    const pickers = el('div', 'jp-zengine-pickers', null, this.node);
    this.model = this._select(pickers, 'jp-zengine-model-pick', 'Model', 'model');
    this.mode = this._select(pickers, 'jp-zengine-mode-pick', 'Permission mode', 'mode');
    const row = (this.row = el('div', 'jp-zengine-footrow', null, this.node));
    this.cost = el('span', 'jp-zengine-footer-cost', null, row);
    this.cost.setAttribute('role', 'status');
    this.cost.setAttribute('aria-label', 'Cost of this chat so far');
    this.stop = button(
      row,
      'jp-zengine-stop jp-mod-reject',
      'Stop',
      () => this._options.stop(),
      'Stop the running turn'
    );
    this.stop.hidden = true;
    this.setOptions(null);
  }

  readonly node: HTMLElement;
  /** The cost, Stop, and whatever the caller adds (the input box's Send). */
  readonly row: HTMLElement;
  readonly model: HTMLSelectElement;
  readonly mode: HTMLSelectElement;
  readonly cost: HTMLElement;
  readonly stop: HTMLButtonElement;

  /** The chat's options from the kernel (null: not connected, nothing to choose). */
  setOptions(options: ChatOptions | null): void {
    this._current = options;
    const models = options?.models.length ? options.models : options ? [options.model] : [];
    fill(this.model, models, options?.model ?? '', id => id);
    this.model.title = options
      ? `Model: ${options.model || 'none'} (${options.models_note})`
      : 'Model';
    this.model.disabled = !options || models.length < 2;
    const modes = options?.modes ?? [];
    fill(this.mode, modes, options?.mode ?? '', m => MODE_LABEL[m] ?? m);
    for (const option of Array.from(this.mode.options)) {
      option.title = MODE_TEXT[option.value] ?? '';
    }
    const note = options?.modes_note ? ` (${options.modes_note})` : '';
    this.mode.title = options ? `Mode: ${MODE_TEXT[options.mode] ?? options.mode}${note}` : 'Mode';
    this.mode.disabled = !options || modes.length < 2;
    this.setCost(options ? (options.cost_usd ?? 0) : null, options?.unpriced ?? false);
  }

  /** The chat's cost so far (the largest any source reported since `resetCost`: the live
   * meter, meta.json); null changes nothing. */
  setCost(total: number | null, unpriced = false): void {
    if (total === null) {
      return;
    }
    this._cost = Math.max(this._cost ?? 0, total);
    this._unpriced ||= unpriced;
    const more = this._unpriced ? ` + ${PRICE_UNKNOWN}` : '';
    this.cost.textContent = `${usd(this._cost)}${more} so far`;
  }

  /** Another chat: no cost known yet. */
  resetCost(): void {
    this._cost = null;
    this._unpriced = false;
    this.cost.textContent = '';
  }

  /** A turn runs: Stop shows (and the pickers wait: the model cannot change mid-turn). */
  setRunning(running: boolean): void {
    this.stop.hidden = !running;
    this.stop.disabled = !running;
    this.node.dataset.running = String(running);
    this.model.disabled = running || !this._current || this.model.options.length < 2;
  }

  private _select(
    parent: HTMLElement,
    className: string,
    label: string,
    kind: Pick['kind']
  ): HTMLSelectElement {
    const wrap = el(
      'div',
      `jp-zengine-pick jp-HTMLSelect jp-DefaultStyle ${className}`,
      null,
      parent
    );
    const select = el('select', 'jp-mod-styled', null, wrap);
    select.setAttribute('aria-label', label);
    select.dataset.kind = kind;
    select.addEventListener('change', () => void this._pick(select, kind));
    return select;
  }

  private async _pick(select: HTMLSelectElement, kind: Pick['kind']): Promise<void> {
    const before = kind === 'model' ? this._current?.model : this._current?.mode;
    const value = select.value;
    if (!value || value === before) {
      return;
    }
    select.disabled = true;
    const ok = await this._options.choose({ kind, value });
    select.disabled = false;
    if (!ok && before !== undefined) {
      select.value = before; // refused: the picker shows what the chat still uses
    } else if (ok && this._current) {
      this._current = { ...this._current, [kind]: value };
    }
  }

  private _current: ChatOptions | null = null;
  private _cost: number | null = null;
  private _unpriced = false;
}

function fill(
  select: HTMLSelectElement,
  values: string[],
  chosen: string,
  label: (value: string) => string
): void {
  select.replaceChildren();
  for (const value of values) {
    const option = el('option', '', label(value), select);
    option.value = value;
  }
  select.value = chosen;
}
