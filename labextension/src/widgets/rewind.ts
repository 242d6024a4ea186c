/**
 * The %agent /rewind widget (anywidget ESM, bundled by build-widgets.mjs): the chat's user
 * messages with their checkpoints and Restore code / conversation / both; a rewind's outcome
 * in the same words as the panel's (`ui/rewind.ts`). The lists are also state.
 */

import { RewindWidgetState } from '../protocol';
import { el, errorText } from '../ui/dom';
import { IRewindPoint, RewindScope, rewindOutcome, rewindPoints } from '../ui/rewind';
import { IRenderProps, Requester, busyAndError, redrawOn, widgetRoot } from './anywidget';

const TIMEOUT_MS = 60000;
const TRAITS = ['session_id', 'points', 'result', 'busy', 'error'];

function render({ model, el: parent }: IRenderProps<RewindWidgetState>): () => void {
  const root = widgetRoot(parent, 'rewind');
  const requests = new Requester(model, 'r', TIMEOUT_MS);
  let pending = false;

  const rewind = async (point: IRewindPoint, what: RewindScope) => {
    pending = true;
    draw();
    const reply = await requests.request({ kind: 'rewind', to: point.turn_id, what });
    pending = false;
    if (!reply.ok) {
      model.set('error', errorText(reply));
    }
    draw();
  };

  const draw = () => {
    root.replaceChildren();
    el('div', 'jp-zengine-rewind-head', `Rewind chat ${model.get('session_id') ?? ''}`, root);
    const busy = model.get('busy');
    busyAndError(root, busy, model.get('error'));
    const points = model.get('points') ?? [];
    if (!points.length && !busy) {
      el('div', 'jp-zengine-status-busy', 'Nothing to rewind to yet.', root);
    }
    rewindPoints(root, points, pending, (point, what) => void rewind(point, what));
    const result = model.get('result');
    if (result) {
      rewindOutcome(root, result.text, result.warnings ?? [], result);
    }
  };

  return redrawOn(model, TRAITS, draw, requests);
}

export default { render };
