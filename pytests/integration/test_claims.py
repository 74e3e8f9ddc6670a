"""Claims: "only I move this until I let go of it" (docs/protocol.md, "Claims")."""

import json

from helpers import Client, find_change, has_change, value_is


def send(client, type_: str, control: str) -> int:
    client.seq += 1
    client.send_json({"type": type_, "seq": client.seq, "control": control})
    return client.seq


def claim_is(holder):
    """A frame whose gain change carries `holder`'s claim (None: no claim)."""
    def match(frame):
        change = find_change(frame, "gain")
        return change is not None and change.get("claim") == holder
    return match


def test_a_claim_refuses_others_names_the_holder_and_everyone_sees_it(server, connect):
    ann = connect(server, name="Ann")
    ben = connect(server, name="Ben")
    ann.expect_ack(send(ann, "claim", "gain"))
    ben.expect(claim_is(ann.id), what="the claim in Ben's frame")
    for seq in (ben.set("gain", 0.9), ben.step("gain", 1), ben.drag("gain", "begin"), send(ben, "reset", "gain"),
                send(ben, "release", "gain")):
        reject = ben.expect_reject("claimed", seq)
        assert reject["holder"] == ann.id
    # Ann's own writes go on.
    ann.set("gain", 0.75)
    ben.expect(has_change("gain", by=ann.id, state=value_is(0.75)))
    # A newcomer's welcome shows it.
    cat = connect(server, name="Cat")
    gain = next(c for c in cat.welcome["controls"] if c["id"] == "gain")
    assert gain["claim"] == ann.id
    # Over HTTP: 409 claimed with the holder.
    put = server.request("PUT", "/api/rooms/demo/controls/gain", json.dumps({"value": 0.1}))
    assert put.status == 409 and put.json()["code"] == "claimed" and put.json()["holder"] == ann.id
    # Released: everyone sees it go, and Ben may write.
    mark = ben.mark()
    ann.expect_ack(send(ann, "release", "gain"))
    ben.expect(claim_is(None), since=mark, what="the claim gone from Ben's frame")
    ben.set("gain", 0.2)
    ann.expect(has_change("gain", by=ben.id, state=value_is(0.2)))


def test_a_claim_ends_when_its_holder_leaves(server, connect):
    ann = connect(server, name="Ann")
    ben = connect(server, name="Ben")
    ann.expect_ack(send(ann, "claim", "gain"))
    ben.expect(claim_is(ann.id))
    mark = ben.mark()
    ann.close()
    ben.expect(claim_is(None), since=mark, what="the claim gone once Ann left")
    ben.set("gain", 0.3)
    ben.expect(has_change("gain", by=ben.id, state=value_is(0.3)))


def test_claims_and_releases_are_counted(server, connect):
    ann = connect(server, name="Ann")
    send(ann, "claim", "size")
    ann.expect_ack(send(ann, "release", "size"))
    metrics = server.metrics()
    assert metrics['tandem_messages_in_total{type="claim"}'] == 1
    assert metrics['tandem_messages_in_total{type="release"}'] == 1


def test_a_welcome_since_a_revision_lists_every_claimed_control(server, connect, open_ws):
    ann = connect(server, name="Ann")
    ann.set("size", 100)
    ann.expect(has_change("size", by=ann.id))
    rev = server.get("/api/rooms/demo").json()["rev"]
    ann.expect_ack(send(ann, "claim", "gain"))
    # Gain made no revision since, but it is claimed: listed, with its claim.
    ben = Client(open_ws(server.ws_url("demo", name="Ben", since=str(rev))))
    assert ben.welcome["since"] == rev
    listed = {c["id"]: c for c in ben.welcome["controls"]}
    assert set(listed) == {"gain"} and listed["gain"]["claim"] == ann.id
    ann.expect_ack(send(ann, "release", "gain"))
    cat = Client(open_ws(server.ws_url("demo", name="Cat", since=str(rev))))
    assert cat.welcome["controls"] == [], "an unclaimed control untouched since is left out"


def test_an_admin_breaks_a_claim_over_http_and_everyone_sees_it_go(server, connect):
    ann = connect(server, name="Ann")
    ben = connect(server, name="Ben")
    ann.expect_ack(send(ann, "claim", "gain"))
    ben.expect(claim_is(ann.id))
    assert server.request("GET", "/api/rooms/demo/controls/gain/claim").status == 405
    assert server.request("DELETE", "/api/rooms/demo/controls/nope/claim").json()["code"] == "unknown_control"
    mark = ben.mark()
    # With auth off, the admin API answers this machine: the test's requests come from loopback.
    broken = server.request("DELETE", "/api/rooms/demo/controls/gain/claim")
    assert broken.status == 200, broken.body
    assert broken.json()["control"] == "gain" and "state" in broken.json()
    ben.expect(claim_is(None), since=mark, what="the claim gone from Ben's frame")
    ben.set("gain", 0.4)
    ann.expect(has_change("gain", by=ben.id, state=value_is(0.4)))
    # Nobody claims it now: still 200, nothing changes.
    assert server.request("DELETE", "/api/rooms/demo/controls/gain/claim").status == 200
