"""The synth tuning room of examples/synth.json end to end, in two Chromium
windows against the real server: a log cutoff (Hz) dragged and stepped, the xy
pad dragged and tapped, keys on the pad and the labelled waveform, the filter
toggle tapped, the momentary button pressed, the ghosts of the other window's
live drags, every commit seen in both windows and by the server, the cards'
"last changed" lines; screenshots at 390×844 and 1280×900 in test-output/e2e/."""

from __future__ import annotations

import contextlib
import json
import math
import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SYNTH = json.loads((ROOT / "examples" / "synth.json").read_text())
ROOM = SYNTH["id"]
GROUPS = ["Oscillator", "Filter", "Output"]


def round_digits(value: float, digits: int) -> float:
    """`value` to `digits` significant digits, half away from zero (the log slider's rounding)."""
    return float(Decimal(repr(value)).quantize(
        Decimal(1).scaleb(math.floor(math.log10(abs(value))) - digits + 1), rounding=ROUND_HALF_UP))


def log_step(value: float, by: int, lo: float = 20, hi: float = 20000) -> float:
    f = math.log(value / lo) / math.log(hi / lo) + by / 100
    return min(hi, max(lo, round_digits(lo * (hi / lo) ** min(1, max(0, f)), 3)))


@pytest.fixture
def synth(server):
    status, body = server.request("POST", "/api/rooms", SYNTH)
    assert status == 201, (status, body)
    return server


def state(server, control: str) -> dict:
    return server.state(control, room=ROOM)


def _wait_room_state(server, control, predicate, what, timeout=30.0):
    """Polls the synth room's committed state of `control` through the API until `predicate` holds."""
    return server.wait_state(control, predicate, timeout, what, room=ROOM)


def mouse(page, kind: str, x: float, y: float, buttons: int) -> None:
    """A trusted mouse event at (x, y) through DevTools (pointer capture survives between commands)."""
    page.driver.execute_cdp_cmd("Input.dispatchMouseEvent", {
        "type": kind, "x": x, "y": y, "button": "left" if (buttons or kind == "mouseReleased") else "none",
        "buttons": buttons, "pointerType": "mouse", "clickCount": 1 if kind != "mouseMoved" else 0})


def rect(page, css: str) -> dict:
    """The element's viewport rectangle, as it is now (no scrolling: see `show_pad`)."""
    return page.driver.execute_script("return arguments[0].getBoundingClientRect().toJSON();", page.find(css))


def show_pad(page) -> None:
    """Scrolls the pad to the middle of the window, once, before its rectangles are read."""
    page.scroll_to(page.find(pad_css()))


def pad_css(part: str = "") -> str:
    return f'section.control[data-control="space"] .xy-pad {part}'.strip()


@contextlib.contextmanager
def holding_the_pad_knob(page, steps: int, step: tuple[float, float], release: tuple[float, float]):
    """Shows the pad, presses its knob's centre (DevTools input: the button stays down) and moves it
    `steps` times by `step` (fractions of the pad's width right and its height up); the body runs with
    the button down, then it is released at `release` (fractions again, from the press)."""
    show_pad(page)
    pad = rect(page, pad_css())
    knob = rect(page, pad_css(".xy-knob"))
    x0, y0 = knob["x"] + knob["width"] / 2, knob["y"] + knob["height"] / 2
    mouse(page, "mouseMoved", x0, y0, 0)
    mouse(page, "mousePressed", x0, y0, 1)
    try:
        for i in range(1, steps + 1):
            mouse(page, "mouseMoved", x0 + pad["width"] * step[0] * i, y0 - pad["height"] * step[1] * i, 1)
        yield
    finally:
        mouse(page, "mouseReleased", x0 + pad["width"] * release[0], y0 - pad["height"] * release[1], 0)


def axis_now(page, axis: str) -> float:
    return float(page.find(f'section.control[data-control="space"] [role="slider"][data-axis="{axis}"]')
                 .get_attribute("aria-valuenow"))


# "Ann, just now", "Ann, 12 s ago", "Ann, 2 min ago": a "last changed" line of a change made within the hour.
AGO_LINE = re.compile(r"[^,]+, (just now|\d+ s ago|\d+ min ago)")


def changed_line(page, control: str) -> str:
    return page.in_section(control, ".control-changed").get_attribute("textContent")


def open_pair(browser):
    ann, ben = browser("Ann", room=ROOM), browser("Ben", room=ROOM)
    for page in (ann, ben):
        page.wait(lambda: page.exists(page.section_css("level")), what="the synth room's cards")
    return ann, ben


def test_the_synth_room_shows_its_groups_kinds_labels_and_units(synth, browser):
    ann = browser("Ann", room=ROOM)
    ann.wait(lambda: ann.exists(ann.section_css("level")), what="the synth cards")
    headings = [h.text for h in ann.all(".control-group > .group-heading")]
    assert [h.upper() for h in headings] == [g.upper() for g in GROUPS]
    groups = {g.get_attribute("data-group"): [s.get_attribute("data-control")
                                                for s in g.find_elements("css selector", "section.control")]
              for g in ann.all(".control-group")}
    assert groups == {"Oscillator": ["waveform", "trigger"], "Filter": ["filter", "cutoff", "resonance"],
                      "Output": ["space", "level"]}
    assert "musical interval" in ann.text("cutoff", ".control-description")
    # the log cutoff: its value with unit and digits, decade ticks
    assert ann.attr("cutoff", "value", "aria-valuetext") == "1,000 Hz"
    assert ann.text("cutoff", ".control-value") == "1,000 Hz"
    labels = [t.get_attribute("textContent") for t in ann.all('section[data-control="cutoff"] .tick-label')]
    assert labels == ["20", "100", "1k", "10k", "20k"]
    # the waveform: labels in place of values
    assert ann.text("waveform", ".control-value") == "saw"
    assert ann.attr("waveform", "index", "aria-valuetext") == "saw"
    assert [t.get_attribute("textContent") for t in ann.all('section[data-control="waveform"] .tick-label')] == \
        ["sine", "square", "saw", "triangle"]
    # the toggle is a switch, the pad two sliders, the gauge a meter with its unit
    switch = ann.in_section("filter", '[role="switch"]')
    assert switch.get_attribute("aria-checked") == "true"
    sliders = ann.all('section[data-control="space"] [role="slider"]')
    assert [s.get_attribute("data-axis") for s in sliders] == ["x", "y"]
    assert [s.get_attribute("aria-valuetext") for s in sliders] == ["0.00", "30 %"]
    assert "pan" in sliders[0].get_attribute("aria-label") and "depth" in sliders[1].get_attribute("aria-label")
    meter = ann.in_section("level", '[role="meter"]')
    assert meter.get_attribute("aria-valuetext") == "-12 dB"
    assert ann.text("trigger", ".press-said") == "not pressed yet"


def test_log_slider_drag_shows_a_ghost_and_commits_three_digits_in_both_windows(synth, browser):
    ann, ben = open_pair(browser)
    ann_id = ann.my_client_id()
    ann.pointer_down("cutoff", "value")
    try:
        ann.pointer_move(ann.track_width("cutoff") * 0.2)
        ann.wait(lambda: ann.now("cutoff", "value") > 1000, what="Ann's own preview")
        ben.wait(lambda: any("Ann" in (g.get_attribute("textContent") or "")
                             for g in ben.ghosts("cutoff", "value", ann_id)), what="Ann's ghost on the cutoff in Ben's window")
        ben.wait(lambda: ben.now("cutoff", "value") > 1000, what="Ann's preview in Ben's window")
        assert state(synth, "cutoff")["value"] == 1000, "a release-mode drag commits nothing before its end"
    finally:
        ann.pointer_up()
    committed = _wait_room_state(synth, "cutoff", lambda s: s["value"] != 1000, "Ann's cutoff")["value"]
    assert 1000 < committed <= 20000
    assert committed == round_digits(committed, 3), f"{committed} is not rounded to 3 significant digits"
    for page in (ann, ben):
        page.wait_now("cutoff", "value", committed)
        page.wait(lambda: not page.ghosts("cutoff", "value"), what="no ghost after the release")
    ben.wait(lambda: changed_line(ben, "cutoff").startswith("Ann, "), what="Ben's card says Ann changed it")
    assert changed_line(ann, "cutoff").startswith("you, ")

    # Ben's keys step the log slider a hundredth of the track: both windows follow
    ben.focus(ben.thumb("cutoff", "value"))
    ben.keys("\ue014")  # ArrowRight
    expected = log_step(committed, 1)
    _wait_room_state(synth, "cutoff", lambda s: abs(s["value"] - expected) < 1e-9, f"one step up: {expected}")
    ann.wait_now("cutoff", "value", expected)
    ann.wait(lambda: changed_line(ann, "cutoff") == "Ben, just now", what="Ann's card says Ben changed it just now")


def test_xy_pad_drag_and_tap_with_ghosts_and_keys(synth, browser):
    ann, ben = open_pair(browser)
    ann_id = ann.my_client_id()
    # Ann drags the knob right and up: pan grows, depth grows
    with holding_the_pad_knob(ann, steps=5, step=(0.05, 0.06), release=(0.25, 0.30)):
        ann.wait(lambda: axis_now(ann, "x") > 0 and axis_now(ann, "y") > 30, what="Ann's own preview of the pad")
        ben.wait(lambda: any("Ann" in (g.get_attribute("textContent") or "")
                             for g in ben.all(pad_css(f'.ghost[data-by="{ann_id}"][data-thumb="xy"]'))),
                 what="Ann's ghost on the pad in Ben's window")
        ben.wait(lambda: axis_now(ben, "x") > 0 and axis_now(ben, "y") > 30, what="Ann's preview in Ben's window")
        assert state(synth, "space") == {"x": 0, "y": 30}, "nothing committed mid-drag"
    committed = _wait_room_state(synth, "space", lambda s: s != {"x": 0, "y": 30}, "Ann's pad drag")
    assert committed["x"] > 0.3 and committed["y"] > 50, committed
    assert committed["y"] == round(committed["y"]), "depth snaps to its step of 1"
    for page in (ann, ben):
        page.wait(lambda: abs(axis_now(page, "x") - committed["x"]) < 1e-9 and axis_now(page, "y") == committed["y"],
                  what=f"{page.name} shows the committed pad {committed}")
        page.wait(lambda: not page.all(pad_css(".ghost")), what="no pad ghost after the release")

    # Ben taps the lower-left part of the pad: the knob jumps there (`at`)
    show_pad(ben)
    pad_b = rect(ben, pad_css())
    inset = rect(ben, pad_css(".xy-knob"))["width"] / 2
    tx = pad_b["x"] + inset + (pad_b["width"] - 2 * inset) * 0.25
    ty = pad_b["y"] + inset + (pad_b["height"] - 2 * inset) * 0.75
    mouse(ben, "mouseMoved", tx, ty, 0)
    mouse(ben, "mousePressed", tx, ty, 1)
    mouse(ben, "mouseReleased", tx, ty, 0)
    tapped = _wait_room_state(synth, "space", lambda s: s != committed, "Ben's tap on the pad")
    assert abs(tapped["x"] - (-0.5)) <= 0.02 and abs(tapped["y"] - 25) <= 1, tapped
    ann.wait(lambda: abs(axis_now(ann, "x") - tapped["x"]) < 1e-9 and axis_now(ann, "y") == tapped["y"],
             what="Ann sees Ben's tap")

    # Keys on either slider of the pad: left/right move x a step, up/down move y
    ben.focus(ben.find(pad_css('[role="slider"][data-axis="y"]')))
    ben.keys("\ue013")  # ArrowUp
    ben.keys("\ue014")  # ArrowRight
    _wait_room_state(synth, "space", lambda s: abs(s["x"] - (tapped["x"] + 0.01)) < 1e-9 and s["y"] == tapped["y"] + 1,
                     "a step up and a step right")
    ann.wait(lambda: axis_now(ann, "y") == tapped["y"] + 1 and abs(axis_now(ann, "x") - (tapped["x"] + 0.01)) < 1e-9,
             what="Ann sees Ben's keys on the pad")
    # End on the x slider sets pan to its end; Page Down on the y slider moves depth 10 steps
    ben.focus(ben.find(pad_css('[role="slider"][data-axis="x"]')))
    ben.keys("\ue010")  # End
    _wait_room_state(synth, "space", lambda s: s["x"] == 1 and s["y"] == tapped["y"] + 1, "pan at its end")
    ben.focus(ben.find(pad_css('[role="slider"][data-axis="y"]')))
    ben.keys("\ue00f")  # PageDown
    _wait_room_state(synth, "space", lambda s: s["x"] == 1 and s["y"] == tapped["y"] - 9, "depth 10 down")
    ann.wait(lambda: axis_now(ann, "x") == 1 and axis_now(ann, "y") == tapped["y"] - 9, what="Ann sees End and Page Down")


def test_toggle_button_and_labelled_snap_commit_in_both_windows(synth, browser):
    ann, ben = open_pair(browser)
    # the filter switch: Ann taps it off, Ben turns it on again with Space
    ann.scroll_to(ann.in_section("filter", '[role="switch"]')).click()
    _wait_room_state(synth, "filter", lambda s: s == {"on": False}, "filter off")
    for page in (ann, ben):
        page.wait(lambda: page.in_section("filter", '[role="switch"]').get_attribute("aria-checked") == "false",
                  what=f"{page.name}: the switch off")
    assert ben.text("filter", ".control-value") == "Off"
    ben.focus(ben.in_section("filter", '[role="switch"]'))
    ben.keys(" ")
    _wait_room_state(synth, "filter", lambda s: s == {"on": True}, "filter on again")
    ann.wait(lambda: ann.in_section("filter", '[role="switch"]').get_attribute("aria-checked") == "true",
             what="Ann: the switch on again")

    # the trigger: each press is a commit; the other window flashes and counts
    ann.driver.execute_script("""
        const card = document.querySelector('section.control[data-control="trigger"]');
        window.__flashes = 0;
        new MutationObserver(() => { if (card.classList.contains('pressed')) window.__flashes += 1; })
          .observe(card, {attributes: true, attributeFilter: ['class']});""")
    rev = synth.rev(ROOM)
    press = ben.scroll_to(ben.in_section("trigger", ".press-button"))
    press.click()
    press.click()
    _wait_room_state(synth, "trigger", lambda s: s == {"presses": 2}, "two presses")
    assert synth.rev(ROOM) == rev + 2, "each press is its own revision"
    ann.wait(lambda: ann.text("trigger", ".press-said") == "pressed 2 times", what="Ann counts Ben's presses")
    assert ann.driver.execute_script("return window.__flashes;") >= 1, "Ann's card did not flash"
    ann.wait(lambda: changed_line(ann, "trigger") == "Ben, just now", what="Ann's trigger card names Ben")

    # the waveform: keys and the Next button move by label
    ann.focus(ann.thumb("waveform", "index"))
    ann.keys("\ue014")  # ArrowRight: saw -> triangle
    _wait_room_state(synth, "waveform", lambda s: s["index"] == 3, "triangle")
    ben.wait(lambda: ben.text("waveform", ".control-value") == "triangle", what="Ben sees triangle")
    prev = ben.scroll_to(ben.in_section("waveform", '.step-button[data-step="-1"]'))
    assert prev.text.strip().endswith("Previous")
    prev.click()
    _wait_room_state(synth, "waveform", lambda s: s["index"] == 2, "saw again")
    ann.wait(lambda: ann.attr("waveform", "index", "aria-valuetext") == "saw", what="Ann sees saw")


@pytest.mark.parametrize("width,height,mobile", [(390, 844, True), (1280, 900, False)], ids=["phone", "desktop"])
def test_the_synth_room_is_saved_at_phone_and_desktop_sizes_with_a_live_ghost(synth, browser, shots,
                                                                                width, height, mobile):
    ann, ben = open_pair(browser)
    ann_id = ann.my_client_id()
    synth.put("level", -6.5, room=ROOM)
    ben.set_viewport(width, height, mobile)
    ann.set_viewport(width, height, mobile)
    ann.driver.execute_script("window.scrollTo(0, 0);")
    # Ann holds a drag on the pad (DevTools input: it stays down) while Ben's window is photographed
    with holding_the_pad_knob(ann, steps=3, step=(0.1, 0.1), release=(0.3, 0.3)):
        ben.wait(lambda: ben.all(pad_css(f'.ghost[data-by="{ann_id}"]')), what="Ann's ghost in Ben's window")
        ben.wait(lambda: ben.in_section("level", '[role="meter"]').get_attribute("aria-valuetext") == "-6.5 dB",
                 what="the level set through the API")
        ben.driver.execute_script("window.scrollTo(0, 0);")
        size = "phone" if mobile else "desktop"
        viewport = ben.screenshot(f"synth-{width}x{height}.png")
        full = ben.full_page_screenshot(f"synth-{size}-full.png")
        pad_shot = ben.screenshot(f"synth-pad-{size}.png", element=ben.section("space"))
        for path in (viewport, full, pad_shot):
            assert path.stat().st_size > 1000, path
        # nothing spills sideways on a phone
        assert ben.driver.execute_script("return document.documentElement.scrollWidth;") <= width
    _wait_room_state(synth, "space", lambda s: s != {"x": 0, "y": 30}, "Ann's pad drag committed")


@pytest.mark.tandem_data("file")
def test_a_page_opened_later_names_who_made_each_last_change_from_the_history(synth, browser):
    synth.put("cutoff", 440, room=ROOM)
    ann = browser("Ann", room=ROOM)
    ann.wait(lambda: ann.exists(ann.section_css("cutoff")), what="the synth cards")
    ann.scroll_to(ann.in_section("filter", '[role="switch"]')).click()
    _wait_room_state(synth, "filter", lambda s: s == {"on": False}, "filter off")
    ben = browser("Ben", room=ROOM)
    # The history's times are the commits', so the words depend on how long the two pages took to open
    # (over 10 s on a loaded machine: "12 s ago"); who made the change is what the history adds.
    ben.wait(lambda: AGO_LINE.fullmatch(changed_line(ben, "filter") or "") and changed_line(ben, "filter").startswith("Ann, "),
             what="Ben's filter card names Ann (from the history)")
    ben.wait(lambda: AGO_LINE.fullmatch(changed_line(ben, "cutoff") or "") and changed_line(ben, "cutoff").startswith("API, "),
             what="Ben's cutoff card names the API write")
    assert changed_line(ben, "resonance") == "", "a control nobody changed names nobody"
    assert not ben.in_section("resonance", ".control-changed").is_displayed()
