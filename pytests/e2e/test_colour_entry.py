"""Typing into the colour fields: a level out of range clamps, text that is not a
number changes nothing (and the field says so until fixed or Escape), a hex sets all."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.keys import Keys


def type_into(page, field, text):
    page.focus(field)
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys(text + Keys.ENTER)


def test_typing_levels_and_a_hex_into_the_colour_fields_commits_clamped_values_and_ignores_text_that_is_not_a_number(
        browser, server):
    page = browser("Lea")
    red = page.in_section("color", 'input[data-channel="red"]')
    green = page.in_section("color", 'input[data-channel="green"]')
    blue = page.in_section("color", 'input[data-channel="blue"]')
    hex_field = page.in_section("color", "input.hex")
    assert [f.get_attribute("value") for f in (red, green, blue)] == ["0.200", "0.400", "0.600"]
    assert hex_field.get_attribute("value").upper() == "#336699"
    assert page.thumb("color", "red").get_attribute("aria-label") == "Colour red"

    # 1.5 clamps to 1.
    type_into(page, red, "1.5")
    server.wait_state("color", lambda s: s["red"] == 1, what="red == 1")
    page.wait(lambda: red.get_attribute("value") == "1.000",
              what=lambda: f'red field "1.000" (now {red.get_attribute("value")!r})')
    page.wait_now("color", "red", 1)
    page.wait(lambda: hex_field.get_attribute("value").upper() == "#FF6699",
              what=lambda: f'hex field "#FF6699" (now {hex_field.get_attribute("value")!r})')
    state = server.state("color")
    assert (state["red"], state["hex"]) == (1, "#FF6699")
    assert (state["green"], state["blue"]) == pytest.approx((0.4, 0.6))

    # Not a number: nothing is sent; the text stays to be fixed, marked
    # aria-invalid with the reason under it; Escape shows the level again.
    rev = server.rev()
    type_into(page, green, "abc")
    page.wait(lambda: green.get_attribute("aria-invalid") == "true", what="the green field marked invalid")
    error = page.find("#" + green.get_attribute("aria-describedby"))
    assert "not a number" in error.text
    # Barrier: the server has applied whatever the page sent for the Enter.
    page.barrier()
    assert server.rev() == rev, "text that is not a number changed the room"
    assert server.state("color")["green"] == pytest.approx(0.4)
    green.send_keys(Keys.ESCAPE)
    page.wait(lambda: green.get_attribute("value") == "0.400",
              what=lambda: f'green field restored to "0.400" (now {green.get_attribute("value")!r})')
    assert green.get_attribute("aria-invalid") is None and not error.is_displayed()
    page.wait_now("color", "green", 0.4)

    # A hex sets the whole colour (case-insensitive).
    type_into(page, hex_field, "#00ff00")
    server.wait_state("color", lambda s: s["hex"] == "#00FF00", what="hex #00FF00")
    assert server.state("color") == {"red": 0, "green": 1, "blue": 0, "hex": "#00FF00"}
    page.wait(lambda: [f.get_attribute("value") for f in (red, green, blue)] == ["0.000", "1.000", "0.000"],
              what="the channel fields show 0.000 1.000 0.000")
    page.wait_now("color", "green", 1)
    page.wait(lambda: hex_field.get_attribute("value").upper() == "#00FF00", what="hex field #00FF00")
