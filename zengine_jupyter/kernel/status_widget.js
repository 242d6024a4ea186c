// The zengine status widget (anywidget ESM). Wire: see _status_widget.py. Requests carry v,
// kind and an id, and get one reply with the same id; everything else is model state.
// The kernel prepends widget_common.js (WIRE, el, requester): see kernel/_esm.py.
const TIMEOUT_MS = 30000;

function row(label, value, cls) {
  const node = el("div", `zengine-status-row ${cls || ""}`);
  node.append(el("span", "zengine-status-label", label), el("span", "zengine-status-value", value));
  return node;
}

function render({ model, el: root }) {
  const box = el("div", "zengine-status");
  root.append(box);
  const requests = requester(model, "s", TIMEOUT_MS);

  const { request } = requests;

  function banner(details) {
    const node = el("div", "zengine-trust-banner");
    node.append(el("div", "zengine-trust-title", "Trust this workspace?"));
    node.append(el("div", "zengine-trust-folder", model.get("info").project));
    if (details.trust_problem) node.append(el("div", "zengine-error", details.trust_problem));
    if (details.withheld.length) {
      node.append(el("div", null, "Until you trust it, these project settings are withheld:"));
      const list = el("ul", "zengine-withheld");
      for (const w of details.withheld) {
        list.append(el("li", null, `${w.key} (${w.layer})${w.detail ? `: ${w.detail}` : ""}`));
      }
      node.append(list);
    }
    const buttons = el("div", "zengine-buttons");
    const yes = el("button", "zengine-trust-yes", "Trust");
    const no = el("button", "zengine-trust-no", "Not now");
    const answer = async (trust) => {
      yes.disabled = no.disabled = true;
      const reply = await request("trust_answer", { trust });
      if (!reply.ok) {
        node.append(el("div", "zengine-error", reply.error + (reply.hint ? ` (${reply.hint})` : "")));
        yes.disabled = no.disabled = false;
      }
    };
    yes.onclick = () => answer(true);
    no.onclick = () => answer(false);
    buttons.append(yes, no);
    node.append(buttons);
    return node;
  }

  function draw() {
    const info = model.get("info");
    const details = model.get("details");
    box.replaceChildren();
    const head = el("div", "zengine-status-head");
    head.append(el("b", null, "zengine"), el("span", null, ` ${info.version}`));
    box.append(head);
    box.append(row("project", info.project));
    if (info.notebook) box.append(row("notebook", info.notebook));
    box.append(row("data", info.data));
    const busy = model.get("busy");
    if (busy) box.append(el("div", "zengine-status-busy", busy));
    const error = model.get("error");
    if (error) box.append(el("div", "zengine-error", error));
    if (!details) {
      box.append(el("div", "zengine-status-busy", "loading trust, model, sandbox and MCP servers…"));
      return;
    }
    const trusted = details.trusted;
    box.append(row("trust", trusted ? "trusted" : "not trusted", trusted ? "ok" : "warn"));
    if (!trusted && !model.get("dismissed")) box.append(banner(details));
    const where = details.base_url ? ` at ${details.base_url}` : "";
    box.append(details.replay
      ? row("model", `replay of a recorded session (${details.replay}; no model is called)`, "warn")
      : row("model", `${details.model || "the provider's default"} (${details.provider}${where})`));
    const sb = details.sandbox;
    box.append(row("sandbox", sb.backend ? sb.backend : `off: ${sb.reason}`, sb.backend ? "ok" : ""));
    const servers = details.mcp.map((s) => s.name + (s.withheld ? " (withheld)" : "") + (s.enabled ? "" : " (disabled)"));
    box.append(row("MCP servers", servers.length ? servers.join(", ") : "none configured"));
    for (const issue of details.issues) box.append(el("div", "zengine-status-issue", issue));
  }

  model.on("msg:custom", (msg) => {
    requests.settle(msg);
  });
  for (const name of ["info", "details", "dismissed", "busy", "error"]) model.on(`change:${name}`, draw);
  draw();
  if (!model.get("details")) request("refresh", {});
  return () => requests.close();
}

export default { render };
