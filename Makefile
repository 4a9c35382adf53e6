# solvelens: `make demo` runs the whole pipeline on the embedded sandbox; `make test` runs lint + the test suite
# without the `slow` tests; `make test-all` (what CI runs: .ci/run) runs lint + every test.
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install bytecode demo test test-slow test-all lint format benchmark clean

# uv when it installs and reaches its index (fast), else pip; uv's own errors go to $(VENV)/install.log, so a
# machine whose uv cannot reach its index prints one line before pip installs, not uv's error.
# UV_SYSTEM_CERTS=1: uv trusts the system's certificate store as pip does (its own bundled roots fail behind a
# TLS-inspecting proxy, e.g. on CI, which sent every install to pip: 3-4 minutes instead of ~1).
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	@if $(PY) -m pip install -q --disable-pip-version-check uv >$(VENV)/install.log 2>&1 \
	  && UV_SYSTEM_CERTS=1 $(VENV)/bin/uv pip install -q --compile-bytecode --python $(PY) -e '.[dev,notebooks]' \
	     >>$(VENV)/install.log 2>&1; then \
	  echo "installed with uv"; \
	else \
	  echo "uv could not install (see $(VENV)/install.log); installing with pip"; \
	  $(PY) -m pip install -q --disable-pip-version-check -e '.[dev,notebooks]'; \
	fi
	# JupyterLab started from this venv may run as root (containers, CI): the README's notebook line works
	# there without --allow-root (the venv's own Jupyter config; nothing outside .venv).
	mkdir -p $(VENV)/etc/jupyter
	echo '{"ServerApp": {"allow_root": true}}' > $(VENV)/etc/jupyter/jupyter_server_config.json
	# Bytecode for our own sources too: with PYTHONDONTWRITEBYTECODE set (CI, containers) every command
	# would otherwise compile ~600 modules at start (~1 s per process).
	$(PY) -m compileall -q src >/dev/null
	touch $(STAMP)

install: $(STAMP) ## create .venv and install solvelens with its dev and notebook extras

# With PYTHONDONTWRITEBYTECODE set nothing writes bytecode after the install, so every source changed since (a
# merge, a pull) is compiled again by every process that imports it (each test's subprocess, each benchmark
# run): compile what changed (up-to-date files are skipped).
bytecode: install ## byte-compile the sources changed since the install
	$(PY) -m compileall -q src >/dev/null

demo: install ## sandbox + 30 simulated days + one snapshot a day + the leaderboard history report
	$(VENV)/bin/solvelens demo

lint: install ## ruff (lint and format check), mypy on src/, and the layer contracts (import-linter)
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/ruff format --check src tests benchmarks
	$(VENV)/bin/mypy src
	$(VENV)/bin/lint-imports --no-cache

format: install
	$(VENV)/bin/ruff check --fix src tests benchmarks
	$(VENV)/bin/ruff format src tests benchmarks

# Three xdist workers for the suite on a 2-core machine (pyproject's addopts say 2, kept for `make test-slow`
# and a bare pytest): a fifth of the two workers' time in tests is spent waiting (a platform's latency, a
# quota window, a retry's back-off, a subprocess, Chromium), a core idle meanwhile; a third worker runs
# another group then. TEST_WORKERS=2 gives the former run.
TEST_WORKERS ?= 3

# `slow` tests (pytest marker): a Prefect server or worker of their own, the schedule, the benchmarks' quick
# runs, schemathesis, the 2,000-task run, the arena against a sandbox's hidden skills. `make test` leaves them
# out; `make test-all` and CI run them.
test: lint bytecode ## lint, then the suite without the `slow` tests: the command to run before a commit
	$(VENV)/bin/pytest -m "not slow" -n $(TEST_WORKERS)

test-slow: bytecode ## only the `slow` tests (a Prefect server or worker of their own, the benchmarks)
	$(VENV)/bin/pytest -m slow

test-all: test test-slow ## lint, then every test, `slow` ones included: what CI runs (.ci/run: make test, then make test-slow)

benchmark: install
	$(PY) benchmarks/snapshot.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
