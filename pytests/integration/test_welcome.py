"""The handshake and the welcome: the first frame a client gets."""

import re

import pytest

from helpers import SUBPROTOCOL, Client, control_of


def test_the_first_frame_is_a_welcome_for_protocol_1_in_room_demo(server, connect):
    client = connect(server, name="Ann")
    welcome = client.welcome
    assert welcome["type"] == "welcome"
    assert welcome["protocol"] == 1
    assert welcome["room"] == "demo"
    assert isinstance(welcome["client"], str) and welcome["client"]
    assert isinstance(welcome["rev"], int) and welcome["rev"] >= 0


def test_the_welcome_lists_the_five_demo_controls_in_order(server, connect):
    welcome = connect(server).welcome
    assert [c["id"] for c in welcome["controls"]] == ["size", "blanks", "color", "gain", "bpm"]
    assert [c["type"] for c in welcome["controls"]] == ["snap", "range", "color", "slider", "gauge"]
    for control in welcome["controls"]:
        assert isinstance(control["label"], str) and control["label"]
        assert isinstance(control["rev"], int)
        assert control.get("commit", "release") == "release"


def test_the_welcome_carries_the_size_snap_schema_and_index_2_value_60(server, connect):
    size = control_of(connect(server).welcome, "size")
    assert size["label"] == "Circle size"
    assert size["values"] == [20, 40, 60, 80, 100]
    assert size.get("layout", "ordinal") == "ordinal"
    assert size["unit"] == "pt"
    assert size["state"] == {"index": 2, "value": 60}


def test_the_welcome_carries_the_blanks_range_schema_and_lower_0_upper_1(server, connect):
    blanks = control_of(connect(server).welcome, "blanks")
    assert blanks["label"] == "Blank cells"
    assert blanks["scale"] == [0, 9]
    assert blanks["operable"] == [0, 3]
    assert blanks["minGap"] == 1
    assert blanks["state"] == {"lower": 0, "upper": 1}


def test_the_welcome_carries_the_color_schema_and_336699_with_its_channels(server, connect):
    color = control_of(connect(server).welcome, "color")
    assert color["label"] == "Colour"
    assert color["step"] == pytest.approx(1 / 255)
    state = color["state"]
    assert state["hex"] == "#336699"
    assert state["red"] == pytest.approx(0.2)
    assert state["green"] == pytest.approx(0.4)
    assert state["blue"] == pytest.approx(0.6)


def test_the_welcome_carries_the_gain_slider_schema_and_value_0_5(server, connect):
    gain = control_of(connect(server).welcome, "gain")
    assert gain["label"] == "Gain"
    assert (gain["min"], gain["max"]) == (0, 1)
    assert gain["step"] == pytest.approx(0.01)
    assert gain["state"] == {"value": 0.5}


def test_the_welcome_carries_the_bpm_gauge_at_67_with_fraction_67_over_170(server, connect):
    bpm = control_of(connect(server).welcome, "bpm")
    assert bpm["label"] == "BPM"
    assert (bpm["min"], bpm["max"]) == (0, 170)
    assert bpm["state"]["value"] == 67
    assert bpm["state"]["fraction"] == pytest.approx(67 / 170)


def test_the_welcome_peers_include_the_newcomer_with_its_name_and_a_colour(server, connect):
    first = connect(server, name="Ann")
    second = connect(server, name="Bob")
    peers = second.welcome["peers"]
    assert [p["client"] for p in peers] == [first.id, second.id]
    assert peers[-1]["name"] == "Bob"
    assert peers[0]["name"] == "Ann"
    for peer in peers:
        assert re.fullmatch(r"#[0-9A-Fa-f]{6}", peer["color"]), peer
    assert peers[0]["color"] != peers[1]["color"]
    assert second.id != first.id


def test_a_client_without_a_name_is_called_guest(server, connect):
    client = connect(server)
    me = [p for p in client.welcome["peers"] if p["client"] == client.id]
    assert me and me[0]["name"] == "Guest"


def test_the_subprotocol_tandem_v1_is_echoed(server, open_ws):
    ws = open_ws(server.url)
    assert ws.subprotocol == SUBPROTOCOL
    assert ws.response.headers.get("Sec-WebSocket-Protocol") == SUBPROTOCOL
    assert Client(ws).welcome["protocol"] == 1


def test_a_client_offering_no_subprotocol_is_accepted_as_v1(server, open_ws):
    ws = open_ws(server.url, subprotocols=None)
    assert ws.subprotocol is None
    client = Client(ws)
    assert client.welcome["protocol"] == 1
    client.assert_alive()
