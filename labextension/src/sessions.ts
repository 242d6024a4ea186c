/**
 * The panel's "Chats" section: the project's chats (`ui/chats.ts`: title, last activity,
 * cost; Open, Rename, Delete). A collapsed section; opening it or its Refresh button asks the
 * kernel (`list_sessions`). Open is a `subscribe` with the chat's id (the resume path);
 * Rename and Delete are the typed `rename_session` / `delete_session` requests.
 */

import { Reply } from './protocol';
import { ChatsList } from './ui/chats';
import { button, collapsed } from './ui/dom';

export interface ISessionsOptions {
  list(): Promise<Reply>;
  resume(sessionId: string): void;
  rename(sessionId: string, title: string): Promise<Reply>;
  remove(sessionId: string): Promise<Reply>;
}

export class SessionsView {
  constructor(parent: HTMLElement, options: ISessionsOptions) {
    const { details, body } = collapsed(parent, 'jp-zengine-sessions', 'Chats');
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
      'Refresh the chats list'
    );
    this._list = new ChatsList(body, {
      list: options.list,
      open: options.resume,
      rename: options.rename,
      remove: options.remove
    });
  }

  readonly node: HTMLDetailsElement;

  /** The chat the panel follows (marked in the list). */
  set current(sessionId: string | null) {
    this._list.current = sessionId;
  }

  async refresh(): Promise<void> {
    if (this.node.open) {
      await this._list.refresh();
    }
  }

  private _list: ChatsList;
}
