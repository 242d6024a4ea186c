import { describe, expect, it, vi } from 'vitest';

import { addCopyButtons, IMarkdown, MarkdownBlock } from '../src/ui/markdown';
import { flush, host } from './helpers';

/** A renderer standing in for rendermime: a paragraph and the source's code as a block. */
const RENDER: IMarkdown = {
  block: (node: HTMLElement) => async (source: string) => {
    node.innerHTML = `<p>answer</p><pre><code>${source}</code></pre><pre>plain</pre>`;
  }
};

describe('code blocks get a Copy button', () => {
  it('after every render, one per pre > code, with a name and no text', async () => {
    const block = new MarkdownBlock(RENDER, host(), 'x = 1');
    await flush();
    const buttons = block.host.querySelectorAll<HTMLButtonElement>(
      'pre > .jp-zengine-code-tools > .jp-zengine-copy'
    );
    expect(buttons).toHaveLength(1); // the pre without code gets none
    expect(buttons[0].getAttribute('aria-label')).toBe('Copy code');
    expect(buttons[0].textContent).toBe('');
    expect(block.host.querySelector('pre')!.textContent).toBe('x = 1'); // the code's text only
    addCopyButtons(block.host);
    expect(block.host.querySelectorAll('.jp-zengine-copy')).toHaveLength(1);
    expect(block.host.querySelector('.jp-zengine-insert-above')).toBeNull(); // no port: Copy only
    block.append('\ny = 2');
    block.finish();
    await flush();
    expect(block.host.querySelectorAll('.jp-zengine-copy')).toHaveLength(1);
  });

  it('copies the code to the clipboard and says so', async () => {
    const writeText = vi.fn(async () => undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    try {
      const block = new MarkdownBlock(RENDER, host(), 'RATE = 2');
      await flush();
      const copy = block.host.querySelector<HTMLButtonElement>('.jp-zengine-copy')!;
      copy.click();
      await flush();
      expect(writeText).toHaveBeenCalledWith('RATE = 2');
      expect(copy.dataset.copied).toBe('true');
      expect(copy.getAttribute('aria-label')).toBe('Copied');
    } finally {
      Reflect.deleteProperty(navigator, 'clipboard');
    }
  });

  it('says when the page refuses the copy', async () => {
    const writeText = vi.fn(async () => {
      throw new Error('not allowed');
    });
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    try {
      const block = new MarkdownBlock(RENDER, host(), 'x');
      await flush();
      const copy = block.host.querySelector<HTMLButtonElement>('.jp-zengine-copy')!;
      copy.click();
      await flush();
      expect(copy.dataset.copied).toBe('false'); // jsdom has no execCommand('copy') either
      expect(copy.getAttribute('aria-label')).toBe('Copy failed');
    } finally {
      Reflect.deleteProperty(navigator, 'clipboard');
    }
  });
});
