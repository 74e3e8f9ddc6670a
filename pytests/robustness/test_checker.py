"""Unit tests of the robustness checker on small hand-made histories.

Each history is built by `H` below in the format of HISTORY.md; the ones the
checker must reject break exactly one property.
"""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from . import checker, invariants, report
from . import linearizable as lin

ROOT = Path(__file__).resolve().parents[2]

GAIN = {"id": "gain", "type": "slider", "label": "Gain", "commit": "release", "min": 0, "max": 1, "step": 0.01,
        "state": {"value": 0.5}, "rev": 0}
BLANKS = {"id": "blanks", "type": "range", "label": "Blank cells", "commit": "release", "scale": [0, 9],
          "operable": [0, 9], "minGap": 1, "state": {"lower": 0, "upper": 1}, "rev": 0}
SIZE = {"id": "size", "type": "snap", "label": "Circle size", "commit": "release", "values": [20, 40, 60, 80, 100],
        "layout": "ordinal", "unit": "pt", "state": {"index": 2, "value": 60}, "rev": 0}


def v(x: float) -> dict:
    return {"value": x}


class H:
    """A history of one room `r1` under construction."""

    def __init__(self, controls=(GAIN, BLANKS, SIZE)):
        self.h = {"seed": 1, "mode": "single", "settings": {}, "rooms": {"r1": {"controls": [dict(c) for c in controls]}},
                  "ops": [], "frames": [], "faults": [], "final": {"r1": {"revision": 0, "states": {}, "log": []}},
                  "reads_after_heal": []}

    def op(self, oid, t0, end, t1=None, *, f="set", value=None, control="gain", process=None, client=None,
           rev=None, state=None, code=None, **extra):
        process = process or oid.split(":")[0]
        client = client or f"n1.x.{process}"
        self.h["ops"].append({"process": process, "id": oid, "type": "invoke", "t": t0, "room": "r1", "control": control,
                              "f": f, "value": value, "client": client, "node": "n1"})
        if end is not None:
            ev = {"process": process, "id": oid, "type": end, "t": t1, "room": "r1", "control": control, "f": f,
                  "client": client, "node": "n1"}
            if rev is not None:
                ev["rev"] = rev
            if state is not None:
                ev["state"] = state
            if code is not None:
                ev["code"] = code
            ev.update(extra)
            self.h["ops"].append(ev)
        return self

    def commit(self, rev, state, *, control="gain", client="n1.x.w1", epoch=None):
        e = {"rev": rev, "control": control, "state": state, "client": client}
        if epoch is not None:
            e["epoch"] = epoch
        final = self.h["final"]["r1"]
        final["log"].append(e)
        final["revision"] = max(final["revision"], rev)
        final["states"][control] = state
        return self

    def frame(self, process, conn, t, rev, changes, kind="update", **extra):
        fr = {"process": process, "conn": conn, "t": t, "room": "r1", "node": "n1", "kind": kind, "rev": rev,
              "changes": [{"control": c, "state": s, "rev": r, **({"by": b} if b else {})} for c, s, r, *rest in changes
                          for b in [rest[0] if rest else None]]}
        fr.update(extra)
        self.h["frames"].append(fr)
        return self

    def welcome(self, process, conn, t, rev, states: dict, **extra):
        """A full welcome: `states` maps control -> (state, control rev)."""
        return self.frame(process, conn, t, rev, [(c, s, r) for c, (s, r) in states.items()], kind="welcome", **extra)

    def fault(self, kind, start, end, name=None, target="n1"):
        self.h["faults"].append({"name": name or kind, "kind": kind, "target": target, "start": start, "end": end})
        return self

    def healed(self, process, converged_at, last_rev):
        self.h["reads_after_heal"].append({"process": process, "room": "r1", "converged_at": converged_at,
                                           "last_rev": last_rev})
        return self

    def check(self, **kw):
        return checker.check(self.h, **kw)


INITIAL = {"gain": (v(0.5), 0), "blanks": ({"lower": 0, "upper": 1}, 0), "size": ({"index": 2, "value": 60}, 0)}


def clean() -> H:
    """Two writers, one reader: everything acknowledged is there, every frame shows the log."""
    h = H()
    h.welcome("r1", 1, 0.1, 0, INITIAL)
    h.op("w1:1", 1.0, "ok", 1.1, value=v(0.1), rev=1)
    h.commit(1, v(0.1), client="n1.x.w1")
    h.frame("r1", 1, 1.2, 1, [("gain", v(0.1), 1, "n1.x.w1")])
    h.op("w2:1", 2.0, "ok", 2.2, value=v(0.2))  # no rev known: found by its state
    h.commit(2, v(0.2), client="n1.x.w2")
    h.op("w1:2", 2.1, "fail", 2.3, value=v(0.3), code="busy")
    h.op("w1:3", 3.0, "ok", 3.1, f="step", value={"by": 1}, control="blanks")  # found by order
    h.commit(3, {"lower": 0, "upper": 2}, control="blanks", client="n1.x.w1")
    h.frame("r1", 1, 3.2, 3, [("gain", v(0.2), 2), ("blanks", {"lower": 0, "upper": 2}, 3)])
    h.op("w2:2", 4.0, "info", None, value=v(0.4), code="timeout")  # never took effect
    h.welcome("r1", 2, 5.0, 3, {"gain": (v(0.2), 2), "blanks": ({"lower": 0, "upper": 2}, 3),
                                "size": ({"index": 2, "value": 60}, 0)})
    return h


def kinds(result) -> set[str]:
    return result.kinds()


# ------------------------------------------------------------ clean and each broken property

def test_clean_history_has_no_violations():
    r = clean().healed("r1", 5.0, 3).check()
    assert r.violations == [], [str(x) for x in r.violations]
    assert r.valid
    assert r.stats["linearizable"] == {"ok": 3, "violation": 0, "unknown": 0}
    assert r.rooms["r1"].stats["reads"] == 3 + 1 + 2 + 3


def test_acked_set_missing_from_the_log_is_lost():
    h = clean().op("w1:9", 4.0, "ok", 4.1, value=v(0.9))
    r = h.check()
    assert kinds(r) == {"lost"}
    assert r.of("lost")[0].ops == ["w1:9"]


def test_acked_with_a_rev_whose_entry_differs_is_lost():
    h = clean().op("w1:9", 4.0, "ok", 4.1, value=v(0.9), rev=2)  # rev 2 holds w2's 0.2
    assert kinds(h.check()) == {"lost"}


def test_failed_set_present_in_the_log_is_a_phantom_fail():
    h = clean()
    h.op("w1:9", 4.0, "fail", 4.1, value=v(0.7), code="unavailable")
    h.commit(4, v(0.7), client="n1.x.w1")
    r = h.check()
    assert kinds(r) == {"phantom_fail"}, [str(x) for x in r.violations]
    assert r.of("phantom_fail")[0].ops == ["w1:9"]


def test_info_appearing_twice_is_a_duplicate():
    h = clean()
    h.op("w2:9", 4.0, "info", None, value=v(0.6), code="closed")
    h.commit(4, v(0.6), client="n1.x.w2")
    assert h.check().valid  # once: it took effect
    h.commit(5, v(0.6), client="n1.x.w2")
    r = h.check()
    assert kinds(r) == {"duplicate"}
    assert r.of("duplicate")[0].ops == ["w2:9"]


def test_commit_no_op_asked_for_is_a_phantom_write():
    h = clean().commit(4, v(0.8), client="n1.x.w1")
    assert kinds(h.check()) == {"phantom_write"}


def test_revision_repeated():
    h = clean()
    h.op("w1:9", 4.0, "ok", 4.1, value=v(0.9))
    h.commit(3, v(0.9), client="n1.x.w1")
    assert "revision_repeat" in kinds(h.check())


def test_revision_going_back_in_the_log():
    h = H()
    h.op("w1:1", 1.0, "ok", 1.1, value=v(0.1), rev=2).commit(2, v(0.1))
    h.op("w1:2", 2.0, "ok", 2.1, value=v(0.2), rev=1).commit(1, v(0.2))
    r = h.check()
    assert "revision_order" in kinds(r)
    # and the log's order contradicts real time
    assert "not_linearizable" in kinds(r)


def test_epochs_going_back():
    h = H()
    h.op("w1:1", 1.0, "ok", 1.1, value=v(0.1), rev=1).commit(1, v(0.1), epoch=4)
    h.op("w1:2", 2.0, "ok", 2.1, value=v(0.2), rev=2).commit(2, v(0.2), epoch=5)
    assert h.check().valid
    h.op("w1:3", 3.0, "ok", 3.1, value=v(0.3), rev=3).commit(3, v(0.3), epoch=4)
    r = h.check()
    assert kinds(r) == {"epoch_back"}


def test_reader_frame_with_a_state_not_in_the_log():
    h = clean().frame("r1", 2, 5.5, 3, [("gain", v(0.44), 2)])
    r = h.check()
    assert kinds(r) == {"phantom_read"}
    assert r.of("phantom_read")[0].frames == [len(h.h["frames"]) - 1]


def test_reader_frame_with_a_revision_never_committed():
    h = clean().frame("r1", 2, 5.5, 4, [("gain", v(0.4), 4)])  # w2:2's info value, never in the log
    assert "phantom_read" in kinds(h.check())


def test_welcome_state_not_as_of_its_revision():
    h = clean().welcome("r2", 1, 5.5, 3, {"gain": (v(0.1), 2)})  # rev 2 is 0.2
    assert kinds(h.check()) == {"phantom_read"}


def test_reader_going_back_in_revision():
    h = clean().frame("r1", 1, 3.5, 2, [("gain", v(0.2), 2)])
    r = h.check()
    assert "time_travel" in kinds(r)


def test_resume_with_since_below_what_the_process_saw():
    h = clean()
    # r1's conn 1 saw rev 3; conn 3 resumes with since=3 yet its welcome is at rev 1
    h.frame("r1", 3, 6.0, 1, [], kind="welcome", since=3)
    assert "time_travel" in kinds(h.check())
    h2 = clean()
    h2.frame("r1", 3, 6.0, 3, [], kind="welcome", since=3)  # nothing above since: no controls listed
    assert h2.check().valid


# ------------------------------------------------------------ linearizability of reads and writes

def stale() -> H:
    h = H()
    h.welcome("r1", 1, 0.1, 0, INITIAL)
    h.op("w1:1", 1.0, "ok", 2.0, value=v(0.1), rev=1).commit(1, v(0.1))
    h.op("w1:2", 3.0, "ok", 4.0, value=v(0.2), rev=2).commit(2, v(0.2))
    h.frame("r2", 1, 4.5, 2, [("gain", v(0.2), 2)], kind="welcome")  # r2 sees the new value …
    return h


def test_stale_read_after_an_acked_write_is_not_linearizable():
    h = stale()
    # … and r1, whose previous frame came at 4.5 (after the ack at 4.0), then shows rev 1
    h.frame("r1", 1, 4.5, 1, [("size", {"index": 2, "value": 60}, 0)])
    h.frame("r1", 1, 5.0, 1, [("gain", v(0.1), 1)])
    r = h.check()
    assert kinds(r) == {"not_linearizable"}, [str(x) for x in r.violations]
    bad = r.of("not_linearizable")[0]
    assert bad.control == "gain" and bad.frames == [len(h.h["frames"]) - 1]
    assert r.stats["stale_read_s"] == pytest.approx(1.0)  # rev 2 acked at 4.0, rev 1 still shown at 5.0
    # a lagging view may be allowed: with a read window opened 1 s earlier it linearizes
    assert h.check(read_slack=1.0).valid
    assert h.check(reads=False).valid


def test_a_view_frozen_by_a_fault_may_show_what_it_had_when_the_fault_began():
    h = stale()
    h.frame("r1", 1, 4.5, 1, [("size", {"index": 2, "value": 60}, 0)])
    h.frame("r1", 1, 5.0, 1, [("gain", v(0.1), 1)])
    h.fault("pause", 2.5, 4.2, target="n2")  # r1's node stopped at 2.5, when rev 1 was current
    r = h.check()
    assert r.valid, [str(x) for x in r.violations]
    assert r.rooms["r1"].stats["frames_relaxed"] >= 1
    assert kinds(h.check(frozen_views=False)) == {"not_linearizable"}
    assert kinds(h.check(catchup=0.5, catchup_limit=0.5)) == {"not_linearizable"}  # 5.0 is past 4.2 + 0.5
    # a fault that began after rev 2 was acknowledged excuses nothing
    h2 = stale()
    h2.frame("r1", 1, 4.5, 1, [("size", {"index": 2, "value": 60}, 0)])
    h2.frame("r1", 1, 5.0, 1, [("gain", v(0.1), 1)])
    h2.fault("pause", 4.1, 4.6, target="n2")
    assert kinds(h2.check()) == {"not_linearizable"}


def test_a_view_still_replaying_after_a_fault_may_lag_until_it_shows_the_room_as_it_was_at_the_end():
    # r1's node was paused 2.5-4.2; rev 2 was acknowledged at 4.0, before the end. At 7.0, past the
    # 2 s floor, r1 still shows rev 1: it has not yet been shown rev 2, so it is still replaying.
    h = stale()
    h.frame("r1", 1, 4.5, 1, [("size", {"index": 2, "value": 60}, 0)])
    h.frame("r1", 1, 7.0, 1, [("gain", v(0.1), 1)])
    h.fault("pause", 2.5, 4.2, target="n2")
    r = h.check()
    assert r.valid, [str(x) for x in r.violations]
    # the slowest connection that did catch up: r2, shown rev 2 at 4.5, 0.3 s after the end
    assert r.stats["catchup_s"] == pytest.approx(0.3)
    # the lag is bounded: past `catchup_limit` the strict window holds again
    assert kinds(h.check(catchup_limit=2.5)) == {"not_linearizable"}  # 7.0 is past 4.2 + 2.5
    assert kinds(h.check(frozen_views=False)) == {"not_linearizable"}


def test_a_view_shown_the_end_state_is_held_to_the_strict_window_after_the_floor():
    # As above, but r1 is shown rev 2 at 4.5: it has caught up. A write of rev 3 is acknowledged at
    # 8.0; at 9.0 r1 (previous frame 8.5) still shows rev 2 of gain: stale, and no fault excuses it.
    def shown_after_the_end(rev: int) -> H:
        h = stale()
        h.fault("pause", 2.5, 4.2, target="n2")
        h.frame("r1", 1, 4.5, rev, [("gain", v(0.1 * rev), rev)])
        h.op("w1:3", 7.5, "ok", 8.0, value=v(0.3), rev=3).commit(3, v(0.3))
        h.frame("r1", 1, 8.5, rev, [("size", {"index": 2, "value": 60}, 0)])
        h.frame("r1", 1, 9.0, rev, [("gain", v(0.1 * rev), rev)])
        return h

    assert kinds(shown_after_the_end(2).check()) == {"not_linearizable"}
    # the same frames with r1 never shown rev 2 after the end (all at rev 1) are excused
    assert shown_after_the_end(1).check().valid


def test_a_view_shown_the_end_state_while_still_behind_the_room_is_still_replaying():
    # r1's node was paused 2.5-4.2 (rev 2, acknowledged at 4.0, is the end state). The room goes on
    # writing (revs 3, 4, 5 acknowledged at 5.0, 6.0, 7.0) while r1's view replays slower than that: it
    # shows rev 2 at 6.5 and rev 3 at 7.5, each more than `fresh` behind the room, then rev 5 at 8.0.
    # Shown the end state is not caught up while it lags: rev 3 at 7.5 is excused; from 8.0 on the
    # strict window holds.
    def lagging(fresh_reads_after: list[tuple[float, int]]) -> H:
        h = stale()
        h.fault("pause", 2.5, 4.2, target="n2")
        for rev, t in ((3, 5.0), (4, 6.0), (5, 7.0)):
            h.op(f"w1:{rev}", t - 0.5, "ok", t, value=v(0.1 * rev), rev=rev).commit(rev, v(0.1 * rev))
        h.frame("r1", 1, 4.5, 1, [("gain", v(0.1), 1)])
        h.frame("r1", 1, 6.5, 2, [("gain", v(0.2), 2)])
        h.frame("r1", 1, 7.5, 3, [("gain", v(0.3), 3)])
        h.frame("r1", 1, 8.0, 5, [("gain", v(0.5), 5)])
        for t, rev in fresh_reads_after:
            h.frame("r1", 1, t, rev, [("gain", v(0.1 * rev), rev)])
        return h

    r = lagging([(9.0, 5)]).check()
    assert r.valid, [str(x) for x in r.violations]
    # counting the end state alone as caught up (any lag allowed) holds rev 3 at 7.5 to [6.5, 7.5]: stale
    assert kinds(lagging([]).check(fresh=1e9)) == {"not_linearizable"}
    # once caught up at 8.0, a read that goes stale again is not excused
    h = lagging([])
    h.op("w1:6", 8.5, "ok", 9.0, value=v(0.6), rev=6).commit(6, v(0.6))
    h.frame("r1", 1, 9.5, 5, [("size", {"index": 2, "value": 60}, 0)])
    h.frame("r1", 1, 10.0, 5, [("gain", v(0.5), 5)])
    assert kinds(h.check()) == {"not_linearizable"}


def test_frames_read_in_one_go_share_the_first_ones_window():
    # r1 reads two frames at once at 4.6 (both were waiting in its socket): the second, rev 1 of gain,
    # may have been sent long before 4.6, so its window opens where the first frame's did (0.1,
    # r1's welcome), and it linearizes. Read 20 ms apart, the second frame's window opens at 4.6,
    # after rev 2 was acknowledged and seen: stale.
    def two_frames(gap: float) -> H:
        h = stale()
        h.frame("r1", 1, 4.6, 1, [("size", {"index": 2, "value": 60}, 0)])
        h.frame("r1", 1, 4.6 + gap, 1, [("gain", v(0.1), 1)])
        return h

    r = two_frames(0.0).check()
    assert r.valid, [str(x) for x in r.violations]
    assert kinds(two_frames(0.02).check()) == {"not_linearizable"}


def test_concurrent_write_and_read_linearize_either_way():
    for seen in (1, 2):
        h = stale()
        h.frame("r1", 1, 3.2, 1, [("size", {"index": 2, "value": 60}, 0)])
        # the read [3.2, 3.8] overlaps the write [3.0, 4.0]: old or new value
        h.frame("r1", 1, 3.8, seen, [("gain", v(0.1 * seen), seen)])
        r = h.check()
        assert r.valid, [str(x) for x in r.violations]


def test_info_write_that_takes_effect_later():
    h = H()
    h.welcome("r1", 1, 0.1, 0, INITIAL)
    h.op("w1:1", 1.0, "info", None, value=v(0.1), code="timeout")  # no answer …
    h.frame("r1", 1, 5.0, 0, [("size", {"index": 2, "value": 60}, 0)])
    h.frame("r1", 1, 6.0, 0, [("gain", v(0.5), 0)])  # … not yet at 6 s (a read of the initial state)
    h.commit(1, v(0.1))
    h.frame("r1", 1, 9.0, 1, [("gain", v(0.1), 1)])  # … then it lands
    r = h.check()
    assert r.valid, [str(x) for x in r.violations]
    # but a read of the initial value after someone saw the info's commit is stale
    h.frame("r2", 1, 9.5, 1, [("size", {"index": 2, "value": 60}, 0)], kind="welcome")
    h.frame("r2", 1, 10.0, 0, [("gain", v(0.5), 0)])
    assert "not_linearizable" in kinds(h.check())


def test_acked_writes_committed_against_real_time():
    h = H()
    h.op("w1:1", 1.0, "ok", 1.5, value=v(0.1)).op("w2:1", 2.0, "ok", 2.5, value=v(0.2))
    h.commit(1, v(0.2), client="n1.x.w2").commit(2, v(0.1), client="n1.x.w1")
    r = h.check()
    assert kinds(r) == {"not_linearizable"}
    assert any(set(x.ops) == {"w1:1", "w2:1"} for x in r.of("not_linearizable"))


def test_steps_are_matched_in_send_order():
    h = H()
    h.op("w1:1", 1.0, "ok", 1.1, f="step", value={"by": 1}, control="size")
    h.op("w1:2", 2.0, "ok", 2.1, f="step", value={"by": 1}, control="size")
    h.commit(1, {"index": 3, "value": 80}, control="size").commit(2, {"index": 4, "value": 100}, control="size")
    r = h.check()
    assert r.valid, [str(x) for x in r.violations]
    # acked with no commit seen and none left: a step at the end makes no revision
    h.op("w1:3", 3.0, "ok", 3.1, f="step", value={"by": 1}, control="size")
    r = h.check()
    assert r.valid and r.rooms["r1"].stats["gestures_unconfirmed"] == 1
    # … unless the workload knows each step committed
    h2 = copy.deepcopy(h)
    for ev in h2.h["ops"]:
        if ev["type"] == "ok":
            ev["noop"] = False
    assert kinds(h2.check()) == {"lost"}


def test_step_known_to_change_nothing_yet_in_the_log():
    h = H()
    h.op("w1:1", 1.0, "ok", 1.1, f="step", value={"by": 1}, control="size", noop=True)
    assert h.check().valid
    h.commit(1, {"index": 3, "value": 80}, control="size")
    assert kinds(h.check()) == {"phantom_write"}


def test_unconfirmed_gesture_commits_anywhere_after_its_invoke():
    """Two steps, only the second committed: the entry is not pinned to the first one's window."""
    h = H()
    h.welcome("r1", 1, 0.1, 0, INITIAL)
    h.op("w1:1", 1.0, "ok", 1.1, f="step", value={"by": 5}, control="size")  # at the end: no revision
    h.frame("r1", 1, 2.0, 0, [("gain", v(0.5), 0)])
    h.frame("r1", 1, 2.5, 0, [("size", {"index": 2, "value": 60}, 0)])  # still the initial state at 2.5
    h.op("w1:2", 3.0, "ok", 3.1, f="step", value={"by": -1}, control="size")
    h.commit(1, {"index": 1, "value": 40}, control="size")
    r = h.check()
    assert r.valid, [str(x) for x in r.violations]


# ------------------------------------------------------------ invariants and convergence

def test_range_with_lower_above_upper():
    h = clean().frame("r1", 1, 3.6, 3, [("blanks", {"lower": 5, "upper": 2}, 3)])
    r = h.check()
    assert "invariant" in kinds(r)
    assert any("lower 5 > upper 2" in x.message for x in r.of("invariant"))


@pytest.mark.parametrize("schema,state,ok", [
    (GAIN, v(0.37), True), (GAIN, v(0.375), False), (GAIN, v(1.2), False),
    (SIZE, {"index": 4, "value": 100}, True), (SIZE, {"index": 5, "value": 100}, False),
    (SIZE, {"index": 1, "value": 60}, False), (SIZE, {"index": 1.5, "value": 40}, False),
    (BLANKS, {"lower": 3, "upper": 4}, True), (BLANKS, {"lower": 3, "upper": 3}, False),
    ({**BLANKS, "operable": [0, 3]}, {"lower": 2, "upper": 4}, False),
    ({"id": "c", "type": "color", "step": 1 / 255}, {"red": 0.2, "green": 0.4, "blue": 0.6, "hex": "#336699"}, True),
    ({"id": "c", "type": "color"}, {"red": 1.2, "green": 0.4, "blue": 0.6, "hex": "#FF6699"}, False),
    ({"id": "c", "type": "color"}, {"red": 0.2, "green": 0.4, "blue": 0.6, "hex": "#000000"}, False),
    ({"id": "g", "type": "gauge", "min": 0, "max": 170}, {"value": 85, "fraction": 0.5}, True),
    ({"id": "g", "type": "gauge", "min": 0, "max": 170}, {"value": 85, "fraction": 0.4}, False),
    ({"id": "t", "type": "toggle"}, {"on": True}, True), ({"id": "t", "type": "toggle"}, {"on": 1}, False),
    ({"id": "p", "type": "xy", "x": {"min": 0, "max": 1}, "y": {"min": 20, "max": 20000, "scale": "log", "digits": 3}},
     {"x": 0.25, "y": 632}, True),
    ({"id": "p", "type": "xy", "x": {"min": 0, "max": 1}, "y": {"min": 20, "max": 20000, "scale": "log", "digits": 3}},
     {"x": 0.25, "y": 632.5}, False),
    ({"id": "b", "type": "button"}, {"presses": 3}, True), ({"id": "b", "type": "button"}, {"presses": -1}, False),
    (GAIN, {"index": 2}, False),
])
def test_invariants_per_kind(schema, state, ok):
    assert (invariants.problems(schema, state) == []) == ok, invariants.problems(schema, state)


def test_initial_state_from_the_schema():
    assert invariants.initial_state(GAIN) == v(0.5)
    assert invariants.initial_state({"id": "r", "type": "range", "scale": [0, 9], "operable": [2, 5], "minGap": 2}) == \
        {"lower": 2, "upper": 4}


def test_reader_that_never_converged():
    h = clean()
    h.fault("kill", 1.5, 2.5)
    h.healed("r2", None, 2)
    r = h.check()
    assert kinds(r) == {"not_converged"}
    h2 = clean().healed("r2", 11.0, 3)  # heal at 4.0 (last op invoke), 7 s later
    assert kinds(h2.check()) == {"not_converged"}
    assert h2.check(convergence_bound=10).valid


# ------------------------------------------------------------ availability and the report

def test_availability_per_fault_and_tables():
    h = clean()
    h.fault("partition", 1.9, 2.6, name="partition-owner-redis")
    h.fault("kill", 3.5, 3.9)
    r = h.check()
    assert r.valid
    part, kill = r.faults
    assert part.ops == 2 and part.ok == 1 and part.failed == 1
    assert part.unavailable_s == pytest.approx(2.2 - 1.9)  # w2:1 acked at 2.2
    assert kill.ops == 0 and kill.never_recovered  # nothing acked after 3.5
    text = report.tables(r, h.h)
    assert "partition" in text and "kill" in text and "total" in text and "valid" in text.splitlines()[-1]
    lines = text.splitlines()
    header = next(line for line in lines if line.startswith("fault"))
    assert "lost" in header and "phantom reads" in header and "time travel" in header
    assert "worst unavail s" in header


def test_violations_are_attributed_to_their_fault():
    h = clean().fault("pause", 3.9, 4.5)
    h.op("w1:9", 4.0, "ok", 4.1, value=v(0.9))  # lost during the pause
    r = h.check()
    text = report.tables(r, h.h)
    row = next(line for line in text.splitlines() if line.startswith("pause"))
    assert row.split()[5] == "1"  # fault injected ops acked failed% lost
    assert "INVALID" in text


def test_cli_exit_codes(tmp_path):
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(clean().h))
    bad.write_text(json.dumps(clean().op("w1:9", 4.0, "ok", 4.1, value=v(0.9)).h))
    for args in (["-m", "pytests.robustness.checker"], ["pytests/robustness/checker.py"]):
        ok = subprocess.run([sys.executable, *args, str(good)], cwd=ROOT, capture_output=True, text=True)
        assert ok.returncode == 0, ok.stderr
        assert "valid" in ok.stdout
        no = subprocess.run([sys.executable, *args, str(bad), "--json", str(tmp_path / "r.json")], cwd=ROOT,
                            capture_output=True, text=True)
        assert no.returncode == 1, no.stderr
        assert "lost" in no.stdout
        assert json.loads((tmp_path / "r.json").read_text())["valid"] is False


# ------------------------------------------------------------ the search itself

def W(value, a, b, **kw):
    return lin.Op("w", value, a, b, **kw)


def R(value, a, b, **kw):
    return lin.Op("r", value, a, b, **kw)


def test_register_basics():
    reg = lin.Register(0)
    assert lin.check([W(1, 0, 1), R(1, 2, 3)], reg).ok
    assert not lin.check([W(1, 0, 1), R(0, 2, 3)], reg).ok  # stale
    assert lin.check([W(1, 0, 3), R(0, 1, 2)], reg).ok  # concurrent: old value
    assert lin.check([W(1, 0, 3), R(1, 1, 2)], reg).ok  # concurrent: new value
    assert not lin.check([R(1, 0, 1), W(1, 2, 3)], reg).ok  # read before the write began
    assert lin.check([W(1, 0, None), R(0, 1, 2), R(1, 3, 4)], reg).ok  # info lands late
    assert not lin.check([W(1, 0, None), R(1, 1, 2), R(0, 3, 4)], reg).ok  # … and stays
    assert lin.check([W(1, 0, None, optional=True), R(0, 5, 6)], reg).ok  # … or never happens
    assert lin.check([W(1, 0, None), R(0, 5, 6)], reg).ok  # a mandatory open write may land after every read
    assert lin.check([W(1, 0, 1), W(2, 0, 1), R(2, 2, 3), R(2, 4, 5)], reg).ok
    assert not lin.check([W(1, 0, 1), W(2, 0, 1), R(2, 2, 3), R(1, 4, 5)], reg).ok


def test_versioned_register_keeps_the_log_order():
    vr = lin.VersionedRegister(0)
    assert lin.check([W(1, 0, 2), W(2, 1, 3), R(2, 4, 5)], vr).ok
    assert not lin.check([W(2, 0, 1), W(1, 2, 3)], vr).ok  # rev 2 acked before rev 1 began
    assert not lin.check([W(1, 0, 3), W(2, 0, 3), R(2, 3.5, 4), R(1, 4.5, 5)], vr).ok  # once 2, never 1


def test_versioned_register_with_its_versions_never_skips_one():
    vr = lin.VersionedRegister(0, [1, 2, 3])
    assert vr.step(0, W(1, 0, 1)) == 1 and vr.step(0, W(2, 0, 1)) is None
    assert lin.check([W(1, 0, 9), W(2, 0, 9), W(3, 0, 9), R(3, 10, 11)], vr).ok
    assert not lin.check([W(1, 5, 6), W(2, 0, 1), R(2, 2, 3)], lin.VersionedRegister(0, [1, 2])).ok
    # hundreds of overlapping writes and reads stay cheap: the next write is always known
    ops = [W(i, i * 0.1, i * 0.1 + 5) for i in range(1, 400)] + [R(i, i * 0.1 + 5, i * 0.1 + 6) for i in range(1, 400)]
    out = lin.check(ops, lin.VersionedRegister(0, range(1, 400)), budget=50_000)
    assert out.ok and out.steps < 50_000


def test_budget_answers_unknown():
    # many concurrent writes and reads that all fail at the end: the search must explore
    ops = [W(i, 0, 10) for i in range(14)] + [R(99, 11, 12)]
    out = lin.check(ops, lin.Register(0), budget=500)
    assert out.status == "unknown"
    assert lin.check(ops, lin.Register(0), budget=10_000_000).status == "violation"


def test_search_agrees_with_brute_force_on_tiny_histories():
    rng = random.Random(5)
    for _ in range(300):
        ops = []
        for _ in range(rng.randint(1, 5)):
            a = rng.randint(0, 6)
            b = a + rng.randint(0, 4)
            if rng.random() < 0.5:
                ops.append(W(rng.randint(1, 2), a, b if rng.random() > 0.2 else None, optional=rng.random() < 0.5))
            else:
                ops.append(R(rng.randint(0, 2), a, b))
        assert lin.check(ops, lin.Register(0)).ok == lin.check_brute(ops, lin.Register(0)), ops
        # a log: mandatory writes of versions 1..k, reads of any of them
        versions = list(range(1, rng.randint(1, 4) + 1))
        vops = []
        for ver in versions:
            a = rng.randint(0, 6)
            vops.append(W(ver, a, a + rng.randint(0, 4) if rng.random() > 0.2 else None))
        for _ in range(rng.randint(0, 3)):
            a = rng.randint(0, 6)
            vops.append(R(rng.choice([0] + versions), a, a + rng.randint(0, 4)))
        assert lin.check(vops, lin.VersionedRegister(0, versions)).ok == \
            lin.check_brute(vops, lin.VersionedRegister(0)), vops


def _sequential(rng: random.Random, n: int, writers: int = 3, readers: int = 3, info_share: float = 0.1):
    """A history from a sequential register: each op takes effect at one
    instant inside its own random interval; processes do one op at a time."""
    procs = [("w", i) for i in range(writers)] + [("r", i) for i in range(readers)]
    free = {p: 0.0 for p in procs}
    events = []  # (point, op) applied in point order
    next_value = 1
    for _ in range(n):
        p = rng.choice(procs)
        invoke = free[p] + rng.uniform(0, 1.0)
        point = invoke + rng.uniform(0, 0.8)
        complete = point + rng.uniform(0, 0.8)
        free[p] = complete
        if p[0] == "w":
            info = rng.random() < info_share
            takes = not info or rng.random() < 0.5
            events.append((point if takes else None, W(next_value, invoke, None if info else complete, optional=info)))
            next_value += 1
        else:
            events.append((point, R(None, invoke, complete)))
    value = 0
    for point, op in sorted((e for e in events if e[0] is not None), key=lambda e: e[0]):
        if op.kind == "w":
            value = op.value
        else:
            op.value = value
    return [op for _, op in events]


def test_random_linearizable_histories_are_accepted_and_one_corrupt_read_rejected():
    rng = random.Random(23)
    for _ in range(30):
        ops = _sequential(rng, 120)
        assert lin.check(ops, lin.Register(0)).ok
        bad = copy.deepcopy(ops)
        reads = [o for o in bad if o.kind == "r"]
        victim = rng.choice(reads)
        victim.value = 10_000  # never written
        assert lin.check(bad, lin.Register(0)).status == "violation"


def test_random_histories_through_the_checker():
    """A simulated room: writers set values (some unanswered), readers get
    frames of the committed state; the checker accepts it, and rejects it
    when one read is made stale."""
    rng = random.Random(11)
    corrupted = 0
    for _ in range(8):
        h, stale_candidates = _simulate(rng)
        r = checker.check(h.h)
        assert r.valid, [str(x) for x in r.violations[:5]]
        assert r.stats["linearizable"]["ok"] >= 1
        if not stale_candidates:
            continue
        corrupted += 1
        fi, old = rng.choice(stale_candidates)
        bad = copy.deepcopy(h.h)
        ch = bad["frames"][fi]["changes"][0]
        ch["rev"], ch["state"] = old
        assert checker.check(bad).kinds() == {"not_linearizable"}
    assert corrupted >= 3


def _simulate(rng: random.Random):
    """Writers w0..w2 (values of their residue class), readers r0..r1 with
    frames at random times. Every commit happens at an instant inside its
    op's interval; a frame shows the committed state at an instant inside
    (previous frame, this frame]."""
    h = H(controls=(GAIN,))
    grid = [round(k / 100, 2) for k in range(101)]
    t = 0.0
    commits = []  # (time, value, client, ack time or None)
    rev = 0
    last = {}
    last_point = {}
    for i in range(60):
        w = rng.randrange(3)
        choices = [x for k, x in enumerate(grid) if k % 3 == w and x != last.get(w) and x != 0.5]
        value = rng.choice(choices)
        last[w] = value
        t += rng.uniform(0.05, 0.3)
        invoke = t
        # one writer's commits follow its sends (a WebSocket's seq order)
        point = max(invoke + rng.uniform(0.01, 0.2), last_point.get(w, 0.0) + 0.001)
        last_point[w] = point
        complete = point + rng.uniform(0.01, 0.2)
        kind = "info" if rng.random() < 0.1 else "ok"
        takes = kind == "ok" or rng.random() < 0.5
        h.op(f"w{w}:{i}", invoke, kind, complete if kind == "ok" else None, value=v(value), process=f"w{w}",
             client=f"n1.x.w{w}", code="timeout" if kind == "info" else None)
        if takes:
            commits.append((point, value, f"n1.x.w{w}", complete if kind == "ok" else None))
    commits.sort()
    log = []
    acks = {}
    for point, value, client, ack in commits:
        rev += 1
        log.append((point, rev, value))
        acks[rev] = ack
        h.commit(rev, v(value), client=client)

    def state_at(x):
        cur = (0, 0.5)
        for point, r_, val in log:
            if point <= x:
                cur = (r_, val)
        return cur

    stale = []
    end = t + 1.0
    for reader in range(2):
        name = f"r{reader}"
        seen = state_at(0.0)
        h.welcome(name, 1, 0.01, 0, {"gain": (v(0.5), 0)}, opened=0.0)
        prev = frame_at = 0.01
        while prev < end:
            nxt = prev + rng.uniform(0.05, 0.4)
            point = rng.uniform(prev, nxt)
            cur = state_at(point)
            if cur[0] != seen[0]:
                h.frame(name, 1, nxt, cur[0], [("gain", v(cur[1]), cur[0])])
                last_frame, frame_at = frame_at, nxt
                # A stale read: a commit `older` at or above what this
                # reader showed last, overwritten by a commit acknowledged
                # before this frame's window opened.
                for older in range(max(seen[0], 1), cur[0]):
                    op_end = acks[older + 1]
                    if op_end is not None and op_end < last_frame:
                        stale.append((len(h.h["frames"]) - 1, (older, v(log[older - 1][2]))))
                seen = cur
            prev = nxt
    for reader in range(2):
        h.healed(f"r{reader}", end, rev)
    return h, stale


def test_a_state_sent_again_is_matched_to_entries_in_time():
    """A writer sends one state three times: at 0.5 (info: the connection closed), at
    1.0 (acknowledged, no rev known) and at 3.0 (info). The log has it at rev 2 and at
    rev 4, after another writer's rev 3 (acknowledged at 2.1, known to everyone from
    then on). The acknowledged send owns rev 2; giving it rev 4 (and rev 2 to the first
    info) would place it after an op it preceded and call the history not linearizable."""
    h = H()
    h.welcome("r1", 1, 0.1, 0, INITIAL)
    h.op("w1:1", 0.5, "info", 0.6, value=v(0.1), code="closed")
    h.op("w1:2", 1.0, "ok", 1.1, value=v(0.1))
    h.commit(1, v(0.3), client="n1.x.w3")
    h.op("w3:1", 0.9, "ok", 1.0, value=v(0.3), rev=1)
    h.commit(2, v(0.1), client="n1.x.w1")
    h.op("w2:1", 2.0, "ok", 2.1, value=v(0.2), rev=3)
    h.commit(3, v(0.2), client="n1.x.w2")
    h.frame("r1", 1, 2.2, 3, [("gain", v(0.2), 3)])
    h.op("w1:3", 3.0, "info", None, value=v(0.1), code="closed")
    h.commit(4, v(0.1), client="n1.x.w1")
    h.frame("r1", 1, 3.2, 4, [("gain", v(0.1), 4)])
    r = h.healed("r1", 3.2, 4).check()
    assert r.violations == [], [str(x) for x in r.violations]
