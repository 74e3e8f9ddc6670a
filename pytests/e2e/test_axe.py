"""axe-core 4 finds no violation on any page of the web client: the lobby (with
its New room form), the name prompt, the demo room with two people and a
ghost, the synth room (examples/synth.json), a viewer's page (a viewer
token on a server with auth on), the demo room's menus, dialogs and past, and
the synth room's gauge chart — each in light and dark mode
(prefers-color-scheme through DevTools), at desktop and phone width. The rules
are axe's WCAG 2.0, 2.1 and 2.2 A and AA rules and its best practices
(`axe.TAGS`), every impact. A failure lists each violation: the rule, its
impact, the elements and what is wrong with each (`axe.report`).

The compact layout of the synth room is checked too. What axe does not measure (focus rings' contrast, focus after "Back to live",
target sizes on a touch screen, the sticky header over the focus) is checked
in test_a11y.py. Screenshots: test-output/e2e/axe-PAGE-SCHEME-WIDTH.png.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from selenium.webdriver.common.keys import Keys

from . import axe
from .tokens import mint_token, secret_path, write_secret

ROOT = Path(__file__).resolve().parents[2]
SYNTH = json.loads((ROOT / "examples" / "synth.json").read_text())
SCHEMES = ["light", "dark"]
SIZES = [(1280, 900, False, "desktop"), (390, 844, True, "phone")]

SECRET = b"e2e-only secret: the axe check of a viewer's page 0123456789"
SECRET_FILE = secret_path("axe")


@pytest.fixture(scope="module", autouse=True)
def _secret_file():
    write_secret(SECRET_FILE, SECRET)
    yield
    SECRET_FILE.unlink(missing_ok=True)


def check(page, scheme: str, what: str, ready=None, sizes=SIZES, scroll_top=True) -> None:
    """axe on the page in `scheme`, at each of `sizes`: no violation at all."""
    axe.color_scheme(page, scheme)
    problems = []
    for width, height, mobile, size in sizes:
        page.set_viewport(width, height, mobile)
        if ready:
            ready()
        if scroll_top:
            page.driver.execute_script("window.scrollTo(0, 0);")
        page.frames()
        page.screenshot(f"axe-{what}-{scheme}-{size}.png")
        found = axe.violations(page)
        if found:
            problems.append(f"{what}, {scheme}, {size} ({width}×{height}):\n{axe.report(found)}")
    assert not problems, f"axe {axe.axe_version(page)} found violations:\n" + "\n".join(problems)


def test_axe_is_version_4(browser, server):
    page = browser("Ann")
    assert axe.axe_version(page).startswith("4."), axe.axe_version(page)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_lobby(browser, server, scheme):
    """The lobby with its New room form: as it opens (one slider and its preview), with every
    kind of control in the form (the synth room pasted as JSON, then back to the form), with
    errors beside the fields, and in its JSON view."""
    page = browser("Lobby", wait_open=False)
    page.driver.get(f"{server.http}/")
    page.wait(lambda: page.exists('#rooms li[data-room="demo"]'), what="the demo room listed")
    page.wait(lambda: page.find("#new-room").is_displayed(), what="the New room form")
    page.wait(lambda: page.exists('.ce-preview-box [role="slider"]'), what="the starter's preview")
    check(page, scheme, "lobby")

    page.scroll_to(page.find('.mode-button[data-mode="json"]')).click()
    area = page.find("#room-controls-input")
    page.wait(lambda: area.is_displayed(), what="the JSON box")
    check(page, scheme, "lobby-json", sizes=SIZES[:1], scroll_top=False)
    area.send_keys(Keys.CONTROL, "a")
    area.send_keys(json.dumps(SYNTH["controls"] + [
        {"id": "blanks", "type": "range", "label": "Blank cells", "scale": [0, 9], "operable": [0, 3]},
        {"id": "tint", "type": "color", "label": "Tint"}]))
    page.find('.mode-button[data-mode="form"]').click()
    page.wait(lambda: len(page.all(".control-editor")) == len(SYNTH["controls"]) + 2, what="every kind in the form")
    check(page, scheme, "lobby-every-kind")

    page.find("#room-id-input").send_keys("no spaces")
    page.find('.control-editor-item:first-child [data-key="id"]').send_keys(" x")
    page.scroll_to(page.find('#new-room-form button[type="submit"]')).click()
    page.wait(lambda: page.find("#new-room-error").text != "", what="the form's errors")
    check(page, scheme, "lobby-errors", sizes=SIZES[:1], scroll_top=False)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_name_prompt(browser, server, scheme):
    page = browser("Prompt", wait_open=False, query={"name": ""})
    page.wait(lambda: page.find("dialog.name-dialog").get_attribute("open") is not None, what="the name dialog")
    check(page, scheme, "name-prompt")


def wait_history(page) -> None:
    """The timeline is shown (the server keeps history) and the cards' last-changed lines are loaded."""
    page.wait(lambda: page.find("section.timeline").is_displayed(), what="the timeline")
    page.wait(lambda: page.exists('.control-changed:not([data-empty="true"])'), what="a last-changed line")


@pytest.mark.tandem_data("file")
@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_demo_room_with_two_people_and_a_ghost(browser, server, ws_client, scheme):
    server.put("gain", 0.25)  # a revision: the timeline and the last-changed lines have something to show
    bob = ws_client("Bob")
    bob.hold("gain", "value", dx=0.2)
    page = browser("Ann")
    page.wait(lambda: page.ghosts("gain", "value"), what="Bob's ghost on Gain")
    wait_history(page)
    check(page, scheme, "demo", ready=lambda: page.wait(lambda: page.ghosts("gain", "value"), what="the ghost"))


@pytest.mark.tandem_data("file")
@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_synth_room(browser, server, scheme):
    status, body = server.request("POST", "/api/rooms", SYNTH)
    assert status == 201, (status, body)
    server.put("cutoff", 440, room="synth")
    page = browser("Ann", room="synth")
    wait_history(page)
    check(page, scheme, "synth")


@pytest.mark.tandem_data("file")
@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_synth_room_in_the_compact_layout(browser, server, scheme):
    status, body = server.request("POST", "/api/rooms", SYNTH)
    assert status == 201, (status, body)
    server.put("cutoff", 440, room="synth")
    page = browser("Ann", room="synth")
    wait_history(page)
    page.find("#layout-toggle").click()
    page.wait(lambda: "layout-compact" in (page.find("body").get_attribute("class") or ""), what="the compact layout")
    check(page, scheme, "synth-compact")


@pytest.mark.tandem_data("file")
@pytest.mark.tandem_flags("--auth-secret-file", str(SECRET_FILE))
@pytest.mark.parametrize("scheme", SCHEMES)
def test_a_viewers_page(browser, server, scheme):
    server.token = mint_token(SECRET, "admin", room="*", sub="e2e-admin")
    server.put("gain", 0.25)
    page = browser("Vic", query={"token": mint_token(SECRET, "viewer", sub="u-vic", name="Vic")})
    page.wait(lambda: "read-only" in (page.find("body").get_attribute("class") or ""), what="the read-only page")
    wait_history(page)
    check(page, scheme, "viewer")


@pytest.mark.tandem_data("file")
@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_demo_rooms_menus_dialogs_and_past(browser, server, scheme):
    """What opens over the demo room: a card's menu, the room's menu asking before Reset all,
    the Share dialog, the name dialog of the rename pencil, and the timeline showing the past."""
    server.put("gain", 0.25)
    server.put("gain", 0.75)
    page = browser("Ann")
    wait_history(page)
    desktop = SIZES[:1]

    menu = page.in_section("gain", ".menu-button")
    page.scroll_to(menu).click()
    page.wait(lambda: menu.get_attribute("aria-expanded") == "true", what="the card's menu")
    check(page, scheme, "demo-card-menu", sizes=desktop, scroll_top=False)
    page.keys("\ue00c")  # Escape

    page.driver.execute_script("window.scrollTo(0, 0);")
    page.find(".room-menu-button").click()
    page.find('[data-item="reset-all"]').click()
    page.wait(lambda: page.find(".menu-confirm").is_displayed(), what="the Reset all question")
    check(page, scheme, "demo-room-menu", sizes=desktop)
    page.keys("\ue00c")

    page.find("#share").click()
    page.wait(lambda: page.find("dialog.share-dialog").get_attribute("open") is not None, what="the Share dialog")
    check(page, scheme, "demo-share", sizes=desktop)
    page.keys("\ue00c")
    page.wait(lambda: page.find("dialog.share-dialog").get_attribute("open") is None, what="the Share dialog closed")

    page.find(".peer-rename").click()
    page.wait(lambda: page.exists("dialog.name-dialog[open]"), what="the rename dialog")
    check(page, scheme, "demo-rename", sizes=desktop)
    page.find('dialog.name-dialog [data-choice="guest"]').click()  # Cancel
    page.wait(lambda: not page.exists("dialog.name-dialog"), what="the rename dialog closed")

    slider = page.find("#timeline-slider")
    page.focus(slider)
    page.keys("\ue012")  # ←: one revision back
    page.wait(lambda: page.find(".timeline-banner").is_displayed(), what="the banner of the past")
    page.wait(lambda: "revision" in page.find(".timeline-detail").text, what="the moment loaded")
    check(page, scheme, "demo-past", sizes=SIZES, scroll_top=False)


@pytest.mark.tandem_data("file")
@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_expanded_chart(browser, server, scheme):
    """The synth room's gauge chart, opened from the Output level card: a curve, and the marks of
    another control's commits listed under it."""
    status, body = server.request("POST", "/api/rooms", SYNTH)
    assert status == 201, (status, body)
    for level, cutoff in ((-20, 440), (-6, 880), (-15, 1000)):
        server.put("level", level, room="synth")
        server.put("cutoff", cutoff, room="synth")
    page = browser("Ann", room="synth")
    opener = page.all('section.control[data-control="level"] button.chart-open')
    if not opener:
        pytest.skip("no expanded chart on this page (the gauge chart is not in this branch)")
    page.scroll_to(opener[0]).click()
    page.wait(lambda: page.find(".chart-panel").is_displayed(), what="the chart")
    page.wait(lambda: page.exists(".chart-change"), what="the other control's changes listed")
    check(page, scheme, "chart", scroll_top=False)


@pytest.mark.tandem_data("file")
@pytest.mark.parametrize("scheme", SCHEMES)
def test_a_page_with_toasts(browser, server, ws_client, scheme):
    page = browser("Bob")
    ann = ws_client("Ann")
    for message in ({"type": "set", "control": "gain", "value": 0.8},
                    {"type": "preset", "action": "save", "name": "Warm"},
                    {"type": "reset"}):
        ann.send(message)
    # One toast, then the next: two notes in one frame would be one (the later).
    page.wait(lambda: len(page.all(".toast")) == 1, what="the reset's toast")
    ann.send({"type": "preset", "action": "recall", "name": "Warm"})

    def toasts_held():
        page.wait(lambda: len(page.all(".toast")) == 2, what="the reset's and the recall's toasts")
        # A toast under the pointer stays: hold both while axe looks at them.
        page.driver.execute_script("for (const t of document.querySelectorAll('.toast')) t.dispatchEvent(new PointerEvent('pointerenter'));")

    check(page, scheme, "toasts", ready=toasts_held, scroll_top=False)
    assert len(page.all(".toast")) == 2, "the toasts were there throughout"
