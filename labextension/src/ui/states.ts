/**
 * Empty and error states (the panel's, and the %%agent cell widget's where they apply): a box
 * that says what is happening and what to do, with a button when there is one thing to do.
 *
 * - no model configured (the engine's `ProviderState` kind `unconfigured`): what to configure,
 *   and "Set up a model" (opens the setup view);
 * - a cassette replay (`replay`): this chat replays a recording, no provider is called, and
 *   how to switch to a live model;
 * - a provider down: `provider_busy` events, which provider, the attempt and a live
 *   countdown to the next retry (the engine retries by itself; it has no "retry now", so
 *   there is no button: Stop is in the footer). The provider answering clears it; a final
 *   `error` leaves it showing the engine's words.
 */

import { ProviderBusy, ProviderState } from '../protocol';
import { button, el } from './dom';

export interface IStateAction {
  label: string;
  /** The button's accessible name, when the label alone is not enough. */
  aria?: string;
  run(): void;
}

export type StateKind = 'unconfigured' | 'replay' | 'provider-down';

/** One state box: title, what is happening, what to do, and maybe one button. */
export function stateBox(
  parent: HTMLElement,
  kind: StateKind,
  words: { title: string; text: string; hint?: string | null },
  action?: IStateAction
): HTMLElement {
  const box = el('section', `jp-zengine-state jp-zengine-state-${kind}`, null, parent);
  box.dataset.state = kind;
  const title = el('h3', 'jp-zengine-state-title', words.title, box);
  title.id = `jp-zengine-state-${kind}-${++counter}`;
  box.setAttribute('aria-labelledby', title.id);
  box.setAttribute('role', kind === 'provider-down' ? 'alert' : 'status');
  el('p', 'jp-zengine-state-text', words.text, box);
  if (words.hint) {
    el('p', 'jp-zengine-state-hint', words.hint, box);
  }
  if (action) {
    button(box, 'jp-zengine-state-action jp-mod-accept', action.label, action.run, action.aria);
  }
  return box;
}

/** The words of a provider's state, for a chat whose answers do not come from a live model. */
export function providerStateWords(
  state: ProviderState
): { title: string; text: string; hint?: string | null } | null {
  if (state.kind === 'unconfigured') {
    return { title: 'No model is configured', text: state.text, hint: state.hint };
  }
  if (state.kind === 'replay') {
    return { title: 'Replaying a recorded cassette', text: state.text, hint: state.hint };
  }
  return null;
}

/** The window event a cell widget sends to open the panel's setup view. */
export const OPEN_SETUP_EVENT = 'zengine:open-setup';

/**
 * Ask the page to open the model setup view (the labextension's panel listens); false when
 * nothing answered (a frontend without our panel), so the caller says how instead.
 */
export function requestSetup(): boolean {
  const detail = { opened: false };
  window.dispatchEvent(new CustomEvent(OPEN_SETUP_EVENT, { detail }));
  return detail.opened;
}

/** "api.anthropic.com did not answer (overloaded): retry 2 of 5 in 4s". */
export function downText(event: ProviderBusy, secondsLeft: number): string {
  const who = event.provider ?? 'The provider';
  const why = event.reason ? ` (${event.reason})` : '';
  const of = event.attempts ? ` of ${event.attempts}` : '';
  const left = Math.max(0, Math.ceil(secondsLeft));
  const when = left > 0 ? `in ${left}s` : 'now';
  return `${who} did not answer${why}: attempt ${event.attempt}${of} ${when}.`;
}

export const DOWN_HINT =
  'The agent retries by itself. Wait, or press Stop and choose another model below.';

/**
 * The states of one view: the chat's provider state (set from `chat_options`) and a
 * provider-down box fed by live events. `now` and the timer are injectable for tests.
 */
export class ChatStates {
  constructor(
    parent: HTMLElement,
    private readonly _actions: { setup?: IStateAction } = {},
    private readonly _clock: { now(): number } = Date
  ) {
    this.node = el('div', 'jp-zengine-states', null, parent);
  }

  readonly node: HTMLElement;

  /** The chat's provider state: a box for `unconfigured` and `replay`, none otherwise. */
  setProvider(state: ProviderState | null): void {
    this._provider?.remove();
    this._provider = null;
    const words = state ? providerStateWords(state) : null;
    if (!state || !words) {
      return;
    }
    const kind = state.kind as StateKind;
    const action =
      kind === 'unconfigured'
        ? this._actions.setup
        : this._actions.setup && {
            ...this._actions.setup,
            label: 'Set up a live model',
            aria: 'Set up a live model instead of the recording'
          };
    this._provider = stateBox(this.node, kind, words, action);
  }

  /** A live event of the chat: `provider_busy` shows or updates the countdown; the model's
   * answer (or the turn's end) clears it; a final `error` replaces the countdown. */
  apply(event: {
    kind: string;
    message?: string;
    hint?: string | null;
    cause?: string | null;
  }): void {
    if (event.kind === 'error' && event.cause === 'setup') {
      // the turn failed because no model is configured: the same box as `unconfigured`
      this.clearDown();
      this.setProvider({ kind: 'unconfigured', text: event.message ?? '', hint: event.hint });
    } else if (event.kind === 'provider_busy') {
      this._busy(event as ProviderBusy);
    } else if (event.kind === 'error' && this._down) {
      this._stopTimer();
      this._down.dataset.final = 'true';
      this._downText!.textContent = event.message ?? 'The provider did not answer.';
      this._downHint!.textContent = 'Send the message again later, or choose another model below.';
    } else if (ANSWERED.has(event.kind)) {
      this.clearDown(event.kind === 'turn_started' || !this._down?.dataset.final);
    }
  }

  /** Remove the provider-down box (`force` false keeps a final one). */
  clearDown(force = true): void {
    if (!this._down || (!force && this._down.dataset.final === 'true')) {
      return;
    }
    this._stopTimer();
    this._down.remove();
    this._down = this._downText = this._downHint = null;
  }

  private _busy(event: ProviderBusy): void {
    if (!this._down || this._down.dataset.final === 'true') {
      this.clearDown();
      this._down = stateBox(this.node, 'provider-down', {
        title: `${event.provider ?? 'The provider'} is not answering`,
        text: '',
        hint: DOWN_HINT
      });
      this._downText = this._down.querySelector('.jp-zengine-state-text');
      this._downHint = this._down.querySelector('.jp-zengine-state-hint');
    }
    this._event = event;
    this._until = this._clock.now() + event.wait_s * 1000;
    this._down.dataset.attempt = String(event.attempt);
    this._tick();
    this._stopTimer();
    this._timer = setInterval(() => this._tick(), 250);
  }

  private _tick(): void {
    if (!this._event || !this._downText) {
      return;
    }
    const left = (this._until - this._clock.now()) / 1000;
    this._downText.textContent = downText(this._event, left);
    this._down!.dataset.secondsLeft = String(Math.max(0, Math.ceil(left)));
    if (left <= 0) {
      this._stopTimer();
    }
  }

  private _stopTimer(): void {
    if (this._timer !== null) {
      clearInterval(this._timer);
      this._timer = null;
    }
  }

  private _provider: HTMLElement | null = null;
  private _down: HTMLElement | null = null;
  private _downText: HTMLElement | null = null;
  private _downHint: HTMLElement | null = null;
  private _event: ProviderBusy | null = null;
  private _until = 0;
  private _timer: ReturnType<typeof setInterval> | null = null;
}

/** Events that mean the provider answered, or the turn is over or starting again. */
const ANSWERED = new Set([
  'text_streamed',
  'thinking_streamed',
  'tool_call_proposed',
  'turn_ended',
  'turn_started'
]);

let counter = 0;
