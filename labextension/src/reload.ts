/**
 * After a code rewind: open editors and notebooks of the files that were put back reload from
 * disk (`context.revert()`). One with unsaved edits asks first instead of being clobbered.
 */

import { Dialog, showDialog } from '@jupyterlab/apputils';
import { IDocumentManager } from '@jupyterlab/docmanager';
import { DocumentRegistry } from '@jupyterlab/docregistry';
import { Widget } from '@lumino/widgets';

import { CodeRestore } from './protocol';

/** What happened to each open document the restore touched. */
export interface IReloadResult {
  reloaded: string[];
  kept: string[];
}

/** Does the server path `docPath` name the project file `restored` (project-relative)? */
export function samePath(docPath: string, restored: string): boolean {
  const doc = docPath.replace(/^\/+/, '');
  const file = restored.replace(/^\.\//, '').replace(/^\/+/, '');
  return doc === file || doc.endsWith(`/${file}`) || file.endsWith(`/${doc}`);
}

/** The open documents (one context per file, however many views) whose file was restored. */
export function restoredContexts(
  widgets: Iterable<Widget>,
  docManager: IDocumentManager,
  restore: CodeRestore
): DocumentRegistry.Context[] {
  const files = [...(restore.restored ?? []), ...(restore.removed ?? [])];
  const seen = new Set<DocumentRegistry.Context>();
  for (const widget of widgets) {
    const context = docManager.contextForWidget(widget);
    if (context && !seen.has(context) && files.some(file => samePath(context.path, file))) {
      seen.add(context);
    }
  }
  return [...seen];
}

/** Reload each context from disk; ask first for one with unsaved changes. */
export async function reloadRestored(contexts: DocumentRegistry.Context[]): Promise<IReloadResult> {
  const result: IReloadResult = { reloaded: [], kept: [] };
  for (const context of contexts) {
    if (context.model.dirty) {
      const answer = await showDialog({
        title: 'Reload from disk?',
        body:
          `The rewind put back ${context.path} on disk, but its open editor has unsaved ` +
          'changes. Reload it from disk (your unsaved changes are lost) or keep your version?',
        buttons: [
          Dialog.cancelButton({ label: 'Keep my version' }),
          Dialog.warnButton({ label: 'Reload from disk' })
        ]
      });
      if (!answer.button.accept) {
        result.kept.push(context.path);
        continue;
      }
    }
    try {
      await context.revert();
      result.reloaded.push(context.path);
    } catch (reason) {
      // a removed file cannot be read back: leave the editor as it is and say so
      console.warn(`zengine: could not reload ${context.path}`, reason);
      result.kept.push(context.path);
    }
  }
  return result;
}
