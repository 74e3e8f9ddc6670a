"""Undo and redo of one's own gestures and sets, across two clients (docs/protocol.md, "Undo and redo")."""

from helpers import find_change, has_change, has_gesture, value_is


def revert(client, kind: str) -> int:
    """Sends `{"type": kind, "seq": n}` with the client's next seq; returns that seq."""
    client.seq += 1
    client.send_json({"type": kind, "seq": client.seq})
    return client.seq


def size_is(index: int, value: int):
    return lambda state: state == {"index": index, "value": value}


def test_undo_and_redo_revert_only_ones_own_edits_and_everyone_sees_them(server, connect):
    ann = connect(server, name="Ann")
    ben = connect(server, name="Ben")

    # Ann drags gain in several moves and releases; Ben sets the circle size.
    ann.drag("gain", "begin")
    for dx in (0.05, 0.1, 0.15, 0.2):
        ann.drag("gain", "move", dx=dx)
    ann.drag("gain", "end")
    ben.expect(has_change("gain", by=ann.id, state=value_is(0.7)))
    ben.set("size", 100)
    ann.expect(has_change("size", by=ben.id, state=size_is(4, 100)))
    ben.expect(has_change("size", by=ben.id, state=size_is(4, 100)))

    # Ann's undo takes the whole drag back in one step; Ben sees it as Ann's change.
    a0, b0 = ann.mark(), ben.mark()
    seq = revert(ann, "undo")
    frame = ann.expect(has_change("gain", state=value_is(0.5)))
    assert frame["ack"] == seq
    change = find_change(ben.expect(has_change("gain", state=value_is(0.5))), "gain")
    assert change["by"] == ann.id
    # Ben's size is untouched: nothing of the undo comes after their barriers' answers.
    ann.barrier()
    ben.barrier()
    assert not any(find_change(f, "size") for f in ann.history[a0:] + ben.history[b0:])

    # Ann's redo puts the drag back.
    ann.mark()
    ben.mark()
    revert(ann, "redo")
    ann.expect(has_change("gain", by=ann.id, state=value_is(0.7)))
    ben.expect(has_change("gain", by=ann.id, state=value_is(0.7)))

    # Ben's undo undoes his own set only.
    a0, b0 = ann.mark(), ben.mark()
    seq = revert(ben, "undo")
    ben.expect(has_change("size", by=ben.id, state=size_is(2, 60)))
    ann.expect(has_change("size", by=ben.id, state=size_is(2, 60)))
    ben.expect_ack(seq)
    ann.barrier()
    ben.barrier()
    assert not any(find_change(f, "gain") for f in ann.history[a0:] + ben.history[b0:])

    # The room agrees with what both saw.
    controls = {c["id"]: c["state"] for c in server.get("/api/rooms/demo").json()["controls"]}
    assert controls["gain"] == {"value": 0.7}
    assert controls["size"] == {"index": 2, "value": 60}


def test_nothing_to_undo_is_only_acknowledged(server, connect):
    ann = connect(server, name="Ann")
    seq = revert(ann, "undo")
    frame = ann.expect_ack(seq)
    assert frame.get("type") == "update"
    assert not frame.get("changes")
    seq = revert(ann, "redo")
    ann.expect_ack(seq)
    assert not any(f.get("type") == "reject" for f in ann.history)


def test_undo_of_a_thumb_someone_holds_is_busy_with_the_holder(server, connect):
    ann = connect(server, name="Ann")
    ben = connect(server, name="Ben")
    ann.set("gain", 0.2)
    ann.expect(has_change("gain", state=value_is(0.2)))
    ben.drag("gain", "begin")
    ann.expect(has_gesture("gain", by=ben.id, phase="begin"))  # Ben holds it before Ann's undo arrives
    ann.mark()
    seq = revert(ann, "undo")
    reject = ann.expect_reject("busy", seq)
    assert reject["holder"] == ben.id
    ben.drag("gain", "cancel")
    ann.expect(has_gesture("gain", by=ben.id, phase="cancel"))
    revert(ann, "undo")
    ann.expect(has_change("gain", by=ann.id, state=value_is(0.5)))


def test_undo_and_redo_are_counted_by_type(server, connect):
    ann = connect(server)
    revert(ann, "undo")
    seq = revert(ann, "redo")
    ann.expect_ack(seq)
    metrics = server.metrics()
    assert metrics['tandem_messages_in_total{type="undo"}'] == 1
    assert metrics['tandem_messages_in_total{type="redo"}'] == 1
