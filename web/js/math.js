// The control math of protocol v1, exactly as the server computes it
// (Sources/TandemCore/Math and Controls/Control+Math.swift), so a drag can be
// previewed locally with the value the server will commit. Pure functions; the
// shared test vectors (Tests/Fixtures/vectors/core.json) check every rule.

/** Rounds half away from zero. Math.round rounds -2.5 to -2; the protocol wants -3. */
export function roundHalfAway(x) {
  const r = Math.round(Math.abs(x));
  return x < 0 ? -r : r;
}

/** x limited to [lo, hi]; NaN comes out as lo. */
export function clamp(x, lo, hi) {
  if (Number.isNaN(x)) return lo;
  return Math.min(Math.max(x, lo), hi);
}

const unit = (f) => clamp(f, 0, 1);

// ---- track geometry -------------------------------------------------------

/** The fraction of the usable track at pointer x: (x - inset) / (width - 2*inset), unclamped.
 *  A track too narrow for its thumb has one position, the low end. */
export function trackFraction(x, width, inset) {
  const usable = Math.max(0, width - 2 * inset);
  return usable > 0 ? (x - inset) / usable : 0;
}

/** The pointer x of a track fraction. */
export function trackX(f, width, inset) {
  return inset + f * Math.max(0, width - 2 * inset);
}

// ---- snap -----------------------------------------------------------------

/** The index at track fraction f: ordinal round(f*(n-1)); proportional nearest position, ties up. */
export function snapIndexAt(f, values, layout = "ordinal") {
  const n = values.length;
  if (n <= 1) return 0;
  f = unit(f);
  if (layout === "proportional") {
    let best = 0;
    let bestDistance = Infinity;
    for (let i = 0; i < n; i++) {
      const d = Math.abs(snapPosition(i, values, "proportional") - f);
      if (d <= bestDistance) { best = i; bestDistance = d; }
    }
    return best;
  }
  return clamp(roundHalfAway(f * (n - 1)), 0, n - 1);
}

/** The track fraction of index i (one value: 0.5). */
export function snapPosition(index, values, layout = "ordinal") {
  const n = values.length;
  if (n <= 1) return 0.5;
  const i = clamp(index, 0, n - 1);
  if (layout === "proportional") {
    return (values[i] - values[0]) / (values[n - 1] - values[0]);
  }
  return i / (n - 1);
}

/** The index of the value nearest to v; ties go to the higher index (what a `set` picks). */
export function snapNearestIndex(value, values) {
  let best = 0;
  let bestDistance = Infinity;
  values.forEach((v, i) => {
    const d = Math.abs(v - value);
    if (d <= bestDistance) { best = i; bestDistance = d; }
  });
  return best;
}

/** The ordinal index under pointer x on a track of width/inset with count values. */
export function snapIndexAtX(x, width, inset, count) {
  if (count <= 1) return 0;
  return clamp(roundHalfAway(unit(trackFraction(x, width, inset)) * (count - 1)), 0, count - 1);
}

/** The pointer x of ordinal index i among count values. */
export function snapX(index, width, inset, count) {
  const f = count <= 1 ? 0.5 : clamp(index, 0, count - 1) / (count - 1);
  return trackX(f, width, inset);
}

// ---- range ----------------------------------------------------------------

/** The raw scale value under fraction f: lo + round(clamp(f) * (hi - lo)). */
export function rangeRaw(f, scale) {
  return scale[0] + roundHalfAway(unit(f) * (scale[1] - scale[0]));
}

/** The track fraction of a thumb at value v. */
export function rangePosition(value, scale) {
  return (value - scale[0]) / (scale[1] - scale[0]);
}

/** {lower, upper} with thumb put at raw and clamped against the other thumb and operable. */
export function rangePlace(thumb, raw, state, operable, minGap = 1) {
  if (thumb === "lower") {
    return { lower: Math.max(operable[0], Math.min(raw, state.upper - minGap)), upper: state.upper };
  }
  return { lower: state.lower, upper: Math.min(operable[1], Math.max(raw, state.lower + minGap)) };
}

/** thumb dragged by dx from its position in start (and clamped against start). */
export function rangeDrag(thumb, dx, start, scale, operable, minGap = 1) {
  const f = rangePosition(start[thumb], scale) + dx;
  return rangePlace(thumb, rangeRaw(f, scale), start, operable, minGap);
}

// ---- slider ---------------------------------------------------------------

function stepCount(min, max, step) {
  return step ? roundHalfAway((max - min) / step) : null;
}

// Grid values are min + span*(k/n), not min + k*step: 70/100 is 0.7, 70*0.01 is not.
function gridValue(k, n, min, max) {
  return k === n ? max : min + (max - min) * (k / n);
}

function gridIndex(value, n, min, max) {
  return clamp(roundHalfAway(((value - min) / (max - min)) * n), 0, n);
}

/** The value at fraction f: min + f*(max-min), snapped to the grid when step is set. */
export function sliderValueAt(f, min, max, step = null) {
  f = unit(f);
  const n = stepCount(min, max, step);
  if (n === null) return min + f * (max - min);
  return gridValue(roundHalfAway(f * n), n, min, max);
}

/** What a `set` stores: clamped into [min, max], then snapped. */
export function sliderSet(value, min, max, step = null) {
  const v = clamp(value, min, max);
  const n = stepCount(min, max, step);
  return n === null ? v : gridValue(gridIndex(v, n, min, max), n, min, max);
}

/** value moved by n steps (no step: n hundredths of the span), stopping at the ends. */
export function sliderStep(value, n, min, max, step = null) {
  const count = stepCount(min, max, step);
  if (count === null) return clamp(value + (n * (max - min)) / 100, min, max);
  const k = clamp(gridIndex(clamp(value, min, max), count, min, max) + n, 0, count);
  return gridValue(k, count, min, max);
}

/** The track fraction of a slider value. */
export function sliderPosition(value, min, max) {
  return (value - min) / (max - min);
}

// ---- significant digits, log scale ----------------------------------------

/** value rounded to `digits` significant digits (half away from zero); 0, NaN and ±∞ pass through.
 *  Scaled by a power of ten that is exact (10^k with k ≥ 0, multiplied or divided), so 1234.5 to
 *  4 digits is 1235, not 1234.4999…; digits null or absent: the value as is. */
export function roundDigits(value, digits) {
  if (digits == null || !(digits > 0) || !Number.isFinite(value) || value === 0) return value;
  const a = Math.abs(value);
  let exponent = Math.floor(Math.log(a) / Math.LN10);
  // The logarithm may land a hair off at exact powers of ten: the exponent is the one with 10^e ≤ |v| < 10^(e+1).
  while (exponent > -400 && a < powerOfTen(exponent)) exponent -= 1;
  while (exponent < 400 && a >= powerOfTen(exponent + 1)) exponent += 1;
  const shift = digits - 1 - exponent;
  let rounded;
  if (shift >= 0) {
    const scale = powerOfTen(shift);
    if (!Number.isFinite(scale)) return value;
    rounded = roundHalfAway(a * scale) / scale;
  } else {
    rounded = roundHalfAway(a / powerOfTen(-shift)) * powerOfTen(-shift);
  }
  if (!Number.isFinite(rounded)) return value;
  return value < 0 ? -rounded : rounded;
}

/** 10^k as the nearest double, what the literal 1eK means (10 ** k may be an ulp off past 1e22), as the server's table. */
function powerOfTen(k) {
  return Number(`1e${k}`);
}

/** Log scale: min·(max/min)^f for f in [0, 1], rounded to `digits`, then clamped to [min, max]. */
export function logValueAt(f, min, max, digits = 3) {
  // min·(max/min)^f, written as the server writes it: min·e^(f·ln(max/min)).
  const raw = min * Math.exp(unit(f) * Math.log(max / min));
  return clamp(roundDigits(raw, digits), min, max);
}

/** Log scale: the track fraction of v, ln(v/min)/ln(max/min). */
export function logPosition(value, min, max) {
  if (!(value > 0)) return 0;
  return Math.log(value / min) / Math.log(max / min);
}

/** Log scale `step` by n: the track fraction moves n/100 from v's position, then logValueAt. */
export function logStep(value, n, min, max, digits = 3) {
  return logValueAt(logPosition(clamp(value, min, max), min, max) + n / 100, min, max, digits);
}

/** Log scale `set`: clamped to [min, max], rounded to `digits` (and kept in [min, max]). */
export function logSet(value, min, max, digits = 3) {
  return clamp(roundDigits(clamp(value, min, max), digits), min, max);
}

/**
 * One axis of slider math, for a slider or an xy pad's axis ({min, max, step?,
 * scale?, digits?}): linear (optionally on a step grid, rounded to `digits`
 * only when given) or log (digits default 3).
 */
export const axisMath = {
  isLog: (axis) => axis.scale === "log",
  digits: (axis) => axis.digits ?? (axis.scale === "log" ? 3 : null),
  valueAt(axis, f) {
    if (axisMath.isLog(axis)) return logValueAt(f, axis.min, axis.max, axisMath.digits(axis));
    return roundedLinear(sliderValueAt(f, axis.min, axis.max, axis.step ?? null), axis);
  },
  position(axis, value) {
    if (axisMath.isLog(axis)) return logPosition(value, axis.min, axis.max);
    return sliderPosition(value, axis.min, axis.max);
  },
  set(axis, value) {
    if (axisMath.isLog(axis)) return logSet(value, axis.min, axis.max, axisMath.digits(axis));
    return roundedLinear(sliderSet(value, axis.min, axis.max, axis.step ?? null), axis);
  },
  step(axis, value, n) {
    if (axisMath.isLog(axis)) return logStep(value, n, axis.min, axis.max, axisMath.digits(axis));
    return roundedLinear(sliderStep(value, n, axis.min, axis.max, axis.step ?? null), axis);
  },
};

/** A linear value rounded to the axis' `digits` when it has them and no step (a grid value is kept as is), kept in [min, max]. */
function roundedLinear(value, axis) {
  if (axis.digits == null || axis.step) return value;
  return clamp(roundDigits(value, axis.digits), axis.min, axis.max);
}

/** An xy pad's state with the pointer at [fx, fy] (fractions; fy = 0 at the y axis' min). */
export function xyAt(control, [fx, fy]) {
  return { x: axisMath.valueAt(control.x, fx), y: axisMath.valueAt(control.y, fy) };
}

/** The [fx, fy] track fractions of an xy state. */
export function xyPosition(control, state) {
  return [axisMath.position(control.x, state.x), axisMath.position(control.y, state.y)];
}

/** An xy drag: each axis from its position in `start` moved by dx (dy up the y axis), clamped, placed. */
export function xyDrag(control, start, dx = 0, dy = 0) {
  const [fx, fy] = xyPosition(control, start);
  return xyAt(control, [unit(fx + dx), unit(fy + dy)]);
}

/** An xy `set`: each given axis set as a slider is; a missing axis stays. */
export function xySet(control, value, context) {
  return {
    x: typeof value?.x === "number" ? axisMath.set(control.x, value.x) : context.x,
    y: typeof value?.y === "number" ? axisMath.set(control.y, value.y) : context.y,
  };
}

/** An xy `step` by [nx, ny]: each axis steps as a slider does. */
export function xyStep(control, [nx, ny], context) {
  return {
    x: nx ? axisMath.step(control.x, context.x, nx) : context.x,
    y: ny ? axisMath.step(control.y, context.y, ny) : context.y,
  };
}

/** What a toggle's `set` stores: true/false or 1/0; anything else null (the server says bad_value). */
export function toggleSet(value) {
  if (value === true || value === 1) return true;
  if (value === false || value === 0) return false;
  return null;
}

/** A toggle's `step` by n: any non-zero whole n flips it; 0 leaves it; a fraction is null (bad_value). */
export function toggleStep(on, n) {
  if (!Number.isInteger(n)) return null;
  return n === 0 ? on : !on;
}

// ---- colour ---------------------------------------------------------------

/** "#RRGGBB": each channel round(c*255), upper-case hex. */
export function colorHex({ red, green, blue }) {
  return "#" + [red, green, blue]
    .map((c) => roundHalfAway(unit(c) * 255).toString(16).toUpperCase().padStart(2, "0"))
    .join("");
}

/** {red, green, blue} of "#RRGGBB" (case-insensitive), or null. */
export function parseHex(text) {
  if (typeof text !== "string" || !/^#[0-9a-fA-F]{6}$/.test(text)) return null;
  const byte = (i) => parseInt(text.slice(i, i + 2), 16) / 255;
  return { red: byte(1), green: byte(3), blue: byte(5) };
}

/** A finite decimal number in text (surrounding spaces allowed), or null. */
export function parseNumber(text) {
  if (typeof text !== "string") return null;
  const body = text.replace(/^[ \t]+|[ \t]+$/g, "");
  if (body === "" || !/^[0-9+\-.eE]+$/.test(body)) return null;
  // Swift's Double(String) and this pattern accept the same decimal forms.
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(body)) return null;
  const value = Number(body);
  return Number.isFinite(value) ? value : null;
}

/** What typed text does to a channel at current: a number is clamped (and snapped); junk changes nothing. */
export function colorChannelFromText(current, text, step = null) {
  const value = parseNumber(text);
  return value === null ? current : sliderSet(value, 0, 1, step);
}

// ---- gauge ----------------------------------------------------------------

/** clamp((v - min) / (max - min), 0, 1). */
export function gaugeFraction(value, min, max) {
  return unit((value - min) / (max - min));
}

// ---- whole controls (schema objects from the welcome, states as on the wire) ----

/** The thumbs a control's drags, sets and steps name. */
export function thumbsOf(control) {
  switch (control.type) {
    case "slider": return ["value"];
    case "snap": return ["index"];
    case "range": return ["lower", "upper"];
    case "color": return ["red", "green", "blue"];
    case "toggle": return ["on"];
    case "xy": return ["xy"];
    case "button": return ["press"];
    default: return [];
  }
}

const withHex = (rgb) => ({ red: rgb.red, green: rgb.green, blue: rgb.blue, hex: colorHex(rgb) });
const snapState = (control, index) => ({ index, value: control.values[index] });
const operableOf = (control) => control.operable ?? control.scale;
const gapOf = (control) => control.minGap ?? 1;

/** A thumb's number: snap index, range integer, slider value, channel level. */
export function thumbValue(control, state, thumb) {
  switch (control.type) {
    case "snap": return state.index;
    case "slider": return state.value;
    case "toggle": return state.on ? 1 : 0;
    case "xy": return { x: state.x, y: state.y };
    case "button": return state.presses;
    default: return state[thumb];
  }
}

/** The track fraction of a thumb in state. */
export function position(control, state, thumb) {
  switch (control.type) {
    case "slider": return axisMath.position(control, state.value);
    case "xy": return xyPosition(control, state);
    case "toggle": return state.on ? 1 : 0;
    case "snap": return snapPosition(state.index, control.values, control.layout ?? "ordinal");
    case "range": return rangePosition(state[thumb], control.scale);
    case "color": return state[thumb];
    default: return 0;
  }
}

/** context with thumb put at fraction f (an xy pad: [fx, fy]), by the kind's math. */
export function place(control, thumb, f, context) {
  switch (control.type) {
    case "slider": return { value: axisMath.valueAt(control, f) };
    case "xy": return xyAt(control, f);
    case "snap": return snapState(control, snapIndexAt(f, control.values, control.layout ?? "ordinal"));
    case "range": return rangePlace(thumb, rangeRaw(f, control.scale), context, operableOf(control), gapOf(control));
    case "color": return withHex({ ...context, [thumb]: sliderValueAt(f, 0, 1, control.step ?? null) });
    default: return context;
  }
}

/** context with thumb at a thumb-number, clamped as a drag of that thumb would be. */
export function hold(control, thumb, number, context) {
  switch (control.type) {
    case "slider": return { value: axisMath.set(control, number) };
    case "xy": return xySet(control, number, context);
    case "toggle": return { on: toggleSet(number) ?? context.on };
    case "snap": return snapState(control, clamp(roundHalfAway(number), 0, control.values.length - 1));
    case "range": return rangePlace(thumb, roundHalfAway(number), context, operableOf(control), gapOf(control));
    case "color": return withHex({ ...context, [thumb]: sliderSet(number, 0, 1, control.step ?? null) });
    default: return context;
  }
}

/** What a `set` of value commits: snap nearest value, gauge stores, others clamp like a drag. */
export function setValue(control, thumb, value, context) {
  switch (control.type) {
    case "snap": return snapState(control, snapNearestIndex(value, control.values));
    case "gauge": return { value, fraction: gaugeFraction(value, control.min, control.max) };
    case "button": return value === true ? { presses: context.presses + 1 } : context;
    default: return hold(control, thumb ?? thumbsOf(control)[0], value, context);
  }
}

/** What a `step` by n (an xy pad: [nx, ny]) commits; never wraps (a toggle flips, a button counts one press). A colour channel with a step moves n steps, without one n/255. */
export function stepBy(control, thumb, n, context) {
  switch (control.type) {
    case "slider": return { value: axisMath.step(control, context.value, n) };
    case "xy": return xyStep(control, n, context);
    case "toggle": return { on: toggleStep(context.on, n) ?? context.on };
    case "button": return n > 0 && Number.isInteger(n) ? { presses: context.presses + 1 } : context;
    case "snap": return snapState(control, clamp(context.index + n, 0, control.values.length - 1));
    case "range": return rangePlace(thumb, context[thumb] + n, context, operableOf(control), gapOf(control));
    case "color": {
      const level = control.step
        ? sliderStep(context[thumb], n, 0, 1, control.step)
        : unit(context[thumb] + n / 255);
      return withHex({ ...context, [thumb]: level });
    }
    default: return context;
  }
}
