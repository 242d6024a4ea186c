/**
 * The zengine side panel: bound to the active notebook's kernel (`binding.ts`), it keeps one
 * `zengine` comm open, follows a chat (subscribe -> Snapshot, then live events) and lays out
 * the views: trust banner, turn bar (interrupt, cost, badge), conversation, sessions, MCP
 * servers and the input box. A request the kernel refuses shows the kernel's own words.
 */

import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { Kernel } from '@jupyterlab/services';
import { INotebookTracker } from '@jupyterlab/notebook';
import { Widget } from '@lumino/widgets';

import { ConnectionState, KernelBinding } from './binding';
import { ChatView, noticeText } from './ui/chat';
import { ICodeActions } from './ui/codetools';
import { ConnectError, Connection, RequestBody } from './connection';
import { el } from './ui/dom';
import { ChatFooter, Pick } from './ui/footer';
import { ChatStates } from './ui/states';
import { InputBox, Typed } from './input';
import { LiveNotebooks } from './live';
import { McpView } from './mcp';
import { CodeRestore, KernelMessage, Reply, WIRE_VERSION } from './protocol';
import { rendermimeMarkdown } from './rendermime';
import { RewindScope } from './ui/rewind';
import { SessionsView } from './sessions';
import { SetupSection } from './setuppanel';
import { StatusBar } from './ui/status';
import { TrustBanner } from './ui/trust';

export { ConnectionState } from './binding';

const STATE_TEXT: Record<ConnectionState, string> = {
  'no-notebook': 'Open a notebook to talk to its kernel.',
  'no-kernel': 'This notebook has no kernel.',
  connecting: 'Connecting to the kernel…',
  connected: 'Connected',
  restarting: 'The kernel is restarting; the panel reconnects when it is back.',
  closed: 'The kernel closed the zengine comm.',
  failed: 'Could not connect'
};

/** The chat settings the panel applies through slash commands once connected. */
export interface IChatSettings {
  model: string;
  effort: string;
  mode: string;
}

export interface IPanelOptions {
  tracker: INotebookTracker;
  rendermime: IRenderMimeRegistry;
  /** Reload open documents of restored files; resolves with a line for the user. */
  reloadRestored(restore: CodeRestore): Promise<string>;
  /** Insert a code block into the active notebook, or replace an editor's selection. */
  codeActions?: ICodeActions | null;
}

export class ZenginePanel extends Widget {
  constructor(options: IPanelOptions) {
    super();
    this._options = options;
    this.addClass('jp-zengine-panel');
    this.node.setAttribute('role', 'region');
    this.node.setAttribute('aria-label', 'zengine agent');

    const header = el('header', 'jp-zengine-header', null, this.node);
    this._status = el('div', 'jp-zengine-status', null, header);
    this._status.setAttribute('role', 'status');
    this._status.setAttribute('aria-live', 'polite');
    this._version = el('div', 'jp-zengine-version', null, header);
    this._notebook = el('div', 'jp-zengine-notebook', null, header);

    this._setup = new SetupSection(
      header,
      el('div', 'jp-zengine-setup-area', null, this.node),
      body => this._request(body),
      text => {
        this._chat.line('notice', text);
        void this._loadOptions();
      }
    );
    this._trust = new TrustBanner(
      el('div', 'jp-zengine-trust-host', null, this.node),
      (folder, trust) => this._request({ kind: 'trust_answer', folder, trust })
    );
    this._bar = new StatusBar(this.node, () => void this._interrupt());
    this._chat = new ChatView(this.node, {
      markdown: rendermimeMarkdown(options.rendermime),
      status: this._bar,
      answer: (request, decision) =>
        this._request({ kind: 'approval_answer', request_id: request.id, decision }),
      rewind: (turnId, scope) => this._rewind(turnId, scope),
      codeActions: options.codeActions ?? null
    });
    this._states = new ChatStates(this.node, {
      setup: {
        label: 'Set up a model',
        aria: 'Open the model setup view',
        run: () => void this._setup.open('')
      }
    });
    const drawers = el('div', 'jp-zengine-drawers', null, this.node);
    this._sessions = new SessionsView(drawers, {
      list: () => this._request({ kind: 'list_sessions' }),
      resume: sessionId => void this._subscribe(sessionId),
      rename: (session_id, title) => this._request({ kind: 'rename_session', session_id, title }),
      remove: session_id => this._request({ kind: 'delete_session', session_id })
    });
    new McpView(drawers, () => this._request({ kind: 'mcp_status' }));
    this._input = new InputBox(
      this.node,
      typed => void this._send(typed),
      form => {
        this._footer = new ChatFooter(form, {
          choose: pick => this._choose(pick),
          stop: () => void this._interrupt()
        });
        return this._footer.row;
      }
    );
    this._live = new LiveNotebooks({
      tracker: options.tracker,
      send: body => this._request(body),
      reviewHost: (turnId, onlyShown) => this._reviewHost(turnId, onlyShown === true)
    });

    this._binding = new KernelBinding(options.tracker, {
      notebook: path => (this._notebook.textContent = path),
      state: (state, detail) => this._setState(state, detail),
      kernel: (kernel, sameKernel) => this._onKernel(kernel, sameKernel),
      restarting: () => this._chat.line('notice', 'The kernel is restarting.')
    });
  }

  /** Register zengine in the kernel (`attach`) when it lacks the comm target (a setting). */
  autoLoad = true;

  /** How many times a comm was opened (tests read `data-connections`). */
  get connections(): number {
    return this._connections;
  }

  /** Model, effort and mode from the settings: applied now (when connected) and on connect. */
  set chatSettings(settings: IChatSettings) {
    this._settings = settings;
    void this._applySettings();
  }

  /** Put the keyboard focus in the input box. */
  /** Open the model setup view (a cell's "Set up a model" button asks for it). */
  openSetup(): void {
    void this._setup.open('');
  }

  focusInput(): void {
    this._input.focus();
  }

  /** Put the keyboard focus on the approval waiting for an answer; false when none waits. */
  focusApproval(): boolean {
    const prompt = this._chat.firstOpenPrompt();
    prompt?.focus();
    return prompt !== null;
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._binding.dispose();
    this._disconnect();
    super.dispose();
  }

  // ------------------------------------------------------------ the comm

  private _onKernel(kernel: Kernel.IKernelConnection | null, sameKernel: boolean): void {
    this._disconnect();
    if (!sameKernel) {
      this._sessionId = null; // another kernel: another conversation
      this._chat.clear();
      this._trust.clear();
    }
    if (kernel) {
      void this._connect(kernel);
    }
  }

  private async _connect(kernel: Kernel.IKernelConnection): Promise<void> {
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
        this._setState('failed', err instanceof ConnectError ? err.message : String(err));
      }
      return;
    }
    if (this._connection !== connection) {
      return;
    }
    this._connections++;
    this.node.dataset.connections = String(this._connections);
    await this._subscribe(this._sessionId);
    await this._live.report(); // the agent edits these notebooks in this page, not on disk
    await this._setup.check();
  }

  /** The chat's cost and title from its meta.json (usage records are not in a snapshot). */
  private async _loadMeta(): Promise<void> {
    const session = this._sessionId;
    if (!session) {
      return;
    }
    const reply = await this._request({ kind: 'list_sessions' });
    const meta = reply.sessions?.find(m => m.id === session);
    if (meta && session === this._sessionId) {
      this._bar.setChat(meta.cost_usd, meta.title);
      this._footer.setCost(meta.cost_usd, (meta.unpriced_requests ?? 0) > 0);
      this._chat.setModel(meta.model); // the agent's next messages name it
    }
  }

  /** The footer's model and mode choices and the provider's state (empty states). */
  private async _loadOptions(): Promise<void> {
    const session = this._sessionId;
    const reply = await this._request({ kind: 'chat_options', session_id: session });
    if (session !== this._sessionId || !reply.ok || !reply.options) {
      return;
    }
    this._footer.setOptions(reply.options);
    this._footer.setRunning(this._bar.running);
    this._states.setProvider(reply.options.provider);
    this.node.dataset.provider = reply.options.provider.kind;
  }

  /** A model or mode from the footer: the slash command's path (the log records it). */
  private async _choose(pick: Pick): Promise<boolean> {
    const reply = await this._command(pick.kind, pick.value);
    this._report(reply, `/${pick.kind} ${pick.value}`);
    if (reply.ok && reply.text) {
      this._chat.line('notice', reply.text); // "model: X", "mode: plan"
    }
    await this._loadOptions();
    return reply.ok;
  }

  /** The input box's completions: the chat's commands (MCP prompts appear once it opens). */
  private async _loadCommands(): Promise<void> {
    const commands = await this._request({ kind: 'list_commands' });
    if (commands.ok) {
      this._input.commands = commands.commands ?? [];
    }
  }

  private _disconnect(): void {
    this._connection?.dispose();
    this._connection = null;
    this._version.textContent = '';
  }

  private _request(body: RequestBody): Promise<Reply> {
    if (!this._connection?.isOpen) {
      return Promise.resolve({
        v: WIRE_VERSION,
        kind: 'reply',
        id: '',
        ok: false,
        error: 'Not connected to a kernel.'
      });
    }
    return this._connection.request(body);
  }

  private async _subscribe(sessionId: string | null): Promise<void> {
    this.node.dataset.subscribed = 'false';
    const reply = await this._request({ kind: 'subscribe', session_id: sessionId });
    this._report(reply, 'subscribe');
    this.node.dataset.subscribed = String(reply.ok);
  }

  private _onMessage(msg: KernelMessage | Record<string, unknown>): void {
    const message = msg as KernelMessage;
    switch (message.kind) {
      case 'hello':
        this._version.textContent = `zengine ${message.version} in the kernel`;
        this._setState('connected');
        return;
      case 'snapshot':
        // "" while the kernel has no chat yet (it sends another when one opens); the kernel
        // also sends one unprompted after a conversation rewind or a resync
        this._sessionId = message.session_id || null;
        this.node.dataset.sessionId = message.session_id;
        this._sessions.current = this._sessionId;
        this._chat.reset(message);
        this._snapshots++; // the chat's DOM was rebuilt (tests read `data-snapshots`)
        this.node.dataset.snapshots = String(this._snapshots);
        this._live.reattach(); // the turns' notebook reviews, under their turns again
        this._states.clearDown();
        this._footer.resetCost();
        this._footer.setRunning(Boolean(message.running_turn_id));
        void this._loadOptions();
        void this._loadCommands();
        void this._loadMeta();
        void this._applySettings();
        return;
      case 'event':
        if (message.event.kind === 'notice' && this._ownCommands.has(message.event.topic)) {
          this._ownCommands.delete(message.event.topic); // its reply shows it
          return;
        }
        if (message.event.kind === 'trust_required') {
          this._trust.show(message.event);
        } else if (message.event.kind === 'notice' && message.event.topic === 'trust') {
          this._trust.clear(); // trusted from here or from another view of the folder
        }
        this._chat.apply(message.event);
        this._states.apply(message.event);
        this._footer.setRunning(this._bar.running);
        if (message.event.kind === 'cost_updated' && message.event.session_usd !== null) {
          this._footer.setCost(message.event.session_usd ?? null);
        }
        if (message.event.kind === 'turn_ended') {
          void this._applySettings(); // changed while the turn ran
          void this._loadOptions();
        }
        return;
      case 'reply':
        return; // handled by the request that sent it
      case 'doc_request':
        // the agent reads or edits an open notebook; tests read how long each edit took
        void this._live.handle(message).then(() => {
          this.node.dataset.liveMs = this._live.timings.map(t => t.toFixed(1)).join(',');
        });
        return;
      default:
        this._chat.line(
          'error',
          `The kernel sent a message this panel does not know: ${JSON.stringify(msg)}`
        );
    }
  }

  // ------------------------------------------------------------ user actions

  private async _send(typed: Typed): Promise<void> {
    if (!this._connection?.isOpen) {
      this._chat.line('error', 'Not connected to a kernel: nothing was sent.');
      return;
    }
    const session_id = this._sessionId;
    if (typed.kind === 'command') {
      const reply = await this._command(typed.name, typed.args);
      // shown with its answer: a snapshot (the command may open the chat) comes before it
      this._chat.line('command', `/${typed.name}${typed.args ? ` ${typed.args}` : ''}`);
      this._report(reply, `/${typed.name}`);
      if (reply.ok && reply.text) {
        this._chat.markdown('command-output', reply.text);
      }
      void this._loadOptions(); // /model, /mode, /trust ... may have changed them
      return;
    }
    const reply = await this._request({ kind: 'submit', text: typed.text, session_id });
    this._report(reply, 'submit');
    if (reply.ok && reply.text) {
      this._chat.markdown('command-output', reply.text); // a slash command typed as a message
    }
  }

  /**
   * A slash command from this panel. The engine also publishes its output as a notice
   * (topic "/name") for the other views; this panel shows the reply instead, once.
   */
  private async _command(name: string, args: string): Promise<Reply> {
    const topic = `/${name}`;
    this._ownCommands.set(topic, (this._ownCommands.get(topic) ?? 0) + 1);
    try {
      return await this._request({ kind: 'command', name, args, session_id: this._sessionId });
    } finally {
      const left = (this._ownCommands.get(topic) ?? 1) - 1;
      if (left > 0) {
        this._ownCommands.set(topic, left);
      } else {
        this._ownCommands.delete(topic);
      }
    }
  }

  private async _interrupt(): Promise<void> {
    this._report(
      await this._request({ kind: 'interrupt', session_id: this._sessionId }),
      'interrupt'
    );
  }

  private async _rewind(turnId: string, scope: RewindScope): Promise<void> {
    const reply = await this._request({
      kind: 'rewind',
      turn_id: turnId,
      scope,
      session_id: this._sessionId
    });
    this._report(reply, 'rewind');
    if (!reply.ok) {
      return;
    }
    // what it did is drawn from the `rewound` event (every view, whoever asked); here only
    // the open editors of restored files
    if (reply.restore) {
      const editors = await this._options.reloadRestored(reply.restore);
      if (editors) {
        this._chat.line('rewind', editors);
      }
    }
  }

  /**
   * Apply model / effort / mode from the settings to the followed chat, once per chat and
   * connection and value. Never opens a chat by itself, and waits while a turn runs.
   */
  private async _applySettings(): Promise<void> {
    const settings = this._settings;
    const session = this._sessionId;
    if (!settings || !session || !this._connection?.isOpen || this._bar.running) {
      return;
    }
    for (const name of ['model', 'effort', 'mode'] as const) {
      const value = settings[name].trim();
      const key = `${session}:${this._connections}:${value}`;
      if (!value || this._applied[name] === key) {
        continue;
      }
      this._applied[name] = key;
      const reply = await this._command(name, value);
      this._report(reply, `/${name} ${value} (from the panel settings)`);
      if (reply.ok && reply.text) {
        this._chat.line('notice', noticeText('Panel settings', reply.text));
      }
    }
  }

  /** A failed reply shows the kernel's words as they are. */
  private _report(reply: Reply, what: string): void {
    if (!reply.ok) {
      const hint = reply.hint ? ` ${reply.hint}` : '';
      this._chat
        .line('error', `${reply.error ?? `${what} failed`}${hint}`)
        .setAttribute('role', 'alert');
    }
  }

  private _setState(state: ConnectionState, detail = ''): void {
    this.node.dataset.state = state;
    // the version is shown once, in the header ("zengine X in the kernel")
    this._status.textContent = STATE_TEXT[state] + (detail ? `: ${detail}` : '');
  }

  private _options: IPanelOptions;
  private _binding: KernelBinding;
  private _connection: Connection | null = null;
  private _connections = 0;
  private _snapshots = 0;
  private _sessionId: string | null = null;
  private _settings: IChatSettings | null = null;
  private _applied: Record<string, string> = {};
  private _ownCommands = new Map<string, number>();
  private _status: HTMLElement;
  private _version: HTMLElement;
  private _notebook: HTMLElement;
  private _setup: SetupSection;
  private _trust: TrustBanner;
  private _bar: StatusBar;
  private _chat: ChatView;
  private _sessions: SessionsView;
  private _input: InputBox;
  private _live: LiveNotebooks;

  /** Where turn `turnId`'s notebook review goes: after that turn's items in the chat. */
  private _reviewHost(turnId: string, onlyShown: boolean): HTMLElement {
    const chat = this._chat.node;
    const users = [...chat.querySelectorAll<HTMLElement>(':scope > .jp-zengine-item-user')];
    const at = users.findIndex(u => u.dataset.turnId === turnId);
    if (at < 0 && onlyShown) {
      return document.createElement('div');
    }
    const node = this._chat.line('review', '');
    const next = at >= 0 ? users[at + 1] : undefined;
    if (next) {
      chat.insertBefore(node, next);
    }
    return node;
  }
  private _states: ChatStates;
  private _footer!: ChatFooter;
}
