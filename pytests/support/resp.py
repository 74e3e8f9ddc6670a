"""Redis over RESP2, for the tests' own reads and checks (a lease, a role, the
commit log): one command on a fresh connection (`redis_command`), or an asyncio
client (`Resp`) that keeps its connection. Every call has a deadline.

    redis_command("127.0.0.1", 6379, "GET", "tandem:{demo}:lease")
    async with await Resp.connect("10.77.0.21", 6379) as redis:
        entries = await redis.command("XRANGE", "tandem:{rb1}:log", "-", "+", "COUNT", "1000")

Replies: simple strings and bulk strings as `str` (decoded as UTF-8, bad bytes
replaced), integers as `int`, arrays as lists (nested), nil as None; an error
reply raises `RespError`, a connection that closes mid-reply ConnectionError.
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any, BinaryIO

# What a reply's first line leaves to read: nothing, a bulk string's bytes, an array's elements.
_DONE, _BULK, _ARRAY = "done", "bulk", "array"


class RespError(RuntimeError):
    """An error reply from Redis (`-ERR ...`), or a reply that is not RESP2."""


def encode(*args: str | int | bytes) -> bytes:
    """A command as a RESP array of bulk strings."""
    parts = [b"*%d\r\n" % len(args)]
    for arg in args:
        data = arg if isinstance(arg, bytes) else str(arg).encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(parts)


def _head(line: bytes) -> tuple[str, Any]:
    """A reply's first line: (_DONE, value) for a whole reply, else (_BULK or _ARRAY, its length)."""
    if not line.endswith(b"\r\n"):
        raise ConnectionError("redis closed the connection")
    kind, rest = line[:1], line[1:-2]
    if kind == b"+":
        return _DONE, rest.decode("utf-8", "replace")
    if kind == b"-":
        raise RespError(rest.decode("utf-8", "replace"))
    if kind == b":":
        return _DONE, int(rest)
    if kind in (b"$", b"*"):
        n = int(rest)
        if n < 0:
            return _DONE, None
        return (_BULK if kind == b"$" else _ARRAY), n
    raise RespError(f"unexpected reply {line[:80]!r}")


def _bulk(data: bytes, n: int) -> str:
    if len(data) < n + 2:
        raise ConnectionError("redis closed the connection")
    return data[:-2].decode("utf-8", "replace")


def read_reply(reader: BinaryIO) -> Any:
    """One reply from a blocking binary reader (`socket.makefile("rb")`)."""
    kind, value = _head(reader.readline())
    if kind == _BULK:
        return _bulk(reader.read(value + 2), value)
    if kind == _ARRAY:
        return [read_reply(reader) for _ in range(value)]
    return value


def redis_command(host: str, port: int, *args: str | int | bytes, timeout: float = 2.0) -> Any:
    """One command on a connection of its own, closed after the reply; `timeout` bounds
    the connect and each read."""
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.settimeout(timeout)
        sock.sendall(encode(*args))
        with sock.makefile("rb") as reader:
            return read_reply(reader)


class Resp:
    """An asyncio connection to Redis; each command bounded by `timeout` s."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, timeout: float):
        self._reader = reader
        self._writer = writer
        self.timeout = timeout

    @classmethod
    async def connect(cls, host: str, port: int, timeout: float = 5.0) -> "Resp":
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port, limit=1 << 24), timeout)
        return cls(reader, writer, timeout)

    async def __aenter__(self) -> "Resp":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        self._writer.close()
        try:
            await asyncio.wait_for(self._writer.wait_closed(), 1.0)
        except (OSError, asyncio.TimeoutError):
            pass

    async def command(self, *args: str | int | bytes) -> Any:
        self._writer.write(encode(*args))
        await asyncio.wait_for(self._writer.drain(), self.timeout)
        return await asyncio.wait_for(self._read(), self.timeout)

    async def _read(self) -> Any:
        kind, value = _head(await self._reader.readline())
        if kind == _BULK:
            return _bulk(await self._reader.readexactly(value + 2), value)
        if kind == _ARRAY:
            return [await self._read() for _ in range(value)]
        return value


def pairs(flat: list[Any] | None) -> dict[str, Any]:
    """A flat [field, value, field, value...] reply (HGETALL, a stream entry's fields) as a dict."""
    flat = flat or []
    return dict(zip(flat[::2], flat[1::2]))
