// What Undo and Redo would do, as far as this client can tell: a mirror of
// the server's per-connection stacks (docs/protocol.md, "Undo and redo")
// kept from what this client sent and what the server answered. Pure: no
// DOM, no clock, so web/test drives it exactly.
//
// The server records an edit for each of this client's set, step and drag
// gesture that changed something (a gesture when it ends), and for a batch
// (a preset recall, a restore); button presses are not edits. An edit shows
// up as a `changes` entry `by` me in the update whose `ack` covers the
// message. Undo and redo move edits between the stacks; a new edit clears
// redo; a `busy` (or any) reject leaves both as they were; each stack keeps
// 50; a new connection starts with none.

import { formatPlain, formatSliderValue, withUnit } from "./format.js";

export const STACK_LIMIT = 50;

/** A control's state in a few words, for "Undid Cutoff: 440 Hz → 320 Hz". */
export function describeState(schema, state) {
  if (!state) return "–";
  const unit = schema?.unit;
  switch (schema?.type) {
    case "slider":
      return withUnit(Number.isFinite(schema.min) && Number.isFinite(schema.max) && schema.scale !== "log"
        ? formatSliderValue(state.value, schema) : formatPlain(state.value), unit);
    case "gauge":
      return withUnit(formatPlain(state.value), unit);
    case "snap": {
      const label = Array.isArray(schema.labels) ? schema.labels[state.index] : undefined;
      return label ?? withUnit(formatPlain(state.value), unit);
    }
    case "range":
      return withUnit(`${formatPlain(state.lower)}–${formatPlain(state.upper)}`, unit);
    case "color":
      return state.hex ?? "colour";
    case "toggle":
      return state.on ? "on" : "off";
    case "xy":
      return `${withUnit(formatPlain(state.x), schema.x?.unit)}, ${withUnit(formatPlain(state.y), schema.y?.unit)}`;
    default: {
      const numbers = Object.values(state).filter((v) => typeof v === "number");
      return numbers.map(formatPlain).join(", ") || "–";
    }
  }
}

/** "Cutoff: 440 Hz → 320 Hz", or for several controls "Cutoff, Mode and 2 more". */
export function describeChanges(changes) {
  if (changes.length === 1) {
    const c = changes[0];
    return `${c.label}: ${c.from} → ${c.to}`;
  }
  const names = changes.map((c) => c.label);
  return names.length <= 3 ? names.join(", ") : `${names.slice(0, 2).join(", ")} and ${names.length - 2} more`;
}

export class UndoTracker {
  constructor() {
    this.reset();
  }

  /** A new connection: the server's stacks for it are empty. */
  reset() {
    /** Edits, newest last: {controls: [id], label}. */
    this.undoStack = [];
    this.redoStack = [];
    /** seq -> {kind: "set"|"step"|"drag"|"undo"|"redo", control, phase} sent and not yet acked. */
    this.sent = new Map();
    /** control id -> true once a live gesture committed something (it is an edit when it ends). */
    this.gestures = new Map();
    this.ack = 0;
  }

  get canUndo() {
    return this.undoStack.length > 0;
  }

  get canRedo() {
    return this.redoStack.length > 0;
  }

  /** The label of what Undo (or Redo) would take back, or null. */
  next(kind) {
    const stack = kind === "redo" ? this.redoStack : this.undoStack;
    return stack.length ? stack[stack.length - 1].label : null;
  }

  /** A message this client sent: {type, control, phase} as on the wire. */
  noteSent(seq, msg) {
    if (seq == null || !msg) return;
    const kind = msg.type;
    if (!["set", "step", "drag", "undo", "redo"].includes(kind)) return;
    this.sent.set(seq, { kind, control: msg.control ?? null, phase: msg.phase ?? null });
  }

  /** A reject of one of my messages: it changed nothing, and an undo or redo moved nothing. */
  rejected(seq) {
    const entry = this.sent.get(seq);
    this.sent.delete(seq);
    if (entry?.kind === "drag" && entry.phase === "begin") this.gestures.delete(entry.control);
  }

  /**
   * An update frame, before the model applies it. `me` is my client id,
   * `schemaOf(id)` a control's schema, `before(id)` its committed state now.
   * Returns what my undo or redo in this frame changed, for the status line:
   * [{kind: "undo"|"redo", changes: [{control, label, from, to}]}].
   */
  update(msg, me, schemaOf, before) {
    const ack = typeof msg.ack === "number" ? msg.ack : this.ack;
    const mine = new Map();
    for (const ch of msg.changes ?? []) {
      if (me != null && ch.by === me) mine.set(ch.control, ch.state);
    }
    const explained = new Set();
    const done = [];
    const seqs = [...this.sent.keys()].filter((s) => s <= ack).sort((a, b) => a - b);
    const push = (controls) => {
      const labels = controls.map((id) => schemaOf(id)?.label ?? id);
      const label = labels.length === 1 ? labels[0] : describeChanges(labels.map((l) => ({ label: l })));
      this.undoStack.push({ controls, label });
      if (this.undoStack.length > STACK_LIMIT) this.undoStack.shift();
      this.redoStack = [];
    };
    for (const seq of seqs) {
      const { kind, control, phase } = this.sent.get(seq);
      this.sent.delete(seq);
      const changed = control != null && mine.has(control);
      if (changed) explained.add(control);
      switch (kind) {
        case "set":
        case "step":
          if (changed && schemaOf(control)?.type !== "button") push([control]);
          break;
        case "drag":
          if (phase === "begin") {
            this.gestures.set(control, changed);
          } else if (phase === "move") {
            if (changed) this.gestures.set(control, true);
          } else if (changed || this.gestures.get(control)) {
            this.gestures.delete(control);
            push([control]);
          } else {
            this.gestures.delete(control);
          }
          break;
        case "undo":
        case "redo": {
          const from = kind === "undo" ? this.undoStack : this.redoStack;
          const to = kind === "undo" ? this.redoStack : this.undoStack;
          const edit = from.pop();
          if (!edit) break;
          to.push(edit);
          if (to.length > STACK_LIMIT) to.shift();
          for (const id of edit.controls) explained.add(id);
          const changes = edit.controls.filter((id) => mine.has(id)).map((id) => {
            const schema = schemaOf(id);
            return { control: id, label: schema?.label ?? id, from: describeState(schema, before(id)), to: describeState(schema, mine.get(id)) };
          });
          done.push({ kind, label: edit.label, changes });
          break;
        }
      }
    }
    // My changes no message of mine here explains: a batch I sent some other
    // way (a preset recall, a restore), recorded by the server as one edit.
    const batch = [...mine.keys()].filter((id) => !explained.has(id) && !this.gestures.has(id)
      && !["button", "gauge"].includes(schemaOf(id)?.type));
    if (batch.length) push(batch);
    if (ack > this.ack) this.ack = ack;
    return done;
  }
}

/** The status line after an undo or redo was done: "Undid Cutoff: 440 Hz → 320 Hz". */
export function doneText({ kind, label, changes }) {
  const verb = kind === "undo" ? "Undid" : "Redid";
  if (changes.length === 0) return `${verb} ${label}: it already had that value`;
  return `${verb} ${describeChanges(changes)}`;
}
