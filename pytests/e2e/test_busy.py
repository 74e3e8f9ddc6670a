"""A thumb held by someone else: the browser's drag is refused `busy`, the page
says who holds it, shows their ghost, and commits nothing."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.keys import Keys


def test_dragging_a_thumb_someone_else_holds_says_held_by_their_name_shows_their_ghost_and_commits_nothing(
        browser, server, ws_client):
    page = browser("Ann")
    robot = ws_client("Robot")
    robot.hold("gain", dx=0.2)  # begin + move: preview 0.7, committed still 0.5

    # The holder's ghost, with the holder's name, and the thumb shows the holder's live preview.
    page.wait(lambda: any("Robot" in (g.get_attribute("textContent") or "")
                          for g in page.ghosts("gain", "value", robot.client)),
              what=f'.ghost[data-by="{robot.client}"][data-thumb="value"] containing "Robot"')
    page.wait_now("gain", "value", 0.7)
    rev = server.rev()
    assert server.state("gain")["value"] == 0.5

    width = page.track_width("gain")
    # Press, drag left, hold a moment, release (one gesture); the notice lasts about 3 s.
    page.drag("gain", "value", [(-width * 0.3, 0.5)]).join()
    page.wait(lambda: "held by Robot" in page.text("gain", ".control-status"),
              what=lambda: f'.control-status "held by Robot" (now {page.text("gain", ".control-status")!r})')

    # Barrier: the server has applied everything the page sent for the drag (begin, moves, end).
    page.barrier()
    assert server.rev() == rev, "the refused drag committed something"
    assert server.state("gain")["value"] == 0.5
    # The page still shows the holder's preview, not its own refused drag, and the holder's ghost.
    page.wait_now("gain", "value", 0.7)
    assert page.ghosts("gain", "value", robot.client), "the holder's ghost went away"
    assert not [f for f in robot.frames if f.get("type") == "reject"], "the holder was refused something"

    # When the holder lets go (its connection closes, which cancels the gesture), the ghost goes and 0.5 is back.
    robot.close()
    page.wait(lambda: not page.ghosts("gain", "value"), what="the holder's ghost disappears")
    page.wait_now("gain", "value", 0.5)
    assert server.state("gain")["value"] == pytest.approx(0.5)


def test_a_newcomer_sees_a_drag_already_in_progress_and_a_key_step_on_that_thumb_is_refused_as_held_too(
        browser, server, ws_client):
    robot = ws_client("Robot")
    robot.hold("gain", dx=0.2)
    page = browser("Ann")  # its welcome carries Robot's live gesture
    page.wait(lambda: any("Robot" in (g.get_attribute("textContent") or "")
                          for g in page.ghosts("gain", "value", robot.client)),
              what="Robot's ghost from the welcome")
    page.wait_now("gain", "value", 0.7)
    rev = server.rev()

    page.focus(page.thumb("gain", "value"))
    page.keys(Keys.ARROW_UP)
    page.wait(lambda: "held by Robot" in page.text("gain", ".control-status"),
              what=lambda: f'.control-status "held by Robot" (now {page.text("gain", ".control-status")!r})')
    page.wait_now("gain", "value", 0.7)
    assert server.rev() == rev and server.state("gain")["value"] == 0.5
