// The expanded chart of one series, in a panel under the timeline (not a
// modal dialog: the timeline above it stays in reach, and scrubbing it moves
// the chart's cursor to the moment shown): the time axis with labelled
// ticks, the value axis in the control's unit, the min–max band and the last
// line; a read-out of the point under the pointer (or the one the arrow keys
// reach); zoom buttons "Last minute", "10 min" and "All" that fetch the
// series again at the chart's pixel width; a marker for every commit of the
// other controls in the span (from the room's history, then live), listed
// under the chart as buttons; the timeline's cursor while someone scrubs
// back; and "Download SVG" / "Download CSV". The drawing is chart-math.js'
// (pure); this file is its place on the page.

import { h, setAttr, setText, svg } from "./dom.js";
import {
  SeriesData, chartLayout, chartSVG, decimate, markerNear, markerText, mergeMarkers, nearestIndex, readoutText,
  exportName, plotValue, scrubTime, seriesCSV, seriesText, sinceFor, withHeldValue,
} from "./chart-math.js";
import { loadMarkers, markersUnavailableText, unavailableText } from "./series.js";
import { clockTime } from "./timeline.js";

/** The zoom buttons: a span in ms (null: everything kept). */
export const ZOOMS = [
  { id: "minute", label: "Last minute", span: 60 * 1000 },
  { id: "ten", label: "10 min", span: 10 * 60 * 1000 },
  { id: "all", label: "All", span: null },
];
/** The read-out is spoken at most this often while the pointer or the keys move it. */
const SAY_MS = 700;
/** The chart slides along with the clock this often while nothing arrives. */
const SLIDE_MS = 1000;

/** A file for the person to keep, from text. */
function download(name, type, text) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h("a", { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30000);
}

export class ChartPanel {
  /**
   * @param {object} o
   * @param {string} o.room
   * @param {import("./protocol.js").RoomModel} o.model
   * @param {import("./series.js").SeriesClient} o.client
   * @param {object} o.timeline  the page's Timeline (its scrubbed revision and marks)
   * @param {(id: string) => Array} o.liveOf  the live values of a control since the page opened ([t, v])
   * @param {() => Array} o.liveMarkers  the commits seen live since the page opened
   * @param {() => void} o.onChange  schedules a render
   */
  constructor({ room, model, client, timeline, liveOf, liveMarkers, onChange }) {
    Object.assign(this, { room, model, client, timeline, liveOf, liveMarkers, onChange });
    this.id = null;
    this.schema = null;
    this.button = null;
    this.zoom = "ten";
    this.data = new SeriesData({ limit: 50000 });
    this.answer = null;
    this.history = { ok: null, markers: [], partial: false };
    this.asked = 0;
    this.hover = null; // {time, marker?}
    this.dirty = true;
    this.drawnAt = 0;
    this.drawn = [];
    this.layout = null;
    this.sayTimer = 0;
    this.saidAt = 0;
    this.pendingSay = "";
    this.listKeys = "";
    this.el = null;
  }

  get isOpen() {
    return this.el != null && !this.el.hidden;
  }

  // ------------------------------------------------------------------ building

  build() {
    this.title = h("h2", { id: "chart-title", tabindex: "-1" });
    this.sub = h("p", { class: "chart-sub", id: "chart-sub" });
    this.zoomButtons = ZOOMS.map((z) => h("button", {
      type: "button", class: "chart-zoom-button", "data-zoom": z.id, "aria-pressed": "false",
      onclick: () => this.setZoom(z.id),
    }, z.label));
    this.staticGroup = svg("g", { class: "chart-static" });
    this.overlay = svg("rect", { class: "chart-overlay", x: 0, y: 0, width: 0, height: 0 });
    this.hoverLine = svg("line", { class: "chart-hover", visibility: "hidden" });
    this.hoverDot = svg("circle", { class: "chart-hover-dot", r: 4.5, visibility: "hidden" });
    this.plot = svg("svg", {
      class: "chart-svg", tabindex: "0", role: "group", "aria-roledescription": "chart",
      "aria-labelledby": "chart-plot-label", "aria-describedby": "chart-readout",
      onpointermove: (e) => this.pointAt(e),
      onpointerdown: (e) => this.pointAt(e),
      onpointerleave: (e) => { if (e.pointerType === "mouse") this.clearHover(); },
      onkeydown: (e) => this.key(e),
      onfocus: () => { if (!this.hover) this.moveBy(0, "last"); },
    }, this.overlay, this.staticGroup, this.hoverLine, this.hoverDot);
    this.plotLabel = h("span", { id: "chart-plot-label", class: "sr-only" });
    this.box = h("div", { class: "chart-box" }, this.plotLabel, this.plot);
    this.readout = h("p", { class: "chart-readout", id: "chart-readout" });
    this.said = h("p", { class: "sr-only", role: "status", "aria-live": "polite" });
    this.note = h("p", { class: "chart-note" });
    this.changesTitle = h("h3", { class: "chart-changes-title", id: "chart-changes-title" }, "Changes in this span");
    this.changesNote = h("p", { class: "chart-changes-note" });
    this.changes = h("ul", { class: "chart-changes", "aria-labelledby": "chart-changes-title" });
    this.svgButton = h("button", { type: "button", class: "button-quiet", onclick: () => this.downloadSVG() }, "Download SVG");
    this.csvButton = h("button", { type: "button", class: "button-quiet", onclick: () => this.downloadCSV() }, "Download CSV");
    const panel = h("section", {
      id: "chart-panel", class: "chart-panel", hidden: true, "aria-labelledby": "chart-title", "aria-describedby": "chart-sub",
      onkeydown: (e) => {
        if (e.key === "Escape") {
          e.preventDefault();
          this.close();
        }
      },
    },
    h("div", { class: "chart-card" },
      h("div", { class: "chart-head" },
        this.title,
        h("button", { type: "button", class: "sheet-close chart-close", "aria-label": "Close the chart", onclick: () => this.close() }, "×")),
      this.sub,
      h("div", { class: "chart-zoom", role: "group", "aria-label": "Time span" }, this.zoomButtons),
      this.box,
      this.readout,
      this.said,
      this.note,
      h("section", { class: "chart-changes-box", "aria-labelledby": "chart-changes-title" }, this.changesTitle, this.changesNote, this.changes),
      h("div", { class: "dialog-actions chart-actions" }, this.svgButton, this.csvButton)));
    this.resize = new ResizeObserver(() => {
      this.dirty = true;
      this.onChange();
    });
    this.resize.observe(this.box);
    // Under the timeline, above the controls: scrubbing and the chart in one view.
    if (this.timeline?.el) this.timeline.el.after(panel);
    else if (document.getElementById("controls")) document.getElementById("controls").before(panel);
    else document.body.append(panel);
    this.el = panel;
  }

  // ------------------------------------------------------------------ opening

  /** Opens the chart of control `id`; `button` gets the focus back when it closes. */
  open(id, button) {
    if (!this.el) this.build();
    const schema = this.model.schema(id);
    if (!schema) return;
    this.id = id;
    this.schema = schema;
    this.button = button;
    this.hover = null;
    this.listKeys = "";
    this.changes.replaceChildren();
    const label = schema.label ?? id;
    setText(this.title, `Chart of ${label}`);
    setText(this.plotLabel, `${label} over time`);
    setText(this.sub, `The last value of each moment as a line, the lowest and highest as a band${schema.unit ? `, in ${schema.unit}` : ""}. Marks show when someone changed another control.`);
    const opening = this.el.hidden;
    this.el.hidden = false;
    this.el.dataset.control = id;
    if (opening) {
      this.el.scrollIntoView({ block: "start", behavior: "instant" });
      this.title.focus({ preventScroll: true });
    }
    clearInterval(this.slideTimer);
    this.slideTimer = setInterval(() => {
      this.dirty = true;
      this.onChange();
    }, SLIDE_MS);
    this.setZoom(this.zoom);
  }

  /** Closes the panel; the focus goes back to the button that opened it. */
  close() {
    if (!this.isOpen) return;
    this.el.hidden = true;
    this.id = null;
    this.asked += 1;
    clearTimeout(this.sayTimer);
    clearInterval(this.slideTimer);
    this.button?.focus();
    this.onChange();
  }

  setZoom(zoom) {
    this.zoom = zoom;
    for (const b of this.zoomButtons) setAttr(b, "aria-pressed", b.dataset.zoom === zoom ? "true" : "false");
    this.hover = null;
    this.load();
  }

  /** The span shown now: [from, to]. */
  span(now) {
    const z = ZOOMS.find((item) => item.id === this.zoom);
    if (z?.span) return [now - z.span, now];
    const oldest = this.data.base?.points[0]?.[0] ?? this.data.base?.from ?? this.data.live[0]?.[0] ?? now - 60000;
    return [Math.min(oldest, now - 1000), now];
  }

  /** The plot's width in pixels: the points to ask for. */
  plotWidth() {
    const width = this.box.clientWidth || 600;
    return Math.max(1, Math.round(width - 60));
  }

  /** Fetches the series of the span and its markers (again after a zoom or a reconnect). */
  async load() {
    const id = this.id;
    if (id == null) return;
    const asked = ++this.asked;
    const now = Date.now();
    const z = ZOOMS.find((item) => item.id === this.zoom);
    const from = z?.span ? now - z.span : null;
    this.data = new SeriesData({ limit: 50000 });
    for (const [t, v] of this.liveOf(id)) this.data.push(t, v);
    this.answer = null;
    this.history = { ok: null, markers: [], partial: false };
    this.dirty = true;
    this.render(now);
    const points = this.plotWidth();
    const seriesAnswer = this.client.series(id, { from, to: now, points });
    const markersAnswer = loadMarkers(this.client, {
      from: from ?? -Infinity, to: Infinity,
      since: from == null ? 0 : sinceFor(this.timeline?.summary?.marks, from),
      untilRev: this.model.rev,
      plotted: id,
      schemaOf: (c) => this.model.schema(c),
    });
    const answer = await seriesAnswer;
    if (asked !== this.asked) return;
    this.answer = answer;
    if (answer.ok) this.data.seed(answer);
    this.dirty = true;
    this.onChange();
    const history = await markersAnswer;
    if (asked !== this.asked) return;
    this.history = history.ok ? history : { ...history, markers: [] };
    this.dirty = true;
    this.onChange();
  }

  /** A committed value of the plotted control, as it arrives. */
  pushValue(id, t, value) {
    if (id !== this.id) return;
    this.data.push(t, value);
    this.dirty = true;
  }

  /** A commit of another control, as it arrives. */
  addMarker() {
    if (this.id != null) this.dirty = true;
  }

  // ------------------------------------------------------------------ drawing

  /** Every marker known for the span: the history's, then those seen live (once each). */
  markers() {
    return mergeMarkers(this.history.markers, this.liveMarkers().filter((m) => m.control !== this.id));
  }

  render(now = Date.now()) {
    if (!this.isOpen || this.id == null) return;
    const cursor = scrubTime(this.timeline);
    const width = Math.max(240, Math.floor(this.box.clientWidth || 600));
    const height = width < 520 ? 240 : 320;
    if (!this.dirty && cursor === this.layout?.cursorWanted && width === this.layout?.width && now - this.drawnAt < SLIDE_MS) return;
    this.dirty = false;
    this.drawnAt = now;
    const [from, to] = this.span(now);
    const plotGuess = Math.max(1, width - 60);
    // Once the series answered: a span without commits shows the value it held all along.
    const held = this.answer ? plotValue(this.model.committed(this.id)) : null;
    this.drawn = withHeldValue(decimate(this.data.points(from, to), from, to, plotGuess), from, held);
    const layout = chartLayout({ width, height, from, to, points: this.drawn, markers: this.markers(), cursor, bucket: this.data.base?.width ?? null, compact: width < 520, until: to });
    layout.cursorWanted = cursor;
    layout.from = from;
    layout.to = to;
    this.layout = layout;
    setAttr(this.plot, "width", width);
    setAttr(this.plot, "height", height);
    setAttr(this.plot, "viewBox", `0 0 ${width} ${height}`);
    this.staticGroup.innerHTML = chartSVG(layout, { unit: this.schema?.unit ?? "" });
    const { plot } = layout;
    setAttr(this.overlay, "x", plot.left);
    setAttr(this.overlay, "y", plot.top);
    setAttr(this.overlay, "width", Math.max(0, plot.right - plot.left));
    setAttr(this.overlay, "height", Math.max(0, plot.bottom - plot.top));
    this.plot.dataset.points = String(this.drawn.length);
    this.plot.dataset.markers = String(layout.markers.length);
    this.drawHover();
    this.renderList(layout.markers);
    this.renderNote(cursor, from, to);
  }

  renderNote(cursor, from, to) {
    const parts = [];
    if (this.answer == null) parts.push("Loading…");
    else if (!this.answer.ok) parts.push(unavailableText(this.answer, this.schema?.label ?? this.id));
    if (this.layout.empty && this.answer != null) parts.push("No values in this span yet.");
    if (cursor != null && (cursor < from || cursor > to)) {
      parts.push(`The timeline's moment, ${clockTime(cursor)}, is outside this span${this.zoom === "all" ? "" : ": choose All to see it"}.`);
    }
    setText(this.note, parts.join(" "));
    this.note.hidden = parts.length === 0;
    let changesNote = "";
    if (this.history.ok === false) changesNote = markersUnavailableText(this.history);
    else if (this.history.partial) changesNote = "Only the newest changes are marked: the span holds more than can be read at once.";
    setText(this.changesNote, changesNote);
    this.changesNote.hidden = !changesNote;
  }

  /** The list under the chart, one button per marker of the span (kept while it does not change, so the focus stays). */
  renderList(placed) {
    const keys = placed.map((m) => m.key).join(",");
    if (keys === this.listKeys) return;
    this.listKeys = keys;
    const focused = document.activeElement?.closest?.(".chart-change")?.dataset.key;
    const items = placed.map((m) => {
      const text = markerText(m);
      return h("li", {}, h("button", {
        type: "button", class: "chart-change", "data-key": m.key,
        onclick: () => this.showMarker(m.key),
      }, text));
    });
    if (!items.length) items.push(h("li", { class: "chart-changes-none" }, this.history.ok == null ? "Looking for changes…" : "No other control changed in this span."));
    this.changes.replaceChildren(...items);
    if (focused) this.changes.querySelector(`.chart-change[data-key="${CSS.escape(focused)}"]`)?.focus();
  }

  /** The hover line and dot at the hovered time, and the read-out's words. */
  drawHover() {
    const layout = this.layout;
    const point = this.hover ? this.drawn[nearestIndex(this.drawn, this.hover.time)] : null;
    for (const el of this.staticGroup.querySelectorAll(".chart-marker.is-active")) el.classList.remove("is-active");
    if (this.hover?.marker) {
      this.staticGroup.querySelector(`.chart-marker[data-key="${CSS.escape(this.hover.marker.key)}"]`)?.classList.add("is-active");
    }
    if (!point || !layout) {
      setAttr(this.hoverLine, "visibility", "hidden");
      setAttr(this.hoverDot, "visibility", "hidden");
      const last = this.drawn[this.drawn.length - 1];
      setText(this.readout, !last ? "" : last[4] === true ? readoutText(last, this.schema) : `Latest: ${readoutText(last, this.schema)}`);
      return;
    }
    const x = layout.x(point[0]);
    const y = layout.y(point[3]);
    for (const [k, v] of [["x1", x], ["x2", x], ["y1", layout.plot.top], ["y2", layout.plot.bottom]]) setAttr(this.hoverLine, k, v.toFixed(1));
    setAttr(this.hoverDot, "cx", x.toFixed(1));
    setAttr(this.hoverDot, "cy", y.toFixed(1));
    setAttr(this.hoverLine, "visibility", "visible");
    setAttr(this.hoverDot, "visibility", "visible");
    const text = this.hover.marker
      ? `${markerText(this.hover.marker)} — ${seriesText(point[3], this.schema)} then`
      : readoutText(point, this.schema);
    setText(this.readout, text);
  }

  // ------------------------------------------------------------------ reading

  pointAt(event) {
    if (!this.layout) return;
    const rect = this.plot.getBoundingClientRect();
    const px = ((event.clientX - rect.left) * this.layout.width) / Math.max(1, rect.width);
    const { plot } = this.layout;
    const clamped = Math.min(plot.right, Math.max(plot.left, px));
    const marker = markerNear(this.layout.markers, px);
    this.hover = marker ? { time: marker.time, marker } : { time: this.layout.x.invert(clamped) };
    this.drawHover();
    this.say(this.readout.textContent);
  }

  clearHover() {
    this.hover = null;
    this.drawHover();
  }

  /** The arrow keys move the read-out point by point; Page keys by ten; Home and End to the ends. */
  key(event) {
    const moves = { ArrowLeft: -1, ArrowRight: 1, ArrowDown: -1, ArrowUp: 1, PageDown: -10, PageUp: 10 };
    if (event.key in moves) this.moveBy(moves[event.key]);
    else if (event.key === "Home") this.moveBy(0, "first");
    else if (event.key === "End") this.moveBy(0, "last");
    else return;
    event.preventDefault();
  }

  moveBy(step, to = null) {
    if (!this.drawn.length) return;
    let i;
    if (to === "first") i = 0;
    else if (to === "last" || !this.hover) i = this.drawn.length - 1;
    else i = nearestIndex(this.drawn, this.hover.time) + step;
    i = Math.max(0, Math.min(this.drawn.length - 1, i));
    this.hover = { time: this.drawn[i][0] };
    this.drawHover();
    this.say(this.readout.textContent);
  }

  /** A marker of the list: the read-out goes to its time, and says it. */
  showMarker(key) {
    const marker = this.layout?.markers.find((m) => m.key === key);
    if (!marker) return;
    this.hover = { time: marker.time, marker };
    this.drawHover();
    this.say(this.readout.textContent, true);
  }

  /** The live region, at most every SAY_MS (the newest words win). */
  say(text, now = false) {
    this.pendingSay = text;
    const due = this.saidAt + SAY_MS - Date.now();
    clearTimeout(this.sayTimer);
    const flush = () => {
      this.saidAt = Date.now();
      setText(this.said, this.pendingSay);
    };
    if (now || due <= 0) flush();
    else this.sayTimer = setTimeout(flush, due);
  }

  // ------------------------------------------------------------------ export

  /** The page's colours now (light or dark), for a file that looks as the chart does. */
  palette() {
    const style = getComputedStyle(this.el);
    const get = (name, fallback) => style.getPropertyValue(name).trim() || fallback;
    return {
      background: get("--surface", "#ffffff"), text: get("--text", "#111827"), muted: get("--muted", "#556070"),
      grid: get("--border", "#e2e5eb"), line: get("--plot-line", "#4f46e5"), band: get("--plot-band", "rgba(79, 70, 229, 0.18)"),
      marker: get("--plot-marker", "#b45309"), cursor: get("--plot-cursor", "#556070"),
    };
  }

  /** The chart as a standalone SVG file's text. */
  svgText() {
    if (!this.layout) return "";
    const label = this.schema?.label ?? this.id;
    const { from, to } = this.layout;
    return chartSVG(this.layout, { title: `${label}, ${clockTime(from)}–${clockTime(to)}`, unit: this.schema?.unit ?? "", palette: this.palette(), inline: true });
  }

  /** The series of the span as CSV: the points fetched, then the values that arrived live since. */
  csvText() {
    if (!this.layout) return seriesCSV([]);
    return seriesCSV(this.data.points(this.layout.from, this.layout.to));
  }

  downloadSVG() {
    download(exportName(this.room, this.id, Date.now(), "svg"), "image/svg+xml", this.svgText());
  }

  downloadCSV() {
    download(exportName(this.room, this.id, Date.now(), "csv"), "text/csv", this.csvText());
  }
}
