"""Tandem's controls in someone else's page (web/embed.js, docs/embedding.md).

The host page is served by a Python http.server on another port than Tandem,
so it is another origin: the server runs with `--allow-origin` of that origin
and `--rooms examples` (the synth room), the page loads
`http://127.0.0.1:PORT/embed.js` cross-origin (its imports and the API answer
with `Access-Control-Allow-Origin`), and its `<tandem-control>` and
`<tandem-room>` elements draw the room's cards in their shadow roots.

Chromium 1 opens the host page (examples/embed.html with the test server's
address in place of 127.0.0.1:8080), Chromium 2 the room page of the same
room. A drag in the embedded control is seen live by the room page (ghost,
preview) and commits; a drag on the room page is seen live by the embedded
control; the host page's own canvas follows the `tandem-change` events. With
tokens on, elements with an editor's token work, a viewer's are read only,
and one without a token says it was refused. Screenshots:
test-output/e2e/embed-*.png.

The drag on the host page is made twice: once as one ActionChains gesture
(press, moves, release) checked when it is over, and once with DevTools
mouse events (Input.dispatchMouseEvent, what chromedriver's actions send too),
which keep the button down between commands, so that the room page can be
checked while the host page still holds the thumb, however slow the machine.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from pytests.support import free_port

from .axe import color_scheme, report, violations
from .tokens import mint_token, secret_path, write_secret

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "embed.html"
SECRET = b"e2e-only secret: tandem embedded elements 0123456789abcdef"
SECRET_FILE = secret_path("embed")
AUTH = pytest.mark.tandem_flags("--auth-secret-file", str(SECRET_FILE))

# Records what the elements tell the host page, and every WebSocket it opens (to count them):
# run in every page before its own scripts.
RECORDER = """
window.__embed = { changes: [], statuses: [], sockets: [] };
document.addEventListener("tandem-change", (e) => window.__embed.changes.push(e.detail), true);
document.addEventListener("tandem-status", (e) => window.__embed.statuses.push(e.detail), true);
const NativeWebSocket = window.WebSocket;
window.WebSocket = class extends NativeWebSocket {
  constructor(url, protocols) { super(url, protocols); window.__embed.sockets.push(String(url)); }
};
"""


# --------------------------------------------------------------------------
# The host site: another origin, its pages given by each test
# --------------------------------------------------------------------------


class HostSite:
    """A Python http.server on a port of its own, in a thread: `pages[path] = html`."""

    def __init__(self) -> None:
        self.pages: dict[str, str] = {}
        pages = self.pages

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server's name
                html = pages.get(self.path.split("?")[0])
                if html is None:
                    self.send_error(404)
                    return
                body = html.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return self.origin + path

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def host():
    site = HostSite()
    write_secret(SECRET_FILE, SECRET)
    yield site
    site.close()
    SECRET_FILE.unlink(missing_ok=True)


@pytest.fixture(autouse=True)
def _serve_the_host(request, host):
    """Every server of this module accepts the host site's origin and serves examples/ (synth):
    the test's own tandem_flags (auth) and these, as the one marker the `server` fixture reads
    (this autouse fixture is set up before it)."""
    own = request.node.get_closest_marker("tandem_flags")
    flags = (*(own.args if own else ()), "--rooms", "examples", "--allow-origin", host.origin)
    request.node.add_marker(pytest.mark.tandem_flags(*flags), append=False)


def example_page(server) -> str:
    """examples/embed.html as a developer would serve it, pointed at the test's server."""
    html = EXAMPLE.read_text(encoding="utf-8")
    assert "http://127.0.0.1:8080/embed.js" in html
    return html.replace("http://127.0.0.1:8080", server.http)


def open_host(browser, host, path: str, name: str = "Host"):
    """Chromium 1: a Page (the conftest's helpers, screenshots on failure) showing the host page.
    It starts on the room page of `demo` (the fixture's way in), then goes to the host site."""
    page = browser(name, room="demo", wait_open=False, init_script=RECORDER)
    page.driver.get(host.url(path))
    return page


# --------------------------------------------------------------------------
# Reading the shadow roots
# --------------------------------------------------------------------------

# The element `host` (a CSS selector in the host page), then `inner` in its shadow root.
SHADOW_JS = """
const el = document.querySelector(arguments[0]);
const root = el && el.shadowRoot;
return root ? root.querySelector(arguments[1]) : null;
"""


def shadow(page, host_css: str, inner: str):
    found = page.driver.execute_script(SHADOW_JS, host_css, inner)
    if found is None:
        raise LookupError(f"{host_css} >>> {inner}")
    return found


def shadow_all(page, host_css: str, inner: str) -> list:
    return page.driver.execute_script("""
        const el = document.querySelector(arguments[0]);
        return el && el.shadowRoot ? [...el.shadowRoot.querySelectorAll(arguments[1])] : [];""", host_css, inner)


def control_css(control: str) -> str:
    return f'tandem-control[control="{control}"]'


def thumb_of(page, host_css: str, control: str | None = None):
    inner = '[role="slider"][data-thumb="value"]'
    if control:
        inner = f'section.control[data-control="{control}"] {inner}'
    return shadow(page, host_css, inner)


def embedded_now(page, host_css: str, control: str | None = None) -> float:
    return float(thumb_of(page, host_css, control).get_attribute("aria-valuenow"))


def wait_embedded_now(page, host_css: str, predicate, what: str, control: str | None = None) -> float:
    def now():
        try:
            return embedded_now(page, host_css, control)
        except Exception:  # noqa: BLE001 - only for the message
            return None
    page.wait(lambda: predicate(embedded_now(page, host_css, control)), what=lambda: f"{host_css} {what} (now {now()})")
    return embedded_now(page, host_css, control)


def connection_states(page) -> list[str]:
    return page.driver.execute_script(
        "return [...document.querySelectorAll('tandem-control, tandem-room')].map((e) => e.connectionState);")


def wait_elements_open(page, count: int) -> None:
    page.wait(lambda: connection_states(page) == ["open"] * count,
              what=lambda: f"{count} elements open (now {connection_states(page)})")


def canvas_value(page, key: str) -> float | None:
    value = page.driver.execute_script("return document.getElementById('scope').dataset[arguments[0]];", key)
    return None if value is None else float(value)


def changes(page, control: str) -> list[dict]:
    return page.driver.execute_script(
        "return window.__embed.changes.filter((d) => d.control === arguments[0]);", control)


# --------------------------------------------------------------------------
# Pointer input on an element inside a shadow root
# --------------------------------------------------------------------------


class Mouse:
    """The left button pressed on an element, moved and released through DevTools input
    (trusted mouse and pointer events; the button stays down between commands)."""

    def __init__(self, page):
        self.page = page
        self.x = self.y = 0.0

    def _send(self, kind: str, buttons: int) -> None:
        self.page.driver.execute_cdp_cmd("Input.dispatchMouseEvent", {
            "type": kind, "x": self.x, "y": self.y, "button": "left" if buttons or kind == "mouseReleased" else "none",
            "buttons": buttons, "clickCount": 1 if kind != "mouseMoved" else 0, "pointerType": "mouse"})

    def press(self, element) -> None:
        self.page.scroll_to(element)
        rect = self.page.driver.execute_script("return arguments[0].getBoundingClientRect().toJSON();", element)
        self.x, self.y = rect["x"] + rect["width"] / 2, rect["y"] + rect["height"] / 2
        self._send("mouseMoved", 0)
        self._send("mousePressed", 1)

    def move(self, dx: float, steps: int = 4) -> None:
        x0 = self.x
        for i in range(1, steps + 1):
            self.x = x0 + dx * i / steps
            self._send("mouseMoved", 1)
            self.page.frames(1)  # a hand moves about once per frame

    def release(self) -> None:
        self._send("mouseReleased", 0)


def focus_in_shadow(page, element) -> None:
    page.scroll_to(element)
    page.driver.execute_script("arguments[0].focus();", element)
    page.wait(lambda: page.driver.execute_script("return arguments[0].getRootNode().activeElement === arguments[0];", element),
              what="focus on the embedded thumb")


# --------------------------------------------------------------------------
# The tests
# --------------------------------------------------------------------------


def test_embedded_controls_drive_and_follow_the_room(server, browser, host, shots):
    host.pages["/embed.html"] = example_page(server)
    page = open_host(browser, host, "/embed.html")
    ann = browser("Ann", room="synth")

    # Two <tandem-control> and a <tandem-room>, all live, over ONE WebSocket (same server, room, name).
    wait_elements_open(page, 3)
    sockets = page.driver.execute_script("return window.__embed.sockets.filter((u) => u.includes('/rooms/synth'));")
    assert len(sockets) == 1, sockets
    assert sockets[0].startswith(f"ws://127.0.0.1:{server.port}/rooms/synth?name=Scope%20page"), sockets
    page.wait(lambda: server.room("synth")["present"] == 2, what="the host page and Ann in the room")

    # The cards are the room page's: role=slider with its label and value, in the shadow roots.
    page.wait(lambda: embedded_now(page, control_css("cutoff")) == 1000 and embedded_now(page, control_css("resonance")) == 20
              and shadow(page, "tandem-room", '[data-control="level"] [role="meter"]').get_attribute("aria-valuenow") == "-12",
              what="the embedded cards drawn")
    for control, label, value in (("cutoff", "Cutoff", 1000), ("resonance", "Resonance", 20)):
        thumb = thumb_of(page, control_css(control))
        assert thumb.get_attribute("aria-label") == label
        assert float(thumb.get_attribute("aria-valuenow")) == value
        assert thumb.get_attribute("aria-valuemin") is not None and thumb.get_attribute("aria-valuemax") is not None
        assert thumb.get_attribute("tabindex") == "0"
        assert "thumb" in (thumb.get_attribute("part") or "").split()
        label_el = shadow(page, control_css(control), ".control-label")
        assert label_el.text == label and "label" in label_el.get_attribute("part").split()
    assert page.driver.execute_script(f"return document.querySelector('{control_css('cutoff')}').value;") == 1000
    room_cards = shadow_all(page, "tandem-room", "section.control[data-control]")
    assert [c.get_attribute("data-control") for c in room_cards] == \
        ["waveform", "trigger", "filter", "cutoff", "resonance", "space", "level"]
    meter = shadow(page, "tandem-room", 'section.control[data-control="level"] [role="meter"]')
    assert float(meter.get_attribute("aria-valuenow")) == -12
    assert shadow(page, "tandem-room", ".embed-title").text == "Synth tuning"
    # The host page's canvas follows the events from the start.
    page.wait(lambda: canvas_value(page, "cutoff") == 1000 and canvas_value(page, "resonance") == 20,
              what="the canvas drawn from the first tandem-change events")

    # 1. A whole ActionChains drag on the embedded Resonance: it commits, the room page shows it.
    resonance = thumb_of(page, control_css("resonance"))
    page.scroll_to(resonance)
    ActionChains(page.driver, duration=30).move_to_element(resonance).click_and_hold() \
        .move_by_offset(15, 0).move_by_offset(15, 0).move_by_offset(15, 0).move_by_offset(15, 0).release().perform()
    committed = server.wait_state("resonance", lambda s: s["value"] > 30, room="synth",
                                  what="resonance moved up by the embedded drag")["value"]
    ann.wait_now("resonance", "value", committed)
    wait_embedded_now(page, control_css("resonance"), lambda v: v == committed, f"== {committed}")
    wait_embedded_now(page, "tandem-room", lambda v: v == committed, f"== {committed}", control="resonance")
    page.wait(lambda: canvas_value(page, "resonance") == committed, what=f"the canvas's resonance {committed}")
    assert changes(page, "resonance")[-1] == {
        "control": "resonance", "value": committed, "state": {"value": committed}, "preview": False}

    # 2. A held drag on the embedded Resonance: the room page sees the host's ghost and preview live.
    mouse = Mouse(page)
    mouse.press(thumb_of(page, control_css("resonance")))
    mouse.move(-40)
    ann.wait(lambda: [g.text for g in ann.all(ann.ghost_css("resonance", "value") + " .ghost-name")] == ["Scope page"],
             what="the host page's ghost on Ann's Resonance")
    wait_embedded_now(page, control_css("resonance"), lambda v: v < committed, f"< {committed} (the preview)")
    page.frames()  # every move drawn
    held = embedded_now(page, control_css("resonance"))
    ann.wait_now("resonance", "value", held)
    assert server.state("resonance", room="synth")["value"] == committed, "committed while still held"
    mouse.release()
    final = server.wait_state("resonance", lambda s: s["value"] != committed, room="synth",
                              what="the held drag committed")["value"]
    assert final == held
    ann.wait(lambda: not ann.ghosts("resonance", "value"), what="the ghost gone on release")
    ann.wait_now("resonance", "value", final)

    # 3. A drag on the room page: the embedded Cutoff (and the room element's) follow it live.
    before = embedded_now(page, control_css("cutoff"))
    ann.pointer_down("cutoff", "value")
    ann.pointer_move(-150)
    page.wait(lambda: [g.text for g in shadow_all(page, control_css("cutoff"), '.ghost[data-thumb="value"] .ghost-name')] == ["Ann"],
              what="Ann's ghost on the embedded Cutoff")
    page.wait(lambda: [g.text for g in shadow_all(page, "tandem-room", 'section.control[data-control="cutoff"] .ghost .ghost-name')] == ["Ann"],
              what="Ann's ghost on the room element's Cutoff")
    wait_embedded_now(page, control_css("cutoff"), lambda v: v < before, f"< {before} (Ann's preview)")
    page.wait(lambda: any(d["preview"] and d["value"] < before for d in changes(page, "cutoff")),
              what="a tandem-change with preview: true while Ann drags")
    page.wait(lambda: canvas_value(page, "cutoff") < before, what="the canvas following Ann's preview")
    page.full_page_screenshot("embed-host.png")
    ann.pointer_up()
    cutoff = server.wait_state("cutoff", lambda s: s["value"] < before, room="synth", what="Ann's drag committed")["value"]
    wait_embedded_now(page, control_css("cutoff"), lambda v: v == cutoff, f"== {cutoff}")
    page.wait(lambda: not shadow_all(page, control_css("cutoff"), ".ghost"), what="Ann's ghost gone")
    page.wait(lambda: changes(page, "cutoff")[-1] == {"control": "cutoff", "value": cutoff, "state": {"value": cutoff}, "preview": False},
              what=lambda: f"the last tandem-change: committed {cutoff} (now {changes(page, 'cutoff')[-1:]})")
    page.wait(lambda: canvas_value(page, "cutoff") == cutoff, what=f"the canvas's cutoff {cutoff}")

    # 4. Keys on the embedded thumb: → steps Resonance by one, as on the room page.
    focus_in_shadow(page, thumb_of(page, control_css("resonance")))
    page.keys(Keys.ARROW_RIGHT)
    stepped = server.wait_state("resonance", lambda s: abs(s["value"] - (final + 1)) < 1e-6, room="synth",
                                what=f"resonance {final} + 1")["value"]
    ann.wait_now("resonance", "value", stepped)

    page.driver.execute_script("window.scrollTo(0, 0);")
    page.full_page_screenshot("embed-host-after.png")


def test_embedded_status_reconnects(server, browser, host):
    """The elements show the connection's state, and come back after the server restarts, as the page does."""
    host.pages["/embed.html"] = example_page(server)
    page = open_host(browser, host, "/embed.html")
    wait_elements_open(page, 3)
    status = lambda: shadow(page, "tandem-room", ".embed-status")  # noqa: E731
    page.wait(lambda: status().get_attribute("data-state") == "open" and status().text == "live",
              what="the room element's status: live")
    server.stop()
    page.wait(lambda: set(connection_states(page)) <= {"reconnecting", "connecting"},
              what=lambda: f"the elements reconnecting (now {connection_states(page)})")
    page.wait(lambda: status().get_attribute("data-state") == "reconnecting" and status().text.startswith("reconnecting"),
              what=lambda: f"the room element's status: reconnecting (now {status().text!r})")
    page.wait(lambda: "stale" in shadow(page, control_css("cutoff"), ".tandem-root").get_attribute("class").split(),
              what="the embedded control marked stale")
    server.start()
    wait_elements_open(page, 3)
    page.wait(lambda: status().text == "live", what=lambda: f"the room element's status: live (now {status().text!r})")
    page.wait(lambda: "stale" not in shadow(page, control_css("cutoff"), ".tandem-root").get_attribute("class").split(),
              what="the embedded control no longer stale")
    states = [s["state"] for s in page.driver.execute_script("return window.__embed.statuses;")]
    assert "reconnecting" in states and states[-1] == "open", states


def token_page(server, tokens: dict[str, str | None]) -> str:
    """A plain host page: one <tandem-control> per entry (its id → its token, or none)."""
    rows = []
    for key, token in tokens.items():
        attr = f' token="{token}"' if token else ""
        rows.append(f'<section><h2>{key}</h2><tandem-control id="{key}" room="synth" control="resonance" '
                    f'name="{key}"{attr}></tandem-control></section>')
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tokens</title>
<script type="module" src="{server.http}/embed.js"></script>
<style>
  body {{ margin: 24px; font: 16px system-ui, sans-serif; background: #eef1f5; }}
  main {{ display: grid; grid-template-columns: repeat(3, 1fr); gap: 20px; align-items: start; }}
  h2 {{ font-size: 14px; margin: 0 0 8px; }}
</style></head>
<body><main>{''.join(rows)}</main></body></html>"""


@AUTH
def test_token_attribute_with_auth_on(server, browser, host):
    server.token = mint_token(SECRET, "admin", room="*", sub="e2e-admin")
    editor = mint_token(SECRET, "editor", room="synth", sub="u-editor")
    viewer = mint_token(SECRET, "viewer", room="synth", sub="u-viewer")
    host.pages["/tokens.html"] = token_page(server, {"editor": editor, "viewer": viewer, "none": None})
    page = open_host(browser, host, "/tokens.html")

    state = lambda key: page.driver.execute_script(f"return document.getElementById('{key}').connectionState;")  # noqa: E731
    page.wait(lambda: (state("editor"), state("viewer"), state("none")) == ("open", "open", "closed"),
              what=lambda: f"editor, viewer open and no token refused (now {state('editor')}, {state('viewer')}, {state('none')})")

    # Without a token: refused, and it says so clearly (and does not retry).
    card = page.wait(lambda: shadow(page, "#none", '.notice-card[data-kind="missing"]'), what="the refusal card")
    assert card.get_attribute("role") == "alert"
    assert shadow(page, "#none", ".notice-card h2").text == "Refused: this room needs a token"
    assert 'token="' in shadow(page, "#none", ".notice-card p").text
    assert shadow(page, "#none", ".embed-status").text == "token needed"
    assert not shadow_all(page, "#none", "section.control")
    refusals = [s for s in page.driver.execute_script("return window.__embed.statuses;") if s["refusal"]]
    assert [s["refusal"] for s in refusals] == ["missing"]
    page.after_page_timer(1500)  # any retry's timer (0.5 s, then 1 s) has fired by then
    assert state("none") == "closed"
    sockets = page.driver.execute_script("return window.__embed.sockets;")
    assert len([u for u in sockets if "name=none" in u]) == 1, sockets
    assert len([u for u in sockets if "token=" in u]) == 2, sockets

    # A viewer's token: read only, as on the room page.
    thumb = page.wait(lambda: thumb_of(page, "#viewer"), what="the viewer's card")
    page.wait(lambda: thumb.get_attribute("aria-readonly") == "true", what="the viewer's thumb aria-readonly")
    assert shadow(page, "#viewer", ".badge-readonly").is_displayed()
    assert "read-only" in shadow(page, "#viewer", ".tandem-root").get_attribute("class").split()
    assert thumb_of(page, "#editor").get_attribute("aria-readonly") is None

    # An editor's token: its keys commit.
    focus_in_shadow(page, thumb_of(page, "#editor"))
    page.keys(Keys.PAGE_UP)
    server.wait_state("resonance", lambda s: s["value"] == 30, room="synth", what="resonance 30 by the editor")
    wait_embedded_now(page, "#viewer", lambda v: v == 30, "== 30 (the viewer follows)")
    page.full_page_screenshot("embed-tokens.png")



def plain_page(server) -> str:
    """A host page that leaves the elements' colours alone: light or dark with the system."""
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Plain host</title>
<meta name="color-scheme" content="light dark">
<script type="module" src="{server.http}/embed.js"></script>
<style>
  body {{ margin: 24px; font: 16px system-ui, sans-serif; background: #fff; color: #111; }}
  @media (prefers-color-scheme: dark) {{ body {{ background: #101218; color: #eee; }} }}
  tandem-control {{ max-width: 360px; margin-bottom: 24px; }}
</style></head>
<body><h1>Plain host</h1>
<tandem-control room="synth" control="cutoff" name="Plain"></tandem-control>
<tandem-room room="synth" name="Plain"></tandem-room>
</body></html>"""


@pytest.mark.parametrize("which", ["example", "plain"])
def test_embedded_cards_pass_axe(server, browser, host, which):
    """axe-core over the elements and their shadow roots with the system in dark mode: the example
    (theme="light", its own colours) and a plain page (the elements' dark defaults). Each kind of
    element is checked on its own: the example shows Cutoff twice (alone and in the room), two
    groups of the same name that axe's landmark-unique would count as one landmark twice."""
    host.pages["/axe.html"] = example_page(server) if which == "example" else plain_page(server)
    page = open_host(browser, host, "/axe.html")
    wait_elements_open(page, 3 if which == "example" else 2)
    color_scheme(page, "dark")
    theme = "light" if which == "example" else "dark"
    page.wait(lambda: shadow(page, "tandem-room", ".tandem-root").get_attribute("data-theme") == theme
              and len(shadow_all(page, "tandem-room", "section.control")) == 7,
              what=f"the room element drawn in its {theme} theme")
    if which == "plain":
        page.full_page_screenshot("embed-plain-dark.png")
    for context in ("tandem-control", "tandem-room"):
        found = violations(page, context=context)
        assert not found, f"{context}:\n" + report(found)


def test_unreachable_server_says_what_to_check(server, browser, host):
    """An element whose server never answers keeps retrying and says what to check (a developer's typo,
    a server not started, or one started without --allow-origin)."""
    nowhere = f"http://127.0.0.1:{free_port()}"
    host.pages["/nowhere.html"] = f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Nowhere</title>
<script type="module" src="{server.http}/embed.js"></script></head>
<body><tandem-room server="{nowhere}" room="synth"></tandem-room></body></html>"""
    page = open_host(browser, host, "/nowhere.html")
    hint = lambda: shadow(page, "tandem-room", ".embed-hint")  # noqa: E731
    page.wait(lambda: hint().is_displayed(), what="the hint")
    assert hint().text == (f"Cannot connect to {nowhere}. Is Tandem running there, and started with "
                           f"--allow-origin {host.origin}? Retrying…")
    assert shadow(page, "tandem-room", ".embed-status").text.startswith("reconnecting")
    assert page.driver.execute_script("return document.querySelector('tandem-room').connectionState;") == "reconnecting"
    page.screenshot("embed-unreachable.png")
