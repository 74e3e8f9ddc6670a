"""Reset to default from the page, in Chromium against the real server: a card's menu
and a double-click on its label put one control back to the room file's value, the
room's menu (after its question) every control but gauges and buttons; each reset
is one edit that Undo takes back; a held control's reset says who holds it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys


ROOT = Path(__file__).resolve().parents[2]
SYNTH = json.loads((ROOT / "examples" / "synth.json").read_text())
ROOM = SYNTH["id"]
INITIAL = {c["id"]: c.get("state") for c in SYNTH["controls"]}


def initial(control: str):
    """A predicate: the control is at its room file's state (which may give only some fields: a snap's index)."""
    return lambda state: all(state.get(k) == v for k, v in INITIAL[control].items())


@pytest.fixture
def synth(server):
    status, body = server.request("POST", "/api/rooms", SYNTH)
    assert status == 201, (status, body)
    return server


def wait_synth(server, control: str, predicate, what: str) -> dict:
    return server.wait_state(control, predicate, what=what, room=ROOM)


def open_synth(browser, name: str):
    page = browser(name, room=ROOM)
    page.wait(lambda: page.exists(page.section_css("level")), what="the synth cards")
    return page


def open_menu(page, label: str):
    button = page.find(f'button.menu-button[aria-label="{label}"]')
    page.scroll_to(button).click()
    panel = page.find("#" + button.get_attribute("aria-controls"))
    page.wait(lambda: panel.is_displayed(), what=f"{label} open")
    return panel


def notice(page, control: str) -> str:
    return page.in_section(control, ".control-status").get_attribute("textContent")


def test_a_controls_reset_from_its_menu_or_its_label_goes_back_to_the_room_file_and_undo_takes_it_back(synth, browser):
    page = open_synth(browser, "Ann")
    synth.put("cutoff", 440, room=ROOM)
    page.wait_now("cutoff", "value", 440)

    open_menu(page, "More for Cutoff").find_element("css selector", 'button[data-item="reset"]').click()
    wait_synth(synth, "cutoff", initial("cutoff"), "the room file's 1000")
    page.wait_now("cutoff", "value", 1000)
    page.wait(lambda: notice(page, "cutoff") == "Reset to default", what=lambda: f"the card's notice (now {notice(page, 'cutoff')!r})")
    page.wait(lambda: page.text("cutoff", ".control-changed") == "you, just now", what="the reset is mine")

    undo = page.find('button[data-action="undo"]')
    page.wait(lambda: undo.is_enabled(), what="Undo enabled: a reset is an edit")
    assert undo.get_attribute("title") == "Undo Cutoff (Ctrl+Z)"
    undo.click()
    wait_synth(synth, "cutoff", lambda s: s["value"] == 440, "440 again after Undo")
    page.wait_now("cutoff", "value", 440)

    # A double-click on the label resets too.
    field = page.in_section("resonance", "input.value-field")
    page.focus(field)
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys("64" + Keys.ENTER)
    wait_synth(synth, "resonance", lambda s: s["value"] == 64, "64")
    label = page.in_section("resonance", ".control-label")
    assert "Double-click to reset" in label.get_attribute("title")
    ActionChains(page.driver).double_click(page.scroll_to(label)).perform()
    wait_synth(synth, "resonance", initial("resonance"), "the room file's 20")
    page.wait_now("resonance", "value", 20)
    selected = page.driver.execute_script("return String(getSelection());")
    assert selected == "", f"the double-click selected {selected!r}"

    # A control already at its value: acknowledged, nothing changes, and the card says it was done.
    rev = synth.rev(ROOM)
    open_menu(page, "More for Resonance").find_element("css selector", 'button[data-item="reset"]').click()
    page.barrier()
    assert synth.rev(ROOM) == rev
    # A gauge and a momentary button offer no reset (a button may be claimed; a gauge is its source's).
    for label, items in (("More for Output level", ["Copy value"]),
                         ("More for Trigger note", ["Copy value", "Claim (only I press it)"])):
        panel = open_menu(page, label)
        assert [b.text for b in panel.find_elements("css selector", "button.menu-item") if b.is_displayed()] == items
        page.keys(Keys.ESCAPE)


def test_reset_all_asks_then_puts_every_control_back_but_gauges_and_buttons_in_one_edit(synth, browser):
    page = open_synth(browser, "Bo")
    waveform = page.in_section("waveform", "input.value-field")
    page.focus(waveform)
    waveform.send_keys(Keys.CONTROL, "a")
    waveform.send_keys("sine" + Keys.ENTER)
    wait_synth(synth, "waveform", lambda s: s["index"] == 0, "sine")
    page.in_section("filter", '[role="switch"]').click()
    wait_synth(synth, "filter", lambda s: s["on"] is False, "filter off")
    page.in_section("trigger", ".press-button").click()
    wait_synth(synth, "trigger", lambda s: s["presses"] == 1, "one press")
    synth.put("level", -3, room=ROOM)
    page.wait(lambda: page.text("level", ".control-value") == "-3 dB", what="the gauge at -3 dB")
    rev = synth.rev(ROOM)

    panel = open_menu(page, "More for this room")
    panel.find_element("css selector", 'button[data-item="reset-all"]').click()
    question = panel.find_element("css selector", ".menu-confirm-text")
    page.wait(lambda: question.is_displayed(), what="the question")
    assert question.text.startswith("Reset all 5 controls"), question.text
    panel.find_element("css selector", 'button[data-item="confirm-reset-all"]').click()
    wait_synth(synth, "waveform", initial("waveform"), "saw again")
    for control in ("filter", "cutoff", "resonance", "space"):
        assert initial(control)(synth.state(control, room=ROOM)), control
    assert synth.state("level", room=ROOM)["value"] == -3, "a gauge is its program's"
    assert synth.state("trigger", room=ROOM) == {"presses": 1}, "presses are events, not settings"
    assert synth.rev(ROOM) == rev + 1, "the room's reset is one revision"
    status = page.find(".history-status")
    page.wait(lambda: status.text == "Reset every control to its default", what=lambda: f"the status line (now {status.text!r})")
    page.wait(lambda: page.text("waveform", ".control-value") == "saw", what="the page shows saw")
    page.screenshot("reset-all-done.png")

    # One Undo takes the whole reset back.
    undo = page.find('button[data-action="undo"]')
    page.wait(lambda: undo.is_enabled(), what="Undo enabled")
    undo.click()
    wait_synth(synth, "waveform", lambda s: s["index"] == 0, "sine after Undo")
    assert synth.state("filter", room=ROOM)["on"] is False


def test_the_reset_of_a_held_control_says_who_holds_it(synth, browser, ws_client):
    page = open_synth(browser, "Cy")
    # Off its room file's value (a reset that would change nothing is acknowledged, held or not).
    synth.put("cutoff", 440, room=ROOM)
    page.wait_now("cutoff", "value", 440)
    robot = ws_client("Robot", room=ROOM)
    robot.hold("cutoff", dx=0.1)
    page.wait(lambda: page.ghosts("cutoff", "value"), what="Robot's ghost on the cutoff")
    rev = synth.rev(ROOM)
    open_menu(page, "More for Cutoff").find_element("css selector", 'button[data-item="reset"]').click()
    page.wait(lambda: notice(page, "cutoff") == "Not reset: held by Robot",
              what=lambda: f"the busy notice (now {notice(page, 'cutoff')!r})")
    assert synth.rev(ROOM) == rev
