"""Helpers the bench scripts share (bench/run.py, bench/cluster.py, bench/osc.py):
free ports (pytests/support/ports.py's, the test suites' own), core pinning, a
process's CPU time, medians and nearest-rank percentiles, and the machine line
of a report. Standard library only (pytests/support is too)."""

from __future__ import annotations

import os
import platform
import shutil
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))
from pytests.support.ports import free_port  # noqa: E402

__all__ = ["fmt", "free_port", "machine", "median", "percentile", "pinned", "proc_cpu_seconds"]


def pinned(core: str, cmd: list[str]) -> list[str]:
    """`cmd` under `taskset -c core` on a machine with two cores or more (and taskset)."""
    return ["taskset", "-c", core, *cmd] if (os.cpu_count() or 1) >= 2 and shutil.which("taskset") else cmd


def proc_cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of process `pid` so far; None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def median(values) -> float | None:
    vals = [float(v) for v in values if v is not None]
    return statistics.median(vals) if vals else None


def percentile(values: list[float], p: float) -> float | None:
    """The nearest-rank percentile (p in 0..100) of `values`; None when empty."""
    vals = sorted(values)
    if not vals:
        return None
    rank = max(1, -(-len(vals) * p // 100))  # ceil(n * p / 100), at least 1
    return vals[int(min(rank, len(vals))) - 1]


def fmt(x: float) -> str:
    """A number for a command line: 60, not 60.0."""
    return str(int(x)) if float(x).is_integer() else str(x)


def machine() -> str:
    model = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"nproc {os.cpu_count()}, {model}, Linux {platform.release()}"
