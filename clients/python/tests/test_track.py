"""The value-to-fraction math of gestures, against the shared vectors where they exist
(Tests/Fixtures/vectors/kinds.json, `logPosition`) and the worked examples of docs/math.md."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tandem import track

VECTORS = Path(__file__).resolve().parents[3] / "Tests" / "Fixtures" / "vectors" / "kinds.json"


@pytest.mark.skipif(not VECTORS.is_file(), reason="the shared vectors live in the Tandem repository")
def test_log_positions_match_the_shared_vectors():
    cases = json.loads(VECTORS.read_text())["logPosition"]
    assert cases
    for case in cases:
        control = {"type": "slider", "min": case["min"], "max": case["max"], "scale": "log"}
        assert track.position(control, "value", case["value"]) == pytest.approx(case["fraction"], abs=1e-12), case


def test_linear_stepped_snap_range_colour_and_xy_positions():
    assert track.position({"type": "slider", "min": 0, "max": 1, "step": 0.01}, "value", 0.25) == 0.25
    assert track.position({"type": "slider", "min": -1, "max": 1}, "value", 5) == 1.0       # clamped
    size = {"type": "snap", "values": [20, 40, 60, 80, 100]}
    assert track.position(size, "index", 80) == 0.75
    assert track.position(size, "index", 70) == 0.75                                         # tie: higher index
    proportional = {"type": "snap", "values": [1, 2, 4, 8, 100], "layout": "proportional"}
    assert track.position(proportional, "index", 8) == pytest.approx(7 / 99)
    assert track.position({"type": "snap", "values": [5]}, "index", 5) == 0.5
    blanks = {"type": "range", "scale": [0, 9], "operable": [0, 3]}
    assert track.position(blanks, "upper", 3) == pytest.approx(1 / 3)
    assert track.position({"type": "color"}, "red", 0.5) == 0.5
    pad = {"type": "xy", "x": {"min": 0, "max": 1}, "y": {"min": 20, "max": 20000, "scale": "log"}}
    assert track.position(pad, "xy", (0.25, 20000)) == [0.25, 1.0]


def test_controls_without_drags_say_so():
    for kind in ("gauge", "toggle", "button"):
        with pytest.raises(TypeError):
            track.position({"type": kind}, "value", 1)


def test_the_value_of_each_kind():
    assert track.value_of({"type": "range", "state": {"lower": 1, "upper": 4}}) == (1, 4)
    assert track.value_of({"type": "color", "state": {"hex": "#336699"}}) == "#336699"
    assert track.value_of({"type": "xy", "state": {"x": 0.5, "y": 20}}) == (0.5, 20)
    assert track.value_of({"type": "toggle", "state": {"on": True}}) is True
    assert track.value_of({"type": "button", "state": {"presses": 3}}) == 3
