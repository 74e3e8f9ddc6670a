"""The web client's auth states against a server with tokens on (`--auth-secret-file`):
an editor drags and commits, a viewer's controls are visibly read-only and do not
move, and a page without a token, with an expired one, one signed with another key
or one for another room says so and does not retry. A page on a server without
auth behaves as it always did. The page takes `?token=` out of its address bar and
a reload still works; with `?refresh=` it renews its token before `exp` (an `auth`
message), without it warns a couple of minutes before.

Tokens are minted here with hmac/hashlib (independently of the server's code).
Screenshots of every state at desktop and phone width: test-output/e2e/auth-*.png.
"""

from __future__ import annotations

import json

import pytest

from .tokens import auth_on, mint_token
from selenium.webdriver.common.keys import Keys

SECRET = b"e2e-only secret: tandem web client auth states 0123456789"
SECRET_FILE, pytestmark, _secret_file = auth_on(SECRET, "auth")


def mint(role: str = "editor", room="demo", ttl: float = 3600, sub: str = "u-ann", name: str | None = None,
         secret: bytes = SECRET, **claims) -> str:
    return mint_token(secret, role, room, ttl, sub, name, **claims)


@pytest.fixture
def admin_api(server):
    """The API helpers of `server` (state, wait_state, put) carry an admin token."""
    server.token = mint("admin", room="*", sub="e2e-admin")
    return server


def role_badge(page) -> str | None:
    badge = page.find("#role")
    return badge.text if badge.is_displayed() else None


def notice(page) -> tuple[str, str]:
    """The closed page's card: (data-kind, heading)."""
    card = page.wait(lambda: page.find(".notice-card"), what=".notice-card")
    return card.get_attribute("data-kind"), page.find(".notice-card h2").text


def refused(page, kind: str, title: str, status: str) -> None:
    """The page is closed for good with that card and status, and stays closed (no reconnect loop)."""
    page.wait(lambda: page.connection_state() == "closed",
              what=lambda: f"#connection closed (now {page.connection_state()!r})")
    page.wait(lambda: notice(page) == (kind, title), what=lambda: f"card {kind!r} {title!r} (now {notice(page)!r})")
    assert page.find("#connection .connection-text").text == status
    # Barrier: a timer set now in the page fires after any retry's would (the first two backoff
    # steps are at most 0.5 s and 1 s, and a page's timers fire in the order they are due).
    page.after_page_timer(1500)
    assert page.connection_state() == "closed"
    assert page.driver.execute_script("return window.tandem.connection.attempt;") == 0, "it tried again"
    assert not page.exists("section.control"), "controls shown without access"


def shoot(page, stem: str) -> None:
    """Screenshots of the page at desktop and phone width."""
    for width, height, mobile, suffix in ((1280, 800, False, "desktop"), (390, 844, True, "phone")):
        page.set_viewport(width, height, mobile)
        page.driver.execute_script("window.scrollTo(0, 0);")
        page.frames()  # the page has drawn itself at this size
        path = page.screenshot(f"auth-{stem}-{suffix}.png")
        assert path.stat().st_size > 1000


def test_an_editor_with_a_token_drags_and_commits_and_the_token_leaves_the_address_bar(browser, admin_api, shots):
    token = mint("editor", name="Ann")
    page = browser("Ann", query={"token": token})
    assert role_badge(page) == "editor"
    assert "token=" not in page.driver.current_url, "the token stays in the address bar"
    assert "name=Ann" in page.driver.current_url
    gesture = page.drag("gain", "value", [(page.track_width("gain") * 0.25, 0.3)])
    gesture.join()
    state = admin_api.wait_state("gain", lambda s: s["value"] > 0.6, what="gain dragged up")
    page.wait_now("gain", "value", state["value"])
    page.focus(page.thumb("size", "index"))
    page.keys(Keys.ARROW_RIGHT)
    admin_api.wait_state("size", lambda s: s["value"] == 80, what="size stepped to 80")
    assert page.find('button[data-action="undo"]').is_enabled()

    # A reload finds the token the tab kept.
    page.driver.refresh()
    page.wait_open()
    assert role_badge(page) == "editor"
    page.wait_now("size", "index", 80)


def test_a_viewer_sees_every_change_but_its_controls_are_read_only_and_do_not_move(browser, admin_api, shots):
    viewer = browser("Vic", query={"token": mint("viewer", sub="u-vic", name="Vic")})
    editor = browser("Ann", query={"token": mint("editor", name="Ann")})
    assert role_badge(viewer) == "viewer — read only"
    assert "read-only" in viewer.find("body").get_attribute("class").split()
    for control, thumbs in {"size": ["index"], "blanks": ["lower", "upper"], "gain": ["value"],
                            "color": ["red", "green", "blue"]}.items():
        for thumb in thumbs:
            assert viewer.attr(control, thumb, "aria-readonly") == "true", (control, thumb)
    assert not viewer.in_section("size", 'button[data-step="1"]').is_enabled()
    assert not viewer.in_section("size", 'button[data-step="-1"]').is_enabled()
    assert not viewer.find('button[data-action="undo"]').is_enabled()
    assert not viewer.find('button[data-action="redo"]').is_enabled()
    for field in viewer.all(f'{viewer.section_css("color")} input'):
        assert field.get_attribute("readonly") is not None
    assert viewer.in_section("gain", ".badge-readonly").is_displayed()
    assert editor.all('.badge-readonly') and not editor.in_section("gain", ".badge-readonly").is_displayed()

    # Nothing the viewer does moves anything: a drag, keys, typing a colour.
    rev = admin_api.rev()
    viewer.drag("gain", "value", [(viewer.track_width("gain") * 0.3, 0.3)]).join()
    viewer.focus(viewer.thumb("size", "index"))
    viewer.keys(Keys.ARROW_RIGHT, Keys.END)
    hex_field = viewer.in_section("color", "input.hex")
    viewer.focus(hex_field)
    viewer.keys("#FF0000", Keys.ENTER)
    viewer.barrier()  # the server has applied anything the viewer's page sent, and the page has drawn
    assert viewer.now("gain", "value") == pytest.approx(0.5)
    assert viewer.now("size", "index") == 60
    assert hex_field.get_attribute("value").upper() == "#336699"
    assert admin_api.rev() == rev, "a viewer's action was committed"

    # What the editor does, the viewer sees.
    editor.focus(editor.thumb("size", "index"))
    editor.keys(Keys.ARROW_RIGHT)
    viewer.wait_now("size", "index", 80)

    # A write that reaches the server anyway (a script, not the UI; recorded as the UI's own would be)
    # is refused `forbidden`, and the card says so.
    viewer.driver.execute_script(
        "const m = window.tandem.model; const seq = m.nextSeq();"
        "window.tandem.connection.send({type: 'step', seq, control: 'gain', by: 1});"
        "m.noteSent('gain', seq, undefined, 'value');")
    viewer.wait(lambda: "read only" in viewer.in_section("gain", ".control-status").text,
                what="the forbidden notice on gain")
    shoot(viewer, "viewer")


def test_without_a_token_the_page_says_the_room_needs_an_invitation_link(browser, shots):
    page = browser("Ann", wait_open=False)
    refused(page, "missing", "This room needs an invitation link", "invitation needed")
    shoot(page, "no-token")


def test_an_expired_token_says_the_link_has_expired(browser, shots):
    page = browser("Ann", wait_open=False, query={"token": mint("editor", ttl=-3600)})
    refused(page, "expired", "Your link has expired — ask for a new one", "link expired")
    shoot(page, "expired")


@pytest.mark.tandem_flags("--auth-secret-file", str(SECRET_FILE), "--auth-leeway", "0")
def test_a_live_page_whose_token_runs_out_is_closed_and_says_the_link_has_expired(browser, server):
    # Chromium is started first (this load without a token is refused), so that the short token
    # below is minted only when the page is about to load it.
    page = browser("Ann", wait_open=False)
    # The page must be open before its token runs out; on a machine so slow that it was not
    # (the welcome came after exp), it tries again with a token that lives twice as long.
    for ttl in (6, 12, 24):
        page.driver.get(f"{server.http}/?room=demo&name=Ann&token={mint('editor', ttl=ttl)}")
        page.wait(lambda: page.driver.execute_script("return window.tandem.connection.everOpen")
                  or page.connection_state() == "closed",
                  what=lambda: f"#connection open, or closed (now {page.connection_state()!r})")
        if page.driver.execute_script("return window.tandem.connection.everOpen"):
            break
    else:
        raise AssertionError("the page never opened before its token's exp")
    assert page.exists('section.control[data-control="gain"]')
    page.wait(lambda: page.connection_state() == "closed", timeout=ttl + 30,
              what=lambda: f"the server's close at exp (now {page.connection_state()!r})")
    refused(page, "expired", "Your link has expired — ask for a new one", "link expired")


def test_a_token_signed_with_another_key_is_not_valid_for_this_server(browser):
    page = browser("Ann", wait_open=False, query={"token": mint("editor", secret=b"x" * 40)})
    refused(page, "invalid", "This link is not valid for this server", "link not valid")


def test_a_token_for_another_room_says_it_does_not_give_access_to_this_one(browser, shots):
    page = browser("Ann", wait_open=False, query={"token": mint("editor", room="synth")})
    refused(page, "wrong_room", "Your link does not give access to room 'demo'", "no access to this room")
    link = page.find(".notice-card a.button-link")
    assert link.text == "Open room 'synth'"
    shoot(page, "wrong-room")


def test_without_a_way_to_refresh_a_token_ending_soon_shows_when_the_access_ends(browser, shots):
    page = browser("Ann", query={"token": mint("editor", ttl=100)})
    note = page.find("#access-note")
    page.wait(note.is_displayed, what="#access-note shown")
    assert note.text.startswith("Your access ends at ")
    expected = page.driver.execute_script(
        "const d = new Date(window.tandem.access.expiresAt);"
        "return String(d.getHours()).padStart(2, '0') + ':' + String(d.getMinutes()).padStart(2, '0');")
    assert note.text == f"Your access ends at {expected}."
    assert page.connection_state() == "open", "the warning is not blocking"
    shoot(page, "ends-soon")


def test_with_a_refresh_address_the_page_renews_its_token_before_exp(browser, admin_api):
    fresh = mint("editor", ttl=3600)
    # The page's fetch of ?refresh= is answered here: the server has no such endpoint,
    # the page only needs a same-origin address that answers a token as text.
    stub = """
        window.__refreshCalls = [];
        const realFetch = window.fetch.bind(window);
        window.fetch = (url, init) => {
            if (String(url).includes('/e2e-refresh')) {
                window.__refreshCalls.push({url: String(url), credentials: init && init.credentials});
                return Promise.resolve(new Response(%s + '\\n', {status: 200}));
            }
            return realFetch(url, init);
        };
    """ % json.dumps(fresh)
    old = mint("editor", ttl=63)  # the refresh is due a minute before exp: about 3 s from now
    page = browser("Ann", query={"token": old, "refresh": "/e2e-refresh"}, init_script=stub)
    page.wait(lambda: page.driver.execute_script("return window.tandem.access.token;") == fresh,
              what="the fresh token acknowledged by the server")
    calls = page.driver.execute_script("return window.__refreshCalls;")
    assert len(calls) == 1 and calls[0]["credentials"] == "include", calls
    assert page.driver.execute_script("return sessionStorage.getItem('tandem.token');") == fresh
    assert not page.find("#access-note").is_displayed()
    assert page.connection_state() == "open"
    page.focus(page.thumb("size", "index"))
    page.keys(Keys.ARROW_RIGHT)
    admin_api.wait_state("size", lambda s: s["value"] == 80, what="a step after the refresh")


@pytest.mark.tandem_flags()  # auth off
def test_with_auth_off_a_page_without_a_token_behaves_as_before(browser, server):
    a, b = browser("Ann"), browser("Bob")
    for page in (a, b):
        assert role_badge(page) is None
        assert "read-only" not in (page.find("body").get_attribute("class") or "").split()
        assert page.thumb("gain", "value").get_attribute("aria-readonly") is None
    a.drag("gain", "value", [(a.track_width("gain") * 0.25, 0.3)]).join()
    state = server.wait_state("gain", lambda s: s["value"] > 0.6, what="gain dragged up")
    b.wait_now("gain", "value", state["value"])
