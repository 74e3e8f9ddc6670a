"""Waiting for what the server does, not for time to pass (issue 21).

- `WAIT`: the bound on a wait for something the server will do. Only a hung
  server gets near it; a busy machine only makes the wait longer.
- `settle(*clients)`: a barrier. Each client sends a harmless `step` by 0 and
  reads until it is acknowledged. The server answers in order, so every frame
  it owed that client for what it processed before the step has arrived by
  then, and "nothing else came" can be checked in the client's history
  instead of by listening for a while. The step changes nothing: no revision,
  no `changes` entry, no edit to undo. Call it once the action whose
  aftermath you check has been processed (its sender has the ack).
"""

from __future__ import annotations

WAIT = 60.0


def settle(*clients) -> None:
    """Every frame each client was owed for what the server processed so far has arrived."""
    for client in clients:
        client.expect_ack(client.step("size", 0), timeout=WAIT)
