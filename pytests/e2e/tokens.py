"""Tokens for the browser tests that run with auth on: HS256 JWTs (RFC 7519)
made with the standard library only, and the secret file the server reads
(`auth_on` for a module whose every server has tokens on)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import tempfile
import time
from pathlib import Path

import pytest


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def mint_token(secret: bytes, role: str = "editor", room: str = "demo", ttl: float = 3600, sub: str = "u-ann",
               name: str | None = None, **claims) -> str:
    """An HS256 JWT over the claims, signed with `secret`."""
    now = int(time.time())
    payload = {"sub": sub, "room": room, "role": role, "iat": now, "exp": now + int(ttl), **claims}
    if name:
        payload["name"] = name
    head = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    body = b64url(json.dumps(payload, separators=(",", ":")).encode())
    signature = hmac.new(secret, f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{b64url(signature)}"


def write_secret(path: Path, secret: bytes) -> Path:
    """`secret` in `path`, readable by its owner only (as the server wants it)."""
    path.write_bytes(secret)
    path.chmod(0o600)
    return path


def secret_path(tag: str) -> Path:
    """Where a test module keeps its secret file: the temporary folder, one per module `tag` and process."""
    return Path(tempfile.gettempdir()) / f"tandem-e2e-{tag}-{os.getpid()}.secret"


def auth_on(secret: bytes, tag: str):
    """For a module whose servers all run with tokens on: (the secret file's path, the module's
    `pytestmark` giving each server `--auth-secret-file PATH`, an autouse module fixture that
    writes `secret` there first and removes the file after the module). Assign all three at
    module level: `SECRET_FILE, pytestmark, _secret_file = auth_on(SECRET, "tag")`."""
    path = secret_path(tag)

    @pytest.fixture(scope="module", autouse=True)
    def _secret_file():
        write_secret(path, secret)
        yield
        path.unlink(missing_ok=True)

    return path, pytest.mark.tandem_flags("--auth-secret-file", str(path)), _secret_file
