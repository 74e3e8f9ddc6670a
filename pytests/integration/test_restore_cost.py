"""Cost before work for the timeline (findings 2, 3 and 9 of the second
hostile probe, docs/security.md "The second probe, replayed";
docs/timeline.md, "Cost"): a restore is checked for order, rate and role
before the past state is read, so a refused one reads nothing
(`tandem_timeline_reads_total{kind="moment"}` does not move); a read replays a
bounded number of log rows; in a cluster the summary is a bounded number of
seeks however long Redis' log is (`tandem_timeline_log_rows_read_total`)."""

from __future__ import annotations

import json

import pytest

from helpers import WAIT
from test_auth import joined, secret_file, token  # noqa: F401 (secret_file: a fixture)
from test_cluster import cluster, redis  # noqa: F401 (fixtures)
from test_timeline import editor_and_viewer, restore

MOMENT_READS = 'tandem_timeline_reads_total{kind="moment"}'
MOMENT_ROWS = 'tandem_timeline_log_rows_read_total{kind="moment"}'
SUMMARY_READS = 'tandem_timeline_reads_total{kind="summary"}'
SUMMARY_ROWS = 'tandem_timeline_log_rows_read_total{kind="summary"}'


def rejects(server, code):
    return server.metrics().get(f'tandem_rejects_total{{code="{code}"}}', 0)


def flood(client, rev, count):
    """`count` restores of `rev` sent back to back; returns once the last is answered (its ack)."""
    for _ in range(count):
        client.seq += 1
        client.send_json({"type": "restore", "seq": client.seq, "rev": rev})
    client.expect(lambda f: f.get("type") == "update" and isinstance(f.get("ack"), int) and f["ack"] >= client.seq,
                  what=f"the ack of seq {client.seq}")


def test_a_viewers_restores_are_refused_before_anything_is_read(start_server, open_ws, secret_file, tmp_path):
    server, editor, viewer = editor_and_viewer(start_server, open_ws, secret_file, tmp_path)
    reads = server.metrics()[MOMENT_READS]
    refused = rejects(server, "forbidden") + rejects(server, "rate_limited")
    # Past the burst (10 restores: each takes 60 messages' worth): the first are forbidden, the rest rate_limited; none reads.
    flood(viewer, 1, 200)
    assert rejects(server, "forbidden") + rejects(server, "rate_limited") - refused == 200
    assert rejects(server, "rate_limited") > 0
    assert server.metrics()[MOMENT_READS] == reads
    # An editor's restore does read: the counter is the one that would move.
    editor.expect_ack(restore(editor, 1))
    assert server.metrics()[MOMENT_READS] == reads + 1
    bearer = {"Authorization": "Bearer " + token("viewer", sub="vi")}
    assert server.request("POST", "/api/rooms/demo/restore", '{"rev": 1}', headers=bearer).status == 403
    assert server.metrics()[MOMENT_READS] == reads + 1


def test_rate_limited_restores_read_nothing(start_server, connect, tmp_path):
    server = start_server("--data", str(tmp_path / "tandem.db"))
    ann = connect(server, name="Ann")
    ann.expect_ack(ann.set("gain", 0.3))
    ann.expect_ack(ann.set("gain", 0.6))
    reads = server.metrics()[MOMENT_READS]
    limited = rejects(server, "rate_limited")
    flood(ann, 1, 200)
    refused = rejects(server, "rate_limited") - limited
    assert 0 < refused < 200
    # Each admitted restore read its moment once; each refused one none.
    assert server.metrics()[MOMENT_READS] - reads == 200 - refused
    assert server.get("/api/rooms/demo").json()["rev"] == 3  # one restore changed the room; the others found it so


def test_a_moments_read_replays_a_bounded_number_of_rows(start_server, tmp_path):
    server = start_server("--data", str(tmp_path / "tandem.db"), "--http-rate", "0")  # 1,200 restores over HTTP
    # 1,200 revisions of four-control batches (restores back and forth between two moments): 4,800 rows.
    put = lambda control, value: server.request("PUT", f"/api/rooms/demo/controls/{control}", json.dumps({"value": value}))  # noqa: E731
    assert put("gain", 0.2).status == 200
    assert put("size", 20).status == 200
    assert put("color", "#102030").status == 200
    assert put("gain", 0.7).status == 200
    assert put("size", 80).status == 200
    assert put("color", "#A0B0C0").status == 200
    for k in range(600):
        for rev in (3, 6):
            assert server.request("POST", "/api/rooms/demo/restore", json.dumps({"rev": rev})).status == 200
    last = server.get("/api/rooms/demo/timeline").json()["last"]
    assert last >= 1_000
    worst = 0
    for rev in range(7, last + 1, 37):
        before = server.metrics()[MOMENT_ROWS]
        assert server.get(f"/api/rooms/demo/timeline/{rev}").status == 200
        worst = max(worst, server.metrics()[MOMENT_ROWS] - before)
    # Storage.maxReplayRows(controls: 5): below 1,000 rows after a snapshot plus one revision's rows.
    assert 0 < worst <= 1_004


def eval_fill(redis, room, start, count, snapshots=False):
    """Appends `count` one-control revisions from `start` to the room's Redis log in one script: a
    legacy log, or with `snapshots` one every 1,000 revisions as an owner writes them (`whole`)."""
    script = """
        for r = tonumber(ARGV[1]), tonumber(ARGV[1]) + tonumber(ARGV[2]) - 1 do
          local state = '{"value":' .. (r % 100) / 100 .. '}'
          redis.call('XADD', KEYS[1], r .. '-0', 'control', 'gain', 'state', state,
                     'client', 'c1', 'name', 'Ann', 'time', tostring(1700000000000 + r))
          if ARGV[3] == '1' and r % 1000 == 0 then
            redis.call('XADD', KEYS[2], r .. '-0', 'states', '{"gain":' .. state .. '}', 'whole', '1')
          end
        end
        return 1"""
    assert redis.command("EVAL", script, "2", f"tandem:{{{room}}}:log", f"tandem:{{{room}}}:snaps",
                         str(start), str(count), "1" if snapshots else "0") == 1


def test_the_cluster_summary_and_moments_are_bounded_however_long_the_log(cluster):
    eval_fill(cluster.redis, "demo", 1, 20_000, snapshots=True)
    node = cluster.start_node("a")
    summary_rows = node.metrics()[SUMMARY_ROWS]
    summary = node.get("/api/rooms/demo/timeline").json()
    assert (summary["first"], summary["last"], len(summary["marks"])) == (0, 20_000, 200)
    assert node.metrics()[SUMMARY_ROWS] - summary_rows <= 204
    eval_fill(cluster.redis, "demo", 20_001, 30_000, snapshots=True)
    summary_rows = node.metrics()[SUMMARY_ROWS]
    summary = node.get("/api/rooms/demo/timeline").json()
    assert (summary["first"], summary["last"], len(summary["marks"])) == (0, 50_000, 200)
    assert node.metrics()[SUMMARY_ROWS] - summary_rows <= 204  # the same bound at 2.5 times the log
    # A moment: its snapshot and the entries after it, never the log before.
    for rev, expected in ((10, 0.1), (29_999, 0.99), (30_000, 0.0), (45_678, 0.78)):
        rows = node.metrics()[MOMENT_ROWS]
        assert node.get(f"/api/rooms/demo/timeline/{rev}").json()["controls"]["gain"] == {"value": expected}
        assert node.metrics()[MOMENT_ROWS] - rows <= 1_000


def test_a_cluster_owner_snapshots_and_reads_stay_bounded(cluster):
    eval_fill(cluster.redis, "demo", 1, 5_000)  # a log from before snapshots
    a = cluster.start_node("a", "--http-rate", "0")
    b = cluster.start_node("b", "--http-rate", "0")
    def put(node, value):
        # A cluster write waits up to 5 s for the owner's answer; on a loaded machine one can miss it
        # (503, "may or may not have been applied"). Setting the same value again is safe: try again.
        for _ in range(5):
            answer = node.request("PUT", "/api/rooms/demo/controls/gain", json.dumps({"value": value}))
            if answer.status != 503:
                return answer
        return answer
    assert put(b, 0.37).status == 200  # the owner's first committing turn writes a snapshot at 5001
    owner = cluster.node(cluster.wait_owner())
    owner.wait_metric("tandem_timeline_snapshots_total", lambda v: v >= 1)
    assert a.get("/api/rooms/demo/timeline").json()["first"] == 5_001
    rows = b.metrics()[MOMENT_ROWS]
    assert b.get("/api/rooms/demo/timeline/5001").json()["controls"]["gain"] == {"value": 0.37}
    assert b.metrics()[MOMENT_ROWS] - rows <= 1  # the snapshot, and the revision's row for who and when
    # Before the first snapshot: near the start the log is replayed from the empty map; deeper, refused, not scanned.
    assert b.get("/api/rooms/demo/timeline/20").json()["controls"]["gain"] == {"value": 0.2}
    assert b.get("/api/rooms/demo/timeline/4500").status == 410
    for k in range(1_100):  # past snapshotRows: a second snapshot
        assert put(a, (k % 100) / 100).status == 200
    owner.wait_metric("tandem_timeline_snapshots_total", lambda v: v >= 2)
    snaps = cluster.redis.command("XRANGE", "tandem:{demo}:snaps", "-", "+")
    revisions = [int(entry_id.split("-")[0]) for entry_id, _ in snaps]
    assert revisions[0] == 5_001 and revisions[1] - revisions[0] >= 1_000
    worst = 0
    for rev in range(5_001, 6_102, 50):
        before = b.metrics()[MOMENT_ROWS]
        moment = b.get(f"/api/rooms/demo/timeline/{rev}")
        assert moment.status == 200, moment
        worst = max(worst, b.metrics()[MOMENT_ROWS] - before)
    assert worst < 4_000


def test_a_cluster_viewers_restores_read_nothing_on_the_owner(cluster, open_ws, secret_file):  # noqa: F811
    flags = ("--auth-secret-file", str(secret_file))
    a = cluster.start_node("a", *flags)
    b = cluster.start_node("b", *flags)
    editor = joined(a, open_ws, token("editor", sub="ed"))
    editor.expect_ack(editor.set("gain", 0.2))
    owner = cluster.node(cluster.wait_owner())
    viewer = joined(b, open_ws, token("viewer", sub="vi"))
    reads = owner.metrics()[MOMENT_READS]
    flood(viewer, 1, 20)
    assert owner.metrics()[MOMENT_READS] == reads
    editor.expect_ack(restore(editor, 0))
    assert owner.metrics()[MOMENT_READS] == reads + 1
