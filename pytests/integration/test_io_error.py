"""A device that fails under a single node's SQLite file: write(2)/pwrite(2),
or fsync(2)/fdatasync(2), on the database's files return EIO (docs/storage.md,
"When the disk fills or fails").

The mechanism is an LD_PRELOAD shim, compiled here with gcc, that makes
those calls fail with EIO on any file whose path starts with the database's
while a trigger file exists: SQLite sees the errors a failing disk gives
(SQLITE_IOERR_WRITE, SQLITE_IOERR_FSYNC) and nothing else is touched. The
assertions are those of the full disk (test_disk_full.py): every set refused
while the trigger exists and none acknowledged, /healthz 503, reads and drags
go on, and once the trigger is gone the probe write brings /healthz back to
200 and the next set is acknowledged and stored; the reopened file holds
every acknowledged set and no refused one.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from helpers import wait_until
from test_disk_full import Ledger, assert_acknowledged, assert_failing, stop_and_check_file

SHIM = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static const char *trigger, *match, *calls;
static size_t match_length;

__attribute__((constructor)) static void setup(void) {
    trigger = getenv("EIO_TRIGGER");
    match = getenv("EIO_MATCH");
    calls = getenv("EIO_CALLS");
    match_length = match ? strlen(match) : 0;
}

/* Whether a call of kind `kind` on `fd` fails: the trigger exists and fd is one of the database's files. */
static int failing(int fd, const char *kind) {
    if (!trigger || !match || !calls || !strstr(calls, kind) || access(trigger, F_OK) != 0) return 0;
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0) return 0;
    path[n] = 0;
    return strncmp(path, match, match_length) == 0;
}

typedef ssize_t (*write_f)(int, const void *, size_t);
typedef ssize_t (*pwrite_f)(int, const void *, size_t, off_t);
typedef ssize_t (*pwrite64_f)(int, const void *, size_t, off64_t);
typedef int (*sync_f)(int);
#define REAL(name, type) static type real; if (!real) real = (type)dlsym(RTLD_NEXT, name)

ssize_t write(int fd, const void *buffer, size_t count) {
    REAL("write", write_f);
    if (failing(fd, "write")) { errno = EIO; return -1; }
    return real(fd, buffer, count);
}

ssize_t pwrite(int fd, const void *buffer, size_t count, off_t offset) {
    REAL("pwrite", pwrite_f);
    if (failing(fd, "write")) { errno = EIO; return -1; }
    return real(fd, buffer, count, offset);
}

ssize_t pwrite64(int fd, const void *buffer, size_t count, off64_t offset) {
    REAL("pwrite64", pwrite64_f);
    if (failing(fd, "write")) { errno = EIO; return -1; }
    return real(fd, buffer, count, offset);
}

int fsync(int fd) {
    REAL("fsync", sync_f);
    if (failing(fd, "sync")) { errno = EIO; return -1; }
    return real(fd);
}

int fdatasync(int fd) {
    REAL("fdatasync", sync_f);
    if (failing(fd, "sync")) { errno = EIO; return -1; }
    return real(fd);
}
"""


@pytest.fixture(scope="module")
def eio_shim(tmp_path_factory):
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        pytest.skip("no C compiler for the EIO shim")
    folder = tmp_path_factory.mktemp("eio")
    source = folder / "eio.c"
    source.write_text(SHIM)
    library = folder / "eio.so"
    done = subprocess.run([gcc, "-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-o", str(library), str(source), "-ldl"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return library


@pytest.mark.parametrize("calls,durability", [("write", "normal"), ("sync", "full")])
def test_an_io_error_refuses_commits_serves_reads_and_drags_and_recovers(eio_shim, start_server, connect, tmp_path,
                                                                           monkeypatch, calls, durability):
    data = tmp_path / "db" / "tandem.db"
    trigger = tmp_path / "fail-now"
    monkeypatch.setenv("LD_PRELOAD", str(eio_shim))
    monkeypatch.setenv("EIO_TRIGGER", str(trigger))
    monkeypatch.setenv("EIO_MATCH", str(data))
    monkeypatch.setenv("EIO_CALLS", calls)
    server = start_server("--data", str(data), "--durability", durability)
    monkeypatch.delenv("LD_PRELOAD")  # the server has it; nothing else this test starts
    writer = connect(server, name="Writer")
    watcher = connect(server, name="Watcher")
    ledger = Ledger(writer)
    assert_acknowledged(ledger, 3)
    trigger.touch()
    answer = ledger.set()
    assert answer.get("type") == "reject", f"a set was acknowledged while every {calls} of the file failed: {answer}"
    assert_failing(server, ledger, watcher, "I/O error")
    assert f"SQLite {778 if calls == 'write' else 1034}" in server.get("/healthz").text  # SQLITE_IOERR_WRITE / _FSYNC
    trigger.unlink()
    # Nobody commits: the probe write (every second) finds the device back.
    wait_until(lambda: server.get("/healthz").status == 200, what="/healthz 200 from the probe")
    server.wait_for_log(lambda line: "storage available again" in line)
    assert server.metrics().get("tandem_storage_ok") == 1
    assert_acknowledged(ledger, 3)
    stop_and_check_file(server, data, ledger, writer, watcher)
