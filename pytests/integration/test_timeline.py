"""The session timeline (docs/timeline.md): every control's state at any past
revision, from snapshots (every 500 revisions or 1,000 log rows) and the log; restoring a moment
commits it as ONE revision that every member sees in one frame."""

from __future__ import annotations

import http.client
import json
import sqlite3

import pytest

from helpers import WAIT, Client, changes, control_of
from test_auth import joined, secret_file, token  # noqa: F401 (secret_file: a fixture)

BATCHED = ("size", "blanks", "color", "gain")  # the demo's controls a restore sets (bpm is a gauge)


class Putter:
    """PUTs over one keep-alive connection: hundreds of commits a second."""

    def __init__(self, server):
        self.conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=WAIT)

    def put(self, control, value):
        self.conn.request("PUT", f"/api/rooms/demo/controls/{control}", json.dumps({"value": value}),
                          {"Content-Type": "application/json"})
        response = self.conn.getresponse()
        body = json.loads(response.read())
        assert response.status == 200, body
        return body

    def close(self):
        self.conn.close()


def get_json(server, path, status=200):
    response = server.get(path)
    assert response.status == status, response
    return response.json()


def live_states(server):
    room = get_json(server, "/api/rooms/demo")
    return {c["id"]: c["state"] for c in room["controls"]}, room["rev"]


def restore(client, rev):
    """Sends `restore` with the client's next seq; returns the seq."""
    client.seq += 1
    client.send_json({"type": "restore", "seq": client.seq, "rev": rev})
    return client.seq


def editor_and_viewer(start_server, open_ws, secret, tmp_path):
    """A server with a data file and tokens on (`secret`: the secret file) whose editor set gain to 0.1
    (revision 1), then 0.9 (revision 2), and a viewer (sub `vi`) joined after; returns (server, editor, viewer)."""
    server = start_server("--data", str(tmp_path / "tandem.db"), "--auth-secret-file", str(secret))
    editor = joined(server, open_ws, token("editor", sub="ed"))
    editor.expect_ack(editor.set("gain", 0.1))
    editor.expect_ack(editor.set("gain", 0.9))
    viewer = joined(server, open_ws, token("viewer", sub="vi"))
    return server, editor, viewer


def apply_changes(states, frame):
    for change in changes(frame):
        states[change["control"]] = change["state"]


def test_states_at_past_revisions_equal_what_the_websocket_showed_then(start_server, connect, tmp_path):
    server = start_server("--data", str(tmp_path / "tandem.db"))
    ann = connect(server, name="Ann")
    watcher = connect(server, name="Watcher")
    seen = {c["id"]: c["state"] for c in watcher.welcome["controls"]}
    shown = {0: dict(seen)}
    putter = Putter(server)
    actions = [
        lambda: ann.expect_ack(ann.step("size", 1)),
        lambda: ann.expect_ack(ann.set("color", "#FF8800")),
        lambda: putter.put("gain", 0.25),
        lambda: ann.expect_ack(ann.step("blanks", 1, thumb="upper")),
        lambda: putter.put("bpm", 120),
        lambda: ann.expect_ack(ann.set("gain", 0.9)),
        lambda: ann.expect_ack(ann.step("size", -2)),
    ]
    for rev, action in enumerate(actions, start=1):
        action()
        frame = watcher.expect(lambda f: f.get("type") == "update" and f.get("rev") == rev, what=f"rev {rev}")
        apply_changes(seen, frame)
        shown[rev] = dict(seen)
    putter.close()

    timeline = get_json(server, "/api/rooms/demo/timeline")
    assert (timeline["first"], timeline["last"], timeline["revisions"]) == (0, 7, 7)
    assert [m["rev"] for m in timeline["marks"]] == [1, 2, 3, 4, 5, 6, 7]
    times = [m["time"] for m in timeline["marks"]]
    assert times == sorted(times) and times[0] > 1_700_000_000_000
    for rev, states in shown.items():
        moment = get_json(server, f"/api/rooms/demo/timeline/{rev}")
        assert moment["rev"] == rev
        assert moment["controls"] == states, f"revision {rev}"
    three = get_json(server, "/api/rooms/demo/timeline/3")
    assert three["by"] == "api" and three["time"] == timeline["marks"][2]["time"]
    assert get_json(server, "/api/rooms/demo/timeline/6")["by"] == "Ann"
    zero = get_json(server, "/api/rooms/demo/timeline/0")
    assert zero["time"] is None and zero["by"] is None
    # Looking back commits nothing.
    assert live_states(server) == (shown[7], 7)


def test_unknown_and_malformed_revisions_are_refused(start_server, tmp_path):
    server = start_server("--data", str(tmp_path / "tandem.db"))
    Putter(server).put("gain", 0.3)
    for path in ("/timeline/2", "/timeline/-1", "/timeline/abc", "/timeline/1.0", "/timeline/99999999999999999999"):
        body = get_json(server, "/api/rooms/demo" + path, status=400)
        assert body["code"] == "bad_value" and body["message"]
    assert get_json(server, "/api/rooms/demo/timeline/2", status=400)["message"].endswith("its timeline ends at 1")
    assert get_json(server, "/api/rooms/nope/timeline", status=404)["code"] == "unknown_room"
    assert server.request("DELETE", "/api/rooms/demo/timeline").status == 405
    assert server.request("GET", "/api/rooms/demo/restore").status == 405
    for body in ("", "{}", '{"rev":"3"}', '{"rev":-1}', "[]", "rev=1"):
        response = server.request("POST", "/api/rooms/demo/restore", body)
        assert response.status == 400, (body, response)
    assert server.request("POST", "/api/rooms/demo/restore", '{"rev": 5}').json()["code"] == "bad_value"


def test_a_long_session_reads_the_same_across_snapshot_boundaries(start_server, tmp_path):
    data = tmp_path / "tandem.db"
    server = start_server("--data", str(data), "--http-rate", "0")  # 1,100 PUTs and many reads: past the HTTP budget
    putter = Putter(server)
    expected = {}
    states, _ = live_states(server)
    for rev in range(1, 1101):
        control, value = ("gain", (rev % 97) / 100) if rev % 3 else ("size", None)
        if control == "size":
            body = putter.put("size", [20, 40, 60, 80, 100][rev % 5])
        else:
            body = putter.put(control, value)
        assert body["rev"] == rev
        states[control] = body["state"]
        if rev in (1, 499, 500, 501, 999, 1000, 1001, 1100):
            expected[rev] = dict(states)
    putter.close()
    with sqlite3.connect(data) as db:
        snapshots = [r for (r,) in db.execute("SELECT revision FROM snapshots WHERE room = 'demo' ORDER BY revision")]
    assert snapshots == [500, 1000]
    for rev, states in expected.items():
        assert get_json(server, f"/api/rooms/demo/timeline/{rev}")["controls"] == states, f"revision {rev}"
    timeline = get_json(server, "/api/rooms/demo/timeline")
    assert (timeline["first"], timeline["last"], timeline["revisions"]) == (0, 1100, 1100)
    assert len(timeline["marks"]) == 200 and timeline["marks"][-1]["rev"] == 1100

    # Kept to the last 300 commits at the next start: what is left still reads, what went is 410.
    assert server.stop() == 0
    pruned = start_server("--data", str(data), "--history-keep", "300")
    timeline = get_json(pruned, "/api/rooms/demo/timeline")
    assert (timeline["first"], timeline["last"], timeline["revisions"]) == (800, 1100, 300)
    assert get_json(pruned, "/api/rooms/demo/timeline/1000")["controls"] == expected[1000]
    assert get_json(pruned, "/api/rooms/demo/timeline/1001")["controls"] == expected[1001]
    gone = get_json(pruned, "/api/rooms/demo/timeline/501", status=410)
    assert gone["code"] == "bad_value" and "pruned" in gone["message"] and "800" in gone["message"]
    assert pruned.request("POST", "/api/rooms/demo/restore", '{"rev": 501}').status == 410


def test_a_restore_is_one_revision_that_both_members_see_in_one_frame(start_server, connect, tmp_path):
    server = start_server("--data", str(tmp_path / "tandem.db"))
    ann = connect(server, name="Ann")
    bob = connect(server, name="Bob")
    ann.expect_ack(ann.step("size", 1))
    ann.expect_ack(ann.set("color", "#FF8800"))
    ann.expect_ack(ann.set("gain", 0.2))
    then = get_json(server, "/api/rooms/demo/timeline/3")["controls"]
    ann.expect_ack(ann.set("gain", 0.7))
    ann.expect_ack(ann.step("size", -3))
    ann.expect_ack(ann.step("blanks", 1, thumb="upper"))
    Putter(server).put("bpm", 150)  # a gauge: a restore leaves it alone
    bob.expect(lambda f: f.get("rev") == 7, what="rev 7")
    ann.expect(lambda f: f.get("rev") == 7, what="rev 7")

    ann.mark()
    bob.mark()
    ann.expect_ack(restore(ann, 3))
    for member in (ann, bob):
        frame = member.expect(lambda f: changes(f), what="the restore")
        assert frame["rev"] == 8
        restored = {c["control"]: c for c in changes(frame)}
        assert set(restored) == {"size", "gain", "blanks"}, "one frame carries every control the restore changed"
        assert {c["rev"] for c in restored.values()} == {8}
        assert all(c["state"] == then[c["control"]] for c in restored.values())
        after = next(i for i, f in enumerate(member.history) if f is frame) + 1
        member.barrier()  # whatever else the restore sent this member is in before the barrier's answer
        assert not any(changes(f) for f in member.history[after:]), "nothing more changed"
    states, rev = live_states(server)
    assert rev == 8
    assert {k: states[k] for k in BATCHED} == {k: then[k] for k in BATCHED}
    assert states["bpm"] == {"value": 150, "fraction": pytest.approx(150 / 170)}
    history = get_json(server, "/api/rooms/demo/history?since=7")["history"]
    assert sorted(h["control"] for h in history) == ["blanks", "gain", "size"] and {h["rev"] for h in history} == {8}

    # The same moment again changes nothing: acked, no revision.
    ann.expect_ack(restore(ann, 3))
    assert live_states(server)[1] == 8
    # Over HTTP: back to revision 7 (one revision), answered with what it did.
    bob.mark()
    response = server.request("POST", "/api/rooms/demo/restore", '{"rev": 7}')
    assert response.status == 200, response
    assert response.json() == {"restored": 7, "rev": 9, "changed": 3}
    frame = bob.expect(lambda f: changes(f), what="the HTTP restore")
    assert frame["rev"] == 9 and {c["control"] for c in changes(frame)} == {"size", "gain", "blanks"}
    # An unknown revision is bad_value, and the connection goes on.
    reject = ann.expect_reject("bad_value", seq=restore(ann, 99))
    assert "no revision 99" in reject["message"]
    reject = ann.expect_reject("bad_value", seq=restore(ann, 1.5))
    ann.assert_alive()


def test_a_restore_is_busy_while_someone_holds_a_control_it_changes(start_server, connect, tmp_path):
    server = start_server("--data", str(tmp_path / "tandem.db"))
    ann = connect(server, name="Ann")
    bob = connect(server, name="Bob")
    ann.expect_ack(ann.set("gain", 0.2))
    ann.expect_ack(ann.set("gain", 0.8))
    bob.expect_ack(bob.drag("gain", "begin"))
    reject = ann.expect_reject("busy", seq=restore(ann, 1))
    assert reject["holder"] == bob.welcome["client"]
    response = server.request("POST", "/api/rooms/demo/restore", '{"rev": 1}')
    assert response.status == 409 and response.json()["holder"] == bob.welcome["client"]
    assert live_states(server)[1] == 2, "nothing was committed"
    bob.expect_ack(bob.drag("gain", "cancel"))
    ann.expect_ack(restore(ann, 1))
    assert live_states(server)[0]["gain"] == {"value": 0.2}


def test_viewers_read_the_timeline_but_may_not_restore(start_server, open_ws, secret_file, tmp_path):
    server, editor, viewer = editor_and_viewer(start_server, open_ws, secret_file, tmp_path)
    viewer.expect_reject("forbidden", seq=restore(viewer, 1))
    viewer.expect_reject("forbidden", seq=restore(viewer, 77))  # even a bad revision: forbidden first
    bearer = {"Authorization": "Bearer " + token("viewer", sub="vi")}
    assert server.request("GET", "/api/rooms/demo/timeline", headers=bearer).json()["last"] == 2
    assert server.request("GET", "/api/rooms/demo/timeline/1", headers=bearer).json()["controls"]["gain"] == {"value": 0.1}
    assert server.request("POST", "/api/rooms/demo/restore", '{"rev": 1}', headers=bearer).status == 403
    assert server.request("GET", "/api/rooms/demo/timeline").status == 401
    assert server.request("GET", "/api/rooms/demo/timeline", headers={"Authorization": "Bearer " + token("viewer", room="other")}).status == 403
    assert live_states_with(server, bearer)[1] == 2
    editor.expect_ack(restore(editor, 1))
    assert live_states_with(server, bearer) == ({"gain": {"value": 0.1}}, 3)


def live_states_with(server, headers):
    room = server.request("GET", "/api/rooms/demo", headers=headers).json()
    return {c["id"]: c["state"] for c in room["controls"] if c["id"] == "gain"}, room["rev"]


def test_a_memory_server_has_no_timeline(server, connect):
    assert get_json(server, "/api/rooms/demo/timeline", status=501)["code"] == "not_implemented"
    assert server.get("/api/rooms/demo/timeline/0").status == 501
    assert server.request("POST", "/api/rooms/demo/restore", '{"rev": 0}').status == 501
    ann = connect(server, name="Ann")
    assert "memory" in ann.expect_reject("bad_value", seq=restore(ann, 0))["message"]
    ann.assert_alive()
