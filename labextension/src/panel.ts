/**
 * The zengine side panel: bound to the active notebook's kernel, it follows notebook
 * switches, kernel changes and restarts, shows the kernel's hello and the connection state,
 * and lists what the kernel sends. A request the kernel cannot answer yet shows the kernel's
 * own error text: the panel never pretends.
 */

import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { Kernel } from '@jupyterlab/services';
import { Widget } from '@lumino/widgets';

import { ConnectError, Connection, RequestBody } from './connection';
import { EngineEvent, KernelMessage, Reply } from './protocol';

/** What the status line says; also `data-state` on the panel (tests read it). */
export type ConnectionState =
  | 'no-notebook'
  | 'no-kernel'
  | 'connecting'
  | 'connected'
  | 'restarting'
  | 'closed'
  | 'failed';

const STATE_TEXT: Record<ConnectionState, string> = {
  'no-notebook': 'Open a notebook to talk to its kernel.',
  'no-kernel': 'This notebook has no kernel.',
  connecting: 'Connecting to the kernel…',
  connected: 'Connected',
  restarting: 'The kernel is restarting; the panel reconnects when it is back.',
  closed: 'The kernel closed the zengine comm.',
  failed: 'Could not connect'
};

export interface IPanelOptions {
  tracker: INotebookTracker;
}

export class ZenginePanel extends Widget {
  constructor(options: IPanelOptions) {
    super();
    this._tracker = options.tracker;
    this.addClass('jp-zengine-panel');
    this.node.setAttribute('role', 'region');
    this.node.setAttribute('aria-label', 'zengine agent');

    const header = append(this.node, 'header', 'jp-zengine-header');
    this._status = append(header, 'div', 'jp-zengine-status');
    this._status.setAttribute('role', 'status');
    this._status.setAttribute('aria-live', 'polite');
    this._version = append(header, 'div', 'jp-zengine-version');
    this._notebook = append(header, 'div', 'jp-zengine-notebook');

    this._list = append(this.node, 'ol', 'jp-zengine-messages');
    this._list.setAttribute('role', 'log');
    this._list.setAttribute('aria-label', 'Conversation');

    const form = append(this.node, 'form', 'jp-zengine-form') as HTMLFormElement;
    this._input = append(form, 'textarea', 'jp-zengine-input') as HTMLTextAreaElement;
    this._input.rows = 3;
    this._input.placeholder = 'Ask the agent… (Enter sends, Shift+Enter for a new line)';
    this._input.setAttribute('aria-label', 'Message to the agent');
    const buttons = append(form, 'div', 'jp-zengine-buttons');
    const send = append(buttons, 'button', 'jp-zengine-send jp-mod-styled jp-mod-accept');
    send.textContent = 'Send';
    (send as HTMLButtonElement).type = 'submit';
    const stop = append(buttons, 'button', 'jp-zengine-interrupt jp-mod-styled jp-mod-reject');
    stop.textContent = 'Interrupt';
    stop.title = 'Stop the running turn';
    (stop as HTMLButtonElement).type = 'button';
    stop.addEventListener('click', () => void this._interrupt());
    form.addEventListener('submit', event => {
      event.preventDefault();
      void this._submit();
    });
    this._input.addEventListener('keydown', event => {
      if (event.key === 'Enter' && !event.shiftKey) {
        event.preventDefault();
        void this._submit();
      }
    });

    this._tracker.currentChanged.connect(this._onNotebookChanged, this);
    this._setState('no-notebook');
    this._onNotebookChanged();
  }

  /** Run `%load_ext zengine` when the kernel lacks the comm target (a setting). */
  autoLoad = true;

  /** How many times a comm was opened (tests read `data-connections`). */
  get connections(): number {
    return this._connections;
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._unbind();
    this._tracker.currentChanged.disconnect(this._onNotebookChanged, this);
    super.dispose();
  }

  // ------------------------------------------------------------ binding

  private _onNotebookChanged(): void {
    const panel = this._tracker.currentWidget;
    if (panel === this._panel) {
      return;
    }
    this._unbind();
    this._panel = panel;
    if (!panel) {
      this._notebook.textContent = '';
      this._setState('no-notebook');
      return;
    }
    this._notebook.textContent = panel.context.path;
    panel.sessionContext.kernelChanged.connect(this._onKernelChanged, this);
    panel.disposed.connect(this._onPanelDisposed, this);
    void panel.sessionContext.ready.then(() => {
      if (this._panel === panel) {
        this._bindKernel(panel.sessionContext.session?.kernel ?? null);
      }
    });
  }

  private _onPanelDisposed(): void {
    this._unbind();
    this._onNotebookChanged();
  }

  private _onKernelChanged(): void {
    this._bindKernel(this._panel?.sessionContext.session?.kernel ?? null);
  }

  private _unbind(): void {
    if (this._panel) {
      this._panel.sessionContext.kernelChanged.disconnect(this._onKernelChanged, this);
      this._panel.disposed.disconnect(this._onPanelDisposed, this);
    }
    this._panel = null;
    this._bindKernel(null);
  }

  private _bindKernel(kernel: Kernel.IKernelConnection | null): void {
    if (kernel === this._kernel && kernel !== null) {
      return;
    }
    if (this._kernel) {
      this._kernel.statusChanged.disconnect(this._onKernelStatus, this);
    }
    this._disconnect();
    this._kernel = kernel;
    this._list.replaceChildren(); // another kernel: another conversation
    if (!kernel) {
      if (this._panel) {
        this._setState('no-kernel');
      }
      return;
    }
    kernel.statusChanged.connect(this._onKernelStatus, this);
    void this._connect();
  }

  private _onKernelStatus(kernel: Kernel.IKernelConnection, status: Kernel.Status): void {
    if (kernel !== this._kernel) {
      return;
    }
    if (status === 'dead') {
      this._disconnect();
      this._setState('failed', 'the kernel died');
    } else if (status === 'restarting' || status === 'autorestarting') {
      if (this._state !== 'restarting') {
        this._item('notice', 'The kernel is restarting.');
      }
      this._disconnect();
      this._setState('restarting');
    } else if (status === 'idle' && this._state === 'restarting') {
      void this._connect();
    }
  }

  // ------------------------------------------------------------ the comm

  private async _connect(): Promise<void> {
    const kernel = this._kernel;
    if (!kernel) {
      return;
    }
    this._disconnect();
    this._setState('connecting');
    const connection = new Connection(kernel, {
      onMessage: msg => {
        if (this._connection === connection) {
          this._onMessage(msg);
        }
      },
      onClose: () => {
        if (this._connection === connection) {
          this._connection = null;
          this._setState('closed');
        }
      }
    });
    this._connection = connection;
    try {
      await connection.open(this.autoLoad);
    } catch (err) {
      if (this._connection === connection) {
        this._connection = null;
        const text = err instanceof ConnectError ? err.message : String(err);
        this._setState('failed', text);
      }
      return;
    }
    if (this._connection !== connection) {
      return;
    }
    this._connections++;
    this.node.dataset.connections = String(this._connections);
    this._report(await connection.request({ kind: 'subscribe' }), 'subscribe');
  }

  private _disconnect(): void {
    if (this._connection) {
      this._connection.dispose();
      this._connection = null;
    }
    this._kernelVersion = null;
    this._version.textContent = '';
  }

  private _onMessage(msg: KernelMessage | Record<string, unknown>): void {
    const message = msg as KernelMessage;
    switch (message.kind) {
      case 'hello':
        this._kernelVersion = message.version;
        this._version.textContent = `zengine ${message.version} in the kernel`;
        this._setState('connected');
        return;
      case 'event':
        this._showEvent(message.event);
        return;
      case 'snapshot':
        this._item('notice', `Chat ${message.session_id}: ${message.records?.length ?? 0} records`);
        return;
      case 'reply':
        return; // handled by the request that sent it
      default:
        this._item('error', `The kernel sent a message this panel does not know: ${JSON.stringify(msg)}`);
    }
  }

  private _showEvent(event: EngineEvent): void {
    switch (event.kind) {
      case 'text_streamed': {
        const last = this._list.lastElementChild as HTMLElement | null;
        if (last && last.dataset.kind === 'assistant') {
          last.textContent += event.text;
        } else {
          this._item('assistant', event.text);
        }
        return;
      }
      case 'error':
        this._item('error', event.hint ? `${event.message} (${event.hint})` : event.message);
        return;
      case 'notice':
        this._item('notice', event.text);
        return;
      default:
        this._item('event', event.kind);
    }
  }

  private async _submit(): Promise<void> {
    const text = this._input.value.trim();
    if (!text) {
      return;
    }
    if (!this._connection?.isOpen) {
      this._item('error', 'Not connected to a kernel: nothing was sent.');
      return;
    }
    this._input.value = '';
    this._item('user', text);
    const body: RequestBody = text.startsWith('/')
      ? { kind: 'command', name: text.slice(1).split(/\s+/, 1)[0], args: text.slice(1).replace(/^\S+\s*/, '') }
      : { kind: 'submit', text };
    this._report(await this._connection.request(body), body.kind);
  }

  private async _interrupt(): Promise<void> {
    if (!this._connection?.isOpen) {
      this._item('error', 'Not connected to a kernel: nothing to interrupt.');
      return;
    }
    this._report(await this._connection.request({ kind: 'interrupt' }), 'interrupt');
  }

  /** A failed reply shows the kernel's words as they are. */
  private _report(reply: Reply, what: string): void {
    if (reply.ok) {
      if (reply.text) {
        this._item('assistant', reply.text);
      }
      return;
    }
    const hint = reply.hint ? ` ${reply.hint}` : '';
    this._item('error', `${reply.error ?? `${what} failed`}${hint}`);
  }

  // ------------------------------------------------------------ view

  private _setState(state: ConnectionState, detail = ''): void {
    this._state = state;
    this.node.dataset.state = state;
    const version = state === 'connected' && this._kernelVersion ? ` · zengine ${this._kernelVersion}` : '';
    this._status.textContent = STATE_TEXT[state] + version + (detail ? `: ${detail}` : '');
  }

  private _item(kind: string, text: string): HTMLElement {
    const item = append(this._list, 'li', `jp-zengine-item jp-zengine-item-${kind}`);
    item.dataset.kind = kind;
    item.textContent = text;
    item.scrollIntoView?.({ block: 'end' });
    return item;
  }

  private _tracker: INotebookTracker;
  private _panel: NotebookPanel | null = null;
  private _kernel: Kernel.IKernelConnection | null = null;
  private _connection: Connection | null = null;
  private _connections = 0;
  private _kernelVersion: string | null = null;
  private _state: ConnectionState = 'no-notebook';
  private _status: HTMLElement;
  private _version: HTMLElement;
  private _notebook: HTMLElement;
  private _list: HTMLElement;
  private _input: HTMLTextAreaElement;
}

function append(parent: HTMLElement, tag: string, className: string): HTMLElement {
  const node = document.createElement(tag);
  node.className = className;
  parent.appendChild(node);
  return node;
}
