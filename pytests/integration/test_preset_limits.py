"""The limits of presets (docs/presets.md, "Limits"; findings 4, 5 and 8 of
the second hostile probe, docs/security.md, and its low ones on names and HTTP
authors): one notion of a name (NFC, no bidi controls, a byte cap beside the
character cap), the per-room cap held by Redis in a cluster, the rate limit
before a save on every node, and the list sent to members a few times a second
however fast it changes."""

from __future__ import annotations

import itertools
import json
import os
import socket
import sqlite3
import struct
import time
import unicodedata
import urllib.parse

import pytest

from helpers import OP_TEXT, WAIT, RawWebSocket, open_websocket, wait_until, Client
from test_auth import api, auth_server, secret_file, token  # noqa: F401  (fixtures)
from test_cluster import cluster, redis  # noqa: F401  (fixtures: two nodes on a Redis of their own)

NAME = "\u00c5\u00e9\u00f6\u00f1\u00fc"  # "Åéöñü" in NFC


def spellings(n: int = 120) -> list[str]:
    """`n` spellings of NAME that NFC and the removal of bidi controls make one:
    each letter precomposed or decomposed (Å also as the Ångström sign), with
    or without direction marks and overrides around it."""
    letters = [["\u00c5", "A\u030a", "\u212b"], ["\u00e9", "e\u0301"], ["\u00f6", "o\u0308"], ["\u00f1", "n\u0303"],
               ["\u00fc", "u\u0308"], ["", "\u200e"], ["", "\u202e"]]
    out = []
    for parts in itertools.product(*letters):
        spelling = parts[6] + "".join(parts[:5]) + parts[5]
        out.append(spelling)
    assert len(set(out)) >= n and all(unicodedata.normalize("NFC", s.replace("\u200e", "").replace("\u202e", "")) == NAME for s in out)
    return out[:n]


def frame(message: dict) -> bytes:
    """One masked text frame."""
    payload = json.dumps(message, ensure_ascii=False).encode()
    header = bytearray([0x81])
    n = len(payload)
    if n < 126:
        header.append(0x80 | n)
    elif n < 65536:
        header += bytes([0x80 | 126]) + struct.pack("!H", n)
    else:
        header += bytes([0x80 | 127]) + struct.pack("!Q", n)
    mask = os.urandom(4)
    return bytes(header) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def save(seq: int, name: str) -> dict:
    return {"type": "preset", "seq": seq, "action": "save", "name": name}


class Member:
    """A raw WebSocket member (for bursts in one write) that keeps every frame it read."""

    def __init__(self, port: int, name: str):
        self.raw = RawWebSocket(port, f"/rooms/demo?name={name}")
        self.frames: list[dict] = []
        self.seq = 0
        self.until(lambda f: f.get("type") == "welcome", "welcome")
        self.until(lambda f: f.get("type") == "presets", "the list after the welcome")

    def read(self, timeout: float) -> dict | None:
        self.raw.settimeout(timeout)
        try:
            while True:
                opcode, payload = self.raw.read_message()
                if opcode == OP_TEXT:
                    parsed = json.loads(payload)
                    self.frames.append(parsed)
                    return parsed
        except (socket.timeout, TimeoutError):
            return None

    def until(self, done, what: str, timeout: float = WAIT) -> dict:
        for f in self.frames:
            if done(f):
                return f
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            f = self.read(max(0.01, deadline - time.monotonic()))
            if f is not None and done(f):
                return f
        raise AssertionError(f"no {what} within {timeout} s; last frames: {self.frames[-5:]}")

    def burst(self, messages: list[dict]) -> None:
        """Sends `messages` (their seqs taken from this member's count) in ONE write."""
        out = bytearray()
        for m in messages:
            self.seq += 1
            out += frame({**m, "seq": self.seq})
        self.raw.sock.sendall(bytes(out))

    def acked(self, seq: int) -> dict:
        return self.until(lambda f: (f.get("ack") or 0) >= seq, f"ack of {seq}")

    def rejects(self, code: str, seqs=None) -> list[dict]:
        return [f for f in self.frames if f.get("type") == "reject" and f.get("code") == code
                and (seqs is None or f.get("seq") in seqs)]

    def lists(self) -> list[list[str]]:
        return [[p["name"] for p in f["presets"]] for f in self.frames if f.get("type") == "presets"]

    def close(self) -> None:
        self.raw.close()


def stored_names(data: str) -> list[bytes]:
    with sqlite3.connect(data) as db:
        db.text_factory = bytes
        return [row[0] for row in db.execute("SELECT name FROM presets WHERE room = 'demo' ORDER BY name")]


# -- names: one notion of equal text


def test_120_spellings_of_one_name_are_one_row_and_a_delete_stays_deleted_after_a_restart(start_server, tmp_path):
    data = str(tmp_path / "tandem.db")
    server = start_server("--data", data)
    ann = Member(server.port, "Ann")
    ann.burst([save(0, s) for s in spellings()])
    ann.acked(ann.seq)
    assert not ann.rejects("bad_value"), ann.rejects("bad_value")[:3]
    listed = server.get("/api/rooms/demo/presets").json()["presets"]
    assert [p["name"] for p in listed] == [NAME]
    assert stored_names(data) == [NAME.encode()], "one row, under the NFC name"
    # Any spelling names it: a delete by the decomposed one deletes the row.
    decomposed = urllib.parse.quote(unicodedata.normalize("NFD", NAME), safe="")
    assert server.request("DELETE", f"/api/rooms/demo/presets/{decomposed}").status == 204
    assert stored_names(data) == []
    ann.close()
    assert server.stop() == 0
    again = start_server("--data", data)
    assert again.get("/api/rooms/demo/presets").json() == {"presets": []}, "the deleted preset stays deleted"


def test_rows_stored_under_several_spellings_load_as_one_the_newest_winning(start_server, tmp_path):
    data = str(tmp_path / "tandem.db")
    first = start_server("--data", data)
    assert first.request("PUT", "/api/rooms/demo/presets/Cold").status == 201  # makes the table
    assert first.stop() == 0
    # Rows as an older version wrote them: one name in three spellings, the decomposed one newest.
    nfd, bidi = unicodedata.normalize("NFD", NAME), "\u202e" + NAME
    with sqlite3.connect(data) as db:
        for name, by, when in ((NAME, "Old", 1000), (nfd, "Newest", 3000), (bidi, "Middle", 2000)):
            db.execute("INSERT INTO presets (room, name, states, client, by_name, time) VALUES ('demo', ?, ?, 'c1', ?, ?)",
                       (name, '{"gain":{"value":0.5}}', by, when))
    second = start_server("--data", data)
    listed = second.get("/api/rooms/demo/presets").json()["presets"]
    assert [(p["name"], p["by"]) for p in listed] == [("Cold", "api"), (NAME, "Newest")]
    second.wait_for_log("stored again under their cleaned names")
    assert sorted(stored_names(data)) == sorted([b"Cold", NAME.encode()]), "the winner under its NFC name, the other spellings gone"
    assert second.request("DELETE", f"/api/rooms/demo/presets/{urllib.parse.quote(NAME, safe='')}").status == 204
    assert second.stop() == 0
    third = start_server("--data", data)
    assert [p["name"] for p in third.get("/api/rooms/demo/presets").json()["presets"]] == ["Cold"]


def test_a_4_kb_name_of_short_characters_is_refused_naming_its_bytes(server, connect):
    heavy = "e" + "\u0301" * 2000  # one character, 4,001 bytes
    sixty = ("a" + "\u0300\u0301\u0302\u0303\u0304") * 60  # 60 characters of 11 bytes: 660 bytes
    ann = Member(server.port, "Ann")
    ann.burst([save(0, heavy), save(0, sixty)])
    ann.acked(ann.seq)
    rejects = ann.rejects("bad_value")
    assert [r["seq"] for r in rejects] == [1, 2]
    assert all("bytes" in r["message"] for r in rejects), rejects
    answer = server.request("PUT", f"/api/rooms/demo/presets/{urllib.parse.quote(sixty, safe='')}")
    assert answer.status == 400 and answer.json()["code"] == "bad_value" and "bytes" in answer.json()["message"]
    assert server.get("/api/rooms/demo/presets").json() == {"presets": []}
    ann.close()


def test_bidi_overrides_are_removed_from_preset_names(server):
    ann = Member(server.port, "Ann")
    ann.burst([save(0, "\u202eWarm\u202c"), {"type": "preset", "action": "rename", "name": "Warm", "to": "\u2067Hot\u2069"}])
    ann.acked(ann.seq)
    assert not ann.rejects("bad_value") and not ann.rejects("unknown_preset")
    ann.until(lambda f: f.get("type") == "presets" and [p["name"] for p in f["presets"]] == ["Hot"], "the list with Hot")
    assert [p["name"] for p in server.get("/api/rooms/demo/presets").json()["presets"]] == ["Hot"]
    ann.close()


def test_an_http_save_shows_the_tokens_name_or_api_never_its_sub(auth_server):
    def by(jwt: str, name: str) -> str:
        answer = api(auth_server, "PUT", f"/api/rooms/demo/presets/{name}", jwt)
        assert answer.status in (200, 201), answer
        return answer.json()["by"]

    assert by(token(sub="ann@example.com"), "A") == "api"
    assert by(token(sub="ann@example.com", name="Ann\u202e  Smith\n"), "B") == "Ann Smith"
    assert by(token(sub="ann@example.com", name=" \u200f "), "C") == "api"
    listed = api(auth_server, "GET", "/api/rooms/demo/presets", token(role="viewer")).json()["presets"]
    assert "example.com" not in json.dumps(listed)


# -- the rate limit before a save, and the list a few times a second


def flood_of_saves(member: Member, saves: int = 1500) -> list[int]:
    """`saves` saves of one name in one write, well past the burst of 600 (the bucket refills at 300
    a second while the server works through them: only if that took 3 s would none be refused): their seqs.
    A member is kept at most 1,024 rejects at a time (past that its ack stops and it is closed), so the
    900 rate_limited ones at most all arrive."""
    member.burst([save(0, "Same")] * saves)
    return list(range(member.seq - saves + 1, member.seq + 1))


def last_answer_or_flood_close(member: Member, seqs: list[int]) -> None:
    """Waits for the answer to the burst's last save. On a loaded machine the server may take
    over a second to refuse the burst, which is a flood: it then closes the connection (1008,
    docs/protocol.md), and the rejects that came first are the answer."""
    try:
        member.until(lambda f: f.get("type") == "reject" and f.get("seq") == seqs[-1] or (f.get("ack") or 0) >= seqs[-1],
                     "the last save's answer")
    except EOFError:
        pass


def test_a_burst_of_saves_past_the_rate_is_rate_limited_on_one_node(server):
    ann = Member(server.port, "Ann")
    seqs = flood_of_saves(ann)
    last_answer_or_flood_close(ann, seqs)
    assert ann.rejects("rate_limited", seqs), "saves are messages under the rate"
    ann.close()


def assert_few_lists(member: Member, mark: int, started: float, names: set[str]) -> None:
    """The lists `member` got since `mark` end with `names`, and were at most
    one at once and then one per 250 ms of the time the changes took (and one
    more for the last ones), however many changes there were."""
    member.until(lambda f: f.get("type") == "presets" and {p["name"] for p in f["presets"]} >= names, "the last list")
    elapsed = time.monotonic() - started
    lists = [f for f in member.frames[mark:] if f.get("type") == "presets"]
    assert len(lists) <= 3 + int(elapsed / 0.25), f"{len(lists)} lists in {elapsed:.2f} s"


def test_a_member_gets_the_list_a_few_times_a_second_however_fast_it_changes(server, connect):
    ann = connect(server, name="Ann")
    ben = Member(server.port, "Ben")
    mark, started = len(ben.frames), time.monotonic()
    for k in range(60):  # each save answered before the next: every one would be a list of its own
        ann.seq += 1
        ann.send_json(save(ann.seq, f"p{k}"))
        ann.expect_ack(ann.seq)
    assert_few_lists(ben, mark, started, {f"p{k}" for k in range(60)})
    ben.close()


# -- in a cluster


def listed(member: Member, check, what: str) -> dict[str, dict]:
    """The presets of the first list `member` got (or gets) for which `check(presets by name)` holds."""
    found = member.until(lambda f: f.get("type") == "presets" and check({p["name"]: p for p in f["presets"]}), what)
    return {p["name"]: p for p in found["presets"]}


def test_the_per_room_cap_holds_in_a_cluster_under_bursts_from_two_nodes(cluster):
    n1, n2 = cluster.start_node("n1"), cluster.start_node("n2")
    ann, ben = Member(n1.port, "Ann"), Member(n2.port, "Ben")
    ann.burst([save(0, "keep-a")])
    ben.burst([save(0, "keep-b")])
    before = listed(ann, lambda p: {"keep-a", "keep-b"} <= set(p), "both keeps")
    # 150 new names from each node at once, each burst in one write, and then a save over each node's keep:
    # a node sends its scripts to Redis in order, so once both keeps are replaced every save has been answered.
    ann.burst([save(0, f"a{k}") for k in range(150)] + [save(0, "keep-a")])
    ben.burst([save(0, f"b{k}") for k in range(150)] + [save(0, "keep-b")])
    listed(ann, lambda p: all(k in p and p[k]["time"] != before[k]["time"] for k in ("keep-a", "keep-b")), "both keeps replaced")
    assert int(cluster.redis.command("HLEN", "tandem:{demo}:presets")) == 100, "Redis holds the cap, not each node's view"
    full = [r for m in (ann, ben) for r in m.rejects("bad_value") if "at most 100" in r["message"]]
    assert full, "the saves past the cap are refused"
    final = listed(ben, lambda p: len(p) == 100, "the full list on the other node")
    assert set(final) == set(json.loads(json.dumps(cluster.redis.command("HKEYS", "tandem:{demo}:presets"))))
    ann.close()
    ben.close()


def test_spellings_of_one_name_are_one_field_in_redis(cluster):
    n1, n2 = cluster.start_node("n1"), cluster.start_node("n2")
    ann, ben = Member(n1.port, "Ann"), Member(n2.port, "Ben")
    ann.burst([save(0, s) for s in spellings()] + [save(0, "zz")])
    # Deltas go out in the order Redis made the changes: zz in Ben's list means the 120 are in.
    ben.until(lambda f: f.get("type") == "presets" and "zz" in [p["name"] for p in f["presets"]], "zz on the other node")
    assert sorted(cluster.redis.command("HKEYS", "tandem:{demo}:presets")) == sorted([NAME, "zz"])
    assert ben.lists()[-1] == sorted([NAME, "zz"])
    ann.close()
    ben.close()


def test_a_burst_of_saves_past_the_rate_is_rate_limited_in_a_cluster(cluster):
    n1, n2 = cluster.start_node("n1"), cluster.start_node("n2")
    for node in (n1, n2):  # on the owner's node and on the other one alike
        ann = Member(node.port, "Ann")
        seqs = flood_of_saves(ann)
        last_answer_or_flood_close(ann, seqs)
        assert ann.rejects("rate_limited", seqs), f"saves are messages under the rate on {node.name} too"
        ann.close()


def test_a_member_on_another_node_gets_the_list_a_few_times_a_second(cluster):
    n1, n2 = cluster.start_node("n1"), cluster.start_node("n2")
    ann = Client(open_websocket(n1.ws_url("demo", name="Ann")).__enter__())
    ben = Member(n2.port, "Ben")
    mark, started = len(ben.frames), time.monotonic()
    for k in range(60):
        ann.seq += 1
        ann.send_json(save(ann.seq, f"p{k}"))
        ann.expect_ack(ann.seq)
    assert_few_lists(ben, mark, started, {f"p{k}" for k in range(60)})
    ann.close()
    ben.close()
