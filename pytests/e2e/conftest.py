"""Fixtures for Tandem's end-to-end browser tests: the real server, the real web
client (web/) and headless Chromium driven by Selenium.

- `server`: a `tandem --port N --data :memory:` started from the project root
  (so it serves web/), N a free port found by binding a socket to port 0
  first, so that the server can be stopped and started again on the same port
  (`server.stop()`, `server.start()`). In memory, every test starts from the
  demo room's initial state; `@pytest.mark.tandem_data("file")` gives the
  test a fresh SQLite file instead (kept across a restart). Stopped with
  SIGTERM at teardown, which must exit 0. Nothing is written to ./data/.
- `browser(name, room="demo")`: a `Page` — its own headless Chromium at
  http://127.0.0.1:PORT/?room=ROOM&name=NAME, returned once `#connection` is `open`.
  `query={...}` adds to the page's query (e.g. `token`), `wait_open=False`
  returns at once (for pages that are refused), `init_script` runs in the page
  before its own scripts (DevTools `Page.addScriptToEvaluateOnNewDocument`).
  Every browser is quit at teardown; when the test failed, each open page is
  first saved as test-output/e2e/FAILED-<test>-<name>.png.
- `ws_client(name)`: a `WsClient`, a tandem.v1 WebSocket client (websockets'
  sync API) that holds a thumb without a browser, or watches the room's live
  gestures; closed at teardown.
- `shots`: the screenshot folder, test-output/e2e/ (git-ignored).

Tests use only these fixtures and the objects they return (the helpers live
on `Page`, `Gesture`, `Server` and `WsClient`), never `import conftest`.
See the comment above `Page.drag` for how pointer drags are made.

Waits are explicit (WebDriverWait / polling with a deadline) everywhere, for the
event itself, with generous bounds (WAIT, 30 s) that only a hang reaches: the
suite must pass on a loaded machine. A check that something did NOT happen uses a
barrier, never a sleep: `Page.barrier()` (the server has applied everything the
page sent), `Page.frames()` (the page has drawn what it scheduled),
`Page.after_page_timer()` (the page's own earlier timers have fired) and
`WsClient.barrier()` (the server has sent this client everything it had for it).
Selenium Manager is never used: the driver is Debian's /usr/bin/chromedriver
and the browser /usr/bin/chromium, so nothing is downloaded.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Callable
from urllib.parse import quote, urlencode

import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait
from websockets.sync.client import connect as ws_connect

from pytests.support import WAIT, Lines, free_port, stop

ROOT = Path(__file__).resolve().parents[2]
BINARY = Path(os.environ.get("TANDEM_BINARY", ROOT / ".build" / "debug" / "tandem"))
SHOTS = ROOT / "test-output" / "e2e"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
START_LINE = re.compile(r"^info tandem listening on http://127\.0\.0\.1:(\d+)")

# Never let Selenium Manager reach out (there is no internet beyond Debian and PyPI).
os.environ.setdefault("SE_OFFLINE", "true")


# --------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------


class Server:
    """`tandem --port PORT --data DATA` run from the project root; start() and stop() keep the
    same port and data (a SQLite file keeps the rooms across a restart, `:memory:` does not)."""

    def __init__(self, binary: Path, port: int, data: str, flags: tuple[str, ...] = ()):
        self.binary = binary
        self.port = port
        self.data = data
        self.flags = tuple(flags)
        self.http = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen | None = None
        # Every start's stderr, in one list: a restart's lines follow the earlier ones.
        self.stderr_lines: list[str] = []
        self._stderr: Lines | None = None
        # With auth on (a test's --auth-secret-file), the token the API helpers send as a Bearer.
        self.token: str | None = None
        self.start()

    def start(self, timeout: float = WAIT) -> None:
        """Starts the server on self.port and waits for its start line (retrying while the port is not free yet)."""
        assert not self.running(), "server already running"
        deadline = time.monotonic() + timeout
        while True:
            mark = len(self.stderr_lines)
            proc = subprocess.Popen(
                # --data :memory: (the default here): every test, and every restart, starts from the
                # initial demo room; a file keeps the room across restarts.
                [str(self.binary), "--port", str(self.port), "--data", self.data, *self.flags],
                cwd=str(ROOT), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE, text=True, encoding="utf-8", errors="replace", bufsize=1)
            self.proc = proc
            self._stderr = Lines(proc, proc.stderr, "stderr", self.stderr_lines)
            try:
                line = self._stderr.wait_for(START_LINE.search, max(0.0, deadline - time.monotonic()), start=mark)
            except AssertionError:
                line = None
            if line is not None:
                assert int(START_LINE.search(line).group(1)) == self.port, line
                return
            if proc.poll() is None:  # still running but silent: give up on it
                stop(proc, signal.SIGKILL, timeout=5)
                raise RuntimeError(f"tandem printed no start line within {timeout} s:\n"
                                   + "\n".join(self.stderr_lines[-20:]))
            # It exited, most likely because the port is not free again yet (a restart): retry
            # (the pause only spaces the attempts; the deadline bounds them).
            if time.monotonic() > deadline:
                raise RuntimeError(f"tandem did not start on port {self.port}:\n" + "\n".join(self.stderr_lines[-20:]))
            time.sleep(0.2)

    def wait_for_log(self, predicate: Callable[[str], Any] | str, timeout: float = WAIT) -> str:
        """The first stderr line of this start that matches `predicate` (a callable or a regex)."""
        assert self._stderr is not None
        return self._stderr.wait_for(predicate, timeout)

    def sibling(self) -> "Server":
        """Another server on another free port with the same data (stop it yourself)."""
        return Server(self.binary, free_port(), self.data)

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout: float = WAIT) -> int | None:
        """SIGTERM, then the exit code (None if it had to be killed)."""
        if self.proc is None:
            return 0
        return stop(self.proc, signal.SIGTERM, timeout)

    # -- the HTTP API

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if data else {}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        req = urllib.request.Request(self.http + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=WAIT) as resp:
                return resp.status, json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as error:
            raw = error.read()
            try:
                return error.code, json.loads(raw)
            except ValueError:
                return error.code, raw.decode(errors="replace")

    def room(self, room: str = "demo") -> dict:
        status, body = self.request("GET", f"/api/rooms/{room}")
        assert status == 200, (status, body)
        return body

    def rev(self, room: str = "demo") -> int:
        return self.room(room)["rev"]

    def state(self, control: str, room: str = "demo") -> dict:
        """The committed state of one control, as the API reports it."""
        for c in self.room(room)["controls"]:
            if c["id"] == control:
                return c["state"]
        raise KeyError(control)

    def put(self, control: str, value: Any, thumb: str | None = None, room: str = "demo") -> dict:
        body = {"value": value} if thumb is None else {"thumb": thumb, "value": value}
        status, answer = self.request("PUT", f"/api/rooms/{room}/controls/{control}", body)
        assert status == 200, (status, answer)
        return answer

    def wait_state(self, control: str, predicate: Callable[[dict], bool], timeout: float = WAIT,
                   what: str = "", room: str = "demo") -> dict:
        deadline = time.monotonic() + timeout
        while True:
            state = self.state(control, room=room)
            if predicate(state):
                return state
            if time.monotonic() > deadline:
                raise AssertionError(f"API state of {control} in room {room} never became {what or predicate}: last {state}")
            time.sleep(0.05)


@pytest.fixture(scope="session")
def tandem_binary() -> Path:
    if not (BINARY.is_file() and os.access(BINARY, os.X_OK)):
        result = subprocess.run(["swift", "build", "--product", "tandem"], cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)
        if result.returncode != 0:
            pytest.fail("`swift build --product tandem` failed:\n" + result.stdout[-3000:])
    return BINARY


def pytest_configure(config):
    config.addinivalue_line("markers", 'tandem_data(kind): the server\'s --data for this test: ":memory:" '
                                       '(the default) or "file", a fresh SQLite file of its own')
    config.addinivalue_line("markers", "tandem_flags(*flags): more command-line flags for this test's server")


@pytest.fixture
def server(tandem_binary, tmp_path, request):
    """A server on a free port. Its data is in memory (every test starts from the initial demo
    room, and so does every restart) unless the test is marked `tandem_data("file")`: then a
    fresh SQLite file of the test's own, which keeps the room across a restart."""
    marker = request.node.get_closest_marker("tandem_data")
    kind = marker.args[0] if marker else ":memory:"
    data = str(tmp_path / "tandem.db") if kind == "file" else kind
    flags = request.node.get_closest_marker("tandem_flags")
    srv = Server(tandem_binary, free_port(), data, flags.args if flags else ())
    yield srv
    rc = srv.stop()
    assert rc == 0, f"server exited {rc} on SIGTERM\n" + "\n".join(srv.stderr_lines[-20:])


# --------------------------------------------------------------------------
# Browsers
# --------------------------------------------------------------------------


def _css_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Page:
    """One headless Chromium showing the web client, with helpers named after the DOM contract."""

    def __init__(self, driver: webdriver.Chrome, name: str, server: Server):
        self.driver = driver
        self.name = name
        self.server = server
        self.closed = False
        self._pointer = [0.0, 0.0]

    # -- waiting

    def wait(self, condition: Callable[[], Any], timeout: float = WAIT,
             what: str | Callable[[], str] = "") -> Any:
        """Polls `condition()` (stale elements and missing ones count as not yet) until it is truthy.
        `what` names the wait in the failure message; a callable is asked at the timeout (for "now …")."""

        def attempt(_driver):
            try:
                return condition()
            except (StaleElementReferenceException, LookupError, ValueError, TypeError):
                return False

        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.05).until(attempt)
        except TimeoutException:
            if callable(what):
                try:
                    what = what()
                except Exception as error:  # noqa: BLE001 - only for the message
                    what = f"(description failed: {error!r})"
            raise AssertionError(f"[{self.name}] timed out after {timeout} s waiting for {what or condition}") from None

    # -- finding things

    def find(self, css: str, within: WebElement | None = None) -> WebElement:
        found = (within or self.driver).find_elements(By.CSS_SELECTOR, css)
        if not found:
            raise LookupError(css)
        return found[0]

    def all(self, css: str) -> list[WebElement]:
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def exists(self, css: str) -> bool:
        return bool(self.all(css))

    @staticmethod
    def section_css(control: str) -> str:
        return f'section.control[data-control={_css_str(control)}]'

    def section(self, control: str) -> WebElement:
        return self.find(self.section_css(control))

    def in_section(self, control: str, css: str) -> WebElement:
        return self.find(f"{self.section_css(control)} {css}")

    def thumb_css(self, control: str, thumb: str) -> str:
        return f'{self.section_css(control)} [role="slider"][data-thumb={_css_str(thumb)}]'

    def thumb(self, control: str, thumb: str) -> WebElement:
        return self.find(self.thumb_css(control, thumb))

    def attr(self, control: str, thumb: str, name: str) -> str:
        value = self.thumb(control, thumb).get_attribute(name)
        if value is None:
            raise LookupError(f"{control}.{thumb} has no {name}")
        return value

    def now(self, control: str, thumb: str) -> float:
        """The thumb's aria-valuenow as a number (the value it shows)."""
        return float(self.attr(control, thumb, "aria-valuenow"))

    def wait_now(self, control: str, thumb: str, expected: float, timeout: float = WAIT) -> float:
        self.wait(lambda: abs(self.now(control, thumb) - expected) < 1e-6, timeout,
                  lambda: f"{control}.{thumb} aria-valuenow == {expected} (now {self._safe_now(control, thumb)})")
        return self.now(control, thumb)

    def _safe_now(self, control: str, thumb: str) -> str:
        try:
            return self.attr(control, thumb, "aria-valuenow")
        except Exception:  # noqa: BLE001 - only for messages
            return "?"

    def text(self, control: str, css: str) -> str:
        """What a person reads in the element: its text, with the value of each text field in it
        in place (a card's value is an editable field: `.slider-value` is an input, a range's
        `.range-label` holds two of them)."""
        element = self.in_section(control, css)
        if element.tag_name != "input" and not element.find_elements(By.CSS_SELECTOR, "input"):
            return element.text
        return self.driver.execute_script("""
            const shown = (node) => {
              if (node.nodeType === Node.TEXT_NODE) return node.textContent;
              if (node.nodeType !== Node.ELEMENT_NODE || node.getClientRects().length === 0) return "";
              if (node.tagName === "INPUT") return " " + node.value + " ";
              return [...node.childNodes].map(shown).join("");
            };
            return shown(arguments[0]).replace(/\\s+/g, " ").trim();""", element)

    def ghost_css(self, control: str, thumb: str, by: str | None = None) -> str:
        by_part = f"[data-by={_css_str(by)}]" if by else ""
        return f'{self.section_css(control)} .ghost{by_part}[data-thumb={_css_str(thumb)}]'

    def ghosts(self, control: str, thumb: str, by: str | None = None) -> list[WebElement]:
        return self.all(self.ghost_css(control, thumb, by))

    def connection_state(self) -> str | None:
        found = self.all("#connection")
        return found[0].get_attribute("data-state") if found else None

    def wait_open(self, timeout: float = WAIT) -> None:
        self.wait(lambda: self.connection_state() == "open", timeout,
                  lambda: '#connection[data-state="open"] (now %r)' % (self.connection_state(),))

    # -- barriers: for checks that something did NOT happen (never a sleep)

    def frames(self, count: int = 2) -> None:
        """Waits until the page has drawn `count` more animation frames: whatever it had
        scheduled to draw (a render, a drag's pending move) has been drawn or sent by then."""
        self.driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            let left = arguments[0];
            const step = () => (--left <= 0 ? done(true) : requestAnimationFrame(step));
            requestAnimationFrame(step);""", count)

    def after_page_timer(self, ms: float) -> None:
        """Waits for a timer of `ms` set now in the page to fire. The page's timers fire in the
        order they are due (HTML's timer ordering), so any timer the page set before now and due
        within `ms` (a reconnect's backoff, say) has fired by then, however slow the machine."""
        self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1]; setTimeout(() => done(true), arguments[0]);", ms)

    def barrier(self) -> None:
        """Waits until the server has applied every message this page sent before now, then for
        the page to draw: a check that an action committed nothing can follow.

        Sends, on the page's own socket, an `auth` with the page's token (the protocol acknowledges
        it and changes nothing: with auth off it is ignored, with auth on it is the same token
        again) and waits for its `ack`. One connection's messages are applied in the order sent,
        so everything the page sent before it (a drag, a key, an undo) has been applied by then."""
        seq = self.driver.execute_script("""
            const t = window.tandem;
            const seq = t.model.nextSeq();
            return t.connection.send({type: "auth", seq, token: t.access.connectToken() ?? "barrier"}) ? seq : null;""")
        assert seq, f"[{self.name}] the page's connection is not open: no barrier"
        self.wait(lambda: self.driver.execute_script("return window.tandem.model.ack;") >= seq,
                  what=f"the ack of the barrier (seq {seq})")
        self.frames()

    def is_stale(self) -> bool:
        return "stale" in (self.driver.find_element(By.TAG_NAME, "body").get_attribute("class") or "").split()

    def my_client_id(self) -> str:
        """This page's client id, from the presence list's own entry (`li.me[data-client]`)."""
        return self.wait(lambda: self.find("#presence li.me").get_attribute("data-client"), what="#presence li.me")

    def presence(self) -> dict[str, dict]:
        """client id → {"text", "me", "away"} of every #presence li."""
        out = {}
        for li in self.all("#presence li[data-client]"):
            classes = (li.get_attribute("class") or "").split()
            out[li.get_attribute("data-client")] = {"text": li.text, "me": "me" in classes, "away": "away" in classes}
        return out

    # -- acting

    def scroll_to(self, element: WebElement) -> WebElement:
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center', inline: 'center'});", element)
        return element

    def focus(self, element: WebElement) -> WebElement:
        self.scroll_to(element)
        self.driver.execute_script("arguments[0].focus();", element)
        self.wait(lambda: self.driver.execute_script("return document.activeElement === arguments[0];", element),
                  what="focus")
        return element

    def keys(self, *keys: str) -> None:
        """Presses keys on whatever has the focus."""
        ActionChains(self.driver).send_keys(*keys).perform()

    def track_width(self, control: str) -> float:
        return self.in_section(control, ".track").size["width"]

    # Pointer drags.
    #
    # chromedriver drops the page's pointer capture at the start of every new
    # "perform actions" command (a `lostpointercapture` arrives with the next
    # move, while the button is still down), and the client rightly takes a lost
    # capture as the end of the drag (it cancels). So a drag is one
    # ActionChains.perform(): press, moves, pauses to hold, more moves, release,
    # run in a thread (`drag()`), while the test watches the *other* windows and
    # the server. chromedriver runs one command at a time per browser, so the
    # dragging window itself cannot be read until the gesture is over; where a
    # test must read or photograph the dragging window mid-drag it uses
    # `pointer_down` / `pointer_move` / `pointer_up`, the DevTools protocol's
    # Input.dispatchMouseEvent (trusted mouse and pointer events), which keeps
    # the capture between commands.

    def thumb_centre(self, control: str, thumb: str) -> tuple[float, float]:
        element = self.scroll_to(self.thumb(control, thumb))
        rect = self.driver.execute_script("return arguments[0].getBoundingClientRect().toJSON();", element)
        return rect["x"] + rect["width"] / 2, rect["y"] + rect["height"] / 2

    def _viewport_width(self) -> int:
        return self.driver.execute_script("return document.documentElement.clientWidth;")

    def drag(self, control: str, thumb: str, holds: list[tuple[float, float]], steps: int = 4,
             release: bool = True) -> "Gesture":
        """Starts, in a thread, one ActionChains gesture on a thumb: click_and_hold on its centre,
        then for each (dx, seconds) of `holds`: move to dx pixels right of the start (in `steps`
        move_by_offset steps, clamped to the viewport) and hold there that long; then release."""
        element = self.scroll_to(self.thumb(control, thumb))
        x0, _ = self.thumb_centre(control, thumb)
        width = self._viewport_width()
        chain = ActionChains(self.driver, duration=30).move_to_element(element).click_and_hold()
        at = 0
        for dx, seconds in holds:
            target = int(round(max(2, min(width - 2, x0 + dx)) - x0))
            previous = at
            for i in range(1, steps + 1):
                point = at + int(round((target - at) * i / steps))
                chain.move_by_offset(point - previous, 0)
                previous = point
            at = target
            chain.pause(seconds)
        if release:
            chain.release()
        return Gesture(self, chain)

    def pointer_down(self, control: str, thumb: str) -> None:
        """Mouse button down on a thumb's centre (DevTools input; stays down across commands)."""
        self._pointer = list(self.thumb_centre(control, thumb))
        self._mouse("mouseMoved", buttons=0)
        self._mouse("mousePressed", buttons=1, clickCount=1)

    def pointer_move(self, dx: float, steps: int = 4) -> None:
        """Moves the pressed mouse dx pixels (clamped to the viewport), in a few steps."""
        width = self._viewport_width()
        x0 = self._pointer[0]
        target = max(2, min(width - 2, x0 + dx))
        for i in range(1, steps + 1):
            self._pointer[0] = x0 + (target - x0) * i / steps
            self._mouse("mouseMoved", buttons=1)
            time.sleep(0.02)  # the scenario, not a wait: a hand moves about once per frame

    def pointer_up(self) -> None:
        self._mouse("mouseReleased", buttons=0, clickCount=1)

    def _mouse(self, type_: str, buttons: int, **extra) -> None:
        x, y = self._pointer
        self.driver.execute_cdp_cmd("Input.dispatchMouseEvent", {
            "type": type_, "x": x, "y": y, "button": "left" if (buttons or type_ == "mouseReleased") else "none",
            "buttons": buttons, "pointerType": "mouse", **extra})

    def screenshot(self, filename: str, element: WebElement | None = None) -> Path:
        SHOTS.mkdir(parents=True, exist_ok=True)
        path = SHOTS / filename
        if element is not None:
            self.scroll_to(element)
            ok = element.screenshot(str(path))
        else:
            ok = self.driver.save_screenshot(str(path))
        assert ok and path.stat().st_size > 0, f"screenshot {path} not written"
        return path

    def full_page_screenshot(self, filename: str) -> Path:
        """The whole document (beyond the viewport), through the DevTools protocol."""
        SHOTS.mkdir(parents=True, exist_ok=True)
        path = SHOTS / filename
        metrics = self.driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
        size = metrics.get("cssContentSize") or metrics["contentSize"]
        shot = self.driver.execute_cdp_cmd("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}})
        path.write_bytes(base64.b64decode(shot["data"]))
        assert path.stat().st_size > 0
        return path

    def set_viewport(self, width: int, height: int, mobile: bool = False) -> None:
        """The window to width×height, and the layout viewport to exactly that
        (a headless window's size includes its browser chrome)."""
        self.driver.set_window_size(width, height)
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
        self.wait(lambda: self.driver.execute_script("return window.innerWidth;") == width,
                  what=f"innerWidth {width}")

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            with contextlib.suppress(Exception):
                self.driver.quit()


class Gesture:
    """An ActionChains gesture performed in a thread; join() waits for it and raises what it raised."""

    def __init__(self, page: Page, chain: ActionChains):
        self.page = page
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(chain,), daemon=True)
        self.thread.start()

    def _run(self, chain: ActionChains) -> None:
        try:
            chain.perform()
        except BaseException as error:  # noqa: BLE001 - handed to join()
            self.error = error

    def done(self) -> bool:
        return not self.thread.is_alive()

    def join(self, timeout: float = 2 * WAIT) -> None:
        self.thread.join(timeout)
        assert not self.thread.is_alive(), f"[{self.page.name}] the gesture did not finish within {timeout} s"
        if self.error is not None:
            raise self.error


def _chrome_options() -> webdriver.ChromeOptions:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,800",
                "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--disable-background-networking",
                "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                "--disable-backgrounding-occluded-windows", "--hide-scrollbars", "--mute-audio"):
        options.add_argument(arg)
    return options


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report


@pytest.fixture
def browser(server, request):
    """Factory: `browser(name, room="demo")` → a Page whose #connection is open."""
    pages: list[Page] = []

    def open_(name: str, room: str = "demo", wait_open: bool = True, query: dict | None = None,
              init_script: str | None = None) -> Page:
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=_chrome_options())
        page = Page(driver, name, server)
        pages.append(page)
        driver.set_page_load_timeout(2 * WAIT)
        driver.set_script_timeout(2 * WAIT)  # execute_async_script (Page.frames and the like)
        if init_script:
            driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": init_script})
        # Always ?room=: "/" without it is the lobby (web/lobby.html).
        params = {"room": room, "name": name}
        params.update(query or {})
        driver.get(f"{server.http}/?{urlencode(params)}")
        if wait_open:
            page.wait_open()
        return page

    yield open_
    report = getattr(request.node, "rep_call", None)
    for page in pages:
        if page.closed:
            continue
        if report is not None and report.failed:
            with contextlib.suppress(Exception):
                page.screenshot(f"FAILED-{request.node.name}-{page.name}.png")
        page.close()


@pytest.fixture(scope="session", autouse=True)
def _clear_old_failure_shots():
    """Failure screenshots of an earlier run would mislead: remove them (only those; the rest are overwritten)."""
    if SHOTS.is_dir():
        for old in SHOTS.glob("FAILED-*.png"):
            with contextlib.suppress(OSError):
                old.unlink()


@pytest.fixture
def shots() -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS


# --------------------------------------------------------------------------
# A WebSocket client that holds thumbs
# --------------------------------------------------------------------------


class WsClient:
    """A tandem.v1 client over websockets' sync API, for what needs no browser: holding a thumb
    (`hold`) and watching the room (`preview`). A reader thread keeps every frame; while it holds
    a gesture it repeats its last move every 4 s (the server's hold lapses after 10 s)."""

    def __init__(self, server: Server, name: str, room: str = "demo"):
        self._stack = contextlib.ExitStack()
        self.ws = self._stack.enter_context(ws_connect(
            f"ws://127.0.0.1:{server.port}/rooms/{room}?name={quote(name)}",
            subprotocols=["tandem.v1"], open_timeout=WAIT, close_timeout=2))
        self.name = name
        self.frames: list[dict] = []
        self._cond = threading.Condition()
        self.seq = 0
        self._last_move: dict | None = None
        self._stop = threading.Event()
        self._send_lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._keepalive, daemon=True).start()
        self.welcome = self.expect(lambda f: f.get("type") == "welcome")
        self.client = self.welcome["client"]

    def _read(self) -> None:
        with contextlib.suppress(Exception):
            for message in self.ws:
                with self._cond:
                    self.frames.append(json.loads(message))
                    self._cond.notify_all()

    def _keepalive(self) -> None:
        while not self._stop.wait(4.0):
            if self._last_move is not None:
                with contextlib.suppress(Exception):
                    self.send(dict(self._last_move))

    def expect(self, predicate: Callable[[dict], bool], timeout: float = WAIT) -> dict:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for frame in self.frames:
                    if predicate(frame):
                        return frame
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{self.name}: no matching frame; got {self.frames[-5:]}")
                self._cond.wait(left)

    def send(self, message: dict) -> int:
        with self._send_lock:
            self.seq += 1
            message["seq"] = self.seq
            self.ws.send(json.dumps(message))
            return self.seq

    def barrier(self) -> None:
        """Waits until the server has sent this client everything it had for it before now: an
        `auth` (acknowledged and ignored with auth off, as in every test that uses WsClient),
        then the update carrying its `ack`. The server writes a member's frame with everything
        new for it up to then and its own `ack` together, so what the room showed this client
        before the barrier (someone's latest preview, say) is in `frames` once it returns."""
        seq = self.send({"type": "auth", "token": "barrier"})
        self.expect(lambda f: f.get("type") == "update" and (f.get("ack") or 0) >= seq)

    def hold(self, control: str, thumb: str | None = None, dx: float = 0.2) -> None:
        """begin + move (no end): the thumb stays held, with a preview dx along the track."""
        base = {"type": "drag", "control": control}
        if thumb:
            base["thumb"] = thumb
        self.send({**base, "phase": "begin"})
        move = {**base, "phase": "move", "dx": dx}
        seq = self.send(dict(move))
        self.expect(lambda f: f.get("type") == "update" and (f.get("ack") or 0) >= seq)
        rejects = [f for f in self.frames if f.get("type") == "reject"]
        assert not rejects, rejects
        self._last_move = move

    def gesture_entries(self, by: str, control: str, thumb: str) -> list[dict]:
        """Every gesture entry this client was sent for that person's drag of that thumb, in order."""
        with self._cond:
            frames = list(self.frames)
        return [g for f in frames for g in (f.get("gestures") or [])
                if g.get("by") == by and g.get("control") == control and g.get("thumb") == thumb]

    def preview(self, by: str, control: str, thumb: str) -> float | None:
        """The value of that person's live preview of the thumb as the server broadcast it last
        (None when they are not dragging it)."""
        entries = self.gesture_entries(by, control, thumb)
        if not entries or entries[-1].get("phase") not in ("begin", "move"):
            return None
        return entries[-1]["state"][thumb]

    def close(self) -> None:
        self._stop.set()
        self._last_move = None
        with contextlib.suppress(Exception):
            self._stack.close()


@pytest.fixture
def ws_client(server):
    """Factory: `ws_client(name)` → a connected WsClient; all closed at teardown."""
    made: list[WsClient] = []

    def make(name: str, room: str = "demo") -> WsClient:
        client = WsClient(server, name, room)
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()
