/**
 * zengine-jupyter's JupyterLab extension: the side panel beside the notebook, and the
 * markdown renderer the cell widgets use (JupyterLab's rendermime, published on the page;
 * that plugin needs nothing but rendermime, so it runs in Notebook 7 too).
 */

import { ILayoutRestorer, JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { IDocumentManager } from '@jupyterlab/docmanager';
import { INotebookTracker } from '@jupyterlab/notebook';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { LabIcon } from '@jupyterlab/ui-components';

import { LabCodeActions } from './codeactions';
import { ZenginePanel } from './panel';
import { OPEN_SETUP_EVENT } from './ui/states';
import { rendermimeMarkdown } from './rendermime';
import { publishMarkdown } from './ui/markdown';
import { CodeRestore } from './protocol';
import { reloadRestored, restoredContexts } from './reload';

const PLUGIN_ID = 'zengine-jupyter:plugin';
const PANEL_ID = 'zengine-panel';

/** Command ids (their key bindings are in schema/plugin.json, so users can change them). */
const COMMANDS = {
  open: 'zengine:open-panel',
  focusInput: 'zengine:focus-input',
  focusApproval: 'zengine:focus-approval'
};

const zengineIcon = new LabIcon({
  name: 'zengine-jupyter:icon',
  svgstr:
    '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24">' +
    '<path class="jp-icon3" fill="#616161" d="M4 4h16v3L9 17h11v3H4v-3L15 7H4z"/></svg>'
});

const plugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description: 'A side panel that talks to the zengine agent in the active notebook kernel.',
  autoStart: true,
  requires: [INotebookTracker, IRenderMimeRegistry],
  optional: [IDocumentManager, ISettingRegistry, ILayoutRestorer, ICommandPalette],
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    rendermime: IRenderMimeRegistry,
    docManager: IDocumentManager | null,
    settingRegistry: ISettingRegistry | null,
    restorer: ILayoutRestorer | null,
    palette: ICommandPalette | null
  ) => {
    const reload = async (restore: CodeRestore): Promise<string> => {
      if (!docManager) {
        return '';
      }
      const contexts = restoredContexts(app.shell.widgets('main'), docManager, restore);
      const result = await reloadRestored(contexts);
      const parts = [];
      if (result.reloaded.length) {
        parts.push(`Reloaded from disk: ${result.reloaded.join(', ')}.`);
      }
      if (result.kept.length) {
        parts.push(`Kept your unsaved version of: ${result.kept.join(', ')}.`);
      }
      return parts.join(' ');
    };
    const panel = new ZenginePanel({
      tracker,
      rendermime,
      reloadRestored: reload,
      codeActions: new LabCodeActions(tracker, app.shell)
    });
    panel.id = PANEL_ID;
    panel.title.icon = zengineIcon;
    panel.title.caption = 'zengine agent';
    app.shell.add(panel, 'right', { rank: 900 });
    restorer?.add(panel, PANEL_ID);

    app.commands.addCommand(COMMANDS.open, {
      label: 'Open the zengine panel',
      execute: () => app.shell.activateById(PANEL_ID)
    });
    app.commands.addCommand(COMMANDS.focusInput, {
      label: 'zengine: Focus the message box',
      execute: () => {
        app.shell.activateById(PANEL_ID);
        panel.focusInput();
      }
    });
    app.commands.addCommand(COMMANDS.focusApproval, {
      label: 'zengine: Go to the waiting approval',
      execute: () => {
        app.shell.activateById(PANEL_ID);
        if (!panel.focusApproval()) {
          panel.focusInput();
        }
      }
    });
    // a %%agent cell whose turn found no model configured: its button opens our setup view
    window.addEventListener(OPEN_SETUP_EVENT, event => {
      app.shell.activateById(PANEL_ID);
      panel.openSetup();
      ((event as CustomEvent<{ opened: boolean }>).detail ?? { opened: false }).opened = true;
    });
    for (const command of Object.values(COMMANDS)) {
      palette?.addItem({ command, category: 'zengine' });
    }

    if (settingRegistry) {
      void settingRegistry.load(PLUGIN_ID).then(
        settings => {
          // only read for string settings (schema/plugin.json), never an object
          // eslint-disable-next-line @typescript-eslint/no-base-to-string
          const text = (key: string) => String(settings.get(key).composite ?? '');
          const apply = () => {
            panel.autoLoad = settings.get('autoLoadExtension').composite as boolean;
            panel.chatSettings = {
              model: text('model'),
              effort: text('effort'),
              mode: text('mode')
            };
          };
          apply();
          settings.changed.connect(apply);
        },
        reason => console.error(`zengine: could not load settings for ${PLUGIN_ID}`, reason)
      );
    }
  }
};

/** The cell widgets render markdown with this page's rendermime (sanitised), like the panel. */
const markdownPlugin: JupyterFrontEndPlugin<void> = {
  id: 'zengine-jupyter:markdown',
  description: "Lets zengine's cell widgets render markdown with JupyterLab's rendermime.",
  autoStart: true,
  requires: [IRenderMimeRegistry],
  activate: (_app: JupyterFrontEnd, rendermime: IRenderMimeRegistry) => {
    publishMarkdown(rendermimeMarkdown(rendermime));
  }
};

export default [plugin, markdownPlugin];
