"""The robustness suite's checker: proves the properties of a history.

`check(history) -> Result` reads one history (pytests/robustness/HISTORY.md)
and nothing else: no I/O, no processes, no clock. Per room it proves

1. acknowledged writes are in the log, failed ones are not, none twice
   (`lost`, `phantom_fail`, `duplicate`, `phantom_write`);
2. the log's revisions only go up, its epochs never go back
   (`revision_repeat`, `revision_order`, `epoch_back`, `final_mismatch`);
3. every frame a reader got shows a commit of the log, and a reader's
   revisions never go back (`phantom_read`, `time_travel`);
4. per control, writes (the log's commits, placed in the real-time windows of
   the operations that made them) and reads (frame changes) linearize on a
   versioned register, and the log's order respects real time across the
   room (`not_linearizable`);
5. every state seen keeps its control's invariants (`invariant`);
6. every live reader converged on the final revision after the heal
   (`not_converged`);
7. availability per fault (statistics, no violation).

`python -m pytests.robustness.checker history.json` prints the tables of
report.py and exits 1 on any violation.
"""

from __future__ import annotations

import bisect
import json
import math
import os
import sys
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable

if __package__ in (None, ""):  # run as a script: python pytests/robustness/checker.py
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    __package__ = "pytests.robustness"

from . import invariants
from . import linearizable as lin

TOL = 1e-9

KINDS = (
    "lost", "phantom_fail", "duplicate", "phantom_write",
    "revision_repeat", "revision_order", "epoch_back", "final_mismatch",
    "phantom_read", "time_travel", "not_linearizable", "invariant", "not_converged",
)


# ---------------------------------------------------------------- results

@dataclass
class Violation:
    kind: str
    room: str | None
    message: str
    ops: list[str] = field(default_factory=list)
    frames: list[int] = field(default_factory=list)  # indices into history["frames"]
    control: str | None = None
    t: float | None = None  # when it happened on the harness clock, when known

    def __str__(self) -> str:
        where = f"{self.room}/{self.control}" if self.control else f"{self.room}"
        refs = []
        if self.ops:
            refs.append("ops " + ", ".join(self.ops[:4]) + (" …" if len(self.ops) > 4 else ""))
        if self.frames:
            refs.append("frames " + ", ".join(f"#{i}" for i in self.frames[:4]))
        tail = f" [{'; '.join(refs)}]" if refs else ""
        at = f" t={self.t:.3f}" if self.t is not None else ""
        return f"{self.kind:<16} {where}{at}: {self.message}{tail}"


@dataclass
class Partition:
    """The linearizability verdict for one room's control."""

    room: str
    control: str
    status: str  # ok, violation, unknown
    writes: int
    reads: int
    steps: int
    segments: int
    times: list[float] = field(default_factory=list)  # sorted invoke times of its ops


@dataclass
class FaultStat:
    name: str
    kind: str
    target: Any
    start: float
    end: float
    ops: int = 0  # invoked during the fault, all rooms
    ok: int = 0
    failed: int = 0
    info: int = 0
    unavailable_s: float | None = None  # worst over rooms; None: no room had ops
    never_recovered: bool = False
    per_room: dict[str, dict] = field(default_factory=dict)

    @property
    def failed_share(self) -> float:
        return (self.failed + self.info) / self.ops if self.ops else 0.0


@dataclass
class RoomResult:
    room: str
    violations: list[Violation] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)


@dataclass
class Result:
    rooms: dict[str, RoomResult] = field(default_factory=dict)
    violations: list[Violation] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    partitions: list[Partition] = field(default_factory=list)
    faults: list[FaultStat] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.violations

    def kinds(self) -> set[str]:
        return {v.kind for v in self.violations}

    def of(self, kind: str) -> list[Violation]:
        return [v for v in self.violations if v.kind == kind]

    def to_dict(self) -> dict:
        return {
            "valid": self.valid,
            "violations": [asdict(v) for v in self.violations],
            "stats": self.stats,
            "rooms": {r: {"violations": len(rr.violations), "stats": rr.stats} for r, rr in self.rooms.items()},
            "partitions": [{k: v for k, v in asdict(p).items() if k != "times"} for p in self.partitions],
            "faults": [asdict(f) | {"failed_share": f.failed_share} for f in self.faults],
        }


# ---------------------------------------------------------------- states

def _num(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def value_eq(a: Any, b: Any) -> bool:
    if _num(a) and _num(b):
        return a == b or abs(a - b) <= TOL * max(1.0, abs(a), abs(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(value_eq(a[k], b[k]) for k in a)
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, str) and isinstance(b, str):
        return a.upper() == b.upper() if a.startswith("#") else a == b
    return a == b


def state_eq(a: Any, b: Any) -> bool:
    return value_eq(a, b)


def state_within(part: Any, whole: Any) -> bool:
    """Every field of `part` is in `whole` with the same value (an op's value may omit derived fields)."""
    if not (isinstance(part, dict) and isinstance(whole, dict)):
        return value_eq(part, whole)
    return all(k in whole and value_eq(v, whole[k]) for k, v in part.items())


def _key(state: Any) -> str:
    """A hashable form of a state, numbers to 12 significant digits."""
    def norm(x: Any) -> Any:
        if _num(x):
            return float(f"{x:.12g}")
        if isinstance(x, dict):
            return {k: norm(x[k]) for k in sorted(x)}
        return x
    return json.dumps(norm(state), sort_keys=True)


def _short(state: Any) -> str:
    return json.dumps(state, separators=(",", ":"), sort_keys=True) if state is not None else "null"


# ---------------------------------------------------------------- ops

@dataclass
class OpRec:
    id: str
    process: str
    room: str
    control: str
    f: str
    value: Any
    invoke: float
    type: str  # ok, fail, info (pending at the end counts as info)
    end: float | None  # completion time; None for info
    client: str | None = None
    node: str | None = None
    seq: Any = None
    rev: int | None = None
    state: Any = None
    code: Any = None
    noop: bool | None = None  # the workload's word: True, the op changed nothing; False, it committed
    entry: int | None = None  # the log entry (index) it claimed
    rev_from: str | None = None  # known, state, order

    @property
    def unsure(self) -> bool:
        """An acknowledged step or drag whose commit nobody saw: it may have
        been a no-op (a step at the end, a drag released where it began make
        no revision), so its entry is neither required nor known to be its own."""
        return self.type == "ok" and self.f in ("step", "drag") and self.rev is None and self.state is None \
            and self.noop is not False


def pair_ops(events: Iterable[dict]) -> tuple[list[OpRec], list[str]]:
    """Invocations joined with their ends; problems with the records themselves."""
    open_: dict[str, dict] = {}
    ops: list[OpRec] = []
    notes: list[str] = []
    for ev in events:
        oid = str(ev.get("id"))
        kind = ev.get("type")
        if kind == "invoke":
            if oid in open_:
                notes.append(f"op {oid} invoked twice")
            open_[oid] = ev
            continue
        inv = open_.pop(oid, None)
        if inv is None:
            notes.append(f"op {oid} ends ({kind}) without an invoke")
            continue
        merged = {**inv, **{k: v for k, v in ev.items() if v is not None}}
        ops.append(_oprec(oid, inv, merged, kind, ev.get("t")))
    for oid, inv in open_.items():
        ops.append(_oprec(oid, inv, inv, "info", None))
    ops.sort(key=lambda o: (o.invoke, o.id))
    return ops, notes


def _oprec(oid: str, inv: dict, merged: dict, kind: str, end_t: float | None) -> OpRec:
    return OpRec(
        id=oid, process=str(merged.get("process")), room=merged.get("room"), control=merged.get("control"),
        f=inv.get("f") or merged.get("f"), value=inv.get("value"), invoke=float(inv.get("t", 0.0)),
        type=kind if kind in ("ok", "fail", "info") else "info",
        end=float(end_t) if (kind in ("ok", "fail") and end_t is not None) else None,
        client=merged.get("client"), node=merged.get("node"), seq=merged.get("seq"),
        rev=merged.get("rev") if kind == "ok" else None,
        state=merged.get("state") if kind == "ok" else None,
        code=merged.get("code"), noop=merged.get("noop"),
    )


# ---------------------------------------------------------------- the room

class _Room:
    """One room's log, schema and indexes."""

    def __init__(self, room: str, history: dict):
        self.room = room
        final = (history.get("final") or {}).get(room) or {}
        self.final = final
        self.log: list[dict] = list(final.get("log") or [])
        self.revision = final.get("revision")
        if self.revision is None and self.log:
            self.revision = max(e.get("rev", 0) for e in self.log)
        controls = ((history.get("rooms") or {}).get(room) or {}).get("controls") or []
        self.schema: dict[str, dict] = {c.get("id"): c for c in controls if isinstance(c, dict)}
        self.at: dict[tuple[int, str], int] = {}
        self.by_control: dict[str, list[int]] = defaultdict(list)  # entry indices in rev order
        self.by_cc: dict[tuple[str, Any], list[int]] = defaultdict(list)
        for i, e in enumerate(self.log):
            self.at.setdefault((e.get("rev"), e.get("control")), i)
        for i in sorted(range(len(self.log)), key=lambda i: (self.log[i].get("rev", 0), i)):
            e = self.log[i]
            self.by_control[e.get("control")].append(i)
            self.by_cc[(e.get("control"), e.get("client"))].append(i)
        self.revs_of: dict[str, list[int]] = {c: [self.log[i].get("rev", 0) for i in idx] for c, idx in self.by_control.items()}

    def initial(self, control: str) -> Any:
        schema = self.schema.get(control)
        return invariants.initial_state(schema) if schema else None

    def as_of(self, control: str, rev: int) -> tuple[int | None, Any]:
        """(entry index, state) of the control's last commit at or below `rev`; (None, initial) when none."""
        revs = self.revs_of.get(control, [])
        k = bisect.bisect_right(revs, rev)
        if k == 0:
            return None, self.initial(control)
        i = self.by_control[control][k - 1]
        return i, self.log[i].get("state")


class _Lower:
    """The highest revision known committed before a time (acks and frames): a lower bound for later commits."""

    def __init__(self, points: list[tuple[float, int]]):
        points.sort()
        self.times = [t for t, _ in points]
        self.best: list[int] = []
        m = 0
        for _, r in points:
            m = max(m, r)
            self.best.append(m)

    def before(self, t: float) -> int:
        k = bisect.bisect_left(self.times, t)
        return self.best[k - 1] if k else 0


class _Collector:
    def __init__(self, cap: int):
        self.cap = cap
        self.items: list[Violation] = []
        self.counts: dict[tuple[str, str | None], int] = defaultdict(int)
        self.suppressed = 0

    def add(self, v: Violation) -> None:
        key = (v.kind, v.room)
        self.counts[key] += 1
        if self.counts[key] > self.cap:
            self.suppressed += 1
            return
        self.items.append(v)


# ---------------------------------------------------------------- 1. ops against the log

def _fits(r: _Room, op: OpRec, i: int, lower: _Lower) -> bool:
    """Whether log entry `i` may be `op`'s commit (the client and control are the caller's)."""
    e = r.log[i]
    # Never below a revision known before the op was sent (an ack or a frame showed it).
    after = e.get("rev", 0) > lower.before(op.invoke)
    if op.state is not None:
        return after and state_within(op.state, e.get("state"))
    if op.f == "set" and op.value is not None:
        return after and state_within(op.value, e.get("state"))
    return after


def _candidates(r: _Room, op: OpRec, lower: _Lower) -> list[int]:
    pool = r.by_cc.get((op.control, op.client), []) if op.client is not None else r.by_control.get(op.control, [])
    return [i for i in pool if _fits(r, op, i, lower)]


def _augment(op_index: int, cands: list[list[int]], owner: dict[int, int], fixed: set[int]) -> bool:
    """Kuhn's augmenting path from op `op_index` (iterative DFS)."""
    # First a free candidate, the lowest revision: almost always enough.
    for e in cands[op_index]:
        if e not in owner and e not in fixed:
            owner[e] = op_index
            return True
    seen: set[int] = set()
    stack: list[tuple[int, int]] = [(op_index, 0)]
    path: list[tuple[int, int]] = []  # (op, entry) edges taken
    while stack:
        o, k = stack.pop()
        while k < len(cands[o]):
            e = cands[o][k]
            k += 1
            if e in seen or e in fixed:
                continue
            seen.add(e)
            holder = owner.get(e)
            if holder is None:
                path.append((o, e))
                for po, pe in path:
                    owner[pe] = po
                return True
            stack.append((o, k))
            path.append((o, e))
            stack.append((holder, 0))
            break
        else:
            if path:
                path.pop()
    return False


def _match(r: _Room, ops: list[OpRec], lower: _Lower, out: _Collector) -> dict[str, Any]:
    claims: dict[int, OpRec] = {}
    # Acknowledged with a known revision: that entry, exactly.
    for op in ops:
        if op.type != "ok" or op.rev is None:
            continue
        i = r.at.get((op.rev, op.control))
        if i is None:
            out.add(Violation("lost", r.room, f"acknowledged {op.f} at rev {op.rev} has no log entry for {op.control} there",
                              [op.id], control=op.control, t=op.invoke))
            continue
        e = r.log[i]
        expect = op.state if op.state is not None else (op.value if op.f == "set" else None)
        if expect is not None and not state_within(expect, e.get("state")):
            out.add(Violation("lost", r.room, f"acknowledged {op.f} {_short(expect)} at rev {op.rev}, the log has {_short(e.get('state'))}",
                              [op.id], control=op.control, t=op.invoke))
            continue
        if op.client is not None and e.get("client") is not None and e.get("client") != op.client:
            out.add(Violation("lost", r.room, f"acknowledged {op.f} by {op.client} at rev {op.rev}, the log's entry is by {e.get('client')}",
                              [op.id], control=op.control, t=op.invoke))
            continue
        if i in claims:
            out.add(Violation("lost", r.room, f"acknowledged at rev {op.rev}, an entry op {claims[i].id} claims too",
                              [op.id, claims[i].id], control=op.control, t=op.invoke))
            continue
        claims[i] = op
        op.entry, op.rev_from = i, "known"
    fixed = set(claims)

    # The rest: a maximum matching, acknowledged ops first (they must all
    # match), then infos (at most one entry each); augmenting paths never
    # unmatch an op, only move it.
    # An op the workload knows changed nothing (noop) claims nothing: an
    # entry that fits it is reported below.
    pending = [op for op in ops if op.type == "ok" and op.rev is None and not op.unsure and not op.noop] + \
        [op for op in ops if (op.type == "info" or op.unsure) and not op.noop]
    cands = [_candidates(r, op, lower) for op in pending]
    owner: dict[int, int] = {}
    unconfirmed = 0
    for k, op in enumerate(pending):
        if _augment(k, cands, owner, fixed):
            continue
        if op.unsure:
            unconfirmed += 1
        elif op.type == "ok":
            what = _short(op.state if op.state is not None else op.value) if (op.state is not None or op.f == "set") else f"a {op.f} after rev {lower.before(op.invoke)}"
            why = "no log entry" if not cands[k] else f"its {len(cands[k])} candidate entries are claimed by other ops"
            out.add(Violation("lost", r.room, f"acknowledged {op.f} {what} by {op.client}: {why}",
                              [op.id], control=op.control, t=op.invoke))
    for e, k in owner.items():
        op = pending[k]
        op.entry, op.rev_from = e, ("state" if (op.state is not None or op.f == "set") else "order")
        claims[e] = op

    # Within one client and control, commits follow the sends. Ops placed by
    # order only (steps, drags: no state) get their entries in revision
    # order (still after each one's lower bound, which only grows); so do
    # ops with the same state (a writer may send one state twice, not in a
    # row), whose candidates are the same entries.
    groups: dict[tuple, list[OpRec]] = defaultdict(list)
    for op in pending:
        if op.rev_from == "order":
            groups[(op.control, op.client)].append(op)
        elif op.rev_from == "state" and op.type == "ok":
            # Acknowledged ones only: an info op may or may not have happened, so it has no
            # place in the order (a writer sends one state many times over a long run).
            groups[(op.control, op.client, _key(op.state if op.state is not None else op.value))].append(op)
    for group in groups.values():
        entries = sorted((op.entry for op in group), key=lambda i: r.log[i].get("rev", 0))
        for op, i in zip(sorted(group, key=lambda o: (o.invoke, o.id)), entries):
            op.entry = i
            claims[i] = op

    # Entries nobody claims: a failed op's effect, an op applied twice, or a
    # commit no op asked for.
    by_key: dict[tuple, list[OpRec]] = defaultdict(list)
    for op in ops:
        by_key[(op.control, op.client)].append(op)
        by_key[(op.control, None)].append(op)
    clients = {op.client for op in ops if op.client is not None}
    unexplained = 0
    live_extra = 0
    for i, e in enumerate(r.log):
        if i in claims:
            continue
        control, client = e.get("control"), e.get("client")
        near = by_key.get((control, client), []) + [op for op in by_key.get((control, None), []) if op.client is None]
        fitting = [op for op in near if _fits(r, op, i, lower)]
        failed = [op for op in fitting if op.type == "fail"]
        done = [op for op in fitting if op.type != "fail" and op.entry is not None]
        live = (r.schema.get(control) or {}).get("commit") == "live"
        if failed:
            out.add(Violation("phantom_fail", r.room, f"failed {failed[0].f} {_short(failed[0].value)} ({failed[0].code}) is in the log at rev {e.get('rev')}",
                              [failed[0].id], control=control, t=failed[0].invoke))
        elif done and live and any(op.f == "drag" for op in done):
            live_extra += 1  # a live drag commits every move
        elif done:
            o = done[0]
            out.add(Violation("duplicate", r.room, f"{o.type} {o.f} {_short(o.value)} matches rev {r.log[o.entry].get('rev')} and again rev {e.get('rev')}",
                              [o.id], control=control, t=o.invoke))
        elif client in clients:
            out.add(Violation("phantom_write", r.room, f"rev {e.get('rev')} by {client} ({_short(e.get('state'))}) matches no operation",
                               control=control))
        else:
            unexplained += 1
    return {"claimed_entries": len(claims), "foreign_entries": unexplained, "live_drag_entries": live_extra,
            "gestures_unconfirmed": unconfirmed}


# ---------------------------------------------------------------- 2. the log itself

def _check_log(r: _Room, out: _Collector) -> None:
    last_rev = None
    last_epoch = None
    epoch_of: dict[int, Any] = {}
    seen: dict[tuple[int, str], int] = {}
    for i, e in enumerate(r.log):
        rev, control = e.get("rev"), e.get("control")
        if last_rev is not None and rev is not None:
            if rev == last_rev or (rev, control) in seen:
                out.add(Violation("revision_repeat", r.room, f"rev {rev} appears again (entries {seen.get((rev, control), i - 1)} and {i})", control=control))
            elif rev < last_rev:
                out.add(Violation("revision_order", r.room, f"rev {rev} after rev {last_rev} in the log", control=control))
        seen.setdefault((rev, control), i)
        ep = e.get("epoch")
        if ep is not None:
            if rev in epoch_of and epoch_of[rev] != ep:
                out.add(Violation("epoch_back", r.room, f"rev {rev} written under epochs {epoch_of[rev]} and {ep}", control=control))
            epoch_of.setdefault(rev, ep)
            if last_epoch is not None and ep < last_epoch:
                out.add(Violation("epoch_back", r.room, f"rev {rev} has epoch {ep} after epoch {last_epoch}", control=control))
            last_epoch = ep if last_epoch is None else max(last_epoch, ep)
        if rev is not None:
            last_rev = rev if last_rev is None else max(last_rev, rev)
        schema = r.schema.get(control)
        if schema:
            for p in invariants.problems(schema, e.get("state")):
                out.add(Violation("invariant", r.room, f"log rev {rev}: {p}", control=control))
    if r.log and r.revision is not None and last_rev is not None and r.revision < last_rev:
        out.add(Violation("final_mismatch", r.room, f"final revision {r.revision} below the log's rev {last_rev}"))
    for control, state in (r.final.get("states") or {}).items():
        i, expected = r.as_of(control, math.inf)
        if expected is not None and not state_eq(state, expected):
            out.add(Violation("final_mismatch", r.room, f"final state {_short(state)} is not the log's last {_short(expected)}", control=control))


# ---------------------------------------------------------------- 3. frames

@dataclass
class _Read:
    control: str
    rev: int
    invoke: float
    complete: float
    frame: int


@dataclass
class _Frozen:
    """A fault's frozen window for one room: from `start`, a connection's frames may show any state
    since `start` until `until` (the fault's end plus the catch-up floor), and after that for as long
    as the connection has not been shown the room caught up — at or past `caught_up_rev` (the highest
    revision known committed when the fault ended) and at most `fresh` seconds behind the room —, but
    not past `limit`."""
    start: float
    end: float
    until: float
    limit: float
    caught_up_rev: int


def _check_frames(r: _Room, frames: list[tuple[int, dict]], out: _Collector, slack: float,
                  opened: dict[tuple, float], frozen: list[_Frozen], lower: _Lower | None = None,
                  fresh: float = 0.5, together: float = 0.002) -> tuple[list[_Read], dict]:
    """Frames against the log; the reads they make. `opened`: (process, conn) -> when the connection was
    opened. `frozen`: the faults' windows, in which a read may show any state since the fault began."""
    reads: list[_Read] = []
    relaxed = 0
    # Per connection and fault: when the connection was first shown the room caught up (a frame
    # received after the end, at or past `caught_up_rev` and at or past the highest revision known
    # committed `fresh` s before the frame): it has replayed the backlog, including what was
    # committed while it replayed (a view replaying slower than the room writes lags on).
    caught: dict[tuple, list[float | None]] = {}
    catchup_worst = 0.0
    conn_rev: dict[tuple, int] = {}
    conn_control: dict[tuple, int] = {}
    conn_last_t: dict[tuple, float] = {}
    conn_last_invoke: dict[tuple, float] = {}
    proc_max: dict[str, int] = defaultdict(int)
    proc_last_t: dict[str, float] = {}
    proc_conn: dict[str, Any] = {}
    prior_max: dict[tuple, int] = {}
    changes = 0
    for fi, fr in frames:
        proc, conn, t = fr.get("process"), fr.get("conn"), float(fr.get("t", 0.0))
        key = (proc, conn)
        rev = fr.get("rev")
        kind = fr.get("kind")
        if key not in prior_max:  # a new connection of this process
            prior_max[key] = proc_max[proc] if proc in proc_max else -1
        if kind == "welcome" and fr.get("since") is not None and rev is not None:
            before = prior_max[key]
            if before >= 0 and rev < before:
                out.add(Violation("time_travel", r.room, f"{proc} resumed (since={fr.get('since')}) at rev {rev} below rev {before} it saw before",
                                  frames=[fi], t=t))
            if rev < fr["since"]:
                out.add(Violation("time_travel", r.room, f"{proc} welcome since={fr['since']} at rev {rev}", frames=[fi], t=t))
        if rev is not None:
            if key in conn_rev and rev < conn_rev[key]:
                out.add(Violation("time_travel", r.room, f"{proc} conn {conn}: rev {rev} after rev {conn_rev[key]}", frames=[fi], t=t))
            conn_rev[key] = max(rev, conn_rev.get(key, rev))
            proc_max[proc] = max(proc_max.get(proc, rev), rev)
            if r.revision is not None and rev > r.revision:
                out.add(Violation("phantom_read", r.room, f"{proc} saw rev {rev}, the final revision is {r.revision}", frames=[fi], t=t))
        if kind == "welcome" or key not in conn_last_t:
            invoke = fr.get("opened", opened.get(key))
            if invoke is None:
                invoke = proc_last_t.get(proc, 0.0)
        elif t - conn_last_t[key] <= together:
            # Read in one go with the previous frame (both were waiting in the socket): it may have
            # been sent before the previous one was read, so its window opens where the previous
            # frame's did (sound: a connection's frames are sent in order).
            invoke = conn_last_invoke[key] + slack
        else:
            invoke = conn_last_t[key]
        invoke = min(float(invoke), t) - slack
        marks = caught.setdefault(key, [None] * len(frozen))
        since_fault = None
        for k, f in enumerate(frozen):
            if f.start <= t and (t <= f.until or (marks[k] is None and t <= f.limit)):
                since_fault = f.start if since_fault is None else min(since_fault, f.start)
            if marks[k] is None and t >= f.end and rev is not None and rev >= f.caught_up_rev \
                    and (lower is None or rev >= lower.before(t - fresh)):
                marks[k] = t
                catchup_worst = max(catchup_worst, t - f.end)
        if since_fault is not None and invoke > since_fault:
            invoke = since_fault  # a view cut off or paused since the fault began shows what it had then
            relaxed += 1
        conn_last_t[key] = t
        conn_last_invoke[key] = invoke
        proc_last_t[proc] = t
        proc_conn[proc] = conn
        for ch in fr.get("changes") or []:
            changes += 1
            control, state, crev = ch.get("control"), ch.get("state"), ch.get("rev")
            schema = r.schema.get(control)
            if schema:
                for p in invariants.problems(schema, state):
                    out.add(Violation("invariant", r.room, f"{proc} saw {_short(state)}: {p}", frames=[fi], control=control, t=t))
            if crev is None:
                crev = rev if rev is not None else 0
            if rev is not None and crev > rev:
                out.add(Violation("phantom_read", r.room, f"{proc}: change at rev {crev} in a frame of rev {rev}", frames=[fi], control=control, t=t))
            ckey = (proc, conn, control)
            if ckey in conn_control and crev < conn_control[ckey]:
                out.add(Violation("time_travel", r.room, f"{proc} conn {conn}: {control} rev {crev} after rev {conn_control[ckey]}",
                                  frames=[fi], control=control, t=t))
            conn_control[ckey] = max(crev, conn_control.get(ckey, crev))
            if kind == "welcome":
                # The control as of the welcome: its last commit at or below
                # the rev shown, or its initial state.
                i, expected = r.as_of(control, crev)
                seen_rev = r.log[i].get("rev", 0) if i is not None else 0
                if expected is None:
                    continue  # no commit and no schema: nothing to compare
            elif crev == 0 and (crev, control) not in r.at:
                i, expected, seen_rev = None, r.initial(control), 0  # never changed: the initial state
                if expected is None:
                    continue
            else:
                i = r.at.get((crev, control))
                if i is None:
                    out.add(Violation("phantom_read", r.room, f"{proc} saw {control} = {_short(state)} at rev {crev}: no such commit in the log",
                                      frames=[fi], control=control, t=t))
                    continue
                expected, seen_rev = r.log[i].get("state"), crev
            if not state_eq(state, expected):
                out.add(Violation("phantom_read", r.room, f"{proc} saw {control} = {_short(state)} at rev {crev}, the log has {_short(expected)}",
                                  frames=[fi], control=control, t=t))
                continue
            by = ch.get("by")
            if i is not None and by is not None and r.log[i].get("client") is not None and by != r.log[i].get("client"):
                out.add(Violation("phantom_read", r.room, f"{proc} saw {control} rev {crev} by {by}, the log says {r.log[i].get('client')}",
                                  frames=[fi], control=control, t=t))
                continue
            reads.append(_Read(control, seen_rev, invoke, t, fi))
    return reads, {"frames": len(frames), "changes": changes, "frames_relaxed": relaxed, "catchup_s": catchup_worst}


# ---------------------------------------------------------------- 4. linearizability

def _close_open_writes(writes: list[lin.Op], reads: list[lin.Op]) -> None:
    by_value: dict[Any, tuple[list[lin.Op], list[lin.Op]]] = defaultdict(lambda: ([], []))
    for w in writes:
        by_value[w.value][0].append(w)
    for rd in reads:
        by_value[rd.value][1].append(rd)
    best = math.inf
    for v in sorted(by_value, reverse=True):
        ws, rs = by_value[v]
        for rd in rs:
            best = min(best, rd.complete)
        for w in ws:
            if w.complete is None and best < math.inf:
                w.complete = max(best, w.invoke)
        for w in ws:
            if w.complete is not None:
                best = min(best, w.complete)


def _linearize(r: _Room, ops: list[OpRec], reads: list[_Read], budget: int, out: _Collector,
               stale: list) -> list[Partition]:
    """Per control: the search; `stale` gets [worst staleness s, read id, control]."""
    claimer: dict[int, OpRec] = {op.entry: op for op in ops if op.entry is not None}
    per_control_writes: dict[str, list[lin.Op]] = defaultdict(list)
    for i, e in enumerate(r.log):
        op = claimer.get(i)
        rev = e.get("rev", 0)
        if op is None:
            w = lin.Op("w", rev, 0.0, None, id=f"log@{rev}")
        elif op.type == "ok" and op.end is not None and not op.unsure:
            w = lin.Op("w", rev, op.invoke, max(op.end, op.invoke), id=op.id)
        else:
            w = lin.Op("w", rev, op.invoke, None, id=op.id)
        per_control_writes[e.get("control")].append(w)
    per_control_reads: dict[str, list[lin.Op]] = defaultdict(list)
    for rd in reads:
        per_control_reads[rd.control].append(lin.Op("r", rd.rev, rd.invoke, rd.complete, id=f"frame#{rd.frame}"))

    parts: list[Partition] = []
    for control in sorted(set(per_control_writes) | set(per_control_reads), key=str):
        writes, rds = per_control_writes[control], per_control_reads[control]
        # A write with no return took effect before anything that shows its
        # version or a later one returned: its window closes there (implied
        # by the model, so sound, and it lets the history be cut).
        _close_open_writes(writes, rds)
        all_ops = writes + rds
        # Staleness: how long after a later version was acknowledged a read
        # still returned an older one (0 when fresh): what a lagging view costs.
        later = sorted((w.value, w.complete) for w in writes if w.complete is not None)
        suffix: list[float] = [math.inf] * (len(later) + 1)
        for k in range(len(later) - 1, -1, -1):
            suffix[k] = min(suffix[k + 1], later[k][1])
        keys = [v for v, _ in later]
        for o in rds:
            first = suffix[bisect.bisect_right(keys, o.value)]
            lag = o.complete - first
            if lag > stale[0]:
                stale[:] = [lag, o.id, control]
        segments = lin.split_quiescent(all_ops)
        state = 0
        status, steps = "ok", 0
        for seg in segments:
            model = lin.VersionedRegister(state, [o.value for o in seg if o.kind == "w"])
            outcome = lin.check(seg, model, budget=max(1, budget - steps))
            steps += outcome.steps
            if outcome.status == "violation":
                status = "violation"
                b = outcome.blocked
                what = f"read {b.id} of rev {b.value} [{b.invoke:.3f}, {b.complete:.3f}]" if b is not None and b.kind == "r" else \
                    (f"write {b.id} of rev {b.value} [{b.invoke:.3f}, {b.complete if b.complete is not None else 'open'}]" if b else "?")
                frames = [int(b.id.split("#")[1])] if b is not None and b.kind == "r" else []
                opids = [b.id] if b is not None and b.kind == "w" else []
                out.add(Violation("not_linearizable", r.room,
                                  f"no linearization of {len(seg)} ops: {what} cannot be placed after rev {outcome.state} ({outcome.placed} placed)",
                                  opids, frames, control=control, t=b.invoke if b else None))
                break
            if outcome.status == "unknown":
                status = "unknown"
                break
            ws = [o.value for o in seg if o.kind == "w"]
            if ws:
                state = max(state, max(ws))
        parts.append(Partition(r.room, str(control), status, len(writes), len(rds), steps, len(segments),
                               sorted(o.invoke for o in all_ops)))
    return parts


def _real_time_order(r: _Room, ops: list[OpRec], out: _Collector) -> None:
    """Across the room: an op acknowledged before another was invoked commits at a lower revision."""
    placed = [op for op in ops if op.entry is not None]
    done = sorted((op for op in placed if op.end is not None and not op.unsure), key=lambda o: o.end)
    k = 0
    best: OpRec | None = None
    best_rev = -1
    for b in sorted(placed, key=lambda o: o.invoke):
        while k < len(done) and done[k].end < b.invoke:
            a = done[k]
            ra = r.log[a.entry].get("rev", 0)
            if ra > best_rev:
                best, best_rev = a, ra
            k += 1
        rb = r.log[b.entry].get("rev", 0)
        if best is not None and best_rev >= rb:
            out.add(Violation("not_linearizable", r.room,
                              f"op {best.id} acknowledged at {best.end:.3f} with rev {best_rev}, then op {b.id} invoked at {b.invoke:.3f} committed rev {rb}",
                              [best.id, b.id], control=b.control, t=b.invoke))


# ---------------------------------------------------------------- 6, 7

def _convergence(history: dict, rooms: dict[str, _Room], ops: list[OpRec], bound: float, out: _Collector) -> dict:
    faults = history.get("faults") or []
    fault_end = max((float(f.get("end") or f.get("start") or 0) for f in faults), default=0.0)
    times = [o.invoke for o in ops] + [o.end for o in ops if o.end is not None and o.type == "ok"]
    stop = (history.get("stop") or {}).get("started")
    writes_stop = max(times + ([float(stop)] if stop is not None else []), default=0.0)
    heal = max(fault_end, writes_stop)
    worst = 0.0
    checked = 0
    for rd in history.get("reads_after_heal") or []:
        room = rd.get("room")
        r = rooms.get(room)
        final = r.revision if r else None
        checked += 1
        at = rd.get("converged_at")
        if at is None:
            out.add(Violation("not_converged", room, f"{rd.get('process')} never saw the final revision {final} (last rev {rd.get('last_rev')})",
                              t=heal))
            continue
        late = float(at) - heal
        worst = max(worst, late)
        if late > bound:
            out.add(Violation("not_converged", room, f"{rd.get('process')} saw the final revision {late:.2f} s after the heal (bound {bound} s)", t=float(at)))
        elif final is not None and rd.get("last_rev") is not None and rd["last_rev"] != final:
            out.add(Violation("not_converged", room, f"{rd.get('process')} ends at rev {rd['last_rev']}, the final revision is {final}", t=float(at)))
    return {"heal_at": heal, "readers_checked": checked, "worst_convergence_s": worst}


def _availability(history: dict, ops: list[OpRec]) -> list[FaultStat]:
    end_of_run = max([o.invoke for o in ops] + [o.end for o in ops if o.end is not None] +
                     [float(f.get("t", 0)) for f in history.get("frames") or []], default=0.0)
    by_room: dict[str, list[OpRec]] = defaultdict(list)
    for op in ops:
        by_room[op.room].append(op)
    stats: list[FaultStat] = []
    for f in history.get("faults") or []:
        start = float(f.get("start", 0.0))
        end = float(f.get("end") if f.get("end") is not None else start)
        fs = FaultStat(str(f.get("name", f.get("kind"))), str(f.get("kind")), f.get("target"), start, end)
        for room, rops in by_room.items():
            during = [o for o in rops if start <= o.invoke <= end]
            acked = [o.end for o in rops if o.type == "ok" and o.end is not None and o.invoke >= start]
            window = (min(acked) - start) if acked else None
            fs.per_room[room] = {"ops": len(during), "unavailable_s": window if window is not None else end_of_run - start,
                                 "recovered": window is not None}
            fs.ops += len(during)
            fs.ok += sum(o.type == "ok" for o in during)
            fs.failed += sum(o.type == "fail" for o in during)
            fs.info += sum(o.type == "info" for o in during)
            w = window if window is not None else end_of_run - start
            if fs.unavailable_s is None or w > fs.unavailable_s:
                fs.unavailable_s = w
            if window is None:
                fs.never_recovered = True
        stats.append(fs)
    return stats


# ---------------------------------------------------------------- check

def check(history: dict, *, convergence_bound: float = 5.0, read_slack: float = 0.0, reads: bool = True,
          frozen_views: bool = True, catchup: float = 2.0, catchup_limit: float = 15.0, fresh: float = 0.5,
          step_budget: int = 200_000,
          cap_per_kind: int = 100) -> Result:
    """Every property of the module doc over `history`.

    `convergence_bound`: seconds after the heal (the later of the last fault's
    end and the last op) within which every reader must show the final
    revision. `read_slack`: seconds a frame's read window opens earlier than
    the connection's previous frame (0: the strict model; a view that lags
    may need some). `reads`: False checks writes only. `frozen_views`: a
    frame received during a fault or up to `catchup` seconds after its end
    may show the state of any moment since the fault began (a node paused,
    or cut off from Redis, serves its view as it was, then replays the
    owner's publications in order; scale-out.md promises no fresher reads),
    and so may a later frame on a connection not yet shown the room as it
    was at the fault's end (it is still replaying), up to `catchup_limit`
    seconds after the end; False holds those frames to the strict window too. `fresh`: how far behind
    the room (seconds) a connection's frame may be and still count as caught up. `step_budget`: the
    search's steps per control before it answers unknown. `cap_per_kind`:
    violations kept per kind and room (the rest are counted).
    """
    out = _Collector(cap_per_kind)
    ops, notes = pair_ops(history.get("ops") or [])
    room_ids = list(dict.fromkeys(list((history.get("rooms") or {}).keys()) + list((history.get("final") or {}).keys())
                                  + [o.room for o in ops]))
    rooms = {rid: _Room(rid, history) for rid in room_ids}
    frames_by_room: dict[str, list[tuple[int, dict]]] = defaultdict(list)
    for i, fr in enumerate(history.get("frames") or []):
        frames_by_room[fr.get("room")].append((i, fr))
    ops_by_room: dict[str, list[OpRec]] = defaultdict(list)
    for op in ops:
        ops_by_room[op.room].append(op)
    # When each reader connection was opened (the workload's `connections`):
    # a welcome's read window starts there.
    opened = {(c.get("process"), c.get("conn")): float(c["t_open"]) for c in history.get("connections") or []
              if c.get("conn") is not None and c.get("t_open") is not None}
    windows = []
    if frozen_views:
        for f in history.get("faults") or []:
            start = float(f.get("start", 0.0))
            end = float(f.get("end") if f.get("end") is not None else start)
            windows.append((start, end))

    result = Result()
    for rid, r in rooms.items():
        before = len(out.items)
        rops = ops_by_room.get(rid, [])
        points = [(o.end, o.rev) for o in rops if o.type == "ok" and o.rev is not None and o.end is not None]
        points += [(float(fr.get("t", 0)), fr["rev"]) for _, fr in frames_by_room.get(rid, [])
                   if fr.get("rev") is not None and (r.revision is None or fr["rev"] <= r.revision)]
        lower = _Lower(points)
        _check_log(r, out)
        match_stats = _match(r, rops, lower, out)
        frozen = [_Frozen(start, end, end + catchup, end + max(catchup, catchup_limit), lower.before(end))
                  for start, end in windows]
        rds, frame_stats = _check_frames(r, frames_by_room.get(rid, []), out, read_slack, opened, frozen, lower, fresh)
        stale: list = [0.0, None, None]
        parts = _linearize(r, rops, rds if reads else [], step_budget, out, stale)
        _real_time_order(r, rops, out)
        result.partitions.extend(parts)
        rr = RoomResult(rid)
        rr.stats = {
            "ops": len(rops),
            "ok": sum(o.type == "ok" for o in rops), "fail": sum(o.type == "fail" for o in rops),
            "info": sum(o.type == "info" for o in rops),
            "log_entries": len(r.log), "final_revision": r.revision,
            "reads": len(rds), **frame_stats, **match_stats,
            "linearizable": {s: sum(p.status == s for p in parts) for s in ("ok", "violation", "unknown")},
            "search_steps": sum(p.steps for p in parts),
            "stale_read_s": stale[0], "stale_read": f"{stale[2]} {stale[1]}" if stale[1] else None,
        }
        rr.violations = out.items[before:]
        result.rooms[rid] = rr
    before = len(out.items)
    conv = _convergence(history, rooms, ops, convergence_bound, out)
    for v in out.items[before:]:
        if v.room in result.rooms:
            result.rooms[v.room].violations.append(v)
    result.faults = _availability(history, ops)
    result.violations = list(out.items)
    counts: dict[str, int] = defaultdict(int)
    for (kind, _), n in out.counts.items():
        counts[kind] += n
    result.stats = {
        "ops": len(ops), "ok": sum(o.type == "ok" for o in ops), "fail": sum(o.type == "fail" for o in ops),
        "info": sum(o.type == "info" for o in ops), "frames": len(history.get("frames") or []),
        "rooms": len(rooms), "violations": dict(counts), "suppressed": out.suppressed,
        "record_problems": notes, **conv,
        "linearizable": {s: sum(p.status == s for p in result.partitions) for s in ("ok", "violation", "unknown")},
        "seed": history.get("seed"),
        "stale_read_s": max((rr.stats["stale_read_s"] for rr in result.rooms.values()), default=0.0),
        "catchup_s": max((rr.stats["catchup_s"] for rr in result.rooms.values()), default=0.0),
    }
    return result


def main(argv: list[str] | None = None) -> int:
    import argparse

    from . import report

    ap = argparse.ArgumentParser(prog="checker", description="Check a robustness history (pytests/robustness/HISTORY.md).")
    ap.add_argument("history", help="history.json")
    ap.add_argument("--bound", type=float, default=5.0, help="convergence bound, seconds after the heal (5)")
    ap.add_argument("--read-slack", type=float, default=0.0, help="seconds a read's window opens early (0)")
    ap.add_argument("--no-reads", action="store_true", help="check the writes only")
    ap.add_argument("--strict-views", action="store_true",
                    help="frames during and just after a fault get no wider read window")
    ap.add_argument("--catchup", type=float, default=2.0, help="seconds after a fault a view may lag (2)")
    ap.add_argument("--catchup-limit", type=float, default=15.0,
                    help="seconds after a fault a connection not yet shown the room as it was then may lag (15)")
    ap.add_argument("--fresh", type=float, default=0.5,
                    help="seconds behind the room a frame may be and still show its connection caught up (0.5)")
    ap.add_argument("--budget", type=int, default=200_000, help="search steps per control (200000)")
    ap.add_argument("--json", metavar="FILE", help="also write the result as JSON")
    ap.add_argument("--strict", action="store_true", help="an unknown search result fails too")
    ap.add_argument("--show", type=int, default=40, help="violations to list (40)")
    args = ap.parse_args(argv)
    with open(args.history) as fh:
        history = json.load(fh)
    result = check(history, convergence_bound=args.bound, read_slack=args.read_slack, reads=not args.no_reads,
                   frozen_views=not args.strict_views, catchup=args.catchup,
                   catchup_limit=args.catchup_limit, fresh=args.fresh, step_budget=args.budget)
    print(report.tables(result, history))
    if result.violations:
        hidden = result.stats["suppressed"]
        print(f"\n{len(result.violations)} violation(s)" + (f" (+{hidden} not listed)" if hidden else "") + ":")
        for v in result.violations[: args.show]:
            print("  " + str(v))
        if len(result.violations) > args.show:
            print(f"  … {len(result.violations) - args.show} more")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(result.to_dict(), fh, indent=1)
    unknown = result.stats["linearizable"]["unknown"]
    if result.violations or (args.strict and unknown):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
