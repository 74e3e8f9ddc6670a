"""The timeline's cost, before/after the work on the second hostile probe's
findings about past moments, restores and a cluster's timeline.

    .venv/bin/python bench/timeline/cost.py BINARY [FLOOD] [flags…]

(pass `--http-rate 0` to a build that has the HTTP budget: the setup makes
hundreds of HTTP requests). Measures, on one machine, with wall-clock times:
a past moment in a 64-control room of batch revisions (SQLite), FLOOD restore
frames from one member, and a cluster's summary and moments on a Redis log of
100,000 entries without snapshots and with one every 1,000 entries."""
import json
import pathlib
import statistics
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "pytests" / "integration"))
from websockets.sync.client import connect as ws_connect  # noqa: E402

from cluster import Cluster, RedisServer  # noqa: E402
from helpers import Client, TandemServer  # noqa: E402
from test_restore_cost import eval_fill  # noqa: E402

binary = pathlib.Path(sys.argv[1])
FLOOD = int(sys.argv[2]) if len(sys.argv) > 2 else 200
FLAGS = sys.argv[3:]
N = 64


def timed(server, path, n=5):
    times = []
    for _ in range(n):
        t = time.perf_counter()
        response = server.get(path)
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000, response.status


folder = pathlib.Path(tempfile.mkdtemp())
room = {"id": "big", "title": "Big", "controls": [{"id": f"c{i}", "type": "slider", "min": 0, "max": 100, "step": 1} for i in range(N)]}
s = TandemServer(binary, ["--data", str(folder / "t.db"), *FLAGS])
assert s.request("POST", "/api/rooms", json.dumps(room), {"Content-Type": "application/json"}).status in (200, 201)
for v in (10, 90):
    for i in range(N):
        assert s.request("PUT", f"/api/rooms/big/controls/c{i}", json.dumps({"value": v})).status == 200
for k in range(250):
    for rev in (N, 2 * N):
        assert s.request("POST", "/api/rooms/big/restore", json.dumps({"rev": rev})).status == 200
last = s.get("/api/rooms/big/timeline").json()["last"]
times = []
for rev in range(last - 499, last, 25):
    t = time.perf_counter()
    assert s.get(f"/api/rooms/big/timeline/{rev}").status == 200
    times.append(time.perf_counter() - t)
print(f"single node, {N} controls, {last} revisions (~{500 * N} batch rows): GET timeline/rev median "
      f"{statistics.median(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms")
ws = ws_connect(s.ws_url("big", name="F"), subprotocols=["tandem.v1"], ping_interval=None, close_timeout=1)
c = Client(ws)
t = time.perf_counter()
for k in range(FLOOD):
    c.seq += 1
    c.send_json({"type": "restore", "seq": c.seq, "rev": last - 300 + (k % 2)})
c.expect(lambda f: f.get("type") == "update" and isinstance(f.get("ack"), int) and f["ack"] >= c.seq, timeout=600)
print(f"{FLOOD} restore frames from one member: {time.perf_counter() - t:.2f} s to the last ack")
ws.close()
s.stop()

for snapshots in (False, True):
    redis = RedisServer(pathlib.Path(tempfile.mkdtemp()))
    nodes = Cluster(binary, redis, [])
    eval_fill(redis, "demo", 1, 100_000, snapshots=snapshots)
    a = nodes.start_node("a", *FLAGS)
    what = "snapshots every 1,000" if snapshots else "no snapshots"
    for path in ("/api/rooms/demo/timeline", "/api/rooms/demo/timeline/50500", "/api/rooms/demo/timeline/99999"):
        ms, status = timed(a, path)
        print(f"cluster, 100k-entry log ({what}): GET {path.split('/api/rooms/demo/')[1]} -> {status} in {ms:.1f} ms")
    a.stop()
    redis.stop()
