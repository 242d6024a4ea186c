/**
 * Consecutive calls of one reading tool as one line ("Read 4 files") that opens on each
 * call's own line (`ToolCard`).
 */

import { el } from './dom';
import { ToolCard } from './toolcard';

/** Tools whose consecutive calls read as one line ("Read 4 files"). */
const GROUPED: Record<string, (n: number) => string> = {
  Read: n => `Read ${n} files`
};

/**
 * Consecutive calls of one reading tool, as one line that expands to each call's own line.
 * `join` puts a new card into the group after `previous` (the item just before it) when both
 * read; a call that fails or waits for an answer opens its group, so nothing hides there.
 */
export class ToolGroup {
  /** The group the new card joins (made from `previous` if needed), or null: it stands alone. */
  static join(previous: Element | null, card: ToolCard): ToolGroup | null {
    const tool = card.node.dataset.tool ?? '';
    if (!GROUPED[tool] || !previous) {
      return null;
    }
    const existing = GROUPS.get(previous);
    if (existing && existing.tool === tool) {
      existing.add(card.node);
      return existing;
    }
    const prev = previous as HTMLElement;
    if (
      prev.dataset.kind !== 'tool' ||
      prev.dataset.tool !== tool ||
      prev.dataset.waiting === 'true'
    ) {
      return null;
    }
    const group = new ToolGroup(prev, tool);
    group.add(card.node);
    return group;
  }

  private constructor(
    first: HTMLElement,
    readonly tool: string
  ) {
    this.node = document.createElement('li');
    this.node.className = 'jp-zengine-item jp-zengine-tool-group';
    this.node.dataset.kind = 'tool-group';
    this.node.dataset.tool = tool;
    first.replaceWith(this.node);
    this._head = el('button', 'jp-zengine-tool-group-head', null, this.node);
    this._head.type = 'button';
    this._head.addEventListener('click', event => {
      event.preventDefault();
      this.open = !this.open;
    });
    this._list = el('ol', 'jp-zengine-tool-group-list', null, this.node);
    this.open = false;
    GROUPS.set(this.node, this);
    this.add(first);
  }

  readonly node: HTMLElement;

  get open(): boolean {
    return !this._list.hidden;
  }

  set open(value: boolean) {
    this._list.hidden = !value;
    this._head.setAttribute('aria-expanded', String(value));
  }

  get size(): number {
    return this._list.children.length;
  }

  private add(card: HTMLElement): void {
    this._list.appendChild(card);
    const n = this.size;
    this._head.textContent = GROUPED[this.tool](n);
    this.node.setAttribute('aria-label', GROUPED[this.tool](n));
  }

  private _head: HTMLButtonElement;
  private _list: HTMLElement;
}

const GROUPS = new WeakMap<Element, ToolGroup>();

/** The group a card sits in, if any. */
export function groupOf(card: ToolCard): ToolGroup | null {
  const item = card.node.parentElement?.parentElement;
  return item ? (GROUPS.get(item) ?? null) : null;
}
