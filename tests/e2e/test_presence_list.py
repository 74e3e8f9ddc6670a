"""Who is here: both windows list both people; someone who leaves shows as away
for a 5 s grace, then disappears."""

from __future__ import annotations

import time

import pytest


def test_both_windows_list_both_people_and_one_who_leaves_shows_away_then_is_removed_after_about_5_seconds(browser):
    a, b = browser("Ann"), browser("Bob")
    a_id, b_id = a.my_client_id(), b.my_client_id()
    assert a_id != b_id

    for page, me in ((a, a_id), (b, b_id)):
        page.wait(lambda: {a_id, b_id} <= set(page.presence()), what=f"{page.name} lists {a_id} and {b_id}")
        people = page.presence()
        assert "Ann" in people[a_id]["text"] and "Bob" in people[b_id]["text"], people
        assert [c for c, p in people.items() if p["me"]] == [me], people
        assert not any(p["away"] for p in people.values()), people

    b.close()
    gone_at = time.monotonic()
    a.wait(lambda: a.presence().get(b_id, {}).get("away"), what=f"Bob ({b_id}) shown as away in Ann's list")
    away_at = time.monotonic()
    assert "Bob" in a.presence()[b_id]["text"]
    a.wait(lambda: b_id not in a.presence(), timeout=12, what=f"Bob ({b_id}) removed from Ann's list")
    removed_at = time.monotonic()
    grace = removed_at - away_at
    assert 3.5 <= grace <= 7.5, f"away for {grace:.1f} s (from the leave: {removed_at - gone_at:.1f} s), not about 5 s"
    assert a_id in a.presence() and a.presence()[a_id]["me"]


@pytest.mark.tandem_flags("--presence-limit", "2")
def test_past_the_presence_limit_the_list_ends_with_a_plus_n_chip(browser):
    a, b = browser("Ann"), browser("Bob")
    a_id, b_id = a.my_client_id(), b.my_client_id()
    a.wait(lambda: {a_id, b_id} <= set(a.presence()), what="Ann lists Ann and Bob")
    c = browser("Cy")  # the third: joins quietly
    # Cy sees the two announced people and counts itself among the rest.
    c.wait(lambda: c.exists("#presence li.peer-more") and c.find("#presence li.peer-more").is_displayed(),
           what="Cy's list ends with a +N chip")
    assert set(c.presence()) == {a_id, b_id}, c.presence()
    assert c.find("#presence li.peer-more").text == "+1"
    assert "you among them" in c.find("#presence li.peer-more").get_attribute("title")
    # Nobody is woken by a quiet arrival, but an idle room's count catches up
    # within the server's 2 s presence refresh.
    a.wait(lambda: a.exists("#presence li.peer-more") and a.find("#presence li.peer-more").text == "+1",
           timeout=8, what="Ann's list ends with a +1 chip")
    assert set(a.presence()) == {a_id, b_id}
    assert a.find("#presence").get_attribute("aria-label") == "3 people here"
    a.screenshot("presence-plus-n-more.png")
