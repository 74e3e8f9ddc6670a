// Conformance scenario 4: gesture — drag() begins, moves are previews another
// client sees as ghosts, end() makes one commit.
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "../tandem.js";
import { Server, until } from "./harness.mjs";

test("s4 gesture: begin, moves seen by another client as ghosts, end commits once", async (t) => {
  const server = await Server.start();
  t.after(() => server.stop());
  const trainer = await connect(server.wsURL(), { name: "trainer" });
  const ann = await connect(server.wsURL(), { name: "Ann" });
  t.after(() => { trainer.close(); ann.close(); });
  await until(() => ann.peers.some((p) => p.name === "trainer"), "the trainer in Ann's peers");

  const annChanges = [];
  const annGestures = [];
  ann.onChange("gain", (c) => annChanges.push(c));
  ann.on("gesture", (g) => annGestures.push(g));

  const g = trainer.control("gain").drag();
  await g.ready;
  for (const v of [0.6, 0.7, 0.8]) {
    g.moveTo(v);
    // Each preview reaches Ann as a ghost with the trainer's name, while the committed value stays.
    const ghost = await until(() => ann.control("gain").ghosts.find((x) => x.value === v), `Ann's ghost at ${v}`);
    assert.equal(ghost.by, trainer.client);
    assert.equal(ghost.name, "trainer");
    assert.equal(ghost.thumb, "value");
    assert.equal(ann.control("gain").value, 0.5);
    assert.equal(ann.control("gain").displayed, v);
  }
  assert.ok(annGestures.some((e) => e.control === "gain" && e.phase === "move" && e.name === "trainer"));
  assert.deepEqual(annChanges, [], "previews are not commits");

  assert.equal(await g.end(), 0.8);
  assert.equal(trainer.control("gain").value, 0.8);
  await until(() => annChanges.length === 1 && ann.control("gain").ghosts.length === 0, "Ann's one commit and no ghost");
  assert.deepEqual(annChanges.map((c) => [c.value, c.by, c.name]), [[0.8, trainer.client, "trainer"]]);
  assert.equal((await server.states()).gain.value, 0.8);

  // A colour channel and a range thumb: the thumb is named; a cancelled drag commits nothing.
  const red = trainer.control("color").drag({ thumb: "red" });
  red.moveTo(1);
  assert.equal(await red.end(), "#FF6699");
  const upper = trainer.control("blanks").drag({ thumb: "upper" });
  upper.moveTo(3);
  await upper.cancel();
  assert.deepEqual(trainer.control("blanks").value, { lower: 0, upper: 1 });
  assert.throws(() => trainer.control("blanks").drag(), /thumb/);
});
