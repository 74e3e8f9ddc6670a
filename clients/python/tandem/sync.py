"""The blocking client for scripts and notebooks: an `AsyncRoom` on an asyncio
loop in a background thread. Handlers run on a thread of their own, in order,
so a handler may call `set` (which waits for the loop) without blocking it.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from typing import Any, Callable

from .aio import AsyncGesture, AsyncRoom, ControlReadout, TokenSource
from .errors import Closed

log = logging.getLogger("tandem")


class Room:
    """A room joined over WebSocket. Create with `tandem.connect(url, name=..., token=...)`."""

    def __init__(self, url: str, name: str | None = None, token: TokenSource = None, **options: Any):
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="tandem-loop", daemon=True)
        self._thread.start()
        self._events: queue.Queue = queue.Queue()
        self._dispatcher = threading.Thread(target=self._run_handlers, name="tandem-handlers", daemon=True)
        self._dispatcher.start()
        self._closed = False

        async def make() -> AsyncRoom:
            return AsyncRoom(url, name, token, dispatch=self._enqueue, **options)

        self._room = self._call(make())
        try:
            self._call(self._room.start())
        except BaseException:
            self._stop_threads()
            raise

    # -- plumbing

    def _call(self, coro, timeout: float | None = None) -> Any:
        if self._loop.is_closed():
            coro.close()
            raise Closed(1000, "closed by the client")
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    def _enqueue(self, fn: Callable, arg: Any) -> None:
        self._events.put((fn, arg))

    def _run_handlers(self) -> None:
        while True:
            item = self._events.get()
            if item is None:
                return
            fn, arg = item
            try:
                fn(arg)
            except Exception:
                log.exception("tandem: a handler failed")

    def _stop_threads(self) -> None:
        self._events.put(None)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        if not self._thread.is_alive():
            self._loop.close()
        if threading.current_thread() is not self._dispatcher:
            self._dispatcher.join(5)

    # -- the room

    @property
    def id(self) -> str:
        return self._room.id

    @property
    def client(self) -> str | None:
        """This connection's client id (changes on every reconnect)."""
        return self._room.client

    @property
    def role(self) -> str | None:
        return self._room.role

    @property
    def rev(self) -> int:
        return self._room.rev

    @property
    def title(self) -> str | None:
        return self._room.title

    @property
    def connected(self) -> bool:
        return self._room.connected

    @property
    def failure(self):
        """The `tandem.Closed` that ended the room for good (4404 room deleted, …), else None."""
        return self._room.failure

    @property
    def connections(self) -> int:
        """How many welcomes so far: 1 after connect, one more per reconnect."""
        return self._room.connections

    @property
    def resumed_since(self) -> int | None:
        """The `since` of the last welcome (a resumed reconnect), None after a full welcome."""
        return self._room.resumed_since

    @property
    def names(self) -> dict[str, str]:
        return dict(self._room.names)

    @property
    def controls(self) -> dict[str, dict]:
        return self._room.controls

    @property
    def presets(self) -> list[dict]:
        return self._room.presets

    def __getitem__(self, control: str) -> "Control":
        self._room[control]  # KeyError naming the controls there are
        return Control(self, control)

    def __contains__(self, control: str) -> bool:
        return control in self._room.controls

    def __iter__(self):
        return iter(list(self._room.controls))

    def on_change(self, control: str | Callable | None = None):
        """Decorator: `fn(change)` on every commit of `control` (bare or None: every control)."""
        return self._room.on_change(control)

    def on_schema_change(self, fn: Callable) -> Callable:
        return self._room.on_schema_change(fn)

    def send(self, message: dict, resend: bool = False) -> None:
        """Any message (a `seq` is added); returns after its acknowledgement, raises a reject."""
        self._call(self._room.send(message, resend))

    @property
    def publish_failures(self) -> int:
        """Published values the server refused (publish raises nothing)."""
        return self._room.publish_failures

    def publish(self, control: str, value: Any) -> None:
        """Publishes `value` to `control` at any rate without waiting (a training
        loop's loss at 1 kHz): the latest goes out at most every
        `publish_interval` seconds (1/50 s by default); see `AsyncRoom.publish`."""
        if self._closed or self._loop.is_closed():
            raise Closed(1000, "closed by the client")
        self._loop.call_soon_threadsafe(self._room.publish, control, value)

    def reset(self, control: str | None = None) -> dict | None:
        """Puts `control` (None: the whole room, gauges and buttons aside) back to its initial state."""
        return self._call(self._room.reset(control))

    def wait_connected(self, timeout: float | None = None) -> None:
        self._call(self._room.wait_connected(timeout))

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self._call(self._room.close(), 10)
        finally:
            self._stop_threads()

    def __enter__(self) -> "Room":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<tandem.Room {self.id} rev {self.rev}: {', '.join(self)}>"


class Control(ControlReadout):
    """One control: `value`, `state`, `schema`; `set`, `step`, `drag`. Reads are always the committed state."""

    def __init__(self, room: Room, control: str):
        self.room = room
        self.id = control

    @property
    def schema(self) -> dict:
        return self.room._room.controls[self.id]

    def ghosts(self) -> dict[str, dict]:
        return self.room._room[self.id].ghosts()

    def set(self, value: Any, thumb: str | None = None) -> dict:
        """Sets the value and returns the committed state once the server acknowledged it."""
        return self.room._call(self.room._room.set(self.id, value, thumb))

    def step(self, by: Any = 1, thumb: str | None = None) -> dict:
        return self.room._call(self.room._room.step(self.id, by, thumb))

    def claim(self) -> None:
        """Only I move this until `release()` (or I leave, or 5 minutes without touching it): others get `Claimed`."""
        self.room._call(self.room._room.claim(self.id))

    def release(self) -> None:
        self.room._call(self.room._room.release(self.id))

    @property
    def claimed_by(self) -> str | None:
        """Who claims the control now (a client id), if anyone."""
        return self.room._room.controls.get(self.id, {}).get("claim")

    def publish(self, value: Any) -> None:
        """At any rate, never waits: see `Room.publish`."""
        self.room.publish(self.id, value)

    def reset(self) -> dict:
        """Back to the schema's initial state (one edit, undoable); returns the committed state."""
        return self.room._call(self.room._room.reset(self.id))

    def drag(self, thumb: str | None = None) -> "Gesture":
        return Gesture(self.room, self.id, thumb)

    def __repr__(self) -> str:
        return f"<{self.type} {self.id}={self.value!r}>"


class Gesture:
    """`with room["gain"].drag() as g: g.move_to(v)` — others see the previews; the end commits once."""

    def __init__(self, room: Room, control: str, thumb: str | None):
        self.room = room

        async def make() -> AsyncGesture:
            return AsyncGesture(room._room, control, thumb)
        self._gesture = room._call(make())

    def __enter__(self) -> "Gesture":
        self.room._call(self._gesture.__aenter__())
        return self

    def move_to(self, *value: Any) -> None:
        """Moves the thumb to `value` (an xy pad: `x, y`); returns at once."""
        async def move() -> None:
            self._gesture.move_to(*value)
        self.room._call(move())

    def __exit__(self, exc_type, exc, tb) -> None:
        self.room._call(self._gesture.__aexit__(exc_type, exc, tb))
