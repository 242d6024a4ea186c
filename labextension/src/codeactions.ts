/**
 * The panel's port from a code block to JupyterLab (`ICodeActions`, ui/codetools.ts): insert
 * the block as a new cell above or below the active notebook's active cell, or replace the
 * selection in the editor that last had the focus (a notebook cell's or a file editor's).
 * Editors are recognised by shape (a `host` element and `getSelection`), so no file-editor
 * package is needed: any main-area document whose `content.editor` is a CodeEditor counts.
 */

import { INotebookTracker } from '@jupyterlab/notebook';
import { Widget } from '@lumino/widgets';

import { CellKind, ICodeActions, ICodeTargets } from './ui/codetools';

interface IPosition {
  line: number;
  column: number;
}

/** The part of JupyterLab's CodeEditor.IEditor used here. */
interface IEditorLike {
  host: HTMLElement;
  getSelection(): { start: IPosition; end: IPosition };
  replaceSelection?(text: string): void;
}

/** Where the main-area widgets come from (JupyterLab's shell). */
export interface IMainArea {
  widgets(area: 'main'): Iterable<Widget>;
}

function isEditor(value: unknown): value is IEditorLike {
  const editor = value as IEditorLike | null;
  return (
    !!editor && editor.host instanceof HTMLElement && typeof editor.getSelection === 'function'
  );
}

function basename(path: string): string {
  return path.split('/').pop() || path;
}

export class LabCodeActions implements ICodeActions {
  constructor(
    private readonly _tracker: INotebookTracker,
    private readonly _shell: IMainArea
  ) {
    document.addEventListener('focusin', this._onFocus, true);
  }

  dispose(): void {
    document.removeEventListener('focusin', this._onFocus, true);
  }

  targets(): ICodeTargets {
    const panel = this._tracker.currentWidget;
    const editor = this._editor();
    return {
      notebook: panel ? basename(panel.context.path) : null,
      editor: editor ? this._label(editor) : null,
      selection: editor ? !same(editor.getSelection()) : false
    };
  }

  insert(source: string, kind: CellKind, where: 'above' | 'below'): boolean {
    const notebook = this._tracker.currentWidget?.content;
    const model = notebook?.model;
    if (!notebook || !model) {
      return false;
    }
    const active = Math.max(0, notebook.activeCellIndex);
    const index = where === 'above' ? active : Math.min(active + 1, model.cells.length);
    model.sharedModel.insertCell(index, { cell_type: kind, source, metadata: {} });
    notebook.activeCellIndex = index;
    const cell = notebook.widgets[index] as unknown as { rendered?: boolean } | undefined;
    if (kind === 'markdown' && cell && 'rendered' in cell) {
      cell.rendered = true; // shown as text, like a markdown cell one has run
    }
    const widget = notebook.widgets[index];
    if (widget) {
      void notebook.scrollToCell(widget).catch(() => undefined);
    }
    return true;
  }

  replaceSelection(source: string): boolean {
    const editor = this._editor();
    if (!editor?.replaceSelection || same(editor.getSelection())) {
      return false;
    }
    editor.replaceSelection(source);
    return true;
  }

  /** The editor that last had the focus, while it is still on the page. */
  private _editor(): IEditorLike | null {
    const editor = this._last;
    return editor && editor.host.isConnected ? editor : null;
  }

  private _onFocus = (event: FocusEvent): void => {
    const target = event.target;
    if (target instanceof Node) {
      const editor = this._editorAt(target);
      if (editor) {
        this._last = editor;
      }
    }
  };

  private _editorAt(target: Node): IEditorLike | null {
    for (const editor of this._editors()) {
      if (editor.host.contains(target)) {
        return editor;
      }
    }
    return null;
  }

  /** Every cell editor of the open notebooks, then every main-area document's editor. */
  private *_editors(): Generator<IEditorLike> {
    const notebooks: Widget[] = [];
    this._tracker.forEach(panel => {
      notebooks.push(panel);
    });
    for (const panel of notebooks) {
      for (const cell of (panel as unknown as { content: { widgets: readonly unknown[] } }).content
        .widgets) {
        const editor = (cell as { editor?: unknown }).editor;
        if (isEditor(editor)) {
          yield editor;
        }
      }
    }
    for (const widget of this._shell.widgets('main')) {
      const editor = (widget as unknown as { content?: { editor?: unknown } }).content?.editor;
      if (isEditor(editor)) {
        yield editor;
      }
    }
  }

  /** "cell 3 of analysis.ipynb" or the document's tab label ("pipeline.py"). */
  private _label(editor: IEditorLike): string {
    let label: string | null = null;
    this._tracker.forEach(panel => {
      const index = panel.content.widgets.findIndex(cell => cell.editor === editor);
      if (index >= 0 && label === null) {
        label = `cell ${index + 1} of ${basename(panel.context.path)}`;
      }
    });
    if (label !== null) {
      return label;
    }
    for (const widget of this._shell.widgets('main')) {
      if (widget.node.contains(editor.host)) {
        return widget.title.label || 'the editor';
      }
    }
    return 'the editor';
  }

  private _last: IEditorLike | null = null;
}

/** An empty selection: nothing selected. */
function same(range: { start: IPosition; end: IPosition }): boolean {
  return range.start.line === range.end.line && range.start.column === range.end.column;
}
