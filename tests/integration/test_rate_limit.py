"""The rate limiter's close matches its docs (docs/configuration.md): past
300 messages a second (bursts of 600) a client gets `rate_limited`
rejects, and only one that keeps flooding for a whole second is closed
with 1008.
"""

import json
import time

from helpers import OP_CLOSE, OP_TEXT, RawWebSocket, flood_until_closed


def flood(raw: RawWebSocket, seconds: float, first_seq: int = 1) -> int:
    """Sends steps as fast as it can for `seconds` (or until the server hangs up); returns the next seq."""
    seq = first_seq
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            for _ in range(50):
                raw.send_text(json.dumps({"type": "step", "seq": seq, "control": "size", "by": 0}))
                seq += 1
    except OSError:
        pass  # the server hung up
    return seq


def frames_until(raw: RawWebSocket, done, timeout: float = 5.0) -> list[tuple[int, bytes]]:
    """Every message read until `done(opcode, payload)` is true, the server hangs up or `timeout` passes."""
    raw.settimeout(timeout)
    seen = []
    try:
        while True:
            opcode, payload = raw.read_message()
            seen.append((opcode, payload))
            if done(opcode, payload):
                break
    except (EOFError, ConnectionResetError, TimeoutError):
        pass
    return seen


def rejects(seen) -> list[dict]:
    return [json.loads(p) for op, p in seen if op == OP_TEXT and json.loads(p).get("type") == "reject"]


def test_a_client_flooding_for_a_fifth_of_a_second_is_rate_limited_but_not_closed(server):
    raw = RawWebSocket(server.port)
    try:
        raw.read_json()
        seq = flood(raw, 0.2)
        time.sleep(1.5)  # longer than the one second a flood must last to be closed
        raw.send_text(json.dumps({"type": "step", "seq": seq, "control": "size", "by": 1}))
        seen = frames_until(raw, lambda op, p: op == OP_TEXT and json.loads(p).get("ack") == seq)
        assert any(r["code"] == "rate_limited" for r in rejects(seen)), "the flood never went past the limit"
        assert not any(op == OP_CLOSE for op, _ in seen), seen[-3:]
        assert json.loads(seen[-1][1]).get("ack") == seq
    finally:
        raw.close()


def test_a_client_flooding_for_more_than_a_second_is_closed_with_1008(server):
    raw = RawWebSocket(server.port)
    try:
        client = raw.read_json()["client"]
        started = time.monotonic()
        code, _ = flood_until_closed(raw, 6.0)
        assert code == 1008
        server.wait_for_log(rf"close {client} code=1008")
        assert time.monotonic() - started >= 1.0
        # Thousands of rejects, a handful of log lines.
        assert 1 <= len(server.log_lines("code=rate_limited")) <= 10
        assert server.metrics()["tandem_log_lines_suppressed_total"] > 0
    finally:
        raw.close()


def test_floods_shorter_than_a_second_apart_by_pauses_are_not_closed(server):
    # 1.8 s of flooding in all, in three runs: the pauses (long enough for the
    # server to have drained what was sent) end each run.
    raw = RawWebSocket(server.port)
    try:
        raw.read_json()
        seq = 1
        for _ in range(3):
            seq = flood(raw, 0.6, seq)
            time.sleep(1.5)
        raw.send_text(json.dumps({"type": "step", "seq": seq, "control": "size", "by": 1}))
        seen = frames_until(raw, lambda op, p: op == OP_TEXT and json.loads(p).get("ack") == seq)
        assert not any(op == OP_CLOSE for op, _ in seen)
        assert json.loads(seen[-1][1]).get("ack") == seq
    finally:
        raw.close()
