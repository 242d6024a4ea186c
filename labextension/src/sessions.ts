/**
 * The chats of the kernel's project (title, dates, cost from meta.json), newest first, each
 * with Resume (a `subscribe` with its session id). A collapsed section; opening it or its
 * Refresh button asks the kernel (`list_sessions`).
 */

import { button, collapsed, el, fillList, usd, when } from './ui/dom';
import { Reply, SessionMeta } from './protocol';

export interface ISessionsOptions {
  list(): Promise<Reply>;
  resume(sessionId: string): void;
}

export class SessionsView {
  constructor(
    parent: HTMLElement,
    private readonly _options: ISessionsOptions
  ) {
    const { details, body } = collapsed(parent, 'jp-zengine-sessions', 'Sessions');
    this.node = details;
    details.addEventListener('toggle', () => {
      if (details.open) {
        void this.refresh();
      }
    });
    button(
      body,
      'jp-zengine-refresh',
      'Refresh',
      () => void this.refresh(),
      'Refresh the sessions list'
    );
    this._list = el('ul', 'jp-zengine-session-list', null, body);
    this._list.setAttribute('aria-label', 'Sessions');
  }

  readonly node: HTMLDetailsElement;

  /** The chat the panel follows (marked in the list). */
  set current(sessionId: string | null) {
    this._current = sessionId;
    for (const item of Array.from(this._list.children) as HTMLElement[]) {
      item.classList.toggle('jp-mod-current', item.dataset.sessionId === sessionId);
    }
  }

  async refresh(): Promise<void> {
    const reply = await this._options.list();
    fillList(
      this._list,
      reply,
      reply.sessions,
      { failed: 'the kernel could not list the sessions', empty: 'No chats in this project yet.' },
      meta => this._item(meta)
    );
  }

  private _item(meta: SessionMeta): void {
    const item = el('li', 'jp-zengine-session', null, this._list);
    item.dataset.sessionId = meta.id;
    item.classList.toggle('jp-mod-current', meta.id === this._current);
    el('div', 'jp-zengine-session-title', meta.title || meta.id, item);
    const cost = meta.unpriced_requests ? `${usd(meta.cost_usd)}+` : usd(meta.cost_usd);
    el(
      'div',
      'jp-zengine-session-meta',
      `started ${when(meta.created)} · last ${when(meta.updated)} · ${meta.message_count} messages · ${cost}`,
      item
    );
    button(
      item,
      'jp-zengine-resume',
      'Resume',
      () => this._options.resume(meta.id),
      `Resume ${meta.title || meta.id}`
    );
  }

  private _list: HTMLElement;
  private _current: string | null = null;
}
