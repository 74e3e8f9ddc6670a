"""A room-scoped admin stays in its rooms (finding 1 of the second hostile probe,
docs/security.md "The second probe, replayed").

`POST /api/rooms` carries the room it creates or replaces in its body. The
room a token must cover is read by the same reader that builds the schema
(`RoomBody`), so every spelling the decoder accepts — a byte order mark,
`"room"` standing for a missing `"id"`, `"id": null`, a repeated key — is
authorised as the room it will apply. Before, a first parse of `"id"` was
authorised and the decoder applied another room: a token for `mine` replaced
`victim` and the built-in `demo`. Also run against a two-node cluster
(`make test-cluster-protocol`).
"""

from __future__ import annotations

import json

import pytest

from helpers import Client
from test_auth import api, auth_server, secret_file, token  # noqa: F401 (fixtures)

CONTROLS = [{"id": "knob", "type": "slider", "min": 0, "max": 1}]


def body(**fields) -> dict:
    return {**fields, "title": "Taken", "controls": CONTROLS}


def raw(text: str | bytes) -> bytes:
    return text if isinstance(text, bytes) else text.encode()


SPELLINGS = {
    "id": raw(json.dumps(body(id="victim"))),
    "room instead of id": raw(json.dumps(body(room="victim"))),
    "id null, room": raw('{"id":null,"room":"victim","title":"Taken","controls":%s}' % json.dumps(CONTROLS)),
    "repeated id, last wins": raw('{"id":"mine","id":"victim","title":"Taken","controls":%s}' % json.dumps(CONTROLS)),
    "id then a null id": raw('{"id":"victim","id":null,"title":"Taken","controls":%s}' % json.dumps(CONTROLS)),
    "byte order mark": b"\xef\xbb\xbf" + raw(json.dumps(body(id="victim"))),
    "byte order mark, demo": b"\xef\xbb\xbf" + raw(json.dumps(body(id="demo"))),
    "room instead of id, demo": raw(json.dumps(body(room="demo"))),
}


def post(server, jwt: str, data: bytes):
    return server.request("POST", "/api/rooms", data, {"Authorization": f"Bearer {jwt}", "Content-Type": "application/json"})


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_a_scoped_admin_cannot_create_or_replace_a_room_outside_its_scope(auth_server, open_ws, spelling):
    everything = token(role="admin", room="*")
    assert api(auth_server, "POST", "/api/rooms", everything, body(id="victim")).status == 201
    member = Client(open_ws(auth_server.ws_url("demo", token=token(role="editor", room="demo"))))

    answer = post(auth_server, token(role="admin", room="mine"), SPELLINGS[spelling])

    assert answer.status == 403, answer.body
    assert answer.json()["code"] == "forbidden"
    target = "demo" if "demo" in spelling else "victim"
    assert f"'{target}'" in answer.json()["message"]
    # Nothing was applied: both rooms keep their titles, no "mine" was made,
    # and the demo's member was not closed (1012) by a replacement.
    rooms = {r["id"]: r["title"] for r in api(auth_server, "GET", "/api/rooms", everything).json()["rooms"]}
    assert rooms["victim"] == "Taken" and rooms["demo"] != "Taken" and "mine" not in rooms
    assert member.barrier()


@pytest.mark.parametrize("spelling", ["id", "room instead of id", "byte order mark"])
def test_a_scoped_admin_creates_its_own_room_by_any_spelling(auth_server, spelling):
    data = SPELLINGS[spelling].replace(b'"victim"', b'"mine"')
    answer = post(auth_server, token(role="admin", room="mine"), data)
    assert answer.status == 201, answer.body
    assert answer.json()["room"] == "mine"


def test_a_viewer_is_refused_for_its_role_before_its_body_is_read(auth_server):
    answer = post(auth_server, token(role="viewer", room="*"), b"\xef\xbb\xbfnot json at all")
    assert answer.status == 403
    assert "admin role" in answer.json()["message"]


def test_a_scoped_admin_with_an_unreadable_body_gets_the_schema_error(auth_server):
    answer = post(auth_server, token(role="admin", room="mine"), b'{"room": 7}')
    assert answer.status == 400
    assert answer.json()["code"] == "bad_schema"
