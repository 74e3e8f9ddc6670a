"""Named faults and a seeded schedule of them (hosts.py, services.py, proxy.py).

Each fault has a start and an end: it is injected, held for its duration,
then healed. `schedule(seed, minutes, kinds)` plans them one after another,
each healed before the next starts, with quiet gaps between, every kind at
least once when the run is long enough (a 10-minute run is); `Player.play`
injects them on the harness clock and appends one record per fault to the
history's `faults` list (pytests/robustness/HISTORY.md):

    {"name": "partition-owner-redis", "kind": "partition", "target": "n1",
     "start": 20.1, "end": 28.1, "details": "..."}

`start` is when the fault took effect, `end` when it was healed (a killed
process restarted and listening again).

| name | kind | what |
|---|---|---|
| kill-owner | kill | SIGKILL of a room's owner (from its lease), restarted at the end |
| pause-owner | pause | SIGSTOP of the owner for 3-4 s (past the 1.5 s lease), SIGCONT |
| partition-owner-redis | partition | the owner cut off from the Redis primary (and its proxy), both ways |
| partition-nonowner-redis | partition | a node that does not own the room cut off from Redis |
| partition-clients-node | partition | the harness' clients cut off from a node (the node keeps Redis) |
| partition-one-way | partition | owner→Redis dropped with Redis→owner kept, or the reverse |
| redis-kill | redis-kill | SIGKILL of the primary, restarted at the end (as a replica if Sentinel promoted another) |
| failover | failover | Sentinel promotes a replica (SENTINEL FAILOVER, or the primary killed); the old one comes back a replica |
| clock-jump | clock | the owner's wall clock 1 h forward (libfaketime), then back |
| slow-link | slow | the owner's Redis link through the proxy delayed 200-800 ms, then stalled 3 s |
"""

from __future__ import annotations

import asyncio
import random
import signal
from dataclasses import dataclass, field
from typing import Callable

from pytests.robustness.hosts import PROXY, Cut
from pytests.robustness.services import MASTER, Services, wait_for

# name: (kind, (shortest, longest) duration in s)
FAULTS: dict[str, tuple[str, tuple[float, float]]] = {
    "kill-owner": ("kill", (4, 8)),
    "pause-owner": ("pause", (3, 4)),
    "partition-owner-redis": ("partition", (5, 10)),
    "partition-nonowner-redis": ("partition", (5, 10)),
    "partition-clients-node": ("partition", (5, 10)),
    "partition-one-way": ("partition", (5, 10)),
    "redis-kill": ("redis-kill", (3, 6)),
    "failover": ("failover", (6, 10)),
    "clock-jump": ("clock", (6, 12)),
    "slow-link": ("slow", (7, 10)),
}
KINDS = list(FAULTS)
STALL_S = 3.0
CLOCK_JUMP_S = 3600
GAP = (6.0, 12.0)  # quiet between a heal and the next fault
WARMUP = 6.0  # before the first fault
TAIL = 12.0  # after the last heal, before writes stop


@dataclass
class Planned:
    name: str
    start: float
    duration: float
    room: int  # index into the workload's rooms
    pick: float  # in [0, 1): which candidate (node) when there are several
    variant: str = ""  # one-way: "out" or "in"; failover: "command" or "kill"
    delay_ms: int = 0  # slow-link

    def as_json(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if v not in ("", 0) or k in ("start", "room")}


def schedule(seed: int, minutes: float, kinds: list[str] | None = None, warmup: float = WARMUP,
             tail: float = TAIL, gap: tuple[float, float] = GAP) -> list[Planned]:
    """Faults in [warmup, minutes*60 - tail]: first every kind once (in a seeded order, at their
    shortest durations if that is what it takes to fit them all), then seeded picks until full."""
    kinds = list(kinds or KINDS)
    unknown = [k for k in kinds if k not in FAULTS]
    if unknown:
        raise ValueError(f"unknown fault kinds {unknown}; known: {', '.join(KINDS)}")
    rng = random.Random(seed)
    end = minutes * 60 - tail
    first = kinds[:]
    rng.shuffle(first)

    def draw(name: str, shortest: bool) -> tuple[float, float, Planned]:
        lo, hi = FAULTS[name][1]
        duration = lo if shortest else round(rng.uniform(lo, hi), 1)
        pause = gap[0] if shortest else rng.uniform(*gap)
        variant = {"partition-one-way": rng.choice(["out", "in"]),
                   "failover": rng.choice(["command", "kill"])}.get(name, "")
        item = Planned(name, 0.0, duration, rng.randrange(1 << 16), round(rng.random(), 3), variant,
                       rng.randrange(200, 801, 50) if name == "slow-link" else 0)
        return duration, pause, item

    # Every kind once, at drawn durations and gaps if they fit, else at the shortest.
    state = rng.getstate()
    drawn = [draw(name, False) for name in first]
    if warmup + sum(d for d, _, _ in drawn) + sum(g for _, g, _ in drawn[:-1]) > end:
        rng.setstate(state)
        drawn = [draw(name, True) for name in first]
    plan: list[Planned] = []
    t = warmup
    while True:
        duration, pause, item = drawn.pop(0) if drawn else draw(rng.choice(kinds), False)
        item.start = round(t, 1)
        if item.start + duration > end:
            break
        plan.append(item)
        t = item.start + duration + pause
    return plan


@dataclass
class Record:
    name: str
    kind: str
    target: str | None
    start: float
    end: float | None = None
    details: str = ""
    planned: dict = field(default_factory=dict)

    def as_json(self) -> dict:
        return {"name": self.name, "kind": self.kind, "target": self.target, "start": round(self.start, 3),
                "end": None if self.end is None else round(self.end, 3), "details": self.details}


class Player:
    """Plays a schedule against one run's services. `records` is the history's `faults` list."""

    def __init__(self, services: Services, rooms: list[str], clock: Callable[[], float],
                 log: Callable[[str], None] = print, min_gap: float = 4.0):
        self.services = services
        self.hosts = services.hosts
        self.rooms = rooms
        self.clock = clock
        self.log = log
        self.min_gap = min_gap
        self.records: list[dict] = []
        self.skipped: list[str] = []
        self._heal: Callable[[], None] | None = None
        self._current: Record | None = None

    # -- what is possible in this run

    def supported(self, name: str) -> str | None:
        """None when `name` can run with these services, else why not."""
        s = self.services
        if name == "failover" and not s.sentinel_aware():
            return "needs --sentinel and a tandem with --redis-sentinel"
        if name == "clock-jump" and not s.settings.faketime:
            return "needs the nodes under faketime"
        if name == "slow-link" and not s.proxies:
            return "needs the nodes behind proxies (not with Sentinel)"
        if name in ("partition-nonowner-redis",) and len(s.nodes) < 2:
            return "needs two nodes"
        return None

    # -- playing

    async def play(self, plan: list[Planned], until: float) -> list[dict]:
        """Plays `plan` (starting none that would end after `until` on the clock); the records."""
        last_end = 0.0
        try:
            for item in plan:
                reason = self.supported(item.name)
                if reason:
                    self.skipped.append(f"{item.name} at {item.start}: {reason}")
                    continue
                start = max(item.start, last_end + self.min_gap)
                if start + item.duration > until:
                    self.skipped.append(f"{item.name} at {item.start}: would end after {until:.0f} s")
                    continue
                await self._sleep_until(start)
                await self._run(item)
                last_end = self.clock()
        finally:
            await self._abort()
        return self.records

    async def _sleep_until(self, t: float) -> None:
        while (left := t - self.clock()) > 0:
            await asyncio.sleep(min(left, 1.0))

    async def _run(self, item: Planned) -> None:
        kind = FAULTS[item.name][0]
        room = self.rooms[item.room % len(self.rooms)] if self.rooms else "demo"
        method = getattr(self, "_" + item.name.replace("-", "_"))
        record = Record(item.name, kind, None, self.clock(), planned=item.as_json())
        self._current = record
        try:
            await method(item, room, record)
        except Exception as error:  # noqa: BLE001: a fault that could not be played is recorded, the run goes on
            record.details += f" (error: {error!r})"
            self.log(f"fault {item.name} failed: {error!r}")
            await self._abort()
        finally:
            if record.end is None:
                record.end = self.clock()
            self.records.append(record.as_json())
            self._current = None
            self.log(f"fault {record.name} {record.target} {record.start:.1f}-{record.end:.1f} s: {record.details.strip()}")

    async def _abort(self) -> None:
        """Heals whatever fault is in effect (a failure mid-fault, Ctrl-C, the end of the run)."""
        heal, self._heal = self._heal, None
        if heal:
            try:
                await asyncio.shield(asyncio.to_thread(heal))
            except Exception as error:  # noqa: BLE001
                self.log(f"heal failed: {error!r}")
            if self._current and self._current.end is None:
                self._current.end = self.clock()

    async def _hold(self, record: Record, duration: float, heal: Callable[[], None]) -> None:
        """Holds the fault for `duration` from its start, then heals it and stamps the end."""
        self._heal = heal
        await self._sleep_until(record.start + duration)
        self._heal = None
        await asyncio.to_thread(heal)
        record.end = self.clock()

    async def _owner(self, room: str) -> tuple[str, str]:
        """The room's owner node from its lease, and how it was found."""
        try:
            owner = await asyncio.to_thread(self.services.wait_owner, room, 5.0)
            return owner, f"owner of {room} (lease)"
        except TimeoutError:
            node = sorted(self.services.nodes)[0]
            return node, f"no lease of {room} seen in 5 s: {node}"

    def _pick(self, item: Planned, candidates: list[str]) -> str:
        return sorted(candidates)[int(item.pick * len(candidates))]

    def _redis_side(self, node: str) -> list[str]:
        """What a node's Redis link goes to: the primary's host, and the proxy address if it uses one."""
        sides = [self.services.primary()]
        if node in self.services.proxies:
            sides.append(PROXY)
        return sides

    # -- the faults

    async def _kill_owner(self, item: Planned, room: str, record: Record) -> None:
        owner, how = await self._owner(room)
        node = self.services.nodes[owner]
        await asyncio.to_thread(node.kill)
        record.start, record.target, record.details = self.clock(), owner, f"SIGKILL {how}; restarted after {item.duration} s"
        await self._hold(record, item.duration, node.start)

    async def _pause_owner(self, item: Planned, room: str, record: Record) -> None:
        owner, how = await self._owner(room)
        node = self.services.nodes[owner]
        node.signal(signal.SIGSTOP)
        record.start, record.target = self.clock(), owner
        record.details = f"SIGSTOP {how} for {item.duration} s (lease {self.services.settings.lease_s} s), SIGCONT"
        await self._hold(record, item.duration, lambda: node.signal(signal.SIGCONT))

    async def _cut(self, item: Planned, record: Record, pairs: list[tuple[str, str, bool]], target: str, how: str) -> None:
        cuts: list[Cut] = []

        def heal() -> None:
            for cut in cuts:
                self.hosts.heal(cut)

        def cut_all() -> None:
            for a, b, one_way in pairs:
                cuts.append(self.hosts.partition(a, b, one_way=one_way))

        self._heal = heal
        await asyncio.to_thread(cut_all)
        record.start, record.target = self.clock(), target
        record.details = f"{how}: " + ", ".join(c.describe() for c in cuts) + f" for {item.duration} s"
        await self._hold(record, item.duration, heal)

    async def _partition_owner_redis(self, item: Planned, room: str, record: Record) -> None:
        owner, how = await self._owner(room)
        await self._cut(item, record, [(owner, side, False) for side in self._redis_side(owner)], owner, how)

    async def _partition_nonowner_redis(self, item: Planned, room: str, record: Record) -> None:
        owner, how = await self._owner(room)
        node = self._pick(item, [n for n in self.services.nodes if n != owner])
        await self._cut(item, record, [(node, side, False) for side in self._redis_side(node)], node,
                        f"not the {how} ({owner})")

    async def _partition_clients_node(self, item: Planned, room: str, record: Record) -> None:
        node = self._pick(item, list(self.services.nodes))
        await self._cut(item, record, [("harness", node, False)], node, "the harness' clients")

    async def _partition_one_way(self, item: Planned, room: str, record: Record) -> None:
        owner, how = await self._owner(room)
        sides = self._redis_side(owner)
        if item.variant == "in":
            pairs = [(side, owner, True) for side in sides]
            how += ", Redis->owner dropped, owner->Redis kept"
        else:
            pairs = [(owner, side, True) for side in sides]
            how += ", owner->Redis dropped, Redis->owner kept"
        await self._cut(item, record, pairs, owner, how)

    async def _redis_kill(self, item: Planned, room: str, record: Record) -> None:
        services = self.services
        primary = await asyncio.to_thread(services.primary)
        proc = services.redis[primary]
        await asyncio.to_thread(proc.kill)
        record.start, record.target = self.clock(), primary
        record.details = f"SIGKILL of the primary {primary}; restarted after {item.duration} s"

        def restart() -> None:
            now = services.primary() if services.sentinels else primary
            if now != primary:
                proc.replica_of = now
                record.details += f" as a replica of {now} (Sentinel promoted it)"
            proc.start()

        await self._hold(record, item.duration, restart)

    async def _failover(self, item: Planned, room: str, record: Record) -> None:
        services = self.services
        old = await asyncio.to_thread(services.primary)
        proc = services.redis[old]
        record.target = old
        if item.variant == "command":
            sentinel = next(iter(services.sentinels.values()))
            await asyncio.to_thread(sentinel.cmd, "SENTINEL", "FAILOVER", MASTER)
            record.details = f"SENTINEL FAILOVER {MASTER} (primary {old})"
        else:
            await asyncio.to_thread(proc.kill)
            record.details = f"SIGKILL of the primary {old} for Sentinel to promote a replica"
        record.start = self.clock()

        def restore() -> None:
            if not proc.running():
                proc.replica_of = services.primary()
                proc.start()
                record.details += f"; {old} restarted as a replica of {proc.replica_of}"

        self._heal = restore
        try:
            new = await asyncio.to_thread(
                wait_for, lambda: (p := services.primary()) != old and p, 20.0, "a new primary", 0.1)
            record.details += f"; {new} promoted at {self.clock():.1f}"
        except TimeoutError:
            record.details += "; no replica promoted in 20 s"
        await self._hold(record, item.duration, restore)

    async def _clock_jump(self, item: Planned, room: str, record: Record) -> None:
        owner, how = await self._owner(room)
        node = self.services.nodes[owner]
        node.clock_offset(CLOCK_JUMP_S)
        record.start, record.target = self.clock(), owner
        record.details = f"wall clock of the {how} +{CLOCK_JUMP_S} s for {item.duration} s, then back"
        await self._hold(record, item.duration, lambda: node.clock_offset(0))

    async def _slow_link(self, item: Planned, room: str, record: Record) -> None:
        owner, how = await self._owner(room)
        proxy = self.services.proxies[owner]
        proxy.delay(item.delay_ms)
        record.start, record.target = self.clock(), owner
        slow = max(item.duration - STALL_S, 0.0)
        record.details = f"Redis link of the {how} delayed {item.delay_ms} ms for {slow:.1f} s, then stalled {STALL_S} s"
        self._heal = proxy.normal
        await self._sleep_until(record.start + slow)
        proxy.stall()
        await self._hold(record, item.duration, proxy.normal)


def describe(plan: list[Planned]) -> str:
    return "\n".join(f"  {p.start:7.1f} s  {p.name:<26} {p.duration:5.1f} s  {p.variant or ''}" for p in plan)
