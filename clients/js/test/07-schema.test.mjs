// Conformance scenario 7: schema change — the room is posted again with another
// control list; the server closes with 1012; the client joins again, exposes the
// new controls, and a handler hears of it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect, UnknownControl } from "../tandem.js";
import { Server, until } from "./harness.mjs";

const room = (controls) => ({ id: "tune", title: "Tuning", controls });
const lr = { id: "lr", type: "slider", label: "Learning rate", min: 0.0001, max: 1, scale: "log", state: { value: 0.01 } };
const dropout = { id: "dropout", type: "slider", min: 0, max: 0.5, step: 0.05 };
const momentum = { id: "momentum", type: "slider", min: 0, max: 1, step: 0.1, state: { value: 0.9 } };

test("s7 schema change: after 1012 the client re-joins and exposes the new controls; a handler observes it", async (t) => {
  const server = await Server.start();
  t.after(() => server.stop());
  assert.equal((await server.api("POST", "/api/rooms", room([lr, dropout]))).status, 201);

  const trainer = await connect(server.wsURL("tune"), { name: "trainer" });
  t.after(() => trainer.close());
  assert.equal(await trainer.control("lr").set(0.02), 0.02);
  const oldDropout = trainer.control("dropout");
  const schemaEvents = [];
  const opens = [];
  trainer.on("schema", (e) => schemaEvents.push(e));
  trainer.on("open", (o) => opens.push(o));
  const firstClient = trainer.client;

  assert.equal((await server.api("POST", "/api/rooms", room([lr, momentum]))).status, 200);
  await until(() => schemaEvents.length === 1, "the schema event");

  assert.deepEqual(schemaEvents[0], { added: ["momentum"], removed: ["dropout"], changed: [] });
  assert.notEqual(trainer.client, firstClient, "a new connection");
  assert.equal(opens.at(-1).since, null, "a full welcome");
  assert.equal(trainer.state, "open");
  assert.deepEqual(trainer.controls.map((c) => c.id), ["lr", "momentum"]);
  assert.equal(trainer.control("momentum").value, 0.9);
  assert.equal(trainer.control("lr").value, 0.02, "a kept control keeps its committed value");
  assert.throws(() => trainer.control("dropout"), UnknownControl);
  assert.throws(() => oldDropout.value, UnknownControl);
  assert.equal(await trainer.control("momentum").set(0.5), 0.5);
});
