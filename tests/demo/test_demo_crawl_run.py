"""What a demo crawl run writes beside the crawl, and what it refuses: the registry and the
training corpus, the paper scale's lake tables, the same seed's bytes, bad arguments, a failure
half-way.
"""

from __future__ import annotations

import csv
import gzip
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from demo import gneissweb, paper_lake
from demo.config import CLASSIFIERS, SAMPLE_CRAWL
from demo.corpus import ANNOTATIONS
from demo.generate import sample_truth, synthesize
from hostaware import paths
from ingest import schemas
from ingest.lake import committed_parts, manifest_rows
from tests.fixtures.crawls import SEED, Crawl

# -------------------------------------------------------------------- corpus and registry


def test_registry_matches_the_seed(tiny_crawl: Crawl):
    written = (tiny_crawl.root / "classifier_registry.csv").read_text()
    assert written == (paths.SEEDS / "classifier_registry.csv").read_text()


def test_training_corpus_has_a_label_per_classifier(tiny_crawl: Crawl):
    with gzip.open(tiny_crawl.root / "training" / "labelled_corpus.tsv.gz", "rt") as handle:
        rows = list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    header, body = rows[0], rows[1:]
    assert header == ["split", *(spec.name for spec in CLASSIFIERS), "text"]
    assert {row[0] for row in body} == {"train", "valid"}
    for column, spec in enumerate(CLASSIFIERS, start=1):
        labels = [row[column].split() for row in body]
        assert {len(row) for row in labels} == {ANNOTATIONS}, "one label per annotation"
        assert {label for row in labels for label in row} == set(spec.labels)
        order = {label: rank for rank, label in enumerate(spec.labels)}
        assert all(row == sorted(row, key=order.get) for row in labels), "lowest label first"
    assert all(row[-1].strip() and "\n" not in row[-1] for row in body)


def test_paper_scale_documents_carry_the_last_label_and_the_public_suffix(tmp_path: Path):
    """The paper scale writes the sample straight to the lake's documents table: url_host_tld
    the last label, url_host_registry_suffix the public suffix (schemas.DOCUMENTS)."""
    hosts, documents, pages = sample_truth(SEED, "tiny")
    source = paper_lake.write_source(tmp_path / "raw", SEED)
    paper_lake.write_sample(tmp_path, source, hosts, documents, pages)
    (path,) = (tmp_path / "documents" / f"crawl={SAMPLE_CRAWL}").glob("*.parquet")
    table = pq.read_table(path)
    assert table.schema.names == schemas.DOCUMENTS.names
    frame = table.to_pandas()
    assert list(frame["doc_id"]) == pages.record_id.to_pylist()
    url_hosts = frame["url"].map(lambda url: urlsplit(url).hostname)
    assert (frame["url_host_tld"] == url_hosts.str.rsplit(".", n=1).str[-1]).all()
    assert (frame["url_host_registry_suffix"] == list(hosts.suffix[documents.host_id])).all()
    registered = frame["url_host_registered_domain"]
    suffix = frame["url_host_registry_suffix"]
    assert all(d.endswith("." + s) for d, s in zip(registered, suffix, strict=True))
    assert (frame["url_host_registry_suffix"] != frame["url_host_tld"]).any()
    fetched = table["fetched_at"].cast(pa.int64()).to_numpy()
    assert (fetched == pages.fetch_time).all()


def test_the_paper_sample_commits_like_an_ingest_and_a_rerun_replaces_it(tmp_path: Path):
    """The sample is one input file's commit: one manifest row naming both parts, every row
    of them committed; writing it again leaves the same lake, not a second copy."""
    hosts, documents, pages = sample_truth(SEED, "tiny")
    source = paper_lake.write_source(tmp_path / "raw", SEED)
    lake = tmp_path / "lake"
    for _ in range(2):
        row = paper_lake.write_sample(lake, source, hosts, documents, pages)
        (manifest,) = manifest_rows(lake, "documents")
        assert manifest["part_key"] == row["part_key"]
        parts = committed_parts(lake)
        assert sorted(parts) == sorted(row["output_files"])
        counts = {path.split("/")[0]: pq.read_metadata(lake / path).num_rows for path in parts}
        assert counts == {
            "documents": documents.count,
            "document_scores": documents.count * len(CLASSIFIERS),
        }
        stray = [p for p in lake.rglob("*.tmp")] + [
            p for p in lake.glob("document*/*/*.parquet") if str(p.relative_to(lake)) not in parts
        ]
        assert stray == []


# ----------------------------------------------------------------- determinism, arguments


def _digest(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_same_seed_gives_identical_bytes(tiny_crawl: Crawl, tmp_path: Path):
    again = tmp_path / "again"
    synthesize(again, SEED, "tiny")
    assert _digest(again) == _digest(tiny_crawl.root)
    other = tmp_path / "other"
    synthesize(other, SEED + 1, "tiny")
    assert _digest(other)["truth.json"] != _digest(again)["truth.json"]


def _synth_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "demo", "crawl", *args],
        capture_output=True,
        text=True,
        cwd=paths.PROJECT,
        check=False,
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scale", "huge"], "unknown scale 'huge'"),
        (["--seed", "-3"], "must be >= 0"),
        (["--seed", "x"], "not an integer"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(tmp_path: Path, args: list[str], message: str):
    result = _synth_cli("--out", str(tmp_path / "out"), *args)
    assert result.returncode == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_non_empty_out_needs_force(tmp_path: Path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    result = _synth_cli("--out", str(out), "--scale", "tiny")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"python -m demo crawl: error: --out {out} is not empty: pass --force to replace it"
    ]
    assert [p.name for p in out.iterdir()] == ["keep.txt"]


def test_a_failure_half_way_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    out = tmp_path / "raw"
    out.mkdir()
    (out / "old.txt").write_text("previous crawl")

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(gneissweb, "annotation_parts", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        synthesize(out, SEED, "tiny", force=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["raw"]
    assert [p.name for p in out.iterdir()] == ["old.txt"]
