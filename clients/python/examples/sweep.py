"""Sweeps a slider up and down as one gesture: everyone in the room sees the
thumb move (a preview), and the release commits once.

    python examples/sweep.py ws://localhost:8080/rooms/demo gain --seconds 3
"""

from __future__ import annotations

import argparse
import math
import time

import tandem


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("url", nargs="?", default="ws://localhost:8080/rooms/demo")
    parser.add_argument("control", nargs="?", default="gain")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--to", type=float, default=None, help="where to let go (default: where it started)")
    args = parser.parse_args()

    with tandem.connect(args.url, name="sweeper") as room:
        control = room[args.control]
        if control.type != "slider":
            raise SystemExit(f"{args.control} is a {control.type}, not a slider")
        lo, hi = control.schema["min"], control.schema["max"]
        start = control.value
        began = time.monotonic()
        try:
            with control.drag() as thumb:
                while (t := time.monotonic() - began) < args.seconds:
                    phase = (1 - math.cos(2 * math.pi * t / args.seconds)) / 2   # 0 → 1 → 0
                    if control.schema.get("scale") == "log":
                        thumb.move_to(lo * (hi / lo) ** phase)
                    else:
                        thumb.move_to(lo + phase * (hi - lo))
                    time.sleep(1 / 60)
                thumb.move_to(start if args.to is None else args.to)
        except tandem.Busy as busy:
            raise SystemExit(f"{args.control} is being moved by {busy.holder_name or busy.holder}; try again")
        print(f"{args.control} = {control.value}")


if __name__ == "__main__":
    main()
