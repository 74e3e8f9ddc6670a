"""The control kinds of protocol v1.1 and their options (docs/protocol.md,
"Control kinds added in v1.1") against the real server: a synth
room posted through the admin API with a log slider, digits, units, snap
labels, a toggle, an xy pad and a button, then driven over WebSocket and HTTP
(drags, steps, sets and their rejects), and kept across a restart."""

from __future__ import annotations

import json

from helpers import control_of, find_change, has_change

SYNTH = {
    "id": "synth",
    "title": "Synth",
    "controls": [
        {"id": "cutoff", "type": "slider", "label": "Cutoff", "min": 20, "max": 20000, "scale": "log",
         "unit": "Hz", "group": "Filter", "description": "Low-pass cutoff frequency", "state": {"value": 440}},
        {"id": "res", "type": "slider", "label": "Resonance", "min": 0, "max": 1, "digits": 2, "group": "Filter"},
        {"id": "wave", "type": "snap", "label": "Waveform", "values": [0, 1, 2, 3],
         "labels": ["sine", "square", "saw", "triangle"], "group": "Oscillator"},
        {"id": "filter", "type": "toggle", "label": "Filter on", "group": "Filter"},
        {"id": "pad", "type": "xy", "label": "Pad",
         "x": {"min": 0, "max": 1, "step": 0.01, "label": "Mix"},
         "y": {"min": 20, "max": 20000, "scale": "log", "unit": "Hz", "label": "Cutoff"}},
        {"id": "hit", "type": "button", "label": "Trigger"},
        {"id": "out", "type": "gauge", "label": "Output", "min": -60, "max": 0, "unit": "dB"},
    ],
}


def post(server, body):
    return server.request("POST", "/api/rooms", json.dumps(body), {"Content-Type": "application/json"})


def put(server, control, body):
    return server.request("PUT", f"/api/rooms/synth/controls/{control}", json.dumps(body))


def synth(server, connect):
    response = post(server, SYNTH)
    assert response.status == 201, response
    return connect(server, name="Ann", room="synth"), connect(server, name="Bob", room="synth")


def test_the_welcome_describes_every_new_field_and_state(server, connect):
    ann, _ = synth(server, connect)
    cutoff = control_of(ann.welcome, "cutoff")
    assert (cutoff["scale"], cutoff["digits"], cutoff["unit"]) == ("log", 3, "Hz")
    assert (cutoff["group"], cutoff["description"]) == ("Filter", "Low-pass cutoff frequency")
    assert control_of(ann.welcome, "res")["digits"] == 2 and "scale" not in control_of(ann.welcome, "res")
    assert control_of(ann.welcome, "wave")["labels"] == ["sine", "square", "saw", "triangle"]
    assert control_of(ann.welcome, "filter")["state"] == {"on": False}
    pad = control_of(ann.welcome, "pad")
    assert pad["x"] == {"min": 0, "max": 1, "step": 0.01, "label": "Mix"}
    assert pad["y"] == {"min": 20, "max": 20000, "scale": "log", "digits": 3, "unit": "Hz", "label": "Cutoff"}
    assert pad["state"] == {"x": 0, "y": 20}
    assert control_of(ann.welcome, "hit")["state"] == {"presses": 0}
    assert control_of(ann.welcome, "out")["unit"] == "dB"


def test_a_log_slider_drags_in_track_fraction_and_rounds_to_three_digits(server, connect):
    ann, bob = synth(server, connect)
    ann.drag("cutoff", "begin", at=0.5)  # the middle of 20 Hz–20 kHz: 20 × 1000^0.5 = 632.46
    bob.expect(lambda f: any(g["control"] == "cutoff" and g["state"]["value"] == 632 for g in f.get("gestures", [])),
               what="a 632 Hz preview")
    ann.drag("cutoff", "move", dx=0.1)
    bob.expect(lambda f: any(g["control"] == "cutoff" and g["state"]["value"] == 1260 for g in f.get("gestures", [])),
               what="a 1260 Hz preview")
    seq = ann.drag("cutoff", "end", dx=0)
    ann.expect_ack(seq)
    bob.expect(has_change("cutoff", state=lambda s: s == {"value": 632}), what="632 Hz committed")
    seq = ann.step("cutoff", 10)
    frame = bob.expect(has_change("cutoff", state=lambda s: s["value"] != 632))
    assert find_change(frame, "cutoff")["state"] == {"value": 1260}  # 632 × 1000^0.1, 3 digits
    seq = ann.set("cutoff", 443.7)
    bob.expect(has_change("cutoff", state=lambda s: s == {"value": 444}))
    seq = ann.set("res", 0.123456)
    bob.expect(has_change("res", state=lambda s: s == {"value": 0.12}))


def test_a_toggle_flips_on_step_and_refuses_drags(server, connect):
    ann, bob = synth(server, connect)
    ann.step("filter", 1)
    bob.expect(has_change("filter", state=lambda s: s == {"on": True}))
    ann.set("filter", False)
    bob.expect(has_change("filter", state=lambda s: s == {"on": False}))
    seq = ann.drag("filter", "begin")
    reject = ann.expect_reject("bad_value", seq)
    assert "not drags" in reject["message"]
    seq = ann.set("filter", 2)
    ann.expect_reject("bad_value", seq)
    seq = ann.set("filter", "on")
    ann.expect_reject("bad_value", seq)


def test_an_xy_drag_moves_both_axes_and_holds_the_pad(server, connect):
    ann, bob = synth(server, connect)
    ann.drag("pad", "begin", thumb="xy")
    ann.drag("pad", "move", thumb="xy", dx=0.25, dy=0.5)
    bob.expect(lambda f: any(g["control"] == "pad" and g["state"] == {"x": 0.25, "y": 632}
                             for g in f.get("gestures", [])), what="the pad's preview")
    seq = bob.drag("pad", "begin", thumb="xy")
    reject = bob.expect_reject("busy", seq)
    assert reject["holder"] == ann.id
    seq = bob.set("pad", {"x": 1})
    bob.expect_reject("busy", seq)
    seq = ann.drag("pad", "end", thumb="xy")
    ann.expect_ack(seq)
    bob.expect(has_change("pad", state=lambda s: s == {"x": 0.25, "y": 632}))
    ann.drag("pad", "begin", thumb="xy", at=[1, 0])
    ann.drag("pad", "end", thumb="xy")
    bob.expect(has_change("pad", state=lambda s: s == {"x": 1, "y": 20}))
    ann.set("pad", {"y": 440})
    bob.expect(has_change("pad", state=lambda s: s == {"x": 1, "y": 440}))
    ann.step("pad", [-10, 0])
    bob.expect(has_change("pad", state=lambda s: s == {"x": 0.9, "y": 440}))


def test_set_and_step_rejects_name_the_shape_the_kind_needs(server, connect):
    ann, _ = synth(server, connect)
    cases = [
        (ann.set("pad", 0.5), "bad_value"),
        (ann.step("pad", 1), "bad_value"),
        (ann.step("pad", [1]), "bad_value"),
        (ann.drag("pad", "begin", thumb="xy", at=0.5), "bad_value"),
        (ann.drag("cutoff", "begin", at=[0.5, 0.5]), "bad_value"),
        (ann.drag("pad", "move", thumb="xy", dy=0.1, at=[0, 0]), "bad_message"),
        (ann.step("cutoff", [1, 1]), "bad_value"),
        (ann.set("hit", False), "bad_value"),
        (ann.step("hit", 0), "bad_value"),
        (ann.drag("hit", "begin"), "bad_value"),
        (ann.set("out", True), "bad_value"),
    ]
    for seq, code in cases:
        ann.expect_reject(code, seq)
    assert server.get("/api/rooms/synth").json()["rev"] == 0


def test_each_button_press_is_a_commit_and_a_revision(server, connect):
    ann, bob = synth(server, connect)
    ann.step("hit", 1)
    frame = bob.expect(has_change("hit", state=lambda s: s == {"presses": 1}))
    first = find_change(frame, "hit")["rev"]
    bob.step("hit", 3)
    frame = ann.expect(has_change("hit", state=lambda s: s == {"presses": 2}))
    assert find_change(frame, "hit")["rev"] == first + 1
    ann.set("hit", True)
    bob.expect(has_change("hit", state=lambda s: s == {"presses": 3}))
    ann.expect_answer(ann.message("undo", "hit"))  # answered: the undo was handled before the GET
    assert control_of(server.get("/api/rooms/synth").json(), "hit")["state"] == {"presses": 3}, "a press is not undone"


def test_http_sets_take_booleans_and_objects(server, connect):
    synth(server, connect)
    assert put(server, "filter", {"value": True}).status == 200
    assert put(server, "pad", {"value": {"x": 0.5, "y": 2000}}).status == 200
    assert put(server, "hit", {"value": True}).status == 200
    response = put(server, "pad", {"value": 0.5})
    assert response.status == 400 and response.json()["code"] == "bad_value"
    snapshot = server.get("/api/rooms/synth").json()
    assert control_of(snapshot, "filter")["state"] == {"on": True}
    assert control_of(snapshot, "pad")["state"] == {"x": 0.5, "y": 2000}
    assert control_of(snapshot, "hit")["state"] == {"presses": 1}


def test_bad_schemas_are_400_naming_the_field(server):
    cases = [
        ({"id": "f", "type": "slider", "min": 20, "max": 20000, "scale": "log", "step": 1}, "f", "step", "use digits"),
        ({"id": "f", "type": "slider", "min": 0, "max": 20000, "scale": "log"}, "f", "min", "above 0"),
        ({"id": "f", "type": "slider", "min": 0, "max": 1, "digits": 16}, "f", "digits", "1 to 15"),
        ({"id": "w", "type": "snap", "values": [0, 1], "labels": ["sine"]}, "w", "labels", "2 items"),
        ({"id": "p", "type": "xy", "x": {"min": 0, "max": 1}}, "p", "y", "required"),
        ({"id": "p", "type": "xy", "x": {"min": 0}, "y": {"min": 0, "max": 1}}, "p", "x.max", "required"),
        ({"id": "t", "type": "toggle", "group": "g" * 61}, "t", "group", "at most 60"),
        ({"id": "b", "type": "button", "state": {"presses": -1}}, "b", "state.presses", "0 to 2^53"),
    ]
    for control, name, field, words in cases:
        response = post(server, {"id": "bad", "controls": [control]})
        assert response.status == 400, (control, response)
        body = response.json()
        assert (body["code"], body["control"], body["field"]) == ("bad_schema", name, field), body
        assert words in body["message"], body


def test_new_states_and_schemas_survive_a_restart(start_server, connect, tmp_path):
    data = str(tmp_path / "tandem.db")
    first = start_server("--data", data)
    assert post(first, SYNTH).status == 201
    assert put(first, "filter", {"value": True}).status == 200
    assert put(first, "pad", {"value": {"x": 0.3, "y": 5000}}).status == 200
    assert put(first, "hit", {"value": True}).status == 200
    assert first.stop() == 0
    second = start_server("--data", data)
    ann = connect(second, name="Ann", room="synth")
    assert control_of(ann.welcome, "filter")["state"] == {"on": True}
    assert control_of(ann.welcome, "pad")["state"] == {"x": 0.3, "y": 5000}
    assert control_of(ann.welcome, "hit")["state"] == {"presses": 1}
    assert control_of(ann.welcome, "cutoff")["scale"] == "log"
    assert control_of(ann.welcome, "wave")["labels"] == ["sine", "square", "saw", "triangle"]
    history = second.get("/api/rooms/synth/history").json()["history"]
    assert [h["control"] for h in history] == ["filter", "pad", "hit"]
