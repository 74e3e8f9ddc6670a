"""One send per frame (docs/benchmarks.md, "Fan-out at the floor"): the server writes each WebSocket frame to
its socket in one system call (`--sends send`) or one io_uring send (the
default), whatever its size. Counted from the outside: strace (Debian
`strace`) attached to the running server records every send, and each client
counts the frames it reads."""

import json
import re
import subprocess
import time
from pathlib import Path

from helpers import OP_TEXT, START_LINE, WAIT, RawWebSocket, healthz

SEND = re.compile(r"^\d+\s+(sendto|sendmsg|write|writev)\((\d+)<TCP:\[[^\]]*->127\.0\.0\.1:(\d+)\]>.*= (\d+)$")
URING = re.compile(r"^\d+\s+io_uring_enter\(")


def traced(pid: int, log: Path) -> subprocess.Popen:
    """strace attached to `pid` (all threads), writing every send on a TCP socket to `log`."""
    proc = subprocess.Popen(["strace", "-f", "-qq", "-yy", "-e", "trace=sendto,sendmsg,write,writev,io_uring_enter", "-e", "signal=none",
                             "-o", str(log), "-p", str(pid)], stderr=subprocess.PIPE)
    deadline = time.monotonic() + WAIT
    while not re.search(r"^TracerPid:\s+[1-9]", Path(f"/proc/{pid}/status").read_text(), re.M):
        assert proc.poll() is None, proc.stderr.read().decode()
        assert time.monotonic() < deadline, "strace did not attach"
        time.sleep(0.05)  # polling /proc until the tracer shows
    return proc


def read_until(client: RawWebSocket, frames: list[bytes], done) -> None:
    """Reads frames into `frames` until `done(message)` holds for a whole text frame's JSON."""
    client.settimeout(WAIT)
    while True:
        fin, opcode, payload = client.read_frame()
        frames.append(payload)
        if fin and opcode == OP_TEXT and done(json.loads(payload)):
            return


def changes_size(message: dict) -> bool:
    return any(c.get("control") == "size" for c in message.get("changes") or [])


def gain_shown(value: float):
    """Whether a frame has the gain drag's preview at `value`."""
    return lambda message: any(g.get("control") == "gain" and abs(g.get("state", {}).get("value", -1) - value) < 1e-6
                               for g in message.get("gestures") or [])


def drive(server, tmp_path) -> tuple[Path, list[int], list[list[bytes]]]:
    """Six clients under strace: one drags, sets and steps; everyone reads to the step's change.
    Returns strace's log, the clients' local ports and the frames each read."""
    log = tmp_path / "sends.log"
    strace = traced(server.proc.pid, log)
    clients: list[RawWebSocket] = []
    try:
        clients = [RawWebSocket(server.port, path=f"/rooms/demo?name=p{i}", timeout=WAIT) for i in range(6)]
        received: list[list[bytes]] = [[] for _ in clients]
        ann = clients[0]
        seq = 0

        def send(message: dict) -> int:
            nonlocal seq
            seq += 1
            ann.send_text(json.dumps({"seq": seq, **message}, separators=(",", ":")))
            return seq

        def acked(upto: int):
            return lambda message: (message.get("ack") or 0) >= upto

        # Everyone is in the room, welcomed, before Ann begins.
        for client, frames in zip(clients, received):
            read_until(client, frames, lambda message: message.get("type") == "presets")
        send({"type": "drag", "control": "gain", "phase": "begin"})
        for k in range(1, 31):
            # One move per round: the next leaves once a receiver has this one.
            send({"type": "drag", "control": "gain", "phase": "move", "dx": k / 100})
            read_until(clients[1], received[1], gain_shown(0.5 + k / 100))
        send({"type": "drag", "control": "gain", "phase": "end"})
        send({"type": "set", "control": "color", "value": "#123456"})
        last = send({"type": "step", "control": "size", "by": 1})
        # The step is the last thing anyone is told of: its change (and, to Ann, its ack) ends each client's frames.
        told = {"ack": False, "size": False}

        def ann_done(message: dict) -> bool:
            told["ack"] |= acked(last)(message)
            told["size"] |= changes_size(message)
            return told["ack"] and told["size"]

        read_until(ann, received[0], ann_done)
        for client, frames in zip(clients[1:], received[1:]):
            read_until(client, frames, changes_size)
        # The loop thread stops at each traced send until strace has logged it:
        # once it has answered this, every send to the clients is in the log.
        assert healthz(server.port, timeout=WAIT) == 200
        ports = [c.sock.getsockname()[1] for c in clients]
    finally:
        strace.terminate()
        strace.wait(WAIT)
        for c in clients:
            c.close()
    return log, ports, received


def sends_by_port(log: Path) -> dict[int, list[int]]:
    """The bytes of each send strace saw, by the client's port."""
    sends: dict[int, list[int]] = {}
    for line in log.read_text().splitlines():
        if m := SEND.match(line):
            sends.setdefault(int(m.group(3)), []).append(int(m.group(4)))
    return sends


def test_with_send_every_frame_is_one_system_call_the_welcome_the_rounds_and_the_senders_own(start_server, tmp_path):
    server = start_server("--sends", "send")
    assert " sends=send " in server.wait_for_log(START_LINE.search)
    log, ports, received = drive(server, tmp_path)
    sends = sends_by_port(log)
    for port, frames in zip(ports, received):
        sizes = [len(f) for f in frames]
        # The 101 answer to the handshake, then one send per frame (a frame
        # is its payload plus a 2-4 byte header).
        assert len(sends.get(port, [])) == 1 + len(frames), (port, sends.get(port), sizes)
        assert all(0 <= sent - size <= 4 for sent, size in zip(sends[port][1:], sizes)), (sends[port], sizes)
    everything = [len(f) for frames in received for f in frames]
    assert max(everything) > 600, "the welcome is over lws' old 528-byte send cap: it must leave whole too"
    assert len(received[1]) >= 4, "a receiver got the welcome, the presets and the drag's rounds"


def test_with_io_uring_the_rounds_frames_leave_in_batches_one_send_each(server, tmp_path):
    assert " sends=io_uring " in server.wait_for_log(START_LINE.search)
    before = server.metrics()
    log, ports, received = drive(server, tmp_path)
    after = server.metrics()
    sends = sends_by_port(log)
    for port, frames in zip(ports[1:], received[1:]):
        # The handshake's answer and the frames of writable callbacks (the
        # welcome, the presets list, a newcomer's catch-up) are sent one by
        # one; the rounds' frames, most of the drag's, go through io_uring.
        direct = len(sends.get(port, [])) - 1
        assert direct + 5 <= len(frames), (port, sends.get(port), [len(f) for f in frames])
    assert any(URING.match(line) for line in log.read_text().splitlines())

    def delta(name: str) -> float:
        return after[name] - before[name]

    frames = delta("tandem_frames_out_total")
    assert frames >= sum(len(f) for f in received) - 6, "every frame the clients read was counted"
    assert delta("tandem_frame_sends_total") == frames, "one send (direct or io_uring) per frame"
    assert delta("tandem_frames_handed_to_lws_total") == 0
    assert 0 < delta("tandem_send_batches_total") < frames
