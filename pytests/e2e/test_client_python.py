"""The Python client's example training loop (clients/python/examples/training_loop.py)
against the real server, with a browser in the room: the loop reads the learning
rate the browser sets, and the browser shows the loss the loop publishes on its gauge."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

from selenium.webdriver.common.keys import Keys

ROOT = Path(__file__).resolve().parents[2]
LOOP = ROOT / "clients" / "python" / "examples" / "training_loop.py"


def start_loop(server) -> tuple[subprocess.Popen, "queue.Queue[str]"]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "clients" / "python"))
    proc = subprocess.Popen([sys.executable, "-u", str(LOOP), f"ws://127.0.0.1:{server.port}/rooms/training",
                             "--delay", "0.05"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()
    return proc, lines


def wait_line(lines: "queue.Queue[str]", needle: str, timeout: float = 60.0) -> str:
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=max(0.01, deadline - time.monotonic()))
        except queue.Empty:
            break
        seen.append(line)
        if needle in line:
            return line
    raise AssertionError(f"no line with {needle!r} within {timeout} s; got:\n{''.join(seen[-20:])}")


def test_the_training_loop_reads_the_rate_the_browser_sets_and_the_browser_shows_its_loss(browser, server):
    proc, lines = start_loop(server)
    try:
        wait_line(lines, "step 10: loss")                     # the loop created its room and runs
        page = browser("Ann", room="training")
        thumb = page.thumb("lr", "value")
        assert float(thumb.get_attribute("aria-valuenow")) == 0.01
        page.focus(thumb)
        page.keys(Keys.END)                                   # Ann sets the learning rate to its maximum
        page.wait_now("lr", "value", 1)
        assert "(set by Ann)" in wait_line(lines, "learning rate 1 ")
        wait_line(lines, "at lr 1\n")
        meter = page.in_section("loss", '[role="meter"]')

        def gauge_shows_the_published_loss() -> bool:
            shown = float(meter.get_attribute("aria-valuenow"))
            return shown > 0 and abs(shown - server.state("loss", room="training")["value"]) < 1e-9
        page.wait(gauge_shows_the_published_loss, what="the loss gauge showing the loop's published loss")
        first = float(meter.get_attribute("aria-valuenow"))
        page.wait(lambda: float(meter.get_attribute("aria-valuenow")) != first, what="the loss gauge moving")
    finally:
        proc.terminate()
        proc.wait(10)
        proc.stdout.close()
