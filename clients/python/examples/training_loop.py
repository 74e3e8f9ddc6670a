"""A training loop tuned live from the browser.

It reads its learning rate and momentum from the room at every step, pauses
while the "Paused" toggle is on, and publishes its loss on the `loss` gauge
that everyone in the room sees. The "model" is gradient descent with momentum
on a noisy quadratic, so the effect of a learning rate is visible at once:
too high and the loss explodes, too low and it crawls.

    make run                                        # the server, in another terminal
    python examples/training_loop.py                # then open http://localhost:8080/?room=training

The room is created from training_room.json when the server does not have it
yet (the admin API answers to loopback when auth is off).
"""

from __future__ import annotations

import argparse
import json
import random
import time
import urllib.parse
import urllib.request
from pathlib import Path

import tandem

ROOM_FILE = Path(__file__).with_name("training_room.json")


def join(url: str) -> tandem.Room:
    try:
        return tandem.connect(url, name="trainer")
    except tandem.Closed as closed:
        if closed.code != 4404:
            raise
    # No such room yet: create it, then join.
    parts = urllib.parse.urlsplit(url)
    api = f"{'https' if parts.scheme == 'wss' else 'http'}://{parts.netloc}/api/rooms"
    request = urllib.request.Request(api, data=ROOM_FILE.read_bytes(), method="POST",
                                     headers={"Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=10).close()
    return tandem.connect(url, name="trainer")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("url", nargs="?", default="ws://localhost:8080/rooms/training")
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: run until Ctrl-C)")
    parser.add_argument("--delay", type=float, default=0.2, help="seconds per step")
    args = parser.parse_args()

    room = join(args.url)

    @room.on_change("lr")
    def retuned(change: tandem.Change) -> None:
        print(f"learning rate {change.value} (set by {change.name or change.by})", flush=True)

    weights, velocity = [3.0, -2.0], [0.0, 0.0]
    step = 0
    try:
        while args.steps == 0 or step < args.steps:
            if room["paused"].value:
                time.sleep(args.delay)
                continue
            lr, momentum = room["lr"].value, room["momentum"].value       # always the committed values
            grads = [2 * w + random.gauss(0, 0.05) for w in weights]
            velocity = [momentum * v - lr * g for v, g in zip(velocity, grads)]
            weights = [w + v for w, v in zip(weights, velocity)]
            loss = sum(w * w for w in weights)
            if loss != loss or loss > 1e6:                                 # diverged: start again
                weights, velocity, loss = [3.0, -2.0], [0.0, 0.0], 13.0
            step += 1
            room["loss"].set(round(loss, 6))                               # everyone sees it on the gauge
            if step % 10 == 0:
                room["epoch"].set(step)
                print(f"step {step}: loss {loss:.4f} at lr {lr}", flush=True)
            time.sleep(args.delay)
    except KeyboardInterrupt:
        pass
    finally:
        room.close()


if __name__ == "__main__":
    main()
