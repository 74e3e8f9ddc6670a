"""`GET /api/cluster` and an admin token's room scope (docs/scale-out.md):
an admin of some rooms sees those rooms only; a `"*"` admin sees everything."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time

import pytest

from cluster import Cluster, RedisServer
from conftest import stop_running
from helpers import WAIT, open_websocket, wait_until

SECRET = b"the current secret: at least thirty-two bytes long"
LAB = {"id": "lab", "title": "Lab", "controls": [{"id": "x", "type": "slider", "min": 0, "max": 1}]}


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def token(room, role="admin", sub="ops") -> str:
    payload = {"sub": sub, "room": room, "role": role, "exp": int(time.time() + 3600)}
    signing_input = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode()) + "." + b64(json.dumps(payload).encode())
    return signing_input + "." + b64(hmac.new(SECRET, signing_input.encode(), hashlib.sha256).digest())


@pytest.fixture
def nodes(tandem_binary, tmp_path):
    (tmp_path / "redis").mkdir()
    redis = RedisServer(tmp_path / "redis")
    secret = tmp_path / "secret"
    secret.write_bytes(SECRET + b"\n")
    started = []
    cluster = Cluster(tandem_binary, redis, started)
    n1 = cluster.start_node("n1", "--auth-secret-file", str(secret))
    n2 = cluster.start_node("n2", "--auth-secret-file", str(secret))
    yield n1, n2
    try:
        stop_running(started)
    finally:
        redis.stop()


def cluster_view(node, jwt: str) -> dict:
    answer = node.request("GET", "/api/cluster", headers={"Authorization": f"Bearer {jwt}"})
    assert answer.status == 200, answer
    assert answer.header("cache-control") == "no-store"
    return answer.json()


def test_a_room_scoped_admin_sees_only_its_rooms_in_api_cluster(nodes):
    n1, n2 = nodes
    everything = token("*")
    created = n1.request("POST", "/api/rooms", json.dumps(LAB), headers={"Authorization": f"Bearer {everything}"})
    assert created.status == 201, created
    members = []
    for room in ("demo", "lab"):  # a member in each, so that each room has an owner
        ws = open_websocket(n2.ws_url(room, token=token(room, role="viewer"))).__enter__()
        members.append(ws)
        assert json.loads(ws.recv(timeout=WAIT))["type"] == "welcome"

    def both_owned():
        view = cluster_view(n1, everything)
        owned = {room for node in view["nodes"] for room in node["owned"]}
        return view if {"demo", "lab"} <= owned and {n["id"] for n in view["nodes"]} == {"n1", "n2"} else None

    full = wait_until(both_owned, what="both rooms owned and both nodes listed")
    assert set(full["rooms"]) >= {"demo", "lab"} and "scoped" not in full
    assert all("address" in n and "connections" in n for n in full["nodes"])

    scoped = cluster_view(n1, token("lab"))
    assert set(scoped["rooms"]) == {"lab"}
    assert scoped["scoped"] is True
    assert {room for node in scoped["nodes"] for room in node["owned"]} == {"lab"}
    assert all("address" not in n and "connections" not in n for n in scoped["nodes"])
    # An editor still may not read it at all.
    refused = n1.request("GET", "/api/cluster", headers={"Authorization": f"Bearer {token('lab', role='editor')}"})
    assert refused.status == 403
    for ws in members:
        ws.close()
