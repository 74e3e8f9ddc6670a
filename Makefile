# Tandem — build, run and test.
#
#   make run    run the server on the embedded defaults (http://localhost:8080)
#   make test   run every test
#
# Both install what they need themselves: Debian packages (libwebsockets, libuv,
# docker-compose for checking the compose file) and a Python venv for the
# integration tests. Root runs apt-get directly; others go through sudo.

SWIFT    ?= swift
PYTHON   ?= python3
VENV     := .venv
APT_PKGS := libwebsockets-dev libuv1-dev pkg-config docker-compose
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
ARGS     ?=

.PHONY: all deps venv build release run test test-swift test-python check-compose clean

all: build

# Debian packages, installed only when missing.
deps:
	@missing=""; for p in $(APT_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

# The Python venv for the integration tests (websockets, pytest).
venv: $(VENV)/.installed
$(VENV)/.installed: tests/requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check -r tests/requirements.txt
	touch $@

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product tandem

run: release
	.build/release/tandem $(ARGS)

test: deps venv test-swift test-python check-compose

# Unit tests of the core and the wire, and Swift integration tests against the real server.
test-swift:
	$(SWIFT) build --product tandem
	$(SWIFT) test

# Integration tests from Python's websockets against the real server.
test-python: venv
	$(SWIFT) build --product tandem
	$(VENV)/bin/python -m pytest -q tests/integration

# No Docker engine runs on these machines: check the compose file parses and is valid.
check-compose:
	docker-compose -f docker-compose.yml config -q
	@echo "docker-compose.yml: valid"

clean:
	rm -rf .build $(VENV)
