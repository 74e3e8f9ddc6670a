// The client's pure parts, without a server: values of each kind, the sets a
// value takes, where a gesture moves for a value, and the typed errors.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Busy, errorFromReject, Forbidden, TandemError } from "../errors.js";
import { fractionOf, gestureThumb, setsFor, valueOf } from "../values.js";

test("values: each kind's value in the form a program uses", () => {
  assert.equal(valueOf({ type: "slider" }, { value: 0.5 }), 0.5);
  assert.equal(valueOf({ type: "snap" }, { index: 2, value: 60 }), 60);
  assert.deepEqual(valueOf({ type: "range" }, { lower: 1, upper: 3 }), { lower: 1, upper: 3 });
  assert.equal(valueOf({ type: "color" }, { red: 1, green: 0, blue: 0, hex: "#FF0000" }), "#FF0000");
  assert.equal(valueOf({ type: "gauge" }, { value: 67, fraction: 0.394 }), 67);
  assert.equal(valueOf({ type: "toggle" }, { on: true }), true);
  assert.equal(valueOf({ type: "button" }, { presses: 3 }), 3);
  assert.deepEqual(valueOf({ type: "xy" }, { x: 0.25, y: 632 }), { x: 0.25, y: 632 });
});

test("values: a range given both thumbs moves first the one the other would block", () => {
  const range = { type: "range", scale: [0, 9] };
  assert.deepEqual(setsFor("b", range, { lower: 5, upper: 7 }, null, { lower: 0, upper: 1 }).map((s) => s.thumb), ["upper", "lower"]);
  assert.deepEqual(setsFor("b", range, { lower: 0, upper: 2 }, null, { lower: 1, upper: 5 }).map((s) => s.thumb), ["lower", "upper"]);
  assert.deepEqual(setsFor("c", { type: "color" }, { green: 0.5 }), [{ control: "c", thumb: "green", value: 0.5 }]);
  assert.deepEqual(setsFor("c", { type: "color" }, "#FF0000"), [{ control: "c", value: "#FF0000" }]);
  assert.deepEqual(setsFor("g", { type: "slider" }, 0.3, "value"), [{ control: "g", thumb: "value", value: 0.3 }]);
});

test("values: a gesture moves to the track fraction where the server shows the value", () => {
  assert.equal(fractionOf({ type: "slider", min: 0, max: 10, step: 1 }, "value", 2.4, { value: 0 }), 0.2);
  assert.equal(fractionOf({ type: "snap", values: [20, 40, 60, 80, 100] }, "index", 75, { index: 0, value: 20 }), 0.75);
  assert.equal(fractionOf({ type: "range", scale: [0, 9], operable: [0, 9] }, "upper", 6, { lower: 0, upper: 1 }), 6 / 9);
  assert.deepEqual(fractionOf({ type: "xy", x: { min: -1, max: 1 }, y: { min: 0, max: 10 } }, "xy", { x: 0, y: 5 }, { x: -1, y: 0 }), [0.5, 0.5]);
  assert.equal(gestureThumb("g", { type: "slider" }), "value");
  assert.throws(() => gestureThumb("b", { type: "range" }), /lower.*upper/);
});

test("errors: a reject becomes its typed error; busy names the holder", () => {
  const busy = errorFromReject({ type: "reject", seq: 4, code: "busy", message: "held", holder: "c3" }, { control: "gain", holderName: "Ann" });
  assert.ok(busy instanceof Busy && busy instanceof TandemError && busy instanceof Error);
  assert.deepEqual([busy.name, busy.code, busy.seq, busy.control, busy.holder, busy.holderName], ["Busy", "busy", 4, "gain", "c3", "Ann"]);
  assert.ok(errorFromReject({ code: "forbidden", seq: 1 }) instanceof Forbidden);
  const unknown = errorFromReject({ code: "new_code", seq: 2, message: "?" });
  assert.equal(unknown.constructor, TandemError);
  assert.equal(unknown.code, "new_code");
});
