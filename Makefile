# Tandem — build, run and test.
#
#   make run    run the server on the embedded defaults
#   make test   run every test
#
# Everything a target needs it installs itself (Debian packages, a Python venv),
# so both work on a fresh Debian machine with the Swift toolchain.

SWIFT ?= swift

.PHONY: all build run test test-core clean

all: build

build:
	$(SWIFT) build

run:
	@echo "make run: the tandem server arrives with issue 3; today the project is the core library (make test)." >&2
	@exit 1

test: test-core

# The core: control math against the shared vectors, sweeps, the room engine,
# conflation, and the seeded property test.
test-core:
	$(SWIFT) test

clean:
	rm -rf .build
