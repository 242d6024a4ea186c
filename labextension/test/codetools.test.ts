import { describe, expect, it, vi } from 'vitest';

import {
  addCodeTools,
  cellKind,
  CellKind,
  codeLanguage,
  ICodeActions,
  ICodeTargets,
  WORDS
} from '../src/ui/codetools';
import { ChatView } from '../src/ui/chat';
import { IMarkdown, MarkdownBlock } from '../src/ui/markdown';
import { StatusBar } from '../src/ui/status';
import { flush, host } from './helpers';

/** A port standing in for JupyterLab: records what it was asked to do. */
class FakeActions implements ICodeActions {
  now: ICodeTargets = {
    notebook: 'analysis.ipynb',
    editor: 'cell 2 of analysis.ipynb',
    selection: true
  };
  inserted: [string, CellKind, string][] = [];
  replaced: string[] = [];
  targets(): ICodeTargets {
    return this.now;
  }
  insert(source: string, kind: CellKind, where: 'above' | 'below'): boolean {
    this.inserted.push([source, kind, where]);
    return true;
  }
  replaceSelection(source: string): boolean {
    this.replaced.push(source);
    return true;
  }
}

function block(html: string, actions: ICodeActions | null): HTMLElement {
  const node = host();
  node.innerHTML = html;
  addCodeTools(node, actions);
  return node;
}

function press(node: HTMLElement, selector: string): void {
  node.querySelector<HTMLButtonElement>(selector)!.click();
}

describe('code block tools', () => {
  it('reads the fence language; a markdown fence makes a markdown cell', () => {
    const code = document.createElement('code');
    expect(codeLanguage(code)).toBe('');
    code.className = 'language-Python';
    expect(codeLanguage(code)).toBe('python');
    expect(cellKind('python')).toBe('code');
    expect(cellKind('')).toBe('code');
    expect(cellKind('markdown')).toBe('markdown');
    expect(cellKind('md')).toBe('markdown');
  });

  it('in the panel: Copy, Insert above / below and Replace, named, in a strip above the code', () => {
    const node = block(
      '<pre><code class="language-python">x = 1\n</code></pre>',
      new FakeActions()
    );
    const pre = node.querySelector('pre')!;
    const tools = pre.firstElementChild as HTMLElement;
    expect(tools.className).toBe('jp-zengine-code-tools');
    expect(tools.getAttribute('role')).toBe('toolbar');
    const names = Array.from(tools.querySelectorAll('button')).map(b =>
      b.getAttribute('aria-label')
    );
    expect(names).toEqual([
      WORDS.copy,
      `${WORDS.above} of analysis.ipynb`,
      `${WORDS.below} of analysis.ipynb`,
      `${WORDS.replace} in cell 2 of analysis.ipynb`
    ]);
    expect(pre.textContent).toBe('x = 1\n'); // icons only: the block's text is the code's
    expect(pre.dataset.lang).toBe('python');
    addCodeTools(node, new FakeActions()); // a second pass adds nothing
    expect(node.querySelectorAll('.jp-zengine-code-tools')).toHaveLength(1);
  });

  it('inserts the code (without its last newline) above or below, as a code cell', () => {
    const actions = new FakeActions();
    const node = block('<pre><code class="language-python">x = 1\ny = 2\n</code></pre>', actions);
    press(node, '.jp-zengine-insert-below');
    press(node, '.jp-zengine-insert-above');
    expect(actions.inserted).toEqual([
      ['x = 1\ny = 2', 'code', 'below'],
      ['x = 1\ny = 2', 'code', 'above']
    ]);
    expect(node.querySelector<HTMLElement>('.jp-zengine-insert-below')!.dataset.done).toBe('true');
  });

  it('a markdown fence inserts a markdown cell; an unlabelled one a code cell', () => {
    const actions = new FakeActions();
    const node = block(
      '<pre><code class="language-markdown"># Title\n</code></pre><pre><code>print(1)\n</code></pre>',
      actions
    );
    node.querySelectorAll<HTMLButtonElement>('.jp-zengine-insert-below').forEach(b => b.click());
    expect(actions.inserted).toEqual([
      ['# Title', 'markdown', 'below'],
      ['print(1)', 'code', 'below']
    ]);
  });

  it('replaces the selection of the editor that last had the focus', () => {
    const actions = new FakeActions();
    const node = block('<pre><code>RATE = 3\n</code></pre>', actions);
    press(node, '.jp-zengine-replace');
    expect(actions.replaced).toEqual(['RATE = 3']);
  });

  it('without a notebook or a selection: disabled, the tooltip says why, a click does nothing', () => {
    const actions = new FakeActions();
    actions.now = { notebook: null, editor: null, selection: false };
    const node = block('<pre><code>x\n</code></pre>', actions);
    const above = node.querySelector<HTMLButtonElement>('.jp-zengine-insert-above')!;
    const replace = node.querySelector<HTMLButtonElement>('.jp-zengine-replace')!;
    expect(above.getAttribute('aria-disabled')).toBe('true');
    expect(above.title).toBe(`${WORDS.above}: ${WORDS.noNotebook}`);
    expect(replace.getAttribute('aria-disabled')).toBe('true');
    expect(replace.title).toBe(`${WORDS.replace}: ${WORDS.noEditor}`);
    above.click();
    replace.click();
    expect(actions.inserted).toEqual([]);
    expect(actions.replaced).toEqual([]);
    // an editor without a selection says so; coming near the tools asks again
    actions.now = { notebook: 'a.ipynb', editor: 'pipeline.py', selection: false };
    node.querySelector('.jp-zengine-code-tools')!.dispatchEvent(new Event('pointerenter'));
    expect(above.getAttribute('aria-disabled')).toBe('false');
    expect(replace.title).toBe(`${WORDS.replace}: ${WORDS.noSelection}`);
    actions.now = { ...actions.now, selection: true };
    replace.click(); // asked again on the click itself
    expect(actions.replaced).toEqual(['x']);
  });

  it('in the cell widget (no port) only Copy shows; MarkdownBlock passes the port on', async () => {
    const render: IMarkdown = {
      block: (node: HTMLElement) => async (source: string) => {
        node.innerHTML = `<pre><code>${source}</code></pre>`;
      }
    };
    const bare = new MarkdownBlock(render, host(), 'x = 1');
    const panel = new MarkdownBlock(render, host(), 'x = 1', new FakeActions());
    await flush();
    expect(bare.host.querySelectorAll('.jp-zengine-code-tools button')).toHaveLength(1);
    expect(panel.host.querySelectorAll('.jp-zengine-code-tools button')).toHaveLength(4);
  });

  it("the conversation hands the panel's port to the agent's messages, the widget's none", async () => {
    const render: IMarkdown = {
      block: (node: HTMLElement) => async (source: string) => {
        node.innerHTML = `<pre><code class="language-python">${source}</code></pre>`;
      }
    };
    const make = (codeActions: ICodeActions | null) => {
      const root = host();
      const chat = new ChatView(root, {
        markdown: render,
        status: new StatusBar(root, vi.fn()),
        answer: vi.fn(),
        rewind: null,
        codeActions
      });
      chat.apply({ session_id: 's1', kind: 'text_streamed', text: 'x = 1' });
      chat.closePrompts('over'); // the stream ends: rendered now
      return root;
    };
    const panel = make(new FakeActions());
    const widget = make(null);
    await flush();
    expect(panel.querySelectorAll('.jp-zengine-code-tools button')).toHaveLength(4);
    expect(widget.querySelectorAll('.jp-zengine-code-tools button')).toHaveLength(1);
  });
});
