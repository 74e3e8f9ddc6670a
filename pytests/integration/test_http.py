"""The same port serves the web client, /healthz and the JSON API."""

import json

import pytest

from helpers import ROOT, find_change, has_change, raw_http_get


# -- reads (one server for these)


def test_get_root_serves_the_lobby_and_with_a_room_web_index_html_as_text_html(readonly_server):
    response = readonly_server.get("/?room=demo")
    assert response.status == 200
    assert response.header("content-type").startswith("text/html")
    assert response.body == (ROOT / "web" / "index.html").read_bytes()
    lobby = readonly_server.get("/")
    assert lobby.status == 200 and lobby.header("content-type").startswith("text/html")
    assert lobby.body == (ROOT / "web" / "lobby.html").read_bytes()


def test_get_healthz_is_200_ok(readonly_server):
    response = readonly_server.get("/healthz")
    assert response.status == 200
    assert response.text.strip() == "ok"


@pytest.mark.parametrize("path", ["/../Package.swift", "/%2e%2e/Package.swift", "/..%2fPackage.swift",
                                  "/%2e%2e%2fPackage.swift", "/web/../../Package.swift", "//etc/passwd"])
def test_a_path_escaping_the_web_root_never_serves_a_file_outside_it(readonly_server, path):
    response = raw_http_get(readonly_server.port, path)
    if response is None:
        return  # hung up without answering: nothing was served
    assert response.status in (400, 403, 404), response
    assert b"PackageDescription" not in response.body
    assert b"root:" not in response.body


def test_an_unknown_file_is_404(readonly_server):
    assert readonly_server.get("/no-such-file.js").status == 404


def test_get_api_rooms_lists_demo(readonly_server):
    response = readonly_server.get("/api/rooms")
    assert response.status == 200
    assert response.header("content-type").startswith("application/json")
    rooms = response.json()["rooms"]
    assert [room["id"] for room in rooms] == ["demo"]
    assert isinstance(rooms[0]["title"], str)


def test_get_api_rooms_demo_has_the_controls_without_client_fields(readonly_server):
    response = readonly_server.get("/api/rooms/demo")
    assert response.status == 200
    body = response.json()
    assert body["room"] == "demo"
    assert [c["id"] for c in body["controls"]] == ["size", "blanks", "color", "gain", "bpm"]
    assert body["controls"][0]["state"] == {"index": 2, "value": 60}
    assert "client" not in body


def test_get_api_rooms_of_an_unknown_room_is_404(readonly_server):
    response = readonly_server.get("/api/rooms/nope")
    assert response.status == 404
    assert response.json()["code"] == "unknown_room"


def test_get_api_history_is_501_until_storage_exists(readonly_server):
    response = readonly_server.get("/api/rooms/demo/history?since=0")
    assert response.status == 501
    assert response.json()["code"] == "not_implemented"


@pytest.mark.parametrize("method, path", [("PATCH", "/api/rooms/demo"), ("PUT", "/api/rooms"),
                                          ("GET", "/api/rooms/demo/controls/gain"), ("POST", "/healthz")])
def test_a_wrong_method_is_405(readonly_server, method, path):
    response = readonly_server.request(method, path, "{}" if method in ("POST", "PUT") else None)
    assert response.status == 405, response
    assert response.header("allow")


# -- writes (a fresh server each)


def test_put_a_control_answers_200_with_the_committed_state(server):
    response = server.request("PUT", "/api/rooms/demo/controls/gain", json.dumps({"value": 0.7}))
    assert response.status == 200, response
    body = response.json()
    assert body["control"] == "gain"
    assert body["state"] == {"value": 0.7}
    assert isinstance(body["rev"], int) and body["rev"] >= 1
    assert server.get("/api/rooms/demo").json()["controls"][3]["state"] == {"value": 0.7}


def test_put_a_control_is_sent_to_websocket_clients_by_api(server, connect):
    ann = connect(server)
    ann.mark()
    response = server.request("PUT", "/api/rooms/demo/controls/gain", json.dumps({"value": 0.7}))
    assert response.status == 200
    change = find_change(ann.expect(has_change("gain")), "gain")
    assert change["state"] == {"value": 0.7}
    assert change["by"] == "api"
    assert change["rev"] == response.json()["rev"]


def test_put_a_colour_channel_names_its_thumb(server):
    response = server.request("PUT", "/api/rooms/demo/controls/color", json.dumps({"thumb": "red", "value": 0.5}))
    assert response.status == 200
    assert response.json()["state"]["hex"] == "#806699"


def test_put_with_bad_json_is_400_bad_message(server):
    response = server.request("PUT", "/api/rooms/demo/controls/gain", "{value: 0.7")
    assert response.status == 400
    assert response.json()["code"] == "bad_message"


def test_put_with_a_string_value_is_400_bad_value(server):
    response = server.request("PUT", "/api/rooms/demo/controls/gain", json.dumps({"value": "0.7"}))
    assert response.status == 400
    assert response.json()["code"] == "bad_value"


def test_put_a_number_on_the_gauge_stores_it(server):
    response = server.request("PUT", "/api/rooms/demo/controls/bpm", json.dumps({"value": 120}))
    assert response.status == 200, response
    state = response.json()["state"]
    assert state["value"] == 120
    assert state["fraction"] == pytest.approx(120 / 170)


def test_put_an_unknown_control_is_404(server):
    response = server.request("PUT", "/api/rooms/demo/controls/volume", json.dumps({"value": 1}))
    assert response.status == 404
    assert response.json()["code"] == "unknown_control"


def test_put_in_an_unknown_room_is_404(server):
    response = server.request("PUT", "/api/rooms/nope/controls/gain", json.dumps({"value": 1}))
    assert response.status == 404


def test_put_on_a_held_thumb_is_409_busy_naming_the_holder(server, connect):
    ann = connect(server)
    ann.expect_ack(ann.drag("gain", "begin"))
    response = server.request("PUT", "/api/rooms/demo/controls/gain", json.dumps({"value": 0.1}))
    assert response.status == 409
    assert response.json()["code"] == "busy"
    assert response.json()["holder"] == ann.id


def test_put_a_body_over_64_kib_is_413(server):
    body = json.dumps({"value": 0.7, "pad": "x" * (64 * 1024)})
    response = server.request("PUT", "/api/rooms/demo/controls/gain", body)
    assert response.status == 413
    assert server.get("/api/rooms/demo").json()["controls"][3]["state"] == {"value": 0.5}
