/**
 * zengine-jupyter's JupyterLab extension: the side panel beside the notebook.
 */

import {
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { INotebookTracker } from '@jupyterlab/notebook';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { LabIcon } from '@jupyterlab/ui-components';

import { ZenginePanel } from './panel';

const PLUGIN_ID = 'zengine-jupyter:plugin';
const PANEL_ID = 'zengine-panel';
const OPEN_COMMAND = 'zengine:open-panel';

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
  requires: [INotebookTracker],
  optional: [ISettingRegistry, ILayoutRestorer],
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    settingRegistry: ISettingRegistry | null,
    restorer: ILayoutRestorer | null
  ) => {
    const panel = new ZenginePanel({ tracker });
    panel.id = PANEL_ID;
    panel.title.icon = zengineIcon;
    panel.title.caption = 'zengine agent';
    app.shell.add(panel, 'right', { rank: 900 });
    restorer?.add(panel, PANEL_ID);

    app.commands.addCommand(OPEN_COMMAND, {
      label: 'Open the zengine panel',
      execute: () => app.shell.activateById(PANEL_ID)
    });

    if (settingRegistry) {
      void settingRegistry.load(PLUGIN_ID).then(
        settings => {
          const apply = () => {
            panel.autoLoad = settings.get('autoLoadExtension').composite as boolean;
          };
          apply();
          settings.changed.connect(apply);
        },
        reason => console.error(`zengine: could not load settings for ${PLUGIN_ID}`, reason)
      );
    }
  }
};

export default plugin;
