"""Typed errors: one class per reject code, and the ways a connection can end.

A reject from the server becomes the exception for its code (`Busy`, `Forbidden`,
`RateLimited`, …), all subclasses of `Rejected`, which carries `code`,
`message` and `seq` as the server sent them.
"""

from __future__ import annotations


class TandemError(Exception):
    """Every error this package raises."""


class Rejected(TandemError):
    """The server refused a message (a `reject` frame); nothing changed."""

    code = "rejected"

    def __init__(self, message: str = "", seq: int | None = None, code: str | None = None):
        super().__init__(message or self.code)
        self.message = message
        self.seq = seq
        if code is not None:
            self.code = code


class BadMessage(Rejected):
    code = "bad_message"


class UnknownControl(Rejected):
    code = "unknown_control"


class UnknownThumb(Rejected):
    code = "unknown_thumb"


class BadValue(Rejected):
    code = "bad_value"


class ReadOnly(Rejected):
    code = "read_only"


class Busy(Rejected):
    """Someone's gesture holds the thumb: `holder` is their client id, `holder_name` their display name."""

    code = "busy"

    def __init__(self, message: str = "", seq: int | None = None, holder: str | None = None,
                 holder_name: str | None = None):
        super().__init__(message, seq)
        self.holder = holder
        self.holder_name = holder_name

    def __str__(self) -> str:
        who = self.holder_name or self.holder or "someone"
        return f"busy: held by {who}" + (f" ({self.message})" if self.message else "")


class Claimed(Busy):
    """Someone claimed the control ("only I move this"): `holder`, `holder_name` as for `Busy`."""

    code = "claimed"

    def __str__(self) -> str:
        who = self.holder_name or self.holder or "someone"
        return f"claimed by {who}" + (f" ({self.message})" if self.message else "")


class NoGesture(Rejected):
    code = "no_gesture"


class Forbidden(Rejected):
    code = "forbidden"


class RateLimited(Rejected):
    code = "rate_limited"


class Unauthorized(Rejected):
    code = "unauthorized"


class UnknownPreset(Rejected):
    code = "unknown_preset"


class Unavailable(Rejected):
    """Cluster mode: the room's owner or Redis could not be reached; nothing changed, try again later."""
    code = "unavailable"


class OutcomeUnknown(Rejected):
    """Cluster mode: the room's owner stopped answering after the message reached it;
    it may or may not have been applied (the room's state tells)."""
    code = "unknown"


REJECTS: dict[str, type[Rejected]] = {cls.code: cls for cls in (
    BadMessage, UnknownControl, UnknownThumb, BadValue, ReadOnly, Busy, Claimed, NoGesture,
    Forbidden, RateLimited, Unauthorized, UnknownPreset, Unavailable, OutcomeUnknown)}


class ConnectionLost(TandemError):
    """The connection dropped before the server acknowledged a message that is
    not safe to send twice (a step, a gesture); it may or may not have been applied."""


class Closed(TandemError):
    """The room is closed for good: by `close()`, or by the server with a code
    that reconnecting cannot fix (`code`, `reason`: 4401 with a fixed token,
    4403 forbidden, 4404 unknown room or room deleted, 1003, 1009)."""

    def __init__(self, code: int | None = None, reason: str = ""):
        super().__init__(f"closed {code}: {reason}" if code is not None else "closed")
        self.code = code
        self.reason = reason


def rejected(frame: dict, holder_name: str | None = None) -> Rejected:
    cls = REJECTS.get(frame.get("code", ""), Rejected)
    message, seq = frame.get("message", ""), frame.get("seq")
    if cls in (Busy, Claimed):
        return cls(message, seq, frame.get("holder"), holder_name)
    if cls is Rejected:
        return Rejected(message, seq, frame.get("code"))
    return cls(message, seq)
