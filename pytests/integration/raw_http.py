"""Raw HTTP over a bare socket, for requests urllib will not send: a chosen or
missing Host, repeated headers, chunked or trickled bodies, lying lengths.
Also a way to start a server bound to a non-loopback address of this machine.
"""

from __future__ import annotations

import re
import socket
import subprocess
import time
from dataclasses import dataclass, field

from helpers import WAIT


@dataclass
class RawResponse:
    status: int | None
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    closed: bool = False
    """Whether the server closed the connection after the answer."""
    elapsed: float = 0.0

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())


def _parse(data: bytes) -> tuple[int | None, dict[str, str], bytes]:
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    match = re.match(r"HTTP/1\.[01] (\d{3})", lines[0]) if lines and lines[0] else None
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return (int(match.group(1)) if match else None), headers, body


def send(port: int, data: bytes, address: str = "127.0.0.1", timeout: float = WAIT,
         source: str | None = None, head_only: bool = False) -> RawResponse:
    """Sends `data` and reads one answer: until its Content-Length is in (an
    answer without a body, or to a HEAD when `head_only`: until its head is
    in), the server closes, or `timeout` passes (a bound only a hang reaches:
    an answer that is complete ends the wait)."""
    sock = socket.create_connection((address, port), timeout=timeout, source_address=(source, 0) if source else None)
    start = time.monotonic()
    try:
        sock.sendall(data)
        return read_answer(sock, start, timeout, head_only=head_only)
    finally:
        sock.close()


def read_answer(sock: socket.socket, start: float, timeout: float, head_only: bool = False) -> RawResponse:
    received = b""
    closed = False
    deadline = start + timeout
    while time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            break
        except ConnectionResetError:
            closed = True
            break
        if not chunk:
            closed = True
            break
        received += chunk
        status, headers, body = _parse(received)
        if b"\r\n\r\n" in received and (head_only or status in (101, 204, 304)) \
                and headers.get("connection", "").lower() != "close":
            break  # an answer without a body (after a 101, what follows is WebSocket frames)
        if status is not None and b"\r\n\r\n" in received and "content-length" in headers \
                and len(body) >= int(headers["content-length"]) and headers.get("connection", "").lower() != "close":
            break
    status, headers, body = _parse(received)
    return RawResponse(status, headers, body, closed, time.monotonic() - start)


def request(port: int, method: str, path: str, headers: dict[str, str] | list[tuple[str, str]] | None = None,
            body: bytes = b"", host: str | None = "default", address: str = "127.0.0.1", timeout: float = WAIT) -> RawResponse:
    """One HTTP/1.1 request. `host`: the Host header ("default": address:port; None: none)."""
    items = list(headers.items()) if isinstance(headers, dict) else list(headers or [])
    lines = [f"{method} {path} HTTP/1.1"]
    if host == "default":
        host = f"{address}:{port}"
    if host is not None:
        lines.append(f"Host: {host}")
    lines += [f"{name}: {value}" for name, value in items]
    if body and not any(name.lower() in ("content-length", "transfer-encoding") for name, _ in items):
        lines.append(f"Content-Length: {len(body)}")
    return send(port, ("\r\n".join(lines) + "\r\n\r\n").encode() + body, address=address, timeout=timeout,
                head_only=method == "HEAD")


def upgrade(port: int, path: str = "/rooms/demo", host: str | None = "default", origin: str | None = None,
            address: str = "127.0.0.1") -> RawResponse:
    """A WebSocket handshake; the answer's status (101 when upgraded)."""
    headers = [("Upgrade", "websocket"), ("Connection", "Upgrade"),
               ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="), ("Sec-WebSocket-Version", "13"),
               ("Sec-WebSocket-Protocol", "tandem.v1")]
    if origin is not None:
        headers.append(("Origin", origin))
    return request(port, "GET", path, headers, host=host, address=address)


def chunked(body: bytes, size: int = 16) -> bytes:
    """`body` in chunks of `size` bytes, with the last chunk."""
    out = b""
    for i in range(0, len(body), size):
        piece = body[i:i + size]
        out += b"%x\r\n" % len(piece) + piece + b"\r\n"
    return out + b"0\r\n\r\n"


def non_loopback_address() -> str | None:
    """An IPv4 address of this machine that is not loopback, or None."""
    try:
        out = subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=WAIT).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    for address in out.split():
        if re.fullmatch(r"\d+\.\d+\.\d+\.\d+", address) and not address.startswith("127."):
            return address
    return None
