// A room joined from a program: the web client's protocol logic (RoomModel for
// the room's state, Connection for the socket and its back-off) driven by
// promises and events instead of a page.
//
// What it adds to the page's logic:
// - every write is a promise, settled by the server's `ack` (or its `reject`,
//   as a typed error);
// - reconnects ask `?since=` the last revision seen, and report the commits
//   missed meanwhile as changes;
// - sets not yet acknowledged when the connection drops are sent again on the
//   next connection (a set is absolute, so repeating it is safe); presses,
//   steps, undo and gestures are not repeated but fail with Disconnected:
//   nothing is lost without the program hearing of it;
// - a token provider is asked for a fresh token before `exp`, which goes out as
//   `{"type":"auth"}`; after a close 4401 it is asked once more and the room
//   reconnects.

import { RoomModel, isClaimOnly } from "../../web/js/protocol.js";
import { Connection } from "../../web/js/connection.js";
import { expiresAt } from "../../web/js/auth.js";
import { ConnectionClosed, Disconnected, Timeout, UnknownControl, errorFromReject } from "./errors.js";
import { Control } from "./control.js";
import { valueOf } from "./values.js";

/** A fresh token is asked for this long before `exp` (or at half the token's remaining life when that is shorter). */
export const REFRESH_BEFORE_MS = 60_000;
/** A failed refresh is tried again after at most this long. */
export const REFRESH_RETRY_MS = 15_000;

const CLOSE_UNAUTHORIZED = 4401;

export class Room {
  /**
   * Use `connect()`. Options: `name`, `token` (a string, or a function returning
   * one or a promise of one, asked again before each expiry), `WebSocket` (the class),
   * `refreshBefore` (ms).
   */
  constructor(url, { name = null, token = null, WebSocket = null, refreshBefore = REFRESH_BEFORE_MS } = {}) {
    this.url = url;
    this.name = name;
    this.tokenProvider = typeof token === "function" ? token : null;
    this.token = typeof token === "function" ? null : token;
    this.refreshBefore = refreshBefore;
    this.model = new RoomModel();
    /** seq -> operation in flight on this connection: {msg, resend, gesture, resolve, reject}. */
    this.inflight = new Map();
    /** Operations waiting for a connection, in the order they were asked for. */
    this.queue = [];
    /** Live gestures, told when the connection drops. */
    this.gestures = new Set();
    this.listeners = new Map();
    this.welcomes = 0;
    this.wasOpen = false;
    this.closed = false;
    this.retriedAuth = false;
    this.refreshTimer = null;
    this.connection = new Connection(() => this.socketURL(), {
      WebSocket,
      onMessage: (msg) => this.receive(msg),
      onState: (conn) => this.connectionState(conn),
    });
  }

  /** Connects and resolves at the first welcome; rejects on a final close or after `timeout` ms. */
  async start(timeout = 10_000) {
    if (this.tokenProvider) this.token = await this.tokenProvider();
    const first = new Promise((resolve, reject) => {
      this.firstWelcome = { resolve, reject };
    });
    const timer = setTimeout(() => {
      this.firstWelcome?.reject(new Timeout(`no welcome from ${this.url} within ${timeout} ms`));
      this.firstWelcome = null;
      this.close();
    }, timeout);
    this.connection.start();
    try {
      await first;
    } finally {
      clearTimeout(timer);
    }
    this.scheduleRefresh();
    return this;
  }

  // ------------------------------------------------------------ reading

  /** The room id, its title, my client id, my role ("viewer", "editor", "admin"), the room revision. */
  get id() { return this.model.room; }
  get title() { return this.model.title; }
  get client() { return this.model.client; }
  get role() { return this.model.role; }
  get rev() { return this.model.rev; }
  /** "connecting", "open", "reconnecting" or "closed". */
  get state() { return this.connection.state; }
  /** How many people are in the room (the server's count, beyond the listed peers too). */
  get present() { return this.model.present; }

  /** People here now, in joining order: [{client, name, color, me}] (someone who just left is kept 5 s, with away: true). */
  get peers() {
    return this.model.peerList();
  }

  /** The controls, in schema order. */
  get controls() {
    return [...this.model.controls.keys()].map((id) => new Control(this, id));
  }

  /** The control `id`; throws UnknownControl when the room has none. */
  control(id) {
    if (!this.model.controls.has(id)) {
      throw new UnknownControl(`room '${this.id}' has no control '${id}' (it has ${[...this.model.controls.keys()].join(", ")})`, {
        code: "unknown_control", control: id,
      });
    }
    return new Control(this, id);
  }

  /** The display name of a client id: a peer's name, "API" for HTTP writes, else null. */
  nameOf(clientId) {
    if (clientId == null) return null;
    return this.model.peers.get(clientId)?.name ?? (clientId === "api" ? "API" : null);
  }

  // ------------------------------------------------------------ events

  /**
   * Listens to an event; returns a function that stops listening. Events:
   * "change" (a commit: {control, value, state, rev, by, name, mine}),
   * "gesture" (someone else's live drag: {control, thumb, phase, value, state, by, name}),
   * "peers" ({joined: [{client, name, color}], left: [{client, name}]}), "schema" ({added, removed, changed}: the room was re-posted),
   * "open" (each welcome), "state" (the connection's state), "error" (a refused message
   * no promise was waiting for, a failed token refresh), "close" (for good).
   */
  on(event, fn) {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(fn);
    return () => set.delete(fn);
  }

  /** Calls fn(change) on every commit of control `id` (or of every control: onChange(fn)); returns the stop function. */
  onChange(id, fn) {
    if (typeof id === "function") return this.on("change", id);
    return this.on("change", (change) => {
      if (change.control === id) fn(change);
    });
  }

  emit(event, payload) {
    for (const fn of [...(this.listeners.get(event) ?? [])]) {
      try {
        fn(payload);
      } catch (error) {
        // A handler's bug must not break the room's bookkeeping: report it as uncaught, later.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  // ------------------------------------------------------------ writing

  /**
   * Sends `msg` (without seq) now or, while disconnected, on the next connection;
   * resolves at its ack, rejects with the reject's typed error. `resend`: send it
   * again if the connection drops before the ack (only for absolute writes).
   */
  request(msg, { resend = false, gesture = null } = {}) {
    return new Promise((resolve, reject) => {
      if (this.closed) {
        reject(new ConnectionClosed("the room was closed", { closeCode: this.connection.closeCode, reason: this.connection.closeReason ?? "" }));
        return;
      }
      const op = { msg, resend, gesture, resolve, reject };
      if (this.transmit(op)) {
        if (gesture && !gesture.done) this.gestures.add(gesture);
      } else if (gesture) {
        // A gesture lives on one connection: it cannot wait for the next.
        gesture.disconnected();
        reject(gesture.error);
      } else {
        this.queue.push(op);
      }
    });
  }

  /** Sends op with the next seq; false when there is no open connection. */
  transmit(op) {
    if (!this.connection.isOpen) return false;
    const seq = this.model.nextSeq();
    if (!this.connection.send({ ...op.msg, seq })) return false;
    this.inflight.set(seq, op);
    return true;
  }

  /** Sets control `id` to `value` (as the wire takes it; `thumb` for a range or colour channel); resolves with the committed value. */
  async set(id, value, { thumb = null } = {}) {
    const msg = { type: "set", control: id, value };
    if (thumb != null) msg.thumb = thumb;
    // A button's press (set true) counts: repeating it would press twice.
    const press = this.model.schema(id)?.type === "button";
    await this.request(msg, { resend: !press });
    return this.currentValue(id);
  }

  /** Steps control `id` by `by` (an xy pad: [nx, ny]); resolves with the committed value. Not repeated after a drop. */
  async step(id, by = 1, { thumb = null } = {}) {
    const msg = { type: "step", control: id, by };
    if (thumb != null) msg.thumb = thumb;
    await this.request(msg);
    return this.currentValue(id);
  }

  /**
   * Puts control `id` (null: every control of the room, gauges and buttons
   * aside) back to its schema's initial state, as one edit I can undo.
   * Resolves once committed (with the control's value when `id` is given).
   */
  async reset(id = null) {
    const msg = { type: "reset" };
    if (id != null) msg.control = id;
    await this.request(msg, { resend: true });
    return id != null ? this.currentValue(id) : undefined;
  }

  /** Claims control `id`: until I release it (or leave, or 5 minutes without touching it) others' writes to it are refused `Claimed`. */
  async claim(id) {
    await this.request({ type: "claim", control: id });
  }

  /** Lets my claim of control `id` go (an admin's lets anyone's go). */
  async release(id) {
    await this.request({ type: "release", control: id });
  }

  /** Undoes my newest edit on this connection (the server keeps the history per connection). */
  async undo() {
    await this.request({ type: "undo" });
  }

  /** Redoes my newest undone edit. */
  async redo() {
    await this.request({ type: "redo" });
  }

  currentValue(id) {
    const c = this.model.controls.get(id);
    return c ? valueOf(c.schema, c.state) : undefined;
  }

  /** Closes for good: waiting writes fail with ConnectionClosed. */
  close() {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.refreshTimer);
    this.connection.stop();
  }

  // ------------------------------------------------------------ the connection

  socketURL() {
    const url = new URL(this.url);
    if (this.name != null) url.searchParams.set("name", this.name);
    if (this.token) url.searchParams.set("token", this.token);
    // The server then lists only the controls changed since (or everything when it cannot).
    if (this.welcomes > 0) url.searchParams.set("since", String(this.model.rev));
    return url.toString();
  }

  connectionState(conn) {
    if (conn.state !== "open" && this.wasOpen) this.dropped();
    this.wasOpen = conn.state === "open";
    if (conn.state === "closed") this.closedForGood(conn);
    this.emit("state", conn.state);
  }

  /** The connection went away: absolute writes wait for the next one, the rest fail. */
  dropped() {
    const again = [];
    for (const [, op] of [...this.inflight].sort(([a], [b]) => a - b)) {
      if (op.resend) again.push(op);
      else if (op.gesture) op.reject(new Disconnected(`the connection dropped: the gesture on '${op.msg.control}' was cancelled`, { control: op.msg.control }));
      else op.reject(new Disconnected(`the connection dropped before the server acknowledged this ${op.msg.type}: it may or may not have been applied`, { control: op.msg.control ?? null }));
    }
    this.inflight.clear();
    this.queue.unshift(...again);
    for (const g of [...this.gestures]) g.disconnected();
  }

  closedForGood(conn) {
    if (!this.closed && conn.closeCode === CLOSE_UNAUTHORIZED && this.tokenProvider && !this.retriedAuth) {
      // A token that expired meanwhile (a sleeping laptop): ask for a fresh one once.
      this.retriedAuth = true;
      Promise.resolve()
        .then(() => this.tokenProvider())
        .then((token) => {
          if (this.closed) return;
          this.token = token;
          conn.restart();
        })
        .catch((error) => {
          this.emit("error", error);
          this.fail(conn);
        });
      return;
    }
    this.fail(conn);
  }

  fail(conn) {
    this.closed = true;
    clearTimeout(this.refreshTimer);
    const error = new ConnectionClosed(
      conn.closeCode == null ? "the room was closed" : `the server closed the connection for good: ${conn.closeCode} ${conn.closeReason ?? ""}`.trim(),
      { closeCode: conn.closeCode, reason: conn.closeReason ?? "" },
    );
    for (const op of [...this.inflight.values(), ...this.queue]) op.reject(error);
    this.inflight.clear();
    this.queue = [];
    for (const g of [...this.gestures]) g.fail(error);
    this.firstWelcome?.reject(error);
    this.firstWelcome = null;
    this.emit("close", error);
  }

  // ------------------------------------------------------------ receiving

  receive(msg) {
    switch (msg?.type) {
      case "welcome": return this.welcome(msg);
      case "update": return this.update(msg);
      case "reject": return this.reject(msg);
      default: return this.emit("message", msg);
    }
  }

  welcome(msg) {
    const before = this.welcomes > 0 ? new Map(this.model.controls) : null;
    this.model.applyWelcome(msg, Date.now());
    this.welcomes += 1;
    this.retriedAuth = false;
    if (before) this.caughtUp(before, msg);
    // What waited for a connection goes out now, oldest first.
    const waiting = this.queue;
    this.queue = [];
    for (const op of waiting) if (!this.transmit(op)) this.queue.push(op);
    this.firstWelcome?.resolve();
    this.firstWelcome = null;
    this.emit("open", { client: this.client, rev: this.rev, since: msg.since ?? null });
  }

  /** After a reconnect: a schema that changed is announced, then every commit missed meanwhile as a change. */
  caughtUp(before, msg) {
    const after = this.model.controls;
    if (msg.since == null) {
      const added = [...after.keys()].filter((id) => !before.has(id));
      const removed = [...before.keys()].filter((id) => !after.has(id));
      const changed = [...after.keys()].filter((id) => before.has(id) && JSON.stringify(before.get(id).schema) !== JSON.stringify(after.get(id).schema));
      if (added.length || removed.length || changed.length) this.emit("schema", { added, removed, changed });
    }
    const by = new Map((msg.controls ?? []).map((c) => [c.id, c.by ?? null]));
    for (const [id, c] of after) {
      const old = before.get(id);
      if (!old || old.rev === c.rev) continue;
      this.emitChange(id, c, by.get(id) ?? null);
    }
  }

  update(msg) {
    // A change that only says who claims the control is not a commit to tell "change" listeners of.
    const claimOnly = new Set((msg.changes ?? []).filter((ch) => {
      const c = this.model.controls.get(ch.control);
      return c && isClaimOnly(c, ch);
    }).map((ch) => ch.control));
    this.model.applyUpdate(msg, Date.now());
    if ((msg.joined ?? []).length || (msg.left ?? []).length) {
      // Who left is still known (kept a few seconds as away), so their name goes along.
      this.emit("peers", {
        joined: (msg.joined ?? []).map((p) => ({ ...p })),
        left: (msg.left ?? []).map((id) => ({ client: id, name: this.nameOf(id) })),
      });
    }
    for (const ch of msg.changes ?? []) {
      const c = this.model.controls.get(ch.control);
      if (claimOnly.has(ch.control)) this.emit("claim", { control: ch.control, holder: ch.claim ?? null, name: ch.claim ? this.nameOf(ch.claim) : null });
      else if (c) this.emitChange(ch.control, { schema: c.schema, state: ch.state, rev: ch.rev ?? c.rev }, ch.by ?? null);
    }
    for (const g of msg.gestures ?? []) {
      const schema = this.model.schema(g.control);
      if (!schema || g.by === this.client) continue;
      this.emit("gesture", { control: g.control, thumb: g.thumb, phase: g.phase, by: g.by, name: this.nameOf(g.by),
        state: { ...g.state }, value: valueOf(schema, g.state) });
    }
    // Everything up to `ack` was processed; refused ones were settled by their reject, which comes first.
    for (const [seq, op] of this.inflight) {
      if (seq > this.model.ack) continue;
      this.inflight.delete(seq);
      op.resolve();
    }
  }

  emitChange(id, { schema, state, rev }, by) {
    this.emit("change", { control: id, value: valueOf(schema, state), state: { ...state }, rev, by, name: this.nameOf(by), mine: by != null && by === this.client });
  }

  reject(msg) {
    const op = msg.seq != null ? this.inflight.get(msg.seq) : undefined;
    const info = this.model.applyReject(msg);
    const error = errorFromReject(msg, { control: op?.msg.control ?? null, holderName: info.holderName });
    if (!op) {
      this.emit("error", error);
      return;
    }
    this.inflight.delete(msg.seq);
    op.gesture?.refused(error);
    op.reject(error);
  }

  // ------------------------------------------------------------ tokens

  /** Plans the next refresh from the current token's `exp` (only with a token provider). */
  scheduleRefresh(delay = null) {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = null;
    if (!this.tokenProvider || this.closed) return;
    if (delay == null) {
      const exp = expiresAt(this.token);
      if (exp == null) return;
      const left = exp - Date.now();
      delay = Math.max(1000, left - Math.min(this.refreshBefore, left / 2));
    }
    this.refreshTimer = setTimeout(() => this.refresh(), delay);
  }

  async refresh() {
    let fresh;
    try {
      fresh = await this.tokenProvider();
    } catch (error) {
      this.emit("error", error);
      this.retryRefresh();
      return;
    }
    if (this.closed) return;
    if (!this.connection.isOpen) {
      this.token = fresh; // the next connection carries it
      this.scheduleRefresh();
      return;
    }
    try {
      await this.request({ type: "auth", token: fresh });
      this.token = fresh;
      this.scheduleRefresh();
    } catch (error) {
      if (error instanceof Disconnected) {
        this.token = fresh;
        this.scheduleRefresh();
        return;
      }
      // Refused (`unauthorized`): the old token stands until its exp; try again before then.
      this.emit("error", error);
      this.retryRefresh();
    }
  }

  retryRefresh() {
    const exp = expiresAt(this.token);
    const left = exp == null ? REFRESH_RETRY_MS : exp - Date.now();
    this.scheduleRefresh(Math.max(1000, Math.min(REFRESH_RETRY_MS, left / 4)));
  }
}
