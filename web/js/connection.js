// The WebSocket to a room: connects, parses frames, reconnects with
// exponential backoff and full jitter, and reports its state.
//
// States: "connecting" (first attempt), "open" (welcome received),
// "reconnecting" (waiting to retry or retrying after having tried once),
// "closed" (given up for good: unknown room).

export const SUBPROTOCOL = "tandem.v1";
export const BACKOFF_START_MS = 500;
export const BACKOFF_MAX_MS = 15000;
export const CLOSE_UNKNOWN_ROOM = 4404;

/** The WebSocket URL of a room on the page's own host. */
export function roomURL(location, room, name) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const query = name ? `?name=${encodeURIComponent(name)}` : "";
  return `${scheme}://${location.host}/rooms/${encodeURIComponent(room)}${query}`;
}

/** The wait before retry number `attempt` (0-based): full jitter over 0.5 s doubling, capped at 15 s. */
export function backoffDelay(attempt, random = Math.random) {
  const cap = Math.min(BACKOFF_MAX_MS, BACKOFF_START_MS * 2 ** attempt);
  return Math.round(random() * cap);
}

export class Connection {
  /**
   * @param {string} url  the ws(s) URL of the room
   * @param {{onMessage?: (msg: object) => void, onState?: (conn: Connection) => void}} handlers
   */
  constructor(url, { onMessage = () => {}, onState = () => {} } = {}) {
    this.url = url;
    this.onMessage = onMessage;
    this.onState = onState;
    this.state = "connecting";
    /** Why the connection is closed for good ("unknown room"), or null. */
    this.reason = null;
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
      socket = new WebSocket(this.url, SUBPROTOCOL);
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
      if (event.code === CLOSE_UNKNOWN_ROOM) {
        this.reason = "unknown room";
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
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN || this.state !== "open") return false;
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

  /** Closes for good (no retry). */
  stop() {
    clearTimeout(this.timer);
    const socket = this.socket;
    this.socket = null;
    if (socket) socket.close(1000);
    this.setState("closed");
  }
}
