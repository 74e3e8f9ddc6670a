"""An OSC writer on the page (docs/osc.md): a set sent over OSC (python-osc, to the
server's --osc-listen) shows the member `osc` in the people list with a colour,
moves the control, and the card's "last changed" line names `osc`. Screenshot:
test-output/e2e/osc-writer.png."""

from __future__ import annotations

import re

import pytest
from pythonosc.udp_client import SimpleUDPClient

LISTEN_LINE = re.compile(r"osc listening on udp://\S+:(\d+)")


def osc_port(server, timeout: float = 30.0) -> int:
    """The --osc-listen port the server picked (its start log line)."""
    return int(LISTEN_LINE.search(server.wait_for_log(LISTEN_LINE.search, timeout)).group(1))


def changed_line(page, control: str) -> str:
    return page.in_section(control, ".control-changed").get_attribute("textContent")


@pytest.mark.tandem_flags("--osc-listen", "udp://127.0.0.1:0")
def test_an_osc_set_shows_osc_among_the_people_the_new_value_and_who_changed_it(server, browser):
    ann = browser("Ann")
    me = ann.my_client_id()
    patch = SimpleUDPClient("127.0.0.1", osc_port(server))
    patch.send_message("/demo/gain", 0.25)
    patch.send_message("/demo/color/hex", "#E91E63")

    ann.wait(lambda: "osc" in ann.presence(), what=lambda: f"osc in Ann's people list (now {ann.presence()})")
    people = ann.presence()
    assert people["osc"]["text"].startswith("osc") and not people["osc"]["me"] and not people["osc"]["away"], people
    assert people[me]["me"]
    colours = ann.driver.execute_script(
        "return [...document.querySelectorAll('#presence li[data-client]')]"
        ".map((li) => [li.dataset.client, li.style.getPropertyValue('--peer')]);")
    colour = dict(colours)["osc"]
    assert re.fullmatch(r"#[0-9A-Fa-f]{6}", colour.strip()), colours

    ann.wait_now("gain", "value", 0.25)
    assert server.state("gain") == {"value": 0.25}
    ann.wait(lambda: changed_line(ann, "gain") == "osc, just now",
             what=lambda: f"the gain card names osc (now {changed_line(ann, 'gain')!r})")
    ann.wait(lambda: changed_line(ann, "color") == "osc, just now", what="the colour card names osc")
    assert server.state("color")["hex"] == "#E91E63"
    assert changed_line(ann, "size") == "", "a control nobody changed names nobody"

    shot = ann.full_page_screenshot("osc-writer.png")
    assert shot.stat().st_size > 1000
