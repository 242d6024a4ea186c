/**
 * The rewind control on every user message: a "Rewind" button that opens a small menu of
 * three choices (code, conversation, both). Keyboard: Enter/Space opens it and focuses the
 * first choice, arrows move, Escape closes and returns the focus.
 */

import { button, el } from './dom';

export type RewindScope = 'code' | 'conversation' | 'both';

export type RewindHandler = (turnId: string, scope: RewindScope) => Promise<void>;

const CHOICES: { scope: RewindScope; label: string; help: string }[] = [
  { scope: 'code', label: 'Code', help: 'Put the files back as they were before this message' },
  {
    scope: 'conversation',
    label: 'Conversation',
    help: 'Forget this message and everything after it'
  },
  { scope: 'both', label: 'Both', help: 'Put the files back and forget the conversation from here' }
];

export function addRewindControl(
  parent: HTMLElement,
  turnId: string,
  onRewind: RewindHandler
): HTMLElement {
  const box = el('div', 'jp-zengine-rewind', null, parent);
  box.dataset.turnId = turnId;
  const menuId = `jp-zengine-rewind-${turnId}`;
  const menu = el('div', 'jp-zengine-rewind-menu', null);
  menu.id = menuId;
  menu.setAttribute('role', 'group');
  menu.setAttribute('aria-label', 'Rewind to before this message');
  menu.hidden = true;

  const toggle = button(
    box,
    'jp-zengine-rewind-toggle',
    'Rewind…',
    () => setOpen(menu.hidden),
    'Rewind to before this message'
  );
  toggle.setAttribute('aria-expanded', 'false');
  toggle.setAttribute('aria-controls', menuId);
  box.appendChild(menu);

  const setOpen = (open: boolean) => {
    menu.hidden = !open;
    toggle.setAttribute('aria-expanded', String(open));
    if (open) {
      menu.querySelector<HTMLButtonElement>('button')?.focus();
    }
  };

  const choices: HTMLButtonElement[] = [];
  for (const choice of CHOICES) {
    const b = button(
      menu,
      `jp-zengine-rewind-${choice.scope}`,
      choice.label,
      () => {
        setOpen(false);
        toggle.disabled = true;
        void onRewind(turnId, choice.scope).finally(() => {
          toggle.disabled = false;
          toggle.focus();
        });
      },
      `Rewind ${choice.label.toLowerCase()}: ${choice.help}`
    );
    b.title = choice.help;
    b.dataset.scope = choice.scope;
    choices.push(b);
  }
  menu.addEventListener('keydown', event => {
    const at = choices.indexOf(document.activeElement as HTMLButtonElement);
    if (event.key === 'Escape') {
      event.preventDefault();
      setOpen(false);
      toggle.focus();
    } else if ((event.key === 'ArrowRight' || event.key === 'ArrowDown') && at >= 0) {
      event.preventDefault();
      choices[(at + 1) % choices.length].focus();
    } else if ((event.key === 'ArrowLeft' || event.key === 'ArrowUp') && at >= 0) {
      event.preventDefault();
      choices[(at + choices.length - 1) % choices.length].focus();
    }
  });
  return box;
}
