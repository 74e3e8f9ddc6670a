"""Who is in the room: joined and left, names, and what a newcomer sees of drags in progress."""

import time

from helpers import WAIT, find_gesture, has_gesture, value_is


def test_others_are_told_who_joined_with_name_and_colour(server, connect):
    ann = connect(server, name="Ann")
    bob = connect(server, name="Bob")
    frame = ann.expect(lambda f: any(p["client"] == bob.id for p in f.get("joined") or []))
    peer = [p for p in frame["joined"] if p["client"] == bob.id][0]
    assert peer["name"] == "Bob"
    assert peer["color"] == bob.welcome["peers"][-1]["color"]


def test_others_are_told_who_left(server, connect):
    ann = connect(server, name="Ann")
    bob = connect(server, name="Bob")
    ann.expect(lambda f: any(p["client"] == bob.id for p in f.get("joined") or []))
    bob.close()
    ann.expect(lambda f: bob.id in (f.get("left") or []))


def test_a_name_loses_control_characters_and_surrounding_spaces_and_is_cut_to_64(server, connect):
    ann = connect(server, name="  An\x01n\x7f  ")
    assert ann.welcome["peers"][-1]["name"] == "Ann"
    long = connect(server, name="x" * 100)
    assert long.welcome["peers"][-1]["name"] == "x" * 64


def test_a_newcomer_sees_drags_in_progress_in_its_welcome(server, connect):
    ann = connect(server, name="Ann")
    ann.drag("gain", "begin")
    ann.drag("gain", "move", dx=0.2)
    ann.expect(has_gesture("gain", phase="move", state=value_is(0.7)))
    bob = connect(server, name="Bob")
    entry = find_gesture({"type": "update", "gestures": bob.welcome.get("gestures")}, "gain", by=ann.id)
    assert entry is not None, bob.welcome.get("gestures")
    assert entry["phase"] == "move" and entry["state"] == {"value": 0.7}


def test_a_hold_lapses_after_10_s_without_a_message(server, connect):
    ann = connect(server, name="Ann")
    bob = connect(server, name="Bob")
    bob.mark()
    # Before the begin leaves: the server reads it later and lapses the hold 10 s
    # after that, so the cancel can come later than 10 s from here (a busy
    # machine), never sooner. The wait for it is bounded by WAIT from the ack.
    sent = time.monotonic()
    ann.expect_ack(ann.drag("gain", "begin"))
    frame = bob.expect(has_gesture("gain", by=ann.id, phase="cancel"), timeout=WAIT)
    lapsed = time.monotonic() - sent
    assert lapsed >= 10, f"lapsed after {lapsed:.2f} s"
    assert find_gesture(frame, "gain", phase="cancel")["state"] == {"value": 0.5}
    bob.expect_ack(bob.drag("gain", "begin"))
    assert not [f for f in bob.history if f.get("type") == "reject"]


def test_a_reject_comes_before_the_update_that_carries_its_ack(server, connect):
    ann = connect(server)
    seq = ann.set("volume", 1)
    first = ann.recv()
    if first["type"] == "presets":  # the room's presets list follows every welcome
        first = ann.recv()
    assert first["type"] == "reject" and first["seq"] == seq, first
    ann.expect_ack(seq)


def test_past_the_presence_limit_newcomers_join_quietly_and_are_counted(start_server, connect):
    server = start_server("--presence-limit", "2")
    ann = connect(server, name="Ann")
    bob = connect(server, name="Bob")
    cy = connect(server, name="Cy")
    assert ann.welcome["present"] == 1
    assert [p["name"] for p in cy.welcome["peers"]] == ["Ann", "Bob"], "Cy is past the limit: not listed"
    assert cy.welcome["present"] == 3
    # Ann hears of Bob, never of Cy; the count rides on her next frame.
    ann.expect(lambda f: any(p["client"] == bob.id for p in f.get("joined") or []))
    ann.set("gain", 0.25)
    frame = ann.expect(lambda f: f.get("present") == 3)
    assert not any(p["client"] == cy.id for p in frame.get("joined") or [])
    # Cy drags like anyone.
    cy.set("gain", 0.75)
    ann.expect(lambda f: any(c["control"] == "gain" and c.get("by") == cy.id for c in f.get("changes") or []))
    # Bob leaves: Cy is announced in his place.
    bob.close()
    ann.expect(lambda f: bob.id in (f.get("left") or []))
    ann.expect(lambda f: any(p["client"] == cy.id for p in f.get("joined") or []), since=0)
    snapshot = server.get("/api/rooms/demo").json()
    assert snapshot["present"] == 2
    assert [p["name"] for p in snapshot["peers"]] == ["Ann", "Cy"]


def test_an_idle_room_past_the_presence_limit_hears_the_count_within_about_2_s(start_server, connect):
    server = start_server("--presence-limit", "1")
    ann = connect(server, name="Ann")
    bob = connect(server, name="Bob")  # quiet: nobody is woken by his arrival
    assert bob.welcome["present"] == 2
    # Nobody sends anything: the count comes with the presence refresh (every
    # 2 s at most), the only thing that can bring it.
    frame = ann.expect(lambda f: f.get("present") == 2)
    assert not frame.get("joined") and not frame.get("changes"), frame
    bob.close()
    ann.expect(lambda f: f.get("present") == 1)
