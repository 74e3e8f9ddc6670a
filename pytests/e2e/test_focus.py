"""Where each person is: a focused control is named on the others' cards ("Ann is here")."""

from __future__ import annotations


def here(page, control: str) -> str:
    chips = page.section(control).find_elements("css selector", ".control-here:not([hidden])")
    return chips[0].get_attribute("textContent") if chips else ""


def test_a_focused_control_says_who_is_there_on_the_others_cards(browser):
    ann = browser("Ann")
    ben = browser("Ben")
    ann.focus(ann.thumb("gain", "value"))
    ben.wait(lambda: here(ben, "gain") == "Ann is here", what=lambda: f'"Ann is here" on Ben\'s gain card (now {here(ben, "gain")!r})')
    ben.screenshot("focus-here.png", ben.section("gain"))
    assert here(ann, "gain") == "", "my own focus is not named on my card"
    assert here(ben, "size") == ""
    # Moving on moves the name; leaving the controls clears it.
    ann.focus(ann.thumb("size", "index"))
    ben.wait(lambda: here(ben, "size") == "Ann is here" and here(ben, "gain") == "", what="Ann's name moved to size")
    ann.driver.execute_script("document.activeElement.blur()")
    ben.wait(lambda: here(ben, "size") == "", what="Ann's name gone once she left the controls")
