"""Tokens and roles (docs/security.md, "Tokens and roles"): HS256 JWTs on the
WebSocket (`?token=`) and the HTTP API (`Authorization: Bearer`, `?token=`).

Tokens are minted here with Python's hmac, base64 and json, independently of
the server's code, so a bug shared by the minter and the verifier cannot hide.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
import os
import subprocess
import time

import pytest
from websockets.exceptions import ConnectionClosed

from helpers import ROOT, START_WAIT, WAIT, Client, close_of

SECRET = b"the current secret: at least thirty-two bytes long"
PREVIOUS = b"the previous secret, also thirty-two bytes or more"
OTHER = b"somebody else's secret, thirty-two bytes or more!!"

STUDIO = {"id": "studio", "title": "Studio", "controls": [{"id": "volume", "type": "slider", "min": 0, "max": 10, "step": 1}]}


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def sign(header: dict, payload: dict, key: bytes = SECRET) -> str:
    signing_input = b64(json.dumps(header).encode()) + "." + b64(json.dumps(payload).encode())
    return signing_input + "." + b64(hmac.new(key, signing_input.encode(), hashlib.sha256).digest())


def token(role="editor", room="demo", sub="u1", name=None, ttl=3600.0, key=SECRET, **claims) -> str:
    payload = {"sub": sub, "room": room, "role": role, "exp": int(time.time() + ttl), **claims}
    if name is not None:
        payload["name"] = name
    return sign({"alg": "HS256", "typ": "JWT"}, payload, key)


@pytest.fixture
def secret_file(tmp_path):
    path = tmp_path / "secret"
    path.write_bytes(SECRET + b"\n")
    return path


@pytest.fixture
def auth_server(start_server, secret_file):
    return start_server("--auth-secret-file", str(secret_file))


def joined(server, open_ws, jwt: str, room: str = "demo", **query) -> Client:
    return Client(open_ws(server.ws_url(room, token=jwt, **query)))


def refused(server, open_ws, jwt: str | None, room: str = "demo") -> tuple[int | None, str | None]:
    """Opens a WebSocket with `jwt` and returns the close the server sent: it must send nothing before it."""
    ws = open_ws(server.ws_url(room, **({"token": jwt} if jwt is not None else {})))
    with pytest.raises(ConnectionClosed):
        frame = ws.recv(timeout=WAIT)
        pytest.fail(f"got a frame before the close: {frame}")
    return close_of(ws)


def api(server, method, path, jwt=None, body=None):
    headers = {"Authorization": f"Bearer {jwt}"} if jwt else {}
    if body is not None:
        headers["Content-Type"] = "application/json"
    return server.request(method, path, json.dumps(body) if body is not None else None, headers)


# -- WebSocket


def test_no_token_is_closed_4401_missing_token_without_a_welcome(auth_server, open_ws):
    assert refused(auth_server, open_ws, None) == (4401, "missing token")


def test_a_valid_token_gets_a_welcome_with_its_role(auth_server, open_ws):
    client = joined(auth_server, open_ws, token(role="viewer"))
    assert client.welcome["role"] == "viewer"
    client = joined(auth_server, open_ws, token(role="admin"))
    assert client.welcome["role"] == "admin"


def test_with_auth_off_the_welcome_says_editor(server, connect):
    assert connect(server).welcome["role"] == "editor"


def test_alg_none_and_other_algorithms_are_refused_whatever_the_signature(auth_server, open_ws):
    payload = {"sub": "u1", "room": "demo", "role": "admin", "exp": int(time.time() + 3600)}
    unsigned = b64(json.dumps({"alg": "none"}).encode()) + "." + b64(json.dumps(payload).encode()) + "."
    assert refused(auth_server, open_ws, unsigned) == (4401, "algorithm must be HS256")
    for alg in ("none", "HS512", "RS256"):
        assert refused(auth_server, open_ws, sign({"alg": alg, "typ": "JWT"}, payload)) == (4401, "algorithm must be HS256")


def test_a_wrong_signature_or_a_tampered_payload_is_refused(auth_server, open_ws):
    assert refused(auth_server, open_ws, token(key=OTHER)) == (4401, "bad signature")
    header, _, signature = token(role="viewer").split(".")
    forged = b64(json.dumps({"sub": "u1", "room": "demo", "role": "admin", "exp": int(time.time() + 3600)}).encode())
    assert refused(auth_server, open_ws, f"{header}.{forged}.{signature}") == (4401, "bad signature")


def test_malformed_expired_and_not_yet_valid_tokens_name_the_failed_check(auth_server, open_ws):
    assert refused(auth_server, open_ws, "not-a-token")[0] == 4401
    assert refused(auth_server, open_ws, "not-a-token")[1].startswith("malformed token")
    assert refused(auth_server, open_ws, token(ttl=-120)) == (4401, "token expired")
    assert refused(auth_server, open_ws, token(nbf=int(time.time() + 600))) == (4401, "token not yet valid")
    no_sub = sign({"alg": "HS256"}, {"room": "demo", "exp": int(time.time() + 60)})
    assert refused(auth_server, open_ws, no_sub) == (4401, "sub missing")


def test_a_token_for_another_room_is_closed_4403(auth_server, open_ws):
    code, reason = refused(auth_server, open_ws, token(room="synth"))
    assert code == 4403
    assert "demo" in reason
    assert joined(auth_server, open_ws, token(room=["synth", "demo"])).welcome["room"] == "demo"
    assert joined(auth_server, open_ws, token(room="*")).welcome["room"] == "demo"


def test_a_viewers_every_write_kind_is_forbidden_and_changes_nothing(auth_server, open_ws):
    viewer = joined(auth_server, open_ws, token(role="viewer"))
    before = {c["id"]: c["state"] for c in viewer.welcome["controls"]}
    sent = [viewer.drag("size", "begin", at=0.9), viewer.set("gain", 0.9), viewer.step("size", 1),
            viewer.message("reset", "gain")]
    for type_ in ("undo", "redo", "reset"):
        viewer.seq += 1
        viewer.send_json({"type": type_, "seq": viewer.seq})
        sent.append(viewer.seq)
    for seq in sent:
        viewer.expect_reject("forbidden", seq)
    for path in ("/api/rooms/demo/reset", "/api/rooms/demo/controls/gain/reset"):
        assert api(auth_server, "POST", path, token(role="viewer")).status == 403
    after = api(auth_server, "GET", "/api/rooms/demo", token(role="viewer")).json()
    assert {c["id"]: c["state"] for c in after["controls"]} == before


def test_an_editor_can_write(auth_server, open_ws):
    editor = joined(auth_server, open_ws, token(role="editor"))
    seq = editor.step("size", 1)
    editor.expect_ack(seq)
    assert not [f for f in editor.history if f.get("type") == "reject"]


def test_a_program_may_send_the_websocket_token_as_a_bearer_header(auth_server, open_ws):
    ws = open_ws(auth_server.ws_url("demo"), additional_headers={"Authorization": f"Bearer {token(role='viewer')}"})
    assert Client(ws).welcome["role"] == "viewer"


def test_the_name_claim_wins_over_the_url_name(auth_server, open_ws):
    client = joined(auth_server, open_ws, token(name="Ann"), name="Mallory")
    assert client.welcome["peers"][-1]["name"] == "Ann"


def test_a_token_signed_with_the_previous_secret_is_accepted(start_server, secret_file, tmp_path, open_ws):
    previous = tmp_path / "previous"
    previous.write_bytes(PREVIOUS)
    server = start_server("--auth-secret-file", str(secret_file), "--auth-previous-secret-file", str(previous))
    assert joined(server, open_ws, token(key=PREVIOUS)).welcome["type"] == "welcome"
    assert joined(server, open_ws, token(key=SECRET)).welcome["type"] == "welcome"
    assert refused(server, open_ws, token(key=OTHER)) == (4401, "bad signature")


# -- expiry and refresh (a 0 s leeway, so nothing waits 30 s)


@pytest.fixture
def strict_server(start_server, secret_file):
    return start_server("--auth-secret-file", str(secret_file), "--auth-leeway", "0")


def short_lived(**claims) -> tuple[str, int]:
    """A token whose `exp` is 2 to 3 s away (whole seconds), and that exp: time enough to join."""
    exp = math.ceil(time.time()) + 2
    return token(exp=exp, **claims), exp


def test_a_live_session_is_closed_4401_when_its_token_expires(strict_server, open_ws):
    jwt, exp = short_lived()
    client = joined(strict_server, open_ws, jwt)
    assert client.wait_closed() == (4401, "token expired")
    assert time.time() >= exp, "closed before its token's exp"


def test_a_refreshed_session_outlives_its_first_token(strict_server, open_ws):
    jwt, exp = short_lived()
    client = joined(strict_server, open_ws, jwt)
    client.seq += 1
    client.send_json({"type": "auth", "seq": client.seq, "token": token(ttl=600)})
    client.expect_ack(client.seq)
    time.sleep(max(0.0, exp - time.time()))  # the scenario: past the first token's exp...
    strict_server.wait_housekeeping()  # ...and past a check of expired sessions since
    client.assert_alive()
    assert not [f for f in client.history if f.get("type") == "reject"]


def test_a_bad_refresh_is_rejected_unauthorized_and_the_session_goes_on(auth_server, open_ws):
    client = joined(auth_server, open_ws, token(role="editor", sub="u1"))
    for bad, words in ((token(key=OTHER), "bad signature"),
                       (token(sub="u2"), "another user"),
                       (token(room="synth"), "does not cover"),
                       (token(role="admin"), "role"),
                       ("garbage", "malformed")):
        client.seq += 1
        client.send_json({"type": "auth", "seq": client.seq, "token": bad})
        reject = client.expect_reject("unauthorized", client.seq)
        assert words in reject["message"]
    client.assert_alive()


def test_an_expired_session_refreshed_with_a_bad_token_is_still_closed(strict_server, open_ws):
    jwt, exp = short_lived()
    client = joined(strict_server, open_ws, jwt)
    client.seq += 1
    client.send_json({"type": "auth", "seq": client.seq, "token": token(ttl=600, key=OTHER)})
    client.expect_reject("unauthorized", client.seq)
    assert client.wait_closed() == (4401, "token expired")
    assert time.time() >= exp, "closed before its token's exp"


# -- HTTP API


def test_the_api_without_a_token_is_401_with_a_bearer_challenge(auth_server):
    for method, path, body in (("GET", "/api/rooms", None), ("GET", "/api/rooms/demo", None),
                               ("PUT", "/api/rooms/demo/controls/gain", {"value": 0.2}), ("POST", "/api/rooms", STUDIO)):
        response = api(auth_server, method, path, body=body)
        assert response.status == 401, (method, path, response)
        assert response.json() == {"code": "unauthorized", "message": "missing token"}
        assert response.header("WWW-Authenticate").startswith("Bearer")


def test_a_bad_token_on_the_api_is_401_naming_the_check(auth_server):
    response = api(auth_server, "GET", "/api/rooms", token(key=OTHER))
    assert response.status == 401
    assert response.json()["message"] == "bad signature"
    assert "invalid_token" in response.header("WWW-Authenticate")
    assert api(auth_server, "GET", "/api/rooms", token(ttl=-120)).json()["message"] == "token expired"


def test_static_files_healthz_and_metrics_need_no_token(auth_server):
    assert auth_server.get("/healthz").status == 200
    assert auth_server.get("/metrics").status == 200
    assert auth_server.get("/").status == 200


def test_the_token_may_come_in_the_query(auth_server):
    assert auth_server.get(f"/api/rooms/demo?token={token(role='viewer')}").status == 200


def test_a_viewer_reads_but_a_put_is_403_forbidden(auth_server):
    viewer = token(role="viewer")
    assert api(auth_server, "GET", "/api/rooms/demo", viewer).status == 200
    response = api(auth_server, "PUT", "/api/rooms/demo/controls/gain", viewer, {"value": 0.2})
    assert response.status == 403
    assert response.json()["code"] == "forbidden"
    assert api(auth_server, "PUT", "/api/rooms/demo/controls/gain", token(role="editor"), {"value": 0.2}).status == 200


def test_an_editor_cannot_create_or_delete_rooms_an_admin_can(auth_server):
    response = api(auth_server, "POST", "/api/rooms", token(role="editor", room="*"), STUDIO)
    assert response.status == 403
    assert response.json()["code"] == "forbidden"
    admin = token(role="admin", room="*")
    assert api(auth_server, "POST", "/api/rooms", admin, STUDIO).status == 201
    assert api(auth_server, "DELETE", "/api/rooms/studio", token(role="editor", room="*")).status == 403
    assert api(auth_server, "DELETE", "/api/rooms/studio", admin).status == 204


def test_an_admin_of_one_room_cannot_create_another(auth_server):
    response = api(auth_server, "POST", "/api/rooms", token(role="admin", room="synth"), STUDIO)
    assert response.status == 403
    assert api(auth_server, "POST", "/api/rooms", token(role="admin", room="studio"), STUDIO).status == 201


def test_a_room_the_token_does_not_cover_is_403_and_not_listed(auth_server):
    admin = token(role="admin", room="*")
    assert api(auth_server, "POST", "/api/rooms", admin, STUDIO).status == 201
    only_studio = token(role="viewer", room="studio")
    assert api(auth_server, "GET", "/api/rooms/demo", only_studio).status == 403
    assert [r["id"] for r in api(auth_server, "GET", "/api/rooms", only_studio).json()["rooms"]] == ["studio"]
    assert [r["id"] for r in api(auth_server, "GET", "/api/rooms", admin).json()["rooms"]] == ["demo", "studio"]


def test_refused_tokens_are_counted_by_reason(auth_server, open_ws):
    refused(auth_server, open_ws, None)
    refused(auth_server, open_ws, token(key=OTHER))
    api(auth_server, "GET", "/api/rooms", token(ttl=-120))
    metrics = auth_server.metrics()
    assert metrics['tandem_auth_failures_total{reason="missing"}'] == 1
    assert metrics['tandem_auth_failures_total{reason="signature"}'] == 1
    assert metrics['tandem_auth_failures_total{reason="expired"}'] == 1


# -- start and flags


def test_the_start_line_says_mode_token(auth_server):
    assert auth_server.log_lines(r"listening on .* mode=token ")
    assert not auth_server.log_lines(r"^warn auth is off")


def test_with_auth_off_the_start_warns_mode_open(server):
    assert server.log_lines(r"listening on .* mode=open ")
    assert server.wait_for_log(r"^warn auth is off")


def run_tandem(binary, *args, env=None):
    environment = {k: v for k, v in os.environ.items() if k != "TANDEM_AUTH_SECRET"}
    environment.update(env or {})
    return subprocess.run([str(binary), *args], cwd=ROOT, capture_output=True, text=True, timeout=START_WAIT, env=environment)


def test_a_short_secret_exits_2_naming_the_flag_and_the_file(tandem_binary, tmp_path):
    short = tmp_path / "short"
    short.write_bytes(b"twelve bytes\n")
    result = run_tandem(tandem_binary, "--port", "0", "--auth-secret-file", str(short))
    assert result.returncode == 2
    assert f"--auth-secret-file {short}: secret is 12 bytes, at least 32 are needed" in result.stderr
    result = run_tandem(tandem_binary, "--port", "0", env={"TANDEM_AUTH_SECRET": "short"})
    assert result.returncode == 2
    assert "TANDEM_AUTH_SECRET" in result.stderr


def test_a_previous_secret_alone_or_two_current_secrets_exit_2(tandem_binary, secret_file):
    result = run_tandem(tandem_binary, "--port", "0", "--auth-previous-secret-file", str(secret_file))
    assert result.returncode == 2
    assert "--auth-previous-secret-file needs a current secret" in result.stderr
    result = run_tandem(tandem_binary, "--port", "0", "--auth-secret-file", str(secret_file),
                        env={"TANDEM_AUTH_SECRET": SECRET.decode()})
    assert result.returncode == 2
    assert "both" in result.stderr


def test_the_secret_may_come_from_the_environment(start_server, open_ws, monkeypatch):
    monkeypatch.setenv("TANDEM_AUTH_SECRET", SECRET.decode())
    server = start_server()
    assert server.log_lines(r"mode=token")
    assert refused(server, open_ws, None) == (4401, "missing token")
    assert joined(server, open_ws, token()).welcome["role"] == "editor"


# -- tandem token


def verify(jwt: str, key: bytes = SECRET) -> dict:
    header, payload, signature = jwt.split(".")
    expected = b64(hmac.new(key, f"{header}.{payload}".encode(), hashlib.sha256).digest())
    assert hmac.compare_digest(expected, signature)
    assert json.loads(base64.urlsafe_b64decode(header + "==")) == {"alg": "HS256", "typ": "JWT"}
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def test_tandem_token_prints_a_token_that_verifies_and_opens_the_room(tandem_binary, secret_file, auth_server, open_ws):
    result = run_tandem(tandem_binary, "token", "--room", "demo", "--role", "editor", "--name", "Ann",
                        "--ttl", "8h", "--auth-secret-file", str(secret_file))
    assert result.returncode == 0, result.stderr
    jwt = result.stdout.strip()
    claims = verify(jwt)
    assert claims["sub"] == "name:Ann" and claims["name"] == "Ann"
    assert claims["room"] == "demo" and claims["role"] == "editor"
    assert abs(claims["exp"] - time.time() - 8 * 3600) < 60
    client = joined(auth_server, open_ws, jwt)
    assert client.welcome["role"] == "editor"
    assert client.welcome["peers"][-1]["name"] == "Ann"


def test_tandem_token_with_url_prints_the_invite_link(tandem_binary):
    result = run_tandem(tandem_binary, "token", "--room", "synth", "--room", "demo", "--name", "Ann B", "--sub", "u42",
                        "--url", "http://host:8080", env={"TANDEM_AUTH_SECRET": SECRET.decode()})
    assert result.returncode == 0, result.stderr
    link = result.stdout.strip()
    assert link.startswith("http://host:8080/?room=synth&name=Ann%20B&token=")
    claims = verify(link.split("token=")[1])
    assert claims["sub"] == "u42" and sorted(claims["room"]) == ["demo", "synth"] and claims["role"] == "viewer"


def test_tandem_token_usage_errors_exit_2(tandem_binary, secret_file):
    for args in (["--name", "Ann"], ["--room", "demo", "--role", "owner", "--name", "A"], ["--room", "demo"],
                 ["--room", "demo", "--name", "A", "--ttl", "forever"], ["--room", "demo", "--name", "A", "--bogus", "1"]):
        result = run_tandem(tandem_binary, "token", *args, "--auth-secret-file", str(secret_file))
        assert result.returncode == 2, (args, result)
        assert result.stderr.startswith("tandem: ")
    result = run_tandem(tandem_binary, "token", "--room", "demo", "--name", "A")
    assert result.returncode == 2
    assert "no secret" in result.stderr


def test_with_auth_off_on_all_addresses_the_start_adds_an_error_line(tandem_binary):
    environment = {k: v for k, v in os.environ.items() if k != "TANDEM_AUTH_SECRET"}
    proc = subprocess.Popen([str(tandem_binary), "--host", "0.0.0.0", "--port", "0", "--data", ":memory:"], cwd=ROOT,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=environment)
    try:
        lines = [proc.stderr.readline() for _ in range(3)]
    finally:
        proc.terminate()
        assert proc.wait(WAIT) == 0
    assert "mode=open" in lines[0]
    assert lines[1].startswith("warn auth is off")
    assert lines[2].startswith("error auth is off and the server listens on 0.0.0.0")


def test_a_write_without_a_token_is_401_before_its_body_is_read(auth_server):
    import socket
    with socket.create_connection(("127.0.0.1", auth_server.port), timeout=WAIT) as sock:
        sock.sendall(f"POST /api/rooms HTTP/1.1\r\nHost: 127.0.0.1:{auth_server.port}\r\n"
                     "Content-Type: application/json\r\nContent-Length: 60000\r\n\r\n{".encode())
        answer = ""
        while "\r\n\r\n" not in answer:  # the body is never sent: the answer must not wait for it
            chunk = sock.recv(4096)
            assert chunk, f"closed without a whole answer: {answer!r}"
            answer += chunk.decode("latin-1")
    assert answer.split("\r\n", 1)[0].split(" ")[1] == "401"
    assert "www-authenticate: bearer" in answer.lower()
