"""Two windows in one room: a pointer drag in one is seen live in the other
(a ghost with the dragger's name, and the thumb following the preview), and
after the release both show the value the server committed.

The drag is one ActionChains gesture in window A (see `Page.drag`): press,
move in a few steps, hold; move back a little, hold; release. During the holds
the test watches window B, the API, and a third, WebSocket-only member of the
room (`watcher`) that reports A's preview as the server broadcast it."""

from __future__ import annotations

import time

import pytest

EPS = 1e-6
HOLD = 2.5  # seconds each hold lasts: ample time to check window B while A's button is down
STEADY = 0.4  # seconds a preview must stay put to count as the hold's


def ghost_named(page, control, thumb, by, name):
    """The ghost of `by` on that thumb, once it shows the person's name."""
    for ghost in page.ghosts(control, thumb, by):
        if name in (ghost.get_attribute("textContent") or ""):
            return ghost
    return None


def watch_live_drag(a, b, server, watcher, control, thumb, holds, tolerance=EPS):
    """A drags control.thumb through `holds` [(dx px, s), ...]; at each hold B must show A's ghost and
    follow A's preview. After the release both windows show the committed value, equal to the API's.
    Returns (value before, the previews seen at each hold, committed value)."""
    a_id = a.my_client_id()
    before = server.state(control)[thumb]
    b.wait_now(control, thumb, before)
    assert not b.ghosts(control, thumb), "a ghost before anyone drags"

    previews = []
    gesture = a.drag(control, thumb, holds)
    try:
        for _ in holds:
            seen = previews[-1] if previews else before

            candidate = {}

            def b_follows_a_new_preview():
                """A's preview moved on from `seen`, B shows it, and both held still for STEADY s
                (so that the value is the hold's, not one on the way there)."""
                preview = watcher.preview(a_id, control, thumb)
                if preview is None or abs(preview - seen) <= tolerance \
                        or abs(b.now(control, thumb) - preview) > tolerance:
                    candidate.clear()
                    return None
                if candidate.get("value") != preview:
                    candidate.update(value=preview, since=time.monotonic())
                return [preview] if time.monotonic() - candidate["since"] >= STEADY else None

            [preview] = b.wait(b_follows_a_new_preview, timeout=HOLD + 2,
                             what=lambda: f"{b.name}'s {control}.{thumb} aria-valuenow follows {a.name}'s new preview "
                                  f"(watcher sees {watcher.preview(a_id, control, thumb)}, "
                                  f"{b.name} shows {b._safe_now(control, thumb)})")
            previews.append(preview)
            assert not gesture.done(), "the hold was over before the preview reached the other window"
            assert ghost_named(b, control, thumb, a_id, a.name), \
                f'no .ghost[data-by="{a_id}"][data-thumb="{thumb}"] containing "{a.name}" in {b.name}\'s window'
            # A preview is not a commit.
            assert server.state(control)[thumb] == pytest.approx(before), "the drag committed before the release"
    finally:
        gesture.join()

    committed = server.wait_state(control, lambda s: abs(s[thumb] - before) > EPS, what=f"{thumb} != {before}")[thumb]
    for page in (a, b):
        page.wait(lambda: abs(page.now(control, thumb) - committed) <= tolerance,
                  what=lambda: f"{page.name}'s {control}.{thumb} == committed {committed} "
                               f"(shows {page._safe_now(control, thumb)})")
    assert a.attr(control, thumb, "aria-valuenow") == b.attr(control, thumb, "aria-valuenow")
    b.wait(lambda: not b.ghosts(control, thumb), what=f"the ghost on {control}.{thumb} disappears in {b.name}'s window")
    assert not a.ghosts(control, thumb), "the dragger sees a ghost of itself"
    return before, previews, committed


def test_a_gain_drag_in_one_window_shows_a_ghost_and_the_preview_in_the_other_and_both_end_on_the_committed_value(
        browser, server, ws_client):
    a, b = browser("Ann"), browser("Bob")
    watcher = ws_client("Watcher")
    width = a.track_width("gain")
    before, previews, committed = watch_live_drag(
        a, b, server, watcher, "gain", "value", [(width * 0.3, HOLD), (width * 0.2, HOLD)])
    assert before == 0.5
    assert previews[0] > previews[1] > 0.5, previews
    assert committed == pytest.approx(previews[-1]), "the release committed something else than the last preview"


def test_the_range_upper_thumb_dragged_far_right_stops_at_the_operable_limit_3_live_and_committed(
        browser, server, ws_client):
    a, b = browser("Ann"), browser("Bob")
    watcher = ws_client("Watcher")
    width = a.track_width("blanks")
    # Far beyond the track's end (clamped to the viewport), then a little back: still beyond 3.
    before, previews, committed = watch_live_drag(
        a, b, server, watcher, "blanks", "upper", [(width * 0.15, HOLD), (width * 2, HOLD)])
    assert before == 1
    assert previews[-1] == 3, previews
    assert committed == 3
    assert server.state("blanks") == {"lower": 0, "upper": 3}
    for page in (a, b):
        page.wait(lambda: page.text("blanks", ".range-label") == "0 – 3",
                  what=lambda: f'.range-label "0 – 3" (now {page.text("blanks", ".range-label")!r})')


def test_a_colour_channel_drag_is_followed_live_in_the_other_window_and_commits_the_same_level(
        browser, server, ws_client):
    a, b = browser("Ann"), browser("Bob")
    watcher = ws_client("Watcher")
    width = a.track_width("color")
    # aria-valuenow of a channel is its level rounded to 3 decimals.
    before, previews, committed = watch_live_drag(
        a, b, server, watcher, "color", "red", [(width * 0.3, HOLD), (width * 0.2, HOLD)], tolerance=0.0006)
    assert before == pytest.approx(0.2)
    assert previews[0] > previews[1] > 0.2, previews
    assert committed == pytest.approx(previews[-1])
    assert round(committed * 255) == pytest.approx(committed * 255, abs=1e-6), "a level off the 1/255 grid"
    hex_ = server.state("color")["hex"]
    assert hex_ == "#%02X6699" % round(committed * 255)
    for page in (a, b):
        page.wait(lambda: page.in_section("color", "input.hex").get_attribute("value").upper() == hex_,
                  what=f"{page.name}'s hex field shows {hex_}")
