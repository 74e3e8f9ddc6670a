"""A closed connection cancels its gestures for everyone."""

from helpers import find_change, find_gesture, has_gesture, value_is


def drag_then_vanish(server, connect):
    ann = connect(server, name="Ann")
    bob = connect(server, name="Bob")
    ann.drag("gain", "begin")
    ann.drag("gain", "move", dx=0.3)
    bob.expect(has_gesture("gain", by=ann.id, phase="move", state=value_is(0.8)))
    bob.mark()
    ann.ws.close()
    return ann, bob


def test_a_disconnect_mid_drag_cancels_the_gesture_for_everyone(server, connect):
    ann, bob = drag_then_vanish(server, connect)
    frame = bob.expect(has_gesture("gain", thumb="value", by=ann.id, phase="cancel"))
    entry = find_gesture(frame, "gain", by=ann.id, phase="cancel")
    assert entry["state"] == {"value": 0.5}, "the cancel shows the committed value again"
    bob.expect(lambda f: ann.id in (f.get("left") or []))
    bob.barrier()  # whatever the server sent Bob about Ann's going has come
    assert all(find_change(f, "gain") is None for f in bob.history), "nothing was committed"


def test_after_a_disconnect_mid_drag_another_client_can_take_the_thumb(server, connect):
    ann, bob = drag_then_vanish(server, connect)
    bob.expect(has_gesture("gain", by=ann.id, phase="cancel"))
    bob.drag("gain", "begin")
    bob.drag("gain", "move", dx=-0.2)
    bob.expect(has_gesture("gain", by=bob.id, phase="move", state=value_is(0.3)))
    assert not [f for f in bob.history if f.get("type") == "reject"]
    assert server.get("/api/rooms/demo").json()["controls"][3]["state"] == {"value": 0.5}
