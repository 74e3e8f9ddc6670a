// Conformance scenario 6: reconnect with since — the TCP connection is killed;
// the client reconnects with back-off and `?since=`, its state equals the
// server's, and onChange saw the commits it missed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "../tandem.js";
import { Server, tcpProxy, until, WAIT_MS } from "./harness.mjs";

test("s6 reconnect with since: a killed connection comes back with since=, catches up and reports the missed commits", async (t) => {
  const server = await Server.start();
  const proxy = await tcpProxy(server.port);
  t.after(async () => { await proxy.close(); await server.stop(); });

  const trainer = await connect(`ws://127.0.0.1:${proxy.port}/rooms/demo`, { name: "trainer" });
  const ann = await connect(server.wsURL(), { name: "Ann" });
  t.after(() => { trainer.close(); ann.close(); });
  await until(() => trainer.peers.some((p) => p.name === "Ann"), "Ann in the trainer's peers");
  await ann.control("gain").set(0.6);
  await until(() => trainer.control("gain").value === 0.6, "the trainer seeing gain 0.6");
  const revBefore = trainer.rev;
  const firstClient = trainer.client;

  const changes = [];
  const states = [];
  trainer.onChange((c) => changes.push(c));
  const opens = [];
  trainer.on("state", (s) => states.push(s));
  trainer.on("open", (o) => opens.push(o));

  // Kill the TCP connection and keep the way closed while Ann commits.
  proxy.block = true;
  proxy.drop();
  await until(() => trainer.state === "reconnecting", "the trainer noticing the drop");
  await ann.control("gain").set(0.11);
  await ann.control("size").set(100);
  // A set made while disconnected waits for the next connection, through a refused attempt or more.
  const queued = trainer.control("color").set("#FF0000");
  const refused = proxy.refused;
  await until(() => proxy.refused > refused, "a reconnect attempt refused while the set waits");
  proxy.block = false;

  // Its back-off may be at several seconds by now: a bound well past that.
  await until(() => trainer.state === "open" && trainer.client !== firstClient, "the trainer back in the room", 2 * WAIT_MS);
  assert.equal(await queued, "#FF0000");

  // It asked for what it missed since the revision it had.
  const upgrade = proxy.requests.at(-1);
  assert.match(upgrade, new RegExp(`[?&]since=${revBefore}(&| )`), upgrade);
  assert.ok(states.includes("reconnecting"));
  assert.equal(opens.at(-1).since, revBefore, "the server answered with only what changed");

  // Its state is the server's, and its listeners heard the missed commits, by whom.
  const server_ = await server.states();
  for (const c of trainer.controls) assert.deepEqual(c.state, server_[c.id], c.id);
  assert.equal(trainer.rev, (await server.api("GET", "/api/rooms/demo")).body.rev);
  const missed = changes.filter((c) => !c.mine).map((c) => [c.control, c.value, c.by, c.name]);
  assert.deepEqual(missed, [["size", 100, ann.client, "Ann"], ["gain", 0.11, ann.client, "Ann"]]);
  assert.deepEqual(changes.filter((c) => c.mine).map((c) => [c.control, c.value]), [["color", "#FF0000"]]);
});
