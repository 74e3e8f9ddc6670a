"""The robustness suite's processes, each in its host's namespace (hosts.py).

- `RedisProc`: `redis-server` with the append-only file on and
  `appendfsync always`, on port 6379 of its host, optionally `replicaof`
  another; SIGKILL and restart keep its folder (and AOF).
- `SentinelProc`: `redis-sentinel` on port 26379 of a Redis host, watching
  `mymaster` (quorum 2, down-after-milliseconds 1000, failover-timeout 3000).
- `NodeProc`: `tandem --redis … --node-id nK --host 0.0.0.0 --port 8080
  --event-loop uv` plus the run's extra flags, its stdout and stderr in
  `<run>/nK.log`; optionally under libfaketime (`clock_offset()` moves only
  its wall clock: FAKETIME_TIMESTAMP_FILE, FAKETIME_NO_CACHE=1,
  FAKETIME_DONT_FAKE_MONOTONIC=1) and optionally behind a `Proxy` (proxy.py)
  to Redis.
- `Services`: all of them for one run, from `Settings`.

Every process is started with `ip netns exec`; `Services.stop()` kills
what is left (SIGCONT first, so a paused one dies too).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from pytests.robustness.hosts import PROXY, Hosts
from pytests.robustness.proxy import Proxy
from pytests.support import START_WAIT, LoggedProcess, accepts, redis_command, wait_until

ROOT = Path(__file__).resolve().parents[2]
REDIS_PORT = 6379
SENTINEL_PORT = 26379
NODE_PORT = 8080
MASTER = "mymaster"
FAKETIME_LIBS = ("/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1",
                 "/usr/lib/aarch64-linux-gnu/faketime/libfaketimeMT.so.1",
                 "/usr/lib/faketime/libfaketimeMT.so.1")

def wait_for(condition, timeout: float, what: str, interval: float = 0.05):
    """Polls `condition()` (OSError and RuntimeError count as not yet) until truthy, which is
    returned; TimeoutError past `timeout` s (the harness' waits on the topology)."""
    return wait_until(condition, timeout, interval, what, ignore=(OSError, RuntimeError), error=TimeoutError)


def tandem_binary() -> Path:
    return Path(os.environ.get("TANDEM_BINARY") or ROOT / ".build/debug/tandem")


def tandem_flags(binary: Path | None = None) -> set[str]:
    """The flags `tandem --help` lists (so that runs can use flags only when the binary has them)."""
    text = subprocess.run([str(binary or tandem_binary()), "--help"], capture_output=True, text=True, timeout=30).stdout
    return set(re.findall(r"(?m)^\s+(--[a-z][a-z0-9-]*)", text))


def faketime_lib() -> str | None:
    return next((lib for lib in FAKETIME_LIBS if Path(lib).exists()), None)


# --------------------------------------------------------------------------
# Processes
# --------------------------------------------------------------------------


class Proc:
    """A process in a host's namespace, its stdout and stderr in `log`: start, signal, wait."""

    def __init__(self, hosts: Hosts, host: str, log: Path, name: str):
        self.hosts = hosts
        self.host = host
        self.name = name
        self.process = LoggedProcess(log, name)
        self.env: dict[str, str] = {}
        self.paused = False

    @property
    def log(self) -> Path:
        return self.process.log

    def command(self) -> list[str]:
        raise NotImplementedError

    def spawn(self) -> None:
        self.process.start(self.hosts.prefix_args(self.host) + self.command(), cwd=ROOT, env=dict(os.environ, **self.env))
        self.paused = False

    @property
    def pid(self) -> int | None:
        return self.process.pid

    def running(self) -> bool:
        return self.process.running()

    def signal(self, sig: int) -> None:
        if self.running():
            self.process.send_signal(sig)
            if sig == signal.SIGSTOP:
                self.paused = True
            elif sig == signal.SIGCONT:
                self.paused = False

    def kill(self) -> None:
        """SIGKILL (after SIGCONT, in case it is paused), and reap."""
        self.process.send_signal(signal.SIGCONT)
        self.process.stop(signal.SIGKILL, timeout=10)
        self.paused = False

    def terminate(self, timeout: float = 10) -> None:
        """SIGTERM (after SIGCONT, in case it is paused); SIGKILL past `timeout` s."""
        if self.running():
            self.process.send_signal(signal.SIGCONT)
            self.process.stop(signal.SIGTERM, timeout, reap=10)
            self.paused = False

    def head(self, n: int = 1500) -> str:
        """The log from this process' last start (its first lines: why it stopped at start)."""
        return self.process.since_start(n)

    def tail(self, n: int = 3000) -> str:
        return self.process.log_text(n)


class RedisProc(Proc):
    def __init__(self, hosts: Hosts, host: str, folder: Path, replica_of: str | None = None):
        super().__init__(hosts, host, folder / f"{host}.log", host)
        self.folder = folder / host
        self.folder.mkdir(parents=True, exist_ok=True)
        self.replica_of = replica_of  # a host name, or None for a primary

    @property
    def ip(self) -> str:
        return self.hosts.ip(self.host)

    def command(self) -> list[str]:
        cmd = [shutil.which("redis-server") or "redis-server", "--port", str(REDIS_PORT), "--bind", "0.0.0.0",
               "--protected-mode", "no", "--dir", str(self.folder), "--appendonly", "yes", "--appendfsync", "always",
               "--save", "", "--daemonize", "no", "--logfile", "",
               "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0"]
        if self.replica_of:
            cmd += ["--replicaof", self.hosts.ip(self.replica_of), str(REDIS_PORT)]
        return cmd

    def start(self, wait: bool = True) -> None:
        self.spawn()
        if wait:
            self.process.wait_for(self.ping, START_WAIT, f"{self.name} answering PING")

    def cmd(self, *args: str, timeout: float = 2.0) -> object:
        return redis_command(self.ip, REDIS_PORT, *args, timeout=timeout)

    def ping(self) -> bool:
        try:
            return self.cmd("PING") == "PONG"
        except (OSError, RuntimeError):
            return False

    def role(self) -> str | None:
        try:
            reply = self.cmd("ROLE")
        except (OSError, RuntimeError):
            return None
        return reply[0] if isinstance(reply, list) and reply else None


class SentinelProc(Proc):
    def __init__(self, hosts: Hosts, host: str, folder: Path, master_host: str):
        super().__init__(hosts, host, folder / f"sentinel-{host}.log", f"sentinel-{host}")
        self.conf = folder / f"sentinel-{host}.conf"
        self.conf.write_text("\n".join([
            f"port {SENTINEL_PORT}", "bind 0.0.0.0", "protected-mode no", "daemonize no", f"dir {folder}",
            f"sentinel monitor {MASTER} {hosts.ip(master_host)} {REDIS_PORT} 2",
            f"sentinel down-after-milliseconds {MASTER} 1000",
            f"sentinel failover-timeout {MASTER} 3000",
            f"sentinel parallel-syncs {MASTER} 1",
            f"sentinel announce-ip {hosts.ip(host)}", "",
        ]))

    @property
    def ip(self) -> str:
        return self.hosts.ip(self.host)

    def command(self) -> list[str]:
        return [shutil.which("redis-sentinel") or "redis-sentinel", str(self.conf)]

    def start(self) -> None:
        self.spawn()
        self.process.wait_for(lambda: self.cmd("PING") == "PONG", START_WAIT, f"{self.name} answering")

    def cmd(self, *args: str, timeout: float = 2.0) -> object:
        return redis_command(self.ip, SENTINEL_PORT, *args, timeout=timeout)

    def master(self) -> tuple[str, int] | None:
        try:
            reply = self.cmd("SENTINEL", "get-master-addr-by-name", MASTER)
        except (OSError, RuntimeError):
            return None
        return (reply[0], int(reply[1])) if isinstance(reply, list) and len(reply) == 2 else None


class NodeProc(Proc):
    def __init__(self, hosts: Hosts, host: str, folder: Path, binary: Path, redis_args: list[str],
                 extra: list[str], faketime: bool = False):
        super().__init__(hosts, host, folder / f"{host}.log", host)
        self.binary = binary
        self.redis_args = redis_args
        self.extra = extra
        self.clock_file: Path | None = None
        self.proxy: Proxy | None = None
        if faketime:
            lib = faketime_lib()
            if lib is None:
                raise RuntimeError("libfaketime is not installed (apt-get install faketime)")
            self.clock_file = folder / f"faketime-{host}"
            self.clock_file.write_text("+0\n")
            self.env = {"LD_PRELOAD": lib, "FAKETIME_TIMESTAMP_FILE": str(self.clock_file),
                        "FAKETIME_NO_CACHE": "1", "FAKETIME_DONT_FAKE_MONOTONIC": "1"}

    @property
    def ip(self) -> str:
        return self.hosts.ip(self.host)

    @property
    def http(self) -> str:
        return f"http://{self.ip}:{NODE_PORT}"

    def command(self) -> list[str]:
        return [str(self.binary), *self.redis_args, "--node-id", self.name, "--host", "0.0.0.0",
                "--port", str(NODE_PORT), "--event-loop", "uv", "--data", ":memory:", *self.extra]

    def start(self, wait: bool = True) -> None:
        self.spawn()
        if wait:
            self.wait_listening()

    def wait_listening(self, timeout: float = START_WAIT) -> None:
        """Until the node accepts connections on its port; `Exited` at once if it exited."""
        self.process.wait_for(lambda: accepts(self.ip, NODE_PORT), timeout, f"{self.name} listening")

    def healthz(self, timeout: float = 2.0) -> int | None:
        try:
            with urllib.request.urlopen(f"{self.http}/healthz", timeout=timeout) as reply:
                return reply.status
        except urllib.error.HTTPError as error:
            return error.code
        except OSError:
            return None

    def clock_offset(self, seconds: int) -> None:
        """Moves this node's wall clock `seconds` from the real one (its monotonic clock stays)."""
        if self.clock_file is None:
            raise RuntimeError(f"{self.name} does not run under faketime")
        tmp = self.clock_file.with_suffix(".tmp")
        tmp.write_text(f"{seconds:+d}\n")
        tmp.replace(self.clock_file)


# --------------------------------------------------------------------------
# One run's services
# --------------------------------------------------------------------------


@dataclass
class Settings:
    nodes: int = 3
    replicas: int = 0  # Redis replicas (redis2, redis3)
    sentinel: bool = False  # three Sentinels (on the Redis hosts) and the nodes told to use them
    proxy: bool = False  # each node reaches Redis through a Proxy of the harness (slow-link)
    faketime: bool = False  # each node under libfaketime (clock-jump)
    # Extra flags for every node, e.g. "--redis-timeout 1"; --open-admin lets the
    # harness (not on loopback) create the workload's rooms.
    node_flags: str = "--open-admin"
    # How a node is told about Sentinels and replicas; {sentinels} is HOST:PORT,...,
    # {master} the master's name, {replicas} the replica count. Used only when
    # `tandem --help` lists the flag.
    sentinel_flags: str = "--redis-sentinel {sentinels} --redis-master {master}"
    # {wait}: the replicas a write waits for, one fewer than there are (at least 1),
    # so that writes go on while one replica is down or has just been promoted.
    replicas_flags: str = "--redis-replicas {wait}"
    sentinel_redis_url: str = "redis:///0"  # --redis beside --redis-sentinel: the password and db only
    lease_s: float = 1.5
    extra: dict = field(default_factory=dict)

    def host_names(self) -> list[str]:
        redis = ["redis1"] + [f"redis{i + 2}" for i in range(max(self.replicas, 2 if self.sentinel else 0))]
        return redis + [f"n{i + 1}" for i in range(self.nodes)]

    def as_json(self) -> dict:
        return {"lease_s": self.lease_s, "redis_replicas": self.replicas, "sentinel": self.sentinel,
                "proxy": self.proxy, "faketime": self.faketime, "node_flags": self.node_flags,
                "nodes": [f"n{i + 1}" for i in range(self.nodes)]}


class Services:
    def __init__(self, hosts: Hosts, settings: Settings, folder: Path, binary: Path | None = None):
        self.hosts = hosts
        self.settings = settings
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        source = binary or tandem_binary()
        if not source.exists():
            raise RuntimeError(f"no tandem binary at {source} (swift build --product tandem)")
        # A copy, so that someone's rebuild during the run changes nothing.
        self.binary = folder / "tandem"
        shutil.copy2(source, self.binary)
        self.flags = tandem_flags(self.binary)
        self.notes: list[str] = []
        names = settings.host_names()
        redis_hosts = [n for n in names if n.startswith("redis")]
        self.redis = {h: RedisProc(hosts, h, folder, None if h == "redis1" else "redis1") for h in redis_hosts}
        self.sentinels = {h: SentinelProc(hosts, h, folder, "redis1") for h in redis_hosts[:3]} if settings.sentinel else {}
        self.proxies: dict[str, Proxy] = {}
        self.nodes: dict[str, NodeProc] = {}
        self._primary = "redis1"
        self.extra = self.node_extra()
        for name in (n for n in names if n.startswith("n")):
            self.nodes[name] = NodeProc(hosts, name, folder, self.binary, [], self.extra, settings.faketime)

    # -- flags

    def node_extra(self) -> list[str]:
        extra = self.settings.node_flags.split()
        for flag in [f for f in extra if f.startswith("--")]:
            if flag.split("=")[0] not in self.flags:
                raise RuntimeError(f"tandem --help does not list {flag}")
        s = self.settings
        if s.sentinel:
            text = s.sentinel_flags.format(sentinels=",".join(f"{self.hosts.ip(h)}:{SENTINEL_PORT}" for h in self.sentinels),
                                           master=MASTER, replicas=s.replicas)
            extra += self._known(text, "Sentinel")
        if s.replicas:
            extra += self._known(s.replicas_flags.format(replicas=s.replicas, wait=max(1, s.replicas - 1), master=MASTER,
                                                         sentinels=""), "replica")
        return extra

    def _known(self, text: str, what: str) -> list[str]:
        args = text.split()
        missing = [a for a in args if a.startswith("--") and a.split("=")[0] not in self.flags]
        if missing:
            self.notes.append(f"{what} flags {' '.join(missing)} not in tandem --help: not given to the nodes")
            return []
        return args

    def sentinel_aware(self) -> bool:
        """Whether the nodes find the primary through Sentinel (else they are given redis1's address)."""
        return self.settings.sentinel and any(a.startswith("--redis-sentinel") for a in self.extra)

    def redis_args(self, node: str) -> list[str]:
        if self.sentinel_aware():
            return ["--redis", self.settings.sentinel_redis_url]
        if self.settings.proxy and node in self.proxies:
            return ["--redis", f"redis://{self.hosts.ip(PROXY)}:{self.proxies[node].port}/0"]
        return ["--redis", f"redis://{self.hosts.ip('redis1')}:{REDIS_PORT}/0"]

    # -- life

    def start(self) -> None:
        self.redis["redis1"].start()
        for name, proc in self.redis.items():
            if name != "redis1":
                proc.start()
        for name in self.redis:
            if name != "redis1":
                wait_for(lambda p=self.redis[name]: self._replica_linked(p), START_WAIT, f"{name} replicating")
        for sentinel in self.sentinels.values():
            sentinel.start()
        if self.sentinels:
            wait_for(self._sentinels_ready, START_WAIT, "sentinels seeing the master, its replicas and each other")
        if self.settings.proxy:
            for name in self.nodes:
                self.proxies[name] = Proxy(self.hosts.ip(PROXY), (self.hosts.ip("redis1"), REDIS_PORT), name=name).start()
        for name, node in self.nodes.items():
            node.redis_args = self.redis_args(name)
            node.start(wait=False)
        for node in self.nodes.values():
            node.wait_listening()

    def _replica_linked(self, proc: RedisProc) -> bool:
        info = proc.cmd("INFO", "replication")
        return isinstance(info, str) and "master_link_status:up" in info

    def _sentinels_ready(self) -> bool:
        want_replicas = len(self.redis) - 1
        for sentinel in self.sentinels.values():
            master = sentinel.cmd("SENTINEL", "master", MASTER)
            fields = dict(zip(master[::2], master[1::2])) if isinstance(master, list) else {}
            if int(fields.get("num-slaves", 0)) < want_replicas or int(fields.get("num-other-sentinels", 0)) < len(self.sentinels) - 1:
                return False
        return True

    def stop(self) -> None:
        for node in self.nodes.values():
            node.terminate(timeout=5)
        for proxy in self.proxies.values():
            proxy.stop()
        for sentinel in self.sentinels.values():
            sentinel.kill()
        for proc in self.redis.values():
            proc.terminate(timeout=5)

    # -- the topology now

    def primary(self) -> str:
        """The host of the current Redis primary: the Sentinels' majority answer, else the one that says master."""
        if self.sentinels:
            answers: dict[str, int] = {}
            for sentinel in self.sentinels.values():
                addr = sentinel.master()
                if addr:
                    answers[addr[0]] = answers.get(addr[0], 0) + 1
            if answers:
                ip = max(answers, key=answers.get)
                host = next((h for h in self.redis if self.hosts.ip(h) == ip), None)
                if host:
                    self._primary = host
                    return host
        if self.redis[self._primary].role() == "master":
            return self._primary
        for name, proc in self.redis.items():
            if proc.role() == "master":
                self._primary = name
                return name
        return self._primary

    def primary_address(self) -> tuple[str, int]:
        return self.hosts.ip(self.primary()), REDIS_PORT

    def redis_cmd(self, *args: str, timeout: float = 2.0) -> object:
        host, port = self.primary_address()
        return redis_command(host, port, *args, timeout=timeout)

    def lease(self, room: str) -> tuple[str, int] | None:
        """The room's lease holder and epoch (`tandem:{ROOM}:lease` = "NODE EPOCH"), or None."""
        try:
            value = self.redis_cmd("GET", f"tandem:{{{room}}}:lease")
        except (OSError, RuntimeError):
            return None
        if not isinstance(value, str) or " " not in value:
            return None
        node, epoch = value.split(" ", 1)
        try:
            return node, int(epoch)
        except ValueError:
            return None

    def owner(self, room: str) -> str | None:
        lease = self.lease(room)
        return lease[0] if lease else None

    def wait_owner(self, room: str, timeout: float = 30, other_than: str | None = None) -> str:
        return wait_for(lambda: (o := self.owner(room)) and o != other_than and o, timeout,
                        f"an owner of {room} other than {other_than}")

    def read_log(self, room: str) -> list[dict]:
        """The room's commit log from the primary: [{"rev", "control", "state", "client", "epoch"?}]."""
        entries = self.redis_cmd("XRANGE", f"tandem:{{{room}}}:log", "-", "+", timeout=30) or []
        out = []
        for entry_id, fields in entries:
            values = dict(zip(fields[::2], fields[1::2]))
            record = {"rev": int(entry_id.split("-")[0]), "control": values.get("control"),
                      "state": json.loads(values["state"]) if "state" in values else None,
                      "client": values.get("client")}
            if "epoch" in values:
                record["epoch"] = int(values["epoch"])
            out.append(record)
        return out

    def read_final(self, room: str) -> dict:
        """The room as stored: {"revision", "states": {control: state}, "log": read_log(room)} (HISTORY.md's final)."""
        fields = self.redis_cmd("HGETALL", f"tandem:{{{room}}}:room", timeout=30) or []
        values = dict(zip(fields[::2], fields[1::2]))
        states = {k[2:]: json.loads(v) for k, v in values.items() if k.startswith("s:")}
        return {"revision": int(values.get("revision") or 0), "states": states, "log": self.read_log(room)}

    def describe(self) -> dict:
        return {"hosts": dict(self.hosts.addresses), "primary": self._primary, "binary": str(self.binary),
                "nodes": {n: p.command() for n, p in self.nodes.items()}, "notes": self.notes}
