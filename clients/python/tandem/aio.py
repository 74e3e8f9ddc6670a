"""The asyncio client: one room over one WebSocket, kept open.

`AsyncRoom` owns the connection and the room's state. It reconnects with
back-off and `since=`, re-joins after a schema change (close 1012), refreshes
a token from a callable before it expires, and resends every `set` the server
has not acknowledged when a connection drops (a `set` is idempotent: the
same value twice is the same state). Messages that are not idempotent (a
`step`, a gesture) sent on a connection that dropped before their ack fail
with `ConnectionLost` rather than risk applying twice; messages not yet sent
when the connection dropped wait for the next one.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import inspect
import json
import logging
import random
import time
import urllib.parse
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from . import track
from .errors import Closed, ConnectionLost, Rejected, TandemError, rejected

log = logging.getLogger("tandem")

SUBPROTOCOL = "tandem.v1"
# Close codes that reconnecting cannot fix (4401 only when the token is a fixed string).
FATAL_CLOSES = {1003, 1009, 4403, 4404}
TokenSource = None | str | Callable[[], "str | Awaitable[str]"]


@dataclass
class Change:
    """One commit of one control: who made it (`by` client id, `name`) and the new state."""

    control: str
    state: dict
    value: Any
    by: str | None
    name: str | None
    rev: int
    mine: bool = False

    def __repr__(self) -> str:
        who = self.name or self.by or "?"
        return f"Change({self.control}={self.value!r} by {who} rev {self.rev})"


@dataclass
class _Pending:
    message: dict
    future: asyncio.Future
    resend: bool                      # safe to send again after a reconnect (a set, an auth)
    sent_on: int | None = None        # the connection generation it was sent on


def _token_exp(token: str) -> float | None:
    """`exp` of a JWT, read without verifying (the server verifies)."""
    try:
        payload = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        exp = claims.get("exp")
        return float(exp) if isinstance(exp, (int, float)) else None
    except (IndexError, ValueError, AttributeError):
        return None


class AsyncRoom:
    """A room joined over WebSocket. Create with `await tandem.aconnect(url, ...)`."""

    def __init__(self, url: str, name: str | None = None, token: TokenSource = None, *,
                 backoff: tuple[float, float] = (0.1, 5.0), open_timeout: float = 10.0,
                 ack_timeout: float | None = 30.0, move_interval: float = 1 / 60, publish_interval: float = 1 / 50,
                 dispatch: Callable[[Callable, Any], None] | None = None):
        self.url = url
        self.name = name
        self._token_source = token
        self._token: str | None = token if isinstance(token, str) else None
        self.backoff = backoff
        self.open_timeout = open_timeout
        self.ack_timeout = ack_timeout
        self.move_interval = move_interval
        self.publish_interval = publish_interval
        self._dispatch_fn = dispatch
        # Room state, from the welcome and the updates.
        self.id: str = urllib.parse.urlsplit(url).path.rstrip("/").rsplit("/", 1)[-1]
        self.controls: dict[str, dict] = {}
        self.rev = 0
        self.client: str | None = None
        self.role: str | None = None
        self.title: str | None = None
        self.names: dict[str, str] = {}
        self.gestures: dict[tuple[str, str], dict] = {}
        self.presets: list[dict] = []
        self.connections = 0              # how many welcomes so far (1 after connect)
        self.resumed_since: int | None = None  # the last welcome's `since`: None when it was a full one
        # Handlers.
        self._change_handlers: list[tuple[str | None, Callable]] = []
        self._schema_handlers: list[Callable] = []
        # The connection.
        self._ws = None
        self._generation = 0
        self._seq = 0
        self._pending: dict[int, _Pending] = {}
        self._unsent: list[_Pending] = []
        self._connected = asyncio.Event()
        self._runner: asyncio.Task | None = None
        self._refresher: asyncio.Task | None = None
        self._closing = False
        self._failure: Closed | None = None
        self._gestures_live: set = set()
        # publish(): the latest value per control, waiting for its turn, and when each last went out.
        self._published: dict[str, Any] = {}
        self._publish_timers: dict[str, asyncio.TimerHandle] = {}
        self._published_at: dict[str, float] = {}
        self.publish_failures = 0         # published values the server refused (their error is not raised)

    # ------------------------------------------------------------------ public

    def __getitem__(self, control: str) -> "AsyncControl":
        if control not in self.controls:
            raise KeyError(f"no control {control!r} in room {self.id!r} (has {', '.join(self.controls)})")
        return AsyncControl(self, control)

    def __contains__(self, control: str) -> bool:
        return control in self.controls

    def __iter__(self):
        return iter(list(self.controls))

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    @property
    def failure(self) -> Closed | None:
        """The close that ended the room for good (4404 room deleted, 4403, …), else None."""
        return self._failure

    def on_change(self, control: str | None = None):
        """Decorator: `fn(change)` on every commit of `control` (None: of every control), anyone's."""
        if callable(control):       # used bare: @room.on_change
            self._change_handlers.append((None, control))
            return control

        def register(fn):
            self._change_handlers.append((control, fn))
            return fn
        return register

    def on_schema_change(self, fn):
        """Decorator: `fn(room)` after a re-join found a different control list (close 1012)."""
        self._schema_handlers.append(fn)
        return fn

    async def start(self) -> "AsyncRoom":
        """The first connection: its failure is the caller's (a refused connection raises
        `OSError`; a server that closes before the welcome, `Closed` with its code)."""
        try:
            await self._open(since=None)
        except ConnectionClosed as closed:
            code, reason = (closed.rcvd.code, closed.rcvd.reason) if closed.rcvd else (None, "no close frame")
            raise Closed(code, reason) from None
        self._runner = asyncio.get_running_loop().create_task(self._run(), name="tandem-room")
        self._runner.add_done_callback(_log_crash)
        return self

    async def close(self) -> None:
        self._closing = True
        self._fail_all(Closed(1000, "closed by the client"))
        for task in (self._runner, self._refresher):
            if task is not None:
                task.cancel()
        if self._ws is not None:
            with contextlib.suppress(Exception):
                await self._ws.close()
        for task in (self._runner, self._refresher):
            if task is not None:
                with contextlib.suppress(BaseException):
                    await task

    async def __aenter__(self) -> "AsyncRoom":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    async def send(self, message: dict, resend: bool = False, wait: bool = True) -> Any:
        """Sends `message` (a `seq` is added) and, with `wait`, returns once the server acknowledged it;
        a reject raises its typed error. Without `wait`, returns the future."""
        if self._failure is not None:
            raise self._failure
        if self._closing:
            raise Closed(1000, "closed by the client")
        loop = asyncio.get_running_loop()
        pending = _Pending(dict(message), loop.create_future(), resend)
        pending.future.add_done_callback(lambda f: f.cancelled() or f.exception())  # never "unretrieved"
        if self._ws is not None and self._connected.is_set():
            await self._transmit(pending)
        else:
            self._unsent.append(pending)
        if not wait:
            return pending.future
        try:
            return await asyncio.wait_for(asyncio.shield(pending.future), self.ack_timeout)
        except asyncio.TimeoutError:
            self._forget(pending)
            raise TimeoutError(f"no acknowledgement for {message.get('type')} within {self.ack_timeout} s") from None

    async def set(self, control: str, value: Any, thumb: str | None = None) -> dict:
        """Sets a control (or one `thumb`) and returns its committed state once acknowledged."""
        message = {"type": "set", "control": control, "value": value}
        if thumb is not None:
            message["thumb"] = thumb
        await self.send(message, resend=True)
        return self.controls.get(control, {}).get("state")

    async def step(self, control: str, by: Any = 1, thumb: str | None = None) -> dict:
        message = {"type": "step", "control": control, "by": by}
        if thumb is not None:
            message["thumb"] = thumb
        await self.send(message)
        return self.controls.get(control, {}).get("state")

    async def claim(self, control: str) -> None:
        """Claims `control`: until `release` (or this connection leaves, or 5 minutes
        without touching it), everyone else's writes to it raise `Claimed`."""
        await self.send({"type": "claim", "control": control})

    async def release(self, control: str) -> None:
        """Lets my claim of `control` go (an admin's lets anyone's go)."""
        await self.send({"type": "release", "control": control})

    def publish(self, control: str, value: Any) -> None:
        """Publishes `value` (a gauge's, typically) at any rate without waiting:
        the latest value goes out at most every `publish_interval` seconds
        (1/50 s by default), so a training loop may call it at 1 kHz and the
        server gets 50 sets a second, well inside the rate limit, and the
        room's series the curve. Values in between are folded into the next
        (the latest wins), as frames fold commits. Call it on the room's loop
        (the threaded `Room.publish` does); a refused value counts in
        `publish_failures`, and nothing is raised."""
        if self._closing or self._failure is not None:
            raise self._failure or Closed(1000, "closed by the client")
        self._published[control] = value
        if control in self._publish_timers:
            return
        loop = asyncio.get_running_loop()
        wait = self._published_at.get(control, float("-inf")) + self.publish_interval - loop.time()
        self._publish_timers[control] = loop.call_later(max(0.0, wait), self._send_published, control)

    def _send_published(self, control: str) -> None:
        self._publish_timers.pop(control, None)
        if control not in self._published or self._closing:
            return
        loop = asyncio.get_running_loop()
        if self._ws is None or not self._connected.is_set():
            # Disconnected: the latest value waits (it is sent once connected), never a backlog.
            self._publish_timers[control] = loop.call_later(self.publish_interval, self._send_published, control)
            return
        value = self._published.pop(control)
        self._published_at[control] = loop.time()
        loop.create_task(self._publish_now(control, value))

    async def _publish_now(self, control: str, value: Any) -> None:
        try:
            future = await self.send({"type": "set", "control": control, "value": value}, wait=False)
            await asyncio.shield(future)
        except Exception:
            self.publish_failures += 1

    async def reset(self, control: str | None = None) -> dict | None:
        """Puts `control` (None: every control, gauges and buttons aside) back to
        its schema's initial state, as one edit; returns its committed state
        (None for the whole room) once acknowledged."""
        message: dict = {"type": "reset"}
        if control is not None:
            message["control"] = control
        await self.send(message, resend=True)
        return self.controls.get(control, {}).get("state") if control is not None else None

    async def wait_connected(self, timeout: float | None = None) -> None:
        await asyncio.wait_for(self._connected.wait(), timeout)

    # -------------------------------------------------------------- connection

    def _url(self, since: int | None) -> str:
        parts = urllib.parse.urlsplit(self.url)
        query = [(k, v) for k, v in urllib.parse.parse_qsl(parts.query) if k not in ("since", "token")]
        if self.name is not None and not any(k == "name" for k, _ in query):
            query.append(("name", self.name))
        if self._token:
            query.append(("token", self._token))
        if since is not None:
            query.append(("since", str(since)))
        return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))

    async def _fresh_token(self) -> None:
        if callable(self._token_source):
            token = self._token_source()
            if inspect.isawaitable(token):
                token = await token
            self._token = token

    async def _open(self, since: int | None) -> None:
        """One connection up to its welcome. Raises Closed for a close that retrying cannot fix."""
        await self._fresh_token()
        ws = await ws_connect(self._url(since), subprotocols=[SUBPROTOCOL], open_timeout=self.open_timeout,
                              max_size=2 ** 24, ping_interval=20, ping_timeout=20)
        try:
            raw = await asyncio.wait_for(ws.recv(), self.open_timeout)
        except ConnectionClosed as closed:
            code, reason = (closed.rcvd.code, closed.rcvd.reason) if closed.rcvd else (None, "")
            if code in FATAL_CLOSES or (code == 4401 and not callable(self._token_source)):
                raise Closed(code, reason) from None
            raise
        except BaseException:
            await ws.close()
            raise
        frame = json.loads(raw)
        if frame.get("type") != "welcome":
            await ws.close()
            raise TandemError(f"the first frame is not a welcome: {raw[:200]}")
        self._ws = ws
        self._generation += 1
        self._welcome(frame)
        self._connected.set()
        await self._after_reconnect()
        if callable(self._token_source) and self._token:
            if self._refresher is not None:
                self._refresher.cancel()
            self._refresher = asyncio.get_running_loop().create_task(self._refresh(self._generation))

    async def _after_reconnect(self) -> None:
        """Unacknowledged sets go again; unsafe messages sent on a dead connection fail; unsent ones go now."""
        old = sorted(self._pending.items())
        self._pending.clear()
        again: list[_Pending] = []
        for _, pending in old:
            if pending.resend:
                again.append(pending)
            elif not pending.future.done():
                pending.future.set_exception(ConnectionLost(
                    f"the connection dropped before the server acknowledged {pending.message.get('type')}"))
        again += self._unsent
        self._unsent = []
        for pending in again:
            if not pending.future.done():
                await self._transmit(pending)

    async def _transmit(self, pending: _Pending) -> None:
        self._seq += 1
        pending.message["seq"] = self._seq
        pending.sent_on = self._generation
        self._pending[self._seq] = pending
        try:
            await self._ws.send(json.dumps(pending.message))
        except ConnectionClosed:
            pass  # stays pending: the reconnect decides

    def _forget(self, pending: _Pending) -> None:
        for seq, entry in list(self._pending.items()):
            if entry is pending:
                del self._pending[seq]
        if pending in self._unsent:
            self._unsent.remove(pending)

    async def _run(self) -> None:
        while not self._closing:
            code, reason = None, ""
            try:
                async for raw in self._ws:
                    self._frame(json.loads(raw))
            except ConnectionClosed:
                pass
            except Exception:  # a frame we could not read must not end the room
                log.exception("tandem: dropping the connection after a bad frame")
                with contextlib.suppress(Exception):
                    await self._ws.close(1002)
            if self._closing:
                return
            received = self._ws.protocol.close_rcvd
            if received is not None:
                code, reason = received.code, received.reason
            self._connected.clear()
            self._drop_gestures()
            if code in FATAL_CLOSES or (code == 4401 and not callable(self._token_source)):
                self._fail_all(Closed(code, reason))
                return
            log.info("tandem: connection closed (%s %s); reconnecting", code, reason)
            if not await self._reconnect(code):
                return

    async def _reconnect(self, code: int | None) -> bool:
        """Back-off until a welcome; 1012 (schema changed) re-joins at once with a full welcome."""
        low, high = self.backoff
        delay = low
        if code in (1008, 1013):
            delay = max(delay, 1.0)
        first = True
        while not self._closing:
            if not (first and code == 1012):
                await asyncio.sleep(delay * random.uniform(0.5, 1.0))
                delay = min(high, delay * 2)
            first = False
            try:
                await self._open(since=None if code == 1012 else self.rev)
                return True
            except Closed as closed:
                self._fail_all(closed)
                return False
            except InvalidStatus as error:
                status = error.response.status_code
                if 400 <= status < 500 and status not in (408, 421, 429):
                    self._fail_all(Closed(status, f"handshake refused: HTTP {status}"))
                    return False
            except (OSError, InvalidHandshake, ConnectionClosed, asyncio.TimeoutError, TandemError) as error:
                log.debug("tandem: reconnect failed: %r", error)
        return False

    def _fail_all(self, error: Closed) -> None:
        if error.code != 1000:
            self._failure = error
        for pending in list(self._pending.values()) + self._unsent:
            if not pending.future.done():
                pending.future.set_exception(error)
        self._pending.clear()
        self._unsent = []

    async def _refresh(self, generation: int) -> None:
        """Asks the token callable again before the token expires and sends it as an `auth` message."""
        while not self._closing and generation == self._generation:
            exp = _token_exp(self._token or "")
            if exp is None:
                return
            await asyncio.sleep(max(0.2, (exp - time.time()) * 0.7))
            if generation != self._generation or not self._connected.is_set():
                return
            try:
                await self._fresh_token()
                await self.send({"type": "auth", "token": self._token}, resend=False)
            except Rejected as error:
                log.warning("tandem: token refresh refused: %s", error)
            except (ConnectionLost, Closed, TimeoutError):
                return
            except Exception:
                log.exception("tandem: the token provider failed")

    # ------------------------------------------------------------------ frames

    def _welcome(self, frame: dict) -> None:
        first = self.connections == 0
        self.connections += 1
        self.client = frame.get("client")
        self.resumed_since = frame.get("since")
        self.role = frame.get("role")
        self.title = frame.get("title", self.title)
        for peer in frame.get("peers") or []:
            self.names[peer["client"]] = peer.get("name")
        before = self.controls
        listed = {c["id"]: c for c in frame.get("controls") or []}
        if "since" in frame:
            # Kept as they were, but claimed by nobody: the server lists every control someone claims.
            controls = {cid: {k: v for k, v in c.items() if k != "claim"} for cid, c in before.items()}
            controls.update(listed)
        else:
            controls = listed
        schema_changed = not first and (
            list(controls) != list(before)
            or any(_schema(controls[c]) != _schema(before[c]) for c in controls if c in before))
        self.controls = controls
        self.rev = frame.get("rev", 0)
        self.gestures = {(g["control"], g["thumb"]): g for g in frame.get("gestures") or []
                         if g.get("phase") not in ("end", "cancel")}
        if first:
            return
        # What happened while away: each control whose revision moved is a change.
        for cid, control in controls.items():
            old = before.get(cid)
            if old is None or control.get("rev", 0) > old.get("rev", 0) or (
                    "since" not in frame and old.get("state") != control.get("state")):
                self._emit(cid, control, control.get("by"), control.get("rev", self.rev))
        if schema_changed:
            for fn in self._schema_handlers:
                self._dispatch(fn, self)

    def _frame(self, frame: dict) -> None:
        kind = frame.get("type")
        if kind == "update":
            self._update(frame)
        elif kind == "reject":
            seq = frame.get("seq")
            pending = self._pending.pop(seq, None) if isinstance(seq, int) else None
            error = rejected(frame, self.names.get(frame.get("holder", "")))
            if pending is not None and not pending.future.done():
                pending.future.set_exception(error)
            else:
                log.warning("tandem: %s", error)
        elif kind == "presets":
            self.presets = frame.get("presets") or []

    def _update(self, frame: dict) -> None:
        for peer in frame.get("joined") or []:
            self.names[peer["client"]] = peer.get("name")
        if isinstance(frame.get("rev"), int):
            self.rev = max(self.rev, frame["rev"])
        for change in frame.get("changes") or []:
            cid = change.get("control")
            control = self.controls.get(cid)
            if control is None:
                continue
            # A claim taken or let go is a change at the same revision: not a commit to tell handlers of.
            claim_only = change.get("rev") == control.get("rev") and change.get("state") == control.get("state")
            if change.get("claim") is not None:
                control["claim"] = change["claim"]
            else:
                control.pop("claim", None)
            if claim_only:
                continue
            control["state"] = change.get("state", control.get("state"))
            control["rev"] = change.get("rev", control.get("rev"))
            control["by"] = change.get("by")
            self._emit(cid, control, change.get("by"), change.get("rev", self.rev))
        for gesture in frame.get("gestures") or []:
            key = (gesture.get("control"), gesture.get("thumb"))
            if gesture.get("phase") in ("end", "cancel"):
                self.gestures.pop(key, None)
            else:
                self.gestures[key] = gesture
        ack = frame.get("ack")
        if isinstance(ack, int):
            for seq in sorted(self._pending):
                if seq > ack:
                    break
                pending = self._pending.pop(seq)
                if not pending.future.done():
                    pending.future.set_result(None)

    def _emit(self, cid: str, control: dict, by: str | None, rev: int) -> None:
        handlers = [fn for want, fn in self._change_handlers if want is None or want == cid]
        if not handlers:
            return
        change = Change(cid, dict(control.get("state") or {}), track.value_of(control), by,
                        self.names.get(by) if by else None, rev, mine=by is not None and by == self.client)
        for fn in handlers:
            self._dispatch(fn, change)

    def _dispatch(self, fn: Callable, arg: Any) -> None:
        if self._dispatch_fn is not None:
            self._dispatch_fn(fn, arg)
            return
        try:
            result = fn(arg)
            if inspect.isawaitable(result):
                asyncio.ensure_future(result)
        except Exception:
            log.exception("tandem: a handler failed")

    def _drop_gestures(self) -> None:
        self.gestures = {}
        for gesture in list(self._gestures_live):
            gesture._lost = True


def _log_crash(task: asyncio.Task) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("tandem: the connection task failed", exc_info=task.exception())


def _schema(control: dict) -> dict:
    return {k: v for k, v in control.items() if k not in ("state", "rev", "by")}


class ControlReadout:
    """What a control shows, derived from its `schema` (the welcome's entry,
    kept current by every commit): shared by the async and blocking controls."""

    schema: dict

    @property
    def type(self) -> str:
        return self.schema["type"]

    @property
    def state(self) -> dict:
        return dict(self.schema.get("state") or {})

    @property
    def value(self) -> Any:
        return track.value_of(self.schema)

    @property
    def rev(self) -> int:
        return self.schema.get("rev", 0)

    @property
    def thumbs(self) -> list[str]:
        return track.thumbs(self.schema)


class AsyncControl(ControlReadout):
    """One control of an `AsyncRoom`: its schema, state and value, and the calls that change it."""

    def __init__(self, room: AsyncRoom, control: str):
        self.room = room
        self.id = control

    @property
    def schema(self) -> dict:
        return self.room.controls[self.id]

    async def set(self, value: Any, thumb: str | None = None) -> dict:
        return await self.room.set(self.id, value, thumb)

    async def step(self, by: Any = 1, thumb: str | None = None) -> dict:
        return await self.room.step(self.id, by, thumb)

    async def reset(self) -> dict:
        """Back to the schema's initial state (one edit, undoable)."""
        return await self.room.reset(self.id)

    async def claim(self) -> None:
        await self.room.claim(self.id)

    async def release(self) -> None:
        await self.room.release(self.id)

    @property
    def claimed_by(self) -> str | None:
        """Who claims the control now (a client id), if anyone."""
        return self.room.controls.get(self.id, {}).get("claim")

    def publish(self, value: Any) -> None:
        """`AsyncRoom.publish` of this control: at any rate, never waits."""
        self.room.publish(self.id, value)

    def drag(self, thumb: str | None = None) -> "AsyncGesture":
        return AsyncGesture(self.room, self.id, thumb)

    def ghosts(self) -> dict[str, dict]:
        """Other people's live gestures on this control: thumb → the gesture entry (`by`, `state`)."""
        return {thumb: g for (cid, thumb), g in self.room.gestures.items() if cid == self.id}

    def __repr__(self) -> str:
        return f"<{self.type} {self.id}={self.value!r}>"


class AsyncGesture:
    """`async with room["gain"].drag() as g: g.move_to(0.7)` — previews, then one commit at the end.

    `move_to(value)` (an xy pad: `move_to(x, y)`) never blocks: moves are sent at
    most every `move_interval` s, the latest one winning; the `end` carries the
    last position, so the commit is where the gesture stopped. A still gesture is
    kept alive (a keep-alive `move` every 5 s). Leaving the block by an
    exception cancels the gesture: the committed value stays as it was.
    """

    KEEPALIVE = 5.0

    def __init__(self, room: AsyncRoom, control: str, thumb: str | None):
        self.room = room
        self.control = control
        schema = room.controls[control]
        thumbs = track.thumbs(schema)
        if thumb is None:
            if len(thumbs) != 1:
                raise ValueError(f"{control} has thumbs {thumbs}: say which, drag(thumb=...)")
            thumb = thumbs[0]
        self.thumb = thumb
        self._at: Any = None
        self._sent_at: Any = None
        self._last_send = 0.0
        self._flush_handle: asyncio.TimerHandle | None = None
        self._keepalive: asyncio.Task | None = None
        self._moves: list[asyncio.Future] = []
        self._lost = False

    def _message(self, phase: str, at: Any = None) -> dict:
        message = {"type": "drag", "control": self.control, "thumb": self.thumb, "phase": phase}
        if at is not None:
            message["at"] = at
        return message

    async def __aenter__(self) -> "AsyncGesture":
        await self.room.send(self._message("begin"))
        self._last_send = time.monotonic()
        self.room._gestures_live.add(self)
        self._keepalive = asyncio.get_running_loop().create_task(self._keep_alive())
        return self

    def move_to(self, *value: Any) -> None:
        if self._lost:
            raise ConnectionLost("the connection dropped during the gesture; it was cancelled")
        self._raise_failed_move()
        schema = self.room.controls[self.control]
        self._at = track.position(schema, self.thumb, value if len(value) > 1 else value[0])
        if self._flush_handle is None:
            wait = max(0.0, self._last_send + self.room.move_interval - time.monotonic())
            self._flush_handle = asyncio.get_running_loop().call_later(wait, self._flush)

    def _flush(self) -> None:
        self._flush_handle = None
        if self._at != self._sent_at and not self._lost:
            self._sent_at = self._at
            self._last_send = time.monotonic()
            asyncio.ensure_future(self._send_move(self._message("move", self._at)))

    async def _send_move(self, message: dict) -> None:
        with contextlib.suppress(TandemError):
            self._moves.append(await self.room.send(message, wait=False))

    async def _keep_alive(self) -> None:
        while True:
            await asyncio.sleep(self.KEEPALIVE / 2)
            if time.monotonic() - self._last_send >= self.KEEPALIVE and not self._lost:
                self._last_send = time.monotonic()
                await self._send_move(self._message("move"))

    def _raise_failed_move(self) -> None:
        for future in self._moves:
            if future.done() and not future.cancelled() and isinstance(future.exception(), Rejected):
                raise future.exception()

    async def __aexit__(self, exc_type, exc, tb) -> None:
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        if self._keepalive is not None:
            self._keepalive.cancel()
        self.room._gestures_live.discard(self)
        if self._lost:
            if exc_type is None:
                raise ConnectionLost("the connection dropped during the gesture; it was cancelled")
            return
        if exc_type is not None:
            with contextlib.suppress(TandemError, TimeoutError):
                await self.room.send(self._message("cancel"))
            return
        await self.room.send(self._message("end", self._at))
        self._raise_failed_move()
