// The Presets panel's logic (web/js/presets.js), with no DOM: names, the list,
// what a recall would change, and how values and refusals read on screen.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cleanPresetName, describeState, presetChanges, refusalText, relativeTime, saveCollision, sortedPresets, takesPresets } from "../js/presets.js";
import { RoomModel } from "../js/protocol.js";

const controls = [
  { id: "size", type: "snap", label: "Circle size", values: [20, 40, 60, 80, 100], layout: "ordinal", unit: "pt", state: { index: 2, value: 60 }, rev: 0 },
  { id: "blanks", type: "range", label: "Blank cells", scale: [0, 9], operable: [0, 3], minGap: 1, state: { lower: 0, upper: 1 }, rev: 0 },
  { id: "color", type: "color", label: "Colour", step: 1 / 255, state: { red: 0.2, green: 0.4, blue: 0.6, hex: "#336699" }, rev: 0 },
  { id: "gain", type: "slider", label: "Gain", min: 0, max: 1, step: 0.01, state: { value: 0.5 }, rev: 0 },
  { id: "bpm", type: "gauge", label: "BPM", min: 0, max: 170, state: { value: 67, fraction: 67 / 170 }, rev: 0 },
];

function room() {
  const model = new RoomModel();
  model.applyWelcome({ type: "welcome", protocol: 1, client: "c1", room: "demo", title: "Demo", rev: 0,
    controls: structuredClone(controls), peers: [], gestures: [] }, 0);
  return model;
}

test("names are trimmed and kept as typed; empty, too long, control characters and / are refused with a reason", () => {
  assert.deepEqual(cleanPresetName("  Warm pad "), { name: "Warm pad" });
  assert.deepEqual(cleanPresetName("wARM"), { name: "wARM" });
  assert.deepEqual(cleanPresetName("é".repeat(59) + "🎹"), { name: "é".repeat(59) + "🎹" }, "an emoji is one character");
  assert.match(cleanPresetName("   ").error, /name/);
  assert.match(cleanPresetName("x".repeat(61)).error, /60 characters \(this has 61\)/);
  assert.match(cleanPresetName("a\nb").error, /line breaks/);
  assert.match(cleanPresetName("a\u0007b").error, /control/);
  assert.match(cleanPresetName("Lead/Pad").error, /“\/”/);
  assert.match(cleanPresetName(" .. ").error, /“\.\.”/);
  assert.deepEqual(cleanPresetName("...and more"), { name: "...and more" });
});

test("the list is sorted by name as the server sorts it (code points: capitals first), malformed entries dropped", () => {
  const list = sortedPresets([{ name: "warm", states: {} }, { name: "Warm", states: {} }, { name: "Cold", states: {} },
    { name: 3, states: {} }, null, { name: "No states" }]);
  assert.deepEqual(list.map((p) => p.name), ["Cold", "Warm", "warm"]);
  assert.deepEqual(sortedPresets(undefined), []);
});

test("a preset's changes are the settable controls whose saved state differs, in the room's order", () => {
  const model = room();
  const preset = { name: "Warm", states: {
    gain: { value: 0.8 }, size: { index: 2, value: 60 }, color: { red: 1, green: 0.5333333333333333, blue: 0, hex: "#FF8800" },
    bpm: { value: 120, fraction: 120 / 170 }, gone: { value: 1 }, blanks: { value: 3 },
  } };
  const changes = presetChanges(preset, model.controls);
  assert.deepEqual(changes.map((c) => [c.control, c.label]), [["color", "Colour"], ["gain", "Gain"]]);
  assert.deepEqual(changes[1].now, { value: 0.5 });
  assert.deepEqual(changes[1].preset, { value: 0.8 });
  model.applyUpdate({ type: "update", rev: 1, ack: 0, changes: [{ control: "gain", state: { value: 0.8 }, rev: 1, by: "c2" }] }, 1);
  assert.deepEqual(presetChanges(preset, model.controls).map((c) => c.control), ["color"]);
  assert.deepEqual(presetChanges({ name: "x" }, model.controls), []);
});

test("gauges and buttons take no presets", () => {
  assert.equal(takesPresets({ type: "gauge" }), false);
  assert.equal(takesPresets({ type: "button" }), false);
  assert.equal(takesPresets({ type: "toggle" }), true);
  assert.equal(takesPresets(undefined), false);
});

test("states read as people write them", () => {
  const [size, blanks, color, gain] = controls;
  assert.equal(describeState(size, { index: 4, value: 100 }), "100 pt");
  assert.equal(describeState({ ...size, labels: ["a", "b", "c", "d", "e"] }, { index: 4, value: 100 }), "e");
  assert.equal(describeState(blanks, { lower: 2, upper: 3 }), "2–3");
  assert.equal(describeState(color, { red: 1, green: 0.5, blue: 0, hex: "#ff8000" }), "#FF8000");
  assert.equal(describeState(gain, { value: 0.8 }), "0.80");
  assert.equal(describeState({ type: "slider", min: 20, max: 20000, scale: "log", digits: 3, unit: "Hz" }, { value: 1250 }), "1250 Hz");
  assert.equal(describeState({ type: "toggle" }, { on: true }), "on");
  assert.equal(describeState({ type: "xy", x: { unit: "Hz" }, y: {} }, { x: 440, y: 0.25 }), "440 Hz, 0.25");
  assert.equal(describeState({ type: "mystery" }, { level: 0.12345 }), "level 0.123");
  assert.equal(describeState(gain, null), "–");
});

test("times read relative to now", () => {
  const now = 1_700_000_000_000;
  assert.equal(relativeTime(now - 10_000, now), "just now");
  assert.equal(relativeTime(now - 5 * 60_000, now), "5 min ago");
  assert.equal(relativeTime(now - 3 * 3_600_000, now), "3 h ago");
  assert.equal(relativeTime(now - 26 * 3_600_000, now), "1 day ago");
  assert.equal(relativeTime(Number.NaN, now), "");
});

test("refusals say what failed and who is in the way", () => {
  assert.equal(refusalText("recall", "Warm", { code: "busy", holder: "c2" }, "Ben"),
    "Recall “Warm”: Ben is moving a control it sets. Try again when they let go.");
  assert.match(refusalText("delete", "Warm", { code: "unknown_preset" }), /no preset “Warm” any more/);
  assert.match(refusalText("save", "Warm", { code: "forbidden" }), /read only/);
  assert.equal(refusalText("rename", "Warm", { code: "bad_value", message: "a preset named 'Cold' already exists" }),
    "Rename “Warm”: a preset named 'Cold' already exists");
});

test("saving under a taken name asks first, naming who saved it and when", () => {
  const now = 1_764_531_000_000;
  const list = [
    { name: "Warm", by: "Ann", time: now - 3 * 60_000, states: {} },
    { name: "Cold", by: "", time: now - 10_000, states: {} },
    { name: "Old", by: "Ben", states: {} },
  ];
  assert.equal(saveCollision("Lead", list, now), null, "a free name saves at once");
  assert.equal(saveCollision("warm", list, now), null, "names are compared exactly, as the server does");
  const warm = saveCollision("Warm", list, now);
  assert.equal(warm.preset, list[0]);
  assert.equal(warm.question, "Replace preset “Warm”, saved by Ann 3 min ago?");
  assert.equal(saveCollision("Cold", list, now).question, "Replace preset “Cold”, saved just now?");
  assert.equal(saveCollision("Old", list, now).question, "Replace preset “Old”, saved by Ben?");
  assert.equal(saveCollision("Warm", null, now), null, "before the list arrives nothing is known to collide");
  assert.equal(saveCollision(null, list, now), null);
});

test("a recall refused because someone claims a control says who", () => {
  assert.equal(refusalText("recall", "Warm", { code: "claimed" }, "Ann"),
    "Recall “Warm”: Ann has claimed a control it sets. Try again when they let go.");
});
