/**
 * The input box: Enter sends, Shift+Enter is a new line. A line starting with "/" completes
 * slash commands (built-ins and /mcp__server__prompt, from `list_commands`): a listbox under
 * the box, ArrowUp/ArrowDown to choose, Tab or Enter to take, Escape to close.
 */

import { button, el } from './ui/dom';
import { SlashCommand } from './protocol';

/** What the user typed: a message, or a slash command with its unparsed arguments. */
export type Typed =
  { kind: 'submit'; text: string } | { kind: 'command'; name: string; args: string };

/** "/model opus" -> command model "opus"; anything else is a message. */
export function parseTyped(raw: string): Typed | null {
  const text = raw.trim();
  if (!text) {
    return null;
  }
  const match = /^\/(\S+)\s*([\s\S]*)$/.exec(text);
  if (match) {
    return { kind: 'command', name: match[1], args: match[2].trim() };
  }
  return { kind: 'submit', text };
}

export class InputBox {
  /**
   * `footer`, when given, builds the input footer under the box (the panel's pickers, cost
   * and Stop) and returns the row Send goes in; else Send has a row of its own.
   */
  constructor(
    parent: HTMLElement,
    private readonly _onSend: (typed: Typed) => void,
    footer?: (form: HTMLFormElement) => HTMLElement
  ) {
    const form = el('form', 'jp-zengine-form', null, parent);
    form.setAttribute('aria-label', 'Message the agent');
    const wrap = el('div', 'jp-zengine-input-wrap', null, form);
    this.input = el('textarea', 'jp-zengine-input', null, wrap);
    this.input.rows = 3;
    // short enough for a 250 px panel; the keys are in the tooltip
    this.input.placeholder = 'Ask the agent… (/ for commands)';
    this.input.setAttribute('aria-label', 'Message to the agent');
    this.input.title =
      'Enter sends, Shift+Enter for a new line, / for commands. ' +
      'Alt+Z focuses this box from anywhere; Alt+Y goes to a waiting approval';
    this.input.setAttribute('aria-autocomplete', 'list');
    this._list = el('ul', 'jp-zengine-completions', null, wrap);
    this._list.id = `jp-zengine-completions-${++counter}`;
    this._list.setAttribute('role', 'listbox');
    this._list.setAttribute('aria-label', 'Slash commands');
    this._list.hidden = true;
    this.input.setAttribute('aria-controls', this._list.id);
    const row = footer ? footer(form) : el('div', 'jp-zengine-buttons', null, form);
    const send = button(
      row,
      'jp-zengine-send jp-mod-accept',
      'Send',
      () => this._send(),
      'Send the message'
    );
    send.type = 'submit';
    form.addEventListener('submit', event => {
      event.preventDefault();
      this._send();
    });
    this.input.addEventListener('keydown', event => this._onKey(event));
    this.input.addEventListener('input', () => this._complete());
    this.input.addEventListener('blur', () =>
      setTimeout(() => {
        if (document.activeElement !== this.input) {
          this._close();
        }
      }, 150)
    );
  }

  readonly input: HTMLTextAreaElement;

  set commands(commands: SlashCommand[]) {
    this._commands = [...commands].sort((a, b) => a.name.localeCompare(b.name));
    this.input.dataset.commands = String(this._commands.length);
    if (document.activeElement === this.input) {
      this._complete(); // they arrived while the user was typing one
    }
  }

  focus(): void {
    this.input.focus();
  }

  private _send(): void {
    const typed = parseTyped(this.input.value);
    if (!typed) {
      return;
    }
    this.input.value = '';
    this._close();
    this._onSend(typed);
  }

  private _onKey(event: KeyboardEvent): void {
    const open = !this._list.hidden && this._matches.length > 0;
    if (open && (event.key === 'ArrowDown' || event.key === 'ArrowUp')) {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      this._select((this._active + step + this._matches.length) % this._matches.length);
    } else if (
      open &&
      (event.key === 'Tab' || (event.key === 'Enter' && !event.shiftKey && this._partial()))
    ) {
      event.preventDefault();
      this._take(this._matches[Math.max(this._active, 0)]);
    } else if (open && event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      this._close();
    } else if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      this._send();
    }
  }

  /** The name being typed is not yet a whole command (Enter then completes it). */
  private _partial(): boolean {
    const name = /^\/(\S*)$/.exec(this.input.value)?.[1];
    return name !== undefined && !this._commands.some(c => c.name === name);
  }

  private _complete(): void {
    const name = /^\/(\S*)$/.exec(this.input.value)?.[1];
    if (name === undefined) {
      this._close();
      return;
    }
    this._matches = this._commands.filter(c => c.name.startsWith(name));
    this._list.replaceChildren();
    this._matches.forEach((command, index) => {
      const option = el('li', 'jp-zengine-completion', null, this._list);
      option.id = `${this._list.id}-${index}`;
      option.setAttribute('role', 'option');
      option.dataset.name = command.name;
      el('span', 'jp-zengine-completion-name', `/${command.name}`, option);
      if (command.argument_hint) {
        el('span', 'jp-zengine-completion-hint', ` ${command.argument_hint}`, option);
      }
      el('span', 'jp-zengine-completion-help', ` ${command.description}`, option);
      option.addEventListener('mousedown', event => {
        event.preventDefault();
        this._take(command);
      });
    });
    this._list.hidden = this._matches.length === 0;
    this._select(this._matches.length ? 0 : -1);
  }

  private _select(index: number): void {
    this._active = index;
    Array.from(this._list.children).forEach((child, i) => {
      child.setAttribute('aria-selected', String(i === index));
    });
    if (index >= 0) {
      this.input.setAttribute('aria-activedescendant', `${this._list.id}-${index}`);
    } else {
      this.input.removeAttribute('aria-activedescendant');
    }
  }

  private _take(command: SlashCommand): void {
    this.input.value = `/${command.name} `;
    this._close();
    this.input.focus();
  }

  private _close(): void {
    this._list.hidden = true;
    this._matches = [];
    this._active = -1;
    this.input.removeAttribute('aria-activedescendant');
  }

  private _commands: SlashCommand[] = [];
  private _matches: SlashCommand[] = [];
  private _active = -1;
  private _list: HTMLUListElement;
}

let counter = 0;
