/**
 * The turn bar (the panel's, and the %%agent cell widget's): the chat's title, whether a turn
 * runs (with the Interrupt button), the cost (this turn and the chat), the verification badge
 * with the check records behind it (a collapsed list), and how the last turn ended.
 */

import { button, collapsed, el, PRICE_UNKNOWN, usd } from './dom';

type Badge = 'verified' | 'failed' | 'unverified' | 'not_applicable';

const BADGE_TEXT: Record<Badge, string> = {
  verified: 'Verified',
  failed: 'Checks failed',
  unverified: 'Unverified',
  not_applicable: 'Nothing to verify'
};

/** The spec's retry line: "Provider busy · retry 2 in 1.5s" (seconds to one decimal, no ".0"). */
export function busyText(attempt: number, waitS: number): string {
  return `Provider busy · retry ${attempt} in ${Number(waitS.toFixed(1))}s`;
}

export class StatusBar {
  constructor(parent: HTMLElement, onInterrupt: () => void) {
    this.node = el('div', 'jp-zengine-turnbar', null, parent);
    this._title = el('div', 'jp-zengine-title', null, this.node);
    const row = el('div', 'jp-zengine-turnrow', null, this.node);
    this._running = el('span', 'jp-zengine-running', null, row);
    this._running.setAttribute('role', 'status');
    this._interrupt = button(
      row,
      'jp-zengine-interrupt jp-mod-reject',
      'Interrupt',
      onInterrupt,
      'Interrupt the running turn'
    );
    this._interrupt.title = 'Stop the running turn';
    this._cost = el('span', 'jp-zengine-cost', null, row);
    this._cost.setAttribute('aria-label', 'Cost');
    this._badgeBox = el('div', 'jp-zengine-badge-box', null, this.node);
    this._result = el('div', 'jp-zengine-turn-result', null, this.node);
    this._result.setAttribute('role', 'status');
    this.reset();
  }

  readonly node: HTMLElement;

  reset(): void {
    this._sessionUsd = 0;
    this._priced = false;
    this._unknown = false;
    this._title.textContent = '';
    this._cost.textContent = '';
    this._checks.clear();
    this._badgeBox.replaceChildren();
    this._badge = null;
    this._list = null;
    this._result.textContent = '';
    this.setRunning(null);
  }

  /** How the turn ended (the cell widget: status, changed files, the chat's cost line). */
  setResult(text: string): void {
    this._result.textContent = text;
  }

  /** Whether anyone can press Interrupt here (false: hidden, e.g. a turn run by nbclient). */
  set interruptible(value: boolean) {
    this._interruptible = value;
    this._interrupt.hidden = !value || !this.running;
  }

  setTitle(title: string): void {
    this._title.textContent = title;
  }

  /** A turn runs (its id) or none does (null). */
  setRunning(turnId: string | null): void {
    this.node.dataset.running = turnId ? 'true' : 'false';
    this._running.textContent = turnId ? 'The agent is working…' : '';
    this._interrupt.disabled = !turnId;
    this._interrupt.hidden = !this._interruptible || !turnId; // only while a turn runs
  }

  get running(): boolean {
    return this.node.dataset.running === 'true';
  }

  /** From a snapshot: add one model request's cost (null: its price is unknown). */
  addUsage(cost: number | null): void {
    if (cost !== null) {
      this._sessionUsd += cost;
      this._priced = true;
    } else {
      this._unknown = true;
    }
    const known = this._priced ? usd(this._sessionUsd) : PRICE_UNKNOWN;
    const more = this._priced && this._unknown ? ` + ${PRICE_UNKNOWN}` : '';
    this._cost.textContent = this._priced || this._unknown ? `chat ${known}${more}` : '';
  }

  /** From the chat's meta.json: its cost so far and its title (when the log has none). */
  setChat(cost: number, title: string): void {
    if ((!this._priced && !this._unknown) || cost > this._sessionUsd) {
      this._sessionUsd = cost;
      this._priced = true;
      this._cost.textContent = `chat ${usd(cost)}`;
    }
    if (!this._title.textContent && title) {
      this._title.textContent = title;
    }
  }

  /** From a live CostUpdated event. */
  setCost(turn: number | null, session: number | null): void {
    if (session !== null) {
      this._sessionUsd = session;
      this._priced = true;
    }
    this._cost.textContent = `turn ${usd(turn)} · chat ${usd(session)}`;
  }

  setBadge(badge: Badge, reason: string): void {
    this._ensureBadge();
    const node = this._badge!;
    node.dataset.badge = badge;
    node.className = `jp-zengine-badge jp-zengine-badge-${badge}`;
    node.textContent = `${BADGE_TEXT[badge]}: ${reason}`;
  }

  /** A check record (from the log or a live CheckRecorded event), as one line in the
   * engine's words (`checkSummary` for a record); the latest per check wins. */
  addCheck(checkId: string, passed: boolean, summary: string): void {
    this._ensureBadge();
    this._checks.set(checkId, { passed, summary });
    const list = this._list!;
    list.replaceChildren();
    for (const [id, check] of this._checks) {
      const item = el(
        'li',
        `jp-zengine-check jp-zengine-${check.passed ? 'ok' : 'bad'}`,
        null,
        list
      );
      item.dataset.checkId = id;
      item.dataset.passed = String(check.passed);
      item.textContent = check.summary; // the engine's line: PASS/FAIL, id, exit, duration
    }
    if (this._badge!.dataset.badge === undefined) {
      const failed = [...this._checks.values()].some(c => !c.passed);
      this._badge!.textContent = failed
        ? 'Checks failed (from the log)'
        : 'Checks passed (from the log)';
    }
  }

  private _ensureBadge(): void {
    if (this._badge) {
      return;
    }
    this._badge = el('div', 'jp-zengine-badge', null, this._badgeBox);
    this._badge.setAttribute('role', 'status');
    const { body } = collapsed(this._badgeBox, 'jp-zengine-checks', 'Check records');
    this._list = el('ul', 'jp-zengine-check-list', null, body);
  }

  private _title: HTMLElement;
  private _running: HTMLElement;
  private _interrupt: HTMLButtonElement;
  private _interruptible = true;
  private _cost: HTMLElement;
  private _badgeBox: HTMLElement;
  private _result: HTMLElement;
  private _badge: HTMLElement | null = null;
  private _list: HTMLElement | null = null;
  private _checks = new Map<string, { passed: boolean; summary: string }>();
  private _sessionUsd = 0;
  private _priced = false;
  private _unknown = false;
}
