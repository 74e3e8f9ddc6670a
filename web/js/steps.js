// Keyboard steps on a focused thumb: which key asks for what, and what a
// coarse or fine step sends. Pure, tested under Node (web/test/steps.test.mjs).
//
//   Arrow keys         one step (`step` by ±1)
//   Shift+Arrow        coarse: ten steps (`step` by ±10), as PageUp/PageDown
//   Alt+Arrow          fine, where the kind has a finer resolution than its
//                      step: a slider without a `step` (linear or log), an xy
//                      axis without a `step`, a colour channel without a
//                      `step` move a thousandth of the track (a `set`, since
//                      that is not a whole number of protocol steps); every
//                      other kind (a step grid, snap, range) has nothing finer
//                      and moves one step
//   Home / End         `set` to the ends
//   Enter              edit the exact value (the card's value field)

import { axisMath, clamp, logPosition, logValueAt, roundDigits, roundHalfAway } from "./math.js";

/** Steps per coarse step (Shift+Arrow, PageUp/PageDown). */
export const COARSE = 10;
/** A fine step is one of this many parts of the track: a tenth of a plain step (1/100). */
export const FINE_DIVISIONS = 1000;

const ARROWS = { ArrowRight: [1, "x"], ArrowUp: [1, "y"], ArrowLeft: [-1, "x"], ArrowDown: [-1, "y"] };

/**
 * What a keydown on a thumb asks for, or null (the key keeps its usual job):
 * {by, arrow?}  steps (arrow: "x" for ←/→, "y" for ↑/↓, null for Page keys),
 * {fine, arrow} a fine step of ±1,
 * {end: "min"|"max"}, {edit: true}, {cancel: true}.
 */
export function keyIntent({ key, shiftKey = false, altKey = false, ctrlKey = false, metaKey = false } = {}) {
  if (ctrlKey || metaKey) return null;
  const arrow = ARROWS[key];
  if (arrow) {
    const [dir, axis] = arrow;
    if (altKey) return { fine: dir, arrow: axis };
    return { by: shiftKey ? dir * COARSE : dir, arrow: axis };
  }
  if (altKey) return null;
  switch (key) {
    case "PageUp": return { by: COARSE, arrow: null };
    case "PageDown": return { by: -COARSE, arrow: null };
    case "Home": return { end: "min" };
    case "End": return { end: "max" };
    case "Enter": return shiftKey ? null : { edit: true };
    case "Escape": return { cancel: true };
    default: return null;
  }
}

/** 10^e of the last of `digits` significant digits of v (the smallest change `digits` can show there). */
export function lastDigit(value, digits) {
  const a = Math.abs(value);
  if (!(a > 0)) return 10 ** -(digits - 1);
  return Number(`1e${Math.floor(Math.log10(roundDigits(a, digits))) - digits + 1}`);
}

/**
 * An axis' value `n` fine steps from `value` ({min, max, step?, scale?, digits?}),
 * or null when the axis has no finer resolution than its step (a step grid).
 * A fine step is a thousandth of the track: on a log axis the track fraction
 * moves n/1000; on a linear one the value goes to the next thousandth of the
 * span (min + span·k/1000, as clean as a step grid's values); rounding to `digits` that would swallow the move gives
 * way to one unit of the last digit instead.
 */
export function fineValue(axis, value, n) {
  if (axis.step) return null;
  const { min, max } = axis;
  let next;
  if (axisMath.isLog(axis)) {
    // As the protocol's log step (the track fraction moves n/100), by n/1000.
    next = logValueAt(logPosition(clamp(value, min, max), min, max) + n / FINE_DIVISIONS, min, max, axisMath.digits(axis));
  } else {
    // Grid values as the server's: min + span·(k/n), not min + k·(span/n) (70/100 is 0.7; 70·0.01 is not).
    const k = clamp(roundHalfAway(((value - min) / (max - min)) * FINE_DIVISIONS) + n, 0, FINE_DIVISIONS);
    next = axisMath.set(axis, k === FINE_DIVISIONS ? max : min + (max - min) * (k / FINE_DIVISIONS));
  }
  const digits = axisMath.digits(axis);
  if (next === value && digits != null) next = axisMath.set(axis, value + n * lastDigit(value, digits));
  return next;
}

/**
 * The message a fine step by n (±1) of a thumb sends, against its shown state:
 * {type: "set", value} (a finer value), {type: "step", by} (the kind has
 * nothing finer: one step), or null (already at the end: nothing to send).
 * `axis` names the xy pad's axis ("x" or "y").
 */
export function fineMessage(control, thumb, n, state, axis = "x") {
  switch (control.type) {
    case "slider": {
      const next = fineValue(control, state.value, n);
      if (next == null) return { type: "step", by: n };
      return next === state.value ? null : { type: "set", value: next };
    }
    case "xy": {
      const next = fineValue(control[axis], state[axis], n);
      if (next == null) return { type: "step", by: axis === "x" ? [n, 0] : [0, n] };
      return next === state[axis] ? null : { type: "set", value: { [axis]: next } };
    }
    case "color": {
      if (control.step) return { type: "step", by: n };
      const next = fineValue({ min: 0, max: 1 }, state[thumb], n);
      return next === state[thumb] ? null : { type: "set", value: next };
    }
    default:
      return { type: "step", by: n };
  }
}

/** Whether a kind has a finer resolution than one step for this thumb (the docs' table, as code). */
export function hasFine(control, axis = "x") {
  switch (control.type) {
    case "slider": return !control.step;
    case "xy": return !control[axis]?.step;
    case "color": return !control.step;
    default: return false;
  }
}
