"""The RQ1/RQ2 marts at scale: `dbt build` against the same analyses in pandas/numpy/scipy.

Target (the paper lake: 3.01M documents, 532,628 hosts with >= 3 documents, >= 6 classifiers,
2 cores): the dbt build of the marts in under 3 minutes with under 8 GB peak memory, and at
least 3x faster than a reasonably efficient pandas/scipy implementation of the same analyses.

1. dbt: ``dbt build`` of the six RQ1/RQ2 marts and everything upstream (seeds, staging views,
   intermediate models), tests excluded (``--with-tests`` also times a build with the data and
   unit tests), into a fresh warehouse. Wall time and peak memory (RSS of the process tree,
   summed, sampled every 100 ms); the per-model times from ``run_results.json``.
2. pandas: the same analyses in a child process, from the lake's committed Parquet parts (a
   part counts when a manifest row names its key, as in the staging models), the seeds' CSV files
   and dbt_project.yml's vars: pyarrow to read and join (``index_in``, ``dictionary_encode``),
   pandas ``groupby`` for the host statistics, numpy (``bincount``, ``cumsum``, ``searchsorted``)
   for the ICC sums and the yield curves, ``scipy.stats`` (``rankdata``, ``kendalltau``,
   ``weightedtau``) for the correlations, ``hashlib.md5`` for the deterministic host orders.
   Time per step and peak memory.
3. Every mart (and the two host-level tables) of the warehouse against the pandas numbers,
   aligned on their keys: the largest absolute difference, and the largest difference relative
   to max(1, |value|) (sums over millions of pages, such as pages_fetched or ssb, are large
   numbers; the correlations, shares and ICCs are at most 1, where both measures agree).

    .venv/bin/python bench/bench_marts_rq12.py --home build/test-home
    .venv/bin/python bench/bench_marts_rq12.py --home /path/to/paper-home --with-tests

``--home`` is a HOSTAWARE_HOME whose lake/ holds documents, document_scores, host_ranks and
host_index with their manifests. The warehouse (default <home>/bench-warehouse.duckdb) is
deleted first.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import math
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import psutil
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import yaml
from scipy import stats

PROJECT = Path(__file__).resolve().parents[1]
DBT = PROJECT / ".venv" / "bin" / "dbt"
MARTS = (
    "rpt_host_quality_icc",
    "rpt_centrality_quality_correlations",
    "rpt_score_by_language",
    "rpt_classifier_agreement",
    "rpt_graph_rank_stability",
    "rpt_host_ordering_at_budget",
)
TARGET_SECONDS = 180.0
TARGET_BYTES = 8 * 1024**3
TARGET_RATIO = 3.0

# Each compared table: its keys, its numeric columns, the columns that must be equal.
TABLES: dict[str, tuple[list[str], list[str], list[str]]] = {
    name: (keys.split(), numeric.split(), exact.split())
    for name, keys, numeric, exact in [
        (
            "int_host_classifier_stats",
            "surt_host_name classifier",
            "doc_count quality_score_median quality_score_mean quality_score_var hq_doc_count "
            "hq_density",
            "",
        ),
        (
            "int_hosts_profiled",
            "surt_host_name",
            "doc_count english_doc_share hc_val pr_val known_url_count fetched_url_count",
            "url_host_tld url_host_registry_suffix tld_macro_category language_stratum is_in_graph",
        ),
        (
            "rpt_host_quality_icc",
            "classifier min_docs",
            "host_count doc_count grand_mean ssb ssw df_between df_within msb msw n0 icc1 f_stat "
            "icc_variance_ratio",
            "",
        ),
        (
            "rpt_centrality_quality_correlations",
            "classifier centrality_metric stratum_type stratum",
            "host_count spearman_rho kendall_tau_b weighted_spearman_rho weighted_tau",
            "",
        ),
        (
            "rpt_score_by_language",
            "classifier language_stratum",
            "host_count host_median_score_p25 host_median_score_p50 host_median_score_p75 "
            "host_median_score_mean",
            "",
        ),
        ("rpt_classifier_agreement", "classifier_a classifier_b", "doc_count spearman_rho", ""),
        (
            "rpt_graph_rank_stability",
            "centrality_metric reference_release later_release",
            "host_count spearman_rho",
            "",
        ),
        (
            "rpt_host_ordering_yield_curves",
            "classifier policy budget_share",
            "pages_fetched hq_collected hq_collected_sd hq_share host_count tld_count "
            "ordering_count",
            "",
        ),
        (
            "rpt_host_ordering_at_budget",
            "classifier policy budget_share",
            "hq_collected random_hq_collected hq_ratio_vs_random oracle_hq_collected tld_count "
            "random_tld_count tld_ratio_vs_random",
            "",
        ),
    ]
}


# ----------------------------------------------------------------------- measuring


def _tree_rss(process: psutil.Process) -> int:
    total = 0
    for member in [process, *process.children(recursive=True)]:
        with contextlib.suppress(psutil.NoSuchProcess):
            total += member.memory_info().rss
    return total


def run_sampled(command: list[str], env: dict[str, str], log: Path) -> tuple[float, int, int]:
    """Run ``command`` (output to ``log``); its wall seconds, peak tree RSS and exit code."""
    with log.open("w") as output:
        started = time.perf_counter()
        child = subprocess.Popen(command, cwd=PROJECT, env=env, stdout=output, stderr=output)
        watched = psutil.Process(child.pid)
        peak = 0
        while child.poll() is None:
            with contextlib.suppress(psutil.NoSuchProcess):
                peak = max(peak, _tree_rss(watched))
            time.sleep(0.1)
        seconds = time.perf_counter() - started
    return seconds, peak, child.returncode


# ----------------------------------------------------------------------- dbt


def run_dbt(home: Path, warehouse: Path, work: Path, with_tests: bool) -> dict:
    """``dbt build`` of the marts and their parents into a fresh ``warehouse``."""
    for path in (warehouse, warehouse.with_name(warehouse.name + ".wal")):
        path.unlink(missing_ok=True)
    name = "with-tests" if with_tests else "models"
    target = work / f"target-{name}"
    env = {
        **os.environ,
        "HOSTAWARE_HOME": str(home),
        "WAREHOUSE_PATH": str(warehouse),
        "DBT_PROFILES_DIR": str(PROJECT),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "DBT_LOG_PATH": str(work / f"logs-{name}"),
    }
    command = [str(DBT), "build", "--target", "dev", "--target-path", str(target)]
    command += ["--select", *[f"+{mart}" for mart in MARTS]]
    if not with_tests:
        command += ["--exclude", "test_type:data test_type:unit"]
    log = work / f"dbt-{name}.log"
    seconds, peak, code = run_sampled(command, env, log)
    results_file = target / "run_results.json"
    if code != 0 and not (with_tests and results_file.exists()):
        raise SystemExit(f"dbt build ({name}) failed ({code}):\n{log.read_text()[-6000:]}")
    results = json.loads(results_file.read_text())
    nodes = [
        {
            "node": node["unique_id"].split(".", 1)[0] + " " + node["unique_id"].rsplit(".", 1)[1],
            "seconds": node["execution_time"],
            "status": node["status"],
            "message": (node["message"] or "").strip(),
        }
        for node in results["results"]
    ]
    # a failed test (with tests) does not stop the timing; a model that did not build does
    # (a failing unit test skips its model)
    unbuilt = [
        n for n in nodes if n["node"].startswith(("model", "seed")) and n["status"] != "success"
    ]
    if unbuilt and not with_tests:
        raise SystemExit(f"dbt build ({name}): not built {unbuilt}\n{log.read_text()[-6000:]}")
    return {
        "name": name,
        "seconds": seconds,
        "peak": peak,
        "elapsed": results["elapsed_time"],
        "nodes": sorted(nodes, key=lambda node: -node["seconds"]),
        "unbuilt": unbuilt,
        "log": log,
    }


# ----------------------------------------------------------------------- pandas: reading


try:  # CPython's own md5 (hashlib's fallback): half the cost per call of OpenSSL's
    from _md5 import md5 as _fast_md5
except ImportError:  # pragma: no cover
    _fast_md5 = hashlib.md5

PART = re.compile(r"part-([0-9a-f]+)\.parquet$")
STRINGS = {
    "doc_id",
    "surt_host_name",
    "url_host_tld",
    "url_host_registry_suffix",
    "language",
    "classifier",
    "page_key",
    "annotation_profile",
}


def _seed(name: str) -> pd.DataFrame:
    return pd.read_csv(PROJECT / "seeds" / f"{name}.csv", keep_default_na=False, na_values=[""])


def _manifest(lake: Path, folders: list[str]) -> pd.DataFrame:
    """Manifest rows (lake_table, key, release); key = part_key, else the sha's first 20."""
    columns = ("lake_table", "part_key", "source_sha256", "release")
    rows = []
    for folder in folders:
        for path in sorted((lake / "_manifest" / folder).glob("*.parquet")):
            table = pq.read_table(path)
            rows.append(
                pd.DataFrame(
                    {
                        column: table[column].to_pylist()
                        if column in table.column_names
                        else [None] * table.num_rows
                        for column in columns
                    }
                )
            )
    manifest = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=columns)
    manifest["key"] = manifest["part_key"].fillna(manifest["source_sha256"].str[:20])
    return manifest


def _committed_parts(
    lake: Path, table: str, committed: set[tuple[str, str | None]], by_partition: bool
) -> list[tuple[Path, str]]:
    """The table's part files a manifest row commits: (path, hive partition value).

    ``committed`` holds (key, partition value) pairs, or (key, None) when any partition goes.
    """
    parts = []
    for path in sorted((lake / table).glob("*=*/part-*.parquet")):
        match = PART.search(path.name)
        value = path.parent.name.split("=", 1)[1]
        if match and (match.group(1), value if by_partition else None) in committed:
            parts.append((path, value))
    return parts


def _read(parts: list[tuple[Path, str]], columns: list[str], **options) -> pa.Table:
    """The columns of these parts, one table (a column a part lacks is null there)."""
    if not parts:  # nothing committed: no rows (names are strings, the rest numbers)
        return pa.table(
            {c: pa.array([], pa.string() if c in STRINGS else pa.float64()) for c in columns}
        )
    tables = []
    for path, _ in parts:
        available = pq.read_schema(path).names
        table = pq.read_table(path, columns=[c for c in columns if c in available], **options)
        for column in columns:
            if column not in available:  # a partition that lacks the column (schema drift)
                table = table.append_column(column, pa.nulls(table.num_rows, pa.int64()))
        tables.append(table.select(columns))
    return pa.concat_tables(tables, promote_options="permissive")


def _numbers(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """Arrow numbers as float64, null as NaN."""
    return pc.cast(column, pa.float64()).to_numpy(zero_copy_only=False)


def _codes(column: pa.ChunkedArray) -> tuple[np.ndarray, list]:
    """Dictionary codes (null: -1) and the dictionary of a string column."""
    encoded = pc.dictionary_encode(column)
    chunks = encoded.chunks
    if not chunks:
        return np.zeros(0, dtype=np.int64), []
    codes = np.concatenate(
        [chunk.indices.fill_null(-1).to_numpy().astype(np.int64) for chunk in chunks]
    )
    return codes, chunks[-1].dictionary.to_pylist()


# ----------------------------------------------------------------------- pandas: statistics


def _bounded(value: float) -> float:
    """A correlation as the marts report it: NaN where undefined, clamped to [-1, 1]."""
    return math.nan if value is None or np.isnan(value) else max(-1.0, min(1.0, float(value)))


def _quantile_cont(sorted_values: np.ndarray, q: float) -> float:
    """Linear interpolation between the order statistics around (n - 1) q."""
    position = (len(sorted_values) - 1) * q
    low, high = math.floor(position), math.ceil(position)
    lo, hi = sorted_values[low], sorted_values[high]
    return float(lo if low == high else lo + (hi - lo) * (position - low))


def _group_ranks(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Mid-ranks (ties share their average rank) within each group."""
    if groups.max(initial=0) == 0:
        return stats.rankdata(values)
    return pd.Series(values).groupby(groups).rank(method="average").to_numpy()


def _group_pearson(
    rx: np.ndarray, ry: np.ndarray, groups: np.ndarray, weights: np.ndarray | None = None
) -> np.ndarray:
    """Pearson (weighted, if given) correlation per group, from centred sums."""
    w = np.ones_like(rx) if weights is None else weights
    total = np.bincount(groups, weights=w)
    mean_x = np.bincount(groups, weights=w * rx) / total
    mean_y = np.bincount(groups, weights=w * ry) / total
    dx, dy = rx - mean_x[groups], ry - mean_y[groups]
    sxy = np.bincount(groups, weights=w * dx * dy)
    sxx = np.bincount(groups, weights=w * dx * dx)
    syy = np.bincount(groups, weights=w * dy * dy)
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = sxy / np.sqrt(sxx * syy)
    return np.where(sxx * syy > 0, rho, np.nan)


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    return float(_group_pearson(x, y, np.zeros(len(x), dtype=np.int64))[0])


def _md5_order(names: list[bytes], suffix: str = "") -> tuple[np.ndarray, np.ndarray]:
    """DuckDB's md5_number(name || suffix) (the digest read as a little-endian 128-bit
    integer) as its high and low uint64 halves."""
    tail = suffix.encode()
    digests = b"".join([_fast_md5(name + tail).digest() for name in names])
    halves = np.frombuffer(digests, dtype="<u8").reshape(-1, 2).astype(np.uint64)
    return halves[:, 1], halves[:, 0]


def _order_by_md5(high: np.ndarray, low: np.ndarray) -> np.ndarray:
    order = np.argsort(high, kind="stable")
    if np.any(np.diff(high[order]) == 0):  # a 64-bit prefix collision: use all 128 bits
        order = np.lexsort((low, high))
    return order


def _like(pattern: str) -> re.Pattern:
    """SQL LIKE (``%`` any run, ``_`` one character) as an anchored regex."""
    wildcards = {"%": ".*", "_": "."}
    return re.compile("".join(wildcards.get(char, re.escape(char)) for char in pattern) + r"\Z")


class Steps:
    """Wall seconds per named step."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._started = time.perf_counter()

    def done(self, name: str) -> None:
        now = time.perf_counter()
        self.seconds[name] = self.seconds.get(name, 0.0) + now - self._started
        self._started = now


def _host_mode(
    doc_host: np.ndarray, doc_value: np.ndarray, n_hosts: int, what: str, notes: list[str]
) -> np.ndarray:
    """Each host's most frequent non-null value code (-1: none); hosts with one need no count."""
    present = doc_value >= 0
    value_range = (
        pd.DataFrame({"host": doc_host[present], "value": doc_value[present]})
        .groupby("host")["value"]
        .agg(["min", "max"])
    )
    host_value = np.full(n_hosts, -1, dtype=np.int64)
    host_value[value_range.index.to_numpy()] = value_range["min"].to_numpy()
    mixed = value_range.index[value_range["min"] != value_range["max"]].to_numpy()
    if len(mixed):
        in_mixed = np.isin(doc_host, mixed) & present
        counts = (
            pd.DataFrame({"host": doc_host[in_mixed], "value": doc_value[in_mixed]})
            .value_counts()
            .reset_index(name="count")
            .sort_values(["host", "count"], ascending=[True, False])
        )
        ties = counts.groupby("host")["count"].apply(
            lambda c: len(c) > 1 and c.iloc[0] == c.iloc[1]
        )
        if ties.any():
            notes.append(f"{int(ties.sum())} hosts have two most frequent {what} (mode ambiguous)")
        top = counts.drop_duplicates("host")
        host_value[top["host"].to_numpy()] = top["value"].to_numpy()
    return host_value


def pandas_marts(home: Path) -> tuple[dict[str, pd.DataFrame], dict[str, float], list[str]]:
    """Every mart (and the host tables) from the lake: frames, seconds per step, notes."""
    steps = Steps()
    notes: list[str] = []
    lake = home / "lake"
    config = yaml.safe_load((PROJECT / "dbt_project.yml").read_text())["vars"]
    min_docs = int(config["min_docs_per_host"])
    registry = _seed("classifier_registry")
    strata_seed = _seed("language_strata")
    tld_seed = _seed("tld_macro_categories")
    releases_seed = _seed("graph_releases")

    # ------------------------------------------------------------------- load
    documents_manifest = _manifest(lake, ["documents"])
    committed = {(key, None) for key in documents_manifest["key"]}
    documents = _read(
        _committed_parts(lake, "documents", committed, by_partition=False),
        ["doc_id", "surt_host_name", "url_host_tld", "url_host_registry_suffix", "language"],
    )
    scores = _read(
        _committed_parts(lake, "document_scores", committed, by_partition=False),
        ["doc_id", "classifier", "score"],
        read_dictionary=["classifier"],
    ).unify_dictionaries()
    graph_manifest = _manifest(lake, ["host_ranks", "host_vertices", "host_edges"])
    graph_manifest = graph_manifest[graph_manifest["lake_table"] == "host_ranks"]
    ranks_parts = _committed_parts(
        lake,
        "host_ranks",
        set(zip(graph_manifest["key"], graph_manifest["release"], strict=True)),
        True,
    )
    ranks_by_release = {
        release: _read(
            [part for part in ranks_parts if part[1] == release],
            ["surt_host_name", "hc_val", "pr_val"],
        )
        for release in sorted({value for _, value in ranks_parts})
    }
    index_manifest = _manifest(lake, ["host_index"])
    index_manifest = index_manifest[index_manifest["lake_table"] == "host_index"]
    index_parts = [
        part
        for part in _committed_parts(
            lake, "host_index", {(k, None) for k in index_manifest["key"]}, False
        )
        if part[1] == config["sample_crawl"]
    ]
    host_crawls = _read(index_parts, ["surt_host_name", "nutch_num_records", "nutch_fetched"])

    # documents: host, TLD (last label), public suffix and language codes per document
    doc_host, host_names = _codes(documents["surt_host_name"])
    doc_tld, tld_names = _codes(documents["url_host_tld"])
    doc_suffix, suffix_names = _codes(documents["url_host_registry_suffix"])
    doc_language, language_names = _codes(documents["language"])
    doc_count = len(doc_host)
    if pc.count_distinct(documents["doc_id"]).as_py() != doc_count:
        notes.append("documents: duplicate doc_id (the SQL join would count their scores twice)")
    # scores: the document row of each score (the join), the classifier code
    score_doc = pc.index_in(scores["doc_id"], value_set=documents["doc_id"].combine_chunks())
    score_doc = np.concatenate(
        [chunk.fill_null(-1).to_numpy().astype(np.int64) for chunk in score_doc.chunks]
        or [np.zeros(0, dtype=np.int64)]
    )
    unmatched = score_doc < 0
    if unmatched.any():  # scores of documents not committed: a doc key of their own
        extra, _ = _codes(scores["doc_id"].filter(pa.array(unmatched)))
        score_doc[unmatched] = doc_count + extra
    if pa.types.is_dictionary(scores["classifier"].type) and scores.num_rows:
        chunks = scores["classifier"].chunks  # one dictionary (unify_dictionaries)
        score_classifier = np.concatenate([c.indices.to_numpy().astype(np.int64) for c in chunks])
        classifier_names = chunks[0].dictionary.to_pylist()
    else:
        score_classifier, classifier_names = _codes(scores["classifier"])
    score_value = _numbers(scores["score"])
    del scores
    steps.done("load")

    # ------------------------------------------------------------------- A1 host stats
    registered = registry["classifier"].tolist()
    thresholds = registry["hq_threshold"].fillna(config["hq_threshold_default"]).to_numpy(float)
    registry_code = np.array(
        [registered.index(c) if c in registered else -1 for c in classifier_names],
        dtype=np.int64,
    )
    flagged_code = registry_code[score_classifier] if len(score_classifier) else score_classifier
    flagged = (score_doc < doc_count) & (flagged_code >= 0)
    f_classifier = flagged_code[flagged]
    f_score = score_value[flagged]
    f_host = doc_host[score_doc[flagged]]
    n_classifiers = len(registered)
    key = f_host * n_classifiers + f_classifier
    # count, mean, variance (two passes, centred) and HQ pages by bincount; the median by pandas
    slots = len(host_names) * n_classifiers
    count = np.bincount(key, minlength=slots)
    keys = np.flatnonzero(count)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.bincount(key, weights=f_score, minlength=slots) / count
        squares = np.bincount(key, weights=(f_score - mean[key]) ** 2, minlength=slots)
        var = squares / (count - 1)
    hq = np.bincount(key, weights=f_score > thresholds[f_classifier], minlength=slots)
    medians = pd.Series(f_score).groupby(key, sort=True).median()
    assert np.array_equal(medians.index.to_numpy(), keys)
    hs_host = keys // n_classifiers
    hs_classifier = keys % n_classifiers
    hs_count = count[keys]
    hs_median = medians.to_numpy(float)
    hs_mean = mean[keys]
    hs_var = np.where(hs_count > 1, var[keys], np.nan)
    hs_hq = hq[keys].astype(np.int64)
    hs_density = hs_hq / hs_count
    steps.done("host stats")

    # ------------------------------------------------------------------- A2 ICC(1)
    icc_rows = []
    for code, classifier in enumerate(registered):
        for threshold in config["icc_min_docs"]:
            keep = (hs_classifier == code) & (hs_count >= int(threshold))
            k = int(keep.sum())
            if k == 0:
                continue
            n, means, variances = hs_count[keep], hs_mean[keep], hs_var[keep]
            total = int(n.sum())
            grand_mean = float(np.sum(n * means) / total)
            ssb = float(np.sum(n * (means - grand_mean) ** 2))
            ssw = float(np.sum((n - 1) * variances))
            msb = ssb / (k - 1) if k > 1 else math.nan
            msw = ssw / (total - k) if total > k else math.nan
            n0 = (total - float(np.sum(n * n)) / total) / (k - 1) if k > 1 else math.nan
            denominator = msb + (n0 - 1) * msw
            icc_rows.append(
                {
                    "classifier": classifier,
                    "min_docs": int(threshold),
                    "host_count": k,
                    "doc_count": total,
                    "grand_mean": grand_mean,
                    "ssb": ssb,
                    "ssw": ssw,
                    "df_between": k - 1,
                    "df_within": total - k,
                    "msb": msb,
                    "msw": msw,
                    "n0": n0,
                    "icc1": (msb - msw) / denominator if denominator else math.nan,
                    "f_stat": msb / msw if msw else math.nan,
                    "icc_variance_ratio": ssb / (ssb + ssw) if ssb + ssw else math.nan,
                }
            )
    steps.done("ICC")

    # ------------------------------------------------------------------- host profiles
    n_hosts = len(host_names)
    host_doc_count = np.bincount(doc_host, minlength=n_hosts)
    stratum_of = dict(zip(strata_seed["language"], strata_seed["language_stratum"], strict=True))
    english = np.array([stratum_of.get(name) == "english" for name in language_names] + [False])
    english_share = np.bincount(doc_host, weights=english[doc_language], minlength=n_hosts)
    english_share = english_share / host_doc_count
    # the mode of the host's TLD and of its public suffix (non-null)
    host_tld = _host_mode(doc_host, doc_tld, n_hosts, "TLDs", notes)
    host_suffix = _host_mode(doc_host, doc_suffix, n_hosts, "public suffixes", notes)
    # the macro category of each public suffix: the seed's first matching pattern by priority
    categories = []
    for name in suffix_names:
        matches = [
            (row.match_priority, row.suffix_pattern, row.macro_category)
            for row in tld_seed.itertuples()
            if _like(row.suffix_pattern).match(name)
        ]
        categories.append(min(matches)[2] if matches else "other_generic")
    category_names = sorted(set(categories) | {"other_generic"})
    suffix_category = np.array([category_names.index(c) for c in categories], dtype=np.int64)
    host_category = np.full(n_hosts, category_names.index("other_generic"), dtype=np.int64)
    host_category[host_suffix >= 0] = suffix_category[host_suffix[host_suffix >= 0]]
    host_english = english_share >= config["english_doc_share_threshold"]
    language_stratum_names = ["english", "non_english"]
    host_language = np.where(host_english, 0, 1)
    host_name_array = pa.array(host_names, pa.string())
    graph = ranks_by_release.get(config["graph_release"])
    if graph is None:
        graph = pa.table({"surt_host_name": pa.array([], pa.string())})
        graph = graph.append_column("hc_val", pa.array([], pa.float64()))
        graph = graph.append_column("pr_val", pa.array([], pa.float64()))
    graph_row = pc.index_in(host_name_array, value_set=graph["surt_host_name"].combine_chunks())
    graph_row = graph_row.fill_null(-1).to_numpy().astype(np.int64)
    in_graph = graph_row >= 0
    hc_all, pr_all = _numbers(graph["hc_val"]), _numbers(graph["pr_val"])
    host_hc = np.where(in_graph, hc_all[graph_row] if len(hc_all) else np.nan, np.nan)
    host_pr = np.where(in_graph, pr_all[graph_row] if len(pr_all) else np.nan, np.nan)
    crawl_row = pc.index_in(
        host_name_array, value_set=host_crawls["surt_host_name"].combine_chunks()
    )
    crawl_row = crawl_row.fill_null(-1).to_numpy().astype(np.int64)
    fetched_all = _numbers(host_crawls["nutch_fetched"])
    known_all = _numbers(host_crawls["nutch_num_records"])
    host_fetched = np.where(
        crawl_row >= 0, fetched_all[crawl_row] if len(fetched_all) else 0, np.nan
    )
    host_known = np.where(crawl_row >= 0, known_all[crawl_row] if len(known_all) else 0, np.nan)
    steps.done("profiles")

    # ------------------------------------------------------------------- A3 correlations
    # the host universe U_c: >= min_docs pages of that classifier, a node of the graph
    universe = (hs_count >= min_docs) & in_graph[hs_host]
    strata = [
        ("pooled", lambda hosts: np.zeros(len(hosts), dtype=np.int64), ["all"]),
        ("language", lambda hosts: host_language[hosts], language_stratum_names),
        ("tld_category", lambda hosts: host_category[hosts], category_names),
    ]
    correlation_rows = []
    kendall_jobs = []
    for code, classifier in enumerate(registered):
        rows = np.flatnonzero(universe & (hs_classifier == code))
        for metric, values in (("hc", host_hc), ("pr", host_pr)):
            x_all = values[hs_host[rows]]
            pairs = rows[~np.isnan(x_all)]  # a host without the metric is not a pair
            hosts = hs_host[pairs]
            x, y, w = values[hosts], hs_median[pairs], hs_count[pairs].astype(float)
            for stratum_type, grouping, names in strata:
                groups = grouping(hosts)
                if not len(groups):
                    continue
                rx, ry = _group_ranks(x, groups), _group_ranks(y, groups)
                spearman = _group_pearson(rx, ry, groups)
                weighted = _group_pearson(rx, ry, groups, w)
                sizes = np.bincount(groups, minlength=len(names))
                order = np.argsort(groups, kind="stable")
                ends = np.cumsum(sizes)
                for group in np.flatnonzero(sizes):
                    members = order[ends[group] - sizes[group] : ends[group]]
                    correlation_rows.append(
                        {
                            "classifier": classifier,
                            "centrality_metric": metric,
                            "stratum_type": stratum_type,
                            "stratum": names[group],
                            "host_count": int(sizes[group]),
                            "spearman_rho": _bounded(spearman[group]),
                            "weighted_spearman_rho": _bounded(weighted[group]),
                        }
                    )
                    kendall_jobs.append((x[members], y[members]))
    steps.done("correlations")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for row, (x, y) in zip(correlation_rows, kendall_jobs, strict=True):
            tau = stats.kendalltau(x, y).statistic if len(x) > 1 else math.nan
            weighted_tau = stats.weightedtau(x, y).statistic if len(x) > 1 else math.nan
            row["kendall_tau_b"] = math.nan if np.isnan(tau) else float(tau)
            row["weighted_tau"] = math.nan if np.isnan(weighted_tau) else float(weighted_tau)
    del kendall_jobs
    steps.done("kendall")

    # ------------------------------------------------------------------- A3b by language
    language_rows = []
    in_scope = np.flatnonzero(hs_count >= min_docs)
    scope_group = hs_classifier[in_scope] * 2 + host_language[hs_host[in_scope]]
    order = np.lexsort((hs_median[in_scope], scope_group))
    sorted_group, sorted_median = scope_group[order], hs_median[in_scope][order]
    bounds = np.flatnonzero(np.diff(sorted_group)) + 1
    for chunk_group, medians in zip(
        sorted_group[np.r_[0, bounds]] if len(sorted_group) else [],
        np.split(sorted_median, bounds),
        strict=False,
    ):
        language_rows.append(
            {
                "classifier": registered[chunk_group // 2],
                "language_stratum": language_stratum_names[chunk_group % 2],
                "host_count": len(medians),
                "host_median_score_p25": _quantile_cont(medians, 0.25),
                "host_median_score_p50": _quantile_cont(medians, 0.5),
                "host_median_score_p75": _quantile_cont(medians, 0.75),
                "host_median_score_mean": float(medians.mean()),
            }
        )
    steps.done("language")

    # ------------------------------------------------------------------- A3c agreement
    n_docs_scored = int(score_doc.max(initial=-1)) + 1
    wide = np.full((n_docs_scored, len(classifier_names)), np.nan)
    wide[score_doc, score_classifier] = score_value
    scored = ~np.isnan(wide)
    per_classifier = np.bincount(score_classifier, minlength=len(classifier_names))
    if (scored.sum(axis=0) != per_classifier).any():
        notes.append("document_scores: a document scored twice by one classifier")
    full_ranks: dict[int, np.ndarray] = {}
    agreement_rows = []
    for a in range(len(classifier_names)):
        for b in range(a + 1, len(classifier_names)):
            common = scored[:, a] & scored[:, b]
            in_common = int(common.sum())
            if in_common == 0:
                continue
            ranks = []
            for c in (a, b):
                # c scored no page outside the pair: reuse its ranks over all its pages
                if in_common == per_classifier[c]:
                    if c not in full_ranks:
                        full_ranks[c] = stats.rankdata(wide[scored[:, c], c])
                    ranks.append(full_ranks[c][common[scored[:, c]]])
                else:
                    ranks.append(stats.rankdata(wide[common, c]))
            rho = _bounded(_pearson(ranks[0], ranks[1]))
            for first, second in ((a, b), (b, a)):
                agreement_rows.append(
                    {
                        "classifier_a": classifier_names[first],
                        "classifier_b": classifier_names[second],
                        "doc_count": in_common,
                        "spearman_rho": rho,
                    }
                )
    del wide, scored, full_ranks
    steps.done("agreement")

    # ------------------------------------------------------------------- A3d stability
    last_crawl = dict(zip(releases_seed["release"], releases_seed["last_crawl"], strict=True))
    releases = sorted(
        ranks_by_release,
        key=lambda r: (last_crawl.get(r) is None, last_crawl.get(r) or "", r),
    )
    stability_rows = []
    for position, earlier in enumerate(releases):
        for later in releases[position + 1 :]:
            reference, following = ranks_by_release[earlier], ranks_by_release[later]
            row = pc.index_in(
                following["surt_host_name"], value_set=reference["surt_host_name"].combine_chunks()
            )
            row = row.fill_null(-1).to_numpy().astype(np.int64)
            both = row >= 0
            for metric in ("hc", "pr"):
                x = _numbers(reference[f"{metric}_val"])[row[both]]
                y = _numbers(following[f"{metric}_val"])[both]
                keep = ~(np.isnan(x) | np.isnan(y))
                x, y = x[keep], y[keep]
                if not len(x):
                    continue
                stability_rows.append(
                    {
                        "centrality_metric": metric,
                        "reference_release": earlier,
                        "later_release": later,
                        "host_count": len(x),
                        "spearman_rho": _bounded(_pearson(stats.rankdata(x), stats.rankdata(y))),
                    }
                )
    steps.done("stability")

    # ------------------------------------------------------------------- A4 yield curves
    shares = np.array([float(share) for share in config["budget_shares"]])
    union = np.unique(hs_host[universe])  # hosts in some classifier's universe
    union_names = [name.encode() for name in host_name_array.take(pa.array(union)).to_pylist()]
    position_of = np.full(n_hosts, -1, dtype=np.int64)
    position_of[union] = np.arange(len(union))
    tie_high, tie_low = _md5_order(union_names)
    # orders over the union (a classifier's order is the union's, less hosts outside U_c)
    orders: dict[tuple[str, int], np.ndarray] = {}
    for seed in range(1, int(config["random_seeds"]) + 1):
        orders[("random", seed)] = _order_by_md5(*_md5_order(union_names, f":{seed}"))
    for policy, values in (("hc", host_hc), ("pr", host_pr), ("cc_coverage", host_fetched)):
        key = values[union]
        missing = np.isnan(key)
        orders[(policy, 0)] = np.lexsort((tie_low, tie_high, -np.where(missing, 0, key), missing))
    union_tld = host_tld[union]
    steps.done("host orders (md5, sorts)")
    curve_rows = []
    for code, classifier in enumerate(registered):
        rows = np.flatnonzero(universe & (hs_classifier == code))
        if not len(rows):
            continue
        member = np.zeros(len(union), dtype=bool)
        pages = np.zeros(len(union), dtype=np.int64)
        hq = np.zeros(len(union), dtype=np.int64)
        density = np.zeros(len(union))
        where = position_of[hs_host[rows]]
        member[where], pages[where], hq[where], density[where] = (
            True,
            hs_count[rows],
            hs_hq[rows],
            hs_density[rows],
        )
        # the oracle: highest HQ density, then most HQ pages, then md5 of the host
        oracle = np.lexsort((tie_low[where], tie_high[where], -hq[where], -density[where]))
        classifier_orders = {
            order_key: order[member[order]] for order_key, order in orders.items()
        } | {("oracle", 0): where[oracle]}
        results: dict[str, list[tuple[np.ndarray, ...]]] = {}
        for (policy, _), order in classifier_orders.items():
            p, h, t = pages[order], hq[order], union_tld[order]
            before = np.cumsum(p) - p
            hq_before = np.cumsum(h) - h
            first_tld = ~pd.Series(t).duplicated().to_numpy() & (t >= 0)
            tlds_so_far = np.cumsum(first_tld)
            total, total_hq = int(p.sum()), int(h.sum())
            budget = shares * total
            # the boundary host: the last one with fewer pages before it than the budget
            boundary = np.searchsorted(before, budget, side="left") - 1
            collected = (
                hq_before[boundary] + (budget - before[boundary]) / p[boundary] * h[boundary]
            )
            results.setdefault(policy, []).append(
                (budget, collected, boundary + 1.0, tlds_so_far[boundary].astype(float), total_hq)
            )
        for policy, runs in results.items():
            budget = np.mean([run[0] for run in runs], axis=0)
            collected = np.array([run[1] for run in runs])
            mean_collected = collected.mean(axis=0)
            sd = collected.std(axis=0, ddof=1) if len(runs) > 1 else np.full(len(shares), np.nan)
            hosts_touched = np.mean([run[2] for run in runs], axis=0)
            tlds = np.mean([run[3] for run in runs], axis=0)
            total_hq = runs[0][4]
            for index, share in enumerate(shares):
                curve_rows.append(
                    {
                        "classifier": classifier,
                        "policy": policy,
                        "budget_share": share,
                        "pages_fetched": budget[index],
                        "hq_collected": mean_collected[index],
                        "hq_collected_sd": sd[index],
                        "hq_share": mean_collected[index] / total_hq if total_hq else math.nan,
                        "host_count": hosts_touched[index],
                        "tld_count": tlds[index],
                        "ordering_count": len(runs),
                    }
                )
    keys, numeric, _ = TABLES["rpt_host_ordering_yield_curves"]
    curves = pd.DataFrame(curve_rows, columns=[*keys, *numeric])
    keyed = ["classifier", "budget_share"]
    random_ = curves[curves["policy"] == "random"][[*keyed, "hq_collected", "tld_count"]]
    oracle_ = curves[curves["policy"] == "oracle"][[*keyed, "hq_collected"]]
    at_budget = curves[["classifier", "policy", "budget_share", "hq_collected", "tld_count"]]
    at_budget = at_budget.merge(
        random_.rename(
            columns={"hq_collected": "random_hq_collected", "tld_count": "random_tld_count"}
        ),
        on=keyed,
    ).merge(oracle_.rename(columns={"hq_collected": "oracle_hq_collected"}), on=keyed)
    with np.errstate(invalid="ignore", divide="ignore"):
        at_budget["hq_ratio_vs_random"] = at_budget["hq_collected"] / at_budget[
            "random_hq_collected"
        ].replace(0, np.nan)
        at_budget["tld_ratio_vs_random"] = at_budget["tld_count"] / at_budget[
            "random_tld_count"
        ].replace(0, np.nan)
    steps.done("yield curves")

    host_stats_frame = pd.DataFrame(
        {
            "surt_host_name": host_name_array.take(pa.array(hs_host)).to_pandas(),
            "classifier": np.array(registered, dtype=object)[hs_classifier],
            "doc_count": hs_count,
            "quality_score_median": hs_median,
            "quality_score_mean": hs_mean,
            "quality_score_var": hs_var,
            "hq_doc_count": hs_hq,
            "hq_density": hs_density,
        }
    )
    tld_array = np.array([*tld_names, None], dtype=object)
    suffix_array = np.array([*suffix_names, None], dtype=object)
    profiles_frame = pd.DataFrame(
        {
            "surt_host_name": host_name_array.to_pandas(),
            "url_host_tld": tld_array[host_tld],
            "url_host_registry_suffix": suffix_array[host_suffix],
            "tld_macro_category": np.array(category_names, dtype=object)[host_category],
            "language_stratum": np.array(language_stratum_names, dtype=object)[host_language],
            "doc_count": host_doc_count,
            "english_doc_share": english_share,
            "hc_val": host_hc,
            "pr_val": host_pr,
            "known_url_count": host_known,
            "fetched_url_count": host_fetched,
            "is_in_graph": in_graph,
        }
    )
    marts = {
        "int_host_classifier_stats": host_stats_frame,
        "int_hosts_profiled": profiles_frame,
        "rpt_host_quality_icc": pd.DataFrame(icc_rows),
        "rpt_centrality_quality_correlations": pd.DataFrame(correlation_rows),
        "rpt_score_by_language": pd.DataFrame(language_rows),
        "rpt_classifier_agreement": pd.DataFrame(agreement_rows),
        "rpt_graph_rank_stability": pd.DataFrame(stability_rows),
        "rpt_host_ordering_yield_curves": curves,
        "rpt_host_ordering_at_budget": at_budget,
    }
    steps.done("output frames")
    notes.append(
        f"{doc_count:,} documents, {len(score_value):,} scores, {n_hosts:,} hosts, "
        f"{int((universe).sum()):,} classifier x host pairs in the universe "
        f"({len(union):,} hosts), {len(registered)} classifiers, {len(releases)} graph releases"
    )
    return marts, steps.seconds, notes


def pandas_worker(home: Path, out: Path) -> None:
    """The child process: compute, then write the frames and timings to ``out``."""
    started = time.perf_counter()
    marts, seconds, notes = pandas_marts(home)
    seconds["total (in process)"] = time.perf_counter() - started
    with out.open("wb") as handle:
        pickle.dump({"marts": marts, "steps": seconds, "notes": notes}, handle)


def run_pandas(home: Path, work: Path) -> dict:
    out = work / "pandas-marts.pickle"
    command = [sys.executable, str(Path(__file__).resolve()), "--pandas-worker"]
    command += ["--home", str(home), "--worker-out", str(out)]
    log = work / "pandas.log"
    seconds, peak, code = run_sampled(command, {**os.environ}, log)
    if code != 0:
        raise SystemExit(f"pandas implementation failed ({code}):\n{log.read_text()[-6000:]}")
    with out.open("rb") as handle:
        result = pickle.load(handle)
    return {"seconds": seconds, "peak": peak, **result}


# ----------------------------------------------------------------------- comparing


def _as_float(column: pd.Series) -> np.ndarray:
    return pd.to_numeric(column.astype(object).where(column.notna(), np.nan)).to_numpy(float)


def compare(warehouse: Path, marts: dict[str, pd.DataFrame]) -> list[dict]:
    """Per table: rows compared, key mismatches, null mismatches, largest differences."""
    import duckdb

    found = []
    with duckdb.connect(str(warehouse), read_only=True) as connection:
        for table, (keys, numeric, exact) in TABLES.items():
            columns = ", ".join([*keys, *numeric, *exact])
            mart = connection.sql(f"select {columns} from {table}").df()
            reference = marts[table][[*keys, *numeric, *exact]].copy()
            for frame in (mart, reference):
                if "budget_share" in keys:
                    frame["budget_share"] = frame["budget_share"].astype(float).round(12)
                for key in keys:
                    if key != "budget_share":
                        frame[key] = frame[key].astype(object)
            joined = mart.merge(
                reference, on=keys, how="outer", suffixes=("_dbt", "_pd"), indicator=True
            )
            matched = joined[joined["_merge"] == "both"]
            row = {
                "table": table,
                "rows": len(matched),
                "only_dbt": int((joined["_merge"] == "left_only").sum()),
                "only_pandas": int((joined["_merge"] == "right_only").sum()),
                "null_mismatches": 0,
                "exact_mismatches": 0,
                "max_abs": 0.0,
                "max_rel": 0.0,
                "worst": "",
            }
            for column in numeric:
                a, b = _as_float(matched[f"{column}_dbt"]), _as_float(matched[f"{column}_pd"])
                row["null_mismatches"] += int((np.isnan(a) != np.isnan(b)).sum())
                both = ~(np.isnan(a) | np.isnan(b))
                if not both.any():
                    continue
                difference = np.abs(a[both] - b[both])
                relative = difference / np.maximum(
                    1.0, np.maximum(np.abs(a[both]), np.abs(b[both]))
                )
                if difference.max() > row["max_abs"]:
                    row["max_abs"] = float(difference.max())
                if relative.max() > row["max_rel"]:
                    row["max_rel"] = float(relative.max())
                    row["worst"] = column
            for column in exact:
                a = matched[f"{column}_dbt"].astype(object).where(matched[f"{column}_dbt"].notna())
                b = matched[f"{column}_pd"].astype(object).where(matched[f"{column}_pd"].notna())
                same = (a == b) | (a.isna() & b.isna())
                row["exact_mismatches"] += int((~same).sum())
            found.append(row)
    return found


# ----------------------------------------------------------------------- main


def _gb(value: int) -> float:
    return value / 1024**3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="HOSTAWARE_HOME with a lake/")
    parser.add_argument("--warehouse", type=Path, help="default <home>/bench-warehouse.duckdb")
    parser.add_argument("--with-tests", action="store_true", help="also time a build with tests")
    parser.add_argument("--top", type=int, default=12, help="slowest dbt nodes to print")
    parser.add_argument("--pandas-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--worker-out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    home = args.home.resolve()
    if args.pandas_worker:
        pandas_worker(home, args.worker_out)
        return
    if not (home / "lake").is_dir():
        raise SystemExit(f"{home}/lake does not exist")
    warehouse = (args.warehouse or home / "bench-warehouse.duckdb").resolve()
    work = Path(tempfile.mkdtemp(prefix="bench-marts-rq12-"))
    print(f"cores: {psutil.cpu_count()}, memory: {_gb(psutil.virtual_memory().total):.1f} GiB")
    print(f"home: {home}\nwarehouse: {warehouse}\nwork folder (target, logs): {work}")

    dbt = run_dbt(home, warehouse, work, with_tests=False)
    print(
        f"\ndbt build (models and seeds, no tests): {dbt['seconds']:.1f} s wall, "
        f"peak {_gb(dbt['peak']):.2f} GB; dbt's own run {dbt['elapsed']:.1f} s, "
        f"startup and parsing {dbt['seconds'] - dbt['elapsed']:.1f} s"
    )
    node_total = sum(node["seconds"] for node in dbt["nodes"])
    print(f"  slowest nodes (of {len(dbt['nodes'])}; their times sum to {node_total:.1f} s):")
    for node in dbt["nodes"][: args.top]:
        share = node["seconds"] / node_total if node_total else 0.0
        print(f"    {node['seconds']:>8.2f} s {share:>6.1%}  {node['node']}")

    pandas_run = run_pandas(home, work)
    print(
        f"\npandas/scipy: {pandas_run['seconds']:.1f} s wall (process), "
        f"peak {_gb(pandas_run['peak']):.2f} GB"
    )
    for note in pandas_run["notes"]:
        print(f"  {note}")
    for step, seconds in pandas_run["steps"].items():
        print(f"    {seconds:>8.2f} s  {step}")
    print(
        f"    {pandas_run['seconds'] - pandas_run['steps']['total (in process)']:>8.2f} s  "
        "the rest: interpreter start, imports, writing the frames for the comparison"
    )

    comparison = compare(warehouse, pandas_run["marts"])
    print("\ndbt vs pandas (rel = |difference| / max(1, |value|)):")
    print(
        f"  {'table':<38} {'rows':>9} {'key mism.':>9} {'null mism.':>10} "
        f"{'max abs':>9} {'max rel':>9}  worst column"
    )
    for row in comparison:
        key_mismatches = row["only_dbt"] + row["only_pandas"]
        print(
            f"  {row['table']:<38} {row['rows']:>9,} {key_mismatches:>9} "
            f"{row['null_mismatches'] + row['exact_mismatches']:>10} "
            f"{row['max_abs']:>9.1e} {row['max_rel']:>9.1e}  {row['worst']}"
        )
    max_abs = max(row["max_abs"] for row in comparison)
    max_rel = max(row["max_rel"] for row in comparison)
    compared = sum(row["rows"] for row in comparison)
    mismatches = sum(
        row["only_dbt"] + row["only_pandas"] + row["null_mismatches"] + row["exact_mismatches"]
        for row in comparison
    )

    tested = None
    if args.with_tests:  # into a warehouse of its own: a failing unit test skips its model
        tested_warehouse = warehouse.with_name(f"{warehouse.stem}-with-tests{warehouse.suffix}")
        tested = run_dbt(home, tested_warehouse, work, with_tests=True)
        tests = [node for node in tested["nodes"] if not node["node"].startswith(("model", "seed"))]
        failed = [node for node in tests if node["status"] not in ("pass", "success")]
        print(
            f"\ndbt build with tests ({tested_warehouse.name}): {tested['seconds']:.1f} s wall, "
            f"peak {_gb(tested['peak']):.2f} GB; {len(tests)} tests took "
            f"{sum(node['seconds'] for node in tests):.1f} s (summed), {len(failed)} did not pass"
        )
        for node in tests[: min(args.top, 5)]:
            print(f"    {node['seconds']:>8.2f} s  {node['node']}")
        for node in failed:
            print(f"  NOT PASSED: {node['node']}: {node['status']} {node['message'][:300]}")
        for node in tested["unbuilt"]:
            print(f"  NOT BUILT: {node['node']}: {node['status']}")
        if failed:
            print(f"  (dbt's log: {tested['log']}; kept)")

    ratio = pandas_run["seconds"] / dbt["seconds"]
    print("\nsummary")
    print(
        f"  {'dbt s':>8} {'dbt GB':>7} {'pandas s':>9} {'pandas GB':>9} {'ratio':>6} "
        f"{'max abs diff':>12} {'max rel diff':>12} {'rows compared':>13} {'mismatches':>10}"
    )
    print(
        f"  {dbt['seconds']:>8.1f} {_gb(dbt['peak']):>7.2f} {pandas_run['seconds']:>9.1f} "
        f"{_gb(pandas_run['peak']):>9.2f} {ratio:>5.1f}x {max_abs:>12.1e} {max_rel:>12.1e} "
        f"{compared:>13,} {mismatches:>10}"
    )
    if tested:
        print(f"  with tests: dbt {tested['seconds']:.1f} s, {_gb(tested['peak']):.2f} GB")
    print(
        f"  targets (paper lake): dbt < {TARGET_SECONDS:.0f} s "
        f"({'met' if dbt['seconds'] < TARGET_SECONDS else 'missed'}), "
        f"< {_gb(TARGET_BYTES):.0f} GB ({'met' if dbt['peak'] < TARGET_BYTES else 'missed'}), "
        f"pandas/dbt >= {TARGET_RATIO:.0f}x ({'met' if ratio >= TARGET_RATIO else 'missed'})"
    )
    if not (tested and (tested["unbuilt"] or failed)):
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
