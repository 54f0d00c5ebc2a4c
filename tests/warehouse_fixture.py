"""Build a warehouse from hand-made lake tables, for the marts' reference checks.

Not a test module. ``write_lake`` lands rows in ``$HOSTAWARE_HOME/lake`` by the ingest's own
write protocol (``ingest.lake``: parts named by the checksum of an input file, committed by a
manifest row written last), and runs the real annotation ingest on the few source files given
as ``SourceFile``; ``build_warehouse`` then runs ``dbt build`` of the marts and their parents
into ``$HOSTAWARE_HOME/warehouse.duckdb``. ``adversarial_lake`` makes the rows of the
adversarial fixture: very unequal host sizes, heavy score ties, hosts missing from the graph
or the host index, uncommitted parts that must not count; hosts whose public suffix
(``url_host_registry_suffix``: ac.uk, co.uk, gov.uk, com.au) differs from their last label
(``url_host_tld``: uk, au); page annotations of two crawls under two annotation profiles
(data-prep-kit's P(hq) scores, Common Crawl's URL-level GneissWeb flags with two captures of
some URLs), host-level annotations that must be ignored (their crawl has page-level ones) and a
third crawl annotated at host level only; host-index counts that are null, zero or below the
fetched count.
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
import pyarrow.parquet as pq
import pytest

from ingest import schemas
from ingest.annotations import ingest_annotations
from ingest.hosts import host_tld, surt_host_name
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

SAMPLE_CRAWL = "CC-MAIN-2024-10"  # dbt vars sample_crawl and fullcrawl_crawl
OTHER_CRAWL = "CC-MAIN-2023-50"  # another crawl: RQ1-RQ3 ignore it, RQ4 reports it too
HOST_LEVEL_CRAWL = "CC-MAIN-2024-18"  # host-index rows and host-level annotations only
# The annotation profile of each crawl's page annotations (seeds/annotation_profiles.csv).
DPK = "dpk_gneissweb"  # quality_score = P(hq); HQ when above 0.5
CC_URLS = "cc_gneissweb_urls"  # in_gneissweb per page, keyed by url_surtkey + fetch_time
CC_HOSTS = "cc_gneissweb_hosts"  # in_gneissweb per host (lake table host_annotations)
PAGE_PROFILES = {SAMPLE_CRAWL: DPK, OTHER_CRAWL: CC_URLS}
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
    "host_annotations": "crawl",
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
class SourceFile:
    """A source file that ``write_lake`` writes as Parquet and lands with the real ingest.

    Attributes:
        name: the file's name (under ``home/raw``).
        rows: its rows, in the source's own columns (``columns``) and any others (the truth
            the reference reads, not written).
        columns: the source columns written to the file.
        max_reject_rate: the ingest's limit (the file may hold rows it must reject).
    """

    name: str
    rows: pd.DataFrame
    columns: list[str]
    max_reject_rate: float = 0.001


@dataclass
class AdversarialLake:
    """The adversarial fixture's lake files and the committed rows they hold (the truth).

    ``page_annotations`` are the page rows written into the lake as the ingest lands them
    (PAGE_ANNOTATIONS columns, committed ones only); ``dpk_source`` the data-prep-kit rows of
    the source file the real ingest reads (``id``, ``dump``, ``url``, ``cosmo_fastText_label``
    and ``cosmo_fastText_score``: the predicted label and its probability, not P(hq)) with
    their host as ``surt_host_name``; ``host_annotations`` the committed host-level rows.
    """

    files: list[LakeFile | SourceFile]
    documents: pd.DataFrame
    document_scores: pd.DataFrame
    host_ranks: pd.DataFrame
    host_index: pd.DataFrame
    page_annotations: pd.DataFrame
    dpk_source: pd.DataFrame
    host_annotations: pd.DataFrame
    notes: dict[str, list[str]] = field(default_factory=dict)


def _arrow_table(rows: pd.DataFrame, schema: pa.Schema) -> pa.Table:
    columns = {}
    for schema_field in schema:
        values = rows[schema_field.name] if schema_field.name in rows else [None] * len(rows)
        columns[schema_field.name] = pa.array(
            [None if pd.isna(value) else value for value in values], type=schema_field.type
        )
    return pa.table(columns, schema=schema)


def write_lake(home: Path, files: list[LakeFile | SourceFile], raw: Path | None = None) -> Path:
    """Land ``files`` in ``home/lake`` with ``ingest.lake``'s protocol; return the lake folder.

    Each ``LakeFile`` gets a dummy input under ``raw`` (default ``home/raw``) whose SHA-256
    keys its parts, exactly as an ingest names them; committed files get their manifest row
    last. A ``SourceFile`` is written as Parquet under ``raw`` and ingested by
    ``ingest.annotations`` (one process).
    """
    lake = home / "lake"
    raw = raw or home / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    write_schema_files(lake)
    for lake_file in files:
        if isinstance(lake_file, SourceFile):
            source = raw / lake_file.name
            frame = lake_file.rows[lake_file.columns]
            pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), source)
            ingest_annotations([source], lake, max_reject_rate=lake_file.max_reject_rate, workers=1)
            continue
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


def build_warehouse(
    home: Path,
    marts: tuple[str, ...] = MARTS,
    dbt_vars: dict | None = None,
    name: str = "warehouse",
    indirect_selection: str = "eager",
) -> Build:
    """``dbt build`` the marts and everything upstream (seeds too) over ``home``'s lake.

    ``marts`` may name any node (a model or a test: its parents are built). ``dbt_vars``
    overrides dbt_project.yml's vars; ``name`` names the warehouse (``<name>.duckdb``) and,
    for another name than the default, its target and log folders, so that several builds
    of one lake can coexist. ``indirect_selection`` is dbt's: ``buildable`` leaves out the
    tests of a selected seed that also read models not built (``eager`` runs them). Target
    and log folders go under ``home`` so that parallel builds do not collide. Failed tests
    are returned, not raised, so that a failing data test does not hide the numbers.

    Raises:
        AssertionError: when a seed or model failed or was skipped, with the end of dbt's log.
    """
    warehouse = home / f"{name}.duckdb"
    suffix = "" if name == "warehouse" else f"-{name}"
    target = home / f"target{suffix}"
    env = {
        **os.environ,
        "HOSTAWARE_HOME": str(home),
        "WAREHOUSE_PATH": str(warehouse),
        "DBT_PROFILES_DIR": str(PROJECT),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "DBT_LOG_PATH": str(home / f"logs{suffix}"),
    }
    selectors = [f"+{mart}" for mart in marts]
    command = [str(DBT), "build", "--target", "dev", "--target-path", str(target)]
    command += ["--select", *selectors, "--indirect-selection", indirect_selection]
    if dbt_vars:
        command += ["--vars", json.dumps(dbt_vars)]
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
# Public suffixes (url_host_registry_suffix), covering every macro category of the
# tld_macro_categories seed. Several differ from the host's last label (url_host_tld) and fall
# in another category by it: ac.uk (academic), co.uk, com.au (commercial), gov.uk, gouv.fr
# (government), org.uk (organisation) all end in a two-letter country code, as uk itself does.
REGISTRY_SUFFIXES = [
    *["com"] * 14,
    *["de"] * 5,
    *["org"] * 5,
    *["net"] * 4,
    *["edu"] * 4,
    *["ac.uk"] * 4,
    *["co.uk"] * 3,
    *["gov"] * 2,
    *["gov.uk"] * 1,
    *["uk"] * 1,
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


def _host_names(name: str, suffix: str | None) -> dict[str, str | None]:
    """A host's key and its three domain columns, as the ingest derives them."""
    domain = None if suffix is None else ".".join(name.split(".")[-suffix.count(".") - 2 :])
    return {
        "host": name,
        "surt_host_name": surt_host_name(name),
        "url_host_registered_domain": domain,
        "url_host_tld": host_tld(name),  # the last label (None for an IP address)
        "url_host_registry_suffix": suffix,
    }


def _hosts(rng: np.random.Generator) -> pd.DataFrame:
    sizes = list(HOST_SIZES)
    suffixes: list[str | None] = list(REGISTRY_SUFFIXES)
    rng.shuffle(suffixes)
    suffixes = [*suffixes[: len(sizes) - 1], None]  # the last host is an IP address
    order = rng.permutation(len(sizes))
    sizes = [sizes[i] for i in order]
    half_english = sizes.index(4)  # pages en, de, en, null: exactly half English
    constant = sizes.index(6)  # every page scores the same, for every classifier
    rows = []
    for index, (size, suffix) in enumerate(zip(sizes, suffixes, strict=True)):
        if suffix is None:
            name = f"10.0.{index}.7"
        else:
            domain = f"site{index:02d}.{suffix}"
            name = ("www." if index % 3 == 0 else f"blog{index}.") + domain
        rows.append(
            {
                **_host_names(name, suffix),
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
                    "url_host_registry_suffix": host.url_host_registry_suffix,
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
ANNOTATION_ONLY_SUFFIXES = [
    *["com", "co.uk", "ac.uk", "de", "org"],
    *["com", "fr", "gov.uk", None, "io"],
]
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
    HOST_LEVEL_CRAWL: [
        (10, 1),
        (10, 2),
        (40, 8),
        (30, 9),
        (0, 4),
        (None, 3),
        (25, None),
        (8, 80),
        (100, 50),
        (70, 7),
        (20, 14),
        (10, 10),
        (500, 5),
        (60, 30),
        (1, 1),
        (90, 9),
    ],
}
ANNOTATION_ONLY_INDEXED = len(ANNOTATION_ONLY_COUNTS[SAMPLE_CRAWL])  # 4 more are not indexed
HCRANK_LEVELS = np.array([0.0, 1.5e6, 2.0e6, 2.0e6, 3.0e6, 3.0e6, 5.0e6, 5.0e6, np.nan])
CRAWL_STARTS = {
    SAMPLE_CRAWL: datetime(2024, 2, 20, tzinfo=UTC),
    OTHER_CRAWL: datetime(2023, 11, 28, tzinfo=UTC),
}
# The data-prep-kit source file that the real ingest lands (``SourceFile``): its predicted
# label and that label's probability, as the transform writes them, on three hosts. P(hq) is
# the score for `hq` and 1 - score for `cc`: a `cc` page at 0.987 has P(hq) = 0.013, not HQ;
# either label at 0.5 is P(hq) = 0.5, not HQ (strictly above). A score below 0.5 cannot be a
# binary model's top probability: the ingest rejects the row.
DPK_SOURCE_PAGES = [
    ("cc", 0.987),
    ("hq", 0.987),
    ("cc", 0.5),
    ("hq", 0.5),
    ("hq", 0.55),
    ("cc", 0.55),
    ("__label__hq", 0.75),
    ("__label__cc", 0.6),
    ("cc", 1.0),
    ("hq", 1.0),
    ("hq", 0.3),
]
DPK_SOURCE_COLUMNS = [
    "id",
    "dump",
    "url",
    "language",
    "language_score",
    "cosmo_fastText_label",
    "cosmo_fastText_score",
]


def _annotation_hosts(
    rng: np.random.Generator, hosts: pd.DataFrame, unindexed: set
) -> pd.DataFrame:
    """The annotated hosts: classified ones (all of ``unindexed`` among them), then others."""
    others = [i for i in hosts.index if i not in unindexed]
    chosen = sorted(unindexed) + list(
        rng.choice(others, size=ANNOTATED_CLASSIFIED_HOSTS - len(unindexed), replace=False)
    )
    columns = [
        "host",
        "surt_host_name",
        "url_host_registered_domain",
        "url_host_tld",
        "url_host_registry_suffix",
    ]
    classified = hosts.loc[chosen, columns]
    rows = []
    for index in range(len(ANNOTATION_SIZES) - ANNOTATED_CLASSIFIED_HOSTS):
        suffix = ANNOTATION_ONLY_SUFFIXES[index % len(ANNOTATION_ONLY_SUFFIXES)]
        if suffix is None:
            name = f"10.1.{index}.9"
        else:
            name = ("www." if index % 2 else f"shop{index}.") + f"ann{index:02d}.{suffix}"
        rows.append(_host_names(name, suffix))
    pool = pd.concat([classified, pd.DataFrame(rows)], ignore_index=True)
    pool["is_annotation_only"] = pool.index >= ANNOTATED_CLASSIFIED_HOSTS
    kinds = np.array(["all_hq", "all_lq", "all_lq", *["mixed"] * 15])
    pool["kind"] = kinds[rng.permutation(len(pool)) % len(kinds)]
    pool["quality"] = rng.uniform(0.1, 0.7, len(pool))
    return pool


def _categories(rng: np.random.Generator) -> dict[str, float]:
    """GneissWeb's four category scores (read by no mart)."""
    names = ("medical_score", "education_score", "technology_score", "science_score")
    return {name: float(rng.integers(0, 21)) / SCORE_GRID for name in names}


def _pages(rng: np.random.Generator, pool: pd.DataFrame, size: int | None) -> list:
    """(host, page count) of ``pool``: ``ANNOTATION_SIZES`` shuffled, or ``size`` each."""
    if size is None:
        sizes = np.array(ANNOTATION_SIZES)[rng.permutation(len(pool))]
    else:
        sizes = np.full(len(pool), size)
    return list(zip(pool.itertuples(), sizes.tolist(), strict=True))


def _dpk_annotations(
    rng: np.random.Generator, pool: pd.DataFrame, crawl: str, size: int | None = None
) -> pd.DataFrame:
    """data-prep-kit page annotations as the ingest lands them: P(hq) on the 1/20 grid.

    'all_hq' hosts have P(hq) above 0.5 on every page, 'all_lq' hosts at most 0.5 (often
    exactly 0.5, which is not HQ); the page key is the record id.
    """
    rows = []
    for host, count in _pages(rng, pool, size):
        if host.kind == "all_hq":
            scores = rng.choice(np.arange(11, 21), count) / SCORE_GRID
        elif host.kind == "all_lq":
            scores = rng.choice(np.array([0, 4, 8, 9, 10, 10, 10]), count) / SCORE_GRID
        else:
            scores = _grid(host.quality + rng.normal(0, 0.2, count))
        for page, score in enumerate(scores):
            doc_id = f"<urn:uuid:{uuid.UUID(bytes=rng.bytes(16))}>"
            rows.append(
                {
                    "page_key": doc_id,
                    "doc_id": doc_id,
                    "url": f"https://{host.host}/a/{page}",
                    "surt_host_name": host.surt_host_name,
                    "annotation_profile": DPK,
                    "language": "en",
                    "language_score": float(rng.uniform(0.65, 1.0)),
                    "quality_score": float(score),
                    **_categories(rng),
                    "crawl": crawl,
                }
            )
    return pd.DataFrame(rows)


def url_page_key(url_surtkey: str, fetch_time: datetime) -> str:
    """The page key of Common Crawl's URL-level annotations: SURT key, space, fetch time."""
    return f"{url_surtkey} {fetch_time:%Y-%m-%dT%H:%M:%S.%fZ}"


def _url_annotations(
    rng: np.random.Generator, pool: pd.DataFrame, crawl: str, size: int | None = None
) -> pd.DataFrame:
    """Common Crawl's URL-level GneissWeb annotations as the ingest lands them.

    One row per capture: about one URL in eight was fetched twice (another time, often
    another verdict), and the first host's first URL twice in the same second (the keys
    differ in their microseconds only). 'all_hq' hosts are in GneissWeb on every capture,
    'all_lq' hosts on none.
    """
    rows = []
    for number, (host, count) in enumerate(_pages(rng, pool, size)):
        for page in range(count):
            url_surtkey = f"{host.surt_host_name})/a/{page}"
            seconds = int(rng.integers(0, 10 * 86400))
            micros = int(rng.integers(0, 1_000_000)) if rng.random() < 0.5 else 0
            fetched = CRAWL_STARTS[crawl] + timedelta(seconds=seconds, microseconds=micros)
            times = [fetched]
            if number == 0 and page == 0:
                times.append(fetched.replace(microsecond=(micros + 1) % 1_000_000))
            elif rng.random() < 0.125:
                times.append(fetched + timedelta(hours=int(rng.integers(1, 240))))
            for fetch_time in times:
                if host.kind == "all_hq":
                    flag = True
                elif host.kind == "all_lq":
                    flag = False
                else:
                    flag = bool(rng.random() < host.quality)
                rows.append(
                    {
                        "page_key": url_page_key(url_surtkey, fetch_time),
                        "url_surtkey": url_surtkey,
                        "fetch_time": fetch_time,
                        "surt_host_name": host.surt_host_name,
                        "annotation_profile": CC_URLS,
                        "in_gneissweb": flag,
                        **_categories(rng),
                        "crawl": crawl,
                    }
                )
    return pd.DataFrame(rows)


def _annotations(
    rng: np.random.Generator, pool: pd.DataFrame, crawl: str, size: int | None = None
) -> pd.DataFrame:
    """Page annotations of ``pool`` in one crawl, under that crawl's profile."""
    if PAGE_PROFILES[crawl] == DPK:
        return _dpk_annotations(rng, pool, crawl, size)
    return _url_annotations(rng, pool, crawl, size)


def _host_annotations(
    rng: np.random.Generator, pool: pd.DataFrame, crawl: str, contrary: bool
) -> pd.DataFrame:
    """Host-level GneissWeb flags of ``pool``: by the host's kind, or (``contrary``) against it.

    The contrary flags are for crawls that have page-level annotations, where host-level ones
    must be ignored: read, they would turn all-HQ hosts into 0 and all-LQ ones (and hosts
    without page annotations, given as all-LQ) into 1.
    """
    flags = []
    for host in pool.itertuples():
        if host.kind == "mixed":
            flags.append(bool(rng.random() < host.quality))
        else:
            flags.append((host.kind == "all_hq") != contrary)
    return pd.DataFrame(
        [
            {
                "surt_host_name": host.surt_host_name,
                "annotation_profile": CC_HOSTS,
                "in_gneissweb": flag,
                **_categories(rng),
                "crawl": crawl,
            }
            for host, flag in zip(pool.itertuples(), flags, strict=True)
        ]
    )


def _dpk_source(rng: np.random.Generator, hosts: pd.DataFrame) -> pd.DataFrame:
    """``DPK_SOURCE_PAGES`` on each of ``hosts`` (sample crawl), in the source's columns."""
    rows = []
    for host in hosts.itertuples():
        for page, (label, score) in enumerate(DPK_SOURCE_PAGES):
            rows.append(
                {
                    "id": f"<urn:uuid:{uuid.UUID(bytes=rng.bytes(16))}>",
                    "dump": SAMPLE_CRAWL,
                    "url": f"https://{host.host}/dpk/{page}",
                    "language": "en",
                    "language_score": 0.9,
                    "cosmo_fastText_label": label,
                    "cosmo_fastText_score": score,
                    "surt_host_name": host.surt_host_name,
                }
            )
    return pd.DataFrame(rows)


_INDEX_NAME_COLUMNS = [
    "surt_host_name",
    "url_host_registered_domain",
    "url_host_tld",
    "url_host_registry_suffix",
]


def _annotation_only_index(pool: pd.DataFrame, crawl: str) -> pd.DataFrame:
    """Host-index rows of the first annotation-only hosts (the last four have none)."""
    indexed = pool[pool["is_annotation_only"]].iloc[:ANNOTATION_ONLY_INDEXED]
    known, fetched = zip(*ANNOTATION_ONLY_COUNTS[crawl], strict=True)
    return pd.DataFrame(
        {
            **{column: indexed[column].to_numpy() for column in _INDEX_NAME_COLUMNS},
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
      null; every TLD macro category, by the public suffix, among them suffixes whose last
      label is a country code (ac.uk, co.uk, gov.uk, org.uk, com.au, gouv.fr) beside uk and fr
      themselves; an IP-address host without a TLD or suffix.
    * Graph: a few classified hosts absent from the graph release (outside the host universe),
      graph-only hosts, hc_val/pr_val on few levels (ties); two more releases, one later by
      time but earlier by name, one unknown to the graph_releases seed.
    * With ``null_pagerank``, one classified host of the graph release has a null pr_val.
    * Host index: hosts missing from the sample crawl, null and tied fetched counts, another
      crawl with other counts, and a third crawl (HOST_LEVEL_CRAWL) annotated at host level only.
    * Uncommitted parts (a crash before the manifest row) of documents, scores and ranks.
    * One classified host of the graph release has hc_val = 0 (outside the depth universe).
    * Page annotations (45 classified hosts and 20 others, of 1 to 80 pages) of the sample
      crawl under ``dpk_gneissweb`` (P(hq) on the 1/20 grid, exactly 0.5 often), and of the
      other crawl under ``cc_gneissweb_urls`` (GneissWeb flags, keyed by SURT key and fetch
      time, some URLs captured twice); hosts all HQ and all low quality; annotated hosts
      missing from the host index (five classified, four others); host-index rows with
      known < fetched, known = 0, null known or fetched counts and coverage exactly at the
      band edges; ``hcrank`` on a few levels, some 0 and some null. A data-prep-kit source
      file of the sample crawl goes through the real ingest (``DPK_SOURCE_PAGES``: `cc` pages
      at 0.987, labels at 0.5, one row it rejects). Uncommitted annotation parts score every
      page HQ, and one of them shares its key with a committed host-annotation file (its
      manifest row names lake table host_annotations, not page_annotations).
    * Host-level annotations (``cc_gneissweb_hosts``) of the sample and the other crawl, which
      have page-level ones (to be ignored: their flags contradict the pages), and of
      HOST_LEVEL_CRAWL, the only ones it has: hosts in and out of its host index, indexed
      hosts without annotation; an uncommitted part flags every host.
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
            **{column: indexed[column].to_numpy() for column in _INDEX_NAME_COLUMNS},
            "nutch_fetched": pd.array(fetched, dtype="Int64"),
            "crawl": SAMPLE_CRAWL,
        }
    )
    host_index["nutch_num_records"] = host_index["nutch_fetched"] * 3 + 1
    other_crawl = host_index.assign(
        crawl=OTHER_CRAWL, nutch_fetched=pd.array(rng.integers(0, 1000, len(host_index)))
    )

    # Annotations of the crawls, from their own generator (the rows above stay as they
    # were), and the host-index rows and counts they need.
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
    # The host-level crawl: the classified hosts' rows with counts of their own (known a
    # multiple of fetched, some null, zero, or below fetched), and the annotation-only ones.
    host_level = host_index.loc[classified_rows, _INDEX_NAME_COLUMNS].assign(crawl=HOST_LEVEL_CRAWL)
    level_fetched = annotation_rng.choice(
        np.array([0, 1, 2, 5, 10, 10, 20, 50, 100], dtype=float), len(host_level)
    )
    level_fetched[annotation_rng.random(len(host_level)) < 0.1] = np.nan
    multiples = annotation_rng.choice(np.array([1, 2, 3, 4, 5, 10]), len(host_level))
    level_known = level_fetched * multiples
    level_known[annotation_rng.random(len(host_level)) < 0.08] = np.nan
    level_known[annotation_rng.random(len(host_level)) < 0.08] = 0
    below = annotation_rng.random(len(host_level)) < 0.08
    level_known[below] = np.floor(level_fetched[below] / 2)
    host_level["nutch_fetched"] = pd.array(level_fetched, dtype="Int64")
    host_level["nutch_num_records"] = pd.array(level_known, dtype="Int64")
    host_level = pd.concat(
        [host_level, _annotation_only_index(pool, HOST_LEVEL_CRAWL)], ignore_index=True
    )
    for frame in (host_index, other_crawl, host_level):
        frame["hcrank"] = annotation_rng.choice(HCRANK_LEVELS, len(frame))
    crashed_annotations = _annotations(
        annotation_rng, pool[pool["kind"] == "mixed"].iloc[:3], SAMPLE_CRAWL, size=10
    ).assign(quality_score=1.0)
    crashed_url_annotations = _annotations(
        annotation_rng, pool[pool["kind"] == "all_lq"].iloc[:2], OTHER_CRAWL, size=10
    ).assign(in_gneissweb=True)
    notes["annotated_hosts_missing_from_sample_index"] = sorted(
        set(pool["surt_host_name"]) - set(host_index["surt_host_name"])
    )

    # Host-level annotations: contrary flags where the crawl has page-level ones; the
    # host-level crawl's for all but four annotated hosts of its index and for hosts outside it.
    level_pool = pool[pool["surt_host_name"].isin(host_level["surt_host_name"])]
    level_pool = pd.concat(
        [level_pool.iloc[4:], pool[~pool["surt_host_name"].isin(host_level["surt_host_name"])]]
    )
    # In the page-level crawls, indexed hosts without page annotations get a host-level flag
    # too (in GneissWeb): still no annotation of theirs counts, their crawl has page-level ones.
    unpaged = host_index.loc[
        ~host_index["surt_host_name"].isin(pool["surt_host_name"])
        & host_index["nutch_num_records"].fillna(0).gt(0),
        ["surt_host_name"],
    ].iloc[:8]
    flagged_pool = pd.concat([pool, unpaged.assign(kind="all_lq", quality=0.0)])
    host_annotations = {
        crawl: _host_annotations(annotation_rng, flagged_pool, crawl, contrary=True)
        for crawl in (SAMPLE_CRAWL, OTHER_CRAWL)
    } | {
        HOST_LEVEL_CRAWL: _host_annotations(
            annotation_rng, level_pool, HOST_LEVEL_CRAWL, contrary=False
        )
    }
    crashed_host_annotations = host_annotations[HOST_LEVEL_CRAWL].assign(in_gneissweb=True)
    notes["host_level_hosts_missing_from_index"] = sorted(
        set(level_pool["surt_host_name"]) - set(host_level["surt_host_name"])
    )

    # The data-prep-kit source file, on an all-HQ, an all-LQ and a mixed host of the sample
    # index with a known coverage (the ingest derives P(hq) from label and score).
    covered = host_index.loc[
        host_index["nutch_num_records"].fillna(0).gt(0) & host_index["nutch_fetched"].notna(),
        "surt_host_name",
    ]
    dpk_hosts = pd.concat(
        [
            pool[(pool["kind"] == kind) & pool["surt_host_name"].isin(covered)].iloc[:1]
            for kind in ("all_hq", "all_lq", "mixed")
        ]
    )
    dpk_source = _dpk_source(annotation_rng, dpk_hosts)
    notes["dpk_source_hosts"] = list(dpk_hosts["surt_host_name"])

    # Rows of a crashed ingest: parts written, no manifest row. They must not count.
    big = hosts.index[hosts["size"] >= 3][:3]
    crashed_documents = _documents(rng, hosts.loc[big].assign(size=10, quality=1.0), SAMPLE_CRAWL)
    crashed_scores = _scores(rng, crashed_documents)
    crashed_scores["score"] = 1.0
    crashed_ranks = _ranks(rng, hosts.loc[list(missing)], GRAPH_RELEASE, quality_weight=1.0)

    half = documents["doc_id"].map(lambda doc_id: int(doc_id[-3:-1], 16) % 2)
    files: list[LakeFile | SourceFile] = [
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
        LakeFile("host-index-2024-18.parquet", "host_index", {"host_index": host_level}),
    ]
    sample_annotations = annotations[SAMPLE_CRAWL]
    odd = sample_annotations["doc_id"].map(lambda doc_id: int(doc_id[-3:-1], 16) % 2)
    files += [
        LakeFile(
            f"dpk-gneissweb-2024-10-{part}.parquet",
            "page_annotations",
            {"page_annotations": sample_annotations[odd == part]},
        )
        for part in (0, 1)
    ]
    files += [
        LakeFile(
            "gneissweb-urls-2023-50.parquet",
            "page_annotations",
            {"page_annotations": annotations[OTHER_CRAWL]},
        ),
        LakeFile(
            "dpk-gneissweb-crashed.parquet",
            "page_annotations",
            {"page_annotations": crashed_annotations},
            committed=False,
        ),
        LakeFile(
            "gneissweb-urls-crashed.parquet",
            "page_annotations",
            {"page_annotations": crashed_url_annotations},
            committed=False,
        ),
        SourceFile("dpk-gneissweb-source-2024-10.parquet", dpk_source, DPK_SOURCE_COLUMNS, 0.2),
    ]
    files += [
        LakeFile(
            f"gneissweb-hosts-{crawl[8:]}.parquet",
            "host_annotations",
            {"host_annotations": rows},
        )
        for crawl, rows in host_annotations.items()
    ]
    files += [
        LakeFile(
            "gneissweb-hosts-crashed.parquet",
            "host_annotations",
            {"host_annotations": crashed_host_annotations},
            committed=False,
        ),
        # A crash that left page-annotation parts under the key of a committed host-level
        # file: its manifest row commits host_annotations only.
        LakeFile(
            f"gneissweb-hosts-{SAMPLE_CRAWL[8:]}.parquet",
            "page_annotations",
            {"page_annotations": crashed_annotations.assign(crawl=SAMPLE_CRAWL)},
            committed=False,
        ),
    ]
    page_columns = [field.name for field in schemas.PAGE_ANNOTATIONS] + ["crawl"]
    page_annotations = pd.concat(annotations.values(), ignore_index=True)
    return AdversarialLake(
        files=files,
        documents=documents.drop(columns=["quality", "is_constant"]),
        document_scores=scores,
        host_ranks=pd.concat([ranks, later, unseeded], ignore_index=True),
        host_index=pd.concat([host_index, other_crawl, host_level], ignore_index=True),
        page_annotations=page_annotations.reindex(columns=page_columns),
        dpk_source=dpk_source,
        host_annotations=pd.concat(host_annotations.values(), ignore_index=True),
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
