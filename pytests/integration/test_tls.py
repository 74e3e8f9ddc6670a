"""TLS: `--tls-cert PEM --tls-key PEM` serves https:// and wss:// on the one
port, through lws' OpenSSL, with both event loops; bad files stop the start
with a message naming the flag and the file; `tandem-bench` speaks wss://.

Every test makes its own throw-away certificate with the `openssl` command
(valid one day, for localhost and 127.0.0.1) and trusts exactly that one.
"""

from __future__ import annotations

import contextlib
import json
import socket
import ssl
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from helpers import START_LINE, WAIT, Client, find_change, has_change, open_websocket
from test_bench import SHORT, assert_passed, bench, bench_binary  # noqa: F401 (fixtures)

LOOPS = ["poll", "uv"]


def make_certificate(folder: Path, name: str = "server",
                     host: str = "localhost", names: str = "DNS:localhost,IP:127.0.0.1") -> tuple[Path, Path]:
    """A self-signed certificate and its key (by default for localhost and 127.0.0.1), as PEM files."""
    cert, key = folder / f"{name}.crt.pem", folder / f"{name}.key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={host}",
         "-addext", f"subjectAltName={names}", "-days", "1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60)
    return cert, key


@pytest.fixture
def certificate(tmp_path) -> tuple[Path, Path]:
    return make_certificate(tmp_path)


def trusting(cert: Path, **versions) -> ssl.SSLContext:
    """A client context that trusts `cert` alone (and checks the host name)."""
    context = ssl.create_default_context(cafile=str(cert))
    for name, version in versions.items():
        setattr(context, name, version)
    return context


@pytest.fixture(params=LOOPS)
def tls_server(request, start_server, certificate):
    cert, key = certificate
    server = start_server("--event-loop", request.param, "--tls-cert", str(cert), "--tls-key", str(key))
    server.cert = cert
    return server


def https_get(server, path: str, host: str = "127.0.0.1", **versions):
    context = trusting(server.cert, **versions)
    with urllib.request.urlopen(f"https://{host}:{server.port}{path}", context=context, timeout=WAIT) as response:
        return response.status, response.read()


def connect_wss(stack, server, name: str) -> Client:
    ws = stack.enter_context(open_websocket(server.ws_url("demo", name=name), ssl=trusting(server.cert)))
    return Client(ws)


# --------------------------------------------------------------------------
# Serving
# --------------------------------------------------------------------------


def test_the_start_line_says_https(tls_server):
    # Not always the first line: in a cluster a slow Redis connect is reported before it.
    line = tls_server.wait_for_log(START_LINE.search)
    assert line.startswith(f"info tandem listening on https://127.0.0.1:{tls_server.port} "), line
    assert tls_server.ws_url().startswith("wss://")


def test_a_wss_client_gets_a_welcome_and_its_drag_commits(tls_server):
    with contextlib.ExitStack() as stack:
        ann = connect_wss(stack, tls_server, "Ann")
        bob = connect_wss(stack, tls_server, "Bob")
        assert ann.welcome["protocol"] == 1
        assert ann.ws.protocol.state.name == "OPEN" and ann.ws.socket.version() in ("TLSv1.2", "TLSv1.3")
        ann.drag("gain", "begin")
        seq = ann.drag("gain", "end", dx=0.2)
        ann.expect_ack(seq)
        change = find_change(bob.expect(has_change("gain")), "gain")
        assert change["state"] == {"value": 0.7} and change["by"] == ann.id


def test_https_healthz_and_the_rooms_api_answer(tls_server):
    status, body = https_get(tls_server, "/healthz")
    assert status == 200
    status, body = https_get(tls_server, "/api/rooms", host="localhost")
    assert status == 200
    assert [room["id"] for room in json.loads(body)["rooms"]] == ["demo"]
    status, body = https_get(tls_server, "/")  # the web client, which then opens wss://
    assert status == 200 and b"<html" in body.lower()


@pytest.mark.parametrize("version", ["TLSv1_2", "TLSv1_3"])
def test_tls_1_2_and_1_3_are_both_served(tls_server, version):
    pinned = getattr(ssl.TLSVersion, version)
    status, _ = https_get(tls_server, "/healthz", minimum_version=pinned, maximum_version=pinned)
    assert status == 200


def test_a_client_offering_http2_gets_http_1_1(tls_server):
    """HTTP/2 is not offered (ALPN http/1.1 only), nor WebSockets over it: the server's HTTP is HTTP/1.1."""
    context = trusting(tls_server.cert)
    context.set_alpn_protocols(["h2", "http/1.1"])
    with socket.create_connection(("127.0.0.1", tls_server.port), timeout=WAIT) as raw:
        with context.wrap_socket(raw, server_hostname="localhost") as tls:
            assert tls.selected_alpn_protocol() == "http/1.1"
            tls.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            assert tls.recv(4096).startswith(b"HTTP/1.1 200")


@pytest.mark.filterwarnings("ignore:ssl.TLSVersion.TLSv1:DeprecationWarning")
def test_tls_1_1_is_refused(tls_server):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.set_ciphers("DEFAULT:@SECLEVEL=0")  # so that this client really offers TLS 1.1
    context.minimum_version = ssl.TLSVersion.TLSv1
    context.maximum_version = ssl.TLSVersion.TLSv1_1
    with socket.create_connection(("127.0.0.1", tls_server.port), timeout=WAIT) as raw:
        with pytest.raises(ssl.SSLError):
            context.wrap_socket(raw).close()
    assert https_get(tls_server, "/healthz")[0] == 200


def test_a_client_that_does_not_trust_the_certificate_is_not_served(tls_server, tmp_path):
    stranger, _ = make_certificate(tmp_path, "stranger")
    with pytest.raises(urllib.error.URLError, match="CERTIFICATE_VERIFY_FAILED"):
        urllib.request.urlopen(f"https://127.0.0.1:{tls_server.port}/healthz", context=trusting(stranger), timeout=WAIT)


def plain_answer(port: int, request: bytes) -> bytes:
    """What the port sends back to `request` in the clear until it hangs up (which it must, within WAIT)."""
    received = b""
    with socket.create_connection(("127.0.0.1", port), timeout=WAIT) as raw:
        raw.sendall(request)
        try:
            while chunk := raw.recv(4096):
                received += chunk
        except ConnectionResetError:
            pass
        except socket.timeout:
            raise AssertionError(f"the port neither answered nor hung up within {WAIT} s: {received!r}") from None
    return received


def test_plain_http_on_the_tls_port_is_not_served(tls_server):
    answer = plain_answer(tls_server.port, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    assert b"HTTP/1.1" not in answer and b"ok" not in answer, answer
    assert https_get(tls_server, "/healthz")[0] == 200


def test_a_plain_ws_upgrade_on_the_tls_port_is_not_served(tls_server):
    upgrade = (f"GET /rooms/demo HTTP/1.1\r\nHost: 127.0.0.1:{tls_server.port}\r\nUpgrade: websocket\r\n"
               "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
               "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: tandem.v1\r\n\r\n").encode()
    answer = plain_answer(tls_server.port, upgrade)
    assert b"101" not in answer and b"welcome" not in answer, answer
    with pytest.raises(Exception) as refused:
        with open_websocket(f"ws://127.0.0.1:{tls_server.port}/rooms/demo", open_timeout=WAIT) as ws:
            ws.recv(timeout=WAIT)
    assert not isinstance(refused.value, TimeoutError), "refused by a hang-up, not by waiting"


# --------------------------------------------------------------------------
# Flags and files
# --------------------------------------------------------------------------


def start_failing(binary: Path, *flags: str) -> subprocess.CompletedProcess:
    """Runs `tandem` expected not to start; it must exit on its own (waited for up to WAIT)."""
    return subprocess.run([str(binary), "--port", "0", "--data", ":memory:", *flags], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=WAIT)


@pytest.mark.parametrize("given, missing", [("--tls-cert", "--tls-key"), ("--tls-key", "--tls-cert")])
def test_one_of_the_pair_alone_is_a_usage_error_naming_the_other(tandem_binary, certificate, given, missing):
    cert, key = certificate
    done = start_failing(tandem_binary, given, str(cert if given == "--tls-cert" else key))
    assert done.returncode == 2, done
    assert f"{given} needs {missing}" in done.stderr.splitlines()[0], done.stderr


@pytest.mark.parametrize("which", ["--tls-cert", "--tls-key"])
def test_a_missing_file_stops_the_start_naming_the_flag_and_the_file(tandem_binary, certificate, tmp_path, which):
    cert, key = certificate
    missing = tmp_path / "nowhere.pem"
    files = {"--tls-cert": str(cert), "--tls-key": str(key), which: str(missing)}
    done = start_failing(tandem_binary, *[part for pair in files.items() for part in pair])
    assert done.returncode == 1, done
    assert f"{which} {missing}: cannot read it: No such file or directory" in done.stderr, done.stderr


def test_a_file_that_is_no_certificate_stops_the_start(tandem_binary, certificate, tmp_path):
    _, key = certificate
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate\n")
    done = start_failing(tandem_binary, "--tls-cert", str(junk), "--tls-key", str(key))
    assert done.returncode == 1, done
    assert f"--tls-cert {junk}: not a usable PEM certificate" in done.stderr, done.stderr
    assert "listening" not in done.stderr


def test_a_certificate_given_as_the_key_stops_the_start(tandem_binary, certificate):
    cert, _ = certificate
    done = start_failing(tandem_binary, "--tls-cert", str(cert), "--tls-key", str(cert))
    assert done.returncode == 1, done
    assert f"--tls-key {cert}: not a usable unencrypted PEM private key" in done.stderr, done.stderr


def test_the_key_of_another_certificate_stops_the_start(tandem_binary, certificate, tmp_path):
    cert, _ = certificate
    _, other_key = make_certificate(tmp_path, "other")
    done = start_failing(tandem_binary, "--tls-cert", str(cert), "--tls-key", str(other_key))
    assert done.returncode == 1, done
    assert f"--tls-key {other_key} is not the private key of the certificate in --tls-cert {cert}" in done.stderr, done.stderr
    assert "listening" not in done.stderr


# --------------------------------------------------------------------------
# tandem-bench over wss://
# --------------------------------------------------------------------------


def bench_url(server, room: str = "bench", host: str = "127.0.0.1") -> str:
    return f"wss://{host}:{server.port}/rooms/{room}"


@pytest.mark.parametrize("bench_loop", LOOPS)
def test_tandem_bench_runs_over_wss_with_insecure(tls_server, bench, bench_loop):
    run = bench("--url", bench_url(tls_server), "--insecure", "--event-loop", bench_loop, *SHORT)
    assert_passed(run)
    assert run.report["updates"]["delivered"] > 0, run


def test_tandem_bench_refuses_a_self_signed_server_without_insecure(tls_server, bench):
    run = bench("--url", bench_url(tls_server), *SHORT)
    assert run.returncode == 1, run
    assert "certificate is not trusted: self-signed certificate" in run.stderr, run
    assert "--insecure" in run.stderr, run


def test_tandem_bench_takes_insecure_only_with_wss(tls_server, bench):
    run = bench("--url", f"ws://127.0.0.1:{tls_server.port}/rooms/bench", "--insecure", *SHORT, json_report=False)
    assert run.returncode == 2, run
    assert "--insecure is for wss://" in run.stderr, run


# --------------------------------------------------------------------------
# A port that is taken
# --------------------------------------------------------------------------


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("tls", [True, False], ids=["tls", "plain"])
def test_a_taken_port_stops_the_start_with_either_loop(tandem_binary, certificate, loop, tls):
    """With libuv, lws 4.1 returns a context whose listening vhost failed: that must not pass for a start."""
    cert, key = certificate
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        flags = ["--port", str(port), "--event-loop", loop]
        if tls:
            flags += ["--tls-cert", str(cert), "--tls-key", str(key)]
        done = start_failing(tandem_binary, *flags)
    assert done.returncode == 1, done
    assert f"tandem: cannot listen on 127.0.0.1:{port}" in done.stderr, done.stderr
    assert "listening on" not in done.stderr, done.stderr


def test_tandem_bench_trusts_a_certificate_of_its_trust_store_without_insecure(tls_server, bench, monkeypatch):
    # OpenSSL's default trust store, which lws and the bench's https both use, follows SSL_CERT_FILE.
    monkeypatch.setenv("SSL_CERT_FILE", str(tls_server.cert))
    run = bench("--url", bench_url(tls_server), *SHORT)
    assert_passed(run)


def test_tandem_bench_refuses_a_trusted_certificate_for_another_name(start_server, bench, tmp_path, monkeypatch):
    cert, key = make_certificate(tmp_path, "elsewhere", host="elsewhere.example", names="DNS:elsewhere.example")
    server = start_server("--tls-cert", str(cert), "--tls-key", str(key))
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    run = bench("--url", bench_url(server, host="localhost"), *SHORT)
    assert run.returncode == 1, run
    assert "certificate is not trusted: hostname mismatch" in run.stderr, run
    run = bench("--url", bench_url(server), *SHORT)
    assert run.returncode == 1, run
    assert "certificate is not trusted: IP address mismatch" in run.stderr, run
    assert_passed(bench("--url", bench_url(server), "--insecure", *SHORT))
