"""History retention (`--history-keep`, docs/storage.md "Retention"):
housekeeping prunes each room's log in bounded passes down to the
newest N commits; the file's rows stay bounded; a pruned revision reads as
`pruned` on the timeline; `0` or `forever` keeps everything."""

from __future__ import annotations

import json
import sqlite3

from helpers import ROOT


def put(server, value):
    response = server.request("PUT", "/api/rooms/demo/controls/gain", json.dumps({"value": value}))
    assert response.status == 200, response
    return response.json()["rev"]


def test_housekeeping_prunes_to_the_newest_commits_and_the_file_stays_bounded(start_server, tmp_path):
    data = tmp_path / "tandem.db"
    server = start_server("--data", str(data), "--history-keep", "50")
    for k in range(200):
        last = put(server, (k % 100) / 100)
    server.wait_metric("tandem_history_pruned_total", lambda v: v >= 150)
    history = server.get("/api/rooms/demo/history?limit=10000").json()["history"]
    assert [h["rev"] for h in history] == list(range(last - 49, last + 1))
    gone = server.get("/api/rooms/demo/timeline/10")
    assert gone.status == 410 and "pruned" in gone.json()["message"], gone
    assert server.get(f"/api/rooms/demo/timeline/{last - 10}").status == 200
    assert server.stop() == 0
    with sqlite3.connect(data) as db:
        assert db.execute("SELECT count(*) FROM commits WHERE room = 'demo'").fetchone()[0] == 50


def test_forever_and_0_keep_everything(start_server, tmp_path):
    for keep in ["forever", "0"]:
        data = tmp_path / f"{keep}.db"
        server = start_server("--data", str(data), "--history-keep", keep)
        for k in range(5):
            put(server, k / 10)
        assert "tandem_history_prune_passes_total 0" in server.get("/metrics").text
        assert len(server.get("/api/rooms/demo/history").json()["history"]) == 5


def test_the_default_keeps_a_million_commits_a_room(tandem_binary):
    import subprocess
    usage = subprocess.run([str(tandem_binary), "--help"], cwd=ROOT, capture_output=True, text=True).stdout
    assert "0 or forever keeps everything (default 1000000)" in usage
