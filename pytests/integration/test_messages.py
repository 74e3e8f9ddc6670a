"""Every client message type over the wire, and what the sender and the others see."""

import pytest

from helpers import find_change, find_gesture, has_change, has_gesture, value_is


def test_drag_begin_shows_a_preview_at_the_committed_value(server, connect):
    ann = connect(server, name="Ann")
    seq = ann.drag("gain", "begin")
    frame = ann.expect(has_gesture("gain", by=ann.id, phase="begin"))
    entry = find_gesture(frame, "gain", by=ann.id, phase="begin")
    assert entry["thumb"] == "value"
    assert entry["state"] == {"value": 0.5}
    ann.expect_ack(seq)


def test_drag_move_with_dx_previews_relative_to_where_the_drag_began(server, connect):
    ann = connect(server)
    ann.drag("gain", "begin")
    ann.drag("gain", "move", dx=0.1)
    seq = ann.drag("gain", "move", dx=0.25)  # total translation, not accumulated
    ann.expect(has_gesture("gain", by=ann.id, phase="move", state=value_is(0.75)))
    ann.expect_ack(seq)


def test_drag_move_with_at_previews_the_absolute_track_fraction(server, connect):
    ann = connect(server)
    ann.drag("size", "begin")
    ann.drag("size", "move", at=0.8)
    frame = ann.expect(has_gesture("size", by=ann.id, phase="move"))
    assert find_gesture(frame, "size", by=ann.id, phase="move")["state"] == {"index": 3, "value": 80}


def test_drag_begin_with_at_jumps_to_the_press_point(server, connect):
    ann = connect(server)
    ann.drag("gain", "begin", at=0.3)
    ann.expect(has_gesture("gain", by=ann.id, phase="begin", state=value_is(0.3)))


def test_drag_end_commits_the_last_preview_with_a_new_rev(server, connect):
    ann = connect(server)
    rev0 = ann.welcome["rev"]
    ann.drag("gain", "begin")
    ann.drag("gain", "move", dx=0.25)
    seq = ann.drag("gain", "end")
    frame = ann.expect(has_change("gain"))
    change = find_change(frame, "gain")
    assert change["state"] == {"value": 0.75}
    assert change["by"] == ann.id
    assert change["rev"] > rev0
    assert frame["rev"] >= change["rev"]
    assert frame["ack"] == seq
    assert find_gesture(frame, "gain", by=ann.id, phase="end") is not None


def test_drag_end_with_dx_moves_there_then_commits(server, connect):
    ann = connect(server)
    ann.drag("blanks", "begin", thumb="upper")
    ann.drag("blanks", "end", thumb="upper", dx=1 / 9)
    frame = ann.expect(has_change("blanks"))
    assert find_change(frame, "blanks")["state"] == {"lower": 0, "upper": 2}


def test_drag_cancel_restores_the_committed_value_without_a_commit(server, connect):
    ann = connect(server)
    ann.drag("gain", "begin")
    ann.drag("gain", "move", dx=0.3)
    ann.expect(has_gesture("gain", phase="move", state=value_is(0.8)))
    seq = ann.drag("gain", "cancel")
    frame = ann.expect(has_gesture("gain", by=ann.id, phase="cancel"))
    assert find_gesture(frame, "gain", phase="cancel")["state"] == {"value": 0.5}
    ann.expect_ack(seq)
    assert not any(find_change(f, "gain") for f in ann.history)


def test_set_of_a_number_commits_it(server, connect):
    ann = connect(server)
    seq = ann.set("gain", 0.7)
    frame = ann.expect(has_change("gain"))
    assert find_change(frame, "gain")["state"] == {"value": 0.7}
    assert frame["ack"] == seq


def test_set_of_the_whole_colour_takes_a_hex_string(server, connect):
    ann = connect(server)
    ann.set("color", "#FF8800")
    frame = ann.expect(has_change("color"))
    state = find_change(frame, "color")["state"]
    assert state["hex"] == "#FF8800"
    assert state["red"] == pytest.approx(1.0)
    assert state["green"] == pytest.approx(0x88 / 255)
    assert state["blue"] == pytest.approx(0.0)


def test_set_of_a_colour_channel_names_its_thumb(server, connect):
    ann = connect(server)
    ann.set("color", 0.5, thumb="red")
    frame = ann.expect(has_change("color"))
    state = find_change(frame, "color")["state"]
    assert state["red"] == pytest.approx(128 / 255)  # 0.5 snapped to the nearest 1/255
    assert state["hex"] == "#806699"
    assert state["green"] == pytest.approx(0.4) and state["blue"] == pytest.approx(0.6)


def test_step_moves_a_snap_by_whole_indices(server, connect):
    ann = connect(server)
    ann.step("size", -1)
    frame = ann.expect(has_change("size"))
    assert find_change(frame, "size")["state"] == {"index": 1, "value": 40}
    seq = ann.step("size", 2)
    frame = ann.expect(has_change("size", state=lambda s: s["index"] == 3))
    assert find_change(frame, "size")["state"] == {"index": 3, "value": 80}
    assert frame["ack"] == seq


def test_ack_equals_the_senders_latest_seq_even_when_seq_skips(server, connect):
    ann = connect(server)
    ann.seq = 41
    seq = ann.step("size", 1)
    assert seq == 42
    ann.expect_ack(42)
    ann.seq = 99
    ann.expect_ack(ann.step("size", 1))


def test_two_clients_see_each_others_previews(server, connect):
    ann = connect(server, name="Ann")
    bob = connect(server, name="Bob")
    ann.drag("gain", "begin")
    entry = find_gesture(bob.expect(has_gesture("gain", by=ann.id)), "gain", by=ann.id)
    assert entry["thumb"] == "value" and entry["phase"] in ("begin", "move") and entry["state"] == {"value": 0.5}
    ann.drag("gain", "move", dx=0.2)
    bob.expect(has_gesture("gain", by=ann.id, phase="move", state=value_is(0.7)))

    bob.drag("size", "begin", at=0.8)
    frame = ann.expect(has_gesture("size", by=bob.id))
    assert find_gesture(frame, "size", by=bob.id)["state"] == {"index": 3, "value": 80}


def test_two_clients_see_each_others_commits_with_rev_and_by(server, connect):
    ann = connect(server, name="Ann")
    bob = connect(server, name="Bob")
    ann.drag("gain", "begin")
    ann.drag("gain", "move", dx=0.2)
    ann_end = ann.drag("gain", "end")
    frame = bob.expect(has_change("gain"))
    change = find_change(frame, "gain")
    assert change == {"control": "gain", "state": {"value": 0.7}, "rev": change["rev"], "by": ann.id}
    assert isinstance(change["rev"], int) and change["rev"] >= 1
    assert find_gesture(bob.expect(has_gesture("gain", phase="end")), "gain", phase="end")["by"] == ann.id
    ann.expect_ack(ann_end)

    bob_set = bob.set("color", "#FF8800")
    frame = ann.expect(has_change("color"))
    change = find_change(frame, "color")
    assert change["by"] == bob.id and change["state"]["hex"] == "#FF8800"
    assert change["rev"] > find_change(bob.expect(has_change("gain")), "gain")["rev"]
    bob.expect_ack(bob_set)


def test_three_clients_each_see_the_others_previews_and_commits(server, connect):
    people = [connect(server, name=n) for n in ("Ann", "Bob", "Cy")]
    ann, bob, cy = people
    drags = {
        ann.id: ("gain", "value", 0.1, lambda s: s["value"] == pytest.approx(0.6)),
        bob.id: ("blanks", "upper", 2 / 9, lambda s: s == {"lower": 0, "upper": 3}),
        cy.id: ("color", "red", 0.2, lambda s: s["hex"] == "#666699"),
    }
    for person in people:
        person.mark()
    for person in people:
        control, thumb, _, _ = drags[person.id]
        person.drag(control, "begin", thumb=thumb if thumb != "value" else None)
    for person in people:
        for other, (control, thumb, _, _) in drags.items():
            if other != person.id:
                person.expect(has_gesture(control, thumb=thumb, by=other, phase=("begin", "move")))

    for person in people:
        person.mark()
    for person in people:
        control, thumb, dx, _ = drags[person.id]
        person.drag(control, "move", thumb=thumb if thumb != "value" else None, dx=dx)
    for person in people:
        for other, (control, thumb, _, expected) in drags.items():
            if other != person.id:
                person.expect(has_gesture(control, thumb=thumb, by=other, phase="move", state=expected))

    for person in people:
        person.mark()
    ends = {}
    for person in people:
        control, thumb, _, _ = drags[person.id]
        ends[person.id] = person.drag(control, "end", thumb=thumb if thumb != "value" else None)
    revs = set()
    for person in people:
        for other, (control, thumb, _, expected) in drags.items():
            frame = person.expect(has_change(control, by=other, state=expected))
            change = find_change(frame, control, by=other)
            revs.add(change["rev"])
            if other != person.id:
                person.expect(has_gesture(control, thumb=thumb, by=other, phase="end"))
        person.expect_ack(ends[person.id])
    assert len(revs) == 3, "each commit has its own revision"
