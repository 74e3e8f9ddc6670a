"""`python -m tandem set` and `python -m tandem watch` against the real server."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from types import SimpleNamespace

from helpers import http_request
from tandem.__main__ import watch_room


def test_set_sets_one_control_and_prints_the_committed_state(server):
    done = subprocess.run([sys.executable, "-m", "tandem", "set", server.url, "gain", "0.126"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == 'gain = {"value": 0.13}'
    colour = subprocess.run([sys.executable, "-m", "tandem", "set", server.url, "color", "#FF8800"],
                            capture_output=True, text=True, timeout=60)
    assert colour.returncode == 0 and '"hex": "#FF8800"' in colour.stdout


def test_set_reports_a_reject_and_exits_1(server):
    done = subprocess.run([sys.executable, "-m", "tandem", "set", server.url, "bpm", "loud"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "number" in done.stderr


def test_watch_prints_the_values_then_each_change_live(server):
    watcher = subprocess.Popen([sys.executable, "-u", "-m", "tandem", "--name", "Watcher", "watch", server.url],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in watcher.stdout], daemon=True).start()
    try:
        first = [lines.get(timeout=60) for _ in range(5)]
        assert first[3].strip() == "0 gain = 0.5"
        # At once: a commit landing while the watcher prints the values must
        # still be shown after them (the handler is registered first).
        response = http_request(server.port, "PUT", "/api/rooms/demo/controls/gain", json.dumps({"value": 0.8}))
        assert response.status == 200
        assert lines.get(timeout=60).strip() == "1 gain = 0.8 by api"
    finally:
        watcher.terminate()
        watcher.wait(10)
        watcher.stdout.close()
        watcher.stderr.close()


class _RoomCommittingWhilePrinted:
    """A room whose commit 1 lands (from another thread, as the client's
    dispatcher would deliver it) while `watch` prints the values."""

    rev = 0

    def __init__(self):
        self.handlers = []
        self.committer = None

    def on_change(self):
        def register(fn):
            self.handlers.append(fn)
            return fn
        return register

    def __iter__(self):
        yield "gain"
        change = SimpleNamespace(rev=1, control="gain", value=0.8, name=None, by="api")
        self.committer = threading.Thread(target=lambda: [fn(change) for fn in list(self.handlers)])
        self.committer.start()
        yield "bpm"

    def __getitem__(self, control):
        return SimpleNamespace(value=0.5)


def test_watch_shows_a_commit_that_lands_while_it_prints_the_values(capsys):
    room = _RoomCommittingWhilePrinted()
    watch_room(room)
    room.committer.join(10)
    assert capsys.readouterr().out.splitlines() == ["0 gain = 0.5", "0 bpm = 0.5", "1 gain = 0.8 by api"]
