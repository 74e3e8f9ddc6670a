"""The lobby at `/`: the rooms with live people counts, a New room form for
whoever may create rooms (auth off on this machine here), the server's schema
errors next to their field, and links that open the room page."""

from __future__ import annotations

import json

from selenium.webdriver.common.keys import Keys


def open_lobby(browser, server, width=1280, height=900):
    page = browser("Lobby", wait_open=False)
    page.set_viewport(width, height)
    page.driver.get(f"{server.http}/")
    page.wait(lambda: page.exists('#rooms li[data-room="demo"]'), what="the demo room listed")
    return page


def json_mode(page):
    """The New room form's controls as JSON (the form shows them field by field first)."""
    page.scroll_to(page.find('.mode-button[data-mode="json"]')).click()
    page.wait(lambda: page.find("#room-controls-input").is_displayed(), what="the JSON box")
    return page.find("#room-controls-input")


def people_of(page, room: str) -> str:
    return page.find(f'#rooms li[data-room="{room}"] .room-people').get_attribute("data-people")


def test_the_lobby_lists_the_rooms_with_live_people_counts(browser, server, ws_client):
    page = open_lobby(browser, server)
    assert page.driver.title == "Rooms · Tandem"
    # (The fixture's first load was the room page: its connection is gone within a refresh.)
    page.wait(lambda: people_of(page, "demo") == "0", what="nobody in demo")
    assert page.find('#rooms li[data-room="demo"] .room-people').text == "empty"
    clients = [ws_client(f"P{i}") for i in range(3)]
    page.wait(lambda: people_of(page, "demo") == "3", what="3 people in demo, within a refresh")
    assert page.find('#rooms li[data-room="demo"] .room-people').text == "3 people"
    clients[0].close()
    page.wait(lambda: people_of(page, "demo") == "2", what="2 people after one left")
    page.screenshot("lobby-desktop.png")


def test_creating_a_room_from_the_form_lists_it_and_its_link_opens_the_room(browser, server):
    page = open_lobby(browser, server, 390, 844)
    assert page.find("#new-room").is_displayed()
    page.find("#room-id-input").send_keys("synth")
    page.find("#room-title-input").send_keys("Synth tuning")
    controls = [{"id": "cutoff", "type": "slider", "label": "Cutoff", "min": 20, "max": 20000}]
    area = json_mode(page)
    area.send_keys(Keys.CONTROL, "a")
    area.send_keys(json.dumps(controls))
    page.screenshot("lobby-phone-form.png")
    page.scroll_to(page.find('#new-room-form button[type="submit"]')).click()
    page.wait(lambda: page.exists('#rooms li[data-room="synth"]'), what="the new room listed")
    assert server.room("synth")["title"] == "Synth tuning"
    assert "created" in page.find("#new-room-done").text
    assert page.find('#rooms li[data-room="synth"] .room-name').text == "Synth tuning"
    page.screenshot("lobby-phone.png")
    page.scroll_to(page.find('#rooms li[data-room="synth"] a')).click()
    # This browser has no name yet: the room page asks for one first.
    page.wait(lambda: page.find("dialog.name-dialog").get_attribute("open") is not None, what="the name dialog")
    page.find("#name-input").send_keys("Lou" + Keys.ENTER)
    page.wait_open()
    assert "Lou" in page.presence()[page.my_client_id()]["text"]
    assert page.find("#room-id").text == "synth"
    assert page.exists(page.section_css("cutoff"))


def test_a_schema_error_is_shown_next_to_its_field(browser, server):
    page = open_lobby(browser, server)
    page.find("#room-id-input").send_keys("studio")
    area = json_mode(page)
    area.send_keys(Keys.CONTROL, "a")
    area.send_keys(json.dumps([{"id": "size", "type": "snap", "values": [3, 2]}]))
    page.scroll_to(page.find('#new-room-form button[type="submit"]')).click()
    error = page.find("#room-controls-error")
    page.wait(lambda: "control 'size', field 'values'" in error.text, what=lambda: f"the controls' error (now {error.text!r})")
    assert area.get_attribute("aria-invalid") == "true"
    assert "room-controls-error" in area.get_attribute("aria-describedby")
    assert page.find("#room-id-error").text == ""
    page.screenshot("lobby-schema-error.png")
    # A bad id is the id field's error, from the server's answer too.
    field = page.find("#room-id-input")
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys("no spaces allowed")
    area.send_keys(Keys.CONTROL, "a")
    area.send_keys("[]")
    page.scroll_to(page.find('#new-room-form button[type="submit"]')).click()
    id_error = page.find("#room-id-error")
    page.wait(lambda: id_error.text != "", what="the id's error")
    assert field.get_attribute("aria-invalid") == "true"
    assert area.get_attribute("aria-invalid") is None
    status, _ = server.request("GET", "/api/rooms/studio")
    assert status == 404
    # JSON that does not parse never leaves the page.
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys("studio")
    area.send_keys(Keys.CONTROL, "a")
    area.send_keys("[{")
    page.scroll_to(page.find('#new-room-form button[type="submit"]')).click()
    page.wait(lambda: "Not valid JSON" in error.text, what="the JSON error")
