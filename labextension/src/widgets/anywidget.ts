/**
 * What the cell widgets need from anywidget: its model (traits, custom messages) and the
 * request/reply bookkeeping of the widget wire (`protocol/_widget_wire.py`): every request
 * carries `v`, `kind` and an id the view chose, and gets exactly one `WidgetReply` with that
 * id, or a failed one made here once the timeout passes.
 */

import { WIRE_VERSION, WidgetReply, WidgetRequest } from '../protocol';
import { el } from '../ui/dom';

/** The part of anywidget's model the views use (`AnyModel` in anywidget's types). */
export interface IModel<T> {
  get<K extends keyof T>(name: K): T[K];
  set<K extends keyof T>(name: K, value: T[K]): void;
  on(name: string, callback: (...args: unknown[]) => void): void;
  off(name?: string | null, callback?: ((...args: unknown[]) => void) | null): void;
  send(content: unknown): void;
}

/** anywidget's render() argument. */
export interface IRenderProps<T> {
  model: IModel<T>;
  el: HTMLElement;
}

/** A request without the fields the requester fills in. */
export type RequestBody = WidgetRequest extends infer R
  ? R extends WidgetRequest
    ? Omit<R, 'v' | 'id'>
    : never
  : never;

export class Requester {
  constructor(
    private readonly _model: IModel<unknown>,
    private readonly _prefix: string,
    private readonly _timeoutMs: number
  ) {}

  /** Send a request; resolves with the kernel's reply or a failed one after the timeout. */
  request(body: RequestBody): Promise<WidgetReply> {
    const id = `${this._prefix}${Date.now().toString(36)}-${this._seq++}`;
    this._model.send({ v: WIRE_VERSION, id, ...body });
    return new Promise(resolve => {
      const timer = setTimeout(() => {
        this._waiting.delete(id);
        resolve({
          v: WIRE_VERSION,
          kind: 'reply',
          id,
          ok: false,
          error: 'the kernel did not answer in time (is it busy?)'
        });
      }, this._timeoutMs);
      this._waiting.set(id, { resolve, timer });
    });
  }

  /** Hand a custom message over: true when it was a reply to one of ours. */
  settle(msg: unknown): boolean {
    const reply = msg as WidgetReply | null;
    if (!reply || reply.v !== WIRE_VERSION || reply.kind !== 'reply' || reply.id === null) {
      return false;
    }
    const waiting = this._waiting.get(reply.id);
    if (!waiting) {
      return false;
    }
    clearTimeout(waiting.timer);
    this._waiting.delete(reply.id);
    waiting.resolve(reply);
    return true;
  }

  close(): void {
    this._waiting.forEach(({ timer }) => clearTimeout(timer));
    this._waiting.clear();
  }

  private _seq = 0;
  private _waiting = new Map<
    string,
    { resolve: (reply: WidgetReply) => void; timer: ReturnType<typeof setTimeout> }
  >();
}

/** The root element every widget draws in (the panel's classes, the theme's variables). */
export function widgetRoot(parent: HTMLElement, name: string): HTMLElement {
  const root = document.createElement('div');
  root.className = `jp-zengine-widget jp-zengine-widget-${name}`;
  parent.appendChild(root);
  return root;
}

/**
 * Draw now and again on each trait's change; hand custom messages to the requester. Returns
 * anywidget's cleanup (listeners off, pending requests dropped).
 */
export function redrawOn<T>(
  model: IModel<T>,
  traits: string[],
  draw: () => void,
  requests: Requester
): () => void {
  const onMessage = (msg: unknown) => void requests.settle(msg);
  model.on('msg:custom', onMessage);
  for (const name of traits) {
    model.on(`change:${name}`, draw);
  }
  draw();
  return () => {
    model.off('msg:custom', onMessage);
    for (const name of traits) {
      model.off(`change:${name}`, draw);
    }
    requests.close();
  };
}

/** The `busy` and `error` traits every widget has, as a line each when set. */
export function busyAndError(
  root: HTMLElement,
  busy: string | undefined,
  error: string | undefined
): void {
  if (busy) {
    el('div', 'jp-zengine-status-busy', busy, root);
  }
  if (error) {
    el('div', 'jp-zengine-error', error, root).setAttribute('role', 'alert');
  }
}
