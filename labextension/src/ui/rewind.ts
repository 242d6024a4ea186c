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

/** The one-line headline of a rewind, the same in every view. */
export function rewoundLine(result: {
  code?: unknown;
  conversation: boolean;
  prompt: string;
}): string {
  const what = [result.code ? 'the files' : '', result.conversation ? 'the conversation' : '']
    .filter(Boolean)
    .join(' and ');
  return `Rewound ${what || 'nothing'} to before “${short(result.prompt, 60)}”.`;
}

/** A prompt on one line, cut to `n` characters. */
export function short(text: string, n: number): string {
  const flat = text.split(/\s+/).join(' ').trim();
  return flat.length <= n ? flat : `${flat.slice(0, n - 1)}…`;
}

/**
 * What a rewind did, the same in every view (the panel, the cell widgets): the headline, then
 * the engine's words (`describe_rewind`: what was restored, removed or left alone, one line
 * each), then the warnings (the other chats' edits it reverted), each shown once.
 */
export function rewindOutcome(
  parent: HTMLElement,
  text: string,
  warnings: string[],
  result: { code?: unknown; conversation: boolean; prompt: string }
): HTMLElement {
  const node = el('div', 'jp-zengine-rewind-result', null, parent);
  node.setAttribute('role', 'status');
  el('div', 'jp-zengine-rewind-result-title', rewoundLine(result), node);
  const warned = new Set(warnings);
  const lines = text.split('\n').filter(line => !warned.has(line));
  if (lines.some(line => line.trim())) {
    el('pre', 'jp-zengine-rewind-text', lines.join('\n'), node);
  }
  for (const line of warnings) {
    el('div', 'jp-zengine-rewind-warning', line, node);
  }
  return node;
}

/** One rewind point of the rewind widget's list. */
export interface IRewindPoint {
  turn_id: string;
  prompt: string;
  checkpoint_id?: string | null;
  warnings?: string[];
}

const RESTORE: { scope: RewindScope; label: string }[] = [
  { scope: 'code', label: 'Restore code' },
  { scope: 'conversation', label: 'Restore conversation' },
  { scope: 'both', label: 'Restore both' }
];

/** The rewind widget's list: each user message with its checkpoint and three buttons. */
export function rewindPoints(
  parent: HTMLElement,
  points: IRewindPoint[],
  busy: boolean,
  onRewind: (point: IRewindPoint, scope: RewindScope) => void
): HTMLElement {
  const list = el('ol', 'jp-zengine-rewind-points', null, parent);
  for (const point of points) {
    const item = el('li', 'jp-zengine-rewind-point', null, list);
    item.dataset.turnId = point.turn_id;
    el('span', 'jp-zengine-rewind-prompt', short(point.prompt, 90), item);
    el(
      'span',
      'jp-zengine-rewind-checkpoint',
      point.checkpoint_id ? `files: ${point.checkpoint_id.slice(0, 12)}` : 'no file changes since',
      item
    );
    for (const line of point.warnings ?? []) {
      el('div', 'jp-zengine-rewind-warning', line, item);
    }
    const row = el('span', 'jp-zengine-buttons', null, item);
    for (const choice of RESTORE) {
      const b = button(row, `jp-zengine-rewind-${choice.scope}`, choice.label, () =>
        onRewind(point, choice.scope)
      );
      b.dataset.scope = choice.scope;
      b.disabled = busy || (choice.scope === 'code' && !point.checkpoint_id);
    }
  }
  return list;
}
