// Conformance scenario 1 (clients/conformance/scenarios.md): connect — the
// welcome is read; controls are typed; a control's value is the committed state.
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect, UnknownControl } from "../tandem.js";
import { Server } from "./harness.mjs";

test("s1 connect: the welcome gives typed controls whose values are the committed states", async (t) => {
  const server = await Server.start();
  t.after(() => server.stop());
  await server.api("PUT", "/api/rooms/demo/controls/gain", { value: 0.25 });
  const room = await connect(server.wsURL("demo"), { name: "trainer" });
  t.after(() => room.close());

  assert.equal(room.id, "demo");
  assert.equal(room.state, "open");
  assert.match(room.client, /^c\d+$/);
  assert.deepEqual(room.peers.map((p) => [p.name, p.me]), [["trainer", true]]);
  assert.deepEqual(room.controls.map((c) => [c.id, c.type]),
    [["size", "snap"], ["blanks", "range"], ["color", "color"], ["gain", "slider"], ["bpm", "gauge"]]);
  assert.deepEqual(room.control("size").schema.values, [20, 40, 60, 80, 100]);
  assert.equal(room.control("gain").label, "Gain");

  // Values in each kind's form, equal to what the server has committed.
  assert.equal(room.control("gain").value, 0.25);
  assert.equal(room.control("size").value, 60);
  assert.deepEqual(room.control("blanks").value, { lower: 0, upper: 1 });
  assert.equal(room.control("color").value, "#336699");
  assert.equal(room.control("bpm").value, 67);
  const states = await server.states("demo");
  for (const c of room.controls) assert.deepEqual(c.state, states[c.id], c.id);

  assert.throws(() => room.control("nope"), UnknownControl);
});
