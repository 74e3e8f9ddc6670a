// One room on one server, shared by every embedded element that shows it
// (web/embed.js): one WebSocket (connection.js, reconnecting as the page
// does), one RoomModel, one Actions; each element is a "mount" with views of
// its own, drawn once per animation frame. The message handling is the room
// page's (app.js) without what only the page has (presets, timeline, undo,
// toasts, token refresh).

import { Actions } from "../actions.js";
import { closeNotice, roomURL } from "../auth.js";
import { CLAIM_DROPPED_TEXT, CLAIM_ENDED_TEXT, ClaimTracker, claimDoneText, claimRefusal, claimedText, endedClaims, holderName } from "../claims.js";
import { copyText } from "../clipboard.js";
import { Connection } from "../connection.js";
import { RoomModel } from "../protocol.js";
import { ResetTracker, resetRefusal } from "../resets.js";
import { loadLastChanges, tickChanged } from "../controls/changed.js";
import { abortDrags, refreshDrags } from "../controls/drag.js";
import { refusalWords, sessionKey, unreachableHint } from "./words.js";

/** What a `forbidden` reject (a viewer's write) is called on a card. */
const FORBIDDEN_TEXT = "read only: your token does not allow changes";

/** key -> RoomSession */
const sessions = new Map();

/**
 * The session for these options, made on first use; `mount` joins it.
 * @param {{server: string, room: string, token?: string|null, name?: string}} options  server: an origin
 * @param {{build(): void, render(now: number): void}} mount
 */
export function joinSession(options, mount) {
  const key = sessionKey(options);
  let session = sessions.get(key);
  if (!session) {
    session = new RoomSession(key, options);
    sessions.set(key, session);
  }
  session.add(mount);
  return session;
}

/** How many sessions (connections) are live: the e2e tests read it through the elements. */
export function sessionCount() {
  return sessions.size;
}

class RoomSession {
  constructor(key, { server, room, token = null, name = "" }) {
    this.key = key;
    this.server = server;
    this.room = room;
    this.token = token || null;
    this.name = name || "";
    this.model = new RoomModel();
    this.mounts = new Set();
    this.claims = new ClaimTracker();
    this.resets = new ResetTracker();
    this.frame = 0;
    this.expiry = 0;
    this.countdown = 0;
    this.leaving = 0;
    this.started = false;
    const where = new URL(server);
    this.connection = new Connection(() => roomURL(where, room, this.name, this.token), {
      onMessage: (msg) => this.handle(msg),
      onState: () => {
        if (this.connection.state !== "open") {
          abortDrags(null, null, this.model);
          // Others' drags cannot be followed while disconnected: no ghost frozen mid-air.
          this.model.ghosts.clear();
          this.model.version += 1;
        }
        this.schedule();
      },
    });
    this.actions = new Actions(this.model, this.connection, () => this.schedule());
    const model = this.model;
    const actions = this.actions;
    // The cards' menus (tools.js, claim.js), as on the page.
    this.toolsContext = {
      reset: (id) => {
        const seq = actions.reset(id);
        if (seq != null) this.resets.sent(seq, id, model.client);
      },
      copy: (view) => {
        const text = view.valueText?.() ?? "";
        copyText(text).then((ok) => view.card.notice(ok ? `Copied: ${text}` : "Could not copy", ok ? "ok" : "warn"));
      },
      canAct: () => actions.canAct,
      readOnly: () => model.readOnly,
      locked: (id) => model.claimedByOther(id) != null,
    };
    this.claimContext = {
      model,
      pending: (id) => this.claims.isPending(id),
      canAct: () => actions.canAct,
      inputsLocked: () => model.readOnly,
      send: (action, id, holder) => {
        const seq = actions.claim(id, action);
        if (seq != null) this.claims.sent(seq, action, id, model.client, holder);
      },
    };
  }

  add(mount) {
    clearTimeout(this.leaving);
    this.mounts.add(mount);
    if (!this.started) {
      this.started = true;
      this.ticker = tickChanged(() => this.schedule());
      this.connection.start();
    } else if (this.model.welcomed) {
      mount.build();
    }
    this.schedule();
  }

  /** A mount leaves; the last one closes the connection (after the current task: an element moved in the DOM leaves and comes back). */
  remove(mount) {
    this.mounts.delete(mount);
    if (this.mounts.size) return;
    clearTimeout(this.leaving);
    this.leaving = setTimeout(() => {
      if (this.mounts.size) return;
      sessions.delete(this.key);
      clearInterval(this.ticker);
      clearTimeout(this.expiry);
      clearTimeout(this.countdown);
      cancelAnimationFrame(this.frame);
      abortDrags(null, null, this.model);
      this.connection.stop();
    }, 0);
  }

  /** Every mounted view of a control (an element for the room and one for the control both show it). */
  viewsOf(id) {
    const out = [];
    for (const mount of this.mounts) {
      const view = mount.views.get(id);
      if (view) out.push(view);
    }
    return out;
  }

  notice(id, text, tone = "warn") {
    for (const view of this.viewsOf(id)) view.card.notice(text, tone);
  }

  /** Who claims each control now: id -> holder (null: nobody). */
  claimHolders() {
    return new Map([...this.model.controls].map(([id, c]) => [id, c.claim ?? null]));
  }

  handle(msg) {
    const model = this.model;
    const now = Date.now();
    switch (msg.type) {
      case "welcome": {
        abortDrags(null, null, model);
        const before = { me: model.client, held: this.claimHolders() };
        model.applyWelcome(msg, now);
        for (const mount of this.mounts) {
          mount.build();
          mount.welcome();
        }
        // A connection that closed ended its claims: say so where I had one.
        if (before.me != null) {
          for (const [id, holder] of before.held) if (holder === before.me) this.notice(id, CLAIM_DROPPED_TEXT);
        }
        // Who last changed each control: the history API, on the server's origin.
        loadLastChanges(model, this.room, this.token, () => this.schedule(), (url, init) => fetch(new URL(url, this.server), init));
        break;
      }
      case "update": {
        const heldBefore = this.claimHolders();
        model.applyUpdate(msg, now);
        const answered = this.claims.acked(model.ack, model.client);
        for (const done of answered) {
          this.notice(done.control, claimDoneText(done, done.holder != null ? holderName(model, done.holder) : null), "ok");
        }
        const released = new Set(answered.filter((d) => d.action === "release").map((d) => d.control));
        for (const request of this.claims.pending.values()) if (request.action === "release") released.add(request.control);
        for (const id of endedClaims(heldBefore, this.claimHolders(), model.client, released)) this.notice(id, CLAIM_ENDED_TEXT);
        for (const done of this.resets.acked(model.ack, model.client)) {
          if (done.control != null) this.notice(done.control, "Reset to default", "ok");
        }
        break;
      }
      case "reject":
        this.rejected(msg);
        break;
      default:
        break;
    }
    this.scheduleExpiry();
    this.schedule();
  }

  rejected(msg) {
    const model = this.model;
    const refusedClaim = this.claims.rejected(msg);
    if (refusedClaim) {
      this.notice(refusedClaim.control, claimRefusal(refusedClaim.action, msg, holderName(model, msg.holder)));
      if (msg.code === "forbidden") model.applyReject(msg); // read only from now on
      return;
    }
    const refusedReset = this.resets.rejected(msg);
    if (refusedReset) {
      if (refusedReset.control != null) this.notice(refusedReset.control, resetRefusal(msg, holderName(model, msg.holder)));
      if (msg.code === "forbidden") model.applyReject(msg);
      return;
    }
    const r = model.applyReject(msg);
    if (r.controlId == null) return;
    if (r.endsGesture) abortDrags(r.controlId, r.thumb, model);
    if (r.code === "busy") this.notice(r.controlId, `held by ${r.holderName ?? "someone else"}`);
    else if (r.code === "claimed") this.notice(r.controlId, claimedText(holderName(model, r.holder)));
    else if (r.code === "forbidden") this.notice(r.controlId, FORBIDDEN_TEXT);
    else if (r.code !== "no_gesture") this.notice(r.controlId, r.message || r.code);
  }

  /**
   * What the elements show of the connection: {state, status (the indicator's
   * words, null: connection.js's own), refusal ({kind, title, detail}: closed
   * for good), hint (never reached the server yet)}.
   */
  situation(now = Date.now()) {
    const c = this.connection;
    if (c.state === "closed") {
      const notice = closeNotice(c.closeCode, c.closeReason, { room: this.room, token: this.token, now });
      const kind = notice?.kind ?? "closed";
      const words = refusalWords(kind, { room: this.room, server: this.server });
      return { state: c.state, status: words.status, refusal: { kind, ...words }, hint: null };
    }
    return { state: c.state, status: null, refusal: null, hint: unreachableHint(c, this.server, globalThis.location?.origin ?? null) };
  }

  schedule() {
    if (!this.frame) this.frame = requestAnimationFrame(() => this.render());
  }

  render() {
    this.frame = 0;
    const now = Date.now();
    refreshDrags();
    for (const mount of this.mounts) mount.render(now);
    // "reconnecting in N s" counts down once a second.
    if (this.connection.state === "reconnecting" && !this.countdown) {
      this.countdown = setTimeout(() => {
        this.countdown = 0;
        this.schedule();
      }, 1000 - (now % 1000) + 5);
    }
  }

  /** People who left are dropped when their grace period ends (their ghosts and "here" chips with them). */
  scheduleExpiry() {
    clearTimeout(this.expiry);
    const next = this.model.nextExpiry();
    if (next == null) return;
    this.expiry = setTimeout(() => {
      this.model.prune(Date.now());
      this.scheduleExpiry();
      this.schedule();
    }, Math.max(0, next - Date.now()) + 10);
  }
}

// The elements follow the system's light or dark mode (unless their theme attribute says which) as it changes.
if (typeof window !== "undefined" && typeof window.matchMedia === "function") {
  window.matchMedia("(prefers-color-scheme: dark)").addEventListener?.("change", () => {
    for (const s of sessions.values()) s.schedule();
  });
}

// A page left for another may be kept by the back/forward cache with its sockets open: close them, and open them again on return.
if (typeof window !== "undefined") {
  window.addEventListener("pagehide", () => {
    for (const s of sessions.values()) s.connection.stop();
  });
  window.addEventListener("pageshow", (event) => {
    if (!event.persisted) return;
    for (const s of sessions.values()) s.connection.restart();
  });
}
