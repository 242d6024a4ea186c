/**
 * The provider setup view (the panel's and the `%zengine setup` widget's): choose Anthropic,
 * OpenAI, an OpenAI-compatible URL or a local server (Ollama, LM Studio: found by the kernel),
 * paste a key (sent to the kernel once, stored in auth.json, never shown again), choose a model
 * (context size and price from the catalog, or the server's own list), Test it with one tiny
 * request, and Use it (written to the user's settings.toml; open chats reload).
 *
 * It talks through one port, `SetupSend`: the panel's comm or the widget's custom messages
 * carry the same `setup_*` requests (`protocol/_setup.py`).
 */

import {
  LocalServer,
  SetupAnswer,
  SetupChoice,
  SetupCurrent,
  SetupFindLocal,
  SetupKeyRequest,
  SetupModel,
  SetupModelsRequest,
  SetupSaveRequest,
  SetupStateRequest,
  SetupTestRequest
} from '../protocol';
import { Outcome, button, el, errorText } from './dom';

export type SetupProvider = SetupChoice['provider'];

type Setup =
  | SetupStateRequest
  | SetupFindLocal
  | SetupModelsRequest
  | SetupKeyRequest
  | SetupTestRequest
  | SetupSaveRequest;

/** A setup request as the view builds it: the transport adds `v` and `id`. */
export type SetupBody = Setup extends infer R
  ? R extends Setup
    ? Omit<R, 'v' | 'id'>
    : never
  : never;

/** A reply as every transport gives it: ok / error / hint, and the setup answer. */
export interface ISetupReply extends Outcome {
  setup?: SetupAnswer | null;
}

export type SetupSend = (body: SetupBody) => Promise<ISetupReply>;

export interface ISetupOptions {
  /** Why the view is shown unasked ("No model is connected yet…"). */
  notice?: string;
  /** A choice was saved (the panel hides the view, the widget keeps the words). */
  saved?(text: string): void;
  /** Show a Close button that calls this (the panel). */
  close?(): void;
}

const PROVIDERS: { id: SetupProvider; label: string }[] = [
  { id: 'anthropic', label: 'Anthropic' },
  { id: 'openai', label: 'OpenAI' },
  { id: 'compatible', label: 'OpenAI-compatible URL' },
  { id: 'local', label: 'Local server' }
];

const PUBLIC_URL: Partial<Record<SetupProvider, string>> = {
  anthropic: 'https://api.anthropic.com',
  openai: 'https://api.openai.com/v1'
};

/** `200k context`, `1M context`, or nothing known. */
export function contextText(tokens: number | null | undefined): string {
  if (!tokens) {
    return 'context unknown';
  }
  const size = tokens >= 1e6 ? `${+(tokens / 1e6).toFixed(1)}M` : `${Math.round(tokens / 1000)}k`;
  return `${size} context`;
}

/** `$3 / $15 per 1M tokens` (input / output), or "price unknown". */
export function priceText(model: SetupModel): string {
  const money = (v: number) => `$${+v.toFixed(3)}`;
  if (model.input_price === null || model.input_price === undefined) {
    return 'price unknown';
  }
  const out = model.output_price ?? null;
  return `${money(model.input_price)} / ${out === null ? '?' : money(out)} per 1M tokens`;
}

/** One option's words: `claude-sonnet-4-6 · 200k context · $3 / $15 per 1M tokens`. */
export function modelLabel(model: SetupModel, local = false): string {
  if (local && !model.context && (model.input_price ?? null) === null) {
    return model.id; // a local server's model: no catalog entry, no price
  }
  return `${model.id} · ${contextText(model.context)} · ${priceText(model)}`;
}

/** The current setup in one line. */
export function currentLine(state: SetupCurrent): string {
  if (state.provider === 'replay') {
    return `Now: replaying a recording (${state.recording ?? ''}), no model is called.`;
  }
  if (!state.configured) {
    return 'Now: no model is connected.';
  }
  const where = state.base_url ? ` at ${state.base_url}` : '';
  const key = state.key?.source ? ` (key from ${state.key.source})` : '';
  return `Now: ${state.model ?? 'the default model'}${where}${key}.`;
}

let counter = 0;

export class SetupView {
  constructor(
    parent: HTMLElement,
    private readonly _send: SetupSend,
    private readonly _options: ISetupOptions = {}
  ) {
    const node = (this.node = el('section', 'jp-zengine-setup', null, parent));
    const title = el('h3', 'jp-zengine-setup-title', 'Connect a model', node);
    title.id = `jp-zengine-setup-${++counter}`;
    node.setAttribute('role', 'region');
    node.setAttribute('aria-labelledby', title.id);
    this._notice = el('div', 'jp-zengine-setup-notice', _options.notice ?? '', node);
    this._notice.setAttribute('role', 'status');
    this._notice.hidden = !_options.notice;
    this._current = el('div', 'jp-zengine-setup-current', null, node);

    const group = el('fieldset', 'jp-zengine-setup-providers', null, node);
    el('legend', '', 'Provider', group);
    for (const p of PROVIDERS) {
      const label = el('label', 'jp-zengine-setup-provider', null, group);
      const input = el('input', '', null, label);
      input.type = 'radio';
      input.name = `${title.id}-provider`;
      input.value = p.id;
      input.addEventListener('change', () => void this._choose(p.id));
      label.append(` ${p.label}`);
      label.dataset.provider = p.id;
      this._radios.set(p.id, input);
    }

    this._urlRow = this._row('URL', 'jp-zengine-setup-url-row');
    this._url = el('input', 'jp-zengine-setup-url', null, this._urlRow);
    this._url.type = 'url';
    this._url.setAttribute('aria-label', 'Endpoint URL');
    this._url.addEventListener('change', () => this._urlChanged());
    this._list = button(
      this._urlRow,
      'jp-zengine-setup-list',
      'List models',
      () => void this._loadModels()
    );

    this._localRow = el('div', 'jp-zengine-setup-local', null, node);

    this._keyRow = this._row('API key', 'jp-zengine-setup-key-row');
    this._key = el('input', 'jp-zengine-setup-key', null, this._keyRow);
    this._key.type = 'password';
    this._key.autocomplete = 'off';
    this._key.spellcheck = false;
    this._key.setAttribute('aria-label', 'API key (stored in auth.json, never shown again)');
    this._keySave = button(
      this._keyRow,
      'jp-zengine-setup-key-save',
      'Save key',
      () => void this._saveKey()
    );
    this._keyStatus = el('div', 'jp-zengine-setup-key-status', null, node);
    this._keyStatus.setAttribute('role', 'status');

    const modelRow = this._row('Model', 'jp-zengine-setup-model-row');
    this._model = el('select', 'jp-zengine-setup-model', null, modelRow);
    this._model.setAttribute('aria-label', 'Model');
    this._other = el('input', 'jp-zengine-setup-model-other', null, modelRow);
    this._other.placeholder = 'or type a model id';
    this._other.setAttribute('aria-label', 'Another model id');
    this._modelsNote = el('div', 'jp-zengine-setup-models-note', null, node);

    const actions = el('div', 'jp-zengine-buttons', null, node);
    this._test = button(actions, 'jp-zengine-setup-test', 'Test', () => void this._runTest());
    this._save = button(actions, 'jp-zengine-setup-save', 'Use this model', () => void this._use());
    if (_options.close) {
      button(actions, 'jp-zengine-setup-close', 'Close', () => _options.close!());
    }
    this._result = el('div', 'jp-zengine-setup-result', null, node);
    this._result.setAttribute('role', 'status');
    this._result.setAttribute('aria-live', 'polite');
  }

  readonly node: HTMLElement;

  /** The provider shown now. */
  get provider(): SetupProvider | null {
    return this._provider;
  }

  /** Ask what is configured and look for local servers; pick the provider to show. */
  async load(): Promise<void> {
    this.node.dataset.ready = 'false';
    const [state, local] = await Promise.all([
      this._send({ kind: 'setup_state' }),
      this._send({ kind: 'setup_find_local' })
    ]);
    this._servers = local.setup?.servers ?? [];
    const current = state.setup?.state ?? null;
    if (!state.ok) {
      this._error(state);
    }
    this._current.textContent = current ? currentLine(current) : '';
    if (current?.problem && current.configured) {
      el('div', 'jp-zengine-setup-problem', errorText({ ok: false, ...current }), this._current);
    }
    let provider: SetupProvider = 'anthropic';
    if (current?.configured && current.provider && current.provider !== 'replay') {
      provider = current.provider;
    } else if (this._servers.some(s => s.found)) {
      provider = 'local';
    }
    await this._choose(provider, current);
    this.node.dataset.ready = 'true';
  }

  /** Show why the view is offered (or hide the line with ""). */
  setNotice(text: string): void {
    this._notice.textContent = text;
    this._notice.hidden = !text;
  }

  /** Show a save's words (a widget opened after the save reads them from its state). */
  setSaved(text: string): void {
    if (text) {
      this._result.replaceChildren();
      el('div', 'jp-zengine-setup-saved', text, this._result);
    }
  }

  // ------------------------------------------------------------ choosing

  private async _choose(provider: SetupProvider, current?: SetupCurrent | null): Promise<void> {
    this._provider = provider;
    this.node.dataset.provider = provider;
    this._radios.get(provider)!.checked = true;
    const remote = provider === 'anthropic' || provider === 'openai';
    this._urlRow.hidden = provider === 'local';
    this._list.hidden = remote;
    this._url.placeholder = PUBLIC_URL[provider] ?? 'https://host/v1';
    this._url.value = current && current.provider === provider ? (current.base_url ?? '') : '';
    this._keyRow.hidden = provider === 'local';
    this._keyStatus.textContent = '';
    this._localRow.replaceChildren();
    this._result.replaceChildren();
    this._fill([], '');
    if (provider === 'local') {
      this._showLocal(current?.provider === 'local' ? (current.model ?? null) : null);
    } else if (remote || this._url.value) {
      await this._loadModels(current?.model ?? null);
    } else {
      this._modelsNote.textContent =
        'Type the server’s URL, then List models (or type a model id).';
    }
  }

  private _showLocal(preferred: string | null = null): void {
    const list = el('ul', 'jp-zengine-setup-servers', null, this._localRow);
    const found = this._servers.filter(s => s.found);
    for (const server of this._servers) {
      const item = el('li', 'jp-zengine-setup-server', null, list);
      item.dataset.name = server.name;
      item.dataset.found = String(server.found);
      const label = el('label', '', null, item);
      const radio = el('input', '', null, label);
      radio.type = 'radio';
      radio.name = `${this.node.getAttribute('aria-labelledby')}-server`;
      radio.disabled = !server.found;
      radio.addEventListener('change', () => this._pickServer(server));
      const words = server.found
        ? `${server.name} at ${server.base_url} · ${server.models?.length ?? 0} models`
        : `${server.name}: not found at ${server.base_url} (${server.error ?? 'no answer'})`;
      label.append(` ${words}`);
      if (server === found[0]) {
        radio.checked = true;
      }
    }
    button(this._localRow, 'jp-zengine-setup-find', 'Look again', () => void this._findAgain());
    if (found.length) {
      this._pickServer(found[0], preferred);
    } else {
      this._modelsNote.textContent =
        'No local server found: start Ollama (port 11434) or LM Studio’s server (port 1234), then Look again.';
    }
  }

  private _pickServer(server: LocalServer, preferred: string | null = null): void {
    this._url.value = server.base_url;
    const models = (server.models ?? []).map((id): SetupModel => ({ id }));
    this._fill(models, `${models.length} models on ${server.name}`, preferred, true);
  }

  private async _findAgain(): Promise<void> {
    const reply = await this._send({ kind: 'setup_find_local' });
    this._servers = reply.setup?.servers ?? [];
    await this._choose('local');
  }

  private _urlChanged(): void {
    if (this._provider === 'compatible' && this._url.value.trim()) {
      void this._loadModels();
    }
  }

  private async _loadModels(preferred: string | null = null): Promise<void> {
    const provider = this._provider!;
    this._modelsNote.textContent = 'Loading models…';
    const reply = await this._send({
      kind: 'setup_models',
      provider,
      base_url: this._url.value.trim() || null
    });
    if (provider !== this._provider) {
      return; // another provider was chosen meanwhile
    }
    if (!reply.ok) {
      this._fill([], errorText(reply));
      return;
    }
    this._fill(reply.setup?.models ?? [], reply.setup?.models_note ?? '', preferred);
  }

  private _fill(
    models: SetupModel[],
    note: string,
    preferred: string | null = null,
    local = false
  ) {
    this._model.replaceChildren();
    for (const model of models) {
      const option = el('option', '', modelLabel(model, local), this._model);
      option.value = model.id;
    }
    this._model.disabled = !models.length;
    if (preferred && models.some(m => m.id === preferred)) {
      this._model.value = preferred;
    } else if (preferred) {
      this._other.value = preferred;
    }
    this._modelsNote.textContent = note;
  }

  // ------------------------------------------------------------ actions

  private _choice(): SetupChoice | null {
    const model = this._other.value.trim() || this._model.value;
    if (!this._provider || !model) {
      this._error({ ok: false, error: 'Choose a model first.' });
      return null;
    }
    return { provider: this._provider, base_url: this._url.value.trim() || null, model };
  }

  private async _saveKey(): Promise<void> {
    const key = this._key.value.trim();
    if (!key) {
      this._keyStatus.textContent = 'Paste a key first.';
      return;
    }
    this._keySave.disabled = true;
    const reply = await this._send({
      kind: 'setup_key',
      provider: this._provider!,
      base_url: this._url.value.trim() || null,
      key
    });
    this._keySave.disabled = false;
    this._key.value = ''; // never kept, never shown again
    const status = reply.setup?.key;
    this._keyStatus.textContent =
      reply.ok && status
        ? `Key stored for ${status.host}${status.source && status.source !== 'auth.json' ? ` (but ${status.source} is set and wins)` : ' (auth.json)'}.`
        : errorText(reply);
  }

  private async _runTest(): Promise<void> {
    const choice = this._choice();
    if (!choice) {
      return;
    }
    this._busy(true, `Asking ${choice.model}…`);
    const reply = await this._send({ kind: 'setup_test', choice });
    this._busy(false);
    const test = reply.setup?.test;
    if (!reply.ok || !test) {
      this._error(reply);
    } else if (test.ok) {
      const line = `${test.model} answered in ${test.seconds} s: “${test.answer}”`;
      el('div', 'jp-zengine-setup-answer', line, this._result);
    } else {
      this._error({ ok: false, error: test.error, hint: test.hint });
    }
  }

  private async _use(): Promise<void> {
    const choice = this._choice();
    if (!choice) {
      return;
    }
    this._busy(true, 'Saving…');
    const reply = await this._send({ kind: 'setup_save', choice });
    this._busy(false);
    const saved = reply.setup?.saved;
    if (!reply.ok || !saved) {
      this._error(reply);
      return;
    }
    this.setSaved(saved.text);
    this.setNotice('');
    this._current.textContent = `Now: ${choice.model}${choice.base_url ? ` at ${choice.base_url}` : ''}.`;
    this._options.saved?.(saved.text);
  }

  private _busy(on: boolean, text = ''): void {
    this._test.disabled = on;
    this._save.disabled = on;
    this._result.replaceChildren();
    if (on) {
      el('div', 'jp-zengine-status-busy', text, this._result);
    }
  }

  private _error(reply: Outcome): void {
    this._result.replaceChildren();
    el(
      'div',
      'jp-zengine-setup-error jp-zengine-error',
      errorText(reply, 'failed'),
      this._result
    ).setAttribute('role', 'alert');
  }

  private _row(label: string, className: string): HTMLElement {
    const row = el('div', `jp-zengine-setup-row ${className}`, null, this.node);
    el('span', 'jp-zengine-setup-label', label, row);
    return row;
  }

  private _provider: SetupProvider | null = null;
  private _servers: LocalServer[] = [];
  private _radios = new Map<SetupProvider, HTMLInputElement>();
  private _notice: HTMLElement;
  private _current: HTMLElement;
  private _urlRow: HTMLElement;
  private _url: HTMLInputElement;
  private _list: HTMLButtonElement;
  private _localRow: HTMLElement;
  private _keyRow: HTMLElement;
  private _key: HTMLInputElement;
  private _keySave: HTMLButtonElement;
  private _keyStatus: HTMLElement;
  private _model: HTMLSelectElement;
  private _other: HTMLInputElement;
  private _modelsNote: HTMLElement;
  private _test: HTMLButtonElement;
  private _save: HTMLButtonElement;
  private _result: HTMLElement;
}
