"""A disk that fills up under a single node's SQLite file (docs/storage.md,
"When the disk fills or fails").

The file lives on a 1.5 MiB tmpfs; a filler file takes the rest of it, and
sets go on until SQLite cannot write. From then on every set is refused
(`unavailable`, naming the cause) and none is acknowledged, /healthz says 503,
reads and drags go on; once the filler is gone the next set is acknowledged
and stored and /healthz is 200 again. After the run the database is opened
and every acknowledged set is in it, no refused one is.

Shared with test_io_error.py: `Ledger`, `assert_acknowledged`, the checks of
the failing and the healed server, and `stop_and_check_file`.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from helpers import WAIT, find_gesture, has_gesture, wait_until

GAUGE = "bpm"  # a gauge takes any value: every set is a distinct, exactly representable number


def value(i: int) -> float:
    return 1 + i / 1024


class Ledger:
    """Every set one client sent and how the server answered it."""

    def __init__(self, client):
        self.client = client
        self.acked: list[float] = []
        self.refused: list[tuple[float, dict]] = []
        self.count = 0

    def set(self) -> dict:
        """Sends the next set and waits for its answer: an ack (an update acknowledging
        it, with no reject for it before) or its reject."""
        self.count += 1
        v = value(self.count)
        seq = self.client.set(GAUGE, v)
        answer = self.client.expect_answer(seq)
        if answer.get("type") == "reject":
            self.refused.append((v, answer))
            # The ack follows its reject: the message was processed, and refused.
            self.client.expect_ack(seq)
        else:
            self.acked.append(v)
        return answer


def assert_acknowledged(ledger: Ledger, times: int = 1) -> None:
    """Sends `times` sets; each must be acknowledged (an update, not a reject)."""
    for _ in range(times):
        assert ledger.set().get("type") == "update"


def committed_gauge(server) -> float:
    room = server.get("/api/rooms/demo").json()
    return next(c for c in room["controls"] if c["id"] == GAUGE)["state"]["value"]


def assert_failing(server, ledger: Ledger, watcher, cause: str) -> None:
    """With storage failing: sets refused and never acknowledged, /healthz 503, reads and drags go on."""
    reject = ledger.refused[-1][1]
    assert reject["code"] == "unavailable"
    assert reject["message"] == f"the server could not store this change ({cause}); nothing changed, try again"
    health = server.get("/healthz")
    assert health.status == 503 and health.text.startswith("storage unavailable: "), health.text
    assert cause in health.text
    assert server.metrics().get("tandem_storage_ok") == 0
    server.wait_for_log(lambda line: "storage unavailable:" in line and "commits are refused" in line)
    durable = ledger.acked[-1]
    for _ in range(3):
        answer = ledger.set()
        assert answer.get("type") == "reject" and answer["code"] == "unavailable", answer
    # An undo is a commit too: refused, and the history stays (the healed server's undo would take it back).
    writer = ledger.client
    writer.seq += 1
    writer.send_json({"type": "undo", "seq": writer.seq})
    assert writer.expect_answer(writer.seq).get("code") == "unavailable"
    # Reads: the room as the file holds it.
    assert committed_gauge(server) == durable
    assert server.get("/api/rooms/demo/history?limit=1").status == 200
    # Drags (previews need no disk) reach the others, and are acknowledged.
    watcher.mark()
    begin = writer.drag("gain", "begin")
    move = writer.drag("gain", "move", dx=0.2)
    frame = watcher.expect(has_gesture("gain", by=writer.id, phase="move"))
    assert find_gesture(frame, "gain", by=writer.id, phase="move")["state"]["value"] == pytest.approx(0.7)
    cancel = writer.drag("gain", "cancel")
    watcher.expect(has_gesture("gain", by=writer.id, phase="cancel"))
    for seq in (begin, move, cancel):  # acknowledged (acks of a turn come as one, the latest)
        assert writer.expect_answer(seq).get("type") == "update"

    # The watcher saw the gauge only at its durable value (the refused sets never showed).
    seen = [c["state"]["value"] for f in watcher.history if f.get("type") == "update"
            for c in f.get("changes", []) if c.get("control") == GAUGE]
    refused = {v for v, _ in ledger.refused}
    assert not refused & set(seen), f"a refused value was shown to others: {sorted(refused & set(seen))}"


def assert_healed(server, ledger: Ledger) -> None:
    answer = ledger.set()
    assert answer.get("type") == "update", f"the first set after the disk came back was refused: {answer}"
    wait_until(lambda: server.get("/healthz").status == 200, what="/healthz 200 again")
    assert server.metrics().get("tandem_storage_ok") == 1
    server.wait_for_log(lambda line: "storage available again" in line)
    assert committed_gauge(server) == ledger.acked[-1]


def assert_file_matches(path: Path, ledger: Ledger) -> None:
    """Reopened after the server stopped: every acknowledged set is logged, no refused one is."""
    db = sqlite3.connect(str(path))
    try:
        logged = [json.loads(state)["value"] for (state,) in
                  db.execute("SELECT state FROM commits WHERE room = 'demo' AND control = ? ORDER BY revision", (GAUGE,))]
        (final,) = db.execute("SELECT state FROM controls WHERE room = 'demo' AND id = ?", (GAUGE,)).fetchone()
        revisions = [r for (r,) in db.execute("SELECT revision FROM commits WHERE room = 'demo' ORDER BY revision")]
    finally:
        db.close()
    assert logged == ledger.acked, "the log is not exactly the acknowledged sets, in order"
    assert not {v for v, _ in ledger.refused} & set(logged)
    assert json.loads(final)["value"] == ledger.acked[-1]
    assert revisions == list(range(1, len(revisions) + 1)), "revisions in the file have a gap"


def stop_and_check_file(server, data: Path, ledger: Ledger, *clients) -> None:
    """Closes `clients`, stops the server (exit status 0) and checks the file at `data` against the ledger."""
    for client in clients:
        client.close()
    assert server.stop() == 0
    assert_file_matches(data, ledger)


@pytest.fixture
def small_disk(tmp_path):
    """A 1.5 MiB tmpfs, unmounted at teardown (after the servers, which are set up later)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1536k", "tmpfs", str(mount)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        if subprocess.run(["umount", str(mount)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def fill(path: Path) -> int:
    """Writes `path` until the file system is full; returns its size."""
    written = 0
    with open(path, "wb", buffering=0) as out:
        for chunk in (64 * 1024, 4096, 512, 1):
            block = b"\0" * chunk
            while True:
                try:
                    n = out.write(block)
                except OSError as error:
                    if error.errno != errno.ENOSPC:
                        raise
                    break
                written += n or 0
                if not n or n < chunk:
                    break
    return written


def fill_until_refused(disk: Path, ledger: Ledger) -> Path:
    """Fills `disk` with a file (returned: unlink it to give the space back), then sends
    sets until one is refused: the SQLite file may still have room in pages it holds."""
    filler = disk / "filler"
    fill(filler)
    for _ in range(2000):
        if ledger.set().get("type") == "reject":
            return filler
    pytest.fail("2000 sets on a full disk were all acknowledged")


def test_a_full_disk_refuses_commits_serves_reads_and_drags_and_recovers(small_disk, start_server, connect):
    data = small_disk / "tandem.db"
    server = start_server("--data", str(data))
    writer = connect(server, name="Writer")
    watcher = connect(server, name="Watcher")
    ledger = Ledger(writer)
    assert_acknowledged(ledger, 3)
    filler = fill_until_refused(small_disk, ledger)
    assert ledger.acked, "no set was acknowledged before the disk filled"
    assert_failing(server, ledger, watcher, "disk full")
    filler.unlink()
    assert_healed(server, ledger)
    assert_acknowledged(ledger, 3)
    stop_and_check_file(server, data, ledger, writer, watcher)


def test_a_full_disk_refuses_room_and_preset_saves_with_503(small_disk, start_server, connect):
    data = small_disk / "tandem.db"
    server = start_server("--data", str(data), "--http-rate", "0")
    writer = connect(server, name="Writer")
    ledger = Ledger(writer)
    assert_acknowledged(ledger)
    # A preset and a past moment that differ from the room (gain; a gauge is in neither).
    writer.expect_answer(writer.set("gain", 0.9))
    assert server.request("PUT", "/api/rooms/demo/presets/Early", "{}").status == 201
    writer.expect_answer(writer.set("gain", 0.3))
    filler = fill_until_refused(small_disk, ledger)
    # A preset save over the WebSocket: refused unavailable, naming the cause.
    writer.seq += 1
    writer.send_json({"type": "preset", "seq": writer.seq, "action": "save", "name": "Full"})
    reject = writer.expect_reject("unavailable", seq=writer.seq)
    assert "disk full" in reject["message"]
    # Over HTTP: 503 with a problem body; nothing changed.
    saved = server.request("PUT", "/api/rooms/demo/presets/Full", "{}")
    assert saved.status == 503 and saved.json()["code"] == "unavailable", saved
    assert "nothing changed" in saved.json()["message"]
    assert [p["name"] for p in server.get("/api/rooms/demo/presets").json()["presets"]] == ["Early"]
    # Writes over HTTP that commit (a recall, a restore): 503, and the room is as the file holds it.
    before = server.get("/api/rooms/demo").json()["controls"]
    for method, path, body in (("POST", "/api/rooms/demo/presets/Early/recall", ""),
                               ("POST", "/api/rooms/demo/restore", '{"rev": 1}')):
        answer = server.request(method, path, body)
        assert answer.status == 503 and answer.json()["code"] == "unavailable", (path, answer)
        assert answer.json()["message"] == "the server could not store this change (disk full); nothing changed, try again"
        assert server.get("/api/rooms/demo").json()["controls"] == before
    room = {"id": "extra", "title": "Extra", "controls": [
        {"id": "level", "type": "slider", "label": "Level", "min": 0, "max": 1, "step": 0.1, "state": {"value": 0.5}}]}
    # A big schema, so that the save needs pages the file does not have.
    room["controls"] += [{"id": f"c{i}", "type": "slider", "label": f"Control {i} " + "x" * 100, "min": 0, "max": 1,
                          "step": 0.1, "state": {"value": 0.5}} for i in range(100)]
    posted = server.request("POST", "/api/rooms", json.dumps(room))
    assert posted.status == 503 and posted.json()["code"] == "unavailable", posted
    assert server.get("/api/rooms/extra").status == 404
    assert server.get("/healthz").status == 503
    filler.unlink()
    assert server.request("POST", "/api/rooms", json.dumps(room)).status == 201
    assert server.request("PUT", "/api/rooms/demo/presets/Full", "{}").status == 201
    wait_until(lambda: server.get("/healthz").status == 200, what="/healthz 200 again")
    stop_and_check_file(server, data, ledger, writer)
    with contextlib.closing(sqlite3.connect(str(data))) as db:
        assert db.execute("SELECT count(*) FROM presets WHERE room = 'demo' AND name = 'Full'").fetchone() == (1,)
        assert db.execute("SELECT count(*) FROM rooms WHERE id = 'extra'").fetchone() == (1,)


def test_a_put_of_a_control_on_a_full_disk_is_503(small_disk, start_server, connect):
    data = small_disk / "tandem.db"
    server = start_server("--data", str(data), "--http-rate", "0")
    ledger = Ledger(connect(server, name="Writer"))
    assert_acknowledged(ledger)
    fill_until_refused(small_disk, ledger)
    before = committed_gauge(server)
    answer = server.request("PUT", f"/api/rooms/demo/controls/{GAUGE}", json.dumps({"value": 99}))
    assert committed_gauge(server) == before
    assert answer.status == 503 and answer.json()["code"] == "unavailable", answer
    assert "nothing changed" in answer.json()["message"]


def test_the_probe_brings_health_back_without_a_commit(small_disk, start_server, connect):
    """Storage comes back by itself: once space returns, a probe write (every second) succeeds."""
    data = small_disk / "tandem.db"
    server = start_server("--data", str(data))
    writer = connect(server, name="Writer")
    ledger = Ledger(writer)
    assert_acknowledged(ledger)
    filler = fill_until_refused(small_disk, ledger)
    assert server.get("/healthz").status == 503
    filler.unlink()
    wait_until(lambda: server.get("/healthz").status == 200, timeout=WAIT, what="/healthz 200 from the probe")
    assert_acknowledged(ledger)
    stop_and_check_file(server, data, ledger, writer)


def test_a_deleted_file_refuses_commits_until_a_restart(start_server, connect, tmp_path):
    """Writes would go to a file nobody can open again: refused, /healthz 503, and no exit
    (the open file is the only copy of what was acknowledged)."""
    data = tmp_path / "tandem.db"
    server = start_server("--data", str(data))
    ledger = Ledger(connect(server, name="Writer"))
    assert_acknowledged(ledger)
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{data}{suffix}")
    server.wait_for_log(lambda line: "was deleted while the server had it open" in line)
    answer = ledger.set()
    assert answer.get("type") == "reject" and "database file deleted" in answer["message"], answer
    health = server.get("/healthz")
    assert health.status == 503 and "was deleted" in health.text
    assert committed_gauge(server) == ledger.acked[-1]
    ledger.client.close()
    assert server.stop() == 0
