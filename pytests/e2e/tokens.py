"""Tokens for the browser tests that run with auth on: HS256 JWTs (RFC 7519)
made with the standard library only, and the secret file the server reads."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from pathlib import Path


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
