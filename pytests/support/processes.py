"""Child processes of a test: stopping one within a bound, reading its output
line by line as it comes, or sending its output to a log file.

Waits here end on the event they mean (a line, a condition, the process
exiting), with a bound only a hang reaches; none sleeps for a guessed time.
"""

from __future__ import annotations

import re
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Callable, IO

from pytests.support.waiting import WAIT, wait_until


def stop(proc: subprocess.Popen | None, sig: int = signal.SIGTERM, timeout: float = WAIT, reap: float = 5.0) -> int | None:
    """Sends `sig` to `proc` (if it still runs) and waits up to `timeout` s for it
    to exit: its exit status. Past that, SIGKILL, reaped within `reap` s, and None."""
    if proc is None:
        return None
    if proc.poll() is None:
        proc.send_signal(sig)
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(reap)
        return None


class Exited(Exception):
    """A process waited for has exited: no use waiting longer."""


LinePredicate = Callable[[str], Any]


class Lines:
    """What a child writes to one pipe (opened in text mode), read line by line on
    a thread of its own as it comes, so that the pipe never fills: `lines` grows
    (newlines stripped), and `wait_for` returns the first line that matches.

    `lines` may be a list given by the caller, to keep one list across restarts."""

    def __init__(self, proc: subprocess.Popen, stream: IO[str], name: str = "output", lines: list[str] | None = None):
        self.proc = proc
        self.name = name
        self.lines: list[str] = [] if lines is None else lines
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._read, args=(stream,), name=f"{name}-reader", daemon=True)
        self._thread.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    def ended(self) -> bool:
        """The process has exited and all it wrote to this pipe has been read: no line is coming."""
        return self.proc.poll() is not None and not self._thread.is_alive()

    def wait_for(self, predicate: LinePredicate | str, timeout: float = WAIT, start: int = 0) -> str:
        """The first line from index `start` on that matches `predicate` (a callable, or a
        regex searched for). Fails (AssertionError, with the last lines) after `timeout`
        s, or as soon as no line can come any more."""
        if isinstance(predicate, str):
            predicate = re.compile(predicate).search
        deadline = time.monotonic() + timeout
        with self._changed:
            index = start
            while True:
                while index < len(self.lines):
                    line = self.lines[index]
                    index += 1
                    if predicate(line):
                        return line
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self.ended():
                    raise AssertionError(f"no matching {self.name} line within {timeout} s; "
                                         f"{self.name} so far:\n" + self.tail(40))
                # Woken by each new line; the bound only looks at the process again.
                self._changed.wait(min(remaining, 0.1))

    def matching(self, pattern: str) -> list[str]:
        """Every line so far in which `pattern` (a regex) is found."""
        with self._changed:
            return [line for line in self.lines if re.search(pattern, line)]

    def tail(self, n: int = 40) -> str:
        return "\n".join(self.lines[-n:])

    def join(self, timeout: float = 2.0) -> None:
        """Waits (up to `timeout` s) for the reader to reach the end of the pipe."""
        self._thread.join(timeout)


class LoggedProcess:
    """A child whose stdout and stderr are appended to the file `log`, with stdin
    closed. It can be started again (a restart keeps the log: each start first
    writes a line `--- HH:MM:SS start: COMMAND`)."""

    def __init__(self, log: Path, name: str):
        self.log = log
        self.name = name
        self.proc: subprocess.Popen | None = None

    def start(self, args: list[str], *, cwd: Path | str | None = None, env: dict[str, str] | None = None) -> None:
        with open(self.log, "ab") as out:
            out.write(f"--- {time.strftime('%H:%M:%S')} start: {' '.join(args)}\n".encode())
            out.flush()
            self.proc = subprocess.Popen(args, cwd=None if cwd is None else str(cwd), env=env,
                                         stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def send_signal(self, sig: int) -> None:
        if self.running():
            assert self.proc is not None
            self.proc.send_signal(sig)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = WAIT, reap: float = 5.0) -> int | None:
        """`stop(proc, ...)` on the current process: its exit status, or None when it had to be killed."""
        return stop(self.proc, sig, timeout, reap)

    def wait_for(self, condition: Callable[[], Any], timeout: float, what: str) -> Any:
        """Polls `condition()` until it is truthy, which is returned; OSError and
        RuntimeError count as "not yet" (a port not open yet, a Redis error reply).
        Raises `Exited` as soon as the process has exited and TimeoutError past
        `timeout` s, either with the log of this start."""
        def ready() -> Any:
            if not self.running():
                code = self.proc.returncode if self.proc else None
                raise Exited(f"{self.name} exited ({code}) before {what}: {self.since_start()}")
            return condition()

        try:
            return wait_until(ready, timeout, what=what, ignore=(OSError, RuntimeError), error=TimeoutError)
        except TimeoutError as error:
            raise TimeoutError(f"{self.name}: {error}; its log:\n{self.log_text()}") from None

    def log_text(self, last: int = 3000) -> str:
        """The log's last `last` characters ("" when there is none yet)."""
        try:
            return self.log.read_text(errors="replace")[-last:]
        except OSError:
            return ""

    def since_start(self, first: int = 1500) -> str:
        """The log from the last start on, its first `first` characters (why it stopped at start)."""
        text = self.log_text(200_000)
        return text[text.rfind("--- "):][:first]
