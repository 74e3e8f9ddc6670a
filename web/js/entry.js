// Exact values: what a person may type into a control's value field, what a
// `set` of it will commit, and, when that is not what was typed, why
// ("clamped to 20,000 Hz (the maximum)"). The math is the server's
// (math.js, checked against the shared vectors), so the field shows the
// committed result at once. Pure, tested under Node (web/test/entry.test.mjs).
//
// A field is named by `which`: a slider's "value", a snap's "index", a
// range's "lower" or "upper", an xy pad's axis "x" or "y", a colour's
// channel "red", "green" or "blue".
//
// Typed text: a decimal number (".5", "-3", "1e3", "20,000" with commas
// grouping thousands), optionally followed by a k, M or G multiplier
// ("1.5k" is 1500) and by the control's own unit in any case ("440 hz");
// a snap also takes one of its labels, or the start of just one ("tri").

import { formatLevel, formatPlain, withUnit } from "./format.js";
import { axisMath, parseNumber, roundHalfAway, setValue } from "./math.js";
import { axisText } from "./controls/values.js";

const MULTIPLIERS = { k: 3, K: 3, M: 6, G: 9 };

/**
 * A number typed with an optional multiplier and unit.
 * @returns {{value: number} | {problem: "empty"|"not_a_number"|"decimal_comma"|"unit", typed?: string, hint?: string}}
 */
export function parseQuantity(text, unit = "") {
  let t = String(text ?? "")
    .replace(/[\u00a0\u2009\u202f]/g, " ")
    .replace(/[\u2212\u2013]/g, "-")
    .trim();
  if (t === "") return { problem: "empty" };
  if (unit) {
    const lower = t.toLowerCase();
    if (lower.endsWith(unit.toLowerCase()) && t.length > unit.length) t = t.slice(0, t.length - unit.length).trim();
  }
  let exponent = 0;
  const multiplied = /^(.*[\d.])\s*([kKMG])$/.exec(t);
  if (multiplied && !/[eE]/.test(multiplied[1])) {
    t = multiplied[1].trim();
    exponent = MULTIPLIERS[multiplied[2]];
  }
  if (t.includes(",")) {
    if (/^[+-]?\d{1,3}(,\d{3})+(\.\d*)?$/.test(t)) t = t.replace(/,/g, "");
    else if (/^[+-]?\d*,\d+$/.test(t)) return { problem: "decimal_comma", hint: t.replace(",", ".") };
  }
  // The multiplier shifts the decimal exponent ("1.1k" is 1.1e3, exactly 1100, not 1.1 × 1000).
  const value = parseNumber(exponent ? `${t}e${exponent}` : t);
  if (value !== null) return { value };
  const withWord = /^[+-]?(\d[\d,]*\.?\d*|\.\d+)\s*([^\d\s.,+-].*)$/.exec(t);
  // "1e400" (too large) and "1e" are numbers gone wrong, not a unit.
  if (withWord && !/^[eE][+-]?\d*$/.test(withWord[2])) return { problem: "unit", typed: withWord[2].trim() };
  return { problem: "not_a_number" };
}

/** The axis a field edits: {min, max, step?, scale?, digits?, unit?} (a range's operable span, a channel's 0–1). */
export function axisOf(control, which) {
  switch (control.type) {
    case "slider": return control;
    case "xy": return control[which] ?? { min: 0, max: 1 };
    case "color": return { min: 0, max: 1, step: control.step ?? null };
    case "range": {
      const [lo, hi] = control.operable ?? control.scale;
      return { min: lo, max: hi, step: 1 };
    }
    case "snap": {
      const values = control.values ?? [];
      return { min: values[0], max: values[values.length - 1], unit: control.unit ?? "" };
    }
    default: return { min: 0, max: 0 };
  }
}

/** The field's text for a state: what the card shows ("1,070 Hz", "saw", "3", "0.400"). */
export function fieldText(control, which, state) {
  if (!state) return "";
  switch (control.type) {
    case "slider": return axisText(state.value, control);
    case "xy": return axisText(state[which], axisOf(control, which));
    case "color": return formatLevel(state[which]);
    case "range": return String(state[which]);
    case "snap": {
      const label = control.labels?.[state.index];
      return typeof label === "string" ? label : withUnit(formatPlain(state.value), control.unit ?? "");
    }
    default: return "";
  }
}

/** The number a field stands for in a state. */
export function fieldNumber(control, which, state) {
  switch (control.type) {
    case "slider": return state.value;
    case "snap": return state.value;
    default: return state[which];
  }
}

/**
 * The field's text while it is being edited: the shown text, or the value
 * in full when the shown text rounds it (a slider without a step shows a
 * thousandth of its span: 0.123 of 0.12345).
 */
export function exactText(control, which, state) {
  const text = fieldText(control, which, state);
  if (!state || (control.type !== "slider" && control.type !== "xy")) return text;
  const axis = axisOf(control, which);
  // A step's grid is shown at the step's precision: exact already (56, not 56.00000000000001).
  if (axis.step) return text;
  // 15 significant digits: the value as typed, without binary noise (0.30000000000000004 is 0.3).
  const value = Number(fieldNumber(control, which, state)?.toPrecision?.(15));
  const parsed = parseQuantity(text, axis.unit ?? "");
  if (parsed.value === value || !Number.isFinite(value)) return text;
  return withUnit(String(value), axis.unit ?? "");
}

const near = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/** A step as words: "0.01", "5 %", and "1/255" where the decimals would run on (0.00392…). */
export function stepText(step, unit = "") {
  const decimal = String(Number(step.toPrecision(12)));
  const n = 1 / step;
  if (decimal.length > 6 && step < 1 && near(n, Math.round(n))) return withUnit(`1/${Math.round(n)}`, unit);
  return withUnit(decimal, unit);
}

/** "from 20 to 20,000 Hz" (the unit once, at the end). */
function spanText(control, which) {
  const axis = axisOf(control, which);
  if (control.type === "color") return "a level from 0 to 1";
  if (control.type === "range") return `a whole number from ${axis.min} to ${axis.max}`;
  const end = (v) => (control.type === "snap" ? formatPlain(v) : axisText(v, { ...axis, unit: "" }));
  return `a value from ${end(axis.min)} to ${withUnit(end(axis.max), axis.unit ?? "")}`;
}

/** A snap's label for typed text: exact (any case), else the one label it starts; {index} or {ambiguous: [labels]} or null. */
export function matchLabel(labels, text) {
  if (!Array.isArray(labels)) return null;
  const t = String(text ?? "").trim().toLowerCase();
  if (t === "") return null;
  const exact = labels.findIndex((l) => l.toLowerCase() === t);
  if (exact >= 0) return { index: exact };
  const starts = labels.map((l, i) => [l, i]).filter(([l]) => l.toLowerCase().startsWith(t));
  if (starts.length === 1) return { index: starts[0][1] };
  if (starts.length > 1) return { ambiguous: starts.map(([l]) => l) };
  return null;
}

/** "sine, square or saw". */
function orList(words) {
  return words.length <= 1 ? words.join("") : `${words.slice(0, -1).join(", ")} or ${words[words.length - 1]}`;
}

/** What typed text means for a field: {value} (the number a `set` sends), or {error} in words. */
export function parseEntry(control, which, text) {
  const shown = String(text ?? "").trim();
  const labels = control.type === "snap" && Array.isArray(control.labels) && control.labels.length === (control.values ?? []).length
    ? control.labels : null;
  if (labels) {
    const match = matchLabel(labels, shown);
    if (match?.index != null) return { value: control.values[match.index], label: true };
    if (match?.ambiguous) return { error: `'${shown}' could be ${orList(match.ambiguous)}: type more of it` };
  }
  const axis = axisOf(control, which);
  const unit = axis.unit ?? "";
  const parsed = parseQuantity(shown, unit);
  if (parsed.value != null) return { value: parsed.value };
  const want = labels ? `one of ${orList(labels)}` : spanText(control, which);
  switch (parsed.problem) {
    case "empty": return { error: `Type ${want}` };
    case "decimal_comma": return { error: `'${shown}': write decimals with a point (${parsed.hint})` };
    case "unit":
      return unit
        ? { error: `'${shown}': '${parsed.typed}' is not this control's unit (${unit})` }
        : { error: `'${shown}': type a plain number, this control has no unit` };
    default:
      if (labels) return { error: `'${shown}' is not ${want}` };
      return { error: `'${shown}' is not a number: type ${want}` };
  }
}

/** The state a `set` of `value` on the field commits against `context` (the shown state). */
export function setResult(control, which, value, context) {
  switch (control.type) {
    case "slider": return setValue(control, "value", value, context);
    case "snap": return setValue(control, "index", value, context);
    case "xy": return setValue(control, "xy", { [which]: value }, context);
    default: return setValue(control, which, value, context);
  }
}

/** Why the committed value is not the typed one (null: it is). `text` is the committed value as shown. */
export function reasonText(control, which, typed, state, context) {
  const result = fieldNumber(control, which, state);
  if (near(typed, result)) return null;
  const text = fieldText(control, which, state);
  const axis = axisOf(control, which);
  switch (control.type) {
    case "snap":
      if (typed > axis.max) return `clamped to ${text} (the largest value)`;
      if (typed < axis.min) return `clamped to ${text} (the smallest value)`;
      return `snapped to ${text}, the nearest value`;
    case "range": {
      const whole = roundHalfAway(typed);
      const gap = control.minGap ?? 1;
      if (whole === result) return `rounded to ${text} (whole numbers only)`;
      if (which === "lower") {
        if (whole < axis.min && result === axis.min) return `clamped to ${text} (the lowest it can reach)`;
        return gap ? `clamped to ${text} (${gap} below the upper thumb)` : `clamped to ${text} (at the upper thumb)`;
      }
      if (whole > axis.max && result === axis.max) return `clamped to ${text} (the highest it can reach)`;
      return gap ? `clamped to ${text} (${gap} above the lower thumb)` : `clamped to ${text} (at the lower thumb)`;
    }
    default: {
      if (typed > axis.max) return `clamped to ${text} (the maximum)`;
      if (typed < axis.min) return `clamped to ${text} (the minimum)`;
      if (axis.step) return `snapped to ${text} (steps of ${stepText(axis.step, control.type === "color" ? "" : axis.unit ?? "")})`;
      const digits = axisMath.digits(axis);
      if (digits != null) return `rounded to ${text} (${digits} significant digit${digits === 1 ? "" : "s"})`;
      return `set to ${text}`;
    }
  }
}

/**
 * Everything about typed text for one field, against the shown state:
 * {error} when nothing may be sent, else {value} (what the `set` sends),
 * {state} (what it will commit), {text} (the field's text then) and
 * {reason} (null, or why that is not what was typed).
 */
export function entryFor(control, which, text, context) {
  const parsed = parseEntry(control, which, text);
  if (parsed.error) return { error: parsed.error };
  const state = setResult(control, which, parsed.value, context);
  return {
    value: parsed.value,
    state,
    text: fieldText(control, which, state),
    reason: parsed.label ? null : reasonText(control, which, parsed.value, state, context),
  };
}
