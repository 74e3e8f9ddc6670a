"""The Presets panel in the browser: save the room's values under a name, change
them, recall the preset, and see every value come back at once in a second
window; the list, "what would change", rename and delete; a viewer sees the
list and none of the buttons that write. Screenshots: test-output/e2e/presets-*.png."""

from __future__ import annotations

import pytest

from .tokens import mint_token, secret_path, write_secret
from selenium.webdriver.common.keys import Keys

SECRET = b"e2e-only secret: tandem presets panel, viewer rules 0123"
SECRET_FILE = secret_path("presets")


def panel(page):
    return page.find(".presets-panel")


def preset_row(page, name: str):
    return page.find(f'.preset[data-name="{name}"]')


def listed(page) -> list[str]:
    return [row.get_attribute("data-name") for row in page.all(".preset-list .preset")]


def save(page, name: str) -> None:
    field = page.scroll_to(page.find(".preset-save input"))
    field.clear()
    field.send_keys(name)
    page.find(".preset-save button[type=submit]").click()


def status(page) -> str:
    return page.find(".preset-status").text


def test_save_change_recall_and_the_other_window_sees_every_value_back(browser, server, shots):
    ann = browser("Ann")
    ben = browser("Ben")
    ann.wait(lambda: panel(ann).is_displayed(), what="the Presets panel")
    assert "No presets yet" in ann.find(".preset-empty").text

    # Tune the room, then save it as "Warm" from Ann's window.
    server.put("gain", 0.8)
    server.put("size", 100)
    server.put("color", "#FF8800")
    ann.wait_now("gain", "value", 0.8)
    save(ann, "Warm")
    for page in (ann, ben):
        page.wait(lambda p=page: listed(p) == ["Warm"], what=lambda p=page: f"Warm listed (now {listed(p)})")
    ann.wait(lambda: "Saved “Warm”" in status(ann), what="a saved status")
    assert "by Ann" in preset_row(ben, "Warm").find_element("css selector", ".preset-meta").text
    assert preset_row(ann, "Warm").find_element("css selector", ".preset-current").is_displayed()

    # Change the values; the preset shows what a recall would change.
    server.put("gain", 0.2)
    server.put("size", 20)
    ben.wait_now("gain", "value", 0.2)
    row = preset_row(ann, "Warm")
    toggle = row.find_element("css selector", '[data-role="diff"]')
    ann.scroll_to(toggle).click()
    assert toggle.get_attribute("aria-expanded") == "true"
    ann.wait(lambda: len(ann.all('.preset[data-name="Warm"] .preset-diff-list li')) == 2, what="two changes listed")
    changes = {li.get_attribute("data-control"): li.text for li in ann.all('.preset[data-name="Warm"] .preset-diff-list li')}
    assert "0.20" in changes["gain"] and "0.80" in changes["gain"], changes
    assert "20 pt" in changes["size"] and "100 pt" in changes["size"], changes
    ann.screenshot("presets-panel-desktop.png", panel(ann))

    # Recall: every value back, in both windows, as one revision.
    rev = server.rev()
    ann.scroll_to(row.find_element("css selector", '[data-role="recall"]')).click()
    server.wait_state("gain", lambda s: s["value"] == pytest.approx(0.8), what="gain back to 0.8")
    assert server.rev() == rev + 1, "a recall is one revision"
    assert server.state("size")["value"] == 100
    ben.wait_now("gain", "value", 0.8)
    ben.wait_now("size", "index", 100)
    ann.wait_now("size", "index", 100)
    ann.wait(lambda: "Recalled “Warm”" in status(ann), what="a recalled status")
    ann.wait(lambda: "Nothing would change" in preset_row(ann, "Warm").find_element("css selector", ".preset-diff").text,
             what="the changes say nothing would change now")

    ann.set_viewport(390, 844, mobile=True)
    ann.scroll_to(panel(ann))
    ann.screenshot("presets-panel-phone.png", panel(ann))


def test_rename_and_delete_from_the_panel_reach_the_other_window(browser, server):
    ann = browser("Ann")
    ben = browser("Ben")
    ann.wait(lambda: panel(ann).is_displayed(), what="the Presets panel")
    save(ann, "Warm")
    ann.wait(lambda: listed(ann) == ["Warm"], what="Warm listed")

    # A bad name is explained next to the field, and nothing is sent.
    field = ann.find(".preset-save input")
    field.send_keys("Lead/Pad")
    ann.wait(lambda: field.get_attribute("aria-invalid") == "true", what="aria-invalid on a name with /")
    assert "/" in ann.find(".preset-save .preset-hint").text
    assert not ann.find(".preset-save button[type=submit]").is_enabled()
    field.clear()
    field.send_keys("Warm")
    ann.wait(lambda: ann.find(".preset-save button[type=submit]").text == "Replace", what="Replace for a taken name")
    field.clear()

    # Rename with the keyboard: Escape cancels, Enter renames.
    ann.scroll_to(preset_row(ann, "Warm").find_element("css selector", '[data-role="rename"]')).click()
    edit = ann.find('.preset[data-name="Warm"] [data-role="rename-input"]')
    ann.wait(lambda: ann.driver.switch_to.active_element == edit, what="the rename field focused")
    edit.send_keys(Keys.ESCAPE)
    ann.wait(lambda: not ann.exists('.preset[data-name="Warm"] [data-role="rename-input"]'), what="rename cancelled")
    ann.find('.preset[data-name="Warm"] [data-role="rename"]').click()
    edit = ann.find('.preset[data-name="Warm"] [data-role="rename-input"]')
    edit.send_keys(Keys.CONTROL, "a")
    edit.send_keys("Warmer", Keys.ENTER)
    for page in (ann, ben):
        page.wait(lambda p=page: listed(p) == ["Warmer"], what=lambda p=page: f"renamed (now {listed(p)})")

    # Delete asks first; Keep keeps it, Delete deletes it for everyone.
    ann.find('.preset[data-name="Warmer"] [data-role="delete"]').click()
    ann.find('.preset[data-name="Warmer"] [data-role="keep"]').click()
    ann.barrier()  # the server has applied whatever the page sent for Keep
    assert listed(ann) == ["Warmer"]
    assert server.request("GET", "/api/rooms/demo/presets")[1]["presets"][0]["name"] == "Warmer"
    ann.find('.preset[data-name="Warmer"] [data-role="delete"]').click()
    ann.find('.preset[data-name="Warmer"] [data-role="confirm-delete"]').click()
    for page in (ann, ben):
        page.wait(lambda p=page: listed(p) == [], what=lambda p=page: f"deleted (now {listed(p)})")
    status_code, body = server.request("GET", "/api/rooms/demo/presets")
    assert status_code == 200 and body == {"presets": []}


def test_a_recall_refused_while_someone_holds_a_control_says_who(browser, server, ws_client):
    ann = browser("Ann")
    ann.wait(lambda: panel(ann).is_displayed(), what="the Presets panel")
    server.put("gain", 0.8)
    save(ann, "Warm")
    ann.wait(lambda: listed(ann) == ["Warm"], what="Warm listed")
    server.put("gain", 0.3)
    cid = ws_client("Cid")
    cid.hold("gain")
    ann.scroll_to(preset_row(ann, "Warm").find_element("css selector", '[data-role="recall"]')).click()
    ann.wait(lambda: "Cid" in status(ann), what=lambda: f"a busy status naming Cid (now {status(ann)!r})")
    assert server.state("gain")["value"] == pytest.approx(0.3)


@pytest.fixture
def secret_file():
    yield write_secret(SECRET_FILE, SECRET)
    SECRET_FILE.unlink(missing_ok=True)


def mint(role: str, sub: str, name: str) -> str:
    return mint_token(SECRET, role, sub=sub, name=name)


@pytest.mark.tandem_flags("--auth-secret-file", str(SECRET_FILE))
def test_a_viewer_sees_the_presets_but_no_button_that_writes(secret_file, browser, server, shots):
    server.token = mint("admin", "u-admin", "Admin")
    status_code, _ = server.request("PUT", "/api/rooms/demo/presets/Warm", {})
    assert status_code == 201
    vic = browser("Vic", query={"token": mint("viewer", "u-vic", "Vic")})
    vic.wait(lambda: listed(vic) == ["Warm"], what="the list shown to a viewer")
    assert not vic.find(".preset-save").is_displayed()
    row = preset_row(vic, "Warm")
    roles = [b.get_attribute("data-role") for b in row.find_elements("css selector", "button")]
    assert roles == ["diff"], roles
    server.put("gain", 0.9)
    vic.scroll_to(row.find_element("css selector", '[data-role="diff"]')).click()
    vic.wait(lambda: "0.90" in row.find_element("css selector", ".preset-diff").text, what="a viewer sees the changes")
    vic.screenshot("presets-viewer.png", panel(vic))


@pytest.mark.tandem_data("file")
def test_while_viewing_a_past_moment_presets_wait_for_live(browser, server):
    server.put("gain", 0.3)
    server.put("gain", 0.6)
    ann = browser("Ann")
    ann.wait(lambda: panel(ann).is_displayed(), what="the Presets panel")
    save(ann, "Now")
    ann.wait(lambda: listed(ann) == ["Now"], what="Now listed")
    slider = ann.find("#timeline-slider")
    ann.wait(lambda: slider.get_attribute("max") == "2", what="two revisions on the timeline")
    ann.focus(slider)
    ann.keys(Keys.ARROW_LEFT)
    ann.wait_now("gain", "value", 0.3)
    recall = ann.find('.preset[data-name="Now"] [data-role="recall"]')
    ann.wait(lambda: not recall.is_enabled(), what="Recall disabled while viewing the past")
    assert "past moment" in ann.find(".preset-save .preset-hint").text
    ann.find(".timeline-banner button").click()  # Back to live
    ann.wait(lambda: recall.is_enabled(), what="Recall enabled again once live")


def test_saving_over_a_taken_name_asks_first_with_the_keyboard(browser, server, shots):
    ben = browser("Ben")
    ann = browser("Ann")
    ann.wait(lambda: panel(ann).is_displayed(), what="the Presets panel")
    server.put("gain", 0.8)
    ben.wait_now("gain", "value", 0.8)
    save(ben, "Warm")
    ann.wait(lambda: listed(ann) == ["Warm"], what="Warm listed")

    def saved_gain() -> float:
        return server.request("GET", "/api/rooms/demo/presets/Warm")[1]["states"]["gain"]["value"]

    server.put("gain", 0.2)
    ann.wait_now("gain", "value", 0.2)
    field = ann.scroll_to(ann.find(".preset-save input"))
    field.click()
    field.send_keys("Warm", Keys.ENTER)
    question = ann.find(".preset-save .preset-replace")
    ann.wait(lambda: question.is_displayed(), what="the question")
    assert question.find_element("css selector", ".preset-question").text.startswith("Replace preset “Warm”, saved by Ben")
    replace = ann.find('.preset-save [data-role="confirm-replace"]')
    ann.wait(lambda: ann.driver.switch_to.active_element == replace, what="Replace focused (Enter answers it)")
    ann.screenshot("presets-replace-question.png", panel(ann))

    # Escape: nothing saved, back in the field with the name kept and selected, to change it.
    ann.keys(Keys.ESCAPE)
    ann.wait(lambda: not question.is_displayed(), what="the question withdrawn")
    ann.wait(lambda: ann.driver.switch_to.active_element == field, what="the focus back in the field")
    assert field.get_attribute("value") == "Warm"
    assert ann.driver.execute_script("return [arguments[0].selectionStart, arguments[0].selectionEnd];", field) == [0, 4]
    ann.barrier()
    assert saved_gain() == pytest.approx(0.8), "Escape replaced the preset"

    # Cancel does the same; Tab reaches it from Replace.
    field.send_keys(Keys.ENTER)
    ann.wait(lambda: question.is_displayed(), what="the question again")
    ann.keys(Keys.TAB)
    ann.wait(lambda: ann.driver.switch_to.active_element.get_attribute("data-role") == "cancel-replace", what="Tab to Cancel")
    ann.keys(Keys.ENTER)
    ann.wait(lambda: not question.is_displayed(), what="Cancel withdrew the question")
    ann.barrier()
    assert saved_gain() == pytest.approx(0.8)

    # Enter on Replace saves over it, for everyone; the field is empty and keeps the focus.
    ann.wait(lambda: ann.driver.switch_to.active_element == field, what="the focus back in the field")
    field.send_keys(Keys.ENTER)
    ann.wait(lambda: ann.driver.switch_to.active_element == replace, what="Replace focused")
    ann.keys(Keys.ENTER)
    ann.wait(lambda: "Saved “Warm”" in status(ann), what="a saved status")
    assert saved_gain() == pytest.approx(0.2)
    assert not question.is_displayed()
    assert field.get_attribute("value") == ""
    assert ann.driver.switch_to.active_element == field
    ben.wait(lambda: "by Ann" in preset_row(ben, "Warm").find_element("css selector", ".preset-meta").text,
             what="Ben's list says Ann saved it now")
    # A new name saves at once, without a question.
    field.send_keys("Cold", Keys.ENTER)
    ann.wait(lambda: listed(ann) == ["Cold", "Warm"], what="Cold saved")
    assert not question.is_displayed()

    # On a phone the question wraps under the field.
    ann.set_viewport(390, 844, mobile=True)
    field.send_keys("Warm", Keys.ENTER)
    ann.wait(lambda: question.is_displayed(), what="the question on a phone")
    ann.screenshot("presets-replace-question-phone.png", ann.find(".preset-save"))
    ann.keys(Keys.ESCAPE)
    ann.wait(lambda: not question.is_displayed(), what="the question withdrawn")
