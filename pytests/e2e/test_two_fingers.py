"""One person, two hands: touch input through the DevTools protocol
(`Input.dispatchTouchEvent`, trusted touch and pointer events, one touch point
per finger), so that both fingers stay down across commands for as long as the
test looks. Two fingers on the two thumbs of the demo room's range (`blanks`)
move both thumbs — two gestures of one connection, both live at once — and
two fingers on two controls move both controls; the server's committed states
are read back through `GET /api/rooms/demo`."""

from __future__ import annotations

import pytest


def enable_touch(page) -> None:
    page.driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})


def touch(page, kind: str, points: dict[int, tuple[float, float]]) -> None:
    """One touch event: `points` are every finger down after it (id → x, y); touchEnd lifts them all."""
    page.driver.execute_cdp_cmd("Input.dispatchTouchEvent", {
        "type": kind,
        "touchPoints": [] if kind in ("touchEnd", "touchCancel")
        else [{"x": x, "y": y, "id": i, "radiusX": 4, "radiusY": 4, "force": 1} for i, (x, y) in points.items()],
    })


def slide(page, points: dict[int, tuple[float, float]], moves: dict[int, float], steps: int = 6) -> dict[int, tuple[float, float]]:
    """Moves each finger `moves[id]` px to the right, all together, in a few touchMove events."""
    start = dict(points)
    for i in range(1, steps + 1):
        now = {f: (x + moves.get(f, 0) * i / steps, y) for f, (x, y) in start.items()}
        touch(page, "touchMove", now)
        page.frames(1)  # the scenario, not a wait: a hand moves about once per frame
    return now


def live_gestures(watcher, by: str, control: str) -> dict[str, str]:
    """thumb → the last phase the server broadcast of that person's drags on the control."""
    last = {}
    for frame in watcher.frames:
        for g in frame.get("gestures") or []:
            if g.get("by") == by and g.get("control") == control:
                last[g["thumb"]] = g["phase"]
    return last


def test_two_fingers_on_a_ranges_two_thumbs_move_both(browser, server, ws_client, shots):
    server.put("blanks", 3, thumb="upper")  # lower 0, upper 3: room for both to move inwards
    page = browser("Ann")
    enable_touch(page)
    watcher = ws_client("Watcher")
    page.wait_now("blanks", "upper", 3)
    me = page.my_client_id()

    width = page.track_width("blanks")
    thumb = page.thumb("blanks", "lower").size["width"]
    unit = (width - thumb) / 9  # the scale is 0 – 9
    lower = page.thumb_centre("blanks", "lower")
    upper = page.thumb_centre("blanks", "upper")

    touch(page, "touchStart", {1: lower})
    touch(page, "touchStart", {1: lower, 2: upper})
    try:
        # The lower thumb one step up, the upper one step down, at the same time.
        slide(page, {1: lower, 2: upper}, {1: unit, 2: -unit})
        page.frames()
        page.barrier()
        watcher.barrier()
        live = live_gestures(watcher, me, "blanks")
        assert live.get("lower") in ("begin", "move") and live.get("upper") in ("begin", "move"), \
            f"both thumbs should be held at once by {me}: {live}"
        assert watcher.preview(me, "blanks", "lower") == 1, watcher.gesture_entries(me, "blanks", "lower")[-3:]
        assert watcher.preview(me, "blanks", "upper") == 2, watcher.gesture_entries(me, "blanks", "upper")[-3:]
        assert page.now("blanks", "lower") == 1 and page.now("blanks", "upper") == 2, "the page shows both fingers' drags"
        page.screenshot("two-fingers-range.png", page.section("blanks"))
    finally:
        touch(page, "touchEnd", {})

    server.wait_state("blanks", lambda s: s == {"lower": 1, "upper": 2}, what="lower 1 and upper 2")
    page.wait_now("blanks", "lower", 1)
    page.wait_now("blanks", "upper", 2)
    watcher.barrier()
    live = live_gestures(watcher, me, "blanks")
    assert live == {"lower": "end", "upper": "end"}, live


def centre(page, control: str, thumb: str) -> tuple[float, float]:
    """A thumb's centre where it is now (no scrolling: the other finger's thumb must stay put)."""
    rect = page.driver.execute_script("return arguments[0].getBoundingClientRect().toJSON();", page.thumb(control, thumb))
    return rect["x"] + rect["width"] / 2, rect["y"] + rect["height"] / 2


def test_two_fingers_on_two_controls_move_both(browser, server):
    page = browser("Ann")
    page.set_viewport(1280, 1400)  # both cards on one screen
    enable_touch(page)
    page.driver.execute_script("window.scrollTo(0, 0)")
    gain = centre(page, "gain", "value")
    size = centre(page, "size", "index")
    viewport = page.driver.execute_script("return [innerWidth, innerHeight];")
    for x, y in (gain, size):
        assert 0 < x < viewport[0] and 0 < y < viewport[1], f"a thumb off screen: {(x, y)} in {viewport}"

    touch(page, "touchStart", {1: gain})
    touch(page, "touchStart", {1: gain, 2: size})
    try:
        slide(page, {1: gain, 2: size}, {1: page.track_width("gain") * 0.3, 2: page.track_width("size") * 0.3})
        page.frames()
        page.barrier()
        assert page.now("gain", "value") > 0.6 and page.now("size", "index") > 60, "both controls follow their finger"
    finally:
        touch(page, "touchEnd", {})
    server.wait_state("gain", lambda s: s["value"] > 0.6, what="gain moved up")
    server.wait_state("size", lambda s: s["index"] > 2, what="size moved up")
    page.wait(lambda: page.now("gain", "value") == pytest.approx(server.state("gain")["value"]), what="the page shows the commit")
