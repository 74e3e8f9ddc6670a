"""Real hosts for the robustness suite: one network namespace per host on a bridge.

`Hosts(["redis1", "redis2", "n1", ...])` (a context manager, root only) makes

- a bridge `tdm<RUN>` in the root namespace holding `10.A.B.1/24` (the
  harness: the clients, which run in the harness process itself) and
  `10.A.B.2/24` (the proxies of proxy.py, so that cutting the clients off a
  node does not cut its proxied Redis link too), with `10.A.B.0/24` a range no
  route of this machine uses yet;
- per host a namespace `tdm<RUN>-<host>` with `lo` up and `eth0` (a veth
  pair whose other end `tdm<RUN>v<i>` is on the bridge) at `10.A.B.(10+i)`.

`RUN` is four hex digits. A record `/run/tandem-robustness/<RUN>` holds the
harness' pid: at start, every namespace and link named `tdm<RUN>…` whose
record is missing or whose pid is dead is a crashed run's leftover and is
removed (a live run of someone else is left alone).

Partitions are iptables rules in a host's namespace (never in the root
namespace), in a chain `TDM` that INPUT and OUTPUT jump to: `partition(a, b)`
drops both ways, `partition(a, b, one_way=True)` drops only what `a` sends
to `b`. `a` or `b` may be `"harness"` or `"proxy"` (the root namespace's
addresses); the rules then go into the other side's namespace. `heal(cut)`
deletes exactly that cut's rules. Deleting a namespace drops its rules, so
`close()` (and any failure in `open()`) leaves nothing behind.
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

PREFIX = "tdm"
RECORDS = Path("/run/tandem-robustness")
HARNESS = "harness"
PROXY = "proxy"
CHAIN = "TDM"


class HostError(RuntimeError):
    pass


def sh(*args: str, check: bool = True, timeout: float = 30) -> subprocess.CompletedProcess:
    proc = subprocess.run(list(args), stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise HostError(f"{' '.join(args)}: exit {proc.returncode}: {proc.stderr.strip() or proc.stdout.strip()}")
    return proc


def available() -> str | None:
    """None when this machine can make hosts, else why not (for pytest.skip)."""
    if os.geteuid() != 0:
        return "needs root (network namespaces, veth, iptables)"
    for tool in ("ip", "iptables"):
        if sh("which", tool, check=False).returncode != 0:
            return f"{tool} is not installed"
    probe = sh("ip", "netns", "list", check=False)
    if probe.returncode != 0:
        return f"ip netns is unavailable: {probe.stderr.strip()}"
    return None


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _namespaces() -> list[str]:
    out = sh("ip", "netns", "list", check=False).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def _links() -> list[str]:
    out = sh("ip", "-o", "link", "show", check=False).stdout
    names = []
    for line in out.splitlines():
        match = re.match(r"\d+:\s+([^:@\s]+)", line)
        if match:
            names.append(match.group(1))
    return names


def _run_of(name: str) -> str | None:
    match = re.match(rf"^{PREFIX}([0-9a-f]{{4}})(?:$|-|v)", name)
    return match.group(1) if match else None


def _live_runs() -> set[str]:
    live = set()
    if RECORDS.is_dir():
        for record in RECORDS.iterdir():
            try:
                pid = int(record.read_text().strip())
            except (OSError, ValueError):
                continue
            if _pid_alive(pid):
                live.add(record.name)
    return live


def _kill_namespace_processes(ns: str) -> None:
    """SIGKILLs what still runs in a namespace of ours (the services started there), by pid."""
    for _ in range(50):
        pids = [int(p) for p in sh("ip", "netns", "pids", ns, check=False).stdout.split()]
        pids = [p for p in pids if p != os.getpid()]
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGCONT)
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.05)


def clean_leftovers() -> list[str]:
    """Removes namespaces and links of crashed earlier runs (their record's pid is dead); what it removed."""
    live = _live_runs()
    removed = []
    for ns in _namespaces():
        run = _run_of(ns)
        if run and run not in live:
            _kill_namespace_processes(ns)
            sh("ip", "netns", "delete", ns, check=False)
            removed.append(ns)
    for link in _links():
        run = _run_of(link)
        if run and run not in live:
            sh("ip", "link", "delete", link, check=False)
            removed.append(link)
    if RECORDS.is_dir():
        for record in RECORDS.iterdir():
            if record.name not in live:
                record.unlink(missing_ok=True)
    return removed


def _used_prefixes() -> set[tuple[int, int]]:
    """The 10.A.B of every address and route on this machine (any /24 inside 10/8 that overlaps)."""
    text = sh("ip", "-4", "route", "show", "table", "all", check=False).stdout
    text += sh("ip", "-4", "addr", "show", check=False).stdout
    used: set[tuple[int, int]] = set()
    for match in re.finditer(r"\b10\.(\d+)\.(\d+)\.\d+(?:/(\d+))?", text):
        a, b = int(match.group(1)), int(match.group(2))
        bits = int(match.group(3) or 32)
        if bits < 16:
            return {(x, y) for x in range(256) for y in range(256)} if bits <= 8 else used | {(a, y) for y in range(256)}
        if bits < 24:
            span = 1 << (24 - bits)
            start = b - b % span
            used |= {(a, y) for y in range(start, start + span)}
        else:
            used.add((a, b))
    return used


@dataclass
class Cut:
    """One partition: the iptables rules it added, each as (namespace, rule spec)."""
    a: str
    b: str
    one_way: bool
    rules: list[tuple[str, list[str]]] = field(default_factory=list)

    def describe(self) -> str:
        return f"{self.a}->{self.b} dropped" if self.one_way else f"{self.a}<->{self.b} dropped"


class Hosts:
    def __init__(self, names: list[str], run_id: str | None = None):
        if len(set(names)) != len(names) or {HARNESS, PROXY} & set(names):
            raise ValueError(f"host names must be unique and not {HARNESS}/{PROXY}: {names}")
        self.names = list(names)
        self.run = run_id or f"{random.SystemRandom().randrange(1 << 16):04x}"
        self.bridge = f"{PREFIX}{self.run}"
        self.prefix = ""
        self.addresses: dict[str, str] = {}
        self.cuts: list[Cut] = []
        self._opened = False

    # -- life

    def __enter__(self) -> "Hosts":
        self.open()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def open(self) -> None:
        reason = available()
        if reason:
            raise HostError(reason)
        clean_leftovers()
        RECORDS.mkdir(parents=True, exist_ok=True)
        if self.run in _live_runs() or self.bridge in _links():
            raise HostError(f"run id {self.run} is taken")
        (RECORDS / self.run).write_text(str(os.getpid()))
        self._opened = True
        try:
            self._build()
        except BaseException:
            self.close()
            raise

    def _build(self) -> None:
        used = _used_prefixes()
        rng = random.SystemRandom()
        free = [(a, b) for a in range(100, 250) for b in range(0, 250, 7) if (a, b) not in used]
        if not free:
            raise HostError("no free 10.A.B.0/24 range")
        a, b = rng.choice(free)
        self.prefix = f"10.{a}.{b}"
        self.addresses[HARNESS] = f"{self.prefix}.1"
        self.addresses[PROXY] = f"{self.prefix}.2"
        sh("ip", "link", "add", self.bridge, "type", "bridge")
        sh("ip", "addr", "add", f"{self.addresses[HARNESS]}/24", "dev", self.bridge)
        sh("ip", "addr", "add", f"{self.addresses[PROXY]}/24", "dev", self.bridge)
        sh("ip", "link", "set", self.bridge, "up")
        for i, name in enumerate(self.names):
            ns = self.namespace(name)
            outer, inner = f"{self.bridge}v{i}", f"{self.bridge}i{i}"
            ip = f"{self.prefix}.{10 + i}"
            sh("ip", "netns", "add", ns)
            sh("ip", "link", "add", outer, "type", "veth", "peer", "name", inner)
            sh("ip", "link", "set", inner, "netns", ns)
            sh("ip", "link", "set", outer, "master", self.bridge)
            sh("ip", "link", "set", outer, "up")
            self.ns_sh(name, "ip", "link", "set", "lo", "up")
            self.ns_sh(name, "ip", "link", "set", inner, "name", "eth0")
            self.ns_sh(name, "ip", "addr", "add", f"{ip}/24", "dev", "eth0")
            self.ns_sh(name, "ip", "link", "set", "eth0", "up")
            self.ns_sh(name, "iptables", "-N", CHAIN)
            self.ns_sh(name, "iptables", "-A", "INPUT", "-j", CHAIN)
            self.ns_sh(name, "iptables", "-A", "OUTPUT", "-j", CHAIN)
            self.addresses[name] = ip

    def close(self) -> None:
        if not self._opened:
            return
        for name in self.names:
            ns = self.namespace(name)
            if ns in _namespaces():
                _kill_namespace_processes(ns)
                sh("ip", "netns", "delete", ns, check=False)
        for link in _links():
            if _run_of(link) == self.run:
                sh("ip", "link", "delete", link, check=False)
        (RECORDS / self.run).unlink(missing_ok=True)
        self.cuts.clear()
        self._opened = False

    def leftovers(self) -> list[str]:
        """Namespaces and links of this run that still exist (empty after close())."""
        return [n for n in _namespaces() + _links() if _run_of(n) == self.run]

    # -- use

    def namespace(self, name: str) -> str:
        return f"{self.bridge}-{name}"

    def ip(self, name: str) -> str:
        return self.addresses[name]

    def prefix_args(self, name: str) -> list[str]:
        """The command prefix that runs a program inside host `name`."""
        return ["ip", "netns", "exec", self.namespace(name)]

    def ns_sh(self, name: str, *args: str, check: bool = True, timeout: float = 30) -> subprocess.CompletedProcess:
        return sh(*self.prefix_args(name), *args, check=check, timeout=timeout)

    # -- partitions

    def partition(self, a: str, b: str, one_way: bool = False) -> Cut:
        """Drops what `a` sends to `b` and, unless `one_way`, what `b` sends to `a`."""
        if a == b or a not in self.addresses or b not in self.addresses:
            raise ValueError(f"no partition between {a!r} and {b!r}")
        cut = Cut(a, b, one_way)
        root = (HARNESS, PROXY)
        if a not in root:
            # In a's namespace: its packets to b, and (both ways) b's packets to it.
            cut.rules.append((a, ["-d", self.ip(b), "-j", "DROP"]))
            if not one_way:
                cut.rules.append((a, ["-s", self.ip(b), "-j", "DROP"]))
        elif b not in root:
            cut.rules.append((b, ["-s", self.ip(a), "-j", "DROP"]))
            if not one_way:
                cut.rules.append((b, ["-d", self.ip(a), "-j", "DROP"]))
        else:
            raise ValueError("a partition needs one side in a namespace")
        try:
            for host, spec in cut.rules:
                self.ns_sh(host, "iptables", "-A", CHAIN, *spec)
        except BaseException:
            self.heal(cut)
            raise
        self.cuts.append(cut)
        return cut

    def heal(self, cut: Cut) -> None:
        for host, spec in cut.rules:
            self.ns_sh(host, "iptables", "-D", CHAIN, *spec, check=False)
        if cut in self.cuts:
            self.cuts.remove(cut)

    def heal_all(self) -> None:
        for cut in list(self.cuts):
            self.heal(cut)

    def rules(self, name: str) -> list[str]:
        """The rules of host `name`'s TDM chain (iptables -S), for tests."""
        out = self.ns_sh(name, "iptables", "-S", CHAIN).stdout
        return [line for line in out.splitlines() if line.startswith("-A ")]
