// The lobby's "New room" form, the pure part: the fields each kind of control
// has in the form (docs/protocol.md, "Controls" and "Control kinds added in
// v1.1"), what the text typed in them means, the control each editor's fields
// make (and back, for JSON pasted in), what is posted to POST /api/rooms, and
// which field a refusal belongs next to. Tested under Node.

/** Room and control ids, as the server takes them. */
export const ID_PATTERN = /^(?!\.\.?$)[A-Za-z0-9_.-]{1,64}$/;
export const ID_RULE = "1 to 64 of the characters A-Z a-z 0-9 _ . -, not . or ..";

/** The controls a new room starts with in the form. */
export const STARTER_CONTROLS = [
  { id: "level", type: "slider", label: "Level", min: 0, max: 1 },
];

/** Every kind, in the order the form offers them, with its name there. */
export const KINDS = [
  ["slider", "Slider"],
  ["snap", "Snap slider (a list of values)"],
  ["range", "Range (two thumbs)"],
  ["color", "Colour"],
  ["gauge", "Gauge (read only: a program sets it)"],
  ["toggle", "Toggle (on or off)"],
  ["xy", "XY pad (two axes)"],
  ["button", "Button (counts presses)"],
];
export const KIND_NAMES = Object.fromEntries(KINDS);

const SCALE = { key: "scale", label: "Scale", input: "select", options: [["", "Linear"], ["log", "Logarithmic"]] };
const DIGITS = { key: "digits", label: "Significant digits", input: "number", hint: "Optional, 1 to 15 (a log scale keeps 3)" };
const UNIT = { key: "unit", label: "Unit", input: "text", hint: "Optional: Hz, %, dB", maxLength: 16 };

/** An xy pad's axis fields, each named `x.min`, `y.scale`… as the server's errors name them. */
function axisFields(axis) {
  return [
    { key: `${axis}.label`, label: "Name", input: "text", hint: "Optional: pan, depth", maxLength: 40 },
    { key: `${axis}.min`, label: "Minimum", input: "number", required: true },
    { key: `${axis}.max`, label: "Maximum", input: "number", required: true },
    { key: `${axis}.step`, label: "Step", input: "number", hint: "Optional" },
    { ...SCALE, key: `${axis}.scale` },
    { ...UNIT, key: `${axis}.unit` },
  ];
}

/**
 * The fields of each kind, after the id and the label and before the group and
 * the description (`input`: number, text, numbers, texts, pair, select; fields
 * of an `axis` are drawn in a fieldset of their own).
 */
export const KIND_FIELDS = {
  slider: [
    { key: "min", label: "Minimum", input: "number", required: true },
    { key: "max", label: "Maximum", input: "number", required: true },
    { key: "step", label: "Step", input: "number", hint: "Optional: whole steps fill the span" },
    SCALE,
    DIGITS,
    UNIT,
  ],
  snap: [
    { key: "values", label: "Values", input: "numbers", required: true, hint: "Numbers in ascending order, separated by commas: 20, 40, 60" },
    { key: "labels", label: "Labels", input: "texts", hint: "Optional, one per value: sine, square, saw" },
    UNIT,
    { key: "layout", label: "Spacing", input: "select", options: [["", "Even (ordinal)"], ["proportional", "By value (proportional)"]] },
  ],
  range: [
    { key: "scale", label: "Scale", input: "pair", required: true, hint: "The whole numbers drawn, lowest and highest: 0, 9" },
    { key: "operable", label: "Reachable", input: "pair", hint: "Optional: the part the thumbs may reach, inside the scale: 0, 3" },
    { key: "minGap", label: "Least gap", input: "number", hint: "Optional: 1 by default, 0 lets the thumbs meet" },
  ],
  color: [
    { key: "step", label: "Step", input: "number", hint: "Optional: the levels' grid, such as 1/255" },
  ],
  gauge: [
    { key: "min", label: "Minimum", input: "number", required: true },
    { key: "max", label: "Maximum", input: "number", required: true },
    UNIT,
  ],
  toggle: [],
  xy: [
    { axis: "x", legend: "Horizontal axis (x)", fields: axisFields("x") },
    { axis: "y", legend: "Vertical axis (y)", fields: axisFields("y") },
  ],
  button: [],
};

/** The fields every control has, before and after its kind's. */
export const TOP_FIELDS = [
  { key: "id", label: "Id", input: "text", required: true, hint: "Unique; letters, digits, . - _", id: true },
  { key: "label", label: "Label", input: "text", hint: "Optional: the id when blank" },
];
export const BOTTOM_FIELDS = [
  { key: "group", label: "Group", input: "text", hint: "Optional: a heading shared with others", maxLength: 60 },
  { key: "description", label: "Description", input: "text", hint: "Optional: help under the label", maxLength: 500 },
];

/** Every field of a kind, flat (an xy pad's axes' fields included). */
export function fieldsOf(kind) {
  const own = (KIND_FIELDS[kind] ?? []).flatMap((f) => f.fields ?? [f]);
  return [...TOP_FIELDS, ...own, ...BOTTOM_FIELDS];
}

const SIMPLE_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** A number as typed: 440, -0.5, 1e3, or a fraction 1/255. */
export function parseNumberText(text) {
  const t = String(text).trim();
  const fraction = /^([^/]+)\/([^/]+)$/.exec(t);
  if (fraction && SIMPLE_NUMBER.test(fraction[1].trim()) && SIMPLE_NUMBER.test(fraction[2].trim())) {
    const value = Number(fraction[1]) / Number(fraction[2]);
    return Number.isFinite(value) ? value : null;
  }
  return SIMPLE_NUMBER.test(t) ? Number(t) : null;
}

function splitList(text) {
  return String(text).split(",").map((s) => s.trim());
}

/**
 * What the text of one field means: `{value}`, `{absent: true}` (blank: the
 * key is left out) or `{error}` (the words beside the field).
 */
export function parseField(spec, text) {
  const t = String(text ?? "").trim();
  if (t === "") return spec.required ? { error: `${spec.label} is required` } : { absent: true };
  switch (spec.input) {
    case "number": {
      const value = parseNumberText(t);
      return value == null ? { error: `'${t}' is not a number` } : { value };
    }
    case "numbers":
    case "pair": {
      const parts = splitList(t).filter((s, i, all) => s !== "" || all.length === 1);
      const values = [];
      for (const part of parts) {
        const value = parseNumberText(part);
        if (value == null) return { error: `'${part}' is not a number` };
        values.push(value);
      }
      if (spec.input === "pair" && values.length !== 2) return { error: "Two numbers, lowest first: 0, 9" };
      return { value: values };
    }
    case "texts":
      return { value: splitList(t) };
    case "select":
      return { value: t };
    default:
      if (spec.id && !ID_PATTERN.test(t)) return { error: `An id is ${ID_RULE}` };
      if (spec.maxLength && t.length > spec.maxLength) return { error: `At most ${spec.maxLength} characters` };
      return { value: t };
  }
}

/** The text a field shows for a value (a list as "20, 40, 60"). */
export function fieldText(spec, value) {
  if (value == null) return "";
  if (Array.isArray(value)) return value.join(", ");
  return String(value);
}

function getPath(object, key) {
  return key.split(".").reduce((o, k) => (o && typeof o === "object" ? o[k] : undefined), object);
}

function setPath(object, key, value) {
  const parts = key.split(".");
  let o = object;
  for (const part of parts.slice(0, -1)) {
    if (!o[part] || typeof o[part] !== "object") o[part] = {};
    o = o[part];
  }
  o[parts[parts.length - 1]] = value;
}

/**
 * The control that a kind's fields make: `texts` is field key -> text
 * (`x.min` for an axis), `extra` the keys the form has no field for (a
 * `state` or `commit` pasted as JSON), kept as they were.
 * @returns {{control: object, errors: Object<string, string>}}
 */
export function controlFromFields(kind, texts, extra = {}) {
  const control = { id: "", type: kind };
  const errors = {};
  for (const spec of fieldsOf(kind)) {
    const parsed = parseField(spec, texts[spec.key]);
    if (parsed.error) errors[spec.key] = parsed.error;
    else if (!parsed.absent) setPath(control, spec.key, parsed.value);
  }
  if (control.id === "") delete control.id;
  return { control: withExtra(control, extra), errors };
}

/**
 * The form's fields for a control (JSON pasted in, or the starter):
 * `{kind, texts, extra}`, or `{error}` when the form cannot show it.
 */
export function fieldsFromControl(control) {
  if (!control || typeof control !== "object" || Array.isArray(control)) return { error: "is not a control { \"id\", \"type\", … }" };
  const kind = control.type;
  if (!(kind in KIND_FIELDS)) {
    return { error: kind == null ? "has no type" : `has the type '${kind}', which is not a kind of control (${KINDS.map(([k]) => k).join(", ")})` };
  }
  const specs = fieldsOf(kind);
  const texts = {};
  for (const spec of specs) texts[spec.key] = fieldText(spec, getPath(control, spec.key));
  const known = new Set(["type", ...specs.map((s) => s.key.split(".")[0])]);
  const extra = {};
  for (const [key, value] of Object.entries(control)) {
    if (!known.has(key)) extra[key] = value;
  }
  // An axis' keys the form has no field for (its digits) stay with the axis.
  for (const axis of kind === "xy" ? ["x", "y"] : []) {
    const given = control[axis];
    if (!given || typeof given !== "object") continue;
    for (const [key, value] of Object.entries(given)) {
      if (!specs.some((s) => s.key === `${axis}.${key}`)) (extra[axis] ??= {})[key] = value;
    }
  }
  return { kind, texts, extra };
}

/** Merges an axis' extra keys back (the form's own keys win). */
export function withExtra(control, extra) {
  const out = { ...control };
  for (const [key, value] of Object.entries(extra ?? {})) {
    if ((key === "x" || key === "y") && value && typeof value === "object") out[key] = { ...value, ...(out[key] ?? {}) };
    else if (!(key in out)) out[key] = value;
  }
  return out;
}

/** A fresh id for a new control of `kind`: "slider", then "slider-2", … not among `taken`. */
export function freshId(kind, taken) {
  const used = new Set(taken);
  if (!used.has(kind)) return kind;
  for (let n = 2; ; n++) if (!used.has(`${kind}-${n}`)) return `${kind}-${n}`;
}

/** A room id for the placeholder: one that no room has. */
export function freshRoomId(known, base = "studio") {
  return freshId(base, known);
}

/** What a new control of `kind` starts with in the form (so that it previews at once). */
export function starterControl(kind, id) {
  const label = (KIND_NAMES[kind] ?? kind).split(" (")[0];
  const control = { id, type: kind, label: id === kind ? label : `${label} ${id.split("-").pop()}` };
  switch (kind) {
    case "slider": return { ...control, min: 0, max: 100, step: 1 };
    case "snap": return { ...control, values: [1, 2, 3] };
    case "range": return { ...control, scale: [0, 9] };
    case "gauge": return { ...control, min: 0, max: 100 };
    case "xy": return { ...control, x: { min: 0, max: 1 }, y: { min: 0, max: 1 } };
    default: return control;
  }
}

/**
 * Checks the server makes that the form can make before posting: ids (their
 * characters, and no two controls with one id), and the required fields.
 * @returns {Array<{index: number, key: string, message: string}>}
 */
export function controlProblems(controls) {
  const problems = [];
  const seen = new Map();
  controls.forEach((c, index) => {
    if (c.id == null) return;
    if (seen.has(c.id)) problems.push({ index, key: "id", message: `'${c.id}' is the id of control ${seen.get(c.id) + 1} too: each control needs its own` });
    else seen.set(c.id, index);
  });
  return problems;
}

/** The starting state of a control, as the server gives it (docs/protocol.md, "Schemas"): for the preview. */
export function initialState(control) {
  if (control.state && typeof control.state === "object") {
    const s = { ...control.state };
    if (control.type === "snap" && s.index == null && s.value != null) s.index = Math.max(0, (control.values ?? []).indexOf(s.value));
    if (control.type === "color" && typeof s.hex === "string" && s.red == null) {
      const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(s.hex);
      if (m) [s.red, s.green, s.blue] = m.slice(1).map((x) => parseInt(x, 16) / 255);
    }
    return s;
  }
  switch (control.type) {
    case "slider":
    case "gauge": return { value: control.min };
    case "snap": return { index: 0 };
    case "range": {
      const lo = (control.operable ?? control.scale)[0];
      return { lower: lo, upper: lo + (control.minGap ?? 1) };
    }
    case "color": return { red: 0, green: 0, blue: 0 };
    case "toggle": return { on: false };
    case "xy": return { x: control.x.min, y: control.y.min };
    case "button": return { presses: 0 };
    default: return {};
  }
}

/** The schema as a welcome carries it: the defaults the server fills in (docs/protocol.md, "Schemas"). */
export function withDefaults(control) {
  const c = { ...control, label: control.label ?? control.id, commit: control.commit ?? "release" };
  if (c.type === "snap") c.layout ??= "ordinal";
  if (c.type === "range") {
    c.operable ??= c.scale;
    c.minGap ??= 1;
  }
  return c;
}

/**
 * The room to post from the form's three fields. `controlsText` is JSON: a
 * list of controls, or a whole room file ({"id", "title", "controls"}), whose
 * id and title are used where the form's fields are blank (the fields win).
 * @returns {{room: object} | {field: string, message: string}}
 */
export function roomFromForm(id, title, controlsText, layout = "") {
  const parsed = parseControlsText(controlsText);
  if (parsed.error) return { field: "controls", message: parsed.error };
  const room = parsed.room ? { ...parsed.room } : { controls: parsed.controls };
  const cleanId = id.trim();
  const cleanTitle = title.trim();
  if (cleanId) room.id = cleanId;
  if (cleanTitle) room.title = cleanTitle;
  if (layout) room.layout = layout;
  if (!room.id) return { field: "id", message: "Give the room an id" };
  if (!ID_PATTERN.test(room.id)) return { field: "id", message: `A room id is ${ID_RULE}` };
  return { room };
}

/** JSON in the Controls box: `{controls}` (a list) or `{room, controls}` (a room file), or `{error}`. */
export function parseControlsText(text) {
  const t = String(text ?? "").trim();
  if (t === "") return { controls: [] };
  let parsed;
  try {
    parsed = JSON.parse(t);
  } catch (error) {
    return { error: `Not valid JSON: ${error.message}` };
  }
  if (Array.isArray(parsed)) return { controls: parsed };
  if (parsed && typeof parsed === "object" && Array.isArray(parsed.controls)) return { room: parsed, controls: parsed.controls };
  return { error: "Expected a list of controls [ … ] or a room file { \"id\", \"controls\": [ … ] }" };
}

/**
 * Where a refusal of POST /api/rooms goes: `{"code":"bad_schema","control",
 * "field","message"}` lands next to the room's id, title or layout, or on the
 * control's field it names (`index` into `controls`, `key`: "min", "x.min",
 * "labels" for "labels[1]"; "" for a field the form has none for, such as a
 * typo in pasted JSON), or under the controls; anything else is the form's
 * own error.
 * @returns {{field: "id"|"title"|"layout"|"controls"|"form", message: string, index?: number, key?: string}}
 */
export function placeError(status, body, controls = []) {
  const message = typeof body?.message === "string" && body.message ? body.message : `The server answered ${status}`;
  if (body?.code !== "bad_schema") return { field: "form", message };
  if (body.control == null) {
    if (["id", "title", "layout"].includes(body.field)) return { field: body.field, message };
    return { field: "controls", message };
  }
  const index = controlIndex(body.control, body.field, message, controls);
  if (index == null) return { field: "controls", message };
  const kind = controls[index]?.type;
  const key = String(body.field ?? "").replace(/\[\d+\]$/, "");
  const known = fieldsOf(kind).some((spec) => spec.key === key) || key === "type";
  // Without the control's words ("control 'size', field 'values': …") beside its own field.
  const short = message.replace(/^control '[^']*', field '[^']*': /, "");
  return { field: "controls", message, index, key: known ? key : "", short: known ? capitalise(short) : message };
}

function capitalise(s) {
  return s ? s[0].toUpperCase() + s.slice(1) : s;
}

/** Which control a refusal names: "#2" is the second; an id used twice is the later one. */
function controlIndex(name, field, message, controls) {
  const numbered = /^#(\d+)$/.exec(String(name));
  if (numbered) {
    const i = Number(numbered[1]) - 1;
    return i >= 0 && i < controls.length ? i : null;
  }
  const matches = controls.map((c, i) => (c?.id === name ? i : -1)).filter((i) => i >= 0);
  if (!matches.length) return null;
  return field === "id" && /another control/.test(message) ? matches[matches.length - 1] : matches[0];
}

/** "1 person", "3 people", "empty". */
export function peopleText(n) {
  if (!Number.isFinite(n) || n <= 0) return "empty";
  return n === 1 ? "1 person" : `${n} people`;
}

/** The room page's address for a room, carrying the lobby's `?name=` along when it had one. */
export function roomHref(id, name = "") {
  const query = new URLSearchParams({ room: id });
  if (name) query.set("name", name);
  return `/?${query}`;
}

/**
 * Why a control cannot be previewed yet (what the server would refuse too, in
 * the words beside its preview), or null. Not a full check: the server's is.
 */
export function previewProblem(control) {
  const span = (o, what = "") => {
    if (!Number.isFinite(o?.min) || !Number.isFinite(o?.max)) return `${what}Minimum and Maximum are numbers`;
    if (o.min >= o.max) return `${what}Maximum must be above Minimum`;
    if (o.scale === "log" && o.min <= 0) return `${what}a log scale starts above 0`;
    if (o.step != null && !(o.step > 0)) return `${what}Step must be above 0`;
    if (o.step != null) {
      const steps = (o.max - o.min) / o.step;
      if (Math.abs(steps - Math.round(steps)) > 1e-9 * Math.max(1, Math.abs(steps))) return `${what}Step must divide the span into whole steps`;
    }
    return null;
  };
  switch (control.type) {
    case "slider":
    case "gauge":
      return span(control);
    case "snap": {
      const v = control.values;
      if (!Array.isArray(v) || v.length === 0) return "Values: at least one number";
      if (v.some((x, i) => i > 0 && !(x > v[i - 1]))) return "Values must be in ascending order, each once";
      if (control.labels && control.labels.length !== v.length) return `Labels: one per value (${v.length})`;
      return null;
    }
    case "range": {
      const [lo, hi] = control.scale ?? [];
      if (!Number.isInteger(lo) || !Number.isInteger(hi) || lo >= hi) return "Scale: two whole numbers, lowest first";
      const [olo, ohi] = control.operable ?? [lo, hi];
      if (!(olo >= lo && ohi <= hi && olo < ohi)) return "Reachable must lie inside the scale";
      return null;
    }
    case "xy":
      return span(control.x, "x: ") ?? span(control.y, "y: ");
    default:
      return null;
  }
}
