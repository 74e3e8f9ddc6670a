"""Toasts for what others did to the whole room, in Chromium against the real server:
Ann (a WebSocket client) recalls a preset, resets the room, restores a moment; Bob's
page says who did what and which controls changed, offers "Undo" while nothing else
was committed (a restore of the moment before), and never toasts Bob's own recall."""

from __future__ import annotations

import pytest


def toasts(page) -> list[str]:
    return [t.get_attribute("textContent") for t in page.all(".toast .toast-text")]


def wait_toast(page, text: str):
    page.wait(lambda: text in toasts(page), what=lambda: f"the toast {text!r} (shown: {toasts(page)})")
    return next(t for t in page.all(".toast") if t.find_element("css selector", ".toast-text").get_attribute("textContent") == text)


def save_warm(ann) -> None:
    """Ann saves "Warm" with Gain 0.8 and Size 100, then puts them back (so the recall changes both)."""
    for control, value in (("gain", 0.8), ("size", 100)):
        ann.send({"type": "set", "control": control, "value": value})
    ann.send({"type": "preset", "action": "save", "name": "Warm"})
    ann.send({"type": "reset"})
    ann.barrier()


@pytest.mark.tandem_data("file")
def test_others_recall_is_toasted_with_who_and_what_and_undo_puts_it_back(server, browser, ws_client):
    bob = browser("Bob")
    ann = ws_client("Ann")
    save_warm(ann)
    gain_before = server.state("gain")["value"]
    bob.wait_now("gain", "value", gain_before)

    seq = ann.send({"type": "preset", "action": "recall", "name": "Warm"})
    ann.expect(lambda f: f.get("type") == "update" and (f.get("ack") or 0) >= seq)
    note = next(f["batch"] for f in ann.frames if f.get("type") == "update" and f.get("batch", {}).get("cause") == "preset")
    assert note["by"] == ann.client and note["preset"] == "Warm" and note["controls"] == ["size", "gain"], note

    toast = wait_toast(bob, "Ann recalled “Warm”: Circle size and Gain changed")
    bob.wait_now("gain", "value", 0.8)
    undo = toast.find_element("css selector", ".toast-action")
    bob.wait(lambda: undo.is_displayed(), what="Undo offered: nothing else was committed since")
    bob.screenshot("batch-toast.png")
    undo.click()
    server.wait_state("gain", lambda s: s["value"] == gain_before, what="gain back from before the recall")
    bob.wait_now("gain", "value", gain_before)
    assert server.state("size")["value"] != 100
    bob.wait(lambda: not any("recalled" in t for t in toasts(bob)), what="the toast closed on Undo")
    # Bob's Undo was a restore: Ann hears of it from Bob.
    ann.expect(lambda f: f.get("type") == "update" and f.get("batch", {}).get("cause") == "restore"
               and f["batch"]["by"] != ann.client)


@pytest.mark.tandem_data("file")
def test_undo_goes_once_the_room_moves_on_and_a_reset_is_told_too(server, browser, ws_client):
    bob = browser("Bob")
    ann = ws_client("Ann")
    save_warm(ann)
    ann.send({"type": "preset", "action": "recall", "name": "Warm"})
    toast = wait_toast(bob, "Ann recalled “Warm”: Circle size and Gain changed")
    undo = toast.find_element("css selector", ".toast-action")
    bob.wait(lambda: undo.is_displayed(), what="Undo offered")
    ann.send({"type": "set", "control": "gain", "value": 0.3})
    bob.wait_now("gain", "value", 0.3)
    bob.wait(lambda: not undo.is_displayed(), what="Undo hidden: putting back the moment before would undo the later change too")

    ann.send({"type": "reset", "control": "gain"})
    wait_toast(bob, "Ann reset Gain to its default")
    ann.send({"type": "reset"})
    wait_toast(bob, "Ann reset the room to its defaults: Circle size changed")


def test_my_own_recall_is_not_toasted_and_memory_rooms_offer_no_undo(server, browser, ws_client):
    bob = browser("Bob")
    ann = ws_client("Ann")
    save_warm(ann)
    # Ann's reset after saving is told; × dismisses it.
    told = wait_toast(bob, "Ann reset the room to its defaults: Circle size and Gain changed")
    close = told.find_element("css selector", ".toast-close")
    assert close.get_attribute("aria-label") == "Dismiss"
    close.click()
    bob.wait(lambda: toasts(bob) == [], what="dismissed")
    # Bob's own recall, from the Presets panel, is answered there, not by a toast.
    recall = bob.find('.preset[data-name="Warm"] [data-role="recall"]')
    bob.scroll_to(recall).click()
    server.wait_state("gain", lambda s: s["value"] == 0.8, what="Bob's recall committed")
    bob.wait(lambda: "Recalled “Warm”" in bob.find(".preset-status").text, what="the panel's answer")
    ann.expect(lambda f: f.get("type") == "update" and f.get("batch", {}).get("by") not in (None, ann.client))
    bob.barrier()
    assert toasts(bob) == [], "no toast for my own recall"

    ann.send({"type": "reset"})
    toast = wait_toast(bob, "Ann reset the room to its defaults: Circle size and Gain changed")
    bob.barrier()
    assert not toast.find_element("css selector", ".toast-action").is_displayed(), \
        "with --data :memory: there is no timeline to restore from"
