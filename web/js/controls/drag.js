// Pointer drags on a track (mouse, touch, pen) turned into protocol gestures.
//
// Pressing a thumb sends `begin` without `at`; pressing the track elsewhere
// sends `begin` with `at` = the pointer's track fraction. Moves send `dx`, the
// whole pointer translation since the press divided by the usable track
// width, at most once per animation frame. Release sends `end`; pointercancel
// or Escape sends `cancel`. A press held still repeats its last move every
// 5 s so the server's 10 s hold does not lapse.
//
// The drag draws itself at once: the preview is math.place() against the
// state shown apart from the preview (RoomModel.base: the displayed state, or
// this client's own not-yet-acked result), the release shows math.hold()
// against the committed state.

import { clamp, hold, place, position, thumbValue, trackFraction } from "../math.js";

export const KEEP_ALIVE_MS = 5000;

/** Live drags, so the app can re-evaluate or abort them. */
const sessions = new Set();

/** Re-evaluates every live drag's preview against the current displayed state. */
export function refreshDrags() {
  for (const s of sessions) s.preview();
}

/** Stops drags locally without sending anything (their gesture is gone: busy reject, new welcome). */
export function abortDrags(controlId = null, thumb = null) {
  for (const s of [...sessions]) {
    if ((controlId == null || s.controlId === controlId) && (thumb == null || s.thumb === thumb)) s.abort();
  }
}

/** True while this client drags the control (optionally one thumb of it). */
export function isDragging(controlId, thumb = null) {
  for (const s of sessions) if (s.controlId === controlId && (thumb == null || s.thumb === thumb)) return true;
  return false;
}

/** Cancels the drags of a control (Escape on its focused thumb). */
export function cancelDrags(controlId) {
  let any = false;
  for (const s of [...sessions]) {
    if (s.controlId === controlId) {
      s.cancel();
      any = true;
    }
  }
  return any;
}

class DragSession {
  constructor({ track, controlId, thumb, model, actions, pointerId, startX, width, inset, at, anchor }) {
    Object.assign(this, { track, controlId, thumb, model, actions, pointerId, startX, at, anchor });
    this.usable = Math.max(0, width - 2 * inset);
    this.dx = 0;
    this.moved = false;
    this.sentDx = null; // the dx of the last move sent
    this.frame = 0;
    this.keepAlive = 0;
  }

  get control() {
    return this.model.schema(this.controlId);
  }

  /** Computes and shows the local preview. */
  preview() {
    const control = this.control;
    const base = this.model.base(this.controlId);
    if (!control || !base) return;
    // While someone else holds the thumb the begin will be refused (busy): do not move it.
    const blocked = this.model.heldBy(this.controlId, this.thumb) != null;
    const state = blocked || (!this.moved && this.at == null)
      ? base
      : place(control, this.thumb, clamp(this.anchor + this.dx, 0, 1), base);
    this.model.localPreview(this.controlId, state, this.thumb);
  }

  begin() {
    this.preview();
    const seq = this.actions.drag(this.controlId, this.thumb, "begin", this.at == null ? {} : { at: this.at });
    if (seq == null) {
      this.model.localPreview(this.controlId, null);
      return false;
    }
    sessions.add(this);
    this.armKeepAlive();
    return true;
  }

  move(clientX) {
    const dx = this.usable > 0 ? (clientX - this.startX) / this.usable : 0;
    if (!this.moved && dx === 0) return; // still where it was pressed
    this.dx = dx;
    this.moved = true;
    this.preview();
    this.actions.changed();
    if (!this.frame) this.frame = requestAnimationFrame(() => this.flush());
  }

  /** Sends the latest dx if it has not been sent. */
  flush() {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    if (!sessions.has(this) || !this.moved || this.dx === this.sentDx) return;
    this.actions.drag(this.controlId, this.thumb, "move", { dx: this.dx });
    this.sentDx = this.dx;
    this.armKeepAlive();
  }

  armKeepAlive() {
    clearTimeout(this.keepAlive);
    this.keepAlive = setTimeout(() => {
      if (!sessions.has(this)) return;
      // Repeat the last move; before any move, a bare move keeps the hold.
      this.actions.drag(this.controlId, this.thumb, "move", this.sentDx == null ? {} : { dx: this.sentDx });
      this.armKeepAlive();
    }, KEEP_ALIVE_MS);
  }

  end() {
    this.flush();
    const control = this.control;
    const shown = this.model.shown(this.controlId);
    const committed = this.model.committed(this.controlId);
    const final = control && shown && committed
      ? hold(control, this.thumb, thumbValue(control, shown, this.thumb), committed)
      : undefined;
    this.finish();
    this.actions.drag(this.controlId, this.thumb, "end", {}, final);
    this.model.localPreview(this.controlId, null);
    this.actions.changed();
  }

  cancel() {
    this.finish();
    this.actions.drag(this.controlId, this.thumb, "cancel", {}, this.model.base(this.controlId));
    this.model.localPreview(this.controlId, null);
    this.actions.changed();
  }

  abort() {
    this.finish();
    // Nothing is sent: show the state apart from the preview, not the preview.
    if (this.model.isDragging(this.controlId)) this.model.settle(this.controlId, this.model.base(this.controlId));
    this.actions.changed();
  }

  finish() {
    sessions.delete(this);
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    clearTimeout(this.keepAlive);
    try {
      if (this.track.hasPointerCapture(this.pointerId)) this.track.releasePointerCapture(this.pointerId);
    } catch {
      // the pointer is already gone
    }
  }
}

/**
 * Makes a track draggable.
 * @param {HTMLElement} track  the `.track` element holding the thumbs
 * @param {object} options
 *   controlId, model, actions;
 *   pickThumb(f) -> thumb name for a press on the track away from any thumb.
 */
export function attachDrag(track, { controlId, model, actions, pickThumb }) {
  let session = null;

  track.addEventListener("pointerdown", (event) => {
    if (session && !sessions.has(session)) session = null; // ended elsewhere (busy, welcome, Escape)
    if (session || (event.pointerType === "mouse" && event.button !== 0)) return;
    const thumbEl = event.target.closest('[role="slider"]');
    if (!actions.canAct) {
      thumbEl?.focus({ preventScroll: true });
      return;
    }
    const control = model.schema(controlId);
    const base = model.base(controlId);
    if (!control || !base) return;
    const anyThumb = track.querySelector('[role="slider"]');
    const rect = track.getBoundingClientRect();
    const inset = (anyThumb?.offsetWidth ?? 32) / 2;
    const f = trackFraction(event.clientX - rect.left, rect.width, inset);
    const onThumb = thumbEl && track.contains(thumbEl) ? thumbEl : null;
    const thumb = onThumb ? onThumb.dataset.thumb : pickThumb(clamp(f, 0, 1));
    if (!thumb) return;
    const at = onThumb ? null : clamp(f, 0, 1);
    const s = new DragSession({
      track, controlId, thumb, model, actions,
      pointerId: event.pointerId,
      startX: event.clientX,
      width: rect.width,
      inset,
      at,
      anchor: at ?? position(control, base, thumb),
    });
    event.preventDefault();
    (onThumb ?? track.querySelector(`[role="slider"][data-thumb="${thumb}"]`))?.focus({ preventScroll: true });
    if (!s.begin()) return;
    session = s;
    try {
      track.setPointerCapture(event.pointerId);
    } catch {
      // synthetic events have no capturable pointer
    }
    actions.changed();
  });

  track.addEventListener("pointermove", (event) => {
    if (!session || event.pointerId !== session.pointerId) return;
    if (!sessions.has(session)) {
      session = null;
      return;
    }
    event.preventDefault();
    session.move(event.clientX);
  });

  const release = (event) => {
    if (!session || event.pointerId !== session.pointerId) return;
    const s = session;
    session = null;
    if (!sessions.has(s)) return; // aborted or cancelled meanwhile
    if (event.type === "pointerup") {
      s.move(event.clientX);
      s.end();
    } else {
      s.cancel();
    }
  };
  track.addEventListener("pointerup", release);
  track.addEventListener("pointercancel", release);
  track.addEventListener("lostpointercapture", release);
}

/** Escape anywhere cancels every drag in progress. */
window.addEventListener("keydown", (event) => {
  if (event.key !== "Escape" || sessions.size === 0) return;
  event.preventDefault();
  for (const s of [...sessions]) s.cancel();
});
