import { describe, expect, it, vi } from 'vitest';

import { InputBox } from '../src/input';
import { ChatView } from '../src/ui/chat';
import { StatusBar } from '../src/ui/status';
import { host } from './helpers';

/* What axe-core reported in the browser sweep (tests/e2e/test_chat_views_browser.py), kept
 * here as quick checks of the DOM the components build. */
describe('accessibility of the chat components', () => {
  it('the conversation is a list its items belong to, announced politely', () => {
    const root = host();
    const chat = new ChatView(root, {
      markdown: null,
      status: new StatusBar(root, vi.fn()),
      answer: vi.fn(),
      rewind: vi.fn()
    });
    // role="log" on the <ol> made its <li> items orphans (axe "listitem", serious)
    expect(chat.node.tagName).toBe('OL');
    expect(chat.node.hasAttribute('role')).toBe(false);
    expect(chat.node.getAttribute('aria-live')).toBe('polite');
    expect(chat.node.getAttribute('aria-label')).toBe('Conversation');
  });

  it('the message box uses only the ARIA attributes a textbox allows', () => {
    const box = new InputBox(host(), vi.fn());
    // aria-expanded is not allowed on a <textarea> (axe "aria-allowed-attr", critical)
    expect(box.input.hasAttribute('aria-expanded')).toBe(false);
    expect(box.input.getAttribute('aria-label')).toBe('Message to the agent');
    const list = box.input.getAttribute('aria-controls');
    expect(list && document.getElementById(list)?.getAttribute('role')).toBe('listbox');
  });
});
