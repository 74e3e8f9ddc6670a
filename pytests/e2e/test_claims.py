"""Claims in the page ("only I move this until I let go"), in Chromium against a
server with tokens on (so that an admin can be shown too): Ann claims Gain from
its card's menu; both windows show the lock with her name ("You have this",
"Ann has this"), Ben's control is read only (thumb `aria-disabled`, value field
read only) and his drag is refused `claimed` with a notice naming Ann, while the
server refuses an HTTP PUT with 409 `claimed`; Ann still moves it; she releases
it and Ben can drag again. An admin breaks someone's claim from the menu, and
the holder is told. Screenshots of a claimed card from both sides, desktop,
phone, dark and compact: test-output/e2e/claims-*.png."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.keys import Keys

from .tokens import auth_on, mint_token

SECRET = b"e2e-only secret: tandem claims in the page 0123456789ab"
SECRET_FILE, pytestmark, _secret_file = auth_on(SECRET, "claims")


def mint(role: str, sub: str, name: str) -> str:
    return mint_token(SECRET, role, "demo", 3600, sub, name)


@pytest.fixture
def api(server):
    server.token = mint_token(SECRET, "admin", "*", 3600, "e2e-api", None)
    return server


def open_as(browser, name: str, role: str = "editor"):
    return browser(name, query={"token": mint(role, f"u-{name.lower()}", name)})


def menu_button(page, label: str):
    return page.find(f'button.menu-button[aria-label="More for {label}"]')


def open_menu(page, label: str):
    button = page.scroll_to(menu_button(page, label))
    panel = page.find("#" + button.get_attribute("aria-controls"))
    if not panel.is_displayed():
        button.click()
    page.wait(lambda: panel.is_displayed(), what=f"the {label} menu open")
    return panel


def menu_items(panel) -> list[str]:
    return [b.text for b in panel.find_elements("css selector", "button.menu-item") if b.is_displayed()]


def claim_item(panel):
    return panel.find_element("css selector", 'button[data-item="claim"]')


def badge(page, control: str) -> str:
    """The card's lock badge as read ("" when hidden)."""
    element = page.in_section(control, ".badge-claim")
    return element.text if element.is_displayed() else ""


def status(page, control: str) -> str:
    return page.in_section(control, ".control-status").get_attribute("textContent") or ""


def claim_of(server, control: str) -> str | None:
    return next(c for c in server.room()["controls"] if c["id"] == control).get("claim")


def test_a_claim_from_the_menu_locks_the_control_for_everyone_else_until_it_is_released(browser, api, shots):
    ann = open_as(browser, "Ann")
    ben = open_as(browser, "Ben")
    ann_id = ann.my_client_id()

    # Ann claims Gain from its card's menu.
    panel = open_menu(ann, "Gain")
    assert menu_items(panel) == ["Reset to default", "Copy value", "Claim (only I move it)"]
    claim_item(panel).click()
    ann.wait(lambda: not panel.is_displayed(), what="the menu closes")
    ann.wait(lambda: badge(ann, "gain") == "You have this", what=lambda: f"Ann's badge (now {badge(ann, 'gain')!r})")
    ben.wait(lambda: badge(ben, "gain") == "Ann has this", what=lambda: f"Ben's badge (now {badge(ben, 'gain')!r})")
    assert claim_of(api, "gain") == ann_id
    ann.wait(lambda: "only you move it" in status(ann, "gain"), what="Ann is told she has it")

    # Ben's Gain is read only, visibly and for assistive technology; the tooltip names Ann.
    thumb = ben.thumb("gain", "value")
    assert thumb.get_attribute("aria-disabled") == "true"
    assert ben.in_section("gain", "input.value-field").get_attribute("readonly") is not None
    assert "Ann claimed Gain" in (ben.in_section("gain", "input.value-field").get_attribute("title") or "")
    assert "Ann" in (ben.in_section("gain", ".control-body").get_attribute("title") or "")
    assert ann.thumb("gain", "value").get_attribute("aria-disabled") is None, "the holder's own control stays live"
    # An editor cannot break Ann's claim: nothing in his menu for it.
    ben_panel = open_menu(ben, "Gain")
    assert menu_items(ben_panel) == ["Reset to default", "Copy value"], menu_items(ben_panel)
    assert not ben_panel.find_element("css selector", 'button[data-item="reset"]').is_enabled(), "a reset would be refused"
    assert "Ann has this" in ben_panel.find_element("css selector", ".menu-claim").text
    ben.screenshot("claims-menu-other.png")
    ben.keys(Keys.ESCAPE)
    # The presence list shows the lock and what Ann claims.
    ben.wait(lambda: "Gain" in ben.find(f'#presence li[data-client="{ann_id}"] .peer-claim').text,
             what="a lock with Gain after Ann's name")
    ben.screenshot("claims-other-desktop.png", ben.section("gain"))
    ann.screenshot("claims-mine-desktop.png", ann.section("gain"))

    # Ben's drag is refused: the notice names Ann, nothing moves, nothing commits.
    rev = api.rev()
    width = ben.track_width("gain")
    ben.drag("gain", "value", [(width * 0.3, 0.3)]).join()
    ben.wait(lambda: "Ann has this" in status(ben, "gain"),
             what=lambda: f'the notice naming Ann (now {status(ben, "gain")!r})')
    ben.screenshot("claims-refused-drag.png", ben.section("gain"))
    ben.barrier()
    assert api.rev() == rev and api.state("gain")["value"] == pytest.approx(0.5)
    ben.wait_now("gain", "value", 0.5)
    # So is a key step (nothing is predicted either).
    ben.focus(ben.thumb("gain", "value"))
    ben.keys(Keys.ARROW_UP)
    ben.barrier()
    assert ben.now("gain", "value") == pytest.approx(0.5) and api.rev() == rev

    # The HTTP API is someone else too: 409 claimed, naming Ann.
    code, body = api.request("PUT", "/api/rooms/demo/controls/gain", {"value": 0.9})
    assert code == 409 and body["code"] == "claimed" and body["holder"] == ann_id, (code, body)

    # Ann still moves it.
    ann.drag("gain", "value", [(ann.track_width("gain") * 0.2, 0.2)]).join()
    moved = api.wait_state("gain", lambda s: s["value"] > 0.55, what="Ann's drag committed")["value"]
    ben.wait_now("gain", "value", moved)
    assert claim_of(api, "gain") == ann_id, "her own drag keeps her claim"

    # Ann lets go; Ben can drag again.
    panel = open_menu(ann, "Gain")
    item = claim_item(panel)
    assert item.text == "Release claim"
    item.click()
    for page in (ann, ben):
        page.wait(lambda p=page: badge(p, "gain") == "", what=f"{page.name}'s badge gone")
    ben.wait(lambda: ben.thumb("gain", "value").get_attribute("aria-disabled") is None, what="Ben's thumb live again")
    assert ben.in_section("gain", "input.value-field").get_attribute("readonly") is None
    assert claim_of(api, "gain") is None
    ben.drag("gain", "value", [(-width * 0.3, 0.3)]).join()
    api.wait_state("gain", lambda s: s["value"] < moved - 0.1, what="Ben's drag committed")


def test_an_admin_breaks_someones_claim_and_the_holder_is_told(browser, api):
    ann = open_as(browser, "Ann")
    ada = open_as(browser, "Ada", "admin")
    panel = open_menu(ann, "Circle size")
    claim_item(panel).click()
    ada.wait(lambda: badge(ada, "size") == "Ann has this", what="Ada sees Ann's claim")
    assert ada.thumb("size", "index").get_attribute("aria-disabled") == "true", "an admin's writes are refused too"

    admin_panel = open_menu(ada, "Circle size")
    item = claim_item(admin_panel)
    assert item.text == "Break Ann’s claim"
    ada.screenshot("claims-menu-admin.png")
    ada.focus(item)
    ada.keys(Keys.ENTER)
    for page in (ann, ada):
        page.wait(lambda p=page: badge(p, "size") == "", what=f"{page.name}'s badge gone")
    ann.wait(lambda: "Your claim ended" in status(ann, "size"), what=lambda: f"Ann is told (now {status(ann, 'size')!r})")
    ada.wait(lambda: "Broke Ann’s claim" in status(ada, "size"), what="Ada is told")
    assert claim_of(api, "size") is None
    # Now Ada's keys move it.
    ada.focus(ada.thumb("size", "index"))
    ada.keys(Keys.ARROW_RIGHT)
    api.wait_state("size", lambda s: s["index"] == 3, what="Ada's step committed")


def test_screenshots_of_a_claimed_card_from_both_sides(browser, api, shots):
    ann = open_as(browser, "Ann")
    ben = open_as(browser, "Ben")
    claim_item(open_menu(ann, "Blank cells")).click()
    ben.wait(lambda: badge(ben, "blanks") == "Ann has this", what="Ben sees Ann's claim")
    ann.wait(lambda: badge(ann, "blanks") == "You have this", what="Ann sees her claim")

    for page in (ann, ben):
        page.set_viewport(390, 844, mobile=True)
    ben.scroll_to(ben.section("blanks"))
    ann.scroll_to(ann.section("blanks"))
    ben.screenshot("claims-other-phone.png")
    ann.screenshot("claims-mine-phone.png")

    dark = {"features": [{"name": "prefers-color-scheme", "value": "dark"}]}
    for page in (ann, ben):
        page.set_viewport(1280, 900)
        page.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", dark)
        page.after_page_timer(400)  # the buttons' colour transitions (0.12 s) are over
    ben.screenshot("claims-other-dark.png")
    ann.screenshot("claims-mine-dark.png")

    # Compact: the lock and the holder's name beside the label.
    for page in (ann, ben):
        page.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
        page.scroll_to(page.find("#layout-toggle")).click()
        page.wait(lambda p=page: "layout-compact" in (p.find("body").get_attribute("class") or ""), what="compact")
    ben.wait(lambda: badge(ben, "blanks") == "Ann", what=lambda: f"the compact badge (now {badge(ben, 'blanks')!r})")
    ben.screenshot("claims-other-compact.png")
    ann.screenshot("claims-mine-compact.png")
    ben.set_viewport(390, 844, mobile=True)
    ben.scroll_to(ben.section("blanks"))
    ben.screenshot("claims-other-compact-phone.png")


def test_every_kind_claimed_in_the_synth_room_looks_read_only_to_the_others(browser, api, shots):
    import json
    from pathlib import Path
    synth = json.loads((Path(__file__).resolve().parents[2] / "examples" / "synth.json").read_text())
    code, body = api.request("POST", "/api/rooms", synth)
    assert code == 201, (code, body)
    ann = browser("Ann", room="synth", query={"token": mint_token(SECRET, "editor", "synth", 3600, "u-ann", "Ann")})
    ben = browser("Ben", room="synth", query={"token": mint_token(SECRET, "editor", "synth", 3600, "u-ben", "Ben")})
    for label, control in (("Cutoff", "cutoff"), ("Filter", "filter"), ("Stereo space", "space"),
                           ("Trigger note", "trigger"), ("Waveform", "waveform")):
        claim_item(open_menu(ann, label)).click()
        ben.wait(lambda c=control: badge(ben, c) == "Ann has this", what=f"Ben sees Ann's claim on {label}")
    # The switch, the pad's sliders and the snap's buttons say they are not Ben's to use.
    assert ben.in_section("filter", ".toggle-switch").get_attribute("aria-disabled") == "true"
    assert ben.in_section("trigger", ".press-button").get_attribute("aria-disabled") == "true"
    assert all(t.get_attribute("aria-disabled") == "true" for t in ben.all(ben.section_css("space") + ' [role="slider"]'))
    # A tap on the switch is refused with Ann's name, and nothing flips.
    on = ben.in_section("filter", ".toggle-switch").get_attribute("aria-checked")
    ben.scroll_to(ben.in_section("filter", ".toggle-switch")).click()
    ben.wait(lambda: "Ann has this" in status(ben, "filter"), what="the switch's notice naming Ann")
    ben.barrier()
    assert ben.in_section("filter", ".toggle-switch").get_attribute("aria-checked") == on
    # How many; all of them, in the room's order, in the tooltip.
    ben.wait(lambda: ben.find('#presence li:not(.me) .peer-claim-text').text == "5 controls",
             what=lambda: f"the presence list's lock (now {ben.find('#presence li:not(.me) .peer-claim-text').text!r})")
    assert "claims Waveform, Trigger note, Filter, Cutoff, Stereo space" in ben.find("#presence li:not(.me)").get_attribute("title")
    ben.set_viewport(1280, 1100)
    ben.screenshot("claims-synth-other.png")
    ann.set_viewport(1280, 1100)
    ann.screenshot("claims-synth-mine.png")
