// How a control's display options show a value: `digits` (significant digits), `unit`,
// log-scale ticks at decades, snap `labels`. Pure, tested under Node.

import { formatSliderValue, withUnit } from "../format.js";
import { axisMath, roundDigits } from "../math.js";

/** A number to at most `digits` significant digits, grouped ("20,000", "632", "0.0013"). */
export function formatDigits(value, digits) {
  if (!Number.isFinite(value)) return "–";
  const rounded = roundDigits(value, digits);
  return new Intl.NumberFormat("en-US", { maximumSignificantDigits: Math.min(21, Math.max(1, digits)) }).format(rounded);
}

/**
 * A slider's (or an xy axis') value as text, without the unit: to its digits
 * when it has them (a log slider: 3 by default), else at its step's precision.
 */
export function formatAxisValue(value, axis) {
  const digits = axisMath.digits(axis);
  if (digits != null) return formatDigits(value, digits);
  return formatSliderValue(value, axis);
}

/** The value with its unit ("632 Hz"). */
export function axisText(value, axis) {
  return withUnit(formatAxisValue(value, axis), axis.unit ?? "");
}

/** A short tick label: 20, 100, 1k, 10k, 2.5M. */
export function shortNumber(value) {
  const abs = Math.abs(value);
  for (const [size, suffix] of [[1e9, "G"], [1e6, "M"], [1e3, "k"]]) {
    if (abs >= size) return `${formatDigits(value / size, 3)}${suffix}`;
  }
  return formatDigits(value, 3);
}

/**
 * The ticks of a log scale [min, max]: the ends and every power of ten
 * between (labelled), and 2× and 5× of each decade (not labelled) when
 * the scale spans few enough decades to show them. A decade's label is left
 * off when it would crowd an end's label (closer than 8 % of the track).
 * Returns [{f, value, label}] in track order (label null: a bare tick).
 */
export function logTicks(min, max) {
  if (!(min > 0 && max > min)) return [];
  const span = Math.log(max / min);
  const fOf = (v) => Math.log(v / min) / span;
  const ticks = new Map([[min, true], [max, true]]);
  const decades = Math.log10(max / min);
  const minors = decades <= 4 ? [2, 5] : [];
  for (let e = Math.floor(Math.log10(min)); 10 ** e <= max; e++) {
    const decade = 10 ** e;
    for (const [k, labelled] of [[1, true], ...minors.map((k) => [k, false])]) {
      const v = roundDigits(k * decade, 3);
      if (v <= min || v >= max || ticks.has(v)) continue;
      const crowded = labelled && (fOf(v) < 0.08 || fOf(v) > 0.92);
      ticks.set(v, labelled && !crowded);
    }
  }
  return [...ticks].sort((a, b) => a[0] - b[0])
    .map(([value, labelled]) => ({ f: fOf(value), value, label: labelled ? shortNumber(value) : null }));
}

/** A snap value's text: its label when the control has labels, else the value with its unit. */
export function snapText(control, index, fallback) {
  const label = control.labels?.[index];
  if (typeof label === "string") return label;
  return withUnit(fallback, control.unit ?? "");
}

/** "Ann, 2 min ago": who last changed a control and how long ago, updated as time passes. */
export function changedText(name, at, now) {
  const seconds = Math.max(0, Math.round((now - at) / 1000));
  let ago;
  if (seconds < 10) ago = "just now";
  else if (seconds < 60) ago = `${seconds} s ago`;
  else if (seconds < 3600) ago = `${Math.floor(seconds / 60)} min ago`;
  else if (seconds < 86400) ago = `${Math.floor(seconds / 3600)} h ago`;
  else {
    const days = Math.floor(seconds / 86400);
    ago = days === 1 ? "yesterday" : `${days} days ago`;
  }
  return `${name}, ${ago}`;
}
