"""The room page for people, not programs: it asks for a name once, its Share
button copies the room's link (the token only when asked), presence keeps to
one header line with a "+N" chip however many are here, the colour field
says what is wrong with bad text, and Undo/Redo are enabled only when there
is something to take back, saying what they did."""

from __future__ import annotations


from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys


def header_lines(page) -> int:
    """How many lines of the header the presence list's visible entries take."""
    tops = page.driver.execute_script(
        "return [...document.querySelectorAll('#presence > li:not([hidden])')].map(li => Math.round(li.getBoundingClientRect().top));")
    return len(set(tops))


def test_the_page_asks_for_a_name_once_and_keeps_it(browser, server):
    page = browser("Ann")
    page.driver.get(f"{server.http}/?room=demo")
    dialog = page.find("dialog.name-dialog")
    page.wait(lambda: dialog.get_attribute("open") is not None, what="the name dialog open")
    assert page.connection_state() == "connecting", "it connected before the name was given"
    page.screenshot("name-prompt.png")
    page.find("#name-input").send_keys("Zoë" + Keys.ENTER)
    page.wait_open()
    me = page.my_client_id()
    assert "Zoë" in page.presence()[me]["text"]
    assert page.driver.execute_script("return localStorage.getItem('tandem.name');") == "Zoë"
    # Asked once: the next visit joins with the kept name…
    page.driver.get(f"{server.http}/?room=demo")
    page.wait_open()
    assert not page.exists("dialog.name-dialog[open]")
    assert "Zoë" in page.presence()[page.my_client_id()]["text"]
    # …and ?name= still wins over it.
    page.driver.get(f"{server.http}/?room=demo&name=Bea")
    page.wait_open()
    bea = page.my_client_id()
    assert "Bea" in page.presence()[bea]["text"]
    # The pencil on my own entry changes the name: the page rejoins with it and keeps it.
    page.find("#presence li.me .peer-rename").click()
    field = page.find("#name-input")
    page.wait(lambda: field.is_displayed(), what="the rename dialog")
    assert field.get_attribute("value") == "Bea"
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys("Cleo" + Keys.ENTER)
    page.wait(lambda: page.my_client_id() != bea and "Cleo" in page.presence()[page.my_client_id()]["text"],
              what="rejoined as Cleo")
    assert page.driver.execute_script("return localStorage.getItem('tandem.name');") == "Cleo"
    assert "name=" not in page.driver.current_url


def test_share_copies_the_room_link_without_a_token_unless_asked(browser, server):
    page = browser("Ann")
    page.set_viewport(390, 844, mobile=True)
    page.find("#share").click()
    field = page.find("#share-link")
    page.wait(lambda: field.is_displayed(), what="the share dialog")
    assert field.get_attribute("value") == f"{server.http}/?room=demo"
    assert not page.find(".share-access").is_displayed()  # no token here: nothing to include
    page.screenshot("share-390.png")
    page.find(".share-dialog .button-primary").click()
    done = page.find(".share-done")
    page.wait(lambda: done.text in ("Copied", "Select the link and copy it (Ctrl+C)"), what="the copy's answer")
    page.keys(Keys.ESCAPE)
    page.wait(lambda: not field.is_displayed(), what="the dialog closed")


def test_presence_keeps_to_one_line_with_a_chip_at_phone_size_with_41_people(browser, server, ws_client):
    page = browser("Ann")
    page.set_viewport(390, 844, mobile=True)
    others = [ws_client(f"Person {i:02d}") for i in range(40)]
    page.wait(lambda: len(page.presence()) == 41, what="41 people listed")
    chip = page.find("#presence li.peer-more button")
    page.wait(lambda: chip.is_displayed() and chip.text.startswith("+"), what="the +N chip")
    shown = [li for li in page.all("#presence li[data-client]") if li.is_displayed()]
    assert int(chip.text[1:]) == 41 - len(shown)
    assert chip.get_attribute("aria-label") == f"{41 - len(shown)} more people here: show everyone"
    assert chip.get_attribute("aria-haspopup") == "dialog"
    assert any("me" in (li.get_attribute("class") or "") for li in shown), "my own entry is always shown"
    assert header_lines(page) == 1
    header = page.find(".topbar").size["height"]
    assert header <= 0.2 * 844, f"the header takes {header} px of 844"
    assert page.find("#presence").get_attribute("aria-label") == "41 people here"
    # 24 colours before any repeats.
    colours = [p["color"] for p in others[-1].welcome["peers"]]
    assert len(set(colours[:24])) == 24, colours
    page.screenshot("presence-chip-390.png")
    chip.click()
    dialog = page.find("dialog.people-dialog")
    page.wait(lambda: dialog.is_displayed(), what="the full list")
    assert len(page.all(".people-list li")) == 41
    assert page.find("#people-title").text == "41 people here"
    page.screenshot("presence-full-list-390.png")
    page.keys(Keys.ESCAPE)
    page.wait(lambda: not dialog.is_displayed(), what="the full list closed")
    # At desktop width the same line shows more of them, still one line.
    page.set_viewport(1280, 900)
    page.wait(lambda: len([li for li in page.all("#presence li[data-client]") if li.is_displayed()]) > len(shown),
              what="more people shown at 1280")
    assert header_lines(page) == 1
    page.screenshot("presence-chip-1280.png")


def type_into(page, field, text):
    page.focus(field)
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys(text + Keys.ENTER)


def test_colour_text_takes_short_hex_and_rgb_and_says_what_is_wrong_with_the_rest(browser, server):
    page = browser("Lea")
    hex_field = page.in_section("color", "input.hex")
    error = page.find("#" + hex_field.get_attribute("aria-describedby"))
    type_into(page, hex_field, "#fff")
    server.wait_state("color", lambda s: s["hex"] == "#FFFFFF", what="#FFFFFF")
    type_into(page, hex_field, "rgb(255, 0, 10)")
    server.wait_state("color", lambda s: s["hex"] == "#FF000A", what="#FF000A")
    for bad, words in (("abc", "needs a #"), ("#GGG", "0–9 and A–F"), ("red", "names are not taken")):
        rev = server.rev()
        type_into(page, hex_field, bad)
        page.wait(lambda: hex_field.get_attribute("aria-invalid") == "true", what=f"aria-invalid after {bad!r}")
        assert error.is_displayed() and words in error.text, (bad, error.text)
        assert hex_field.get_attribute("value") == bad, "the bad text stays to be fixed"
        page.barrier()  # the server has applied whatever the page sent for the Enter
        assert server.rev() == rev, f"{bad!r} changed the room"
    page.screenshot("colour-error.png", page.section("color"))
    type_into(page, hex_field, "#0f0")
    server.wait_state("color", lambda s: s["hex"] == "#00FF00", what="#00FF00")
    page.wait(lambda: hex_field.get_attribute("aria-invalid") is None, what="aria-invalid cleared")
    assert not error.is_displayed()


def test_undo_and_redo_are_enabled_only_with_something_to_do_and_say_what_they_did(browser, server):
    page = browser("Ann")
    undo = page.find('button[data-action="undo"]')
    redo = page.find('button[data-action="redo"]')
    status = page.find(".history-status")
    assert not undo.is_enabled() and not redo.is_enabled()
    assert undo.get_attribute("title") == "Nothing to undo (Ctrl+Z)"
    page.scroll_to(page.in_section("size", 'button[data-step="1"]')).click()
    server.wait_state("size", lambda s: s["value"] == 80, what="size 80")
    page.wait(lambda: undo.is_enabled(), what="Undo enabled after an edit")
    assert undo.get_attribute("title") == "Undo Circle size (Ctrl+Z)"
    assert not redo.is_enabled()
    page.scroll_to(undo).click()
    server.wait_state("size", lambda s: s["value"] == 60, what="size back to 60")
    page.wait(lambda: status.text == "Undid Circle size: 80 pt → 60 pt",
              what=lambda: f"the status line (now {status.text!r})")
    page.wait(lambda: redo.is_enabled() and not undo.is_enabled(), what="Redo enabled, Undo disabled")
    page.driver.execute_script("window.scrollTo(0, 0);")
    page.screenshot("undo-status.png")  # the window: the status line is a note under the header's buttons
    page.scroll_to(redo).click()
    server.wait_state("size", lambda s: s["value"] == 80, what="size redone to 80")
    page.wait(lambda: status.text == "Redid Circle size: 60 pt → 80 pt", what=lambda: f"the status line (now {status.text!r})")
    page.wait(lambda: undo.is_enabled() and not redo.is_enabled(), what="Undo enabled again, Redo disabled")
    # Ctrl+Z with nothing to undo sends nothing and says so.
    page.scroll_to(undo).click()
    server.wait_state("size", lambda s: s["value"] == 60, what="size 60")
    page.wait(lambda: not undo.is_enabled(), what="nothing left to undo")
    rev = server.rev()
    page.focus(page.thumb("gain", "value"))
    ActionChains(page.driver).key_down(Keys.CONTROL).send_keys("z").key_up(Keys.CONTROL).perform()
    page.wait(lambda: status.text == "Nothing to undo", what=lambda: f"'Nothing to undo' (now {status.text!r})")
    page.barrier()  # the server has applied whatever the page sent for that Ctrl+Z
    assert server.rev() == rev


def test_a_preset_recall_is_one_step_for_undo(browser, server):
    page = browser("Ann")
    undo = page.find('button[data-action="undo"]')
    status = page.find(".history-status")
    field = page.scroll_to(page.find(".preset-save input"))
    field.send_keys("Start")
    page.find(".preset-save button[type=submit]").click()
    page.wait(lambda: page.exists('.preset[data-name="Start"]'), what="the preset listed")
    assert not undo.is_enabled(), "saving a preset changes no control"
    server.put("gain", 0.9)
    server.put("size", 100)
    page.wait_now("gain", "value", 0.9)
    assert not undo.is_enabled(), "the API's changes are not mine to undo"
    rev = server.rev()
    row = page.find('.preset[data-name="Start"]')
    page.scroll_to(row.find_element("css selector", '[data-role="recall"]')).click()
    server.wait_state("gain", lambda s: s["value"] == 0.5, what="gain recalled to 0.5")
    page.wait(lambda: undo.is_enabled(), what="Undo enabled after my recall")
    assert server.rev() == rev + 1
    page.scroll_to(undo).click()
    server.wait_state("gain", lambda s: s["value"] == 0.9, what="the recall undone in one step")
    assert server.state("size")["value"] == 100
    page.wait(lambda: status.text.startswith("Undid "), what=lambda: f"the status line (now {status.text!r})")
    page.wait(lambda: not undo.is_enabled(), what="nothing left to undo")
