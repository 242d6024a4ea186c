/**
 * A tool card: the tool's name and summary, the exact command for Bash, a diff for edits,
 * its state (proposed, allowed, denied, running, done, failed) and the result, collapsed.
 */

import { collapsed, el } from './dom';

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
    const head = el('div', 'jp-zengine-tool-head', null, this.node);
    el('span', 'jp-zengine-tool-name', tool, head);
    el('span', 'jp-zengine-tool-summary', summarize(tool, args), head);
    this._state = el('span', 'jp-zengine-tool-state', null, head);
    if (typeof args.command === 'string') {
      const pre = el('pre', 'jp-zengine-command', args.command, this.node);
      pre.setAttribute('aria-label', 'Command');
    }
    const diff = argumentDiff(args);
    this._diff = diff === null ? null : this._showDiff(diff);
    this.slot = el('div', 'jp-zengine-tool-slot', null, this.node);
    this.setState('proposed');
  }

  readonly node: HTMLElement;
  /** Where an approval prompt for this call goes. */
  readonly slot: HTMLElement;

  setState(state: CardState, detail = ''): void {
    this.node.dataset.state = state;
    this._state.textContent = detail ? `${state}: ${detail}` : state;
  }

  /** The call ran: its real diff (if any) replaces the arguments' one; the result, collapsed. */
  finish(output: string, isError: boolean, diff?: string | null): void {
    if (this.node.dataset.state !== 'denied') {
      this.setState(isError ? 'failed' : 'done'); // a denied call's answer is the denial
    }
    if (diff) {
      this.setDiff(diff);
    }
    this._result?.remove();
    const { details, body } = collapsed(
      this.node,
      'jp-zengine-result',
      isError ? 'Error' : 'Result'
    );
    el('pre', 'jp-zengine-output', output, body);
    this._result = details;
  }

  /** The engine's unified diff (an approval's preview, a denial's, the result's) replaces the
   * one made from the arguments. */
  setDiff(diff: string): void {
    if (this._diff) {
      colour(this._diff, diff);
    } else {
      this._diff = this._showDiff(diff);
    }
  }

  private _showDiff(diff: string): HTMLElement {
    const pre = el('pre', 'jp-zengine-diff', null);
    pre.setAttribute('aria-label', 'Diff');
    colour(pre, diff);
    this.node.insertBefore(pre, this.slot ?? null);
    return pre;
  }

  private _state: HTMLElement;
  private _diff: HTMLElement | null;
  private _result: HTMLElement | null = null;
}

/** One span per diff line, classed by its sign (theme colours come from CSS variables). */
function colour(pre: HTMLElement, diff: string): void {
  pre.replaceChildren();
  for (const line of diff.split('\n')) {
    const cls =
      line.startsWith('+++') || line.startsWith('---')
        ? 'jp-zengine-diff-file'
        : line.startsWith('+')
          ? 'jp-zengine-diff-add'
          : line.startsWith('-')
            ? 'jp-zengine-diff-del'
            : line.startsWith('@@')
              ? 'jp-zengine-diff-hunk'
              : '';
    el('span', cls, `${line}\n`, pre);
  }
}
