# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
# Everything runs offline: models ship as PyPI packages, never fetched from a hub.
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: install install-test lint browser run test test-fast ui bench fuzz clean

$(PY):
	@test -n "$(PYTHON)" || { echo "need Python 3.11 (python3.11 or python3 on PATH)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# torch first and pinned: an unpinned torch pulls a multi-GB CUDA build.
$(VENV)/.installed: pyproject.toml | $(PY)
	$(PIP) install --quiet torch==2.13.0
	$(PIP) install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml $(VENV)/.installed
	$(PIP) install --quiet -e '.[test]'
	touch $@

# vidore-benchmark 5.0.0 pins mteb<1.17, which cannot share an environment with the test extra's
# mteb 2.x: it gets its own, with the same torch pin (the export test runs it as a subprocess).
VIDORE_VENV := .venv-vidore
VIDORE_REQS := evalset_pipeline_tests/support/vidore-requirements.txt

$(VIDORE_VENV)/.installed: $(VIDORE_REQS)
	@test -n "$(PYTHON)" || { echo "need Python 3.11 (python3.11 or python3 on PATH)"; exit 1; }
	$(PYTHON) -m venv $(VIDORE_VENV)
	$(VIDORE_VENV)/bin/pip install --quiet torch==2.13.0
	$(VIDORE_VENV)/bin/pip install --quiet -r $(VIDORE_REQS)
	touch $@

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test $(VIDORE_VENV)/.installed

# Code health (first in CI; .pre-commit-config.yaml runs the same commands): style, types on core
# and the Dagster resources/checks, layer contracts (pyproject [tool.importlinter]), repeated blocks.
LINT_PATHS := evalset_pipeline evalset_pipeline_tests benchmarks
lint: $(VENV)/.installed-test
	$(VENV)/bin/ruff check $(LINT_PATHS)
	$(VENV)/bin/ruff format --check $(LINT_PATHS)
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	$(PY) -m benchmarks.duplicates

run: install
	$(VENV)/bin/evalset build

# The browser tests need Chromium and chromedriver. In CI (CI=true) they fail without them, so
# `.ci/run` installs them first (Debian/Ubuntu, as root); elsewhere they skip and say why.
browser:
	@{ command -v chromium || command -v chromium-browser; } >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1 || \
		{ apt-get update -qq && apt-get install -y -qq chromium chromium-driver; }

# Tiers (pyproject markers, assigned in evalset_pipeline_tests/conftest.py): `make test` is every
# tier (CI); `make test-fast` the unit tier only, the inner loop (no build, subprocess or browser).
test: install-test
	$(PY) -m pytest -q -p no:cacheprovider $(PYTEST_ARGS)

# The unit tier needs no second venv (vidore-benchmark runs in the e2e tier).
test-fast: $(VENV)/.installed-test
	$(PY) -m pytest -q -p no:cacheprovider -m unit $(PYTEST_ARGS)

# Runs, schedules, sensor cursors and history persist in the data directory's dagster_home
# (data/dagster_home, git-ignored), the same instance `evalset build` records into; its
# dagster.yaml comes from deploy/dagster.yaml (queued runs, vlm_endpoint pool, run monitoring).
DATA_DIR := $(abspath $(or $(EVALSET_DATA_DIR),$(CURDIR)/data))
DAGSTER_HOME_DIR := $(DATA_DIR)/dagster_home
UI_PORT ?= 3000

$(DAGSTER_HOME_DIR)/dagster.yaml: deploy/dagster.yaml
	mkdir -p $(DAGSTER_HOME_DIR)
	cp -n deploy/dagster.yaml $@ || true

# exec: `dagster dev` replaces the recipe's shell, so Ctrl-C reaches it alone and it stops its
# webserver, daemon and code servers before make returns (no "Interrupt" error, no orphans).
ui: install $(DAGSTER_HOME_DIR)/dagster.yaml
	@exec env DAGSTER_HOME=$(DAGSTER_HOME_DIR) EVALSET_DATA_DIR=$(DATA_DIR) $(VENV)/bin/dagster dev -w workspace.yaml -h 127.0.0.1 -p $(UI_PORT)

bench: install-test
	$(PY) -m benchmarks $(BENCH)

# Fuzz PDF ingest + render with mutated PDFs for FUZZ_SECONDS (default 300); failing inputs land
# in data/artifacts/fuzz-crashes/. FUZZ_ARGS=--atheris drives it with atheris/libFuzzer (pip install atheris).
fuzz: install-test
	$(PY) -m evalset_pipeline_tests.fuzz.fuzz_ingest --seconds $(or $(FUZZ_SECONDS),300) $(FUZZ_ARGS)

clean:
	rm -rf data/artifacts data/golden data/cache data/*.duckdb
