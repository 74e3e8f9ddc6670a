// Conformance scenario 9: server restart — the server (with a SQLite file) is
// stopped (SIGTERM, as the shared list says, and SIGKILL) and started again on
// the same port in the middle of a series of sets; every set the client saw
// acknowledged is in the server's state and history afterwards, and the others
// were sent again or raised, never silently lost.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { connect, TandemError } from "../tandem.js";
import { Server, sleep, tempDir, until, WAIT_MS } from "./harness.mjs";

for (const signal of ["SIGTERM", "SIGKILL"]) test(`s9 server restart (${signal}): no acknowledged set is lost, none goes missing silently`, async (t) => {
  const { dir, remove } = tempDir();
  const server = await Server.start(["--data", join(dir, "tandem.sqlite")]);
  t.after(async () => { await server.stop(); remove(); });
  const trainer = await connect(server.wsURL(), { name: "trainer" });
  t.after(() => trainer.close());

  const values = Array.from({ length: 30 }, (_, i) => (i + 1) / 100);
  const sets = [];
  for (const [i, value] of values.entries()) {
    sets.push(trainer.control("gain").set(value).then((committed) => ({ value, committed })));
    if (i === 9) await server.stop(signal); // mid-series: whatever was in flight gets no ack
    if (i === 19) await server.restart();
    await sleep(15); // the scenario: a series of sets over time, not a wait for anything
  }
  const results = await Promise.allSettled(sets);
  await until(() => trainer.state === "open", "the trainer back in the room", 2 * WAIT_MS);

  const acked = results.filter((r) => r.status === "fulfilled").map((r) => r.value.value);
  const failed = results.filter((r) => r.status === "rejected").map((r) => r.reason);
  assert.ok(failed.every((e) => e instanceof TandemError), String(failed.find((e) => !(e instanceof TandemError))));
  assert.equal(acked.length + failed.length, values.length);
  assert.deepEqual(failed, [], "sets are absolute: the ones without an ack were sent again");

  // Every acknowledged value is in the commit log, in order; the last one is the state.
  const { body } = await server.api("GET", "/api/rooms/demo/history?control=gain&limit=10000");
  const logged = body.history.filter((h) => h.control === "gain").map((h) => h.state.value);
  for (const value of acked) assert.ok(logged.includes(value), `acknowledged gain ${value} missing from the history ${logged}`);
  assert.deepEqual(logged, [...logged].sort((a, b) => a - b), "committed in the order they were set");
  assert.equal((await server.states()).gain.value, 0.3);
  assert.equal(trainer.control("gain").value, 0.3);
});
