"""`python -m tandem set` and `python -m tandem watch` against the real server."""

from __future__ import annotations

import json
import subprocess
import sys

from helpers import http_request


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
    try:
        lines = [watcher.stdout.readline() for _ in range(5)]
        assert lines[3].strip() == "0 gain = 0.5"
        response = http_request(server.port, "PUT", "/api/rooms/demo/controls/gain", json.dumps({"value": 0.8}))
        assert response.status == 200
        assert watcher.stdout.readline().strip() == "1 gain = 0.8 by api"
    finally:
        watcher.terminate()
        watcher.wait(10)
        watcher.stdout.close()
        watcher.stderr.close()
