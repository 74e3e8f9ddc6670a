// What the controls send: every message gets the next seq, is recorded in the
// model for echo suppression, and draws its expected result at once.

import { hold, parseHex, setValue, stepBy } from "./math.js";

export class Actions {
  /**
   * @param {import("./protocol.js").RoomModel} model
   * @param {{send(msg: object): boolean, isOpen: boolean}} connection
   * @param {() => void} changed  called after every send (schedules a render)
   */
  constructor(model, connection, changed = () => {}) {
    this.model = model;
    this.connection = connection;
    this.changed = changed;
    /** Told of every message sent, `(seq, msg)`: the undo tracker (history.js) listens. */
    this.sentHook = null;
  }

  /** True when this client may only watch (a viewer's token): nothing is sent that would be refused. */
  get readOnly() {
    return this.model.readOnly === true;
  }

  get canAct() {
    return this.connection.isOpen && !this.readOnly;
  }

  /**
   * Sends one message about a control. `optimistic` is the state to show
   * until the ack (undefined: keep showing what is shown now).
   * Returns the seq, or null when nothing could be sent.
   */
  send(controlId, thumb, fields, optimistic = undefined) {
    if (!this.canAct) return null;
    const seq = this.model.nextSeq();
    const msg = { type: fields.type, seq, control: controlId };
    if (thumb != null) msg.thumb = thumb;
    Object.assign(msg, fields);
    if (!this.connection.send(msg)) return null;
    this.sentHook?.(seq, msg);
    this.model.noteSent(controlId, seq, optimistic, thumb);
    this.changed();
    return seq;
  }

  /** True when a write of the thumb (null: any thumb) will be refused: someone else holds it (busy) or claims the control (claimed). */
  blocked(controlId, thumb) {
    return this.model.heldBy(controlId, thumb) != null || this.model.claimedByOther(controlId) != null;
  }

  /**
   * `claim` ("only I move this until I let go") or `release` of a control.
   * Nothing is predicted: the server's answer is a change entry carrying (or
   * no longer carrying) `claim`. Returns the seq, or null when nothing was sent.
   */
  claim(controlId, action = "claim") {
    if (!this.canAct || (action !== "claim" && action !== "release") || !this.model.schema(controlId)) return null;
    const seq = this.model.nextSeq();
    if (!this.connection.send({ type: action, seq, control: controlId })) return null;
    this.changed();
    return seq;
  }

  /** A drag message: phase begin/move/end/cancel, with optional dx or at. */
  drag(controlId, thumb, phase, pointer = {}, optimistic = undefined) {
    return this.send(controlId, thumb, { type: "drag", phase, ...pointer }, optimistic);
  }

  /** `step` by n, drawn at once as the step will commit. */
  step(controlId, thumb, n) {
    const control = this.model.schema(controlId);
    if (!control) return null;
    // A thumb someone else holds (busy) or a control someone else claims (claimed) will be refused: do not move it meanwhile.
    const expected = this.blocked(controlId, thumb)
      ? undefined
      : stepBy(control, thumb, n, this.model.shown(controlId));
    return this.send(controlId, thumb, { type: "step", by: n }, expected);
  }

  /** `set` of a thumb to a number (an xy pad: {x?, y?}), drawn at once as the set will commit. */
  set(controlId, thumb, value) {
    const control = this.model.schema(controlId);
    const axes = control?.type === "xy" && value != null && typeof value === "object"
      && Object.keys(value).length > 0 && Object.entries(value).every(([k, v]) => (k === "x" || k === "y") && Number.isFinite(v));
    if (!control || !(Number.isFinite(value) || axes)) return null;
    const expected = this.blocked(controlId, thumb)
      ? undefined
      : setValue(control, thumb, value, this.model.shown(controlId));
    return this.send(controlId, thumb, { type: "set", value }, expected);
  }

  /**
   * `undo` or `redo` of this client's own last edit. Nothing is predicted:
   * the server's commit arrives as a change like anyone's.
   */
  history(kind) {
    if (!this.canAct || (kind !== "undo" && kind !== "redo")) return null;
    const seq = this.model.nextSeq();
    if (!this.connection.send({ type: kind, seq })) return null;
    this.sentHook?.(seq, { type: kind });
    this.changed();
    return seq;
  }

  /** Tells the server which control this page has focused (null: none); viewers too. */
  focus(controlId) {
    if (!this.connection.isOpen) return false;
    const msg = { type: "focus", seq: this.model.nextSeq() };
    if (controlId != null) msg.control = controlId;
    return this.connection.send(msg);
  }

  /**
   * `reset` of one control (or, with null, of the whole room) to the schema's
   * initial state. Nothing is predicted (the page does not know the initial
   * states): the commit arrives as a change like anyone's, an ordinary edit
   * the undo stack takes back. Returns the seq, or null when nothing was sent.
   */
  reset(controlId = null) {
    if (!this.canAct) return null;
    const seq = this.model.nextSeq();
    const msg = { type: "reset", seq };
    if (controlId != null) msg.control = controlId;
    if (!this.connection.send(msg)) return null;
    this.sentHook?.(seq, msg);
    this.changed();
    return seq;
  }

  /** Whole-colour `set` of "#RRGGBB"; null (nothing sent) when the text is not that. */
  setColor(controlId, hex) {
    const control = this.model.schema(controlId);
    const rgb = parseHex(hex);
    if (!control || !rgb) return null;
    let expected;
    if (!this.blocked(controlId, null)) {
      expected = { ...this.model.shown(controlId) };
      for (const channel of ["red", "green", "blue"]) expected = hold(control, channel, rgb[channel], expected);
    }
    return this.send(controlId, null, { type: "set", value: hex.toUpperCase() }, expected);
  }
}
