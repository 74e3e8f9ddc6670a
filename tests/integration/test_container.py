"""The image and the compose file (no Docker engine runs here: the files are read and
`docker-compose config` renders the compose file): the container never runs as root
and the auth secret is passed in, never baked into the image or the command line."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from helpers import ROOT


def dockerfile_runtime_stage() -> list[str]:
    lines = (ROOT / "Dockerfile").read_text().splitlines()
    last_from = max(i for i, line in enumerate(lines) if line.startswith("FROM "))
    return lines[last_from:]


def test_the_image_runs_as_a_non_root_user():
    users = [line.split()[1] for line in dockerfile_runtime_stage() if line.startswith("USER ")]
    assert users, "the runtime stage sets no USER: the server would run as root"
    user = users[-1].split(":")[0]
    assert user not in ("root", "0")


def test_the_image_carries_no_secret():
    for line in (ROOT / "Dockerfile").read_text().splitlines():
        words = line.split()
        if words and words[0] in ("ENV", "ARG", "COPY", "ADD"):
            assert "secret" not in line.lower(), f"a secret in the image: {line}"


@pytest.mark.skipif(shutil.which("docker-compose") is None, reason="docker-compose is installed by make test-deps")
def test_compose_passes_the_secret_as_a_file_and_publishes_on_loopback():
    rendered = subprocess.run(["docker-compose", "-f", str(ROOT / "docker-compose.yml"), "config"],
                              capture_output=True, text=True, check=True).stdout
    assert "/run/secrets/tandem_auth_secret" in rendered
    assert "--auth-secret-file" in rendered
    assert "TANDEM_AUTH_SECRET=" not in rendered  # no value written into the file
    assert "127.0.0.1" in rendered.split("ports:")[1].split("\n\n")[0]
