"""Durability: the SQLite file keeps rooms, committed states, revisions and the
commit log across restarts and crashes; a commit is only acknowledged once written."""

from __future__ import annotations

import csv
import io
import json
import random
import signal
import sqlite3
import threading
import time

from websockets.sync.client import connect

from helpers import START_LINE, SUBPROTOCOL, WAIT, TandemServer, wait_until


def state_of(server, control):
    room = server.get("/api/rooms/demo").json()
    return next(c for c in room["controls"] if c["id"] == control), room["rev"]


def test_a_restart_keeps_committed_states_and_revisions(start_server, connect, tmp_path):
    data = str(tmp_path / "tandem.db")
    first = start_server("--data", data)
    ann = connect(first, name="Ann")
    seq = ann.step("size", 1)
    ann.expect_ack(seq)
    assert first.request("PUT", "/api/rooms/demo/controls/gain", json.dumps({"value": 0.75})).status == 200
    ann.close()
    assert first.stop() == 0

    second = start_server("--data", data)
    size, rev = state_of(second, "size")
    gain, _ = state_of(second, "gain")
    assert size["state"] == {"index": 3, "value": 80}
    assert gain["state"] == {"value": 0.75}
    assert rev == 2 and gain["rev"] == 2 and size["rev"] == 1
    response = second.request("PUT", "/api/rooms/demo/controls/bpm", json.dumps({"value": 99}))
    assert response.json()["rev"] == 3, "a revision is never reused after a restart"


def test_history_lists_every_commit_with_who_and_when_as_json_and_csv(start_server, connect, tmp_path):
    server = start_server("--data", str(tmp_path / "tandem.db"))
    ann = connect(server, name="Ann")
    ann.expect_ack(ann.step("size", 1))
    ann.expect_ack(ann.set("color", "#FF8800"))
    server.request("PUT", "/api/rooms/demo/controls/gain", json.dumps({"value": 0.2}))
    history = server.get("/api/rooms/demo/history").json()["history"]
    assert [(h["rev"], h["control"], h["name"]) for h in history] == [
        (1, "size", "Ann"), (2, "color", "Ann"), (3, "gain", "api")]
    assert history[1]["state"]["hex"] == "#FF8800"
    assert history[0]["by"] == ann.welcome["client"]
    assert history[0]["time"].endswith("Z") and history[0]["time"][:2] == "20"
    since = server.get("/api/rooms/demo/history?since=1&limit=1").json()["history"]
    assert [h["rev"] for h in since] == [2]
    rows = list(csv.DictReader(io.StringIO(server.get("/api/rooms/demo/history.csv").text)))
    assert [r["rev"] for r in rows] == ["1", "2", "3"]
    assert json.loads(rows[1]["state"])["hex"] == "#FF8800"
    assert server.get("/api/rooms/demo/history?limit=0").status == 400


def test_a_memory_server_has_no_history(server):
    assert server.get("/api/rooms/demo/history").status == 501


def test_full_durability_starts_and_commits(start_server, tmp_path):
    server = start_server("--data", str(tmp_path / "tandem.db"), "--durability", "full")
    assert "durability=full" in server.wait_for_log(START_LINE.search)
    assert server.request("PUT", "/api/rooms/demo/controls/gain", json.dumps({"value": 0.9})).json()["rev"] == 1


class Committer(threading.Thread):
    """Steps one control back and forth as fast as acks come, recording every change it sees."""

    def __init__(self, url, control, thumb=None):
        super().__init__(daemon=True)
        self.url, self.control, self.thumb = url, control, thumb
        self.seen: list[tuple[int, str, dict]] = []
        self.committing = threading.Event()  # its first step is acknowledged
        self.error: Exception | None = None

    def run(self):
        try:
            with connect(self.url, subprotocols=[SUBPROTOCOL], open_timeout=WAIT) as ws:
                json.loads(ws.recv(timeout=WAIT))
                seq, direction = 0, 1
                while True:
                    seq += 1
                    direction = -direction if seq % 4 == 0 else direction
                    message = {"type": "step", "seq": seq, "control": self.control, "by": direction}
                    if self.thumb:
                        message["thumb"] = self.thumb
                    ws.send(json.dumps(message))
                    while True:
                        frame = json.loads(ws.recv(timeout=WAIT))
                        for change in frame.get("changes", []):
                            self.seen.append((change["rev"], change["control"], change["state"]))
                        if frame.get("ack", 0) >= seq:
                            break
                    self.committing.set()
        except Exception as error:
            self.error = error  # the server was killed (or, before `committing`, something went wrong)


def test_commits_anyone_saw_survive_twenty_kills(start_server, tandem_binary, tmp_path):
    """Clients commit continuously while the server is SIGKILLed at random moments, twenty times."""
    data = tmp_path / "tandem.db"
    rng = random.Random(20261130)
    seen: dict[int, tuple[str, dict]] = {}
    for round_ in range(20):
        server = TandemServer(tandem_binary, ["--data", str(data)])  # killed, so not start_server's clean-exit check
        committers = [Committer(server.ws_url(name=f"k{round_}"), control, thumb)
                      for control, thumb in (("size", None), ("gain", None), ("color", "red"), ("blanks", "upper"))]
        for c in committers:
            c.start()
        for c in committers:
            wait_until(lambda: c.committing.is_set() or not c.is_alive(), what=f"{c.control} committing")
            assert c.committing.is_set(), f"the {c.control} committer stopped before its first commit: {c.error!r}"
        time.sleep(rng.uniform(0.05, 0.65))  # the scenario: a kill at a random moment while everyone commits
        server.send_signal(signal.SIGKILL)
        assert server.wait_exit() is not None
        for c in committers:
            c.join(WAIT)  # its connection is gone: it stops at once
            assert not c.is_alive(), f"the {c.control} committer is still running"
            for rev, control, state in c.seen:
                assert seen.get(rev, (control, state)) == (control, state), f"revision {rev} seen twice with different content"
                seen[rev] = (control, state)
    assert len(seen) > 100, "the clients committed too little to test anything"

    final = start_server("--data", str(data))
    history: list[dict] = []
    while True:
        page = final.get(f"/api/rooms/demo/history?since={history[-1]['rev'] if history else 0}&limit=10000").json()["history"]
        if not page:
            break
        history += page
    revisions = [h["rev"] for h in history]
    assert revisions == sorted(set(revisions)), "no revision repeats"
    assert revisions == list(range(1, len(revisions) + 1)), "no revision is missing"
    logged = {h["rev"]: (h["control"], h["state"]) for h in history}
    lost = {rev: what for rev, what in seen.items() if logged.get(rev) != what}
    assert not lost, f"{len(lost)} acknowledged commits are missing or different, e.g. {list(lost.items())[:3]}"
    assert final.stop() == 0
    with sqlite3.connect(data) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
