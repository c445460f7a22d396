# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
# Everything runs offline: models ship as PyPI packages, never fetched from a hub.
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: install install-test run test ui bench fuzz clean

$(PY):
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "need $(PYTHON) (Python 3.11)"; exit 1; }
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

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

run: install
	$(VENV)/bin/evalset build

test: install-test
	$(PY) -m pytest -q -p no:cacheprovider $(PYTEST_ARGS)

ui: install
	mkdir -p data/dagster_home
	DAGSTER_HOME=$(CURDIR)/data/dagster_home $(VENV)/bin/dagster dev -w workspace.yaml -h 127.0.0.1

bench: install-test
	$(PY) -m benchmarks $(BENCH)

clean:
	rm -rf data/artifacts data/golden data/cache data/*.duckdb
