"""Focus: where each person is, in their presence (docs/protocol.md, "Focus")."""


def focus(client, control):
    client.seq += 1
    message = {"type": "focus", "seq": client.seq}
    if control is not None:
        message["control"] = control
    client.send_json(message)
    return client.seq


def peer_in(frame, client_id):
    return next((p for p in frame.get("joined") or [] if p["client"] == client_id), None)


def test_a_focus_reaches_everyone_in_the_persons_presence(server, connect):
    ann = connect(server, name="Ann")
    ben = connect(server, name="Ben")
    ann.expect_ack(focus(ann, "gain"))
    frame = ben.expect(lambda f: (peer_in(f, ann.id) or {}).get("focus") == "gain", what="Ann's focus in Ben's frame")
    assert peer_in(frame, ann.id)["name"] == "Ann"
    cat = connect(server, name="Cat")
    assert next(p for p in cat.welcome["peers"] if p["client"] == ann.id)["focus"] == "gain"
    mark = ben.mark()
    ann.expect_ack(focus(ann, None))
    frame = ben.expect(lambda f: peer_in(f, ann.id) is not None, since=mark, what="Ann's focus cleared")
    assert "focus" not in peer_in(frame, ann.id)
    ann.expect_reject("unknown_control", focus(ann, "nope"))
    assert server.metrics()['tandem_messages_in_total{type="focus"}'] == 3
