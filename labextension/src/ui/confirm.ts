/**
 * A confirm inside the panel (JupyterLab's dialog look, no modal over the page): a question,
 * a line saying what happens, and two buttons. Focus goes to the safe one (Cancel); Escape
 * cancels; the box is an `alertdialog` labelled by its question.
 */

import { button, el } from './dom';

export interface IConfirm {
  question: string;
  detail: string;
  accept: string;
  /** Accessible name of the accept button (e.g. "Delete chat NAME"). */
  acceptAria?: string;
}

/** Show the confirm in `parent`; resolves true (accepted) or false, then removes it. */
export function confirmInline(parent: HTMLElement, words: IConfirm): Promise<boolean> {
  return new Promise(resolve => {
    const box = el('div', 'jp-zengine-confirm jp-Dialog-content', null, parent);
    box.setAttribute('role', 'alertdialog');
    const question = el('p', 'jp-zengine-confirm-question jp-Dialog-header', words.question, box);
    question.id = `jp-zengine-confirm-${++counter}`;
    box.setAttribute('aria-labelledby', question.id);
    const detail = el('p', 'jp-zengine-confirm-detail', words.detail, box);
    detail.id = `${question.id}-detail`;
    box.setAttribute('aria-describedby', detail.id);
    const row = el('div', 'jp-zengine-confirm-buttons jp-Dialog-footer', null, box);
    const done = (answer: boolean) => {
      box.remove();
      resolve(answer);
    };
    const cancel = button(row, 'jp-zengine-confirm-cancel jp-mod-reject', 'Cancel', () =>
      done(false)
    );
    button(
      row,
      'jp-zengine-confirm-accept jp-mod-warn',
      words.accept,
      () => done(true),
      words.acceptAria
    );
    box.addEventListener('keydown', event => {
      if (event.key === 'Escape') {
        event.preventDefault();
        event.stopPropagation();
        done(false);
      }
    });
    box.scrollIntoView?.({ block: 'nearest' }); // the chats list scrolls: show it whole
    cancel.focus();
  });
}

let counter = 0;
