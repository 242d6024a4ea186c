/**
 * The project's chats, newest first: title, last activity and cost, and per chat Open
 * (resume), Rename (inline: Enter saves, Escape cancels; the `/title` path) and Delete (asks
 * first, inside the panel: the log moves to the trash, the checkpoints stay until retention
 * removes them). The chat the view follows is marked.
 */

import { Reply, SessionMeta } from '../protocol';
import { confirmInline } from './confirm';
import { button, el, errorText, fillList, usd, when } from './dom';

export interface IChatsActions {
  list(): Promise<Reply>;
  open(sessionId: string): void;
  rename(sessionId: string, title: string): Promise<Reply>;
  remove(sessionId: string): Promise<Reply>;
}

/** "last 12/1/2026, 4:50 PM · $0.0123" (the cost a lower bound when a price was unknown). */
export function chatMeta(meta: SessionMeta): string {
  const cost = meta.unpriced_requests ? `${usd(meta.cost_usd)}+` : usd(meta.cost_usd);
  return `last ${when(meta.updated)} · ${meta.message_count} messages · ${cost}`;
}

export class ChatsList {
  constructor(
    parent: HTMLElement,
    private readonly _actions: IChatsActions
  ) {
    this.node = el('ul', 'jp-zengine-session-list', null, parent);
    this.node.setAttribute('aria-label', 'Chats of this project');
    this._status = el('div', 'jp-zengine-chats-status', null, parent);
    this._status.setAttribute('role', 'status');
  }

  readonly node: HTMLElement;

  /** The chat the view follows (marked in the list). */
  set current(sessionId: string | null) {
    this._current = sessionId;
    for (const item of Array.from(this.node.children) as HTMLElement[]) {
      const mine = item.dataset.sessionId === sessionId;
      item.classList.toggle('jp-mod-current', mine);
      if (mine) {
        item.setAttribute('aria-current', 'true');
      } else {
        item.removeAttribute('aria-current');
      }
    }
  }

  async refresh(): Promise<void> {
    const reply = await this._actions.list();
    // a chat the user is answering a Delete confirm or typing a new title for keeps its row
    // (a refresh landing mid-answer must not take the question away)
    const inUse = new Map<string, HTMLElement>();
    for (const item of Array.from(this.node.children) as HTMLElement[]) {
      const id = item.dataset.sessionId;
      if (id && item.querySelector('.jp-zengine-confirm, .jp-zengine-rename-input')) {
        inUse.set(id, item);
      }
    }
    fillList(
      this.node,
      reply,
      reply.sessions,
      { failed: 'the kernel could not list the chats', empty: 'No chats in this project yet.' },
      meta => this._item(meta, inUse.get(meta.id))
    );
    this.current = this._current;
  }

  private _item(meta: SessionMeta, inUse?: HTMLElement): void {
    if (inUse) {
      this.node.append(inUse);
      return;
    }
    const name = meta.title || meta.id;
    const item = el('li', 'jp-zengine-session', null, this.node);
    item.dataset.sessionId = meta.id;
    const title = el('div', 'jp-zengine-session-title', name, item);
    title.title = name;
    el('div', 'jp-zengine-session-meta', chatMeta(meta), item);
    const row = el('div', 'jp-zengine-session-actions', null, item);
    button(row, 'jp-zengine-resume', 'Open', () => this._actions.open(meta.id), `Open ${name}`);
    button(row, 'jp-zengine-rename', 'Rename', () => this._rename(item, meta), `Rename ${name}`);
    button(
      row,
      'jp-zengine-delete jp-mod-warn',
      'Delete',
      () => void this._delete(item, meta),
      `Delete ${name}`
    );
  }

  private _rename(item: HTMLElement, meta: SessionMeta): void {
    const title = item.querySelector<HTMLElement>('.jp-zengine-session-title')!;
    if (item.querySelector('.jp-zengine-rename-input')) {
      return;
    }
    const input = el('input', 'jp-zengine-rename-input jp-mod-styled', null);
    input.type = 'text';
    input.value = meta.title;
    input.setAttribute('aria-label', `New title for ${meta.title || meta.id}`);
    title.replaceWith(input);
    input.focus();
    input.select();
    let finished = false;
    const finish = async (save: boolean) => {
      if (finished) {
        return;
      }
      finished = true;
      const wanted = input.value.trim();
      if (save && wanted && wanted !== meta.title) {
        const reply = await this._actions.rename(meta.id, wanted);
        this._say(reply.ok ? `Renamed to ${wanted}.` : errorText(reply), !reply.ok);
        if (reply.ok) {
          title.textContent = reply.text?.replace(/^title: /, '') ?? wanted;
          title.title = title.textContent;
        }
      }
      input.replaceWith(title);
      item.querySelector<HTMLButtonElement>('.jp-zengine-rename')?.focus();
    };
    input.addEventListener('keydown', event => {
      if (event.key === 'Enter') {
        event.preventDefault();
        void finish(true);
      } else if (event.key === 'Escape') {
        event.preventDefault();
        event.stopPropagation();
        void finish(false);
      }
    });
    input.addEventListener('blur', () => void finish(true));
  }

  private async _delete(item: HTMLElement, meta: SessionMeta): Promise<void> {
    const name = meta.title || meta.id;
    const open = meta.id === this._current;
    const yes = await confirmInline(item, {
      question: `Delete “${name}”?`,
      detail:
        'Its log moves to the trash (kept 30 days); its checkpoints stay until retention ' +
        `removes them.${open ? ' This is the open chat: a new one opens.' : ''}`,
      accept: 'Delete',
      acceptAria: `Delete ${name} now`
    });
    if (!yes) {
      item.querySelector<HTMLButtonElement>('.jp-zengine-delete')?.focus();
      return;
    }
    const reply = await this._actions.remove(meta.id);
    this._say(reply.ok ? (reply.text ?? `Deleted ${name}.`) : errorText(reply), !reply.ok);
    if (reply.ok) {
      await this.refresh();
    }
  }

  private _say(text: string, error: boolean): void {
    this._status.textContent = text;
    this._status.classList.toggle('jp-zengine-error', error);
  }

  private _status: HTMLElement;
  private _current: string | null = null;
}
