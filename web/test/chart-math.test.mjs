// The live plots' arithmetic and words (web/js/chart-math.js), with no DOM:
// scales, ticks, decimation, the series kept from fetches and live points,
// paths, markers, the read-out, and the exported CSV and SVG.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  LIGHT_PALETTE, SeriesData, bandPath, chartLayout, chartSVG, cleanPoints, decimate, exportName, extent, hasSeries,
  historyMarkers, indexAtOrBefore, linePath, linearScale, markerNear, markerText, mergeMarkers, nearestIndex,
  niceStep, placeMarkers, scrubTime, sparkSpan, tickStep, withHeldValue, plotValue, readoutText, segments, seriesCSV, seriesNumber, sinceFor, stateText, timeTicks,
  valueAxis, whoText,
} from "../js/chart-math.js";

const T0 = new Date(2026, 10, 30, 14, 2, 31).getTime(); // local 14:02:31
const LR = { id: "lr", type: "slider", label: "Learning rate", min: 0.0001, max: 0.1, scale: "log", digits: 3 };
const CUTOFF = { id: "cutoff", type: "slider", label: "Cutoff", min: 20, max: 20000, scale: "log", digits: 3, unit: "Hz" };
const RES = { id: "resonance", type: "slider", label: "Resonance", min: 0, max: 100, step: 1, unit: "%" };
const LEVEL = { id: "level", type: "gauge", label: "Output level", min: -60, max: 6, unit: "dB" };
const WAVE = { id: "waveform", type: "snap", label: "Waveform", values: [0, 1, 2, 3], labels: ["sine", "square", "saw", "triangle"] };
const TRIGGER = { id: "trigger", type: "button", label: "Trigger note" };
const SCHEMAS = new Map([LR, CUTOFF, RES, LEVEL, WAVE, TRIGGER].map((s) => [s.id, s]));
const schemaOf = (id) => SCHEMAS.get(id);

/**
 * A small XML well-formedness check: one root, every tag closed in order,
 * attributes quoted and not repeated, no bare `<` or `&` in text.
 */
function assertWellFormedXML(text) {
  let rest = text.replace(/^<\?xml[^?]*\?>\s*/, "");
  const stack = [];
  let roots = 0;
  const token = /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/y;
  const entity = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/;
  let m;
  let at = 0;
  while (at < rest.length) {
    token.lastIndex = at;
    m = token.exec(rest);
    assert.ok(m, `not XML at …${rest.slice(at, at + 60)}`);
    at = token.lastIndex;
    const [, close, name, attrs, selfClose, chars] = m;
    if (chars != null) {
      assert.ok(!entity.test(chars), `a bare & in ${JSON.stringify(chars.slice(0, 40))}`);
      if (!stack.length) assert.equal(chars.trim(), "", "text outside the root");
      continue;
    }
    if (attrs) {
      const names = [...attrs.matchAll(/([\w:.-]+)="([^"]*)"/g)].map((a) => {
        assert.ok(!entity.test(a[2]), `a bare & in attribute ${a[1]}`);
        return a[1];
      });
      assert.equal(new Set(names).size, names.length, `a repeated attribute on <${name}>`);
    }
    if (close) {
      assert.equal(stack.pop(), name, `</${name}> closes another element`);
    } else if (!selfClose) {
      if (!stack.length) roots += 1;
      stack.push(name);
    } else if (!stack.length) {
      roots += 1;
    }
  }
  assert.deepEqual(stack, [], "unclosed elements");
  assert.equal(roots, 1, "one root element");
}

test("a linear scale maps both ways; a zero-width domain maps to the start", () => {
  const x = linearScale(100, 200, 10, 110);
  assert.equal(x(150), 60);
  assert.equal(x.invert(60), 150);
  const y = linearScale(0, 1, 300, 100); // up the screen
  assert.equal(y(1), 100);
  assert.equal(linearScale(5, 5, 0, 10)(5), 0);
});

test("nice steps are 1, 2 or 5 times a power of ten", () => {
  assert.deepEqual([0.0075, 0.012, 0.3, 3, 4, 7, 26, 1e6 + 1].map(niceStep), [0.01, 0.02, 0.5, 5, 5, 10, 50, 2e6]);
});

test("tick steps are the nearest 1, 2 or 5 times a power of ten", () => {
  assert.deepEqual([5.75, 0.8, 0.01, 1.3, 1.5, 3.3, 7.5, 0].map(tickStep), [5, 1, 0.01, 1, 2, 5, 10, 1]);
});

test("a young series' sparkline spans the shortest of 30 s, 1, 2, 5 and 10 min that holds it", () => {
  assert.deepEqual(sparkSpan(T0 - 14000, T0), { span: 30000, label: "30 s" });
  assert.deepEqual(sparkSpan(T0 - 45000, T0), { span: 60000, label: "1 min" });
  assert.deepEqual(sparkSpan(T0 - 4 * 60000, T0), { span: 300000, label: "5 min" });
  assert.deepEqual(sparkSpan(T0 - 3600000, T0), { span: 600000, label: "10 min" });
  assert.deepEqual(sparkSpan(undefined, T0), { span: 600000, label: "10 min" });
});

test("the value axis has nice ends around the data, written to the step's decimals", () => {
  const wave = valueAxis(-41, -18, 5);
  assert.equal(wave.step, 5, "a wave from -41 to -18 dB: ticks every 5, not every 10");
  assert.deepEqual([wave.lo, wave.hi], [-45, -15]);
  const a = valueAxis(0.3, 0.33, 4);
  assert.equal(a.step, 0.01);
  assert.deepEqual(a.ticks, [0.3, 0.31, 0.32, 0.33]);
  assert.equal(a.decimals, 2);
  const b = valueAxis(-13.4, -10.2, 5);
  assert.ok(b.lo <= -13.4 && b.hi >= -10.2, "the data inside");
  assert.deepEqual(b.ticks, [-14, -13, -12, -11, -10]);
  const flat = valueAxis(-12, -12);
  assert.ok(flat.lo < -12 && flat.hi > -12, "a flat series sits inside, not on an edge");
  const zero = valueAxis(0, 0);
  assert.ok(zero.lo < 0 && zero.hi > 0);
  assert.deepEqual(valueAxis(NaN, 3).ticks.length > 1, true, "no data: a plain axis");
});

test("time ticks fall on round local times, labelled by how fine they are", () => {
  const minute = timeTicks(T0 - 60000, T0, 6);
  assert.ok(minute.length >= 3 && minute.length <= 6, `a minute in 3–6 ticks: ${minute.map((t) => t.label)}`);
  const step = minute[1].t - minute[0].t;
  assert.ok([10000, 15000, 20000, 30000].includes(step), `a round step: ${step}`);
  for (const t of minute) {
    const d = new Date(t.t);
    assert.equal((d.getMinutes() * 60000 + d.getSeconds() * 1000 + d.getMilliseconds()) % step, 0, "on a multiple of the step");
    assert.match(t.label, /^\d\d:\d\d:\d\d$/);
  }
  assert.ok(minute.every((t) => t.t >= T0 - 60000 && t.t <= T0));
  const ten = timeTicks(T0 - 600000, T0, 6);
  assert.deepEqual(ten.map((t) => t.label), ["13:54", "13:56", "13:58", "14:00", "14:02"]);
  const day = timeTicks(T0 - 20 * 3600000, T0, 6);
  assert.ok(day.length <= 6);
  assert.ok(day.every((t) => new Date(t.t).getMinutes() === 0 && new Date(t.t).getHours() % 6 === 0), "every six hours");
  assert.ok(day.some((t) => /^\D+ \d+$/.test(t.label)), `midnight names the day: ${day.map((t) => t.label)}`);
  assert.deepEqual(timeTicks(T0, T0, 5), []);
  for (let n = 2; n <= 12; n++) {
    for (const span of [7000, 61000, 3600000, 86400000 * 3]) assert.ok(timeTicks(T0 - span, T0, n).length <= n, `≤ ${n} ticks`);
  }
});

test("decimation keeps every minimum and maximum, and the last value of each slice", () => {
  const points = [];
  for (let i = 0; i < 1000; i++) {
    const v = Math.sin(i / 10);
    points.push([i * 10, v - 0.1, v + 0.1, v]);
  }
  points[517] = [5170, -5, 7, 1]; // one spike
  const out = decimate(points, 0, 9990, 100);
  assert.ok(out.length <= 100);
  assert.deepEqual(extent(out), [-5, 7], "the spike survives");
  assert.deepEqual(extent(out), extent(points));
  assert.equal(out[out.length - 1][3], points[points.length - 1][3], "the last value is the series' last");
  for (let i = 1; i < out.length; i++) assert.ok(out[i][0] > out[i - 1][0], "in time order");
  assert.equal(decimate(points.slice(0, 5), 0, 9990, 100).length, 5, "fewer than the pixels: unchanged");
  assert.equal(decimate(points, 2000, 2990, 1000).length, 100, "only the span");
});

test("points from an answer are checked, ordered and made consistent", () => {
  assert.deepEqual(cleanPoints([[2, 1, 3, 2], "x", [1, 0, 0, 5], [3, NaN, 1, 1], [4, 1, 2]]), [[1, 0, 5, 5], [2, 1, 3, 2]]);
  assert.deepEqual(cleanPoints(null), []);
  const pts = [[10, 0, 0, 0], [20, 0, 0, 0], [30, 0, 0, 0]];
  assert.equal(indexAtOrBefore(pts, 5), -1);
  assert.equal(indexAtOrBefore(pts, 20), 1);
  assert.equal(indexAtOrBefore(pts, 99), 2);
  assert.equal(nearestIndex(pts, 24), 1);
  assert.equal(nearestIndex(pts, 26), 2);
  assert.equal(nearestIndex(pts, -100), 0);
  assert.equal(nearestIndex([], 1), -1);
});

test("a series is the fetched points, then the live values that arrived after the fetch", () => {
  const s = new SeriesData({ keepMs: 60000 });
  s.push(T0 - 5000, 1); // arrived before the answer: the answer covers it
  s.seed({ width: 1000, from: T0 - 10000, to: T0, points: [[T0 - 10000, 0, 2, 1], [T0 - 1000, 1, 3, 2]] });
  s.push(T0 + 500, 4);
  s.push(T0 + 900, 5);
  assert.deepEqual(s.points(), [[T0 - 10000, 0, 2, 1], [T0 - 1000, 1, 3, 2], [T0 + 500, 4, 4, 4], [T0 + 900, 5, 5, 5]]);
  assert.deepEqual(s.points(T0, Infinity).map((p) => p[0]), [T0 + 500, T0 + 900]);
  assert.equal(s.newest, T0 + 900);
  s.push(T0 + 800, 6); // a clock step back: kept in order
  assert.equal(s.live[s.live.length - 1][0], T0 + 900);
  s.push(T0 + 120000, 7); // live points older than keepMs go
  assert.deepEqual(s.live.map((p) => p[1]), [7]);
  s.push(T0 + 120001, NaN);
  assert.equal(s.live.length, 1, "not a number: not kept");
  const only = new SeriesData({ limit: 3 });
  for (let i = 0; i < 10; i++) only.push(i, i);
  assert.deepEqual(only.points().map((p) => p[3]), [7, 8, 9], "at most `limit` live points");
  only.unseed();
  assert.equal(only.base, null);
});

test("paths: a band along the maxima and back (broken at gaps), the line through the last values", () => {
  const x = (t) => t;
  const y = (v) => 100 - v;
  const pts = [[0, 1, 3, 2], [10, 2, 4, 3], [20, 0, 5, 5]];
  assert.equal(linePath(pts, x, y), "M0 98L10 97L20 95");
  assert.equal(bandPath(pts, x, y), "M0 97L10 96L20 95L20 100L10 98L0 99Z");
  assert.equal(segments([...pts, [100, 1, 1, 1]], 30).length, 2);
  assert.equal(linePath([...pts, [100, 1, 1, 1]], x, y, 30), "M0 98L10 97L20 95L100 95L100 99", "across a gap the value holds, then steps");
  assert.equal(linePath(pts, x, y, Infinity, 50), "M0 98L10 97L20 95L50 95", "and runs on to now");
  assert.equal(linePath([[5, 1, 2, 1]], x, y), "M3.5 99H6.5", "a lone point is a dash");
  assert.equal(linePath([[5, 1, 2, 1]], x, y, Infinity, 50), "M5 99L50 99", "or a line to now");
  assert.equal(linePath([], x, y, Infinity, 50), "");
  assert.match(bandPath([[5, 1, 2, 1]], x, y), /^M3\.5 98H6\.5V99H3\.5Z$/);
});

test("values read as on the cards: digits, units, labels", () => {
  assert.equal(stateText(CUTOFF, { value: 1070 }), "1,070 Hz");
  assert.equal(stateText(LR, { value: 0.003 }), "0.003");
  assert.equal(stateText(RES, { value: 20 }), "20 %");
  assert.equal(stateText(LEVEL, { value: -12, fraction: 0.7 }), "-12 dB");
  assert.equal(stateText(WAVE, { index: 2, value: 2 }), "saw");
  assert.equal(stateText({ type: "toggle" }, { on: true }), "on");
  assert.equal(stateText({ type: "color" }, { hex: "#336699" }), "#336699");
  assert.equal(stateText({ type: "range", unit: "" }, { lower: 1, upper: 3 }), "1–3");
  assert.equal(stateText(TRIGGER, { presses: 4 }), "4×");
  assert.equal(stateText({ type: "xy", x: { min: -1, max: 1, step: 0.01 }, y: { min: 0, max: 100, step: 1, unit: "%" } }, { x: 0.25, y: 40 }), "0.25, 40 %");
  assert.equal(stateText(LEVEL, null), "–");
  assert.equal(seriesNumber(0.312, LEVEL), "0.312");
  assert.equal(seriesNumber(0.000123456, LEVEL), "0.000123", "a small loss keeps its digits");
  assert.equal(seriesNumber(1234.5678, { digits: 3 }), "1,230");
  assert.equal(plotValue({ value: 3 }), 3);
  assert.equal(plotValue({ on: false }), 0);
  assert.equal(plotValue({ index: 2, value: 60 }), 60);
  assert.equal(plotValue({ presses: 4 }), 4);
  assert.equal(plotValue(null), null);
  assert.ok(hasSeries(LEVEL) && hasSeries({ type: "slider", series: true }) && !hasSeries(RES));
  assert.ok(!hasSeries({ ...LEVEL, series: false }), "a gauge may keep none");
  assert.ok(!hasSeries(undefined));
});

test("the read-out names the time, the value with its unit, and the bucket's min and max", () => {
  assert.equal(readoutText([T0, 0.3, 0.33, 0.312], { type: "gauge" }), "14:02:31 · 0.312 (min 0.3, max 0.33)");
  assert.equal(readoutText([T0, -12, -12, -12], LEVEL), "14:02:31 · -12 dB");
  assert.equal(readoutText(null, LEVEL), "");
});

test("markers: who, what from → to, and when; a press, a first commit and the API read as such", () => {
  const base = { control: "lr", schema: LR, by: "c3", name: "Ann", time: T0 };
  assert.equal(markerText({ ...base, before: { value: 0.01 }, after: { value: 0.003 } }), "Ann · Learning rate 0.01 → 0.003 · 14:02:31");
  assert.equal(markerText({ ...base, control: "cutoff", schema: CUTOFF, before: null, after: { value: 1070 } }), "Ann · Cutoff set to 1,070 Hz · 14:02:31");
  assert.equal(markerText({ ...base, control: "trigger", schema: TRIGGER, before: { presses: 3 }, after: { presses: 4 } }), "Ann · Trigger note pressed · 14:02:31");
  assert.equal(markerText({ ...base, control: "waveform", schema: WAVE, by: "api", name: "api", before: { index: 0, value: 0 }, after: { index: 2, value: 2 } }), "API · Waveform sine → saw · 14:02:31");
  assert.equal(whoText("c9", ""), "c9");
});

test("markers from the history: other controls only, before from the previous commit or the starting states", () => {
  const iso = (ms) => new Date(ms).toISOString();
  const history = [
    { rev: 5, control: "level", state: { value: -10 }, by: "api", name: "api", time: iso(T0) },
    { rev: 6, control: "resonance", state: { value: 30 }, by: "c3", name: "Ann", time: iso(T0 + 1000) },
    { rev: 7, control: "resonance", state: { value: 45 }, by: "c4", name: "Ben", time: iso(T0 + 2000) },
    { rev: 8, control: "cutoff", state: { value: 500 }, by: "c3", name: "Ann", time: iso(T0 + 3000) },
    { rev: 9, control: "gone", state: { value: 1 }, by: "c3", name: "Ann", time: iso(T0 + 4000) },
    { rev: 10, control: "other-gauge", state: { value: 1 }, by: "api", name: "api", time: iso(T0 + 5000) },
  ];
  const schemas = (id) => (id === "other-gauge" ? { type: "gauge", label: "Accuracy" } : schemaOf(id));
  const markers = historyMarkers(history, { plotted: "level", schemaOf: schemas, before: { resonance: { value: 20 } } });
  assert.deepEqual(markers.map((m) => m.key), ["6:resonance", "7:resonance", "8:cutoff"]);
  assert.deepEqual(markers.map((m) => m.before), [{ value: 20 }, { value: 30 }, null]);
  assert.equal(markers[1].time, T0 + 2000);
  assert.equal(markerText(markers[1]), `Ben · Resonance 30 % → 45 % · ${"14:02:33"}`);
  const live = [{ ...markers[2] }, { key: "11:cutoff", rev: 11, control: "cutoff", schema: CUTOFF, by: "c3", name: "Ann", time: T0 + 9000, before: { value: 500 }, after: { value: 800 } }];
  assert.deepEqual(mergeMarkers(markers, live).map((m) => m.key), ["6:resonance", "7:resonance", "8:cutoff", "11:cutoff"], "one commit once");
});

test("markers are placed in the span, stacked when they share a pixel; the nearest one is found", () => {
  const x = linearScale(0, 100, 0, 100);
  const ms = [{ key: "a", time: -5 }, { key: "b", time: 10 }, { key: "c", time: 12 }, { key: "d", time: 50 }, { key: "e", time: 150 }];
  const placed = placeMarkers(ms, 0, 100, x);
  assert.deepEqual(placed.map((m) => [m.key, m.x, m.row]), [["b", 10, 0], ["c", 12, 1], ["d", 50, 0]]);
  assert.equal(markerNear(placed, 48)?.key, "d");
  assert.equal(markerNear(placed, 30), null);
  assert.equal(sinceFor([{ rev: 1, time: 10 }, { rev: 40, time: 20 }, { rev: 90, time: 30 }], 25), 39);
  assert.equal(sinceFor([{ rev: 1, time: 10 }], 5), 0);
  assert.equal(sinceFor(undefined, 5), 0);
});

test("the layout puts the points inside the plot, ticks on both axes, markers and the cursor where their times are", () => {
  const points = [];
  for (let i = 0; i <= 60; i++) points.push([T0 - 60000 + i * 1000, -13 + Math.sin(i), -11 + Math.sin(i), -12 + Math.sin(i)]);
  const marker = { key: "8:cutoff", rev: 8, control: "cutoff", schema: CUTOFF, by: "c3", name: "Ann", time: T0 - 30000, before: { value: 1000 }, after: { value: 500 } };
  const layout = chartLayout({ width: 800, height: 320, from: T0 - 60000, to: T0, points, markers: [marker], cursor: T0 - 15000, bucket: 1000 });
  const { plot } = layout;
  assert.ok(plot.left > 20 && plot.right < 800 && plot.top > 0 && plot.bottom < 320);
  assert.ok(layout.xTicks.length >= 3 && layout.xTicks.every((t) => t.x >= 0 && t.x <= 800));
  assert.ok(layout.yTicks.length >= 3);
  const ys = [...layout.line.matchAll(/[ML]([\d.]+) ([\d.]+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
  assert.equal(ys.length, 61, "one vertex per point");
  assert.ok(ys.every(([px, py]) => px >= plot.left - 0.1 && px <= plot.right + 0.1 && py >= plot.top - 0.1 && py <= plot.bottom + 0.1));
  assert.equal(layout.markers.length, 1);
  assert.ok(Math.abs(layout.markers[0].x - (plot.left + plot.right) / 2) < 1);
  assert.ok(Math.abs(layout.cursor - (plot.left + 0.75 * (plot.right - plot.left))) < 1);
  assert.equal(chartLayout({ width: 300, height: 200, from: 0, to: 1, points: [], cursor: 5 }).cursor, null, "a cursor outside the span is not drawn");
  assert.equal(chartLayout({ width: 300, height: 200, from: 0, to: 1, points: [] }).empty, true);
});

test("the exported SVG is one well-formed standalone document with inline styles; the page's drawing uses classes", () => {
  const points = [[T0, 0.3, 0.33, 0.312], [T0 + 1000, 0.29, 0.31, 0.3]];
  const marker = { key: "8:lr", rev: 8, control: "lr", schema: LR, by: "c3", name: "Ann <&> \"Q\"", time: T0 + 500, before: { value: 0.01 }, after: { value: 0.003 } };
  const layout = chartLayout({ width: 640, height: 300, from: T0 - 1000, to: T0 + 2000, points, markers: [marker], cursor: T0 + 100 });
  const file = chartSVG(layout, { title: "Loss & co <train>", unit: "nats", inline: true });
  assertWellFormedXML(file);
  assert.match(file, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="640" height="(\d+)"/);
  assert.equal(Number(/height="(\d+)"/.exec(file)[1]), 34 + 300 + 12 + 18, "the title above, one marker's line below");
  assert.ok(file.includes(">1  Ann &lt;&amp;&gt; &quot;Q&quot; · Learning rate 0.01 → 0.003"), "the marker listed, numbered");
  assert.match(file, /<title>Loss &amp; co &lt;train&gt;<\/title>/);
  assert.ok(file.includes(`style="fill:none;stroke:${LIGHT_PALETTE.line}`), "the line's colour inline");
  assert.ok(file.includes("<title>Ann &lt;&amp;&gt; &quot;Q&quot; · Learning rate 0.01 → 0.003"), "the marker's words, escaped");
  assert.ok(!/class=/.test(file), "no classes: nothing outside the file styles it");
  const many = Array.from({ length: 14 }, (_, i) => ({ ...marker, key: `${i}:lr`, rev: i, time: T0 - 900 + i * 100 }));
  const crowded = chartSVG(chartLayout({ width: 640, height: 300, from: T0 - 1000, to: T0 + 2000, points, markers: many }), { inline: true });
  assertWellFormedXML(crowded);
  assert.ok(crowded.includes(">12  Ann") && !crowded.includes(">13  Ann") && crowded.includes(">and 2 more<"), "twelve listed, the rest counted");
  const dark = chartSVG(layout, { inline: true, palette: { background: "#181b23", line: "#8b85ff" } });
  assert.ok(dark.includes("fill:#181b23") && dark.includes("stroke:#8b85ff"));
  const page = chartSVG(layout, { unit: "nats" });
  assertWellFormedXML(`<g>${page}</g>`);
  assert.ok(!/style=/.test(page), "the page's security policy allows no style attributes");
  assert.match(page, /class="chart-line"/);
  assert.match(page, /class="chart-marker" data-key="8:lr"/);
  assert.match(page, /class="chart-cursor"/);
});

test("the CSV has a header and one row per point with ISO times", () => {
  const csv = seriesCSV([[Date.UTC(2026, 10, 30, 13, 2, 31, 5), 0.3, 0.33, 0.312], [Date.UTC(2026, 10, 30, 13, 2, 32), -1e-7, 2, 2]]);
  assert.equal(csv, "time,min,max,last\n2026-11-30T13:02:31.005Z,0.3,0.33,0.312\n2026-11-30T13:02:32.000Z,-1e-7,2,2\n");
  assert.equal(seriesCSV([]), "time,min,max,last\n");
  assert.equal(exportName("synth", "level", T0, "csv"), "synth-level-20261130-140231.csv");
  assert.equal(exportName("a b", "c/d", T0, "svg"), "a_b-c_d-20261130-140231.svg");
});

test("the scrub cursor is at the viewed revision's time: the moment's own once fetched, else the marks'", () => {
  const marks = [{ rev: 1, time: T0 }, { rev: 10, time: T0 + 9000 }];
  assert.equal(scrubTime({ target: null, summary: { marks } }), null, "live: no cursor");
  assert.equal(scrubTime({ target: 0, summary: { marks } }), null, "the start has no time");
  assert.equal(scrubTime({ target: 12, preview: null, summary: { marks } }), T0 + 9000);
  assert.equal(scrubTime({ target: 12, preview: { rev: 12, time: T0 + 9500 }, summary: { marks } }), T0 + 9500);
  assert.equal(scrubTime({ target: 12, preview: { rev: 11, time: T0 + 9400 }, summary: { marks } }), T0 + 9000, "a moment of another revision is not used");
  assert.equal(scrubTime({ target: 5, summary: null }), null);
  assert.equal(scrubTime(null), null);
});

test("a span without commits shows the value the control held all along", () => {
  assert.deepEqual(withHeldValue([], T0 - 60000, -12), [[T0 - 60000, -12, -12, -12, true]]);
  assert.equal(readoutText(withHeldValue([], T0, -12)[0], LEVEL), "-12 dB throughout: no commit in this span");
  const pts = [[T0, 1, 2, 1]];
  assert.equal(withHeldValue(pts, T0 - 60000, -12), pts, "points of its own: drawn as they are");
  assert.deepEqual(withHeldValue([], T0, null), [], "no value known: nothing");
  assert.equal(linePath(withHeldValue([], 0, 5), (t) => t, (v) => 100 - v, Infinity, 60), "M0 95L60 95");
});
