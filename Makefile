# hostaware: the one way in. `make demo` runs the whole pipeline on the demo crawl; `make test`
# runs lint, pytest, a dbt build on the tiny crawl and the reference checks of its marts, then
# the same build on Spark checked against DuckDB's. Both create .venv from the lock first
# (`make spark-test` also .venv-spark, dbt-spark's own environment).

SHELL := /bin/bash
PYTHON_BOOTSTRAP ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
DBT := $(VENV)/bin/dbt
# dbt-spark and pyspark (~400MB) live apart, so that the DuckDB path stays light
VENV_SPARK := .venv-spark
SEED ?= 20241010

export HOSTAWARE_HOME ?= $(CURDIR)/data
export DBT_SEND_ANONYMOUS_USAGE_STATS := false
export DBT_PROFILES_DIR := $(CURDIR)
export PYTHONHASHSEED := 0

RAW = $(HOSTAWARE_HOME)/raw

# The tiny crawl that `make test` builds lives apart from the demo's data.
TEST_HOME := $(CURDIR)/build/test-home

.PHONY: demo test venv lint pytest synth-demo ingest ingest-tables paper-lake build update demo-check dbt-test-build warehouse-test clean \
	spark-venv spark-build spark-test

venv: $(VENV)/.installed

$(VENV)/.installed: requirements.txt
	$(PYTHON_BOOTSTRAP) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --no-deps -r requirements.txt
	touch $@

$(VENV_SPARK)/.installed: requirements-spark.txt
	$(PYTHON_BOOTSTRAP) -m venv $(VENV_SPARK)
	$(VENV_SPARK)/bin/python -m pip install --quiet --upgrade pip
	$(VENV_SPARK)/bin/python -m pip install --quiet --no-deps -r requirements-spark.txt
	touch $@

spark-venv: $(VENV_SPARK)/.installed

demo: venv synth-demo ingest build demo-check report exports

# A new demo crawl replaces the old one, and the lake and warehouse built from it.
synth-demo:
	$(PY) -m demo crawl --out $(RAW) --seed $(SEED) --scale demo --force
	rm -rf $(HOSTAWARE_HOME)/lake $(HOSTAWARE_HOME)/warehouse.duckdb

# Train the demo classifiers, then ingest everything the crawl folder holds into the lake
# ($HOSTAWARE_HOME/lake): the WARC sample, each graph release, the host index, the annotations.
ingest: venv
	$(PY) -m demo classifiers --raw $(RAW)
	$(PY) -m ingest documents --crawl CC-MAIN-2024-10 \
		--warc "$(RAW)/warc/CC-MAIN-2024-10/*.warc.gz"
	$(MAKE) --no-print-directory ingest-tables

# The inputs beside the WARC sample: each graph release (its ranks, and its vertices and edges
# where the crawl has them: the paper-scale synth writes ranks only), the host index, the
# annotations.
ingest-tables: venv
	for folder in $(RAW)/webgraph/*/; do \
		release=$$(basename $$folder); \
		graph=(--ranks $$folder$$release-host-ranks.txt.gz); \
		if compgen -G "$$folder$$release-host-vertices*.txt.gz" >/dev/null; then \
			graph+=(--vertices "$$folder$$release-host-vertices*.txt.gz" \
				--edges "$$folder$$release-host-edges*.txt.gz"); \
		fi; \
		$(PY) -m ingest graph --release $$release "$${graph[@]}" || exit 1; \
	done
	$(PY) -m ingest host-index --path $(RAW)/host-index
	$(PY) -m ingest annotations --path $(RAW)/gneissweb-annotations

# The paper-scale lake the benchmarks read (bench/bench_marts_*.py, bench/bench_spark.py): the
# synth `paper` crawl (its classified sample written straight to the lake, no WARC text), then
# its graph releases, host index and annotations; ~8 minutes and ~6 GB on two cores.
PAPER_HOME ?= $(CURDIR)/build/paper-home
paper-lake: venv
	rm -rf $(PAPER_HOME)
	$(PY) -m demo crawl --out $(PAPER_HOME)/raw --seed $(SEED) --scale paper
	$(MAKE) --no-print-directory ingest-tables HOSTAWARE_HOME=$(PAPER_HOME)

# The crawl plan is exported (dbt's external materialization) into $(HOSTAWARE_HOME)/exports
# (the build makes the folder). DBT_VARS names another crawl and release:
# make build DBT_VARS='{sample_crawl: CC-MAIN-2023-50, graph_release: cc-main-2023-may-sep-nov}'
DBT_VARS ?=
build: venv
	$(DBT) build --quiet --target dev $(if $(DBT_VARS),--vars "$(DBT_VARS)")

# A new crawl, graph release or annotation batch: ingest what is new under $(RAW) (each ingest
# skips the inputs it has committed), then build only what the changed lake tables feed
# (update/). UPDATE_ARGS: --dry-run, --full-refresh, or dbt's own after `--`.
UPDATE_ARGS ?=
update: venv ingest-tables
	$(PY) -m update $(UPDATE_ARGS)
# The demo's planted parameters against what the warehouse recovered (prints both).
demo-check: venv
	$(PY) -m pytest -q -s -m demo tests/demo/test_demo_planted_truth.py

# The report: figures and one self-contained HTML page from the marts, into
# $(HOSTAWARE_HOME)/report; prints the paper's headline numbers beside the warehouse's.
# Phony: the report/ package folder would otherwise count as the target, always up to date.
.PHONY: report
report: venv
	$(PY) -m report

# The crawl plan in every crawler's format (docs/exports.md), into $(HOSTAWARE_HOME)/exports;
# prints each file written.
.PHONY: exports
exports: venv
	$(PY) -m plan export --format all

test: venv browser lint pytest dbt-test-build warehouse-test spark-test

lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/sqlfluff lint models macros tests/singular --templater jinja

pytest: venv
	$(PY) -m pytest -q -m "not warehouse and not demo and not spark"

dbt-test-build: venv
	rm -rf $(TEST_HOME)
	$(PY) -m demo crawl --out $(TEST_HOME)/raw --seed $(SEED) --scale tiny
	$(MAKE) --no-print-directory ingest build HOSTAWARE_HOME=$(TEST_HOME) \
		WAREHOUSE_PATH=$(TEST_HOME)/warehouse.duckdb

# Reference checks of the marts against scipy/pandas on the warehouse dbt-test-build made.
warehouse-test: venv
	HOSTAWARE_TEST_WAREHOUSE=$(TEST_HOME)/warehouse.duckdb $(PY) -m pytest -q -m warehouse

# The lake under $(HOSTAWARE_HOME) built on Spark (dbt-spark's session method, local[2] unless
# HOSTAWARE_SPARK_MASTER says otherwise) into the Spark warehouse folder SPARK_WAREHOUSE: its
# own target/ and logs/ folders, so that it never disturbs the DuckDB build's.
SPARK_WAREHOUSE ?= $(HOSTAWARE_HOME)/spark-warehouse
SPARK_CONF_DIR ?= $(CURDIR)/spark-conf
SPARK_DBT = HOSTAWARE_SPARK_WAREHOUSE=$(SPARK_WAREHOUSE) SPARK_CONF_DIR=$(SPARK_CONF_DIR) \
	$(VENV_SPARK)/bin/dbt
SPARK_DBT_FLAGS = --target spark --target-path target/spark --log-path logs/spark --quiet
spark-build: spark-venv
	$(SPARK_DBT) build $(SPARK_DBT_FLAGS) $(SPARK_BUILD_ARGS)

# The tiny crawl (dbt-test-build's lake) built again on Spark, from an empty Spark warehouse;
# every mart's rows are then compared with the DuckDB warehouse's (numbers to 1e-9). Unit
# tests run on DuckDB only: they pin SQL logic the two engines share.
# Then the per-crawl models are built again as `python -m update` builds them after one
# crawl changed (macros/partitions.sql): its partition dropped and its rows appended, and
# rpt_coverage_quality_correlation, left out of the var, emptied and refilled whole; their
# data tests run, and the comparison holds after it.
SPARK_TEST_WAREHOUSE := $(CURDIR)/build/spark-test-warehouse
SPARK_UPDATED := [CC-MAIN-2023-50]
SPARK_UPDATE_VARS := {update_partitions: {int_host_crawl_annotations: $(SPARK_UPDATED), \
	fct_host_crawls: $(SPARK_UPDATED), rpt_hidden_gems: $(SPARK_UPDATED), \
	rpt_missed_hq_by_tld: $(SPARK_UPDATED), rpt_uncrawled_hq_by_coverage_band: $(SPARK_UPDATED), \
	rpt_uncrawled_hq_summary: $(SPARK_UPDATED)}}
spark-test: venv spark-venv
	rm -rf $(SPARK_TEST_WAREHOUSE)
	$(MAKE) --no-print-directory spark-build HOSTAWARE_HOME=$(TEST_HOME) \
		SPARK_WAREHOUSE=$(SPARK_TEST_WAREHOUSE) SPARK_BUILD_ARGS="--exclude-resource-type unit_test"
	$(MAKE) --no-print-directory spark-build HOSTAWARE_HOME=$(TEST_HOME) \
		SPARK_WAREHOUSE=$(SPARK_TEST_WAREHOUSE) SPARK_BUILD_ARGS="--exclude-resource-type unit_test \
		--select config.materialized:incremental --vars '$(SPARK_UPDATE_VARS)'"
	HOSTAWARE_TEST_WAREHOUSE=$(TEST_HOME)/warehouse.duckdb \
		HOSTAWARE_SPARK_TABLES=$(SPARK_TEST_WAREHOUSE)/hostaware.db \
		$(PY) -m pytest -q -m spark tests/warehouse/test_spark_matches_duckdb.py

# Debian's Chromium for the report's browser test (tests/report/test_report_browser.py drives it with
# playwright; never `playwright install`). Installed when missing, as root or through sudo.
CHROMIUM := /usr/bin/chromium
.PHONY: browser
browser:
	@if [ -x $(CHROMIUM) ]; then echo "$(CHROMIUM) is installed"; exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then sudo=; \
	elif command -v sudo >/dev/null; then sudo=sudo; \
	else echo "$(CHROMIUM) is missing: install Debian's chromium package as root" >&2; exit 1; fi; \
	install="$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium"; \
	$$install || { $$sudo apt-get update && $$install; }; \
	test -x $(CHROMIUM)

clean:
	rm -rf build target logs
