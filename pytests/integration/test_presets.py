"""Presets (docs/presets.md): named sets of control states saved with a room,
recalled as ONE commit at ONE revision, over WebSocket and the HTTP API."""

from __future__ import annotations

import json
import signal
import time
import urllib.parse

from test_auth import api, joined, token  # noqa: F401  (auth_server and secret_file are fixtures there)
from test_auth import auth_server, secret_file  # noqa: F401

SETTABLE = ["size", "blanks", "color", "gain"]  # the demo's controls that take batches (bpm is a gauge)


def preset_message(client, action: str, name, **fields) -> int:
    client.seq += 1
    client.send_json({"type": "preset", "seq": client.seq, "action": action, "name": name, **fields})
    return client.seq


def presets_frame(client, predicate=lambda presets: True) -> list[dict]:
    """The next `presets` frame whose list satisfies `predicate`; its list."""
    frame = client.expect(lambda f: f.get("type") == "presets" and predicate(f["presets"]), what="presets list")
    return frame["presets"]


def names(presets: list[dict]) -> list[str]:
    return [p["name"] for p in presets]


def tune(client) -> None:
    """Moves every settable demo control away from its initial state."""
    for send in (lambda: client.step("size", 2), lambda: client.set("gain", 0.8), lambda: client.set("color", "#FF8800"),
                 lambda: client.step("blanks", 2, thumb="upper"), lambda: client.step("blanks", 2, thumb="lower")):
        client.expect_ack(send())


def changes_in(frames: list[dict]) -> list[list[dict]]:
    """The `changes` of each update frame that has any."""
    return [f["changes"] for f in frames if f.get("type") == "update" and f.get("changes")]


def states(server, room: str = "demo") -> tuple[dict, int]:
    body = server.get(f"/api/rooms/{room}").json()
    return {c["id"]: c["state"] for c in body["controls"]}, body["rev"]


def quote(name: str) -> str:
    return urllib.parse.quote(name, safe="")


# -- the list


def test_every_member_gets_the_presets_list_right_after_the_welcome(server, connect):
    ann = connect(server, name="Ann")
    first = ann.recv()
    assert first == {"type": "presets", "presets": []}


def test_a_save_reaches_every_member_as_the_list_sorted_by_name(server, connect):
    ann, ben = connect(server, name="Ann"), connect(server, name="Ben")
    tune(ann)
    before = int(time.time() * 1000)
    seq = preset_message(ann, "save", "Warm")
    ann.expect_ack(seq)
    for client in (ann, ben):
        presets = presets_frame(client, lambda p: names(p) == ["Warm"])
        warm = presets[0]
        assert warm["by"] == "Ann"
        assert before - 1000 <= warm["time"] <= int(time.time() * 1000) + 1000
        assert list(warm["states"]) == SETTABLE, "every control that takes batches, in the room's order; no gauge"
        assert warm["states"]["size"] == {"index": 4, "value": 100}
        assert warm["states"]["color"]["hex"] == "#FF8800"
    preset_message(ben, "save", "  Cold ")
    for client in (ann, ben):
        assert names(presets_frame(client, lambda p: len(p) == 2)) == ["Cold", "Warm"]
    # A newcomer gets the whole list after its welcome.
    cid = connect(server, name="Cid")
    assert names(presets_frame(cid)) == ["Cold", "Warm"]


def test_saving_under_a_taken_name_replaces_that_preset(server, connect):
    ann = connect(server, name="Ann")
    ann.expect_ack(preset_message(ann, "save", "Warm"))
    ann.expect_ack(ann.set("gain", 0.1))
    ann.expect_ack(preset_message(ann, "save", "Warm"))
    presets = presets_frame(ann, lambda p: p and p[0]["states"]["gain"] == {"value": 0.1})
    assert names(presets) == ["Warm"]


# -- recall


def test_a_recall_is_one_frame_per_member_at_one_revision(start_server, connect, tmp_path):
    server = start_server("--data", str(tmp_path / "tandem.db"))
    ann, ben = connect(server, name="Ann"), connect(server, name="Ben")
    tune(ann)
    saved, _ = states(server)
    ann.expect_ack(preset_message(ann, "save", "Warm"))
    for send in (lambda: ann.step("size", -3), lambda: ann.set("gain", 0.2), lambda: ann.set("color", "#000000"),
                 lambda: ann.step("blanks", -2, thumb="lower")):
        ann.expect_ack(send())
    # Ann has every ack; Ben's barrier: nothing from before the recall is still coming.
    # (Not "Ben saw blanks.lower back at 0": tune's upper step left it at 0 too.)
    ben.barrier()
    _, rev_before = states(server)

    ann.mark()
    ben.mark()
    seq = preset_message(ann, "recall", "Warm")
    ann.expect_ack(seq)
    # Everything the recall sent either of them is in before their barrier's ack.
    ann.barrier()
    ben.barrier()
    ann_frames = ann.history[ann._mark:]
    ben_frames = ben.history[ben._mark:]

    rev = rev_before + 1
    for who, frames in (("ann", ann_frames), ("ben", ben_frames)):
        with_changes = changes_in(frames)
        assert len(with_changes) == 1, f"{who} got the preset in {len(with_changes)} frames: {frames}"
        changes = with_changes[0]
        assert sorted(c["control"] for c in changes) == sorted(SETTABLE)
        assert {c["rev"] for c in changes} == {rev}
        assert {c["by"] for c in changes} == {ann.id}
        assert {c["control"]: c["state"] for c in changes} == {k: saved[k] for k in SETTABLE}
    now, now_rev = states(server)
    assert now_rev == rev
    assert {k: now[k] for k in SETTABLE} == {k: saved[k] for k in SETTABLE}

    history = server.get(f"/api/rooms/demo/history?since={rev_before}").json()["history"]
    assert sorted((h["rev"], h["control"]) for h in history) == sorted((rev, c) for c in SETTABLE)
    assert {h["name"] for h in history} == {"Ann"}


def test_a_recall_of_what_is_already_there_changes_nothing_and_is_acknowledged(server, connect):
    ann = connect(server, name="Ann")
    ann.expect_ack(preset_message(ann, "save", "Here"))
    _, rev = states(server)
    ann.mark()
    ann.expect_ack(preset_message(ann, "recall", "Here"))
    ann.barrier()
    assert changes_in(ann.history[ann._mark:]) == []
    assert states(server)[1] == rev


def test_a_recall_while_someone_holds_a_touched_control_is_busy_naming_the_holder(server, connect):
    ann, ben = connect(server, name="Ann"), connect(server, name="Ben")
    tune(ann)
    ann.expect_ack(preset_message(ann, "save", "Warm"))
    ann.expect_ack(ann.set("gain", 0.3))
    ben.expect_ack(ben.drag("gain", "begin"))
    ben.expect_ack(ben.drag("gain", "move", dx=0.1))
    before = states(server)
    seq = preset_message(ann, "recall", "Warm")
    reject = ann.expect_reject("busy", seq)
    assert reject["holder"] == ben.id
    assert "gain" in reject["message"]
    ann.expect_ack(seq)
    assert states(server) == before, "a refused recall changes nothing, not even the controls nobody holds"
    ben.expect_ack(ben.drag("gain", "cancel"))
    ann.expect_ack(preset_message(ann, "recall", "Warm"))
    assert states(server)[0]["gain"] == {"value": 0.8}


def test_undo_after_a_recall_puts_every_control_back_in_one_revision(server, connect):
    ann, ben = connect(server, name="Ann"), connect(server, name="Ben")
    tune(ann)
    ann.expect_ack(preset_message(ann, "save", "Warm"))
    for send in (lambda: ann.step("size", -4), lambda: ann.set("gain", 0.2), lambda: ann.step("blanks", -2, thumb="lower")):
        ann.expect_ack(send())
    before, _ = states(server)
    ann.expect_ack(preset_message(ann, "recall", "Warm"))
    ben.barrier()  # the recall's frames are in
    ben.mark()
    ann.seq += 1
    ann.send_json({"type": "undo", "seq": ann.seq})
    ann.expect_ack(ann.seq)
    after, rev = states(server)
    assert after == before
    ben.barrier()  # and now the undo's
    undo_frames = changes_in(ben.history[ben._mark:])
    assert len(undo_frames) == 1 and {c["rev"] for c in undo_frames[0]} == {rev}


# -- rename, delete, refusals


def test_rename_and_delete_change_everyones_list(server, connect):
    ann, ben = connect(server, name="Ann"), connect(server, name="Ben")
    ann.expect_ack(preset_message(ann, "save", "Warm"))
    ann.expect_ack(preset_message(ann, "save", "Cold"))
    ann.expect_ack(preset_message(ann, "rename", "Warm", to="Warmer"))
    assert names(presets_frame(ben, lambda p: "Warmer" in names(p))) == ["Cold", "Warmer"]
    ben.mark()
    ann.expect_ack(preset_message(ann, "delete", "Cold"))
    assert names(presets_frame(ben)) == ["Warmer"]
    assert names(server.get("/api/rooms/demo/presets").json()["presets"]) == ["Warmer"]


def test_unknown_names_are_unknown_preset_and_bad_names_bad_value(server, connect):
    ann = connect(server, name="Ann")
    ann.expect_ack(preset_message(ann, "save", "Warm"))
    ann.expect_ack(preset_message(ann, "save", "Cold"))
    for action, fields in (("recall", {}), ("delete", {}), ("rename", {"to": "X"})):
        seq = preset_message(ann, action, "Nope", **fields)
        assert "Nope" in ann.expect_reject("unknown_preset", seq)["message"]
    seq = preset_message(ann, "rename", "Warm", to="Cold")
    assert "already exists" in ann.expect_reject("bad_value", seq)["message"]
    for bad in ("", "   ", "x" * 61, "a\nb", "Lead/Pad"):
        seq = preset_message(ann, "save", bad)
        assert ann.expect_reject("bad_value", seq)["message"].startswith("name must")
    seq = preset_message(ann, "save", 42)
    assert ann.expect_reject("bad_value", seq)["message"] == "name must be a string, not number"
    ann.seq += 1
    ann.send_json({"type": "preset", "seq": ann.seq, "action": "save"})
    ann.expect_reject("bad_message", ann.seq)
    ann.seq += 1
    ann.send_json({"type": "preset", "seq": ann.seq, "action": "share", "name": "Warm"})
    ann.expect_reject("bad_message", ann.seq)
    ann.expect_ack(ann.seq)
    assert names(server.get("/api/rooms/demo/presets").json()["presets"]) == ["Cold", "Warm"]
    ann.assert_alive()


def test_a_room_keeps_at_most_100_presets(server):
    for k in range(100):
        assert server.request("PUT", f"/api/rooms/demo/presets/p{k:03}").status == 201
    refused = server.request("PUT", "/api/rooms/demo/presets/one-more")
    assert refused.status == 409 and "at most 100" in refused.json()["message"]
    assert server.request("PUT", "/api/rooms/demo/presets/p042").status == 200, "saving over a name still works"
    assert len(server.get("/api/rooms/demo/presets").json()["presets"]) == 100


def test_a_viewer_may_not_save_recall_rename_or_delete(auth_server, open_ws):
    editor = joined(auth_server, open_ws, token(role="editor", name="Ed"))
    viewer = joined(auth_server, open_ws, token(role="viewer", sub="u2", name="Vi"))
    assert presets_frame(viewer) == []
    editor.expect_ack(preset_message(editor, "save", "Warm"))
    assert names(presets_frame(viewer, lambda p: len(p) == 1)) == ["Warm"], "viewers see the list"
    editor.expect_ack(editor.set("gain", 0.1))
    _, rev = states_with(auth_server)
    for action, name, fields in (("save", "Mine", {}), ("recall", "Warm", {}), ("rename", "Warm", {"to": "X"}),
                                 ("delete", "Warm", {}), ("recall", "Nope", {})):
        seq = preset_message(viewer, action, name, **fields)
        viewer.expect_reject("forbidden", seq)
        viewer.expect_ack(seq)
    assert states_with(auth_server)[1] == rev
    listed = api(auth_server, "GET", "/api/rooms/demo/presets", token(role="viewer"))
    assert listed.status == 200 and names(listed.json()["presets"]) == ["Warm"]
    for method, path in (("PUT", "/api/rooms/demo/presets/Mine"), ("POST", "/api/rooms/demo/presets/Warm/recall"),
                         ("DELETE", "/api/rooms/demo/presets/Warm")):
        answer = api(auth_server, method, path, token(role="viewer"))
        assert answer.status == 403 and answer.json()["code"] == "forbidden", (method, path, answer)
    assert api(auth_server, "GET", "/api/rooms/demo/presets", None).status == 401
    assert api(auth_server, "PUT", "/api/rooms/demo/presets/Tok", token(role="editor", name="Ed")).json()["by"] == "Ed"
    assert api(auth_server, "POST", "/api/rooms/demo/presets/Warm/recall", token(role="editor")).status == 200


def states_with(server) -> tuple[dict, int]:
    """`states` through an admin token, for a server with auth on."""
    body = api(server, "GET", "/api/rooms/demo", token(role="admin")).json()
    return {c["id"]: c["state"] for c in body["controls"]}, body["rev"]


# -- HTTP


def test_the_http_endpoints_save_list_diff_recall_rename_and_delete(server, connect):
    ann = connect(server, name="Ann")
    tune(ann)
    saved = server.request("PUT", f"/api/rooms/demo/presets/{quote('Warm pad')}")
    assert saved.status == 201
    assert saved.json()["name"] == "Warm pad" and saved.json()["by"] == "api"
    assert names(presets_frame(ann, lambda p: len(p) == 1)) == ["Warm pad"], "HTTP changes reach the members too"
    assert server.request("PUT", f"/api/rooms/demo/presets/{quote('Warm pad')}", "{}").status == 200
    assert server.request("PUT", "/api/rooms/demo/presets/x", "[1]").status == 400

    assert server.get(f"/api/rooms/demo/presets/{quote('Warm pad')}/diff").json() == {"name": "Warm pad", "changes": []}
    ann.expect_ack(ann.set("gain", 0.25))
    ann.expect_ack(ann.step("size", -1))
    diff = server.get(f"/api/rooms/demo/presets/{quote('Warm pad')}/diff").json()
    assert diff["name"] == "Warm pad"
    assert [(c["control"], c["preset"], c["now"]) for c in diff["changes"]] == [
        ("size", {"index": 4, "value": 100}, {"index": 3, "value": 80}),
        ("gain", {"value": 0.8}, {"value": 0.25}),
    ]

    _, rev = states(server)
    recalled = server.request("POST", f"/api/rooms/demo/presets/{quote('Warm pad')}/recall")
    assert recalled.status == 200
    assert recalled.json() == {"name": "Warm pad", "rev": rev + 1, "changed": ["size", "gain"]}
    frames = changes_in([ann.expect(lambda f: any(c["rev"] == rev + 1 for c in f.get("changes", [])))])
    assert sorted(c["control"] for c in frames[0]) == ["gain", "size"]
    assert server.get(f"/api/rooms/demo/presets/{quote('Warm pad')}/diff").json()["changes"] == []

    renamed = server.request("POST", f"/api/rooms/demo/presets/{quote('Warm pad')}/rename", json.dumps({"to": "Warm"}))
    assert renamed.status == 200 and renamed.json()["name"] == "Warm"
    assert server.request("POST", "/api/rooms/demo/presets/Warm/rename", json.dumps({"to": ""})).status == 400
    assert server.get("/api/rooms/demo/presets/Warm").json()["name"] == "Warm"

    assert server.request("DELETE", "/api/rooms/demo/presets/Warm").status == 204
    assert server.get("/api/rooms/demo/presets").json() == {"presets": []}
    for method, path in (("DELETE", "/api/rooms/demo/presets/Warm"), ("POST", "/api/rooms/demo/presets/Warm/recall"),
                         ("GET", "/api/rooms/demo/presets/Warm/diff"), ("GET", "/api/rooms/demo/presets/Warm")):
        answer = server.request(method, path)
        assert answer.status == 404 and answer.json()["code"] == "unknown_preset", (method, path)
    assert server.request("GET", "/api/rooms/nope/presets").status == 404
    wrong = server.request("POST", "/api/rooms/demo/presets")
    assert wrong.status == 405 and wrong.header("Allow") == "GET, HEAD"  # every GET is answered as a HEAD too
    assert server.request("PUT", "/api/rooms/demo/presets/%20%20").status == 400


def test_an_http_recall_while_a_touched_control_is_held_is_409_busy_with_the_holder(server, connect):
    ben = connect(server, name="Ben")
    assert server.request("PUT", "/api/rooms/demo/presets/Start").status == 201
    ben.expect_ack(ben.set("size", 100))
    ben.expect_ack(ben.drag("size", "begin"))
    answer = server.request("POST", "/api/rooms/demo/presets/Start/recall")
    assert answer.status == 409
    assert answer.json()["code"] == "busy" and answer.json()["holder"] == ben.id
    assert states(server)[0]["size"] == {"index": 4, "value": 100}


# -- storage


def test_presets_survive_a_restart_and_leave_with_their_room(start_server, connect, tmp_path):
    data = str(tmp_path / "tandem.db")
    first = start_server("--data", data)
    ann = connect(first, name="Ann")
    tune(ann)
    ann.expect_ack(preset_message(ann, "save", "Warm"))
    saved = first.get("/api/rooms/demo/presets").json()
    studio = {"id": "studio", "title": "Studio", "controls": [{"id": "volume", "type": "slider", "min": 0, "max": 10, "step": 1}]}
    assert first.request("POST", "/api/rooms", json.dumps(studio)).status == 201
    assert first.request("PUT", "/api/rooms/studio/presets/Loud").status == 201
    ann.close()
    assert first.stop() == 0

    second = start_server("--data", data)
    assert second.get("/api/rooms/demo/presets").json() == saved
    assert names(second.get("/api/rooms/studio/presets").json()["presets"]) == ["Loud"]
    ben = connect(second, name="Ben")
    assert presets_frame(ben) == saved["presets"]
    ben.expect_ack(ben.set("gain", 0.1))
    ben.expect_ack(preset_message(ben, "recall", "Warm"))
    assert states(second)[0]["gain"] == {"value": 0.8}

    assert second.request("DELETE", "/api/rooms/studio").status == 204
    assert second.request("POST", "/api/rooms", json.dumps(studio)).status == 201
    assert second.get("/api/rooms/studio/presets").json() == {"presets": []}, "a room made again starts without the old presets"
    ben.close()
    assert second.stop() == 0
    third = start_server("--data", data)
    assert third.get("/api/rooms/studio/presets").json() == {"presets": []}
    assert names(third.get("/api/rooms/demo/presets").json()["presets"]) == ["Warm"]


def test_presets_work_in_memory(server, connect):
    ann = connect(server, name="Ann")
    ann.expect_ack(preset_message(ann, "save", "Warm"))
    ann.expect_ack(ann.set("gain", 0.9))
    ann.expect_ack(preset_message(ann, "recall", "Warm"))
    assert states(server)[0]["gain"] == {"value": 0.5}


def test_a_recall_acknowledged_is_written_even_if_the_server_is_killed_right_after(start_server, tandem_binary, open_ws, tmp_path):
    from helpers import Client, TandemServer

    data = str(tmp_path / "tandem.db")
    first = TandemServer(tandem_binary, ["--data", data])  # killed, so not start_server's clean-exit check
    try:
        ann = Client(open_ws(first.ws_url(name="Ann")))
        tune(ann)
        ann.expect_ack(preset_message(ann, "save", "Warm"))
        saved, _ = states(first)
        for send in (lambda: ann.step("size", -4), lambda: ann.set("gain", 0.1), lambda: ann.set("color", "#000000")):
            ann.expect_ack(send())
        ann.expect_ack(preset_message(ann, "recall", "Warm"))
    finally:
        first.send_signal(signal.SIGKILL)
        assert first.wait_exit() is not None
    second = start_server("--data", data)
    now, _ = states(second)
    assert {k: now[k] for k in SETTABLE} == {k: saved[k] for k in SETTABLE}, "an acknowledged recall survives a crash"
    assert names(second.get("/api/rooms/demo/presets").json()["presets"]) == ["Warm"], "an acknowledged save too"
