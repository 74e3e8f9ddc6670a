"""The rate limiter's close matches its docs (docs/configuration.md): past
300 messages a second (bursts of 600) a client gets `rate_limited`
rejects, and only one that keeps flooding for a whole second is closed
with 1008.
"""

import json
import os
import time

from helpers import OP_CLOSE, OP_TEXT, WAIT, RawWebSocket, flood_until_closed

CHUNK = 300  # steps per write: at one write every 50 ms, 20 times the sustained limit


def steps(first_seq: int, n: int) -> bytes:
    """`n` masked text frames, each a step by 0 of the size, with seqs from `first_seq`: one write's worth."""
    out = bytearray()
    for seq in range(first_seq, first_seq + n):
        payload = json.dumps({"type": "step", "seq": seq, "control": "size", "by": 0}).encode()
        mask = os.urandom(4)
        out += bytes([0x81, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes(out)


def acked(seq: int):
    return lambda op, p: op == OP_TEXT and (json.loads(p).get("ack") or 0) >= seq


def flood(raw: RawWebSocket, seconds: float, first_seq: int = 1) -> tuple[int, list[tuple[int, bytes]]]:
    """Floods for `seconds` (and for three writes at least, 900 steps, past the
    burst of 600): CHUNK steps in one write, at most one write every 50 ms, each
    once the server has answered the one before. The server never lags behind,
    so the run of rejects it sees is over when this returns: a busy machine
    makes it send less, not flood for longer. Returns the next seq and what was read."""
    seq, seen, writes = first_seq, [], 0
    started = time.monotonic()
    while (now := time.monotonic()) < started + seconds or writes < 3:
        raw.sock.sendall(steps(seq, CHUNK))
        seq += CHUNK
        writes += 1
        answer = frames_until(raw, acked(seq - 1))
        seen += answer
        if not answer or not acked(seq - 1)(*answer[-1]):
            break  # closed: the caller sees the close in what was read
        time.sleep(max(0.0, now + 0.05 - time.monotonic()))  # pacing the writes
    return seq, seen


def frames_until(raw: RawWebSocket, done) -> list[tuple[int, bytes]]:
    """Every message read until `done(opcode, payload)` is true or the server hangs up (waiting up to WAIT for each)."""
    raw.settimeout(WAIT)
    seen = []
    try:
        while True:
            opcode, payload = raw.read_message()
            seen.append((opcode, payload))
            if done(opcode, payload):
                break
    except (EOFError, ConnectionResetError):
        pass
    return seen


def rejects(seen) -> list[dict]:
    return [json.loads(p) for op, p in seen if op == OP_TEXT and json.loads(p).get("type") == "reject"]


def test_a_client_flooding_for_a_fifth_of_a_second_is_rate_limited_but_not_closed(server):
    raw = RawWebSocket(server.port)
    try:
        raw.read_json()
        seq, seen = flood(raw, 0.2)
        # The scenario: more than the second a flood must last to be closed goes by.
        time.sleep(1.5)
        raw.send_text(json.dumps({"type": "step", "seq": seq, "control": "size", "by": 1}))
        seen += frames_until(raw, lambda op, p: op == OP_TEXT and json.loads(p).get("ack") == seq)
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
        # Returns at the close: a second or so in, or later on a loaded machine,
        # where a stall of the server for the quarter second that ends a flood
        # starts it again; the close comes with the first whole second without one.
        code, _ = flood_until_closed(raw, 3 * WAIT)
        assert code == 1008
        server.wait_for_log(rf"close {client} code=1008")
        flooded = time.monotonic() - started
        assert flooded >= 1.0, "closed before the flood lasted a second"
        # Thousands of rejects, a handful of log lines (the log takes 5 of a kind per 10 s).
        assert 1 <= len(server.log_lines("code=rate_limited")) <= 10 * (1 + int(flooded // 10))
        assert server.metrics()["tandem_log_lines_suppressed_total"] > 0
    finally:
        raw.close()


def test_floods_shorter_than_a_second_apart_by_pauses_are_not_closed(server):
    # 1.5 s of flooding in all, in three runs of 0.5 s, each rejected from its
    # first or third write on; the pauses (twice the quarter second that ends a
    # run, counted from the server's last answer to it) end each run.
    raw = RawWebSocket(server.port)
    try:
        raw.read_json()
        seq, seen = 1, []
        for _ in range(3):
            seq, run = flood(raw, 0.5, seq)
            assert any(r["code"] == "rate_limited" for r in rejects(run)), "this run never went past the limit"
            seen += run
            time.sleep(0.5)  # the scenario: a pause between runs
        raw.send_text(json.dumps({"type": "step", "seq": seq, "control": "size", "by": 1}))
        seen += frames_until(raw, lambda op, p: op == OP_TEXT and json.loads(p).get("ack") == seq)
        assert not any(op == OP_CLOSE for op, _ in seen)
        assert json.loads(seen[-1][1]).get("ack") == seq
    finally:
        raw.close()
