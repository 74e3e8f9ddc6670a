import assert from "node:assert/strict";
import { test } from "node:test";

import { peopleText, placeError, roomFromForm, roomHref } from "../js/lobby-form.js";
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
