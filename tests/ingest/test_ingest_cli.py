"""`python -m ingest graph|host-index|annotations`: summary lines, one-line errors, exit code 2."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from demo.config import DRIFTED_CRAWL, GRAPH_RELEASES
from ingest.__main__ import main
from tests.fixtures.crawls import Crawl

REPO = Path(__file__).resolve().parents[2]


def _lines(path: Path) -> int:
    return len(gzip.decompress(path.read_bytes()).splitlines())


def test_a_bad_argument_is_one_line_on_stderr_and_exit_2(tmp_path: Path):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "ingest",
            "graph",
            "--release",
            "r",
            "--lake",
            str(tmp_path / "lake"),
            "--max-reject-rate",
            "2",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        "python -m ingest graph: error: argument --max-reject-rate: must be in [0, 1], got 2.0\n"
    )
    assert not (tmp_path / "lake").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["graph", "--release", "r"], "nothing to ingest: give --ranks, --vertices or --edges"),
        (["graph", "--release", "r", "--ranks", "missing.txt.gz"], "no such file: missing.txt.gz"),
        (["graph", "--release", "r", "--edges", "nothing-*.txt.gz"], "no input file matches"),
        (["host-index", "--path", "{tmp}/none"], "no input file matches"),
        (["annotations", "--path", "{tmp}/docs"], "no input files"),  # no .parquet file there
        (
            ["host-index", "--path", "{tmp}/x.parquet", "--crawl", "CC-MAIN-2024-10"],
            "x.parquet: not a readable Parquet file",
        ),
        (["annotations", "--path", "{tmp}/x.parquet", "--crawl", "2024"], "not a crawl id: '2024'"),
    ],
)
def test_ingest_errors_are_one_line_and_exit_2(tmp_path, capsys, argv, message):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "notes.txt").write_text("not parquet")
    (tmp_path / "x.parquet").write_bytes(b"")
    argv = [part.format(tmp=tmp_path) for part in argv] + ["--lake", str(tmp_path / "lake")]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert captured.err.startswith(f"python -m ingest {argv[0]}: error: ")
    assert message in captured.err


def test_graph_prints_a_summary_line(tiny_crawl: Crawl, tmp_path: Path, capsys):
    release = GRAPH_RELEASES[1]
    folder = tiny_crawl.root / "webgraph" / release
    files = {
        kind: folder / f"{release}-host-{kind}.txt.gz" for kind in ("ranks", "vertices", "edges")
    }
    argv = ["graph", "--release", release, "--lake", str(tmp_path / "lake")]
    argv += ["--ranks", str(files["ranks"]), "--vertices", str(files["vertices"])]
    argv += ["--edges", str(folder / "*-edges.txt.gz")]  # a glob pattern
    assert main(argv) == 0
    read = _lines(files["ranks"]) - 1 + _lines(files["vertices"]) + _lines(files["edges"])
    assert capsys.readouterr().out == (
        f"graph {release}: 3 files ingested into host_edges, host_ranks, host_vertices, "
        f"{read:,} records read, {read:,} written, 0 rejected\n"
    )
    assert main(argv) == 0
    assert capsys.readouterr().out == (
        f"graph {release}: 0 files ingested into nothing new, 0 records read, 0 written, "
        "0 rejected\n"
    )


def test_host_index_prints_drift_and_a_summary(tiny_crawl: Crawl, tmp_path: Path, capsys):
    folder = tiny_crawl.root / "host-index"
    argv = ["host-index", "--path", str(folder), "--lake", str(tmp_path / "lake")]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    rows = sum(pq.read_metadata(path).num_rows for path in folder.glob("*/*.parquet"))
    impossible = sum(  # the synthetic index plants a few: nulled, and the line says so
        sum(
            fetched is not None and known is not None and fetched > known
            for fetched, known in zip(
                table.column("nutch_fetched").to_pylist(),
                table.column("nutch_numRecords").to_pylist(),
                strict=True,
            )
        )
        for table in map(pq.read_table, folder.glob("*/*.parquet"))
    )
    assert impossible > 0
    assert out[-1] == (
        f"host-index: 6 files ingested into host_index, {rows:,} records read, {rows:,} written, "
        "0 rejected; values nulled in written records "
        f"(nutch_fetched_above_num_records {impossible:,})"
    )
    drift = out[:-1]
    assert drift and all(f"crawl={DRIFTED_CRAWL}" in line for line in drift)
    assert any(line.endswith("missing column fetch_200_lote_pct: read as null") for line in drift)


def test_annotations_summary_counts_rejects_by_reason(tmp_path: Path, capsys):
    import pyarrow as pa

    folder = tmp_path / "crawl=CC-MAIN-2024-10"
    folder.mkdir()
    pq.write_table(
        pa.table(
            {
                "id": ["<urn:uuid:1>", "<urn:uuid:2>", None],
                "url": ["https://a.example/", "nonsense", "https://b.example/"],
                "score": [3.1, 2.0, 1.0],
                "int_score": [3, 2, 1],
            }
        ),
        folder / "part-0.parquet",
    )
    (folder / "notes.txt").write_text("not parquet: ignored")
    argv = ["annotations", "--path", str(tmp_path), "--lake", str(tmp_path / "lake")]
    assert main([*argv, "--max-reject-rate", "0.9"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "annotations: 1 files (fineweb_edu 1) ingested into page_annotations, 3 records read, "
        "1 written, "
        "2 rejected (bad_host 1, missing_key 1)"
    )


def test_annotations_without_a_profile_are_refused_naming_the_file(tmp_path: Path, capsys):
    import pyarrow as pa

    path = tmp_path / "crawl=CC-MAIN-2024-10" / "fineweb.parquet"
    path.parent.mkdir()
    pq.write_table(pa.table({"id": ["<urn:uuid:1>"], "url": ["https://a.example/"]}), path)
    argv = ["annotations", "--path", str(path), "--lake", str(tmp_path / "lake")]
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"python -m ingest annotations: error: {path}: matches no annotation")
    assert not (tmp_path / "lake" / "page_annotations").exists()
