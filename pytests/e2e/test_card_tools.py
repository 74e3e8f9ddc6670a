"""The cards' menus and the room's menu, in Chromium against a server with tokens on
(so that a viewer can be shown too): each card's menu button is named "More for
LABEL", opens on its first action and closes with Escape back on the button; Copy
value puts the shown value with its unit on the clipboard, the room's Copy values
as JSON the committed states by control id; Reset all asks first; a viewer's menus
have no reset and a double-click on a label sends nothing. (Reset itself is
answered by the server's reset, which this suite tests once the server has it.)"""

from __future__ import annotations

import json

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from .tokens import auth_on, mint_token

SECRET = b"e2e-only secret: tandem card menus and copying 0123456789"
SECRET_FILE, pytestmark, _secret_file = auth_on(SECRET, "tools")


def mint(role: str, sub: str, name: str) -> str:
    return mint_token(SECRET, role, "demo", 3600, sub, name)


@pytest.fixture
def api(server):
    server.token = mint_token(SECRET, "admin", "*", 3600, "e2e-admin", None)
    return server


def grant_clipboard(page) -> None:
    page.driver.execute_cdp_cmd("Browser.grantPermissions", {
        "origin": page.server.http, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})


def clipboard(page) -> str:
    return page.driver.execute_async_script(
        "const done = arguments[arguments.length - 1]; navigator.clipboard.readText().then(done, (e) => done('ERROR ' + e));")


def menu_button(page, label: str):
    return page.find(f'button.menu-button[aria-label="{label}"]')


def panel_of(page, button):
    return page.find("#" + button.get_attribute("aria-controls"))


def active(page):
    return page.driver.switch_to.active_element


def test_a_cards_menu_copies_its_value_and_the_rooms_menu_copies_every_value_as_json(browser, api):
    page = browser("Ann", query={"token": mint("editor", "u-ann", "Ann")})
    grant_clipboard(page)

    button = menu_button(page, "More for Gain")
    assert button.get_attribute("aria-expanded") == "false"
    page.scroll_to(button).click()
    panel = panel_of(page, button)
    page.wait(lambda: panel.is_displayed(), what="the Gain menu open")
    assert button.get_attribute("aria-expanded") == "true"
    items = [b.text for b in panel.find_elements("css selector", "button.menu-item") if b.is_displayed()]
    assert items == ["Reset to default", "Copy value", "Claim (only I move it)"]
    page.wait(lambda: active(page).text == "Reset to default", what="the first action focused")
    page.keys(Keys.ARROW_DOWN)
    page.wait(lambda: active(page).text == "Copy value", what="↓ moves to the next action")
    page.keys(Keys.ESCAPE)
    page.wait(lambda: not panel.is_displayed(), what="Escape closes the menu")
    page.wait(lambda: active(page) == button, what="the focus back on the menu button")

    # Copy value: the value as shown, with its unit.
    page.scroll_to(menu_button(page, "More for Circle size")).click()
    size_panel = panel_of(page, menu_button(page, "More for Circle size"))
    page.wait(lambda: size_panel.is_displayed(), what="the size menu open")
    size_panel.find_element("css selector", 'button[data-item="copy"]').click()
    page.wait(lambda: clipboard(page) == "60 pt", what=lambda: f"60 pt on the clipboard (now {clipboard(page)!r})")
    status = page.in_section("size", ".control-status")
    page.wait(lambda: "Copied" in status.get_attribute("textContent"), what="the Copied notice")
    assert not size_panel.is_displayed()

    # The room's values as JSON: what the server has committed, by control id.
    api.put("gain", 0.7)
    page.wait_now("gain", "value", 0.7)
    room_button = menu_button(page, "More for this room")
    page.scroll_to(room_button).click()
    room_panel = panel_of(page, room_button)
    page.wait(lambda: room_panel.is_displayed(), what="the room menu open")
    room_panel.find_element("css selector", 'button[data-item="copy-values"]').click()
    expected = {c["id"]: c["state"] for c in api.room()["controls"]}

    def copied():
        try:
            return json.loads(clipboard(page)) == expected
        except ValueError:
            return False

    page.wait(copied, what=lambda: f"the room's values on the clipboard (now {clipboard(page)[:200]!r})")
    page.wait(lambda: "as JSON" in page.find(".history-status").text, what="the header says it copied")

    # Reset all asks first, and Keep takes it back without sending anything.
    rev = api.rev()
    page.scroll_to(room_button).click()
    page.wait(lambda: room_panel.is_displayed(), what="the room menu open again")
    room_panel.find_element("css selector", 'button[data-item="reset-all"]').click()
    question = room_panel.find_element("css selector", ".menu-confirm-text")
    page.wait(lambda: question.is_displayed(), what="the confirmation")
    assert "Reset all 4 controls" in question.text and "gauges and buttons keep theirs" in question.text and "for everyone" in question.text
    page.wait(lambda: active(page).text == "Keep", what="Keep focused (the safe answer)")
    page.keys(Keys.ENTER)
    page.wait(lambda: not question.is_displayed(), what="the question withdrawn")
    page.barrier()
    assert api.rev() == rev, "Keep changed the room"
    page.screenshot("card-tools-room-menu.png")


def test_a_viewers_menus_have_no_reset_and_a_double_click_on_a_label_sends_nothing(browser, api):
    viewer = browser("Vic", query={"token": mint("viewer", "u-vic", "Vic")})
    button = menu_button(viewer, "More for Gain")
    viewer.scroll_to(button).click()
    panel = panel_of(viewer, button)
    viewer.wait(lambda: panel.is_displayed(), what="the Gain menu open")
    shown = [b.text for b in panel.find_elements("css selector", "button.menu-item") if b.is_displayed()]
    assert shown == ["Copy value"]
    viewer.keys(Keys.ESCAPE)
    room_button = menu_button(viewer, "More for this room")
    viewer.scroll_to(room_button).click()
    room_panel = panel_of(viewer, room_button)
    viewer.wait(lambda: room_panel.is_displayed(), what="the room menu open")
    shown = [b.text for b in room_panel.find_elements("css selector", "button.menu-item") if b.is_displayed()]
    assert shown == ["Copy values as JSON"]
    viewer.keys(Keys.ESCAPE)

    rev = api.rev()
    label = viewer.in_section("gain", ".control-label")
    assert "reset" not in (label.get_attribute("title") or "").lower()
    ActionChains(viewer.driver).double_click(viewer.scroll_to(label)).perform()
    viewer.barrier()
    assert api.rev() == rev
    # Its value field can be read and selected, not typed in.
    field = viewer.in_section("gain", "input.value-field")
    assert field.get_attribute("readonly") is not None
