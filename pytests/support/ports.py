"""Free TCP ports to start a server on, and whether a port accepts connections."""

from __future__ import annotations

import random
import socket


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port free on `host` now (the kernel's pick for port 0). Nothing holds it:
    for a server that must be told its port, or started again on the same one."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def free_port_run(count: int, host: str = "127.0.0.1") -> int:
    """A port P such that P..P+count-1 are all free on `host` (as far as can be told),
    for a program that takes one base port and counts up from it."""
    for _ in range(200):
        base = random.randint(20000, 60000 - count)
        probes = []
        try:
            for port in range(base, base + count):
                probe = socket.socket()
                probes.append(probe)
                probe.bind((host, port))
            return base
        except OSError:
            continue
        finally:
            for probe in probes:
                probe.close()
    raise AssertionError(f"no run of {count} free ports found")


def accepts(host: str, port: int, timeout: float = 1.0) -> bool:
    """Whether a TCP connection to host:port is accepted now (something listens there)."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False
