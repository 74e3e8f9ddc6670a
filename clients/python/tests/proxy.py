"""A TCP proxy in front of the server whose connections a test can kill (a reset,
no close frame) and whose door it can shut for a while: the network failing."""

from __future__ import annotations

import socket
import struct
import threading


class Proxy:
    def __init__(self, target_port: int):
        self.target = ("127.0.0.1", target_port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.open = True
        self.accepted = 0
        self.refused = 0
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def url(self, room: str = "demo") -> str:
        return f"ws://127.0.0.1:{self.port}/rooms/{room}"

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if not self.open:
                self.refused += 1
                _reset(client)
                continue
            try:
                upstream = socket.create_connection(self.target)
            except OSError:
                _reset(client)
                continue
            with self._lock:
                self.accepted += 1
                self._pairs.append((client, upstream))
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        for sock in (source, sink):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def kill(self) -> None:
        """Resets every connection through the proxy, both ways (SO_LINGER 0: RST, not FIN)."""
        with self._lock:
            pairs, self._pairs = self._pairs, []
        for pair in pairs:
            for sock in pair:
                _reset(sock)

    def close(self) -> None:
        self.open = False
        self.listener.close()
        self.kill()


def _reset(sock: socket.socket) -> None:
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.shutdown(socket.SHUT_RD)
    except OSError:
        pass
    sock.close()
