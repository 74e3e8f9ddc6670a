// The page's access over time (web/js/access.js) on a fake clock: refresh
// before expiry through ?refresh=, the `auth` message and its ack or reject,
// and the warning when no refresh is possible or it fails.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Access } from "../js/access.js";
import { REFRESH_BEFORE_MS, REFRESH_RETRY_MS, WARN_BEFORE_MS } from "../js/auth.js";

const b64url = (text) => Buffer.from(text, "utf8").toString("base64url");
const jwt = (payload) => `${b64url('{"alg":"HS256","typ":"JWT"}')}.${b64url(JSON.stringify(payload))}.c2ln`;
const MIN = 60_000;

/** A fake clock with timers, a fake fetch answering `answers` in turn, and a record of what was sent and kept. */
function rig({ token, refresh = true, answers = [] } = {}) {
  const world = { now: 0, timers: [], sent: [], stored: [], fetched: [], changes: 0, connected: true, seq: 0 };
  const access = new Access({
    token,
    refreshURL: refresh ? "http://h/refresh" : null,
    fetch: async (url, init) => {
      world.fetched.push({ url, init });
      const answer = answers.shift();
      if (answer instanceof Error) throw answer;
      return { ok: answer?.ok ?? true, text: async () => answer?.text ?? "" };
    },
    now: () => world.now,
    setTimer: (fn, ms) => {
      const timer = { at: world.now + ms, fn };
      world.timers.push(timer);
      return timer;
    },
    clearTimer: (timer) => { world.timers = world.timers.filter((t) => t !== timer); },
    store: (t) => world.stored.push(t),
    onChange: () => { world.changes += 1; },
  });
  access.sendAuth = (t) => {
    if (!world.connected) return null;
    world.seq += 1;
    world.sent.push({ seq: world.seq, token: t });
    return world.seq;
  };
  /** Moves the clock to `to`, firing due timers in order, and lets promises settle. */
  world.advance = async (to) => {
    for (;;) {
      world.timers.sort((a, b) => a.at - b.at);
      const next = world.timers[0];
      if (!next || next.at > to) break;
      world.timers.shift();
      world.now = next.at;
      next.fn();
      await new Promise((r) => setImmediate(r));
    }
    world.now = to;
    await new Promise((r) => setImmediate(r));
  };
  return { access, world };
}

test("with ?refresh=, a fresh token is fetched a minute before exp and sent in an auth message; the ack makes it current", async () => {
  const old = jwt({ sub: "u1", exp: 10 * 60 });
  const fresh = jwt({ sub: "u1", exp: 70 * 60 });
  const { access, world } = rig({ token: old, answers: [{ text: fresh }] });
  access.start();
  await world.advance(10 * MIN - REFRESH_BEFORE_MS - 1);
  assert.equal(world.fetched.length, 0, "fetched too early");
  await world.advance(10 * MIN - REFRESH_BEFORE_MS);
  assert.equal(world.fetched.length, 1);
  assert.equal(world.fetched[0].url, "http://h/refresh");
  assert.equal(world.fetched[0].init.credentials, "include");
  assert.deepEqual(world.sent, [{ seq: 1, token: fresh }]);
  assert.equal(access.token, old, "current before the ack");
  assert.equal(access.connectToken(), fresh, "a reconnect meanwhile carries the fresh one");
  access.acked(1);
  assert.equal(access.token, fresh);
  assert.deepEqual(world.stored, [fresh], "kept for a reload");
  assert.equal(access.warning, null);
  // The next refresh is planned from the fresh exp.
  await world.advance(70 * MIN - REFRESH_BEFORE_MS - 1);
  assert.equal(world.fetched.length, 1);
});

test("a rejected auth message leaves the old token standing, warns, and tries again later", async () => {
  const old = jwt({ sub: "u1", exp: 10 * 60 });
  const bad = jwt({ sub: "u2", exp: 70 * 60 });
  const good = jwt({ sub: "u1", exp: 80 * 60 });
  const { access, world } = rig({ token: old, answers: [{ text: bad }, { text: good }] });
  access.start();
  await world.advance(9 * MIN);
  assert.equal(world.sent.length, 1);
  assert.equal(access.rejected({ type: "reject", seq: 99, code: "busy" }), false, "another message's reject");
  assert.equal(access.rejected({ type: "reject", seq: 1, code: "unauthorized" }), true);
  assert.equal(access.token, old);
  assert.equal(access.connectToken(), old);
  assert.deepEqual(access.warning, { endsAt: 10 * MIN, failed: true });
  await world.advance(9 * MIN + REFRESH_RETRY_MS);
  assert.equal(world.sent.length, 2);
  access.acked(2);
  assert.equal(access.token, good);
  assert.equal(access.warning, null);
});

test("a refresh that fails (network, status, not a token, not newer) warns and retries until exp", async () => {
  const old = jwt({ sub: "u1", exp: 10 * 60 });
  const { access, world } = rig({
    token: old,
    answers: [new Error("offline"), { ok: false, text: "no" }, { text: "<html>" }, { text: old }],
  });
  access.start();
  await world.advance(11 * MIN);
  assert.equal(world.fetched.length, 4, "tries every 15 s from a minute before exp until exp");
  assert.equal(world.sent.length, 0, "nothing unusable is sent");
  assert.deepEqual(access.warning, { endsAt: 10 * MIN, failed: true });
  await world.advance(60 * MIN);
  assert.equal(world.fetched.length, 4, "no retry past exp");
});

test("a fresh token fetched while disconnected becomes current at once (the next connection carries it)", async () => {
  const old = jwt({ sub: "u1", exp: 10 * 60 });
  const fresh = jwt({ sub: "u1", exp: 70 * 60 });
  const { access, world } = rig({ token: old, answers: [{ text: fresh }] });
  world.connected = false;
  assert.equal(await access.refresh(), true);
  assert.equal(access.token, fresh);
  assert.equal(world.sent.length, 0);
});

test("a welcome on a connection made with the fresh token makes it current", async () => {
  const old = jwt({ sub: "u1", exp: 10 * 60 });
  const fresh = jwt({ sub: "u1", exp: 70 * 60 });
  const { access, world } = rig({ token: old, answers: [{ text: fresh }] });
  await access.refresh();
  assert.equal(world.sent.length, 1);
  access.welcomed();
  assert.equal(access.token, fresh);
});

test("without ?refresh=, the warning shows two minutes before exp, and at once for a token that ends sooner", async () => {
  const { access, world } = rig({ token: jwt({ sub: "u1", exp: 10 * 60 }), refresh: false });
  access.start();
  await world.advance(10 * MIN - WARN_BEFORE_MS - 1);
  assert.equal(access.warning, null);
  await world.advance(10 * MIN - WARN_BEFORE_MS);
  assert.deepEqual(access.warning, { endsAt: 10 * MIN, failed: false });
  assert.equal(world.fetched.length, 0);
  assert.ok(world.changes > 0, "the page is told to redraw");

  const soon = rig({ token: jwt({ sub: "u1", exp: 60 }), refresh: false });
  soon.access.start();
  assert.deepEqual(soon.access.warning, { endsAt: MIN, failed: false });
});

test("no token, or one without exp: nothing is planned", async () => {
  for (const token of [null, jwt({ sub: "u1" })]) {
    const { access, world } = rig({ token });
    access.start();
    assert.equal(world.timers.length, 0);
    assert.equal(access.warning, null);
  }
  assert.equal(rig({ token: null }).access.hasToken, false);
});
