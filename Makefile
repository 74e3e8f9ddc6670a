# Tandem — build, run and test.
#
#   make run    run the server on the embedded defaults (http://localhost:8080)
#   make test   run every test
#   make check  the build and the pure unit suites (no servers, browsers or fuzzing): the fast loop
#   make deps   the Debian packages to build and run (make run and make test install theirs)
#   make bench  the scenarios S1-S6 against tandem and the peers (bench/README.md)
#   make fuzz   each libFuzzer target for FUZZ_SECONDS (docs/security.md#fuzzing)
#   make autobahn  the Autobahn|Testsuite against the echo endpoint (docs/security.md)
#   make cluster  Redis, NODES tandem nodes and HAProxy on http://localhost:CLUSTER_PORT
#                 (docs/operations.md#running-a-cluster)
#
# Both install what they need themselves: Debian packages (libwebsockets and
# libuv to build; for the tests also Chromium and its driver, docker-compose to
# check the compose file, and Node when missing) and a Python venv for the
# integration and browser tests. Root runs apt-get directly; others use sudo.

SWIFT    ?= swift
PYTHON   ?= python3
VENV     := .venv
RUN_PKGS  := libwebsockets-dev libuv1-dev liburing-dev libsqlite3-dev libssl-dev pkg-config
TEST_PKGS := docker-compose chromium chromium-driver strace $(if $(shell command -v node),,nodejs)
# The JavaScript client's WebSocket on Node 20 (Node 22 has a global one).
TEST_PKGS += node-ws

# Cluster mode (--redis): hiredis to build; Redis and HAProxy for its tests and `make cluster`.
RUN_PKGS  += libhiredis-dev
TEST_PKGS += redis-server haproxy
CLUSTER_PKGS := redis-server haproxy
# The robustness suite (pytests/robustness/): Sentinel for failovers, libfaketime for clock jumps.
TEST_PKGS += faketime redis-sentinel
# The operations kit (deploy/): promtool checks the alert and recording rules and the live /metrics.
TEST_PKGS += prometheus
# systemd-analyze and libseccomp: the systemd unit's checks (pytests/integration/test_deploy.py).
TEST_PKGS += systemd libseccomp2
# The OSC bridge (--osc-send, --osc-listen): liblo to build; its oscsend/oscdump to try it (docs/osc.md).
RUN_PKGS  += liblo-dev
TEST_PKGS += liblo-tools
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
ARGS     ?=

.PHONY: all deps test-deps venv build release run check test test-swift test-web test-python test-cluster-protocol test-client-python test-client-js test-e2e check-compose clean bench robustness test-robustness autobahn fuzz fuzz-build test-fuzz cluster bench-cluster bench-osc bench-series

all: build

# Debian packages, installed only when missing: `deps` to build and run, `test-deps` to test.
define apt-install
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
endef

deps:
	$(call apt-install,$(RUN_PKGS))

test-deps:
	$(call apt-install,$(RUN_PKGS) $(TEST_PKGS))

# The Python venv for the integration tests (websockets, pytest).
venv: $(VENV)/.installed
$(VENV)/.installed: pytests/requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check -r pytests/requirements.txt
	touch $@

# `build` and `release` only build: on a fresh machine run `make deps` once first
# (`make run` and `make test` do it themselves).
build:
	$(SWIFT) build

release:
	$(SWIFT) build -c release --product tandem

run: deps release
	.build/release/tandem $(ARGS)

# Redis (AOF on), NODES tandem nodes on CLUSTER_PORT+1.. and HAProxy on
# CLUSTER_PORT, all on this machine from Debian's packages (scripts/cluster.py);
# Ctrl-C stops them. Data and logs in data/cluster/. Flags for every node:
# make cluster CLUSTER_ARGS="-- --auth-secret-file secrets/tandem_auth_secret".
NODES        ?= 3
CLUSTER_PORT ?= 8080
CLUSTER_ARGS ?=
cluster: deps release
	$(call apt-install,$(CLUSTER_PKGS))
	$(PYTHON) scripts/cluster.py --nodes $(NODES) --port $(CLUSTER_PORT) --binary .build/release/tandem $(CLUSTER_ARGS)

# The fast loop: the build, the pure Swift unit suites (no server process, Redis,
# browser or fuzzer; SQLite files in a temporary folder are fine) and the browser's
# JavaScript unit tests. Which Swift suites start servers: CHECK_SKIP.
CHECK_SKIP := TandemClientTests|TandemRedisTests|TandemServerTests\.(CloseCodeTests|FragmentationTests|HTTPTests|RejectTests|ShutdownTests|SlowReaderTests|TwoClientDragTests|WelcomeTests)/
check:
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --skip '$(CHECK_SKIP)'
	node --test web/test/

test: test-deps venv test-swift test-web test-python test-cluster-protocol test-client-python test-client-js test-e2e check-compose test-fuzz test-robustness

# The robustness suite (pytests/robustness/, root only: network namespaces, iptables):
# Redis (with replicas and Sentinels if asked) and three Tandem nodes on hosts of their own, a
# workload of writers and readers, a seeded schedule of faults (kills, pauses,
# partitions, Redis kills, failovers, clock jumps, slow links), then the checker.
# A run with a violation keeps its folder in robustness-runs/ and exits 1.
# Options: make robustness SEED=7 MINUTES=30 ARGS="--sentinel --kinds kill-owner,failover".
SEED    ?= 1
MINUTES ?= 10
robustness: test-deps venv
	$(SWIFT) build --product tandem
	$(VENV)/bin/python -m pytests.robustness.run --seed $(SEED) --minutes $(MINUTES) $(ARGS)

# Part of `make test`: the hosts, the partition scenario and a short seeded run
# (skipped when not root or without ip netns).
test-robustness: venv
	$(SWIFT) build --product tandem
	$(VENV)/bin/python -m pytest -q pytests/robustness

# Unit tests of the core and the wire, and Swift integration tests against the
# real server: plain `swift test`, every suite in one process.
test-swift:
	$(SWIFT) build --product tandem
	$(SWIFT) test

# The browser's math against the shared vectors, and its protocol logic.
test-web:
	node --test web/test/

# The JavaScript client (clients/js) against the real server: the conformance
# scenarios of clients/conformance/scenarios.md, one file each.
test-client-js:
	$(call apt-install,node-ws $(if $(shell command -v node),,nodejs))
	$(SWIFT) build --product tandem
	node --test clients/js/test/*.test.mjs

# Integration tests from Python's websockets against the real server.
test-python: venv
	$(SWIFT) build --product tandem
	$(SWIFT) build --product tandem-bench
	$(VENV)/bin/python -m pytest -q pytests/integration

# The protocol tests again, each against the second node of a two-node cluster
# on a Redis of its own whose first node owns the demo room, so that every
# message goes through the relay (docs/scale-out.md, "Testing"). Not here: SQLite
# storage, a server with --data :memory:, and --event-loop poll (a cluster needs uv).
CLUSTER_PROTOCOL_TESTS := messages rejects presence welcome undo control_kinds fanout disconnect \
	close_codes auth rate_limit slow_reader keepalive room_limits rooms_admin http logs origins ws_edges \
	abuse_replay http_hardening lobby_api tls presets timeline room_scope reset claims focus batch_notes claim_break_auth
test-cluster-protocol: venv
	$(SWIFT) build --product tandem
	TANDEM_TEST_CLUSTER=1 $(VENV)/bin/python -m pytest -q -k "not poll and not memory_server" \
		$(foreach t,$(CLUSTER_PROTOCOL_TESTS),pytests/integration/test_$(t).py)

# The Python client (clients/python): installed into a venv of its own as a user
# would install it (not editable), then its tests, the shared conformance
# scenarios, against the real server.
CLIENT_PY_VENV := clients/python/.venv
test-client-python:
	$(SWIFT) build --product tandem
	$(PYTHON) -m venv $(CLIENT_PY_VENV)
	$(CLIENT_PY_VENV)/bin/pip install -q --disable-pip-version-check ./clients/python pytest==9.2.0
	$(CLIENT_PY_VENV)/bin/python -m pytest -q clients/python/tests

# Two real browsers (headless Chromium via Selenium) against the real server;
# screenshots land in test-output/e2e/.
test-e2e: venv
	$(SWIFT) build --product tandem
	$(VENV)/bin/python -m pytest -q pytests/e2e

# The Autobahn|Testsuite's fuzzing client (cases 1-7, 9, 10) against `tandem
# --echo-path /echo`; fails unless every case is OK, NON-STRICT or
# INFORMATIONAL. Not part of `make test`: it needs Python 2.7 (a throw-away
# virtualenv in .autobahn/) and takes minutes. Reports: autobahn/reports/.
autobahn:
	$(SWIFT) build --product tandem
	$(PYTHON) autobahn/run.py

# No Docker engine runs on these machines: check the compose file parses and is valid.
check-compose:
	docker-compose -f docker-compose.yml config -q
	@echo "docker-compose.yml: valid"

# The standard scenarios side by side against tandem and, when ../shared/bench/peers
# exists, its peers (Node's ws: Debian node-ws; Python's websockets: the venv);
# medians and ratios into docs/benchmarks.md. Options: make bench ARGS="--quick --only S1".
bench: deps venv
	$(call apt-install,$(if $(wildcard ../shared/bench/peers/node_ws),node-ws $(if $(shell command -v node),,nodejs)))
	$(SWIFT) build -c release --product tandem
	$(SWIFT) build -c release --product tandem-bench
	$(VENV)/bin/python bench/run.py $(ARGS)

# Scale-out: the relay hop (S2h against one cluster node, then two) and
# failover (the owner SIGKILLed 20 times: gaps, commits lost), against a real Redis;
# not part of `make test`. See bench/README.md. Options: make bench-cluster ARGS="--quick".
bench-cluster: deps
	$(call apt-install,redis-server)
	$(SWIFT) build -c release --product tandem
	$(SWIFT) build -c release --product tandem-bench
	$(PYTHON) bench/cluster.py --out bench/results/cluster $(ARGS)

# OSC bridge: latency from a WebSocket commit to its OSC datagram, idle and
# at S2h's load, with --data :memory: and with SQLite; not part of `make test`. See
# bench/README.md. Options: make bench-osc ARGS="--quick".
bench-osc: deps
	$(SWIFT) build -c release --product tandem
	$(SWIFT) build -c release --product tandem-bench
	$(PYTHON) bench/osc.py --out bench/results/osc $(ARGS)

# Series: gauge publishes per second into series with S2h's fan-out running,
# and a series' bytes per control per day; not part of `make test`. See
# docs/benchmarks.md ("Series"). Options: make bench-series ARGS="--quick".
bench-series: deps venv
	$(SWIFT) build -c release --product tandem
	$(SWIFT) build -c release --product tandem-bench
	$(VENV)/bin/python bench/series.py --out bench/results/series $(ARGS)

# libFuzzer targets (fuzz/), built by fuzz/build.sh into .build/fuzz/ with
# swiftc -sanitize=fuzzer,address, outside SwiftPM. `make fuzz` runs each for
# FUZZ_SECONDS; `test-fuzz` (part of `make test`) runs each for a short smoke.
# A crash fails the run and leaves the input in test-output/fuzz/; new corpus
# inputs go to .build/fuzz/corpus/, not into git. See docs/security.md#fuzzing.
FUZZ_TARGETS       := MessageDecoder SchemaDecoder RoomEngine RelayCodec OSCPacket
FUZZ_SECONDS       ?= 300
FUZZ_SMOKE_SECONDS ?= 25

fuzz-build:
	fuzz/build.sh $(FUZZ_TARGETS)

fuzz: fuzz-build
	@status=0; for t in $(FUZZ_TARGETS); do fuzz/run.sh $$t $(FUZZ_SECONDS) || status=1; done; exit $$status

test-fuzz: fuzz-build
	@status=0; for t in $(FUZZ_TARGETS); do fuzz/run.sh $$t $(FUZZ_SMOKE_SECONDS) || status=1; done; exit $$status

clean:
	rm -rf .build $(VENV) $(CLIENT_PY_VENV)
