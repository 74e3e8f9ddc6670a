"""The HTTP API's rate budget (HTTPBudget.swift, docs/security.md "Limits";
findings 9 and 10 of the second hostile probe): writes and the costly reads
share a WebSocket member's rate per token (its `sub`) or, without auth, per
peer address; past it 429 `rate_limited` with `Retry-After`, and another token
is not touched. HTTP writes are named in the history by their token's display
name.

`--http-rate 5` (10 at once) makes the budget small enough for a loaded
machine to pass it for sure: each test sends until the 429 it expects."""

from __future__ import annotations

import json
import subprocess

import pytest

from helpers import ROOT, WAIT, Client, healthz
from test_auth import secret_file, token  # noqa: F401 (a fixture)

TRIES = 500  # far more than 10 at once and 5 a second can answer while they are sent


def put(server, jwt=None, value=0.5):
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {jwt}"} if jwt else {})}
    return server.request("PUT", "/api/rooms/demo/controls/gain", json.dumps({"value": value}), headers)


def until_refused(send) -> tuple[int, object]:
    """Sends until a 429; how many were served before it, and the 429."""
    for k in range(TRIES):
        response = send()
        if response.status == 429:
            return k, response
        assert response.status == 200, response
    pytest.fail(f"{TRIES} requests and no 429")


def assert_rate_limited(response) -> None:
    assert response.status == 429
    assert response.json()["code"] == "rate_limited"
    assert int(response.header("Retry-After")) >= 1


def test_puts_past_the_budget_get_429_and_another_tokens_puts_still_succeed(start_server, secret_file):  # noqa: F811
    server = start_server("--auth-secret-file", str(secret_file), "--http-rate", "5")
    alice, bob = token(sub="alice"), token(sub="bob")
    served, refused = until_refused(lambda: put(server, alice))
    assert served >= 10  # the burst: twice the rate
    assert_rate_limited(refused)
    assert put(server, bob).status == 200
    state = server.request("GET", "/api/rooms/demo", None, {"Authorization": f"Bearer {alice}"})
    assert state.status == 200  # a room's state is a cheap read: not budgeted
    assert healthz(server.port) == 200


def test_without_auth_the_budget_is_the_peer_address_and_timeline_reads_spend_it(start_server, tmp_path):
    server = start_server("--http-rate", "5", "--data", str(tmp_path / "tandem.db"))
    served, refused = until_refused(lambda: server.get("/api/rooms/demo/timeline/0"))
    assert served >= 1
    assert_rate_limited(refused)
    # The same address's writes share that budget.
    _, refused = until_refused(lambda: put(server))
    assert_rate_limited(refused)
    assert server.metrics()['tandem_http_requests_total{status="429"}'] >= 2


def test_history_and_the_preset_list_are_budgeted_reads(start_server, tmp_path):
    server = start_server("--http-rate", "5", "--data", str(tmp_path / "tandem.db"))
    for path in ["/api/rooms/demo/history", "/api/rooms/demo/history.csv", "/api/rooms/demo/presets",
                 "/api/rooms/demo/timeline"]:
        _, refused = until_refused(lambda: server.get(path))
        assert_rate_limited(refused)


def test_an_http_write_is_named_in_the_history_by_its_tokens_display_name(start_server, secret_file, open_ws, tmp_path):  # noqa: F811
    server = start_server("--auth-secret-file", str(secret_file), "--data", str(tmp_path / "tandem.db"))
    member = Client(open_ws(server.ws_url("demo", token=token(sub="bob@example.org", name="Bob"))))
    member.expect_ack(member.set("gain", 0.25))
    assert put(server, token(sub="alice@example.org", name="Alice"), 0.75).status == 200
    assert put(server, token(sub="carol@example.org"), 0.5).status == 200
    response = server.request("GET", "/api/rooms/demo/history", None, {"Authorization": f"Bearer {token()}"})
    entries = response.json()["history"]
    assert [(e["by"] != "api", e["name"]) for e in entries] == [(True, "Bob"), (False, "Alice"), (False, "api")]
    assert not any("@" in e["name"] for e in entries)  # a token's sub (an e-mail) is not shown


def test_a_bad_http_rate_exits_2_naming_the_flag(tandem_binary):
    for value in ["-1", "x", "1.5", ""]:
        result = subprocess.run([str(tandem_binary), "--http-rate", value], cwd=ROOT,
                                capture_output=True, text=True, timeout=WAIT)
        assert result.returncode == 2, value
        assert "--http-rate" in result.stderr.splitlines()[0]
