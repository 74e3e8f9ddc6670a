"""The lobby and the page's Share button on a server with tokens on: the lobby
lists only the rooms the tab's token opens and shows its New room form only
to an admin; Share includes the token only when the person ticks it; a token
that names the person skips the name prompt."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

from .tokens import auth_on, mint_token

SECRET = b"e2e-only secret: the lobby with tokens on, 0123456789abcdef"
SECRET_FILE, pytestmark, _secret_file = auth_on(SECRET, "lobby")


def mint(role: str, room="demo", name: str | None = None) -> str:
    return mint_token(SECRET, role, room, sub=f"u-{role}", name=name)


def lobby(browser, server, token: str):
    page = browser("Lobby", wait_open=False, query={"token": token})
    page.driver.get(f"{server.http}/?token={token}")
    page.wait(lambda: page.find("#rooms").get_attribute("aria-busy") is None, what="the room list loaded")
    return page


def test_an_admin_token_gets_the_new_room_form_and_an_editor_token_only_its_rooms(browser, server):
    server.token = mint("admin", room="*")
    status, _ = server.request("POST", "/api/rooms", {"id": "studio", "controls": [{"id": "v", "type": "slider", "min": 0, "max": 1}]})
    assert status == 201
    admin = lobby(browser, server, mint("admin", room="*"))
    assert {li.get_attribute("data-room") for li in admin.all("#rooms li")} == {"demo", "studio"}
    assert admin.find("#new-room").is_displayed()
    assert "token=" not in admin.driver.current_url, "the token was taken out of the address"
    editor = lobby(browser, server, mint("editor", room="studio"))
    assert [li.get_attribute("data-room") for li in editor.all("#rooms li")] == ["studio"]
    assert not editor.find("#new-room").is_displayed()


def test_share_includes_the_token_only_when_ticked_and_a_named_token_skips_the_name_prompt(browser, server):
    token = mint("editor", name="Ann")
    page = browser("Ann", wait_open=False)
    page.driver.get(f"{server.http}/?room=demo&token={token}")  # no ?name=: the token names her
    page.wait_open()
    assert not page.exists("dialog.name-dialog[open]")
    assert "Ann" in page.presence()[page.my_client_id()]["text"]
    page.find("#share").click()
    field = page.find("#share-link")
    page.wait(lambda: field.is_displayed(), what="the share dialog")
    assert "token" not in field.get_attribute("value")
    box = page.find("#share-access")
    assert box.is_displayed() and not box.is_selected()
    box.click()
    link = urlparse(field.get_attribute("value"))
    assert parse_qs(link.query) == {"room": ["demo"], "token": [token]}
    page.screenshot("share-with-access.png")
