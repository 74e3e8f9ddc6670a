#!/usr/bin/env python3
"""Replays the second hostile probe's cheap requests against a real
`tandem` and prints what a bystander saw meanwhile: a second client's ack
round trips (a `step` by 0 every 20 ms on a WebSocket opened before) and
`/healthz` on a fresh connection every 50 ms, as p50 / p99 / max and how many
passed 50 ms, plus the server's CPU.

    .venv/bin/python bench/abuse/probe.py restore    # a viewer's 600 restore frames in one write, 256 controls, ~760 batch revisions
    .venv/bin/python bench/abuse/probe.py timeline   # four viewers looping on GET …/timeline/{rev}
    .venv/bin/python bench/abuse/probe.py puts       # one keep-alive connection PUTting as fast as it can
    .venv/bin/python bench/abuse/probe.py presets    # 3,000 preset saves in one write, names in many spellings
    .venv/bin/python bench/abuse/probe.py osc-dump   # 20 bundles a second of 2,000 /ROOM/dump requests
    .venv/bin/python bench/abuse/probe.py osc-names  # a new OSC /ROOM/name per datagram, as fast as it goes

`--cluster` runs `restore`, `timeline` and `presets` against two nodes on a
Redis of their own (started here on a free port): the bystander on the
room's owner, the abuser on the other node, the log seeded with `--log N`
single commits first (default 20,000; the probe's figure was 100,000), and
the owner's lease watched throughout (who holds it, and the least time it
had left). `timeline` then loops on the summary (`GET …/timeline`), the
page load's request, instead of `timeline/{rev}`.

`--binary PATH` (default .build/release/tandem), `-n N` the size, flags after
`--` go to the server. Numbers, not pass/fail: the answers are asserted by the
integration tests named in docs/security.md, "The second probe, replayed".
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import json
import re
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unicodedata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from replay import CPUSampler, http  # noqa: E402

import warnings  # noqa: E402

from websockets.sync.client import connect  # noqa: E402

warnings.filterwarnings("ignore", category=DeprecationWarning)  # connect() outside a with block, on purpose

ROOT = Path(__file__).resolve().parents[2]
SECRET = b"probe secret: at least thirty-two bytes long, surely"
CONTROLS = 256


def token(role: str, room: str = "*", sub: str = "probe") -> str:
    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
    head = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    body = b64(json.dumps({"sub": sub, "room": room, "role": role, "exp": int(time.time() + 3600)}).encode())
    signature = b64(hmac.new(SECRET, f"{head}.{body}".encode(), hashlib.sha256).digest())
    return f"{head}.{body}.{signature}"


class Server:
    """`tandem --port 0` on a SQLite file in a temporary folder, auth on; or a
    cluster node on `redis` (a URL) named `node`."""

    def __init__(self, binary: str, flags: list[str], redis: str | None = None, node: str = ""):
        self.folder = tempfile.TemporaryDirectory()
        secret = Path(self.folder.name) / "secret"
        secret.write_bytes(SECRET + b"\n")
        storage = ["--redis", redis, "--node-id", node] if redis else ["--data", str(Path(self.folder.name) / "tandem.db")]
        command = [binary, "--port", "0", *storage, "--auth-secret-file", str(secret), *flags]
        self.proc = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, errors="replace", bufsize=1)
        self.port = None
        started = threading.Event()

        def read():
            for line in self.proc.stderr:
                match = re.search(r"listening on http://\S+?:(\d+) ", line)
                if match:
                    self.port = int(match.group(1))
                    started.set()
        threading.Thread(target=read, daemon=True).start()
        if not started.wait(30):
            sys.exit("no start line")

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / 100

    def api(self, method: str, path: str, body: object = None, role: str = "admin", sub: str = "probe") -> tuple[int | None, str]:
        data = json.dumps(body).encode() if body is not None else b""
        with socket.create_connection(("127.0.0.1", self.port), timeout=30) as sock:
            head = (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nConnection: close\r\n"
                    f"Authorization: Bearer {token(role, sub=sub)}\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n")
            sock.sendall(head.encode() + data)
            reply = b""
            while chunk := sock.recv(65536):
                reply += chunk
        return int(reply.split(b" ", 2)[1]), reply.partition(b"\r\n\r\n")[2].decode(errors="replace")

    def ws(self, role: str, room: str = "probe"):
        return connect(f"ws://127.0.0.1:{self.port}/rooms/{room}?token={token(role)}", subprotocols=["tandem.v1"],
                       origin=f"http://127.0.0.1:{self.port}", max_size=None, open_timeout=30)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)
        self.folder.cleanup()


class Bystander:
    """A second client's ack round trips and /healthz latencies while the abuse runs."""

    def __init__(self, server: "Server"):
        self.server, self.running = server, True
        self.acks: list[float] = []
        self.health: list[float] = []
        self.ws = server.ws("editor")
        json.loads(self.ws.recv(timeout=30))  # the welcome
        self.threads = [threading.Thread(target=self.step, daemon=True), threading.Thread(target=self.probe, daemon=True)]
        for thread in self.threads:
            thread.start()

    def step(self):
        seq = 0
        while self.running:
            seq += 1
            started = time.monotonic()
            self.ws.send(json.dumps({"type": "step", "seq": seq, "control": "k0", "by": 0}))
            while True:
                try:
                    frame = json.loads(self.ws.recv(timeout=60))
                except Exception:
                    return
                if (frame.get("type") == "update" and frame.get("ack", 0) >= seq) or \
                        (frame.get("type") == "reject" and frame.get("seq") == seq):
                    break
            self.acks.append(time.monotonic() - started)
            time.sleep(0.02)

    def probe(self):
        while self.running:
            started = time.monotonic()
            status, _ = http(self.server.port, "GET", "/healthz", timeout=60)
            self.health.append(time.monotonic() - started if status == 200 else float("inf"))
            time.sleep(0.05)

    def stop(self) -> str:
        self.running = False
        for thread in self.threads:
            thread.join(65)
        self.ws.close()
        return f"acks {summary(self.acks)}; /healthz {summary(self.health)}"


def summary(samples: list[float]) -> str:
    if not samples:
        return "none"
    ms = sorted(s * 1000 for s in samples)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    over = sum(1 for s in ms if s > 50)
    return f"n={len(ms)} p50 {statistics.median(ms):.1f} ms, p99 {p99:.1f} ms, max {ms[-1]:.1f} ms, {over} over 50 ms"


def make_room(server: Server, controls: int = CONTROLS) -> None:
    body = {"id": "probe", "title": "Probe", "controls": [
        {"id": f"k{i}", "type": "slider", "min": 0, "max": 1000, "step": 1} for i in range(controls)]}
    status, text = server.api("POST", "/api/rooms", body)
    assert status in (200, 201), (status, text)


def paced(ws, messages: list[dict], per_second: float = 250) -> None:
    """Sends `messages` within the member rate limit, reading the answers as they come."""
    for k, message in enumerate(messages):
        ws.send(json.dumps(message))
        if k % 50 == 49:
            time.sleep(50 / per_second)
    drain(ws, messages[-1]["seq"])


def drain(ws, seq: int) -> None:
    while True:
        frame = json.loads(ws.recv(timeout=120))
        if frame.get("ack", 0) >= seq or (frame.get("type") == "reject" and frame.get("seq") == seq):
            return


def seed_batches(server: Server, revisions: int) -> int:
    """`revisions` revisions that each change every control (restores of two
    alternating revisions, like preset recalls); returns the room's revision."""
    editor = server.ws("editor")
    json.loads(editor.recv(timeout=30))
    seq = 0
    messages = []
    for i in range(CONTROLS):
        seq += 1
        messages.append({"type": "set", "seq": seq, "control": f"k{i}", "value": 500 + i})
    paced(editor, messages)
    status, text = server.api("GET", "/api/rooms/probe", role="viewer")
    top = json.loads(text)["rev"]
    editor.close()
    # Restores over HTTP (a member's are 5 a second), within the HTTP budget.
    for k in range(revisions):
        status, text = server.api("POST", "/api/rooms/probe/restore", {"rev": 0 if k % 2 == 0 else top}, role="editor")
        if status == 429:
            time.sleep(1)
        elif status != 200:
            sys.exit(f"seeding restore: {status} {text}")
    return json.loads(server.api("GET", "/api/rooms/probe", role="viewer")[1])["rev"]


class LeaseWatch:
    """The room's lease in Redis every 100 ms: who held it, and the least time it had left."""

    def __init__(self, redis, room: str = "probe"):
        self.redis, self.room, self.running = redis, room, True
        self.holders: set[str] = set()
        self.least_ms: int | None = None
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while self.running:
            holder = self.redis.command("GET", f"tandem:{{{self.room}}}:lease")
            left = int(self.redis.command("PTTL", f"tandem:{{{self.room}}}:lease"))
            self.holders.add(holder.split(" ")[0] if isinstance(holder, str) else "(none)")
            self.least_ms = left if self.least_ms is None else min(self.least_ms, left)
            time.sleep(0.1)

    def stop(self) -> str:
        self.running = False
        self.thread.join(5)
        return f"lease held by {sorted(self.holders)}, least left {self.least_ms} ms"


def run(server: Server, label: str, abuse, redis=None) -> None:
    bystander = Bystander(server)
    cpu = CPUSampler(server)
    lease = LeaseWatch(redis) if redis else None
    time.sleep(1)
    started = time.monotonic()
    detail = abuse()
    elapsed = time.monotonic() - started
    time.sleep(1)
    cpu.stop()
    tail = f"; {lease.stop()}" if lease else ""
    print(f"{label}: {elapsed:.1f} s; {detail}; {bystander.stop()}; {cpu.summary(started, started + elapsed + 1)}{tail}")


def seed_log(server: Server, commits: int, connections: int = 10) -> None:
    """`commits` single commits (sets of one control), from `connections` editors at once, each within its rate."""
    def one(k: int):
        ws = server.ws("editor")
        json.loads(ws.recv(timeout=30))
        share = commits // connections
        paced(ws, [{"type": "set", "seq": i + 1, "control": f"k{(k * share + i) % CONTROLS}", "value": i % 1000}
                   for i in range(share)])
        ws.close()
    threads = [threading.Thread(target=one, args=(k,)) for k in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def prepare(owner: Server, abuser: Server, args) -> int:
    """The probe room of 256 controls, its log seeded (`--log` single commits
    in a cluster) and ~760 batch revisions; returns its revision."""
    make_room(owner)
    hold = owner.ws("editor")  # the owner holds the room's lease from here on
    json.loads(hold.recv(timeout=30))
    if args.cluster:
        seed_log(abuser, args.log)
    top = seed_batches(abuser, 760)
    args.held = hold
    return top


def restore(owner: Server, abuser: Server, args, redis=None) -> None:
    top = prepare(owner, abuser, args)
    viewer = abuser.ws(args.role)
    json.loads(viewer.recv(timeout=30))

    def abuse():
        frames = [json.dumps({"type": "restore", "seq": k + 1, "rev": (k * 7) % top}) for k in range(args.n)]
        payload = b"".join(ws_frame(f) for f in frames)
        viewer.socket.sendall(payload)  # one frame each, all in one write
        drain(viewer, args.n)
        return f"{args.n} restore frames ({len(payload)} B) from a{'n' if args.role == 'editor' else ''} {args.role} at rev {top}"
    run(owner, "restore", abuse, redis)


def ws_frame(text: str) -> bytes:
    """A masked client text frame (sent on the socket directly, so that all of them go in one write)."""
    data = text.encode()
    mask = b"\x01\x02\x03\x04"
    head = bytes([0x81])
    if len(data) < 126:
        head += bytes([0x80 | len(data)])
    else:
        head += bytes([0x80 | 126]) + struct.pack("!H", len(data))
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


def timeline(owner: Server, abuser: Server, args, redis=None) -> None:
    top = prepare(owner, abuser, args)
    stop = threading.Event()
    counts = [0, 0]

    def reader(who: int):
        k = 0
        while not stop.is_set():
            k += 1
            path = "/api/rooms/probe/timeline" if args.cluster else f"/api/rooms/probe/timeline/{(k * 13) % top}"
            status, _ = abuser.api("GET", path, role="viewer", sub=f"viewer{who}")  # four tokens: four budgets
            counts[0 if status == 200 else 1] += 1

    def abuse():
        threads = [threading.Thread(target=reader, args=(who,), daemon=True) for who in range(4)]
        for thread in threads:
            thread.start()
        time.sleep(args.n)
        stop.set()
        for thread in threads:
            thread.join(30)
        what = "the summary" if args.cluster else "past moments"
        return f"4 viewers on {what} for {args.n} s: {counts[0]} answered 200, {counts[1]} refused"
    run(owner, "timeline", abuse, redis)


def puts(server: Server, _abuser: Server, args, redis=None) -> None:
    make_room(server, 4)

    def abuse():
        import http.client as httpclient
        connection = httpclient.HTTPConnection("127.0.0.1", server.port, timeout=30)
        statuses: dict[int, int] = {}
        end = time.monotonic() + args.n
        k = 0
        while time.monotonic() < end:
            k += 1
            connection.request("PUT", "/api/rooms/probe/controls/k1", json.dumps({"value": k % 1000}),
                               {"Authorization": f"Bearer {token('editor')}", "Content-Type": "application/json"})
            response = connection.getresponse()
            response.read()
            statuses[response.status] = statuses.get(response.status, 0) + 1
            if response.getheader("Connection", "").lower() == "close":
                connection.close()
                connection = httpclient.HTTPConnection("127.0.0.1", server.port, timeout=30)
        return f"{k} PUTs in {args.n} s on one keep-alive connection: {statuses}"
    run(server, "puts", abuse)


def presets(server: Server, abuser: Server, args, redis=None) -> None:
    make_room(server)
    hold = server.ws("editor")
    json.loads(hold.recv(timeout=30))
    editor = abuser.ws("editor")
    json.loads(editor.recv(timeout=30))

    def abuse():
        names = []
        for k in range(args.n):
            base = f"caf\u00e9 {k % 150}"  # 150 names, past the cap of 100, in two spellings each
            names.append(unicodedata.normalize("NFD", base) if k % 2 else base)
        frames = [json.dumps({"type": "preset", "seq": k + 1, "action": "save", "name": name}) for k, name in enumerate(names)]
        payload = b"".join(ws_frame(f) for f in frames)
        editor.socket.sendall(payload)
        drain(editor, args.n)
        listed = json.loads(server.api("GET", "/api/rooms/probe/presets", role="viewer")[1])["presets"]
        fields = f", {redis.command('HLEN', 'tandem:{probe}:presets')} hash fields" if redis else ""
        return f"{args.n} saves ({len(payload)} B) in one write: {len(listed)} presets listed{fields}"
    run(server, "presets", abuse, redis)


def osc_message(address: str, *args: str) -> bytes:
    def pad(b: bytes) -> bytes:
        return b + b"\0" * (4 - len(b) % 4)
    tags = "," + "s" * len(args)
    return pad(address.encode()) + pad(tags.encode()) + b"".join(pad(a.encode()) for a in args)


def osc_bundle(messages: list[bytes]) -> bytes:
    out = b"#bundle\0" + struct.pack("!Q", 1)  # time tag 1: immediately
    for m in messages:
        out += struct.pack("!I", len(m)) + m
    return out


def osc_flags(args) -> tuple[list[str], int, socket.socket]:
    receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    receiver.bind(("127.0.0.1", 0))
    receiver.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    listen = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    listen.bind(("127.0.0.1", 0))
    port = listen.getsockname()[1]
    listen.close()
    return (["--osc-listen", f"udp://127.0.0.1:{port}", "--osc-send", f"udp://127.0.0.1:{receiver.getsockname()[1]}"],
            port, receiver)


def count_datagrams(receiver: socket.socket, stop: threading.Event, counter: list[int]) -> None:
    receiver.settimeout(0.2)
    while not stop.is_set():
        try:
            receiver.recv(65536)
            counter[0] += 1
        except TimeoutError:
            pass


def osc_dump(server: Server, args, port: int, receiver: socket.socket) -> None:
    make_room(server, 11)
    stop, got = threading.Event(), [0]
    threading.Thread(target=count_datagrams, args=(receiver, stop, got), daemon=True).start()
    sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    bundle = osc_bundle([osc_message("/probe/dump")] * 2000)

    def abuse():
        end = time.monotonic() + args.n
        sent = 0
        while time.monotonic() < end:
            sender.sendto(bundle, ("127.0.0.1", port))
            sent += 1
            time.sleep(0.05)
        time.sleep(1)
        stop.set()
        return f"{sent} bundles of 2,000 dumps ({len(bundle)} B each): {got[0]} datagrams out"
    run(server, "osc-dump", abuse)


def osc_names(server: Server, args, port: int, receiver: socket.socket) -> None:
    make_room(server, 4)
    sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)

    def abuse():
        end = time.monotonic() + args.n
        k = 0
        while time.monotonic() < end:
            k += 1
            sender.sendto(osc_message("/probe/name", f"n{k}"), ("127.0.0.1", port))
            if k % 200 == 0:
                time.sleep(0.001)
        rss = next(int(line.split()[1]) // 1024 for line in Path(f"/proc/{server.proc.pid}/status").read_text().splitlines()
                   if line.startswith("VmRSS:"))
        return f"{k} new names in {args.n} s; RSS {rss} MiB"
    run(server, "osc-names", abuse)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("abuse", choices=["restore", "timeline", "puts", "presets", "osc-dump", "osc-names"])
    parser.add_argument("-n", type=int, help="size (restore 600 frames, presets 3000 saves; seconds for the rest: 5)")
    parser.add_argument("--binary", default=str(ROOT / ".build" / "release" / "tandem"))
    parser.add_argument("--cluster", action="store_true", help="two nodes on a Redis of their own")
    parser.add_argument("--role", default="viewer", choices=["viewer", "editor"], help="who sends the restores")
    parser.add_argument("--log", type=int, default=20000, help="single commits seeded first in a cluster")
    args, extra = parser.parse_known_args()
    flags = [flag for flag in extra if flag != "--"]
    args.n = args.n or {"restore": 600, "presets": 3000}.get(args.abuse, 5)
    if args.abuse.startswith("osc"):
        osc, port, receiver = osc_flags(args)
        server = Server(args.binary, [*flags, *osc])
        try:
            (osc_dump if args.abuse == "osc-dump" else osc_names)(server, args, port, receiver)
        finally:
            server.stop()
        return
    scenario = {"restore": restore, "timeline": timeline, "puts": puts, "presets": presets}[args.abuse]
    if not args.cluster:
        server = Server(args.binary, flags)
        try:
            scenario(server, server, args)
        finally:
            server.stop()
        return
    sys.path.insert(0, str(ROOT / "pytests" / "integration"))
    from cluster import RedisServer
    folder = tempfile.TemporaryDirectory()
    redis = RedisServer(Path(folder.name))
    nodes = []
    try:
        nodes = [Server(args.binary, flags, redis.url, "n1"), Server(args.binary, flags, redis.url, "n2")]
        scenario(nodes[0], nodes[1], args, redis)
    finally:
        for node in nodes:
            node.stop()
        redis.stop()
        folder.cleanup()


if __name__ == "__main__":
    main()
