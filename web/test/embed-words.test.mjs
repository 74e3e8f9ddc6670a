import assert from "node:assert/strict";
import { test } from "node:test";

import { controlValue, refusalWords, serverOrigin, sessionKey, unreachableHint } from "../js/embed/words.js";

const MODULE = "http://tandem.example:8080/embed.js";

test("an element's server: its attribute's origin, else the module's; only http(s)", () => {
  assert.equal(serverOrigin("", MODULE), "http://tandem.example:8080");
  assert.equal(serverOrigin(null, MODULE), "http://tandem.example:8080");
  assert.equal(serverOrigin("  https://sync.example:8443/some/path ", MODULE), "https://sync.example:8443");
  assert.equal(serverOrigin("//other.example", MODULE, "https://page.example/app"), "https://other.example");
  assert.equal(serverOrigin("ws://tandem.example:8080", MODULE), null);
  assert.equal(serverOrigin("javascript:alert(1)", MODULE), null);
  assert.equal(serverOrigin("http://[bad", MODULE), null);
});

test("elements share a connection only with the same server, room, token and name", () => {
  const base = { server: "http://a", room: "synth" };
  assert.equal(sessionKey(base), sessionKey({ ...base, token: null, name: "" }));
  for (const other of [{ server: "http://b" }, { room: "demo" }, { token: "t" }, { name: "Ann" }]) {
    assert.notEqual(sessionKey(base), sessionKey({ ...base, ...other }), JSON.stringify(other));
  }
  // No two different tuples collide through the separator.
  assert.notEqual(sessionKey({ server: "a", room: "b,c" }), sessionKey({ server: "a,b", room: "c" }));
});

test("a control's value as the tandem-change event carries it, per kind", () => {
  assert.equal(controlValue({ type: "slider" }, { value: 0.25 }), 0.25);
  assert.equal(controlValue({ type: "snap" }, { value: 3 }), 3);
  assert.equal(controlValue({ type: "toggle" }, { on: true }), true);
  assert.equal(controlValue({ type: "toggle" }, { on: "yes" }), false);
  assert.equal(controlValue({ type: "color" }, { hex: "#FF8000", r: 1 }), "#FF8000");
  assert.deepEqual(controlValue({ type: "xy" }, { x: 0.1, y: 0.9 }), { x: 0.1, y: 0.9 });
  assert.deepEqual(controlValue({ type: "range" }, { lower: 2, upper: 5 }), { lower: 2, upper: 5 });
  assert.equal(controlValue({ type: "button" }, { presses: 4 }), 4);
  assert.equal(controlValue({ type: "button" }, {}), 0);
  assert.equal(controlValue({ type: "slider" }, null), null);
});

test("a refusal is named for the person and the developer, with the room and control it concerns", () => {
  const missing = refusalWords("missing", { room: "synth" });
  assert.match(missing.detail, /token="…"/);
  assert.equal(missing.status, "token needed");
  assert.match(refusalWords("unknown_room", { room: "nope", server: "http://a" }).title, /'nope'/);
  assert.match(refusalWords("unknown_control", { room: "synth", control: "cutof" }).title, /'cutof'/);
  assert.match(refusalWords("wrong_room", { room: "synth" }).title, /'synth'/);
  for (const kind of ["expired", "not_yet", "invalid", "unauthorized", "something-new"]) {
    const words = refusalWords(kind, { room: "synth" });
    assert.ok(words.title && words.detail && words.status, kind);
  }
});

test("the unreachable hint waits two attempts and names --allow-origin only for a foreign page", () => {
  const retrying = { everOpen: false, attempt: 2, state: "reconnecting" };
  assert.equal(unreachableHint({ ...retrying, attempt: 1 }, "http://a", "http://b"), null);
  assert.equal(unreachableHint({ ...retrying, everOpen: true }, "http://a", "http://b"), null);
  assert.equal(unreachableHint({ ...retrying, state: "open" }, "http://a", "http://b"), null);
  assert.match(unreachableHint(retrying, "http://a", "http://b"), /--allow-origin http:\/\/b/);
  assert.doesNotMatch(unreachableHint(retrying, "http://a", "http://a"), /--allow-origin/);
});
