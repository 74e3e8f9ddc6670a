"""Screenshots for review, in test-output/e2e/: each style of control, the whole
page on a desktop and a phone, and two people dragging at once."""

from __future__ import annotations

import pytest

CONTROLS = ["size", "blanks", "color", "gain", "bpm"]


def test_each_style_of_control_is_saved_as_an_element_screenshot(browser, shots):
    page = browser("Ann")
    for control in CONTROLS:
        section = page.section(control)
        assert section.is_displayed(), control
        assert section.size["width"] > 0 and section.size["height"] > 0, control
        path = page.screenshot(f"control-{control}.png", element=section)
        assert path.stat().st_size > 500, path
    meter = page.in_section("bpm", '[role="meter"]')
    assert float(meter.get_attribute("aria-valuenow")) == 67


@pytest.mark.parametrize("width,height,mobile", [(1280, 800, False), (390, 844, True)], ids=["desktop", "mobile"])
def test_the_whole_page_is_saved_at_desktop_and_phone_sizes(browser, shots, width, height, mobile):
    page = browser("Ann")
    page.set_viewport(width, height, mobile)
    for control in CONTROLS:
        page.wait(lambda: page.section(control).is_displayed(), what=f"{control} displayed at {width}×{height}")
    viewport = page.screenshot(f"page-{width}x{height}.png")
    full = page.full_page_screenshot(f"page-{width}x{height}-full.png")
    assert viewport.stat().st_size > 1000 and full.stat().st_size > 1000


def test_two_people_dragging_at_once_is_saved_from_the_first_window_showing_the_second_ones_ghost(
        browser, server, shots):
    a, b = browser("Ann"), browser("Bob")
    b_id = b.my_client_id()
    a.set_viewport(1280, 800)
    # Both drags go through DevTools input (see Page.drag): A's window can be photographed
    # mid-drag, and both buttons stay down until the screenshot is taken, however long that takes.
    a.pointer_down("blanks", "upper")
    try:
        a.pointer_move(a.track_width("blanks") * 0.25)
        a.wait(lambda: a.now("blanks", "upper") != 1, what="Ann's own preview on blanks.upper")
        b.pointer_down("gain", "value")
        try:
            b.pointer_move(b.track_width("gain") * 0.25)
            a.wait(lambda: any("Bob" in (g.get_attribute("textContent") or "")
                               for g in a.ghosts("gain", "value", b_id)),
                   what="Bob's ghost on gain in Ann's window")
            a.wait(lambda: a.now("gain", "value") != 0.5, what="Bob's preview on gain in Ann's window")
            a.driver.execute_script("window.scrollTo(0, 0);")
            path = a.screenshot("two-people-dragging.png")
            assert path.stat().st_size > 1000
            assert a.now("blanks", "upper") != 1, "Ann's drag ended before the screenshot"
        finally:
            b.pointer_up()
    finally:
        a.pointer_up()
    server.wait_state("gain", lambda s: s["value"] != 0.5, what="Bob's gain committed")
    server.wait_state("blanks", lambda s: s["upper"] != 1, what="Ann's blanks committed")
