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


needs_compose = pytest.mark.skipif(shutil.which("docker-compose") is None,
                                   reason="docker-compose is installed by make test-deps")


def compose(*args: str) -> str:
    return subprocess.run(["docker-compose", "-f", str(ROOT / "docker-compose.yml"), *args],
                          capture_output=True, text=True, check=True).stdout


def rendered_services() -> dict[str, str]:
    """Each service's block of `docker-compose config` (YAML, two-space indents), by name."""
    services: dict[str, list[str]] = {}
    inside = False
    current: list[str] = []
    for line in compose("config").splitlines():
        if not line.startswith(" "):
            inside = line == "services:"
        elif inside and line.startswith("  ") and not line.startswith("   "):
            current = services.setdefault(line.strip().rstrip(":"), [])
        elif inside:
            current.append(line)
    return {name: "\n".join(lines) for name, lines in services.items()}


def command_of(block: str) -> list[str]:
    """The `command:` list of a rendered service block."""
    lines = block.splitlines()
    start = lines.index("    command:") + 1
    words = []
    for line in lines[start:]:
        if not line.startswith("    - "):
            break
        words.append(line[6:].strip("'\""))
    return words


@needs_compose
def test_compose_passes_the_secret_as_a_file_and_publishes_on_loopback():
    rendered = compose("config")
    assert "/run/secrets/tandem_auth_secret" in rendered
    assert "--auth-secret-file" in rendered
    assert "TANDEM_AUTH_SECRET=" not in rendered  # no value written into the file
    published = rendered.split("ports:")[1:]
    assert published, "no service publishes a port"
    for ports in published:
        assert "127.0.0.1" in ports.splitlines()[1], ports  # the first published port


@needs_compose
def test_compose_brings_up_redis_two_nodes_and_haproxy_and_keeps_the_single_node_in_a_profile():
    assert set(compose("config", "--services").split()) == {"redis", "tandem1", "tandem2", "haproxy", "tandem"}
    assert compose("config", "--profiles").split() == ["single"]
    services = rendered_services()
    assert "single" in services["tandem"] and "--data" in command_of(services["tandem"])
    for name in ("redis", "tandem1", "tandem2", "haproxy"):
        assert "profiles:" not in services[name], f"{name} must start with a plain `docker-compose up`"


@needs_compose
def test_compose_redis_keeps_an_append_only_file_fsynced_every_second():
    redis = rendered_services()["redis"]
    assert "image: redis:7" in redis
    command = command_of(redis)
    assert command[0] == "redis-server"
    assert command[command.index("--appendonly") + 1] == "yes"
    assert command[command.index("--appendfsync") + 1] == "everysec"
    assert "redis-data:/data" in redis  # the AOF in a volume
    assert "redis-cli" in redis and "healthcheck:" in redis


@needs_compose
def test_compose_nodes_join_the_cluster_through_redis():
    services = rendered_services()
    for name in ("tandem1", "tandem2"):
        node = services[name]
        command = command_of(node)
        assert command[command.index("--redis") + 1] == "redis://redis:6379/0"
        assert command[command.index("--node-id") + 1] == name
        assert command[command.index("--host") + 1] == "0.0.0.0"
        assert "--auth-secret-file" in command and "--data" not in command
        assert "redis:\n        condition: service_healthy" in node
        assert "/healthz" in node and "read_only: true" in node
        assert "ports:" not in node  # reached through HAProxy only


@needs_compose
def test_compose_haproxy_mounts_the_deploy_config_in_front_of_both_nodes():
    haproxy = rendered_services()["haproxy"]
    assert "image: haproxy:2.6" in haproxy
    assert f"{ROOT / 'deploy' / 'haproxy.cfg'}:/usr/local/etc/haproxy/haproxy.cfg:ro" in haproxy
    assert "127.0.0.1:8080:8080" in haproxy
    assert "tandem1:" in haproxy and "tandem2:" in haproxy  # depends_on both nodes
