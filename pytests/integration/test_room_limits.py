"""Room limits (docs/security.md, "Room limits"): --max-rooms, the caps checked
with every schema, a replace that changes nothing, and display names made safe."""

from __future__ import annotations

import json
import subprocess

import pytest

from helpers import ROOT, WAIT


def room(id_: str, title: str | None = None, controls: list | None = None) -> dict:
    body = {"id": id_, "controls": controls or [{"id": "knob", "type": "slider", "min": 0, "max": 10}]}
    if title is not None:
        body["title"] = title
    return body


def post(server, body: dict):
    return server.request("POST", "/api/rooms", json.dumps(body))


def test_past_max_rooms_a_new_room_is_409_but_replacing_and_deleting_still_work(start_server):
    server = start_server("--max-rooms", "3")  # the demo and two more
    assert post(server, room("a")).status == 201
    assert post(server, room("b")).status == 201
    refused = post(server, room("c"))
    assert refused.status == 409, refused
    assert refused.json()["code"] == "too_many_rooms"
    assert "--max-rooms" in refused.json()["message"]
    assert "c" not in [r["id"] for r in server.get("/api/rooms").json()["rooms"]]
    assert post(server, room("b", title="B again")).status == 200
    assert server.request("DELETE", "/api/rooms/a").status == 204
    assert post(server, room("c")).status == 201
    assert server.metrics()['tandem_http_refused_total{reason="too_many_rooms"}'] == 1
    assert server.wait_for_log(r"^warn refused to create room c: .*--max-rooms 3")


def test_max_rooms_defaults_to_1000_and_a_bad_value_exits_2(tandem_binary):
    help_text = subprocess.run([str(tandem_binary), "--help"], capture_output=True, text=True, timeout=WAIT).stdout
    assert "--max-rooms" in help_text and "default 1000" in help_text
    result = subprocess.run([str(tandem_binary), "--max-rooms", "0", "--port", "0", "--data", ":memory:"],
                            cwd=ROOT, capture_output=True, text=True, timeout=WAIT)
    assert result.returncode == 2 and "--max-rooms" in result.stderr


@pytest.mark.parametrize("body, control, field", [
    (room("t", title="x" * 121), None, "title"),
    (room("t", controls=[{"id": "k", "type": "slider", "min": 0, "max": 1, "label": "é" * 121}]), "k", "label"),
    (room("t", controls=[{"id": f"k{i}", "type": "slider", "min": 0, "max": 1} for i in range(257)]), None, "controls"),
    (room("t", controls=[{"id": "s", "type": "snap", "values": list(range(1001))}]), "s", "values"),
])
def test_oversized_rooms_are_400_naming_control_and_field(server, body, control, field):
    answer = post(server, body)
    assert answer.status == 400, answer
    problem = answer.json()
    assert problem["code"] == "bad_schema"
    assert problem["control"] == control and problem["field"] == field
    assert "at most" in problem["message"]


def test_titles_of_120_characters_are_fine(server):
    assert post(server, room("t", title="é" * 120)).status == 201


def test_a_room_file_with_a_long_title_stops_the_start_naming_the_field(tandem_binary, tmp_path):
    folder = tmp_path / "rooms"
    folder.mkdir()
    (folder / "long.json").write_text(json.dumps(room("long", title="x" * 500)))
    result = subprocess.run([str(tandem_binary), "--rooms", str(folder), "--port", "0", "--data", ":memory:"],
                            cwd=ROOT, capture_output=True, text=True, timeout=WAIT)
    assert result.returncode == 1
    assert "field 'title': must be at most 120 characters" in result.stderr


def test_replacing_a_room_with_an_equal_schema_changes_nothing_and_keeps_its_members(server, connect):
    assert post(server, room("studio", title="Studio")).status == 201
    ann = connect(server, name="Ann", room="studio")
    ann.expect_ack(ann.set("knob", 4))
    again = post(server, room("studio", title="Studio"))
    assert again.status == 200, again
    assert again.json()["unchanged"] is True
    assert again.json()["controls"][0]["state"] == {"value": 4}
    ann.expect_ack(ann.set("knob", 5))  # still connected, nobody closed with 1012
    changed = post(server, room("studio", title="Studio 2"))
    assert changed.status == 200 and "unchanged" not in changed.json()
    assert ann.wait_closed() == (1012, "room schema changed")
    # Logged after both posts' lines: once it is in, so is every line they wrote.
    server.wait_for_log(rf"^info close {ann.id} code=1012\b")
    assert len(server.log_lines(r"room studio posted again unchanged")) == 1
    assert len(server.log_lines(r"room studio replaced")) == 1, "only the second post replaced the room"


def test_display_names_lose_bidi_and_control_characters_and_are_cut_to_64(server, connect):
    ann = connect(server, name="Ann")
    evil = connect(server, name="\u202eexe.\u2066gpj\u2069\u200f  \x07Mallory\t\t")
    long = connect(server, name="x" * 100)
    me = [p for p in evil.welcome["peers"] if p["client"] == evil.id]
    assert me[0]["name"] == "exe.gpj Mallory"
    joined = ann.expect(lambda f: any(p.get("client") == long.id for p in f.get("joined", [])))
    peers = {p["client"]: p["name"] for p in joined["joined"]}
    assert peers[long.id] == "x" * 64
    snapshot = server.get("/api/rooms/demo").json()
    assert {p["name"] for p in snapshot["peers"]} >= {"Ann", "exe.gpj Mallory", "x" * 64}
