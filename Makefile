# hostaware: the one way in. `make demo` runs the whole pipeline on the demo crawl; `make test`
# runs lint, pytest and a dbt build on the tiny crawl. Both create .venv from the lock first.

SHELL := /bin/bash
PYTHON_BOOTSTRAP ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
DBT := $(VENV)/bin/dbt
SEED ?= 20241010

export HOSTAWARE_HOME ?= $(CURDIR)/data
export DBT_SEND_ANONYMOUS_USAGE_STATS := false
export DBT_PROFILES_DIR := $(CURDIR)
export PYTHONHASHSEED := 0

# The tiny crawl that `make test` builds lives apart from the demo's data.
TEST_HOME := $(CURDIR)/build/test-home

.PHONY: demo test venv lint pytest synth-demo ingest build dbt-test-build clean

venv: $(VENV)/.installed

$(VENV)/.installed: requirements.txt
	$(PYTHON_BOOTSTRAP) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --no-deps -r requirements.txt
	touch $@

demo: venv synth-demo ingest build

synth-demo:
	$(PY) -m ingest synth --out $(HOSTAWARE_HOME)/raw --seed $(SEED) --scale demo --force

# Train the demo classifiers and ingest the WARC sample into the lake ($HOSTAWARE_HOME/lake).
ingest: venv
	$(PY) -m ingest train-demo-classifiers --raw $(HOSTAWARE_HOME)/raw
	$(PY) -m ingest documents --crawl CC-MAIN-2024-10 \
		--warc "$(HOSTAWARE_HOME)/raw/warc/CC-MAIN-2024-10/*.warc.gz"

build: venv
	$(DBT) build --quiet --target dev

test: venv lint pytest dbt-test-build

lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/sqlfluff lint models macros --templater jinja

pytest: venv
	$(PY) -m pytest -q

dbt-test-build: venv
	rm -rf $(TEST_HOME)
	$(PY) -m ingest synth --out $(TEST_HOME)/raw --seed $(SEED) --scale tiny
	$(MAKE) --no-print-directory ingest build HOSTAWARE_HOME=$(TEST_HOME) \
		WAREHOUSE_PATH=$(TEST_HOME)/warehouse.duckdb

clean:
	rm -rf build target logs
