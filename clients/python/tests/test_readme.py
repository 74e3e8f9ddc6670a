"""The README's five-line example runs as written (only the server's address is this test's)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def five_lines() -> str:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    return blocks[0]


def test_the_five_line_example_runs_as_written(server):
    code = five_lines()
    assert len(code.strip().splitlines()) == 5
    script = code.replace("ws://localhost:8080", f"ws://127.0.0.1:{server.port}")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "0.5"
    state = {c["id"]: c["state"] for c in server.get("/api/rooms/demo").json()["controls"]}
    assert state["bpm"]["value"] == 120
