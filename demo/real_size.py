"""One crawl's inputs at a real crawl's size, streamed: issue 35's scale inputs.

A real host index has a row per host of the web graph: 335,267,082 for the graph release that
spans CC-MAIN-2024-10 (``cc-main-2024-nov-feb-apr``, docs/performance.md). ``host_index``
writes one crawl's index for ``fraction`` of that many hosts in memory that does not grow with
it: host ids are taken in parts of ``part_rows``; each part's names, ranks and counts are
functions of the host id (``demo.bench_inputs``: nothing is drawn from a model of all hosts),
its rows sorted by SURT host name within the part, as Common Crawl's own index is sorted only
roughly ("the sort order is off", FORMATS.md §2.1), and written as its own Parquet file of the
v2 schema (``demo.crawls.HOST_INDEX_SCHEMA``) under a temporary name, then renamed. Beside each
index part go the part's host-level GneissWeb annotations and its crawled hosts' planted HQ
density (``demo.real_size_quality``), written first: an index part on disk means all three are
complete, and a run cut short resumes from the parts it finished.

The graph release's ranks file of the same hosts (``ranks``) places host (p − 1)·a mod N at
harmonic-centrality position p (``demo.bench_inputs.write_ranks``), and its PageRank positions
are a permutation sorted out of core (``demo.bench_inputs.pagerank_positions``); the index's
``hcrank`` and ``prank`` are the values the ranks file gives each host (``host_positions``
inverts the placement). ``url_annotations`` spreads a chosen number of URL-level rows over the
crawled hosts by their fetched pages; ``classified_sample`` is the classified WARC sample of
the first part's hosts, committed to a lake as ``demo.paper_lake`` commits the paper's.

    .venv/bin/python -m demo real-size --fraction 0.125 --out DIR [--url-rows N] [--ranks]
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from demo import real_size_quality as quality
from demo.bench_inputs import (
    coprime_multiplier,
    host_index_chunk,
    host_names,
    pagerank_positions,
    write_ranks,
)
from demo.config import CRAWLS, GRAPH_RELEASES, SAMPLE_CRAWL
from demo.crawls import HOST_INDEX_SCHEMA
from demo.gneissweb import HOST_ANNOTATION_SCHEMA, URL_ANNOTATION_SCHEMA

__all__ = [
    "REAL_HOSTS",
    "RealSizeIndex",
    "classified_sample",
    "host_index",
    "host_positions",
    "hosts_of",
    "ranks",
    "url_annotations",
]

# Nodes of the host graph release spanning CC-MAIN-2024-10 (cc-webgraph-statistics host.tsv).
REAL_HOSTS = 335_267_082
PART_ROWS = 2_000_000
# the classified sample's hosts are the crawled ones among these first host ids (~532k)
SAMPLE_HOST_IDS = 5_600_000
RELEASE = GRAPH_RELEASES[0]  # cc-main-2024-nov-feb-apr, the release spanning SAMPLE_CRAWL


@dataclass(frozen=True)
class RealSizeIndex:
    """What ``host_index`` wrote (or found written): its folder, size and parts."""

    folder: Path  # <out>/hosts-<N>/host-index/crawl=<crawl>
    crawl: str
    hosts: int
    parts: list[Path]
    rows: int
    bytes: int
    seconds: float
    cached_parts: int

    @property
    def root(self) -> Path:
        """The folder of everything written for these hosts."""
        return self.folder.parent.parent

    def beside(self, kind: str) -> Path:
        """The crawl's folder of ``kind`` (``host-annotations``, ``truth``, …)."""
        return self.root / kind / self.folder.name


def hosts_of(fraction: float) -> int:
    """The number of hosts at ``fraction`` of ``REAL_HOSTS``."""
    if not 0 < fraction <= 1:
        raise ValueError(f"the fraction of {REAL_HOSTS:,} hosts must be in (0, 1], not {fraction}")
    return max(1, round(REAL_HOSTS * fraction))


def host_positions(ids: np.ndarray, hosts: int) -> np.ndarray:
    """The 1-based harmonic-centrality position of each host id among ``hosts``.

    The inverse of the ranks file's placement, host = (position − 1)·a mod N.
    """
    inverse = pow(coprime_multiplier(hosts), -1, hosts) if hosts > 1 else 0
    if hosts >= 2**31:
        raise ValueError(f"{hosts:,} hosts: positions would overflow 64 bits")
    # ids and the inverse are below N < 2^31: their product is below 2^62
    return (ids.astype(np.int64) * np.int64(inverse)) % np.int64(hosts) + 1


def _pr_positions(root: Path, hosts: int, memory_limit: str) -> np.ndarray:
    """The PageRank position at each harmonic-centrality position, memory-mapped."""
    path = pagerank_positions(root / "pr_pos.npy", hosts, root / "spill", memory_limit)
    return np.load(path, mmap_mode="r")


def _part(
    ids: np.ndarray, hosts: int, crawl_index: int, part: int, pr_pos: np.ndarray
) -> tuple[np.ndarray, pa.Table]:
    """One part of the index: its hosts' ids and rows, sorted by SURT host name."""
    rev, registered, tld = host_names(ids)
    surt = pc.replace_substring(pa.array(rev, pa.string()), ".", ",")
    order = pc.sort_indices(surt)
    strings = {
        "surt_host_name": surt.take(order),
        "url_host_registered_domain": pa.array(registered, pa.string()).take(order),
        "url_host_tld": pa.array(tld, pa.string()).take(order),
    }
    sorted_ids = ids[order.to_numpy()]
    hc_positions = host_positions(sorted_ids, hosts)
    return sorted_ids, host_index_chunk(
        sorted_ids,
        strings,
        crawl_index,
        part,
        hosts,
        hc_positions=hc_positions,
        pr_positions=pr_pos[hc_positions - 1],
    )


def _remove_stale_parts(folder: Path) -> None:
    """Delete the temporary parts of runs that were killed (their pid no longer runs).

    A run still going (two at once on one folder) keeps its own: each writes under its pid.
    """
    for temporary in folder.glob(".*.tmp"):
        pid = temporary.name.rsplit(".", 2)[-2]
        if pid.isdigit() and not _running(int(pid)):
            temporary.unlink(missing_ok=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: running
        return True
    return True


def _write(table: pa.Table, path: Path, schema: pa.Schema) -> None:
    """``table`` as ``path``, whole or not at all (a temporary name, then a rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    pq.write_table(table.cast(schema), temporary, row_group_size=1 << 20, compression="zstd")
    os.replace(temporary, path)


def host_index(
    out: Path,
    fraction: float,
    crawl: str = SAMPLE_CRAWL,
    part_rows: int = PART_ROWS,
    memory_limit: str = "4GB",
) -> RealSizeIndex:
    """Write (or resume) ``crawl``'s host index for ``fraction`` of ``REAL_HOSTS`` hosts.

    The index is ``out/hosts-<N>/host-index/crawl=<crawl>/``, its host annotations and truth
    in ``host-annotations/`` and ``truth/`` beside it; part i holds host ids
    [i·part_rows, (i + 1)·part_rows). Parts already on disk are kept. ``memory_limit`` bounds
    DuckDB's sort of the PageRank positions (made once for the hosts).
    """
    hosts = hosts_of(fraction)
    if part_rows < 1:
        raise ValueError(f"part_rows must be positive, not {part_rows}")
    root = out / f"hosts-{hosts}"
    folder = root / "host-index" / f"crawl={crawl}"
    index = RealSizeIndex(folder, crawl, hosts, [], 0, 0, 0.0, 0)
    kinds = {
        "truth": quality.TRUTH_SCHEMA,
        "host-annotations": HOST_ANNOTATION_SCHEMA,
        "host-index": HOST_INDEX_SCHEMA,
    }
    for kind in kinds:
        index.beside(kind).mkdir(parents=True, exist_ok=True)
        _remove_stale_parts(index.beside(kind))
    crawl_index = CRAWLS.index(crawl) if crawl in CRAWLS else len(CRAWLS)
    started = time.perf_counter()
    pr_pos = _pr_positions(root, hosts, memory_limit)
    parts, cached = [], 0
    for part, start in enumerate(range(0, hosts, part_rows)):
        name = f"part-{part:05d}.parquet"
        parts.append(folder / name)
        if (folder / name).exists():  # written last: the part's other files are there
            cached += 1
            continue
        ids, table = _part(
            np.arange(start, min(start + part_rows, hosts), dtype=np.int64),
            hosts,
            crawl_index,
            part,
            pr_pos,
        )
        truth = quality.truth_part(ids, table)
        written = {
            "truth": truth,
            "host-annotations": quality.host_annotation_part(truth),
            "host-index": table,
        }
        for kind, schema in kinds.items():  # the index part last
            _write(written[kind], index.beside(kind) / name, schema)
        del table, truth, written, ids
    index = RealSizeIndex(
        folder=folder,
        crawl=crawl,
        hosts=hosts,
        parts=parts,
        rows=sum(pq.ParquetFile(path).metadata.num_rows for path in parts),
        bytes=sum(path.stat().st_size for path in parts),
        seconds=time.perf_counter() - started,
        cached_parts=cached,
    )
    (root / "info.json").write_text(
        json.dumps(
            {
                "crawl": crawl,
                "hosts": hosts,
                "fraction": fraction,
                "part_rows": part_rows,
                "parts": len(parts),
                "rows": index.rows,
                "bytes": index.bytes,
            },
            indent=1,
        )
    )
    return index


def ranks(index: RealSizeIndex, workers: int = 2, release: str = RELEASE) -> dict:
    """The graph release's ranks file of the index's hosts (unless written already)."""
    path = index.root / "ranks" / f"{release}-host-ranks.txt.gz"
    if path.exists():
        size = path.stat().st_size
        return {"rows": index.hosts, "path": str(path), "bytes": size, "cached": True}
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_parts(path.parent)
    info = write_ranks(path, index.root / "pr_pos.npy", index.hosts, workers)
    return info | {"cached": False}


def url_annotations(index: RealSizeIndex, rows: int, max_parts: int | None = None) -> dict:
    """About ``rows`` URL-level GneissWeb rows on the index's crawled hosts (unless written).

    Each crawled host gets rows in proportion to its fetched pages (``fetch_200``), part by
    part of the truth, in ``url-annotations-<rows>/crawl=<crawl>/``: part i's files are
    ``part-<i>-<j>.parquet``, and a part is done when its ``.done`` marker is. With
    ``max_parts``, at most that many parts are written (``complete`` says whether every part
    is done), so that a caller can ingest and delete them before the next: a part's markers
    outlive its files.
    """
    truths = sorted(index.beside("truth").glob("part-*.parquet"))
    if len(truths) != len(index.parts):
        raise ValueError(f"{index.root}: the index is not complete; write it first")
    fetched = sum(
        pq.read_table(path, columns=["fetch_200"])["fetch_200"].to_numpy().sum(dtype=np.int64)
        for path in truths
    )
    share = rows / fetched
    folder = index.root / f"url-annotations-{rows}" / f"crawl={index.crawl}"
    folder.mkdir(parents=True, exist_ok=True)
    _remove_stale_parts(folder)
    started = time.perf_counter()
    written = 0
    for path in truths:
        done = folder / f".{path.stem}.done"
        if done.exists():
            continue
        if max_parts is not None and written == max_parts:
            break
        written += 1
        for stale in folder.glob(f"{path.stem}-*.parquet"):  # a part cut short: again
            stale.unlink()
        truth = pq.read_table(path)
        for number, table in enumerate(quality.url_annotation_parts(truth, share, index.crawl)):
            _write(table, folder / f"{path.stem}-{number:04d}.parquet", URL_ANNOTATION_SCHEMA)
        done.touch()
    files = sorted(folder.glob("part-*.parquet"))
    return {
        "folder": str(folder),
        "rows": sum(pq.ParquetFile(path).metadata.num_rows for path in files),
        "fetched_pages": int(fetched),
        "files": len(files),
        "bytes": sum(path.stat().st_size for path in files),
        "seconds": time.perf_counter() - started,
        "complete": all((folder / f".{path.stem}.done").exists() for path in truths),
    }


def classified_sample(index: RealSizeIndex, lake: Path) -> dict:
    """Commit the classified sample to ``lake``; return its manifest row.

    The sample's hosts are the crawled ones (with ``SAMPLE_MIN_PAGES`` fetched pages) among the
    first ``SAMPLE_HOST_IDS`` host ids (all hosts when there are fewer): the same candidates at
    every share of the real size, about 2.5M pages (the paper's sample has 3.0M on 0.53M hosts).
    """
    from demo.paper_lake import commit_sample, write_source

    source = write_source(index.root / "sample" / f"crawl={index.crawl}", index.hosts)
    first = pc.field("host_id") < SAMPLE_HOST_IDS
    truth = pa.concat_tables(
        pq.read_table(path, filters=first)
        for path in sorted(index.beside("truth").glob("part-*.parquet"))
    )
    documents, scores = quality.classified_sample(truth, source.read_text("ascii"), index.crawl)
    tables = {"documents": lambda: documents, "document_scores": lambda: scores}
    return commit_sample(lake, source, tables, documents.num_rows, crawl=index.crawl)
