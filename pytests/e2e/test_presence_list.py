"""Who is here: both windows list both people; someone who leaves shows as away
for a 5 s grace, then disappears."""

from __future__ import annotations

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

    # The grace is read on Ann's page's own clock, not the test's (a loaded machine runs late, never
    # early): the page notes the time its list loses Bob's entry.
    a.driver.execute_script("""
        const id = arguments[0];
        window.__removedAt = null;
        const watch = new MutationObserver(() => {
            if (!document.querySelector(`#presence li[data-client="${id}"]`)) {
                window.__removedAt = Date.now();
                watch.disconnect();
            }
        });
        watch.observe(document.getElementById("presence"), {childList: true, subtree: true});""", b_id)
    b.close()
    a.wait(lambda: a.presence().get(b_id, {}).get("away"), what=f"Bob ({b_id}) shown as away in Ann's list")
    assert "Bob" in a.presence()[b_id]["text"]
    # When the page learned that Bob left, and when it plans to drop him: 5 s later.
    left_at, due = a.driver.execute_script(
        "const m = window.tandem.model; return [m.peers.get(arguments[0]).leftAt, m.nextExpiry()];", b_id)
    assert due - left_at == 5000, f"Bob is to be dropped {due - left_at} ms after he left, not 5 s"
    a.wait(lambda: b_id not in a.presence(), what=f"Bob ({b_id}) removed from Ann's list")
    removed_at = a.driver.execute_script("return window.__removedAt;")
    assert removed_at is not None and removed_at - left_at >= 5000, \
        f"Bob was dropped {removed_at - left_at} ms after he left, before the 5 s grace"
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
           what="Ann's list ends with a +1 chip")
    assert set(a.presence()) == {a_id, b_id}
    assert a.find("#presence").get_attribute("aria-label") == "3 people here"
    a.screenshot("presence-plus-n-more.png")
