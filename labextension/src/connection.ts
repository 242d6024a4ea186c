/**
 * One `zengine` comm to one kernel: load the kernel extension when its target is missing,
 * open the comm, correlate requests with their replies.
 */

import { Kernel, KernelMessage as JupyterMessage } from '@jupyterlab/services';

import { COMM_TARGET, KernelMessage, PanelRequest, Reply, WIRE_VERSION } from './protocol';

/** How long a request may wait for its reply before the panel says so. */
export const REPLY_TIMEOUT_MS = 30000;

/** A request as the panel builds it: the connection adds `v` and `id`. */
export type RequestBody = PanelRequest extends infer R
  ? R extends PanelRequest
    ? Omit<R, 'v' | 'id'>
    : never
  : never;

/** The check run before opening the comm: is the target registered in this kernel? */
const TARGET_PROBE = `'${COMM_TARGET}' in get_ipython().kernel.comm_manager.targets`;
/** Registers the comm target without the status output, and without going through IPython's
 * extension manager, so the user's own `%load_ext zengine` still shows the status. */
const ATTACH = "__import__('zengine_jupyter.kernel', fromlist=['attach']).attach(get_ipython())";

/** Thrown (as a rejected promise) when the kernel cannot host the comm. */
export class ConnectError extends Error {}

export interface IConnectionHandlers {
  /** Every message the kernel sends (hello, events, snapshots, replies, unknown kinds). */
  onMessage(msg: KernelMessage | Record<string, unknown>): void;
  /** The kernel closed the comm (unload, or the kernel went away). */
  onClose(): void;
}

interface IPending {
  resolve(reply: Reply): void;
  timer: ReturnType<typeof setTimeout>;
}

export class Connection {
  constructor(
    readonly kernel: Kernel.IKernelConnection,
    private readonly _handlers: IConnectionHandlers
  ) {}

  get isOpen(): boolean {
    return this._comm !== null && !this._comm.isDisposed && !this._closed;
  }

  /** Load the kernel extension if needed, then open the comm (resolves once opened). */
  async open(autoLoad: boolean): Promise<void> {
    if (!(await this._targetRegistered())) {
      if (!autoLoad) {
        throw new ConnectError(
          `The kernel has no '${COMM_TARGET}' comm target: run %load_ext zengine in the notebook.`
        );
      }
      await this._execute(ATTACH);
      if (!(await this._targetRegistered())) {
        throw new ConnectError(
          `zengine_jupyter.kernel.attach ran but registered no '${COMM_TARGET}' comm target.`
        );
      }
    }
    const comm = this.kernel.createComm(COMM_TARGET);
    comm.onMsg = (msg: JupyterMessage.ICommMsgMsg) => {
      const data = msg.content.data as Record<string, unknown>;
      if (data && data.kind === 'reply' && typeof data.id === 'string') {
        this._settle(data as unknown as Reply);
      }
      this._handlers.onMessage(data);
    };
    comm.onClose = () => {
      this._closed = true;
      this._failAll('the kernel closed the zengine comm');
      this._handlers.onClose();
    };
    this._comm = comm;
    await comm.open({}).done;
  }

  /** Send a request; resolves with its reply (an ok=false reply on timeout or close). */
  request(body: RequestBody): Promise<Reply> {
    const id = `p${++this._seq}`;
    const message = { v: WIRE_VERSION, id, ...body } as PanelRequest;
    return new Promise<Reply>(resolve => {
      if (!this.isOpen) {
        resolve(failed(id, 'not connected to the kernel'));
        return;
      }
      const timer = setTimeout(() => {
        this._pending.delete(id);
        resolve(failed(id, `no reply from the kernel in ${REPLY_TIMEOUT_MS / 1000} s`));
      }, REPLY_TIMEOUT_MS);
      this._pending.set(id, { resolve, timer });
      this._comm!.send(message as unknown as JupyterMessage.ICommMsgMsg['content']['data']);
    });
  }

  /** Close the comm (if the kernel still has it) and fail what is pending. */
  dispose(): void {
    this._failAll('the panel disconnected');
    if (this.isOpen) {
      this._closed = true;
      try {
        void this._comm!.close().done.catch(() => undefined);
      } catch {
        // the kernel is gone already: nothing to close
      }
    }
  }

  private async _targetRegistered(): Promise<boolean> {
    const reply = await this._execute('', { zengine: TARGET_PROBE });
    const result = reply.user_expressions?.zengine as
      { status: string; data?: { 'text/plain'?: string }; evalue?: string } | undefined;
    if (!result || result.status !== 'ok') {
      throw new ConnectError(
        `This kernel cannot host zengine (${result?.evalue ?? 'no answer'}): it needs an IPython kernel.`
      );
    }
    return result.data?.['text/plain'] === 'True';
  }

  private async _execute(
    code: string,
    userExpressions: Record<string, string> = {}
  ): Promise<JupyterMessage.IExecuteReply> {
    const future = this.kernel.requestExecute({
      code,
      silent: true,
      store_history: false,
      user_expressions: userExpressions
    });
    const reply = await future.done;
    const content = reply.content as
      JupyterMessage.IExecuteReply | JupyterMessage.IReplyErrorContent;
    if (content.status !== 'ok') {
      const error = content;
      throw new ConnectError(
        `${code || 'probe'} failed in the kernel: ${error.ename}: ${error.evalue}`
      );
    }
    return content;
  }

  private _settle(reply: Reply): void {
    const pending = this._pending.get(reply.id);
    if (pending) {
      clearTimeout(pending.timer);
      this._pending.delete(reply.id);
      pending.resolve(reply);
    }
  }

  private _failAll(why: string): void {
    for (const [id, pending] of this._pending) {
      clearTimeout(pending.timer);
      pending.resolve(failed(id, why));
    }
    this._pending.clear();
  }

  private _comm: Kernel.IComm | null = null;
  private _closed = false;
  private _seq = 0;
  private _pending = new Map<string, IPending>();
}

function failed(id: string, error: string): Reply {
  return { v: WIRE_VERSION, kind: 'reply', id, ok: false, error };
}
