"""The examples run as documented against the real server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_the_training_loop_creates_its_room_reads_the_learning_rate_and_publishes_its_loss(server):
    url = server.ws_url("training")
    first = subprocess.run([sys.executable, str(EXAMPLES / "training_loop.py"), url, "--steps", "10", "--delay", "0"],
                           capture_output=True, text=True, timeout=60)
    assert first.returncode == 0, first.stderr
    assert "step 10: loss" in first.stdout and "at lr 0.01" in first.stdout
    # Someone in a browser drags the learning rate; the next run reads it.
    response = server.request("PUT", "/api/rooms/training/controls/lr", json.dumps({"value": 0.05}))
    assert response.status == 200, response
    second = subprocess.run([sys.executable, str(EXAMPLES / "training_loop.py"), url, "--steps", "10", "--delay", "0"],
                            capture_output=True, text=True, timeout=60)
    assert second.returncode == 0, second.stderr
    assert "at lr 0.05" in second.stdout
    controls = {c["id"]: c for c in server.get("/api/rooms/training").json()["controls"]}
    assert controls["loss"]["by"] != "api" and controls["loss"]["rev"] > 0
    assert controls["epoch"]["state"]["value"] == 10


def test_the_sweep_moves_a_slider_and_lets_go_where_it_is_told(server):
    done = subprocess.run([sys.executable, str(EXAMPLES / "sweep.py"), server.url, "gain", "--seconds", "0.3",
                           "--to", "0.7"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "gain = 0.7"
    state = {c["id"]: c["state"] for c in server.get("/api/rooms/demo").json()["controls"]}
    assert state["gain"] == {"value": 0.7}
