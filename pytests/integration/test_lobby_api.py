"""What the web lobby reads: `GET /api/rooms` counts the people in each room and
says whether the caller may create rooms; `/` without `?room=` is the lobby page,
with it (every older link) the room page."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time

from helpers import wait_until

SECRET = b"the lobby's secret: at least thirty-two bytes long"


def token(role: str, room="*", sub="u1") -> str:
    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    payload = {"sub": sub, "room": room, "role": role, "exp": int(time.time() + 3600)}
    signing_input = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode()) + "." + b64(json.dumps(payload).encode())
    return signing_input + "." + b64(hmac.new(SECRET, signing_input.encode(), hashlib.sha256).digest())


def rooms(server, headers=None) -> dict:
    response = server.request("GET", "/api/rooms", headers=headers)
    assert response.status == 200, response
    return response.json()


def people(server, room="demo", headers=None) -> int:
    return {r["id"]: r["people"] for r in rooms(server, headers)["rooms"]}[room]


def wait_people(server, n: int, room="demo") -> None:
    wait_until(lambda: people(server, room) == n, what=f"{n} people in {room}")


def test_rooms_count_the_people_in_each_room_as_they_come_and_go(server, connect):
    answer = rooms(server)
    assert answer["rooms"] == [{"id": "demo", "title": "Demo", "clients": 0, "people": 0}]
    ann = connect(server, name="Ann")
    bob = connect(server, name="Bob")
    wait_people(server, 2)
    bob.close()
    wait_people(server, 1)
    ann.close()
    wait_people(server, 0)


def test_people_past_the_presence_limit_are_counted_too(start_server, connect):
    server = start_server("--presence-limit", "1")
    connect(server, name="Ann")
    connect(server, name="Bob")  # joins quietly: not listed, but here
    wait_people(server, 2)


def test_with_auth_off_a_loopback_caller_may_create_rooms_and_a_relayed_one_may_not(server):
    assert rooms(server)["admin"] is True
    relayed = rooms(server, {"X-Forwarded-For": "203.0.113.9"})
    assert relayed["admin"] is False
    # …and the answer tells the truth: that POST is refused.
    response = server.request("POST", "/api/rooms", json.dumps({"id": "x", "controls": []}),
                              {"Content-Type": "application/json", "X-Forwarded-For": "203.0.113.9"})
    assert response.status == 403


def test_with_auth_on_only_an_admin_token_may_create_rooms(start_server, tmp_path):
    secret = tmp_path / "secret"
    secret.write_bytes(SECRET)
    server = start_server("--auth-secret-file", str(secret))
    assert server.request("GET", "/api/rooms").status == 401
    assert rooms(server, {"Authorization": f"Bearer {token('admin')}"})["admin"] is True
    assert rooms(server, {"Authorization": f"Bearer {token('editor')}"})["admin"] is False
    viewer = rooms(server, {"Authorization": f"Bearer {token('viewer', room='elsewhere')}"})
    assert viewer == {"rooms": [], "admin": False}


def test_slash_is_the_lobby_and_every_room_link_the_room_page(server):
    lobby = server.get("/")
    assert lobby.status == 200 and 'src="js/lobby.js"' in lobby.text
    for path in ("/?name=Ann", "/?room=", "/?token=abc"):
        assert 'src="js/lobby.js"' in server.get(path).text, path
    for path in ("/?room=demo", "/?room=demo&name=Ann&token=abc", "/?name=Ann&room=synth", "/index.html"):
        page = server.get(path)
        assert page.status == 200 and 'src="js/app.js"' in page.text, path
    assert 'src="js/lobby.js"' in server.get("/lobby.html").text


def test_a_web_root_without_a_lobby_keeps_serving_its_index_for_slash(start_server, tmp_path):
    root = tmp_path / "web"
    root.mkdir()
    (root / "index.html").write_text("<!doctype html><title>mine</title>\n")
    server = start_server("--web", str(root))
    assert server.get("/").text == "<!doctype html><title>mine</title>\n"
    assert server.get("/?room=demo").status == 200
