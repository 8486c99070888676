# Refit — two commands set everything up on a fresh Debian machine with Python 3.11:
#   make run    the product on the embedded default (SQLite + in-memory channel layer)
#   make test   the whole suite on PostgreSQL + Redis and, at the same time, on the
#               embedded default
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
# Where the links in notice e-mails point (the console backend prints them under make run).
REFIT_BASE_URL ?= http://$(HOST):$(PORT)
PG_PORT ?= 5432
REDIS_PORT ?= 6390
TEST_DATABASE_URL ?= postgres://refit:refit@127.0.0.1:$(PG_PORT)/refit
TEST_REDIS_URL ?= redis://127.0.0.1:$(REDIS_PORT)/0
PYTEST_ARGS ?=
# Two test processes per run (the machine has 2 cores); make test runs the two backends'
# runs at once (below).  worksteal gives each process one half of the collected tests, in
# order, and a process that runs out takes tests from the end of the other's: both end
# together, and a file's tests mostly run in one process, where its walks are copied
# from the first one made; a walk made by one process is copied by the other too
# (var/walks/, tests/walk_cache.py).  Each process's test database is a copy of one
# migrated database (tests/conftest.py).  (The fault suite's xdist_group runs in a
# process of its own: no group needs loadgroup here.)
XDIST ?= -n 2 --dist worksteal
# The PostgreSQL + Redis run prints its slowest tests, so a CI log says where the time went.
DURATIONS ?= --durations=40 --durations-min=5
# Python caches each module's bytecode (__pycache__/, ignored by git).  A shell that
# sets PYTHONDONTWRITEBYTECODE (this machine's does; so do many CI images) made every
# test process, and every worker it starts, compile the project and the tests anew:
# collecting the suite took 8.1 s of CPU without the cache, 2.6 s with it.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run test test-real test-embedded services lint bench rules-doc clean

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $@

run: $(VENV)/.installed
	$(PY) manage.py migrate --noinput -v0
	$(PY) manage.py loadmodules
	@echo "Refit on http://$(HOST):$(PORT)/ (embedded default: SQLite + in-memory layer)"
	REFIT_BASE_URL=$(REFIT_BASE_URL) $(VENV)/bin/daphne -b $(HOST) -p $(PORT) config.asgi:application

# PostgreSQL's fsync: off for the suite's throw-away data (a target-specific value
# reaches the services prerequisite), on for the bench and by default.
PG_FSYNC ?= on
test: PG_FSYNC = off
services:
	REFIT_PG_PORT=$(PG_PORT) REFIT_REDIS_PORT=$(REDIS_PORT) REFIT_PG_FSYNC=$(PG_FSYNC) scripts/services.sh

# Everything at once, on the two cores: the static checks (mypy is one process on one
# core), the PostgreSQL + Redis run (its output shown as it runs, with the fault suite
# beside it) and the embedded run (its output printed once it ends).  Each run's tests
# wait in turn on PostgreSQL, Chromium, a live worker or a timer, and the other run's
# tests use the cores meanwhile.  The project's bytecode is compiled once first, not
# by each of the processes starting together, and the settings are read once (on a
# fresh clone that writes var/secret_key, which the processes would race to write).
test: $(VENV)/.installed services
	@start=$$(date +%s); status=0; mkdir -p var; \
	$(PY) -m compileall -q -j 2 campaign config rules tests bench manage.py > /dev/null; \
	$(PY) -c "import config.settings"; \
	$(MAKE) --no-print-directory lint > var/lint.log 2>&1 & lint=$$!; \
	$(MAKE) --no-print-directory test-embedded > var/embedded.log 2>&1 & embedded=$$!; \
	$(MAKE) --no-print-directory test-real || status=$$?; \
	wait $$embedded || status=$$?; echo "--- make test-embedded (beside the run above):"; \
	cat var/embedded.log; \
	wait $$lint || status=$$?; echo "--- make lint:"; cat var/lint.log; \
	echo "make test: $$(( $$(date +%s) - start )) s wall time (exit $$status)"; \
	exit $$status

# Static checks: style, types (mypy + django-stubs), the import contract (rules/ is a
# Django-free engine; campaign -> rules only) and models agreeing with migrations.
lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	$(PY) manage.py makemigrations --check --dry-run -v0

# The whole suite on the real servers.  The fault suite (marker "faults": it mostly
# waits for the outages it makes) runs in a process of its own beside the rest; its
# output is printed when it ends ("no tests ran", exit 5, when PYTEST_ARGS selects none).
REAL := DATABASE_URL=$(TEST_DATABASE_URL) REDIS_URL=$(TEST_REDIS_URL) REFIT_TEST_BACKEND=real
test-real: $(VENV)/.installed
	@mkdir -p var; status=0; \
	$(REAL) $(VENV)/bin/pytest -p no:cacheprovider -m faults $(PYTEST_ARGS) > var/faults.log 2>&1 & faults=$$!; \
	$(REAL) $(VENV)/bin/pytest $(XDIST) -m "not faults" $(DURATIONS) $(PYTEST_ARGS) || status=$$?; \
	wait $$faults; code=$$?; echo "--- the fault suite (PostgreSQL, Redis and workers of its own):"; \
	cat var/faults.log; [ $$code -eq 0 ] || [ $$code -eq 5 ] || status=$$code; \
	exit $$status

# Again on the embedded default (SQLite + in-memory layer, browsers included); tests
# that need PostgreSQL or Redis are left out, and so are the rules' data and mechanism
# tests (marker "rules": the backend only stores what they check), the tests of
# what a page says or how it fits (marker "presentation": the same HTML on both
# backends) and Hypothesis's random trials of a property whose scripted trials run
# here (marker "property"), and the checks made by a process of their own under an
# environment the test sets (marker "fresh_process", tests/conftest.py: settings, check
# --deploy, the compose file, the Caddyfile); they ran above.
EMBEDDED_MARKERS := not postgres and not redis and not rules and not presentation and not property \
	and not fresh_process
test-embedded: $(VENV)/.installed
	env -u DATABASE_URL -u REDIS_URL REFIT_TEST_BACKEND=embedded \
		$(VENV)/bin/pytest $(XDIST) -m "$(EMBEDDED_MARKERS)" $(PYTEST_ARGS)

# RULES.md: what Refit automates, records or leaves to the map, rule by rule, from
# rules/ledger/*.yaml and the modules (tests/test_rules_doc.py fails when it is stale).
rules-doc: $(VENV)/.installed
	$(PY) manage.py rulesdoc
	$(PY) manage.py moduleschema

# Benchmarks: print figures (README "Performance"): the echo floor, the reveal, server
# time and SQL queries per request, purchase throughput, peak RSS, the same at 10x the
# campaigns, and the reveal in two Chromium browsers.  In databases of their own
# (BENCH_DB, BENCH_DB_browser: never test_*) and Redis db BENCH_REDIS_DB.
# Compare servers: make bench BENCH_ARGS="--servers daphne,uvicorn --repeat 2"
BENCH_DB ?= bench_refit
BENCH_REDIS_DB ?= 1
BENCH_ARGS ?=
bench: $(VENV)/.installed services
	BENCH_PG=postgres://refit:refit@127.0.0.1:$(PG_PORT) BENCH_DB=$(BENCH_DB) \
		REDIS_URL=redis://127.0.0.1:$(REDIS_PORT)/$(BENCH_REDIS_DB) \
		$(PY) bench/run.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache
