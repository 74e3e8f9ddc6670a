// The math of the issue-11 kinds (log sliders, digits, toggle, xy pad, button)
// in the browser: worked cases of our own, then every case of the shared
// vectors (Tests/Fixtures/vectors/kinds.json) when that file exists.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import * as m from "../js/math.js";
import { RoomModel } from "../js/protocol.js";

const close = (actual, expected, what = "") =>
  assert.ok(Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)), `${what}: got ${actual}, expected ${expected}`);
/** Two xy states equal to within the vectors' tolerance (grid values are min + span·k/n, not exact decimals). */
const closeXY = (actual, expected) => {
  close(actual.x, expected.x, `x of ${JSON.stringify(actual)}`);
  close(actual.y, expected.y, `y of ${JSON.stringify(actual)}`);
};

const cutoff = { type: "slider", id: "cutoff", min: 20, max: 20000, scale: "log", digits: 3, unit: "Hz", state: { value: 1000 } };

test("significant digits round half away from zero, at any magnitude", () => {
  assert.equal(m.roundDigits(1234.5, 4), 1235);
  assert.equal(m.roundDigits(-1234.5, 4), -1235);
  assert.equal(m.roundDigits(632.4555, 3), 632);
  assert.equal(m.roundDigits(0.0012345, 2), 0.0012);
  assert.equal(m.roundDigits(0.00125, 2), 0.0013);
  assert.equal(m.roundDigits(19999.9, 3), 20000);
  assert.equal(m.roundDigits(1000, 1), 1000);
  assert.equal(m.roundDigits(999.5, 3), 1000);
  assert.equal(m.roundDigits(0, 3), 0);
  assert.equal(m.roundDigits(5.55, null), 5.55);
});

test("a log slider: value at a fraction, rounded to 3 digits, clamped", () => {
  assert.equal(m.logValueAt(0, 20, 20000), 20);
  assert.equal(m.logValueAt(1, 20, 20000), 20000);
  // 20 · 1000^0.5 = 632.455…
  assert.equal(m.logValueAt(0.5, 20, 20000), 632);
  // 20 · 1000^(1/3) = 200 (to 3 digits)
  assert.equal(m.logValueAt(1 / 3, 20, 20000), 200);
  // outside the track: clamped fraction
  assert.equal(m.logValueAt(-0.4, 20, 20000), 20);
  assert.equal(m.logValueAt(7, 20, 20000), 20000);
  // rounding may not leave the range: 20.04 rounds to 20.0, clamped back to 20.04
  assert.equal(m.logValueAt(0, 20.04, 200), 20.04);
});

test("a log slider's position is ln(v/min)/ln(max/min)", () => {
  close(m.logPosition(20, 20, 20000), 0);
  close(m.logPosition(20000, 20, 20000), 1);
  close(m.logPosition(200, 20, 20000), 1 / 3);
  close(m.logPosition(2000, 20, 20000), 2 / 3);
});

test("a log step moves the track fraction n/100, then rounds; it stops at the ends", () => {
  // 1000 sits at ln(50)/ln(1000) = 0.56633…; +0.01 → 20·1000^0.57633 = 1072.3…
  assert.equal(m.logStep(1000, 1, 20, 20000), 1070);
  assert.equal(m.logStep(1000, -1, 20, 20000), 933);
  assert.equal(m.logStep(1000, 10, 20, 20000), 2000);
  assert.equal(m.logStep(19000, 10, 20, 20000), 20000);
  assert.equal(m.logStep(20, -1, 20, 20000), 20);
  // successive steps never stall at 3 digits, and reach the end (rounding down
  // on the way may take a few more than 100)
  let v = 20;
  let count = 0;
  while (v < 20000 && count < 120) {
    const next = m.logStep(v, 1, 20, 20000);
    assert.ok(next > v, `step from ${v}`);
    v = next;
    count += 1;
  }
  assert.equal(v, 20000);
  assert.ok(count >= 100 && count < 110, `${count} steps`);
});

test("a log set clamps, then rounds to digits", () => {
  assert.equal(m.logSet(1234.5, 20, 20000, 3), 1230);
  assert.equal(m.logSet(5, 20, 20000, 3), 20);
  assert.equal(m.logSet(1e9, 20, 20000, 3), 20000);
  assert.equal(m.logSet(1234.5, 20, 20000, 5), 1234.5);
});

test("whole-control math on a log slider: place, position, step, set", () => {
  const s = { value: 1000 };
  assert.deepEqual(m.place(cutoff, "value", 0.5, s), { value: 632 });
  close(m.position(cutoff, { value: 200 }, "value"), 1 / 3);
  assert.deepEqual(m.stepBy(cutoff, "value", 1, s), { value: 1070 });
  assert.deepEqual(m.setValue(cutoff, "value", 1234.5, s), { value: 1230 });
  // digits default to 3 on a log slider
  const noDigits = { ...cutoff, digits: undefined };
  assert.deepEqual(m.place(noDigits, "value", 0.5, s), { value: 632 });
});

test("a linear slider rounds only when digits is given", () => {
  const plain = { type: "slider", min: 0, max: 1 };
  assert.deepEqual(m.place(plain, "value", 1 / 3, { value: 0 }), { value: 1 / 3 });
  const two = { ...plain, digits: 2 };
  assert.deepEqual(m.place(two, "value", 1 / 3, { value: 0 }), { value: 0.33 });
  assert.deepEqual(m.setValue(two, "value", 0.126, { value: 0 }), { value: 0.13 });
  assert.deepEqual(m.stepBy(two, "value", 1, { value: 0.333 }), { value: 0.34 });
});

test("a toggle: set true/false/0/1, any non-zero whole step flips, 0 leaves it", () => {
  assert.equal(m.toggleSet(true), true);
  assert.equal(m.toggleSet(0), false);
  assert.equal(m.toggleSet(1), true);
  assert.equal(m.toggleSet("on"), null);
  assert.equal(m.toggleSet(0.5), null);
  assert.equal(m.toggleStep(false, 1), true);
  assert.equal(m.toggleStep(true, -3), false);
  assert.equal(m.toggleStep(true, 2), false);
  assert.equal(m.toggleStep(true, 0), true);
  assert.equal(m.toggleStep(true, 1.5), null);
  const t = { type: "toggle", id: "filter" };
  assert.deepEqual(m.stepBy(t, "on", 1, { on: false }), { on: true });
  assert.deepEqual(m.thumbsOf(t), ["on"]);
  assert.equal(m.thumbValue(t, { on: true }, "on"), 1);
});

const pad = {
  type: "xy", id: "pad",
  x: { min: -1, max: 1, step: 0.01, label: "pan" },
  y: { min: 20, max: 20000, scale: "log", label: "depth", unit: "Hz" },
};

test("an xy pad: each axis is slider math, dy goes up the y axis, both clamp", () => {
  const start = { x: 0, y: 20 };
  closeXY(m.xyDrag(pad, start, 0.25, 0.5), { x: 0.5, y: 632 });
  closeXY(m.xyDrag(pad, start, -2, 2), { x: -1, y: 20000 });
  assert.deepEqual(m.xyDrag(pad, start, 0, 0), start);
  closeXY(m.xyAt(pad, [1, 1 / 3]), { x: 1, y: 200 });
  closeXY(m.place(pad, "xy", [0.505, 0], start), { x: 0.01, y: 20 });
  const [fx, fy] = m.position(pad, { x: 0.5, y: 200 }, "xy");
  close(fx, 0.75);
  close(fy, 1 / 3);
});

test("an xy pad's step moves each axis as a slider step, set leaves a missing axis", () => {
  closeXY(m.xyStep(pad, [1, 0], { x: 0, y: 1000 }), { x: 0.01, y: 1000 });
  closeXY(m.xyStep(pad, [0, 1], { x: 0, y: 1000 }), { x: 0, y: 1070 });
  closeXY(m.xyStep(pad, [-500, -500], { x: 0, y: 1000 }), { x: -1, y: 20 });
  closeXY(m.stepBy(pad, "xy", [10, -10], { x: 0, y: 1000 }), { x: 0.1, y: 501 }); // 1000 / 1000^0.1 = 501.19
  closeXY(m.xySet(pad, { y: 1234.5 }, { x: 0.3, y: 20 }), { x: 0.3, y: 1230 });
  closeXY(m.hold(pad, "xy", { x: 5, y: 5 }, { x: 0, y: 1000 }), { x: 1, y: 20 });
});

test("a button: a press counts one, whatever positive whole by", () => {
  const b = { type: "button", id: "go" };
  assert.deepEqual(m.stepBy(b, "press", 1, { presses: 4 }), { presses: 5 });
  assert.deepEqual(m.stepBy(b, "press", 7, { presses: 4 }), { presses: 5 });
  assert.deepEqual(m.stepBy(b, "press", 0, { presses: 4 }), { presses: 4 });
  assert.deepEqual(m.setValue(b, "press", true, { presses: 0 }), { presses: 1 });
});

test("the room model lays an xy ghost's whole state over the committed one", () => {
  const model = new RoomModel();
  model.applyWelcome({
    type: "welcome", client: "c1", room: "synth", rev: 3,
    controls: [{ ...pad, state: { x: 0, y: 20 }, rev: 0 }],
    peers: [{ client: "c1", name: "Me", color: "#000000" }, { client: "c2", name: "Ann", color: "#E91E63" }],
  }, 0);
  model.applyUpdate({ type: "update", gestures: [{ control: "pad", thumb: "xy", by: "c2", phase: "move", state: { x: 0.5, y: 632 } }] }, 1);
  assert.deepEqual(model.displayed("pad"), { x: 0.5, y: 632 });
  assert.deepEqual(model.committed("pad"), { x: 0, y: 20 });
});

// ---- the shared vectors ------------------------------------------------------

const VECTORS = new URL("../../Tests/Fixtures/vectors/kinds.json", import.meta.url);
const vectors = existsSync(VECTORS) ? JSON.parse(readFileSync(VECTORS, "utf8")) : null;

/** A toggle vector's expectation: a state, a bare boolean, or a reject (a string or {reject|error}). */
function toggleExpectation(result) {
  if (typeof result === "boolean") return result;
  if (result && typeof result === "object" && typeof result.on === "boolean") return result.on;
  return null;
}

const groups = {
  log: (c) => close(m.logValueAt(c.fraction, c.min, c.max, c.digits), c.value, JSON.stringify(c)),
  logPosition: (c) => close(m.logPosition(c.value, c.min, c.max), c.fraction, JSON.stringify(c)),
  logStep: (c) => close(m.logStep(c.value, c.by, c.min, c.max, c.digits), c.result, JSON.stringify(c)),
  logSet: (c) => close(m.logSet(c.set, c.min, c.max, c.digits), c.value, JSON.stringify(c)),
  digits: (c) => close(m.roundDigits(c.value, c.digits), c.rounded, JSON.stringify(c)),
  xy: (c) => {
    const control = { type: "xy", x: c.x, y: c.y };
    const got = c.at ? m.xyAt(control, c.at.map((f) => m.clamp(f, 0, 1))) : m.xyDrag(control, c.state, c.dx ?? 0, c.dy ?? 0);
    close(got.x, c.result.x, `${JSON.stringify(c)} x`);
    close(got.y, c.result.y, `${JSON.stringify(c)} y`);
  },
  xyStep: (c) => {
    const got = m.xyStep({ type: "xy", x: c.x, y: c.y }, c.by, c.state);
    close(got.x, c.result.x, `${JSON.stringify(c)} x`);
    close(got.y, c.result.y, `${JSON.stringify(c)} y`);
  },
  toggle: (c) => {
    const got = c.op === "set" ? m.toggleSet(c.arg) : m.toggleStep(c.on, c.arg);
    assert.equal(got, toggleExpectation(c.result), JSON.stringify(c));
  },
};

test("the shared kinds vectors: every group is one these tests know", { skip: vectors ? false : "Tests/Fixtures/vectors/kinds.json does not exist yet (the server side writes it)" }, () => {
  for (const name of Object.keys(vectors)) assert.ok(name in groups, `unknown group ${name}`);
});

for (const [name, check] of Object.entries(groups)) {
  const skip = !vectors ? "Tests/Fixtures/vectors/kinds.json does not exist yet"
    : !vectors[name] ? `kinds.json has no group ${name}` : false;
  test(`kinds vectors, ${name}: every case matches`, { skip }, () => {
    assert.ok(vectors[name].length > 0, `${name} is empty`);
    for (const c of vectors[name]) check(c);
  });
}

// ---- what the cards show -------------------------------------------------------

import { changedText, formatDigits, logTicks, shortNumber, snapText } from "../js/controls/values.js";
import { changerName, loadLastChanges } from "../js/controls/changed.js";

test("a log slider's ticks: the ends and the decades labelled, 2× and 5× bare", () => {
  const ticks = logTicks(20, 20000);
  assert.deepEqual(ticks.filter((t) => t.label).map((t) => t.label), ["20", "100", "1k", "10k", "20k"]);
  assert.deepEqual(ticks.filter((t) => !t.label).map((t) => t.value), [50, 200, 500, 2000, 5000]);
  close(ticks.find((t) => t.value === 1000).f, Math.log(50) / Math.log(1000));
  // a decade crowding an end keeps its tick, not its label
  assert.equal(logTicks(90, 20000).find((t) => t.value === 100).label, null);
  assert.deepEqual(logTicks(5, 1), []);
});

test("values to their digits, short tick labels, snap labels", () => {
  assert.equal(formatDigits(20000, 3), "20,000");
  assert.equal(formatDigits(1072.3, 3), "1,070");
  assert.equal(formatDigits(0.0012345, 2), "0.0012");
  assert.equal(shortNumber(2500000), "2.5M");
  const wave = { values: [0, 1, 2, 3], labels: ["sine", "square", "saw", "triangle"], unit: "x" };
  assert.equal(snapText(wave, 2, "2"), "saw");
  assert.equal(snapText({ values: [1, 2], unit: "pt" }, 1, "2"), "2 pt");
});

test("who last changed a card, and how long ago, in words", () => {
  const t0 = 1_000_000;
  assert.equal(changedText("Ann", t0, t0 + 3000), "Ann, just now");
  assert.equal(changedText("Ann", t0, t0 + 42_000), "Ann, 42 s ago");
  assert.equal(changedText("Ann", t0, t0 + 150_000), "Ann, 2 min ago");
  assert.equal(changedText("Ann", t0, t0 + 3 * 3600_000), "Ann, 3 h ago");
  assert.equal(changedText("Ann", t0, t0 + 86400_000), "Ann, yesterday");
  assert.equal(changerName({ me: true, by: "c1", name: "Me" }), "you");
  assert.equal(changerName({ me: false, by: "api", name: null }), "API");
  assert.equal(changerName({ me: false, by: "c9", name: null }), "c9");
});

function synthModel() {
  const model = new RoomModel();
  model.applyWelcome({
    type: "welcome", client: "c1", room: "synth", rev: 7,
    controls: [{ ...cutoff, rev: 7 }, { type: "toggle", id: "filter", state: { on: false }, rev: 4 }, { type: "button", id: "go", state: { presses: 0 }, rev: 0 }],
    peers: [{ client: "c1", name: "Me", color: "#000000" }, { client: "c2", name: "Ann", color: "#E91E63" }],
  }, 0);
  return model;
}

test("the room model remembers who made each control's last commit, by name, across a reconnect", () => {
  const model = synthModel();
  assert.equal(model.lastChange("cutoff"), null);
  model.applyUpdate({ type: "update", rev: 8, changes: [{ control: "cutoff", state: { value: 2000 }, rev: 8, by: "c2" }] }, 5000);
  assert.deepEqual(model.lastChange("cutoff"), { rev: 8, by: "c2", name: "Ann", at: 5000, me: false });
  model.applyUpdate({ type: "update", rev: 9, changes: [{ control: "filter", state: { on: true }, rev: 9, by: "c1" }] }, 6000);
  assert.equal(model.lastChange("filter").me, true);
  // Ann leaves: her name stays on the card
  model.applyUpdate({ type: "update", left: ["c2"] }, 7000);
  model.prune(60_000);
  assert.equal(model.lastChange("cutoff").name, "Ann");
  // a reconnect keeps what still holds (same rev) and drops what changed meanwhile
  model.applyWelcome({
    type: "welcome", client: "c3", room: "synth", rev: 10,
    controls: [{ ...cutoff, state: { value: 2000 }, rev: 8 }, { type: "toggle", id: "filter", state: { on: false }, rev: 10 }, { type: "button", id: "go", state: { presses: 0 }, rev: 0 }],
    peers: [{ client: "c3", name: "Me", color: "#000000" }],
  }, 70_000);
  assert.equal(model.lastChange("cutoff").name, "Ann");
  assert.equal(model.lastChange("filter"), null);
  // my own change stays "mine" under my new client id
  model.applyUpdate({ type: "update", rev: 11, changes: [{ control: "filter", state: { on: true }, rev: 11, by: "c3" }] }, 71_000);
  model.applyWelcome({
    type: "welcome", client: "c4", room: "synth", rev: 11,
    controls: [{ ...cutoff, state: { value: 2000 }, rev: 8 }, { type: "toggle", id: "filter", state: { on: true }, rev: 11 }, { type: "button", id: "go", state: { presses: 0 }, rev: 0 }],
    peers: [{ client: "c4", name: "Me", color: "#000000" }],
  }, 72_000);
  assert.equal(model.lastChange("filter").me, true);
});

test("after a welcome the history names each control's last change; one request per revision, none when no history is kept", async () => {
  const model = synthModel();
  const asked = [];
  const history = { history: [
    { rev: 7, control: "cutoff", state: { value: 1000 }, by: "c2", name: "Ann", time: "2026-11-30T19:00:00.000Z" },
    { rev: 8, control: "filter", state: { on: true }, by: "c5", name: "Ben", time: "2026-11-30T19:01:00.000Z" },
  ] };
  const fakeFetch = async (url) => {
    asked.push(url);
    const since = Number(new URL(url, "http://x").searchParams.get("since"));
    return { ok: true, json: async () => ({ history: history.history.filter((e) => e.rev > since) }) };
  };
  let redraws = 0;
  await loadLastChanges(model, "synth", "tok", () => { redraws += 1; }, fakeFetch);
  assert.deepEqual(asked, ["/api/rooms/synth/history?since=6&limit=50&token=tok", "/api/rooms/synth/history?since=3&limit=50&token=tok"]);
  assert.equal(model.lastChange("cutoff").name, "Ann");
  assert.equal(model.lastChange("cutoff").at, Date.parse("2026-11-30T19:00:00.000Z"));
  assert.equal(model.lastChange("filter"), null, "rev 8 is not the toggle's last revision (4)");
  assert.ok(redraws >= 1);

  const memory = synthModel();
  const tried = [];
  await loadLastChanges(memory, "synth", null, () => {}, async (url) => { tried.push(url); return { ok: false, status: 501 }; });
  assert.equal(tried.length, 1, "a server without history is asked once");
  assert.equal(memory.lastChange("cutoff"), null);
});
