// The %%agent turn widget (anywidget ESM). Wire: see _widget.py. Every message carries
// v (WIRE) and kind; requests carry an id and get one reply with the same id.
// The kernel prepends widget_common.js (WIRE, el, requester): see kernel/_esm.py.
const TIMEOUT_MS = 15000;
const RENDER_MS = 50;
const STREAMING = new Set(["text_streamed", "thinking_streamed"]);

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

// A small, safe markdown subset: fenced code, headings, lists, inline code, bold, italic.
function markdown(src) {
  const out = [];
  const parts = src.split(/```/);
  parts.forEach((part, i) => {
    if (i % 2 === 1) {
      const body = part.replace(/^[^\n]*\n/, "");
      out.push(`<pre><code>${escapeHtml(body)}</code></pre>`);
      return;
    }
    for (const line of escapeHtml(part).split("\n")) {
      let html = line
        .replace(/`([^`]+)`/g, "<code>$1</code>")
        .replace(/\*\*([^*]+)\*\*/g, "<b>$1</b>")
        .replace(/(^|\s)\*([^*]+)\*/g, "$1<i>$2</i>");
      const head = /^(#{1,6})\s+(.*)$/.exec(html);
      if (head) html = `<h${head[1].length + 2}>${head[2]}</h${head[1].length + 2}>`;
      else if (/^\s*[-*]\s+/.test(html)) html = `<li>${html.replace(/^\s*[-*]\s+/, "")}</li>`;
      else html = html ? `<p>${html}</p>` : "";
      out.push(html);
    }
  });
  return out.join("");
}

function editDiff(args) {
  if (typeof args.old_string === "string" && typeof args.new_string === "string") {
    const minus = args.old_string.split("\n").map((l) => "-" + l);
    const plus = args.new_string.split("\n").map((l) => "+" + l);
    return [`--- ${args.path}`, `+++ ${args.path}`, ...minus, ...plus].join("\n");
  }
  if (typeof args.content === "string") return `+++ ${args.path}\n` + args.content.split("\n").map((l) => "+" + l).join("\n");
  return null;
}

function render({ model, el: root }) {
  const box = el("div", "zengine-turn");
  const head = el("div", "zengine-head");
  const state = el("span", "zengine-state", model.get("status"));
  const stop = el("button", "zengine-interrupt", "Interrupt");
  head.append(el("span", "zengine-title", "zengine"), state, stop);
  const cost = el("span", "zengine-cost");
  head.insertBefore(cost, stop);
  const sent = el("div", "zengine-sent-box");
  const body = el("div", "zengine-body");
  const foot = el("div", "zengine-foot");
  const footText = el("span", "zengine-foot-text");
  const pill = el("details", "zengine-pill");
  pill.hidden = true;
  const pillLabel = el("summary", "zengine-pill-label");
  const pillReason = el("div", "zengine-pill-reason");
  const checkList = el("ul", "zengine-checks");
  pill.append(pillLabel, pillReason, checkList);
  foot.append(footText, pill);
  box.append(head, sent, body, foot);
  root.append(box);

  const requests = requester(model, "w", TIMEOUT_MS);
  const cards = new Map(); // call id -> card element
  const asks = new Map(); // call id -> approval prompt still waiting for a click
  let text = null; // the markdown block being streamed
  let thinking = null;
  const dirty = new Set();
  let flushTimer = null;
  // markdown is re-rendered at most every RENDER_MS, however many messages the deltas came in
  // (re-rendering per message made a long answer cost quadratic time in the browser)
  const flush = () => {
    flushTimer = null;
    dirty.forEach((node) => (node.innerHTML = markdown(node.dataset.src)));
    dirty.clear();
  };

  const { request } = requests;

  function line(cls, content) {
    const node = el("div", cls, content);
    body.append(node);
    text = null;
    thinking = null;
    return node;
  }

  function card(event) {
    const node = el("div", "zengine-card");
    node.dataset.callId = event.call_id;
    node.append(el("div", "zengine-card-title", `${event.tool} · ${event.summary}`));
    const args = event.arguments || {};
    if (typeof args.command === "string") node.append(el("pre", "zengine-command", args.command));
    const diff = editDiff(args);
    if (diff) node.append(el("pre", "zengine-diff", diff));
    node.append(el("div", "zengine-card-state", "proposed"));
    cards.set(event.call_id, node);
    body.append(node);
    text = null;
    thinking = null;
  }

  function setCardState(callId, label, cls) {
    const node = cards.get(callId);
    if (!node) return;
    const tag = node.querySelector(".zengine-card-state");
    tag.textContent = label;
    if (cls) tag.className = `zengine-card-state ${cls}`;
  }

  function approval(req) {
    const node = el("div", "zengine-approval");
    node.dataset.requestId = req.id;
    asks.set(req.call_id, node);
    node.append(el("div", "zengine-approval-title", `Allow ${req.tool}? ${req.summary}`));
    node.append(el("div", "zengine-approval-reason", req.reason));
    if (req.command) node.append(el("pre", "zengine-command", req.command));
    if (req.diff) node.append(el("pre", "zengine-diff", req.diff));
    const reason = el("input", "zengine-deny-reason");
    reason.placeholder = "reason (optional, for Deny)";
    const buttons = el("div", "zengine-buttons");
    const answer = async (decision, label) => {
      buttons.querySelectorAll("button").forEach((b) => (b.disabled = true));
      const reply = await request("approval_answer", { request_id: req.id, decision });
      if (reply.ok) {
        asks.delete(req.call_id);
        node.replaceChildren(el("div", "zengine-answered", `${label}: ${req.summary}`));
      }
      else {
        node.append(el("div", "zengine-error", reply.error));
        buttons.querySelectorAll("button").forEach((b) => (b.disabled = false));
      }
    };
    const once = el("button", "zengine-allow", "Allow once");
    once.onclick = () => answer({ action: "allow_once" }, "Allowed once");
    const always = el("button", "zengine-always", `Always allow ${req.suggested_rule}`);
    always.onclick = () => answer({ action: "always_allow", rule: req.suggested_rule }, "Always allowed");
    const deny = el("button", "zengine-deny", "Deny");
    deny.onclick = () => answer({ action: "deny", message: reason.value || null }, "Denied");
    buttons.append(once, always, deny, reason);
    node.append(buttons);
    body.append(node);
    text = null;
    thinking = null;
  }

  const BADGES = {
    verified: "✓ Verified",
    failed: "✗ Verification failed",
    unverified: "! Unverified",
    not_applicable: "– Nothing to verify",
  };
  const checks = new Map(); // check id -> its latest record

  function badge(event) {
    pill.hidden = false;
    pill.className = `zengine-pill zengine-pill-${event.badge}`;
    pill.dataset.badge = event.badge;
    pillLabel.textContent = BADGES[event.badge] || event.badge;
    if (checks.size) pillLabel.textContent += ` · ${checks.size} check${checks.size > 1 ? "s" : ""}`;
    pillReason.textContent = event.reason;
  }

  function check(event) {
    checks.set(event.check_id, event);
    checkList.replaceChildren(...[...checks.values()].map((c) => {
      const item = el("li", c.passed ? "passed" : "failed", `${c.passed ? "✓" : "✗"} ${c.check_id}: ${c.summary}`);
      item.dataset.checkId = c.check_id;
      return item;
    }));
    if (!pill.hidden) badge({ badge: pill.dataset.badge, reason: pillReason.textContent });
  }

  function showSent() {
    const note = model.get("sent_note");
    sent.replaceChildren();
    if (!note) return;
    const block = el("details", "zengine-sent");
    block.append(el("summary", null, `sent to the model · ${note}`), el("pre", null, model.get("prompt")));
    sent.append(block);
  }

  // a prompt answered without a click (--yes, a policy, a hook): say how, drop the buttons
  function settled(callId, label) {
    const node = asks.get(callId);
    if (!node) return;
    asks.delete(callId);
    const title = node.querySelector(".zengine-approval-title");
    node.replaceChildren(el("div", "zengine-answered", `${label}: ${title ? title.textContent : ""}`));
  }

  function show(event) {
    switch (event.kind) {
      case "text_streamed":
        if (!text) { text = el("div", "zengine-text"); text.dataset.src = ""; body.append(text); thinking = null; }
        text.dataset.src += event.text;
        dirty.add(text); // rendered once per message, not once per delta
        break;
      case "thinking_streamed":
        if (!thinking) {
          thinking = el("details", "zengine-thinking");
          thinking.append(el("summary", null, "Thinking"), el("pre"));
          body.append(thinking);
          text = null;
        }
        thinking.querySelector("pre").textContent += event.text;
        break;
      case "tool_call_proposed": card(event); break;
      case "tool_call_approved":
        setCardState(event.call_id, `allowed (${event.by})`, "ok");
        settled(event.call_id, `Allowed (${event.by})`);
        break;
      case "tool_call_denied": {
        setCardState(event.call_id, `denied: ${event.reason}`, "bad");
        const card = cards.get(event.call_id);
        if (card && event.diff) { // the diff it would have made replaces the proposed one
          card.querySelectorAll(".zengine-diff").forEach((d) => d.remove());
          card.append(el("pre", "zengine-diff", event.diff));
        }
        settled(event.call_id, `Denied: ${event.reason}`);
        break;
      }
      case "tool_call_started": setCardState(event.call_id, "running", null); break;
      case "tool_call_finished": {
        setCardState(event.call_id, event.is_error ? "failed" : "done", event.is_error ? "bad" : "ok");
        const node = cards.get(event.call_id) || body;
        if (event.diff) {
          if (node !== body) node.querySelectorAll(".zengine-diff").forEach((d) => d.remove()); // the real diff replaces the proposed one
          node.append(el("pre", "zengine-diff", event.diff));
        }
        const result = el("details", "zengine-result");
        result.append(el("summary", null, "Result"), el("pre", null, event.output));
        node.append(result);
        break;
      }
      case "approval_requested": approval(event.request); break;
      case "provider_busy":
        line("zengine-busy", `Provider busy · retry ${event.attempt} in ${Number(event.wait_s.toFixed(1))}s: ${event.message}`);
        break;
      case "notice": line("zengine-notice", `${event.topic}: ${event.text}`); break;
      case "trust_required":
        line("zengine-notice", `project settings withheld until you trust ${event.folder}: ${event.withheld.join(", ")} ` +
          "(trust it from %zengine's status or with %agent /trust)");
        break;
      case "verification_changed": badge(event); break;
      case "check_recorded": check(event); break;
      case "cost_updated":
        cost.textContent = event.turn_usd === null ? "cost unknown" : `$${event.turn_usd.toFixed(4)}`;
        break;
      case "error": {
        const node = line("zengine-error", event.message);
        if (event.hint) node.append(el("div", "zengine-hint", event.hint));
        break;
      }
      case "turn_ended":
        footText.textContent = `turn ${event.status}${event.reason ? `: ${event.reason}` : ""}`;
        break;
      case "turn_result":
        footText.textContent = `turn ${event.status}${event.reason ? `: ${event.reason}` : ""}` +
          (event.changed.length ? ` · changed ${event.changed.join(", ")}` : "");
        if (event.cost) cost.textContent = event.cost;
        body.querySelectorAll(".zengine-approval button").forEach((b) => (b.disabled = true));
        break;
      case "resync": line("zengine-notice", "some events were skipped (the view fell behind)"); break;
      default: break;
    }
  }

  model.on("msg:custom", (msg) => {
    if (!msg || msg.v !== WIRE) return;
    if (msg.kind === "events") {
      if (msg.replay) {
        body.replaceChildren(); cards.clear(); asks.clear(); checks.clear(); text = null; thinking = null;
        pill.hidden = true; checkList.replaceChildren(); cost.textContent = ""; footText.textContent = "";
      }
      msg.events.forEach(show);
      if (msg.events.every((e) => STREAMING.has(e.kind))) {
        if (!flushTimer) flushTimer = setTimeout(flush, RENDER_MS);
      } else {
        clearTimeout(flushTimer); // anything else (a card, a prompt, the end): text first, now
        flush();
      }
    } else {
      requests.settle(msg);
    }
  });

  const syncState = () => {
    const status = model.get("status");
    state.textContent = status;
    const live = ["starting", "running"].includes(status) && model.get("interactive");
    stop.hidden = !live; // no interrupt once the turn has ended (or nobody can click)
    stop.disabled = !live;
  };
  model.on("change:status", syncState);
  model.on("change:sent_note", showSent);
  syncState();
  showSent();
  stop.onclick = async () => {
    stop.disabled = true;
    const reply = await request("interrupt", {});
    if (!reply.ok) line("zengine-error", reply.error);
  };
  request("replay", {});
  return () => {
    requests.close();
    clearTimeout(flushTimer);
  };
}

export default { render };
