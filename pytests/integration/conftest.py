"""Fixtures for Tandem's integration tests against the real `tandem` binary.

- `tandem_binary`: the built server (`swift build --product tandem`), copied
  once per session so that a rebuild by someone else mid-run changes nothing.
  `TANDEM_BINARY` overrides the path.
- `start_server(*flags)`: starts `tandem --port 0 *flags`, waits for the start
  line, and at teardown stops it with SIGTERM and asserts it exited 0 (within
  helpers.WAIT s, a bound only a hang reaches).
- `server`: `start_server()` with no flags, one per test.
- `readonly_server`: one server per module, for tests that only read.
- `connect(server, name=...)`: a `Client` (helpers.py) that has read its welcome.
- `join(node, name, room="demo", **query)`: a `Client` on a node some other
  fixture started (a cluster's, Sentinel's); `query` goes in the URL (`since`).
- `open_ws(url, ...)`: a bare websockets connection, for handshakes and closes.
All connections are closed at teardown, before their server is stopped.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from helpers import ROOT, WAIT, Client, TandemServer, copy_binary, open_websocket  # noqa: E402

DEFAULT_BINARY = ROOT / ".build" / "debug" / "tandem"


def _build() -> bool:
    try:
        result = subprocess.run(["swift", "build", "--product", "tandem"], cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=900)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return result.returncode == 0


@pytest.fixture(scope="session")
def tandem_binary(tmp_path_factory) -> Path:
    """The server binary, copied aside. When it is missing (being rebuilt), waits and builds it."""
    source = Path(os.environ.get("TANDEM_BINARY", DEFAULT_BINARY))

    def usable() -> bool:
        return source.is_file() and os.access(source, os.X_OK)

    if "TANDEM_BINARY" in os.environ and not usable():
        pytest.fail(f"TANDEM_BINARY={source} is not an executable file")
    for pause in (20, 60, 60):
        if usable():
            break
        # Someone may be rebuilding: give them a moment, then build it ourselves.
        time.sleep(pause)
        if not usable():
            _build()
    if not usable():
        pytest.fail(f"{source} is missing and `swift build --product tandem` did not make it")
    copy = copy_binary(source, tmp_path_factory.mktemp("bin"), "tandem")
    if copy is None:
        pytest.fail(f"cannot copy {source}")
    return copy


def _stop_and_check(server: TandemServer, problems: list[str]) -> None:
    if server.running():
        rc = server.stop(signal.SIGTERM, timeout=WAIT)
        if rc != 0:
            problems.append(f"server on port {server.port} exited {rc} on SIGTERM (None: not within {WAIT} s)\n"
                            + "\n".join(server.stderr_lines[-20:]))
    else:
        rc = server.proc.returncode
        if rc != 0:
            problems.append(f"server on port {server.port} had exited {rc}\n" + "\n".join(server.stderr_lines[-20:]))


def stop_running(servers: list[TandemServer]) -> None:
    """Stops every server of `servers` still running (SIGTERM, exit 0 expected);
    those a test killed are left out. Fails naming each that did not exit 0."""
    problems: list[str] = []
    for server in servers:
        if server.running():
            _stop_and_check(server, problems)
    assert not problems, "\n\n".join(problems)


# TANDEM_TEST_CLUSTER=1: every server a test starts with no storage flags is
# the second node of a two-node cluster on a Redis of its own, and the demo
# room is owned by the first node, so that the test's members talk to the
# room's owner through the relay (docs/scale-out.md; `make test-cluster-protocol`).
CLUSTER_MODE = os.environ.get("TANDEM_TEST_CLUSTER") == "1"


@pytest.fixture
def start_server(tandem_binary, tmp_path_factory):
    """Factory: `start_server(*flags)` starts a server; every one is stopped (SIGTERM, exit 0) at teardown."""
    servers: list[TandemServer] = []
    redises = []

    def start(*flags: str) -> TandemServer:
        if CLUSTER_MODE and "--data" not in flags:
            from cluster import RedisServer
            redis = RedisServer(tmp_path_factory.mktemp("redis"))
            redises.append(redis)
            owner = TandemServer(tandem_binary, [*flags, "--redis", redis.url, "--node-id", "owner"])
            servers.append(owner)
            try:
                with open_websocket(owner.ws_url("demo")) as ws:
                    ws.recv(timeout=WAIT)  # the welcome: the owner now holds the demo room's lease (for 30 s with nobody in it)
            except Exception:
                pass  # auth on: no token here, so whichever node gets the first member owns the room
            server = TandemServer(tandem_binary, [*flags, "--redis", redis.url, "--node-id", "edge"])
        else:
            server = TandemServer(tandem_binary, flags)
        servers.append(server)
        return server

    yield start
    problems: list[str] = []
    for server in reversed(servers):
        _stop_and_check(server, problems)
    for redis in redises:
        redis.stop()
    assert not problems, "\n\n".join(problems)


@pytest.fixture
def server(start_server) -> TandemServer:
    return start_server()


@pytest.fixture(scope="module")
def readonly_server(tandem_binary):
    """One server for a module whose tests only read from it."""
    server = TandemServer(tandem_binary)
    yield server
    problems: list[str] = []
    _stop_and_check(server, problems)
    assert not problems, "\n\n".join(problems)


@pytest.fixture
def open_ws(start_server):
    """Factory: a websockets sync connection (offering tandem.v1 unless told otherwise), closed at teardown."""
    with contextlib.ExitStack() as stack:

        def open_(url: str, **kwargs):
            return stack.enter_context(open_websocket(url, **kwargs))

        yield open_


@pytest.fixture
def connect(open_ws):
    """Factory: `connect(server, name="Ann", **websockets kwargs)` → a Client that has its welcome."""

    def connect_(server: TandemServer, name: str | None = None, room: str = "demo", **kwargs) -> Client:
        query = {"name": name} if name is not None else {}
        return Client(open_ws(server.ws_url(room, **query), **kwargs))

    return connect_


@pytest.fixture
def join():
    """Factory: `join(node, name, room="demo", **query)` → a Client on `node`'s `room`
    that has its welcome, `query` added to the URL (`since=...`); closed at teardown.
    For nodes another fixture starts (`cluster`, Sentinel's `nodes`): request `join`
    after that fixture, so that its members are closed before the nodes stop."""
    opened = []

    def join_(node: TandemServer, name: str, room: str = "demo", **query: str) -> Client:
        ws = open_websocket(node.ws_url(room, name=name, **query)).__enter__()
        opened.append(ws)
        return Client(ws)

    yield join_
    for ws in opened:
        try:
            ws.close()
        except Exception:
            pass


@pytest.fixture
def sockets_to_close():
    """Raw sockets a test opens; closed at teardown, whatever they became."""
    opened: list = []
    yield opened
    for sock in opened:
        with contextlib.suppress(Exception):
            sock.close()
