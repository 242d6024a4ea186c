/**
 * Live notebooks: this page tells the kernel which notebooks it has open (`open_documents`),
 * and applies the agent's notebook edits to the open document's shared model when the kernel
 * asks (`doc_request`), so cells appear as the agent writes them, the user's unsaved work in
 * other cells stays, the active cell stays, and with jupyter-collaboration every collaborator
 * sees them. Each edited cell gets a gutter marker and an entry in its turn's review
 * (`ui/review.ts`): Accept keeps it, Reject puts the cell back as it was before the turn.
 */

import { Dialog, showDialog } from '@jupyterlab/apputils';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';

import { RequestBody } from './connection';
import { runAgentCell } from './liverun';
import { DocEdit, DocRequest, Reply } from './protocol';
import { IReviewCell, TurnReview } from './ui/review';

export const AGENT_CELL_CLASS = 'jp-zengine-agent-cell';
const BADGE_CLASS = 'jp-zengine-agent-badge';

/** What a cell is as nbformat JSON (the shared model's `toJSON()`). */
type CellJSON = Record<string, unknown> & { id?: string; cell_type?: string; source?: unknown };

export interface ILiveOptions {
  tracker: INotebookTracker;
  send(body: RequestBody): Promise<Reply>;
  /**
   * An empty element in the chat, under turn `turnId`, where its review goes. A turn the chat
   * does not show: at the chat's end, or (`onlyShown`) a detached element.
   */
  reviewHost(turnId: string, onlyShown?: boolean): HTMLElement;
  /** Where the reviews are kept across page reloads (default: the browser's localStorage). */
  storage?: Pick<Storage, 'getItem' | 'setItem'> | null;
}

/** The localStorage key of the reviews (this origin: this Jupyter server). */
export const REVIEW_STORAGE_KEY = 'zengine-live-review:v1';
/** Reviews kept: the newest cells first, older ones dropped. */
const KEPT_ENTRIES = 200;

interface IEntry extends IReviewCell {
  turnId: string;
  /** The cell before the turn (null: inserted by it) and where it was. */
  beforeCell: CellJSON | null;
  beforeIndex: number;
}

export class LiveNotebooks {
  /** This page, as the kernel knows it (two pages on one kernel are two frontends). */
  readonly frontend = `page-${Math.random().toString(36).slice(2, 10)}`;

  constructor(private readonly _options: ILiveOptions) {
    this._storage = _options.storage === undefined ? storageOrNull() : _options.storage;
    this._load();
    _options.tracker.widgetAdded.connect((_, panel) => this._watch(panel));
    _options.tracker.forEach(panel => this._watch(panel));
  }

  /** Tell the kernel which notebooks this page has open (on connect and on every change). */
  async report(): Promise<void> {
    const notebooks: { path: string; dirty: boolean }[] = [];
    this._options.tracker.forEach(panel => {
      if (!panel.isDisposed && panel.context.isReady) {
        notebooks.push({ path: panel.context.path, dirty: panel.context.model.dirty });
      }
    });
    await this._options.send({
      kind: 'open_documents',
      frontend: this.frontend,
      server_root: serverRoot(),
      notebooks
    });
  }

  /** Milliseconds from each `edit` request's arrival to its cell in the page (for tests). */
  readonly timings: number[] = [];

  /** Answer one of the kernel's `doc_request`s. */
  async handle(request: DocRequest): Promise<void> {
    let answer: Record<string, unknown>;
    try {
      answer = await this._do(request);
    } catch (reason) {
      answer = { ok: false, error: reason instanceof Error ? reason.message : String(reason) };
    }
    await this._options.send({
      kind: 'doc_answer',
      request_id: request.id,
      ok: true,
      ...answer
    });
  }

  private async _do(request: DocRequest): Promise<Record<string, unknown>> {
    const panel = this._panel(request.path);
    if (!panel) {
      return { ok: false, error: `${request.path} is not open in this page any more` };
    }
    const model = panel.content.model!;
    switch (request.action) {
      case 'read':
        return { notebook: model.toJSON(), dirty: model.dirty };
      case 'edit': {
        const started = performance.now();
        this._edit(panel, request.path, request.edit!, request.turn_id ?? null);
        this.timings.push(performance.now() - started);
        return { dirty: model.dirty };
      }
      case 'save':
        await panel.context.save();
        return { dirty: model.dirty };
      case 'restore':
        return this._restore(panel, request.path, request.cells ?? []);
      case 'run':
        return runAgentCell(panel, request, id =>
          this._added(panel, request.path, id, request.turn_id ?? null, request.code ?? '')
        );
      default:
        return { ok: false, error: `unknown action ${String(request.action)}` };
    }
  }

  // ------------------------------------------------------------ edits

  private _edit(panel: NotebookPanel, path: string, edit: DocEdit, turnId: string | null): void {
    const shared = panel.content.model!.sharedModel;
    const focused = document.activeElement as HTMLElement | null;
    const at = edit.op === 'insert' ? edit.index : this._index(panel, edit.cell_id, edit.index);
    const key = `${turnId}:${path}:${edit.cell_id}`;
    if (turnId && !this._entries.has(key)) {
      const beforeCell = edit.op === 'insert' ? null : (shared.getCell(at).toJSON() as CellJSON);
      this._entries.set(key, {
        key, turnId, path, cellId: edit.cell_id, beforeCell, beforeIndex: at, state: 'pending',
        before: beforeCell ? sourceOf(beforeCell) : null, after: null
      }); // prettier-ignore
    }
    const cell = edit.cell;
    switch (edit.op) {
      case 'insert':
        shared.insertCell(at, { ...cell, id: edit.cell_id } as never);
        break;
      case 'replace':
        this._replace(panel, at, cell!);
        break;
      case 'delete':
        shared.deleteCell(at);
        break;
      case 'move':
        shared.moveCell(at, edit.to_index ?? at);
        break;
    }
    if (focused && document.activeElement !== focused && document.contains(focused)) {
      focused.focus(); // the user's cursor stays where it was
    }
    const entry = this._entries.get(key);
    if (entry) {
      entry.after = edit.op === 'delete' ? null : this._source(panel, edit.cell_id);
      this._review(entry.turnId).upsert(entry);
      this._mark(panel, edit.cell_id, true);
      this._save();
    }
  }

  private _replace(panel: NotebookPanel, at: number, cell: CellJSON): void {
    const shared = panel.content.model!.sharedModel;
    const current = shared.getCell(at);
    if (current.cell_type !== cell.cell_type) {
      shared.transact(() => {
        shared.deleteCell(at);
        shared.insertCell(at, { ...cell, id: current.id } as never);
      });
      return;
    }
    shared.transact(() => {
      current.setSource(sourceOf(cell));
      if (current.cell_type === 'code') {
        const code = current as unknown as {
          setOutputs(o: unknown[]): void;
          execution_count: number | null;
        };
        code.setOutputs((cell.outputs as unknown[]) ?? []);
        code.execution_count = (cell.execution_count as number | null) ?? null;
      }
    });
  }

  /** RunCell's visible cell: marked, and listed in its turn's review (Reject removes it). */
  private _added(
    panel: NotebookPanel,
    path: string,
    cellId: string,
    turnId: string | null,
    source: string
  ): void {
    this._mark(panel, cellId, true);
    if (!turnId) {
      return;
    }
    const key = `${turnId}:${path}:${cellId}`;
    const entry: IEntry = {
      key, turnId, path, cellId, beforeCell: null, beforeIndex: this._find(panel, cellId),
      state: 'pending', before: null, after: source
    }; // prettier-ignore
    this._entries.set(key, entry);
    this._review(turnId).upsert(entry);
    this._save();
  }

  // ------------------------------------------------------------ review

  /**
   * The chat was drawn again (a snapshot: a page reload, a resubscribe, a conversation
   * rewind): each turn's review goes back under its turn. A turn no longer in the chat (a
   * conversation rewind dropped it) shows none.
   */
  reattach(): void {
    const turns = new Set([...this._entries.values()].map(e => e.turnId));
    for (const turnId of turns) {
      const review = this._reviews.get(turnId);
      if (review && review.node.isConnected) {
        continue;
      }
      const node = this._options.reviewHost(turnId, true);
      if (!node.isConnected) {
        continue; // the turn is not in this chat
      }
      const fresh = this._make(turnId, node);
      for (const entry of this._entries.values()) {
        if (entry.turnId === turnId) {
          fresh.upsert(entry);
        }
      }
    }
  }

  private _make(turnId: string, node: HTMLElement): TurnReview {
    const review = new TurnReview(node, turnId, {
      decide: (keys, accept) => this.decide(keys, accept)
    });
    this._reviews.set(turnId, review);
    return review;
  }

  private _review(turnId: string): TurnReview {
    let review = this._reviews.get(turnId);
    if (!review || !review.node.isConnected) {
      review = this._make(turnId, this._options.reviewHost(turnId));
    }
    return review;
  }

  /** Accept (keep) or Reject (put back as before the turn) these cells; an error or null. */
  decide(keys: string[], accept: boolean): Promise<string | null> {
    const problems: string[] = [];
    for (const key of keys) {
      const entry = this._entries.get(key);
      if (!entry || entry.state !== 'pending') {
        continue;
      }
      const panel = this._panel(entry.path);
      if (!accept) {
        if (!panel) {
          problems.push(`${entry.path} is not open: cell ${entry.cellId} was not put back`);
          continue;
        }
        this._putBack(panel, entry);
      }
      entry.state = accept ? 'accepted' : 'rejected';
      if (panel) {
        this._mark(panel, entry.cellId, false);
      }
      this._reviews.get(entry.turnId)?.upsert(entry);
    }
    this._save();
    return Promise.resolve(problems.length ? problems.join('; ') : null);
  }

  private _putBack(panel: NotebookPanel, entry: IEntry): void {
    const shared = panel.content.model!.sharedModel;
    const index = this._find(panel, entry.cellId);
    const before = entry.beforeCell;
    if (before === null) {
      if (index >= 0) {
        shared.deleteCell(index); // the turn added it
      }
    } else if (index < 0) {
      shared.insertCell(Math.min(entry.beforeIndex, shared.cells.length), before as never);
    } else {
      this._replace(panel, index, before);
    }
  }

  // ------------------------------------------------------------ rewind

  private async _restore(
    panel: NotebookPanel,
    path: string,
    cells: CellJSON[]
  ): Promise<Record<string, unknown>> {
    const model = panel.content.model!;
    if (model.dirty) {
      const answer = await showDialog({
        title: 'Put the notebook back?',
        body:
          `The rewind puts ${path} back as it was before the agent changed it, but the open ` +
          'notebook has unsaved changes. Put it back (unsaved changes are lost) or keep your version?',
        buttons: [
          Dialog.cancelButton({ label: 'Keep my version' }),
          Dialog.warnButton({ label: 'Put it back' })
        ]
      });
      if (!answer.button.accept) {
        return { ok: false, error: `the user kept their version of ${path}`, dirty: model.dirty };
      }
    }
    const shared = model.sharedModel;
    shared.transact(() => {
      shared.deleteCellRange(0, shared.cells.length);
      shared.insertCells(0, cells as never[]);
    });
    for (const entry of this._entries.values()) {
      // put back by the rewind: the cell is no longer as the agent left it (a turn before
      // the one rewound to keeps its cells, still to review)
      if (
        entry.path === path &&
        entry.state === 'pending' &&
        this._source(panel, entry.cellId) !== entry.after
      ) {
        entry.state = 'rejected';
        this._reviews.get(entry.turnId)?.upsert(entry);
      }
    }
    this._save();
    return { dirty: model.dirty };
  }

  // ------------------------------------------------------------ helpers

  private _panel(path: string): NotebookPanel | null {
    return this._options.tracker.find(p => !p.isDisposed && p.context.path === path) ?? null;
  }

  private _find(panel: NotebookPanel, cellId: string): number {
    const cells = panel.content.model!.sharedModel.cells;
    return cells.findIndex(c => c.id === cellId);
  }

  /** Where `cellId` is now (the engine's index when the user moved nothing). */
  private _index(panel: NotebookPanel, cellId: string, hint: number): number {
    const cells = panel.content.model!.sharedModel.cells;
    if (cells[hint]?.id === cellId) {
      return hint;
    }
    const found = this._find(panel, cellId);
    if (found < 0) {
      throw new Error(`no cell ${cellId} in the open notebook (deleted by the user?)`);
    }
    return found;
  }

  private _source(panel: NotebookPanel, cellId: string): string | null {
    const index = this._find(panel, cellId);
    return index < 0 ? null : panel.content.model!.sharedModel.getCell(index).getSource();
  }

  /** The gutter marker: a class on the cell and a small badge. */
  private _mark(panel: NotebookPanel, cellId: string, on: boolean): void {
    const apply = (): boolean => {
      const cell = panel.content.widgets.find(w => w.model.id === cellId);
      if (!cell) {
        return false;
      }
      cell.toggleClass(AGENT_CELL_CLASS, on);
      const badge = cell.node.querySelector(`:scope > .${BADGE_CLASS}`);
      if (on && !badge) {
        const node = document.createElement('div');
        node.className = BADGE_CLASS;
        node.textContent = 'agent';
        node.title = 'Changed by the agent: review it in the zengine panel';
        cell.node.prepend(node);
      } else if (!on) {
        badge?.remove();
      }
      return true;
    };
    if (!apply()) {
      requestAnimationFrame(() => void apply()); // a new cell's widget comes a frame later
    }
  }

  private _watch(panel: NotebookPanel): void {
    const report = () => void this.report();
    void panel.context.ready.then(() => {
      report();
      void panel.revealed.then(() => this._markPending(panel));
      panel.context.model.stateChanged.connect((_, change) => {
        if (change.name === 'dirty') {
          report();
        }
      });
    });
    panel.context.pathChanged.connect(report);
    panel.disposed.connect(report);
  }

  /** A notebook opened (a page reload): its cells still to review get their marker again. */
  private _markPending(panel: NotebookPanel): void {
    for (const entry of this._entries.values()) {
      if (entry.path === panel.context.path && entry.state === 'pending' && entry.after !== null) {
        this._mark(panel, entry.cellId, true);
      }
    }
  }

  // ------------------------------------------------------------ kept across reloads

  private _save(): void {
    const entries = [...this._entries.values()].slice(-KEPT_ENTRIES);
    try {
      this._storage?.setItem(REVIEW_STORAGE_KEY, JSON.stringify(entries));
    } catch {
      // full or refused: the reviews last as long as the page
    }
  }

  private _load(): void {
    try {
      const kept = JSON.parse(this._storage?.getItem(REVIEW_STORAGE_KEY) ?? '[]') as IEntry[];
      for (const entry of Array.isArray(kept) ? kept : []) {
        if (entry && typeof entry.key === 'string' && typeof entry.turnId === 'string') {
          this._entries.set(entry.key, entry);
        }
      }
    } catch {
      // unreadable: start without
    }
  }

  private _storage: Pick<Storage, 'getItem' | 'setItem'> | null;
  private _entries = new Map<string, IEntry>();
  private _reviews = new Map<string, TurnReview>();
}

function storageOrNull(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

function sourceOf(cell: CellJSON): string {
  const source = cell.source;
  return Array.isArray(source) ? source.join('') : typeof source === 'string' ? source : '';
}

/** The server's root folder on disk, from the page's config (JupyterLab and Notebook 7). */
function serverRoot(): string | null {
  try {
    const node = document.getElementById('jupyter-config-data');
    const config = JSON.parse(node?.textContent ?? '{}') as { serverRoot?: string };
    return config.serverRoot || null;
  } catch {
    return null;
  }
}
