# The two commands: `make run` and `make test`. Both do all set-up themselves.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
# Debian packages. `make run` only tries Freecell Solver's library, for faster
# FreeCell hints, and goes on without it. `make test` needs Chromium and
# PostgreSQL for the browser and database tests, CJK fonts so that the
# browser suite's screenshots show the Chinese texts, fc-solve as a
# reference, and a C compiler to build the compiled solvers
# (scripts/build_native.py).
RUN_DEBS := libfreecell-solver0
TEST_DEBS := libfreecell-solver0 freecell-solver-bin chromium postgresql fonts-noto-cjk gcc
# what the tests use beyond the site: every extra
TEST_EXTRAS := test,native,postgres,survey
# the suite's worker processes (pytest-xdist); the browser tests keep to one
TEST_WORKERS ?= 2

.PHONY: run test install install-test native lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# the site alone: what serving the SQLite default needs
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[$(TEST_EXTRAS)]'
	touch $@

$(VENV)/.installed-native: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[native]'
	touch $@

install: $(VENV)/.installed
	@bash scripts/debs.sh --optional $(RUN_DEBS)
	@$(BIN)/python -m jielong.web.services.runtime

# the Klondike and FreeCell solvers compiled with mypyc (scripts/build_native.py):
# several times faster; without a compiler both run as plain Python
native: $(VENV)/.installed-native
	@bash scripts/debs.sh --optional gcc
	@$(BIN)/python scripts/build_native.py

install-test: $(VENV)/.installed-test
	@bash scripts/debs.sh $(TEST_DEBS)
	@$(BIN)/python -m jielong.web.services.runtime --require
	@$(BIN)/python scripts/build_native.py

run: install
	$(BIN)/jielong serve --host $(HOST) --port $(PORT)

lint: install-test
	$(BIN)/ruff check jielong tests bench
	$(BIN)/ruff format --check jielong tests bench scripts
	$(BIN)/mypy

test: lint
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadgroup --durations=20 $(PYTEST_ARGS)
	$(BIN)/python bench/run_all.py --smoke

bench: install-test
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache artifacts jielong/web/runtime jielong/engine/solve/searches/_native_*
