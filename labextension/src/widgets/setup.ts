/**
 * The `%zengine setup` widget (anywidget ESM, bundled by build-widgets.mjs): the provider setup
 * view of the panel (`ui/setup.ts`) over the widget's custom messages. `%load_ext zengine`
 * shows it too, with a notice, when no model is configured.
 */

import { SetupWidgetState } from '../protocol';
import { SetupView } from '../ui/setup';
import { IRenderProps, Requester, widgetRoot } from './anywidget';

const TIMEOUT_MS = 90000;

function render({ model, el: parent }: IRenderProps<SetupWidgetState>): () => void {
  const root = widgetRoot(parent, 'setup');
  const requests = new Requester(model, 's', TIMEOUT_MS);
  const view = new SetupView(root, body => requests.request(body), {
    notice: model.get('notice') ?? ''
  });
  const onMessage = (msg: unknown) => void requests.settle(msg);
  const onSaved = () => view.setSaved(model.get('saved') ?? '');
  model.on('msg:custom', onMessage);
  model.on('change:saved', onSaved);
  void view.load().then(onSaved); // a view opened after a save shows its words
  return () => {
    model.off('msg:custom', onMessage);
    model.off('change:saved', onSaved);
    requests.close();
  };
}

export default { render };
