"""Rooms from config (`--rooms DIR`): every bad room file stops the start
(exit 1) with a message naming the file, the control and the field; a good
folder's rooms are served after the demo room."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from helpers import ROOT, WAIT

GOOD_SLIDER = {"id": "volume", "type": "slider", "min": 0, "max": 10, "step": 1}


def room(*controls, id="studio"):
    return {"id": id, "title": "Studio", "controls": list(controls)}


def run(binary, *args, timeout=WAIT):
    return subprocess.run([str(binary), "--port", "0", "--data", ":memory:", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


def write(folder: Path, name: str, content) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


# (name, file content, control or None, field, words of the explanation)
BAD_FILES = [
    ("not_json", '{"id": "studio", "controls": [', None, "(json)", "not JSON"),
    ("root_not_object", "[1, 2, 3]", None, "(room)", "must be an object"),
    ("missing_id", {"controls": [GOOD_SLIDER]}, None, "id", "is required"),
    ("bad_id", room(GOOD_SLIDER, id="no spaces"), None, "id", "must be 1 to 64"),
    ("duplicate_control_ids", room(GOOD_SLIDER, dict(GOOD_SLIDER)), "volume", "id", "is used by another control"),
    ("unknown_type", room({"id": "knob", "type": "dial"}), "knob", "type", "'dial' is not a control type"),
    ("missing_field", room({"id": "volume", "type": "slider", "min": 0}), "volume", "max", "is required"),
    ("wrong_type", room({"id": "volume", "type": "slider", "min": "0", "max": 1}), "volume", "min", "must be a number"),
    ("operable_outside_scale", room({"id": "blanks", "type": "range", "scale": [0, 9], "operable": [0, 12]}),
     "blanks", "operable", "must lie inside scale"),
    ("span_smaller_than_gap", room({"id": "blanks", "type": "range", "scale": [0, 9], "operable": [0, 3], "minGap": 5}),
     "blanks", "operable", "less than minGap 5"),
    ("step_not_dividing", room({"id": "gain", "type": "slider", "min": 0, "max": 1, "step": 0.3}),
     "gain", "step", "must divide the span"),
    ("unsorted_values", room({"id": "size", "type": "snap", "values": [20, 60, 40]}), "size", "values", "strictly ascending"),
    ("empty_values", room({"id": "size", "type": "snap", "values": []}), "size", "values", "must not be empty"),
    ("invalid_initial_state", room({"id": "gain", "type": "slider", "min": 0, "max": 1, "state": {"value": 2}}),
     "gain", "state", ""),
    ("unknown_field", room({"id": "gain", "type": "slider", "min": 0, "max": 1, "colour": "red"}),
     "gain", "colour", "is not a field"),
]


@pytest.mark.parametrize("name,content,control,field,words", BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_a_bad_room_file_stops_the_start_naming_file_control_and_field(tandem_binary, tmp_path, name, content,
                                                                       control, field, words):
    folder = tmp_path / "rooms"
    write(folder, "a-good.json", room(GOOD_SLIDER, id="good"))
    path = write(folder, f"{name}.json", content)
    result = run(tandem_binary, "--rooms", str(folder))
    assert result.returncode == 1, result.stderr
    line = result.stderr.strip().splitlines()[-1]
    assert line.startswith(f"tandem: {path}: "), line
    if control is None:
        assert "control '" not in line, line
        assert f"field '{field}'" in line, line
    else:
        assert f"control '{control}', field '{field}" in line, line
    assert words in line, line
    assert "listening" not in result.stderr


def test_the_message_has_the_documented_shape(tandem_binary, tmp_path):
    folder = tmp_path / "rooms"
    write(folder, "broken.json", room({"id": "blanks", "type": "range", "scale": [0, 9], "operable": [0, 12]}))
    result = run(tandem_binary, "--rooms", str(folder))
    assert result.returncode == 1
    assert result.stderr == f"tandem: {folder}/broken.json: control 'blanks', field 'operable': must lie inside scale\n"


def test_duplicate_room_ids_across_files_name_both_files(tandem_binary, tmp_path):
    folder = tmp_path / "rooms"
    first = write(folder, "a.json", room(GOOD_SLIDER))
    second = write(folder, "b.json", room({"id": "other", "type": "gauge", "min": 0, "max": 1}))
    assert second
    second = write(folder, "b.json", room({"id": "other", "type": "gauge", "min": 0, "max": 1}, id="studio"))
    result = run(tandem_binary, "--rooms", str(folder))
    assert result.returncode == 1
    line = result.stderr.strip()
    assert line.startswith(f"tandem: {second}: field 'id'"), line
    assert str(first) in line and "studio" in line


def test_a_missing_rooms_folder_stops_the_start(tandem_binary, tmp_path):
    result = run(tandem_binary, "--rooms", str(tmp_path / "nowhere"))
    assert result.returncode == 1
    assert "--rooms" in result.stderr and "nowhere" in result.stderr


def test_a_folder_of_good_rooms_is_served_after_the_demo_in_file_order(start_server, connect, tmp_path):
    folder = tmp_path / "rooms"
    write(folder, "2-second.json", room(GOOD_SLIDER, id="zeta"))
    write(folder, "1-first.json", room({"id": "level", "type": "gauge", "min": 0, "max": 100, "state": {"value": 40}},
                                       id="alpha"))
    write(folder, "notes.txt", "not a room")
    server = start_server("--rooms", str(folder))
    listed = [r["id"] for r in server.get("/api/rooms").json()["rooms"]]
    assert listed == ["demo", "alpha", "zeta"]
    assert "rooms=demo,alpha,zeta" in server.stderr_lines[0] or server.log_lines("rooms=demo,alpha,zeta")
    client = connect(server, name="Ann", room="zeta")
    assert client.welcome["room"] == "zeta" and client.welcome["title"] == "Studio"
    assert [c["id"] for c in client.welcome["controls"]] == ["volume"]
    seq = client.set("volume", 7)
    client.expect_ack(seq)


def test_a_file_with_the_demo_id_replaces_the_built_in_demo(start_server, connect, tmp_path):
    folder = tmp_path / "rooms"
    write(folder, "mine.json", room(GOOD_SLIDER, id="demo"))
    server = start_server("--rooms", str(folder))
    assert [r["id"] for r in server.get("/api/rooms").json()["rooms"]] == ["demo"]
    assert [c["id"] for c in connect(server).welcome["controls"]] == ["volume"]


def test_with_storage_the_schema_follows_the_file_and_states_survive(start_server, connect, tmp_path):
    folder = tmp_path / "rooms"
    data = str(tmp_path / "tandem.db")
    gauge = {"id": "level", "type": "gauge", "min": 0, "max": 100}
    write(folder, "studio.json", room(GOOD_SLIDER, gauge))
    first = start_server("--rooms", str(folder), "--data", data)
    assert first.request("PUT", "/api/rooms/studio/controls/volume", json.dumps({"value": 4})).status == 200
    assert first.request("PUT", "/api/rooms/studio/controls/level", json.dumps({"value": 9})).status == 200
    assert first.stop() == 0

    write(folder, "studio.json", room({"id": "volume", "type": "slider", "min": 0, "max": 10, "label": "Vol"}))
    second = start_server("--rooms", str(folder), "--data", data)
    snapshot = second.get("/api/rooms/studio").json()
    assert snapshot["rev"] == 2
    assert [(c["id"], c["label"], c["state"]["value"], c["rev"]) for c in snapshot["controls"]] == [("volume", "Vol", 4, 1)]
    history = second.get("/api/rooms/studio/history").json()["history"]
    assert [h["control"] for h in history] == ["volume", "level"], "the dropped control's history is kept"
