"""demo.real_size: one crawl's inputs at a share of a real crawl's hosts, streamed in parts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from scipy import stats

from demo.bench_inputs import _hc_values, coprime_multiplier, pagerank_positions
from demo.config import CLASSIFIERS
from demo.crawls import CRAWL_DAYS, HOST_INDEX_SCHEMA, crawl_start
from demo.gneissweb import HOST_ANNOTATION_SCHEMA, URL_ANNOTATION_SCHEMA
from demo.real_size import (
    REAL_HOSTS,
    RELEASE,
    RealSizeIndex,
    classified_sample,
    host_index,
    host_positions,
    ranks,
    url_annotations,
)
from demo.real_size_quality import ANNOTATED_PAGE_CAP
from ingest.__main__ import main as ingest_main


@pytest.mark.parametrize("hosts", [1, 2, 7, 1000, 33_527, 335_267])
def test_positions_invert_the_ranks_files_placement(hosts: int):
    """Position p of the ranks file holds host (p − 1)·a mod N: host_positions is its inverse."""
    ids = np.arange(hosts, dtype=np.int64)
    positions = host_positions(ids, hosts)
    assert np.array_equal(np.sort(positions), np.arange(1, hosts + 1))
    assert np.array_equal((positions - 1) * coprime_multiplier(hosts) % hosts, ids)


def test_the_index_is_written_in_sorted_parts_of_the_v2_schema(tmp_path):
    fraction = 1e-5  # 3,353 hosts
    index = host_index(tmp_path, fraction, "CC-MAIN-2024-10", part_rows=1_000)
    hosts = round(REAL_HOSTS * fraction)
    assert (index.hosts, index.rows, len(index.parts), index.cached_parts) == (hosts, hosts, 4, 0)
    tables = [pq.read_table(path) for path in index.parts]
    assert all(table.schema.equals(HOST_INDEX_SCHEMA) for table in tables)
    assert [table.num_rows for table in tables] == [1_000, 1_000, 1_000, 353]
    for table in tables:  # sorted by SURT host name within a part, as the real index roughly is
        names = table.column("surt_host_name").to_pylist()
        assert names == sorted(names)
    every = pa.concat_tables(tables)
    assert pc.count_distinct(every.column("surt_host_name")).as_py() == hosts
    # each host's harmonic centrality is the ranks file's at its position: one value each
    hc = np.sort(every.column("hcrank").to_numpy())[::-1]
    expected = _hc_values(np.arange(1, hosts + 1), hosts).astype(np.float64)
    assert np.array_equal(hc, expected)
    assert index.folder.name == "crawl=CC-MAIN-2024-10"


def test_a_run_cut_short_resumes_from_its_finished_parts(tmp_path):
    first = host_index(tmp_path, 1e-5, part_rows=1_000)
    written = {path: path.stat().st_mtime_ns for path in first.parts}
    lost = pq.read_table(first.parts[2])
    first.parts[2].unlink()
    # what a killed run leaves: a part's temporary file (no process has its pid)
    stale = first.parts[2].parent / f".part-00002.parquet.{2**22 + 7}.tmp"
    stale.write_bytes(b"half a part")
    again = host_index(tmp_path, 1e-5, part_rows=1_000)
    assert (again.cached_parts, again.rows) == (3, first.rows)
    for path in (first.parts[0], first.parts[1], first.parts[3]):
        assert path.stat().st_mtime_ns == written[path]
    assert pq.read_table(again.parts[2]).equals(lost)  # the same part, written again
    assert not stale.exists()


@pytest.mark.parametrize("fraction", [0, -0.5, 1.5])
def test_a_share_outside_zero_to_one_is_refused(tmp_path, fraction: float):
    with pytest.raises(ValueError, match=r"must be in \(0, 1\]"):
        host_index(tmp_path, fraction)


# ----------------------------------------------------------------- the inputs beside the index

FRACTION = 2e-5  # 6,705 hosts, every kind of input in a few seconds


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> tuple[RealSizeIndex, dict]:
    out = tmp_path_factory.mktemp("real-size")
    index = host_index(out, FRACTION, part_rows=2_500)
    return index, ranks(index, workers=1)


def _ranks_rows(path: Path) -> pd.DataFrame:
    rows = pd.read_csv(
        path,
        sep="\t",
        comment="#",
        header=None,
        names=["hc_pos", "hc_val", "pr_pos", "pr_val", "rev_host"],
        dtype={"hc_val": str, "pr_val": str},
    )
    rows["surt_host_name"] = rows["rev_host"].str.replace(".", ",", regex=False)
    return rows


def test_pagerank_positions_are_a_permutation_correlated_with_centrality(tmp_path):
    rows = 20_000
    path = pagerank_positions(tmp_path / "pr.npy", rows, tmp_path / "spill", "200MB")
    positions = np.load(path)
    assert positions.dtype == np.int32
    assert np.array_equal(np.sort(positions), np.arange(1, rows + 1))
    rho = stats.spearmanr(np.arange(1, rows + 1), positions).statistic
    assert 0.2 < rho < 0.9  # related as a real graph's two rankings are, not equal
    again = pagerank_positions(tmp_path / "again.npy", rows, tmp_path / "spill", "200MB")
    assert np.array_equal(np.load(again), positions)  # fixed by the size
    assert not list((tmp_path / "spill").glob("*.parquet"))  # the sorted file is removed


def test_the_index_ranks_are_the_ranks_files(small):
    index, written = small
    ranks_rows = _ranks_rows(Path(written["path"]))
    assert len(ranks_rows) == index.hosts
    assert np.array_equal(ranks_rows["hc_pos"], np.arange(1, index.hosts + 1))
    assert np.array_equal(np.sort(ranks_rows["pr_pos"]), np.arange(1, index.hosts + 1))
    rows = pa.concat_tables(pq.read_table(path) for path in index.parts).to_pandas()
    joined = rows.merge(ranks_rows, on="surt_host_name", how="inner", validate="one_to_one")
    assert len(joined) == index.hosts  # the same hosts in both
    # Java's Float/Double.toString print the shortest text that reads back exactly
    assert np.array_equal(joined["hcrank"], joined["hc_val"].astype(np.float32).astype(float))
    assert np.array_equal(joined["prank"], joined["pr_val"].astype(float))


def test_host_annotations_cover_the_crawled_hosts(small):
    index, _ = small
    for path in index.parts:
        part = pq.read_table(path)
        annotations = pq.read_table(index.beside("host-annotations") / path.name)
        truth = pq.read_table(index.beside("truth") / path.name)
        assert annotations.schema.equals(HOST_ANNOTATION_SCHEMA)
        crawled = pc.filter(part["surt_host_name"], pc.greater(part["fetch_200"], 0))
        assert annotations["surt_host_name"].to_pylist() == crawled.to_pylist()
        assert truth["surt_host_name"].equals(annotations["surt_host_name"])
    truth = pa.concat_tables(
        pq.read_table(index.beside("truth") / path.name) for path in index.parts
    ).to_pandas()
    flags = pa.concat_tables(
        pq.read_table(index.beside("host-annotations") / path.name) for path in index.parts
    ).to_pandas()
    pages = np.minimum(truth["fetch_200"], ANNOTATED_PAGE_CAP)
    expected = 1 - (1 - truth["hq_density"]) ** pages  # P(some annotated page is HQ)
    flagged = flags["in_gneissweb"].to_numpy()
    assert abs(flagged.mean() - expected.mean()) < 4 * np.sqrt(expected.mean() / len(expected))


def test_url_annotations_follow_fetched_pages_and_resume(small):
    index, _ = small
    written = url_annotations(index, 50_000)
    folder = Path(written["folder"])
    assert written["rows"] == pytest.approx(50_000, rel=0.02)
    rows = pq.read_table(folder).to_pandas()
    assert pq.read_schema(next(folder.glob("*.parquet"))).equals(URL_ANNOTATION_SCHEMA)
    assert rows["url_surtkey"].is_unique
    host = rows["url_surtkey"].str.split(")", n=1).str[0]
    truth = pa.concat_tables(
        pq.read_table(index.beside("truth") / path.name) for path in index.parts
    ).to_pandas()
    share = 50_000 / written["fetched_pages"]
    per_host = host.value_counts().reindex(truth["surt_host_name"], fill_value=0).to_numpy()
    expected = truth["fetch_200"].to_numpy() * share
    assert np.all((per_host == np.floor(expected)) | (per_host == np.ceil(expected)))
    start = crawl_start(index.crawl)
    times = rows["fetch_time"]
    assert times.min() >= pd.Timestamp(start) and times.max() < pd.Timestamp(start) + pd.Timedelta(
        days=CRAWL_DAYS
    )
    # a part cut short (its marker not written) is written again, the same rows
    first = sorted(folder.glob("part-00000-*.parquet"))
    before = pq.read_table(first[0])
    (folder / ".part-00000.done").unlink()
    first[0].unlink()
    again = url_annotations(index, 50_000)
    assert again["rows"] == written["rows"]
    assert pq.read_table(first[0]).equals(before)


def test_url_annotations_in_batches_are_the_rows_written_at_once(small):
    """``max_parts``: a batch of parts at a time, each deleted before the next (as the bench
    ingests them), writes the same rows as one call, and says when every part is done."""
    index, _ = small
    batches, tables = [], []
    while True:
        written = url_annotations(index, 20_000, max_parts=1)
        folder = Path(written["folder"])
        files = sorted(folder.glob("*.parquet"))
        batches.append(len({path.name.rsplit("-", 1)[0] for path in files}))
        tables += [pq.read_table(path) for path in files]
        for path in files:
            path.unlink()
        if written["complete"]:
            break
    assert batches == [1] * len(index.parts)
    for marker in folder.glob(".*.done"):
        marker.unlink()
    whole = url_annotations(index, 20_000)
    assert whole["complete"] and whole["files"] == len(tables)
    key = [("url_surtkey", "ascending")]
    assert pa.concat_tables(tables).sort_by(key).equals(pq.read_table(folder).sort_by(key))


def test_the_classified_sample_is_on_crawled_hosts(small, tmp_path):
    index, _ = small
    row = classified_sample(index, tmp_path / "lake")
    documents = pq.read_table(tmp_path / "lake" / "documents").to_pandas()
    scores = pq.read_table(tmp_path / "lake" / "document_scores").to_pandas()
    assert row["records_written"] == len(documents) > 0
    assert len(scores) == len(documents) * len(CLASSIFIERS)
    truth = pa.concat_tables(
        pq.read_table(index.beside("truth") / path.name) for path in index.parts
    ).to_pandas()
    pages = documents.groupby("surt_host_name").size()
    fetched = truth.set_index("surt_host_name")["fetch_200"].reindex(pages.index)
    assert fetched.notna().all()  # every sampled host is a crawled host of the index
    assert (pages >= 3).all() and (pages <= fetched).all()
    assert documents["doc_id"].is_unique and documents["url"].is_unique
    # the hosts' sampled scores follow their planted density
    mean_score = (
        scores.merge(documents[["doc_id", "surt_host_name"]], on="doc_id")
        .groupby("surt_host_name")["score"]
        .mean()
    )
    density = truth.set_index("surt_host_name")["hq_density"].reindex(mean_score.index)
    assert stats.spearmanr(mean_score, density).statistic > 0.5


def test_the_ingest_reads_every_input(small, tmp_path):
    """The files are Common Crawl's formats as the ingest reads them: nothing rejected."""
    index, written = small
    lake = tmp_path / "lake"
    url_folder = Path(url_annotations(index, 20_000)["folder"])
    commands = [
        ["host-index", "--path", str(index.root / "host-index")],
        ["annotations", "--path", str(index.root / "host-annotations")],
        ["annotations", "--path", str(url_folder)],
        ["graph", "--release", RELEASE, "--ranks", written["path"]],
    ]
    for command in commands:
        assert ingest_main([*command, "--lake", str(lake)]) == 0
    tables = {
        "host_index": index.hosts,
        "host_ranks": index.hosts,
        "page_annotations": pq.ParquetDataset(url_folder).read().num_rows,
    }
    for table, rows in tables.items():
        assert pq.read_table(lake / table).num_rows == rows
