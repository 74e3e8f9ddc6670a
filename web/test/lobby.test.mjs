import assert from "node:assert/strict";
import { test } from "node:test";

import { readFileSync } from "node:fs";

import {
  KINDS, KIND_FIELDS, controlFromFields, controlProblems, fieldsFromControl, fieldsOf, freshId, freshRoomId, initialState,
  parseField, parseNumberText, peopleText, placeError, previewProblem, roomFromForm, roomHref, starterControl,
} from "../js/lobby-form.js";
import { shareLink } from "../js/share.js";

test("the form's controls may be a list or a whole room file; the fields win", () => {
  assert.deepEqual(roomFromForm("synth", "Synth", "[]"), { room: { id: "synth", title: "Synth", controls: [] } });
  const file = JSON.stringify({ id: "a", title: "A", controls: [{ id: "x", type: "slider", min: 0, max: 1 }] });
  assert.equal(roomFromForm("", "", file).room.id, "a");
  assert.equal(roomFromForm("b", "", file).room.id, "b");
  assert.equal(roomFromForm("b", "", file).room.title, "A");
});

test("bad JSON or no id is the form's own error, next to its field", () => {
  assert.equal(roomFromForm("x", "", "[{").field, "controls");
  assert.equal(roomFromForm("x", "", "{\"a\":1}").field, "controls");
  assert.equal(roomFromForm("", "", "[]").field, "id");
  assert.equal(roomFromForm("no spaces", "", "[]").field, "id");
  assert.equal(roomFromForm(".", "", "[]").field, "id");
  assert.equal(roomFromForm("..", "", "[]").field, "id");
  assert.equal(roomFromForm("v1.2", "", "[]").room.id, "v1.2");
  assert.equal(roomFromForm("a", "", "[]", "compact").room.layout, "compact");
});

test("the server's schema errors land next to the id, the title or the controls", () => {
  assert.equal(placeError(400, { code: "bad_schema", control: null, field: "id", message: "m" }).field, "id");
  assert.equal(placeError(400, { code: "bad_schema", control: null, field: "title", message: "m" }).field, "title");
  assert.equal(placeError(400, { code: "bad_schema", control: "size", field: "values", message: "m" }).field, "controls");
  assert.deepEqual(placeError(409, { code: "too_many_rooms", message: "full" }), { field: "form", message: "full" });
  assert.equal(placeError(500, null).message, "The server answered 500");
});

test("counts and links", () => {
  assert.equal(peopleText(0), "empty");
  assert.equal(peopleText(1), "1 person");
  assert.equal(peopleText(41), "41 people");
  assert.equal(roomHref("a b"), "/?room=a+b");
  assert.equal(roomHref("s", "Ann"), "/?room=s&name=Ann");
});

test("a shared link carries the room, and the token only when asked", () => {
  const location = { href: "http://h:8080/?room=demo&name=Ann" };
  assert.equal(shareLink(location, "demo"), "http://h:8080/?room=demo");
  assert.equal(shareLink(location, "demo", "T.K.N"), "http://h:8080/?room=demo&token=T.K.N");
});

const SYNTH = JSON.parse(readFileSync(new URL("../../examples/synth.json", import.meta.url), "utf8"));

test("every kind has its fields in the form, and the form offers every kind", () => {
  assert.deepEqual(KINDS.map(([k]) => k), ["slider", "snap", "range", "color", "gauge", "toggle", "xy", "button"]);
  assert.deepEqual(Object.keys(KIND_FIELDS).sort(), KINDS.map(([k]) => k).sort());
  assert.deepEqual(fieldsOf("xy").map((f) => f.key).filter((k) => k.startsWith("y.")), ["y.label", "y.min", "y.max", "y.step", "y.scale", "y.unit"]);
  assert.deepEqual(fieldsOf("toggle").map((f) => f.key), ["id", "label", "group", "description"]);
});

test("what a field's text means", () => {
  const number = { key: "min", label: "Minimum", input: "number", required: true };
  assert.deepEqual(parseField(number, " -0.5 "), { value: -0.5 });
  assert.deepEqual(parseField(number, "1e3"), { value: 1000 });
  assert.deepEqual(parseField(number, ""), { error: "Minimum is required" });
  assert.deepEqual(parseField(number, "low"), { error: "'low' is not a number" });
  assert.equal(parseNumberText("1/255"), 1 / 255);
  assert.equal(parseNumberText("1/0"), null);
  assert.equal(parseNumberText("0x10"), null);
  assert.deepEqual(parseField({ key: "step", input: "number" }, ""), { absent: true });
  assert.deepEqual(parseField({ key: "values", input: "numbers", label: "Values" }, "20, 40,60,"), { value: [20, 40, 60] });
  assert.deepEqual(parseField({ key: "values", input: "numbers", label: "Values" }, "1, two"), { error: "'two' is not a number" });
  assert.deepEqual(parseField({ key: "scale", input: "pair", label: "Scale" }, "0, 9"), { value: [0, 9] });
  assert.ok(parseField({ key: "scale", input: "pair", label: "Scale" }, "0").error);
  assert.deepEqual(parseField({ key: "labels", input: "texts" }, "sine, square"), { value: ["sine", "square"] });
  assert.ok(parseField({ key: "id", input: "text", id: true }, "a b").error);
  assert.deepEqual(parseField({ key: "id", input: "text", id: true }, "a.b_c-1"), { value: "a.b_c-1" });
});

test("every control of the synth room reads into the form's fields and back unchanged", () => {
  for (const control of SYNTH.controls) {
    const found = fieldsFromControl(control);
    assert.ok(!found.error, found.error);
    const back = controlFromFields(found.kind, found.texts, found.extra);
    assert.deepEqual(back.errors, {});
    assert.deepEqual(back.control, control, control.id);
  }
});

test("keys the form has no field for stay as they were (a starting state, an axis' digits, a typo)", () => {
  const xy = { id: "p", type: "xy", x: { min: 0, max: 1, digits: 2 }, y: { min: 0, max: 1 }, state: { x: 0.5, y: 0 }, stepp: 1 };
  const found = fieldsFromControl(xy);
  assert.deepEqual(found.extra, { state: { x: 0.5, y: 0 }, stepp: 1, x: { digits: 2 } });
  assert.deepEqual(controlFromFields(found.kind, found.texts, found.extra).control, xy);
  assert.match(fieldsFromControl({ id: "q", type: "knob" }).error, /'knob'/);
  assert.match(fieldsFromControl({ id: "q" }).error, /no type/);
});

test("fresh ids and starters that preview at once", () => {
  assert.equal(freshId("slider", ["level"]), "slider");
  assert.equal(freshId("slider", ["slider", "slider-2"]), "slider-3");
  assert.equal(freshRoomId(new Set(["demo"])), "studio");
  assert.equal(freshRoomId(new Set(["studio"])), "studio-2");
  for (const [kind] of KINDS) {
    const control = starterControl(kind, kind);
    assert.equal(previewProblem(control), null, kind);
    assert.ok(initialState(control), kind);
  }
});

test("the form's own checks: two controls with one id", () => {
  assert.deepEqual(controlProblems([{ id: "a" }, { id: "b" }, { id: "a" }]).map((p) => [p.index, p.key]), [[2, "id"]]);
});

test("why a control cannot be previewed", () => {
  assert.match(previewProblem({ type: "slider", min: 5, max: 1 }), /above Minimum/);
  assert.match(previewProblem({ type: "slider", min: 0, max: 1, step: 0.3 }), /whole steps/);
  assert.equal(previewProblem({ type: "slider", min: 0, max: 1, step: 0.1 }), null);
  assert.match(previewProblem({ type: "slider", min: 0, max: 1, scale: "log" }), /log/);
  assert.match(previewProblem({ type: "snap", values: [3, 2] }), /ascending/);
  assert.match(previewProblem({ type: "snap", values: [1, 2], labels: ["a"] }), /one per value/);
  assert.match(previewProblem({ type: "range", scale: [0, 9], operable: [0, 20] }), /inside/);
  assert.match(previewProblem({ type: "xy", x: { min: 0, max: 1 }, y: { min: 5, max: 1 } }), /^y: /);
});

test("the starting state, as the server gives it", () => {
  assert.deepEqual(initialState({ type: "range", scale: [0, 9], operable: [2, 5], minGap: 1 }), { lower: 2, upper: 3 });
  assert.deepEqual(initialState({ type: "color", state: { hex: "#336699" } }), { hex: "#336699", red: 0.2, green: 0.4, blue: 0.6 });
  assert.deepEqual(initialState({ type: "snap", values: [20, 40, 60], state: { value: 40 } }), { value: 40, index: 1 });
  assert.deepEqual(initialState({ type: "xy", x: { min: -1, max: 1 }, y: { min: 0, max: 5 } }), { x: -1, y: 0 });
});

test("a schema error lands on the field of the control it names", () => {
  const controls = [{ id: "s", type: "snap", values: [1, 2] }, { id: "p", type: "xy" }, { id: "s", type: "toggle" }];
  const at = (control, field, message = "m") => placeError(400, { code: "bad_schema", control, field, message }, controls);
  assert.deepEqual([at("s", "labels[1]").index, at("s", "labels[1]").key], [0, "labels"]);
  assert.deepEqual([at("p", "y.max").index, at("p", "y.max").key], [1, "y.max"]);
  assert.deepEqual([at("#2", "type").index, at("#2", "type").key], [1, "type"]);
  assert.equal(at("s", "id", "control 's', field 'id': is used by another control").index, 2);
  assert.equal(at("s", "stepp").key, "", "a field the form has none for: the control's own line");
  assert.equal(at("zz", "min").index, undefined, "a control the form does not have");
  assert.equal(at(null, "layout").field, "layout");
  assert.equal(at("s", "values", "control 's', field 'values': must not be empty").short, "Must not be empty");
});
