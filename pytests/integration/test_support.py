"""The suites' shared helpers (pytests/support) on their own, without a server:
ports, a child's lines, a logged child's waits and stop, RESP replies."""

from __future__ import annotations

import io
import signal
import socket
import subprocess
import sys

import pytest

from pytests.support import (WAIT, Exited, Lines, LoggedProcess, RespError, accepts, encode, free_port, free_port_run,
                             pairs, read_reply, stop)

# A child that says when it is ready, ignoring SIGTERM from then on, and waits for a signal.
STUBBORN = "import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint('ready', flush=True)\nsignal.pause()\n"


def test_free_ports_can_be_bound_and_accepts_tells_a_listener_from_none():
    port = free_port()
    assert not accepts("127.0.0.1", port)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", port))
        listener.listen()
        assert accepts("127.0.0.1", port)
    base = free_port_run(3)
    probes = [socket.socket() for _ in range(3)]
    try:
        for offset, probe in enumerate(probes):
            probe.bind(("127.0.0.1", base + offset))
    finally:
        for probe in probes:
            probe.close()


def test_lines_waits_for_a_line_and_fails_with_what_came_once_the_child_exited():
    proc = subprocess.Popen([sys.executable, "-c", "print('one'); print('two: 2')"], stdout=subprocess.PIPE, text=True)
    lines = Lines(proc, proc.stdout, "stdout")
    assert lines.wait_for(r"two: (\d)") == "two: 2"
    assert lines.wait_for(lambda line: line == "one") == "one"
    with pytest.raises(AssertionError, match="no matching stdout line .*\none\ntwo: 2"):
        lines.wait_for("three", start=1)  # ends when the child has exited, not at the bound
    assert lines.matching("^t") == ["two: 2"]
    assert stop(proc) == 0


def test_stop_kills_a_child_that_ignores_its_signal_past_the_bound():
    proc = subprocess.Popen([sys.executable, "-c", STUBBORN], stdout=subprocess.PIPE, text=True)
    Lines(proc, proc.stdout).wait_for("ready")
    assert stop(proc, signal.SIGTERM, timeout=0.5) is None
    assert proc.returncode == -signal.SIGKILL
    assert stop(proc) == -signal.SIGKILL  # already gone: its status again


def test_a_logged_process_keeps_its_log_across_starts_and_an_exit_ends_a_wait(tmp_path):
    process = LoggedProcess(tmp_path / "child.log", "child")
    process.start([sys.executable, "-c", "import sys; print('hello'); print('oops', file=sys.stderr)"])
    with pytest.raises(Exited, match=r"(?s)child exited \(0\) before never: --- .*\nhello\noops"):
        process.wait_for(lambda: False, 60, "never")
    process.start([sys.executable, "-c", "print('again')"])
    assert process.proc.wait(WAIT) == 0
    assert process.stop() == 0 and not process.running()
    log = process.log_text()
    assert log.count("start: ") == 2 and "hello" in log and log.endswith("again\n")
    assert process.since_start().splitlines()[1:] == ["again"]


def test_a_logged_process_wait_times_out_with_its_log(tmp_path):
    process = LoggedProcess(tmp_path / "child.log", "child")
    process.start([sys.executable, "-c", STUBBORN])
    try:
        process.wait_for(lambda: process.log_text().endswith("ready\n"), 60, "ready")
        with pytest.raises(TimeoutError, match="(?s)not the impossible within 0.2 s.*its log:\n--- .*\nready"):
            process.wait_for(lambda: None, 0.2, "the impossible")
    finally:
        assert process.stop(timeout=0.5) is None  # SIGTERM ignored: killed


def test_resp_replies_and_commands():
    assert encode("SET", "k", 12, b"\x00") == b"*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\n12\r\n$1\r\n\x00\r\n"
    reply = io.BytesIO(b"*5\r\n+OK\r\n:-3\r\n$4\r\nh\xc3\xa9!\r\n$-1\r\n*2\r\n$1\r\na\r\n*-1\r\n")
    assert read_reply(reply) == ["OK", -3, "hé!", None, ["a", None]]
    with pytest.raises(RespError, match="ERR no"):
        read_reply(io.BytesIO(b"-ERR no\r\n"))
    with pytest.raises(ConnectionError):
        read_reply(io.BytesIO(b"$10\r\nshort\r\n"))
    with pytest.raises(ConnectionError):
        read_reply(io.BytesIO(b""))
    assert pairs(["a", "1", "b", "2"]) == {"a": "1", "b": "2"} and pairs(None) == {}
