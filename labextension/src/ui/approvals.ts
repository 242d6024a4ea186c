/**
 * An approval prompt: may this tool call run? In at most three lines: the tool and its target,
 * why it asks, what "Always" writes where; then Allow once / Always allow (with the settings
 * layer the rule is written to, in JupyterLab's HTMLSelect) / Deny with a reason, each with its
 * key (Enter, A, D or Escape) while the focus is in the prompt. Whoever answers (this panel or the
 * %%agent widget), the prompt then shows the outcome from the ToolCallApproved / Denied event
 * and its buttons are gone.
 */

import { ApprovalDecision, ApprovalRequest } from '../protocol';
import { Outcome, button, el, errorText } from './dom';
import { clickText } from './outcome';

export { outcomeText, recordOutcomeText } from './outcome';

export type Answer = (request: ApprovalRequest, decision: ApprovalDecision) => Promise<Outcome>;

const LAYERS: { value: Layer; label: string; words: string }[] = [
  { value: 'local', label: 'this project (local)', words: "this project's local settings" },
  { value: 'user', label: 'all my projects (user)', words: 'your user settings' }
];

type Layer = 'local' | 'user';

/** JupyterLab's caret-down-empty icon (what its HTMLSelect shows), in the text colour. */
const CARET =
  '<svg xmlns="http://www.w3.org/2000/svg" width="16" viewBox="0 0 18 18" aria-hidden="true" ' +
  'focusable="false"><path fill="currentColor" d="M5.2 5.9 9 9.7l3.8-3.8L14 7.1l-4.9 5-4.9-5z"/>' +
  '</svg>';

/** The keys a waiting prompt answers to (while the focus is in it), as its buttons show them. */
export const KEYS = { once: 'Enter', always: 'A', deny: 'D' };

/** What "Always allow" will write, and where. */
export function alwaysText(rule: string, layer: Layer): string {
  const where = LAYERS.find(l => l.value === layer)?.words ?? layer;
  return `"Always" adds ${rule} to ${where}`;
}

/** The prompt's first line: the tool and its target. */
export function askText(request: ApprovalRequest): string {
  return request.summary ? `Allow ${request.tool}: ${request.summary}?` : `Allow ${request.tool}?`;
}

function hint(parent: HTMLElement, key: string): void {
  const kbd = el('kbd', 'jp-zengine-kbd', key === 'Enter' ? '\u21b5' : key, parent);
  kbd.setAttribute('aria-hidden', 'true'); // the button's aria-keyshortcuts says it
}

export class ApprovalPrompt {
  constructor(
    parent: HTMLElement,
    readonly request: ApprovalRequest,
    private readonly _answer: Answer
  ) {
    const node = el('div', 'jp-zengine-approval', null, parent);
    this.node = node;
    node.dataset.requestId = request.id;
    node.dataset.callId = request.call_id;
    node.setAttribute('role', 'group');
    node.tabIndex = -1;
    // JupyterLab's own shortcuts (a notebook's A, D D...) stay out while the focus is here
    node.setAttribute('data-lm-suppress-shortcuts', 'true');
    node.addEventListener('keydown', event => this._key(event));
    const titleId = `jp-zengine-approval-${request.id}`;
    node.setAttribute('aria-labelledby', titleId);

    // at most three lines: what (tool, target), why it asks, what "always" writes where
    const text = el('div', 'jp-zengine-approval-text', null, node);
    const title = el('div', 'jp-zengine-approval-title', askText(request), text);
    title.id = titleId;
    title.title = [
      askText(request),
      request.command ? `Command: ${request.command}` : '',
      request.paths?.length ? `Paths: ${request.paths.join(', ')}` : ''
    ]
      .filter(Boolean)
      .join('\n');
    const reason = el('div', 'jp-zengine-approval-reason', request.reason, text);
    reason.title = request.reason;
    this._always = el('div', 'jp-zengine-approval-always', null, text);
    node.setAttribute('aria-describedby', `${titleId}-why ${titleId}-always`);
    reason.id = `${titleId}-why`;
    this._always.id = `${titleId}-always`;

    const controls = el('div', 'jp-zengine-approval-controls', null, node);
    this._controls = controls;
    const row = el('div', 'jp-zengine-buttons', null, controls);
    this._once = button(row, 'jp-zengine-allow jp-mod-accept', 'Allow once', () =>
      this._allowOnce()
    );
    hint(this._once, KEYS.once);
    this._once.setAttribute('aria-keyshortcuts', KEYS.once);
    const always = button(
      row,
      'jp-zengine-always jp-mod-reject',
      'Always allow',
      () => this._alwaysAllow(),
      `Always allow ${request.suggested_rule}`
    );
    hint(always, KEYS.always);
    always.setAttribute('aria-keyshortcuts', KEYS.always);
    always.title = `Always allow ${request.suggested_rule} (${KEYS.always})`;
    // JupyterLab's HTMLSelect, by its markup and classes
    const layerBox = el('div', 'jp-HTMLSelect jp-DefaultStyle jp-FormGroup-content', null, row);
    layerBox.classList.add('jp-zengine-layer');
    this._layer = el('select', 'jp-zengine-layer-select', null, layerBox);
    this._layer.setAttribute('aria-label', `Where to write the rule ${request.suggested_rule}`);
    for (const layer of LAYERS) {
      const option = el('option', '', layer.label, this._layer);
      option.value = layer.value;
    }
    const caret = el('span', 'jp-zengine-caret', null, layerBox);
    caret.innerHTML = CARET;
    const showAlways = () => {
      this._always.textContent = alwaysText(request.suggested_rule, this._layer.value as Layer);
      this._always.title = this._always.textContent;
    };
    this._layer.addEventListener('change', showAlways);
    showAlways();

    const denyRow = el('div', 'jp-zengine-buttons jp-zengine-deny-row', null, controls);
    this._reason = el('input', 'jp-zengine-deny-reason jp-mod-styled', null, denyRow);
    this._reason.placeholder = 'Reason (optional)';
    this._reason.setAttribute('aria-label', 'Reason for denying (sent to the agent)');
    const deny = button(denyRow, 'jp-zengine-deny jp-mod-warn', 'Deny', () => this._deny());
    hint(deny, KEYS.deny);
    deny.setAttribute('aria-keyshortcuts', `${KEYS.deny} Escape`);
    deny.title = `Deny (${KEYS.deny} or Escape); Enter in the reason denies too`;
    this._error = el('div', 'jp-zengine-approval-error', null, node);
    this._error.setAttribute('role', 'alert');
  }

  readonly node: HTMLElement;

  get answered(): boolean {
    return this._outcome !== null;
  }

  /** Put the keyboard focus on "Allow once". */
  focus(): void {
    this._once.focus();
  }

  /** The engine's answer, whichever view gave it: show it, drop the buttons. */
  settle(outcome: string, allowed: boolean): void {
    this._outcome = outcome;
    this.node.dataset.outcome = allowed ? 'allowed' : 'denied';
    const hadFocus = this.node.contains(document.activeElement);
    this._controls.remove();
    this._error.textContent = '';
    if (!this._line) {
      this._line = el('div', 'jp-zengine-approval-outcome', null, this.node);
      this._line.setAttribute('role', 'status');
      this._line.tabIndex = -1;
    }
    this._line.className = `jp-zengine-approval-outcome jp-zengine-${allowed ? 'ok' : 'bad'}`;
    this._line.textContent = outcome;
    if (hadFocus) {
      this._line.focus(); // the focused button is gone: keep the keyboard user in place
    }
  }

  /** Nobody can answer any more (the turn ended): drop the buttons, say why. */
  expire(text: string): void {
    if (this.answered) {
      return;
    }
    this._outcome = text;
    this.node.dataset.outcome = 'expired';
    this._controls.remove();
    el('div', 'jp-zengine-approval-outcome', text, this.node).setAttribute('role', 'status');
  }

  private _allowOnce(): void {
    void this._send({ action: 'allow_once' });
  }

  private _alwaysAllow(): void {
    void this._send({
      action: 'always_allow',
      layer: this._layer.value as Layer,
      rule: this.request.suggested_rule
    });
  }

  private _deny(): void {
    void this._send({ action: 'deny', message: this._reason.value || null });
  }

  /**
   * Enter: Allow once (a focused button keeps its own Enter), A: Always allow, D or Escape:
   * Deny. Only keys typed while the focus is in this prompt; the reason box and the select
   * keep their letters (Enter in the reason denies, Escape denies from anywhere here).
   */
  private _key(event: KeyboardEvent): void {
    if (this.answered || event.ctrlKey || event.metaKey || event.altKey) {
      return;
    }
    const target = event.target;
    const typing = target === this._reason || target === this._layer;
    const key = event.key.length === 1 ? event.key.toUpperCase() : event.key;
    let act: (() => void) | null = null;
    if (key === 'Escape' || (key === 'Enter' && target === this._reason)) {
      act = () => this._deny();
    } else if (typing) {
      return;
    } else if (key === 'Enter' && !(target instanceof HTMLButtonElement)) {
      act = () => this._allowOnce();
    } else if (key === KEYS.always) {
      act = () => this._alwaysAllow();
    } else if (key === KEYS.deny) {
      act = () => this._deny();
    }
    if (act) {
      event.preventDefault();
      event.stopPropagation();
      act();
    }
  }

  private async _send(decision: ApprovalDecision): Promise<void> {
    if (this.answered) {
      return;
    }
    const buttons = Array.from(
      this._controls.querySelectorAll<HTMLButtonElement | HTMLInputElement | HTMLSelectElement>(
        'button, select, input'
      )
    );
    buttons.forEach(b => (b.disabled = true));
    const reply = await this._answer(this.request, decision);
    if (this.answered) {
      return; // the event arrived first
    }
    if (reply.ok) {
      this.settle(clickText(decision), decision.action !== 'deny');
    } else {
      buttons.forEach(b => (b.disabled = false));
      this._error.textContent = errorText(reply);
    }
  }

  private _controls: HTMLElement;
  private _always: HTMLElement;
  private _once: HTMLButtonElement;
  private _layer: HTMLSelectElement;
  private _reason: HTMLInputElement;
  private _error: HTMLElement;
  private _outcome: string | null = null;
  private _line: HTMLElement | null = null;
}
