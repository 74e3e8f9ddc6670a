// A control's value as a program wants it, and the wire `set`s that make a
// value. The control math itself is the web client's (web/js/math.js): the
// same functions the page previews with, checked against the shared vectors.

import { position, setValue, thumbsOf } from "../../web/js/math.js";
import { UnknownThumb } from "./errors.js";

/**
 * The value of a state: a slider's or gauge's number, a snap's value (not its
 * index), a toggle's boolean, a button's press count, an xy pad's {x, y}, a
 * range's {lower, upper}, a colour's "#RRGGBB".
 */
export function valueOf(schema, state) {
  if (state == null) return undefined;
  switch (schema?.type) {
    case "slider":
    case "gauge":
    case "snap":
      return state.value;
    case "toggle":
      return state.on;
    case "button":
      return state.presses;
    case "xy":
      return { x: state.x, y: state.y };
    case "range":
      return { lower: state.lower, upper: state.upper };
    case "color":
      return state.hex;
    default:
      return { ...state };
  }
}

const isObject = (v) => v != null && typeof v === "object" && !Array.isArray(v);

/**
 * The `set` messages (without type and seq) that make `value`, in the order to send them:
 * one, except for a range given {lower, upper} or a colour given some of {red, green, blue}
 * (one per thumb; a range's thumbs in the order that the other does not block).
 */
export function setsFor(controlId, schema, value, thumb = null, committed = null) {
  if (thumb != null) return [{ control: controlId, thumb, value }];
  if (schema?.type === "range" && isObject(value)) {
    const thumbs = ["lower", "upper"].filter((t) => value[t] !== undefined);
    // Raising the lower thumb past the current upper one would be clamped by it: move the upper first.
    if (thumbs.length === 2 && committed && value.lower >= committed.upper) thumbs.reverse();
    return thumbs.map((t) => ({ control: controlId, thumb: t, value: value[t] }));
  }
  if (schema?.type === "color" && isObject(value)) {
    return ["red", "green", "blue"].filter((t) => value[t] !== undefined)
      .map((t) => ({ control: controlId, thumb: t, value: value[t] }));
  }
  return [{ control: controlId, value }];
}

/** The thumb a gesture on the control moves: the one given, else its only thumb; a range or colour must say which. */
export function gestureThumb(controlId, schema, thumb = null) {
  const thumbs = thumbsOf(schema);
  if (thumb != null) return thumb;
  if (thumbs.length <= 1) return thumbs[0] ?? null;
  throw new UnknownThumb(`'${controlId}' has ${thumbs.length} thumbs: drag({thumb: "${thumbs.join('"} or {thumb: "')}"})`, {
    code: "unknown_thumb", control: controlId,
  });
}

/**
 * The track fraction (an xy pad: [fx, fy]) at which the thumb shows `value`,
 * as the server would place it: a gesture moves there with `at`.
 */
export function fractionOf(schema, thumb, value, committed) {
  const state = setValue(schema, thumb, value, committed);
  return position(schema, state, thumb);
}
