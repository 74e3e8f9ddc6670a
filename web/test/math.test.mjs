// The browser's math against every case of the project's copy of the shared
// vectors, with the tolerance the vectors ask for (1e-9; indices and hex exact).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as m from "../js/math.js";

const vectors = JSON.parse(readFileSync(new URL("../../Tests/Fixtures/vectors/core.json", import.meta.url), "utf8"));
const close = (actual, expected, what) =>
  assert.ok(Math.abs(actual - expected) <= 1e-9, `${what}: got ${actual}, expected ${expected}`);

const groups = {
  snapIndexFromPixels: (c) => assert.equal(m.snapIndexAtX(c.x, c.width, c.inset, c.count), c.index, JSON.stringify(c)),
  snapPositionPixels: (c) => close(m.snapX(c.index, c.width, c.inset, c.count), c.x, JSON.stringify(c)),
  snapIndexAt: (c) => assert.equal(m.snapIndexAt(c.f, c.values, c.layout), c.index, JSON.stringify(c)),
  rangeDrag: (c) => assert.deepEqual(m.rangeDrag(c.thumb, c.dx, c.start, c.scale, c.operable, c.minGap), c.expect, JSON.stringify(c)),
  sliderValueAt: (c) => close(m.sliderValueAt(c.f, c.min, c.max, c.step), c.value, JSON.stringify(c)),
  sliderSet: (c) => close(m.sliderSet(c.value, c.min, c.max, c.step), c.expect, JSON.stringify(c)),
  colorHex: (c) => assert.equal(m.colorHex(c), c.hex, JSON.stringify(c)),
  colorText: (c) => close(m.colorChannelFromText(c.current, c.text, null), c.expect, JSON.stringify(c)),
  gaugeFraction: (c) => close(m.gaugeFraction(c.value, c.min, c.max), c.fraction, JSON.stringify(c)),
};

test("every group of the vectors is one these tests know, and none is empty", () => {
  assert.deepEqual(Object.keys(vectors).sort(), Object.keys(groups).sort());
  for (const [name, cases] of Object.entries(vectors)) assert.ok(cases.length > 0, name);
});

for (const [name, check] of Object.entries(groups)) {
  test(`${name}: every case matches`, () => {
    for (const c of vectors[name] ?? []) check(c);
  });
}

test("rounding is half away from zero, unlike Math.round", () => {
  assert.equal(m.roundHalfAway(2.5), 3);
  assert.equal(m.roundHalfAway(-2.5), -3);
  assert.equal(m.roundHalfAway(0.49999999999999994), 0);
  assert.equal(m.rangePlace("lower", m.roundHalfAway(-2.5), { lower: 0, upper: 5 }, [-5, 5], 1).lower, -3);
});

test("snap indices are in range, monotone and map back, for every fraction step and count 1-12", () => {
  for (const layout of ["ordinal", "proportional"]) {
    for (let count = 1; count <= 12; count++) {
      const values = Array.from({ length: count }, (_, i) => (i + 1) ** 2);
      let last = 0;
      for (let k = 0; k <= 1000; k++) {
        const i = m.snapIndexAt(k / 1000, values, layout);
        assert.ok(i >= 0 && i < count);
        assert.ok(i >= last, `${layout} ${count} at ${k}`);
        last = i;
        assert.equal(m.snapIndexAt(m.snapPosition(i, values, layout), values, layout), i);
      }
    }
  }
});

test("whole-control helpers agree with the demo room's worked examples", () => {
  const blanks = { type: "range", scale: [0, 9], operable: [0, 3], minGap: 1 };
  assert.deepEqual(m.place(blanks, "upper", 2 / 9, { lower: 0, upper: 1 }), { lower: 0, upper: 2 });
  assert.deepEqual(m.place(blanks, "upper", 1, { lower: 0, upper: 1 }), { lower: 0, upper: 3 });
  assert.deepEqual(m.stepBy(blanks, "upper", 5, { lower: 0, upper: 1 }), { lower: 0, upper: 3 });
  const size = { type: "snap", values: [20, 40, 60, 80, 100], layout: "ordinal" };
  assert.deepEqual(m.place(size, "index", 0.375, { index: 0, value: 20 }), { index: 2, value: 60 });
  assert.deepEqual(m.setValue(size, null, 70, { index: 0, value: 20 }), { index: 3, value: 80 });
  assert.deepEqual(m.stepBy(size, "index", 5, { index: 2, value: 60 }), { index: 4, value: 100 });
  const gain = { type: "slider", min: 0, max: 1, step: 0.01 };
  assert.deepEqual(m.place(gain, "value", 0.333, { value: 0.5 }), { value: 0.33 });
  assert.deepEqual(m.stepBy(gain, "value", 1, { value: 0.5 }), { value: 0.51 });
  assert.deepEqual(m.setValue(gain, null, 0.126, { value: 0.5 }), { value: 0.13 });
  const color = { type: "color", step: 1 / 255 };
  const initial = { red: 0.2, green: 0.4, blue: 0.6, hex: "#336699" };
  assert.equal(m.setValue(color, "red", 0.5, initial).hex, "#806699");
  assert.equal(m.stepBy(color, "red", 1, initial).hex, "#346699");
  assert.equal(m.colorChannelFromText(0.2, "1.5", color.step), 1);
  assert.equal(m.colorChannelFromText(0.2, "abc", color.step), 0.2);
  assert.deepEqual(m.parseHex("#ff8800"), { red: 1, green: 136 / 255, blue: 0 });
  assert.equal(m.parseHex("#F80"), null);
  const bpm = { type: "gauge", min: 0, max: 170 };
  assert.deepEqual(m.setValue(bpm, null, 200, { value: 67, fraction: 67 / 170 }), { value: 200, fraction: 1 });
  assert.equal(m.position(blanks, { lower: 0, upper: 1 }, "upper"), 1 / 9);
});

test("parseNumber takes decimal text only", () => {
  for (const [text, value] of [["0.75", 0.75], [" 0.5 ", 0.5], ["1e-1", 0.1], ["-0.2", -0.2], [".5", 0.5], ["+1", 1]]) {
    assert.equal(m.parseNumber(text), value, text);
  }
  for (const text of ["abc", "", "nan", "inf", "Infinity", "0x10", "1,5", "1e", "--1", "1.2.3"]) {
    assert.equal(m.parseNumber(text), null, text);
  }
});
