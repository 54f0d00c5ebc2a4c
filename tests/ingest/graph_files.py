"""Helpers of the `ingest.webgraph` tests: graph text files written and read back, lake rows.

References are plain Python (`gzip`, `str.split`, `float`), never the code under test.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ingest.lake import manifest_rows
from ingest.webgraph import (
    HOST_HEADER,
    RANKS,
    TextFormat,
    read_text_table,
)
from tests.fixtures.crawls import Crawl

RELEASE = "cc-main-2024-nov-feb-apr"
DOMAIN_HEADER = HOST_HEADER + "\t#n_hosts"
BAD_RANKS_LINE = "1\t1.0\t1\t0.5\tcom..broken"  # a bad host: sends any file to the careful path


def _write(path: Path, lines: list[str], compress: bool = True) -> Path:
    data = ("\n".join(lines) + "\n").encode()
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


class _Sink:
    """Collects the batches read_text_table hands out; counts resets (= careful path taken)."""

    def __init__(self) -> None:
        self.batches: list[pa.RecordBatch] = []
        self.resets = 0

    def __call__(self, batch: pa.RecordBatch) -> None:
        self.batches.append(batch)

    def reset(self) -> None:
        self.resets += 1
        self.batches.clear()

    def rows(self) -> list[dict]:
        return pa.Table.from_batches(self.batches).to_pylist() if self.batches else []


def _read(path: Path, text_format: TextFormat = RANKS, block_size: int = 1 << 20):
    sink = _Sink()
    report = read_text_table(path, text_format, sink, sink.reset, block_size)
    return sink.rows(), report, sink.resets


def _rejections(report) -> dict[int, str]:
    """{file line: reason} from the report's examples ("<path>:<line>: <reason>: <text>")."""
    found = {}
    for example in report.examples:
        line, reason = re.match(
            re.escape(str(report.path)) + r":(-?\d+): (\w+): ", example
        ).groups()
        assert int(line) not in found, f"line {line} rejected twice"
        found[int(line)] = reason
    return found


def _ranks_line(position: int, host: str | None = None) -> str:
    host = host or f"com.h{position}"
    return f"{position}\t{position * 1.25}E3\t{position}\t{position}.5E-4\t{host}"


def _lake_rows(lake: Path, table: str, release: str | None = None) -> list[dict]:
    """The rows of a lake table that the manifest commits (optionally of one release)."""
    rows = []
    for row in manifest_rows(lake, table):
        if release is not None and row["release"] != release:
            continue
        for relative in row["output_files"]:
            rows.extend(pq.read_table(lake / relative).to_pylist())
    return rows


def _snapshot(lake: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(lake)): path.read_bytes() for path in lake.rglob("*") if path.is_file()
    }


def _raw_lines(path: Path) -> list[list[str]]:
    with gzip.open(path, "rt", encoding="utf-8", newline="") as handle:
        return [line.split("\t") for line in handle.read().splitlines()]


def _release_files(crawl: Crawl, release: str) -> dict[str, Path]:
    folder = crawl.root / "webgraph" / release
    return {
        kind: folder / f"{release}-host-{kind}.txt.gz" for kind in ("ranks", "vertices", "edges")
    }
