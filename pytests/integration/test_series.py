"""Series: every gauge's recent values at several resolutions, over HTTP (docs/series.md)."""

import json

import pytest

from helpers import has_change, value_is

SYNTH = {
    "id": "panel", "title": "Panel",
    "controls": [
        {"id": "loss", "type": "gauge", "min": 0, "max": 10},
        {"id": "quiet", "type": "gauge", "min": 0, "max": 1, "series": False},
        {"id": "rate", "type": "slider", "min": 0, "max": 1, "series": True},
        {"id": "gain", "type": "slider", "min": 0, "max": 1},
    ],
}


@pytest.fixture
def panel(start_server, tmp_path):
    """A server with the room `panel` in a SQLite file."""
    rooms = tmp_path / "rooms"
    rooms.mkdir()
    (rooms / "panel.json").write_text(json.dumps(SYNTH))
    data = tmp_path / "data" / "t.db"
    return lambda: start_server("--rooms", str(rooms), "--data", str(data))


def put(server, control, value):
    answer = server.request("PUT", f"/api/rooms/panel/controls/{control}", json.dumps({"value": value}))
    assert answer.status == 200, answer
    return answer.json()


def series(server, control, **query):
    path = f"/api/rooms/panel/series/{control}"
    if query:
        path += "?" + "&".join(f"{k}={v}" for k, v in query.items())
    return server.request("GET", path)


def test_a_gauges_values_come_back_as_points_no_more_than_asked(panel):
    server = panel()
    for i in range(1, 201):  # 0 is the gauge's starting value: setting it would commit nothing
        put(server, "loss", i / 20)
    answer = series(server, "loss", points=1000)
    assert answer.status == 200, answer
    body = answer.json()
    assert body["room"] == "panel" and body["control"] == "loss"
    points = body["points"]
    assert points and all(len(p) == 4 for p in points)
    assert sum(1 for _ in points) <= 1000
    assert min(p[1] for p in points) == 0.05 and max(p[2] for p in points) == 10
    assert points[-1][3] == 10
    assert all(a[0] < b[0] for a, b in zip(points, points[1:]))
    assert all(p[0] % body["width"] == 0 for p in points)
    few = series(server, "loss", points=1).json()
    assert len(few["points"]) == 1 and few["points"][0][1:] == [0.05, 10, 10]


def test_a_slider_that_asks_keeps_one_and_others_do_not(panel, connect):
    server = panel()
    ann = connect(server, name="Ann", room="panel")
    ann.set("rate", 0.25)
    ann.expect(has_change("rate", state=value_is(0.25)))
    points = series(server, "rate").json()["points"]
    assert [p[3] for p in points] == [0.25]
    for control in ("quiet", "gain"):
        answer = series(server, control)
        assert answer.status == 404 and answer.json()["code"] == "no_series", answer
    assert series(server, "nope").json()["code"] == "unknown_control"
    welcome = {c["id"]: c for c in ann.welcome["controls"]}
    assert welcome["rate"]["series"] is True and welcome["quiet"]["series"] is False
    assert "series" not in welcome["loss"] and "series" not in welcome["gain"]


def test_a_series_survives_a_restart(panel):
    server = panel()
    for v in (1, 2, 3):
        put(server, "loss", v)
    server.wait_metric("tandem_series_values_total", lambda n: n == 3)
    before = series(server, "loss").json()["points"]
    server.stop()
    again = panel()
    assert series(again, "loss").json()["points"] == before


def test_bad_queries_are_refused_naming_the_parameter(panel):
    server = panel()
    put(server, "loss", 1)
    for query, word in [({"points": 0}, "points"), ({"points": 5001}, "points"), ({"from": "x"}, "from"),
                        ({"from": 5, "to": 1}, "from")]:
        answer = series(server, "loss", **query)
        assert answer.status == 400 and answer.json()["code"] == "bad_value" and word in answer.json()["message"], query
    assert server.request("POST", "/api/rooms/panel/series/loss").status == 405
    window = series(server, "loss", to=1).json()
    assert window["points"] == [] and window["to"] == 1


def test_series_are_counted_in_metrics(panel):
    server = panel()
    put(server, "loss", 4)
    metrics = server.metrics()
    assert metrics["tandem_series"] == 3  # panel's loss and rate, and the demo room's bpm
    assert metrics["tandem_series_values_total"] == 1
    assert metrics["tandem_series_buckets"] == 5  # one per tier
