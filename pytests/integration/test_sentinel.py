"""Redis high availability through Sentinel (`--redis-sentinel`, docs/scale-out.md):
a real primary, one replica and three redis-sentinel processes on free loopback
ports; two Tandem nodes find the primary through the Sentinels. The primary is
killed (SIGKILL), Sentinel promotes the replica, and the nodes follow: each logs
the new primary, /healthz is 200 again, /metrics counts the failover, and writes
are acknowledged again. The time from the kill to the first acknowledged write
after it is printed."""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import time
from datetime import datetime
from pathlib import Path

import pytest

from cluster import RedisServer
from conftest import stop_running
from helpers import START_WAIT, WAIT, TandemServer, healthz, wait_until
from pytests.support import free_port, pairs
from test_cluster import answered, gain_is

MASTER = "mymaster"
DOWN_AFTER_MS = 1000


class Sentinel(RedisServer):
    """`redis-sentinel` on 127.0.0.1:`port` watching the primary on `primary_port`, its
    config and its log (`sentinel.log`) in `folder`."""

    program = "redis-sentinel"

    def __init__(self, folder: Path, port: int, primary_port: int):
        self.conf = folder / "sentinel.conf"
        # Sentinel rewrites its file (the replicas and Sentinels it found, the epoch);
        # with no logfile line it logs to stdout, which the log file takes.
        self.conf.write_text(f"""port {port}
bind 127.0.0.1
daemonize no
dir {folder}
sentinel monitor {MASTER} 127.0.0.1 {primary_port} 2
sentinel down-after-milliseconds {MASTER} {DOWN_AFTER_MS}
sentinel failover-timeout {MASTER} 10000
sentinel parallel-syncs {MASTER} 1
""")
        super().__init__(folder, port)

    def log_name(self) -> str:
        return "sentinel.log"

    def arguments(self) -> list[str]:
        return [self.binary, str(self.conf)]


def folder_and_port(parent: Path, program: str, prefix: str) -> tuple[Path, int]:
    """For one more `program` (skipped if it is not installed): a free port and a new folder `prefix-PORT` in `parent`."""
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed (apt-get install {program})")
    port = free_port()
    folder = parent / f"{prefix}-{port}"
    folder.mkdir()
    return folder, port


def redis_server(folder: Path, *extra: str) -> RedisServer:
    folder, port = folder_and_port(folder, "redis-server", "redis")
    return RedisServer(folder, port, extra)


def redis_sentinel(folder: Path, primary_port: int) -> Sentinel:
    folder, port = folder_and_port(folder, "redis-sentinel", "sentinel")
    return Sentinel(folder, port, primary_port)


def switch_time(sentinels: list[Sentinel]) -> float | None:
    """The wall-clock time of the first `+switch-master` in the Sentinels' logs."""
    times = []
    for sentinel in sentinels:
        for line in sentinel.log_path.read_text().splitlines() if sentinel.log_path.exists() else []:
            found = re.search(r":X (\d+ \w+ \d+ [\d:.]+) . \+switch-master ", line)
            if found:
                times.append(datetime.strptime(found.group(1), "%d %b %Y %H:%M:%S.%f").timestamp())
    return min(times) if times else None


@pytest.fixture
def ha(tmp_path):
    """A primary, a replica in sync, three Sentinels that agree on both; all stopped at the end."""
    started: list[RedisServer] = []
    try:
        primary = redis_server(tmp_path)
        started.append(primary)
        replica = redis_server(tmp_path, "--replicaof", "127.0.0.1", str(primary.port))
        started.append(replica)
        wait_until(lambda: "master_link_status:up" in str(replica.command("INFO", "replication")),
                   what="the replica in sync with the primary")
        sentinels = []
        for _ in range(3):
            sentinels.append(redis_sentinel(tmp_path, primary.port))
            started.append(sentinels[-1])

        def agreed() -> bool:
            for sentinel in sentinels:
                try:
                    if not str(sentinel.command("SENTINEL", "ckquorum", MASTER)).startswith("OK 3 usable"):
                        return False
                    replicas = [pairs(r) for r in sentinel.command("SENTINEL", "replicas", MASTER)]
                except RuntimeError:
                    return False
                if not any(r["port"] == str(replica.port) and r["flags"] == "slave" and r["master-link-status"] == "ok"
                           for r in replicas):
                    return False
            return True

        wait_until(agreed, timeout=START_WAIT, what="three Sentinels that know each other and the replica")
        yield primary, replica, sentinels
    finally:
        for process in reversed(started):
            process.stop(signal.SIGKILL)


@pytest.fixture
def nodes(tandem_binary, ha):
    started: list[TandemServer] = []

    def start(name: str, *flags: str) -> TandemServer:
        _, _, sentinels = ha
        where = ",".join(f"127.0.0.1:{s.port}" for s in sentinels)
        node = TandemServer(tandem_binary, ["--redis-sentinel", where, "--redis-master", MASTER, "--node-id", name, *flags])
        started.append(node)
        return node

    yield start
    stop_running(started)


def test_flags_need_each_other(tandem_binary):
    for flags, message in ((["--redis-sentinel", "127.0.0.1:26379"], "--redis-master"),
                           (["--redis-master", "m"], "--redis-sentinel"),
                           (["--redis-sentinel", "127.0.0.1:0", "--redis-master", "m"], "--redis-sentinel must be"),
                           (["--redis-sentinel", "a:1", "--redis-master", "m", "--redis", "redis://h:6379/0"], "not a host"),
                           (["--redis-replicas", "2"], "--redis-replicas needs --redis"),
                           (["--redis", "redis://h/0", "--redis-replicas", "17"], "from 0 to 16")):
        result = subprocess.run([str(tandem_binary), *flags], capture_output=True, text=True, timeout=WAIT)
        assert result.returncode == 2, (flags, result.stderr)
        assert message in result.stderr, (flags, result.stderr)


def test_nodes_follow_a_failover_of_the_primary(ha, nodes, join):
    primary, replica, sentinels = ha
    # The first Sentinel listed is down: the nodes ask the next (and two of three still elect a leader).
    sentinels[0].stop(signal.SIGKILL)
    # One node gives the database through --redis (no host: the Sentinels give it).
    n1 = nodes("n1", "--redis", "redis:///0")
    n2 = nodes("n2")
    for node in (n1, n2):
        node.wait_for_log(re.escape(f"redis: primary of {MASTER} is 127.0.0.1:{primary.port}"))
        assert f"redis=redis-sentinel://127.0.0.1:{sentinels[0].port}," in node.log_lines("listening on")[0]
        assert node.metrics().get(f'tandem_redis_primary_info{{master="{MASTER}",address="127.0.0.1:{primary.port}"}}') == 1
    ann = join(n1, "Ann")
    bob = join(n2, "Bob")
    ann.expect_ack(ann.set("gain", 0.3))
    bob.expect(gain_is(0.3), what="Ann's gain on the other node")

    marks = [len(node.stderr_lines) for node in (n1, n2)]
    killed, killed_wall = time.monotonic(), time.time()
    primary.stop(signal.SIGKILL)

    # Writes are refused while there is no primary, then acknowledged again once the nodes follow.
    value, first_ack = 0.31, None
    deadline = time.monotonic() + 2 * WAIT
    while first_ack is None:
        assert time.monotonic() < deadline, f"no acknowledged write within {2 * WAIT} s of the kill: {n2.stderr_lines[-20:]}"
        value = round(value + 0.01, 2)
        seq = bob.set("gain", value)
        frame = bob.expect(answered(seq), timeout=WAIT)
        if frame["type"] == "update":
            first_ack = time.monotonic()
        else:
            time.sleep(0.1)
    failover_s = first_ack - killed
    switched = switch_time(sentinels[1:])
    print(f"\nfailover: SIGKILL of the primary to the first acknowledged write: {failover_s:.2f} s "
          f"(Sentinel down-after-milliseconds {DOWN_AFTER_MS}; +switch-master after "
          f"{'?' if switched is None else f'{switched - killed_wall:.2f}'} s)")

    for node, mark in zip((n1, n2), marks):
        line = node.wait_for_log(re.escape(f"redis: primary is now 127.0.0.1:{replica.port} (failover of {MASTER}"), start=mark)
        assert f"was 127.0.0.1:{primary.port}" in line
        wait_until(lambda: healthz(node.port) == 200, what="/healthz 200 after the failover")
        metrics = node.metrics()
        assert metrics.get(f'tandem_redis_failovers_total{{master="{MASTER}"}}') == 1
        assert metrics.get(f'tandem_redis_primary_info{{master="{MASTER}",address="127.0.0.1:{replica.port}"}}') == 1
        assert metrics.get(f'tandem_redis_primary_known{{master="{MASTER}"}}') == 1
    ann.expect(gain_is(value), what="Bob's write after the failover on the other node")
    # Written on the new primary, which is one.
    assert replica.command("ROLE")[0] == "master"
    assert replica.command("XLEN", "tandem:{demo}:log") >= 2
    # A write from the other node too, and rooms over HTTP (the blocking store connection) work.
    ann.expect_ack(ann.set("gain", 0.9))
    bob.expect(gain_is(0.9), what="Ann's write after the failover")
    def listed():
        answer = n2.get("/api/cluster")
        assert answer.status == 200, answer
        return {n["id"] for n in answer.json()["nodes"]} == {"n1", "n2"} or (answer.json(), replica.command("SMEMBERS", "tandem:nodes"))

    wait_until(lambda: listed() is True, what="both nodes in /api/cluster (read through the blocking connection)")


def test_a_stopped_primary_is_failed_over_and_not_gone_back_to(ha, nodes, join):
    """SIGSTOP instead of SIGKILL: the connections to the frozen primary stay open and
    nothing resets them; the nodes still follow Sentinel's switch. When the old primary
    continues (believing itself the primary until Sentinel makes it a replica), the nodes
    stay on the new one and delivery never stops."""
    primary, replica, sentinels = ha
    n1, n2 = nodes("n1"), nodes("n2")
    ann = join(n1, "Ann")
    bob = join(n2, "Bob")
    ann.expect_ack(ann.set("gain", 0.2))
    bob.expect(gain_is(0.2), what="Ann's gain on the other node")
    marks = [len(node.stderr_lines) for node in (n1, n2)]
    primary.proc.send_signal(signal.SIGSTOP)
    try:
        for node, mark in zip((n1, n2), marks):
            node.wait_for_log(re.escape(f"redis: primary is now 127.0.0.1:{replica.port} (failover of {MASTER}"), start=mark)
            wait_until(lambda: healthz(node.port) == 200, what="/healthz 200 after the failover")
    finally:
        primary.proc.send_signal(signal.SIGCONT)
    # Sentinel turns the old primary into a replica of the new one.
    wait_until(lambda: primary.command("ROLE")[0] == "slave", what="the old primary a replica")
    value = 0.2
    deadline = time.monotonic() + WAIT
    while True:
        value = round(value + 0.01, 2)
        seq = bob.set("gain", value)
        frame = bob.expect(answered(seq), timeout=WAIT)
        if frame["type"] == "update":
            break
        assert time.monotonic() < deadline, frame
        time.sleep(0.1)
    ann.expect(gain_is(value), what="Bob's write on the other node")
    # No subscriber of a node is left on the old primary (the Sentinels' own are named sentinel-…).
    subscribers = [line for line in str(primary.command("CLIENT", "LIST", "TYPE", "pubsub")).splitlines()
                   if line and " name=sentinel-" not in line]
    assert subscribers == [], subscribers
    for node in (n1, n2):
        assert node.metrics().get("tandem_cluster_delivery_stalled") == 0
        assert node.metrics().get(f'tandem_redis_failovers_total{{master="{MASTER}"}}') == 1
