"""GET /metrics: Prometheus text that moves with the traffic."""

import re
import time

from helpers import WAIT, has_change, parse_prometheus


def traffic(server, connect):
    """Two clients: drags, a busy reject, a commit everyone receives."""
    ann = connect(server, name="Ann")
    bob = connect(server, name="Bob")
    ann.drag("gain", "begin")
    ann.drag("gain", "move", dx=0.1)
    ann.expect_ack(ann.seq)
    bob.expect_reject("busy", seq=bob.drag("gain", "begin"))
    ann.drag("gain", "end")
    bob.expect(has_change("gain"))
    ann.expect(has_change("gain"))
    return ann, bob


def wait_for_metric(server, name, predicate, timeout=WAIT):
    deadline = time.monotonic() + timeout
    while True:
        value = server.metrics().get(name)
        if value is not None and predicate(value):
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{name} = {value}")
        time.sleep(0.05)


def test_metrics_are_prometheus_text(server):
    response = server.get("/metrics")
    assert response.status == 200
    assert response.header("content-type").startswith("text/plain")
    text = response.text
    assert "# TYPE tandem_connections gauge" in text
    assert "# TYPE tandem_commit_delivery_seconds histogram" in text
    for line in text.splitlines():
        assert line.startswith("# HELP ") or line.startswith("# TYPE ") or re.fullmatch(
            r"[a-z_]+(\{[a-z]+=\"[^\"]*\"(,[a-z]+=\"[^\"]*\")*\})? -?[0-9.e+-]+|[a-z_]+(\{.*\})? \+?Inf", line
        ), line
    parse_prometheus(text)


def test_metrics_count_drag_messages_in(server, connect):
    before = server.metrics()['tandem_messages_in_total{type="drag"}']
    traffic(server, connect)
    assert server.metrics()['tandem_messages_in_total{type="drag"}'] >= before + 4


def test_metrics_count_busy_rejects(server, connect):
    before = server.metrics()['tandem_rejects_total{code="busy"}']
    traffic(server, connect)
    assert server.metrics()['tandem_rejects_total{code="busy"}'] == before + 1


def test_metrics_count_frames_out(server, connect):
    before = server.metrics()["tandem_frames_out_total"]
    ann, bob = traffic(server, connect)
    received = 2 + len(ann.history) + len(bob.history)  # welcomes and every frame since
    assert server.metrics()["tandem_frames_out_total"] >= before + received


def test_metrics_gauge_the_open_connections(server, connect):
    assert server.metrics()["tandem_connections"] == 0
    ann = connect(server)
    bob = connect(server)
    connect(server)
    assert server.metrics()["tandem_connections"] == 3
    ann.close()
    bob.close()
    wait_for_metric(server, "tandem_connections", lambda v: v == 1)


def test_metrics_observe_commit_delivery(server, connect):
    traffic(server, connect)
    metrics = server.metrics()
    assert metrics["tandem_commit_delivery_seconds_count"] >= 2  # one commit, written to two clients
    assert metrics['tandem_commit_delivery_seconds_bucket{le="+Inf"}'] == metrics["tandem_commit_delivery_seconds_count"]


def test_metrics_observe_the_event_loop_lag(server):
    wait_for_metric(server, "tandem_event_loop_lag_seconds_count", lambda v: v > 0)


def test_metrics_count_closes_by_code(server, connect):
    ann = connect(server)
    ann.ws.send(b"\x00")
    assert ann.wait_closed()[0] == 1003
    wait_for_metric(server, 'tandem_closes_total{code="1003"}', lambda v: v == 1)


def test_metrics_count_http_answers_by_status(server):
    server.get("/no-such-file")
    server.get("/healthz")
    metrics = server.metrics()
    assert metrics['tandem_http_requests_total{status="404"}'] >= 1
    assert metrics['tandem_http_requests_total{status="200"}'] >= 1
