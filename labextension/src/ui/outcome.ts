/**
 * The words for an approval's outcome, the same in every view and as the engine's
 * `approval_outcome` (Python): from a live event, a stored record, or the user's own click.
 */

import { ApprovalDecision } from '../protocol';

/** The outcome of the user's own click, in the words the engine's event will use. */
export function clickText(decision: ApprovalDecision): string {
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
