"""Every reject code reachable over the wire; a reject changes nothing and the connection stays open."""

import json
import time

from helpers import find_change, has_change


def no_commits(client):
    return not any(f.get("changes") for f in client.history)


def rejected_and_alive(client, code: str, seq: int) -> dict:
    """Waits for the reject `code` of message `seq`, then checks the connection still works; returns the reject."""
    reject = client.expect_reject(code, seq=seq)
    client.assert_alive()
    return reject


def test_text_that_is_not_json_is_rejected_as_bad_message(server, connect):
    ann = connect(server)
    ann.send_text("this is not json")
    reject = ann.expect_reject("bad_message")
    assert reject["seq"] is None
    assert isinstance(reject["message"], str) and reject["message"]
    ann.assert_alive()


def test_a_json_array_is_rejected_as_bad_message(server, connect):
    ann = connect(server)
    ann.send_text(json.dumps([{"type": "step", "seq": 1, "control": "size", "by": 1}]))
    ann.expect_reject("bad_message")
    ann.assert_alive()
    assert no_commits(ann)


def test_a_message_without_type_is_rejected_as_bad_message(server, connect):
    ann = connect(server)
    ann.send_json({"seq": 1, "control": "gain", "value": 0.9})
    reject = ann.expect_reject("bad_message")
    assert reject["seq"] in (1, None)
    ann.seq = 1
    ann.assert_alive()
    assert no_commits(ann)


def test_a_seq_that_does_not_increase_is_rejected_as_bad_message(server, connect):
    ann = connect(server)
    ann.seq = 4
    ann.expect_ack(ann.step("size", 0))
    ann.send_json({"type": "set", "seq": 5, "control": "gain", "value": 0.9})
    reject = ann.expect_reject("bad_message", seq=5)
    assert "seq" in reject["message"]
    ann.send_json({"type": "set", "seq": 3, "control": "gain", "value": 0.9})
    ann.expect_reject("bad_message", seq=3)
    ann.assert_alive()
    assert no_commits(ann), "a message out of order is not applied"


def test_an_unknown_control_is_rejected(server, connect):
    ann = connect(server)
    seq = ann.set("volume", 0.5)
    reject = ann.expect_reject("unknown_control", seq=seq)
    assert "volume" in reject["message"]
    ann.expect_ack(seq)
    ann.assert_alive()


def test_an_unknown_thumb_is_rejected(server, connect):
    ann = connect(server)
    seq = ann.drag("blanks", "begin", thumb="middle")
    ann.expect_reject("unknown_thumb", seq=seq)
    seq = ann.step("color", 1)  # a colour has three thumbs: a step must name one
    ann.expect_reject("unknown_thumb", seq=seq)
    seq = ann.set("gain", 0.9, thumb="red")
    ann.expect_reject("unknown_thumb", seq=seq)
    ann.assert_alive()
    assert no_commits(ann)


def test_a_dx_given_as_a_string_is_rejected_as_bad_value(server, connect):
    ann = connect(server)
    ann.drag("gain", "begin")
    rejected_and_alive(ann, "bad_value", ann.drag("gain", "move", dx="0.25"))


def test_a_null_dx_is_rejected_as_bad_value(server, connect):
    ann = connect(server)
    ann.drag("gain", "begin")
    ann.send_json({"type": "drag", "seq": 2, "control": "gain", "phase": "move", "dx": None})
    ann.expect_reject("bad_value", seq=2)
    ann.seq = 2
    ann.assert_alive()


def test_dx_and_at_together_are_rejected_as_bad_message(server, connect):
    ann = connect(server)
    ann.drag("gain", "begin")
    rejected_and_alive(ann, "bad_message", ann.drag("gain", "move", dx=0.1, at=0.2))


def test_a_set_of_gain_to_a_string_is_rejected_as_bad_value(server, connect):
    ann = connect(server)
    rejected_and_alive(ann, "bad_value", ann.set("gain", "0.7"))
    assert no_commits(ann)


def test_a_step_by_half_is_rejected_as_bad_value(server, connect):
    ann = connect(server)
    rejected_and_alive(ann, "bad_value", ann.step("size", 0.5))
    assert no_commits(ann)


def test_a_drag_on_the_gauge_is_rejected_as_read_only(server, connect):
    ann = connect(server)
    rejected_and_alive(ann, "read_only", ann.drag("bpm", "begin"))


def test_a_step_on_the_gauge_is_rejected_as_read_only(server, connect):
    ann = connect(server)
    rejected_and_alive(ann, "read_only", ann.step("bpm", 1))
    assert no_commits(ann)


def test_a_begin_on_a_held_thumb_is_rejected_as_busy_naming_the_holder(server, connect):
    ann = connect(server, name="Ann")
    bob = connect(server, name="Bob")
    ann.expect_ack(ann.drag("gain", "begin"))
    reject = rejected_and_alive(bob, "busy", bob.drag("gain", "begin"))
    assert reject["holder"] == ann.id


def test_a_set_of_a_held_thumb_is_rejected_as_busy(server, connect):
    ann = connect(server)
    bob = connect(server)
    ann.expect_ack(ann.drag("color", "begin", thumb="green"))
    assert rejected_and_alive(bob, "busy", bob.set("color", "#000000"))["holder"] == ann.id


def test_a_move_without_a_begin_is_rejected_as_no_gesture(server, connect):
    ann = connect(server)
    seq = ann.drag("gain", "move", dx=0.1)
    ann.expect_reject("no_gesture", seq=seq)
    seq = ann.drag("gain", "end")
    ann.expect_reject("no_gesture", seq=seq)
    ann.assert_alive()


def test_a_burst_of_more_than_600_messages_gets_rate_limited(server, connect):
    ann = connect(server, max_queue=None)
    last = 0
    for _ in range(1000):
        last = ann.step("gain", 0)
    reject = ann.expect_reject("rate_limited")
    assert isinstance(reject["seq"], int) and 600 < reject["seq"] <= last
    ann.expect_ack(last)
    # The scenario: the bucket refills. The server answered the last step before
    # this starts, so the set comes at least 0.5 s after it: 150 tokens, for the one needed.
    time.sleep(0.5)
    ann.mark()
    ann.set("gain", 0.9)
    assert find_change(ann.expect(has_change("gain")), "gain")["state"] == {"value": 0.9}


# `forbidden` (a viewer's write) needs a server with auth: test_auth.py,
# test_a_viewers_every_write_kind_is_forbidden_and_changes_nothing.
