"""Helpers of the `ingest.host_index` tests: host-index Parquet files written, lake rows read."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from ingest import schemas
from ingest.host_index import SOURCE_NAMES
from tests.fixtures.crawls import Crawl

CRAWL = "CC-MAIN-2024-10"
NUTCH = [name for name in schemas.HOST_INDEX.names if name.startswith("nutch_")]


def _inputs(crawl: Crawl) -> list[Path]:
    return sorted((crawl.root / "host-index").glob("crawl=*/*.parquet"))


def _source_name(column: str) -> str:
    return SOURCE_NAMES.get(column, column)


def _committed(lake: Path) -> list[dict]:
    """The lake's host_index rows read through the manifest: parts joined on their key."""
    parts = f"{lake}/host_index/*/part-*.parquet"
    manifest = f"{lake}/_manifest/host_index/*.parquet"
    relation = duckdb.connect().sql(
        f"""
        select parts.* exclude (filename)
        from read_parquet('{parts}', hive_partitioning = true, filename = true) as parts
        inner join read_parquet('{manifest}') as manifest
            on regexp_extract(parts.filename, 'part-([0-9a-f]+)\\.parquet$', 1)
                = manifest.part_key
        order by parts.crawl, parts.surt_host_name
        """
    )
    return [dict(zip(relation.columns, row, strict=True)) for row in relation.fetchall()]


def _snapshot(lake: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(lake)): path.read_bytes() for path in lake.rglob("*") if path.is_file()
    }


def _row(surt: str | None = "com,example", **counts) -> dict:
    row = {"surt_host_name": surt, "url_host_tld": "com", "hcrank": 1.5, "fetch_200": 3}
    row.update(counts)
    return row


def _file(path: Path, rows: list[dict], schema: pa.Schema | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
    return path


def _contradictory(source: pa.Table) -> list[bool]:
    """Rows whose nutch_fetched exceeds nutch_numRecords (both are nulled on ingest)."""
    return [
        fetched is not None and known is not None and fetched > known
        for fetched, known in zip(
            source.column("nutch_fetched").to_pylist(),
            source.column("nutch_numRecords").to_pylist(),
            strict=True,
        )
    ]


def _expected(source: pa.Table, name: str) -> list:
    """A source column as the lake holds it: the contradictory nutch pair nulled."""
    values = source.column(name).to_pylist()
    if name not in ("nutch_fetched", "nutch_numRecords"):
        return values
    return [
        None if bad else value for value, bad in zip(values, _contradictory(source), strict=True)
    ]
