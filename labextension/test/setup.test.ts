import { describe, expect, it, vi } from 'vitest';

import { SetupAnswer, SetupCurrent } from '../src/protocol';
import {
  ISetupReply,
  SetupBody,
  SetupView,
  contextText,
  currentLine,
  modelLabel,
  priceText
} from '../src/ui/setup';
import { flush, host, texts } from './helpers';

const NOTHING: SetupCurrent = {
  configured: false,
  problem: 'no API key for api.anthropic.com',
  provider: 'anthropic',
  settings_path: '/home/u/.config/zengine/settings.toml'
};

const SERVERS = [
  {
    name: 'Ollama',
    base_url: 'http://localhost:11434/v1',
    found: false,
    error: 'nothing is listening'
  },
  {
    name: 'LM Studio',
    base_url: 'http://localhost:1234/v1',
    found: true,
    models: ['qwen3', 'llama3']
  }
];

const CATALOG = [
  { id: 'claude-sonnet-4-6', context: 200000, input_price: 3, output_price: 15 },
  { id: 'claude-haiku-4-5', context: 200000, input_price: 1, output_price: 5 }
];

/** A fake kernel: answers each request kind from `answers`, records what was sent. */
function kernel(answers: Partial<Record<SetupBody['kind'], ISetupReply>> = {}) {
  const sent: SetupBody[] = [];
  const base: Record<string, SetupAnswer> = {
    setup_state: { state: NOTHING },
    setup_find_local: { servers: SERVERS },
    setup_models: { models: CATALOG, models_note: '2 models from the models.dev catalog' }
  };
  const send = vi.fn((body: SetupBody): Promise<ISetupReply> => {
    sent.push(body);
    return Promise.resolve(answers[body.kind] ?? { ok: true, setup: base[body.kind] ?? {} });
  });
  return { send, sent };
}

function last<T>(items: T[]): T {
  return items[items.length - 1];
}

function click(root: HTMLElement, selector: string): void {
  root.querySelector<HTMLElement>(selector)!.click();
}

function pick(root: HTMLElement, provider: string): void {
  const radio = root.querySelector<HTMLInputElement>(`[data-provider="${provider}"] input`)!;
  radio.checked = true;
  radio.dispatchEvent(new Event('change'));
}

describe('words', () => {
  it('says context and price, or that they are unknown', () => {
    expect(contextText(200000)).toBe('200k context');
    expect(contextText(1048576)).toBe('1M context');
    expect(contextText(null)).toBe('context unknown');
    expect(priceText({ id: 'm', input_price: 0.25, output_price: 2 })).toBe(
      '$0.25 / $2 per 1M tokens'
    );
    expect(priceText({ id: 'm' })).toBe('price unknown');
    expect(modelLabel(CATALOG[0])).toBe(
      'claude-sonnet-4-6 · 200k context · $3 / $15 per 1M tokens'
    );
    expect(modelLabel({ id: 'qwen3', input_price: null }, true)).toBe('qwen3');
  });

  it('says what is used now', () => {
    expect(currentLine(NOTHING)).toBe('Now: no model is connected.');
    expect(
      currentLine({
        ...NOTHING,
        configured: true,
        model: 'gpt-5',
        key: { host: 'api.openai.com', source: 'OPENAI_API_KEY' }
      })
    ).toBe('Now: gpt-5 (key from OPENAI_API_KEY).');
    expect(currentLine({ ...NOTHING, provider: 'replay', recording: 'q.jsonl' })).toContain(
      'replaying a recording (q.jsonl)'
    );
  });
});

describe('SetupView', () => {
  it('offers the local server it found, with its models, when nothing is configured', async () => {
    const { send } = kernel();
    const view = new SetupView(host(), send, { notice: 'No model is connected yet.' });
    await view.load();
    const node = view.node;
    expect(node.dataset.ready).toBe('true');
    expect(node.getAttribute('role')).toBe('region');
    expect(texts(node, '.jp-zengine-setup-notice')).toEqual(['No model is connected yet.']);
    expect(texts(node, '.jp-zengine-setup-current')).toEqual(['Now: no model is connected.']);
    expect(view.provider).toBe('local');
    expect(texts(node, '.jp-zengine-setup-server')).toEqual([
      ' Ollama: not found at http://localhost:11434/v1 (nothing is listening)',
      ' LM Studio at http://localhost:1234/v1 · 2 models'
    ]);
    expect(texts(node, '.jp-zengine-setup-model option')).toEqual(['qwen3', 'llama3']);
    expect(node.querySelector<HTMLElement>('.jp-zengine-setup-key-row')!.hidden).toBe(true);
  });

  it('lists the catalog for Anthropic and tests the chosen model', async () => {
    const { send, sent } = kernel({
      setup_test: {
        ok: true,
        setup: {
          test: { ok: true, model: 'claude-haiku-4-5', answer: 'I am Claude.', seconds: 0.4 }
        }
      }
    });
    const view = new SetupView(host(), send);
    await view.load();
    pick(view.node, 'anthropic');
    await flush();
    expect(view.provider).toBe('anthropic');
    expect(texts(view.node, '.jp-zengine-setup-model option')).toEqual([
      'claude-sonnet-4-6 · 200k context · $3 / $15 per 1M tokens',
      'claude-haiku-4-5 · 200k context · $1 / $5 per 1M tokens'
    ]);
    expect(texts(view.node, '.jp-zengine-setup-models-note')).toEqual([
      '2 models from the models.dev catalog'
    ]);
    view.node.querySelector<HTMLSelectElement>('.jp-zengine-setup-model')!.value =
      'claude-haiku-4-5';
    click(view.node, '.jp-zengine-setup-test');
    await flush();
    expect(last(sent)).toEqual({
      kind: 'setup_test',
      choice: { provider: 'anthropic', base_url: null, model: 'claude-haiku-4-5' }
    });
    expect(texts(view.node, '.jp-zengine-setup-answer')).toEqual([
      'claude-haiku-4-5 answered in 0.4 s: “I am Claude.”'
    ]);
  });

  it('shows the provider error in its own words', async () => {
    const { send } = kernel({
      setup_test: {
        ok: true,
        setup: {
          test: {
            ok: false,
            model: 'qwen3',
            error: '401: invalid x-api-key',
            hint: 'check the key'
          }
        }
      }
    });
    const view = new SetupView(host(), send);
    await view.load();
    click(view.node, '.jp-zengine-setup-test');
    await flush();
    const error = view.node.querySelector('.jp-zengine-setup-error')!;
    expect(error.textContent).toBe('401: invalid x-api-key (check the key)');
    expect(error.getAttribute('role')).toBe('alert');
  });

  it('sends a pasted key once and never shows it again', async () => {
    const { send, sent } = kernel({
      setup_key: { ok: true, setup: { key: { host: 'api.anthropic.com', source: 'auth.json' } } }
    });
    const view = new SetupView(host(), send);
    await view.load();
    pick(view.node, 'anthropic');
    await flush();
    const input = view.node.querySelector<HTMLInputElement>('.jp-zengine-setup-key')!;
    expect(input.type).toBe('password');
    input.value = 'sk-ant-secret-1234';
    click(view.node, '.jp-zengine-setup-key-save');
    await flush();
    expect(last(sent)).toEqual({
      kind: 'setup_key',
      provider: 'anthropic',
      base_url: null,
      key: 'sk-ant-secret-1234'
    });
    expect(input.value).toBe('');
    expect(texts(view.node, '.jp-zengine-setup-key-status')).toEqual([
      'Key stored for api.anthropic.com (auth.json).'
    ]);
    expect(view.node.textContent).not.toContain('sk-ant-secret-1234');
  });

  it('lists a compatible server’s models from its URL and saves the choice', async () => {
    const saved = vi.fn();
    const { send, sent } = kernel({
      setup_models: {
        ok: true,
        setup: { models: [{ id: 'deepseek-chat' }], models_note: '1 model' }
      },
      setup_save: { ok: true, setup: { saved: { path: '/s.toml', text: 'Saved to /s.toml.' } } }
    });
    const view = new SetupView(host(), send, { notice: 'No model yet.', saved });
    await view.load();
    pick(view.node, 'compatible');
    await flush();
    const url = view.node.querySelector<HTMLInputElement>('.jp-zengine-setup-url')!;
    url.value = 'https://api.deepseek.com/v1';
    url.dispatchEvent(new Event('change'));
    await flush();
    expect(last(sent)).toEqual({
      kind: 'setup_models',
      provider: 'compatible',
      base_url: 'https://api.deepseek.com/v1'
    });
    click(view.node, '.jp-zengine-setup-save');
    await flush();
    expect(last(sent)).toEqual({
      kind: 'setup_save',
      choice: {
        provider: 'compatible',
        base_url: 'https://api.deepseek.com/v1',
        model: 'deepseek-chat'
      }
    });
    expect(saved).toHaveBeenCalledWith('Saved to /s.toml.');
    expect(texts(view.node, '.jp-zengine-setup-saved')).toEqual(['Saved to /s.toml.']);
    expect(view.node.querySelector<HTMLElement>('.jp-zengine-setup-notice')!.hidden).toBe(true);
  });

  it('a typed model id wins over the list; no model at all is refused before sending', async () => {
    const { send, sent } = kernel({
      setup_find_local: { ok: true, setup: { servers: [] } }
    });
    const view = new SetupView(host(), send);
    await view.load();
    pick(view.node, 'compatible');
    await flush();
    const before = sent.length;
    click(view.node, '.jp-zengine-setup-test');
    await flush();
    expect(sent.length).toBe(before);
    expect(texts(view.node, '.jp-zengine-setup-error')).toEqual(['Choose a model first.']);
    view.node.querySelector<HTMLInputElement>('.jp-zengine-setup-model-other')!.value = 'my-model';
    view.node.querySelector<HTMLInputElement>('.jp-zengine-setup-url')!.value = 'http://h:8000/v1';
    click(view.node, '.jp-zengine-setup-save');
    await flush();
    expect(last(sent)).toEqual({
      kind: 'setup_save',
      choice: { provider: 'compatible', base_url: 'http://h:8000/v1', model: 'my-model' }
    });
  });

  it('a failed request shows the kernel’s words', async () => {
    const { send } = kernel({
      setup_models: { ok: false, error: 'http://x/v1/models answered 404: nope', hint: 'type it' }
    });
    const view = new SetupView(host(), send);
    await view.load();
    pick(view.node, 'openai');
    await flush();
    expect(texts(view.node, '.jp-zengine-setup-models-note')).toEqual([
      'http://x/v1/models answered 404: nope (type it)'
    ]);
  });
});
