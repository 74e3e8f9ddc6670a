"""Undo and redo in the browser: the header buttons and Ctrl+Z revert one's own
last edit, and the other window sees the result."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys


def chord(page, *modifiers: str, key: str) -> None:
    """Presses `key` with `modifiers` held, on whatever has the focus."""
    chain = ActionChains(page.driver)
    for modifier in modifiers:
        chain.key_down(modifier)
    chain.send_keys(key)
    for modifier in reversed(modifiers):
        chain.key_up(modifier)
    chain.perform()


def test_undo_button_and_ctrl_z_revert_my_last_step_and_the_other_window_sees_it(browser, server):
    ann = browser("Ann")
    ben = browser("Ben")

    undo = ann.find('button[data-action="undo"]')
    redo = ann.find('button[data-action="redo"]')
    # Nothing to undo yet: both disabled, and their titles say so.
    assert undo.get_attribute("title") == "Nothing to undo (Ctrl+Z)"
    assert redo.get_attribute("title") == "Nothing to redo (Ctrl+Shift+Z)"
    assert not undo.is_enabled() and not redo.is_enabled()
    ann.screenshot("undo-header.png", ann.find(".topbar"))

    # Larger on Circle size, then Undo: back to 60 pt, in both windows.
    ann.scroll_to(ann.in_section("size", 'button[data-step="1"]')).click()
    server.wait_state("size", lambda s: s["value"] == 80, what="size 80")
    ben.wait_now("size", "index", 80)
    ann.wait(lambda: undo.is_enabled(), what="Undo enabled after an edit")
    ann.scroll_to(undo).click()
    server.wait_state("size", lambda s: s["value"] == 60, what="size back to 60")
    ann.wait_now("size", "index", 60)
    ann.wait(lambda: ann.text("size", ".snap-value") == "60 pt",
             what=lambda: f'.snap-value "60 pt" (now {ann.text("size", ".snap-value")!r})')
    ben.wait_now("size", "index", 60)

    # A keyboard step on Gain, then Ctrl+Z: back to 0.5, in both windows.
    ann.focus(ann.thumb("gain", "value"))
    ann.keys(Keys.ARROW_UP)
    server.wait_state("gain", lambda s: s["value"] == pytest.approx(0.51), what="gain 0.51")
    ben.wait_now("gain", "value", 0.51)
    chord(ann, Keys.CONTROL, key="z")
    server.wait_state("gain", lambda s: s["value"] == pytest.approx(0.5), what="gain back to 0.5")
    ann.wait_now("gain", "value", 0.5)
    ben.wait_now("gain", "value", 0.5)

    # Ctrl+Shift+Z redoes the step; the Redo button the one before it.
    chord(ann, Keys.CONTROL, Keys.SHIFT, key="z")
    server.wait_state("gain", lambda s: s["value"] == pytest.approx(0.51), what="gain redone to 0.51")
    ben.wait_now("gain", "value", 0.51)
    # Undoing twice more takes back the step and nothing else; Redo brings the step back.
    chord(ann, Keys.CONTROL, key="z")
    server.wait_state("gain", lambda s: s["value"] == pytest.approx(0.5), what="gain 0.5 again")
    ann.wait(lambda: redo.is_enabled(), what="Redo enabled after an undo")
    ann.scroll_to(redo).click()
    server.wait_state("gain", lambda s: s["value"] == pytest.approx(0.51), what="gain redone by the button")
    ben.wait_now("gain", "value", 0.51)
    assert server.state("size") == {"index": 2, "value": 60}


def test_ctrl_z_in_the_hex_field_is_the_fields_own_undo(browser, server):
    ann = browser("Ann")
    ann.scroll_to(ann.in_section("size", 'button[data-step="1"]')).click()
    server.wait_state("size", lambda s: s["value"] == 80, what="size 80")
    rev = server.rev()
    field = ann.in_section("color", "input")
    ann.focus(field)
    chord(ann, Keys.CONTROL, key="z")
    # Barrier: the server has applied whatever the page sent for that Ctrl+Z.
    ann.barrier()
    # Nothing reached the room: a Ctrl+Z in a field is not an undo of the size.
    assert server.rev() == rev
    assert server.state("size") == {"index": 3, "value": 80}
    ann.focus(ann.thumb("gain", "value"))
    chord(ann, Keys.CONTROL, key="z")
    server.wait_state("size", lambda s: s["value"] == 60, what="the real undo of the size")
    assert server.rev() == rev + 1


def test_an_undo_of_a_thumb_someone_holds_is_refused_and_the_page_says_who_holds_it(browser, server, ws_client):
    ann = browser("Ann")
    ann.focus(ann.thumb("gain", "value"))
    ann.keys(Keys.ARROW_UP)
    server.wait_state("gain", lambda s: s["value"] == pytest.approx(0.51), what="gain 0.51")
    robot = ws_client("Robot")
    robot.hold("gain", dx=0.2)
    ann.wait(lambda: ann.ghosts("gain", "value", robot.client), what="Robot's ghost")
    rev = server.rev()
    ann.scroll_to(ann.find('button[data-action="undo"]')).click()
    status = ann.find(".history-status")
    ann.wait(lambda: "held by Robot" in (status.get_attribute("textContent") or ""),
             what=lambda: f'.history-status "held by Robot" (now {status.get_attribute("textContent")!r})')
    assert server.rev() == rev, "the refused undo committed something"


def test_others_ghosts_are_dropped_while_the_page_is_disconnected(browser, server, ws_client):
    ann = browser("Ann")
    robot = ws_client("Robot")
    robot.hold("gain", dx=0.2)
    ann.wait(lambda: ann.ghosts("gain", "value", robot.client), what="Robot's ghost")
    server.stop()
    ann.wait(lambda: ann.find("#connection").get_attribute("data-state") != "open", what="the page notices")
    ann.wait(lambda: not ann.ghosts("gain", "value"), what="no ghost frozen while disconnected")
    ann.wait_now("gain", "value", 0.5)
