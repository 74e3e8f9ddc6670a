"""`web/openapi.json`, the OpenAPI 3.1 description of every HTTP endpoint
(docs/api.md), kept true against the router and a live server.

- It validates as OpenAPI 3.1 (openapi-spec-validator), and `GET
  /api/openapi.json` serves exactly that file, with and without auth.
- Spec and router in step, both ways. No single check is enough, so there are three:
  1. *Every route literal is documented* (static): the path segments the
     router compares against — `parts[2] == "history"`, `case (.get,
     "healthz")`, `case (2, "recall")`, `parts == ["cluster"]` — are scraped
     from every Swift file of Sources/TandemServer that handles an
     `HTTPExchange`, and each must be a literal segment of a documented path.
     A new endpoint needs a new name somewhere, so adding one without
     documenting it fails here. The scraper is checked to still find the
     names it knows (a refactor that changes the shapes it reads fails too,
     instead of finding nothing and passing).
  2. *Every documented operation is routed* (live): each documented path,
     its parameters filled with things that exist, with each documented
     method, gets neither the router's generic 404 (`not_found`, "no such API
     endpoint"; "not found" outside /api) nor a 405.
  3. *Nothing else is routed* (live): every documented path with every
     method it does not list gets 405 whose `Allow` lists exactly the
     documented methods (and HEAD wherever GET is: every GET is answered as a HEAD), or 404;
     and every documented /api path with one more segment — each scraped
     literal, and one no router knows — answers as no route (the generic 404)
     with every method, unless the result is itself a documented path. That
     catches a new method on an old path, and an old name reused at a new depth.
- schemathesis (its `st` CLI, in a subprocess: no plugin to mix with
  pytest's) runs the description against a live server twice, auth off and
  auth on with an admin token, with the conformance checks: no 5xx, no
  status, content type, header or body the description does not state.
  Seeded, one worker, no example database, a bounded number of examples per
  operation: the same requests every run. `--http-rate 0`, so that the HTTP
  budget's 429s (documented too) do not hide the logic. A data file rather
  than `:memory:`, so that history and timeline answer 200 rather than 501.
  The server must still be healthy after each run, and exit 0 at teardown
  (the `start_server` fixture).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from openapi_spec_validator import validate
from openapi_spec_validator.validation import OpenAPIV31SpecValidator

from helpers import ROOT, TandemServer

SPEC_PATH = ROOT / "web" / "openapi.json"
SPEC = json.loads(SPEC_PATH.read_text(encoding="utf-8"))
SECRET = b"the openapi test's secret: at least thirty-two bytes"

VERBS = ("get", "put", "post", "delete", "patch", "options", "head", "trace")
PROBES = ("GET", "PUT", "POST", "DELETE", "PATCH", "OPTIONS")

# Path parameters filled with things the probes' server has (the demo room, a preset made first).
FILLED = {"room": "demo", "control": "gain", "name": "Warm", "rev": "0"}
SERIES_CONTROL = "bpm"  # a control that keeps a series: the series path's own example


def documented() -> dict[str, set[str]]:
    """Documented path template → its methods, upper case."""
    return {path: {verb.upper() for verb in item if verb in VERBS} for path, item in SPEC["paths"].items()}


def fill(template: str) -> str:
    filled = template.replace("/series/{control}", f"/series/{SERIES_CONTROL}")
    return re.sub(r"\{(\w+)\}", lambda m: FILLED[m.group(1)], filled)


def template_of(path: str) -> str | None:
    """The documented template `path` matches (a parameter matches any one segment), if any."""
    for template in SPEC["paths"]:
        if re.fullmatch(re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(template)), path):
            return template
    return None


# ---------------------------------------------------------------------------
# The document itself


def test_the_description_is_valid_openapi_3_1():
    validate(SPEC, cls=OpenAPIV31SpecValidator)
    assert SPEC["openapi"].startswith("3.1.")
    assert SPEC["info"]["version"] == "1.1", "info.version is the protocol's (docs/protocol.md: tandem.v1 with the v1.1 additions)"


def secret_file(tmp_path: Path) -> Path:
    path = tmp_path / "secret"
    path.write_bytes(SECRET)
    path.chmod(0o600)
    return path


@pytest.mark.parametrize("auth", [False, True], ids=["auth-off", "auth-on"])
def test_the_server_serves_exactly_this_file_with_no_token(start_server, tmp_path, auth):
    server = start_server(*(["--auth-secret-file", str(secret_file(tmp_path))] if auth else []))
    response = server.get("/api/openapi.json")
    assert response.status == 200, response
    assert response.header("content-type") == "application/json"
    assert response.body == SPEC_PATH.read_bytes()
    other = server.request("POST", "/api/openapi.json", body="{}")
    if auth:  # a POST's token is checked as soon as its headers are in, before any route
        assert other.status == 401, other
    else:
        assert other.status == 405 and other.header("allow") == "GET, HEAD", other


# ---------------------------------------------------------------------------
# Spec and router in step

SOURCES = ROOT / "Sources" / "TandemServer"
# The shapes in which the router compares a path segment to a name.
ROUTE_SHAPES = [
    re.compile(r'\b(?:parts|rest)\[\d+\]\s*==\s*("[^"]*")'),                # parts[2] == "history"
    re.compile(r'\b(?:parts|rest)\.(?:first|last)\s*==\s*("[^"]*")'),       # parts.first == "rooms"
    re.compile(r'\b(?:parts|rest)\s*==\s*\[((?:\s*"[^"]*"\s*,?)+)\]'),      # parts == ["cluster"]
    re.compile(r'\bcase\s*\(\s*(?:\.\w+|_|\d+)\s*,\s*("[^"]*")\s*\)'),      # case (.get, "healthz"), case (2, "recall")
]
# Names the scraper must find: if a refactor hides them from it, it is the scraper that needs mending.
KNOWN_LITERALS = {"healthz", "metrics", "api", "rooms", "history.csv", "presets", "recall", "timeline", "restore",
                  "controls", "claim", "series", "reset", "cluster", "openapi.json"}


def route_literals() -> dict[str, list[str]]:
    """Each name the router compares a path segment to → the files it is in."""
    found: dict[str, list[str]] = {}
    for path in sorted(SOURCES.rglob("*.swift")):
        text = path.read_text(encoding="utf-8")
        if "HTTPExchange" not in text:
            continue  # not an HTTP handler (the OSC bridge splits addresses into parts too)
        for shape in ROUTE_SHAPES:
            for match in shape.finditer(text):
                for literal in re.findall(r'"([^"]*)"', match.group(1)):
                    found.setdefault(literal, []).append(str(path.relative_to(ROOT)))
    return found


def test_every_name_the_router_routes_is_a_documented_path_segment():
    literals = route_literals()
    assert KNOWN_LITERALS <= literals.keys(), f"the scraper no longer finds {sorted(KNOWN_LITERALS - literals.keys())}"
    segments = {segment for path in SPEC["paths"] for segment in path.strip("/").split("/") if not segment.startswith("{")}
    undocumented = {literal: files for literal, files in literals.items() if literal not in segments}
    assert not undocumented, f"routed but in no documented path of web/openapi.json: {undocumented}"


def generic_not_found(response) -> bool:
    """The router's answer to a path it does not know."""
    if response.status != 404:
        return False
    if response.header("content-type") == "application/json":
        return response.json() == {"code": "not_found", "message": "no such API endpoint"}
    return response.text == "not found\n"


@pytest.fixture(scope="module")
def probed(tandem_binary, tmp_path_factory):
    """A server (auth off, a data file, no HTTP budget) with a preset `Warm` in the demo room."""
    server = TandemServer(tandem_binary, ["--data", str(tmp_path_factory.mktemp("data") / "tandem.db"), "--http-rate", "0"])
    try:
        saved = server.request("PUT", "/api/rooms/demo/presets/Warm", body="{}")
        assert saved.status == 201, saved
        yield server
    finally:
        assert server.stop() == 0, "\n".join(server.stderr_lines[-20:])


def probe(server, method: str, path: str):
    return server.request(method, path, body="{}" if method in ("PUT", "POST", "PATCH") else None)


def test_every_documented_operation_is_routed(probed):
    unrouted = []
    for template, methods in documented().items():
        for method in sorted(methods):
            response = probe(probed, method, fill(template))
            if generic_not_found(response) or response.status == 405:
                unrouted.append(f"{method} {template}: {response}")
    assert not unrouted, "documented but not routed:\n" + "\n".join(unrouted)


def test_every_method_a_path_does_not_document_is_refused(probed):
    wrong = []
    for template, methods in documented().items():
        for method in PROBES:
            if method in methods:
                continue
            response = probe(probed, method, fill(template))
            allow = {m.strip() for m in (response.header("allow") or "").split(",") if m.strip()}
            head = {"HEAD"} if "GET" in methods else set()  # every GET is answered as a HEAD too
            if response.status == 405 and allow == methods | head:
                continue
            if response.status == 404:
                continue  # /api/cluster on a single server: no such endpoint, whatever the method
            wrong.append(f"{method} {template} (documented: {sorted(methods)}): {response}")
    assert not wrong, "answered a method the description does not list:\n" + "\n".join(wrong)


def test_no_route_hides_one_segment_below_a_documented_path(probed):
    names = sorted(set(route_literals()) | {"undocumented-name"})
    routed = []
    for template in SPEC["paths"]:
        if not template.startswith("/api/"):
            continue
        for name in names:
            path = fill(template) + "/" + name
            if template_of(path):
                continue  # a documented path itself (`/api/rooms/demo` + `history`): test_every_documented_operation_is_routed
            for method in ("GET", "PUT", "POST", "DELETE"):
                response = probe(probed, method, path)
                if not generic_not_found(response):
                    routed.append(f"{method} {path}: {response}")
    assert not routed, "answered as a route, but not documented:\n" + "\n".join(routed[:20])


# ---------------------------------------------------------------------------
# schemathesis against a live server

CHECKS = ",".join(["not_a_server_error", "status_code_conformance", "content_type_conformance",
                   "response_schema_conformance", "response_headers_conformance"])
SEED = "20261207"
MAX_EXAMPLES = "30"


def schemathesis(server, tmp_path: Path, *extra: str) -> None:
    st = Path(sys.executable).parent / "st"
    command = [str(st), "run", str(SPEC_PATH), "--url", server.http, "--checks", CHECKS,
               "--phases", "examples,coverage,fuzzing", "--seed", SEED, "--max-examples", MAX_EXAMPLES,
               "--workers", "1", "--generation-database", "none",
               # lws closes the connection without an answer when a query holds %00 (docs/api.md).
               "--generation-allow-x00", "false",
               # Security parameters come from `extra` (a real token), never made up.
               "--generation-with-security-parameters", "false",
               "--request-timeout", "10", "--no-color", "--report", "junit",
               "--report-junit-path", str(tmp_path / "schemathesis.xml"), *extra]
    run = subprocess.run(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    assert run.returncode == 0, f"schemathesis found problems (exit {run.returncode}):\n{run.stdout[-12000:]}"
    health = server.get("/healthz")
    assert health.status == 200 and health.text == "ok\n", health


def data_flags(tmp_path: Path) -> list[str]:
    return ["--data", str(tmp_path / "tandem.db"), "--http-rate", "0"]


def test_schemathesis_finds_nothing_the_description_does_not_say_with_auth_off(start_server, tmp_path):
    server = start_server(*data_flags(tmp_path))
    schemathesis(server, tmp_path)


def test_schemathesis_finds_nothing_the_description_does_not_say_with_an_admin_token(start_server, tandem_binary, tmp_path):
    secret = secret_file(tmp_path)
    server = start_server(*data_flags(tmp_path), "--auth-secret-file", str(secret))
    minted = subprocess.run([str(tandem_binary), "token", "--auth-secret-file", str(secret), "--room", "*",
                             "--role", "admin", "--name", "Fuzz", "--ttl", "1h"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)
    assert minted.returncode == 0, minted.stderr
    token = minted.stdout.strip()
    assert server.request("GET", "/api/rooms", headers={"Authorization": f"Bearer {token}"}).json()["admin"] is True
    schemathesis(server, tmp_path, "--header", f"Authorization: Bearer {token}")
