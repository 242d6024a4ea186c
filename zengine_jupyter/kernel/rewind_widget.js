// The %agent /rewind widget (anywidget ESM). Wire: see _rewind_widget.py. Requests carry v,
// kind and an id, and get one reply with the same id; the lists are also model state.
// The kernel prepends widget_common.js (WIRE, el, requester): see kernel/_esm.py.
const TIMEOUT_MS = 60000;

function short(text, n) {
  const flat = text.split(/\s+/).join(" ").trim();
  return flat.length <= n ? flat : flat.slice(0, n - 1) + "…";
}

function render({ model, el: root }) {
  const box = el("div", "zengine-rewind");
  root.append(box);
  const requests = requester(model, "r", TIMEOUT_MS);
  let pending = false;

  const { request } = requests;

  async function rewind(point, what) {
    pending = true;
    draw();
    const reply = await request("rewind", { to: point.turn_id, what });
    pending = false;
    if (!reply.ok) model.set("error", reply.error + (reply.hint ? ` (${reply.hint})` : ""));
    draw();
  }

  function outcome(result) {
    const node = el("div", "zengine-rewind-result");
    node.append(el("div", "zengine-rewind-result-title", `Rewound (${result.what}) to before “${short(result.prompt, 60)}”`));
    if (result.conversation) node.append(el("div", null, `conversation: ${result.messages_removed} messages removed`));
    const code = result.code;
    if (code) {
      const files = el("ul", "zengine-rewind-files");
      for (const p of code.restored) files.append(el("li", "restored", `restored ${p}`));
      for (const p of code.removed) files.append(el("li", "removed", `removed ${p} (created since)`));
      for (const item of code.left_alone) files.append(el("li", "left-alone", `left alone: ${item.path} (not stored: ${item.reason.replace(/_/g, " ")})`));
      if (!files.children.length) files.append(el("li", null, "no file differed"));
      node.append(el("div", null, `files put back as at checkpoint ${code.target.slice(0, 12)}`), files);
      node.append(el("div", "zengine-rewind-note", `the files as they were just before this rewind: checkpoint ${code.safety_checkpoint.slice(0, 12)}`));
    } else if (result.code_note) {
      node.append(el("div", null, `files: ${result.code_note}`));
    }
    for (const line of result.warnings || []) node.append(el("div", "zengine-rewind-warning", line));
    node.append(el("div", "zengine-rewind-note", result.note));
    return node;
  }

  function draw() {
    box.replaceChildren();
    box.append(el("div", "zengine-rewind-head", `Rewind chat ${model.get("session_id") || ""}`));
    const busy = model.get("busy");
    if (busy) box.append(el("div", "zengine-rewind-busy", busy));
    const error = model.get("error");
    if (error) box.append(el("div", "zengine-error", error));
    const points = model.get("points") || [];
    if (!points.length && !busy) box.append(el("div", "zengine-rewind-busy", "nothing to rewind to yet"));
    const list = el("ol", "zengine-rewind-points");
    for (const point of points) {
      const item = el("li", "zengine-rewind-point");
      item.dataset.turnId = point.turn_id;
      item.append(el("span", "zengine-rewind-prompt", short(point.prompt, 90)));
      item.append(el("span", "zengine-rewind-checkpoint", point.checkpoint_id ? `files: ${point.checkpoint_id.slice(0, 12)}` : "no file changes since"));
      for (const line of point.warnings || []) item.append(el("div", "zengine-rewind-warning", line));
      const buttons = el("span", "zengine-buttons");
      for (const [what, label] of [["code", "Restore code"], ["conversation", "Restore conversation"], ["both", "Restore both"]]) {
        const button = el("button", `zengine-rewind-${what}`, label);
        button.disabled = pending || (what === "code" && !point.checkpoint_id);
        button.onclick = () => rewind(point, what);
        buttons.append(button);
      }
      item.append(buttons);
      list.append(item);
    }
    box.append(list);
    const result = model.get("result");
    if (result) box.append(outcome(result));
  }

  model.on("msg:custom", (msg) => {
    requests.settle(msg);
  });
  for (const name of ["session_id", "points", "result", "busy", "error"]) model.on(`change:${name}`, draw);
  draw();
  return () => requests.close();
}

export default { render };
