"""The robustness suite's hosts (hosts.py), proxy (proxy.py) and faketime on their own.

Namespaces come up and reach each other and the harness; a partition blocks
(both ways, or one way) and its heal restores exactly what was there; close()
leaves no namespace, link or rule behind; the proxy delays and stalls
without losing or reordering a byte; a faked wall clock moves while the
monotonic one does not. Skipped unless root with `ip netns`.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pytests.robustness.hosts import HARNESS, PROXY, Hosts, available, clean_leftovers  # noqa: E402
from pytests.robustness.proxy import Proxy  # noqa: E402
from pytests.robustness.services import faketime_lib  # noqa: E402

pytestmark = pytest.mark.skipif(available() is not None, reason=f"robustness hosts: {available()}")

WAIT = 30.0
# A one-line echo server for inside a namespace: each connection gets "hi <peer ip>\n".
ECHO = ("import socket\ns=socket.socket();s.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1)\n"
        "s.bind(('0.0.0.0',7000));s.listen();print('up',flush=True)\n"
        "while True:\n c,a=s.accept();c.sendall(('hi '+a[0]+'\\n').encode());c.close()\n")
# A client for inside a namespace: prints what the echo server said, or "blocked".
DIAL = ("import socket,sys\ntry:\n print(socket.create_connection((sys.argv[1],7000),timeout=float(sys.argv[2])).recv(64).decode().strip())\n"
        "except OSError:\n print('blocked')\n")


def dial(hosts: Hosts, src: str, dst: str, timeout: float = 1.0) -> str:
    """What `src` gets connecting to `dst`'s echo server ("hi <src ip>", or "blocked" after `timeout` s)."""
    if src == HARNESS:
        try:
            with socket.create_connection((hosts.ip(dst), 7000), timeout=timeout) as sock:
                return sock.recv(64).decode().strip()
        except OSError:
            return "blocked"
    return hosts.ns_sh(src, sys.executable, "-c", DIAL, hosts.ip(dst), str(timeout)).stdout.strip()


@pytest.fixture
def hosts():
    with Hosts(["a", "b", "c"]) as made:
        servers = []
        try:
            for name in made.names:
                proc = subprocess.Popen(made.prefix_args(name) + [sys.executable, "-c", ECHO],
                                        stdout=subprocess.PIPE, text=True)
                assert proc.stdout is not None and proc.stdout.readline().strip() == "up"
                servers.append(proc)
            yield made
        finally:
            for proc in servers:
                proc.kill()
                proc.wait(WAIT)
    assert made.leftovers() == []


def test_hosts_reach_each_other_and_the_harness(hosts: Hosts):
    for src in ["a", "b", "c", HARNESS]:
        for dst in ["a", "b", "c"]:
            if src != dst:
                assert dial(hosts, src, dst, WAIT) == f"hi {hosts.ip(src)}"
    # Each namespace has lo up and its own address only.
    out = hosts.ns_sh("a", "ip", "-4", "-o", "addr").stdout
    assert "127.0.0.1" in out and hosts.ip("a") in out and hosts.ip("b") not in out
    assert len({hosts.ip(n) for n in ["a", "b", "c", HARNESS, PROXY]}) == 5


def test_partition_blocks_both_ways_and_heal_restores(hosts: Hosts):
    before = {n: hosts.rules(n) for n in hosts.names}
    cut = hosts.partition("a", "b")
    assert dial(hosts, "a", "b") == "blocked"
    assert dial(hosts, "b", "a") == "blocked"
    assert dial(hosts, "a", "c", WAIT) == f"hi {hosts.ip('a')}"  # only a<->b
    assert dial(hosts, HARNESS, "a", WAIT) == f"hi {hosts.ip(HARNESS)}"
    hosts.heal(cut)
    assert {n: hosts.rules(n) for n in hosts.names} == before
    assert dial(hosts, "a", "b", WAIT) == f"hi {hosts.ip('a')}"
    assert dial(hosts, "b", "a", WAIT) == f"hi {hosts.ip('b')}"


def test_one_way_partition(hosts: Hosts):
    # a -> b dropped: a's SYN never reaches b; b -> a's SYN arrives but the
    # answer from a is dropped too, so b is blocked as well: a TCP link
    # needs both ways. What one_way keeps is b's packets reaching a.
    cut = hosts.partition("a", "b", one_way=True)
    assert hosts.rules("a") == [f"-A TDM -d {hosts.ip('b')}/32 -j DROP"]
    assert dial(hosts, "a", "b") == "blocked"
    hosts.heal(cut)
    cut = hosts.partition("b", "a", one_way=True)  # what b sends to a dropped, rule in b
    assert hosts.rules("b") == [f"-A TDM -d {hosts.ip('a')}/32 -j DROP"] and hosts.rules("a") == []
    hosts.heal(cut)
    assert dial(hosts, "a", "b", WAIT) == f"hi {hosts.ip('a')}"


def test_clients_cut_off_a_node(hosts: Hosts):
    cut = hosts.partition(HARNESS, "b")
    assert hosts.rules("b") == [f"-A TDM -s {hosts.ip(HARNESS)}/32 -j DROP", f"-A TDM -d {hosts.ip(HARNESS)}/32 -j DROP"]
    assert dial(hosts, HARNESS, "b") == "blocked"
    assert dial(hosts, "a", "b", WAIT) == f"hi {hosts.ip('a')}"  # b still reaches the others
    hosts.heal(cut)
    assert dial(hosts, HARNESS, "b", WAIT) == f"hi {hosts.ip(HARNESS)}"


def test_close_leaves_nothing_and_leftovers_of_a_dead_run_are_cleaned():
    made = Hosts(["x", "y"])
    made.open()
    made.partition("x", "y")
    assert len(made.leftovers()) >= 4  # 2 namespaces, a bridge, 2 veths
    made.close()
    assert made.leftovers() == []
    assert not [ns for ns in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.split()
                if ns.startswith(made.bridge)]
    # A crashed run: its record names a dead pid; the next run's start removes its namespaces.
    crashed = Hosts(["z"])
    crashed.open()
    dead = subprocess.Popen(["true"])
    dead.wait()
    (Path("/run/tandem-robustness") / crashed.run).write_text(str(dead.pid))
    removed = clean_leftovers()
    assert crashed.namespace("z") in removed
    assert crashed.leftovers() == []
    crashed.close()  # nothing left to do, and no error


def test_proxy_delays_and_stalls_in_order(hosts: Hosts):
    # An upstream in namespace a that echoes every byte back; the proxy on the harness side.
    upstream = subprocess.Popen(hosts.prefix_args("a") + [sys.executable, "-c",
        "import socket\ns=socket.socket();s.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1)\n"
        "s.bind(('0.0.0.0',7001));s.listen();print('up',flush=True)\nc,_=s.accept()\n"
        "while (d:=c.recv(4096)):\n c.sendall(d)\n"], stdout=subprocess.PIPE, text=True)
    try:
        assert upstream.stdout is not None and upstream.stdout.readline().strip() == "up"
        with Proxy(hosts.ip(PROXY), (hosts.ip("a"), 7001)) as proxy:
            sock = hosts_socket(hosts.ip(PROXY), proxy.port)

            def roundtrip(data: bytes) -> float:
                begin = time.monotonic()
                sock.sendall(data)
                got = b""
                while len(got) < len(data):
                    got += sock.recv(65536)
                assert got == data
                return time.monotonic() - begin

            assert roundtrip(b"x") < 1.0
            proxy.delay(200)
            assert roundtrip(b"y") >= 0.39  # 200 ms each way
            proxy.stall()
            answered = threading.Event()
            result: list[float] = []
            thread = threading.Thread(target=lambda: (result.append(roundtrip(b"z" * 100_000)), answered.set()))
            thread.start()
            assert not answered.wait(1.0)  # stalled: nothing comes back while it lasts
            proxy.normal()
            assert answered.wait(WAIT)
            thread.join()
            assert proxy.mode == "normal" and roundtrip(b"".join(bytes([i]) for i in range(256)) * 40) < WAIT
            sock.close()
    finally:
        upstream.kill()
        upstream.wait(WAIT)


def hosts_socket(host: str, port: int) -> socket.socket:
    sock = socket.create_connection((host, port), timeout=WAIT)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


@pytest.mark.skipif(faketime_lib() is None, reason="libfaketime is not installed (apt-get install faketime)")
def test_faketime_moves_the_wall_clock_only(hosts: Hosts, tmp_path: Path):
    clock = tmp_path / "offset"
    clock.write_text("+0\n")
    env = dict(os.environ, LD_PRELOAD=faketime_lib(), FAKETIME_TIMESTAMP_FILE=str(clock), FAKETIME_NO_CACHE="1",
               FAKETIME_DONT_FAKE_MONOTONIC="1")
    # One process reads both clocks, the offset changed under it at run time.
    script = ("import time,sys\nprint(time.time(),time.monotonic(),flush=True)\nsys.stdin.readline()\n"
              "print(time.time(),time.monotonic(),flush=True)\n")
    proc = subprocess.Popen(hosts.prefix_args("a") + [sys.executable, "-c", script], env=env, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdin is not None
    wall0, mono0 = map(float, proc.stdout.readline().split())
    real0 = time.time()
    clock.write_text("+3600\n")
    proc.stdin.write("\n")
    proc.stdin.flush()
    wall1, mono1 = map(float, proc.stdout.readline().split())
    real1 = time.time()
    proc.wait(WAIT)
    assert abs(wall0 - real0) < 5
    assert 3595 < wall1 - real1 < 3605
    assert 0 <= mono1 - mono0 < 5
    date = subprocess.run(hosts.prefix_args("a") + ["date", "+%s"], env=env, capture_output=True, text=True).stdout
    assert 3595 < int(date) - time.time() < 3605
