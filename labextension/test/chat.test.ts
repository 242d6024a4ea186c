import { describe, expect, it, vi } from 'vitest';

import { EngineEvent, LogRecord, Snapshot } from '../src/protocol';
import { AGENT_NAME, ChatView, checkSummary, noticeText, oneDecimal } from '../src/ui/chat';
import { StatusBar } from '../src/ui/status';
import { host, texts } from './helpers';

const S = { session_id: 's1', turn_id: 't1' };
const TS = { ts: '2026-01-01T00:00:00Z' };
const EDIT = { path: 'p.py', old_string: 'RATE = 1', new_string: 'RATE = 2' };
const DIFF = '--- a/p.py\n+++ b/p.py\n@@ -1 +1 @@\n-RATE = 1\n+RATE = 2';
const CHECK = {
  check_id: 'rate',
  kind: 'test' as const,
  command: ['python', '-c', 'x'],
  exit_code: 0,
  passed: true,
  counts: { passed: 3, failed: null, skipped: 1, errors: 0 },
  duration_s: 0.42,
  output_tail: '',
  fingerprint_before: 'f',
  fingerprint_after: 'f',
  started: TS.ts,
  finished: TS.ts
};
/** What engine/verify/_checks.py summary() writes for CHECK. */
const LINE = 'PASS rate (exit 0, 0.4 s): 3 passed, 1 skipped';
const REWOUND = {
  ...S,
  kind: 'rewound' as const,
  result: { to_turn_id: 't1', prompt: 'set RATE', conversation: true, messages_removed: 4 },
  text: 'rewound the conversation to before "set RATE": 4 messages removed\nfiles: untouched',
  warnings: []
};

function view(): { chat: ChatView; bar: StatusBar; root: HTMLElement } {
  const root = host();
  const bar = new StatusBar(root, vi.fn());
  const chat = new ChatView(root, {
    markdown: null,
    status: bar,
    answer: vi.fn(),
    rewind: vi.fn()
  });
  return { chat, bar, root };
}

/** The words a reader compares: card heads (without the duration each view measures), diffs,
 * check lines, the badge, rewinds. */
function words(root: HTMLElement): Record<string, string[]> {
  return {
    heads: Array.from(root.querySelectorAll('.jp-zengine-tool-head')).map(head =>
      Array.from(head.querySelectorAll('span:not(.jp-zengine-tool-time)'))
        .map(s => s.textContent)
        .join('')
    ),
    diffs: texts(root, '.jp-zengine-diff'),
    checks: texts(root, '.jp-zengine-check'),
    badge: texts(root, '.jp-zengine-badge'),
    rewinds: texts(root, '.jp-zengine-item-rewind')
  };
}

const LIVE: EngineEvent[] = [
  { ...S, kind: 'turn_started', prompt: 'set RATE' },
  { ...S, kind: 'tool_call_proposed', call_id: 'c1', tool: 'Edit', arguments: EDIT,
    summary: 'p.py' }, // prettier-ignore
  { ...S, kind: 'tool_call_finished', call_id: 'c1', is_error: false, output: 'ok',
    diff: DIFF }, // prettier-ignore
  { ...S, kind: 'tool_call_proposed', call_id: 'c2', tool: 'Verify',
    arguments: { checks: ['rate'] }, summary: 'Verify {"checks": ["rate"]}' }, // prettier-ignore
  { ...S, kind: 'check_recorded', check_id: 'rate', passed: true, summary: LINE },
  { ...S, kind: 'verification_changed', badge: 'verified', reason: 'rate passed after the edit' },
  { ...S, kind: 'tool_call_finished', call_id: 'c2', is_error: false, output: 'PASS' },
  { ...S, kind: 'turn_ended', status: 'completed' }
];

const RECORDS: LogRecord[] = [
  { ...TS, id: 'r1', kind: 'turn_start', turn_id: 't1' },
  { ...TS, id: 'r2', kind: 'message', role: 'user', text: 'set RATE' },
  { ...TS, id: 'r3', kind: 'message', role: 'assistant', text: '',
    tool_calls: [{ id: 'c1', name: 'Edit', input: EDIT }] }, // prettier-ignore
  { ...TS, id: 'r4', kind: 'tool_result', tool_call_id: 'c1', name: 'Edit', output: 'ok',
    diff: DIFF }, // prettier-ignore
  { ...TS, id: 'r5', kind: 'message', role: 'assistant', text: '',
    tool_calls: [{ id: 'c2', name: 'Verify', input: { checks: ['rate'] } }] }, // prettier-ignore
  { ...TS, id: 'r6', kind: 'check', check: CHECK },
  { ...TS, id: 'r7', kind: 'verification', badge: 'verified',
    reason: 'rate passed after the edit' }, // prettier-ignore
  { ...TS, id: 'r8', kind: 'tool_result', tool_call_id: 'c2', name: 'Verify', output: 'PASS' },
  { ...TS, id: 'r9', kind: 'turn_end', turn_id: 't1', status: 'completed' }
];

function snapshot(records: LogRecord[]): Snapshot {
  return { v: 1, kind: 'snapshot', session_id: 's1', records, pending: [] } as Snapshot;
}

describe('a turn live and rebuilt from the log', () => {
  it('reads the same: card heads, the real diff, the check line, the badge', () => {
    const live = view();
    LIVE.forEach(event => live.chat.apply(event));
    const rebuilt = view();
    rebuilt.chat.reset(snapshot(RECORDS));
    expect(words(rebuilt.root)).toEqual(words(live.root));
    expect(words(live.root)).toMatchObject({
      heads: ['Editp.pydone', 'Verifyratedone'],
      checks: [LINE],
      badge: ['Verified: rate passed after the edit']
    });
    expect(words(rebuilt.root).diffs[0]).toContain('@@ -1 +1 @@');
  });

  it('an old log without diff or verification records keeps the fallbacks', () => {
    const old = RECORDS.filter(r => r.kind !== 'verification').map(r =>
      r.kind === 'tool_result' ? { ...r, diff: undefined } : r
    );
    const { chat, root } = view();
    chat.reset(snapshot(old));
    expect(texts(root, '.jp-zengine-badge')).toEqual(['Checks passed (from the log)']);
    expect(texts(root, '.jp-zengine-diff-path')).toEqual(['p.py']);
    expect(texts(root, '.jp-zengine-diff-lines')[0]).toBe('-RATE = 1\n+RATE = 2\n');
  });
});

describe('checkSummary', () => {
  it('words a record as the engine does', () => {
    expect(checkSummary(CHECK)).toBe(LINE);
    expect(checkSummary({ ...CHECK, passed: false, exit_code: null, counts: {} })).toBe(
      'FAIL rate (stopped at its deadline, 0.4 s)'
    );
    expect(checkSummary({ ...CHECK, exit_code: 1, duration_s: 12, counts: undefined })).toBe(
      'PASS rate (exit 1, 12.0 s)'
    );
  });
});

describe('oneDecimal', () => {
  it("rounds as Python's .1f: exact ties to even", () => {
    // python -c 'print([f"{x:.1f}" for x in (0.25, 0.75, 1.25, 2.5, 0.15, 0.35, 0.42, 12)])'
    expect([0.25, 0.75, 1.25, 2.5, 0.15, 0.35, 0.42, 12].map(oneDecimal)).toEqual([
      '0.2', '0.8', '1.2', '2.5', '0.1', '0.3', '0.4', '12.0'
    ]); // prettier-ignore
  });
});

describe('noticeText', () => {
  it('puts a multi-line text under its topic, a one-line text after it', () => {
    expect(noticeText('/mode', 'plan')).toBe('/mode: plan');
    expect(noticeText('/checks', 'a\nb')).toBe('/checks:\na\nb');
  });
});

describe('a rewind', () => {
  it('shows the headline then the engine words, once, from the event', () => {
    const { chat, root } = view();
    chat.apply(REWOUND);
    expect(texts(root, '.jp-zengine-item-rewind .jp-zengine-rewind-result-title')).toEqual([
      'Rewound the conversation to before “set RATE”.'
    ]);
    expect(texts(root, '.jp-zengine-item-rewind .jp-zengine-rewind-text')).toEqual([REWOUND.text]);
    expect(root.querySelectorAll('.jp-zengine-item-rewind')).toHaveLength(1);
  });

  it('survives the snapshot a conversation rewind is followed by', () => {
    const { chat, root } = view();
    chat.reset(snapshot(RECORDS));
    chat.apply(REWOUND);
    const before = texts(root, '.jp-zengine-item-rewind');
    chat.reset(snapshot([{ ...TS, id: 'r10', kind: 'rewind', to_turn_id: 't1' }]));
    expect(texts(root, '.jp-zengine-item-rewind')).toEqual(before);
    expect(root.querySelectorAll('.jp-zengine-tool')).toHaveLength(0);
  });

  it('shows a warning once, not again among the text lines', () => {
    const { chat, root } = view();
    const warning = 'also reverted changes another chat made since: a.py (chat x · s2)';
    chat.apply({ ...REWOUND, text: `files put back\n${warning}`, warnings: [warning] });
    expect(texts(root, '.jp-zengine-rewind-text')).toEqual(['files put back']);
    expect(texts(root, '.jp-zengine-rewind-warning')).toEqual([warning]);
  });
});

describe('the Rewind control', () => {
  const rewinds = (root: HTMLElement) =>
    Array.from(root.querySelectorAll<HTMLElement>('.jp-zengine-rewind')).map(b => !b.hidden);

  it('is not under the message whose turn still runs, and comes when it ends', () => {
    const { chat, root } = view();
    chat.apply({ ...S, kind: 'turn_started', prompt: 'set RATE' });
    expect(rewinds(root)).toEqual([false]);
    chat.apply({ ...S, kind: 'turn_ended', status: 'completed' });
    expect(rewinds(root)).toEqual([true]);
    chat.apply({ ...S, turn_id: 't2', kind: 'turn_started', prompt: 'again' });
    expect(rewinds(root)).toEqual([true, false]); // the finished turn keeps it
  });

  it('a snapshot taken mid-turn hides it under the running turn only', () => {
    const { chat, root } = view();
    const running = RECORDS.filter(r => r.kind !== 'turn_end');
    chat.reset({ ...snapshot(running), running_turn_id: 't1' } as Snapshot);
    expect(rewinds(root)).toEqual([false]);
    chat.reset(snapshot(RECORDS));
    expect(rewinds(root)).toEqual([true]);
  });
});

describe('approval outcomes in the panel', () => {
  it('a deny without a note never reads "denied: denied", live or from the log', () => {
    const live = view();
    live.chat.apply({ ...S, kind: 'turn_started', prompt: 'set RATE' });
    live.chat.apply({ ...S, kind: 'tool_call_proposed', call_id: 'c1', tool: 'Edit',
      arguments: EDIT, summary: 'p.py' }); // prettier-ignore
    live.chat.apply({ ...S, kind: 'tool_call_denied', call_id: 'c1', by: 'user',
      reason: 'denied' }); // prettier-ignore
    expect(texts(live.root, '.jp-zengine-tool-state')).toEqual(['denied: by you']);

    const rebuilt = view();
    rebuilt.chat.reset(
      snapshot([
        ...RECORDS.slice(0, 3),
        { ...TS, id: 'a1', kind: 'approval', tool_call_id: 'c1', tool: 'Edit',
          decision: 'deny', decided_by: 'user', message: null } // prettier-ignore
      ])
    );
    expect(texts(rebuilt.root, '.jp-zengine-approval-outcome')).toEqual(['Denied by you.']);
  });
});

describe('compact tool calls in the conversation', () => {
  const reads = (ids: string[]): EngineEvent[] =>
    ([] as EngineEvent[]).concat(
      ...ids.map((id): EngineEvent[] => [
        { ...S, kind: 'tool_call_proposed', call_id: id, tool: 'Read',
        arguments: { path: `${id}.py` }, summary: '' }, // prettier-ignore
        { ...S, kind: 'tool_call_started', call_id: id },
        { ...S, kind: 'tool_call_finished', call_id: id, is_error: id === 'bad',
        output: id === 'bad' ? 'No such file: bad.py' : 'x' } // prettier-ignore
      ])
    );

  it('groups consecutive reads live and rebuilt alike; text between starts a new line', () => {
    const live = view();
    [
      ...reads(['r1', 'r2', 'r3']),
      { ...S, kind: 'text_streamed', text: 'Now the tests.' },
      ...reads(['r4'])
    ].forEach(event => live.chat.apply(event as EngineEvent));
    expect(texts(live.root, '.jp-zengine-tool-group-head')).toEqual(['Read 3 files']);
    expect(live.chat.node.querySelectorAll(':scope > .jp-zengine-tool')).toHaveLength(1);

    const rebuilt = view();
    rebuilt.chat.reset(
      snapshot([
        { ...TS, id: 'm1', kind: 'message', role: 'assistant', text: '',
          tool_calls: ['r1', 'r2', 'r3'].map(id => ({ id, name: 'Read', input: { path: `${id}.py` } })) }, // prettier-ignore
        ...['r1', 'r2', 'r3'].map(id => ({ ...TS, id: `x${id}`, kind: 'tool_result' as const,
          tool_call_id: id, name: 'Read', output: 'x' })), // prettier-ignore
        { ...TS, id: 'm2', kind: 'message', role: 'assistant', text: 'Now the tests.',
          tool_calls: [{ id: 'r4', name: 'Read', input: { path: 'r4.py' } }] }, // prettier-ignore
        { ...TS, id: 'xr4', kind: 'tool_result', tool_call_id: 'r4', name: 'Read', output: 'x' }
      ])
    );
    expect(texts(rebuilt.root, '.jp-zengine-tool-group-head')).toEqual(['Read 3 files']);
    expect(words(rebuilt.root).heads).toEqual(words(live.root).heads);
  });

  it('a failed read opens its group so its error line shows', () => {
    const { chat, root } = view();
    reads(['r1', 'bad']).forEach(event => chat.apply(event));
    const list = root.querySelector<HTMLElement>('.jp-zengine-tool-group-list')!;
    expect(list.hidden).toBe(false);
    expect(texts(root, '.jp-zengine-tool-error')).toEqual(['', 'No such file: bad.py']);
  });

  it('a card waiting for approval is open, with its diff and the prompt', () => {
    const { chat, root } = view();
    chat.apply({ ...S, kind: 'tool_call_proposed', call_id: 'c1', tool: 'Edit',
      arguments: EDIT, summary: '' }); // prettier-ignore
    const card = root.querySelector<HTMLElement>('.jp-zengine-tool')!;
    expect(card.dataset.open).toBeUndefined();
    chat.apply({
      ...S,
      kind: 'approval_requested',
      request: { id: 'q1', call_id: 'c1', tool: 'Edit', summary: 'p.py', reason: 'edits ask' }
    } as EngineEvent);
    expect(card.dataset.open).toBe('true');
    expect(card.querySelector<HTMLElement>('.jp-zengine-tool-body')!.hidden).toBe(false);
    expect(card.querySelector('.jp-zengine-diff')).not.toBeNull();
    expect(card.querySelector('.jp-zengine-tool-slot .jp-zengine-approval')).not.toBeNull();
    chat.apply({ ...S, kind: 'tool_call_approved', call_id: 'c1', by: 'user' } as EngineEvent);
    expect(card.dataset.open).toBe('false'); // answered: one line again
    expect(card.querySelector('.jp-zengine-diff')).not.toBeNull();
    expect(texts(card, '.jp-zengine-approval-outcome')).toEqual(['Allowed once.']);
  });

  it('from the log, a call lasts from its answer (or its message) to its result', () => {
    const { chat, root } = view();
    chat.reset(
      snapshot([
        { id: 'm', ts: '2026-01-01T00:00:00Z', kind: 'message', role: 'assistant', text: '',
          tool_calls: [{ id: 'c1', name: 'Bash', input: { command: 'make' } },
                       { id: 'c2', name: 'Bash', input: { command: 'ls' } }] }, // prettier-ignore
        { id: 'a', ts: '2026-01-01T00:00:30Z', kind: 'approval', tool_call_id: 'c1',
          decision: 'allow_once', decided_by: 'user' }, // prettier-ignore
        { id: 'r1', ts: '2026-01-01T00:00:42.4Z', kind: 'tool_result', tool_call_id: 'c1',
          name: 'Bash', output: 'built' }, // prettier-ignore
        { id: 'r2', kind: 'tool_result', tool_call_id: 'c2', name: 'Bash', output: 'x' }
      ] as LogRecord[])
    );
    expect(texts(root, '.jp-zengine-tool-time')).toEqual(['12s', '']);
  });
});

describe('messages: who and when', () => {
  it("the user's message is a bubble with its time; the agent's names itself, the model, the time", () => {
    const { chat, root } = view();
    chat.reset(
      snapshot([
        { id: 'm0', ts: '2026-01-01T09:00:00Z', kind: 'model_change', model: 'claude-x' },
        { ...TS, id: 'r1', kind: 'turn_start', turn_id: 't1' },
        { id: 'r2', ts: '2026-01-01T10:05:00Z', kind: 'message', role: 'user', text: 'hi' },
        { id: 'r3', ts: '2026-01-01T10:06:00Z', kind: 'message', role: 'assistant',
          text: 'hello' } // prettier-ignore
      ] as LogRecord[])
    );
    const user = root.querySelector('.jp-zengine-item-user')!;
    expect(texts(user, '.jp-zengine-body')).toEqual(['hi']); // the text alone, as tests read it
    const userTime = user.querySelector<HTMLTimeElement>('.jp-zengine-meta time')!;
    expect(userTime.dateTime).toBe('2026-01-01T10:05:00.000Z');
    expect(userTime.textContent).toBe(
      new Date('2026-01-01T10:05:00Z').toLocaleTimeString([], {
        hour: '2-digit',
        minute: '2-digit'
      })
    );
    const agent = root.querySelector('.jp-zengine-item-assistant')!;
    expect(texts(agent, '.jp-zengine-author')).toEqual([AGENT_NAME]);
    expect(texts(agent, '.jp-zengine-model')).toEqual(['claude-x']);
    expect(agent.querySelector<HTMLTimeElement>('time')!.dateTime).toBe('2026-01-01T10:06:00.000Z');
    expect(texts(agent, '.jp-zengine-body')).toEqual(['hello']);
  });

  it('live messages take the time they arrive; no model known, none shown', () => {
    const { chat, root } = view();
    const before = Date.now();
    chat.apply({ ...S, kind: 'turn_started', prompt: 'go' });
    chat.apply({ ...S, kind: 'text_streamed', text: 'ok' });
    for (const time of root.querySelectorAll<HTMLTimeElement>('.jp-zengine-meta time')) {
      expect(Date.parse(time.dateTime)).toBeGreaterThanOrEqual(before - 1000);
    }
    expect(root.querySelectorAll('.jp-zengine-meta time')).toHaveLength(2);
    expect(root.querySelector('.jp-zengine-model')).toBeNull();
    chat.setModel('m-2');
    chat.apply({ ...S, kind: 'tool_call_proposed', call_id: 'c', tool: 'Bash',
      arguments: { command: 'ls' }, summary: '' }); // prettier-ignore
    chat.apply({ ...S, kind: 'text_streamed', text: 'next' });
    expect(texts(root, '.jp-zengine-model')).toEqual(['m-2']);
  });
});
