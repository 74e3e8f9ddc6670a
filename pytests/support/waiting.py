"""How long the suites wait, and the one polling wait they share."""

from __future__ import annotations

import time
from typing import Any, Callable

# How long a wait for something the server will do may take before the test
# fails: a bound only a real hang reaches, never a guess at how fast the
# server is (a loaded machine can be slow by seconds). A wait that ends when
# its event comes costs nothing more for it. Checks that something does *not*
# happen never sleep for a while: they wait for a later answer the server must
# send in order (`Client.barrier`, `TandemServer.wait_housekeeping`).
WAIT = 30.0
START_WAIT = 60.0  # for a process to start: a build or a loaded machine may slow it


def wait_until(condition: Callable[[], Any], timeout: float = WAIT, interval: float = 0.05, what: str = "", *,
               ignore: tuple[type[BaseException], ...] = (), error: type[Exception] = AssertionError) -> Any:
    """Polls `condition()` every `interval` s until it returns something truthy, which is returned.
    An exception of a type in `ignore` counts as "not yet" (a port not open yet, Redis
    still loading); any other propagates. Past `timeout` s raises `error` with `what`
    and the last value (or exception) in the message."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = condition()
        except ignore as caught:
            value = caught
        if value and not isinstance(value, BaseException):
            return value
        if time.monotonic() > deadline:
            raise error(f"not {what or 'true'} within {timeout} s (last: {value!r})")
        time.sleep(interval)
