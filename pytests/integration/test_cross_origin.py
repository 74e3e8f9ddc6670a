"""Cross-origin reads (CrossOrigin.swift; docs/security.md, "Origins and hosts"):
a page of an `--allow-origin` origin may load the server's files (`/embed.js`
and its modules, which a browser fetches in CORS mode) and read the API; no
other origin gets `Access-Control-Allow-Origin`, and a server that allows
another origin marks every answer `Vary: Origin`."""

from __future__ import annotations

import pytest

APP = "http://app.example:8000"


@pytest.fixture
def allowing(start_server):
    return start_server("--allow-origin", APP)


@pytest.mark.parametrize("path", ["/js/app.js", "/", "/api/rooms", "/api/rooms/demo", "/healthz", "/api/openapi.json"])
def test_an_allowed_origin_gets_its_own_origin_back_on_files_and_reads(allowing, path):
    answer = allowing.request("GET", path, headers={"Origin": APP})
    assert answer.status == 200, answer
    assert answer.header("access-control-allow-origin") == APP
    assert answer.header("vary") == "Origin"
    assert answer.header("access-control-allow-credentials") is None  # tokens never travel in cookies


def test_a_revalidated_file_keeps_the_grant(allowing):
    first = allowing.request("GET", "/js/app.js", headers={"Origin": APP})
    again = allowing.request("GET", "/js/app.js", headers={"Origin": APP, "If-None-Match": first.header("etag")})
    assert again.status == 304
    assert again.header("access-control-allow-origin") == APP


@pytest.mark.parametrize("origin", ["http://evil.example", "http://app.example:8001", "https://app.example:8000"])
def test_another_origin_gets_no_grant_but_the_answer_varies_by_origin(allowing, origin):
    answer = allowing.request("GET", "/js/app.js", headers={"Origin": origin})
    assert answer.status == 200
    assert answer.header("access-control-allow-origin") is None
    assert answer.header("vary") == "Origin"


def test_the_servers_own_origin_and_programs_need_no_grant(allowing):
    own = allowing.request("GET", "/api/rooms", headers={"Origin": f"http://127.0.0.1:{allowing.port}"})
    program = allowing.get("/api/rooms")
    for answer in (own, program):
        assert answer.status == 200
        assert answer.header("access-control-allow-origin") is None
        assert answer.header("vary") == "Origin"


def test_a_write_from_the_allowed_origin_is_not_refused_and_is_granted(allowing):
    answer = allowing.request("PUT", "/api/rooms/demo/controls/gain", body='{"value": 0.25}', headers={"Origin": APP})
    assert answer.status == 200, answer
    assert answer.header("access-control-allow-origin") == APP


def test_allow_origin_star_grants_any_origin_with_a_star(start_server):
    server = start_server("--allow-origin", "*")
    answer = server.request("GET", "/js/app.js", headers={"Origin": "http://anyone.example"})
    assert answer.header("access-control-allow-origin") == "*"


def test_a_server_that_allows_no_other_origin_sends_no_cors_headers(server):
    answer = server.request("GET", "/js/app.js", headers={"Origin": APP})
    assert answer.status == 200
    assert answer.header("access-control-allow-origin") is None
    assert answer.header("vary") is None
