// The room as this client knows it: pure logic, no DOM, no WebSocket, no clock.
// Time is always passed in (milliseconds), so Node tests can drive it exactly.
//
// Three states per control:
//   committed  the server's committed state (from `welcome` and `changes`);
//   displayed  committed overlaid with other people's live previews (ghosts);
//   shown      what this client draws: its own drag preview while dragging,
//              its optimistic result while its operations await their `ack`
//              (echo suppression), else the displayed state.

import { colorHex, gaugeFraction, thumbsOf } from "./math.js";

/** How long someone who left stays listed (marked away), in milliseconds. */
export const AWAY_GRACE_MS = 5000;

/** How many recent operations are remembered to explain a `reject`. */
export const RECENT_OPS_LIMIT = 256;

const ENDING_PHASES = new Set(["end", "cancel"]);

/** Reject codes after which the refused drag has no gesture on the server. */
export const GESTURE_ENDING_REJECTS = new Set([
  "busy", "claimed", "no_gesture", "forbidden", "read_only", "unknown_control", "unknown_thumb", "bad_message",
]);

/** Whether a change only says who claims the control: the same revision and state as held. */
export function isClaimOnly(held, change) {
  return change.rev === held.rev && JSON.stringify(change.state) === JSON.stringify(held.state);
}

/** The key of a thumb in my previews (a caller that names none gets "" ). */
function thumbKey(thumb) {
  return thumb ?? "";
}

/** A copy of a wire state (states are flat objects of numbers and strings). */
function copyState(state) {
  return state == null ? state : { ...state };
}

/** The state with its derived fields recomputed from its thumbs (snap value, colour hex, gauge fraction). */
export function withDerived(control, state) {
  const s = { ...state };
  switch (control.type) {
    case "snap":
      if (Number.isInteger(s.index) && control.values && s.index >= 0 && s.index < control.values.length) {
        s.value = control.values[s.index];
      }
      break;
    case "color":
      s.hex = colorHex(s);
      break;
    case "gauge":
      s.fraction = gaugeFraction(s.value, control.min, control.max);
      break;
  }
  return s;
}

/** The thumb's wire fields: a snap's `index` carries its `value` along; an xy pad's one thumb is both axes. */
function thumbFields(control, thumb) {
  switch (control.type) {
    case "snap": return ["index", "value"];
    case "xy": return ["x", "y"];
    case "button": return ["presses"];
    default: return [thumb];
  }
}

/** True when two wire states hold the same fields with the same values. */
export function sameState(a, b) {
  if (a === b) return true;
  if (a == null || b == null) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.is(a[k], b[k]));
}

export class RoomModel {
  constructor() {
    this.reset();
    /** Peers by client id: {client, name, color, away, leftAt}. Kept across welcomes. */
    this.peers = new Map();
    /** How many people the server says are here (past its presence limit, more than are listed); null before a welcome. */
    this.present = null;
    /** The next `seq` to hand out minus one; never reset, so seq keeps increasing across reconnects. */
    this.seq = 0;
    /** Bumped on every change that may alter what is drawn. */
    this.version = 0;
    /** control id -> {rev, by, name, at}: who last changed it and when (ms); kept across welcomes while the rev holds. */
    this.lastChanges = new Map();
  }

  /** Forgets the room (not the peers or seq). */
  reset() {
    /** My client id from the latest welcome. */
    this.client = null;
    this.room = null;
    this.title = null;
    /** The room's default layout from the welcome ("compact" when the room file asks for it); null: cards. */
    this.layout = null;
    this.rev = 0;
    /** Highest seq the server has processed on this connection. */
    this.ack = 0;
    /** Controls in welcome order: id -> {schema, state (committed), rev}. */
    this.controls = new Map();
    /** Ghosts: control id -> Map(thumb -> {by, name, color, state, phase}). */
    this.ghosts = new Map();
    /** control id -> highest seq sent on it and not yet covered by `ack`. */
    this.pending = new Map();
    /** control id -> state shown while operations on it await their ack. */
    this.optimistic = new Map();
    /**
     * control id -> Map(thumb -> {state, sinceSeq}): my own drag previews, one per thumb I drag
     * (two fingers on a range's two thumbs are two gestures of this one connection).
     */
    this.previews = new Map();
    /** seq -> {controlId, thumb}: recent operations, to explain rejects. Bounded. */
    this.recent = new Map();
    this.welcomed = false;
    /** My role from the latest welcome ("viewer", "editor", "admin"); null from a server that does not say. */
    this.role = null;
  }

  /** True when this client may only watch: a viewer, or told so by a `forbidden` reject. */
  get readOnly() {
    return this.role === "viewer";
  }

  // ---------------------------------------------------------------- sending

  /** The seq for the next message (strictly increasing). */
  nextSeq() {
    this.seq += 1;
    return this.seq;
  }

  /**
   * Records that a message with `seq` was sent on `controlId` (about `thumb`).
   * If `state` is given it is what this client shows for the control until the
   * ack covers `seq`; otherwise what is shown now is kept (frozen) until then.
   */
  noteSent(controlId, seq, state = undefined, thumb = null) {
    if (!this.controls.has(controlId)) return;
    const prev = this.pending.get(controlId) ?? 0;
    if (seq > prev) this.pending.set(controlId, seq);
    const dragging = this.previews.has(controlId);
    if (state !== undefined) {
      this.optimistic.set(controlId, copyState(state));
    } else if (!dragging && !this.optimistic.has(controlId)) {
      // Freeze what is shown now. (While dragging, the previews are what is shown.)
      this.optimistic.set(controlId, copyState(this.shown(controlId)));
    }
    const preview = this.previewOf(controlId, thumb);
    if (preview && preview.sinceSeq == null) preview.sinceSeq = seq;
    this.recent.set(seq, { controlId, thumb });
    while (this.recent.size > RECENT_OPS_LIMIT) {
      this.recent.delete(this.recent.keys().next().value);
    }
    this.version += 1;
  }

  /** True while operations on the control await their ack. */
  isPending(controlId) {
    return this.pending.has(controlId);
  }

  /**
   * My preview of one thumb (null: the only one, whichever thumb it is), or undefined.
   */
  previewOf(controlId, thumb = null) {
    const byThumb = this.previews.get(controlId);
    if (!byThumb) return undefined;
    if (thumb == null) return byThumb.size === 1 ? byThumb.values().next().value : undefined;
    return byThumb.get(thumb);
  }

  /**
   * Sets (or with `null` clears) this client's own drag preview of one thumb of
   * a control (`thumb` null with `null`: every thumb). While set, `shown()`
   * returns it, with the previews of the control's other thumbs I drag.
   */
  localPreview(controlId, state, thumb = null) {
    const byThumb = this.previews.get(controlId);
    if (state == null) {
      if (!byThumb) return;
      const key = thumb == null ? null : thumbKey(thumb);
      if (key != null && !byThumb.has(key)) return;
      // Still awaiting the ack: keep showing the last preview, not the echo.
      if (this.pending.has(controlId) && !this.optimistic.has(controlId)) {
        const kept = key == null || byThumb.size === 1
          ? this.shown(controlId)
          : this.overlay(controlId, this.base(controlId), [[key, byThumb.get(key)]]);
        this.optimistic.set(controlId, copyState(kept));
      }
      if (key == null) byThumb.clear();
      else byThumb.delete(key);
      if (byThumb.size === 0) this.previews.delete(controlId);
      this.version += 1;
      return;
    }
    let map = byThumb;
    if (!map) {
      map = new Map();
      this.previews.set(controlId, map);
    }
    // Without a thumb, the one preview there is (a caller that drags one thumb at a time).
    const key = thumb != null ? thumbKey(thumb) : map.size === 1 ? map.keys().next().value : "";
    const old = map.get(key);
    map.set(key, { state: copyState(state), sinceSeq: old ? old.sinceSeq : null });
    this.version += 1;
  }

  /** Ends the drag preview of a thumb (null: every thumb) and shows `state` until the ack of what was sent arrives. */
  settle(controlId, state, thumb = null) {
    const byThumb = this.previews.get(controlId);
    if (byThumb) {
      if (thumb == null) byThumb.clear();
      else byThumb.delete(thumbKey(thumb));
      if (byThumb.size === 0) this.previews.delete(controlId);
    }
    if (this.pending.has(controlId)) this.optimistic.set(controlId, copyState(state));
    this.version += 1;
  }

  /** True while this client drags the control (with `thumb`: that thumb of it). */
  isDragging(controlId, thumb = null) {
    const byThumb = this.previews.get(controlId);
    if (!byThumb) return false;
    return thumb == null ? byThumb.size > 0 : byThumb.has(thumbKey(thumb));
  }

  /** `state` with each listed preview's own thumb taken from it: [[thumb, {state}]]. */
  overlay(controlId, state, entries) {
    const c = this.controls.get(controlId);
    if (!c || state == null) return copyState(state);
    const s = { ...state };
    for (const [thumb, preview] of entries) {
      if (!preview?.state) continue;
      for (const field of thumbFields(c.schema, thumb)) {
        if (preview.state[field] !== undefined) s[field] = preview.state[field];
      }
    }
    return withDerived(c.schema, s);
  }

  // ---------------------------------------------------------------- receiving

  /**
   * A `welcome` replaces everything: controls, ghosts, pending operations; peers that vanished go away gracefully.
   * A welcome that answers `?since=REV` (it carries `since`) lists only the controls changed after REV:
   * the others are kept as they were, in schema order.
   */
  applyWelcome(msg, now) {
    const previousMe = this.client;
    const unchanged = typeof msg.since === "number" ? this.controls : null;
    this.reset();
    // Kept as they were, but claimed by nobody: the server lists every control someone claims.
    if (unchanged) this.controls = new Map([...unchanged].map(([id, c]) => [id, { ...c, claim: null }]));
    this.welcomed = true;
    this.client = msg.client ?? null;
    this.room = msg.room ?? null;
    this.title = msg.title ?? msg.room ?? null;
    this.layout = typeof msg.layout === "string" ? msg.layout : null;
    this.rev = msg.rev ?? 0;
    this.role = typeof msg.role === "string" ? msg.role : null;
    for (const c of msg.controls ?? []) {
      const { state, rev, by, claim, ...schema } = c;
      this.controls.set(c.id, { schema, state: copyState(state), rev: rev ?? 0, claim: claim ?? null });
    }
    this.present = typeof msg.present === "number" ? msg.present : null;
    const present = new Set();
    for (const p of msg.peers ?? []) {
      present.add(p.client);
      this.peers.set(p.client, { client: p.client, name: p.name, color: p.color, focus: p.focus ?? null, away: false, leftAt: null });
    }
    for (const [id, p] of this.peers) {
      if (present.has(id)) continue;
      if (id === previousMe) {
        this.peers.delete(id); // my old connection: I am listed under my new id
      } else if (!p.away) {
        p.away = true;
        p.leftAt = now;
      }
    }
    this.prune(now);
    for (const g of msg.gestures ?? []) this.applyGesture(g);
    for (const [id, last] of this.lastChanges) {
      if (this.controls.get(id)?.rev !== last.rev) this.lastChanges.delete(id);
    }
    this.version += 1;
  }

  /** Records who changed a control at revision `rev` (from a change entry or the history), unless a later change is known. */
  noteChange(controlId, { rev, by, name = null, at }) {
    const known = this.lastChanges.get(controlId);
    if (known && known.rev > rev) return;
    // `mine` is decided now: after a reconnect this page has another client id.
    this.lastChanges.set(controlId, { rev, by, name: name ?? this.peers.get(by)?.name ?? null, at, mine: by === this.client });
    this.version += 1;
  }

  /** Who last changed the control and when: {by, name, at, me}, or null when unknown. */
  lastChange(controlId) {
    const last = this.lastChanges.get(controlId);
    if (!last) return null;
    const { mine, ...rest } = last;
    return { ...rest, name: last.name ?? this.peers.get(last.by)?.name ?? null, me: mine || last.by === this.client };
  }

  /** An `update`: changes, gestures, joined, left, ack. */
  applyUpdate(msg, now) {
    if (typeof msg.rev === "number") this.rev = msg.rev;
    for (const ch of msg.changes ?? []) {
      const c = this.controls.get(ch.control);
      if (!c) continue;
      // Who claims it ("only I move this"): every change says, a claim taken or let go is a change at the same revision.
      c.claim = ch.claim ?? null;
      if (isClaimOnly(c, ch)) continue;
      c.state = copyState(ch.state);
      if (typeof ch.rev === "number") c.rev = ch.rev;
      if (ch.by != null) this.noteChange(ch.control, { rev: c.rev, by: ch.by, at: now });
    }
    for (const p of msg.joined ?? []) {
      this.peers.set(p.client, { client: p.client, name: p.name, color: p.color, focus: p.focus ?? null, away: false, leftAt: null });
    }
    for (const id of msg.left ?? []) {
      const p = this.peers.get(id);
      if (p && !p.away) {
        p.away = true;
        p.leftAt = now;
      }
      this.dropGhostsOf(id);
    }
    if (typeof msg.present === "number") this.present = msg.present;
    for (const g of msg.gestures ?? []) this.applyGesture(g);
    if (typeof msg.ack === "number") this.applyAck(msg.ack);
    this.prune(now);
    this.version += 1;
  }

  /** Operations covered by the ack stop holding back what is shown: the server's value wins. */
  applyAck(ack) {
    if (ack > this.ack) this.ack = ack;
    for (const [id, seq] of this.pending) {
      if (seq <= this.ack) {
        this.pending.delete(id);
        this.optimistic.delete(id);
      }
    }
  }

  /** One gesture entry: others' entries set or remove ghosts; my own are echoes. */
  applyGesture(g) {
    if (!g || !this.controls.has(g.control)) return;
    // An entry on a thumb replaces any ghost on it; `end` and `cancel` remove
    // it whoever held it; my own entries are echoes of my drag, not ghosts.
    if (ENDING_PHASES.has(g.phase) || g.by === this.client) {
      const byThumb = this.ghosts.get(g.control);
      if (byThumb) {
        byThumb.delete(g.thumb);
        if (byThumb.size === 0) this.ghosts.delete(g.control);
      }
      return;
    }
    const peer = this.peers.get(g.by);
    let byThumb = this.ghosts.get(g.control);
    if (!byThumb) {
      byThumb = new Map();
      this.ghosts.set(g.control, byThumb);
    }
    byThumb.set(g.thumb, {
      by: g.by,
      name: peer?.name ?? g.by,
      color: peer?.color ?? "#607D8B",
      state: copyState(g.state),
      phase: g.phase,
    });
  }

  dropGhostsOf(clientId) {
    for (const [controlId, byThumb] of this.ghosts) {
      for (const [thumb, ghost] of byThumb) if (ghost.by === clientId) byThumb.delete(thumb);
      if (byThumb.size === 0) this.ghosts.delete(controlId);
    }
  }

  /**
   * A `reject`: the refused operation is undone on screen (its optimistic
   * state is dropped; a refused drag's preview too). Returns {seq, code,
   * message, controlId, thumb, holder, holderName, endsGesture}
   * (controlId/thumb null when the seq is unknown); endsGesture says the
   * UI should stop the drag on that control without sending anything.
   */
  applyReject(msg) {
    const info = msg.seq != null ? this.recent.get(msg.seq) : undefined;
    const controlId = info?.controlId ?? null;
    const thumb = info?.thumb ?? null;
    const code = msg.code ?? null;
    let endsGesture = false;
    // The server refuses this client's writes: show it read-only rather than let it try again.
    if (code === "forbidden" && this.role !== "viewer") {
      this.role = "viewer";
      this.version += 1;
    }
    if (controlId != null) {
      this.optimistic.delete(controlId);
      const preview = this.previewOf(controlId, thumb);
      // A reject of an older gesture's message does not end the current drag.
      const current = preview != null && (preview.sinceSeq == null || msg.seq >= preview.sinceSeq);
      if (current && (GESTURE_ENDING_REJECTS.has(code) || msg.seq === preview.sinceSeq)) {
        this.localPreview(controlId, null, thumb);
        this.optimistic.delete(controlId);
        endsGesture = true;
      }
      this.version += 1;
    }
    const holder = msg.holder ?? null;
    const holderName = holder == null ? null : (this.peers.get(holder)?.name ?? holder);
    return { seq: msg.seq ?? null, code, message: msg.message ?? "", controlId, thumb, holder, holderName, endsGesture };
  }

  // ---------------------------------------------------------------- peers

  /** Removes people whose grace period is over; true when someone was removed. */
  prune(now) {
    let removed = false;
    for (const [id, p] of this.peers) {
      if (p.away && now - p.leftAt >= AWAY_GRACE_MS) {
        this.peers.delete(id);
        removed = true;
      }
    }
    if (removed) this.version += 1;
    return removed;
  }

  /** When the next away person is due for removal (ms), or null. */
  nextExpiry() {
    let next = null;
    for (const p of this.peers.values()) {
      if (p.away) {
        const t = p.leftAt + AWAY_GRACE_MS;
        if (next === null || t < next) next = t;
      }
    }
    return next;
  }

  /** Peers in joining order: [{client, name, color, away, me}]. */
  peerList() {
    return [...this.peers.values()].map((p) => ({ ...p, me: p.client === this.client }));
  }

  // ---------------------------------------------------------------- reading

  /** The control's schema (as in the welcome, without state and rev), or undefined. */
  schema(controlId) {
    return this.controls.get(controlId)?.schema;
  }

  /** The committed state. */
  committed(controlId) {
    return this.controls.get(controlId)?.state;
  }

  /** Others' ghosts on a control: [{thumb, by, name, color, state, phase}]. */
  ghostsOf(controlId) {
    const byThumb = this.ghosts.get(controlId);
    if (!byThumb) return [];
    return [...byThumb].map(([thumb, g]) => ({ thumb, ...g }));
  }

  /** The ghost of whoever else holds the thumb (any thumb when `thumb` is null), or null. */
  heldBy(controlId, thumb = null) {
    const byThumb = this.ghosts.get(controlId);
    if (!byThumb) return null;
    if (thumb == null) return byThumb.values().next().value ?? null;
    return byThumb.get(thumb) ?? null;
  }

  /** Committed overlaid with others' live previews: each ghost's thumb from its entry's state. */
  displayed(controlId) {
    const c = this.controls.get(controlId);
    if (!c) return undefined;
    const byThumb = this.ghosts.get(controlId);
    if (!byThumb || byThumb.size === 0) return copyState(c.state);
    const s = { ...c.state };
    const thumbs = thumbsOf(c.schema);
    for (const [thumb, g] of byThumb) {
      if (!thumbs.includes(thumb) || !g.state) continue;
      for (const field of thumbFields(c.schema, thumb)) {
        if (g.state[field] !== undefined) s[field] = g.state[field];
      }
    }
    return withDerived(c.schema, s);
  }

  /**
   * What this client shows apart from its own drag preview: its optimistic
   * state while operations await their ack, else the displayed state. This
   * is the state the server will evaluate this client's next message against,
   * as far as this client knows, so a drag anchors and previews against it.
   */
  base(controlId) {
    if (this.pending.has(controlId) && this.optimistic.has(controlId)) {
      return copyState(this.optimistic.get(controlId));
    }
    return this.displayed(controlId);
  }

  /**
   * What a drag of `thumb` previews against: the base, with my previews of the
   * control's other thumbs (the second finger on a range leans on the first).
   */
  baseFor(controlId, thumb) {
    const byThumb = this.previews.get(controlId);
    const base = this.base(controlId);
    if (!byThumb) return base;
    const others = [...byThumb].filter(([t]) => t !== thumbKey(thumb));
    return others.length ? this.overlay(controlId, base, others) : base;
  }

  /** What to draw: my drag previews, else my optimistic state while awaiting ack, else the displayed state. */
  shown(controlId) {
    const byThumb = this.previews.get(controlId);
    if (!byThumb || byThumb.size === 0) return this.base(controlId);
    // A preview set without naming its thumb is the whole state to show.
    if (byThumb.has("")) return copyState(byThumb.get("").state);
    return this.overlay(controlId, this.base(controlId), [...byThumb]);
  }

  /** Who claims the control ("only I move this"): a client id, or null. */
  claimOf(controlId) {
    return this.controls.get(controlId)?.claim ?? null;
  }

  /** Who else claims the control (their writes only go through): a client id, or null when nobody or I do. */
  claimedByOther(controlId) {
    const holder = this.claimOf(controlId);
    return holder != null && holder !== this.client ? holder : null;
  }

  /** The peer's display name (or the id). */
  nameOf(clientId) {
    return this.peers.get(clientId)?.name ?? clientId;
  }
}
