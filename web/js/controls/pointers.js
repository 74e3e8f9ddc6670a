// Which finger drags which thumb: the bookkeeping of a track's pointer drags,
// pure (no DOM), tested under Node (web/test/pointers.test.mjs).
//
// Each pointer (`pointerId`: the mouse, a pen, each finger) drags at most one
// thumb, and each thumb follows at most one pointer. Two fingers on a range's
// two thumbs are two drags, each sending its own gesture (the server lets one
// connection hold two thumbs); a second finger on a thumb another finger
// already drags is ignored (a `begin` from the holder would restart the
// first finger's gesture); a press on the track away from the thumbs takes
// the nearest thumb no finger has.

export class PointerBook {
  constructor() {
    /** pointerId -> what the pointer drags ({thumb, ...}). */
    this.byPointer = new Map();
  }

  /** The thumbs some pointer drags now. */
  taken() {
    return new Set([...this.byPointer.values()].map((entry) => entry.thumb));
  }

  /** Forgets the drags `alive(entry)` says are over (ended elsewhere: a refusal, a welcome, Escape). */
  prune(alive) {
    for (const [id, entry] of this.byPointer) if (!alive(entry)) this.byPointer.delete(id);
  }

  /** Whether a press of `pointerId` may start dragging `thumb`: the pointer drags nothing yet and no other pointer has the thumb. */
  canStart(pointerId, thumb) {
    return thumb != null && !this.byPointer.has(pointerId) && !this.taken().has(thumb);
  }

  /** Records that `pointerId` drags `entry.thumb`. */
  start(pointerId, entry) {
    if (!this.canStart(pointerId, entry?.thumb)) return false;
    this.byPointer.set(pointerId, entry);
    return true;
  }

  /** What `pointerId` drags, or undefined. */
  get(pointerId) {
    return this.byPointer.get(pointerId);
  }

  /** The pointer lifted (or was cancelled): what it dragged, now forgotten, or undefined. */
  end(pointerId) {
    const entry = this.byPointer.get(pointerId);
    this.byPointer.delete(pointerId);
    return entry;
  }

  get size() {
    return this.byPointer.size;
  }
}

/**
 * The thumb a press at track fraction `f` away from any thumb moves: the
 * nearest of `positions` ([[thumb, fraction]], low to high) that is not
 * `taken`; between two at the same place, the upper one when the press is
 * past them, else the lower. Null when every thumb is taken.
 */
export function nearestFreeThumb(f, positions, taken = new Set()) {
  let best = null;
  for (const [thumb, at] of positions) {
    if (taken.has(thumb)) continue;
    const d = Math.abs(f - at);
    if (best == null || d < best.d || (d === best.d && f > at)) best = { thumb, d };
  }
  return best?.thumb ?? null;
}
