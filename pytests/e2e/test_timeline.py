"""The session timeline in the browser: scrubbing back previews a past revision
for that person only (nothing is committed, the other window and the server
stay live), and "Restore this moment" commits it as ONE revision that the other
window sees."""

from __future__ import annotations

import re

import pytest
from selenium.webdriver.common.keys import Keys

BANNER = re.compile(r"^viewing \d\d:\d\d:\d\d — not live$")


def slider_value(page) -> int:
    return int(page.find("#timeline-slider").get_attribute("value"))


def model_rev(page) -> int:
    return page.driver.execute_script("return window.tandem.model.rev;")


@pytest.mark.tandem_data("file")
def test_scrub_back_previews_locally_and_restore_commits_one_revision(browser, server, shots):
    server.put("gain", 0.2)   # rev 1
    server.put("size", 100)   # rev 2
    server.put("gain", 0.8)   # rev 3
    server.put("size", 20)    # rev 4
    ann = browser("Ann")
    ben = browser("Ben")
    panel = ann.find("section.timeline")
    ann.wait(lambda: panel.is_displayed(), what="the timeline panel shown (the server keeps history)")
    slider = ann.find("#timeline-slider")
    ann.wait(lambda: slider.get_attribute("max") == "4" and slider_value(ann) == 4, what="slider at the live revision 4")
    assert slider.get_attribute("aria-valuetext") == "live, revision 4"
    assert ann.find(".timeline-time").text == "live"
    assert not ann.find(".timeline-banner").is_displayed()
    ticks = [t.text for t in ann.all(".timeline-tick")]
    assert ticks and all(re.match(r"^\d\d:\d\d:\d\d$", t) for t in ticks), f"wall-clock labels under the slider: {ticks}"
    ann.wait_now("gain", "value", 0.8)

    # Scrub back to revision 1 with the keyboard: gain 0.2, size still at its initial 60.
    ann.focus(slider)
    ann.keys(Keys.ARROW_LEFT, Keys.ARROW_LEFT, Keys.ARROW_LEFT)
    ann.wait(lambda: slider_value(ann) == 1, what="slider at revision 1")
    banner = ann.find(".timeline-banner")
    ann.wait(lambda: banner.is_displayed() and BANNER.match(ann.find(".timeline-banner-text").text),
             what=lambda: f"the banner 'viewing hh:mm:ss — not live' (now {ann.find('.timeline-banner-text').text!r})")
    ann.wait_now("gain", "value", 0.2)
    ann.wait_now("size", "index", 60)
    assert "revision 1" in ann.find(".timeline-detail").text and "api" in ann.find(".timeline-detail").text
    assert re.match(r"^\d\d:\d\d:\d\d, revision 1 of 4$", slider.get_attribute("aria-valuetext"))
    assert ann.thumb("gain", "value").get_attribute("aria-readonly") == "true"
    ann.screenshot("timeline-viewing-desktop.png")

    # Only Ann looks back: Ben and the server are live, and nothing was committed.
    ben.wait_now("gain", "value", 0.8)
    ben.wait_now("size", "index", 20)
    assert not ben.find(".timeline-banner").is_displayed()
    assert server.rev() == 4 and server.state("gain") == {"value": 0.8}
    # The past cannot be moved: a key on a control sends nothing.
    ann.focus(ann.thumb("gain", "value"))
    ann.keys(Keys.ARROW_UP)
    ann.barrier()  # the server has applied whatever the page sent for the key
    ann.wait_now("gain", "value", 0.2)
    assert server.rev() == 4

    # A phone sees the banner without scrolling.
    ann.set_viewport(390, 844, mobile=True)
    ann.wait(lambda: ann.find(".timeline-banner").is_displayed(), what="banner on a phone")
    top = ann.driver.execute_script("return document.querySelector('.timeline-banner').getBoundingClientRect().bottom;")
    assert top <= 844
    ann.screenshot("timeline-viewing-phone.png")
    ann.set_viewport(1280, 900)

    # Restore this moment: one new revision, seen by Ben, Ann back to live.
    ann.scroll_to(ann.find(".timeline-restore")).click()
    server.wait_state("gain", lambda s: s == {"value": 0.2}, what="gain restored to 0.2")
    assert server.rev() == 5
    assert server.state("size")["value"] == 60
    ben.wait_now("gain", "value", 0.2)
    ben.wait_now("size", "index", 60)
    assert model_rev(ben) == 5
    revisions = ben.driver.execute_script(
        "return ['gain', 'size'].map((id) => window.tandem.model.controls.get(id).rev);")
    assert revisions == [5, 5], "both controls changed in the one revision 5"
    status, history = server.request("GET", "/api/rooms/demo/history?since=4")
    assert status == 200 and sorted(h["control"] for h in history["history"]) == ["gain", "size"]
    assert {h["rev"] for h in history["history"]} == {5}
    ann.wait(lambda: not ann.find(".timeline-banner").is_displayed(), what="Ann back to live")
    ann.wait(lambda: ann.find(".timeline-note").text.startswith("Restored the moment of "), what="a note says what was restored")
    ann.wait(lambda: slider_value(ann) == 5 and slider.get_attribute("max") == "5", what="the slider at the new live revision")
    ann.wait_now("gain", "value", 0.2)


@pytest.mark.tandem_data("file")
def test_back_to_live_and_escape_end_the_preview(browser, server):
    server.put("gain", 0.3)
    server.put("gain", 0.6)
    ann = browser("Ann")
    slider = ann.find("#timeline-slider")
    ann.wait(lambda: slider.get_attribute("max") == "2", what="two revisions")
    ann.focus(slider)
    ann.keys(Keys.ARROW_LEFT)
    ann.wait_now("gain", "value", 0.3)
    ann.find(".timeline-banner button").click()  # Back to live
    ann.wait_now("gain", "value", 0.6)
    assert not ann.find(".timeline-banner").is_displayed()
    assert ann.thumb("gain", "value").get_attribute("aria-readonly") is None
    # Live again: the controls work.
    ann.focus(ann.thumb("gain", "value"))
    ann.keys(Keys.ARROW_UP)
    server.wait_state("gain", lambda s: s["value"] == pytest.approx(0.61), what="gain 0.61")
    # Escape ends a preview too.
    ann.focus(slider)
    ann.keys(Keys.HOME)
    ann.wait(lambda: ann.find(".timeline-banner-text").text == "viewing the start — not live", what="the start")
    ann.wait_now("gain", "value", 0.5)
    ann.keys(Keys.ESCAPE)
    ann.wait_now("gain", "value", 0.61)


def test_no_timeline_without_history(browser):
    ann = browser("Ann")
    ann.wait(lambda: ann.driver.execute_script("return window.tandem.timeline.available === false;"),
             what="the server answered 501")
    assert not ann.find("section.timeline").is_displayed()
