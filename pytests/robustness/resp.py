"""A tiny asyncio RESP2 client, for reading what a cluster stored in Redis
(the robustness workload's final log). Every call has a deadline.

    async with await Resp.connect("10.77.0.21", 6379) as redis:
        entries = await redis.command("XRANGE", "tandem:{rb1}:log", "-", "+", "COUNT", "1000")

Replies: simple strings and bulk strings as `str` (bulk strings decoded as
UTF-8, bad bytes replaced), integers as `int`, arrays as lists (nested), nil
as None; an error reply raises `RespError`.
"""

from __future__ import annotations

import asyncio
from typing import Any


class RespError(RuntimeError):
    """An error reply from Redis (`-ERR ...`)."""


class Resp:
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
        line = await self._reader.readline()
        if not line.endswith(b"\r\n"):
            raise ConnectionError("redis closed the connection")
        kind, rest = line[:1], line[1:-2]
        if kind == b"+":
            return rest.decode("utf-8", "replace")
        if kind == b"-":
            raise RespError(rest.decode("utf-8", "replace"))
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            data = await self._reader.readexactly(n + 2)
            return data[:-2].decode("utf-8", "replace")
        if kind == b"*":
            n = int(rest)
            if n < 0:
                return None
            return [await self._read() for _ in range(n)]
        raise RespError(f"unexpected reply {line[:80]!r}")


def encode(*args: str | int | bytes) -> bytes:
    """A command as a RESP array of bulk strings."""
    parts = [b"*%d\r\n" % len(args)]
    for arg in args:
        data = arg if isinstance(arg, bytes) else str(arg).encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(parts)


def pairs(flat: list[Any] | None) -> dict[str, Any]:
    """A flat [field, value, field, value...] reply (HGETALL, a stream entry's fields) as a dict."""
    flat = flat or []
    return dict(zip(flat[::2], flat[1::2]))
