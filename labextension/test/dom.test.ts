import { describe, expect, it, vi } from 'vitest';

import { button, collapsed, el, follow, usd, when } from '../src/ui/dom';
import { host } from './helpers';

describe('el', () => {
  it('makes an element with a class and text, appended when a parent is given', () => {
    const parent = host();
    const node = el('span', 'a b', 'hello', parent);
    expect(node.tagName).toBe('SPAN');
    expect(node.className).toBe('a b');
    expect(node.textContent).toBe('hello');
    expect(node.parentElement).toBe(parent);
  });

  it('leaves class and text unset when not given, and stays detached without a parent', () => {
    const node = el('div', '', null);
    expect(node.hasAttribute('class')).toBe(false);
    expect(node.textContent).toBe('');
    expect(node.parentElement).toBeNull();
    expect(el('pre', 'x', '').textContent).toBe('');
  });

  it('sets text as text, never as markup', () => {
    const node = el('div', 'x', '<img src=x onerror=alert(1)>');
    expect(node.children).toHaveLength(0);
    expect(node.textContent).toBe('<img src=x onerror=alert(1)>');
  });
});

describe('button', () => {
  it('is a styled native button with a label that calls back on click', () => {
    const onClick = vi.fn();
    const node = button(host(), 'jp-x', 'Go', onClick, 'Go now');
    expect(node.tagName).toBe('BUTTON');
    expect(node.type).toBe('button');
    expect(node.className).toBe('jp-zengine-button jp-mod-styled jp-x');
    expect(node.textContent).toBe('Go');
    expect(node.getAttribute('aria-label')).toBe('Go now');
    const event = new MouseEvent('click', { cancelable: true });
    node.dispatchEvent(event);
    expect(onClick).toHaveBeenCalledTimes(1);
    expect(event.defaultPrevented).toBe(true); // never submits a surrounding form
  });

  it('has no aria-label unless given', () => {
    expect(button(host(), '', 'Go', vi.fn()).hasAttribute('aria-label')).toBe(false);
  });
});

describe('collapsed', () => {
  it('is a closed <details> with its summary and an empty body', () => {
    const parent = host();
    const { details, body } = collapsed(parent, 'jp-y', 'More');
    expect(details.parentElement).toBe(parent);
    expect(details.className).toBe('jp-y');
    expect(details.open).toBe(false);
    expect(details.querySelector('summary')!.textContent).toBe('More');
    expect(body.parentElement).toBe(details);
    expect(body.className).toBe('jp-zengine-details-body');
    expect(body.childNodes).toHaveLength(0);
  });
});

describe('usd', () => {
  it('4 decimals under a dollar, 2 above; unknown said so', () => {
    expect(usd(0)).toBe('$0.0000');
    expect(usd(0.01234)).toBe('$0.0123');
    expect(usd(1)).toBe('$1.00');
    expect(usd(12.345)).toBe('$12.35');
    expect(usd(null)).toBe('price unknown');
    expect(usd(undefined)).toBe('price unknown');
  });
});

describe('when', () => {
  it('shows a timestamp in local time, and keeps what does not parse', () => {
    const iso = '2026-12-01T10:00:00Z';
    expect(when(iso)).toBe(new Date(iso).toLocaleString());
    expect(when('yesterday-ish')).toBe('yesterday-ish');
  });
});

describe('follow', () => {
  function log(scrollHeight: number, scrollTop: number, clientHeight: number): HTMLElement {
    const node = host();
    Object.defineProperty(node, 'scrollHeight', { value: scrollHeight });
    Object.defineProperty(node, 'clientHeight', { value: clientHeight });
    node.scrollTop = scrollTop;
    return node;
  }

  it('scrolls to the end when the reader is near it', () => {
    const node = log(1000, 800, 100); // 100 px from the end
    follow(node);
    expect(node.scrollTop).toBe(1000);
  });

  it('leaves the reader where they are when they scrolled up', () => {
    const node = log(1000, 200, 100);
    follow(node);
    expect(node.scrollTop).toBe(200);
  });
});
