// Undo and redo in the header: the buttons and Ctrl/Cmd+Z, Ctrl/Cmd+Shift+Z,
// Ctrl+Y. Each button is enabled only when the UndoTracker (undo.js) knows
// of something to take back or bring back, its title names it, and the status
// line says what an undo or redo did ("Undid Cutoff: 440 Hz → 320 Hz") or
// why the server refused it.

import { historyShortcut } from "./shortcuts.js";
import { UndoTracker, doneText } from "./undo.js";

/** How long the status line stays, in milliseconds. */
const STATUS_MS = 4000;

/**
 * @param {{model, actions, buttons: HTMLButtonElement[], status: HTMLElement|null, forbiddenText: string}} options
 */
export function setupHistory({ model, actions, buttons, status, forbiddenText }) {
  const tracker = new UndoTracker();
  actions.sentHook = (seq, msg) => tracker.noteSent(seq, msg);
  // seq -> "undo" | "redo", until acked, so a refusal can be explained.
  const sent = new Map();
  let timer = 0;

  function say(text) {
    if (!status) return;
    status.textContent = text;
    clearTimeout(timer);
    timer = setTimeout(() => { status.textContent = ""; }, STATUS_MS);
  }

  function send(kind) {
    if (!(kind === "undo" ? tracker.canUndo : tracker.canRedo)) {
      if (actions.canAct) say(kind === "undo" ? "Nothing to undo" : "Nothing to redo");
      return;
    }
    const seq = actions.history(kind);
    if (seq != null) sent.set(seq, kind);
  }

  for (const button of buttons) {
    button.dataset.title = button.title;
    button.addEventListener("click", () => send(button.dataset.action));
  }
  window.addEventListener("keydown", (event) => {
    const kind = historyShortcut(event);
    if (!kind) return;
    event.preventDefault();
    if (!event.repeat) send(kind);
  });

  return {
    tracker,
    /** Says something on the header's status line for a few seconds. */
    say,
    /** A welcome: a new connection, whose stacks on the server are empty. */
    welcome() {
      tracker.reset();
      sent.clear();
    },
    /** An update, before the model applies it (the states before are read from the model). */
    update(msg) {
      const done = tracker.update(msg, model.client, (id) => model.schema(id), (id) => model.committed(id));
      for (const d of done) say(doneText(d));
      if (typeof msg.ack === "number") for (const seq of sent.keys()) if (seq <= msg.ack) sent.delete(seq);
    },
    /** A reject (already applied to the model as `r`). */
    rejected(msg, r) {
      tracker.rejected(msg.seq);
      const refused = sent.get(msg.seq);
      if (!refused) return;
      sent.delete(msg.seq);
      const why = msg.code === "busy" ? `held by ${r.holderName ?? "someone else"}`
        : msg.code === "claimed" ? `${r.holderName ?? "someone else"} has claimed a control it would change`
          : msg.code === "forbidden" ? forbiddenText : (msg.message || msg.code);
      say(`${refused === "undo" ? "Undo" : "Redo"}: ${why}`);
    },
    render() {
      for (const button of buttons) {
        const kind = button.dataset.action;
        const next = tracker.next(kind);
        button.disabled = !actions.canAct || next == null;
        const keys = button.dataset.title.replace(/^[^(]*/, "").trim();
        button.title = model.readOnly ? "Read only: your link does not allow changes"
          : next == null ? `Nothing to ${kind} ${keys}`
            : `${kind === "undo" ? "Undo" : "Redo"} ${next} ${keys}`;
      }
    },
  };
}
