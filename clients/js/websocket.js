// Which WebSocket class to use: the platform's (browsers, Node 22+, Node 20
// with --experimental-websocket), else the `ws` package — from node_modules
// when installed with npm, or Debian's node-ws (/usr/share/nodejs/ws), which
// Node's own resolution does not look in.

const CANDIDATES = ["ws", "/usr/share/nodejs/ws", "/usr/lib/nodejs/ws", "/usr/lib/node_modules/ws"];

/** The WebSocket constructor for this platform; throws with what to install when there is none. */
export async function webSocketClass() {
  if (typeof globalThis.WebSocket === "function") return globalThis.WebSocket;
  // Only Node gets here: `node:module` is never imported in a browser.
  const { createRequire } = await import("node:module");
  const require = createRequire(import.meta.url);
  for (const id of CANDIDATES) {
    try {
      return require(id);
    } catch {
      // try the next place
    }
  }
  throw new Error(
    "no WebSocket in this runtime: use Node 22 or later, or install the ws package " +
      "(Debian: apt-get install node-ws; npm: npm install ws)",
  );
}
