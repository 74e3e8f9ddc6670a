"""`make cluster` (scripts/cluster.py) and the HAProxy configs (deploy/haproxy.cfg, and
the one cluster.py writes): Redis, tandem nodes and HAProxy on this machine.

The configs are checked by `haproxy -c`. The cluster itself runs with two nodes of
the debug binary on free ports: /healthz, the page and the API through HAProxy, a
room's members landing on one node (the node is the prefix of a client id,
`n1.abcd.c3`), and SIGTERM stopping every process. Those need a tandem with
cluster mode (`--redis`): against an older one they skip, saying so.
"""

from __future__ import annotations

import contextlib
import importlib.util
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import ROOT, START_WAIT, WAIT, Client, http_request, open_websocket
from pytests.support import Lines, free_port_run, stop

SCRIPT = ROOT / "scripts" / "cluster.py"
COMPOSE_CONFIG = ROOT / "deploy" / "haproxy.cfg"

needs_haproxy = pytest.mark.skipif(shutil.which("haproxy") is None, reason="haproxy is installed by make test-deps")
needs_cluster_tools = pytest.mark.skipif(shutil.which("haproxy") is None or shutil.which("redis-server") is None,
                                         reason="redis-server and haproxy are installed by make test-deps")


def cluster_script():
    spec = importlib.util.spec_from_file_location("tandem_cluster_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def haproxy_check(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["haproxy", "-c", "-f", str(path)], capture_output=True, text=True, timeout=30)


def section(text: str, header: str) -> list[str]:
    """The lines of one section (`defaults`, `backend NAME`...) of an HAProxy config, comments and blanks left out."""
    lines, inside = [], False
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if not line:
            continue
        if not line[0].isspace():
            inside = line.strip() == header
        elif inside:
            lines.append(" ".join(line.split()))
    return lines


def fake_tandem(tmp_path: Path, help_text: str) -> Path:
    """A stand-in binary whose --help prints `help_text` (for the checks before anything starts)."""
    path = tmp_path / "fake-tandem"
    path.write_text(f"#!/bin/sh\ncat <<'EOF'\n{help_text}\nEOF\n")
    path.chmod(0o755)
    return path


def run_script(*args: str, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=timeout)


def refused_stderr(binary: Path, data: Path, port: int | None = None) -> str:
    """Runs the script for two nodes from `port` (default: the start of three free ports), which must
    exit 1 before the cluster starts; returns what it wrote to stderr."""
    port = free_port_run(3) if port is None else port
    result = run_script("--nodes", "2", "--port", str(port), "--binary", str(binary), "--data", str(data))
    assert result.returncode == 1
    return result.stderr


# --------------------------------------------------------------------------
# The configs
# --------------------------------------------------------------------------


@needs_haproxy
def test_the_generated_config_is_valid(tmp_path):
    config = tmp_path / "haproxy.cfg"
    config.write_text(cluster_script().haproxy_config([("n1", 18081), ("n2", 18082), ("n3", 18083)],
                                                      "127.0.0.1", 18080, tmp_path / "haproxy.sock"))
    result = haproxy_check(config)
    assert result.returncode == 0, result.stdout + result.stderr
    backend = section(config.read_text(), "backend tandem_nodes")
    assert [line for line in backend if line.startswith("server ")] == [
        "server n1 127.0.0.1:18081", "server n2 127.0.0.1:18082", "server n3 127.0.0.1:18083"]
    assert "bind 127.0.0.1:18080" in section(config.read_text(), "frontend tandem")


@needs_haproxy
def test_the_compose_config_is_valid_and_names_the_compose_nodes():
    # The names resolve only inside compose: `init-addr ... none` lets HAProxy
    # start (and `-c` pass) before they do.
    result = haproxy_check(COMPOSE_CONFIG)
    assert result.returncode == 0, result.stdout + result.stderr
    backend = section(COMPOSE_CONFIG.read_text(), "backend tandem_nodes")
    assert [line for line in backend if line.startswith("server ")] == [
        "server tandem1 tandem1:8080", "server tandem2 tandem2:8080"]
    assert "bind :8080" in section(COMPOSE_CONFIG.read_text(), "frontend tandem")


def test_both_configs_hash_on_the_path_check_health_and_keep_websockets_open(tmp_path):
    generated = cluster_script().haproxy_config([("n1", 18081)], "127.0.0.1", 18080)
    compose = COMPOSE_CONFIG.read_text()
    for text in (generated, compose):
        defaults = section(text, "defaults")
        backend = section(text, "backend tandem_nodes")
        for line in ("mode http", "option forwardfor", "timeout tunnel 1h", "timeout client 60s", "timeout server 60s"):
            assert line in defaults
        for line in ("balance uri", "hash-type consistent", "option httpchk GET /healthz", "http-check expect status 200"):
            assert line in backend
        default_server = next(line for line in backend if line.startswith("default-server "))
        assert "check inter 500ms fall 2 rise 2" in default_server
    # One template: the defaults and the backend's rules are the same in both.
    assert section(generated, "defaults") == section(compose, "defaults")
    rules = lambda text: [line for line in section(text, "backend tandem_nodes") if not line.startswith(("server ", "default-server "))]
    assert rules(generated) == rules(compose)


# --------------------------------------------------------------------------
# The script's checks before anything starts
# --------------------------------------------------------------------------


def test_a_missing_binary_is_named_and_nothing_starts(tmp_path):
    assert f"no tandem binary at {tmp_path / 'nothing'}" in refused_stderr(tmp_path / "nothing", tmp_path / "data")
    assert not (tmp_path / "data").exists()


@needs_cluster_tools
def test_a_taken_port_is_named_and_nothing_starts(tmp_path):
    binary = fake_tandem(tmp_path, "  --redis URL\n  --node-id NAME")
    base = free_port_run(3)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", base + 2))
        taken.listen()
        stderr = refused_stderr(binary, tmp_path / "data", port=base)
    assert f"port {base + 2} on 127.0.0.1 (node n2) is taken" in stderr
    assert not (tmp_path / "data").exists()


@needs_cluster_tools
def test_a_binary_without_cluster_mode_is_refused(tmp_path):
    binary = fake_tandem(tmp_path, "usage: tandem [flags]\n  --host ADDR")
    assert "has no --redis or --node-id flag" in refused_stderr(binary, tmp_path / "data")


# --------------------------------------------------------------------------
# The cluster
# --------------------------------------------------------------------------


class RunningCluster:
    """scripts/cluster.py running, its stdout and stderr collected by reader threads."""

    def __init__(self, binary: Path, data: Path, nodes: int):
        self.port = free_port_run(nodes + 1)
        self.nodes = nodes
        self.proc = subprocess.Popen(
            [sys.executable, str(SCRIPT), "--nodes", str(nodes), "--port", str(self.port),
             "--binary", str(binary), "--data", str(data)],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
        self.stdout = Lines(self.proc, self.proc.stdout, "stdout")
        self.stderr = Lines(self.proc, self.proc.stderr, "stderr")
        try:
            self.stdout.wait_for(lambda line: line.startswith("ready:"), timeout=120)
        except AssertionError:
            self.stop()
            raise AssertionError("cluster.py did not say ready:\n" + self.output()) from None

    def output(self) -> str:
        return "\n".join(self.stdout.lines + self.stderr.lines)

    def children(self) -> dict[int, str]:
        """The processes cluster.py started, pid → name (/proc's comm)."""
        found = {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError):
                stat = (entry / "stat").read_text()
                ppid = int(stat.rsplit(")", 1)[1].split()[1])
                if ppid == self.proc.pid:
                    found[int(entry.name)] = (entry / "comm").read_text().strip()
        return found

    def stop(self, timeout: float = 40) -> int | None:
        rc = stop(self.proc, signal.SIGTERM, timeout)
        self.stdout.join(2)
        self.stderr.join(2)
        return rc


@pytest.fixture(scope="module")
def cluster_binary(tandem_binary) -> Path:
    """The debug binary, if it has cluster mode; else the cluster's tests skip."""
    usage = subprocess.run([str(tandem_binary), "--help"], capture_output=True, text=True, timeout=START_WAIT)
    if "--redis" not in usage.stdout + usage.stderr:
        pytest.skip(f"{tandem_binary} has no --redis flag (cluster mode is not built in yet): "
                    "the cluster tests need it")
    if shutil.which("redis-server") is None or shutil.which("haproxy") is None:
        pytest.skip("redis-server and haproxy are installed by make test-deps")
    return tandem_binary


@pytest.fixture(scope="module")
def cluster(cluster_binary, tmp_path_factory):
    running = RunningCluster(cluster_binary, tmp_path_factory.mktemp("cluster"), nodes=2)
    yield running
    rc = running.stop()
    assert rc == 0, f"cluster.py exited {rc} on SIGTERM:\n" + running.output()


def node_of(client: Client) -> str:
    match = re.fullmatch(r"([^.]+)\..+", client.id)
    assert match, f"client id {client.id!r} names no node (ids look like n1.abcd.c3)"
    return match.group(1)


def test_haproxy_answers_healthz_the_page_and_the_api(cluster):
    assert http_request(cluster.port, "GET", "/healthz").status == 200
    assert http_request(cluster.port, "GET", "/").status == 200
    assert http_request(cluster.port, "GET", "/api/rooms/demo").json()["room"] == "demo"


def test_haproxy_tells_the_nodes_it_relayed_a_request(cluster):
    # option forwardfor: the node sees X-Forwarded-For, so with auth off the admin
    # API refuses the request although its peer (HAProxy) is loopback. Unrelayed it would be 404.
    response = http_request(cluster.port, "DELETE", "/api/rooms/no-such-room")
    assert response.status == 403, response


def test_a_websocket_through_haproxy_is_welcomed_by_a_node(cluster):
    with open_websocket(f"ws://127.0.0.1:{cluster.port}/rooms/demo") as ws:
        client = Client(ws)
        assert node_of(client) in {"n1", "n2"}


def test_members_of_a_room_land_on_one_node(cluster):
    with contextlib.ExitStack() as stack:
        members = [Client(stack.enter_context(open_websocket(f"ws://127.0.0.1:{cluster.port}/rooms/demo?name=m{i}")))
                   for i in range(3)]
        nodes = {node_of(member) for member in members}
        assert len(nodes) == 1, f"the members of /rooms/demo landed on {sorted(nodes)}"


def test_sigterm_stops_every_process(cluster_binary, tmp_path):
    running = RunningCluster(cluster_binary, tmp_path / "cluster", nodes=2)
    try:
        children = running.children()
        names = sorted(children.values())
        assert names == sorted(["redis-server", "haproxy", cluster_binary.name[:15], cluster_binary.name[:15]]), names
    finally:
        rc = running.stop()
    assert rc == 0, running.output()
    assert "killed" not in running.output()
    deadline = time.monotonic() + WAIT
    while (left := [pid for pid in children if Path(f"/proc/{pid}").exists()]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, f"still running after cluster.py stopped: {[(pid, children[pid]) for pid in left]}"
