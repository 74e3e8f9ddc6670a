"""A user-space TCP proxy for slow links: a node's Redis connection through the harness.

`Proxy(listen_host, upstream=(host, port))` runs an asyncio loop on a thread
of its own (so that the workload's loop and the proxy's never wait on each
other), listening on `listen_host:port` (port 0 picks one: `proxy.port`).
Each accepted connection gets one to the upstream; bytes are forwarded in
order, each direction by a reader and a writer joined by a queue, so that
a delay never reorders and never loses anything.

Modes, changeable at any time from any thread:

- `normal()`: forward at once;
- `delay(ms)`: hold each chunk until `ms` after it was read, both directions;
- `stall()`: forward nothing (chunks queue up), keep every socket open;
  `normal()` or `delay()` again releases the queue in order.

`set_upstream(host, port)` changes where new connections go (existing ones
keep theirs); `drop_all()` closes every connection (both sides).
"""

from __future__ import annotations

import asyncio
import threading
import time


class Proxy:
    def __init__(self, listen_host: str, upstream: tuple[str, int], port: int = 0, name: str = "proxy"):
        self.listen_host = listen_host
        self.upstream = upstream
        self.name = name
        self.port = port
        self.delay_ms = 0.0
        self.stalled = False
        self.connections = 0  # accepted so far
        self.forwarded = 0  # bytes
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.base_events.Server | None = None
        self._released: asyncio.Event | None = None
        self._pairs: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = set()
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    # -- life

    def start(self) -> "Proxy":
        self._thread = threading.Thread(target=self._main, name=f"proxy-{self.name}", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError(f"proxy {self.name} did not start")
        if self._error:
            raise RuntimeError(f"proxy {self.name}: {self._error}") from self._error
        return self

    def _main(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._listen())
        except BaseException as error:  # noqa: BLE001: reported to start()
            self._error = error
            self._ready.set()
            loop.close()
            return
        self._ready.set()
        loop.run_forever()
        loop.run_until_complete(self._shutdown())
        loop.close()

    async def _listen(self) -> None:
        self._released = asyncio.Event()
        self._released.set()
        self._server = await asyncio.start_server(self._accept, self.listen_host, self.port, reuse_address=True)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _shutdown(self) -> None:
        if self._server:
            self._server.close()
        self._close_pairs()
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def stop(self) -> None:
        if self._loop and self._thread and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)

    def __enter__(self) -> "Proxy":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- control (any thread)

    def _call(self, fn, *args) -> None:
        if self._loop is None:
            raise RuntimeError("proxy not started")
        done = threading.Event()

        def run() -> None:
            try:
                fn(*args)
            finally:
                done.set()

        self._loop.call_soon_threadsafe(run)
        done.wait(5)

    def normal(self) -> None:
        self._call(self._set, 0.0, False)

    def delay(self, ms: float) -> None:
        self._call(self._set, float(ms), False)

    def stall(self) -> None:
        self._call(self._set, self.delay_ms, True)

    def set_upstream(self, host: str, port: int) -> None:
        self.upstream = (host, port)

    def drop_all(self) -> None:
        self._call(self._close_pairs)

    @property
    def mode(self) -> str:
        return "stall" if self.stalled else (f"delay {self.delay_ms:g} ms" if self.delay_ms else "normal")

    def _set(self, delay_ms: float, stalled: bool) -> None:
        assert self._released is not None
        self.delay_ms = delay_ms
        self.stalled = stalled
        if stalled:
            self._released.clear()
        else:
            self._released.set()

    def _close_pairs(self) -> None:
        for a, b in list(self._pairs):
            for writer in (a, b):
                writer.transport.abort()
        self._pairs.clear()

    # -- forwarding

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            up_reader, up_writer = await asyncio.wait_for(asyncio.open_connection(*self.upstream), 5)
        except (OSError, asyncio.TimeoutError):
            writer.transport.abort()
            return
        pair = (writer, up_writer)
        self._pairs.add(pair)
        try:
            await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))
        finally:
            self._pairs.discard(pair)
            writer.transport.abort()
            up_writer.transport.abort()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        queue: asyncio.Queue[tuple[float, bytes] | None] = asyncio.Queue()

        async def read() -> None:
            try:
                while data := await reader.read(65536):
                    queue.put_nowait((time.monotonic(), data))
            except (OSError, asyncio.IncompleteReadError):
                pass
            queue.put_nowait(None)

        reading = asyncio.ensure_future(read())
        try:
            while True:
                item = await queue.get()
                if item is None:
                    break
                read_at, data = item
                assert self._released is not None
                while True:
                    await self._released.wait()
                    wait = read_at + self.delay_ms / 1000 - time.monotonic()
                    if wait > 0:
                        await asyncio.sleep(min(wait, 0.05))
                        continue
                    if self._released.is_set():
                        break
                writer.write(data)
                self.forwarded += len(data)
                await writer.drain()
        except (OSError, ConnectionError):
            pass
        finally:
            reading.cancel()
            writer.transport.abort()
