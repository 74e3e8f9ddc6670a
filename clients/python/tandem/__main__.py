"""`python -m tandem watch URL` prints a room's changes live;
`python -m tandem set URL CONTROL VALUE [--thumb T]` sets one control."""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time

from . import TandemError, connect


def parse_value(text: str):
    """JSON when it parses (0.5, true, {"x": 1}), else the text itself (#FF8800)."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tandem", description=__doc__)
    parser.add_argument("--name", default=None, help="display name in the room")
    parser.add_argument("--token", default=None, help="a JWT when the server has auth on")
    commands = parser.add_subparsers(dest="command", required=True)
    watch = commands.add_parser("watch", help="print every change in the room")
    watch.add_argument("url")
    setter = commands.add_parser("set", help="set one control and wait for the acknowledgement")
    setter.add_argument("url")
    setter.add_argument("control")
    setter.add_argument("value")
    setter.add_argument("--thumb", default=None)
    args = parser.parse_args(argv)

    try:
        room = connect(args.url, name=args.name or ("watcher" if args.command == "watch" else "tandem-cli"),
                       token=args.token)
    except (TandemError, OSError) as error:
        print(f"tandem: cannot join {args.url}: {error}", file=sys.stderr)
        return 1
    try:
        if args.command == "set":
            state = room[args.control].set(parse_value(args.value), thumb=args.thumb)
            print(f"{args.control} = {json.dumps(state)}")
            return 0
        watch_room(room)
        while room.failure is None:     # until Ctrl-C, or a close that reconnecting cannot fix
            time.sleep(0.5)
        print(f"tandem: {room.failure}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    except (TandemError, KeyError) as error:
        print(f"tandem: {error}", file=sys.stderr)
        return 1
    finally:
        room.close()
    return 0


def watch_room(room) -> None:
    """Prints the room's values, then every commit after them, live. The
    handler is registered before the values are read, and holds back what
    it hears until they are printed: a commit that lands while they are
    printed is shown after them, not lost (only those past the printed
    revision; one already in the values may be shown again)."""
    lock = threading.Lock()
    held: list | None = []

    def line(change) -> str:
        who = change.name or change.by or "?"
        return f"{change.rev} {change.control} = {json.dumps(change.value)} by {who}"

    @room.on_change()
    def show(change):
        with lock:
            if held is not None:
                held.append(change)
                return
        print(line(change), flush=True)

    with lock:
        rev = room.rev
        for cid in room:
            print(f"{rev} {cid} = {json.dumps(room[cid].value)}", flush=True)
        for change in held:
            if change.rev > rev:
                print(line(change), flush=True)
        held = None


if __name__ == "__main__":
    sys.exit(main())
