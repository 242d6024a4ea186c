/**
 * A tool card: one line (state icon, the tool's name and target, its state, how long it ran)
 * that opens on the call's input and result; an edit's diff and an approval prompt show below
 * it without a click, and so does a failed call's error line. Consecutive reads share one
 * line ("Read 4 files", `ToolGroup` in toolgroup.ts).
 */

import { DiffView } from './diff';
import { el } from './dom';

export type CardState = 'proposed' | 'allowed' | 'denied' | 'running' | 'done' | 'failed';

const TARGETS = [
  'command',
  'path',
  'file_path',
  'notebook_path',
  'pattern',
  'url',
  'query',
  'description',
  'shell_id'
];

/**
 * The card head's target, the same live and rebuilt from the log (records carry no summary,
 * so the event's is not used either): a command, path, pattern or url; else the first other
 * argument that reads as a target, e.g. Verify's check ids ("rate, lint"); else nothing.
 */
export function summarize(_tool: string, args: Record<string, unknown>): string {
  for (const key of TARGETS) {
    const value = args[key];
    if (typeof value === 'string' && value) {
      return cut(value);
    }
  }
  for (const value of Object.values(args)) {
    const text = readable(value);
    if (text) {
      return cut(text);
    }
  }
  return '';
}

/** A scalar as text, a list of scalars as "a, b", an object as compact JSON; '' if empty. */
function readable(value: unknown): string {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    return typeof value === 'string' ? value.split(/\s+/).join(' ').trim() : '';
  }
  if (Array.isArray(value)) {
    return value.every(v => ['string', 'number', 'boolean'].includes(typeof v))
      ? value.map(String).join(', ')
      : value.length
        ? JSON.stringify(value)
        : '';
  }
  if (value && typeof value === 'object') {
    return Object.keys(value).length ? JSON.stringify(value) : '';
  }
  return '';
}

function cut(text: string): string {
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}

/** A unified-looking diff from Edit / Write arguments (the real diff replaces it when known). */
export function argumentDiff(args: Record<string, unknown>): string | null {
  const path = typeof args.path === 'string' ? args.path : '';
  if (typeof args.old_string === 'string' && typeof args.new_string === 'string') {
    const minus = args.old_string.split('\n').map(line => `-${line}`);
    const plus = args.new_string.split('\n').map(line => `+${line}`);
    return [`--- ${path}`, `+++ ${path}`, ...minus, ...plus].join('\n');
  }
  if (typeof args.content === 'string') {
    return [`+++ ${path}`, ...args.content.split('\n').map(line => `+${line}`)].join('\n');
  }
  return null;
}

export class ToolCard {
  constructor(
    parent: HTMLElement,
    readonly callId: string,
    tool: string,
    args: Record<string, unknown>
  ) {
    this.node = el('li', 'jp-zengine-item jp-zengine-tool', null, parent);
    this.node.dataset.kind = 'tool';
    this.node.dataset.callId = callId;
    this.node.dataset.tool = tool;
    this.node.setAttribute('aria-label', `Tool call ${tool}`);
    // the one-line summary: a button that shows or hides the call's input and result
    const head = el('button', 'jp-zengine-tool-head', null, this.node);
    head.type = 'button';
    head.setAttribute('aria-expanded', 'false');
    head.addEventListener('click', event => {
      event.preventDefault();
      this.open = !this.open;
    });
    this._head = head;
    el('span', 'jp-zengine-tool-icon', null, head).setAttribute('aria-hidden', 'true');
    el('span', 'jp-zengine-tool-name', tool, head);
    el('span', 'jp-zengine-tool-summary', summarize(tool, args), head);
    this._state = el('span', 'jp-zengine-tool-state', null, head);
    this._time = el('span', 'jp-zengine-tool-time', null, head);
    // a failed call's error line: one line under the summary, cut with an ellipsis
    this._error = el('div', 'jp-zengine-tool-error', null, this.node);
    this._error.id = `jp-zengine-tool-error-${++ERRORS}`;
    this._error.hidden = true;
    this._body = el('div', 'jp-zengine-tool-body', null, this.node);
    this._body.hidden = true;
    const diff = argumentDiff(args);
    if (typeof args.command === 'string') {
      const pre = el('pre', 'jp-zengine-command', args.command, this._body);
      pre.setAttribute('aria-label', 'Command');
    } else {
      const input = inputText(args, diff !== null);
      if (input) {
        el('pre', 'jp-zengine-tool-input', input, this._body).setAttribute('aria-label', 'Input');
      }
    }
    this._diff = diff === null ? null : this._showDiff(diff);
    this.slot = el('div', 'jp-zengine-tool-slot', null, this.node);
    this.setState('proposed');
  }

  readonly node: HTMLElement;
  /** Where an approval prompt for this call goes. */
  readonly slot: HTMLElement;

  /** Whether the call's input and result show (the diff and an approval always do). */
  get open(): boolean {
    return !this._body.hidden;
  }

  set open(value: boolean) {
    this._body.hidden = !value;
    this._head.setAttribute('aria-expanded', String(value));
    this.node.dataset.open = String(value);
  }

  setState(state: CardState, detail = ''): void {
    this.node.dataset.state = state;
    this._state.textContent = detail ? `${state}: ${detail}` : state;
    if (state === 'running') {
      this._started = Date.now();
    }
  }

  /** How long the call ran, in seconds (live: measured here; from the log: its timestamps). */
  setDuration(seconds: number): void {
    this._time.textContent = duration(seconds);
    this.node.dataset.durationMs = String(Math.round(seconds * 1000));
  }

  /** The call ran: its real diff (if any) replaces the arguments' one; the result in the body,
   * and an error's first line under the summary, shown without opening the card. */
  finish(output: string, isError: boolean, diff?: string | null): void {
    if (this.node.dataset.state !== 'denied') {
      this.setState(isError ? 'failed' : 'done'); // a denied call's answer is the denial
    }
    if (this._started !== null) {
      this.setDuration((Date.now() - this._started) / 1000);
      this._started = null;
    }
    if (diff) {
      this.setDiff(diff);
    }
    const failed = isError && this.node.dataset.state === 'failed';
    this._error.hidden = !failed;
    this._error.textContent = failed ? errorLine(output) : '';
    this._error.title = failed ? firstLine(output) : ''; // the whole line, on hover
    if (failed) {
      this._head.setAttribute('aria-describedby', this._error.id);
    } else {
      this._head.removeAttribute('aria-describedby');
    }
    this._result?.remove();
    this._result = el('div', 'jp-zengine-result', null, this._body);
    el('div', 'jp-zengine-result-label', isError ? 'Error' : 'Result', this._result);
    el('pre', 'jp-zengine-output', output, this._result);
  }

  /** The engine's unified diff (an approval's preview, a denial's, the result's) replaces the
   * one made from the arguments. */
  setDiff(diff: string): void {
    if (this._diff) {
      this._diff.set(diff);
    } else {
      this._diff = this._showDiff(diff);
    }
  }

  private _showDiff(diff: string): DiffView {
    const view = new DiffView();
    view.set(diff);
    this.node.insertBefore(view.node, this.slot ?? null);
    return view;
  }

  private _head: HTMLButtonElement;
  private _state: HTMLElement;
  private _time: HTMLElement;
  private _error: HTMLElement;
  private _body: HTMLElement;
  private _diff: DiffView | null;
  private _result: HTMLElement | null = null;
  private _started: number | null = null;
}

/** `0.3s`, `12s`, `2m 5s`. */
export function duration(seconds: number): string {
  if (seconds < 10) {
    return `${Math.max(0, seconds).toFixed(1)}s`;
  }
  if (seconds < 60) {
    return `${Math.round(seconds)}s`;
  }
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)}m ${whole % 60}s`;
}

/** The line an error is known by: its first non-empty line, cut. */
export function errorLine(output: string): string {
  return cut(firstLine(output));
}

/** An output's first non-empty line, whole ('failed' when it has none). */
export function firstLine(output: string): string {
  return (output.split('\n').find(l => l.trim()) ?? 'failed').trim();
}

let ERRORS = 0;

/** What a diff already shows of an edit's arguments: the text, and the path in its head. */
const DIFF_SHOWS = ['old_string', 'new_string', 'content', 'path', 'file_path'];

/** The call's input as the body shows it: the arguments as JSON, without what the diff
 * already shows (an edit of one path with nothing else has no input block). */
export function inputText(args: Record<string, unknown>, diffShown: boolean): string {
  const shown: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    if (!(diffShown && DIFF_SHOWS.includes(key))) {
      shown[key] = value;
    }
  }
  return Object.keys(shown).length ? JSON.stringify(shown, null, 1) : '';
}
