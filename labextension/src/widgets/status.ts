/**
 * The zengine status widget (anywidget ESM, bundled by build-widgets.mjs): version, project,
 * notebook, data folder; then, once loaded (a `refresh` request), trust with the shared trust
 * banner, the model, the sandbox and the MCP servers. Everything but the requests is state.
 */

import { StatusDetails, StatusWidgetState } from '../protocol';
import { el } from '../ui/dom';
import { TrustBanner, withheldLine } from '../ui/trust';
import { IRenderProps, Requester, busyAndError, redrawOn, widgetRoot } from './anywidget';

const TIMEOUT_MS = 30000;
const TRAITS = ['info', 'details', 'dismissed', 'busy', 'error'];

function row(parent: HTMLElement, label: string, value: string, state = ''): void {
  const node = el(
    'div',
    `jp-zengine-status-row ${state ? `jp-zengine-${state}` : ''}`,
    null,
    parent
  );
  el('span', 'jp-zengine-status-label', label, node);
  el('span', 'jp-zengine-status-value', value, node);
}

/** The model line: a recording, or the model at its provider. */
export function modelLine(details: StatusDetails): string {
  if (details.replay) {
    return `replay of a recorded session (${details.replay}; no model is called)`;
  }
  const where = details.base_url ? ` at ${details.base_url}` : '';
  return `${details.model || "the provider's default"} (${details.provider}${where})`;
}

/**
 * Whether the trust banner shows: an untrusted project whose settings are withheld, or trust
 * that could not be read (as the panel shows it only on `trust_required`); otherwise the
 * "not trusted" row says it all.
 */
export function needsTrustBanner(details: StatusDetails): boolean {
  return !details.trusted && (!!details.withheld?.length || !!details.trust_problem);
}

function render({ model, el: parent }: IRenderProps<StatusWidgetState>): () => void {
  const root = widgetRoot(parent, 'status');
  const requests = new Requester(model, 's', TIMEOUT_MS);

  const draw = () => {
    const info = model.get('info');
    const details = model.get('details');
    root.replaceChildren();
    const head = el('div', 'jp-zengine-status-head', null, root);
    el('strong', '', 'zengine', head);
    el('span', '', ` ${info.version}`, head);
    row(root, 'project', info.project);
    if (info.notebook) {
      row(root, 'notebook', info.notebook);
    }
    row(root, 'data', info.data);
    busyAndError(root, model.get('busy'), model.get('error'));
    if (!details) {
      el('div', 'jp-zengine-status-busy', 'loading trust, model, sandbox and MCP servers…', root);
      return;
    }
    row(root, 'trust', details.trusted ? 'trusted' : 'not trusted', details.trusted ? 'ok' : 'bad');
    const withheld = details.withheld ?? [];
    if (needsTrustBanner(details) && !model.get('dismissed')) {
      new TrustBanner(el('div', 'jp-zengine-trust-host', null, root), (_folder, trust) =>
        requests.request({ kind: 'trust_answer', trust })
      ).show({
        folder: info.project,
        withheld: withheld.map(withheldLine),
        problem: details.trust_problem
      });
    }
    row(root, 'model', modelLine(details), details.replay ? 'bad' : '');
    const sandbox = details.sandbox;
    row(
      root,
      'sandbox',
      sandbox.backend ? sandbox.backend : `off: ${sandbox.reason ?? 'unknown'}`,
      sandbox.backend ? 'ok' : ''
    );
    const servers = (details.mcp ?? []).map(
      s => s.name + (s.withheld ? ' (withheld)' : '') + (s.enabled ? '' : ' (disabled)')
    );
    row(root, 'MCP servers', servers.length ? servers.join(', ') : 'none configured');
    for (const issue of details.issues ?? []) {
      el('div', 'jp-zengine-status-issue', issue, root);
    }
  };

  const dispose = redrawOn(model, TRAITS, draw, requests);
  if (!model.get('details')) {
    void requests.request({ kind: 'refresh' });
  }
  return dispose;
}

export default { render };
