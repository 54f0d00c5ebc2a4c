"""One crawl's host index at a real crawl's size, streamed: issue 35's scale inputs.

A real host index has a row per host of the web graph: 335,267,082 for the graph release that
spans CC-MAIN-2024-10 (``cc-main-2024-nov-feb-apr``, docs/performance.md). ``host_index``
writes one crawl's index for ``fraction`` of that many hosts in memory that does not grow with
it: host ids are taken in parts of ``part_rows``; each part's names, ranks and counts are
functions of the host id (``demo.bench_inputs``: nothing is drawn from a model of all hosts),
its rows sorted by SURT host name within the part, as Common Crawl's own index is sorted only
roughly ("the sort order is off", FORMATS.md §2.1), and written as its own Parquet file of the
v2 schema (``demo.crawls.HOST_INDEX_SCHEMA``) under a temporary name, then renamed. A part on
disk is therefore complete, and a run cut short resumes from the parts it finished.

A host's harmonic-centrality position is the one the ranks file of the same size gives it
(``demo.bench_inputs.ranks_files``: position p holds host (p − 1)·a mod N), so a ranks file
written for these hosts agrees with the index's ``hcrank`` column.

    .venv/bin/python -m demo real-size --fraction 0.125 --out DIR [--part-rows 2000000]
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

from demo.bench_inputs import coprime_multiplier, host_index_chunk, host_names
from demo.config import CRAWLS
from demo.crawls import HOST_INDEX_SCHEMA

__all__ = ["REAL_HOSTS", "RealSizeIndex", "host_index", "host_positions"]

# Nodes of the host graph release spanning CC-MAIN-2024-10 (cc-webgraph-statistics host.tsv).
REAL_HOSTS = 335_267_082
PART_ROWS = 2_000_000


@dataclass(frozen=True)
class RealSizeIndex:
    """What ``host_index`` wrote (or found written): its folder, size and parts."""

    folder: Path
    crawl: str
    hosts: int
    parts: list[Path]
    rows: int
    bytes: int
    seconds: float
    cached_parts: int


def host_positions(ids: np.ndarray, hosts: int) -> np.ndarray:
    """The 1-based harmonic-centrality position of each host id among ``hosts``.

    The inverse of the ranks file's placement, host = (position − 1)·a mod N.
    """
    inverse = pow(coprime_multiplier(hosts), -1, hosts) if hosts > 1 else 0
    if hosts >= 2**31:
        raise ValueError(f"{hosts:,} hosts: positions would overflow 64 bits")
    # ids and the inverse are below N < 2^31: their product is below 2^62
    return (ids.astype(np.int64) * np.int64(inverse)) % np.int64(hosts) + 1


def _part(ids: np.ndarray, hosts: int, crawl_index: int, part: int) -> pa.Table:
    """One part of the index: its hosts' rows, sorted by SURT host name."""
    rev, registered, tld = host_names(ids)
    surt = pc.replace_substring(pa.array(rev, pa.string()), ".", ",")
    order = pc.sort_indices(surt)
    strings = {
        "surt_host_name": surt.take(order),
        "url_host_registered_domain": pa.array(registered, pa.string()).take(order),
        "url_host_tld": pa.array(tld, pa.string()).take(order),
    }
    sorted_ids = ids[order.to_numpy()]
    return host_index_chunk(
        sorted_ids,
        strings,
        crawl_index,
        part,
        hosts,
        hc_positions=host_positions(sorted_ids, hosts),
    )


def _remove_stale_parts(folder: Path) -> None:
    """Delete the temporary parts of runs that were killed (their pid no longer runs).

    A run still going (two at once on one folder) keeps its own: each writes under its pid.
    """
    for temporary in folder.glob(".part-*.tmp"):
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


def host_index(
    out: Path, fraction: float, crawl: str = CRAWLS[-1], part_rows: int = PART_ROWS
) -> RealSizeIndex:
    """Write (or resume) ``crawl``'s host index for ``fraction`` of ``REAL_HOSTS`` hosts.

    The folder is ``out/host-index-<hosts>/crawl=<crawl>/``; part i holds host ids
    [i·part_rows, (i + 1)·part_rows). Parts already on disk are kept.
    """
    if not 0 < fraction <= 1:
        raise ValueError(f"the fraction of {REAL_HOSTS:,} hosts must be in (0, 1], not {fraction}")
    if part_rows < 1:
        raise ValueError(f"part_rows must be positive, not {part_rows}")
    hosts = max(1, round(REAL_HOSTS * fraction))
    folder = out / f"host-index-{hosts}" / f"crawl={crawl}"
    folder.mkdir(parents=True, exist_ok=True)
    crawl_index = CRAWLS.index(crawl) if crawl in CRAWLS else len(CRAWLS)
    _remove_stale_parts(folder)
    started = time.perf_counter()
    parts, cached = [], 0
    for part, start in enumerate(range(0, hosts, part_rows)):
        path = folder / f"part-{part:05d}.parquet"
        parts.append(path)
        if path.exists():
            cached += 1
            continue
        ids = np.arange(start, min(start + part_rows, hosts), dtype=np.int64)
        table = _part(ids, hosts, crawl_index, part)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        pq.write_table(
            table.cast(HOST_INDEX_SCHEMA), temporary, row_group_size=1 << 20, compression="zstd"
        )
        os.replace(temporary, path)
        del table, ids
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
    (folder.parent / "info.json").write_text(
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
