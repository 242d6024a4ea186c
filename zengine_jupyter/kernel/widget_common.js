// Shared by every zengine widget's ESM: the kernel prepends this file to each widget's own
// file (kernel/_esm.py), so the pair is one module. Every message carries v (WIRE) and kind;
// a request carries an id and gets exactly one reply with the same id. WIRE is not defined
// here: kernel/_esm.py defines it first, from protocol/_wire_version.py (the
// message types are protocol/_widget_wire.py, in TypeScript labextension/src/protocol.ts).

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

// Requests of one view: request() resolves with the kernel's reply, or with ok false once
// timeoutMs passes; settle() hands a message over (true when it was a reply to one of ours).
function requester(model, prefix, timeoutMs) {
  const waiting = new Map(); // request id -> {resolve, timer}
  let seq = 0;
  return {
    request(kind, extra) {
      const id = `${prefix}${Date.now().toString(36)}-${seq++}`;
      model.send({ v: WIRE, kind, id, ...extra });
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiting.delete(id);
          resolve({ ok: false, error: "the kernel did not answer in time (is it busy?)" });
        }, timeoutMs);
        waiting.set(id, { resolve, timer });
      });
    },
    settle(msg) {
      if (!msg || msg.v !== WIRE || msg.kind !== "reply" || !waiting.has(msg.id)) return false;
      const { resolve, timer } = waiting.get(msg.id);
      clearTimeout(timer);
      waiting.delete(msg.id);
      resolve(msg);
      return true;
    },
    close() {
      waiting.forEach(({ timer }) => clearTimeout(timer));
      waiting.clear();
    },
  };
}

