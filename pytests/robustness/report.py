"""Plain-text tables of a checker result, one row per fault kind, as Jepsen prints its summaries.

`tables(result, history) -> str`: a summary by fault kind (what was
injected, the operations invoked during those faults, what was lost or seen
wrongly, the linearizability verdicts of the controls that had operations in
those windows, the worst unavailability), a totals line, then one table per
fault kind with a row per injected fault. A violation counts against a fault
when it happened (its op's invoke, its frame's time) between the fault's
start and `grace` seconds after its end; the rest count under `(none)`.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from typing import Any

COLUMNS = ("fault", "injected", "ops", "acked", "failed%", "lost", "phantom reads", "time travel",
           "linearizable ok/bad/unknown", "other violations", "worst unavail s")
SHOWN = ("lost", "phantom_read", "time_travel")


def _in(t: float | None, windows: list[tuple[float, float]]) -> bool:
    return t is not None and any(a <= t <= b for a, b in windows)


def _touches(times: list[float], windows: list[tuple[float, float]]) -> bool:
    for a, b in windows:
        k = bisect.bisect_left(times, a)
        if k < len(times) and times[k] <= b:
            return True
    return False


def _fmt_table(header: tuple[str, ...], rows: list[list[Any]], title: str | None = None) -> str:
    cells = [[str(c) for c in header]] + [[_cell(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = []
    if title:
        lines.append(title)
    def line(r: list[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
    lines.append(line(cells[0]))
    lines.append("  ".join("-" * w for w in widths))
    for r in cells[1:-1] if len(cells) > 2 and rows and rows[-1][0] == "total" else cells[1:]:
        lines.append(line(r))
    if len(cells) > 2 and rows and rows[-1][0] == "total":
        lines.append("  ".join("-" * w for w in widths))
        lines.append(line(cells[-1]))
    return "\n".join(lines)


def _cell(c: Any) -> str:
    if c is None:
        return "-"
    if isinstance(c, float):
        return f"{c:.2f}"
    return str(c)


def _row(label: str, faults: list, windows: list[tuple[float, float]], result, ops_window: bool,
         all_windows: list[tuple[float, float]]) -> list[Any]:
    vs = [v for v in result.violations if (_in(v.t, windows) if windows else not _in(v.t, all_windows))]
    count = defaultdict(int)
    for v in vs:
        count[v.kind] += 1
    if windows:
        parts = [p for p in result.partitions if _touches(p.times, windows)]
    else:
        parts = [p for p in result.partitions if not _touches(p.times, all_windows)]
    lin = "/".join(str(sum(p.status == s for p in parts)) for s in ("ok", "violation", "unknown"))
    ops = sum(f.ops for f in faults) if ops_window else result.stats.get("ops", 0)
    acked = sum(f.ok for f in faults) if ops_window else result.stats.get("ok", 0)
    bad = sum(f.failed + f.info for f in faults) if ops_window else result.stats.get("fail", 0) + result.stats.get("info", 0)
    share = f"{100.0 * bad / ops:.1f}" if ops else "-"
    worst = max((f.unavailable_s for f in faults if f.unavailable_s is not None), default=None)
    if any(f.never_recovered for f in faults) and worst is not None:
        worst = f"{worst:.2f}!"
    other = sum(n for k, n in count.items() if k not in SHOWN)
    return [label, len(faults) if ops_window else "-", ops, acked, share, count["lost"], count["phantom_read"],
            count["time_travel"], lin, other, worst]


def tables(result, history: dict, grace: float = 1.0) -> str:
    faults = list(result.faults)
    windows_of = lambda fs: [(f.start, f.end + grace) for f in fs]  # noqa: E731
    every = windows_of(faults)
    by_kind: dict[str, list] = defaultdict(list)
    for f in faults:
        by_kind[f.kind].append(f)

    out: list[str] = []
    seed = history.get("seed")
    mode = history.get("mode")
    out.append(f"Tandem robustness: seed {seed}, mode {mode}, {result.stats.get('rooms', 0)} room(s), "
               f"{result.stats.get('ops', 0)} ops, {result.stats.get('frames', 0)} frames, {len(faults)} fault(s)")
    out.append("")
    rows = [_row(kind, fs, windows_of(fs), result, True, every) for kind, fs in sorted(by_kind.items())]
    rows.append(_row("(none)", [], [], result, True, every))
    rows[-1][1] = "-"
    rows[-1][2] = rows[-1][3] = rows[-1][4] = "-"
    total = _row("total", faults, [], result, False, every)
    # totals count every violation and every control, not only those outside faults
    count = defaultdict(int)
    for v in result.violations:
        count[v.kind] += 1
    total[1] = len(faults)
    total[5], total[6], total[7] = count["lost"], count["phantom_read"], count["time_travel"]
    total[8] = "/".join(str(sum(p.status == s for p in result.partitions)) for s in ("ok", "violation", "unknown"))
    total[9] = sum(n for k, n in count.items() if k not in SHOWN)
    rows.append(total)
    out.append(_fmt_table(COLUMNS, rows, "By fault kind (ops: invoked during the faults; failed%: fail or info)"))

    for kind, fs in sorted(by_kind.items()):
        detail = []
        for f in fs:
            row = _row(f.name, [f], windows_of([f]), result, True, every)
            row[0] = f"{f.name} {f.target if f.target is not None else ''} {f.start:.1f}-{f.end:.1f}".replace("  ", " ")
            row[1] = "-"
            detail.append(row)
        out.append("")
        out.append(_fmt_table(("fault",) + COLUMNS[1:], detail, f"{kind}:"))

    others = {k: n for k, n in (result.stats.get("violations") or {}).items() if k not in SHOWN and n}
    out.append("")
    conv = result.stats.get("worst_convergence_s")
    out.append(f"other violations: {', '.join(f'{k} {n}' for k, n in sorted(others.items())) or 'none'}")
    if conv is not None:
        out.append(f"readers converged: worst {conv:.2f} s after the heal at {result.stats.get('heal_at', 0):.2f} s; "
                   f"stalest read: {result.stats.get('stale_read_s', 0.0):.3f} s after a newer commit was acknowledged; "
                   f"slowest catch-up: {result.stats.get('catchup_s', 0.0):.3f} s after a fault's end")
    lin = result.stats.get("linearizable") or {}
    out.append(f"controls searched: {sum(lin.values())} ({lin.get('ok', 0)} ok, {lin.get('violation', 0)} not "
               f"linearizable, {lin.get('unknown', 0)} unknown: search budget spent)")
    out.append("valid" if result.valid else f"INVALID: {sum((result.stats.get('violations') or {}).values())} violation(s)")
    return "\n".join(out)
