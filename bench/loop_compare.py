"""Compare tandem's event loops (poll vs uv) under the same load.

Starts `tandem --event-loop LOOP` pinned to core 0, then from this process
(pinned to core 1) connects RECEIVERS clients to the demo room and drives
DRAGGERS of them, each dragging its own thumb at HZ moves per second.
Reports the server's CPU per delivered update, frames per second and the
generator's own CPU (a run where it tops 80% of its core is marked invalid).

    .venv/bin/python bench/loop_compare.py [--receivers 200] [--seconds 15]

A stopgap until tandem-bench: Python is the generator, so keep loads modest.
"""
import argparse
import asyncio
import json
import os
import re
import resource
import subprocess
import time

import websockets

THUMBS = [("gain", "value"), ("color", "red"), ("color", "green"), ("color", "blue"),
          ("blanks", "upper"), ("size", "index")]


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


async def receiver(url, counts, stop):
    async with websockets.connect(url, subprotocols=["tandem.v1"], max_queue=None) as ws:
        await ws.recv()
        while not stop.is_set():
            try:
                raw = await asyncio.wait_for(ws.recv(), 0.5)
            except asyncio.TimeoutError:
                continue
            m = json.loads(raw)
            counts["frames"] += 1
            counts["updates"] += len(m.get("changes", ())) + len(m.get("gestures", ()))


async def dragger(url, control, thumb, hz, stop, sent):
    async with websockets.connect(url, subprotocols=["tandem.v1"]) as ws:
        await ws.recv()
        seq = 1
        await ws.send(json.dumps({"type": "drag", "seq": seq, "control": control, "thumb": thumb, "phase": "begin"}))
        start = time.monotonic()
        n = 0
        while not stop.is_set():
            n += 1
            seq += 1
            dx = ((n % 100) - 50) / 400
            await ws.send(json.dumps({"type": "drag", "seq": seq, "control": control, "thumb": thumb, "phase": "move", "dx": dx}))
            sent[0] += 1
            delay = start + n / hz - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
        await ws.send(json.dumps({"type": "drag", "seq": seq + 1, "control": control, "thumb": thumb, "phase": "end"}))


async def run(loop, args):
    server = subprocess.Popen(["taskset", "-c", "0", args.binary, "--port", "0", "--data", ":memory:", "--event-loop", loop, "--log-level", "warn"],
                              stderr=subprocess.PIPE, text=True)
    port = None
    while port is None:
        line = server.stderr.readline()
        m = re.search(r"http://[\d.]+:(\d+)", line)
        if m:
            port = int(m.group(1))
    url = f"ws://127.0.0.1:{port}/rooms/demo"
    counts = {"frames": 0, "updates": 0}
    stop = asyncio.Event()
    sent = [0]
    receivers = [asyncio.create_task(receiver(url, counts, stop)) for _ in range(args.receivers)]
    await asyncio.sleep(2)
    draggers = [asyncio.create_task(dragger(url, c, t, args.hz, stop, sent)) for c, t in THUMBS[:args.draggers]]
    await asyncio.sleep(1)
    counts["frames"] = counts["updates"] = 0
    sent[0] = 0
    cpu0, gen0, t0 = cpu_seconds(server.pid), resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
    await asyncio.sleep(args.seconds)
    cpu1, gen1, t1 = cpu_seconds(server.pid), resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
    frames, updates, moves = counts["frames"], counts["updates"], sent[0]
    stop.set()
    await asyncio.gather(*draggers, *receivers, return_exceptions=True)
    server.terminate()
    server.wait(10)
    elapsed = t1 - t0
    gen_cpu = (gen1.ru_utime + gen1.ru_stime - gen0.ru_utime - gen0.ru_stime) / elapsed
    offered = moves * args.receivers
    return {
        "loop": loop,
        "server_cpu_pct": round(100 * (cpu1 - cpu0) / elapsed, 1),
        "us_cpu_per_update": round(1e6 * (cpu1 - cpu0) / max(1, updates), 2),
        "frames_per_s": round(frames / elapsed),
        "updates_per_frame": round(updates / max(1, frames), 2),
        "delivered_of_offered_pct": round(100 * updates / max(1, offered), 1),
        "generator_cpu_pct": round(100 * gen_cpu, 1),
        "valid": gen_cpu <= 0.8,
    }


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--binary", default=".build/release/tandem")
    p.add_argument("--receivers", type=int, default=200)
    p.add_argument("--draggers", type=int, default=4)
    p.add_argument("--hz", type=float, default=60)
    p.add_argument("--seconds", type=float, default=15)
    p.add_argument("--loops", default="poll,uv")
    args = p.parse_args()
    os.sched_setaffinity(0, {1})
    for loop in args.loops.split(","):
        print(json.dumps(asyncio.run(run(loop, args))), flush=True)


if __name__ == "__main__":
    main()
