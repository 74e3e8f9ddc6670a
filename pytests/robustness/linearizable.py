"""A linearizability search over one register: Wing & Gong's algorithm with
Lowe's memoisation, as Knossos and Porcupine run it.

A history is a list of `Op`s, each with a call time (`invoke`) and a return
time (`complete`), `None` for an operation whose outcome is unknown (an
`info`: it may take effect at any moment after its call, or, when `optional`,
never). The search looks for a total order of the operations that (a) keeps
every operation that returned before another was called ahead of it, and (b)
replays through the model: each operation, applied to the state left by the
ones before it, is allowed (a read returns the register's value).

The search is depth-first over the entries sorted by time; at each step it
tries to linearize one of the calls that precede the first pending return.
A configuration (which operations are linearized, the model state) seen once
is never explored again, so the work is bounded by the number of distinct
configurations, not orderings; a step budget bounds even that, and a search
that runs out answers `unknown` rather than hanging.

Pure, no I/O. Ties in time count as overlapping (a call at the instant of
another's return may be ordered either way), which can only accept more.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Hashable, Iterable, Protocol

INF = math.inf


@dataclass
class Op:
    """One operation: `kind` `w` (write `value`) or `r` (read that returned `value`)."""

    kind: str
    value: Hashable
    invoke: float
    complete: float | None  # None: no return (info)
    id: Any = None
    optional: bool = False  # with no return: may also never take effect


class Model(Protocol):
    def init(self) -> Hashable: ...

    def step(self, state: Hashable, op: Op) -> Hashable | None:
        """The state after `op`, or None when `op` is not allowed in `state`."""


@dataclass
class Register:
    """A plain register: a write stores its value, a read must return the current one."""

    initial: Hashable = None

    def init(self) -> Hashable:
        return self.initial

    def step(self, state: Hashable, op: Op) -> Hashable | None:
        if op.kind == "w":
            return op.value
        return state if op.value == state else None

    def safe(self, state: Hashable, op: Op) -> bool:
        return op.kind == "r" and op.value == state


@dataclass
class VersionedRegister:
    """A register whose writes carry versions that must go up (a commit log).

    Values are versions (revisions): a write of version v is allowed only
    above the current one; a read must return the current version. Every
    value is thereby unique, and the order of the writes is the log's.

    With `versions` (every write's version, all writes mandatory) a write is
    allowed only as the next of them: no valid order skips a version it
    must write later, so the search never walks down such a branch (with
    mandatory writes this makes the search all but linear).
    """

    initial: Hashable = 0
    versions: Iterable[Hashable] | None = None

    def __post_init__(self) -> None:
        self._next: dict[Hashable, Hashable] | None = None
        if self.versions is not None:
            order = sorted(set(self.versions))
            self._next = {}
            prev = self.initial
            for v in order:
                if v > self.initial:
                    self._next[prev] = v
                    prev = v

    def init(self) -> Hashable:
        return self.initial

    def step(self, state: Hashable, op: Op) -> Hashable | None:
        if op.kind == "w":
            if self._next is not None:
                return op.value if self._next.get(state) == op.value else None
            return op.value if op.value > state else None
        return state if op.value == state else None

    def safe(self, state: Hashable, op: Op) -> bool:
        return op.kind == "r" and op.value == state


@dataclass
class Outcome:
    status: str  # "ok", "violation" or "unknown"
    steps: int
    ops: int
    # On a violation: the operation that could not be placed at the deepest
    # point the search reached, the state there, and how many were placed.
    blocked: Op | None = None
    state: Hashable = None
    placed: int = 0
    linearization: list[Any] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "ok"


class _Entry:
    __slots__ = ("op", "index", "is_call", "time", "match", "prev", "next")

    def __init__(self, op: Op | None, index: int, is_call: bool, time: float):
        self.op = op
        self.index = index
        self.is_call = is_call
        self.time = time
        self.match: _Entry | None = None
        self.prev: _Entry | None = None
        self.next: _Entry | None = None


def _entries(ops: list[Op]) -> _Entry:
    """The doubly linked list of calls and returns in time order, behind a head."""
    items: list[tuple[tuple, _Entry]] = []
    for i, op in enumerate(ops):
        call = _Entry(op, i, True, op.invoke)
        end = op.complete if op.complete is not None else INF
        ret = _Entry(op, i, False, end)
        call.match, ret.match = ret, call
        # Order: by time; at one time, calls before returns (ties overlap);
        # among returns at infinity, mandatory ones before optional ones, so
        # that reaching an optional return means only optional ops remain.
        items.append(((op.invoke, 0, 0, i), call))
        rank = 1 if (op.complete is None and op.optional) else 0
        items.append(((end, 1, rank, i), ret))
    items.sort(key=lambda kv: kv[0])
    head = _Entry(None, -1, False, -INF)
    prev = head
    for _, e in items:
        prev.next, e.prev = e, prev
        prev = e
    return head


def _lift(call: _Entry) -> None:
    call.prev.next = call.next
    if call.next is not None:
        call.next.prev = call.prev
    ret = call.match
    ret.prev.next = ret.next
    if ret.next is not None:
        ret.next.prev = ret.prev


def _unlift(call: _Entry) -> None:
    ret = call.match
    ret.prev.next = ret
    if ret.next is not None:
        ret.next.prev = ret
    call.prev.next = call
    if call.next is not None:
        call.next.prev = call


def check(ops: Iterable[Op], model: Model, budget: int = 200_000) -> Outcome:
    """Whether `ops` linearize on `model`, within `budget` steps.

    Besides the memo, one pruning: an op the model calls `safe` in a state
    (a read of the register's current value: it changes nothing, and every
    op that returned before its call is placed already) is placed as soon as
    it may be, with no alternative tried: any linearization from here can
    be reordered to place it now.
    """
    ops = list(ops)
    n = len(ops)
    if n == 0:
        return Outcome("ok", 0, 0)
    for op in ops:
        if op.complete is not None and op.complete < op.invoke:
            raise ValueError(f"op {op.id!r} returns ({op.complete}) before its call ({op.invoke})")
    safe = getattr(model, "safe", None)
    head = _entries(ops)
    state = model.init()
    linearized = 0
    stack: list[tuple[_Entry, Hashable, bool]] = []  # (call, state before, forced)
    cache: set[tuple[int, Hashable]] = set()
    steps = 0
    deepest: tuple[int, Op | None, Hashable] = (-1, None, None)
    entry = head.next
    fresh = True
    while head.next is not None:
        steps += 1
        if steps > budget:
            return Outcome("unknown", steps, n, placed=len(stack))
        dead = False
        if fresh and safe is not None:
            fresh = False
            e = head.next
            placed = False
            while e.is_call:
                if safe(state, e.op):
                    new_state = model.step(state, e.op)
                    if new_state is not None:
                        bits = linearized | (1 << e.index)
                        key = (bits, new_state)
                        if key in cache:
                            dead = True  # explored and failed: so does this configuration
                        else:
                            cache.add(key)
                            stack.append((e, state, True))
                            state, linearized = new_state, bits
                            _lift(e)
                            placed = True
                        break
                e = e.next
            if placed:
                fresh = True
                entry = head.next
                continue
            entry = head.next
        if not dead and entry.is_call:
            new_state = model.step(state, entry.op)
            if new_state is not None:
                bits = linearized | (1 << entry.index)
                key = (bits, new_state)
                if key not in cache:
                    cache.add(key)
                    stack.append((entry, state, False))
                    state = new_state
                    linearized = bits
                    _lift(entry)
                    entry = head.next
                    fresh = True
                    continue
            entry = entry.next
            continue
        if not dead:
            # A return whose call is not linearized yet.
            if entry.time == INF and entry.op.optional:
                # Every remaining op is an optional one that never returned:
                # they may never have taken effect.
                return Outcome("ok", steps, n, placed=len(stack), linearization=[e.op.id for e, _, _ in stack])
            if len(stack) > deepest[0]:
                deepest = (len(stack), entry.op, state)
        # Backtrack to the newest choice that was not forced.
        while True:
            if not stack:
                return Outcome("violation", steps, n, blocked=deepest[1], state=deepest[2], placed=max(deepest[0], 0))
            e, state, forced = stack.pop()
            linearized &= ~(1 << e.index)
            _unlift(e)
            if not forced:
                entry = e.next
                break
        fresh = False
    return Outcome("ok", steps, n, placed=n, linearization=[e.op.id for e, _, _ in stack])


def check_brute(ops: list[Op], model: Model) -> bool:
    """Exhaustive reference for tiny histories (tests): try every order."""
    import itertools

    n = len(ops)
    for r in range(n + 1):
        for chosen in itertools.combinations(range(n), r):
            if any(i not in chosen and not (ops[i].complete is None and ops[i].optional) for i in range(n)):
                continue
            for perm in itertools.permutations(chosen):
                ok = True
                for a in range(len(perm)):
                    for b in range(a + 1, len(perm)):
                        x, y = ops[perm[a]], ops[perm[b]]
                        # y placed after x: x must not start after y returned.
                        if y.complete is not None and y.complete < x.invoke:
                            ok = False
                            break
                    if not ok:
                        break
                # An op left out (optional, no return) is fine.
                if not ok:
                    continue
                state = model.init()
                for i in perm:
                    state = model.step(state, ops[i])
                    if state is None:
                        break
                else:
                    return True
    return False


def split_quiescent(ops: list[Op]) -> list[list[Op]]:
    """Cut a history where nothing is pending: at a time every op called
    before it has returned. Only mandatory ops may be cut across; the caller
    must know the state at each cut (true for `VersionedRegister` with
    mandatory writes: the highest version written before the cut).
    """
    order = sorted(ops, key=lambda o: o.invoke)
    segments: list[list[Op]] = []
    current: list[Op] = []
    horizon = -INF
    for op in order:
        if current and op.invoke > horizon:
            segments.append(current)
            current = []
        current.append(op)
        end = op.complete if op.complete is not None else INF
        horizon = max(horizon, end)
    if current:
        segments.append(current)
    return segments

