// Tandem's JavaScript client: join a room, read and set its controls, follow
// its changes. An ES module without DOM: browsers and Node 20 (the global
// WebSocket, else the `ws` package, e.g. Debian's node-ws).
//
//   import { connect } from "./clients/js/tandem.js";
//   const room = await connect("ws://localhost:8080/rooms/synth", { name: "trainer" });
//   room.onChange("cutoff", (c) => synth.setCutoff(c.value));
//   await room.control("loss").set(0.12);

import { Room } from "./room.js";
import { webSocketClass } from "./websocket.js";

export { Room } from "./room.js";
export { Control } from "./control.js";
export { Gesture } from "./gesture.js";
export { valueOf } from "./values.js";
export * from "./errors.js";

/**
 * Joins the room at `url` (ws://HOST:PORT/rooms/ID) and resolves once the
 * server's welcome is in. Options:
 * - `name`: the display name others see;
 * - `token`: the access token, or a function (may be async) that returns a
 *   fresh one, asked again before each expiry and after a 4401 close;
 * - `timeout`: ms to wait for the first welcome (default 10 000), retrying meanwhile;
 * - `WebSocket`: the WebSocket class to use (default: the platform's, else `ws`);
 * - `refreshBefore`: ms before `exp` to renew the token (default 60 000).
 */
export async function connect(url, options = {}) {
  const { timeout = 10_000, WebSocket = null, ...rest } = options;
  const room = new Room(url, { ...rest, WebSocket: WebSocket ?? (await webSocketClass()) });
  return room.start(timeout);
}
