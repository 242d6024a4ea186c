import { describe, expect, it, vi } from 'vitest';

import { readFileSync } from 'fs';

import { StatusBar, busyText } from '../src/ui/status';
import { host, texts } from './helpers';

function cost(bar: StatusBar): string {
  return bar.node.querySelector('.jp-zengine-cost')!.textContent ?? '';
}

function badge(bar: StatusBar): HTMLElement | null {
  return bar.node.querySelector<HTMLElement>('.jp-zengine-badge');
}

describe('StatusBar', () => {
  it('starts idle, with no cost and no badge', () => {
    const bar = new StatusBar(host(), vi.fn());
    expect(bar.running).toBe(false);
    expect(cost(bar)).toBe('');
    expect(badge(bar)).toBeNull();
    const interrupt = bar.node.querySelector<HTMLButtonElement>('.jp-zengine-interrupt')!;
    expect(interrupt.disabled).toBe(true);
    expect(interrupt.hidden).toBe(true); // Interrupt only while a turn runs
  });

  it('a running turn enables Interrupt, which calls back', () => {
    const onInterrupt = vi.fn();
    const bar = new StatusBar(host(), onInterrupt);
    bar.setRunning('t1');
    expect(bar.running).toBe(true);
    expect(bar.node.querySelector<HTMLButtonElement>('.jp-zengine-interrupt')!.hidden).toBe(false);
    expect(texts(bar.node, '.jp-zengine-running')).toEqual(['The agent is working…']);
    const interrupt = bar.node.querySelector<HTMLButtonElement>('.jp-zengine-interrupt')!;
    expect(interrupt.getAttribute('aria-label')).toBe('Interrupt the running turn');
    interrupt.click();
    expect(onInterrupt).toHaveBeenCalledTimes(1);
    bar.setRunning(null);
    expect(bar.running).toBe(false);
    expect(interrupt.disabled).toBe(true);
    expect(interrupt.hidden).toBe(true);
    expect(texts(bar.node, '.jp-zengine-running')).toEqual(['']);
    bar.interruptible = false; // a turn nobody can interrupt from here (nbclient)
    bar.setRunning('t2');
    expect(interrupt.hidden).toBe(true);
  });

  it('adds up the requests of a snapshot; unknown prices say so', () => {
    const bar = new StatusBar(host(), vi.fn());
    expect(cost(bar)).toBe('');
    bar.addUsage(null);
    expect(cost(bar)).toBe('chat price unknown');
    bar.addUsage(0.01);
    bar.addUsage(0.0023);
    expect(cost(bar)).toBe('chat $0.0123 + price unknown');
    bar.reset();
    bar.addUsage(0.0123);
    expect(cost(bar)).toBe('chat $0.0123');
    bar.setChat(0, 'Untitled');
    expect(cost(bar)).toBe('chat $0.0123');
  });

  it('a live cost shows the turn and the chat', () => {
    const bar = new StatusBar(host(), vi.fn());
    bar.setCost(0.5, 12.345);
    expect(cost(bar)).toBe('turn $0.5000 · chat $12.35');
    bar.setCost(null, null);
    expect(cost(bar)).toBe('turn price unknown · chat price unknown');
  });

  it("the chat's meta raises the cost and fills a missing title only", () => {
    const bar = new StatusBar(host(), vi.fn());
    bar.setChat(0.2, 'Fix the tests');
    expect(cost(bar)).toBe('chat $0.2000');
    expect(texts(bar.node, '.jp-zengine-title')).toEqual(['Fix the tests']);
    bar.setChat(0.1, 'Other');
    expect(cost(bar)).toBe('chat $0.2000'); // the log already counted more
    bar.setTitle('Renamed');
    bar.setChat(0.3, 'Other');
    expect(cost(bar)).toBe('chat $0.3000');
    expect(texts(bar.node, '.jp-zengine-title')).toEqual(['Renamed']);
  });

  it('shows each badge with its reason', () => {
    const bar = new StatusBar(host(), vi.fn());
    const cases = [
      ['verified', 'Verified: 3 checks passed'],
      ['failed', 'Checks failed: 3 checks passed'],
      ['unverified', 'Unverified: 3 checks passed'],
      ['not_applicable', 'Nothing to verify: 3 checks passed']
    ] as const;
    for (const [kind, text] of cases) {
      bar.setBadge(kind, '3 checks passed');
      const node = badge(bar)!;
      expect(node.dataset.badge).toBe(kind);
      expect(node.className).toBe(`jp-zengine-badge jp-zengine-badge-${kind}`);
      expect(node.textContent).toBe(text);
      expect(node.getAttribute('role')).toBe('status');
    }
    expect(bar.node.querySelectorAll('.jp-zengine-badge')).toHaveLength(1);
  });

  it('lists the check records, the latest per check winning', () => {
    const bar = new StatusBar(host(), vi.fn());
    bar.addCheck('pytest', false, 'FAIL pytest (exit 1, 0.4 s): 1 failed');
    expect(badge(bar)!.textContent).toBe('Checks failed (from the log)');
    bar.addCheck('ruff', true, 'PASS ruff (exit 0, 0.1 s)');
    bar.addCheck('pytest', true, 'PASS pytest (exit 0, 0.5 s): 12 passed');
    expect(badge(bar)!.textContent).toBe('Checks passed (from the log)');
    const items = Array.from(bar.node.querySelectorAll<HTMLElement>('.jp-zengine-check'));
    // the engine's line once, not "pytest passed PASS pytest ..."
    expect(items.map(i => [i.dataset.checkId, i.className, i.textContent])).toEqual([
      ['pytest', 'jp-zengine-check jp-zengine-ok', 'PASS pytest (exit 0, 0.5 s): 12 passed'],
      ['ruff', 'jp-zengine-check jp-zengine-ok', 'PASS ruff (exit 0, 0.1 s)']
    ]);
    expect(texts(bar.node, 'details.jp-zengine-checks > summary')).toEqual(['Check records']);
  });

  it('a live badge is not overwritten by the records', () => {
    const bar = new StatusBar(host(), vi.fn());
    bar.setBadge('verified', 'all checks passed');
    bar.addCheck('pytest', false, '1 failed');
    expect(badge(bar)!.textContent).toBe('Verified: all checks passed');
  });

  it('reset clears title, cost, badge and checks', () => {
    const bar = new StatusBar(host(), vi.fn());
    bar.setTitle('T');
    bar.setRunning('t1');
    bar.addUsage(1);
    bar.setBadge('failed', 'x');
    bar.addCheck('pytest', false, 'x');
    bar.reset();
    expect(texts(bar.node, '.jp-zengine-title')).toEqual(['']);
    expect(cost(bar)).toBe('');
    expect(badge(bar)).toBeNull();
    expect(bar.node.querySelector('.jp-zengine-check')).toBeNull();
    expect(bar.running).toBe(false);
    bar.addUsage(0.5); // the sum starts again from zero
    expect(cost(bar)).toBe('chat $0.5000');
  });
});

describe('busyText', () => {
  it('words a retry as the spec does: "Provider busy · retry N in Xs"', () => {
    expect(busyText(1, 0.5)).toBe('Provider busy · retry 1 in 0.5s');
    expect(busyText(2, 1)).toBe('Provider busy · retry 2 in 1s');
    expect(busyText(4, 16)).toBe('Provider busy · retry 4 in 16s');
    expect(busyText(3, 2.25)).toBe('Provider busy · retry 3 in 2.3s');
  });
});

describe('the turn bar in a narrow panel (style/base.css)', () => {
  it('keeps "The agent is working…" to one line; the cost may move to the next line', () => {
    const style = document.createElement('style');
    style.textContent = readFileSync('style/base.css', 'utf8'); // vitest runs in labextension/;
    document.head.appendChild(style);
    try {
      const bar = new StatusBar(host(), vi.fn());
      bar.setRunning('t1');
      const css = (selector: string): CSSStyleDeclaration =>
        getComputedStyle(bar.node.querySelector(selector)!);
      const running = css('.jp-zengine-running');
      expect(running.whiteSpace).toBe('nowrap'); // never four lines at 250 px
      expect(running.textOverflow).toBe('ellipsis');
      expect(running.overflow).toBe('hidden');
      expect(parseFloat(running.minWidth)).toBe(0); // may shrink below its text
      expect(css('.jp-zengine-turnrow').flexWrap).toBe('wrap');
      expect(css('.jp-zengine-interrupt').whiteSpace).toBe('nowrap');
      expect(css('.jp-zengine-cost').whiteSpace).toBe('nowrap');
    } finally {
      style.remove();
    }
  });
});
