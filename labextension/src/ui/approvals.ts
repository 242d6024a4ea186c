/**
 * An approval prompt: may this tool call run? Allow once / Always allow (with the settings
 * layer the rule is written to) / Deny with a reason. Whoever answers (this panel or the
 * %%agent widget), the prompt then shows the outcome from the ToolCallApproved / Denied event
 * and its buttons are gone.
 */

import { ApprovalDecision, ApprovalRequest } from '../protocol';
import { Outcome, button, el, errorText } from './dom';

export type Answer = (request: ApprovalRequest, decision: ApprovalDecision) => Promise<Outcome>;

const LAYERS: { value: 'local' | 'user'; label: string }[] = [
  { value: 'local', label: 'this project (local settings)' },
  { value: 'user', label: 'all my projects (user settings)' }
];

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
    const titleId = `jp-zengine-approval-${request.id}`;
    node.setAttribute('aria-labelledby', titleId);
    const title = el(
      'div',
      'jp-zengine-approval-title',
      `Allow ${request.tool}? ${request.summary}`,
      node
    );
    title.id = titleId;
    el('div', 'jp-zengine-approval-reason', request.reason, node);
    if (request.command) {
      el('pre', 'jp-zengine-command', request.command, node);
    }
    if (request.paths?.length) {
      el('div', 'jp-zengine-approval-paths', request.paths.join(', '), node);
    }

    const controls = el('div', 'jp-zengine-approval-controls', null, node);
    this._controls = controls;
    const row = el('div', 'jp-zengine-buttons', null, controls);
    this._once = button(
      row,
      'jp-zengine-allow jp-mod-accept',
      'Allow once',
      () => void this._send({ action: 'allow_once' })
    );
    button(
      row,
      'jp-zengine-always',
      'Always allow',
      () =>
        void this._send({
          action: 'always_allow',
          layer: this._layer.value as 'local' | 'user',
          rule: request.suggested_rule
        }),
      `Always allow ${request.suggested_rule}`
    );
    const layerLabel = el('label', 'jp-zengine-layer', 'Remember in ', row);
    this._layer = el('select', 'jp-zengine-layer-select', null, layerLabel);
    this._layer.setAttribute('aria-label', `Where to write the rule ${request.suggested_rule}`);
    for (const layer of LAYERS) {
      const option = el('option', '', layer.label, this._layer);
      option.value = layer.value;
    }
    const denyRow = el('div', 'jp-zengine-buttons', null, controls);
    this._reason = el('input', 'jp-zengine-deny-reason jp-mod-styled', null, denyRow);
    this._reason.placeholder = 'Reason (optional)';
    this._reason.setAttribute('aria-label', 'Reason for denying (sent to the agent)');
    this._reason.addEventListener('keydown', event => {
      if (event.key === 'Enter') {
        event.preventDefault();
        void this._send({ action: 'deny', message: this._reason.value || null });
      }
    });
    button(
      denyRow,
      'jp-zengine-deny jp-mod-reject',
      'Deny',
      () => void this._send({ action: 'deny', message: this._reason.value || null })
    );
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
  private _once: HTMLButtonElement;
  private _layer: HTMLSelectElement;
  private _reason: HTMLInputElement;
  private _error: HTMLElement;
  private _outcome: string | null = null;
  private _line: HTMLElement | null = null;
}

/** The outcome of the user's own click, in the words the engine's event will use. */
function clickText(decision: ApprovalDecision): string {
  if (decision.action === 'deny') {
    return outcomeText({ kind: 'tool_call_denied', by: 'user', reason: decision.message });
  }
  const rule = decision.action === 'always_allow' ? (decision.rule ?? null) : null;
  return outcomeText({ kind: 'tool_call_approved', by: 'user', rule });
}

const NO_REASON = ['', 'denied']; // the engine's stand-in when a user denies without a note

function withReason(head: string, reason: string | null | undefined): string {
  const text = (reason ?? '').trim().replace(/\.$/, '');
  return NO_REASON.includes(text) ? `${head}.` : `${head}: ${text}.`;
}

/**
 * The outcome line for a ToolCallApproved / ToolCallDenied event (or the user's own click,
 * before the event). The same words as the engine's `approval_outcome` (Python): "Allowed
 * once.", "Always allowed (RULE).", "Allowed by policy (rule RULE).", "Denied by you: REASON.",
 * "Denied by policy: REASON.", "Denied by a hook: REASON."
 */
export function outcomeText(
  event:
    | { kind: 'tool_call_approved'; by: string; rule?: string | null }
    | { kind: 'tool_call_denied'; by: string; reason?: string | null }
): string {
  if (event.kind === 'tool_call_approved') {
    if (event.by === 'user') {
      return event.rule ? `Always allowed (${event.rule}).` : 'Allowed once.';
    }
    if (event.by === 'hook') {
      return 'Allowed by a hook.';
    }
    if (event.rule) {
      return `Allowed by policy (rule ${event.rule}).`;
    }
    return event.by === 'auto_allow' ? 'Allowed by policy (sandboxed).' : 'Allowed by policy.';
  }
  const head =
    event.by === 'user'
      ? 'Denied by you'
      : event.by === 'hook'
        ? 'Denied by a hook'
        : event.by === 'no_answer'
          ? 'Denied (nobody answered)'
          : 'Denied by policy';
  return withReason(head, event.reason);
}

/** The same line for a stored ApprovalRecord (a chat's history). */
export function recordOutcomeText(record: {
  decision?: string | null;
  decided_by?: string | null;
  rule?: string | null;
  message?: string | null;
}): string {
  const by = record.decided_by ?? 'user';
  if (record.decision === 'deny') {
    return outcomeText({ kind: 'tool_call_denied', by, reason: record.message });
  }
  const shown = by === 'sandbox' ? 'auto_allow' : by;
  const rule = by === 'user' && record.decision !== 'allow_always' ? null : record.rule;
  return outcomeText({ kind: 'tool_call_approved', by: shown, rule });
}
