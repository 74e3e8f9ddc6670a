"""A short seeded robustness run (part of `make test`): about 60 s of schedule.

`python -m pytests.robustness.run --seed 1 --minutes 1` over a few fault kinds
on real hosts (three nodes, one Redis): kill-owner, pause-owner,
partition-owner-redis, redis-kill, and failover (with three Sentinels and two
replicas) once `tandem --help` lists --redis-sentinel. Asserted: the run
completes and the checker finds no violation (exit 0); on a violation the
run folder is kept (robustness-runs/1-<time>/) and its path is in the
failure. Skipped unless root with `ip netns`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from pytests.robustness.hosts import available  # noqa: E402
from pytests.robustness.services import tandem_binary, tandem_flags  # noqa: E402

from pytests.robustness.faults import KINDS as ALL_KINDS, schedule  # noqa: E402

hosts_needed = pytest.mark.skipif(available() is not None, reason=f"robustness hosts: {available()}")

SEED = 1
MINUTES = 1.0
KINDS = ["kill-owner", "pause-owner", "partition-owner-redis", "redis-kill"]
# The whole run: hosts and services up (~5 s), 60 s of workload, its stop and
# the checker (~15 s); the bound is for a hang, on a loaded machine.
TIMEOUT = 300


def test_schedule_is_seeded_and_covers_every_kind():
    for seed in range(1, 40):
        plan = schedule(seed, 10)
        assert {p.name for p in plan} == set(ALL_KINDS), seed
        assert all(a.start + a.duration < b.start for a, b in zip(plan, plan[1:])), "each heals before the next"
        assert plan[0].start >= 5 and plan[-1].start + plan[-1].duration <= 600 - 10
        assert [p.as_json() for p in plan] == [p.as_json() for p in schedule(seed, 10)]
    assert [p.as_json() for p in schedule(1, 10)] != [p.as_json() for p in schedule(2, 10)]
    short = schedule(SEED, MINUTES, KINDS, warmup=5, tail=10)
    assert set(KINDS) <= {p.name for p in short}


@hosts_needed
def test_short_seeded_run_has_no_violation():
    binary = tandem_binary()
    if not binary.exists():
        pytest.skip(f"no tandem binary at {binary} (swift build --product tandem)")
    kinds = list(KINDS)
    args = []
    minutes = MINUTES
    if "--redis-sentinel" in tandem_flags(binary):
        kinds.append("failover")
        # Every replica must hold a commit before it is acknowledged (`--redis-replicas 2` of 2):
        # with fewer, a failover that promotes the replica that missed it loses acknowledged
        # commits, as docs/reliability.md says it may (a loaded run lost 94 so, 2026-12-04). The
        # suite's long runs keep one fewer and report such losses; this test holds the guarantee.
        args += ["--sentinel", "--wait-replicas", "2"]
        minutes += 0.1  # room for the fifth fault: every kind once
    cmd = [sys.executable, "-m", "pytests.robustness.run", "--seed", str(SEED), "--minutes", f"{minutes:g}",
           "--kinds", ",".join(kinds), "--warmup", "5", "--tail", "10", "--quiet", *args]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 2, f"the run could not be made:\n{out[-4000:]}"
    assert proc.returncode == 0, f"the checker found violations (exit {proc.returncode}):\n{out[-6000:]}"
