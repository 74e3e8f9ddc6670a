#!/usr/bin/env python3
"""Runs the Autobahn|Testsuite's fuzzing client against tandem's echo endpoint.

    python3 autobahn/run.py [--cases 1.*,7.*] [--binary PATH]

Makes a throw-away Python 2.7 virtualenv in .autobahn/ (the suite needs 2.7:
pyenv's 2.7.18, or $AUTOBAHN_PYTHON2), starts `tandem --echo-path /echo` on
a free port, runs `wstest -m fuzzingclient` with autobahn/fuzzingclient.json
(cases 1-7, 9 and 10), and exits non-zero unless every case's behaviour, and
its close behaviour, is OK, NON-STRICT or INFORMATIONAL. The HTML and JSON
reports land in autobahn/reports/ (not in git).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # for pytests/support (standard library only too)
    sys.path.append(str(ROOT))
from pytests.support.ports import free_port  # noqa: E402

HERE = ROOT / "autobahn"
VENV = ROOT / ".autobahn" / "venv"
REPORTS = HERE / "reports"
PYTHON2 = os.environ.get("AUTOBAHN_PYTHON2", "/root/.pyenv/versions/2.7.18/bin/python")
PASSING = {"OK", "NON-STRICT", "INFORMATIONAL"}


def sh(*args: str | Path, **kwargs) -> None:
    print("+", " ".join(str(a) for a in args), flush=True)
    subprocess.run([str(a) for a in args], check=True, **kwargs)


def ensure_venv() -> Path:
    wstest = VENV / "bin" / "wstest"
    if wstest.exists():
        return wstest
    python2 = PYTHON2 if Path(PYTHON2).exists() else shutil.which("python2.7")
    if not python2:
        sys.exit("the Autobahn|Testsuite needs Python 2.7: set AUTOBAHN_PYTHON2 to its interpreter")
    if subprocess.run([python2, "-m", "virtualenv", "--version"], capture_output=True).returncode != 0:
        sh(python2, "-m", "pip", "install", "-q", "--disable-pip-version-check", "virtualenv<20.22")
    sh(python2, "-m", "virtualenv", "-q", VENV)
    sh(VENV / "bin" / "pip", "install", "-q", "--disable-pip-version-check", "-r", HERE / "requirements.txt")
    return wstest


def start_server(binary: Path, port: int, event_loop: str) -> subprocess.Popen:
    server = subprocess.Popen([str(binary), "--port", str(port), "--data", ":memory:", "--echo-path", "/echo",
                               "--event-loop", event_loop, "--log-level", "warn"], cwd=ROOT)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server
        except OSError:
            if server.poll() is not None:
                sys.exit(f"tandem exited {server.returncode}")
            time.sleep(0.1)
    server.kill()
    sys.exit("tandem did not start within 10 s")


def summarize(index: Path) -> bool:
    results = json.loads(index.read_text())["tandem"]
    behaviours = collections.Counter(r["behavior"] for r in results.values())
    closes = collections.Counter(r["behaviorClose"] for r in results.values())
    failed = sorted((case for case, r in results.items() if r["behavior"] not in PASSING or r["behaviorClose"] not in PASSING),
                    key=lambda c: [int(p) for p in c.split(".")])
    print(f"cases: {len(results)}")
    print("behaviour: " + ", ".join(f"{k} {v}" for k, v in sorted(behaviours.items())))
    print("close behaviour: " + ", ".join(f"{k} {v}" for k, v in sorted(closes.items())))
    for case in failed:
        r = results[case]
        print(f"  {case}: {r['behavior']} / close {r['behaviorClose']}  (autobahn/reports/{r['reportfile']})")
    return not failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=os.environ.get("TANDEM_BINARY", ROOT / ".build" / "debug" / "tandem"), type=Path)
    parser.add_argument("--cases", help="comma-separated case patterns instead of the spec's (e.g. 7.*)")
    parser.add_argument("--event-loop", default="poll", choices=["poll", "uv"], help="the server's event loop")
    args = parser.parse_args()
    wstest = ensure_venv()
    spec = json.loads((HERE / "fuzzingclient.json").read_text())
    port = free_port()
    spec["servers"][0]["url"] = spec["servers"][0]["url"].replace("PORT", str(port))
    if args.cases:
        spec["cases"] = args.cases.split(",")
    shutil.rmtree(REPORTS, ignore_errors=True)
    REPORTS.mkdir(parents=True)
    spec_path = REPORTS / "spec.json"
    spec_path.write_text(json.dumps(spec, indent=2))
    server = start_server(args.binary, port, args.event_loop)
    started = time.monotonic()
    try:
        sh(wstest, "-m", "fuzzingclient", "-s", spec_path, cwd=ROOT, stdout=subprocess.DEVNULL)
    finally:
        server.terminate()
        server.wait(10)
    print(f"run time: {time.monotonic() - started:.0f} s")
    ok = summarize(REPORTS / "index.json")
    print("PASS: every case OK, NON-STRICT or INFORMATIONAL" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
