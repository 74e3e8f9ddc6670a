"""Series in cluster mode (docs/series.md, "Cluster mode"): the room's owner keeps
them in Redis; any node answers `GET …/series/{control}`; a new owner goes on from
what Redis holds."""

from __future__ import annotations

import json
import signal

import pytest

from helpers import wait_until
from test_cluster import cluster, redis  # noqa: F401 (fixtures)


def put(node, value: float) -> None:
    answer = node.request("PUT", "/api/rooms/demo/controls/bpm", json.dumps({"value": value}))
    assert answer.status == 200, answer


def points(node, **query) -> list:
    path = "/api/rooms/demo/series/bpm" + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")
    answer = node.request("GET", path)
    assert answer.status == 200, answer
    return answer.json()["points"]


def test_every_node_answers_the_owners_series_and_a_new_owner_goes_on(cluster, join, redis):
    n1, n2 = cluster.start_node("n1"), cluster.start_node("n2")
    join(n1, "Ann")
    join(n2, "Bob")
    owner = cluster.wait_owner()
    other = n2 if owner == "n1" else n1
    for i in range(1, 41):
        put(other, float(i))  # answered once the owner applied and stored it
    # On the owner from memory at once; on the other node from Redis once the owner's tick wrote it.
    mine = points(cluster.node(owner), points=1000)
    assert mine[-1][3] == 40 and max(p[2] for p in mine) == 40 and min(p[1] for p in mine) <= 1
    wait_until(lambda: (got := points(other, points=1000)) and got[-1][3] == 40, what="the series in Redis, read by the other node")
    assert points(other, points=1000) == mine
    assert len(points(other, points=3)) <= 3
    assert "tandem_series_redis_write_failures_total 0" in cluster.node(owner).request("GET", "/metrics").body.decode()
    fields = redis.command("HLEN", "tandem:{demo}:series:bpm")
    assert 0 < int(fields) <= 8340

    # The owner dies: the survivor takes the room and goes on from what Redis holds.
    cluster.node(owner).send_signal(signal.SIGKILL)
    assert cluster.node(owner).wait_exit() is not None
    assert cluster.wait_owner(other_than=owner) == other.name
    put(other, 99.0)
    after = points(other, points=1000)
    assert after[-1][3] == 99 and max(p[2] for p in after) == 99
    assert min(p[1] for p in after) <= 1, "the earlier values are still there"


def test_a_deleted_room_takes_its_series_with_it(cluster, join, redis):
    n1 = cluster.start_node("n1")
    body = {"id": "tmp", "title": "Tmp", "controls": [{"id": "loss", "type": "gauge", "min": 0, "max": 10}]}
    assert n1.request("POST", "/api/rooms", json.dumps(body)).status == 201
    join(n1, "Ann", room="tmp")
    cluster.wait_owner("tmp")
    for v in (1, 2, 3):
        assert n1.request("PUT", "/api/rooms/tmp/controls/loss", json.dumps({"value": v})).status == 200
    wait_until(lambda: int(redis.command("HLEN", "tandem:{tmp}:series:loss")) > 0, what="the series written to Redis")
    assert n1.request("DELETE", "/api/rooms/tmp").status == 204
    assert int(redis.command("EXISTS", "tandem:{tmp}:series:loss")) == 0
