/**
 * RunCell through the notebook (the kernel's `run` doc_request, `kernel/_notebook_run.py`).
 */

import { NotebookActions, NotebookPanel } from '@jupyterlab/notebook';

import { DocRequest } from './protocol';

/**
 * The agent's code as a visible cell (marked as the agent's) after `after_cell_id`, else at
 * the end, executed through the notebook's normal execution: its output renders, the usual
 * interrupt button stops it, and at `timeout_s` the kernel is interrupted. The user's active
 * cell, edit mode and focus stay.
 */
export async function runAgentCell(
  panel: NotebookPanel,
  request: DocRequest,
  mark: (cellId: string) => void
): Promise<Record<string, unknown>> {
  const notebook = panel.content;
  const shared = notebook.model!.sharedModel;
  const after = request.after_cell_id
    ? shared.cells.findIndex(c => c.id === request.after_cell_id)
    : -1;
  const at = after >= 0 ? after + 1 : shared.cells.length;
  const id = `agent-${Math.random().toString(36).slice(2, 10)}`;
  const focused = document.activeElement as HTMLElement | null;
  const mode = notebook.mode;
  shared.insertCell(at, {
    cell_type: 'code',
    source: request.code ?? '',
    id,
    metadata: { zengine: { agent: 'RunCell' } }
  });
  const cell = notebook.widgets.find(w => w.model.id === id);
  if (!cell) {
    throw new Error('the inserted cell has no widget');
  }
  mark(id);
  let timedOut = false;
  const timer = setTimeout(
    () => {
      timedOut = true;
      void panel.sessionContext.session?.kernel?.interrupt();
    },
    (request.timeout_s ?? 120) * 1000
  );
  try {
    await NotebookActions.runCells(notebook, [cell], panel.sessionContext);
  } finally {
    clearTimeout(timer);
  }
  if (mode === 'edit' && notebook.mode !== 'edit') {
    notebook.mode = 'edit'; // running put the notebook in command mode: the user's is back
  }
  if (focused && document.activeElement !== focused && document.contains(focused)) {
    focused.focus();
  }
  return { cell: cell.model.toJSON(), timed_out: timedOut };
}
