// Exact values typed into a control's value field: parsing (units, labels,
// multipliers, grouping), the predicted commit and the reason shown beside the
// field when the commit is not what was typed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { entryFor, exactText, fieldText, matchLabel, parseEntry, parseQuantity, stepText } from "../js/entry.js";

const cutoff = { id: "cutoff", type: "slider", label: "Cutoff", min: 20, max: 20000, scale: "log", digits: 3, unit: "Hz" };
const resonance = { id: "resonance", type: "slider", min: 0, max: 100, step: 1, unit: "%" };
const gain = { id: "gain", type: "slider", min: 0, max: 1, step: 0.01 };
const free = { id: "free", type: "slider", min: 0, max: 1 };
const rounded = { id: "rounded", type: "slider", min: 0, max: 1000, digits: 2 };
const waveform = { id: "waveform", type: "snap", values: [0, 1, 2, 3], labels: ["sine", "square", "saw", "triangle"] };
const size = { id: "size", type: "snap", values: [20, 40, 60, 80, 100], unit: "pt" };
const blanks = { id: "blanks", type: "range", scale: [0, 9], operable: [0, 3], minGap: 1 };
const space = {
  id: "space", type: "xy",
  x: { min: -1, max: 1, step: 0.01, label: "pan" },
  y: { min: 0, max: 100, step: 1, unit: "%", label: "depth" },
};
const colour = { id: "color", type: "color", step: 1 / 255 };

test("a quantity: plain numbers, signs, exponents, grouping and the unit in any case", () => {
  assert.deepEqual(parseQuantity("440"), { value: 440 });
  assert.deepEqual(parseQuantity("  -0.5 "), { value: -0.5 });
  assert.deepEqual(parseQuantity("\u22123"), { value: -3 }); // a typographic minus
  assert.deepEqual(parseQuantity(".25"), { value: 0.25 });
  assert.deepEqual(parseQuantity("1e3"), { value: 1000 });
  assert.deepEqual(parseQuantity("20,000"), { value: 20000 });
  assert.deepEqual(parseQuantity("1,070 Hz", "Hz"), { value: 1070 });
  assert.deepEqual(parseQuantity("440 Hz", "Hz"), { value: 440 });
  assert.deepEqual(parseQuantity("440hz", "Hz"), { value: 440 });
  assert.deepEqual(parseQuantity("30%", "%"), { value: 30 });
});

test("a quantity: k, M and G multiply exactly", () => {
  assert.deepEqual(parseQuantity("1k"), { value: 1000 });
  assert.deepEqual(parseQuantity("1.1k"), { value: 1100 }); // 1.1 * 1000 would be 1100.0000000000002
  assert.deepEqual(parseQuantity("2.5 kHz", "Hz"), { value: 2500 });
  assert.deepEqual(parseQuantity("1.5K"), { value: 1500 });
  assert.deepEqual(parseQuantity("3M"), { value: 3e6 });
  assert.deepEqual(parseQuantity("1G"), { value: 1e9 });
});

test("a quantity: what is not one says why", () => {
  assert.equal(parseQuantity("").problem, "empty");
  assert.equal(parseQuantity("   ").problem, "empty");
  assert.equal(parseQuantity("abc").problem, "not_a_number");
  assert.equal(parseQuantity("NaN").problem, "not_a_number");
  assert.equal(parseQuantity("Infinity").problem, "not_a_number");
  assert.equal(parseQuantity("1e400").problem, "not_a_number");
  assert.deepEqual(parseQuantity("0,5"), { problem: "decimal_comma", hint: "0.5" });
  assert.deepEqual(parseQuantity("440 dB", "Hz"), { problem: "unit", typed: "dB" });
  assert.deepEqual(parseQuantity("440 Hz"), { problem: "unit", typed: "Hz" });
  assert.equal(parseQuantity("1e3k").problem, "unit"); // an exponent and a multiplier: not taken
});

test("a snap's labels: exact in any case, else the one label the text starts", () => {
  const labels = waveform.labels;
  assert.deepEqual(matchLabel(labels, "saw"), { index: 2 });
  assert.deepEqual(matchLabel(labels, " SQUARE "), { index: 1 });
  assert.deepEqual(matchLabel(labels, "tri"), { index: 3 });
  assert.deepEqual(matchLabel(labels, "s"), { ambiguous: ["sine", "square", "saw"] });
  assert.equal(matchLabel(labels, "noise"), null);
  assert.equal(matchLabel(labels, ""), null);
});

test("typed text per kind: the number a set sends, or the error in words", () => {
  assert.deepEqual(parseEntry(cutoff, "value", "440 Hz"), { value: 440 });
  assert.deepEqual(parseEntry(waveform, "index", "Triangle"), { value: 3, label: true });
  assert.deepEqual(parseEntry(waveform, "index", "2"), { value: 2 });
  assert.deepEqual(parseEntry(size, "index", "60 pt"), { value: 60 });
  assert.deepEqual(parseEntry(space, "y", "55 %"), { value: 55 });
  assert.deepEqual(parseEntry(blanks, "upper", "2"), { value: 2 });

  assert.equal(parseEntry(cutoff, "value", "abc").error, "'abc' is not a number: type a value from 20 to 20,000 Hz");
  assert.equal(parseEntry(cutoff, "value", "").error, "Type a value from 20 to 20,000 Hz");
  assert.equal(parseEntry(cutoff, "value", "440 dB").error, "'440 dB': 'dB' is not this control's unit (Hz)");
  assert.equal(parseEntry(gain, "value", "0,5").error, "'0,5': write decimals with a point (0.5)");
  assert.equal(parseEntry(gain, "value", "5 Hz").error, "'5 Hz': type a plain number, this control has no unit");
  assert.equal(parseEntry(waveform, "index", "noise").error, "'noise' is not one of sine, square, saw or triangle");
  assert.equal(parseEntry(waveform, "index", "s").error, "'s' could be sine, square or saw: type more of it");
  assert.equal(parseEntry(blanks, "lower", "x").error, "'x' is not a number: type a whole number from 0 to 3");
  assert.equal(parseEntry(colour, "red", "lots").error, "'lots' is not a number: type a level from 0 to 1");
  assert.equal(parseEntry(space, "x", "?").error, "'?' is not a number: type a value from -1.00 to 1.00");
});

test("a log slider: 440 commits exactly 440; past the ends it clamps; extra digits round", () => {
  const at = { value: 1000 };
  assert.deepEqual(entryFor(cutoff, "value", "440", at), { value: 440, state: { value: 440 }, text: "440 Hz", reason: null });
  assert.equal(entryFor(cutoff, "value", "440 Hz", at).state.value, 440);
  assert.equal(entryFor(cutoff, "value", "1.5k", at).state.value, 1500);

  const high = entryFor(cutoff, "value", "25000", at);
  assert.deepEqual(high.state, { value: 20000 });
  assert.equal(high.text, "20,000 Hz");
  assert.equal(high.reason, "clamped to 20,000 Hz (the maximum)");
  assert.equal(entryFor(cutoff, "value", "5", at).reason, "clamped to 20 Hz (the minimum)");

  const extra = entryFor(cutoff, "value", "443.21", at);
  assert.equal(extra.state.value, 443);
  assert.equal(extra.reason, "rounded to 443 Hz (3 significant digits)");
  assert.equal(entryFor(cutoff, "value", "1,234", at).reason, "rounded to 1,230 Hz (3 significant digits)");
});

test("a linear slider: a step snaps, digits round, a value on the grid is taken as is", () => {
  const r = entryFor(resonance, "value", "33.4", { value: 20 });
  assert.equal(r.state.value, 33);
  assert.equal(r.reason, "snapped to 33 % (steps of 1 %)");
  assert.equal(entryFor(resonance, "value", "150", { value: 20 }).reason, "clamped to 100 % (the maximum)");
  assert.equal(entryFor(resonance, "value", "40 %", { value: 20 }).reason, null);

  const g = entryFor(gain, "value", "0.555", { value: 0.5 });
  assert.equal(g.text, "0.56");
  assert.equal(g.reason, "snapped to 0.56 (steps of 0.01)");
  // 0.7 on a 0.01 grid is 70/100, not 70 * 0.01: no reason.
  assert.equal(entryFor(gain, "value", "0.7", { value: 0.5 }).reason, null);

  assert.equal(entryFor(rounded, "value", "123", { value: 0 }).reason, "rounded to 120 (2 significant digits)");
  assert.deepEqual(entryFor(free, "value", "0.12345", { value: 0 }).state, { value: 0.12345 });
  assert.equal(entryFor(free, "value", "0.12345", { value: 0 }).reason, null);
});

test("a snap: a label or a value; a value in between snaps to the nearest, outside clamps", () => {
  const at = { index: 2, value: 60 };
  assert.deepEqual(entryFor(size, "index", "80", at).state, { index: 3, value: 80 });
  const between = entryFor(size, "index", "65", at);
  assert.deepEqual(between.state, { index: 2, value: 60 });
  assert.equal(between.reason, "snapped to 60 pt, the nearest value");
  // A tie goes to the higher value, as the server's set does.
  assert.equal(entryFor(size, "index", "70", at).state.value, 80);
  assert.equal(entryFor(size, "index", "500", at).reason, "clamped to 100 pt (the largest value)");
  assert.equal(entryFor(size, "index", "0", at).reason, "clamped to 20 pt (the smallest value)");

  const w = entryFor(waveform, "index", "tri", { index: 2, value: 2 });
  assert.deepEqual(w.state, { index: 3, value: 3 });
  assert.equal(w.text, "triangle");
  assert.equal(w.reason, null);
  assert.equal(entryFor(waveform, "index", "1.4", { index: 2, value: 2 }).reason, "snapped to square, the nearest value");
});

test("a range: each thumb rounds to whole numbers and keeps its gap and reach", () => {
  const at = { lower: 0, upper: 1 };
  assert.deepEqual(entryFor(blanks, "upper", "3", at).state, { lower: 0, upper: 3 });
  assert.equal(entryFor(blanks, "upper", "2.4", at).reason, "rounded to 2 (whole numbers only)");
  assert.equal(entryFor(blanks, "upper", "9", at).reason, "clamped to 3 (the highest it can reach)");
  const lower = entryFor(blanks, "lower", "2", { lower: 0, upper: 2 });
  assert.deepEqual(lower.state, { lower: 1, upper: 2 });
  assert.equal(lower.reason, "clamped to 1 (1 below the upper thumb)");
  assert.equal(entryFor(blanks, "lower", "-4", at).reason, "clamped to 0 (the lowest it can reach)");
  assert.equal(entryFor(blanks, "upper", "0", { lower: 1, upper: 2 }).reason, "clamped to 2 (1 above the lower thumb)");
  const touching = { ...blanks, minGap: 0 };
  assert.equal(entryFor(touching, "lower", "3", { lower: 0, upper: 2 }).reason, "clamped to 2 (at the upper thumb)");
});

test("an xy pad: each axis is set alone, with its own step and unit", () => {
  const at = { x: 0, y: 30 };
  const y = entryFor(space, "y", "55.5", at);
  // 56 on the grid, as the server computes it: 0 + 100 · (56/100).
  assert.equal(y.state.x, 0);
  assert.ok(Math.abs(y.state.y - 56) < 1e-9, `y ${y.state.y}`);
  assert.equal(y.text, "56 %");
  assert.equal(y.reason, "snapped to 56 % (steps of 1 %)");
  const x = entryFor(space, "x", "-2", at);
  assert.deepEqual(x.state, { x: -1, y: 30 });
  assert.equal(x.reason, "clamped to -1.00 (the minimum)");
  assert.equal(entryFor(space, "x", "0.25", at).reason, null);
});

test("a colour channel: clamps to 0–1 and snaps to its step", () => {
  const at = { red: 0.2, green: 0.4, blue: 0.6, hex: "#336699" };
  const high = entryFor(colour, "red", "1.5", at);
  assert.equal(high.state.red, 1);
  assert.equal(high.state.hex, "#FF6699");
  assert.equal(high.reason, "clamped to 1.000 (the maximum)");
  assert.equal(entryFor(colour, "red", "0.5", at).reason, "snapped to 0.502 (steps of 1/255)");
  assert.equal(entryFor(colour, "green", "0.4", at).reason, null);
});

test("field texts, and the full value while editing when the shown text rounds it", () => {
  assert.equal(fieldText(cutoff, "value", { value: 1070 }), "1,070 Hz");
  assert.equal(fieldText(waveform, "index", { index: 0, value: 0 }), "sine");
  assert.equal(fieldText(size, "index", { index: 2, value: 60 }), "60 pt");
  assert.equal(fieldText(blanks, "upper", { lower: 0, upper: 1 }), "1");
  assert.equal(fieldText(space, "x", { x: 0.5, y: 30 }), "0.50");
  assert.equal(exactText(free, "value", { value: 0.12345 }), "0.12345");
  assert.equal(exactText(free, "value", { value: 0.5 }), "0.500");
  assert.equal(exactText(cutoff, "value", { value: 20000 }), "20,000 Hz");
  assert.equal(exactText(gain, "value", { value: 0.5 }), "0.50");
  assert.equal(exactText(space, "y", { x: 0, y: 56.00000000000001 }), "56 %", "a grid value as its step shows it");
  assert.equal(exactText(free, "value", { value: 0.1 + 0.2 }), "0.300", "binary noise is not precision");
  assert.equal(exactText(free, "value", { value: 0.1234567 }), "0.1234567");
});

test("steps in words", () => {
  assert.equal(stepText(0.01), "0.01");
  assert.equal(stepText(1 / 255), "1/255");
  assert.equal(stepText(0.5), "0.5");
  assert.equal(stepText(1 / 3), "1/3");
  assert.equal(stepText(5, "%"), "5 %");
  assert.equal(stepText(0.1 + 0.2), "0.3");
});
