// Conformance scenario 8: token refresh — with auth on, the token provider is
// asked again before expiry and the client sends {"type":"auth"}; the
// connection stays up past the first token's exp (the server's leeway is 0 here).
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect, ConnectionClosed } from "../tandem.js";
import { authServer, sleep, until } from "./harness.mjs";

test("s8 token refresh: the provider is asked before exp, the auth message keeps the connection past the first exp", async (t) => {
  const { server, token, cleanup } = await authServer({ leeway: 0 });
  t.after(async () => { await server.stop(); cleanup(); });

  const issued = [];
  const provider = async () => {
    const fresh = token({ sub: "u-trainer", name: "trainer", ttl: 3 });
    issued.push({ token: fresh, exp: JSON.parse(Buffer.from(fresh.split(".")[1], "base64url")).exp });
    return fresh;
  };
  const trainer = await connect(server.wsURL(), { token: provider });
  t.after(() => trainer.close());
  const opens = [];
  const closes = [];
  trainer.on("open", (o) => opens.push(o));
  trainer.on("close", (e) => closes.push(e));
  assert.equal(trainer.role, "editor");
  assert.equal(trainer.peers[0].name, "trainer", "the name comes from the token");
  const client = trainer.client;

  const firstExp = issued[0].exp * 1000;
  await until(() => issued.length >= 2, "a second token", 5_000);
  assert.ok(Date.now() < firstExp, "asked for before the first token expired");
  // Past the first token's exp (and a bit more), the same connection is still up and writes.
  await sleep(Math.max(0, firstExp - Date.now()) + 1500);
  assert.equal(trainer.state, "open");
  assert.deepEqual(opens, [], "no reconnect happened");
  assert.equal(trainer.client, client, "the same connection");
  assert.deepEqual(closes, []);
  assert.equal(await trainer.control("gain").set(0.77), 0.77);
  const tokenAPI = await server.api("GET", "/api/rooms/demo", undefined, issued.at(-1).token);
  assert.equal(tokenAPI.body.controls.find((c) => c.id === "gain").state.value, 0.77);
});

test("s8 token refresh: without a provider the server's 4401 ends the room with ConnectionClosed", async (t) => {
  const { server, token, cleanup } = await authServer({ leeway: 0 });
  t.after(async () => { await server.stop(); cleanup(); });
  const room = await connect(server.wsURL(), { token: token({ ttl: 1 }) });
  t.after(() => room.close());
  const closed = await new Promise((resolve) => room.on("close", resolve));
  assert.ok(closed instanceof ConnectionClosed);
  assert.equal(closed.closeCode, 4401);
  assert.equal(room.state, "closed");
  await assert.rejects(room.control("gain").set(0.1), ConnectionClosed);
});
