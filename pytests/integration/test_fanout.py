"""Fan-out rounds (docs/architecture.md, "Fan-out rounds"): what everyone
should see goes out in rounds at most 12 ms apart; an idle room's round starts
at once, and whatever arrives within the period waits for the next one."""

import json
import os
import time

from helpers import WAIT, RawWebSocket, control_of, find_gesture, has_gesture

OP_TEXT = 0x1


def masked_text_frame(text: str) -> bytes:
    """One client-to-server text frame, masked as the protocol requires."""
    payload = text.encode()
    assert len(payload) < 126
    mask = os.urandom(4)
    return bytes([0x80 | OP_TEXT, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def rounds(server) -> tuple[float, float]:
    metrics = server.metrics()
    return metrics["tandem_fanout_rounds_total"], metrics["tandem_fanout_armed_total"]


def test_an_idle_rooms_move_goes_out_at_once_in_a_round_of_its_own(server, connect):
    ann = connect(server, name="Ann")
    bob = connect(server, name="Bob")
    ann.expect(lambda f: any(p.get("client") == bob.id for p in f.get("joined", [])), what="Bob joined")
    time.sleep(0.1)  # the scenario: an idle room, its last round longer ago than the period (12 ms)
    before_rounds, before_armed = rounds(server)
    ann.drag("gain", "begin")
    bob.expect(has_gesture("gain", by=ann.id, phase="begin"))
    after_rounds, after_armed = rounds(server)
    assert after_rounds == before_rounds + 1
    # Bob only: Ann was woken by her ack, which is never held back for a round.
    assert after_armed == before_armed + 1


def test_a_burst_of_moves_reaches_a_receiver_in_fewer_frames_than_moves(server, connect):
    bob = connect(server, name="Bob")
    ann = RawWebSocket(server.port, path="/rooms/demo?name=Ann")
    try:
        welcome = ann.read_json()
        ann_id = welcome["client"]
        bob.expect(lambda f: any(p.get("client") == ann_id for p in f.get("joined", [])), what="Ann joined")
        before_rounds, _ = rounds(server)
        moves = 30
        messages = [{"type": "drag", "seq": 1, "control": "gain", "phase": "begin"}]
        messages += [{"type": "drag", "seq": 2 + k, "control": "gain", "phase": "move", "dx": (k + 1) / 100}
                     for k in range(moves)]
        # Every message in one write: the server applies them all before any receiver is written.
        ann.sock.sendall(b"".join(masked_text_frame(json.dumps(m, separators=(",", ":"))) for m in messages))
        mark = bob.mark()

        # gain is a slider over [0, 1] with step 0.01; dx is counted from where the drag began.
        expected = round(min(1.0, control_of(welcome, "gain")["state"]["value"] + moves / 100), 2)

        def final(frame) -> bool:
            entry = find_gesture(frame, "gain", by=ann_id)
            return entry is not None and abs(entry["state"]["value"] - expected) < 1e-9

        bob.expect(final, what=f"Ann's last move (gain {expected})")
        bob.barrier()  # every frame with Ann's moves in it has come
        carrying = [f for f in bob.history[mark:] if find_gesture(f, "gain", by=ann_id) is not None]
        assert 1 <= len(carrying) < moves, carrying
        after_rounds, _ = rounds(server)
        assert after_rounds - before_rounds < moves
        # Ann's acks are not held back: she hears of her last message.
        deadline = time.monotonic() + WAIT
        while True:
            frame = ann.read_json()
            if frame.get("type") == "update" and frame.get("ack") == 1 + moves:
                break
            assert time.monotonic() < deadline, "no ack of the last move"
    finally:
        ann.close()
