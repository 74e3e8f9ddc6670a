"""The compact layout and the folding groups, in Chromium against the real server:
the header's Compact switch puts the synth room on one 1280×900 screen (no vertical
scroll) with every control still working, the pick survives a reload (localStorage,
per room); group headings fold their groups and a fold survives a reload; a phone's
390 px width scrolls sideways in neither layout; the timeline is slimmer in compact.
Screenshots: test-output/e2e/synth-compact-*.png."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys


ROOT = Path(__file__).resolve().parents[2]
SYNTH = json.loads((ROOT / "examples" / "synth.json").read_text())
ROOM = SYNTH["id"]
CONTROLS = [c["id"] for c in SYNTH["controls"]]


@pytest.fixture
def synth(server):
    status, body = server.request("POST", "/api/rooms", SYNTH)
    assert status == 201, (status, body)
    return server


def wait_synth(server, control: str, predicate, what: str) -> dict:
    return server.wait_state(control, predicate, what=what, room=ROOM)


def compact(page) -> bool:
    return "layout-compact" in (page.find("body").get_attribute("class") or "").split()


def metrics(page) -> dict:
    return page.driver.execute_script("""
        const s = document.scrollingElement;
        return {scrollHeight: s.scrollHeight, innerHeight, scrollWidth: s.scrollWidth, innerWidth};""")


def open_synth(browser, name: str):
    page = browser(name, room=ROOM)
    page.wait(lambda: all(page.exists(page.section_css(c)) for c in CONTROLS), what="the synth cards")
    return page


def reload(page) -> None:
    page.driver.refresh()
    page.wait_open()
    page.wait(lambda: all(page.exists(page.section_css(c)) for c in CONTROLS), what="the synth cards after a reload")
    page.frames()


def switch_layout(page, to_compact: bool) -> None:
    toggle = page.find("#layout-toggle")
    page.scroll_to(toggle).click()
    page.wait(lambda: compact(page) == to_compact, what=f"compact == {to_compact}")
    assert toggle.get_attribute("aria-pressed") == ("true" if to_compact else "false")
    page.frames()


def in_view(page, element) -> bool:
    """Shown and entirely inside the window, without scrolling."""
    return page.driver.execute_script("""
        const r = arguments[0].getBoundingClientRect();
        return r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;""",
                                      element)


def test_the_compact_synth_room_fits_one_1280x900_screen_and_every_control_still_works(synth, browser):
    page = open_synth(browser, "Ann")
    page.set_viewport(1280, 900)
    page.frames()
    toggle = page.find("#layout-toggle")
    assert toggle.get_attribute("aria-pressed") == "false" and not compact(page)
    assert metrics(page)["scrollHeight"] > 900, "the cards need more than one screen (else this test proves nothing)"

    switch_layout(page, True)
    page.driver.execute_script("window.scrollTo(0, 0);")
    page.frames()
    m = metrics(page)
    assert m["scrollHeight"] <= m["innerHeight"], m
    page.screenshot("synth-compact-1280x900.png")

    # Every control is on screen and usable: thumbs, fields, the switch, the button, the pad.
    for control in CONTROLS:
        assert in_view(page, page.section(control)), control
    for css in ('[role="slider"]', "input.value-field", '[role="switch"]', ".press-button", '[role="meter"]'):
        for element in page.all(f"#controls {css}"):
            assert in_view(page, element), css
    pad = page.in_section("space", ".xy-pad")
    assert pad.size["height"] >= 100, pad.size
    # Descriptions and last-changed lines leave the rows; the label's tooltip keeps the description.
    assert not page.in_section("cutoff", ".control-description").is_displayed()
    assert "musical interval" in page.in_section("cutoff", ".control-label").get_attribute("title")

    # The controls work as in the cards: a typed value, a key, a tap, a press.
    field = page.in_section("cutoff", 'input.value-field[data-field="value"]')
    page.focus(field)
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys("2k" + Keys.ENTER)
    wait_synth(synth, "cutoff", lambda s: s["value"] == 2000, "2000")
    page.focus(page.thumb("resonance", "value"))
    ActionChains(page.driver).key_down(Keys.SHIFT).send_keys(Keys.ARROW_RIGHT).key_up(Keys.SHIFT).perform()
    wait_synth(synth, "resonance", lambda s: s["value"] == 30, "30")
    page.in_section("filter", '[role="switch"]').click()
    wait_synth(synth, "filter", lambda s: s["on"] is False, "off")
    page.in_section("trigger", ".press-button").click()
    wait_synth(synth, "trigger", lambda s: s["presses"] == 1, "one press")
    page.wait(lambda: page.text("trigger", ".control-value") == "1×", what="the press count in the value column")

    # The pick is remembered for this room: a reload keeps it, and so does going back to cards.
    reload(page)
    assert compact(page) and page.find("#layout-toggle").get_attribute("aria-pressed") == "true"
    m = metrics(page)
    assert m["scrollHeight"] <= m["innerHeight"], m
    assert page.driver.execute_script("return localStorage.getItem('tandem.layout.synth');") == "compact"
    switch_layout(page, False)
    reload(page)
    assert not compact(page)
    assert page.driver.execute_script("return localStorage.getItem('tandem.layout.synth');") == "cards"

    # In dark mode, for the record.
    page.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    switch_layout(page, True)
    page.screenshot("synth-compact-dark-1280x900.png")


def test_groups_fold_and_stay_folded_after_a_reload(synth, browser):
    page = open_synth(browser, "Bo")

    def toggle(group: str):
        return page.find(f'.control-group[data-group="{group}"] .group-toggle')

    filter_toggle = toggle("Filter")
    assert filter_toggle.get_attribute("aria-expanded") == "true"
    assert filter_toggle.text.upper() == "FILTER", "an open group's heading is its name"
    body = page.find("#" + filter_toggle.get_attribute("aria-controls"))
    page.scroll_to(filter_toggle).click()
    page.wait(lambda: filter_toggle.get_attribute("aria-expanded") == "false", what="Filter folded")
    assert not body.is_displayed()
    for control in ("filter", "cutoff", "resonance"):
        assert not page.section(control).is_displayed(), control
    assert page.section("space").is_displayed()
    assert "3 CONTROLS" in filter_toggle.text.upper(), filter_toggle.text

    reload(page)
    filter_toggle = toggle("Filter")
    assert filter_toggle.get_attribute("aria-expanded") == "false", "the fold survives a reload"
    assert not page.section("cutoff").is_displayed()
    assert toggle("Output").get_attribute("aria-expanded") == "true"
    assert json.loads(page.driver.execute_script("return localStorage.getItem('tandem.collapsed.synth');")) == ["Filter"]

    # The compact layout folds the same groups; the keyboard unfolds (a button: Enter or Space).
    switch_layout(page, True)
    assert not page.section("cutoff").is_displayed()
    page.focus(filter_toggle)
    page.keys(Keys.SPACE)
    page.wait(lambda: filter_toggle.get_attribute("aria-expanded") == "true", what="Filter unfolded")
    page.wait(lambda: page.section("cutoff").is_displayed(), what="the cutoff shown again")
    reload(page)
    assert toggle("Filter").get_attribute("aria-expanded") == "true"
    assert page.section("cutoff").is_displayed()


@pytest.mark.parametrize("layout", ["cards", "compact"])
def test_a_phone_width_scrolls_sideways_in_neither_layout(synth, browser, layout):
    page = open_synth(browser, "Cy")
    page.set_viewport(390, 844, mobile=True)
    if layout == "compact":
        switch_layout(page, True)
    page.frames()
    m = metrics(page)
    assert m["scrollWidth"] <= m["innerWidth"], m
    for control in CONTROLS:
        right = page.driver.execute_script("return arguments[0].getBoundingClientRect().right;", page.section(control))
        assert right <= 390, (control, right)
    for element in page.all('#controls [role="slider"], #controls input.value-field, #controls .menu-button'):
        page.scroll_to(element)
        assert page.driver.execute_script("const r = arguments[0].getBoundingClientRect(); return r.left >= 0 && r.right <= innerWidth;",
                                          element), element.get_attribute("outerHTML")[:120]
    page.driver.execute_script("window.scrollTo(0, 0);")
    page.full_page_screenshot(f"synth-{layout}-390x844-full.png")


@pytest.mark.tandem_data("file")
def test_the_timeline_is_slimmer_in_compact(synth, browser):
    page = open_synth(browser, "Di")
    page.set_viewport(1280, 900)
    row = page.wait(lambda: page.find(".timeline-row") if page.find(".timeline").is_displayed() else None,
                    what="the timeline (the server keeps history)")
    cards = row.size["height"]
    switch_layout(page, True)
    slim = page.find(".timeline-row").size["height"]
    assert slim <= 40 < cards, (slim, cards)
    assert page.find("#timeline-slider").is_displayed()


def test_a_room_file_asking_for_compact_opens_compact_until_the_person_picks_cards(server, browser):
    status, body = server.request("POST", "/api/rooms", {**SYNTH, "layout": "compact"})
    assert status == 201, (status, body)
    assert server.room(ROOM).get("layout") == "compact"
    page = open_synth(browser, "Eve")
    page.wait(lambda: compact(page), what="the room's default layout: compact")
    assert page.find("#layout-toggle").get_attribute("aria-pressed") == "true"
    assert page.driver.execute_script("return localStorage.getItem('tandem.layout.synth');") is None, \
        "the room's default is not the person's pick"
    switch_layout(page, False)
    reload(page)
    assert not compact(page), "the person's pick wins over the room's default"
    # Other rooms keep their own layout.
    page.driver.get(f"{server.http}/?room=demo&name=Eve")
    page.wait_open()
    page.wait(lambda: page.exists(page.section_css("gain")), what="the demo cards")
    assert not compact(page)
