// The arithmetic and text of the live plots (the sparkline in a card and the
// expanded chart), with no DOM: scales, value and time ticks, decimation to
// the pixel width, the series kept from fetches and live points, SVG paths,
// marker placement and words, the read-out, and the CSV and SVG files the
// chart exports. Tested under Node (web/test/chart-math.test.mjs).
//
// A point is [t, min, max, last]: a bucket of the series starting at t (Unix
// milliseconds) with the smallest, largest and last value committed in it,
// as the series endpoint answers (docs/web-client.md, "Charts").

import { fixed, formatPlain, withUnit } from "./format.js";
import { clockTime, timeAt } from "./timeline.js";
import { axisText, formatDigits, snapText } from "./controls/values.js";

/** The sparkline's span: the last ten minutes. */
export const SPARK_SPAN_MS = 10 * 60 * 1000;
/** The spans a young series' sparkline is drawn over instead, shortest first. */
const SPARK_SPANS = [30 * 1000, 60 * 1000, 2 * 60 * 1000, 5 * 60 * 1000, SPARK_SPAN_MS];

/**
 * The sparkline's span for a series whose oldest point is at `oldest`: the
 * shortest of 30 s, 1, 2, 5 and 10 min that holds it (so a curve that began a
 * few seconds ago is not a sliver at the right end), with its label.
 */
export function sparkSpan(oldest, now) {
  const age = Number.isFinite(oldest) ? now - oldest : Infinity;
  const span = SPARK_SPANS.find((s) => s >= age) ?? SPARK_SPAN_MS;
  return { span, label: span < 60000 ? `${span / 1000} s` : `${span / 60000} min` };
}

// ------------------------------------------------------------------ scales

/** A linear map of [d0, d1] onto [r0, r1], with `invert` (a zero-width domain maps to r0). */
export function linearScale(d0, d1, r0, r1) {
  const span = d1 - d0;
  const out = r1 - r0;
  const f = (v) => (span === 0 ? r0 : r0 + ((v - d0) / span) * out);
  f.invert = (p) => (out === 0 ? d0 : d0 + ((p - r0) / out) * span);
  f.domain = [d0, d1];
  f.range = [r0, r1];
  return f;
}

/** The smallest 1, 2 or 5 × 10^k at least `raw` (raw > 0). */
export function niceStep(raw) {
  if (!(raw > 0) || !Number.isFinite(raw)) return 1;
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) {
    if (m * power >= raw * (1 - 1e-12)) return m * power;
  }
  return 10 * power;
}

/** The decimals a tick step needs to be written exactly (0.02 → 2, 5 → 0). */
export function stepDecimals(step) {
  if (!(step > 0)) return 0;
  return Math.max(0, Math.min(12, -Math.floor(Math.log10(step) + 1e-9)));
}

/** The 1, 2 or 5 × 10^k nearest `raw` (geometrically): a tick step that leaves neither too few ticks nor too many. */
export function tickStep(raw) {
  if (!(raw > 0) || !Number.isFinite(raw)) return 1;
  const power = 10 ** Math.floor(Math.log10(raw));
  const error = raw / power;
  if (error >= Math.sqrt(50)) return 10 * power;
  if (error >= Math.sqrt(10)) return 5 * power;
  if (error >= Math.sqrt(2)) return 2 * power;
  return power;
}

/**
 * The value axis: a domain with nice ends around [lo, hi] (a flat series
 * gets room around its value) and its ticks, about `count` of them:
 * {lo, hi, step, ticks: [v], decimals}.
 */
export function valueAxis(lo, hi, count = 5) {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) {
    lo = 0;
    hi = 1;
  }
  if (lo > hi) [lo, hi] = [hi, lo];
  if (hi - lo < Math.max(Math.abs(hi), Math.abs(lo), 1e-12) * 1e-9) {
    const pad = lo === 0 ? 1 : Math.abs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  const step = tickStep((hi - lo) / Math.max(1, count - 1));
  const start = Math.floor(lo / step + 1e-9) * step;
  const end = Math.ceil(hi / step - 1e-9) * step;
  const decimals = stepDecimals(step);
  const ticks = [];
  for (let k = 0; ; k++) {
    const v = Number((start + k * step).toFixed(decimals));
    if (v > end + step * 1e-9) break;
    ticks.push(v);
  }
  return { lo: start, hi: end, step, ticks, decimals };
}

/** A value tick's label: the step's decimals, no "-0". */
export function tickLabel(value, decimals) {
  return fixed(value, decimals);
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** The time ticks' steps, smallest first. */
export const TIME_STEPS = [SECOND, 2 * SECOND, 5 * SECOND, 10 * SECOND, 15 * SECOND, 30 * SECOND,
  MINUTE, 2 * MINUTE, 5 * MINUTE, 10 * MINUTE, 15 * MINUTE, 30 * MINUTE,
  HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 2 * DAY, 7 * DAY];

/** The browser's offset from UTC at `t`, in ms (local = UTC + offset). */
function localOffset(t) {
  return -new Date(t).getTimezoneOffset() * MINUTE;
}

/**
 * Time ticks over [from, to], at most `max` of them, on round local times
 * (every 10 s, every 5 min, every hour…): [{t, label}]. A step under a
 * minute is labelled "14:02:30", under a day "14:05", local midnight and
 * longer steps by the day ("Mon 3").
 */
export function timeTicks(from, to, max = 6) {
  if (!(to > from) || max < 1) return [];
  const span = to - from;
  const step = TIME_STEPS.find((s) => span / s < max) ?? Math.ceil(span / max / DAY + 1e-9) * DAY;
  const ticks = [];
  const offset = localOffset(from);
  let t = Math.ceil((from + offset) / step) * step - offset;
  for (; t <= to && ticks.length < max; t += step) {
    ticks.push({ t, label: timeLabel(t, step) });
  }
  return ticks;
}

function timeLabel(t, step) {
  const d = new Date(t);
  const midnight = d.getHours() === 0 && d.getMinutes() === 0 && d.getSeconds() === 0;
  if (step >= DAY || (step >= HOUR && midnight)) {
    return `${d.toLocaleDateString(undefined, { weekday: "short" })} ${d.getDate()}`;
  }
  const text = clockTime(t);
  return step < MINUTE ? text : text.slice(0, 5);
}

// ------------------------------------------------------------------ data

/**
 * Whether a control's card draws a sparkline: a gauge unless its schema says
 * `"series": false`, and any control whose schema says `"series": true`.
 */
export function hasSeries(schema) {
  if (!schema) return false;
  if (schema.type === "gauge") return schema.series !== false;
  return schema.series === true;
}

/** The number a state plots: its `value`, else its first number (a toggle: 1 or 0). */
export function plotValue(state) {
  if (state == null) return null;
  if (typeof state.value === "number") return state.value;
  if (typeof state.on === "boolean") return state.on ? 1 : 0;
  for (const v of Object.values(state)) {
    if (typeof v === "number" && Number.isFinite(v)) return v;
  }
  return null;
}

/** The well-formed points of an answer's `points`, oldest first. */
export function cleanPoints(points) {
  if (!Array.isArray(points)) return [];
  return points
    .filter((p) => Array.isArray(p) && p.length >= 4 && p.slice(0, 4).every((v) => typeof v === "number" && Number.isFinite(v)))
    .map((p) => [p[0], Math.min(p[1], p[2], p[3]), Math.max(p[1], p[2], p[3]), p[3]])
    .sort((a, b) => a[0] - b[0]);
}

/** The index of the last point at or before `t` (points oldest first), -1 when none. */
export function indexAtOrBefore(points, t) {
  let lo = 0;
  let hi = points.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (points[mid][0] <= t) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

/** The index of the point nearest `t` in time, -1 for no points. */
export function nearestIndex(points, t) {
  if (!points.length) return -1;
  const i = indexAtOrBefore(points, t);
  if (i < 0) return 0;
  if (i >= points.length - 1) return points.length - 1;
  return t - points[i][0] <= points[i + 1][0] - t ? i : i + 1;
}

/**
 * At most `buckets` points over [from, to]: the points in each of `buckets`
 * equal slices of the span merged into one — the smallest min, the largest
 * max, the last `last`, at the time of the slice's first point — so no peak
 * is lost however many points fall on one pixel. Points outside the span are
 * left out.
 */
export function decimate(points, from, to, buckets) {
  const n = Math.max(1, Math.floor(buckets));
  const inside = points.filter((p) => p[0] >= from && p[0] <= to);
  if (inside.length <= n || !(to > from)) return inside.map((p) => [...p]);
  const width = (to - from) / n;
  const out = [];
  let key = null;
  let cur = null;
  for (const p of inside) {
    const k = Math.min(n - 1, Math.floor((p[0] - from) / width));
    if (k !== key) {
      if (cur) out.push(cur);
      key = k;
      cur = [...p];
    } else {
      cur[1] = Math.min(cur[1], p[1]);
      cur[2] = Math.max(cur[2], p[2]);
      cur[3] = p[3];
    }
  }
  if (cur) out.push(cur);
  return out;
}

/** The smallest min and the largest max of the points, or null for none. */
export function extent(points) {
  if (!points.length) return null;
  let lo = Infinity;
  let hi = -Infinity;
  for (const p of points) {
    if (p[1] < lo) lo = p[1];
    if (p[2] > hi) hi = p[2];
  }
  return [lo, hi];
}

/**
 * One control's series as this page knows it: the points last fetched
 * (`base`: {width, from, to, points}) and the committed values that arrived
 * live since (`live`: [t, value], the arrival time), kept within `keepMs` of
 * the newest and at most `limit` of them.
 */
export class SeriesData {
  constructor({ keepMs = Infinity, limit = 20000 } = {}) {
    this.keepMs = keepMs;
    this.limit = limit;
    this.base = null;
    this.live = [];
  }

  /** A fetched answer replaces what was fetched before; live points it covers are dropped. */
  seed(answer) {
    const points = cleanPoints(answer?.points);
    const to = Number.isFinite(answer?.to) ? answer.to : (points.length ? points[points.length - 1][0] : -Infinity);
    this.base = {
      width: Number.isFinite(answer?.width) && answer.width > 0 ? answer.width : null,
      from: Number.isFinite(answer?.from) ? answer.from : (points[0]?.[0] ?? to),
      to,
      points,
    };
    this.live = this.live.filter(([t]) => t > to);
  }

  /** Forgets the fetched points (the endpoint has none to give: only live points are drawn). */
  unseed() {
    this.base = null;
  }

  /** A committed value that arrived at `t`. */
  push(t, value) {
    if (!Number.isFinite(value) || !Number.isFinite(t)) return;
    const last = this.live[this.live.length - 1];
    if (last && t < last[0]) t = last[0]; // arrival times never go back
    this.live.push([t, value]);
    const oldest = t - this.keepMs;
    let drop = 0;
    while (drop < this.live.length && (this.live[drop][0] < oldest || this.live.length - drop > this.limit)) drop++;
    if (drop) this.live.splice(0, drop);
  }

  /** The newest time known (the last live point, else the fetch's end), or null. */
  get newest() {
    const last = this.live[this.live.length - 1];
    if (last) return last[0];
    return this.base ? this.base.to : null;
  }

  /** Every point in [from, to]: the fetched ones, then the live ones after the fetch's end. */
  points(from = -Infinity, to = Infinity) {
    const out = [];
    const cut = this.base ? this.base.to : -Infinity;
    for (const p of this.base?.points ?? []) {
      if (p[0] >= from && p[0] <= to) out.push(p);
    }
    for (const [t, v] of this.live) {
      if (t > cut && t >= from && t <= to) out.push([t, v, v, v]);
    }
    return out;
  }
}

/**
 * The points to draw over [from, …]: `points`, or when the span holds none,
 * the control's current value held since `from` (no commit in the span: it
 * had that value all along).
 */
export function withHeldValue(points, from, current) {
  if (points.length || !Number.isFinite(current)) return points;
  return [[from, current, current, current, true]]; // the fifth field: held, not committed then
}

// ------------------------------------------------------------------ paths

function num(v) {
  return Number.isFinite(v) ? (Math.round(v * 10) / 10).toString() : "0";
}

/** Splits points where consecutive times are more than `gap` apart (the source went quiet: the band breaks there). */
export function segments(points, gap = Infinity) {
  const out = [];
  let cur = [];
  for (const p of points) {
    if (cur.length && p[0] - cur[cur.length - 1][0] > gap) {
      out.push(cur);
      cur = [];
    }
    cur.push(p);
  }
  if (cur.length) out.push(cur);
  return out;
}

/**
 * The `last` line through the points: "M x y L x y …". A committed value
 * holds until the next commit, so across a gap of more than `gap` ms the
 * line keeps the earlier value and then steps, and with `until` (now) it
 * runs on at the last value to that time; a lone point without `until` is a
 * short dash.
 */
export function linePath(points, x, y, gap = Infinity, until = null) {
  if (!points.length) return "";
  const last = points[points.length - 1];
  if (points.length === 1 && !(until > last[0])) {
    const px = x(last[0]);
    return `M${num(px - 1.5)} ${num(y(last[3]))}H${num(px + 1.5)}`;
  }
  let d = "";
  points.forEach((p, i) => {
    if (i && p[0] - points[i - 1][0] > gap) d += `L${num(x(p[0]))} ${num(y(points[i - 1][3]))}`;
    d += `${i ? "L" : "M"}${num(x(p[0]))} ${num(y(p[3]))}`;
  });
  if (until > last[0]) d += `L${num(x(until))} ${num(y(last[3]))}`;
  return d;
}

/** The min–max band: along the maxima and back along the minima, closed. */
export function bandPath(points, x, y, gap = Infinity) {
  return segments(points, gap).map((seg) => {
    if (seg.length === 1) {
      const px = x(seg[0][0]);
      return `M${num(px - 1.5)} ${num(y(seg[0][2]))}H${num(px + 1.5)}V${num(y(seg[0][1]))}H${num(px - 1.5)}Z`;
    }
    const top = seg.map((p, i) => `${i ? "L" : "M"}${num(x(p[0]))} ${num(y(p[2]))}`).join("");
    const bottom = [...seg].reverse().map((p) => `L${num(x(p[0]))} ${num(y(p[1]))}`).join("");
    return `${top}${bottom}Z`;
  }).join("");
}

/** The gap past which the band breaks and the line steps: ten bucket widths, or a twentieth of the span, whichever is more. */
export function gapFor(width, span) {
  return Math.max(10 * (width ?? 0), span / 20);
}

// ------------------------------------------------------------------ words

/** A number of the plotted series, with the control's `digits` when it has them (else up to 3 decimals, small numbers to 3 significant digits). */
export function seriesNumber(value, schema) {
  if (!Number.isFinite(value)) return "–";
  if (Number.isInteger(schema?.digits)) return formatDigits(value, schema.digits);
  if (value !== 0 && Math.abs(value) < 0.01) return formatDigits(value, 3);
  return formatPlain(value);
}

/** The same with the control's unit: "-12 dB". */
export function seriesText(value, schema) {
  return withUnit(seriesNumber(value, schema), schema?.unit ?? "");
}

/** A control's state in the words its card uses: "1,070 Hz", "saw", "on", "#336699", "0.25, 40 %". */
export function stateText(schema, state) {
  if (state == null) return "–";
  const unit = schema?.unit ?? "";
  switch (schema?.type) {
    case "slider":
      return axisText(state.value, schema);
    case "gauge":
      return withUnit(formatPlain(state.value), unit);
    case "snap":
      return snapText(schema, state.index, formatPlain(state.value));
    case "range":
      return withUnit(`${formatPlain(state.lower)}–${formatPlain(state.upper)}`, unit);
    case "color":
      return typeof state.hex === "string" ? state.hex.toUpperCase() : "colour";
    case "toggle":
      return state.on ? "on" : "off";
    case "xy":
      return `${axisText(state.x, schema.x ?? {})}, ${axisText(state.y, schema.y ?? {})}`;
    case "button":
      return `${formatPlain(state.presses)}×`;
    default: {
      const v = plotValue(state);
      return v == null ? "–" : withUnit(formatPlain(v), unit);
    }
  }
}

/** Who made a commit, for a marker: the history's name, "API" for an HTTP write. */
export function whoText(by, name) {
  if (by === "api") return "API";
  return name || by || "someone";
}

/**
 * A marker's words: "Ann · Learning rate 0.01 → 0.003 · 14:02:31"; a press
 * "Ann · Trigger note pressed · 14:02:31"; without a known before,
 * "Ann · Cutoff set to 1,070 Hz · 14:02:31".
 */
export function markerText(marker) {
  const { schema, before, after, time } = marker;
  const label = schema?.label ?? marker.control;
  const who = whoText(marker.by, marker.name);
  let what;
  if (schema?.type === "button") what = `${label} pressed`;
  else if (before == null) what = `${label} set to ${stateText(schema, after)}`;
  else what = `${label} ${stateText(schema, before)} → ${stateText(schema, after)}`;
  return `${who} · ${what} · ${clockTime(time)}`;
}

/** The read-out of a point: "14:02:31 · 0.312 (min 0.3, max 0.33)" (one value: no min and max). */
export function readoutText(point, schema) {
  if (!point) return "";
  const [t, min, max, last, held] = point;
  if (held === true) return `${seriesText(last, schema)} throughout: no commit in this span`;
  const head = `${clockTime(t)} · ${seriesText(last, schema)}`;
  if (min === max) return head;
  return `${head} (min ${seriesNumber(min, schema)}, max ${seriesNumber(max, schema)})`;
}

// ------------------------------------------------------------------ markers

/**
 * Markers from the history (oldest first): every commit of a control other
 * than the plotted one and the other series (a published gauge is data, not
 * a change someone made), with the state before it — the previous entry of
 * that control, else `before` (control id → state, the room as it was where
 * the entries start) — and its time in ms:
 * [{key, rev, control, schema, by, name, time, before, after}].
 */
export function historyMarkers(history, { plotted, schemaOf, before = {} }) {
  const last = new Map(Object.entries(before ?? {}));
  const out = [];
  for (const entry of history ?? []) {
    if (!entry || typeof entry.control !== "string") continue;
    const prev = last.get(entry.control) ?? null;
    last.set(entry.control, entry.state);
    const schema = schemaOf(entry.control);
    if (!schema || entry.control === plotted || hasSeries(schema)) continue;
    const time = Date.parse(entry.time);
    if (!Number.isFinite(time)) continue;
    out.push({ key: `${entry.rev}:${entry.control}`, rev: entry.rev, control: entry.control, schema,
      by: entry.by, name: entry.name ?? null, time, before: prev, after: entry.state });
  }
  return out;
}

/** Markers merged by key (a later copy of one commit replaces nothing), oldest first. */
export function mergeMarkers(...lists) {
  const byKey = new Map();
  for (const list of lists) {
    for (const m of list ?? []) if (!byKey.has(m.key)) byKey.set(m.key, m);
  }
  return [...byKey.values()].sort((a, b) => a.time - b.time || a.rev - b.rev);
}

/**
 * The markers inside [from, to] with their x ( `x` maps a time to pixels),
 * oldest first; markers on the same pixel column are stacked (`row` 0, 1, …)
 * so that each stays visible and pointable.
 */
export function placeMarkers(markers, from, to, x, minGap = 6) {
  const out = [];
  let lastX = -Infinity;
  let row = 0;
  for (const m of markers ?? []) {
    if (m.time < from || m.time > to) continue;
    const px = x(m.time);
    row = px - lastX < minGap ? (row + 1) % 4 : 0;
    if (row === 0) lastX = px;
    out.push({ ...m, x: px, row });
  }
  return out;
}

/** The marker nearest the pixel `px`, within `reach` pixels, or null. */
export function markerNear(placed, px, reach = 5) {
  let best = null;
  for (const m of placed) {
    const d = Math.abs(m.x - px);
    if (d <= reach && (!best || d < Math.abs(best.x - px))) best = m;
  }
  return best;
}

/** The history's `since` for a span starting at `from`: the newest timeline mark at or before it, minus one (marks oldest first). */
export function sinceFor(marks, from) {
  let since = 0;
  for (const mark of marks ?? []) {
    if (!(mark.time <= from)) break;
    since = Math.max(0, mark.rev - 1);
  }
  return since;
}

/**
 * The time of the revision the timeline shows (a person scrubbing back), for
 * the chart's cursor: the moment's own time once fetched, else the newest
 * timeline mark at or before it; null while live or for the start.
 */
export function scrubTime(timeline) {
  if (!timeline || timeline.target == null || timeline.target === 0) return null;
  if (timeline.preview?.rev === timeline.target && Number.isFinite(timeline.preview.time)) return timeline.preview.time;
  const t = timeAt(timeline.summary?.marks, timeline.target);
  return Number.isFinite(t) ? t : null;
}

// ------------------------------------------------------------------ layout

/**
 * The chart's geometry for a pixel box: margins around the plot, the scales,
 * ticks on both axes, the band and the line of the points, the markers and
 * the scrub cursor (a time, or null):
 * {width, height, plot: {left, top, right, bottom}, x, y, axis, xTicks, yTicks, band, line, markers, cursor, empty}.
 * `until`: the line runs on at its last value to that time (now: the value holds).
 */
export function chartLayout({ width, height, from, to, points, markers = [], cursor = null, bucket = null, compact = false, until = null }) {
  const ext = extent(points);
  const axis = valueAxis(ext ? ext[0] : 0, ext ? ext[1] : 1, height < 200 ? 4 : 5);
  const yLabels = axis.ticks.map((v) => tickLabel(v, axis.decimals));
  const labelChars = Math.max(2, ...yLabels.map((l) => l.length));
  const plot = {
    left: Math.round(Math.min(width * 0.3, 10 + labelChars * 7.2)),
    top: 22,
    right: width - (compact ? 8 : 14),
    bottom: height - 24 - (markers.length ? 6 : 0),
  };
  const x = linearScale(from, to, plot.left, plot.right);
  const y = linearScale(axis.lo, axis.hi, plot.bottom, plot.top);
  const maxTicks = Math.max(2, Math.floor((plot.right - plot.left) / 84));
  // A label that would stick out of the picture is left off (its half width: about 3.6 px a character).
  const xTicks = timeTicks(from, to, maxTicks).map((t) => ({ ...t, x: x(t.t) }))
    .filter((t) => t.x - t.label.length * 3.6 >= 0 && t.x + t.label.length * 3.6 <= width);
  const yTicks = axis.ticks.map((v, i) => ({ v, y: y(v), label: yLabels[i] }));
  const gap = gapFor(bucket, to - from);
  return {
    width, height, plot, x, y, axis, xTicks, yTicks,
    band: bandPath(points, x, y, gap),
    line: linePath(points, x, y, gap, until),
    markers: placeMarkers(markers, from, to, x),
    cursor: cursor != null && cursor >= from && cursor <= to ? x(cursor) : null,
    cursorTime: cursor != null && cursor >= from && cursor <= to ? cursor : null,
    empty: points.length === 0,
  };
}

// ------------------------------------------------------------------ files

function escapeXML(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]);
}

/** The markers a file lists under its chart, at most. */
const FILE_MARKERS = 12;

/** The colours of a drawn chart (the page passes its own, light or dark). */
export const LIGHT_PALETTE = Object.freeze({
  background: "#ffffff", text: "#111827", muted: "#556070", grid: "#e2e5eb",
  line: "#4f46e5", band: "rgba(79, 70, 229, 0.18)", marker: "#b45309", cursor: "#556070",
  font: "system-ui, -apple-system, 'Segoe UI', Roboto, Arial, sans-serif",
});

/**
 * The chart as SVG markup. `inline`: a standalone file (XML declaration,
 * namespace, a background, the title over the chart and the numbered
 * markers' words under it, every colour in a `style` attribute); else
 * the page's own drawing, styled by classes (the page's CSS sets the
 * colours, light or dark, and its security policy allows no style attributes).
 */
export function chartSVG(layout, { title = "", unit = "", palette = LIGHT_PALETTE, inline = false } = {}) {
  const p = { ...LIGHT_PALETTE, ...palette };
  const look = (cls, style) => (inline ? ` style="${escapeXML(style)}"` : ` class="${cls}"`);
  const { plot, width, height } = layout;
  const parts = [];
  const grid = layout.yTicks.map((t) => `<line x1="${plot.left}" x2="${plot.right}" y1="${num(t.y)}" y2="${num(t.y)}"${look("chart-grid", `stroke:${p.grid};stroke-width:1`)}/>`);
  const yText = layout.yTicks.map((t) => `<text x="${plot.left - 6}" y="${num(t.y + 4)}" text-anchor="end"${look("chart-tick", `fill:${p.muted};font:12px ${p.font}`)}>${escapeXML(t.label)}</text>`);
  const xText = layout.xTicks.map((t) => `<line x1="${num(t.x)}" x2="${num(t.x)}" y1="${plot.bottom}" y2="${plot.bottom + 4}"${look("chart-axis", `stroke:${p.muted};stroke-width:1`)}/>`
    + `<text x="${num(t.x)}" y="${height - 6}" text-anchor="middle"${look("chart-tick", `fill:${p.muted};font:12px ${p.font}`)}>${escapeXML(t.label)}</text>`);
  parts.push(`<g>${grid.join("")}</g>`);
  parts.push(`<line x1="${plot.left}" x2="${plot.right}" y1="${plot.bottom}" y2="${plot.bottom}"${look("chart-axis", `stroke:${p.muted};stroke-width:1`)}/>`);
  parts.push(`<g>${yText.join("")}${xText.join("")}</g>`);
  if (unit) parts.push(`<text x="${plot.left - 6}" y="13" text-anchor="end"${look("chart-unit", `fill:${p.muted};font:600 12px ${p.font}`)}>${escapeXML(unit)}</text>`);
  if (layout.band) parts.push(`<path d="${layout.band}"${look("chart-band", `fill:${p.band};stroke:none`)}/>`);
  if (layout.line) parts.push(`<path d="${layout.line}"${look("chart-line", `fill:none;stroke:${p.line};stroke-width:2;stroke-linejoin:round;stroke-linecap:round`)}/>`);
  const markers = layout.markers.map((m, i) => {
    const y0 = plot.top + m.row * 7;
    const text = escapeXML(markerText(m));
    // A file has no tooltips: its markers are numbered, and listed under the chart.
    const number = inline && i < FILE_MARKERS
      ? `<text x="${num(m.x)}" y="${num(y0 - 9)}" text-anchor="middle"${look("", `fill:${p.marker};font:700 10px ${p.font}`)}>${i + 1}</text>` : "";
    return `<g${inline ? "" : ` class="chart-marker" data-key="${escapeXML(m.key)}"`}><title>${text}</title>${number}`
      + `<line x1="${num(m.x)}" x2="${num(m.x)}" y1="${plot.top}" y2="${plot.bottom + 6}"${look("chart-marker-line", `stroke:${p.marker};stroke-width:1.5;stroke-dasharray:3 2`)}/>`
      + `<path d="M${num(m.x - 4)} ${num(y0 - 6)}H${num(m.x + 4)}L${num(m.x)} ${num(y0)}Z"${look("chart-marker-head", `fill:${p.marker}`)}/>`
      + (inline ? "" : `<line x1="${num(m.x)}" x2="${num(m.x)}" y1="${plot.top - 8}" y2="${plot.bottom + 6}" class="chart-marker-hit"/>`)
      + "</g>";
  });
  parts.push(`<g>${markers.join("")}</g>`);
  if (layout.cursor != null) {
    parts.push(`<line x1="${num(layout.cursor)}" x2="${num(layout.cursor)}" y1="${plot.top - 4}" y2="${plot.bottom}"${look("chart-cursor", `stroke:${p.cursor};stroke-width:2;stroke-dasharray:6 3`)}/>`);
    const right = layout.cursor > (plot.left + plot.right) / 2;
    parts.push(`<text x="${num(layout.cursor + (right ? -6 : 6))}" y="${plot.top + 12}" text-anchor="${right ? "end" : "start"}"${look("chart-cursor-label", `fill:${p.cursor};font:600 12px ${p.font}`)}>${escapeXML(`viewing ${clockTime(layout.cursorTime)}`)}</text>`);
  }
  const body = parts.join("");
  if (!inline) return body;
  // The file: the title over the chart, the numbered markers' words under it.
  const head = title ? 34 : 8;
  const listed = layout.markers.slice(0, FILE_MARKERS);
  const more = layout.markers.length - listed.length;
  const lines = listed.map((m, i) => `${i + 1}  ${markerText(m)}`);
  if (more > 0) lines.push(`and ${more} more`);
  const foot = lines.length ? 12 + 18 * lines.length : 0;
  const total = head + height + foot;
  const out = [`<rect x="0" y="0" width="${width}" height="${total}"${look("", `fill:${p.background}`)}/>`];
  if (title) out.push(`<text x="${plot.left - 6}" y="22"${look("", `fill:${p.text};font:650 15px ${p.font}`)}>${escapeXML(title)}</text>`);
  out.push(`<g transform="translate(0 ${head})">${body}</g>`);
  lines.forEach((line, i) => {
    out.push(`<text x="${plot.left - 6}" y="${head + height + 18 * (i + 1)}"${look("", `fill:${i < listed.length ? p.text : p.muted};font:12px ${p.font}`)}>${escapeXML(line)}</text>`);
  });
  const heading = title ? `<title>${escapeXML(title)}</title>` : "";
  return `<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${total}" viewBox="0 0 ${width} ${total}" role="img"${title ? ` aria-label="${escapeXML(title)}"` : ""}>${heading}${out.join("")}</svg>\n`;
}

/** The series as CSV: a header `time,min,max,last`, then one row per point with its ISO 8601 UTC time. */
export function seriesCSV(points) {
  const rows = ["time,min,max,last"];
  for (const [t, min, max, last] of points ?? []) {
    rows.push([new Date(t).toISOString(), min, max, last].join(","));
  }
  return `${rows.join("\n")}\n`;
}

/** A file name for an export: "synth-level-20261130-140231.csv" (local time). */
export function exportName(room, control, t, ext) {
  const d = new Date(t);
  const two = (n) => String(n).padStart(2, "0");
  const safe = (s) => String(s).replace(/[^A-Za-z0-9_.-]+/g, "_");
  return `${safe(room)}-${safe(control)}-${d.getFullYear()}${two(d.getMonth() + 1)}${two(d.getDate())}-${two(d.getHours())}${two(d.getMinutes())}${two(d.getSeconds())}.${ext}`;
}
