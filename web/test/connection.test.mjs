// The WebSocket's close handling (web/js/connection.js) with a fake socket:
// which close codes end for good and which reconnect.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Connection, FINAL_CLOSE_CODES } from "../js/connection.js";

class FakeSocket {
  static made = [];
  constructor(url, protocol) {
    Object.assign(this, { url, protocol, readyState: 0 });
    FakeSocket.made.push(this);
  }
  close() {}
}
globalThis.WebSocket = FakeSocket;
FakeSocket.OPEN = 1;

function connect(url = "ws://h/rooms/demo") {
  FakeSocket.made = [];
  const states = [];
  const conn = new Connection(url, { onState: (c) => states.push(c.state) }).start();
  return { conn, states, socket: () => FakeSocket.made.at(-1) };
}

for (const [code, reason, kept] of [[4401, "token expired", "unauthorized"], [4403, "room not covered", "forbidden"], [4404, "unknown room", "unknown room"]]) {
  test(`close ${code} ends for good: no retry, the code and the server's reason are kept`, () => {
    const { conn, socket } = connect();
    socket().onclose({ code, reason });
    assert.equal(conn.state, "closed");
    assert.equal(conn.reason, kept);
    assert.equal(conn.closeCode, code);
    assert.equal(conn.closeReason, reason);
    assert.equal(conn.timer, null, "a retry was planned");
    assert.equal(FakeSocket.made.length, 1);
    conn.stop();
  });
}

test("other closes reconnect with backoff", () => {
  const { conn, socket } = connect();
  socket().onclose({ code: 1006, reason: "" });
  assert.equal(conn.state, "reconnecting");
  assert.notEqual(conn.retryAt, null);
  assert.equal(conn.closeCode, null);
  conn.stop();
  assert.ok(FINAL_CLOSE_CODES.has(4404) && !FINAL_CLOSE_CODES.has(1006));
});

test("the URL is asked for at every attempt (a renewed token goes along), and restart() opens again after a final close", () => {
  let token = "old";
  const { conn, socket } = connect(() => `ws://h/rooms/demo?token=${token}`);
  assert.equal(socket().url, "ws://h/rooms/demo?token=old");
  socket().onclose({ code: 4401, reason: "token expired" });
  token = "new";
  conn.restart();
  assert.equal(socket().url, "ws://h/rooms/demo?token=new");
  assert.equal(conn.state, "connecting");
  assert.equal(conn.closeCode, null);
  conn.stop();
});
