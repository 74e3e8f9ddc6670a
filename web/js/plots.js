// The live plots of a room: a sparkline in the card of every gauge (and of
// any control whose schema says `"series": true`) with the last ten minutes
// of its committed values, and a button that opens the expanded chart
// (chart.js). The curve is seeded from the series endpoint on every welcome
// (a load or a reconnect) and then grows from the update frames' `changes`
// (each committed value at its arrival time); commits of the other controls
// are kept as the chart's live markers. The page calls `message` with every
// frame before the model applies it, and `render` from its own render.

import { h, setAttr, setText, svg } from "./dom.js";
import { SPARK_SPAN_MS, SeriesData, bandPath, cleanPoints, decimate, extent, gapFor, hasSeries, linePath, linearScale, plotValue, sparkSpan, withHeldValue } from "./chart-math.js";
import { ChartPanel } from "./chart.js";
import { isClaimOnly } from "./protocol.js";
import { SeriesClient } from "./series.js";

const SPARK_W = 300;
const SPARK_H = 40;
/** The sparkline slides along with the clock this often while nothing arrives. */
const SLIDE_MS = 5000;
/** Live values kept per control for the chart (it fetches the rest). */
const LIVE_LIMIT = 50000;
const LIVE_KEEP_MS = 6 * 3600 * 1000;
/** Live commits of other controls kept for the chart's markers. */
const MARKER_LIMIT = 5000;

function chartIcon() {
  return svg("svg", { class: "chart-open-icon", viewBox: "0 0 20 20", width: "16", height: "16", "aria-hidden": "true", focusable: "false" },
    svg("path", { d: "M3 3v14h14" }),
    svg("path", { d: "M6 13l3.5-4 3 2.5L17 6" }));
}

/** One card's sparkline and chart button, placed before its "last changed" line. */
class Sparkline {
  constructor(schema, section, onOpen) {
    const label = schema.label ?? schema.id;
    this.band = svg("path", { class: "spark-band" });
    this.line = svg("path", { class: "spark-line" });
    this.svg = svg("svg", {
      class: "spark", viewBox: `0 0 ${SPARK_W} ${SPARK_H}`, preserveAspectRatio: "none",
      "aria-hidden": "true", focusable: "false",
    }, this.band, this.line);
    this.button = h("button", {
      type: "button", class: "chart-open", "aria-controls": "chart-panel", "aria-expanded": "false",
      "aria-label": `Chart of ${label}`, title: `Chart of ${label}`,
      onclick: () => onOpen(this.button),
    }, chartIcon(), h("span", { class: "chart-open-text" }, "Chart"));
    // The curve itself opens the chart too (for a pointer; the button is the way in for keys and screen readers).
    this.spanText = h("span", { class: "spark-span" }, "10 min");
    this.box = h("div", { class: "spark-box", "aria-hidden": "true", onclick: () => onOpen(this.button) },
      this.svg, this.spanText);
    this.el = h("div", { class: "plot-strip", "data-empty": "true" }, this.box, this.button);
    const before = section.querySelector(":scope > .control-changed");
    if (before) before.before(this.el);
    else section.append(this.el);
  }

  /** Requested points: about one per two pixels of the drawn width. */
  get points() {
    const w = this.svg.clientWidth || SPARK_W;
    return Math.max(30, Math.min(600, Math.round(w / 2)));
  }

  /** Draws the series' span; `current` (the committed value now) holds over a span without commits. */
  draw(data, now, current) {
    const all = data.points(now - SPARK_SPAN_MS, now);
    const { span, label } = sparkSpan(all[0]?.[0], now);
    setText(this.spanText, label);
    const from = now - span;
    const points = withHeldValue(decimate(all.filter((p) => p[0] >= from), from, now, SPARK_W / 2), from, current);
    this.el.dataset.empty = points.length ? "false" : "true";
    this.svg.dataset.points = String(points.length);
    if (!points.length) {
      setAttr(this.band, "d", "");
      setAttr(this.line, "d", "");
      return;
    }
    let [lo, hi] = extent(points);
    if (hi - lo < 1e-12) {
      const pad = Math.abs(lo) * 0.05 || 1;
      lo -= pad;
      hi += pad;
    }
    const x = linearScale(from, now, 0, SPARK_W);
    const y = linearScale(lo, hi, SPARK_H - 3, 3);
    const gap = gapFor(data.base?.width, span);
    setAttr(this.band, "d", bandPath(points, x, y, gap));
    setAttr(this.line, "d", linePath(points, x, y, gap, now));
  }
}

export class Plots {
  /**
   * @param {object} o
   * @param {string} o.room
   * @param {import("./protocol.js").RoomModel} o.model
   * @param {object} o.timeline  the page's Timeline
   * @param {() => (string|null)} o.token
   * @param {() => void} o.onChange  schedules a render
   */
  constructor({ room, model, timeline, token = () => null, onChange = () => {}, fetch: fetcher, base }) {
    Object.assign(this, { room, model, timeline, onChange });
    this.client = new SeriesClient({ room, token, fetch: fetcher, base });
    /** id -> SeriesData: every live value since the page opened. */
    this.live = new Map();
    /** id -> SeriesData: the sparkline's ten minutes, seeded from the endpoint. */
    this.spark = new Map();
    /** id -> Sparkline */
    this.sparks = new Map();
    /** id -> the endpoint's last answer (ok or the refusal). */
    this.answers = new Map();
    this.markers = [];
    this.views = null;
    this.needSeed = false;
    this.seedAsked = 0;
    this.dirty = true;
    this.drawnAt = 0;
    this.slide = 0;
    this.chart = new ChartPanel({
      room, model, client: this.client, timeline,
      liveOf: (id) => this.live.get(id)?.live ?? [],
      liveMarkers: () => this.markers,
      onChange,
    });
  }

  liveOf(id) {
    if (!this.live.has(id)) this.live.set(id, new SeriesData({ keepMs: LIVE_KEEP_MS, limit: LIVE_LIMIT }));
    return this.live.get(id);
  }

  sparkOf(id) {
    if (!this.spark.has(id)) this.spark.set(id, new SeriesData({ keepMs: SPARK_SPAN_MS + 60000 }));
    return this.spark.get(id);
  }

  /** A committed value of a series control at `t`. */
  record(id, t, value) {
    if (!Number.isFinite(value)) return;
    this.liveOf(id).push(t, value);
    this.sparkOf(id).push(t, value);
    this.chart.pushValue(id, t, value);
    this.dirty = true;
  }

  /** Every frame, before the model applies it. */
  message(msg, now = Date.now()) {
    if (msg.type === "welcome") {
      this.needSeed = true;
      return;
    }
    if (msg.type !== "update") return;
    for (const ch of msg.changes ?? []) {
      const held = this.model.controls.get(ch.control);
      const schema = held?.schema;
      if (!schema || isClaimOnly(held, ch)) continue; // a claim taken or let go is no commit
      if (hasSeries(schema)) {
        this.record(ch.control, now, plotValue(ch.state));
        continue;
      }
      const before = this.model.committed(ch.control);
      const joined = (msg.joined ?? []).find((p) => p.client === ch.by);
      this.markers.push({
        key: `${ch.rev}:${ch.control}`, rev: ch.rev, control: ch.control, schema, by: ch.by ?? null,
        name: joined?.name ?? (ch.by != null ? this.model.peers.get(ch.by)?.name ?? null : null),
        time: now, before: before ? { ...before } : null, after: ch.state,
      });
      if (this.markers.length > MARKER_LIMIT) this.markers.splice(0, this.markers.length - MARKER_LIMIT);
      this.chart.addMarker();
    }
  }

  /** The series controls of the room now. */
  seriesIds() {
    return [...this.model.controls].filter(([, c]) => hasSeries(c.schema)).map(([id]) => id);
  }

  /** After a welcome: each series' current value at the welcome, then its ten minutes from the endpoint. */
  async seed(now) {
    const asked = ++this.seedAsked;
    const ids = this.seriesIds();
    for (const id of ids) {
      this.record(id, now, plotValue(this.model.committed(id)));
    }
    if (this.chart.isOpen) this.chart.load();
    await Promise.all(ids.map(async (id) => {
      const points = this.sparks.get(id)?.points ?? 150;
      let answer = await this.client.series(id, { from: now - SPARK_SPAN_MS, points });
      // A young series is drawn over a shorter span (sparkSpan): ask again for that span, at a finer resolution.
      const oldest = answer.ok ? cleanPoints(answer.points)[0]?.[0] : undefined;
      const { span } = sparkSpan(oldest, now);
      if (answer.ok && span < SPARK_SPAN_MS && asked === this.seedAsked) {
        const finer = await this.client.series(id, { from: now - span, points });
        if (finer.ok && finer.points.length > answer.points.length) answer = finer;
      }
      if (asked !== this.seedAsked) return;
      this.answers.set(id, answer);
      if (answer.ok) this.sparkOf(id).seed(answer);
      else this.sparkOf(id).unseed();
      this.dirty = true;
    }));
    if (asked === this.seedAsked) this.onChange();
  }

  /** Puts a sparkline in each series card of freshly built views. */
  attach(views) {
    this.views = views;
    this.sparks = new Map();
    for (const [id, view] of views) {
      const schema = this.model.schema(id);
      if (!hasSeries(schema) || !view.section) continue;
      this.sparks.set(id, new Sparkline(schema, view.section, (button) => this.chart.open(id, button)));
    }
    // The chart of a control rebuilt under it hands the focus back to the new button.
    if (this.chart.isOpen && this.sparks.has(this.chart.id)) this.chart.button = this.sparks.get(this.chart.id).button;
    if (this.sparks.size && !this.slide) {
      this.slide = setInterval(() => {
        this.dirty = true;
        this.onChange();
      }, SLIDE_MS);
    }
    this.dirty = true;
  }

  /** From the page's render: places, seeds and draws. */
  render(views, now = Date.now()) {
    if (views !== this.views) this.attach(views);
    if (this.needSeed && this.model.welcomed) {
      this.needSeed = false;
      this.seed(now);
    }
    if (this.dirty || now - this.drawnAt >= SLIDE_MS) {
      this.dirty = false;
      this.drawnAt = now;
      for (const [id, spark] of this.sparks) spark.draw(this.sparkOf(id), now, plotValue(this.model.committed(id)));
    }
    for (const [id, spark] of this.sparks) setAttr(spark.button, "aria-expanded", this.chart.isOpen && this.chart.id === id ? "true" : "false");
    this.chart.render(now);
  }
}

export function createPlots(options) {
  return new Plots(options);
}
