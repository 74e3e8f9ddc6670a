"""The server stops mid-session and comes back on the same port: the pages show
that they are stale but keep their values, reconnect by themselves and resync
from the new welcome.

Two ways the server can come back:
- `--data :memory:` keeps nothing, so the room is back at the demo's initial
  state, and the pages must drop what they showed;
- with a data file the room comes back as it was committed, with its
  revisions. To see that the pages take the *welcome's* state, the room is
  changed while they are disconnected, by a second server on the same file.
"""

from __future__ import annotations

import pytest
from selenium.webdriver.common.keys import Keys


def two_pages_at_gain_08_size_100(browser, server):
    """Ann's and Bob's pages, once both show gain 0.8 and size 100 (put through the API)."""
    a, b = browser("Ann"), browser("Bob")
    server.put("gain", 0.8)
    server.put("size", 100)
    for page in (a, b):
        page.wait_now("gain", "value", 0.8)
        page.wait_now("size", "index", 100)
    return a, b


def go_stale_keeping_values(pages, server):
    """Stops the server; each page leaves "open", is marked stale and still shows gain 0.8 and size 100."""
    assert server.stop() == 0, "SIGTERM did not stop the server cleanly"
    for page in pages:
        page.wait(lambda: page.connection_state() in ("reconnecting", "connecting"),
                  what=lambda: f"#connection leaves open for reconnecting (now {page.connection_state()!r})")
        page.wait(page.is_stale, what="body.stale while reconnecting")
        # The values stay on screen.
        assert page.section("gain").is_displayed()
        assert page.now("gain", "value") == pytest.approx(0.8)
        assert page.now("size", "index") == 100
        assert page.text("size", ".snap-value") == "100 pt"


def reopen(pages, gain, size):
    for page in pages:
        # The page may be in a backoff of up to 15 s by now: a bound well past that.
        page.wait_open(timeout=60)
        page.wait(lambda: not page.is_stale(), what="body.stale removed once open again")
        page.wait_now("gain", "value", gain)
        page.wait_now("size", "index", size)
        page.wait(lambda: page.text("size", ".snap-value") == f"{size} pt", what=f'.snap-value "{size} pt"')


def a_key_in_one_reaches_the_other(a, b, server, gain):
    a.focus(a.thumb("gain", "value"))
    a.keys(Keys.ARROW_UP)
    b.wait_now("gain", "value", gain + 0.01)
    return server.wait_state("gain", lambda s: s["value"] == pytest.approx(gain + 0.01))


@pytest.mark.tandem_data(":memory:")  # the default, said out loud
def test_after_a_restart_of_a_server_without_storage_the_pages_reconnect_and_show_the_initial_demo_state(
        browser, server):
    a, b = two_pages_at_gain_08_size_100(browser, server)
    for page in (a, b):
        assert not page.is_stale()

    go_stale_keeping_values((a, b), server)
    server.start()
    reopen((a, b), gain=0.5, size=60)
    assert server.state("gain")["value"] == 0.5 and server.rev() == 0
    a_key_in_one_reaches_the_other(a, b, server, 0.5)


@pytest.mark.tandem_data("file")
def test_after_a_restart_with_storage_the_pages_reconnect_and_show_the_committed_state_including_changes_made_meanwhile(
        browser, server):
    a, b = two_pages_at_gain_08_size_100(browser, server)
    rev = server.rev()

    go_stale_keeping_values((a, b), server)
    # Meanwhile someone changes the room through another server on the same data file.
    other = server.sibling()
    try:
        other.put("gain", 0.3)
    finally:
        assert other.stop() == 0
    assert a.now("gain", "value") == pytest.approx(0.8), "a disconnected page changed"

    server.start()
    reopen((a, b), gain=0.3, size=100)
    assert server.rev() == rev + 1, "the revisions did not carry over the restart"
    after = a_key_in_one_reaches_the_other(a, b, server, 0.3)
    assert after["value"] == pytest.approx(0.31)
    assert server.rev() == rev + 2

