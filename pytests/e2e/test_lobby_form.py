"""The lobby's New room form, field by field: a room made of two controls (a
slider and a toggle added with "Add a control", previewed live by the room
page's own views, reordered), created and opened; the server's schema errors
beside the control's field they name (a step, a snap's labels, an xy axis'
maximum); the form's own checks (the room id, two controls with one id)
before anything is sent; the JSON view carrying edits both ways; Remove
leaving the focus on the next control. Screenshots: test-output/e2e/lobby-form-*.png.
"""

from __future__ import annotations

from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select


def open_form(browser, server, width=1280, height=900, mobile=False):
    page = browser("Lobby", wait_open=False)
    page.set_viewport(width, height, mobile)
    page.driver.get(f"{server.http}/")
    page.wait(lambda: page.find("#new-room").is_displayed(), what="the New room form")
    page.wait(lambda: page.exists(".control-editor"), what="the starter control")
    return page


def editors(page):
    return page.all(".control-editor")


def field(page, n: int, key: str):
    """Control n's (1-based) field `key` ("min", "x.max", "type")."""
    return page.find(f'.control-editor-item:nth-child({n}) [data-key="{key}"]')


def fill(page, n: int, key: str, text: str) -> None:
    element = page.scroll_to(field(page, n, key))
    element.send_keys(Keys.CONTROL, "a")
    element.send_keys(Keys.DELETE)
    if text:
        element.send_keys(text)


def kind(page, n: int, value: str) -> None:
    Select(page.scroll_to(field(page, n, "type"))).select_by_value(value)


def preview(page, n: int) -> str:
    return f".control-editor-item:nth-child({n}) .ce-preview-box"


def legend_texts(page) -> list[str]:
    return [e.text for e in page.all(".control-editor > legend")]


def error_beside(page, element) -> str:
    """The error the field's aria-describedby names (and the field says aria-invalid)."""
    ids = (element.get_attribute("aria-describedby") or "").split()
    texts = [page.find(f"#{i}").text for i in ids if i.endswith("-error")]
    return " ".join(t for t in texts if t)


def submit(page) -> None:
    page.scroll_to(page.find('#new-room-form button[type="submit"]')).click()


def test_a_room_of_two_controls_made_in_the_form_opens_with_them(browser, server):
    page = open_form(browser, server)
    assert page.find("#room-id-input").get_attribute("placeholder") not in ("demo", "")
    # The starter slider, made into a volume 0–10 in steps of 1: the preview follows.
    fill(page, 1, "id", "volume")
    fill(page, 1, "label", "Volume")
    fill(page, 1, "max", "10")
    fill(page, 1, "step", "1")
    page.wait(lambda: page.find(f'{preview(page, 1)} [role="slider"]').get_attribute("aria-valuemax") == "10",
              what="the preview's slider up to 10")
    assert page.find(f"{preview(page, 1)} .control-label").text == "Volume"
    # The preview is the room's own slider: its keys move it.
    thumb = page.find(f'{preview(page, 1)} [role="slider"]')
    page.focus(thumb)
    page.keys(Keys.ARROW_RIGHT)
    page.wait(lambda: thumb.get_attribute("aria-valuenow") == "1", what="the preview stepped to 1")
    # Add a control, make it a toggle.
    page.scroll_to(page.find(".ce-add")).click()
    page.wait(lambda: len(editors(page)) == 2, what="a second control")
    assert page.driver.switch_to.active_element == field(page, 2, "type"), "the new control's kind has the focus"
    kind(page, 2, "toggle")
    fill(page, 2, "id", "mute")
    fill(page, 2, "label", "Mute")
    page.wait(lambda: page.exists(f'{preview(page, 2)} [role="switch"]'), what="the toggle's preview")
    assert not page.exists('.control-editor-item:nth-child(2) [data-key="min"]'), "a toggle has no minimum"
    assert legend_texts(page) == ["1. Volume · Slider", "2. Mute · Toggle"]
    # Reorder: Mute up, then back down; the focus stays on the moving control's buttons.
    up = page.find(".control-editor-item:nth-child(2) .ce-up")
    page.focus(up)
    page.keys(Keys.ENTER)
    page.wait(lambda: legend_texts(page) == ["1. Mute · Toggle", "2. Volume · Slider"], what="Mute first")
    assert page.driver.switch_to.active_element == page.find(".control-editor-item:nth-child(1) .ce-down"), \
        "Move up, spent at the top, hands the focus to Move down"
    assert "Moved Mute up" in page.find("#controls-status").get_attribute("textContent")
    page.keys(Keys.ENTER)
    page.wait(lambda: legend_texts(page) == ["1. Volume · Slider", "2. Mute · Toggle"], what="Volume first again")
    page.find("#room-id-input").send_keys("studio-a")
    page.find("#room-title-input").send_keys("Studio A")
    page.find('input[name="layout"][value="compact"]').click()
    page.full_page_screenshot("lobby-form-two-controls.png")
    submit(page)
    page.wait(lambda: "created" in page.find("#new-room-done").text, what="the room created")
    room = server.room("studio-a")
    assert [c["id"] for c in room["controls"]] == ["volume", "mute"]
    assert [c["type"] for c in room["controls"]] == ["slider", "toggle"]
    assert room["controls"][0]["max"] == 10 and room["controls"][0]["label"] == "Volume"
    assert room["title"] == "Studio A" and room.get("layout") == "compact"
    page.find("#new-room-done a").click()
    page.wait(lambda: page.exists("dialog.name-dialog[open]"), what="the name dialog")
    page.find("#name-input").send_keys("Lou" + Keys.ENTER)
    page.wait_open()
    assert page.exists(page.section_css("volume")) and page.exists(page.section_css("mute"))
    assert page.find(f'{page.section_css("mute")} [role="switch"]').is_displayed()
    page.screenshot("lobby-form-room-opened.png")


def test_the_servers_schema_errors_land_beside_the_field_they_name(browser, server):
    page = open_form(browser, server)
    page.find("#room-id-input").send_keys("studio-b")
    fill(page, 1, "step", "3")  # 0–1 in steps of 3: the server refuses it, naming the step
    submit(page)
    step = field(page, 1, "step")
    page.wait(lambda: step.get_attribute("aria-invalid") == "true", what="the step marked")
    assert "whole steps" in error_beside(page, step), error_beside(page, step)
    assert page.driver.switch_to.active_element == step, "the field in error has the focus"
    assert server.request("GET", "/api/rooms/studio-b")[0] == 404
    page.screenshot("lobby-form-server-error.png", page.find(".control-editor"))
    # Typing in it clears its error.
    fill(page, 1, "step", "0.25")
    page.wait(lambda: step.get_attribute("aria-invalid") is None, what="the error cleared")
    # A snap's labels, one short: the server names labels[…], the form its Labels field.
    kind(page, 1, "snap")
    fill(page, 1, "values", "1, 2, 3")
    fill(page, 1, "labels", "low, high, ")
    submit(page)
    labels = field(page, 1, "labels")
    page.wait(lambda: labels.get_attribute("aria-invalid") == "true", what="the labels marked")
    assert error_beside(page, labels), "no words beside the labels"
    # An xy pad's y axis upside down: the server's y.max, the pad's vertical Maximum.
    kind(page, 1, "xy")
    fill(page, 1, "y.min", "5")
    fill(page, 1, "y.max", "1")
    page.wait(lambda: "No preview yet" in page.find(preview(page, 1)).text, what="no preview of a bad axis")
    submit(page)
    y_max = field(page, 1, "y.max")
    page.wait(lambda: y_max.get_attribute("aria-invalid") == "true", what="y's maximum marked")
    assert "lo below hi" in error_beside(page, y_max) or "below" in error_beside(page, y_max), error_beside(page, y_max)
    assert field(page, 1, "x.max").get_attribute("aria-invalid") is None


def test_the_forms_own_checks_send_nothing(browser, server):
    page = open_form(browser, server, 390, 844, True)
    page.find("#room-id-input").send_keys("no spaces")
    page.scroll_to(page.find(".ce-add")).click()
    fill(page, 2, "id", "level")  # the starter's id again
    fill(page, 1, "min", "low")
    submit(page)
    room_id = page.find("#room-id-input")
    page.wait(lambda: room_id.get_attribute("aria-invalid") == "true", what="the room id marked")
    assert "A-Z a-z 0-9" in error_beside(page, room_id)
    assert "'low' is not a number" in error_beside(page, field(page, 1, "min"))
    assert "control 1 too" in error_beside(page, field(page, 2, "id"))
    assert page.driver.switch_to.active_element == room_id
    assert "3 fields need fixing" in page.find("#new-room-error").text
    page.full_page_screenshot("lobby-form-phone-errors.png")
    assert [r["id"] for r in server.request("GET", "/api/rooms")[1]["rooms"]] == ["demo"]


def test_the_json_view_and_the_form_carry_edits_both_ways(browser, server):
    page = open_form(browser, server)
    fill(page, 1, "label", "Loudness")
    page.find('.mode-button[data-mode="json"]').click()
    area = page.find("#room-controls-input")
    page.wait(lambda: area.is_displayed(), what="the JSON box")
    assert '"label": "Loudness"' in area.get_attribute("value")
    assert page.find('.mode-button[data-mode="json"]').get_attribute("aria-pressed") == "true"
    # A room file pasted: its controls become the form's, its id and title fill the blank fields.
    area.send_keys(Keys.CONTROL, "a")
    area.send_keys('{"id": "pasted", "title": "Pasted", "controls": ['
                   '{"id": "tint", "type": "color", "label": "Tint", "state": {"hex": "#336699"}},'
                   '{"id": "go", "type": "button", "label": "Go"}]}')
    page.find('.mode-button[data-mode="form"]').click()
    page.wait(lambda: legend_texts(page) == ["1. Tint · Colour", "2. Go · Button"], what="the pasted controls")
    assert page.find("#room-id-input").get_attribute("value") == "pasted"
    page.wait(lambda: page.find(f"{preview(page, 1)} input.hex").get_attribute("value") == "#336699",
              what="the colour's starting state in its preview")
    # Back to JSON: the starting state the form has no field for is still there.
    page.find('.mode-button[data-mode="json"]').click()
    assert '"hex": "#336699"' in area.get_attribute("value")
    # JSON the form cannot show stays JSON, with the reason beside it.
    area.send_keys(Keys.CONTROL, "a")
    area.send_keys('[{"id": "q", "type": "knob"}]')
    page.find('.mode-button[data-mode="form"]').click()
    page.wait(lambda: "knob" in page.find("#room-controls-error").text, what="the JSON's error")
    assert area.is_displayed() and area.get_attribute("aria-invalid") == "true"
    area.send_keys(Keys.CONTROL, "a")
    area.send_keys('[{"id": "q", "type": "gauge", "min": 0, "max": 5, "unit": "V"}]')
    page.find('.mode-button[data-mode="form"]').click()
    page.wait(lambda: legend_texts(page) == ["1. q · Gauge"], what="the gauge in the form")
    submit(page)
    page.wait(lambda: "created" in page.find("#new-room-done").text, what="the room created")
    assert server.room("pasted")["controls"][0]["unit"] == "V"


def test_remove_leaves_the_focus_on_the_next_control(browser, server):
    page = open_form(browser, server)
    page.scroll_to(page.find(".ce-add")).click()
    page.scroll_to(page.find(".ce-add")).click()
    page.wait(lambda: len(editors(page)) == 3, what="three controls")
    remove = page.find(".control-editor-item:nth-child(2) .ce-remove")
    assert remove.get_attribute("aria-label") == "Remove Slider"
    page.focus(remove)
    page.keys(Keys.ENTER)
    page.wait(lambda: len(editors(page)) == 2, what="two controls")
    assert legend_texts(page) == ["1. Level · Slider", "2. Slider 2 · Slider"]
    assert page.driver.switch_to.active_element == field(page, 2, "type")
    assert "Removed Slider;" in page.find("#controls-status").get_attribute("textContent")
