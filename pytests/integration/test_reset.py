"""Reset to the room file's values, over WebSocket and HTTP (docs/protocol.md, "Reset")."""

from helpers import find_change, has_change, has_gesture, value_is


def reset(client, control: str | None = None) -> int:
    """Sends a reset with the client's next seq (of one control, or of the whole room); returns that seq."""
    client.seq += 1
    message = {"type": "reset", "seq": client.seq}
    if control is not None:
        message["control"] = control
    client.send_json(message)
    return client.seq


def committed(server) -> dict:
    return {c["id"]: c["state"] for c in server.get("/api/rooms/demo").json()["controls"]}


def test_a_control_reset_is_seen_by_everyone_and_undone_by_its_sender(server, connect):
    ann = connect(server, name="Ann")
    ben = connect(server, name="Ben")
    ben.set("gain", 0.9)
    ann.expect(has_change("gain", by=ben.id, state=value_is(0.9)))

    seq = reset(ann, "gain")
    frame = ann.expect(has_change("gain", by=ann.id, state=value_is(0.5)))
    assert frame["ack"] == seq
    ben.expect(has_change("gain", by=ann.id, state=value_is(0.5)))
    assert committed(server)["gain"] == {"value": 0.5}

    ann.seq += 1
    ann.send_json({"type": "undo", "seq": ann.seq})
    ben.expect(has_change("gain", by=ann.id, state=value_is(0.9)))
    assert committed(server)["gain"] == {"value": 0.9}


def test_a_room_reset_is_one_revision_and_leaves_the_gauge(server, connect):
    ann = connect(server, name="Ann")
    ben = connect(server, name="Ben")
    ben.set("gain", 0.9)
    ben.set("size", 100)
    ben.set("bpm", 150)
    ann.expect(has_change("bpm", by=ben.id))
    before = server.get("/api/rooms/demo").json()["rev"]

    mark = ben.mark()
    reset(ann)
    frame = ben.expect(lambda f: find_change(f, "gain", by=ann.id) and find_change(f, "size", by=ann.id), since=mark,
                       what="Ann's gain and size in one frame")
    revs = {find_change(frame, c)["rev"] for c in ("gain", "size")}
    assert revs == {before + 1}
    state = committed(server)
    assert state["gain"] == {"value": 0.5}
    assert state["size"] == {"index": 2, "value": 60}
    assert state["bpm"]["value"] == 150


def test_refused_resets_name_why(server, connect):
    ann = connect(server, name="Ann")
    ben = connect(server, name="Ben")
    assert ann.expect_reject("read_only", reset(ann, "bpm"))["message"].startswith("'bpm' is a gauge")
    ann.expect_reject("unknown_control", reset(ann, "nope"))
    ann.seq += 1
    ann.send_json({"type": "reset", "seq": ann.seq, "control": 7})
    ann.expect_reject("bad_message", ann.seq)
    ann.set("gain", 0.8)
    ben.expect(has_change("gain", state=value_is(0.8)))
    ben.drag("gain", "begin")
    ann.expect(has_gesture("gain", by=ben.id, phase="begin"))  # Ben holds it before Ann's reset arrives
    reject = ann.expect_reject("busy", reset(ann, "gain"))
    assert reject["holder"] == ben.id
    ben.drag("gain", "cancel")
    ann.expect(has_gesture("gain", by=ben.id, phase="cancel"))
    assert committed(server)["gain"] == {"value": 0.8}


def test_resets_are_counted_by_type(server, connect):
    ann = connect(server)
    ann.expect_ack(reset(ann))
    assert server.metrics()['tandem_messages_in_total{type="reset"}'] == 1


def test_reset_over_http(server, connect):
    ann = connect(server, name="Ann")
    put = server.request("PUT", "/api/rooms/demo/controls/gain", '{"value": 0.25}')
    assert put.status == 200
    answer = server.request("POST", "/api/rooms/demo/controls/gain/reset")
    assert answer.status == 200, answer
    body = answer.json()
    assert body["control"] == "gain" and body["state"] == {"value": 0.5} and body["rev"] > put.json()["rev"]
    ann.expect(has_change("gain", state=value_is(0.5)))

    server.request("PUT", "/api/rooms/demo/controls/size", '{"value": 100}')
    room = server.request("POST", "/api/rooms/demo/reset")
    assert room.status == 200, room
    assert room.json()["changed"] == ["size"]
    again = server.request("POST", "/api/rooms/demo/reset").json()
    assert again == {"rev": room.json()["rev"], "changed": []}

    refused = server.request("POST", "/api/rooms/demo/controls/bpm/reset")
    assert refused.status == 400 and refused.json()["code"] == "read_only"
    assert server.request("POST", "/api/rooms/demo/controls/nope/reset").status == 404
    wrong = server.request("GET", "/api/rooms/demo/reset")
    assert wrong.status == 405 and wrong.header("Allow") == "POST"
