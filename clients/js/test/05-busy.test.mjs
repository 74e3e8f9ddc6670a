// Conformance scenario 5: busy — a set on a thumb another client holds raises
// Busy naming the holder (so does a drag of it).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Busy, connect } from "../tandem.js";
import { Server, until } from "./harness.mjs";

test("s5 busy: a set or drag of a thumb someone holds raises Busy naming the holder", async (t) => {
  const server = await Server.start();
  t.after(() => server.stop());
  const trainer = await connect(server.wsURL(), { name: "trainer" });
  const ann = await connect(server.wsURL(), { name: "Ann" });
  t.after(() => { trainer.close(); ann.close(); });
  await until(() => trainer.peers.some((p) => p.name === "Ann"), "Ann in the trainer's peers");

  const held = ann.control("blanks").drag({ thumb: "upper" });
  await held.ready;
  held.moveTo(3);

  const error = await trainer.control("blanks").set(2, { thumb: "upper" }).then(() => assert.fail("resolved"), (e) => e);
  assert.ok(error instanceof Busy, error.name);
  assert.equal(error.holder, ann.client);
  assert.equal(error.holderName, "Ann");
  assert.equal(error.control, "blanks");

  // A drag of the same thumb is refused too: ready and end() say Busy.
  const mine = trainer.control("blanks").drag({ thumb: "upper" });
  const refused = await mine.ready.then(() => assert.fail("began"), (e) => e);
  assert.ok(refused instanceof Busy);
  assert.equal(refused.holderName, "Ann");
  await assert.rejects(mine.end(), Busy);

  // The other thumb is free (clamped against the committed upper thumb); once Ann lets go, the set goes through.
  assert.deepEqual(await trainer.control("blanks").set(3, { thumb: "lower" }), { lower: 0, upper: 1 });
  assert.deepEqual(await held.end(), { lower: 0, upper: 3 });
  assert.deepEqual(await trainer.control("blanks").set(2, { thumb: "upper" }), { lower: 0, upper: 2 });
});
