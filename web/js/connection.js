// The WebSocket to a room: connects, parses frames, reconnects with
// exponential backoff and full jitter, and reports its state.
//
// States: "connecting" (first attempt), "open" (welcome received),
// "reconnecting" (waiting to retry or retrying after having tried once),
// "closed" (given up for good: a close code that retrying cannot change —
// unknown room, token refused, room not covered by the token — or stop()).

import { CLOSE_FORBIDDEN, CLOSE_UNAUTHORIZED, CLOSE_UNKNOWN_ROOM, roomURL } from "./auth.js";

export { CLOSE_UNKNOWN_ROOM, roomURL };

export const SUBPROTOCOL = "tandem.v1";
export const BACKOFF_START_MS = 500;
export const BACKOFF_MAX_MS = 15000;
/** WebSocket.OPEN, the same in every implementation (browsers, Node's ws). */
const OPEN = 1;

/** Close codes after which the same URL would be refused again: no retry. */
export const FINAL_CLOSE_CODES = new Map([
  [CLOSE_UNKNOWN_ROOM, "unknown room"],
  [CLOSE_UNAUTHORIZED, "unauthorized"],
  [CLOSE_FORBIDDEN, "forbidden"],
]);

/** The wait before retry number `attempt` (0-based): full jitter over 0.5 s doubling, capped at 15 s. */
export function backoffDelay(attempt, random = Math.random) {
  const cap = Math.min(BACKOFF_MAX_MS, BACKOFF_START_MS * 2 ** attempt);
  return Math.round(random() * cap);
}

export class Connection {
  /**
   * @param {string | (() => string)} url  the ws(s) URL of the room, or a function giving it
   *   for each attempt (the token in it may have been renewed meanwhile)
   * @param {{onMessage?: (msg: object) => void, onState?: (conn: Connection) => void, WebSocket?: Function}} handlers
   *   `WebSocket`: the class to open sockets with (Node's `ws`); the global one by default
   */
  constructor(url, { onMessage = () => {}, onState = () => {}, WebSocket: socketClass = null } = {}) {
    this.url = url;
    this.socketClass = socketClass;
    this.onMessage = onMessage;
    this.onState = onState;
    this.state = "connecting";
    /** Why the connection is closed for good ("unknown room", "unauthorized", "forbidden"), or null. */
    this.reason = null;
    /** The close code and the server's reason that closed it for good (null otherwise). */
    this.closeCode = null;
    this.closeReason = null;
    /** When the next attempt starts (epoch ms) while reconnecting, else null. */
    this.retryAt = null;
    this.attempt = 0;
    this.everOpen = false;
    this.socket = null;
    this.timer = null;
  }

  start() {
    this.open();
    return this;
  }

  open() {
    this.retryAt = null;
    clearTimeout(this.timer);
    let socket;
    try {
      const Socket = this.socketClass ?? WebSocket;
      socket = new Socket(typeof this.url === "function" ? this.url() : this.url, SUBPROTOCOL);
    } catch (error) {
      this.scheduleRetry();
      return;
    }
    this.socket = socket;
    socket.onmessage = (event) => {
      if (socket !== this.socket) return;
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      if (msg && msg.type === "welcome") {
        this.attempt = 0;
        this.everOpen = true;
        this.setState("open");
      }
      this.onMessage(msg);
    };
    socket.onclose = (event) => {
      if (socket !== this.socket) return;
      this.socket = null;
      const final = FINAL_CLOSE_CODES.get(event.code);
      if (final) {
        this.reason = final;
        this.closeCode = event.code;
        this.closeReason = event.reason ?? "";
        this.setState("closed");
        return;
      }
      this.scheduleRetry();
    };
    // onerror is always followed by onclose, which decides what happens next.
    socket.onerror = () => {};
    this.notify();
  }

  scheduleRetry() {
    const delay = backoffDelay(this.attempt);
    this.attempt += 1;
    this.retryAt = Date.now() + delay;
    this.setState("reconnecting");
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.open(), delay);
  }

  /** Sends one message; false when the socket is not open (nothing is queued). */
  send(msg) {
    if (!this.socket || this.socket.readyState !== OPEN || this.state !== "open") return false;
    this.socket.send(JSON.stringify(msg));
    return true;
  }

  get isOpen() {
    return this.state === "open";
  }

  setState(state) {
    this.state = state;
    this.notify();
  }

  notify() {
    this.onState(this);
  }

  /** Starts again after a final close (e.g. once a fresh token was fetched). */
  restart() {
    clearTimeout(this.timer);
    this.reason = null;
    this.closeCode = null;
    this.closeReason = null;
    this.attempt = 0;
    this.state = this.everOpen ? "reconnecting" : "connecting";
    this.open();
  }

  /** Closes for good (no retry). */
  stop() {
    clearTimeout(this.timer);
    const socket = this.socket;
    this.socket = null;
    if (socket) socket.close(1000);
    this.setState("closed");
  }
}
