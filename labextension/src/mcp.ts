/**
 * The MCP servers' states (what `/mcp` shows): name, transport, state and why, tool count.
 * A collapsed section; opening it or Refresh asks the kernel (`mcp_status`).
 */

import { button, collapsed, el, fillList } from './ui/dom';
import { McpServerStatus, Reply } from './protocol';

export class McpView {
  constructor(
    parent: HTMLElement,
    private readonly _status: () => Promise<Reply>
  ) {
    const { details, body } = collapsed(parent, 'jp-zengine-mcp', 'MCP servers');
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
      'Refresh the MCP server states'
    );
    this._list = el('ul', 'jp-zengine-mcp-list', null, body);
    this._list.setAttribute('aria-label', 'MCP servers');
  }

  readonly node: HTMLDetailsElement;

  async refresh(): Promise<void> {
    const reply = await this._status();
    fillList(
      this._list,
      reply,
      reply.servers,
      { failed: 'the kernel could not report MCP servers', empty: 'No MCP servers configured.' },
      server => this._item(server)
    );
  }

  private _item(server: McpServerStatus): void {
    const item = el('li', `jp-zengine-mcp-server jp-zengine-mcp-${server.state}`, null, this._list);
    item.dataset.server = server.name;
    item.dataset.state = server.state;
    el('strong', '', server.name, item);
    const tools = server.state === 'ready' ? ` · ${server.tool_count ?? 0} tools` : '';
    el('span', '', ` ${server.transport} · ${server.state}${tools}`, item);
    if (server.reason) {
      el('div', 'jp-zengine-mcp-reason', server.reason, item);
    }
  }

  private _list: HTMLElement;
}
