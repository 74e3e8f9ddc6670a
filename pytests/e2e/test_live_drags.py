"""Two windows in one room: a pointer drag in one is seen live in the other
(a ghost with the dragger's name, and the thumb following the preview), and
after the release both show the value the server committed.

The drag in window A goes through DevTools input (`Page.pointer_down`,
`pointer_move`, `pointer_up`: trusted mouse events whose pointer capture
survives between commands), so that A's button stays down for as long as the
test looks, however slow the machine: press, move in a few steps, hold; move
back a little, hold; release. During each hold the test watches window B, the
API, and a third, WebSocket-only member of the room (`watcher`) that reports
A's preview as the server broadcast it."""

from __future__ import annotations

import pytest

EPS = 1e-6


def ghost_named(page, control, thumb, by, name):
    """The ghost of `by` on that thumb, once it shows the person's name."""
    for ghost in page.ghosts(control, thumb, by):
        if name in (ghost.get_attribute("textContent") or ""):
            return ghost
    return None


def watch_live_drag(a, b, server, watcher, control, thumb, holds, tolerance=EPS):
    """A drags control.thumb to each of `holds` (dx px from the press) and holds there; at each hold
    B must show A's ghost and follow A's preview. After the release both windows show the committed
    value, equal to the API's. Returns (value before, the previews seen at each hold, committed value)."""
    a_id = a.my_client_id()
    before = server.state(control)[thumb]
    b.wait_now(control, thumb, before)
    assert not b.ghosts(control, thumb), "a ghost before anyone drags"

    previews = []
    a.pointer_down(control, thumb)
    try:
        x0 = a._pointer[0]
        for dx in holds:
            seen = previews[-1] if previews else before
            a.pointer_move(x0 + dx - a._pointer[0])
            # Barriers, in order: A has sent its last move (its next frames have run), the server
            # has applied it (A's barrier is acknowledged), and the server has sent the watcher
            # everything it had for it by then: the watcher's latest preview of A's is the hold's.
            a.frames()
            a.barrier()
            watcher.barrier()
            preview = watcher.preview(a_id, control, thumb)
            assert preview is not None and abs(preview - seen) > tolerance, \
                f"the server's preview of {a.name}'s drag did not move on from {seen}: {preview}"
            b.wait(lambda: abs(b.now(control, thumb) - preview) <= tolerance,
                   what=lambda: f"{b.name}'s {control}.{thumb} aria-valuenow follows {a.name}'s preview {preview} "
                                f"(shows {b._safe_now(control, thumb)})")
            previews.append(preview)
            b.wait(lambda: ghost_named(b, control, thumb, a_id, a.name),
                   what=f'.ghost[data-by="{a_id}"][data-thumb="{thumb}"] containing "{a.name}" in {b.name}\'s window')
            # A preview is not a commit.
            assert server.state(control)[thumb] == pytest.approx(before), "the drag committed before the release"
    finally:
        a.pointer_up()

    committed = server.wait_state(control, lambda s: abs(s[thumb] - before) > EPS, what=f"{thumb} != {before}")[thumb]
    for page in (a, b):
        page.wait(lambda: abs(page.now(control, thumb) - committed) <= tolerance,
                  what=lambda: f"{page.name}'s {control}.{thumb} == committed {committed} "
                               f"(shows {page._safe_now(control, thumb)})")
    assert a.attr(control, thumb, "aria-valuenow") == b.attr(control, thumb, "aria-valuenow")
    b.wait(lambda: not b.ghosts(control, thumb), what=f"the ghost on {control}.{thumb} disappears in {b.name}'s window")
    assert not a.ghosts(control, thumb), "the dragger sees a ghost of itself"
    return before, previews, committed


def ann_drags_bob_watches(browser, server, ws_client, control, thumb, fractions, tolerance=EPS):
    """Opens Ann's and Bob's windows and a WebSocket `watcher`, then watch_live_drag with Ann holding
    at each of `fractions` of control's track width. Returns (a, b, before, previews, committed)."""
    a, b = browser("Ann"), browser("Bob")
    watcher = ws_client("Watcher")
    width = a.track_width(control)
    holds = [width * fraction for fraction in fractions]
    return (a, b, *watch_live_drag(a, b, server, watcher, control, thumb, holds, tolerance))


def test_a_gain_drag_in_one_window_shows_a_ghost_and_the_preview_in_the_other_and_both_end_on_the_committed_value(
        browser, server, ws_client):
    _, _, before, previews, committed = ann_drags_bob_watches(browser, server, ws_client, "gain", "value", [0.3, 0.2])
    assert before == 0.5
    assert previews[0] > previews[1] > 0.5, previews
    assert committed == pytest.approx(previews[-1]), "the release committed something else than the last preview"


def test_the_range_upper_thumb_dragged_far_right_stops_at_the_operable_limit_3_live_and_committed(
        browser, server, ws_client):
    # Far beyond the track's end (clamped to the viewport), then a little back: still beyond 3.
    a, b, before, previews, committed = ann_drags_bob_watches(browser, server, ws_client, "blanks", "upper", [0.15, 2])
    assert before == 1
    assert previews[-1] == 3, previews
    assert committed == 3
    assert server.state("blanks") == {"lower": 0, "upper": 3}
    for page in (a, b):
        page.wait(lambda: page.text("blanks", ".range-label") == "0 – 3",
                  what=lambda: f'.range-label "0 – 3" (now {page.text("blanks", ".range-label")!r})')


def test_a_colour_channel_drag_is_followed_live_in_the_other_window_and_commits_the_same_level(
        browser, server, ws_client):
    # aria-valuenow of a channel is its level rounded to 3 decimals.
    a, b, before, previews, committed = ann_drags_bob_watches(browser, server, ws_client, "color", "red", [0.3, 0.2],
                                                              tolerance=0.0006)
    assert before == pytest.approx(0.2)
    assert previews[0] > previews[1] > 0.2, previews
    assert committed == pytest.approx(previews[-1])
    assert round(committed * 255) == pytest.approx(committed * 255, abs=1e-6), "a level off the 1/255 grid"
    hex_ = server.state("color")["hex"]
    assert hex_ == "#%02X6699" % round(committed * 255)
    for page in (a, b):
        page.wait(lambda: page.in_section("color", "input.hex").get_attribute("value").upper() == hex_,
                  what=f"{page.name}'s hex field shows {hex_}")
