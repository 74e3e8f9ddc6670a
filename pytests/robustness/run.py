"""The robustness runner: real hosts, a workload, a seeded fault schedule, the checker.

    python -m pytests.robustness.run --seed S --minutes M [--replicas N] [--sentinel]
        [--nodes 3] [--kinds a,b] [--out DIR] [--keep] [--node-flags "..."]

One run: hosts in network namespaces (hosts.py), Redis (+ replicas, +
Sentinels) and the Tandem nodes in them (services.py), the workload's clients
in this process (workload.py) writing and reading for M minutes while the
schedule (faults.py) injects faults one at a time; then writes stop, the last
fault is long healed, the final log is read from the Redis primary, the
checker (checker.py) judges the history, and its tables are printed.

The run folder (`robustness-runs/<seed>-<time>/`, or --out) holds
history.json, run.json (the settings, the schedule and the command to replay
it), the nodes' and Redis' logs. It is kept when the checker finds a
violation (exit 1) or with --keep, else deleted (exit 0). Exit 2: the run
itself could not be made (no root, a service that did not start).
Everything is torn down on exit, on Ctrl-C and on any exception.

Replay a kept run: the same command (`run.json` has it) with the same seed
plans the same faults at the same times, on the same targets whenever the
same node owns the room.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import inspect
import json
import shlex
import shutil
import signal
import sys
import time
import traceback
from pathlib import Path

from pytests.robustness import faults as faults_mod
from pytests.robustness.hosts import Hosts, HostError, available
from pytests.robustness.services import ROOT, Services, Settings, tandem_binary, tandem_flags
from pytests.support import Exited

RUNS = ROOT / "robustness-runs"
WORKLOAD_DEFAULTS = dict(rooms=3, ws_writers_per_room=4, http_writers_per_room=1, readers_per_room=2, rate_hz=20)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m pytests.robustness.run", description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=1, help="seeds the schedule and the workload (default 1)")
    p.add_argument("--minutes", type=float, default=10.0, help="length of the workload and schedule (default 10)")
    p.add_argument("--replicas", type=int, default=0, help="Redis replicas (default 0; 2 with --sentinel)")
    p.add_argument("--sentinel", action="store_true", help="three Sentinels; the nodes find the primary through them")
    p.add_argument("--wait-replicas", type=int, default=None,
                   help="the nodes' --redis-replicas (default: one fewer than the replicas, at least 1; 0: no WAIT)")
    p.add_argument("--nodes", type=int, default=3, help="Tandem nodes (default 3)")
    p.add_argument("--kinds", default="", help=f"fault kinds, comma-separated, or none (default all: {','.join(faults_mod.KINDS)})")
    p.add_argument("--out", type=Path, help="the run folder (default robustness-runs/<seed>-<time>/)")
    p.add_argument("--keep", action="store_true", help="keep the run folder even when no violation is found")
    p.add_argument("--node-flags", default=None, help="extra flags for every node (default: --open-admin, "
                   "and --redis-timeout 1 when the binary has it)")
    p.add_argument("--warmup", type=float, default=faults_mod.WARMUP, help="seconds before the first fault")
    p.add_argument("--tail", type=float, default=faults_mod.TAIL, help="seconds between the last heal and the end")
    p.add_argument("--rooms", type=int, default=WORKLOAD_DEFAULTS["rooms"])
    p.add_argument("--rate", type=float, default=WORKLOAD_DEFAULTS["rate_hz"], help="each writer's rate, Hz")
    p.add_argument("--quiet", action="store_true", help="no per-fault lines")
    return p.parse_args(argv)


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def default_node_flags(flags: set[str]) -> str:
    out = ["--open-admin"]
    if "--redis-timeout" in flags:
        out += ["--redis-timeout", "1"]
    return " ".join(out)


def settings_from(args: argparse.Namespace, kinds: list[str], flags: set[str]) -> Settings:
    sentinel = args.sentinel
    replicas = args.replicas or (2 if sentinel else 0)
    return Settings(
        nodes=args.nodes, replicas=replicas, sentinel=sentinel,
        proxy="slow-link" in kinds and not (sentinel and "--redis-sentinel" in flags),
        faketime="clock-jump" in kinds,
        node_flags=args.node_flags if args.node_flags is not None else default_node_flags(flags),
        **({} if args.wait_replicas is None else
           {"replicas_flags": f"--redis-replicas {args.wait_replicas}" if args.wait_replicas > 0 else ""}))


def violations_of(result: object) -> list:
    """The violations in whatever the checker returns (an object or dict with `violations`, or a list)."""
    if result is None:
        return []
    if isinstance(result, list):
        return result
    if isinstance(result, dict):
        found = result.get("violations", [])
    else:
        found = getattr(result, "violations", [])
    if isinstance(found, dict):
        return [v for items in found.values() for v in (items if isinstance(items, list) else [items])]
    return list(found or [])


def report_tables(tables, result: object, history: dict) -> str:
    text = tables(result, history)
    return text if isinstance(text, str) else "\n".join(map(str, text))


def room_ids(workload, count: int) -> list[str]:
    for attr in ("rooms", "room_ids"):
        rooms = getattr(workload, attr, None)
        if isinstance(rooms, (list, tuple)) and rooms and all(isinstance(r, str) for r in rooms):
            return list(rooms)
        if isinstance(rooms, dict) and rooms:
            return list(rooms)
    try:
        from pytests.robustness.rooms import room_id
        return [room_id(i + 1) for i in range(count)]
    except ImportError:
        return [f"rb{i + 1}" for i in range(count)]


async def run(args: argparse.Namespace, folder: Path) -> int:
    from pytests.robustness.checker import check
    from pytests.robustness.report import tables
    from pytests.robustness.workload import Workload, WorkloadConfig

    # SIGTERM as Ctrl-C: the run is cancelled, its finally blocks tear everything down.
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, asyncio.current_task().cancel)
    binary = tandem_binary()
    flags = tandem_flags(binary)
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()] or list(faults_mod.KINDS)
    if kinds == ["none"]:
        kinds = []  # a baseline: the workload alone
    settings = settings_from(args, kinds, flags)
    started_wall = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    t0 = time.monotonic()

    def clock() -> float:
        return time.monotonic() - t0

    with Hosts(settings.host_names()) as hosts:
        services = Services(hosts, settings, folder, binary)
        try:
            log(f"hosts {hosts.prefix}.0/24 (run {hosts.run}): " +
                ", ".join(f"{n}={hosts.ip(n)}" for n in settings.host_names()))
            await asyncio.to_thread(services.start)
            for note in services.notes:
                log(f"note: {note}")
            player = faults_mod.Player(services, [], clock, log=(lambda m: None) if args.quiet else log)
            playable = []
            for kind in kinds:
                reason = player.supported(kind)
                if reason:
                    log(f"fault {kind} left out: {reason}")
                else:
                    playable.append(kind)
            nodes = {name: node.http for name, node in services.nodes.items()}
            config = WorkloadConfig(seed=args.seed, nodes=nodes, rooms=args.rooms,
                                    ws_writers_per_room=WORKLOAD_DEFAULTS["ws_writers_per_room"],
                                    http_writers_per_room=WORKLOAD_DEFAULTS["http_writers_per_room"],
                                    readers_per_room=WORKLOAD_DEFAULTS["readers_per_room"], rate_hz=args.rate,
                                    admin_node=sorted(nodes)[0], token=None)
            workload = Workload(config, clock=clock)
            await workload.setup()
            player.rooms = room_ids(workload, args.rooms)
            begin = clock()
            total = args.minutes * 60
            plan = faults_mod.schedule(args.seed, args.minutes, playable, warmup=args.warmup, tail=args.tail) if playable else []
            for item in plan:
                item.start = round(item.start + begin, 3)
            write_json(folder / "run.json", {
                "seed": args.seed, "minutes": args.minutes, "kinds": playable, "settings": settings.as_json(),
                "services": services.describe(), "schedule": [p.as_json() for p in plan],
                "replay": replay_command(args), "commit": git_commit()})
            log(f"workload on {len(nodes)} nodes, rooms {', '.join(player.rooms)}; {len(plan)} faults over "
                f"{args.minutes:g} min:\n{faults_mod.describe(plan)}")
            task = asyncio.create_task(workload.run())
            try:
                records = await player.play(plan, until=begin + total - args.tail)
                while clock() < begin + total and not task.done():
                    await asyncio.sleep(min(1.0, begin + total - clock()))
            finally:
                await workload.stop()
                if not task.done():
                    task.cancel()
                await asyncio.gather(task, return_exceptions=True)
            if task.done() and not task.cancelled() and task.exception():
                raise RuntimeError(f"the workload failed: {task.exception()!r}")
            for skipped in player.skipped:
                log(f"skipped: {skipped}")
            host, port = await asyncio.to_thread(services.primary_address)
            final = await maybe_await(workload.read_final_redis(host, port))
            history = await workload.history(final=final, faults=records, mode="cluster", settings=settings.as_json())
            history["faults"] = records
            history["seed"] = args.seed
            history["started"] = history.get("started") or started_wall
            write_json(folder / "history.json", history)
        finally:
            await asyncio.to_thread(services.stop)
    # A 10-minute history's controls need a few million steps each (a fault's widened read
    # windows keep many reads open at once); the short run needs far fewer.
    result = check(history, step_budget=max(200_000, int(args.minutes * 500_000)))
    violations = violations_of(result)
    print(report_tables(tables, result, history), flush=True)
    log(f"{len(history.get('ops', []))} op events, {len(history.get('frames', []))} frames, {len(records)} faults, "
        f"{len(violations)} violation(s)")
    return 1 if violations else 0


async def maybe_await(value):
    return await value if inspect.isawaitable(value) else value


def git_commit() -> str:
    """The checkout's commit, with "+dirty" when the tree has changes (what the binary was built from, roughly)."""
    import subprocess
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""
    return head + ("+dirty" if dirty else "")


def write_json(path: Path, data: object) -> None:
    path.write_text(json.dumps(data, indent=1, default=str) + "\n")


def replay_command(args: argparse.Namespace) -> str:
    parts = ["python", "-m", "pytests.robustness.run", "--seed", str(args.seed), "--minutes", f"{args.minutes:g}",
             "--nodes", str(args.nodes)]
    if args.replicas:
        parts += ["--replicas", str(args.replicas)]
    if args.sentinel:
        parts.append("--sentinel")
    if args.wait_replicas is not None:
        parts += ["--wait-replicas", str(args.wait_replicas)]
    if args.kinds:
        parts += ["--kinds", args.kinds]
    if args.node_flags is not None:
        parts += ["--node-flags", args.node_flags]
    if args.warmup != faults_mod.WARMUP:
        parts += ["--warmup", f"{args.warmup:g}"]
    if args.tail != faults_mod.TAIL:
        parts += ["--tail", f"{args.tail:g}"]
    if args.rooms != WORKLOAD_DEFAULTS["rooms"]:
        parts += ["--rooms", str(args.rooms)]
    if args.rate != WORKLOAD_DEFAULTS["rate_hz"]:
        parts += ["--rate", f"{args.rate:g}"]
    return shlex.join(parts)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    reason = available()
    if reason:
        print(f"robustness: cannot run: {reason}", file=sys.stderr)
        return 2
    stamp = time.strftime("%Y%m%d-%H%M%S")
    folder = args.out or RUNS / f"{args.seed}-{stamp}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "seed").write_text(f"{args.seed}\n{replay_command(args)}\n")

    code = 2
    # Ctrl-C even when started with SIGINT ignored (a background job of a script).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        code = asyncio.run(run(args, folder))
    except (KeyboardInterrupt, asyncio.CancelledError):
        log("interrupted: torn down")
        code = 130
    except (HostError, Exited, RuntimeError, TimeoutError, OSError, ImportError) as error:
        traceback.print_exc()
        log(f"the run could not be made: {error}")
        code = 2
    if code == 0 and not args.keep:
        shutil.rmtree(folder, ignore_errors=True)
        log("no violation; run folder deleted (--keep keeps it)")
    else:
        # The copy of the binary is big and rebuildable; the logs and history stay.
        (folder / "tandem").unlink(missing_ok=True)
        log(f"run folder kept: {folder}")
        if code == 1:
            log(f"replay: {replay_command(args)}")
    return code


if __name__ == "__main__":
    sys.exit(main())
