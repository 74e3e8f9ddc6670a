// Conformance scenario 8: token refresh — with auth on, the token provider is
// asked again before expiry and the client sends {"type":"auth"}; the
// connection stays up past the first token's exp (the server's leeway is 0 here).
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect, ConnectionClosed } from "../tandem.js";
import { authServer, until } from "./harness.mjs";

test("s8 token refresh: the provider is asked before exp, the auth message keeps the connection past the first exp", async (t) => {
  const { server, token, cleanup } = await authServer({ leeway: 0 });
  t.after(async () => { await server.stop(); cleanup(); });

  // Tokens of 6 s: the client asks for the next one at half the time left, so it has
  // seconds to spare before exp, even on a loaded machine.
  const issued = [];
  const provider = async () => {
    const fresh = token({ sub: "u-trainer", name: "trainer", ttl: 6 });
    issued.push({ token: fresh, exp: JSON.parse(Buffer.from(fresh.split(".")[1], "base64url")).exp, at: Date.now() });
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
  // A witness joins with the first token itself, which nobody renews.
  const witness = await connect(server.wsURL(), { token: issued[0].token });
  t.after(() => witness.close());
  const witnessClosed = new Promise((resolve) => witness.on("close", resolve));

  const firstExp = issued[0].exp * 1000;
  await until(() => issued.length >= 2, "a second token");
  assert.ok(issued[1].at < firstExp, "asked for before the first token expired");
  // Barrier: the server closes the witness (4401) once its expiry check has run past the first
  // token's exp; the trainer's connection then answers a set on it: it outlived that exp.
  const closed = await witnessClosed;
  assert.equal(closed.closeCode, 4401);
  assert.equal(await trainer.control("gain").set(0.77), 0.77);
  assert.equal(trainer.state, "open");
  assert.deepEqual(opens, [], "no reconnect happened");
  assert.equal(trainer.client, client, "the same connection");
  assert.deepEqual(closes, []);
  const tokenAPI = await server.api("GET", "/api/rooms/demo", undefined, issued.at(-1).token);
  assert.equal(tokenAPI.body.controls.find((c) => c.id === "gain").state.value, 0.77);
});

test("s8 token refresh: without a provider the server's 4401 ends the room with ConnectionClosed", async (t) => {
  const { server, token, cleanup } = await authServer({ leeway: 0 });
  t.after(async () => { await server.stop(); cleanup(); });
  // exp is in whole seconds: a token of 3 s leaves this connect at least 2 s.
  const room = await connect(server.wsURL(), { token: token({ ttl: 3 }) });
  t.after(() => room.close());
  const closed = await new Promise((resolve) => room.on("close", resolve));
  assert.ok(closed instanceof ConnectionClosed);
  assert.equal(closed.closeCode, 4401);
  assert.equal(room.state, "closed");
  await assert.rejects(room.control("gain").set(0.1), ConnectionClosed);
});
