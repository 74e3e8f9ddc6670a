"""Fixtures: the real `tandem` server, started per test on a free port exactly as
the repository's integration tests start it (pytests/integration/helpers.py).

`TANDEM_BINARY` overrides the server binary (default: the repository's
`.build/debug/tandem`; run `swift build` first).
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "pytests" / "integration"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from helpers import Client, TandemServer, copy_binary, open_websocket  # noqa: E402


@pytest.fixture(scope="session")
def tandem_binary(tmp_path_factory) -> Path:
    source = Path(os.environ.get("TANDEM_BINARY", ROOT / ".build" / "debug" / "tandem"))
    if not (source.is_file() and os.access(source, os.X_OK)):
        pytest.fail(f"{source} is missing: run `swift build` at the repository root first")
    copy = copy_binary(source, tmp_path_factory.mktemp("bin"), "tandem")
    assert copy is not None, f"cannot copy {source}"
    return copy


@pytest.fixture
def start_server(tandem_binary):
    """Factory: `start_server(*flags)`; each is stopped with SIGTERM at teardown and must exit 0."""
    servers: list[TandemServer] = []

    def start(*flags: str) -> TandemServer:
        server = TandemServer(tandem_binary, flags, cwd=ROOT)
        servers.append(server)
        return server

    yield start
    problems = []
    for server in servers:
        if server.running():
            rc = server.stop(signal.SIGTERM)  # waits up to helpers.WAIT
            if rc != 0:
                problems.append(f"server on port {server.port} exited {rc}\n" + "\n".join(server.stderr_lines[-20:]))
    assert not problems, "\n\n".join(problems)


@pytest.fixture
def server(start_server) -> TandemServer:
    return start_server()


@pytest.fixture
def rooms():
    """`rooms.add(room)`: every tandem Room (or raw Client) opened by a test is closed at teardown."""
    class Rooms(list):
        def add(self, room):
            self.append(room)
            return room
    opened = Rooms()
    yield opened
    for room in reversed(opened):
        try:
            room.close()
        except Exception:
            pass


@pytest.fixture
def peer(rooms):
    """`peer(server, name, room="demo", **query)`: a raw tandem.v1 connection (helpers.Client), as another person."""
    def open_(server: TandemServer, name: str, room: str = "demo", **query: str) -> Client:
        ws = open_websocket(server.ws_url(room, name=name, **query)).__enter__()
        return rooms.add(Client(ws))
    return open_
