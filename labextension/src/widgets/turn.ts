/**
 * The %%agent turn widget (anywidget ESM, bundled by build-widgets.mjs). The cell is the
 * message, so the view is the conversation of the panel (`ui/chat.ts`) with the turn bar
 * below it (state, Interrupt, cost, badge, how it ended), fed by `WidgetEvents` batches; a `replay` batch
 * (a view opened late, a reload) starts it over. Approval clicks go back as `approval_answer`.
 */

import { EngineEvent, TurnResult, TurnWidgetState } from '../protocol';

type TurnViewEvent = EngineEvent | TurnResult;
import { ChatView } from '../ui/chat';
import { collapsed, el, errorText } from '../ui/dom';
import { sharedMarkdown } from '../ui/markdown';
import { ChatStates, requestSetup } from '../ui/states';
import { StatusBar } from '../ui/status';
import { IRenderProps, Requester, widgetRoot } from './anywidget';

const TIMEOUT_MS = 15000;
const LIVE = new Set(['starting', 'running']);

/** How the turn ended, in one line: status, reason, the files it changed, the cost line. */
export function resultLine(result: TurnResult): string {
  const parts = [`Turn ${result.status}${result.reason ? `: ${result.reason}` : ''}.`];
  if (result.changed?.length) {
    parts.push(`Changed ${result.changed.join(', ')}.`);
  }
  if (result.cost) {
    parts.push(result.cost);
  }
  return parts.join(' ');
}

/** The line a cell shows for `trust_required` (the status widget has the banner). */
export function trustLine(folder: string, withheld: string[]): string {
  return (
    `Project settings withheld until you trust ${folder}: ${withheld.join(', ')}. ` +
    "Trust it from %zengine's status or with %agent /trust."
  );
}

export const REPLAY_HINT =
  'To run live, set ANTHROPIC_API_KEY or OPENAI_API_KEY (or ZENGINE_BASE_URL) and unset ' +
  'ZENGINE_CASSETTE, then start a new chat (%agent --new).';

/** The replay notice's first clause as the state's sentence. */
export function replayText(notice: string): string {
  const from = /^replaying a recorded session from (.*?) \(no model/.exec(notice)?.[1];
  return `This chat replays a recorded cassette${from ? ` (${from})` : ''}: no provider is called.`;
}

function render({ model, el: parent }: IRenderProps<TurnWidgetState>): () => void {
  const root = widgetRoot(parent, 'turn');
  const requests = new Requester(model, 'w', TIMEOUT_MS);
  const bar = new StatusBar(root, () => void interrupt());
  bar.setTitle('zengine');
  const sent = el('div', 'jp-zengine-sent-box', null, root);
  // provider down (countdown), a cassette replay, no model configured (the panel's setup)
  const states: ChatStates = new ChatStates(root, {
    setup: {
      label: 'Set up a model',
      aria: 'Open the model setup view in the zengine panel',
      run: () => {
        if (!requestSetup()) {
          chat.line('notice', 'Run %zengine setup in a cell to choose a provider and a model.');
        }
      }
    }
  });
  const chat = new ChatView(root, {
    markdown: sharedMarkdown(),
    status: bar,
    answer: (request, decision) =>
      requests.request({ kind: 'approval_answer', request_id: request.id, decision }),
    rewind: null,
    showUser: false,
    trustLine
  });
  chat.node.classList.add('jp-zengine-turn-messages');
  root.appendChild(bar.node); // the turn bar is the cell's footer: state, cost, badge, result

  const show = (event: TurnViewEvent) => {
    if (event.kind === 'turn_result') {
      bar.setRunning(null);
      bar.setResult(resultLine(event));
      chat.closePrompts('The turn is over.');
    } else {
      chat.apply(event);
      states.apply(event);
      if (
        event.kind === 'notice' &&
        event.topic === 'replay' &&
        event.text.startsWith('replaying')
      ) {
        states.setProvider({ kind: 'replay', text: replayText(event.text), hint: REPLAY_HINT });
      }
    }
  };

  const syncState = () => {
    const status = model.get('status') ?? 'starting';
    root.dataset.status = status;
    const live = LIVE.has(status);
    bar.interruptible = live && model.get('interactive') !== false;
    bar.setRunning(live ? status : null);
  };

  const showSent = () => {
    sent.replaceChildren();
    const note = model.get('sent_note');
    if (note) {
      const { body } = collapsed(sent, 'jp-zengine-sent', `Sent to the model · ${note}`);
      el('pre', 'jp-zengine-sent-text', model.get('prompt') ?? '', body);
    }
  };

  const interrupt = async () => {
    const reply = await requests.request({ kind: 'interrupt' });
    if (!reply.ok) {
      chat.line('error', errorText(reply));
    }
  };

  const onMessage = (msg: unknown) => {
    const message = msg as { v?: number; kind?: string };
    if (message?.kind === 'events') {
      const batch = msg as { events: TurnViewEvent[]; replay?: boolean };
      if (batch.replay) {
        chat.clear();
        states.clearDown();
        bar.setTitle('zengine');
      }
      batch.events.forEach(show);
      syncState();
    } else {
      requests.settle(msg);
    }
  };
  model.on('msg:custom', onMessage);
  model.on('change:status', syncState);
  model.on('change:interactive', syncState);
  model.on('change:sent_note', showSent);
  syncState();
  showSent();
  void requests.request({ kind: 'replay' });
  return () => {
    model.off('msg:custom', onMessage);
    model.off('change:status', syncState);
    model.off('change:interactive', syncState);
    model.off('change:sent_note', showSent);
    requests.close();
  };
}

export default { render };
