// The lobby's New room form, its controls part: one fieldset per control —
// its kind, its fields (those of its kind: lobby-form.js), a live preview drawn
// by the room page's own control views — with Move up, Move down and Remove,
// and "Add a control". Errors stand beside their field (aria-invalid, and the
// field's aria-describedby names the error).

import { Actions } from "./actions.js";
import { h, setText } from "./dom.js";
import {
  BOTTOM_FIELDS, KINDS, KIND_FIELDS, KIND_NAMES, TOP_FIELDS, controlFromFields, controlProblems, fieldsFromControl,
  freshId, initialState, previewProblem, starterControl, withDefaults,
} from "./lobby-form.js";
import { RoomModel, withDerived } from "./protocol.js";
import { createButton } from "./controls/button.js";
import { createColor } from "./controls/color.js";
import { createGauge } from "./controls/gauge.js";
import { createRange } from "./controls/range.js";
import { createSlider } from "./controls/slider.js";
import { createSnap } from "./controls/snap.js";
import { createToggle } from "./controls/toggle.js";
import { createXY } from "./controls/xy.js";

const VIEWS = {
  slider: createSlider, snap: createSnap, range: createRange, color: createColor,
  gauge: createGauge, toggle: createToggle, xy: createXY, button: createButton,
};

let editors = 0;

/**
 * Stands in for the server in a preview: every message is acknowledged at
 * once, and a release, a set or a step commits what the page predicted (the
 * page's math is the server's), so the preview moves as the room will.
 */
class LocalRoom {
  constructor(model, changed) {
    this.model = model;
    this.changed = changed;
    this.rev = 0;
    this.isOpen = true;
    this.state = "open";
  }

  send(msg) {
    queueMicrotask(() => {
      const update = { type: "update", ack: msg.seq };
      const commits = msg.type === "set" || msg.type === "step" || (msg.type === "drag" && msg.phase === "end");
      if (commits && this.model.controls.has(msg.control)) {
        this.rev += 1;
        update.rev = this.rev;
        update.changes = [{ control: msg.control, state: this.model.shown(msg.control), rev: this.rev }];
      }
      this.model.applyUpdate(update, Date.now());
      this.changed();
    });
    return true;
  }
}

/** A control drawn as the room will draw it, in `box`; "" when it can be, else why not. */
function drawPreview(box, control) {
  box.replaceChildren();
  const problem = previewProblem(control);
  if (problem) {
    box.append(h("p", { class: "preview-note" }, `No preview yet: ${problem}.`));
    return;
  }
  const id = `preview-${++editors}`;
  const schema = withDefaults({ ...control, id, label: control.label ?? control.id });
  const model = new RoomModel();
  let frame = 0;
  let view = null;
  const redraw = () => {
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      if (view && box.isConnected) view.update(model.shown(id), []);
    });
  };
  try {
    model.applyWelcome({
      type: "welcome", client: "preview", role: "editor", room: "preview", rev: 0,
      controls: [{ ...schema, state: withDerived(schema, initialState(schema)), rev: 0 }], peers: [], gestures: [],
    }, Date.now());
    const actions = new Actions(model, new LocalRoom(model, redraw), redraw);
    view = VIEWS[control.type](schema, { model, actions });
    view.update(model.shown(id), []);
    box.append(view.section);
  } catch (error) {
    box.replaceChildren(h("p", { class: "preview-note" }, `No preview: ${error.message}`));
  }
}

/** One field: its label, input, hint and error, tied together. */
function fieldRow(spec, uid, text, onInput) {
  const id = `${uid}-${spec.key.replace(/\./g, "-")}`;
  const hintId = spec.hint ? `${id}-hint` : null;
  const errorId = `${id}-error`;
  const attrs = {
    id, name: spec.key, "data-key": spec.key, "aria-describedby": [hintId, errorId].filter(Boolean).join(" "),
    "aria-required": spec.required ? "true" : null,
  };
  let input;
  if (spec.input === "select") {
    input = h("select", attrs, spec.options.map(([value, words]) => h("option", { value }, words)));
    input.value = text;
  } else {
    const numeric = spec.input === "number" || spec.input === "numbers" || spec.input === "pair";
    input = h("input", {
      ...attrs, type: "text", autocomplete: "off", spellcheck: "false",
      inputmode: spec.input === "number" ? "decimal" : null, maxlength: spec.maxLength ?? null,
      class: numeric ? "numeric" : null,
    });
    input.value = text;
  }
  input.addEventListener(spec.input === "select" ? "change" : "input", onInput);
  const row = h("div", { class: `field field-${spec.input}`, "data-field": spec.key },
    h("label", { for: id }, spec.label, spec.required ? h("span", { class: "required", "aria-hidden": "true" }, " *") : null),
    input,
    hintId ? h("p", { id: hintId, class: "hint" }, spec.hint) : null,
    h("p", { id: errorId, class: "field-error" }));
  return { row, input, error: row.querySelector(".field-error") };
}

/** One control's fieldset in the form. */
class ControlEditor {
  constructor(list, control, hooks) {
    this.uid = `ce${++editors}`;
    this.hooks = hooks;
    this.extra = {};
    this.inputs = new Map();
    this.errors = new Map();
    this.legend = h("legend", {});
    this.kindSelect = h("select", { id: `${this.uid}-kind`, name: "type", "data-key": "type", "aria-describedby": `${this.uid}-type-error` },
      KINDS.map(([value, words]) => h("option", { value }, words)));
    this.kindSelect.addEventListener("change", () => this.changeKind(this.kindSelect.value));
    this.kindError = h("p", { id: `${this.uid}-type-error`, class: "field-error" });
    this.fields = h("div", { class: "ce-fields" });
    this.preview = h("div", { class: "ce-preview-box" });
    this.previewTitle = h("p", { class: "ce-preview-title", id: `${this.uid}-preview-title` }, "Preview");
    this.controlError = h("p", { class: "field-error ce-error", id: `${this.uid}-error`, role: "alert" });
    const button = (words, label, onclick, cls = "") => h("button", { type: "button", class: `button-quiet button-small ${cls}`.trim(), "aria-label": label, onclick }, words);
    this.up = button("↑ Move up", "", () => hooks.move(this, -1), "ce-up");
    this.down = button("↓ Move down", "", () => hooks.move(this, 1), "ce-down");
    this.remove = button("Remove", "", () => hooks.remove(this), "ce-remove");
    this.fieldset = h("fieldset", { class: "control-editor", "aria-describedby": this.controlError.id },
      this.legend,
      h("div", { class: "ce-body" },
        h("div", { class: "ce-form" },
          h("div", { class: "field field-select", "data-field": "type" },
            h("label", { for: this.kindSelect.id }, "Kind"), this.kindSelect, this.kindError),
          this.fields),
        h("div", { class: "ce-preview", role: "group", "aria-labelledby": this.previewTitle.id }, this.previewTitle, this.preview)),
      this.controlError,
      h("div", { class: "ce-actions" }, this.up, this.down, this.remove));
    this.item = h("li", { class: "control-editor-item" }, this.fieldset);
    list.append(this.item);
    this.load(control);
  }

  /** Shows `control` in the fields (its kind's fields, the rest kept aside). */
  load(control) {
    const found = fieldsFromControl(control);
    this.extra = found.extra;
    this.build(found.kind, found.texts);
  }

  build(kind, texts) {
    this.kind = kind;
    this.kindSelect.value = kind;
    this.inputs.clear();
    this.errors.clear();
    const onInput = (key) => () => {
      this.clearError(key);
      this.changed();
    };
    const add = (spec, parent) => {
      const { row, input, error } = fieldRow(spec, this.uid, texts[spec.key] ?? "", onInput(spec.key));
      this.inputs.set(spec.key, input);
      this.errors.set(spec.key, error);
      parent.append(row);
    };
    this.fields.replaceChildren();
    for (const spec of TOP_FIELDS) add(spec, this.fields);
    for (const spec of KIND_FIELDS[kind]) {
      if (spec.fields) {
        const box = h("fieldset", { class: "axis-fields" }, h("legend", {}, spec.legend));
        for (const f of spec.fields) add(f, box);
        this.fields.append(box);
      } else {
        add(spec, this.fields);
      }
    }
    for (const spec of BOTTOM_FIELDS) add(spec, this.fields);
    this.changed();
  }

  /** Another kind: the id, label, group and description stay; the rest is the new kind's. */
  changeKind(kind) {
    const keep = Object.fromEntries(["id", "label", "group", "description"].map((k) => [k, this.inputs.get(k)?.value ?? ""]));
    const starter = fieldsFromControl(starterControl(kind, keep.id || kind)).texts;
    const { state, ...rest } = this.extra; // a starting state is of the old kind
    this.extra = rest;
    delete this.extra.x;
    delete this.extra.y;
    this.build(kind, { ...starter, ...Object.fromEntries(Object.entries(keep).filter(([, v]) => v !== "")) });
    this.hooks.changed();
  }

  texts() {
    return Object.fromEntries([...this.inputs].map(([key, input]) => [key, input.value]));
  }

  /** `{control, errors}` from the fields as they are. */
  read() {
    return controlFromFields(this.kind, this.texts(), this.extra);
  }

  changed() {
    const { control, errors } = this.read();
    const name = control.label || control.id || "new control";
    setText(this.legend, `${this.hooks.number(this)}. ${name} · ${KIND_NAMES[this.kind].split(" (")[0]}`);
    this.up.setAttribute("aria-label", `Move ${name} up`);
    this.down.setAttribute("aria-label", `Move ${name} down`);
    this.remove.setAttribute("aria-label", `Remove ${name}`);
    if (Object.keys(errors).length) {
      this.preview.replaceChildren(h("p", { class: "preview-note" }, "No preview yet: fix the fields marked."));
    } else {
      drawPreview(this.preview, control);
    }
    this.hooks.changed?.();
  }

  /** An error beside field `key` ("" or unknown: the control's own line). */
  showError(key, message) {
    const input = key === "type" ? this.kindSelect : this.inputs.get(key);
    const error = key === "type" ? this.kindError : this.errors.get(key);
    if (!input) {
      setText(this.controlError, message);
      return this.fieldset;
    }
    setText(error, message);
    input.setAttribute("aria-invalid", "true");
    return input;
  }

  clearError(key) {
    const input = this.inputs.get(key);
    if (input?.getAttribute("aria-invalid") === "true") {
      input.removeAttribute("aria-invalid");
      setText(this.errors.get(key), "");
    }
    setText(this.controlError, "");
  }

  clearErrors() {
    for (const key of this.inputs.keys()) this.clearError(key);
    this.kindSelect.removeAttribute("aria-invalid");
    setText(this.kindError, "");
    setText(this.controlError, "");
  }

  focus() {
    this.kindSelect.focus();
  }
}

/**
 * The list of control editors.
 * @param {{list: HTMLOListElement, add: HTMLButtonElement, status: HTMLElement, changed?: () => void}} o
 */
export class ControlsEditor {
  constructor({ list, add, status, changed = () => {} }) {
    Object.assign(this, { list, status, addButton: add, changedHook: changed });
    this.editors = [];
    this.hooks = {
      number: (editor) => this.editors.indexOf(editor) + 1,
      move: (editor, by) => this.move(editor, by),
      remove: (editor) => this.remove(editor),
      changed: () => this.changedHook(),
    };
    add.addEventListener("click", () => {
      const kind = "slider";
      const editor = this.append(starterControl(kind, freshId(kind, this.ids())));
      this.renumber();
      editor.focus();
      setText(this.status, `Added control ${this.editors.length}: pick its kind and fill in its fields`);
    });
  }

  ids() {
    return this.editors.map((e) => e.inputs.get("id")?.value.trim()).filter(Boolean);
  }

  append(control) {
    const editor = new ControlEditor(this.list, control, this.hooks);
    this.editors.push(editor);
    return editor;
  }

  /** Replaces every editor with these controls; `{index, message}` for one the form cannot show. */
  set(controls) {
    for (const [index, control] of controls.entries()) {
      const found = fieldsFromControl(control);
      if (found.error) return { index, message: `Control ${index + 1} ${found.error}: fix it in the JSON` };
    }
    this.list.replaceChildren();
    this.editors = [];
    for (const control of controls) this.append(control);
    this.renumber();
    return null;
  }

  /** `{controls, errors: [{index, key, message}]}`: the fields' own errors and the ids' clashes. */
  read() {
    const controls = [];
    const errors = [];
    this.editors.forEach((editor, index) => {
      const { control, errors: own } = editor.read();
      controls.push(control);
      for (const [key, message] of Object.entries(own)) errors.push({ index, key, message });
    });
    errors.push(...controlProblems(controls));
    return { controls, errors };
  }

  move(editor, by) {
    const from = this.editors.indexOf(editor);
    const to = from + by;
    if (to < 0 || to >= this.editors.length) return;
    this.editors.splice(from, 1);
    this.editors.splice(to, 0, editor);
    const focused = document.activeElement;
    const next = this.editors[to + 1]?.item ?? null;
    this.list.insertBefore(editor.item, next);
    this.renumber();
    // The focus stays on the button pressed, or on the other one when this one is spent (first, last).
    if (focused === editor.up || focused === editor.down) (focused.disabled ? (by < 0 ? editor.down : editor.up) : focused).focus();
    else focused?.focus?.();
    const name = editor.read().control.label || editor.read().control.id;
    setText(this.status, `Moved ${name} ${by < 0 ? "up" : "down"}: control ${to + 1} of ${this.editors.length}`);
    this.changedHook();
  }

  remove(editor) {
    const index = this.editors.indexOf(editor);
    const name = editor.read().control.label || editor.read().control.id || "the control";
    this.editors.splice(index, 1);
    editor.item.remove();
    this.renumber();
    // The focus goes to the control that took its place (or the one before), else to Add a control.
    const next = this.editors[Math.min(index, this.editors.length - 1)];
    if (next) next.focus();
    else this.addButton.focus();
    setText(this.status, `Removed ${name}; ${this.editors.length === 1 ? "1 control" : `${this.editors.length} controls`} left`);
    this.changedHook();
  }

  /** Numbers the legends, and which moves each editor offers. */
  renumber() {
    this.editors.forEach((editor, i) => {
      editor.up.disabled = i === 0;
      editor.down.disabled = i === this.editors.length - 1;
      const legend = editor.legend.textContent.replace(/^\d+\. /, `${i + 1}. `);
      setText(editor.legend, legend);
    });
  }

  /** An error beside control `index`'s field `key`; returns the element to focus. */
  showError(index, key, message) {
    return this.editors[index]?.showError(key, message) ?? null;
  }

  clearErrors() {
    for (const editor of this.editors) editor.clearErrors();
  }
}
