// The Presets panel (docs/presets.md): save the room's current values under
// a name, list the room's presets, recall one (the server commits it as ONE
// revision for everyone), rename, delete, and see what a recall would change.
//
// The server sends the whole list after the welcome and after every change
// (`{"type":"presets"}`); the panel sends `{"type":"preset", action, name}`
// messages and reads their fate from the ack (done) or a reject (why not).
// Viewers see the list and the changes, none of the buttons that write.

import { h, setAttr, setText } from "./dom.js";
import { fixed, formatPlain, formatSliderValue, withUnit } from "./format.js";

/** The longest preset name, in characters (the server's rule). */
export const MAX_NAME = 60;

/** Controls a preset holds: every one a recall can set (not gauges, not buttons). */
export function takesPresets(schema) {
  return schema != null && schema.type !== "gauge" && schema.type !== "button";
}

/** Characters as people count them (an emoji is one). */
function characters(text) {
  if (typeof Intl !== "undefined" && Intl.Segmenter) {
    return [...new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(text)].length;
  }
  return [...text].length;
}

/**
 * A name as the server will take it: trimmed, 1–60 characters, no control
 * characters or line breaks, no "/". Returns {name} or {error}.
 */
export function cleanPresetName(raw) {
  const name = String(raw ?? "").trim();
  if (!name) return { error: "Give the preset a name." };
  const count = characters(name);
  if (count > MAX_NAME) return { error: `At most ${MAX_NAME} characters (this has ${count}).` };
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(name)) return { error: "No line breaks or control characters." };
  if (name.includes("/")) return { error: "A name cannot contain “/”." };
  if (name === "." || name === "..") return { error: "A name cannot be “.” or “..”." };
  return { name };
}

/** The list sorted by name, as the server sorts it (code point order). */
export function sortedPresets(list) {
  return [...(Array.isArray(list) ? list : [])]
    .filter((p) => p && typeof p.name === "string" && p.states && typeof p.states === "object")
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function sameState(a, b) {
  if (a == null || b == null) return false;
  const ka = Object.keys(a).filter((k) => k !== "hex" && k !== "fraction");
  const kb = Object.keys(b).filter((k) => k !== "hex" && k !== "fraction");
  if (ka.length !== kb.length) return false;
  return ka.every((k) => kb.includes(k) && JSON.stringify(a[k]) === JSON.stringify(b[k]));
}

function sameShape(a, b) {
  if (a == null || b == null) return false;
  const ka = Object.keys(a).filter((k) => k !== "hex").sort();
  const kb = Object.keys(b).filter((k) => k !== "hex").sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i]);
}

/**
 * What recalling `preset` would change, in the room's order:
 * [{control, label, schema, preset, now}] for every control the preset holds
 * that the room still has, takes presets, and differs from its committed
 * state. A saved state of another shape (the control changed kind since) is
 * left out: the server skips it too.
 * `controls` is the model's Map id -> {schema, state}.
 */
export function presetChanges(preset, controls) {
  const changes = [];
  if (!preset?.states) return changes;
  for (const [id, c] of controls) {
    if (!takesPresets(c.schema)) continue;
    const saved = preset.states[id];
    if (saved == null || !sameShape(saved, c.state) || sameState(saved, c.state)) continue;
    changes.push({ control: id, label: c.schema.label ?? id, schema: c.schema, preset: saved, now: c.state });
  }
  return changes;
}

/** A state as short text for people: "80 pt", "0.50", "2–3", "#FF8800", "on". */
export function describeState(schema, state) {
  if (state == null) return "–";
  const unit = schema?.unit ?? "";
  switch (schema?.type) {
    case "snap": {
      const label = Array.isArray(schema.labels) ? schema.labels[state.index] : undefined;
      return label ?? withUnit(formatPlain(state.value), unit);
    }
    case "slider":
      return withUnit(Number.isInteger(schema.digits) ? formatPlain(state.value) : formatSliderValue(state.value, schema), unit);
    case "range":
      return `${state.lower}–${state.upper}`;
    case "color":
      return typeof state.hex === "string" ? state.hex.toUpperCase() : [state.red, state.green, state.blue].map((c) => fixed(c, 3)).join(", ");
    case "toggle":
      return state.on ? "on" : "off";
    case "xy":
      return `${withUnit(formatPlain(state.x), schema.x?.unit ?? "")}, ${withUnit(formatPlain(state.y), schema.y?.unit ?? "")}`;
    default:
      return Object.entries(state)
        .filter(([k]) => k !== "hex" && k !== "fraction")
        .map(([k, v]) => `${k} ${typeof v === "number" ? formatPlain(v) : String(v)}`)
        .join(", ");
  }
}

/** "just now", "5 min ago", "3 h ago", "2 days ago", or a date. */
export function relativeTime(ms, now = Date.now()) {
  if (!Number.isFinite(ms)) return "";
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 45) return "just now";
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min ago`;
  const hours = Math.round(min / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  if (days < 7) return `${days} day${days === 1 ? "" : "s"} ago`;
  return new Date(ms).toLocaleDateString();
}

/**
 * Whether saving under `name` would replace a preset of `list`: null when the
 * name is free, else {preset, question}, the question asked first ("Replace
 * preset “Warm”, saved by Ann 3 min ago?"). Names are compared exactly, as the
 * server does (after cleanPresetName's trimming).
 */
export function saveCollision(name, list, now = Date.now()) {
  const preset = name == null ? undefined : (Array.isArray(list) ? list : []).find((p) => p?.name === name);
  if (!preset) return null;
  const when = relativeTime(preset.time, now);
  const saved = ["saved", preset.by ? `by ${preset.by}` : "", when].filter(Boolean).join(" ");
  return { preset, question: `Replace preset “${preset.name}”, ${saved}?` };
}

/** What a refused preset message is called on screen. */
export function refusalText(action, name, msg, holderName) {
  const what = { save: "Save", recall: "Recall", rename: "Rename", delete: "Delete" }[action] ?? "Preset";
  switch (msg.code) {
    case "busy":
      return `${what} “${name}”: ${holderName ?? "someone"} is moving a control it sets. Try again when they let go.`;
    case "claimed":
      return `${what} “${name}”: ${holderName ?? "someone"} has claimed a control it sets. Try again when they let go.`;
    case "forbidden":
      return `${what}: read only, your link does not allow changes.`;
    case "unknown_preset":
      return `${what}: there is no preset “${name}” any more.`;
    case "rate_limited":
      return `${what}: too many messages, try again in a moment.`;
    default:
      return `${what} “${name}”: ${msg.message || msg.code}`;
  }
}

/** What a done preset message is called on screen. */
function doneText(request, changed) {
  switch (request.action) {
    case "save": return `Saved “${request.name}”.`;
    case "recall": return changed ? `Recalled “${request.name}”.` : `“${request.name}” is already what the room shows.`;
    case "rename": return `Renamed “${request.name}” to “${request.to}”.`;
    case "delete": return `Deleted “${request.name}”.`;
    default: return "";
  }
}

let panelCount = 0;

export class PresetsPanel {
  /**
   * @param {object} options
   * @param {import("./protocol.js").RoomModel} options.model
   * @param {{send(msg: object): boolean, isOpen: boolean}} options.connection
   * @param {() => void} [options.changed]  schedules a render
   * @param {Element} [options.before]  the panel goes before this element (default: the page footer)
   * @param {() => boolean} [options.paused]  true while the page shows a past moment (the timeline):
   *   saving would store the live values, not the ones on screen, so nothing is sent meanwhile
   */
  constructor({ model, connection, changed = () => {}, before = null, paused = () => false }) {
    this.model = model;
    this.connection = connection;
    this.changed = changed;
    this.paused = paused;
    /** The list from the server, sorted; null before the first `presets` frame. */
    this.presets = null;
    /** seq -> {action, name, to, rev, client}: sent on the connection `client`, waiting for the ack or a reject. */
    this.pending = new Map();
    /** Rows' state that survives a new list: names whose changes are open, the row being renamed or confirmed. */
    this.open = new Set();
    this.renaming = null;
    this.confirming = null;
    /** The name a save would replace, while the panel asks first ("Replace preset “Warm”…?"); null otherwise. */
    this.replacing = null;
    this.listVersion = 0;
    /** name -> PresetRow, as drawn. */
    this.rows = new Map();
    this.drawn = { list: -1, controls: -1, readOnly: null };
    this.id = `presets-${++panelCount}`;
    this.build(before);
  }

  // ---------------------------------------------------------------- protocol

  /** A `presets` frame: the room's whole list. */
  apply(msg) {
    this.presets = sortedPresets(msg.presets);
    const names = new Set(this.presets.map((p) => p.name));
    for (const name of this.open) if (!names.has(name)) this.open.delete(name);
    if (this.renaming != null && !names.has(this.renaming)) this.renaming = null;
    if (this.confirming != null && !names.has(this.confirming)) this.confirming = null;
    this.listVersion += 1;
    this.changed();
  }

  /** A reject: true when it answers one of the panel's messages (then it is shown here). */
  rejected(msg) {
    const request = msg.seq != null ? this.pending.get(msg.seq) : undefined;
    if (!request) return false;
    this.pending.delete(msg.seq);
    const holderName = msg.holder != null ? this.model.nameOf(msg.holder) : null;
    this.say(refusalText(request.action, request.name, msg, holderName), true);
    if (request.action === "rename" && msg.code === "bad_value") this.renaming = request.name;
    return true;
  }

  /** Sends a preset message; returns its seq, or null when it could not be sent. */
  send(action, name, to = undefined) {
    if (!this.connection.isOpen || this.model.readOnly || this.paused()) return null;
    const seq = this.model.nextSeq();
    const msg = { type: "preset", seq, action, name };
    if (to !== undefined) msg.to = to;
    if (!this.connection.send(msg)) return null;
    this.pending.set(seq, { action, name, to, rev: this.model.rev, client: this.model.client });
    this.changed();
    return seq;
  }

  /** Requests the ack covers that were not refused: done. */
  settle() {
    for (const [seq, request] of this.pending) {
      // Sent on a connection since lost: its fate is unknown, and the new one's acks say nothing of it.
      if (request.client !== this.model.client) {
        this.pending.delete(seq);
        continue;
      }
      if (seq > this.model.ack) continue;
      this.pending.delete(seq);
      this.say(doneText(request, this.model.rev !== request.rev), false);
    }
  }

  // ---------------------------------------------------------------- view

  build(before) {
    const titleId = `${this.id}-title`;
    this.input = h("input", {
      id: `${this.id}-name`, class: "preset-input", type: "text", maxlength: String(MAX_NAME * 2),
      autocomplete: "off", spellcheck: "false", placeholder: "e.g. Warm pad", "aria-describedby": `${this.id}-hint`,
      oninput: () => {
        // The question was about the name as it was typed.
        if (this.replacing != null) this.closeReplace(false);
        this.renderForm();
      },
    });
    this.saveButton = h("button", { type: "submit", class: "preset-button preset-primary" }, "Save");
    this.hint = h("p", { id: `${this.id}-hint`, class: "preset-hint" });
    // Saving over a name that is taken asks first (replaceQuestion).
    this.question = h("span", { id: `${this.id}-replace-question`, class: "preset-question" });
    this.replaceButton = h("button", {
      type: "button", class: "preset-button preset-danger", "data-role": "confirm-replace", "data-writes": "",
      "aria-describedby": this.question.id,
      onclick: () => this.confirmReplace(),
      // A held Enter repeats: the repeat of the Enter that asked must not answer.
      onkeydown: (event) => { if (event.key === "Enter" && event.repeat) event.preventDefault(); },
    }, "Replace");
    this.cancelReplace = h("button", { type: "button", class: "preset-button", "data-role": "cancel-replace",
      onclick: () => this.closeReplace(true) }, "Cancel");
    this.replaceBox = h("div", {
      class: "preset-confirm preset-replace", role: "group", "aria-labelledby": this.question.id, hidden: true,
      onkeydown: (event) => {
        if (event.key === "Escape") { event.preventDefault(); event.stopPropagation(); this.closeReplace(true); }
      },
    }, this.question, h("div", { class: "preset-confirm-actions" }, this.replaceButton, this.cancelReplace));
    this.form = h("form", { class: "preset-save", onsubmit: (event) => this.onSave(event) },
      h("label", { for: `${this.id}-name`, class: "preset-label" }, "Save the current values as"),
      h("div", { class: "preset-save-row" }, this.input, this.saveButton),
      this.hint,
      this.replaceBox);
    this.count = h("span", { class: "preset-count", "aria-hidden": "true" });
    this.list = h("ul", { class: "preset-list", "aria-labelledby": titleId });
    this.empty = h("p", { class: "preset-empty" });
    this.status = h("p", { class: "preset-status", role: "status", "aria-live": "polite" });
    this.section = h("section", { class: "presets-panel", id: this.id, "aria-labelledby": titleId, hidden: true },
      h("div", { class: "presets-head" },
        h("h2", { id: titleId }, "Presets"),
        this.count),
      h("p", { class: "presets-intro" }, "Named sets of this room’s values. A recall sets them all at once, for everyone."),
      this.form,
      this.status,
      this.list,
      this.empty);
    const anchor = before ?? document.querySelector("footer.footnote");
    if (anchor?.parentNode) anchor.before(this.section);
    else document.body.append(this.section);
  }

  /** Redraws what changed; called on every page render. */
  render(closed = false) {
    this.settle();
    const shown = !closed && this.presets != null;
    this.section.hidden = !shown;
    if (!shown) return;
    const readOnly = this.model.readOnly;
    const paused = this.paused();
    const canAct = this.connection.isOpen && !readOnly && !paused;
    this.section.classList.toggle("paused", paused);
    this.section.classList.toggle("read-only", readOnly);
    this.form.hidden = readOnly;
    this.input.disabled = !this.connection.isOpen;
    setText(this.count, String(this.presets.length));
    if (this.drawn.list !== this.listVersion || this.drawn.readOnly !== readOnly) {
      this.drawList(readOnly);
      this.drawn.list = this.listVersion;
      this.drawn.readOnly = readOnly;
      this.drawn.controls = -1;
    }
    if (this.drawn.controls !== this.model.version) {
      this.drawn.controls = this.model.version;
      for (const row of this.rows.values()) row.update();
    }
    for (const button of this.section.querySelectorAll("button[data-writes]")) button.disabled = !canAct;
    this.renderForm();
  }

  renderForm() {
    const raw = this.input.value;
    const { name, error } = cleanPresetName(raw);
    const typed = raw.trim() !== "";
    const existing = name != null ? this.presets?.find((p) => p.name === name) : undefined;
    setText(this.saveButton, existing ? "Replace" : "Save");
    // A question open while the list changes: it names the preset as it is now, or goes when the name is free again.
    if (this.replacing != null) {
      const collision = saveCollision(this.replacing, this.presets);
      if (collision && this.connection.isOpen && !this.model.readOnly && !this.paused()) setText(this.question, collision.question);
      else this.closeReplace(false);
    }
    const paused = this.paused();
    this.saveButton.disabled = !this.connection.isOpen || this.model.readOnly || paused || !name;
    const invalid = typed && error != null;
    setAttr(this.input, "aria-invalid", invalid ? "true" : "false");
    this.hint.classList.toggle("preset-hint-error", invalid && !paused);
    setText(this.hint, paused ? "You are looking at a past moment: go back to live to save or recall a preset."
      : invalid ? error
      : this.replacing != null ? "" // the question under the field says it
      : existing ? `Replaces “${existing.name}” (saved by ${existing.by || "someone"}).`
        : this.presets && this.presets.length >= 100 ? "This room keeps at most 100 presets: delete one first, or save over an existing name."
          : "");
  }

  onSave(event) {
    event.preventDefault();
    const { name, error } = cleanPresetName(this.input.value);
    if (error) {
      setAttr(this.input, "aria-invalid", "true");
      this.input.focus();
      return;
    }
    // A name that is taken: ask before replacing that preset (for everyone).
    const collision = saveCollision(name, this.presets);
    if (collision) {
      this.askReplace(name, collision);
      return;
    }
    this.save(name);
  }

  /** Sends the save; the field empties for the next name. */
  save(name) {
    if (this.send("save", name) != null) {
      this.input.value = "";
      this.renderForm();
      return true;
    }
    return false;
  }

  /** Asks "Replace preset “Warm”, saved by Ann 3 min ago?" under the field, Replace focused (Enter answers yes, Escape no). */
  askReplace(name, collision) {
    this.replacing = name;
    setText(this.question, collision.question);
    this.replaceBox.hidden = false;
    this.renderForm();
    this.replaceButton.focus();
  }

  /** Replace: the save goes out, the question goes, the field keeps the focus for the next name. */
  confirmReplace() {
    const name = this.replacing;
    if (name == null) return;
    this.replacing = null;
    this.replaceBox.hidden = true;
    this.save(name);
    this.input.focus();
  }

  /** Withdraws the question; `refocus`: back to the field, the name selected to change it (Cancel, Escape). */
  closeReplace(refocus) {
    if (this.replacing == null) return;
    this.replacing = null;
    const hadFocus = this.replaceBox.contains(document.activeElement);
    this.replaceBox.hidden = true;
    this.renderForm();
    if (refocus || hadFocus) {
      this.input.focus();
      this.input.select();
    }
  }

  say(text, isError) {
    setText(this.status, text);
    this.status.classList.toggle("preset-status-error", isError);
    clearTimeout(this.statusTimer);
    this.statusTimer = setTimeout(() => setText(this.status, ""), isError ? 8000 : 4000);
  }

  drawList(readOnly) {
    // Keep the focus where it was: a new list (someone else saved) must not throw a typing person out.
    const active = document.activeElement;
    const focus = active && this.list.contains(active)
      ? { name: active.closest("[data-name]")?.dataset.name, role: active.dataset.role, value: active.value,
        start: active.selectionStart, end: active.selectionEnd }
      : null;
    this.rows = new Map();
    const items = this.presets.map((preset) => {
      const row = new PresetRow(this, preset, readOnly);
      this.rows.set(preset.name, row);
      return row.item;
    });
    this.list.replaceChildren(...items);
    this.empty.hidden = items.length > 0;
    setText(this.empty, readOnly ? "No presets in this room yet." : "No presets yet. Save the current values to come back to them later.");
    if (focus?.name != null) {
      const target = this.list.querySelector(`[data-name="${CSS.escape(focus.name)}"] [data-role="${focus.role}"]`);
      if (target) {
        target.focus();
        if (focus.value != null && "value" in target) {
          target.value = focus.value;
          try { target.setSelectionRange(focus.start, focus.end); } catch { /* not a text field */ }
        }
      }
    }
  }
}

/** One preset in the list: name, who saved it and when, its buttons and its changes. */
class PresetRow {
  constructor(panel, preset, readOnly) {
    this.panel = panel;
    this.preset = preset;
    const name = preset.name;
    const key = `${panel.id}-${[...name].map((c) => c.codePointAt(0).toString(36)).join("-")}`;
    this.diffId = `${key}-diff`;
    this.current = h("span", { class: "preset-current", hidden: true }, "current values");
    this.meta = h("span", { class: "preset-meta" });
    this.diffToggle = h("button", {
      type: "button", class: "preset-button", "data-role": "diff", "aria-expanded": "false", "aria-controls": this.diffId,
      onclick: () => this.toggleDiff(),
    }, "Changes");
    this.diff = h("div", { class: "preset-diff", id: this.diffId, hidden: true });
    const buttons = [];
    if (!readOnly) {
      buttons.push(
        h("button", { type: "button", class: "preset-button preset-primary", "data-role": "recall", "data-writes": "",
          onclick: () => panel.send("recall", name) }, "Recall"),
        this.diffToggle,
        h("button", { type: "button", class: "preset-button", "data-role": "rename", "data-writes": "",
          onclick: () => this.startRename() }, "Rename"),
        h("button", { type: "button", class: "preset-button preset-danger", "data-role": "delete", "data-writes": "",
          onclick: () => this.confirmDelete() }, "Delete"));
    } else {
      buttons.push(this.diffToggle);
    }
    this.actions = h("div", { class: "preset-actions", role: "group", "aria-label": `Preset ${name}` }, buttons);
    this.nameBox = h("div", { class: "preset-title" });
    this.item = h("li", { class: "preset", "data-name": name },
      h("div", { class: "preset-head" }, this.nameBox, this.current),
      this.meta,
      this.actions,
      this.diff);
    if (panel.renaming === name && !readOnly) this.drawRename();
    else this.drawName();
    if (panel.confirming === name && !readOnly) this.drawConfirm();
    if (panel.open.has(name)) this.setOpen(true);
  }

  drawName() {
    this.nameBox.replaceChildren(h("span", { class: "preset-name" }, this.preset.name));
  }

  /** Redraws what depends on the room's values: the "current values" mark, the changes, the time. */
  update() {
    const changes = presetChanges(this.preset, this.panel.model.controls);
    this.current.hidden = changes.length > 0;
    const by = this.preset.by ? `by ${this.preset.by}` : "";
    const when = relativeTime(this.preset.time);
    setText(this.meta, [by, when].filter(Boolean).join(" · "));
    if (Number.isFinite(this.preset.time)) this.meta.title = `Saved ${new Date(this.preset.time).toLocaleString()}`;
    setText(this.diffToggle, changes.length ? `Changes (${changes.length})` : "Changes");
    if (!this.diff.hidden) this.drawDiff(changes);
  }

  toggleDiff() {
    this.setOpen(this.diff.hidden);
  }

  setOpen(open) {
    this.diff.hidden = !open;
    setAttr(this.diffToggle, "aria-expanded", open ? "true" : "false");
    if (open) this.panel.open.add(this.preset.name);
    else this.panel.open.delete(this.preset.name);
    if (open) this.drawDiff(presetChanges(this.preset, this.panel.model.controls));
  }

  drawDiff(changes) {
    if (!changes.length) {
      this.diff.replaceChildren(h("p", { class: "preset-diff-none" }, "Nothing would change: the room is at these values."));
      return;
    }
    const swatch = (c, state) => (c.schema.type === "color" && typeof state.hex === "string"
      ? h("span", { class: "preset-swatch", style: { "--swatch": state.hex }, "aria-hidden": "true" }) : null);
    this.diff.replaceChildren(
      h("p", { class: "preset-diff-title" }, "A recall would change:"),
      h("ul", { class: "preset-diff-list" }, changes.map((c) => h("li", { "data-control": c.control },
        h("span", { class: "preset-diff-label" }, c.label),
        h("span", { class: "preset-diff-values" },
          h("span", { class: "preset-diff-now" }, swatch(c, c.now), describeState(c.schema, c.now)),
          h("span", { class: "preset-diff-arrow", "aria-label": "becomes" }, " → "),
          h("span", { class: "preset-diff-to" }, swatch(c, c.preset), describeState(c.schema, c.preset)))))));
  }

  startRename() {
    this.panel.renaming = this.preset.name;
    this.drawRename();
  }

  drawRename() {
    const panel = this.panel;
    const error = h("span", { class: "preset-hint preset-hint-error", id: `${this.diffId}-rename-hint` });
    const input = h("input", {
      type: "text", class: "preset-input", value: this.preset.name, "data-role": "rename-input",
      "aria-label": `New name for ${this.preset.name}`, "aria-describedby": error.id, autocomplete: "off", spellcheck: "false",
      onkeydown: (event) => {
        if (event.key === "Escape") { event.preventDefault(); this.cancelRename(); }
      },
    });
    const form = h("form", {
      class: "preset-rename",
      onsubmit: (event) => {
        event.preventDefault();
        const { name, error: problem } = cleanPresetName(input.value);
        if (problem) {
          setAttr(input, "aria-invalid", "true");
          setText(error, problem);
          return;
        }
        if (name === this.preset.name) { this.cancelRename(); return; }
        if (panel.presets.some((p) => p.name === name)) {
          setAttr(input, "aria-invalid", "true");
          setText(error, `“${name}” is taken: delete it first, or choose another name.`);
          return;
        }
        panel.renaming = null;
        if (panel.send("rename", this.preset.name, name) != null) this.drawName();
      },
    }, input,
    h("button", { type: "submit", class: "preset-button preset-primary", "data-writes": "" }, "Rename"),
    h("button", { type: "button", class: "preset-button", onclick: () => this.cancelRename() }, "Cancel"),
    error);
    this.nameBox.replaceChildren(form);
    queueMicrotask(() => { if (input.isConnected && document.activeElement !== input) { input.focus(); input.select(); } });
  }

  cancelRename() {
    this.panel.renaming = null;
    this.drawName();
    this.item.querySelector('[data-role="rename"]')?.focus();
  }

  confirmDelete() {
    this.panel.confirming = this.preset.name;
    this.drawConfirm();
    this.item.querySelector('[data-role="confirm-delete"]')?.focus();
  }

  drawConfirm() {
    const panel = this.panel;
    const done = () => {
      panel.confirming = null;
      confirm.remove();
    };
    const confirm = h("div", { class: "preset-confirm", role: "group", "aria-label": `Delete ${this.preset.name}?` },
      h("span", {}, `Delete “${this.preset.name}” for everyone?`),
      h("button", { type: "button", class: "preset-button preset-danger", "data-role": "confirm-delete", "data-writes": "",
        onclick: () => { done(); panel.send("delete", this.preset.name); } }, "Delete"),
      h("button", { type: "button", class: "preset-button", "data-role": "keep",
        onclick: () => { done(); this.item.querySelector('[data-role="delete"]')?.focus(); },
        onkeydown: (event) => { if (event.key === "Escape") event.currentTarget.click(); } }, "Keep"));
    confirm.addEventListener("keydown", (event) => {
      if (event.key === "Escape") { event.preventDefault(); done(); this.item.querySelector('[data-role="delete"]')?.focus(); }
    });
    this.actions.after(confirm);
  }
}
