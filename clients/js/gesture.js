// One drag gesture on one thumb: `begin` at once, `move`s (previews others see
// as ghosts), then `end` (one commit) or `cancel`. Moves go out as absolute
// track fractions (`at`), computed from values with the web client's math,
// so a program thinks in values and the server places them exactly.

import { GESTURE_ENDING_REJECTS } from "../../web/js/protocol.js";
import { Disconnected } from "./errors.js";
import { fractionOf } from "./values.js";

/** A still gesture repeats its last move this often, so the server's 10 s hold never lapses. */
export const KEEPALIVE_MS = 5000;

const swallow = () => {};

export class Gesture {
  /** Use `room.control(id).drag()`. */
  constructor(room, controlId, thumb) {
    this.room = room;
    this.control = controlId;
    this.thumb = thumb;
    /** The error that ended the gesture (a refused begin, a dropped connection), or null. */
    this.error = null;
    /** True once end() or cancel() was called, or the gesture failed. */
    this.done = false;
    this.lastAt = undefined;
    this.timer = null;
    /** Resolves once the server holds the thumb for this gesture; rejects (Busy, Forbidden, ReadOnly, …) if it will not. */
    this.ready = room.request(this.message("begin"), { gesture: this, resend: false }).then(() => undefined);
    this.ready.catch(swallow); // the gesture remembers the error; end() reports it
    this.keepAlive();
  }

  message(phase, extra = {}) {
    const msg = { type: "drag", control: this.control, phase, ...extra };
    if (this.thumb != null) msg.thumb = this.thumb;
    return msg;
  }

  /** Moves the thumb to where it shows `value` (a number; an xy pad's {x, y}): a preview, not a commit. */
  moveTo(value) {
    const schema = this.room.model.schema(this.control);
    if (!schema) return;
    this.moveToFraction(fractionOf(schema, this.thumb, value, this.room.model.committed(this.control)));
  }

  /** Moves the thumb to track fraction `f` (0 at the low end, 1 at the high end; an xy pad: [fx, fy]). */
  moveToFraction(f) {
    if (this.done) return;
    this.lastAt = f;
    this.send(this.message("move", { at: f }));
  }

  /** Commits: resolves with the control's value once the server has committed it. */
  async end() {
    if (this.error) throw this.error;
    if (this.done) throw new Error(`the gesture on '${this.control}' has already ended`);
    this.finish();
    try {
      await this.room.request(this.message("end"), { gesture: this, resend: false });
    } catch (error) {
      throw this.error ?? error; // a refused begin explains the refused end
    }
    if (this.error) throw this.error;
    return this.room.control(this.control).value;
  }

  /** Withdraws the preview: the committed value stays as it was. */
  async cancel() {
    if (this.done) return;
    this.finish();
    await this.room.request(this.message("cancel"), { gesture: this, resend: false });
  }

  /** A refused message on the gesture: a refused begin (or one the server says ended it) ends it here too. */
  refused(error) {
    if (GESTURE_ENDING_REJECTS.has(error.code)) this.fail(error);
    else this.room.emit("error", error);
  }

  /** The connection dropped: the server has cancelled the gesture. */
  disconnected() {
    this.fail(new Disconnected(`the connection dropped during the gesture on '${this.control}': the server cancelled it`, { control: this.control }));
  }

  fail(error) {
    if (!this.error) this.error = error;
    this.finish();
  }

  finish() {
    this.done = true;
    clearTimeout(this.timer);
    this.timer = null;
    this.room.gestures.delete(this);
  }

  send(msg) {
    this.room.request(msg, { gesture: this, resend: false }).catch(swallow);
    this.keepAlive();
  }

  keepAlive() {
    clearTimeout(this.timer);
    if (this.done) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.done) return;
      // A move with neither dx nor at only refreshes the hold.
      this.send(this.message("move", this.lastAt === undefined ? {} : { at: this.lastAt }));
    }, KEEPALIVE_MS);
  }
}
