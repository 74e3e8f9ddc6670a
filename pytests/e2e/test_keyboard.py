"""Keys on a focused thumb: arrows ±1 step, PageUp/PageDown ±10, Home/End to the
ends; every key commits, and the server agrees."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.keys import Keys


def test_keys_on_circle_size_and_gain_step_the_value_and_the_server_commits_each_step(browser, server):
    page = browser("Kim")

    def size_is(value):
        page.wait_now("size", "index", value)
        page.wait(lambda: page.text("size", ".snap-value") == f"{value} pt",
                  what=lambda: f'.snap-value "{value} pt" (now {page.text("size", ".snap-value")!r})')
        server.wait_state("size", lambda s: s["value"] == value, what=f"size value {value}")

    thumb = page.thumb("size", "index")
    assert thumb.get_attribute("aria-label") == "Circle size"
    assert page.now("size", "index") == 60
    assert page.text("size", ".snap-value") == "60 pt"

    page.focus(thumb)
    page.keys(Keys.ARROW_RIGHT)
    size_is(80)
    assert server.state("size") == {"index": 3, "value": 80}

    page.keys(Keys.END)
    size_is(100)
    larger = page.in_section("size", 'button[data-step="1"]')
    smaller = page.in_section("size", 'button[data-step="-1"]')
    page.wait(lambda: not larger.is_enabled(), what="Larger disabled at 100")
    assert smaller.is_enabled()

    page.keys(Keys.HOME)
    size_is(20)
    page.wait(lambda: not smaller.is_enabled(), what="Smaller disabled at 20")
    assert larger.is_enabled()
    assert server.state("size") == {"index": 0, "value": 20}

    gain = page.thumb("gain", "value")
    assert gain.get_attribute("aria-label") == "Gain"
    page.focus(gain)
    page.keys(Keys.ARROW_UP)
    page.wait_now("gain", "value", 0.51)
    assert server.wait_state("gain", lambda s: s["value"] == pytest.approx(0.51))["value"] == pytest.approx(0.51)

    page.keys(Keys.PAGE_DOWN)
    page.wait_now("gain", "value", 0.41)
    assert server.wait_state("gain", lambda s: s["value"] == pytest.approx(0.41))["value"] == pytest.approx(0.41)
    page.wait(lambda: "0.41" in page.text("gain", ".slider-value"),
              what=lambda: f'.slider-value shows 0.41 (now {page.text("gain", ".slider-value")!r})')
    # The page and the server agree on every control touched.
    assert page.now("size", "index") == server.state("size")["value"]
    assert page.now("gain", "value") == pytest.approx(server.state("gain")["value"])
