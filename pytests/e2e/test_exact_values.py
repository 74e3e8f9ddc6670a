"""Exact values and coarse/fine keys, in Chromium against the real server: a value
typed into a card's value field commits through a `set` (440 on the synth room's
log Cutoff commits exactly 440, read back through GET /api/rooms/synth), the field
says why when the server's math changes what was typed ("clamped to 20,000 Hz"),
text that is not a number sends nothing and says so; a snap takes its labels, a
range each thumb, a pad each axis; Enter on a thumb goes to its field and Escape
back; Shift+arrow steps ten, Alt+arrow a fine step (a thousandth of the track on a
log slider, one step where the kind has nothing finer)."""

from __future__ import annotations

import json
import math
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys


ROOT = Path(__file__).resolve().parents[2]
SYNTH = json.loads((ROOT / "examples" / "synth.json").read_text())
ROOM = SYNTH["id"]


@pytest.fixture
def synth(server):
    status, body = server.request("POST", "/api/rooms", SYNTH)
    assert status == 201, (status, body)
    return server


def round_digits(value: float, digits: int) -> float:
    """`value` to `digits` significant digits, half away from zero (the log slider's rounding)."""
    return float(Decimal(repr(value)).quantize(
        Decimal(1).scaleb(math.floor(math.log10(abs(value))) - digits + 1), rounding=ROUND_HALF_UP))


def log_at(value: float, df: float, lo: float = 20, hi: float = 20000) -> float:
    """The cutoff `df` of the track away from `value` (a step is 1/100, a fine step 1/1000)."""
    f = math.log(value / lo) / math.log(hi / lo) + df
    return min(hi, max(lo, round_digits(lo * (hi / lo) ** min(1, max(0, f)), 3)))


def synth_state(server, control: str) -> dict:
    return server.state(control, room=ROOM)


def wait_synth(server, control: str, predicate, what: str) -> dict:
    """Polls GET /api/rooms/synth until `control`'s committed state satisfies `predicate`."""
    return server.wait_state(control, predicate, what=what, room=ROOM)


def field(page, control: str, which: str):
    return page.find(f'{page.section_css(control)} input.value-field[data-field="{which}"]')


def note(page, element):
    """The note tied to a field (its aria-describedby)."""
    return page.find("#" + element.get_attribute("aria-describedby"))


def type_into(page, element, text: str, then: str = Keys.ENTER) -> None:
    page.focus(element)
    element.send_keys(Keys.CONTROL, "a")
    element.send_keys(text + then)


def value_of(element) -> str:
    return element.get_attribute("value")


def wait_value(page, element, text: str) -> None:
    page.wait(lambda: value_of(element) == text, what=lambda: f"field {text!r} (now {value_of(element)!r})")


def focused(page, element) -> bool:
    return page.driver.execute_script("return document.activeElement === arguments[0];", element)


def chord(page, modifier: str, key: str) -> None:
    """modifier+key on whatever has the focus."""
    ActionChains(page.driver).key_down(modifier).send_keys(key).key_up(modifier).perform()


def test_typing_440_on_the_log_cutoff_commits_exactly_440_and_a_clamped_value_says_why(synth, browser):
    page = browser("Ann", room=ROOM)
    page.wait(lambda: page.exists(page.section_css("cutoff")), what="the synth cards")
    cutoff = field(page, "cutoff", "value")
    assert value_of(cutoff) == "1,000 Hz"
    assert cutoff.get_attribute("aria-label") == "Cutoff value"
    why = note(page, cutoff)

    type_into(page, cutoff, "440")
    state = wait_synth(synth, "cutoff", lambda s: s["value"] == 440, "440")
    assert state == {"value": 440}, state
    # The API's JSON says 440 exactly: not 439.99…, not 440.0000001.
    status, body = synth.request("GET", f"/api/rooms/{ROOM}")
    assert status == 200
    assert next(c for c in body["controls"] if c["id"] == "cutoff")["state"]["value"] == 440
    page.wait_now("cutoff", "value", 440)
    wait_value(page, cutoff, "440 Hz")
    assert focused(page, cutoff), "after Enter the field keeps the focus"
    assert not why.is_displayed(), "440 is what was typed: nothing to explain"

    # Past the top: the field shows what the server commits, and why.
    type_into(page, cutoff, "25000")
    wait_synth(synth, "cutoff", lambda s: s["value"] == 20000, "20000")
    wait_value(page, cutoff, "20,000 Hz")
    page.wait(lambda: why.is_displayed() and "clamped to 20,000 Hz" in why.text,
              what=lambda: f"the reason beside the field (now {why.text!r})")
    assert why.text == "clamped to 20,000 Hz (the maximum)"
    assert cutoff.get_attribute("aria-invalid") is None
    page.wait_now("cutoff", "value", 20000)

    # More digits than the slider keeps: rounded, and said so.
    type_into(page, cutoff, "443.21")
    wait_synth(synth, "cutoff", lambda s: s["value"] == 443, "443")
    page.wait(lambda: why.text == "rounded to 443 Hz (3 significant digits)",
              what=lambda: f"the rounding reason (now {why.text!r})")

    # A multiplier and the unit, in any case.
    type_into(page, cutoff, "1.5k")
    wait_synth(synth, "cutoff", lambda s: s["value"] == 1500, "1500")
    wait_value(page, cutoff, "1,500 Hz")
    page.wait(lambda: not why.is_displayed(), what="no reason for 1.5k = 1,500 Hz")
    type_into(page, cutoff, "440 hz")
    wait_synth(synth, "cutoff", lambda s: s["value"] == 440, "440 again")

    # Not a number: the field says so, nothing is sent; Escape puts the value back.
    rev = synth.rev(ROOM)
    type_into(page, cutoff, "loud")
    page.wait(lambda: cutoff.get_attribute("aria-invalid") == "true", what="the field marked invalid")
    assert why.text == "'loud' is not a number: type a value from 20 to 20,000 Hz"
    page.barrier()  # the server has applied whatever the page sent for that Enter
    assert synth.rev(ROOM) == rev, "text that is not a number changed the room"
    assert value_of(cutoff) == "loud", "the text stays to be fixed"
    cutoff.send_keys(Keys.ESCAPE)
    wait_value(page, cutoff, "440 Hz")
    assert cutoff.get_attribute("aria-invalid") is None and not why.is_displayed()
    # A second Escape, with nothing typed, goes back to the thumb; Enter there comes back to the field.
    cutoff.send_keys(Keys.ESCAPE)
    thumb = page.thumb("cutoff", "value")
    page.wait(lambda: focused(page, thumb), what="the focus back on the cutoff thumb")
    page.keys(Keys.ENTER)
    page.wait(lambda: focused(page, cutoff), what="Enter on the thumb focuses its value field")
    assert page.driver.execute_script(
        "const f = arguments[0]; return f.selectionStart === 0 && f.selectionEnd === f.value.length;", cutoff), \
        "the field's text is selected, ready to be typed over"
    page.screenshot("exact-cutoff-1280.png", page.section("cutoff"))

    # Someone else changes the value while the field has the focus (nothing typed yet): the field
    # follows, still selected, so what is typed next replaces it.
    synth.put("cutoff", 632, room=ROOM)
    wait_value(page, cutoff, "632 Hz")
    assert focused(page, cutoff)
    cutoff.send_keys("300" + Keys.ENTER)
    wait_synth(synth, "cutoff", lambda s: s["value"] == 300, "300 typed over the new value")
    wait_value(page, cutoff, "300 Hz")


def test_every_kind_takes_typed_values_in_its_own_terms(synth, browser):
    page = browser("Bo", room=ROOM)
    page.wait(lambda: page.exists(page.section_css("space")), what="the synth cards")

    # A snap: a label, or the start of one.
    waveform = field(page, "waveform", "index")
    assert value_of(waveform) == "saw"
    type_into(page, waveform, "square")
    wait_synth(synth, "waveform", lambda s: s["index"] == 1, "square")
    wait_value(page, waveform, "square")
    type_into(page, waveform, "tri")
    wait_synth(synth, "waveform", lambda s: s["index"] == 3, "triangle")
    wait_value(page, waveform, "triangle")
    page.wait_now("waveform", "index", 3)
    type_into(page, waveform, "s")
    page.wait(lambda: waveform.get_attribute("aria-invalid") == "true", what="an ambiguous label refused")
    assert note(page, waveform).text == "'s' could be sine, square or saw: type more of it"
    waveform.send_keys(Keys.ESCAPE)
    wait_value(page, waveform, "triangle")

    # A stepped slider snaps, and says so.
    resonance = field(page, "resonance", "value")
    type_into(page, resonance, "33.4")
    wait_synth(synth, "resonance", lambda s: s["value"] == 33, "33")
    wait_value(page, resonance, "33 %")
    page.wait(lambda: note(page, resonance).text == "snapped to 33 % (steps of 1 %)",
              what=lambda: f"the snap reason (now {note(page, resonance).text!r})")

    # An xy pad: each axis on its own field; the other axis stays.
    depth = field(page, "space", "y")
    pan = field(page, "space", "x")
    assert (value_of(pan), value_of(depth)) == ("0.00", "30 %")
    type_into(page, depth, "55.5")
    wait_synth(synth, "space", lambda s: abs(s["y"] - 56) < 1e-9 and s["x"] == 0, "y 56")
    wait_value(page, depth, "56 %")
    page.wait(lambda: note(page, depth).text == "snapped to 56 % (steps of 1 %)", what="the pad's y reason")
    type_into(page, pan, "-2")
    wait_synth(synth, "space", lambda s: s["x"] == -1 and abs(s["y"] - 56) < 1e-9, "x -1")
    page.wait(lambda: note(page, pan).text == "clamped to -1.00 (the minimum)", what="the pad's x reason")
    x_slider = page.find(f'{page.section_css("space")} [role="slider"][data-axis="x"]')
    page.wait(lambda: x_slider.get_attribute("aria-valuetext") == "-1.00", what="the pad's x slider at -1.00")

    # A gauge shows its value and takes no typing; a toggle and a button have no field.
    assert page.text("level", ".control-value") == "-12 dB"
    for control in ("level", "filter", "trigger"):
        assert not page.exists(f"{page.section_css(control)} input.value-field"), control
    page.screenshot("exact-values-pad.png", page.section("space"))


def test_each_thumb_of_a_range_takes_its_own_value_within_reach_and_gap(browser, server):
    page = browser("Cy")
    upper = field(page, "blanks", "upper")
    lower = field(page, "blanks", "lower")
    assert (value_of(lower), value_of(upper)) == ("0", "1")
    assert upper.get_attribute("aria-label") == "Blank cells upper value"
    type_into(page, upper, "9")
    server.wait_state("blanks", lambda s: s == {"lower": 0, "upper": 3}, what="upper 3")
    page.wait(lambda: note(page, upper).text == "clamped to 3 (the highest it can reach)",
              what=lambda: f"the reach reason (now {note(page, upper).text!r})")
    type_into(page, lower, "2.6")
    server.wait_state("blanks", lambda s: s == {"lower": 2, "upper": 3}, what="lower 2")
    page.wait(lambda: note(page, lower).text == "clamped to 2 (1 below the upper thumb)",
              what=lambda: f"the gap reason (now {note(page, lower).text!r})")
    assert page.text("blanks", ".range-label") == "2 – 3"
    page.wait_now("blanks", "lower", 2)

    # The colour's level fields give reasons the same way.
    red = page.in_section("color", 'input[data-channel="red"]')
    type_into(page, red, "0.5")
    server.wait_state("color", lambda s: s["hex"] == "#806699", what="red 128/255")
    page.wait(lambda: note(page, red).text == "snapped to 0.502 (steps of 1/255)",
              what=lambda: f"the colour's step reason (now {note(page, red).text!r})")
    page.screenshot("exact-range-colour.png")


def test_shift_arrows_step_ten_and_alt_arrows_step_fine(synth, browser):
    page = browser("Di", room=ROOM)
    page.wait(lambda: page.exists(page.section_css("resonance")), what="the synth cards")
    url = page.driver.current_url

    # Resonance (0–100, step 1): Shift is ten steps; it has nothing finer than a step, so Alt is one.
    page.focus(page.thumb("resonance", "value"))
    chord(page, Keys.SHIFT, Keys.ARROW_RIGHT)
    wait_synth(synth, "resonance", lambda s: s["value"] == 30, "30 after Shift+→")
    page.wait_now("resonance", "value", 30)
    chord(page, Keys.ALT, Keys.ARROW_RIGHT)
    wait_synth(synth, "resonance", lambda s: s["value"] == 31, "31 after Alt+→")
    chord(page, Keys.SHIFT, Keys.ARROW_DOWN)
    wait_synth(synth, "resonance", lambda s: s["value"] == 21, "21 after Shift+↓")
    page.keys(Keys.ARROW_UP)
    wait_synth(synth, "resonance", lambda s: s["value"] == 22, "22 after ↑")

    # The log cutoff: Shift moves a tenth of the track, Alt a thousandth (a set: not a whole step).
    page.focus(page.thumb("cutoff", "value"))
    coarse = log_at(1000, 10 / 100)
    chord(page, Keys.SHIFT, Keys.ARROW_RIGHT)
    wait_synth(synth, "cutoff", lambda s: s["value"] == coarse, f"{coarse} after Shift+→")
    fine = log_at(coarse, 1 / 1000)
    assert coarse < fine < log_at(coarse, 1 / 100)
    chord(page, Keys.ALT, Keys.ARROW_RIGHT)
    wait_synth(synth, "cutoff", lambda s: s["value"] == fine, f"{fine} after Alt+→")
    page.wait_now("cutoff", "value", fine)
    back = log_at(fine, -1 / 1000)
    chord(page, Keys.ALT, Keys.ARROW_LEFT)
    wait_synth(synth, "cutoff", lambda s: s["value"] == back, f"{back} after Alt+←")
    # Alt+← is the browser's Back elsewhere: on a thumb it is the fine step, and the page stays.
    assert page.driver.current_url == url
    assert page.connection_state() == "open"

    # In a value field with nothing typed, ↑/↓ step (with Shift ten) and ←/→ stay the caret's.
    resonance = field(page, "resonance", "value")
    page.focus(resonance)
    resonance.send_keys(Keys.ARROW_UP)
    wait_synth(synth, "resonance", lambda s: s["value"] == 23, "23 after ↑ in the field")
    wait_value(page, resonance, "23 %")
    chord(page, Keys.SHIFT, Keys.ARROW_UP)
    wait_synth(synth, "resonance", lambda s: s["value"] == 33, "33 after Shift+↑ in the field")
    rev = synth.rev(ROOM)
    resonance.send_keys(Keys.ARROW_LEFT)
    page.barrier()
    assert synth.rev(ROOM) == rev, "← in a field moved the value"
    assert focused(page, resonance)
