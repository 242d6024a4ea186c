/**
 * Small DOM helpers shared by the panel's views: elements with a class, buttons that work
 * with Enter and Space (native <button>), and short human-readable numbers and dates.
 */

/** A kernel's answer to a request, as every view reads it (the panel's and the widgets'). */
export interface Outcome {
  ok: boolean;
  error?: string | null;
  hint?: string | null;
}

/** A failed answer in the kernel's own words, with its hint. */
export function errorText(outcome: Outcome, fallback = 'the kernel refused the answer'): string {
  const hint = outcome.hint ? ` (${outcome.hint})` : '';
  return `${outcome.error ?? fallback}${hint}`;
}

/** A new element with `className` (and text), appended to `parent` when given. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className: string,
  text?: string | null,
  parent?: HTMLElement
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) {
    node.className = className;
  }
  if (text !== undefined && text !== null) {
    node.textContent = text;
  }
  parent?.appendChild(node);
  return node;
}

/** A styled native button (keyboard operable by default) with an accessible label. */
export function button(
  parent: HTMLElement,
  className: string,
  label: string,
  onClick: () => void,
  ariaLabel?: string
): HTMLButtonElement {
  const node = el('button', `jp-zengine-button jp-mod-styled ${className}`, label, parent);
  node.type = 'button';
  if (ariaLabel) {
    node.setAttribute('aria-label', ariaLabel);
  }
  node.addEventListener('click', event => {
    event.preventDefault();
    onClick();
  });
  return node;
}

/** A collapsed <details> block with a summary line; returns the body to fill. */
export function collapsed(
  parent: HTMLElement,
  className: string,
  summary: string
): { details: HTMLDetailsElement; body: HTMLElement } {
  const details = el('details', className, null, parent);
  el('summary', 'jp-zengine-summary', summary, details);
  const body = el('div', 'jp-zengine-details-body', null, details);
  return { details, body };
}

/** What a cost nobody can tell reads (the engine's `PRICE_UNKNOWN`). */
export const PRICE_UNKNOWN = 'price unknown';

/** `$0.0123`, or "price unknown" for a model nobody prices. */
export function usd(value: number | null | undefined): string {
  if (value === null || value === undefined) {
    return PRICE_UNKNOWN;
  }
  return `$${value.toFixed(value < 1 ? 4 : 2)}`;
}

/** An ISO timestamp as the user's local date and time (as given when it does not parse). */
export function when(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** Scroll a log container to its end when the user is already near it. */
export function follow(container: HTMLElement): void {
  const near = container.scrollHeight - container.scrollTop - container.clientHeight < 120;
  if (near) {
    container.scrollTop = container.scrollHeight;
  }
}

/** Fill a list from a kernel's answer: its error, a line saying it is empty, or one item each. */
export function fillList<T>(
  list: HTMLElement,
  reply: Outcome,
  items: T[] | null | undefined,
  words: { failed: string; empty: string },
  add: (item: T) => void
): void {
  list.replaceChildren();
  if (!reply.ok) {
    el('li', 'jp-zengine-error', reply.error ?? words.failed, list);
    return;
  }
  if (!items?.length) {
    el('li', 'jp-zengine-empty', words.empty, list);
  }
  for (const item of items ?? []) {
    add(item);
  }
}
