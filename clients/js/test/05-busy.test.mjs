// Conformance scenario 5: busy — a set on a thumb another client holds raises
// Busy naming the holder (so does a drag of it).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Busy, Claimed, connect } from "../tandem.js";
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

test("s5 claims: a claimed control refuses others with Claimed naming the holder until it is released", async (t) => {
  const server = await Server.start();
  t.after(() => server.stop());
  const ann = await connect(server.wsURL(), { name: "Ann" });
  const ben = await connect(server.wsURL(), { name: "Ben" });
  t.after(() => { ann.close(); ben.close(); });
  const claims = [];
  ben.on("claim", (c) => claims.push(c));
  const changes = [];
  ben.onChange("gain", (c) => changes.push(c));
  await ann.control("gain").claim();
  await until(() => ben.control("gain").claimedBy === ann.client, "Ben sees Ann's claim");
  assert.deepEqual(claims.at(-1), { control: "gain", holder: ann.client, name: "Ann" });
  const error = await ben.control("gain").set(0.9).then(() => assert.fail("resolved"), (e) => e);
  assert.ok(error instanceof Claimed && error instanceof Busy, `${error.name}: ${error.message}`);
  assert.equal(error.code, "claimed");
  assert.equal(error.holder, ann.client);
  assert.equal(error.holderName, "Ann");
  assert.equal(await ann.control("gain").set(0.7), 0.7);
  await ann.control("gain").release();
  await until(() => ben.control("gain").claimedBy === null, "Ben sees the claim go");
  assert.equal(await ben.control("gain").set(0.2), 0.2);
  // The claim's own changes are not commits: Ben's change listener heard only the two sets.
  assert.deepEqual(changes.map((c) => c.value), [0.7, 0.2]);
});
