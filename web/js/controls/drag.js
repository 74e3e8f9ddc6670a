// Pointer drags on a track (mouse, touch, pen) turned into protocol gestures.
//
// Pressing a thumb sends `begin` without `at`; pressing the track elsewhere
// sends `begin` with `at` = the pointer's track fraction. Moves send `dx`, the
// whole pointer translation since the press divided by the usable track
// width, at most once per animation frame. Release sends `end`; pointercancel
// or Escape sends `cancel`. A press held still repeats its last move every
// 5 s so the server's 10 s hold does not lapse.
//
// Each pointer drags its own thumb (pointers.js): two fingers on a range's
// two thumbs move both, each its own gesture, and a finger on another control
// is a drag of its own as well.
//
// An xy pad (`pad: true`) works the same in two dimensions: fractions are
// [fx, fy] with fy = 0 at the bottom, moves carry `dx` and `dy` (+dy up), a
// press away from the knob begins with `at: [fx, fy]`.
//
// The drag draws itself at once: the preview is math.place() against the
// state shown apart from the preview (RoomModel.base: the displayed state, or
// this client's own not-yet-acked result), the release shows math.hold()
// against the committed state.

import { clamp, hold, place, position, thumbValue, trackFraction } from "../math.js";
import { PointerBook } from "./pointers.js";

export const KEEP_ALIVE_MS = 5000;

/** Live drags, so the app can re-evaluate or abort them. */
const sessions = new Set();

/** Re-evaluates every live drag's preview against the current displayed state. */
export function refreshDrags() {
  for (const s of sessions) s.preview();
}

/**
 * Stops drags locally without sending anything (their gesture is gone: busy reject, new welcome).
 * `model`: only the drags of that room (a page with embedded elements of several rooms, web/embed.js).
 */
export function abortDrags(controlId = null, thumb = null, model = null) {
  for (const s of [...sessions]) {
    if ((controlId == null || s.controlId === controlId) && (thumb == null || s.thumb === thumb)
      && (model == null || s.model === model)) s.abort();
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
  constructor({ track, controlId, thumb, model, actions, pointerId, startX, startY = 0, width, height = 0, inset, at, anchor, pad = false }) {
    Object.assign(this, { track, controlId, thumb, model, actions, pointerId, startX, startY, at, anchor, pad });
    this.usable = Math.max(0, width - 2 * inset);
    this.usableY = Math.max(0, height - 2 * inset);
    this.dx = 0;
    this.dy = 0;
    this.moved = false;
    this.sentDx = null; // the dx of the last move sent
    this.frame = 0;
    this.keepAlive = 0;
    this.sentKey = null;
  }

  get control() {
    return this.model.schema(this.controlId);
  }

  /** Computes and shows the local preview. */
  preview() {
    const control = this.control;
    // Against what is shown apart from this drag: another finger's drag of the control's other thumb included.
    const base = this.model.baseFor(this.controlId, this.thumb);
    if (!control || !base) return;
    // While someone else holds the thumb or claims the control the begin will be refused (busy, claimed): do not move it.
    const blocked = this.model.heldBy(this.controlId, this.thumb) != null || this.model.claimedByOther?.(this.controlId) != null;
    const f = this.pad
      ? [clamp(this.anchor[0] + this.dx, 0, 1), clamp(this.anchor[1] + this.dy, 0, 1)]
      : clamp(this.anchor + this.dx, 0, 1);
    const state = blocked || (!this.moved && this.at == null) ? base : place(control, this.thumb, f, base);
    this.model.localPreview(this.controlId, state, this.thumb);
  }

  begin() {
    this.preview();
    const seq = this.actions.drag(this.controlId, this.thumb, "begin", this.at == null ? {} : { at: this.at });
    if (seq == null) {
      this.model.localPreview(this.controlId, null, this.thumb);
      return false;
    }
    sessions.add(this);
    this.armKeepAlive();
    return true;
  }

  move(clientX, clientY = this.startY) {
    const dx = this.usable > 0 ? (clientX - this.startX) / this.usable : 0;
    // Screen y grows downwards; a pad's y axis grows upwards.
    const dy = this.pad && this.usableY > 0 ? -(clientY - this.startY) / this.usableY : 0;
    if (!this.moved && dx === 0 && dy === 0) return; // still where it was pressed
    this.dx = dx;
    this.dy = dy;
    this.moved = true;
    this.preview();
    this.actions.changed();
    if (!this.frame) this.frame = requestAnimationFrame(() => this.flush());
  }

  /** Sends the latest dx if it has not been sent. */
  flush() {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    if (!sessions.has(this) || !this.moved || this.pointerKey() === this.sentKey) return;
    this.sentDx = this.pointer();
    this.sentKey = this.pointerKey();
    this.actions.drag(this.controlId, this.thumb, "move", this.sentDx);
    this.armKeepAlive();
  }

  /** The pointer fields of a move: {dx}, or {dx, dy} on a pad. */
  pointer() {
    return this.pad ? { dx: this.dx, dy: this.dy } : { dx: this.dx };
  }

  pointerKey() {
    return this.pad ? `${this.dx} ${this.dy}` : String(this.dx);
  }

  armKeepAlive() {
    clearTimeout(this.keepAlive);
    this.keepAlive = setTimeout(() => {
      if (!sessions.has(this)) return;
      // Repeat the last move; before any move, a bare move keeps the hold.
      this.actions.drag(this.controlId, this.thumb, "move", this.sentDx ?? {});
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
    this.model.localPreview(this.controlId, null, this.thumb);
    this.actions.changed();
  }

  cancel() {
    this.finish();
    this.actions.drag(this.controlId, this.thumb, "cancel", {}, this.model.base(this.controlId));
    this.model.localPreview(this.controlId, null, this.thumb);
    this.actions.changed();
  }

  abort() {
    this.finish();
    // Nothing is sent: show the state apart from the preview, not the preview.
    if (this.model.isDragging(this.controlId, this.thumb)) this.model.settle(this.controlId, this.model.base(this.controlId), this.thumb);
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
 *   pickThumb(f, taken) -> thumb name for a press on the track away from any thumb
 *     (`taken`: the thumbs other fingers drag now; null when none is free);
 *   pad: true for an xy pad (two-dimensional: `.xy-knob` is its thumb, fractions [fx, fy]).
 */
export function attachDrag(track, { controlId, model, actions, pickThumb, pad = false }) {
  /** pointerId -> {thumb, session}: one drag per pointer, one pointer per thumb. */
  const pointers = new PointerBook();
  // Drags that ended elsewhere (a refusal, a welcome, Escape) free their pointer and thumb.
  const prune = () => pointers.prune((entry) => sessions.has(entry.session));

  track.addEventListener("pointerdown", (event) => {
    prune();
    if (pointers.get(event.pointerId) || (event.pointerType === "mouse" && event.button !== 0)) return;
    const thumbEl = event.target.closest(pad ? ".xy-knob" : '[role="slider"]');
    if (!actions.canAct) {
      (thumbEl?.matches('[role="slider"]') ? thumbEl : thumbEl?.querySelector('[role="slider"]'))?.focus({ preventScroll: true });
      return;
    }
    const control = model.schema(controlId);
    const base = model.base(controlId);
    if (!control || !base) return;
    const anyThumb = track.querySelector(pad ? ".xy-knob" : '[role="slider"]');
    const rect = track.getBoundingClientRect();
    const inset = (anyThumb?.offsetWidth ?? 32) / 2;
    const f = trackFraction(event.clientX - rect.left, rect.width, inset);
    const fy = pad ? 1 - trackFraction(event.clientY - rect.top, rect.height, inset) : 0;
    const onThumb = thumbEl && track.contains(thumbEl) ? thumbEl : null;
    const taken = pointers.taken();
    const thumb = onThumb ? onThumb.dataset.thumb : pickThumb(clamp(f, 0, 1), taken);
    // A thumb another finger already drags stays with that finger.
    if (!pointers.canStart(event.pointerId, thumb)) return;
    const here = pad ? [clamp(f, 0, 1), clamp(fy, 0, 1)] : clamp(f, 0, 1);
    const at = onThumb ? null : here;
    const s = new DragSession({
      track, controlId, thumb, model, actions,
      pointerId: event.pointerId,
      startX: event.clientX,
      startY: event.clientY,
      width: rect.width,
      height: rect.height,
      inset,
      at,
      anchor: at ?? position(control, model.baseFor(controlId, thumb), thumb),
      pad,
    });
    event.preventDefault();
    const focusable = onThumb?.matches('[role="slider"]') ? onThumb : track.querySelector(`[role="slider"][data-thumb="${thumb}"]`);
    focusable?.focus({ preventScroll: true });
    if (!s.begin()) return;
    pointers.start(event.pointerId, { thumb, session: s });
    try {
      track.setPointerCapture(event.pointerId);
    } catch {
      // synthetic events have no capturable pointer
    }
    actions.changed();
  });

  track.addEventListener("pointermove", (event) => {
    const entry = pointers.get(event.pointerId);
    if (!entry) return;
    if (!sessions.has(entry.session)) {
      pointers.end(event.pointerId);
      return;
    }
    event.preventDefault();
    entry.session.move(event.clientX, event.clientY);
  });

  const release = (event) => {
    const entry = pointers.end(event.pointerId);
    if (!entry) return;
    const s = entry.session;
    if (!sessions.has(s)) return; // aborted or cancelled meanwhile
    if (event.type === "pointerup") {
      s.move(event.clientX, event.clientY);
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
