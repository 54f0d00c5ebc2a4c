"""The RQ3/RQ4 marts at scale: `dbt build` against the same analyses in pandas/numpy/scipy.

Target (the paper lake: 3.2M classified documents x 6 classifiers, 6 crawls x 5.08M host-index
rows, 6 crawls of page annotations; 2 cores): each dbt part (RQ3, RQ4) in under
5 minutes with under 8 GB peak memory, and at least 3x faster than a reasonably efficient
pandas/numpy/scipy implementation of the same analyses.

1. dbt: ``dbt build`` of the RQ3 marts (rpt_sample_size_correlation, rpt_depth_policy_curves)
   and, separately, of the RQ4 marts (fct_host_crawls, rpt_coverage_quality_correlation,
   rpt_uncrawled_hq_summary, rpt_hidden_gems, rpt_missed_hq_by_tld,
   rpt_uncrawled_hq_by_coverage_band), each with everything upstream, into a fresh warehouse of
   its own; tests excluded (``--with-tests`` also times each part with its data and unit tests,
   into another warehouse). Wall time and peak memory (RSS of the process tree, summed, sampled
   every 100 ms: bench_marts_rq12's ``run_sampled``); the per-node times from
   ``run_results.json``. Target, logs, warehouses and external exports live under ``--work``
   (a copy of profiles.yml there points external_root at ``<work>/exports``).
2. pandas: the same marts in a child process per part, computed from the contract
   (/tmp/rq34-contract.md, SPEC A5-A12), not from the SQL: the lake's committed Parquet parts
   (a part counts when a manifest row names its key, as in the staging models; read with
   bench_marts_rq12's helpers), the registry seed and dbt_project.yml's vars. ``hashlib``'s md5
   for the sample orders (md5_number = the digest as a little-endian 128-bit integer), one numpy
   sort per seed for the within-host orders (the full crawl's pages keyed by their annotation's
   page key, HQ by their annotation profile's rule in seeds/annotation_profiles.csv; in RQ4 a
   crawl without page annotations takes its host-level ones: density = the host's GneissWeb
   flag, no page counts), ``cumsum``/``bincount``/``searchsorted`` for the k-samples, the
   water-filling and the greedy fills, mid-ranks for the Spearman correlations (one argsort,
   equal to ``scipy.stats.rankdata``'s average ranks; a count when the values are s/k),
   pyarrow ``index_in`` for the host joins. Time per step and peak memory.
3. Every mart of the warehouse against the pandas numbers, in DuckDB (the pandas frames are
   written as Parquet; fct_host_crawls has 30M rows), joined on their keys: rows only on one
   side, null mismatches, unequal flags and strings, the largest absolute difference and the
   largest difference relative to max(1, |value|), with example rows when something differs.

    .venv/bin/python bench/bench_marts_rq34.py --with-tests        # the paper lake (default)
    .venv/bin/python bench/bench_marts_rq34.py --home /work/freshclone/data --work /tmp/rq34
    .venv/bin/python bench/bench_marts_rq34.py --parts rq4 --no-dbt  # the pandas side only

``--home`` (default build/paper-home) is a HOSTAWARE_HOME whose lake/ holds documents,
document_scores, host_ranks, host_index, page_annotations and host_annotations with their
manifests; ``--work``
(default build/bench-rq34) gets the warehouses (rq3-models.duckdb, rq4-with-tests.duckdb, ...,
each deleted first), dbt's targets and logs, the pandas output and DuckDB's spill files;
``--threads`` overrides the profile's dbt threads.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import psutil
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import yaml

try:  # python -m bench.bench_marts_rq34
    from bench.bench_marts_rq12 import (
        DBT,
        PROJECT,
        Steps,
        _codes,
        _committed_parts,
        _gb,
        _manifest,
        _md5_order,
        _numbers,
        _quantile_cont,
        _read,
        _seed,
        run_sampled,
    )
except ModuleNotFoundError:  # python bench/bench_marts_rq34.py: bench/ is on sys.path
    from bench_marts_rq12 import (
        DBT,
        PROJECT,
        Steps,
        _codes,
        _committed_parts,
        _gb,
        _manifest,
        _md5_order,
        _numbers,
        _quantile_cont,
        _read,
        _seed,
        run_sampled,
    )

MARTS = {
    "rq3": ("rpt_sample_size_correlation", "rpt_depth_policy_curves"),
    "rq4": (
        "fct_host_crawls",
        "rpt_coverage_quality_correlation",
        "rpt_uncrawled_hq_summary",
        "rpt_hidden_gems",
        "rpt_missed_hq_by_tld",
        "rpt_uncrawled_hq_by_coverage_band",
    ),
}
TARGET_SECONDS = 300.0
TARGET_BYTES = 8 * 1024**3
TARGET_RATIO = 3.0
DEFAULT_HOME = PROJECT / "build" / "paper-home"
DEFAULT_WORK = PROJECT / "build" / "bench-rq34"
FLOAT_KEYS = {"budget_share", "coverage_band_lower"}
SCORE_UNITS = 1e15  # sample_then_deepen's mean scores, in decimal(38, 15)
RELATIVE_TOLERANCE = 1e-9  # a difference above this (relative) is shown as an example row
# Tables compared one partition at a time (30M rows at once is a 6 GB hash join).
PARTITIONS = {"fct_host_crawls": "crawl"}
# A dimension a model adds beyond the contract's grain: compare its rows at this var's value.
EXTRA_DIMENSIONS = {
    "rpt_coverage_quality_correlation": ("min_annotated_pages", "rq4_min_annotated_pages"),
}
# A contract column the model names otherwise: compared under the model's name (and reported).
COLUMN_ALIASES = {
    "rpt_uncrawled_hq_summary": {"quality_top_decile_threshold": "hq_density_top_cutoff"},
}

# Each compared table: its keys, its numeric columns, the columns that must be equal.
TABLES: dict[str, tuple[list[str], list[str], list[str]]] = {
    name: (keys.split(), numeric.split(), exact.split())
    for name, keys, numeric, exact in [
        (
            "rpt_sample_size_correlation",
            "dataset classifier sample_size host_set",
            "host_count seed_count spearman_rho spearman_rho_sd spearman_rho_min spearman_rho_max",
            "",
        ),
        (
            "rpt_depth_policy_curves",
            "dataset classifier policy budget_share",
            "host_count total_page_count total_hq_page_count budget_pages pages_fetched "
            "hq_expected hq_expected_sd yield_per_fetch ratio_vs_uniform "
            "min_feasible_budget_share seed_count",
            "is_feasible",
        ),
        (
            "fct_host_crawls",
            "crawl surt_host_name",
            "hc_val known_url_count fetched_url_count coverage_rate uncrawled_url_count "
            "annotated_page_count hq_page_count hq_density est_uncrawled_hq",
            "url_host_tld url_host_registry_suffix url_host_registered_domain annotation_level "
            "is_analysed is_low_coverage is_below_median_coverage is_top_decile_quality "
            "is_hidden_gem",
        ),
        (
            "rpt_coverage_quality_correlation",
            "crawl signal",
            "host_count spearman_rho",
            "signal_source",
        ),
        (
            "rpt_uncrawled_hq_summary",
            "crawl",
            "analysed_host_count total_est_uncrawled_hq coverage_median "
            "quality_top_decile_threshold low_coverage_host_count low_coverage_hq_share "
            "below_median_coverage_host_count below_median_coverage_hq_share hidden_gem_count "
            "hidden_gem_host_share hidden_gem_hq_share low_coverage_with_hq_host_count "
            "low_coverage_with_hq_hq_share annotated_hosts_missing_from_host_index",
            "",
        ),
        (
            "rpt_hidden_gems",
            "crawl surt_host_name",
            "gem_rank known_url_count fetched_url_count coverage_rate annotated_page_count "
            "hq_page_count hq_density est_uncrawled_hq",
            "url_host_tld",
        ),
        (
            "rpt_missed_hq_by_tld",
            "crawl url_host_tld",
            "host_count host_share est_uncrawled_hq missed_share over_representation",
            "",
        ),
        (
            "rpt_uncrawled_hq_by_coverage_band",
            "crawl coverage_band_lower",
            "coverage_band_upper host_count est_uncrawled_hq hq_share",
            "",
        ),
    ]
}


# ----------------------------------------------------------------------- dbt


def _profiles_dir(work: Path) -> Path:
    """A copy of the project's profiles.yml whose external_root is ``<work>/exports``."""
    text = (PROJECT / "profiles.yml").read_text()
    exports = work / "exports"
    text, count = re.subn(
        r"(?m)^(\s*external_root:\s*).*$", lambda m: m.group(1) + json.dumps(str(exports)), text
    )
    if count != 1:
        raise SystemExit("profiles.yml: expected one external_root line")
    exports.mkdir(parents=True, exist_ok=True)
    folder = work / "profiles"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "profiles.yml").write_text(text)
    return folder


def run_dbt(
    home: Path, work: Path, part: str, with_tests: bool, threads: int | None = None
) -> dict:
    """``dbt build`` of one part's marts and their parents into a fresh warehouse."""
    name = f"{part}-{'with-tests' if with_tests else 'models'}"
    warehouse = work / f"{name}.duckdb"
    for path in (warehouse, warehouse.with_name(warehouse.name + ".wal")):
        path.unlink(missing_ok=True)
    target, logs = work / f"target-{name}", work / f"logs-{name}"
    shutil.rmtree(target, ignore_errors=True)
    env = {
        **os.environ,
        "HOSTAWARE_HOME": str(home),
        "WAREHOUSE_PATH": str(warehouse),
        "DBT_PROFILES_DIR": str(_profiles_dir(work)),
        "DBT_TARGET_PATH": str(target),
        "DBT_LOG_PATH": str(logs),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    }
    command = [str(DBT), "build", "--target", "dev", "--target-path", str(target)]
    command += ["--select", *[f"+{mart}" for mart in MARTS[part]]]
    if not with_tests:
        command += ["--exclude", "test_type:data test_type:unit"]
    if threads:
        command += ["--threads", str(threads)]
    log = work / f"dbt-{name}.log"
    seconds, peak, code = run_sampled(command, env, log)
    results_file = target / "run_results.json"
    if not results_file.exists():
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
    unbuilt = [
        n for n in nodes if n["node"].startswith(("model", "seed")) and n["status"] != "success"
    ]
    return {
        "name": name,
        "warehouse": warehouse,
        "code": code,
        "seconds": seconds,
        "peak": peak,
        "elapsed": results["elapsed_time"],
        "nodes": sorted(nodes, key=lambda node: -node["seconds"]),
        "unbuilt": unbuilt,
        "log": log,
    }


# ----------------------------------------------------------------------- pandas: shared


def _config() -> dict:
    return yaml.safe_load((PROJECT / "dbt_project.yml").read_text())["vars"]


def _committed(lake: Path, table: str) -> list[tuple[Path, str]]:
    """The parts of a lake table that a manifest row commits: (path, partition value).

    As the staging models join them: documents and their scores by the documents manifest's
    keys; host_index, page_annotations and host_annotations by their manifest's rows of that
    table; host_ranks by (key, release) of the graph manifest's host_ranks rows.
    """
    folders = {
        "documents": ["documents"],
        "document_scores": ["documents"],
        "host_ranks": ["host_ranks", "host_vertices", "host_edges"],
    }.get(table, [table])
    manifest = _manifest(lake, folders)
    if table in ("host_index", "page_annotations", "host_annotations", "host_ranks"):
        manifest = manifest[manifest["lake_table"] == table]
    by_release = table == "host_ranks"
    if by_release:
        committed = set(zip(manifest["key"], manifest["release"], strict=True))
    else:
        committed = {(key, None) for key in manifest["key"]}
    return _committed_parts(lake, table, committed, by_release)


def _as_int(values: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """Arrow integers (no nulls expected) as int64; a null becomes -1."""
    return pc.fill_null(pc.cast(values, pa.int64()), -1).to_numpy(zero_copy_only=False)


def _lookup(names: pa.ChunkedArray | pa.Array, value_set: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """Row of each name in ``value_set`` (the first, if repeated), -1 when absent."""
    if isinstance(value_set, pa.ChunkedArray):
        value_set = value_set.combine_chunks()
    if len(names) == 0:
        return np.zeros(0, dtype=np.int64)
    return _as_int(pc.index_in(names, value_set=value_set))


def _segments(sorted_groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and length of each run of equal values in a sorted array."""
    if not len(sorted_groups):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    starts = np.r_[0, np.flatnonzero(sorted_groups[1:] != sorted_groups[:-1]) + 1]
    return starts, np.diff(np.r_[starts, len(sorted_groups)])


def _midranks(values: np.ndarray) -> np.ndarray:
    """Mid-ranks (ties share their average rank): scipy.stats.rankdata(values), which it
    equals, at about half the cost (one argsort, then runs of equal values)."""
    order = np.argsort(values)
    ordered = values[order]
    new = np.empty(len(values), dtype=bool)
    new[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    run = np.cumsum(new) - 1
    counts = np.bincount(run)
    ranks = np.empty(len(values))
    ranks[order] = (np.cumsum(counts) - (counts - 1) / 2.0)[run]
    return ranks


def _count_midranks(values: np.ndarray, size: int) -> np.ndarray:
    """Mid-ranks of small non-negative integers (< size), by counting instead of sorting."""
    counts = np.bincount(values, minlength=size)
    below = np.cumsum(counts) - counts
    return (below + (counts + 1) / 2.0)[values]


def _pearson(rx: np.ndarray, ry: np.ndarray) -> float:
    """Pearson correlation of two rank vectors; NaN when one is constant or n < 2."""
    if len(rx) < 2:
        return math.nan
    dx, dy = rx - rx.mean(), ry - ry.mean()
    sxx, syy = float(dx @ dx), float(dy @ dy)
    if sxx <= 0 or syy <= 0:
        return math.nan
    return max(-1.0, min(1.0, float(dx @ dy) / math.sqrt(sxx * syy)))


def _spearman(x: np.ndarray, y: np.ndarray) -> float:
    """scipy.stats.spearmanr's rho (average ranks); NaN when a side is constant or n < 2."""
    if len(x) < 2 or x.min() == x.max() or y.min() == y.max():
        return math.nan
    return _pearson(_midranks(x), _midranks(y))


def _sd(values: list[float]) -> float:
    return float(np.std(values, ddof=1)) if len(values) > 1 else math.nan


def _share(part: float, total: float) -> float:
    return part / total if total else math.nan


def _write(frame: pd.DataFrame | pa.Table, path: Path) -> None:
    table = (
        frame if isinstance(frame, pa.Table) else pa.Table.from_pandas(frame, preserve_index=False)
    )
    pq.write_table(table, path)


# ----------------------------------------------------------------------- pandas: RQ3


@dataclass
class PageSet:
    """The pages of one RQ3 dataset: documents x classifiers, with their hosts.

    ``scores[i, c]`` is document i's score by classifier c, NaN when c did not score it (then
    i is not a page of c); ``weights`` is each host's centrality w_h (NaN when it has none).
    ``hq``, when given, flags the HQ pages (the full crawl's, by their profile's rule);
    otherwise a page is HQ when its score is above the classifier's threshold.
    """

    dataset: str
    classifiers: list[str]
    thresholds: np.ndarray
    doc_ids: list[bytes]
    doc_host: np.ndarray
    host_names: list[str]
    scores: np.ndarray
    weights: np.ndarray
    hq: np.ndarray | None = None


def _load_classified(lake: Path, config: dict, notes: list[str]) -> PageSet:
    registry = _seed("classifier_registry")
    registered = registry["classifier"].tolist()
    thresholds = registry["hq_threshold"].fillna(config["hq_threshold_default"]).to_numpy(float)
    documents = _read(_committed(lake, "documents"), ["doc_id", "surt_host_name"])
    scores = _read(_committed(lake, "document_scores"), ["doc_id", "classifier", "score"])
    doc_host, host_names = _codes(documents["surt_host_name"])
    n_docs = len(doc_host)
    if pc.count_distinct(documents["doc_id"]).as_py() != n_docs:
        notes.append("classified: duplicate doc_id (the SQL join would repeat their scores)")
    score_doc = _lookup(scores["doc_id"], documents["doc_id"])
    classifier_code, classifier_names = _codes(scores["classifier"])
    registry_code = np.array(
        [registered.index(c) if c in registered else -1 for c in classifier_names] + [-1],
        dtype=np.int64,
    )[classifier_code]
    value = _numbers(scores["score"])
    keep = (score_doc >= 0) & (registry_code >= 0)
    if np.isnan(value[keep]).any():
        notes.append("classified: null scores (read here as 'not a page of the classifier')")
    matrix = np.full((n_docs, len(registered)), np.nan)
    matrix[score_doc[keep], registry_code[keep]] = value[keep]
    # w_h: harmonic centrality in the graph release (int_hosts_profiled.hc_val)
    ranks = [part for part in _committed(lake, "host_ranks") if part[1] == config["graph_release"]]
    graph = _read(ranks, ["surt_host_name", "hc_val"])
    row = _lookup(pa.array(host_names, pa.string()), graph["surt_host_name"])
    hc = _numbers(graph["hc_val"])
    weights = np.where(row >= 0, hc[row] if len(hc) else np.nan, np.nan)
    doc_ids = pc.cast(documents["doc_id"], pa.binary()).to_pylist()
    return PageSet(
        "classified", registered, thresholds, doc_ids, doc_host, host_names, matrix, weights
    )


PAGE_ANNOTATION_COLUMNS = [
    "page_key",
    "surt_host_name",
    "annotation_profile",
    "quality_score",
    "quality_int_score",
    "in_gneissweb",
]


def _flagged_pages(
    lake: Path, crawl: str, config: dict, notes: list[str]
) -> tuple[pa.Table, np.ndarray, np.ndarray, list[str]]:
    """A crawl's page annotations (of the ``annotation_profile`` var when set), each HQ by its
    profile's rule (seeds/annotation_profiles.csv): the rows, is_hq, the score (the quality
    score, else the flag as 0/1) and the profiles. Rows without their rule's signal are left
    out (the ingest rejects them)."""
    parts = [part for part in _committed(lake, "page_annotations") if part[1] == crawl]
    pages = _read(parts, PAGE_ANNOTATION_COLUMNS)
    wanted = config.get("annotation_profile")
    if wanted is not None:
        pages = pages.filter(pc.equal(pages["annotation_profile"], wanted))
    profile_code, profile_names = _codes(pages["annotation_profile"])
    quality = _numbers(pages["quality_score"])
    int_score = _numbers(pages["quality_int_score"])
    in_gneissweb = _numbers(pages["in_gneissweb"])
    rules = _seed("annotation_profiles").set_index("annotation_profile")
    flag = np.full(pages.num_rows, np.nan)
    for code, name in enumerate(profile_names):
        rows = profile_code == code
        rule, threshold = rules.loc[name, "hq_rule"], rules.loc[name, "hq_threshold"]
        if rule == "in_gneissweb":
            values = in_gneissweb[rows]
        elif rule == "quality_score_above":
            values = np.where(np.isnan(quality[rows]), np.nan, quality[rows] > threshold)
        else:  # int_score_at_least
            values = np.where(np.isnan(int_score[rows]), np.nan, int_score[rows] >= threshold)
        flag[rows] = values
    if len(profile_names) > 1:
        notes.append(
            f"{crawl}: annotated under {', '.join(profile_names)} (the warehouse refuses this: "
            "set the annotation_profile var)"
        )
    keep = ~np.isnan(flag)
    if not keep.all():
        notes.append(f"{crawl}: {int((~keep).sum()):,} page annotations without their signal")
        pages, flag, quality = pages.filter(pa.array(keep)), flag[keep], quality[keep]
    score = np.where(np.isnan(quality), flag, quality)
    return pages, flag > 0, score, profile_names


def _load_fullcrawl(lake: Path, config: dict, notes: list[str]) -> PageSet:
    crawl = config["fullcrawl_crawl"]
    annotations, is_hq, score, profiles = _flagged_pages(lake, crawl, config, notes)
    doc_host, host_names = _codes(annotations["surt_host_name"])
    index = [part for part in _committed(lake, "host_index") if part[1] == crawl]
    host_index = _read(index, ["surt_host_name", "hcrank"])
    row = _lookup(pa.array(host_names, pa.string()), host_index["surt_host_name"])
    hc = _numbers(host_index["hcrank"])
    weights = np.where(row >= 0, hc[row] if len(hc) else np.nan, np.nan)
    notes.append(
        f"fullcrawl ({crawl}, {', '.join(profiles) or 'no profile'}): {annotations.num_rows:,} "
        f"annotated pages, {len(host_names):,} hosts, {int((row < 0).sum()):,} of them without "
        "a host-index row"
    )
    return PageSet(
        "fullcrawl",
        profiles[:1],  # the full crawl's signal is named by its annotation profile
        np.array([math.nan]),
        pc.cast(annotations["page_key"], pa.binary()).to_pylist(),
        doc_host,
        host_names,
        score.reshape(-1, 1)[:, : len(profiles[:1])],
        weights,
        hq=is_hq.reshape(-1, 1)[:, : len(profiles[:1])],
    )


def _sample_order(doc_ids: list[bytes], doc_host: np.ndarray, seed: int) -> np.ndarray:
    """Documents by host, then md5_number(doc_id || ':' || seed) ascending (ties: doc_id).

    A full-crawl page's doc_id is its annotation's page key."""
    high, low = _md5_order(doc_ids, f":{seed}")
    bits = max(1, int(doc_host.max(initial=0)).bit_length())
    # one uint64 key: the host in the high bits, the md5's leading bits below it
    key = (doc_host.astype(np.uint64) << np.uint64(64 - bits)) | (high >> np.uint64(bits))
    order = np.argsort(key)
    if len(order) and np.any(np.diff(key[order]) == 0):  # a truncated-md5 tie in a host
        ids = pa.array(doc_ids, pa.binary())
        id_rank = np.empty(len(doc_ids), dtype=np.int64)
        id_rank[_as_int(pc.sort_indices(ids))] = np.arange(len(doc_ids))
        order = np.lexsort((id_rank, low, high, doc_host))
    return order


def _water_fill(n: np.ndarray, v: np.ndarray, hq: np.ndarray, budgets: np.ndarray) -> np.ndarray:
    """Expected HQ of a_h = min(n_h, c v_h) with sum a_h = B, for each budget B.

    Hosts saturate in order of t_h = n_h / v_h; with the first m saturated,
    sum a_h = sum_{j<m} n_j + c sum_{j>=m} v_j, and the HQ is
    sum_{j<m} HQ_j + c sum_{j>=m} v_j d_j (d = HQ / n).
    """
    t = n / v
    order = np.argsort(t, kind="stable")
    n_s, v_s, hq_s, t_s = n[order], v[order], hq[order], t[order]
    d_s = hq_s / n_s
    n_before = np.r_[0, np.cumsum(n_s)]  # exact: integers
    hq_before = np.r_[0, np.cumsum(hq_s)]
    v_from = np.r_[np.cumsum(v_s[::-1])[::-1], 0.0]  # sum over j >= i
    vd_from = np.r_[np.cumsum((v_s * d_s)[::-1])[::-1], 0.0]
    # the budget at which host i saturates: all before it and itself full, the rest at c = t_i
    saturating = n_before[1:] + t_s * v_from[1:]
    saturated = np.searchsorted(saturating, budgets, side="right")
    total = float(hq_s.sum())
    out = np.empty(len(budgets))
    for index, (budget, m) in enumerate(zip(budgets, saturated, strict=True)):
        if m >= len(n_s):
            out[index] = total
            continue
        level = (budget - n_before[m]) / v_from[m]
        out[index] = hq_before[m] + level * vd_from[m]
    return out


def _greedy_fill(pages: np.ndarray, hq: np.ndarray, budgets: np.ndarray) -> np.ndarray:
    """HQ of hosts (already in fill order) taken whole while they fit, the boundary host
    a fraction (remaining budget / its pages) of its HQ; a budget past the total takes all."""
    before = np.cumsum(pages) - pages
    hq_before = np.cumsum(hq) - hq
    total_pages, total_hq = float(pages.sum()), float(hq.sum())
    out = np.zeros(len(budgets))
    for index, budget in enumerate(budgets):
        if budget <= 0 or not len(pages):
            continue
        if budget >= total_pages:
            out[index] = total_hq
            continue
        boundary = int(np.searchsorted(before, budget, side="left")) - 1
        out[index] = (
            hq_before[boundary] + (budget - before[boundary]) / pages[boundary] * hq[boundary]
        )
    return out


def rq3_dataset(pages: PageSet, config: dict, steps: Steps) -> tuple[list[dict], list[dict]]:
    """rpt_sample_size_correlation and rpt_depth_policy_curves rows of one dataset."""
    seeds = int(config["sample_seeds"])
    k_max = int(config["sample_size_max"])
    fixed_min = int(config["fixed_host_set_min_pages"])
    depth_k = int(config["depth_sample_size"])
    charged = bool(config["depth_sample_is_charged"])
    min_docs = int(config["min_docs_per_host"])
    shares = np.array([float(share) for share in config["budget_shares"]])
    n_hosts = len(pages.host_names)
    n_classifiers = len(pages.classifiers)
    is_page = ~np.isnan(pages.scores)
    is_hq = pages.hq if pages.hq is not None else pages.scores > pages.thresholds  # NaN: False
    host_pages = np.stack(
        [
            np.bincount(pages.doc_host, weights=is_page[:, c], minlength=n_hosts)
            for c in range(n_classifiers)
        ]
    ).astype(np.int64)
    host_hq = np.stack(
        [
            np.bincount(pages.doc_host, weights=is_hq[:, c], minlength=n_hosts)
            for c in range(n_classifiers)
        ]
    ).astype(np.int64)
    # the depth-policy universe: >= min_docs pages and w_h > 0 (NaN, no w_h, is out)
    positive_weight = pages.weights > 0
    universe = [
        np.flatnonzero((host_pages[c] >= min_docs) & positive_weight) for c in range(n_classifiers)
    ]
    # hosts with >= 2 pages take part in some k-sample correlation
    sampled = [np.flatnonzero(host_pages[c] >= 2) for c in range(n_classifiers)]
    rhos: dict[tuple[int, int, str], list[float]] = {}
    host_counts: dict[tuple[int, int, str], int] = {}
    depth_hq = [np.zeros((seeds, len(universe[c]))) for c in range(n_classifiers)]
    depth_mean = [np.zeros((seeds, len(universe[c]))) for c in range(n_classifiers)]
    steps.done(f"{pages.dataset}: host counts")
    for seed in range(1, seeds + 1):
        order = _sample_order(pages.doc_ids, pages.doc_host, seed)
        sorted_host = pages.doc_host[order]
        steps.done(f"{pages.dataset}: md5 and sort per seed")
        for c in range(n_classifiers):
            keep = is_page[order, c]
            hosts = sorted_host[keep]
            hq = is_hq[order, c][keep]
            score = pages.scores[order, c][keep]
            starts, lengths = _segments(hosts)
            position = np.arange(len(hosts)) - np.repeat(starts, lengths)
            # ---- A5: HQ among the first k, k = 1..k_max, per host with >= 2 pages
            local = np.full(n_hosts, -1, dtype=np.int64)
            local[sampled[c]] = np.arange(len(sampled[c]))
            first = (position < k_max) & (local[hosts] >= 0)
            cumulative = np.zeros((len(sampled[c]), k_max), dtype=np.int16)
            cumulative[local[hosts[first]], position[first]] = hq[first]
            np.cumsum(cumulative, axis=1, out=cumulative)
            n_h, hq_h = host_pages[c][sampled[c]], host_hq[c][sampled[c]]
            for k in range(1, k_max + 1):
                for host_set, minimum in (("variable", k + 1), ("fixed", fixed_min)):
                    eligible = n_h >= minimum
                    count = int(eligible.sum())
                    key = (c, k, host_set)
                    host_counts[key] = count
                    if count == 0:
                        continue
                    s = cumulative[eligible, k - 1].astype(np.int64)
                    remaining = (hq_h[eligible] - s) / (n_h[eligible] - k)
                    if count < 2 or s.min() == s.max() or remaining.min() == remaining.max():
                        rho = math.nan
                    else:  # s / k ranks as s does: count instead of sorting
                        rho = _pearson(_count_midranks(s, k + 1), _midranks(remaining))
                    rhos.setdefault(key, []).append(rho)
            # ---- A6: the first min(n_h, depth_k) pages of each universe host
            head = position < depth_k
            sample_hq = np.bincount(hosts[head], weights=hq[head], minlength=n_hosts)
            # the sample's mean score as the model takes it: scores in decimal(38, 15), so
            # means equal in 15 decimals tie (then the md5 of the host decides); in units of
            # 1e-15 the sums are exact integers and equal means divide to the same double
            units = np.round(score[head] * SCORE_UNITS)
            sample_sum = np.bincount(hosts[head], weights=units, minlength=n_hosts)
            taken = np.minimum(host_pages[c], depth_k)
            depth_hq[c][seed - 1] = sample_hq[universe[c]]
            with np.errstate(invalid="ignore", divide="ignore"):
                depth_mean[c][seed - 1] = (sample_sum / taken)[universe[c]]
        steps.done(f"{pages.dataset}: k-samples (positions, cumsum, Spearman)")

    correlation_rows = []
    for (c, k, host_set), count in sorted(host_counts.items()):
        if count == 0:
            continue
        defined = [rho for rho in rhos.get((c, k, host_set), []) if not math.isnan(rho)]
        correlation_rows.append(
            {
                "dataset": pages.dataset,
                "classifier": pages.classifiers[c],
                "sample_size": k,
                "host_set": host_set,
                "host_count": count,
                "seed_count": len(defined),
                "spearman_rho": float(np.mean(defined)) if defined else math.nan,
                "spearman_rho_sd": _sd(defined),
                "spearman_rho_min": min(defined) if defined else math.nan,
                "spearman_rho_max": max(defined) if defined else math.nan,
            }
        )

    curve_rows = []
    for c, classifier in enumerate(pages.classifiers):
        hosts = universe[c]
        if not len(hosts):
            continue
        n = host_pages[c][hosts]
        hq = host_hq[c][hosts]
        w = pages.weights[hosts]
        total_pages, total_hq = int(n.sum()), int(hq.sum())
        budgets = shares * total_pages
        density = hq / n
        uniform = _water_fill(n, np.ones(len(n)), hq, budgets)
        hc_depth = _water_fill(n, w, hq, budgets)
        names = [pages.host_names[h].encode() for h in hosts]
        # md5_number(surt_host_name) breaks ties (host names are distinct, so their digests
        # are too: the last tie-break, the name, is never reached)
        md5_high, md5_low = _md5_order(names)
        oracle_order = np.lexsort((md5_low, md5_high, -hq, -density))
        oracle = _greedy_fill(n[oracle_order], hq[oracle_order], budgets)
        # sample_then_deepen: per seed, the sample then whole hosts by sample density
        taken = np.minimum(n, depth_k)
        sample_cost = int(taken.sum())
        feasible = budgets >= sample_cost
        remaining_budget = budgets - sample_cost if charged else budgets
        deepen = np.empty((seeds, len(budgets)))
        rest = n - taken
        open_hosts = rest > 0
        for seed in range(seeds):
            sample_hq = depth_hq[c][seed]
            order = np.flatnonzero(open_hosts)[
                np.lexsort(
                    (
                        md5_low[open_hosts],
                        md5_high[open_hosts],
                        -depth_mean[c][seed][open_hosts],
                        -(sample_hq[open_hosts] / taken[open_hosts]),
                    )
                )
            ]
            deepen[seed] = sample_hq.sum() + _greedy_fill(
                rest[order], hq[order] - sample_hq[order], remaining_budget
            )
        steps.done(f"{pages.dataset}: depth policies")
        for index, share in enumerate(shares):
            budget = budgets[index]
            for policy, value, sd, ok, minimum, seed_count in (
                ("uniform_breadth", uniform[index], math.nan, True, 0.0, 1),
                ("hc_depth", hc_depth[index], math.nan, True, 0.0, 1),
                (
                    "sample_then_deepen",
                    deepen[:, index].mean(),
                    _sd(list(deepen[:, index])),
                    bool(feasible[index]),
                    sample_cost / total_pages,
                    seeds,
                ),
                ("oracle", oracle[index], math.nan, True, 0.0, 1),
            ):
                hq_expected = float(value) if ok else math.nan
                curve_rows.append(
                    {
                        "dataset": pages.dataset,
                        "classifier": classifier,
                        "policy": policy,
                        "budget_share": float(share),
                        "host_count": len(hosts),
                        "total_page_count": total_pages,
                        "total_hq_page_count": total_hq,
                        "budget_pages": budget,
                        "pages_fetched": budget if ok else math.nan,
                        "hq_expected": hq_expected,
                        "hq_expected_sd": sd if ok else math.nan,
                        "yield_per_fetch": hq_expected / budget if budget else math.nan,
                        "ratio_vs_uniform": hq_expected / uniform[index]
                        if uniform[index]
                        else math.nan,
                        "is_feasible": ok,
                        "min_feasible_budget_share": minimum,
                        "seed_count": seed_count,
                    }
                )
    return correlation_rows, curve_rows


def rq3_marts(home: Path, out: Path, steps: Steps, notes: list[str]) -> None:
    config = _config()
    lake = home / "lake"
    correlation_rows: list[dict] = []
    curve_rows: list[dict] = []
    if config.get("hc_depth_weight", "hc_val") != "hc_val":
        notes.append(
            f"hc_depth_weight is {config['hc_depth_weight']}: this implements the contract's "
            "w_h = hc_val only, so hc_depth rows will differ"
        )
    for load in (_load_classified, _load_fullcrawl):
        pages = load(lake, config, notes)
        steps.done(f"{pages.dataset}: load")
        notes.append(
            f"{pages.dataset}: {len(pages.doc_ids):,} documents, "
            f"{int((~np.isnan(pages.scores)).sum()):,} pages x classifier, "
            f"{len(pages.host_names):,} hosts, {len(pages.classifiers)} classifier(s)"
        )
        correlations, curves = rq3_dataset(pages, config, steps)
        correlation_rows += correlations
        curve_rows += curves
        del pages
    _write(pd.DataFrame(correlation_rows), out / "rpt_sample_size_correlation.parquet")
    _write(pd.DataFrame(curve_rows), out / "rpt_depth_policy_curves.parquet")
    steps.done("write")


# ----------------------------------------------------------------------- pandas: RQ4


def _classifier_medians(
    lake: Path, config: dict
) -> tuple[pa.Array, list[str], list[tuple[np.ndarray, np.ndarray]]]:
    """int_host_classifier_stats' medians for hosts with >= min_docs pages: the host names,
    the registry's classifiers, and per classifier (host indices, median scores)."""
    registry = _seed("classifier_registry")["classifier"].tolist()
    documents = _read(_committed(lake, "documents"), ["doc_id", "surt_host_name"])
    scores = _read(_committed(lake, "document_scores"), ["doc_id", "classifier", "score"])
    doc_host, host_names = _codes(documents["surt_host_name"])
    score_doc = _lookup(scores["doc_id"], documents["doc_id"])
    classifier_code, classifier_names = _codes(scores["classifier"])
    value = _numbers(scores["score"])
    min_docs = int(config["min_docs_per_host"])
    hosts_per_classifier, medians = [], []
    for classifier in registry:
        if classifier not in classifier_names:
            hosts_per_classifier.append(np.zeros(0, dtype=np.int64))
            medians.append(np.zeros(0))
            continue
        keep = (classifier_code == classifier_names.index(classifier)) & (score_doc >= 0)
        host, score = doc_host[score_doc[keep]], value[keep]
        # median() over the host's scores (nulls skipped), count(*) over its rows
        order = np.lexsort((score, host))
        host, score = host[order], score[order]
        starts, rows = _segments(host)
        valid = np.bincount(host, weights=~np.isnan(score), minlength=len(host_names))[
            host[starts]
        ].astype(np.int64)
        enough = (rows >= min_docs) & (valid > 0)
        lo = score[starts + (valid - 1) // 2]
        hi = score[starts + valid // 2]
        median = lo + (hi - lo) * np.where(valid % 2 == 0, 0.5, 0.0)
        hosts_per_classifier.append(host[starts][enough])
        medians.append(median[enough])
    return (
        pa.array(host_names, pa.string()),
        registry,
        list(zip(hosts_per_classifier, medians, strict=True)),
    )


def rq4_marts(home: Path, out: Path, steps: Steps, notes: list[str]) -> None:
    config = _config()
    lake = home / "lake"
    min_annotated = int(config["rq4_min_annotated_pages"])
    low_threshold = float(config["low_coverage_threshold"])
    top_quantile = float(config["top_quality_quantile"])
    # SPEC §5 #13: the fetched count (the contract's default, nutch_fetched, or fetch_200)
    fetched_column = {"fetched_url_count": "nutch_fetched", "fetch_200_count": "fetch_200"}[
        config.get("rq4_fetched_count", "fetched_url_count")
    ]
    index_parts = _committed(lake, "host_index")
    host_annotation_parts = _committed(lake, "host_annotations")
    crawls = sorted({value for _, value in index_parts})
    classified_names, registry, classifier_hosts = _classifier_medians(lake, config)
    steps.done("classified host medians")
    fct_folder = out / "fct_host_crawls"
    fct_folder.mkdir()
    signal_rows, summary_rows, tld_frames, band_frames, gem_tables = [], [], [], [], []
    host_rows = annotation_rows = 0
    for crawl in crawls:
        index = _read(
            [part for part in index_parts if part[1] == crawl],
            [
                "surt_host_name",
                "url_host_tld",
                "url_host_registry_suffix",
                "url_host_registered_domain",
                "hcrank",
                "nutch_num_records",
                "nutch_fetched",
                *(["fetch_200"] if fetched_column == "fetch_200" else []),
            ],
        )
        annotations, is_hq, _, _ = _flagged_pages(lake, crawl, config, notes)
        host_level = annotations.num_rows == 0  # then the crawl's host-level annotations
        if host_level:
            annotations = _read(
                [part for part in host_annotation_parts if part[1] == crawl],
                ["surt_host_name", "in_gneissweb"],
            )
        host_rows += index.num_rows
        annotation_rows += annotations.num_rows
        steps.done("read host index and annotations")
        # annotation rows -> host-index rows (distinct annotation hosts first: fewer probes)
        annotation_host, annotation_names = _codes(annotations["surt_host_name"])
        name_row = _lookup(pa.array(annotation_names, pa.string()), index["surt_host_name"])
        row = name_row[annotation_host] if len(annotation_host) else annotation_host
        n_rows = index.num_rows
        indexed = row >= 0
        level = np.full(n_rows, None, dtype=object)
        if host_level:  # one row per host: its GneissWeb flag is its density, no page counts
            flag = _numbers(annotations["in_gneissweb"])
            level[row[indexed]] = "host"
            annotated = np.zeros(n_rows, dtype=np.int64)
            hq_pages = np.zeros(n_rows, dtype=np.int64)
            density = np.full(n_rows, np.nan)
            density[row[indexed]] = flag[indexed]
            counted = level != "host"  # page counts: 0 without annotation, null at host level
        else:
            annotated = np.bincount(row[indexed], minlength=n_rows)
            hq_pages = np.bincount(row[indexed], weights=is_hq[indexed], minlength=n_rows)
            hq_pages = hq_pages.astype(np.int64)
            level[annotated > 0] = "page"
            with np.errstate(invalid="ignore", divide="ignore"):
                density = np.where(annotated > 0, hq_pages / annotated, np.nan)
            counted = np.ones(n_rows, dtype=bool)
        missing_hosts = int((name_row < 0).sum())
        del annotations, annotation_host, row
        steps.done("join annotations to hosts (index_in, bincount)")
        known = _numbers(index["nutch_num_records"])
        fetched = _numbers(index[fetched_column])
        with np.errstate(invalid="ignore", divide="ignore"):
            covered = (known > 0) & ~np.isnan(fetched)
            coverage = np.where(covered, np.minimum(fetched / known, 1.0), np.nan)
            uncrawled = np.maximum(known - fetched, 0.0)
        # a null fetched count leaves the coverage unknown: not analysed
        enough = (level == "host") | (annotated >= min_annotated)
        analysed = covered & enough
        est = np.where(analysed, uncrawled * density, np.nan)
        a_coverage, a_density, a_est = coverage[analysed], density[analysed], est[analysed]
        n_analysed = int(analysed.sum())
        if n_analysed:
            coverage_median = _quantile_cont(np.sort(a_coverage), 0.5)
            top_threshold = _quantile_cont(np.sort(a_density), top_quantile)
        else:
            coverage_median = top_threshold = math.nan
        low = a_coverage < low_threshold
        below = a_coverage < coverage_median
        top = a_density >= top_threshold
        gem = below & top
        flags = {}
        for name, values in (
            ("is_low_coverage", low),
            ("is_below_median_coverage", below),
            ("is_top_decile_quality", top),
            ("is_hidden_gem", gem),
        ):
            flags[name] = np.zeros(n_rows, dtype=bool)
            flags[name][analysed] = values

        fct = pa.table(
            {
                "crawl": pa.array([crawl] * n_rows, pa.string()),
                "surt_host_name": index["surt_host_name"],
                "url_host_tld": index["url_host_tld"],
                "url_host_registry_suffix": index["url_host_registry_suffix"],
                "url_host_registered_domain": index["url_host_registered_domain"],
                "annotation_level": pa.array(level, pa.string()),
                "hc_val": index["hcrank"],
                "known_url_count": index["nutch_num_records"],
                "fetched_url_count": index[fetched_column],
                "coverage_rate": pa.array(coverage, from_pandas=True),
                "uncrawled_url_count": pa.array(uncrawled, from_pandas=True),
                "annotated_page_count": pa.array(annotated, mask=~counted),
                "hq_page_count": pa.array(hq_pages, mask=~counted),
                "hq_density": pa.array(density, from_pandas=True),
                "is_analysed": analysed,
                "est_uncrawled_hq": pa.array(est, from_pandas=True),
                **{
                    name: pa.array(values, mask=~analysed)  # null off the analysed hosts
                    for name, values in flags.items()
                },
            }
        )
        steps.done("host flags (quantiles)")
        pq.write_table(fct, fct_folder / f"crawl={crawl}.parquet")
        steps.done("write fct_host_crawls")

        # ---- coverage vs quality (a signal without hosts has no row)
        if n_analysed:
            signal_rows.append(
                {
                    "crawl": crawl,
                    "signal": "annotations",
                    "signal_source": "crawl_annotations",
                    "host_count": n_analysed,
                    "spearman_rho": _spearman(a_coverage, a_density),
                }
            )
        classified_row = _lookup(classified_names, index["surt_host_name"])
        for classifier, (hosts, medians) in zip(registry, classifier_hosts, strict=True):
            rows_of = classified_row[hosts]
            pair = rows_of >= 0
            pair[pair] = analysed[rows_of[pair]]
            x, y = coverage[rows_of[pair]], medians[pair]
            if not pair.any():  # no host: no row (as for a crawl without analysed hosts)
                continue
            signal_rows.append(
                {
                    "crawl": crawl,
                    "signal": classifier,
                    "signal_source": "classified_sample",
                    "host_count": int(pair.sum()),
                    "spearman_rho": _spearman(x, y),
                }
            )
        steps.done("Spearman (rankdata)")

        # ---- the summary
        total = float(a_est.sum())
        low_hq = (a_density > 0) & low
        summary_rows.append(
            {
                "crawl": crawl,
                "analysed_host_count": n_analysed,
                "total_est_uncrawled_hq": total,
                "coverage_median": coverage_median,
                "quality_top_decile_threshold": top_threshold,
                "low_coverage_host_count": int(low.sum()),
                "low_coverage_hq_share": _share(float(a_est[low].sum()), total),
                "below_median_coverage_host_count": int(below.sum()),
                "below_median_coverage_hq_share": _share(float(a_est[below].sum()), total),
                "hidden_gem_count": int(gem.sum()),
                "hidden_gem_host_share": _share(int(gem.sum()), n_analysed),
                "hidden_gem_hq_share": _share(float(a_est[gem].sum()), total),
                "low_coverage_with_hq_host_count": int(low_hq.sum()),
                "low_coverage_with_hq_hq_share": _share(float(a_est[low_hq].sum()), total),
                "annotated_hosts_missing_from_host_index": missing_hosts,
            }
        )
        # ---- hidden gems: most est_uncrawled_hq first, ties by host name
        gems = fct.filter(pa.array(flags["is_hidden_gem"]))
        gems = gems.sort_by([("est_uncrawled_hq", "descending"), ("surt_host_name", "ascending")])
        gems = gems.append_column("gem_rank", pa.array(np.arange(1, gems.num_rows + 1)))
        gem_tables.append(gems)
        # ---- by TLD (a null TLD is a group of its own) and by coverage band
        analysed_tld = index["url_host_tld"].filter(pa.array(analysed)).to_pandas()
        by_tld = (
            pd.DataFrame({"url_host_tld": analysed_tld, "est": a_est})
            .groupby("url_host_tld", dropna=False)["est"]
            .agg(["size", "sum"])
            .reset_index()
        )
        by_tld["crawl"] = crawl
        by_tld["host_share"] = by_tld["size"] / n_analysed
        by_tld["missed_share"] = by_tld["sum"] / total if total else math.nan
        tld_frames.append(by_tld)
        band = np.minimum(np.floor(a_coverage * 10), 9)
        by_band = (
            pd.DataFrame({"band": band, "est": a_est})
            .groupby("band")["est"]
            .agg(["size", "sum"])
            .reset_index()
        )
        by_band["crawl"] = crawl
        by_band["hq_share"] = by_band["sum"] / total if total else math.nan
        band_frames.append(by_band)
        del index, fct
        steps.done("summary, gems, TLDs, bands")
    notes.append(
        f"{len(crawls)} crawls, {host_rows:,} host-index rows, {annotation_rows:,} annotation rows"
    )

    _write(pd.DataFrame(signal_rows), out / "rpt_coverage_quality_correlation.parquet")
    _write(pd.DataFrame(summary_rows), out / "rpt_uncrawled_hq_summary.parquet")
    gem_columns = [
        "crawl",
        "gem_rank",
        "surt_host_name",
        "url_host_tld",
        "known_url_count",
        "fetched_url_count",
        "coverage_rate",
        "annotated_page_count",
        "hq_page_count",
        "hq_density",
        "est_uncrawled_hq",
    ]
    gems = (
        pa.concat_tables([table.select(gem_columns) for table in gem_tables])
        if gem_tables
        else None
    )
    if gems is not None:
        pq.write_table(gems, out / "rpt_hidden_gems.parquet")
    tld = pd.concat(tld_frames, ignore_index=True)
    tld = tld.rename(columns={"size": "host_count", "sum": "est_uncrawled_hq"})
    tld["over_representation"] = tld["missed_share"] / tld["host_share"]
    tld["url_host_tld"] = (
        tld["url_host_tld"].astype(object).where(tld["url_host_tld"].notna(), None)
    )
    _write(
        tld[
            [
                "crawl",
                "url_host_tld",
                "host_count",
                "host_share",
                "est_uncrawled_hq",
                "missed_share",
                "over_representation",
            ]
        ],
        out / "rpt_missed_hq_by_tld.parquet",
    )
    bands = pd.concat(band_frames, ignore_index=True)
    bands["coverage_band_lower"] = bands["band"] / 10
    bands["coverage_band_upper"] = (bands["band"] + 1) / 10
    bands = bands.rename(columns={"size": "host_count", "sum": "est_uncrawled_hq"})
    _write(
        bands[
            [
                "crawl",
                "coverage_band_lower",
                "coverage_band_upper",
                "host_count",
                "est_uncrawled_hq",
                "hq_share",
            ]
        ],
        out / "rpt_uncrawled_hq_by_coverage_band.parquet",
    )
    steps.done("write")


def pandas_worker(home: Path, part: str, out: Path) -> None:
    """The child process: compute one part's marts, write them and the step times to ``out``."""
    started = time.perf_counter()
    steps = Steps()
    notes: list[str] = []
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        (rq3_marts if part == "rq3" else rq4_marts)(home, out, steps, notes)
    seconds = dict(steps.seconds)
    seconds["total (in process)"] = time.perf_counter() - started
    (out / "steps.json").write_text(json.dumps({"steps": seconds, "notes": notes}))


def run_pandas(home: Path, work: Path, part: str) -> dict:
    out = work / f"pandas-{part}"
    command = [sys.executable, str(Path(__file__).resolve()), "--pandas-worker", part]
    command += ["--home", str(home), "--worker-out", str(out)]
    log = work / f"pandas-{part}.log"
    seconds, peak, code = run_sampled(command, {**os.environ}, log)
    if code != 0:
        raise SystemExit(f"pandas ({part}) failed ({code}):\n{log.read_text()[-6000:]}")
    return {
        "seconds": seconds,
        "peak": peak,
        "out": out,
        **json.loads((out / "steps.json").read_text()),
    }


# ----------------------------------------------------------------------- comparing


def _pandas_source(out: Path, table: str) -> str | None:
    folder, single = out / table, out / f"{table}.parquet"
    if folder.is_dir():
        return f"read_parquet('{folder}/*.parquet')"
    return f"read_parquet('{single}')" if single.exists() else None


def _select(relation: str, keys: list[str], numeric: list[str], exact: list[str]) -> str:
    """The compared columns of one side: keys as text (budget shares rounded), numbers as
    doubles with NaN as null, the exact columns as text."""
    parts = [
        f"round({k}::double, 9) as {k}" if k in FLOAT_KEYS else f"{k}::varchar as {k}" for k in keys
    ]
    parts += [f"nullif({c}::double, 'nan'::double) as {c}" for c in numeric]
    parts += [f"{c}::varchar as {c}" for c in exact]
    return f"select {', '.join(parts)}, true as present from {relation}"


def _compare_table(
    connection, table: str, relation: str, source: str, row: dict, examples: int
) -> None:
    """Fill ``row`` with the comparison of one table (see ``compare``)."""
    keys, numeric, exact = TABLES[table]
    dbt_columns = {name for name, *_ in connection.execute(f"describe {relation}").fetchall()}
    pandas_columns = {
        name for name, *_ in connection.execute(f"describe select * from {source}").fetchall()
    }
    renamed = {
        column: alias
        for column, alias in COLUMN_ALIASES.get(table, {}).items()
        if column not in dbt_columns and alias in dbt_columns
    }
    if renamed:
        aliases = ", ".join(f"{alias} as {column}" for column, alias in renamed.items())
        relation = f"(select *, {aliases} from {relation})"
        dbt_columns |= set(renamed)
        row["problems"] += [f"dbt names {c} {alias}" for c, alias in renamed.items()]
    row["problems"] += [f"dbt lacks {c}" for c in [*keys, *numeric, *exact] if c not in dbt_columns]
    if any(key not in dbt_columns for key in keys):
        return
    numeric = [c for c in numeric if c in dbt_columns and c in pandas_columns]
    exact = [c for c in exact if c in dbt_columns and c in pandas_columns]
    extra, variable = EXTRA_DIMENSIONS.get(table, (None, None))
    if extra in dbt_columns:
        value = _config()[variable]
        relation = f"(select * from {relation} where {extra} = {value})"
        row["problems"].append(f"dbt adds {extra}: its rows at {extra} = {value} compared")
    key_list = ", ".join(keys)
    total, distinct = connection.execute(
        f"select count(*), count(distinct ({key_list})) from {relation}"
    ).fetchone()
    if total != distinct:
        row["problems"].append(f"dbt: {total - distinct:,} rows repeat a key ({key_list})")
    # a large table is joined one partition (crawl) at a time: a sixth of the memory
    partition = PARTITIONS.get(table)
    values = [None]
    if partition:
        values = [
            value
            for (value,) in connection.execute(
                f"select {partition} from {relation} union select {partition} from {source}"
            ).fetchall()
        ]
    both = "d.present and p.present"
    checks = [  # (description, condition, columns to show in examples, what it measures)
        ("only in dbt", "p.present is null", [], "count"),
        ("only in pandas", "d.present is null", [], "count"),
    ]
    for c in numeric:
        relative = f"abs(d.{c} - p.{c}) / greatest(1, abs(d.{c}), abs(p.{c}))"
        checks += [
            (
                f"{c}: null on one side",
                f"{both} and (d.{c} is null) != (p.{c} is null)",
                [c],
                "count",
            ),
            (f"{c}: absolute difference", f"abs(d.{c} - p.{c})", [c], "max"),
            (f"{c}: relative difference", relative, [c], "max"),
        ]
    checks += [
        (f"{c}: unequal", f"{both} and d.{c} is distinct from p.{c}", [c], "count") for c in exact
    ]
    measures = ", ".join(
        f"count(*) filter (where {condition})" if kind == "count" else f"max({condition})"
        for _, condition, _, kind in checks
    )
    matched = f"count(*) filter (where {both})"
    totals = [0] * (len(checks) + 1)
    first_seen: dict[int, object] = {}  # check -> the partition where it first found something
    for value in values:
        where = "" if value is None else f" where {partition} = '{value}'"
        joined = (
            f"({_select(relation + where, keys, numeric, exact)}) as d full outer join "
            f"({_select(source + where, keys, numeric, exact)}) as p on "
            + " and ".join(f"d.{k} is not distinct from p.{k}" for k in keys)
        )
        found = connection.execute(f"select {matched}, {measures} from {joined}").fetchone()
        totals[0] += found[0]
        for index, (check, measure) in enumerate(zip(checks, found[1:], strict=True)):
            kind = check[3]
            measure = measure or 0
            totals[index + 1] = (
                totals[index + 1] + measure if kind == "count" else max(totals[index + 1], measure)
            )
            interesting = measure > (RELATIVE_TOLERANCE if "relative" in check[0] else 0)
            if interesting and "absolute" not in check[0] and index not in first_seen:
                first_seen[index] = joined
    row["rows"], row["only_dbt"], row["only_pandas"] = totals[0], totals[1], totals[2]
    row.update(null_mismatches=0, exact_mismatches=0, max_abs=0.0, max_rel=0.0, worst="")
    for (description, _, columns, _), total in zip(checks[2:], totals[3:], strict=True):
        if description.endswith("null on one side"):
            row["null_mismatches"] += total
        elif description.endswith("unequal"):
            row["exact_mismatches"] += total
        elif description.endswith("absolute difference"):
            row["max_abs"] = max(row["max_abs"], total)
        elif total > row["max_rel"]:
            row["max_rel"], row["worst"] = total, columns[0]
    for index, joined in sorted(first_seen.items()):
        description, condition, columns, kind = checks[index]
        total = totals[index + 1]
        if kind == "max":
            condition = f"{condition} > {RELATIVE_TOLERANCE} order by {condition} desc"
            description += f" up to {total:.1e}"
        else:
            description = f"{description}: {total:,} rows"
        shown = [f"coalesce(d.{k}, p.{k})::varchar" for k in keys] + [
            f"coalesce(d.{c}::varchar, 'null') || ' | ' || coalesce(p.{c}::varchar, 'null')"
            for c in columns
        ]
        labels = [*keys, *[f"{c} (dbt | pandas)" for c in columns]]
        rows = connection.execute(
            f"select {', '.join(shown)} from {joined} where {condition} limit {examples}"
        ).fetchall()
        row["examples"].append((description, [dict(zip(labels, r, strict=True)) for r in rows]))


def compare(
    warehouse: Path, out: Path, tables: tuple[str, ...], work: Path, examples: int = 3
) -> list[dict]:
    """Per table: rows on both sides, on one side only, null and exact mismatches, the
    largest absolute and relative differences, and a few example rows that differ."""
    import duckdb

    found = []
    spill = work / "duckdb-tmp"
    spill.mkdir(parents=True, exist_ok=True)
    with duckdb.connect() as connection:
        connection.execute(
            f"set threads = 2; set memory_limit = '6GB'; set temp_directory = '{spill}'"
        )
        connection.execute(f"attach '{warehouse}' as wh (read_only)")
        relations = dict(
            connection.execute(
                "select table_name, schema_name from duckdb_tables() where database_name = 'wh' "
                "union all select view_name, schema_name from duckdb_views() "
                "where database_name = 'wh' and not internal"
            ).fetchall()
        )
        for table in tables:
            row: dict = {"table": table, "problems": [], "examples": []}
            found.append(row)
            source = _pandas_source(out, table)
            if table not in relations or source is None:
                row["problems"].append("not in the warehouse" if source else "no pandas output")
                continue
            relation = f'wh."{relations[table]}"."{table}"'
            try:
                _compare_table(connection, table, relation, source, row, examples)
            except duckdb.Error as error:  # a model whose columns drifted from the contract
                row.pop("rows", None)
                row["problems"].append(f"comparison failed: {str(error).splitlines()[0]}")
    return found


# ----------------------------------------------------------------------- main


def _print_dbt(run: dict, top: int) -> None:
    print(
        f"  dbt build ({run['name']}): {run['seconds']:.1f} s wall, "
        f"peak {_gb(run['peak']):.2f} GB; "
        f"dbt's own run {run['elapsed']:.1f} s, startup and parsing "
        f"{run['seconds'] - run['elapsed']:.1f} s; exit code {run['code']}"
    )
    total = sum(node["seconds"] for node in run["nodes"])
    print(f"    slowest nodes (of {len(run['nodes'])}; their times sum to {total:.1f} s):")
    for node in run["nodes"][:top]:
        share = node["seconds"] / total if total else 0.0
        print(f"      {node['seconds']:>8.2f} s {share:>6.1%}  {node['node']}")
    for node in run["unbuilt"]:
        print(f"    NOT BUILT: {node['node']}: {node['status']} {node['message'][:300]}")
    failed = [
        node
        for node in run["nodes"]
        if not node["node"].startswith(("model", "seed"))
        and node["status"] not in ("pass", "success")
    ]
    for node in failed:
        print(f"    NOT PASSED: {node['node']}: {node['status']} {node['message'][:300]}")
    if run["unbuilt"] or failed or run["code"]:
        print(f"    (dbt's log: {run['log']})")


def _print_pandas(run: dict) -> None:
    print(
        f"  pandas/numpy/scipy: {run['seconds']:.1f} s wall (process), "
        f"peak {_gb(run['peak']):.2f} GB"
    )
    for note in run["notes"]:
        print(f"    {note}")
    for step, seconds in run["steps"].items():
        print(f"      {seconds:>8.2f} s  {step}")
    rest = run["seconds"] - run["steps"]["total (in process)"]
    print(f"      {rest:>8.2f} s  the rest: interpreter start, imports")


def _print_comparison(rows: list[dict]) -> None:
    print("  dbt vs pandas (rel = |difference| / max(1, |value|)):")
    print(
        f"    {'table':<36} {'rows':>10} {'only dbt':>8} {'only pd':>8} {'null mism.':>10} "
        f"{'unequal':>8} {'max abs':>9} {'max rel':>9}  worst column"
    )
    for row in rows:
        if "rows" not in row:
            print(f"    {row['table']:<36} {'; '.join(row['problems'])}")
            continue
        print(
            f"    {row['table']:<36} {row['rows']:>10,} {row['only_dbt']:>8,} "
            f"{row['only_pandas']:>8,} {row['null_mismatches']:>10,} {row['exact_mismatches']:>8,} "
            f"{row['max_abs']:>9.1e} {row['max_rel']:>9.1e}  {row['worst']}"
        )
        for problem in row["problems"]:
            print(f"      ! {problem}")
        for description, examples in row["examples"]:
            print(f"      ! {description}, e.g.")
            for example in examples:
                print(f"          {example}")


def _attempt(what: str, function, *args, **kwargs):
    """``function(*args)``, or None with the error printed: one failed stage (a model being
    edited, say) does not lose the others' figures."""
    try:
        return function(*args, **kwargs)
    except (SystemExit, Exception) as error:
        print(f"  {what} FAILED: {str(error)[-3000:]}")
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--home", type=Path, default=DEFAULT_HOME, help="HOSTAWARE_HOME with a lake/"
    )
    parser.add_argument(
        "--work", type=Path, default=DEFAULT_WORK, help="target, logs, warehouses, pandas output"
    )
    parser.add_argument("--parts", nargs="+", choices=sorted(MARTS), default=sorted(MARTS))
    parser.add_argument("--with-tests", action="store_true", help="also time builds with tests")
    parser.add_argument(
        "--no-dbt", action="store_true", help="the pandas side only (no comparison)"
    )
    parser.add_argument("--no-pandas", action="store_true", help="the dbt side only")
    parser.add_argument("--top", type=int, default=12, help="slowest dbt nodes to print")
    parser.add_argument("--threads", type=int, help="dbt's threads (default: the profile's)")
    parser.add_argument("--pandas-worker", choices=sorted(MARTS), help=argparse.SUPPRESS)
    parser.add_argument("--worker-out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    home = args.home.resolve()
    if args.pandas_worker:
        pandas_worker(home, args.pandas_worker, args.worker_out)
        return
    lake = home / "lake"
    if not lake.is_dir():
        raise SystemExit(f"{lake} does not exist")
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    print(f"cores: {psutil.cpu_count()}, memory: {_gb(psutil.virtual_memory().total):.1f} GiB")
    print(f"home: {home}\nwork folder (warehouses, targets, logs, pandas output): {work}")
    for table in ("documents", "host_index", "page_annotations", "host_annotations"):
        files = len(list((lake / table).glob("*=*/part-*.parquet")))
        committed = len(_committed(lake, table))
        print(f"lake {table}: {committed} committed parts of {files} part files")
        if committed != files:
            print("  (parts without a manifest row are not read: is an ingest still running?)")

    summary = []
    for part in args.parts:
        print(f"\n==== {part.upper()}: {', '.join(MARTS[part])}")
        dbt = tested = pandas_run = None
        comparison = []
        if not args.no_dbt:
            dbt = _attempt(f"dbt build ({part})", run_dbt, home, work, part, False, args.threads)
            if dbt:
                _print_dbt(dbt, args.top)
        if not args.no_pandas:
            pandas_run = _attempt(f"pandas ({part})", run_pandas, home, work, part)
            if pandas_run:
                _print_pandas(pandas_run)
        if dbt and pandas_run:
            comparison = (
                _attempt(
                    f"comparison ({part})",
                    compare,
                    dbt["warehouse"],
                    pandas_run["out"],
                    MARTS[part],
                    work,
                )
                or []
            )
            _print_comparison(comparison)
        if args.with_tests and not args.no_dbt:
            tested = _attempt(
                f"dbt build with tests ({part})", run_dbt, home, work, part, True, args.threads
            )
            if tested:
                _print_dbt(tested, min(args.top, 5))
                tests = [n for n in tested["nodes"] if not n["node"].startswith(("model", "seed"))]
                seconds = sum(n["seconds"] for n in tests)
                print(f"    {len(tests)} tests took {seconds:.1f} s (summed)")
        summary.append((part, dbt, tested, pandas_run, comparison))

    print("\nsummary (timings are disturbed by any other work on the machine)")
    print(
        f"  {'part':<5} {'dbt s':>7} {'dbt GB':>7} {'+tests s':>8} {'+tests GB':>9} "
        f"{'pandas s':>9} {'pandas GB':>9} {'ratio':>6} {'max abs':>9} {'max rel':>9} "
        f"{'rows':>11} {'mismatches':>10}"
    )
    for part, dbt, tested, pandas_run, comparison in summary:
        # a build that stopped early is no timing: its figures are shown, not judged
        built = bool(dbt) and not dbt["unbuilt"] and dbt["code"] == 0
        compared = [row for row in comparison if "rows" in row]
        mismatches = sum(
            row["only_dbt"] + row["only_pandas"] + row["null_mismatches"] + row["exact_mismatches"]
            for row in compared
        ) + sum("rows" not in row for row in comparison)  # a table not compared at all

        def number(value: float | None, spec: str) -> str:
            width = int(spec.split(".")[0])
            return f"{'-':>{width}}" if value is None else format(value, spec)

        ratio = pandas_run["seconds"] / dbt["seconds"] if built and pandas_run else None
        print(
            f"  {part:<5} {number(dbt and dbt['seconds'], '7.1f')} "
            f"{number(dbt and _gb(dbt['peak']), '7.2f')} "
            f"{number(tested and tested['seconds'], '8.1f')} "
            f"{number(tested and _gb(tested['peak']), '9.2f')} "
            f"{number(pandas_run and pandas_run['seconds'], '9.1f')} "
            f"{number(pandas_run and _gb(pandas_run['peak']), '9.2f')} "
            f"{number(ratio, '5.1f')}{'x' if ratio else ' '} "
            f"{number(max((r['max_abs'] for r in compared), default=None), '9.1e')} "
            f"{number(max((r['max_rel'] for r in compared), default=None), '9.1e')} "
            f"{sum(r['rows'] for r in compared):>11,} {mismatches:>10,}"
        )
        if dbt and not built:
            print(f"        dbt build did not finish ({len(dbt['unbuilt'])} models not built)")
        if built:

            def verdict(ok: bool) -> str:
                return "met" if ok else "missed"

            seconds, memory = f"< {TARGET_SECONDS:.0f} s", f"< {_gb(TARGET_BYTES):.0f} GB"
            met = [
                f"{seconds} {verdict(dbt['seconds'] < TARGET_SECONDS)}",
                f"{memory} {verdict(dbt['peak'] < TARGET_BYTES)}",
            ]
            if ratio is not None:
                met.append(f"pandas/dbt >= {TARGET_RATIO:.0f}x {verdict(ratio >= TARGET_RATIO)}")
            if tested and not tested["unbuilt"]:
                met.append(
                    f"with tests {seconds} {verdict(tested['seconds'] < TARGET_SECONDS)}, "
                    f"{memory} {verdict(tested['peak'] < TARGET_BYTES)}"
                )
            print(f"        targets (paper lake): {'; '.join(met)}")


if __name__ == "__main__":
    main()
