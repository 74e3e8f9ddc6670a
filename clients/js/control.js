// One control of a room, as a live handle: every read looks at the room's
// current state, so a handle kept across reconnects and schema changes stays
// right (and says UnknownControl once the room no longer has the control).

import { UnknownControl } from "./errors.js";
import { Gesture } from "./gesture.js";
import { gestureThumb, setsFor, valueOf } from "./values.js";

export class Control {
  constructor(room, id) {
    this.room = room;
    this.id = id;
  }

  entry() {
    const c = this.room.model.controls.get(this.id);
    if (!c) throw new UnknownControl(`room '${this.room.id}' no longer has control '${this.id}'`, { code: "unknown_control", control: this.id });
    return c;
  }

  /** The control's schema as the server sent it (type, label, min, max, values, …). */
  get schema() { return structuredClone(this.entry().schema); }
  get type() { return this.entry().schema.type; }
  get label() { return this.entry().schema.label ?? this.id; }
  /** The committed state, as on the wire ({value}, {index, value}, {lower, upper}, …). */
  get state() { return { ...this.entry().state }; }
  /** The revision of the control's last commit. */
  get rev() { return this.entry().rev; }

  /**
   * The committed value: a slider's or gauge's number, a snap's value, a toggle's
   * boolean, a button's press count, an xy pad's {x, y}, a range's {lower, upper},
   * a colour's "#RRGGBB".
   */
  get value() {
    const c = this.entry();
    return valueOf(c.schema, c.state);
  }

  /** The value as people see it now: the committed one with others' live drags on top. */
  get displayed() {
    const c = this.entry();
    return valueOf(c.schema, this.room.model.displayed(this.id));
  }

  /** Others' live drags on this control: [{thumb, by, name, color, value, state, phase}]. */
  get ghosts() {
    const schema = this.entry().schema;
    return this.room.model.ghostsOf(this.id).map((g) => ({ ...g, value: valueOf(schema, g.state) }));
  }

  /**
   * Commits `value` (see `value` for each kind's form; a range also takes
   * {lower, upper} and a colour {red, green, blue}, each channel 0–1); `thumb`
   * sets one thumb. Resolves with the committed value once the server has
   * acknowledged it; rejects with BadValue, Busy, Forbidden, RateLimited, …
   */
  async set(value, { thumb = null } = {}) {
    const c = this.entry();
    const sets = setsFor(this.id, c.schema, value, thumb, c.state);
    for (const s of sets.slice(0, -1)) await this.room.set(this.id, s.value, { thumb: s.thumb });
    const last = sets.at(-1);
    return this.room.set(this.id, last.value, { thumb: last.thumb ?? null });
  }

  /** Steps by `by` (snap index, slider steps, range thumb, colour channel; an xy pad [nx, ny]; a toggle flips). */
  step(by = 1, { thumb = null } = {}) {
    this.entry();
    return this.room.step(this.id, by, { thumb });
  }

  /** Puts the control back to its schema's initial state (one edit, undoable); resolves with the committed value. */
  reset() {
    this.entry();
    return this.room.reset(this.id);
  }

  /** Only I move this until `release()`: others' writes are refused with `Claimed` naming me. */
  claim() {
    this.entry();
    return this.room.claim(this.id);
  }

  /** Lets my claim go. */
  release() {
    this.entry();
    return this.room.release(this.id);
  }

  /** Who claims the control now (a client id), or null. */
  get claimedBy() { return this.entry().claim ?? null; }

  /** Presses a button (one press, one commit). */
  press() {
    return this.step(1);
  }

  /**
   * Starts a gesture on the thumb (a range's "lower"/"upper", a colour's channel;
   * others have one): `begin` goes out at once, `moveTo(v)` previews, `end()` commits.
   */
  drag({ thumb = null } = {}) {
    const c = this.entry();
    return new Gesture(this.room, this.id, gestureThumb(this.id, c.schema, thumb));
  }

  /** Calls fn(change) on every commit of this control; returns the stop function. */
  onChange(fn) {
    return this.room.onChange(this.id, fn);
  }
}
