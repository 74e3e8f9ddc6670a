// Coarse and fine keyboard steps: which key asks for what, and what a fine
// step sends per kind (a set where the kind has a finer resolution than its
// step, else one step).
import { test } from "node:test";
import assert from "node:assert/strict";
import { COARSE, fineMessage, fineValue, hasFine, keyIntent, lastDigit } from "../js/steps.js";
import { logStep, logPosition } from "../js/math.js";

const cutoff = { id: "cutoff", type: "slider", min: 20, max: 20000, scale: "log", digits: 3, unit: "Hz" };
const resonance = { id: "resonance", type: "slider", min: 0, max: 100, step: 1 };
const free = { id: "free", type: "slider", min: 0, max: 1 };
const coarseDigits = { id: "d", type: "slider", min: 0, max: 100, digits: 2 };
const space = { id: "space", type: "xy", x: { min: -1, max: 1, step: 0.01 }, y: { min: 1, max: 1000, scale: "log" } };

test("keys: arrows step one, Shift ten, Alt fine, Page keys ten, Home/End, Enter edits", () => {
  assert.deepEqual(keyIntent({ key: "ArrowRight" }), { by: 1, arrow: "x" });
  assert.deepEqual(keyIntent({ key: "ArrowDown" }), { by: -1, arrow: "y" });
  assert.deepEqual(keyIntent({ key: "ArrowUp", shiftKey: true }), { by: COARSE, arrow: "y" });
  assert.deepEqual(keyIntent({ key: "ArrowLeft", shiftKey: true }), { by: -10, arrow: "x" });
  assert.deepEqual(keyIntent({ key: "ArrowRight", altKey: true }), { fine: 1, arrow: "x" });
  assert.deepEqual(keyIntent({ key: "ArrowDown", altKey: true, shiftKey: true }), { fine: -1, arrow: "y" });
  assert.deepEqual(keyIntent({ key: "PageUp" }), { by: 10, arrow: null });
  assert.deepEqual(keyIntent({ key: "PageDown", shiftKey: true }), { by: -10, arrow: null });
  assert.deepEqual(keyIntent({ key: "Home" }), { end: "min" });
  assert.deepEqual(keyIntent({ key: "End" }), { end: "max" });
  assert.deepEqual(keyIntent({ key: "Enter" }), { edit: true });
  assert.deepEqual(keyIntent({ key: "Escape" }), { cancel: true });
  // Ctrl/Cmd combinations and other keys keep their usual jobs.
  assert.equal(keyIntent({ key: "ArrowRight", ctrlKey: true }), null);
  assert.equal(keyIntent({ key: "ArrowRight", metaKey: true }), null);
  assert.equal(keyIntent({ key: "PageUp", altKey: true }), null);
  assert.equal(keyIntent({ key: "a" }), null);
});

test("a log slider's fine step moves the track fraction a thousandth, rounded to its digits", () => {
  const up = fineMessage(cutoff, "value", 1, { value: 1000 });
  assert.equal(up.type, "set");
  // 1000 · 1000^(1/1000) = 1006.9…, to 3 digits 1010 (a plain step: 1070).
  assert.equal(up.value, 1010);
  assert.equal(logStep(1000, 1, 20, 20000), 1070);
  assert.equal(fineMessage(cutoff, "value", -1, { value: 1000 }).value, 993);
  assert.ok(Math.abs(logPosition(1010, 20, 20000) - logPosition(1000, 20, 20000)) < 0.002);
  // At an end there is nothing to send.
  assert.equal(fineMessage(cutoff, "value", 1, { value: 20000 }), null);
  assert.equal(fineMessage(cutoff, "value", -1, { value: 20 }), null);
  // Near the top the fine step stops at the end.
  assert.equal(fineMessage(cutoff, "value", 1, { value: 19990 }).value, 20000);
});

test("a linear slider without a step: a thousandth of the span, on that grid", () => {
  assert.deepEqual(fineMessage(free, "value", 1, { value: 0.5 }), { type: "set", value: 0.501 });
  assert.deepEqual(fineMessage(free, "value", -1, { value: 0.5 }), { type: "set", value: 0.499 });
  // Off the grid (a drag's 0.12345): to the next thousandth in that direction's neighbourhood.
  assert.equal(fineMessage(free, "value", 1, { value: 0.12345 }).value, 0.124);
  assert.equal(fineMessage(free, "value", 1, { value: 0.9995 }).value, 1);
  assert.equal(fineMessage(free, "value", 1, { value: 1 }), null);
  // Two digits swallow a thousandth of 100 at 50: one unit of the last digit instead.
  assert.equal(fineValue(coarseDigits, 50, 1), 51);
  assert.equal(fineValue(coarseDigits, 50, -1), 49);
  assert.equal(lastDigit(50, 2), 1);
  assert.equal(lastDigit(1000, 3), 10);
  assert.equal(lastDigit(0.5, 3), 0.001);
});

test("kinds with nothing finer than a step move one step", () => {
  assert.deepEqual(fineMessage(resonance, "value", 1, { value: 20 }), { type: "step", by: 1 });
  assert.deepEqual(fineMessage({ type: "snap", values: [1, 2] }, "index", -1, { index: 1, value: 2 }), { type: "step", by: -1 });
  assert.deepEqual(fineMessage({ type: "range", scale: [0, 9] }, "upper", 1, { lower: 0, upper: 1 }), { type: "step", by: 1 });
  assert.deepEqual(fineMessage({ type: "color", step: 1 / 255 }, "red", 1, { red: 0.2 }), { type: "step", by: 1 });
  assert.equal(hasFine(resonance), false);
  assert.equal(hasFine(cutoff), true);
  assert.equal(hasFine({ type: "range" }), false);
});

test("an xy pad: each axis on its own; a stepped axis steps, a log axis sets", () => {
  assert.deepEqual(fineMessage(space, "xy", 1, { x: 0, y: 10 }, "x"), { type: "step", by: [1, 0] });
  const y = fineMessage(space, "xy", -1, { x: 0, y: 10 }, "y");
  assert.equal(y.type, "set");
  assert.deepEqual(Object.keys(y.value), ["y"]);
  assert.ok(y.value.y < 10 && y.value.y > 9.9, `fine y ${y.value.y}`);
  assert.equal(hasFine(space, "x"), false);
  assert.equal(hasFine(space, "y"), true);
});

test("a colour channel without a step: a fine step is a thousandth", () => {
  const plain = { type: "color" };
  assert.deepEqual(fineMessage(plain, "green", 1, { red: 0, green: 0.4, blue: 0 }), { type: "set", value: 0.401 });
  assert.equal(fineMessage(plain, "green", -1, { red: 0, green: 0, blue: 0 }), null);
});
