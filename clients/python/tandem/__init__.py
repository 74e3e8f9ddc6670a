"""Tandem client: join a room, read and watch its controls, set and drag them.

    import tandem
    room = tandem.connect("ws://localhost:8080/rooms/demo", name="script")
    print(room["gain"].value)

`connect` is blocking (a background thread); `aconnect` is its asyncio twin.
"""

from __future__ import annotations

from typing import Any

from .aio import AsyncControl, AsyncGesture, AsyncRoom, Change, TokenSource
from .errors import (BadMessage, BadValue, Busy, Claimed, Closed, ConnectionLost, Forbidden, NoGesture, RateLimited,
                     ReadOnly, Rejected, TandemError, Unauthorized, Unavailable, UnknownControl, UnknownPreset, UnknownThumb)
from .sync import Control, Gesture, Room

__version__ = "0.1.0"

__all__ = [
    "connect", "aconnect", "Room", "Control", "Gesture", "AsyncRoom", "AsyncControl", "AsyncGesture", "Change",
    "TandemError", "Rejected", "BadMessage", "BadValue", "Busy", "Claimed", "Forbidden", "NoGesture", "RateLimited",
    "ReadOnly", "Unauthorized", "Unavailable", "UnknownControl", "UnknownPreset", "UnknownThumb", "Closed", "ConnectionLost",
]


def connect(url: str, name: str | None = None, token: TokenSource = None, **options: Any) -> Room:
    """Joins the room at `url` (`ws://host:port/rooms/ID`) and returns once its welcome is read.

    `token`: None, a JWT string, or a callable returning one (asked at every
    connect and again before the token expires). Options: `backoff=(low, high)`
    seconds, `open_timeout`, `ack_timeout` (None: wait for ever), `move_interval`.
    """
    return Room(url, name, token, **options)


async def aconnect(url: str, name: str | None = None, token: TokenSource = None, **options: Any) -> AsyncRoom:
    """The asyncio twin of `connect`: `room = await tandem.aconnect(url, name=...)`."""
    return await AsyncRoom(url, name, token, **options).start()
