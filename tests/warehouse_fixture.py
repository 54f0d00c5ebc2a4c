"""Build a warehouse from hand-made lake tables, for the marts' reference checks.

Not a test module. ``write_lake`` lands rows in ``$HOSTAWARE_HOME/lake`` by the ingest's own
write protocol (``ingest.lake``: parts named by the checksum of an input file, committed by a
manifest row written last); ``build_warehouse`` then runs ``dbt build`` of the marts and their
parents into ``$HOSTAWARE_HOME/warehouse.duckdb``. ``adversarial_lake`` makes the rows of the
adversarial fixture: very unequal host sizes, heavy score ties, hosts missing from the graph
or the host index, uncommitted parts that must not count; GneissWeb page annotations of two
crawls with host-index counts that are null, zero or below the fetched count.
"""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from ingest import schemas
from ingest.hosts import surt_host_name
from ingest.lake import (
    IngestReport,
    PartWriter,
    commit_manifest,
    file_key,
    sha256_of,
    write_schema_files,
)

PROJECT = Path(__file__).resolve().parents[1]
DBT = PROJECT / ".venv" / "bin" / "dbt"

SAMPLE_CRAWL = "CC-MAIN-2024-10"  # dbt var sample_crawl
OTHER_CRAWL = "CC-MAIN-2023-50"  # another crawl: RQ1-RQ3 ignore it, RQ4 reports it too
GRAPH_RELEASE = "cc-main-2024-nov-feb-apr"  # dbt var graph_release
# Later than GRAPH_RELEASE by the graph_releases seed (last crawl 2024-22 vs 2024-18) but
# earlier by name: rank stability must order releases by time.
LATER_RELEASE = "cc-main-2024-feb-apr-may"
UNSEEDED_RELEASE = "cc-main-2099-adversarial"  # not in the seed: ordered after the others

RQ12_MARTS = (
    "rpt_host_quality_icc",
    "rpt_centrality_quality_correlations",
    "rpt_score_by_language",
    "rpt_classifier_agreement",
    "rpt_graph_rank_stability",
    "rpt_host_ordering_at_budget",
)
RQ34_MARTS = (
    "rpt_sample_size_correlation",
    "rpt_depth_policy_curves",
    "fct_host_crawls",
    "rpt_coverage_quality_correlation",
    "rpt_uncrawled_hq_summary",
    "rpt_hidden_gems",
    "rpt_missed_hq_by_tld",
    "rpt_uncrawled_hq_by_coverage_band",
)
MARTS = (*RQ12_MARTS, *RQ34_MARTS)

# The partition column of each lake table written here.
_PARTITIONS = {
    "documents": "crawl",
    "document_scores": "crawl",
    "host_ranks": "release",
    "host_index": "crawl",
    "page_annotations": "crawl",
}


@dataclass
class LakeFile:
    """The rows one ingest run of one input file lands, committed or (a crash) not.

    Attributes:
        name: the dummy input file's name; its SHA-256 names the parts.
        manifest_table: the manifest folder that commits the parts (``documents`` commits
            ``documents`` and ``document_scores``).
        tables: lake table → rows, with the table's partition column (one value per file).
        committed: False leaves the parts without a manifest row (readers must skip them).
    """

    name: str
    manifest_table: str
    tables: dict[str, pd.DataFrame]
    committed: bool = True


@dataclass
class AdversarialLake:
    """The adversarial fixture's lake files and the committed rows they hold (the truth)."""

    files: list[LakeFile]
    documents: pd.DataFrame
    document_scores: pd.DataFrame
    host_ranks: pd.DataFrame
    host_index: pd.DataFrame
    page_annotations: pd.DataFrame  # crawl, doc_id, surt_host_name, cosmo_fasttext_score
    notes: dict[str, list[str]] = field(default_factory=dict)


def _arrow_table(rows: pd.DataFrame, schema: pa.Schema) -> pa.Table:
    columns = {}
    for schema_field in schema:
        values = rows[schema_field.name] if schema_field.name in rows else [None] * len(rows)
        columns[schema_field.name] = pa.array(
            [None if pd.isna(value) else value for value in values], type=schema_field.type
        )
    return pa.table(columns, schema=schema)


def write_lake(home: Path, files: list[LakeFile]) -> Path:
    """Land ``files`` in ``home/lake`` with ``ingest.lake``'s protocol; return the lake folder.

    Each file gets a dummy input under ``home/raw`` whose SHA-256 keys its parts, exactly as an
    ingest names them; committed files get their manifest row last.
    """
    lake = home / "lake"
    raw = home / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    write_schema_files(lake)
    for lake_file in files:
        source = raw / lake_file.name
        source.write_text(f"adversarial input {lake_file.name}\n")
        sha = sha256_of(source)
        key = file_key(sha)
        started = datetime.now(UTC)
        outputs: list[str] = []
        written = 0
        partition_values: dict[str, str] = {}
        for table, rows in lake_file.tables.items():
            schema = schemas.TABLES[table][0]
            column = _PARTITIONS[table]
            values = sorted(rows[column].unique())
            assert len(values) == 1, f"{lake_file.name}: one {column} per input file"
            partition_values[column] = values[0]
            with PartWriter(lake, table, key, schema, column) as writer:
                writer.write(values[0], _arrow_table(rows, schema))
                outputs += writer.publish()
            if table == lake_file.manifest_table:
                written = len(rows)
        if not lake_file.committed:
            continue
        report = IngestReport(source, read=written, written=written)
        commit_manifest(
            lake,
            lake_file.manifest_table,
            report,
            sha,
            outputs,
            started,
            crawl=partition_values.get("crawl"),
            release=partition_values.get("release"),
        )
    return lake


@dataclass
class Build:
    """A ``dbt build`` whose seeds and models all succeeded.

    Attributes:
        warehouse: the DuckDB file.
        target: dbt's target folder (compiled SQL under ``compiled/hostaware/models``).
        failed_tests: data and unit tests that failed or errored (they skip nothing here:
            the build raises instead when a seed or model did not build).
        log: dbt's output.
    """

    warehouse: Path
    target: Path
    failed_tests: list[str]
    log: str


def build_warehouse(home: Path, marts: tuple[str, ...] = MARTS) -> Build:
    """``dbt build`` the marts and everything upstream (seeds too) over ``home``'s lake.

    Target and log folders go under ``home`` so that parallel builds do not collide. Failed
    tests are returned, not raised, so that a failing data test does not hide the numbers.

    Raises:
        AssertionError: when a seed or model failed or was skipped, with the end of dbt's log.
    """
    warehouse = home / "warehouse.duckdb"
    target = home / "target"
    env = {
        **os.environ,
        "HOSTAWARE_HOME": str(home),
        "WAREHOUSE_PATH": str(warehouse),
        "DBT_PROFILES_DIR": str(PROJECT),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "DBT_LOG_PATH": str(home / "logs"),
    }
    selectors = [f"+{mart}" for mart in marts]
    command = [str(DBT), "build", "--target", "dev", "--target-path", str(target)]
    command += ["--select", *selectors]
    result = subprocess.run(
        command, cwd=PROJECT, env=env, capture_output=True, text=True, check=False
    )
    log = f"{result.stdout[-12000:]}\n{result.stderr}"
    results_file = target / "run_results.json"
    results = json.loads(results_file.read_text())["results"] if results_file.exists() else []
    failed_tests, not_built = [], []
    for node in results:
        if node["unique_id"].startswith(("test.", "unit_test.")):
            if node["status"] not in ("pass", "warn"):
                failed_tests.append(f"{node['unique_id']}: {node['status']} {node['message']}")
        elif node["status"] != "success":
            not_built.append(f"{node['unique_id']}: {node['status']}")
    if not_built or not results or (result.returncode != 0 and not failed_tests):
        raise AssertionError(f"dbt build failed ({result.returncode}): {not_built}\n{log}")
    return Build(warehouse, target, failed_tests, log)


# ----------------------------------------------------------------------- the adversarial lake

# Host sizes from 1 to 200 pages: some below min_docs_per_host (3), most small, a few huge.
HOST_SIZES = [
    *[1, 1, 1, 2, 2, 2, 2],
    *[3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 6, 6, 6, 7, 7, 8, 9],
    *[10, 10, 10, 11, 12, 13, 15, 16, 18, 20, 22, 25, 28, 30, 35, 40, 45, 50],
    *[60, 70, 80, 100, 120, 150, 200],
]
# Public suffixes, covering every macro category of the tld_macro_categories seed.
TLDS = [
    *["com"] * 15,
    *["de"] * 5,
    *["org"] * 5,
    *["net"] * 4,
    *["edu"] * 4,
    *["ac.uk"] * 4,
    *["co.uk"] * 3,
    *["gov"] * 3,
    *["fr"] * 3,
    *["info"] * 3,
    *["io"] * 2,
    *["com.au"] * 2,
    *["gouv.fr"] * 2,
    *["mil"] * 1,
    *["org.uk"] * 1,
    *["biz"] * 1,
    *["xyz"] * 1,
]
LANGUAGES = ["en", "en", "en", "de", "fr", "ja", "sw", None]  # sw: not in language_strata
SCORE_GRID = 20  # scores are multiples of 1/20: heavy ties, and 0.5 itself (not HQ)


def _grid(values: np.ndarray) -> np.ndarray:
    return np.clip(np.round(values * SCORE_GRID), 0, SCORE_GRID) / SCORE_GRID


def _hosts(rng: np.random.Generator) -> pd.DataFrame:
    sizes = list(HOST_SIZES)
    tlds: list[str | None] = list(TLDS)
    rng.shuffle(tlds)
    tlds = [*tlds[: len(sizes) - 1], None]  # the last host is an IP address: no suffix
    order = rng.permutation(len(sizes))
    sizes = [sizes[i] for i in order]
    half_english = sizes.index(4)  # pages en, de, en, null: exactly half English
    constant = sizes.index(6)  # every page scores the same, for every classifier
    rows = []
    for index, (size, tld) in enumerate(zip(sizes, tlds, strict=True)):
        if tld is None:
            name, domain = f"10.0.{index}.7", None
        else:
            domain = f"site{index:02d}.{tld}"
            name = ("www." if index % 3 == 0 else f"blog{index}.") + domain
        rows.append(
            {
                "host": name,
                "surt_host_name": surt_host_name(name),
                "url_host_registered_domain": domain,
                "url_host_tld": tld,
                "size": size,
                "quality": float(rng.uniform(0.05, 0.95)),
                "language": LANGUAGES[index % len(LANGUAGES)],
                "is_half_english": index == half_english,
                "is_constant": index == constant,
            }
        )
    return pd.DataFrame(rows)


def _documents(rng: np.random.Generator, hosts: pd.DataFrame, crawl: str) -> pd.DataFrame:
    rows = []
    start = datetime(2024, 2, 20, tzinfo=UTC)
    for host in hosts.itertuples():
        for page in range(host.size):
            if host.is_half_english:  # English-primary: the share is >= 0.5
                language = ["en", "de", "en", None][page % 4]
            elif rng.random() < 0.7:
                language = host.language
            else:
                language = LANGUAGES[int(rng.integers(len(LANGUAGES)))]
            rows.append(
                {
                    "doc_id": f"<urn:uuid:{uuid.UUID(bytes=rng.bytes(16))}>",
                    "url": f"https://{host.host}/page/{page}",
                    "surt_host_name": host.surt_host_name,
                    "url_host_registered_domain": host.url_host_registered_domain,
                    "url_host_tld": host.url_host_tld,
                    "warc_file": f"adversarial-{host.Index % 2}.warc.gz",
                    "warc_record_offset": int(rng.integers(0, 1 << 30)),
                    "language": language,
                    "language_score": float(rng.uniform(0.5, 1.0)),
                    "language_source": "cld2",
                    "text_length": int(rng.integers(200, 20000)),
                    "payload_digest": None,
                    "fetched_at": start + timedelta(seconds=int(rng.integers(0, 86400))),
                    "crawl": crawl,
                    "quality": host.quality,
                    "is_constant": host.is_constant,
                }
            )
    return pd.DataFrame(rows)


def _scores(rng: np.random.Generator, documents: pd.DataFrame) -> pd.DataFrame:
    """Three classifiers on a 1/20 grid (one on {0, 0.5, 1}); one scores only most pages."""
    quality = documents["quality"].to_numpy()
    count = len(documents)
    dclm = _grid(quality + rng.normal(0, 0.15, count))
    edu = _grid(0.3 + 0.5 * (1 - quality) + rng.normal(0, 0.2, count))
    nemotron = np.choose(
        (rng.random(count) < quality).astype(int) + (rng.random(count) < quality).astype(int),
        [0.0, 0.5, 1.0],
    )
    # A host whose pages all score the same, for every classifier (zero within-host variance).
    constant = documents["is_constant"].to_numpy(dtype=bool)
    dclm[constant], edu[constant], nemotron[constant] = 0.5, 0.75, 0.5
    edu_scored = (rng.random(count) < 0.85) | constant
    frames = [
        pd.DataFrame({"doc_id": documents["doc_id"], "classifier": "dclm_demo", "score": dclm}),
        pd.DataFrame(
            {
                "doc_id": documents["doc_id"][edu_scored],
                "classifier": "fineweb_edu_demo",
                "score": edu[edu_scored],
            }
        ),
        pd.DataFrame(
            {
                "doc_id": documents["doc_id"],
                "classifier": "nemotron_quality_demo",
                "score": nemotron,
            }
        ),
    ]
    scores = pd.concat(frames, ignore_index=True)
    scores["crawl"] = documents["crawl"].iloc[0]
    return scores


def _positions(values: pd.Series) -> pd.Series:
    return values.rank(ascending=False, method="first", na_option="keep").astype("Int64")


def _ranks(
    rng: np.random.Generator, hosts: pd.DataFrame, release: str, quality_weight: float
) -> pd.DataFrame:
    """hc_val and pr_val from a few levels (many ties), loosely following host quality."""
    signal = quality_weight * hosts["quality"].to_numpy() + rng.normal(0, 0.25, len(hosts))
    hc_level = np.clip(np.round(signal * 8), -2, 9) + 3
    pr_level = np.clip(np.round(signal * 6 + rng.normal(0, 1, len(hosts))), -1, 8) + 2
    ranks = pd.DataFrame(
        {
            "surt_host_name": hosts["surt_host_name"].to_numpy(),
            "hc_val": 1.0e6 * (1 + hc_level / 4),
            "pr_val": 1.0e-8 * pr_level,
            "release": release,
        }
    )
    ranks["hc_pos"] = _positions(ranks["hc_val"])
    ranks["pr_pos"] = _positions(ranks["pr_val"])
    return ranks


# Annotated pages per host of one crawl (65 hosts): single pages, pairs, many of 2-25 pages
# and a dozen of >= 21 (the k-sample correlation's 'fixed' host set).
ANNOTATION_SIZES = [
    *[1] * 6,
    *[2] * 6,
    *range(3, 26),
    *range(3, 21),
    *[21, 21, 22, 23, 25, 26, 28, 30, 34, 40, 55, 80],
]
ANNOTATED_CLASSIFIED_HOSTS = 45  # the rest of the annotated hosts are not in the sample
ANNOTATION_ONLY_TLDS = ["com", "co.uk", "ac.uk", "de", "org", "com", "fr", "co.uk", None, "io"]
# (known, fetched) of the annotation-only hosts with a host-index row, per crawl: coverage at
# band edges (0.1, 0.2, 0.3, 0.7 and 1.0 by several fractions), known = 0, null counts,
# known < fetched (coverage capped at 1, nothing uncrawled).
ANNOTATION_ONLY_COUNTS = {
    SAMPLE_CRAWL: [
        (10, 2),
        (20, 4),
        (100, 20),
        (10, 3),
        (20, 6),
        (10, 7),
        (100, 70),
        (0, 5),
        (0, 0),
        (None, 10),
        (50, None),
        (10, 20),
        (5, 50),
        (100, 10),
        (100, 100),
        (200, 1),
    ],
    OTHER_CRAWL: [
        (30, 9),
        (10, 1),
        (20, 2),
        (50, 10),
        (0, 3),
        (None, None),
        (40, 40),
        (10, 2),
        (7, 70),
        (100, 30),
        (60, 18),
        (10, 5),
        (20, 10),
        (1000, 1),
        (10, 10),
        (100, 90),
    ],
}
ANNOTATION_ONLY_INDEXED = len(ANNOTATION_ONLY_COUNTS[SAMPLE_CRAWL])  # 4 more are not indexed
HCRANK_LEVELS = np.array([0.0, 1.5e6, 2.0e6, 2.0e6, 3.0e6, 3.0e6, 5.0e6, 5.0e6, np.nan])


def _annotation_hosts(
    rng: np.random.Generator, hosts: pd.DataFrame, unindexed: set
) -> pd.DataFrame:
    """The annotated hosts: classified ones (all of ``unindexed`` among them), then others."""
    others = [i for i in hosts.index if i not in unindexed]
    chosen = sorted(unindexed) + list(
        rng.choice(others, size=ANNOTATED_CLASSIFIED_HOSTS - len(unindexed), replace=False)
    )
    classified = hosts.loc[
        chosen, ["host", "surt_host_name", "url_host_registered_domain", "url_host_tld"]
    ]
    rows = []
    for index in range(len(ANNOTATION_SIZES) - ANNOTATED_CLASSIFIED_HOSTS):
        tld = ANNOTATION_ONLY_TLDS[index % len(ANNOTATION_ONLY_TLDS)]
        if tld is None:
            name, domain = f"10.1.{index}.9", None
        else:
            domain = f"ann{index:02d}.{tld}"
            name = ("www." if index % 2 else f"shop{index}.") + domain
        rows.append(
            {
                "surt_host_name": surt_host_name(name),
                "url_host_registered_domain": domain,
                "url_host_tld": tld,
                "host": name,
            }
        )
    pool = pd.concat([classified, pd.DataFrame(rows)], ignore_index=True)
    pool["is_annotation_only"] = pool.index >= ANNOTATED_CLASSIFIED_HOSTS
    kinds = np.array(["all_hq", "all_lq", "all_lq", *["mixed"] * 15])
    pool["kind"] = kinds[rng.permutation(len(pool)) % len(kinds)]
    pool["quality"] = rng.uniform(0.1, 0.7, len(pool))
    return pool


def _annotations(
    rng: np.random.Generator, pool: pd.DataFrame, crawl: str, size: int | None = None
) -> pd.DataFrame:
    """Annotated pages of ``pool`` in one crawl: GneissWeb scores on the 1/20 grid, some null.

    Sizes are ``ANNOTATION_SIZES`` shuffled (or ``size`` pages each); 'all_hq' hosts score
    above 0.5 on every page, 'all_lq' hosts at most 0.5 (often exactly 0.5, which is not HQ);
    the first annotation-only host with a host-index row has no non-null score at all.
    """
    if size is None:
        sizes = np.array(ANNOTATION_SIZES)[rng.permutation(len(pool))]
    else:
        sizes = np.full(len(pool), size)
    rows = []
    for host, size in zip(pool.itertuples(), sizes, strict=True):
        if host.kind == "all_hq":
            scores = rng.choice(np.arange(11, 21), size) / SCORE_GRID
        elif host.kind == "all_lq":
            scores = rng.choice(np.array([0, 4, 8, 9, 10, 10, 10]), size) / SCORE_GRID
        else:
            scores = _grid(host.quality + rng.normal(0, 0.2, size))
        missing = rng.random(size) < 0.06
        if host.Index == ANNOTATED_CLASSIFIED_HOSTS:  # annotated, but never scored
            missing[:] = True
        for page, (score, is_missing) in enumerate(zip(scores, missing, strict=True)):
            rows.append(
                {
                    "doc_id": f"<urn:uuid:{uuid.UUID(bytes=rng.bytes(16))}>",
                    "url": f"https://{host.host}/a/{page}",
                    "surt_host_name": host.surt_host_name,
                    "language": "en",
                    "cosmo_fasttext_score": None if is_missing else float(score),
                    "dclm_fasttext_score": float(rng.integers(0, 21)) / SCORE_GRID,
                    "crawl": crawl,
                }
            )
    return pd.DataFrame(rows)


def _annotation_only_index(pool: pd.DataFrame, crawl: str) -> pd.DataFrame:
    """Host-index rows of the first annotation-only hosts (the last four have none)."""
    indexed = pool[pool["is_annotation_only"]].iloc[:ANNOTATION_ONLY_INDEXED]
    known, fetched = zip(*ANNOTATION_ONLY_COUNTS[crawl], strict=True)
    return pd.DataFrame(
        {
            "surt_host_name": indexed["surt_host_name"].to_numpy(),
            "url_host_registered_domain": indexed["url_host_registered_domain"].to_numpy(),
            "url_host_tld": indexed["url_host_tld"].to_numpy(),
            "nutch_num_records": pd.array(known, dtype="Int64"),
            "nutch_fetched": pd.array(fetched, dtype="Int64"),
            "crawl": crawl,
        }
    )


def adversarial_lake(seed: int = 20241010, null_pagerank: bool = True) -> AdversarialLake:
    """The adversarial fixture: ~60 classified hosts of 1-200 pages, 3 classifiers, ties.

    * Host sizes 1..200; hosts below min_docs_per_host; one classifier scores only ~85% of
      pages, so a host's page count differs by classifier.
    * Scores on a 1/20 grid (the Nemotron-style one on {0, 0.5, 1}): tied scores, tied host
      medians, scores of exactly 0.5 (not HQ: the flag is strictly above the threshold); one
      host scores the same on every page.
    * Mixed-language hosts (one exactly half English), languages missing from the seed and
      null; every TLD macro category; an IP-address host without a public suffix.
    * Graph: a few classified hosts absent from the graph release (outside the host universe),
      graph-only hosts, hc_val/pr_val on few levels (ties); two more releases, one later by
      time but earlier by name, one unknown to the graph_releases seed.
    * With ``null_pagerank``, one classified host of the graph release has a null pr_val.
    * Host index: hosts missing from the sample crawl, null and tied fetched counts, another
      crawl with other counts.
    * Uncommitted parts (a crash before the manifest row) of documents, scores and ranks.
    * One classified host of the graph release has hc_val = 0 (outside the depth universe).
    * GneissWeb page annotations of the sample crawl and of the other crawl (``_annotations``):
      45 classified hosts and 20 others, of 1 to 80 pages; hosts all HQ and all low quality,
      scores of exactly 0.5, null scores (one host has no score at all); annotated hosts
      missing from the host index (five classified, four others); host-index rows with
      known < fetched, known = 0, null known or fetched counts and coverage exactly at the
      band edges; ``hcrank`` on a few levels, some 0 and some null. An uncommitted
      annotation part scores every page 1.0.
    """
    rng = np.random.default_rng(seed)
    notes: dict[str, list[str]] = {}
    hosts = _hosts(rng)
    documents = _documents(rng, hosts, SAMPLE_CRAWL)
    scores = _scores(rng, documents)

    # Graph release: drop four classified hosts of >= 3 pages and a small one; add 40 hosts.
    eligible = hosts.index[(hosts["size"] >= 3) & hosts["url_host_tld"].notna()]
    missing = set(rng.choice(eligible, size=4, replace=False)) | {int(hosts.index[0])}
    extra = pd.DataFrame(
        {
            "surt_host_name": [f"com,graph-only-{i:02d}" for i in range(40)],
            "quality": rng.uniform(0, 1, 40),
        }
    )
    in_graph = pd.concat([hosts.drop(index=list(missing)), extra], ignore_index=True)
    ranks = _ranks(rng, in_graph, GRAPH_RELEASE, quality_weight=1.0)
    if null_pagerank:  # `---` in the ranks file (the older join path): a host without PageRank
        host = hosts.loc[next(i for i in eligible if i not in missing), "surt_host_name"]
        ranks.loc[ranks["surt_host_name"] == host, ["pr_val", "pr_pos"]] = None
        notes["host_without_pagerank"] = [host]
    # A host without incoming links: harmonic centrality 0 (no depth weight, SPEC A6).
    zero_hc = next(
        hosts.loc[i, "surt_host_name"]
        for i in reversed(eligible)
        if i not in missing
        and hosts.loc[i, "surt_host_name"] not in notes.get("host_without_pagerank", [])
    )
    ranks.loc[ranks["surt_host_name"] == zero_hc, "hc_val"] = 0.0
    ranks["hc_pos"] = _positions(ranks["hc_val"])
    notes["host_with_zero_hc"] = [zero_hc]
    later_hosts = in_graph.sample(frac=0.85, random_state=seed)
    later_hosts = pd.concat([later_hosts, hosts.loc[list(missing)]], ignore_index=True)
    later = _ranks(rng, later_hosts, LATER_RELEASE, quality_weight=0.8)
    unseeded = _ranks(rng, in_graph.sample(frac=0.6, random_state=seed + 1), UNSEEDED_RELEASE, 0.5)

    # Host index: the sample crawl lacks five classified hosts; fetched counts tie, some null.
    indexed = hosts.drop(index=rng.choice(hosts.index, size=5, replace=False))
    fetched = rng.choice(np.array([0, 5, 10, 10, 20, 50, 100, 100, 400], dtype=float), len(indexed))
    fetched[rng.random(len(indexed)) < 0.12] = np.nan
    host_index = pd.DataFrame(
        {
            "surt_host_name": indexed["surt_host_name"].to_numpy(),
            "url_host_registered_domain": indexed["url_host_registered_domain"].to_numpy(),
            "url_host_tld": indexed["url_host_tld"].to_numpy(),
            "nutch_fetched": pd.array(fetched, dtype="Int64"),
            "crawl": SAMPLE_CRAWL,
        }
    )
    host_index["nutch_num_records"] = host_index["nutch_fetched"] * 3 + 1
    other_crawl = host_index.assign(
        crawl=OTHER_CRAWL, nutch_fetched=pd.array(rng.integers(0, 1000, len(host_index)))
    )

    # GneissWeb annotations of both crawls, from their own generator (the rows above stay as
    # they were), and the host-index rows and counts they need.
    annotation_rng = np.random.default_rng(seed + 1)
    unindexed = set(hosts.index) - set(indexed.index)
    pool = _annotation_hosts(annotation_rng, hosts, unindexed)
    annotations = {
        crawl: _annotations(annotation_rng, pool, crawl) for crawl in (SAMPLE_CRAWL, OTHER_CRAWL)
    }
    classified_rows = host_index.index
    host_index = pd.concat(
        [host_index, _annotation_only_index(pool, SAMPLE_CRAWL)], ignore_index=True
    )
    other_crawl = pd.concat(
        [other_crawl, _annotation_only_index(pool, OTHER_CRAWL)], ignore_index=True
    )
    # Annotated classified hosts with a fetched count: known = 0, known < fetched, known null.
    annotated = host_index["surt_host_name"].isin(pool["surt_host_name"])
    edited = host_index.index[
        annotated
        & host_index["nutch_fetched"].fillna(0).ge(5)
        & host_index.index.isin(classified_rows)
    ][:3]
    host_index.loc[edited[0], "nutch_num_records"] = 0
    host_index.loc[edited[1], "nutch_num_records"] = host_index.loc[edited[1], "nutch_fetched"] // 2
    host_index.loc[edited[2], "nutch_num_records"] = pd.NA
    # The other crawl: most known counts a multiple of the fetched one (coverage 1, 1/2, 1/4,
    # 1/5, 1/10: tied, and on the band edges); the rest keep known < fetched.
    rescaled = other_crawl.index.isin(classified_rows) & other_crawl["nutch_num_records"].notna()
    rescaled &= annotation_rng.random(len(other_crawl)) < 0.8
    multiples = annotation_rng.choice(np.array([1, 2, 4, 5, 10]), len(other_crawl))
    other_crawl.loc[rescaled, "nutch_num_records"] = (
        other_crawl.loc[rescaled, "nutch_fetched"] * multiples[rescaled]
    )
    for frame in (host_index, other_crawl):
        frame["hcrank"] = annotation_rng.choice(HCRANK_LEVELS, len(frame))
    crashed_annotations = _annotations(
        annotation_rng, pool[pool["kind"] == "mixed"].iloc[:3], SAMPLE_CRAWL, size=10
    ).assign(cosmo_fasttext_score=1.0)
    notes["annotated_hosts_missing_from_sample_index"] = sorted(
        set(pool["surt_host_name"]) - set(host_index["surt_host_name"])
    )

    # Rows of a crashed ingest: parts written, no manifest row. They must not count.
    big = hosts.index[hosts["size"] >= 3][:3]
    crashed_documents = _documents(rng, hosts.loc[big].assign(size=10, quality=1.0), SAMPLE_CRAWL)
    crashed_scores = _scores(rng, crashed_documents)
    crashed_scores["score"] = 1.0
    crashed_ranks = _ranks(rng, hosts.loc[list(missing)], GRAPH_RELEASE, quality_weight=1.0)

    half = documents["doc_id"].map(lambda doc_id: int(doc_id[-3:-1], 16) % 2)
    files = [
        LakeFile(
            f"adversarial-{part}.warc.gz",
            "documents",
            {
                "documents": documents[half == part],
                "document_scores": scores[scores["doc_id"].isin(documents["doc_id"][half == part])],
            },
        )
        for part in (0, 1)
    ]
    files += [
        LakeFile(
            "crashed.warc.gz",
            "documents",
            {"documents": crashed_documents, "document_scores": crashed_scores},
            committed=False,
        ),
        LakeFile(f"{GRAPH_RELEASE}-host-ranks.txt.gz", "host_ranks", {"host_ranks": ranks}),
        LakeFile(f"{LATER_RELEASE}-host-ranks.txt.gz", "host_ranks", {"host_ranks": later}),
        LakeFile(f"{UNSEEDED_RELEASE}-host-ranks.txt.gz", "host_ranks", {"host_ranks": unseeded}),
        LakeFile("crashed-host-ranks.txt.gz", "host_ranks", {"host_ranks": crashed_ranks}, False),
        LakeFile("host-index-2024-10.parquet", "host_index", {"host_index": host_index}),
        LakeFile("host-index-2023-50.parquet", "host_index", {"host_index": other_crawl}),
    ]
    sample_annotations = annotations[SAMPLE_CRAWL]
    odd = sample_annotations["doc_id"].map(lambda doc_id: int(doc_id[-3:-1], 16) % 2)
    files += [
        LakeFile(
            f"gneissweb-2024-10-{part}.parquet",
            "page_annotations",
            {"page_annotations": sample_annotations[odd == part]},
        )
        for part in (0, 1)
    ]
    files += [
        LakeFile(
            "gneissweb-2023-50.parquet",
            "page_annotations",
            {"page_annotations": annotations[OTHER_CRAWL]},
        ),
        LakeFile(
            "gneissweb-crashed.parquet",
            "page_annotations",
            {"page_annotations": crashed_annotations},
            committed=False,
        ),
    ]
    return AdversarialLake(
        files=files,
        documents=documents.drop(columns=["quality", "is_constant"]),
        document_scores=scores,
        host_ranks=pd.concat([ranks, later, unseeded], ignore_index=True),
        host_index=pd.concat([host_index, other_crawl], ignore_index=True),
        page_annotations=pd.concat(annotations.values(), ignore_index=True)[
            ["crawl", "doc_id", "surt_host_name", "cosmo_fasttext_score"]
        ],
        notes={
            **notes,
            "hosts_missing_from_graph": sorted(hosts.loc[list(missing), "surt_host_name"]),
        },
    )


def tiny_warehouse_or_skip() -> Path:
    """The tiny crawl's warehouse that `make dbt-test-build` made (HOSTAWARE_TEST_WAREHOUSE).

    Tests marked ``warehouse`` read it; without it they are skipped (`make warehouse-test`
    always sets it).
    """
    named = os.environ.get("HOSTAWARE_TEST_WAREHOUSE")
    if not named:
        pytest.skip("HOSTAWARE_TEST_WAREHOUSE is not set (make dbt-test-build builds it)")
    path = Path(named)
    if not path.is_file():
        pytest.skip(f"HOSTAWARE_TEST_WAREHOUSE={named} does not exist (run make dbt-test-build)")
    return path
