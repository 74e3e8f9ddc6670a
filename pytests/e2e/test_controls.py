"""The demo room as the DOM contract describes it, and the two ways of changing
a value with one click: pressing a track (the thumb jumps there) and the snap's
Smaller / Larger buttons."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.action_chains import ActionChains

# control id → (type, label, {thumb: (aria-label, aria-valuenow at the start)})
DEMO = {
    "size": ("snap", "Circle size", {"index": ("Circle size", 60)}),
    "blanks": ("range", "Blank cells", {"lower": ("Blank cells lower", 0), "upper": ("Blank cells upper", 1)}),
    "color": ("color", "Colour", {"red": ("Colour red", 0.2), "green": ("Colour green", 0.4),
                                  "blue": ("Colour blue", 0.6)}),
    "gain": ("slider", "Gain", {"value": ("Gain", 0.5)}),
    "bpm": ("gauge", "BPM", {}),
}


def test_every_control_of_the_demo_room_has_its_section_label_and_accessible_thumbs(browser):
    page = browser("Ann")
    for control, (type_, label, thumbs) in DEMO.items():
        section = page.section(control)
        assert section.get_attribute("data-type") == type_, control
        assert page.text(control, "h2") == label
        found = {t.get_attribute("data-thumb") for t in page.all(f'{page.section_css(control)} [role="slider"]')}
        assert found == set(thumbs), (control, found)
        for thumb, (aria_label, now) in thumbs.items():
            el = page.thumb(control, thumb)
            assert el.get_attribute("aria-label") == aria_label
            assert page.now(control, thumb) == pytest.approx(now, abs=1e-9), (control, thumb)
            low, high = float(el.get_attribute("aria-valuemin")), float(el.get_attribute("aria-valuemax"))
            assert low <= now <= high, (control, thumb, low, high)
            assert el.get_attribute("aria-valuetext"), (control, thumb)
    assert page.text("size", ".snap-value") == "60 pt"
    assert page.text("blanks", ".range-label") == "0 – 1"
    assert "0.5" in page.text("gain", ".slider-value")
    assert page.in_section("color", "input.hex").get_attribute("value").upper() == "#336699"
    assert page.in_section("color", ".swatch").is_displayed()
    meter = page.in_section("bpm", '[role="meter"]')
    assert float(meter.get_attribute("aria-valuenow")) == 67
    assert page.in_section("bpm", ".gauge-linear").is_displayed()
    assert page.in_section("bpm", ".gauge-dial").is_displayed()
    assert page.is_stale() is False


def test_pressing_the_size_track_jumps_to_the_value_there_and_the_snap_buttons_step_it(browser, server):
    page = browser("Ann")
    track = page.scroll_to(page.in_section("size", ".track"))
    thumb = page.thumb("size", "index")
    rect = page.driver.execute_script("return arguments[0].getBoundingClientRect().toJSON();", track)
    inset = thumb.size["width"] / 2
    # The position of 80 (index 3 of 5): f = 0.75 of the usable track.
    x = inset + 0.75 * (rect["width"] - 2 * inset)
    ActionChains(page.driver).move_to_element_with_offset(track, int(round(x - rect["width"] / 2)), 0) \
        .click().perform()
    server.wait_state("size", lambda s: s["value"] == 80, what="size 80 after pressing the track there")
    page.wait_now("size", "index", 80)
    page.wait(lambda: page.text("size", ".snap-value") == "80 pt", what='.snap-value "80 pt"')

    page.in_section("size", 'button[data-step="-1"]').click()
    server.wait_state("size", lambda s: s["value"] == 60, what="size 60 after Smaller")
    page.wait_now("size", "index", 60)
    larger = page.in_section("size", 'button[data-step="1"]')
    larger.click()
    page.wait_now("size", "index", 80)
    larger.click()
    page.wait_now("size", "index", 100)
    page.wait(lambda: not larger.is_enabled(), what="Larger disabled at 100")
    assert server.state("size") == {"index": 4, "value": 100}
