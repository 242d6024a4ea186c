/**
 * The trust banner (panel and status widget): "Trust this workspace?" with what the project's
 * settings would do that is withheld until the user trusts the folder; Trust / Not now (a
 * `trust_answer` request).
 */

import { Outcome, button, el, errorText } from './dom';

export type TrustSender = (folder: string, trust: boolean) => Promise<Outcome>;

/** What the banner shows: the folder, the withheld settings, why trust could not be read. */
export interface ITrustQuestion {
  folder: string;
  withheld: string[];
  problem?: string | null;
}

/** A withheld setting as one line: `key (layer): detail`. */
export function withheldLine(item: { key: string; layer: string; detail?: string | null }): string {
  return `${item.key} (${item.layer})${item.detail ? `: ${item.detail}` : ''}`;
}

export class TrustBanner {
  constructor(
    private readonly _host: HTMLElement,
    private readonly _send: TrustSender
  ) {}

  /** Show (or replace) the banner for this event. */
  show(event: ITrustQuestion): void {
    this.clear();
    const node = el('section', 'jp-zengine-trust', null, this._host);
    node.setAttribute('role', 'region');
    node.setAttribute('aria-live', 'polite'); // announced when it appears, focus stays put
    node.dataset.folder = event.folder;
    const title = el('h3', 'jp-zengine-trust-title', 'Trust this workspace?', node);
    title.id = `jp-zengine-trust-${++counter}`;
    node.setAttribute('aria-labelledby', title.id);
    el('div', 'jp-zengine-trust-folder', event.folder, node);
    if (event.problem) {
      el('div', 'jp-zengine-trust-problem', event.problem, node);
    }
    if (event.withheld.length) {
      el('div', 'jp-zengine-trust-lead', 'Until you trust it, its settings cannot:', node);
      const list = el('ul', 'jp-zengine-trust-withheld', null, node);
      for (const item of event.withheld) {
        el('li', '', item, list);
      }
    }
    const row = el('div', 'jp-zengine-buttons', null, node);
    const status = el('div', 'jp-zengine-trust-status', null, node);
    status.setAttribute('role', 'status');
    const answer = async (trust: boolean) => {
      row.querySelectorAll('button').forEach(b => (b.disabled = true));
      const reply = await this._send(event.folder, trust);
      if (reply.ok) {
        if (trust) {
          this.clear();
        } else {
          row.remove();
          status.textContent = 'Not trusted: the withheld settings stay off.';
        }
      } else {
        row.querySelectorAll('button').forEach(b => (b.disabled = false));
        status.textContent = errorText(reply);
      }
    };
    button(
      row,
      'jp-zengine-trust-yes jp-mod-accept',
      'Trust',
      () => void answer(true),
      `Trust ${event.folder}`
    );
    button(row, 'jp-zengine-trust-no', 'Not now', () => void answer(false));
    this._node = node;
  }

  clear(): void {
    this._node?.remove();
    this._node = null;
  }

  private _node: HTMLElement | null = null;
}

let counter = 0;
