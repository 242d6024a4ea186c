import { describe, expect, it, vi } from 'vitest';

import { addRewindControl, RewindHandler, RewindScope } from '../src/ui/rewind';
import { flush, host } from './helpers';

function parts(box: HTMLElement): {
  toggle: HTMLButtonElement;
  menu: HTMLElement;
  choices: HTMLButtonElement[];
} {
  return {
    toggle: box.querySelector<HTMLButtonElement>('.jp-zengine-rewind-toggle')!,
    menu: box.querySelector<HTMLElement>('.jp-zengine-rewind-menu')!,
    choices: Array.from(box.querySelectorAll<HTMLButtonElement>('.jp-zengine-rewind-menu button'))
  };
}

function key(target: HTMLElement, name: string): void {
  target.dispatchEvent(new KeyboardEvent('keydown', { key: name, bubbles: true }));
}

describe('addRewindControl', () => {
  it('a closed menu of three choices, wired for assistive tech', () => {
    const box = addRewindControl(host(), 't1', vi.fn<RewindHandler>());
    const { toggle, menu, choices } = parts(box);
    expect(box.dataset.turnId).toBe('t1');
    expect(toggle.textContent).toBe('Rewind…');
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(toggle.getAttribute('aria-controls')).toBe(menu.id);
    expect(menu.id).toBe('jp-zengine-rewind-t1');
    expect(menu.hidden).toBe(true);
    expect(menu.getAttribute('role')).toBe('group');
    expect(choices.map(c => [c.dataset.scope, c.textContent])).toEqual([
      ['code', 'Code'],
      ['conversation', 'Conversation'],
      ['both', 'Both']
    ]);
    expect(choices[0].getAttribute('aria-label')).toBe(
      'Rewind code: Put the files back as they were before this message'
    );
    expect(choices[1].title).toBe('Forget this message and everything after it');
  });

  it('the toggle opens the menu and focuses the first choice; again closes it', () => {
    const box = addRewindControl(host(), 't1', vi.fn<RewindHandler>());
    const { toggle, menu, choices } = parts(box);
    toggle.click();
    expect(menu.hidden).toBe(false);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(document.activeElement).toBe(choices[0]);
    toggle.click();
    expect(menu.hidden).toBe(true);
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
  });

  it('arrows move round the choices, Escape closes and returns the focus', () => {
    const box = addRewindControl(host(), 't1', vi.fn<RewindHandler>());
    const { toggle, menu, choices } = parts(box);
    toggle.click();
    key(choices[0], 'ArrowRight');
    expect(document.activeElement).toBe(choices[1]);
    key(choices[1], 'ArrowDown');
    expect(document.activeElement).toBe(choices[2]);
    key(choices[2], 'ArrowDown');
    expect(document.activeElement).toBe(choices[0]);
    key(choices[0], 'ArrowUp');
    expect(document.activeElement).toBe(choices[2]);
    key(choices[2], 'ArrowLeft');
    expect(document.activeElement).toBe(choices[1]);
    key(choices[1], 'Escape');
    expect(menu.hidden).toBe(true);
    expect(document.activeElement).toBe(toggle);
  });

  it('a choice closes the menu, calls back with its scope, and disables the toggle meanwhile', async () => {
    let finish: () => void = () => undefined;
    const calls: [string, RewindScope][] = [];
    const onRewind: RewindHandler = (turnId, scope) => {
      calls.push([turnId, scope]);
      return new Promise<void>(resolve => {
        finish = resolve;
      });
    };
    const box = addRewindControl(host(), 't7', onRewind);
    const { toggle, menu, choices } = parts(box);
    toggle.click();
    choices[2].click();
    expect(calls).toEqual([['t7', 'both']]);
    expect(menu.hidden).toBe(true);
    expect(toggle.disabled).toBe(true);
    finish();
    await flush();
    expect(toggle.disabled).toBe(false);
    expect(document.activeElement).toBe(toggle);
  });
});
