import { describe, expect, it, vi } from 'vitest';

import { ChatOptions, ProviderBusy, Reply, SessionMeta } from '../src/protocol';
import { ChatsList } from '../src/ui/chats';
import { confirmInline } from '../src/ui/confirm';
import { ChatFooter } from '../src/ui/footer';
import { ChatStates, OPEN_SETUP_EVENT, downText, requestSetup } from '../src/ui/states';
import { flush, host, texts } from './helpers';

function options(extra: Partial<ChatOptions> = {}): ChatOptions {
  return {
    session_id: 's1',
    model: 'claude-sonnet-4-6',
    models: ['claude-sonnet-4-6', 'claude-haiku-4-5'],
    models_note: '2 models from the models.dev catalog',
    mode: 'default',
    modes: ['default', 'accept_edits', 'plan', 'bypass'],
    cost_usd: 0.0123,
    unpriced: false,
    provider: { kind: 'live', provider: 'api.anthropic.com', text: 'x' },
    ...extra
  };
}

function ok(text: string | null = null): Reply {
  return { v: 1, kind: 'reply', id: 'q', ok: true, text };
}

function busy(extra: Partial<ProviderBusy> = {}): ProviderBusy {
  return {
    session_id: 's1',
    kind: 'provider_busy',
    attempt: 2,
    attempts: 5,
    wait_s: 3,
    message: 'Provider busy · retry 2 in 3s',
    provider: 'api.anthropic.com',
    reason: 'overloaded (529)',
    ...extra
  };
}

describe('ChatFooter', () => {
  it('every control has an accessible name, and the selects are JupyterLab-styled', () => {
    const footer = new ChatFooter(host(), { choose: vi.fn(), stop: vi.fn() });
    footer.setOptions(options());
    expect(footer.model.getAttribute('aria-label')).toBe('Model');
    expect(footer.mode.getAttribute('aria-label')).toBe('Permission mode');
    expect(footer.stop.getAttribute('aria-label')).toBe('Stop the running turn');
    expect(footer.model.classList.contains('jp-mod-styled')).toBe(true);
    expect(footer.model.parentElement!.classList.contains('jp-HTMLSelect')).toBe(true);
    expect(Array.from(footer.model.options).map(o => o.value)).toEqual([
      'claude-sonnet-4-6',
      'claude-haiku-4-5'
    ]);
    expect(texts(footer.mode, 'option')).toEqual(['Default', 'Accept edits', 'Plan', 'Bypass']);
    expect(footer.cost.textContent).toBe('$0.0123 so far');
  });

  it('a choice goes out as model/mode; a refusal puts the picker back', async () => {
    const choose = vi.fn().mockResolvedValueOnce(true).mockResolvedValueOnce(false);
    const footer = new ChatFooter(host(), { choose, stop: vi.fn() });
    footer.setOptions(options());
    footer.model.value = 'claude-haiku-4-5';
    footer.model.dispatchEvent(new Event('change'));
    await flush();
    expect(choose).toHaveBeenCalledWith({ kind: 'model', value: 'claude-haiku-4-5' });
    footer.mode.value = 'bypass';
    footer.mode.dispatchEvent(new Event('change'));
    await flush();
    expect(choose).toHaveBeenLastCalledWith({ kind: 'mode', value: 'bypass' });
    expect(footer.mode.value).toBe('default');
  });

  it('bypass is offered only when the kernel lists it; Stop only while a turn runs', () => {
    const stop = vi.fn();
    const footer = new ChatFooter(host(), { choose: vi.fn(), stop });
    footer.setOptions(options({ modes: ['default', 'accept_edits', 'plan'], modes_note: 'off' }));
    expect(Array.from(footer.mode.options).map(o => o.value)).not.toContain('bypass');
    expect(footer.mode.title).toContain('off');
    expect(footer.stop.hidden).toBe(true);
    footer.setRunning(true);
    expect(footer.stop.hidden).toBe(false);
    expect(footer.model.disabled).toBe(true); // the model cannot change mid-turn
    footer.stop.click();
    expect(stop).toHaveBeenCalledTimes(1);
    footer.setRunning(false);
    expect(footer.stop.hidden).toBe(true);
    expect(footer.model.disabled).toBe(false);
  });

  it('the cost keeps the largest report and says when a price is unknown', () => {
    const footer = new ChatFooter(host(), { choose: vi.fn(), stop: vi.fn() });
    footer.setCost(0.5);
    footer.setCost(0.2);
    expect(footer.cost.textContent).toBe('$0.5000 so far');
    footer.setCost(0.6, true);
    expect(footer.cost.textContent).toBe('$0.6000 + price unknown so far');
    footer.resetCost();
    expect(footer.cost.textContent).toBe('');
  });
});

describe('ChatStates', () => {
  it('no model configured: what to configure and one button that opens the setup', () => {
    const run = vi.fn();
    const states = new ChatStates(host(), { setup: { label: 'Set up a model', run } });
    states.setProvider({ kind: 'unconfigured', text: 'no API key', hint: 'set ANTHROPIC_API_KEY' });
    const box = states.node.querySelector<HTMLElement>('.jp-zengine-state-unconfigured')!;
    expect(texts(box, '.jp-zengine-state-title')).toEqual(['No model is configured']);
    expect(box.textContent).toContain('set ANTHROPIC_API_KEY');
    box.querySelector<HTMLButtonElement>('button')!.click();
    expect(run).toHaveBeenCalledTimes(1);
    states.setProvider({ kind: 'live', text: 'ok' });
    expect(states.node.children.length).toBe(0);
  });

  it('a cassette replay says no provider is called and how to go live', () => {
    const states = new ChatStates(host(), { setup: { label: 'Set up a model', run: vi.fn() } });
    states.setProvider({
      kind: 'replay',
      text: 'This chat replays a recorded cassette (a.jsonl): no provider is called.',
      hint: 'To run live, set ANTHROPIC_API_KEY'
    });
    const box = states.node.querySelector<HTMLElement>('.jp-zengine-state-replay')!;
    expect(box.textContent).toContain('no provider is called');
    expect(box.textContent).toContain('To run live');
    expect(box.querySelector('button')!.textContent).toBe('Set up a live model');
  });

  it('a provider down counts down to the next retry; the answer clears it', () => {
    let now = 1000;
    const states = new ChatStates(host(), {}, { now: () => now });
    vi.useFakeTimers();
    try {
      states.apply(busy());
      const box = states.node.querySelector<HTMLElement>('.jp-zengine-state-provider-down')!;
      expect(box.textContent).toContain('api.anthropic.com is not answering');
      expect(box.querySelector('.jp-zengine-state-text')!.textContent).toBe(
        'api.anthropic.com did not answer (overloaded (529)): attempt 2 of 5 in 3s.'
      );
      expect(box.querySelector('button')).toBeNull(); // the engine has no "retry now"
      now += 1100;
      vi.advanceTimersByTime(300);
      expect(box.dataset.secondsLeft).toBe('2');
      states.apply({ kind: 'text_streamed' });
      expect(states.node.children.length).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a final error keeps the box with the engine words until the next turn', () => {
    const states = new ChatStates(host());
    states.apply(busy());
    states.apply({ kind: 'error', message: 'overloaded after 5 attempts' });
    states.apply({ kind: 'turn_ended' });
    const box = states.node.querySelector<HTMLElement>('.jp-zengine-state-provider-down')!;
    expect(box.dataset.final).toBe('true');
    expect(box.textContent).toContain('overloaded after 5 attempts');
    states.apply({ kind: 'turn_started' });
    expect(states.node.children.length).toBe(0);
  });

  it('a turn that failed for want of a model shows the setup box; other errors do not', () => {
    const run = vi.fn();
    const states = new ChatStates(host(), { setup: { label: 'Set up a model', run } });
    states.apply({ kind: 'error', message: 'network down', cause: 'connection' });
    expect(states.node.children.length).toBe(0);
    states.apply({
      kind: 'error',
      message: 'no model is connected: no API key for api.anthropic.com',
      hint: 'set ANTHROPIC_API_KEY',
      cause: 'setup'
    });
    const box = states.node.querySelector<HTMLElement>('.jp-zengine-state-unconfigured')!;
    expect(box.textContent).toContain('no API key for api.anthropic.com');
    box.querySelector<HTMLButtonElement>('button')!.click();
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('requestSetup says whether the page opened the setup view', () => {
    expect(requestSetup()).toBe(false); // nothing listens: the caller says how instead
    const listen = (event: Event) => {
      (event as CustomEvent<{ opened: boolean }>).detail.opened = true;
    };
    window.addEventListener(OPEN_SETUP_EVENT, listen);
    try {
      expect(requestSetup()).toBe(true);
    } finally {
      window.removeEventListener(OPEN_SETUP_EVENT, listen);
    }
  });

  it('downText words it without a provider name too', () => {
    expect(downText(busy({ provider: null, reason: null, attempts: null }), 0)).toBe(
      'The provider did not answer: attempt 2 now.'
    );
  });
});

function meta(id: string, title: string): SessionMeta {
  return {
    id,
    title,
    created: '2026-12-01T10:00:00Z',
    updated: '2026-12-01T11:00:00Z',
    cost_usd: 0.25,
    message_count: 4
  };
}

function list(sessions: SessionMeta[]): Reply {
  return { ...ok(), sessions };
}

/** A list of chats "First" (a) and "Second" (b) whose Delete removes one and says `said`. */
function twoChats(said: string): { chats: ChatsList; remove: ReturnType<typeof vi.fn> } {
  let chatsNow = [meta('a', 'First'), meta('b', 'Second')];
  const remove = vi.fn().mockImplementation(async (id: string) => {
    chatsNow = chatsNow.filter(m => m.id !== id);
    return ok(said);
  });
  const chats = new ChatsList(host(), {
    list: async () => list(chatsNow),
    open: vi.fn(),
    rename: vi.fn(),
    remove
  });
  return { chats, remove };
}

describe('ChatsList', () => {
  it('lists titles with time and cost; Open resumes; the current one is marked', async () => {
    const open = vi.fn();
    const chats = new ChatsList(host(), {
      list: async () => list([meta('a', 'First'), meta('b', 'Second')]),
      open,
      rename: vi.fn(),
      remove: vi.fn()
    });
    chats.current = 'b';
    await chats.refresh();
    expect(texts(chats.node, '.jp-zengine-session-title')).toEqual(['First', 'Second']);
    expect(texts(chats.node, '.jp-zengine-session-meta')[0]).toContain('$0.2500');
    const second = chats.node.querySelector<HTMLElement>('[data-session-id="b"]')!;
    expect(second.getAttribute('aria-current')).toBe('true');
    const names = Array.from(second.querySelectorAll('button')).map(b =>
      b.getAttribute('aria-label')
    );
    expect(names).toEqual(['Open Second', 'Rename Second', 'Delete Second']);
    second.querySelector<HTMLButtonElement>('.jp-zengine-resume')!.click();
    expect(open).toHaveBeenCalledWith('b');
  });

  it('rename is inline: Enter saves through the kernel, Escape cancels', async () => {
    const rename = vi.fn().mockResolvedValue(ok('title: Better'));
    const chats = new ChatsList(host(), {
      list: async () => list([meta('a', 'First')]),
      open: vi.fn(),
      rename,
      remove: vi.fn()
    });
    await chats.refresh();
    const item = chats.node.querySelector<HTMLElement>('[data-session-id="a"]')!;
    item.querySelector<HTMLButtonElement>('.jp-zengine-rename')!.click();
    let input = item.querySelector<HTMLInputElement>('.jp-zengine-rename-input')!;
    expect(document.activeElement).toBe(input);
    input.value = 'Nope';
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' }));
    await flush();
    expect(rename).not.toHaveBeenCalled();
    expect(texts(item, '.jp-zengine-session-title')).toEqual(['First']);
    item.querySelector<HTMLButtonElement>('.jp-zengine-rename')!.click();
    input = item.querySelector<HTMLInputElement>('.jp-zengine-rename-input')!;
    input.value = 'Better';
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }));
    await flush();
    expect(rename).toHaveBeenCalledWith('a', 'Better');
    expect(texts(item, '.jp-zengine-session-title')).toEqual(['Better']);
  });

  it('delete asks first inside the panel; Cancel keeps the chat, Delete removes it', async () => {
    const { chats, remove } = twoChats(
      'Deleted chat a: its log moved to /x/.trash/a. Its checkpoints stay.'
    );
    await chats.refresh();
    const item = chats.node.querySelector<HTMLElement>('[data-session-id="a"]')!;
    item.querySelector<HTMLButtonElement>('.jp-zengine-delete')!.click();
    const dialog = item.querySelector<HTMLElement>('[role="alertdialog"]')!;
    expect(dialog.textContent).toContain('Delete “First”?');
    expect(dialog.textContent).toContain('checkpoints stay');
    expect(document.activeElement?.textContent).toBe('Cancel'); // the safe button first
    dialog.querySelector<HTMLButtonElement>('.jp-zengine-confirm-cancel')!.click();
    await flush();
    expect(remove).not.toHaveBeenCalled();
    item.querySelector<HTMLButtonElement>('.jp-zengine-delete')!.click();
    item.querySelector<HTMLButtonElement>('.jp-zengine-confirm-accept')!.click();
    await flush();
    await flush();
    expect(remove).toHaveBeenCalledWith('a');
    expect(texts(chats.node, '.jp-zengine-session-title')).toEqual(['Second']);
  });
});

describe('ChatsList refresh', () => {
  it('keeps a row whose Delete confirm is open, and the confirm still deletes', async () => {
    const { chats, remove } = twoChats('Deleted.');
    await chats.refresh();
    const item = chats.node.querySelector<HTMLElement>('[data-session-id="a"]')!;
    const other = chats.node.querySelector<HTMLElement>('[data-session-id="b"]')!;
    item.querySelector<HTMLButtonElement>('.jp-zengine-delete')!.click();
    await chats.refresh(); // a refresh lands while the question is open
    expect(chats.node.querySelector('[data-session-id="a"]')).toBe(item);
    expect(chats.node.querySelector('[data-session-id="b"]')).not.toBe(other); // redrawn
    expect(texts(chats.node, '.jp-zengine-session-title')).toEqual(['First', 'Second']);
    item.querySelector<HTMLButtonElement>('.jp-zengine-confirm-accept')!.click();
    await flush();
    await flush();
    expect(remove).toHaveBeenCalledWith('a');
    expect(texts(chats.node, '.jp-zengine-session-title')).toEqual(['Second']);
  });
});

describe('confirmInline', () => {
  it('Escape answers no', async () => {
    const parent = host();
    const answer = confirmInline(parent, { question: 'Q?', detail: 'D', accept: 'Yes' });
    parent
      .querySelector('[role="alertdialog"]')!
      .dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    expect(await answer).toBe(false);
    expect(parent.children.length).toBe(0);
  });
});
