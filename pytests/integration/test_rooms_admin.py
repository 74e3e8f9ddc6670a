"""The admin API (`POST /api/rooms`, `DELETE /api/rooms/{room}`), reconnecting
with `?since=REV`, and history retention (`--history-keep`)."""

from __future__ import annotations

import json
import subprocess

from helpers import ROOT, WAIT

STUDIO = {
    "id": "studio",
    "title": "Studio",
    "controls": [
        {"id": "volume", "type": "slider", "min": 0, "max": 10, "step": 1},
        {"id": "mode", "type": "snap", "values": [1, 2, 3]},
    ],
}


def post(server, body, path="/api/rooms"):
    return server.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})


def put(server, room, control, value):
    response = server.request("PUT", f"/api/rooms/{room}/controls/{control}", json.dumps({"value": value}))
    assert response.status == 200, response
    return response.json()["rev"]


# -- POST / DELETE


def test_post_creates_a_room_a_client_can_join(server, connect):
    response = post(server, STUDIO)
    assert response.status == 201, response
    snapshot = response.json()
    assert snapshot["room"] == "studio" and snapshot["rev"] == 0
    assert [c["id"] for c in snapshot["controls"]] == ["volume", "mode"]
    assert [r["id"] for r in server.get("/api/rooms").json()["rooms"]] == ["demo", "studio"]
    ann = connect(server, name="Ann", room="studio")
    assert ann.welcome["room"] == "studio"
    ann.expect_ack(ann.set("volume", 3))


def test_post_a_bad_schema_is_400_naming_control_and_field(server):
    bad = {"id": "studio", "controls": [{"id": "size", "type": "snap", "values": [3, 2]}]}
    response = post(server, bad)
    assert response.status == 400
    body = response.json()
    assert body["code"] == "bad_schema"
    assert (body["control"], body["field"]) == ("size", "values")
    assert "control 'size', field 'values'" in body["message"]
    response = post(server, {"controls": []})
    assert response.status == 400 and response.json()["control"] is None and response.json()["field"] == "id"
    assert server.get("/api/rooms/studio").status == 404


def test_post_replacing_a_room_closes_its_clients_with_1012_and_keeps_states_and_history(start_server, connect, tmp_path):
    server = start_server("--data", str(tmp_path / "tandem.db"))
    assert post(server, STUDIO).status == 201
    put(server, "studio", "volume", 6)
    put(server, "studio", "mode", 3)
    ann = connect(server, name="Ann", room="studio")
    changed = {"id": "studio", "title": "Studio 2", "controls": [
        {"id": "volume", "type": "slider", "min": 0, "max": 10, "step": 1, "label": "Volume"},
        {"id": "pan", "type": "slider", "min": -1, "max": 1},
    ]}
    response = post(server, changed)
    assert response.status == 200, response
    assert ann.wait_closed() == (1012, "room schema changed")
    snapshot = server.get("/api/rooms/studio").json()
    assert snapshot["title"] == "Studio 2" and snapshot["rev"] == 2
    controls = {c["id"]: c for c in snapshot["controls"]}
    assert controls["volume"]["state"]["value"] == 6 and controls["volume"]["rev"] == 1
    assert controls["pan"]["rev"] == 0 and "mode" not in controls
    history = server.get("/api/rooms/studio/history").json()["history"]
    assert [(h["rev"], h["control"]) for h in history] == [(1, "volume"), (2, "mode")]
    bob = connect(server, name="Bob", room="studio")
    assert bob.welcome["title"] == "Studio 2"
    assert put(server, "studio", "pan", 0.5) == 3, "revisions continue"


def test_post_replacing_in_memory_keeps_fitting_states(server, connect):
    assert post(server, STUDIO).status == 201
    put(server, "studio", "volume", 6)
    put(server, "studio", "mode", 2)
    retyped = {"id": "studio", "controls": [
        {"id": "volume", "type": "slider", "min": 0, "max": 10},
        {"id": "mode", "type": "range", "scale": [0, 9]},
    ]}
    snapshot = post(server, retyped).json()
    assert snapshot["rev"] == 2
    controls = {c["id"]: c for c in snapshot["controls"]}
    assert controls["volume"]["state"] == {"value": 6} and controls["volume"]["rev"] == 1
    assert controls["mode"]["state"] == {"lower": 0, "upper": 1} and controls["mode"]["rev"] == 0


def test_delete_is_204_closes_clients_with_4404_and_the_room_is_gone(server, connect, open_ws):
    assert post(server, STUDIO).status == 201
    put(server, "studio", "volume", 2)
    ann = connect(server, name="Ann", room="studio")
    response = server.request("DELETE", "/api/rooms/studio")
    assert response.status == 204 and response.body == b""
    assert ann.wait_closed() == (4404, "room deleted")
    assert server.get("/api/rooms/studio").status == 404
    assert [r["id"] for r in server.get("/api/rooms").json()["rooms"]] == ["demo"]
    from helpers import wait_closed
    code, _ = wait_closed(open_ws(server.ws_url("studio")))
    assert code == 4404
    again = post(server, STUDIO).json()
    assert again["rev"] == 1, "a room created again never reuses a revision"


def test_the_demo_room_cannot_be_deleted(server):
    response = server.request("DELETE", "/api/rooms/demo")
    assert response.status == 403 and response.json()["code"] == "forbidden"
    assert server.get("/api/rooms/demo").status == 200


# -- since


def test_reconnecting_with_since_gets_only_newer_controls(server, connect):
    first = connect(server, name="Ann")
    rev = first.welcome["rev"]
    assert "since" not in first.welcome
    put(server, "demo", "gain", 0.25)
    put(server, "demo", "bpm", 100)
    from helpers import Client
    import websockets.sync.client as wsc
    with wsc.connect(server.ws_url("demo", since=str(rev + 1)), subprotocols=["tandem.v1"], open_timeout=WAIT) as ws:
        welcome = Client(ws).welcome
        assert welcome["since"] == rev + 1 and welcome["rev"] == rev + 2
        assert [(c["id"], c["rev"]) for c in welcome["controls"]] == [("bpm", rev + 2)]
        assert welcome["controls"][0]["state"]["value"] == 100 and welcome["controls"][0]["type"] == "gauge"
    with wsc.connect(server.ws_url("demo", since=str(rev + 2)), subprotocols=["tandem.v1"], open_timeout=WAIT) as ws:
        welcome = Client(ws).welcome
        assert welcome["since"] == rev + 2 and welcome["controls"] == []


def test_since_0_gets_every_control_with_since_0(server, open_ws):
    from helpers import Client
    welcome = Client(open_ws(server.ws_url("demo", since="0"))).welcome
    assert welcome["since"] == 0
    assert len(welcome["controls"]) == 5


def test_since_above_the_revision_or_unreadable_gets_the_full_welcome(server, open_ws):
    from helpers import Client
    put(server, "demo", "gain", 0.25)
    for since in ["2", "99", "-1", "abc", "1.5", ""]:
        welcome = Client(open_ws(server.ws_url("demo", since=since))).welcome
        assert "since" not in welcome, since
        assert len(welcome["controls"]) == 5


def test_since_across_a_restart(start_server, open_ws, tmp_path):
    from helpers import Client
    data = str(tmp_path / "tandem.db")
    first = start_server("--data", data)
    put(first, "demo", "gain", 0.25)
    put(first, "demo", "bpm", 90)
    assert first.stop() == 0
    second = start_server("--data", data)
    welcome = Client(open_ws(second.ws_url("demo", since="1"))).welcome
    assert welcome["since"] == 1 and welcome["rev"] == 2
    assert [c["id"] for c in welcome["controls"]] == ["bpm"]


def test_since_before_a_schema_change_gets_the_full_welcome(server, open_ws):
    from helpers import Client
    assert post(server, STUDIO).status == 201
    put(server, "studio", "volume", 5)
    assert post(server, {**STUDIO, "title": "Renamed"}).status == 200
    welcome = Client(open_ws(server.ws_url("studio", since="1"))).welcome
    assert "since" not in welcome and len(welcome["controls"]) == 2
    put(server, "studio", "mode", 2)
    put(server, "studio", "volume", 7)
    welcome = Client(open_ws(server.ws_url("studio", since="2"))).welcome
    assert welcome["since"] == 2 and [c["id"] for c in welcome["controls"]] == ["volume"]


# -- retention


def test_history_keep_a_count_keeps_the_last_commits_after_a_restart(start_server, tmp_path):
    data = str(tmp_path / "tandem.db")
    first = start_server("--data", data, "--history-keep", "3")
    for k in range(10):
        put(first, "demo", "gain", k / 10)
    assert first.stop() == 0
    second = start_server("--data", data, "--history-keep", "3")
    history = second.get("/api/rooms/demo/history").json()["history"]
    assert [h["rev"] for h in history] == [8, 9, 10]
    assert second.get("/api/rooms/demo").json()["rev"] == 10
    assert put(second, "demo", "gain", 0.5) == 11


def test_history_keep_an_age_parses_and_keeps_recent_commits(start_server, tmp_path):
    server = start_server("--data", str(tmp_path / "tandem.db"), "--history-keep", "30d")
    put(server, "demo", "gain", 0.1)
    assert len(server.get("/api/rooms/demo/history").json()["history"]) == 1
    start_server("--history-keep=12h")


def test_a_bad_history_keep_exits_2_naming_the_flag(tandem_binary):
    for value in ["-3", "3x", "d", "1.5h", ""]:  # 0 is "keep everything" (docs/storage.md, "Retention")
        result = subprocess.run([str(tandem_binary), "--history-keep", value], cwd=ROOT,
                                capture_output=True, text=True, timeout=WAIT)
        assert result.returncode == 2, value
        assert "--history-keep" in result.stderr.splitlines()[0]


def test_post_without_a_body_is_answered_400(server):
    response = server.request("POST", "/api/rooms", b"")
    assert response.status == 400
    assert response.json()["field"] == "(json)"
