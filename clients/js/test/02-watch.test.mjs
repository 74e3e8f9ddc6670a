// Conformance scenario 2: watch — onChange fires on every commit by someone
// else, with the value, `by` (the client id) and the name.
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "../tandem.js";
import { Server, until } from "./harness.mjs";

test("s2 watch: onChange fires on every commit by someone else, with value, by and name", async (t) => {
  const server = await Server.start();
  t.after(() => server.stop());
  const trainer = await connect(server.wsURL(), { name: "trainer" });
  const ann = await connect(server.wsURL(), { name: "Ann" });
  t.after(() => { trainer.close(); ann.close(); });

  const gain = [];
  const all = [];
  trainer.onChange("gain", (change) => gain.push(change));
  trainer.onChange((change) => all.push(change));
  await until(() => trainer.peers.some((p) => p.name === "Ann"), "Ann in the trainer's peers");

  for (const value of [0.7, 0.2, 0.45]) {
    await ann.control("gain").set(value);
    await until(() => gain.at(-1)?.value === value, `the trainer seeing gain ${value}`);
  }
  assert.deepEqual(gain.map((c) => [c.value, c.by, c.name, c.mine]),
    [[0.7, ann.client, "Ann", false], [0.2, ann.client, "Ann", false], [0.45, ann.client, "Ann", false]]);
  assert.ok(gain.every((c, i) => i === 0 || c.rev > gain[i - 1].rev), "revisions increase");
  assert.equal(trainer.control("gain").value, 0.45);

  // A step and a drag's end are commits like a set.
  await ann.control("gain").step(1);
  await until(() => gain.at(-1)?.value === 0.46, "the step");
  const g = ann.control("gain").drag();
  g.moveTo(0.6);
  await g.end();
  await until(() => gain.at(-1)?.value === 0.6, "the drag's end");
  assert.deepEqual(gain.slice(-2).map((c) => [c.value, c.name]), [[0.46, "Ann"], [0.6, "Ann"]]);

  // Another kind (the gain handler does not fire for it), and a write through the HTTP API (by "api").
  await ann.control("size").set(100);
  await until(() => all.some((c) => c.control === "size"), "the size change");
  assert.deepEqual(all.filter((c) => c.control === "size").map((c) => [c.value, c.state.index, c.name]), [[100, 4, "Ann"]]);
  assert.ok(gain.every((c) => c.control === "gain"));
  await server.api("PUT", "/api/rooms/demo/controls/gain", { value: 0.9 });
  await until(() => gain.at(-1)?.value === 0.9, "the API's change");
  assert.deepEqual([gain.at(-1).by, gain.at(-1).name], ["api", "API"]);

  // The trainer's own commit is reported too, marked as its own; Ann's listener can stop.
  let annSaw = 0;
  const stop = ann.onChange("gain", () => annSaw++);
  stop();
  await trainer.control("gain").set(0.1);
  await until(() => gain.at(-1)?.value === 0.1, "the trainer's own change");
  assert.equal(gain.at(-1).mine, true);
  assert.equal(annSaw, 0);
});
