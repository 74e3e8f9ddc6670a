"""The operations kit (docs/operations.md, "Alerts and recording rules", "The
Grafana dashboard", "The systemd unit"): deploy/prometheus, deploy/grafana and
deploy/systemd checked against the real server.

- the rules pass `promtool check rules` and their unit tests (`promtool test
  rules`), and every alert has a test where it fires and one where it is quiet;
- the live /metrics of a single node and of a cluster node (a real Redis) pass
  `promtool check metrics` with nothing reported;
- every metric the rules and the dashboard name is one a live node exports, or a
  recording rule's output; the dashboard is well-formed and each of its queries
  parses (promtool, in a throwaway rules file);
- the unit passes `systemd-analyze verify` with no complaint about it, and the
  server runs its ExecStart under the unit's seccomp filters (system calls,
  address families, MemoryDenyWriteExecute), emulated with libseccomp, and
  stops cleanly on SIGTERM;
- the process_* metrics (descriptors, memory, CPU, start time) follow the process.

A check is skipped, saying why, only when its tool (promtool, systemd-analyze,
libseccomp) is missing.
"""

from __future__ import annotations

import contextlib
import ctypes.util
import json
import re
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cluster import RedisServer
from conftest import stop_running
from helpers import ROOT, Client, TandemServer, open_websocket

DEPLOY = ROOT / "deploy"
RULES = DEPLOY / "prometheus" / "tandem.rules.yml"
RULE_TESTS = DEPLOY / "prometheus" / "tandem.rules.test.yml"
DASHBOARD = DEPLOY / "grafana" / "tandem.json"
UNIT = DEPLOY / "systemd" / "tandem.service"

PROMTOOL = shutil.which("promtool")
SYSTEMD_ANALYZE = shutil.which("systemd-analyze")
needs_promtool = pytest.mark.skipif(PROMTOOL is None, reason="promtool is not installed (Debian's prometheus package)")
needs_systemd_analyze = pytest.mark.skipif(SYSTEMD_ANALYZE is None, reason="systemd-analyze is not installed (Debian's systemd package)")

# PromQL's functions and keywords: every other identifier in a query is a metric name.
PROMQL_WORDS = {
    "sum", "min", "max", "avg", "count", "stddev", "stdvar", "topk", "bottomk", "quantile", "count_values", "group",
    "by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "bool", "offset",
}
METRIC_NAME = re.compile(r"[A-Za-z_:][A-Za-z0-9_:]*")


def run(*args: str, cwd: Path | None = None, stdin: str | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=timeout)


# --------------------------------------------------------------------------
# Reading the files
# --------------------------------------------------------------------------


def rules_in(text: str) -> list[tuple[str, str, str]]:
    """(kind, name, expr) of each rule of a rules file: kind `record` or `alert`.
    Reads the subset of YAML the file uses (`expr:` on one line or as a `|` block),
    so that no YAML library is needed; test_rules_pass_promtool_check compares
    the count with promtool's."""
    rules: list[list[str]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        head = re.match(r"^\s*- (record|alert): (\S+)\s*$", line)
        if head:
            rules.append([head.group(1), head.group(2), ""])
            i += 1
            continue
        expr = re.match(r"^(\s*)expr: (.*)$", line)
        if expr and rules:
            value = expr.group(2).strip()
            i += 1
            if value in ("|", "|-", ">", ">-"):
                block = []
                while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > len(expr.group(1))):
                    block.append(lines[i].strip())
                    i += 1
                value = "\n".join(block).strip()
            rules[-1][2] = value
            continue
        i += 1
    return [(kind, name, expr) for kind, name, expr in rules]


def metric_names(expr: str) -> set[str]:
    """The metric names a PromQL expression reads (recording rules' included)."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)           # strings: label values
    text = re.sub(r"\{[^}]*\}", "", text)                       # label matchers
    text = re.sub(r"\[[^\]]*\]", "", text)                      # ranges and subqueries
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", text)  # label lists
    names = set()
    for match in METRIC_NAME.finditer(text):
        word = match.group(0)
        if word in PROMQL_WORDS or text[match.end():].lstrip().startswith("("):
            continue  # a keyword or a function
        if text[:match.start()].rstrip().endswith(tuple("0123456789.")):
            continue  # the exponent or unit of a number (1e3)
        names.add(word)
    return names


def exposed_names(exposition: str) -> set[str]:
    """Every metric name in a Prometheus text exposition: those with samples,
    and those declared by # TYPE (a histogram's _bucket, _sum and _count)."""
    names = set()
    for line in exposition.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(maxsplit=3)
            names.add(name)
            if kind.strip() == "histogram":
                names |= {name + "_bucket", name + "_sum", name + "_count"}
        elif line and not line.startswith("#"):
            names.add(METRIC_NAME.match(line).group(0))
    return names


def dashboard_panels(dashboard: dict) -> list[dict]:
    """Every panel, those inside collapsed rows included."""
    out = []
    for panel in dashboard["panels"]:
        out.append(panel)
        out.extend(panel.get("panels", []))
    return out


def grafana_expr(expr: str) -> str:
    """A dashboard query as Prometheus would get it: Grafana's variables replaced."""
    for variable, value in (("$__rate_interval", "5m"), ("$__interval", "1m"), ("$__range", "1h"),
                            ("${job}", ".*"), ("$job", ".*"), ("${instance}", ".*"), ("$instance", ".*")):
        expr = expr.replace(variable, value)
    assert "$" not in expr, f"an unknown variable in {expr!r}"
    return expr


def dashboard_exprs() -> list[tuple[str, str]]:
    """(where, expr) of every query of the dashboard, its variables' included."""
    dashboard = json.loads(DASHBOARD.read_text())
    out = []
    for panel in dashboard_panels(dashboard):
        for target in panel.get("targets", []):
            out.append((f"panel {panel['id']} ({panel.get('title')}) {target.get('refId')}", target["expr"]))
    for variable in dashboard["templating"]["list"]:
        query = variable.get("query")
        if variable["type"] == "query":
            query = query["query"] if isinstance(query, dict) else query
            inner = re.fullmatch(r"label_values\((.*),\s*\w+\)", query)
            out.append((f"variable {variable['name']}", inner.group(1) if inner else query))
    return out


# --------------------------------------------------------------------------
# Live nodes: a single node on SQLite and a cluster node on a real Redis
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def live_metrics(tandem_binary, tmp_path_factory):
    """The /metrics text of a single node (SQLite file) and of a cluster node,
    each after a member joined, committed and left and a page was served, so
    that the labelled series exist too."""
    folder = tmp_path_factory.mktemp("deploy")
    started: list[TandemServer] = []
    redis = RedisServer(folder)
    texts: dict[str, str] = {}
    try:
        single = TandemServer(tandem_binary, ["--data", str(folder / "tandem.db")])
        started.append(single)
        node = TandemServer(tandem_binary, ["--redis", redis.url, "--node-id", "n1"])
        started.append(node)
        for name, server in (("single", single), ("cluster", node)):
            with open_websocket(server.ws_url("demo", name="Ops")) as ws:
                member = Client(ws)
                member.expect_ack(member.set("gain", 0.25))
            assert server.get("/").status == 200
            server.wait_metric('tandem_closes_total{code="1000"}', lambda n: n >= 1)
            response = server.get("/metrics")
            assert response.status == 200
            texts[name] = response.text
        yield texts
    finally:
        try:
            stop_running(started)
        finally:
            redis.stop()


# --------------------------------------------------------------------------
# Prometheus rules
# --------------------------------------------------------------------------


@needs_promtool
def test_rules_pass_promtool_check():
    result = run(PROMTOOL, "check", "rules", str(RULES))
    assert result.returncode == 0, result.stdout + result.stderr
    found = re.search(r"SUCCESS: (\d+) rules found", result.stdout)
    assert found, result.stdout
    assert result.stderr.strip() == "", result.stderr
    # The reader of this file sees the rules promtool sees, each with its expression.
    rules = rules_in(RULES.read_text())
    assert len(rules) == int(found.group(1))
    assert all(expr for _, _, expr in rules), [name for _, name, expr in rules if not expr]


@needs_promtool
def test_rules_unit_tests_pass():
    result = run(PROMTOOL, "test", "rules", RULE_TESTS.name, cwd=RULE_TESTS.parent)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout


def test_every_alert_is_tested_firing_and_quiet():
    tests = RULE_TESTS.read_text()
    alerts = [name for kind, name, _ in rules_in(RULES.read_text()) if kind == "alert"]
    assert len(alerts) == len(set(alerts)), "an alert name is used twice"
    for name in alerts:
        assert re.search(rf"alertname: {name}\n\s+exp_alerts: \[\]", tests), f"{name}: no test where it stays quiet"
        assert re.search(rf"alertname: {name}\n\s+exp_alerts:\n\s+- exp_labels:", tests), f"{name}: no test where it fires"


def test_the_required_alerts_exist():
    rules = {name: expr for kind, name, expr in rules_in(RULES.read_text()) if kind == "alert"}
    assert 'up{job="tandem"} == 0' in rules["TandemDown"]
    for name in ("TandemRedisUnavailable", "TandemOwnerFlapping", "TandemSlowConsumers", "TandemRejectsSurging",
                 "TandemRateLimitsSurging", "TandemStorageErrors", "TandemStorageUnavailable",
                 "TandemFileDescriptorsNearLimit", "TandemConnectionsNearLimit"):
        assert name in rules, name


# --------------------------------------------------------------------------
# Live /metrics
# --------------------------------------------------------------------------


@needs_promtool
@pytest.mark.parametrize("node", ["single", "cluster"])
def test_live_metrics_pass_promtool_check_metrics(live_metrics, node):
    result = run(PROMTOOL, "check", "metrics", stdin=live_metrics[node])
    assert result.returncode == 0 and result.stdout.strip() == "" and result.stderr.strip() == "", \
        f"promtool check metrics on a {node} node:\n{result.stdout}{result.stderr}"


def test_every_metric_of_the_rules_and_the_dashboard_is_exported(live_metrics):
    exported = exposed_names(live_metrics["single"]) | exposed_names(live_metrics["cluster"])
    # What the rules and the dashboard need from the server itself.
    assert {"tandem_storage_ok", "tandem_cluster_redis_up", "process_open_fds", "process_max_fds",
            "tandem_max_connections", "tandem_sockets"} <= exported
    rules = rules_in(RULES.read_text())
    recorded = {name for kind, name, _ in rules if kind == "record"}
    known = exported | recorded | {"up"}  # up: Prometheus' own, one per target
    missing = {}
    for where, expr in [(name, expr) for _, name, expr in rules] + [(w, grafana_expr(e)) for w, e in dashboard_exprs()]:
        names = metric_names(expr)
        assert names, f"{where}: no metric in {expr!r}"
        unknown = sorted(names - known)
        if unknown:
            missing[where] = unknown
    assert not missing, f"names neither exported by a live node nor recorded: {missing}"
    # Every recording rule is used by an alert or the dashboard.
    used = set().union(*(metric_names(e) for kind, _, e in rules if kind == "alert"),
                       *(metric_names(grafana_expr(e)) for _, e in dashboard_exprs()))
    used |= set().union(*(metric_names(e) for kind, _, e in rules if kind == "record"))
    assert recorded <= used, f"recording rules nothing uses: {sorted(recorded - used)}"


# --------------------------------------------------------------------------
# The Grafana dashboard
# --------------------------------------------------------------------------


def test_dashboard_is_well_formed():
    dashboard = json.loads(DASHBOARD.read_text())
    panels = dashboard_panels(dashboard)
    ids = [panel["id"] for panel in panels]
    assert all(isinstance(i, int) for i in ids) and len(ids) == len(set(ids)), f"panel ids not unique: {ids}"
    variables = {v["name"]: v for v in dashboard["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource" and variables["datasource"]["query"] == "prometheus"
    assert variables["instance"]["type"] == "query"
    assert dashboard["uid"] and dashboard["title"] and isinstance(dashboard["schemaVersion"], int)
    titles = set()
    for panel in panels:
        grid = panel["gridPos"]
        assert 0 <= grid["x"] and grid["x"] + grid["w"] <= 24, f"panel {panel['id']} is off the grid: {grid}"
        if panel["type"] == "row":
            continue
        assert panel["title"] not in titles, f"two panels titled {panel['title']!r}"
        titles.add(panel["title"])
        assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}, panel["title"]
        refs = [t["refId"] for t in panel["targets"]]
        assert refs and len(refs) == len(set(refs)), f"{panel['title']}: refIds {refs}"
        for target in panel["targets"]:
            assert target["expr"].strip() and target["datasource"] == panel["datasource"], panel["title"]
    # What the dashboard is for: each topic has its panels.
    text = " ".join(sorted(titles)).lower()
    for topic in ("connections", "rooms", "messages in", "fan-out", "rejects", "rate limited", "slow consumers",
                  "http requests", "storage errors", "redis", "file descriptors"):
        assert topic in text, f"no panel about {topic}"


@needs_promtool
def test_dashboard_queries_parse(tmp_path):
    """promtool parses PromQL only inside rules: each query becomes a recording rule of a throwaway file (JSON is YAML)."""
    exprs = dashboard_exprs()
    rules = [{"record": f"dashboard:query_{k}", "expr": grafana_expr(expr)} for k, (_, expr) in enumerate(exprs)]
    path = tmp_path / "dashboard.rules.json"
    path.write_text(json.dumps({"groups": [{"name": "dashboard", "rules": rules}]}))
    result = run(PROMTOOL, "check", "rules", str(path))
    assert result.returncode == 0, "\n".join(f"{where}: {expr}" for where, expr in exprs) + "\n" + result.stdout + result.stderr
    assert f"SUCCESS: {len(rules)} rules found" in result.stdout


# --------------------------------------------------------------------------
# The systemd unit
# --------------------------------------------------------------------------


def unit_settings() -> list[tuple[str, str]]:
    """(key, value) of every setting of the unit, continuation lines joined, in order."""
    out, pending = [], ""
    for line in UNIT.read_text().splitlines():
        if pending:
            line = pending + " " + line.strip()
            pending = ""
        if line.endswith("\\"):
            pending = line[:-1].rstrip()
            continue
        if not line.strip() or line.lstrip().startswith(("#", ";", "[")):
            continue
        key, _, value = line.partition("=")
        out.append((key.strip(), value.strip()))
    return out


def unit_values(key: str) -> list[str]:
    return [value for k, value in unit_settings() if k == key]


def test_unit_has_the_settings_the_deployment_relies_on():
    settings = dict(unit_settings())
    for key, value in (("DynamicUser", "yes"), ("StateDirectory", "tandem"), ("Restart", "on-failure"),
                       ("LoadCredential", "auth-secret:/etc/tandem/auth-secret"), ("ProtectSystem", "strict"),
                       ("ProtectHome", "yes"), ("PrivateTmp", "yes"), ("PrivateDevices", "yes"), ("NoNewPrivileges", "yes"),
                       ("MemoryDenyWriteExecute", "yes"), ("CapabilityBoundingSet", ""), ("KillSignal", "SIGTERM")):
        assert settings.get(key) == value, f"{key}={settings.get(key)!r}, expected {value!r}"
    assert "@system-service" in unit_values("SystemCallFilter")
    assert {"AF_INET", "AF_INET6", "AF_UNIX"} <= set(settings["RestrictAddressFamilies"].split())
    assert int(settings["LimitNOFILE"]) >= 16384
    command = shlex.split(settings["ExecStart"])
    for flag, value in (("--data", "/var/lib/tandem/tandem.db"), ("--web", "/usr/share/tandem/web"),
                        ("--auth-secret-file", "${CREDENTIALS_DIRECTORY}/auth-secret")):
        assert command[command.index(flag) + 1] == value, f"ExecStart {flag}"


@needs_systemd_analyze
def test_unit_passes_systemd_analyze_verify(tandem_binary, tmp_path):
    unit = tmp_path / UNIT.name
    text = UNIT.read_text()
    assert "ExecStart=/usr/local/bin/tandem " in text
    unit.write_text(text.replace("ExecStart=/usr/local/bin/tandem ", f"ExecStart={tandem_binary} "))
    result = run(SYSTEMD_ANALYZE, "verify", str(unit))
    output = result.stdout + result.stderr
    complaints = [line for line in output.splitlines() if UNIT.name in line or str(tmp_path) in line]
    assert result.returncode == 0 and not complaints, output
    # The sandbox as systemd rates it (0 = best, 100 = worst; --threshold is in tenths of the 0-10 scale).
    security = run(SYSTEMD_ANALYZE, "security", "--offline=yes", "--threshold=20", str(unit))
    if "--offline" in security.stderr and "unrecognized" in security.stderr:
        pytest.skip("this systemd-analyze has no `security --offline` (systemd 250+)")
    assert security.returncode == 0, security.stdout[-3000:] + security.stderr


# The unit's seccomp filters, emulated: the server execs under them from this
# wrapper, so that a system call, an address family or a writable-executable
# mapping the unit would refuse is refused here too.
SANDBOX = r'''#!{python}
import ctypes, json, os, resource, sys
config = json.load(open({config!r}))
lib = ctypes.CDLL(config["libseccomp"], use_errno=True)
lib.seccomp_init.restype = ctypes.c_void_p
lib.seccomp_init.argtypes = [ctypes.c_uint32]
lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]

class Cmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("a", ctypes.c_uint64), ("b", ctypes.c_uint64)]

lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint, ctypes.POINTER(Cmp)]
lib.seccomp_load.argtypes = [ctypes.c_void_p]
ALLOW, EQ, MASKED_EQ = 0x7FFF0000, 4, 7
def errno(n): return 0x00050000 | n
ctx = lib.seccomp_init(errno(config["errno"]))
def rule(action, name, *cmps):
    nr = lib.seccomp_syscall_resolve_name(name.encode())
    if nr < 0: return  # not a system call of this architecture
    array = (Cmp * max(1, len(cmps)))(*[Cmp(*c) for c in cmps])
    assert lib.seccomp_rule_add_array(ctx, action, nr, len(cmps), array) == 0, name
for name in config["allowed"]:
    rule(ALLOW, name)
for family in range(64):
    rule(ALLOW if family in config["families"] else errno(97), "socket", (0, EQ, family, 0))
PROT_WRITE, PROT_EXEC, SHM_EXEC = 2, 4, 0o100000
if config["mdwe"]:
    rule(ALLOW, "mmap", (2, MASKED_EQ, PROT_EXEC, 0))
    rule(ALLOW, "mmap", (2, MASKED_EQ, PROT_WRITE | PROT_EXEC, PROT_EXEC))
    rule(ALLOW, "mprotect", (2, MASKED_EQ, PROT_EXEC, 0))
    rule(ALLOW, "pkey_mprotect", (2, MASKED_EQ, PROT_EXEC, 0))
    rule(ALLOW, "shmat", (2, MASKED_EQ, SHM_EXEC, 0))
with __import__("contextlib").suppress(ValueError, OSError):
    resource.setrlimit(resource.RLIMIT_NOFILE, (config["nofile"], config["nofile"]))
assert lib.seccomp_load(ctx) == 0
os.execv(config["binary"], [config["binary"], *sys.argv[1:]])
'''

AF = {"AF_UNIX": 1, "AF_INET": 2, "AF_INET6": 10, "AF_NETLINK": 16}
MDWE_CALLS = {"mmap", "mprotect", "pkey_mprotect", "shmat", "socket"}


def syscall_groups() -> dict[str, list[str]]:
    """systemd's system call groups (`systemd-analyze syscall-filter`): @name → members."""
    groups: dict[str, list[str]] = {}
    current = None
    for line in run(SYSTEMD_ANALYZE, "syscall-filter").stdout.splitlines():
        if line.startswith("@"):
            current = groups.setdefault(line.strip(), [])
        elif line.strip() and not line.strip().startswith("#") and current is not None:
            current.append(line.strip())
    return groups


def unit_syscalls() -> set[str]:
    """The system calls the unit's SystemCallFilter= lines allow: the first lists
    them, each later one starting with ~ takes some away."""
    groups = syscall_groups()

    def expand(items: list[str]) -> set[str]:
        out: set[str] = set()
        for item in items:
            out |= expand(groups[item]) if item.startswith("@") else {item}
        return out

    allowed: set[str] = set()
    for value in unit_values("SystemCallFilter"):
        if value.startswith("~"):
            allowed -= expand(value[1:].split())
        else:
            allowed |= expand(value.split())
    return allowed


def mint(binary: Path, secret_file: Path, room: str, name: str) -> str:
    """An editor's token for `room`, made as an operator would: `tandem token`."""
    minted = run(str(binary), "token", "--auth-secret-file", str(secret_file), "--room", room,
                 "--role", "editor", "--name", name, "--ttl", "1h")
    assert minted.returncode == 0, minted.stderr
    return minted.stdout.strip()


@needs_systemd_analyze
@pytest.mark.skipif(ctypes.util.find_library("seccomp") is None, reason="libseccomp is not installed (Debian's libseccomp2)")
def test_server_runs_the_units_command_under_its_sandbox(tandem_binary, tmp_path):
    settings = dict(unit_settings())
    allowed = unit_syscalls()
    assert {"io_uring_setup", "epoll_wait", "sendmsg"} <= allowed
    families = [AF[name] for name in settings["RestrictAddressFamilies"].split()]
    config = tmp_path / "sandbox.json"
    config.write_text(json.dumps({
        "libseccomp": ctypes.util.find_library("seccomp"), "binary": str(tandem_binary),
        "allowed": sorted(allowed - MDWE_CALLS if settings.get("MemoryDenyWriteExecute") == "yes" else allowed - {"socket"}),
        "families": families, "mdwe": settings.get("MemoryDenyWriteExecute") == "yes",
        "errno": {"EPERM": 1}[settings["SystemCallErrorNumber"]], "nofile": int(settings["LimitNOFILE"]),
    }))
    wrapper = tmp_path / "tandem-sandboxed"
    wrapper.write_text(SANDBOX.replace("{python}", sys.executable).replace("{config!r}", repr(str(config))))
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)

    # The unit's ExecStart, its paths moved here and its port picked by the kernel.
    secret = b"a secret of the systemd unit test, over 32 bytes"
    (tmp_path / "credentials").mkdir()
    (tmp_path / "credentials" / "auth-secret").write_bytes(secret + b"\n")
    (tmp_path / "state").mkdir()
    command = shlex.split(settings["ExecStart"].replace("${CREDENTIALS_DIRECTORY}", str(tmp_path / "credentials")))
    args = [arg for arg in command[1:] if arg != "$TANDEM_ARGS"]
    replacements = {"/var/lib/tandem/tandem.db": str(tmp_path / "state" / "tandem.db"), "/usr/share/tandem/web": str(ROOT / "web"),
                    "0.0.0.0": "127.0.0.1"}
    args = [replacements.get(arg, arg) for arg in args]
    port = args.index("--port")
    del args[port:port + 2]  # TandemServer passes --port 0

    server = TandemServer(wrapper, args)
    try:
        assert "mode=token" in server.stderr_lines[0] or server.wait_for_log("mode=token")
        with open_websocket(server.ws_url("demo", token=mint(tandem_binary, tmp_path / "credentials" / "auth-secret", "demo", "Ann"))) as ws:
            member = Client(ws)
            seq = member.set("gain", 0.75)
            member.expect_ack(seq)  # committed to the SQLite file under the filters
        assert server.get("/").status == 200
        assert server.get("/healthz").status == 200
        metrics = server.metrics()
        assert metrics["process_max_fds"] == proc_limit(server.pid)  # LimitNOFILE where the hard limit allows it
        assert metrics["process_open_fds"] > 0
        assert (tmp_path / "state" / "tandem.db").exists()
    finally:
        rc = server.stop(signal.SIGTERM)
    assert rc == 0, "\n".join(server.stderr_lines[-20:])
    assert server.log_lines(r"^info stopped"), server.stderr_lines[-5:]
    errors = server.log_lines(r"^error ")
    assert not errors, errors


# --------------------------------------------------------------------------
# process_* metrics (Metrics+Process.swift)
# --------------------------------------------------------------------------


def proc_limit(pid: int) -> int:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            return int(line.split()[3])
    raise AssertionError("no Max open files in /proc/PID/limits")


def proc_rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def test_process_metrics_follow_the_process(start_server):
    before = time.time()
    server = start_server()
    metrics = server.metrics()
    assert metrics["process_max_fds"] == proc_limit(server.pid)
    assert 0 < metrics["process_resident_memory_bytes"] <= metrics["process_virtual_memory_bytes"]
    assert 0.5 < metrics["process_resident_memory_bytes"] / proc_rss(server.pid) < 2
    assert metrics["process_cpu_seconds_total"] > 0
    assert before - 60 < metrics["process_start_time_seconds"] <= time.time()
    # Every descriptor counts: 20 more connections, 20 more descriptors, then back.
    base = metrics["process_open_fds"]
    assert base > 3
    with contextlib.ExitStack() as stack:
        for k in range(20):
            Client(stack.enter_context(open_websocket(server.ws_url("demo", name=f"P{k}"))))
        server.wait_metric("tandem_connections", lambda n: n == 20)
        assert server.metrics()["process_open_fds"] >= base + 20
    server.wait_metric("tandem_connections", lambda n: n == 0)
    server.wait_metric("process_open_fds", lambda n: n <= base)
    cpu = server.metrics()["process_cpu_seconds_total"]
    assert cpu >= metrics["process_cpu_seconds_total"]
