"""Batch notes (docs/protocol.md, "Batch notes"): the update that carries a recall's,
a restore's or a reset's changes says whose it was and why, to everyone, once."""

import json

from helpers import Client  # noqa: F401 (the connect fixture's clients)


def send(client, message: dict) -> int:
    client.seq += 1
    client.send_json({**message, "seq": client.seq})
    return client.seq


def note_where(**fields):
    def match(frame):
        note = frame.get("batch") if frame.get("type") == "update" else None
        return note is not None and all(note.get(k) == v for k, v in fields.items())
    return match


def test_a_recall_is_noted_to_everyone_with_its_author_preset_and_controls(server, connect):
    ann = connect(server, name="Ann")
    ben = connect(server, name="Ben")
    for control, value in (("gain", 0.8), ("size", 100)):
        ann.expect_ack(ann.set(control, value))
    ann.expect_ack(send(ann, {"type": "preset", "action": "save", "name": "Warm"}))
    ann.expect_ack(send(ann, {"type": "reset"}))
    reset = ben.expect(note_where(cause="reset", by=ann.id), what="the room's reset noted")
    assert "control" not in reset["batch"] and reset["batch"]["controls"] == ["size", "gain"]
    mark = ben.mark()
    ann.expect_ack(send(ann, {"type": "preset", "action": "recall", "name": "Warm"}))
    frame = ben.expect(note_where(cause="preset", preset="Warm"), since=mark, what="the recall noted")
    note = frame["batch"]
    assert note["by"] == ann.id and note["controls"] == ["size", "gain"] and note["rev"] == frame["rev"]
    assert {c["control"] for c in frame["changes"]} >= {"size", "gain"}
    # Carried once: Ben's next frame has none.
    mark = ben.mark()
    ann.expect_ack(ann.set("gain", 0.1))
    later = ben.expect(lambda f: f.get("type") == "update" and any(c["control"] == "gain" for c in f.get("changes", [])),
                       since=mark)
    assert "batch" not in later


def test_http_resets_and_recalls_are_noted_as_the_apis(server, connect):
    ben = connect(server, name="Ben")
    assert server.request("PUT", "/api/rooms/demo/controls/gain", json.dumps({"value": 0.9})).status == 200
    assert server.request("POST", "/api/rooms/demo/controls/gain/reset").status == 200
    ben.expect(note_where(cause="reset", control="gain", by="api", controls=["gain"]), what="a control's reset over HTTP")
    mark = ben.mark()
    # A reset that changes nothing has no note.
    assert server.request("POST", "/api/rooms/demo/reset").json()["changed"] == []
    assert server.request("PUT", "/api/rooms/demo/controls/gain", json.dumps({"value": 0.3})).status == 200
    ben.expect(lambda f: f.get("type") == "update" and any(c["control"] == "gain" for c in f.get("changes", [])), since=mark)
    assert not any("batch" in f for f in ben.history[mark:]), "neither the no-op reset nor the PUT is a noted batch"
