/**
 * The conversation, for the panel and the %%agent cell widget alike: rebuilt from a
 * Snapshot's log records (panel) or a replay of events (widget), then kept current by live
 * engine events. User messages (each with its rewind control), streamed markdown, thinking
 * (collapsed), tool cards with their approval prompts, provider-busy lines, errors, notices.
 * The cost and the verification badge live in the view's `StatusBar`.
 */

import { ApprovalPrompt, Answer, outcomeText, recordOutcomeText } from './approvals';
import { ICodeActions } from './codetools';
import { collapsed, el, follow } from './dom';
import { IMarkdown, MarkdownBlock } from './markdown';
import { ApprovalRequest, EngineEvent, LogRecord, MessageRecord, Snapshot } from '../protocol';
import { RewindHandler, addRewindControl, rewindOutcome } from './rewind';
import { StatusBar, busyText } from './status';
import { ToolCard } from './toolcard';
import { ToolGroup, groupOf } from './toolgroup';

export interface IChatOptions {
  /** Renders markdown (null: plain text). */
  markdown: IMarkdown | null;
  status: StatusBar;
  answer: Answer;
  /** Rewinds to before a user message; null: no rewind control (the cell widget). */
  rewind: RewindHandler | null;
  /** False where the user's message is already on screen (the cell is the message). */
  showUser?: boolean;
  /** A line for `trust_required` (the cell widget); without it the view shows a banner. */
  trustLine?: (folder: string, withheld: string[]) => string;
  /** Insert / Replace for code blocks (the panel's port to JupyterLab); none: Copy only. */
  codeActions?: ICodeActions | null;
}

export class ChatView {
  constructor(
    parent: HTMLElement,
    private readonly _options: IChatOptions
  ) {
    this.node = el('ol', 'jp-zengine-messages', null, parent);
    // a list of messages (no role="log": it would take the list's role from its <li> items,
    // which axe-core reports as serious); aria-live announces what is added all the same
    this.node.setAttribute('aria-live', 'polite');
    this.node.setAttribute('aria-label', 'Conversation');
    this.node.tabIndex = 0; // scrollable by keyboard
    // a resize (a narrower panel, a wider notebook) moves content: a waiting approval stays seen
    if (typeof ResizeObserver !== 'undefined') {
      new ResizeObserver(() =>
        this.firstOpenPrompt()?.node.scrollIntoView?.({ block: 'nearest' })
      ).observe(this.node);
    }
  }

  readonly node: HTMLElement;

  /** Start over from a snapshot's records and pending approvals. */
  reset(snapshot: Snapshot): void {
    this.clear();
    const results = new Map<string, { output: string; isError: boolean }>();
    let turnId: string | null = null;
    for (const record of snapshot.records ?? []) {
      turnId = this._record(record, turnId, results);
    }
    for (const request of snapshot.pending ?? []) {
      this._prompt(request);
    }
    this._options.status.setRunning(snapshot.running_turn_id ?? null);
    this._showRewinds(snapshot.running_turn_id ?? null);
  }

  clear(): void {
    this.node.replaceChildren();
    this._cards.clear();
    this._began.clear();
    this._prompts.clear();
    this._endStream();
    this._options.status.reset();
  }

  /** One live event. */
  apply(event: EngineEvent): void {
    const status = this._options.status;
    switch (event.kind) {
      case 'turn_started':
        this._endStream();
        if (this._options.showUser !== false) {
          this._user(event.prompt, event.turn_id ?? null);
        }
        status.setRunning(event.turn_id ?? 'running');
        this._showRewinds(event.turn_id ?? null);
        this.node.scrollTop = this.node.scrollHeight;
        return;
      case 'text_streamed':
        this._stream().append(event.text);
        break;
      case 'thinking_streamed':
        this._thinking().textContent += event.text;
        break;
      case 'tool_call_proposed':
        this._endStream();
        this._card(event.call_id, event.tool, event.arguments); // the head: summarize(args)
        break;
      case 'approval_requested':
        this._endStream();
        this._prompt(event.request);
        this._prompts.get(event.request.call_id)?.node.scrollIntoView?.({ block: 'nearest' });
        return;
      case 'tool_call_approved':
      case 'tool_call_denied':
        this._decided(event);
        break;
      case 'tool_call_started':
        this._cards.get(event.call_id)?.setState('running');
        break;
      case 'tool_call_finished':
        this._finish(this._cardFor(event.call_id), event.output, event.is_error, event.diff);
        break;
      case 'provider_busy':
        this._line('busy', busyText(event.attempt, event.wait_s)).title = event.message; // the provider's own words, on hover
        break;
      case 'error':
        this._endStream();
        if (event.cause === 'setup') {
          break; // no model configured: the states box (ui/states.ts) says it, with its button
        }
        this._line(
          'error',
          event.hint ? `${event.message} (${event.hint})` : event.message
        ).setAttribute('role', 'alert');
        break;
      case 'notice':
        if (event.topic === 'title') {
          status.setTitle(event.text); // the chat was named (or renamed): the header shows it
          break;
        }
        this._line('notice', noticeText(event.topic, event.text));
        break;
      case 'cost_updated':
        status.setCost(event.turn_usd, event.session_usd);
        break;
      case 'verification_changed':
        status.setBadge(event.badge, event.reason);
        break;
      case 'check_recorded':
        status.addCheck(event.check_id, event.passed, event.summary);
        break;
      case 'turn_ended':
        this._endStream();
        status.setRunning(null);
        this._showRewinds(null);
        if (event.status !== 'completed') {
          this._line('notice', `Turn ${event.status}${event.reason ? `: ${event.reason}` : ''}.`);
        }
        break;
      case 'rewound':
        if (event.result.conversation) {
          this._rewinds.set(event.result.to_turn_id, event); // a snapshot follows: kept there
        }
        this._rewound(event);
        break;
      case 'trust_required':
        if (this._options.trustLine) {
          this._line('notice', this._options.trustLine(event.folder, event.withheld));
        }
        break;
      default:
        break; // checkpoint_taken, resync: handled by the view or not shown
    }
    follow(this.node);
  }

  /** A command's answer (markdown) or a plain line of the given kind. */
  markdown(kind: string, source: string): void {
    this._endStream();
    const item = this._item(kind);
    new MarkdownBlock(
      this._options.markdown,
      el('div', 'jp-zengine-body', null, item),
      source,
      this._options.codeActions ?? null
    );
    follow(this.node);
  }

  line(kind: string, text: string): HTMLElement {
    const node = this._line(kind, text);
    follow(this.node);
    return node;
  }

  /** The turn is over: streamed text renders now; prompts nobody answered lose their buttons. */
  closePrompts(text: string): void {
    this._endStream();
    for (const prompt of this._prompts.values()) {
      prompt.expire(text);
    }
  }

  /** The model answering (the chat's, when known): the agent's messages name it. */
  setModel(model: string | null | undefined): void {
    this._model = model ?? null;
  }

  /** The prompt waiting for an answer, if any (keyboard users jump to it). */
  firstOpenPrompt(): ApprovalPrompt | null {
    for (const prompt of this._prompts.values()) {
      if (!prompt.answered) {
        return prompt;
      }
    }
    return null;
  }

  // ------------------------------------------------------------ records

  private _record(
    record: LogRecord,
    turnId: string | null,
    results: Map<string, { output: string; isError: boolean }>
  ): string | null {
    const status = this._options.status;
    switch (record.kind) {
      case 'turn_start':
        this._endStream();
        return record.turn_id ?? null;
      case 'message':
        this._message(record, turnId);
        break;
      case 'tool_result': {
        const card = this._cardFor(record.tool_call_id, record.name);
        this._finish(card, record.output ?? '', record.is_error ?? false, record.diff);
        const began = seconds(this._began.get(record.tool_call_id));
        const ended = seconds(record.ts);
        if (began !== null && ended !== null && ended >= began) {
          card.setDuration(ended - began); // from the call (or its answer) to its result
        }
        results.set(record.tool_call_id, {
          output: record.output ?? '',
          isError: record.is_error ?? false
        });
        break;
      }
      case 'approval': {
        if (record.ts) {
          this._began.set(record.tool_call_id, record.ts); // it ran once answered
        }
        const allowed = record.decision !== 'deny';
        const card = this._cards.get(record.tool_call_id);
        const by = record.decided_by ?? 'user';
        const text = recordOutcomeText(record);
        if (card && card.node.dataset.state === 'proposed') {
          card.setState(allowed ? 'allowed' : 'denied');
        }
        if (card && (by === 'user' || by === 'no_answer')) {
          el(
            'div',
            `jp-zengine-approval-outcome jp-zengine-${allowed ? 'ok' : 'bad'}`,
            text,
            card.slot
          );
        }
        break;
      }
      case 'check':
        status.addCheck(record.check.check_id, record.check.passed, checkSummary(record.check));
        break;
      case 'verification':
        status.setBadge(record.badge, record.reason ?? '');
        break;
      case 'rewind': {
        const event = this._rewinds.get(record.to_turn_id);
        if (event) {
          this._rewound(event); // the outcome seen live, where the log has the rewind
        }
        break;
      }
      case 'usage':
        status.addUsage(record.cost_usd ?? null);
        break;
      case 'turn_end':
        this._endStream();
        if (record.status !== 'completed') {
          this._line(
            'notice',
            `Turn ${record.status}${record.reason ? `: ${record.reason}` : ''}.`
          );
        }
        return null;
      case 'mode_change':
        this._line('notice', `Mode: ${record.mode}`);
        break;
      case 'model_change':
        this._model = record.model;
        this._line('notice', `Model: ${record.model}`);
        break;
      case 'compaction':
        this._line('notice', 'The conversation was summarised for the model.');
        break;
      case 'title':
        status.setTitle(record.title);
        break;
      default:
        break;
    }
    return turnId;
  }

  private _message(record: MessageRecord, turnId: string | null): void {
    if (record.role === 'user') {
      this._endStream();
      this._user(record.text ?? '', turnId, record.ts);
      return;
    }
    for (const block of record.thinking ?? []) {
      this._thinking().textContent += block.text;
    }
    if (record.text) {
      this._endStream();
      const block = this._stream(record.ts);
      block.append(record.text);
      this._endStream();
    }
    for (const call of record.tool_calls ?? []) {
      this._endStream();
      this._card(call.id, call.name, call.input ?? {});
      if (record.ts) {
        this._began.set(call.id, record.ts);
      }
    }
  }

  // ------------------------------------------------------------ items

  private _item(kind: string): HTMLElement {
    const item = el('li', `jp-zengine-item jp-zengine-item-${kind}`, null, this.node);
    item.dataset.kind = kind;
    return item;
  }

  private _line(kind: string, text: string): HTMLElement {
    this._endStream();
    const item = this._item(kind);
    item.textContent = text;
    return item;
  }

  private _user(text: string, turnId: string | null, ts?: string): void {
    const item = this._item('user');
    item.setAttribute('aria-label', 'Your message');
    const meta = el('div', 'jp-zengine-meta', null, item);
    stamp(meta, ts);
    el('div', 'jp-zengine-body', text, item);
    if (turnId) {
      item.dataset.turnId = turnId;
    }
    if (turnId && this._options.rewind) {
      addRewindControl(item, turnId, this._options.rewind);
    }
  }

  /**
   * No "Rewind…" under the message whose turn still runs (it has nothing settled to rewind to
   * yet; Interrupt is the control then); every finished turn's message keeps it, even one that
   * changed no files, since "Conversation" still drops that message and its answer.
   */
  private _showRewinds(running: string | null): void {
    for (const box of this.node.querySelectorAll<HTMLElement>('.jp-zengine-rewind')) {
      box.hidden = running !== null && box.dataset.turnId === running;
    }
  }

  private _stream(ts?: string): MarkdownBlock {
    if (!this._text) {
      this._thinkingBody = null;
      const item = this._item('assistant');
      item.setAttribute('aria-label', 'Agent');
      const meta = el('div', 'jp-zengine-meta', null, item);
      el('span', 'jp-zengine-author', AGENT_NAME, meta);
      if (this._model) {
        el('span', 'jp-zengine-model', this._model, meta);
      }
      stamp(meta, ts);
      this._text = new MarkdownBlock(
        this._options.markdown,
        el('div', 'jp-zengine-body', null, item),
        '',
        this._options.codeActions ?? null
      );
    }
    return this._text;
  }

  private _thinking(): HTMLElement {
    if (!this._thinkingBody) {
      this._endStream();
      const item = this._item('thinking');
      const { body } = collapsed(item, 'jp-zengine-thinking', 'Thinking');
      this._thinkingBody = el('pre', 'jp-zengine-thinking-text', '', body);
    }
    return this._thinkingBody;
  }

  private _endStream(): void {
    this._text?.finish();
    this._text = null;
    this._thinkingBody = null;
  }

  private _card(callId: string, tool: string, args: Record<string, unknown>): ToolCard {
    const previous = this.node.lastElementChild;
    const card = new ToolCard(this.node, callId, tool, args);
    ToolGroup.join(previous, card); // consecutive reads: one line
    this._cards.set(callId, card);
    return card;
  }

  /** A call's result; a failed call in a group opens it, so its error line shows. */
  private _finish(card: ToolCard, output: string, isError: boolean, diff?: string | null): void {
    card.finish(output, isError, diff);
    const group = groupOf(card);
    if (group && card.node.dataset.state === 'failed') {
      group.open = true;
    }
  }

  private _cardFor(callId: string, tool = 'tool'): ToolCard {
    return this._cards.get(callId) ?? this._card(callId, tool, {});
  }

  private _prompt(request: ApprovalRequest): void {
    if (this._prompts.has(request.call_id)) {
      return;
    }
    const card = this._cardFor(request.call_id, request.tool);
    if (request.diff) {
      card.setDiff(request.diff); // against the file as it is: what the call would change
    }
    const prompt = new ApprovalPrompt(card.slot, request, this._options.answer);
    this._prompts.set(request.call_id, prompt);
    card.node.dataset.waiting = 'true';
    card.open = true; // a card waiting for an answer shows what it would do
    const group = groupOf(card);
    if (group) {
      group.open = true;
    }
  }

  private _decided(
    event: Extract<EngineEvent, { kind: 'tool_call_approved' | 'tool_call_denied' }>
  ): void {
    const allowed = event.kind === 'tool_call_approved';
    const card = this._cards.get(event.call_id);
    // the state names who decided; the outcome line below says it in full
    card?.setState(
      allowed ? 'allowed' : 'denied',
      event.by === 'user'
        ? 'by you'
        : event.by === 'no_answer'
          ? 'nobody answered'
          : `by ${event.by}`
    );
    if (card && event.kind === 'tool_call_denied' && event.diff) {
      card.setDiff(event.diff); // what the denied call would have changed
    }
    if (card) {
      delete card.node.dataset.waiting;
      card.open = false; // answered: back to one line (the diff and the outcome stay shown)
    }
    this._prompts.get(event.call_id)?.settle(outcomeText(event), allowed);
  }

  /** A rewind's outcome: the headline and the engine's words (`describe_rewind`). */
  private _rewound(event: Extract<EngineEvent, { kind: 'rewound' }>): void {
    this._endStream();
    rewindOutcome(this._item('rewind'), event.text ?? '', event.warnings ?? [], event.result);
  }

  /** The conversation rewinds seen live, by the turn rewound to (a snapshot redraws them). */
  private _rewinds = new Map<string, Extract<EngineEvent, { kind: 'rewound' }>>();
  private _cards = new Map<string, ToolCard>();
  /** From the log: when each call was made or answered (its duration ends at its result). */
  private _began = new Map<string, string>();
  private _prompts = new Map<string, ApprovalPrompt>();
  private _text: MarkdownBlock | null = null;
  private _model: string | null = null;
  private _thinkingBody: HTMLElement | null = null;
}

/** How the agent's messages are signed. */
export const AGENT_NAME = 'zengine';

/** A message's time: hours and minutes, the full date on hover (now, for a live message). */
function stamp(parent: HTMLElement, iso?: string): void {
  const parsed = iso ? new Date(iso) : new Date();
  const date = Number.isNaN(parsed.getTime()) ? new Date() : parsed;
  const time = el(
    'time',
    'jp-zengine-time',
    date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }),
    parent
  );
  time.dateTime = date.toISOString();
  time.title = date.toLocaleString();
}

/** An ISO timestamp in seconds (null: none, or it does not parse). */
function seconds(iso: string | undefined): number | null {
  const ms = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(ms) ? null : ms / 1000;
}

/**
 * A notice as one text: `topic: text`, or the topic on its own line when the text has
 * several lines (so they stay aligned), the same in every view.
 */
export function noticeText(topic: string, text: string): string {
  return text.includes('\n') ? `${topic}:\n${text}` : `${topic}: ${text}`;
}

/**
 * A check record's line, as the engine words it for `check_recorded` (`summary()` in
 * engine/verify/_checks.py): verdict, id, exit code or deadline, duration, counts.
 */
export function checkSummary(check: {
  check_id: string;
  passed: boolean;
  exit_code: number | null;
  duration_s: number;
  counts?: {
    passed?: number | null;
    failed?: number | null;
    skipped?: number | null;
    errors?: number | null;
  };
}): string {
  const verdict = check.passed ? 'PASS' : 'FAIL';
  const code = check.exit_code === null ? 'stopped at its deadline' : `exit ${check.exit_code}`;
  const c = check.counts ?? {};
  const counts = (
    [
      ['passed', c.passed],
      ['failed', c.failed],
      ['skipped', c.skipped],
      ['errors', c.errors]
    ] as [string, number | null | undefined][]
  )
    .filter(([, n]) => n)
    .map(([name, n]) => `${n} ${name}`);
  const text = `${verdict} ${check.check_id} (${code}, ${oneDecimal(check.duration_s)} s)`;
  return text + (counts.length ? `: ${counts.join(', ')}` : '');
}

/**
 * `x` with one decimal as Python's `f"{x:.1f}"` writes it: exact ties (0.25, 0.75, ...: the
 * durations are rounded to milliseconds) go to the even digit, where `toFixed` goes up.
 */
export function oneDecimal(x: number): string {
  const quarters = x * 4; // exact: a power of two
  if (Number.isInteger(quarters) && quarters % 2 !== 0) {
    const low = Math.floor(x * 10);
    return ((low % 2 === 0 ? low : low + 1) / 10).toFixed(1);
  }
  return x.toFixed(1);
}
