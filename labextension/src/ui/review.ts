/**
 * Per-cell review of a turn's live notebook edits: one block in the turn's part of the chat
 * listing each cell the agent changed with its diff and Accept / Reject, and Accept all /
 * Reject all for the turn. Plain DOM; what Accept and Reject do is the caller's (`live.ts`).
 */

import { button, el } from './dom';
import { DiffView } from './diff';

export type ReviewState = 'pending' | 'accepted' | 'rejected';

/** One cell the turn changed. */
export interface IReviewCell {
  key: string;
  path: string;
  /** The cell's id (a deleted cell keeps the id it had). */
  cellId: string;
  /** Its source before the turn; null: the turn inserted it. */
  before: string | null;
  /** Its source now; null: the turn deleted it. */
  after: string | null;
  state: ReviewState;
}

export interface IReviewActions {
  /** Resolves with an error text, or null when done. */
  decide(keys: string[], accept: boolean): Promise<string | null>;
}

/** The review block of one turn. */
export class TurnReview {
  constructor(
    readonly node: HTMLElement,
    readonly turnId: string,
    private readonly _actions: IReviewActions
  ) {
    node.classList.add('jp-zengine-review');
    node.dataset.turnId = turnId;
    node.setAttribute('aria-label', 'Notebook cells changed in this turn');
    const head = el('div', 'jp-zengine-review-head', null, node);
    this._title = el('span', 'jp-zengine-review-title', null, head);
    this._all = [
      button(
        head,
        'jp-zengine-review-accept-all',
        'Accept all',
        () => void this._decide(this._pending(), true)
      ),
      button(
        head,
        'jp-zengine-review-reject-all',
        'Reject all',
        () => void this._decide(this._pending(), false)
      )
    ];
    this._list = el('ul', 'jp-zengine-review-cells', null, node);
    this._error = el('div', 'jp-zengine-review-error', null, node);
  }

  /** Add or update a cell's entry. */
  upsert(cell: IReviewCell): void {
    this._cells.set(cell.key, cell);
    let item = this._items.get(cell.key);
    if (!item) {
      item = el('li', 'jp-zengine-review-cell', null, this._list);
      this._items.set(cell.key, item);
    }
    item.dataset.cellId = cell.cellId;
    item.dataset.state = cell.state;
    const what = cell.before === null ? 'added' : cell.after === null ? 'deleted' : 'changed';
    const head = el('div', 'jp-zengine-review-cell-head', null);
    el('span', 'jp-zengine-review-cell-name', `${cell.path} · cell ${cell.cellId} · ${what}`, head);
    if (cell.state === 'pending') {
      button(head, 'jp-zengine-review-accept', 'Accept', () => void this._decide([cell.key], true));
      button(
        head,
        'jp-zengine-review-reject',
        'Reject',
        () => void this._decide([cell.key], false)
      );
    } else {
      el(
        'span',
        'jp-zengine-review-outcome',
        cell.state === 'accepted' ? 'Accepted' : 'Rejected',
        head
      );
    }
    const diff = new DiffView();
    diff.set(cellDiff(cell.before, cell.after, cell.cellId));
    item.replaceChildren(head, diff.node);
    this._refresh();
  }

  get cells(): IReviewCell[] {
    return [...this._cells.values()];
  }

  private _pending(): string[] {
    return this.cells.filter(c => c.state === 'pending').map(c => c.key);
  }

  private async _decide(keys: string[], accept: boolean): Promise<void> {
    if (!keys.length) {
      return;
    }
    const error = await this._actions.decide(keys, accept);
    this._error.textContent = error ?? '';
  }

  private _refresh(): void {
    const cells = this.cells;
    const pending = cells.filter(c => c.state === 'pending').length;
    this._title.textContent =
      `Notebook cells changed: ${cells.length}` +
      (pending ? ` · ${pending} to review` : ' · reviewed');
    for (const b of this._all) {
      b.disabled = pending === 0;
    }
  }

  private _title: HTMLElement;
  private _all: HTMLButtonElement[];
  private _list: HTMLElement;
  private _error: HTMLElement;
  private _cells = new Map<string, IReviewCell>();
  private _items = new Map<string, HTMLElement>();
}

/** A unified diff of one cell's source (before null: inserted; after null: deleted). */
export function cellDiff(before: string | null, after: string | null, cellId: string): string {
  const old = before === null ? [] : before.split('\n');
  const now = after === null ? [] : after.split('\n');
  const head = [
    `--- ${before === null ? '/dev/null' : `cell ${cellId} (before the turn)`}`,
    `+++ ${after === null ? '/dev/null' : `cell ${cellId} (the agent's)`}`,
    `@@ -1,${old.length} +1,${now.length} @@`
  ];
  return [...head, ...lineDiff(old, now)].join('\n');
}

/** Lines as ` same`, `-removed`, `+added` (longest common subsequence; cells are short). */
export function lineDiff(old: string[], now: string[]): string[] {
  const n = old.length;
  const m = now.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] =
        old[i] === now[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && old[i] === now[j]) {
      out.push(` ${old[i++]}`);
      j++;
    } else if (i < n && (j === m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      out.push(`-${old[i++]}`);
    } else {
      out.push(`+${now[j++]}`);
    }
  }
  return out;
}
