// How numbers are written on screen.

/** The decimals a step needs (0.01 -> 2, 0.5 -> 1, 5 -> 0), at most `cap`. */
export function decimalsOf(step, cap = 4) {
  if (!step || !Number.isFinite(step)) return null;
  for (let d = 0; d <= cap; d++) {
    const scaled = step * 10 ** d;
    if (Math.abs(scaled - Math.round(scaled)) < 1e-9 * Math.max(1, scaled)) return d;
  }
  return cap;
}

/** A slider value at its step's precision (no step: a thousandth of the span). */
export function formatSliderValue(value, control) {
  if (!Number.isFinite(value)) return "–";
  let d = decimalsOf(control.step);
  if (d === null) {
    const span = Math.abs(control.max - control.min) || 1;
    d = Math.min(4, Math.max(0, Math.ceil(-Math.log10(span / 1000))));
  }
  return fixed(value, d);
}

/** A number with `d` decimals, without "-0". */
export function fixed(value, d) {
  const text = value.toFixed(d);
  return /^-0(\.0*)?$/.test(text) ? text.slice(1) : text;
}

/** A colour level 0–1 with 3 decimals ("0.200"). */
export function formatLevel(level) {
  return fixed(level, 3);
}

/** A colour level rounded to 3 decimals, as a number string for aria-valuenow ("0.2"). */
export function levelNumber(level) {
  return String(Math.round(level * 1000) / 1000);
}

/** A value followed by its unit when there is one ("60 pt"). */
export function withUnit(value, unit) {
  return unit ? `${value} ${unit}` : String(value);
}

/** A plain number as short text: integers as is, others to at most 3 decimals. */
export function formatPlain(value) {
  if (!Number.isFinite(value)) return "–";
  if (Number.isInteger(value)) return String(value);
  return String(Math.round(value * 1000) / 1000);
}
