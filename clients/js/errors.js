// Typed errors: every `reject` code of the wire contract has its class, so a
// program can `catch (e) { if (e instanceof Busy) … }` instead of comparing
// strings; connection failures have theirs. `code` is always the wire code.

export class TandemError extends Error {
  constructor(message, { code = null, seq = null, control = null, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = new.target.name;
    /** The wire's reject code ("busy", "bad_value", …) or a connection reason ("closed", "disconnected"). */
    this.code = code;
    /** The seq of the refused message, when the server named one. */
    this.seq = seq;
    /** The control the refused operation was about, when known. */
    this.control = control;
  }
}

export class BadMessage extends TandemError {}
export class UnknownControl extends TandemError {}
export class UnknownThumb extends TandemError {}
export class BadValue extends TandemError {}
export class ReadOnly extends TandemError {}
export class NoGesture extends TandemError {}
export class Forbidden extends TandemError {}
export class RateLimited extends TandemError {}
export class Unauthorized extends TandemError {}
export class UnknownPreset extends TandemError {}
/** Cluster mode: the room's owner or Redis could not be reached; nothing changed, try again later. */
export class Unavailable extends TandemError {}
/** Cluster mode: the room's owner stopped answering after the message reached it; it may or may not have been applied (read the room). */
export class OutcomeUnknown extends TandemError {}

/** A thumb someone holds: `holder` is their client id (as on the wire), `holderName` their display name. */
export class Busy extends TandemError {
  constructor(message, { holder = null, holderName = null, ...rest } = {}) {
    super(message, { code: "busy", ...rest });
    this.holder = holder;
    this.holderName = holderName;
  }
}

/** A control someone claimed ("only I move this"): `holder`, `holderName` as for Busy. */
export class Claimed extends Busy {
  constructor(message, rest = {}) {
    super(message, rest);
    this.code = "claimed";
  }
}

/** The connection ended for good (unknown room, refused token, room not covered, close()): `closeCode`, `reason`. */
export class ConnectionClosed extends TandemError {
  constructor(message, { closeCode = null, reason = "", ...rest } = {}) {
    super(message, { code: "closed", ...rest });
    this.closeCode = closeCode;
    this.reason = reason;
  }
}

/** The connection dropped while an operation that must not be repeated (a press, a step, a gesture) was in flight: its outcome is unknown. */
export class Disconnected extends TandemError {
  constructor(message, rest = {}) {
    super(message, { code: "disconnected", ...rest });
  }
}

/** No welcome within the time `connect()` was given. */
export class Timeout extends TandemError {
  constructor(message, rest = {}) {
    super(message, { code: "timeout", ...rest });
  }
}

const BY_CODE = {
  bad_message: BadMessage,
  unknown_control: UnknownControl,
  unknown_thumb: UnknownThumb,
  bad_value: BadValue,
  read_only: ReadOnly,
  no_gesture: NoGesture,
  forbidden: Forbidden,
  rate_limited: RateLimited,
  unauthorized: Unauthorized,
  unknown_preset: UnknownPreset,
  unavailable: Unavailable,
  unknown: OutcomeUnknown,
};

/**
 * The error for a `reject` frame. `holderName` is the holder's display name
 * when the room knows it; an unknown code still gives a TandemError with it.
 */
export function errorFromReject(msg, { control = null, holderName = null } = {}) {
  const code = typeof msg.code === "string" ? msg.code : "unknown";
  const text = msg.message || code;
  const common = { code, seq: msg.seq ?? null, control };
  if (code === "busy" || code === "claimed") {
    const Kind = code === "busy" ? Busy : Claimed;
    return new Kind(text, { ...common, holder: msg.holder ?? null, holderName });
  }
  const Kind = BY_CODE[code] ?? TandemError;
  return new Kind(text, common);
}
