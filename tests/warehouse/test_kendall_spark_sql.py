"""Spark's Kendall model (SQL, merge-sort inversion counts) equals scipy, run here on DuckDB.

``models/intermediate/centrality/spark/int_centrality_quality_kendall_spark.sql`` and the table of
weighted hosts it reads (``int_centrality_quality_hosts_weighted.sql`` beside it, its discordance
step in ``steps/``, and the names of the groups from ``int_centrality_quality_pair_groups``)
are built on
Spark only (on DuckDB the dbt Python model computes the same statistics). Their SQL goes
through the project's dialect macros, so rendered with their DuckDB (``default__``) side it runs
on DuckDB too: here both are rendered with plain Jinja (``ref`` names a table of made-up pairs)
and every stratum's tau-b and weighted tau are held to ``scipy.stats.kendalltau`` and
``weightedtau``, on strata of unequal sizes (1 to 4,097 hosts, either side of the 8-way merge's
level sizes 8, 64, 512 and 4,096), heavy ties in either value or both, constant values (no
tau), and a perfectly discordant stratum. `make spark-test` then checks the Spark build of it
against the Python model's numbers.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import duckdb
import jinja2
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from hostaware.paths import PROJECT

SPARK_MODELS = PROJECT / "models" / "intermediate" / "centrality" / "spark"
MODEL = SPARK_MODELS / "int_centrality_quality_kendall_spark.sql"
HOSTS = SPARK_MODELS / "int_centrality_quality_hosts_weighted.sql"
DISCORDANCE = SPARK_MODELS / "steps" / "int_centrality_quality_discordance.sql"
PAIR_GROUPS = (
    PROJECT
    / "models"
    / "intermediate"
    / "centrality"
    / "steps"
    / "int_centrality_quality_pair_groups.sql"
)
MACROS = PROJECT / "macros" / "dialect.sql"
ADAPTER = PROJECT / "lint" / "sqlfluff_libs" / "adapter.py"


def _lint_adapter_dispatch():
    """The linter's ``adapter.dispatch`` (lint/sqlfluff_libs): the ``default__`` macros."""
    spec = importlib.util.spec_from_file_location("lint_adapter", ADAPTER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.dispatch


def render_for_duckdb(model: Path, tables: dict[str, str]) -> str:
    """The model's SQL with the dialect macros' DuckDB side, ``ref(name)`` -> tables[name]."""
    dispatch = _lint_adapter_dispatch()
    environment = jinja2.Environment(undefined=jinja2.StrictUndefined)
    environment.globals.update(
        adapter=type("Adapter", (), {"dispatch": staticmethod(dispatch)}),
        ref=tables.__getitem__,
        config=lambda **_: "",
        # each dispatching macro's body is `{{ return(...) }}`: its text is the value
        **{"return": lambda value: value},
    )
    return environment.from_string(MACROS.read_text() + model.read_text()).render()


def _stratum(rng: np.random.Generator, n: int, kind: str) -> tuple[np.ndarray, np.ndarray]:
    if kind == "continuous":
        x = rng.lognormal(size=n)
        return x, np.log(x) + rng.normal(size=n)
    if kind == "ties":  # both on small grids: ties in x, in y and in both
        x = rng.integers(0, 7, n).astype(float)
        return x, np.round(0.1 * x + rng.random(n), 1)
    if kind == "ties_in_y":
        return rng.random(n), rng.choice([0.25, 0.5, 0.5, 0.75], n)
    if kind == "constant_x":
        return np.full(n, 3.0), rng.random(n)
    if kind == "discordant":
        x = np.arange(n, dtype=float)
        return x, -x
    raise ValueError(kind)


STRATA = [
    (1, "continuous"),
    (2, "continuous"),
    (3, "ties"),
    (5, "discordant"),
    (8, "continuous"),
    (9, "ties"),
    (37, "ties"),
    (64, "ties_in_y"),
    (65, "continuous"),
    (40, "constant_x"),
    (500, "ties"),
    (1024, "discordant"),
    (3000, "ties"),
    (3000, "continuous"),
    (2500, "ties_in_y"),
    (513, "continuous"),
    (4097, "ties"),
]


@pytest.fixture(scope="module")
def pairs() -> pd.DataFrame:
    rng = np.random.default_rng(20241010)
    frames = []
    for stratum_id, (n, kind) in enumerate(STRATA, start=1):
        x, y = _stratum(rng, n, kind)
        frames.append(
            pd.DataFrame(
                {
                    "classifier_id": 1 + stratum_id % 2,
                    "classifier": f"classifier_{1 + stratum_id % 2}",
                    "centrality_metric_id": 1,
                    "centrality_metric": "hc",
                    "stratum_id": stratum_id,
                    "stratum_type": "test",
                    "stratum": f"{kind}_{n}",
                    "centrality_value": x,
                    "quality_score_median": y,
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


@pytest.mark.filterwarnings("ignore:One or more sample arguments is too small")
def test_spark_kendall_sql_equals_scipy(pairs: pd.DataFrame) -> None:
    connection = duckdb.connect()
    connection.register("pairs_frame", pairs)
    connection.execute("create table pairs as select * from pairs_frame")
    hosts = render_for_duckdb(HOSTS, {"int_centrality_quality_pairs": "pairs"})
    connection.execute(f"create table hosts_weighted as {hosts}")
    discordance = render_for_duckdb(
        DISCORDANCE, {"int_centrality_quality_hosts_weighted": "hosts_weighted"}
    )
    connection.execute(f"create view discordance as {discordance}")
    pair_groups = render_for_duckdb(PAIR_GROUPS, {"int_centrality_quality_pairs": "pairs"})
    connection.execute(f"create view pair_groups as {pair_groups}")
    sql = render_for_duckdb(
        MODEL,
        {
            "int_centrality_quality_pairs": "pairs",
            "int_centrality_quality_hosts_weighted": "hosts_weighted",
            "int_centrality_quality_discordance": "discordance",
            "int_centrality_quality_pair_groups": "pair_groups",
        },
    )
    result = connection.execute(sql).df().set_index("stratum")
    assert len(result) == len(STRATA)
    largest = 0.0
    for stratum, hosts in pairs.groupby("stratum"):
        x, y = hosts["centrality_value"].to_numpy(), hosts["quality_score_median"].to_numpy()
        row = result.loc[stratum]
        assert row["host_count"] == len(hosts)
        expected = {
            "kendall_tau_b": stats.kendalltau(x, y).statistic,
            "weighted_tau": stats.weightedtau(x, y).statistic,
        }
        for column, theirs in expected.items():
            mine = row[column]
            if np.isnan(theirs):
                assert pd.isna(mine), (stratum, column, mine)
                continue
            assert mine == pytest.approx(theirs, abs=1e-12), (stratum, column)
            largest = max(largest, abs(mine - theirs))
    assert result.loc["discordant_1024", "kendall_tau_b"] == pytest.approx(-1.0, abs=1e-15)
    assert largest < 1e-12
