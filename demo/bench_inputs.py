"""Large inputs for the lake-ingest benchmark (``bench/bench_lake_ingest.py``), on disk.

``python -m demo bench-inputs ranks|host-index --out DIR …`` writes them (unless cached in
``DIR``; names carry their size) and prints one JSON line describing them:

* ``ranks``: a host-level ranks file in Common Crawl's exact format (FORMATS.md §1.4), as
  ``demo.webgraph.write_ranks`` writes the demo's: the ``#``-prefixed header, rows sorted by
  ``hc_pos`` (1..N, dense), ``hc_val`` as Java ``Float.toString`` and ``pr_val`` as Java
  ``Double.toString`` (``demo.webgraph.ranks_rows``), heavy tailed; ``pr_pos`` a permutation
  correlated with ``hc_pos``; unique reversed host names (registered domains with a few
  subdomains, the demo's TLD mix). Gzip, one member per 1M-row block, written by worker
  processes and concatenated; files holding its first ``--prefix-rows`` rows are assembled from
  the same members, to show memory against size.
* ``host-index``: 6 crawls x ``--hosts`` hosts, ``demo.crawls.HOST_INDEX_SCHEMA`` assembled by
  ``demo.crawls.host_index_rows`` (one crawl drifted with ``drift_schema``), rows in SURT order,
  row groups of 1M rows, ``<out>/host-index-<n>/crawl=<id>/part-00000.parquet``.

Unlike the demo crawl, nothing here is drawn from a model of hosts: at 50M rows that would not
fit in memory. Every host-level value is a hash of the host id (``_unit``), so any block of
rows can be written alone, in any process, with the same result for the same size.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import shutil
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from isal import igzip

from demo.config import CRAWLS, DRIFTED_CRAWL, TLDS
from demo.crawls import FETCH_COLUMNS, count_share, drift_schema, host_index_rows
from demo.webgraph import RANKS_HEADER, ranks_rows

__all__ = [
    "coprime_multiplier",
    "host_index_chunk",
    "host_index_files",
    "host_names",
    "normals",
    "pagerank_positions",
    "ranks_files",
    "unit",
    "write_ranks",
]

BLOCK_ROWS = 1_000_000
HC_TOP = 3.4626736e7  # harmonicc_val of com.facebook, the top row of the real file
PR_TOP = 0.008634952900502719  # pr_val of com.google, PageRank position 1
SEED = 20250101

# ----------------------------------------------------------------------- host names

_LETTERS = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz", dtype=np.uint8)
_WORD_SPACE = 26**6  # a 6-letter word per registered domain: at most 308M domains
_WORD_MULTIPLIER = 183_109_553  # coprime with 26: scatters consecutive ids over the words
_PREFIXES = (
    "", "my", "the", "best", "shop", "news", "blog", "info",
    "web", "online", "city", "green", "smart", "home", "art", "tech",
    "travel", "garden", "fashion", "dental", "academy", "solutions", "photography",
    "consulting", "restaurant", "realestate", "university", "insurance", "international",
    "church", "hotel", "law",
)  # fmt: skip
_SUBDOMAINS = ("blog", "shop", "m")  # ids with id % 8 in 5, 6, 7 are subdomains of id - id % 8


def _tld_tables() -> tuple[list[str], list[str], np.ndarray]:
    suffixes = [tld.suffix for tld in TLDS]
    reversed_ = [".".join(reversed(suffix.split("."))) for suffix in suffixes]
    shares = np.cumsum([tld.share for tld in TLDS])
    return suffixes, reversed_, shares / shares[-1]


def _mix(values: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser: a well-spread hash of each id (uint64, wrapping)."""
    x = values.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def unit(values: np.ndarray, salt: int) -> np.ndarray:
    """A uniform [0, 1) number per id, fixed by the id (and salt)."""
    with np.errstate(over="ignore"):
        keys = values.astype(np.uint64) * np.uint64(8) + np.uint64(salt)
    return (_mix(keys) >> np.uint64(11)) * (1.0 / 2**53)


def normals(values: np.ndarray, salt: int) -> np.ndarray:
    """A standard normal number per id, fixed by the id (and salt)."""
    return np.sqrt(2.0) * _erfinv_approx(2.0 * unit(values, salt) - 1.0)


def host_names(ids: np.ndarray) -> tuple[list[str], list[str], list[str]]:
    """Reversed host names, registered domains and TLDs of host ids (unique per id).

    Ids ``8j..8j+4`` are registered domains ``<tld>.<prefix><word>``; ``8j+5..8j+7`` are
    ``blog``/``shop``/``m`` subdomains of domain ``8j``. A domain's word is a bijection of its
    id onto 6 letters, so names never collide.
    """
    with np.errstate(over="ignore"):
        ids = np.asarray(ids, dtype=np.uint64)
        kind = (ids % np.uint64(8)).astype(np.int64)
        domain = np.where(kind < 5, ids, ids - kind.astype(np.uint64))
        hashed = _mix(domain)
        suffixes, reversed_, shares = _tld_tables()
        tld = np.searchsorted(shares, (hashed >> np.uint64(11)) * (1.0 / 2**53), side="right")
        prefix = ((hashed >> np.uint64(3)) % np.uint64(len(_PREFIXES))).astype(np.int64)
        code = (domain * np.uint64(_WORD_MULTIPLIER) + np.uint64(12345)) % np.uint64(_WORD_SPACE)
    letters = np.empty((len(ids), 6), dtype=np.uint8)
    for column in range(5, -1, -1):
        letters[:, column] = _LETTERS[(code % np.uint64(26)).astype(np.int64)]
        code //= np.uint64(26)
    words = letters.view("S6").ravel().astype("U6").tolist()
    tld_list = np.minimum(tld, len(suffixes) - 1).tolist()
    labels = [f"{_PREFIXES[p]}{w}" for p, w in zip(prefix.tolist(), words, strict=True)]
    rev = [
        f"{reversed_[t]}.{label}" if k < 5 else f"{reversed_[t]}.{label}.{_SUBDOMAINS[k - 5]}"
        for t, label, k in zip(tld_list, labels, kind.tolist(), strict=True)
    ]
    registered = [f"{label}.{suffixes[t]}" for t, label in zip(tld_list, labels, strict=True)]
    return rev, registered, [suffixes[t] for t in tld_list]


# ----------------------------------------------------------------------- the ranks file


def _hc_values(positions: np.ndarray, rows: int) -> np.ndarray:
    """Harmonic centrality by position, non-increasing, heavy tailed (Java float)."""
    return (HC_TOP * (1.0 + positions / (0.02 * rows)) ** -2.0).astype(np.float32)


def _pr_values(positions: np.ndarray) -> np.ndarray:
    """PageRank by position, strictly decreasing, a power law (Java double)."""
    return PR_TOP * positions.astype(np.float64) ** -0.9 + 1.5e-10


def _ranks_block(task: tuple[str, str, int, int, int]) -> float:
    """Write rows [start, stop) of the ranks file as one gzip member; return the seconds."""
    target, pr_pos_file, rows, start, stop = task
    started = time.perf_counter()
    hc_pos = np.arange(start + 1, stop + 1, dtype=np.int64)
    pr_pos = np.load(pr_pos_file, mmap_mode="r")[start:stop].astype(np.int64)
    multiplier = coprime_multiplier(rows)
    node = (hc_pos - 1) * multiplier % rows  # which host sits at this position: a bijection
    rev, _, _ = host_names(node)
    text = ranks_rows(
        hc_pos.tolist(), _hc_values(hc_pos, rows), pr_pos.tolist(), _pr_values(pr_pos), rev
    )
    temporary = Path(target).with_suffix(".tmp")
    temporary.write_bytes(igzip.compress(text.encode("ascii"), compresslevel=1, mtime=0))
    os.replace(temporary, target)
    return time.perf_counter() - started


def coprime_multiplier(rows: int) -> int:
    """A multiplier a coprime with ``rows``: position p holds host (p − 1)·a mod rows."""
    multiplier = 2654435761 % rows or 1
    while math.gcd(multiplier, rows) != 1:
        multiplier += 1
    return multiplier


def _assemble(target: Path, members: list[Path]) -> None:
    temporary = target.with_suffix(".tmp")
    with temporary.open("wb") as out:
        out.write(gzip.compress((RANKS_HEADER + "\n").encode(), mtime=0))
        for member in members:
            with member.open("rb") as handle:
                shutil.copyfileobj(handle, out, 1 << 24)
    os.replace(temporary, target)


def pagerank_positions(path: Path, rows: int, spill: Path, memory_limit: str = "4GB") -> Path:
    """Each harmonic-centrality position's PageRank position: a permutation of 1..``rows``.

    Saved at ``path`` (``.npy``, int32, entry p − 1 for position p) unless there already. The
    PageRank order is the order of ln p + 2·N(0, 1) (the normal fixed by p, ties by p), so the
    two positions correlate as a real graph's do without being equal. That is a sort of every
    position, done out of core by DuckDB (``memory_limit``, spilling under ``spill``); the
    sorted positions are then read in blocks and each one's rank written at its place in a
    memory-mapped array, so nothing of size ``rows`` is held but the array's pages.
    """
    if path.exists():
        return path
    spill.mkdir(parents=True, exist_ok=True)
    ordered = spill / f"pr-order-{rows}-{os.getpid()}.parquet"
    config = {
        "memory_limit": memory_limit,
        "temp_directory": str(spill / "duckdb"),
        "max_temp_directory_size": "40GB",
        "preserve_insertion_order": True,  # the file's row order is the PageRank order
    }
    with duckdb.connect(config=config) as connection:
        connection.execute("set enable_progress_bar = false")
        # Box–Muller from two hashes of the position: a normal fixed by p
        connection.execute(
            f"""
            copy (
                select hc_pos::integer as hc_pos
                from (select range + 1 as hc_pos from range({rows}))
                order by
                    ln(hc_pos) + 2 * sqrt(-2 * ln(((hash(hc_pos) >> 11) + 0.5) / 2 ** 53))
                    * cos(2 * pi() * (hash(hc_pos, 1) >> 11) / 2 ** 53),
                    hc_pos
            ) to '{ordered}' (format parquet, row_group_size 1048576)
            """
        )
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp.npy")
    positions = np.lib.format.open_memmap(temporary, mode="w+", dtype=np.int32, shape=(rows,))
    rank = 0
    for batch in pq.ParquetFile(ordered).iter_batches(batch_size=BLOCK_ROWS, columns=["hc_pos"]):
        hc_pos = batch.column(0).to_numpy()
        positions[hc_pos - 1] = np.arange(rank + 1, rank + len(hc_pos) + 1, dtype=np.int32)
        rank += len(hc_pos)
    positions.flush()
    del positions
    ordered.unlink()
    if rank != rows:
        raise RuntimeError(f"the PageRank order of {rows:,} positions has {rank:,} rows")
    os.replace(temporary, path)
    return path


def ranks_files(out: Path, rows: int, prefixes: list[int], workers: int) -> dict:
    """The ranks file of ``rows`` rows and its prefix files, generated unless cached."""
    folder = out / "ranks"
    main = folder / f"ranks-{rows}.txt.gz"
    heads = {n: folder / f"ranks-{rows}.head-{n}.txt.gz" for n in prefixes if n < rows}
    info_file = folder / f"ranks-{rows}.json"
    if main.exists() and info_file.exists() and all(p.exists() for p in heads.values()):
        info = json.loads(info_file.read_text())
        if set(map(int, info["heads"])) >= set(heads):
            info["cached"] = True
            info["heads"] = {int(n): str(p) for n, p in heads.items()}
            return info
    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    pr_pos_file = pagerank_positions(folder / f"pr_pos-{rows}.npy", rows, folder / "spill")
    permutation_seconds = time.perf_counter() - started
    info = write_ranks(main, pr_pos_file, rows, workers, heads)
    pr_pos_file.unlink()
    info |= {"heads": {n: str(p) for n, p in heads.items()}}
    info["permutation_seconds"] = permutation_seconds
    info_file.write_text(json.dumps(info, indent=1))
    info["cached"] = False
    return info


def write_ranks(
    main: Path, pr_pos_file: Path, rows: int, workers: int, heads: dict[int, Path] | None = None
) -> dict:
    """Write the ranks file ``main`` of ``rows`` rows (and files of its first rows, ``heads``).

    Position p holds host (p − 1)·a mod ``rows`` (``coprime_multiplier``), PageRank position
    ``pr_pos_file``'s entry p − 1 (``pagerank_positions``). Blocks of ``BLOCK_ROWS`` rows are
    gzip members written by ``workers`` processes, then concatenated behind the header.
    """
    heads = heads or {}
    started = time.perf_counter()
    starts = list(range(0, rows, BLOCK_ROWS))
    members = [main.with_name(f".{main.name}.block-{index:05d}.gz") for index in range(len(starts))]
    tasks = [
        (str(member), str(pr_pos_file), rows, start, min(start + BLOCK_ROWS, rows))
        for member, start in zip(members, starts, strict=True)
    ]
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        block_seconds = sum(pool.map(_ranks_block, tasks))
    blocks_wall = time.perf_counter() - started

    started = time.perf_counter()
    _assemble(main, members)
    for n, path in heads.items():
        _assemble(path, members[: math.ceil(n / BLOCK_ROWS)])
    assemble_seconds = time.perf_counter() - started
    for member in members:
        member.unlink()
    return {
        "rows": rows,
        "path": str(main),
        "bytes": main.stat().st_size,
        "blocks_seconds_wall": blocks_wall,
        "blocks_seconds_cpu": block_seconds,
        "assemble_seconds": assemble_seconds,
        "workers": workers,
    }


# ----------------------------------------------------------------------- the host index


def _rank10(values: np.ndarray, low: float, high: float) -> np.ndarray:
    logs = np.log(np.maximum(values, 1e-300))
    return np.round(np.clip(10.0 * (logs - math.log(low)) / math.log(high / low), 0, 10), 3)


def _erfinv_approx(x: np.ndarray) -> np.ndarray:
    """Inverse error function (Giles' single-precision approximation): uniform -> normal."""
    w = -np.log(np.maximum((1.0 - x) * (1.0 + x), 1e-300))
    small = w - 2.5
    large = np.sqrt(np.maximum(w, 5.0)) - 3.0
    p_small = 2.81022636e-08
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
              -0.00125372503, -0.00417768164, 0.246640727, 1.50140941):  # fmt: skip
        p_small = c + p_small * small
    p_large = -0.000200214257
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
              -0.0076224613, 0.00943887047, 1.00167406, 2.83297682):  # fmt: skip
        p_large = c + p_large * large
    return np.where(w < 5.0, p_small, p_large) * x


def host_index_chunk(
    ids: np.ndarray,
    strings: dict,
    crawl_index: int,
    chunk: int,
    hosts: int,
    hc_positions: np.ndarray | None = None,
    pr_positions: np.ndarray | None = None,
) -> pa.Table:
    """One row group of one crawl's host index.

    The host-level values are fixed by the host, the counts drawn per crawl (the shapes of
    ``demo.crawls.host_index_table``, assembled by its ``host_index_rows``). A host's
    harmonic-centrality position is ``hc_positions`` (1-based, as a ranks file places it)
    when given, else a hash of its id; its PageRank position ``pr_positions`` when given
    (``pagerank_positions``' at its harmonic-centrality position), else that position moved by
    a lognormal factor.
    """
    n = len(ids)
    if hc_positions is None:
        u = unit(ids, 1)
        position = u * hosts
    else:
        position = np.asarray(hc_positions, dtype=np.float64)
        u = (position - 1.0) / hosts
    # Most graph hosts are dangling, never crawled. Calibrated on CC-MAIN-2024-10
    # (cc-crawl-statistics): 46.4M of the graph's 335M hosts (13.8%) had a page fetched, 3.1B
    # pages in all (67 a host); here 13.8% and 70 (a share 1e-3 of the hosts), median 5.
    crawled = unit(ids, 2) < 0.177
    english = unit(ids, 3) < 0.55
    site_scale = unit(ids, 4)
    hcrank = _hc_values(position, hosts).astype(np.float64)
    if pr_positions is None:  # correlated with hc
        pr_position = np.clip(position * np.exp(0.7 * normals(ids, 5)), 1, hosts)
    else:
        pr_position = np.asarray(pr_positions, dtype=np.float64)
    prank = _pr_values(pr_position)
    rng = np.random.default_rng([SEED, crawl_index, chunk])
    central = 1.0 - u  # 1 = most central
    spread = normals(ids, 4)  # a standard normal (of site_scale)
    site = np.where(
        crawled,
        np.round(np.exp(1.5 + 5.5 * central**3 + 1.3 * spread)),  # heavy tailed site sizes
        np.floor(site_scale * 4),
    )
    known = np.where(crawled, np.maximum(1, np.round(site * np.exp(rng.normal(0, 0.15, n)))), site)
    known = np.minimum(known, 2**30)
    coverage = 1.0 / (1.0 + np.exp(-(-0.9 + 1.4 * rng.standard_normal(n))))
    fetched = np.where(crawled & (rng.random(n) >= 0.08), np.round(known * coverage), 0)
    fetch_200 = np.round(fetched * rng.beta(18.0, 2.0, n))

    lote = count_share(fetch_200, np.where(english, 0.03, 0.95))
    gone = count_share(known, 0.06)
    length = np.where(fetch_200 > 0, np.exp(rng.normal(9.6, 0.4, n)), 0)
    fetch_counts = {name: rng.poisson(fetched * 0.01).astype(np.int32) for name in FETCH_COLUMNS}
    nutch = {
        "fetched": fetched.astype(np.int32),
        "gone": gone,
        "unfetched": np.maximum(known - fetched - gone, 0).astype(np.int32),
        "notModified": count_share(fetched, 0.1),
        "redirPerm": count_share(known, 0.03),
        "redirTemp": count_share(known, 0.02),
    }
    ranks = {
        "hcrank10": _rank10(hcrank, float(_hc_values(np.array([hosts]), hosts)[0]), HC_TOP),
        "prank10": _rank10(prank, float(_pr_values(np.array([hosts + 1]))[0]), PR_TOP),
        "prank": prank,
        "hcrank": hcrank,
    }
    return host_index_rows(
        strings,
        ranks,
        record_length=length,
        fetch_200=fetch_200.astype(np.int32),
        lote=lote,
        fetch_counts=fetch_counts,
        known=known.astype(np.int32),
        nutch=nutch,
    )


def host_index_files(out: Path, hosts: int) -> dict:
    """Six crawls of ``hosts`` hosts each, generated unless cached."""
    folder = out / f"host-index-{hosts}"
    paths = [folder / f"crawl={crawl}" / "part-00000.parquet" for crawl in CRAWLS]
    info_file = folder / "info.json"
    if info_file.exists() and all(path.exists() for path in paths):
        return json.loads(info_file.read_text()) | {"cached": True}
    started = time.perf_counter()
    ids = np.arange(hosts, dtype=np.int64)
    surt, registered, tld = [], [], []
    for start in range(0, hosts, BLOCK_ROWS):
        rev, reg, suffix = host_names(ids[start : start + BLOCK_ROWS])
        surt.append(pc.replace_substring(pa.array(rev, pa.string()), ".", ","))
        registered.append(pa.array(reg, pa.string()))
        tld.append(pa.array(suffix, pa.string()))
        del rev, reg, suffix
    surt_all = pa.concat_arrays(surt)
    order = pc.sort_indices(surt_all)
    strings_all = {
        "surt_host_name": surt_all.take(order),
        "url_host_registered_domain": pa.concat_arrays(registered).take(order),
        "url_host_tld": pa.concat_arrays(tld).take(order),
    }
    del surt, registered, tld, surt_all
    sorted_ids = ids[order.to_numpy()]
    names_seconds = time.perf_counter() - started
    started = time.perf_counter()
    for crawl_index, (crawl, path) in enumerate(zip(CRAWLS, paths, strict=True)):
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp")
        writer = None
        for chunk, start in enumerate(range(0, hosts, BLOCK_ROWS)):
            stop = min(start + BLOCK_ROWS, hosts)
            strings = {
                name: array.slice(start, stop - start) for name, array in strings_all.items()
            }
            table = host_index_chunk(sorted_ids[start:stop], strings, crawl_index, chunk, hosts)
            if crawl == DRIFTED_CRAWL:
                table = drift_schema(table)
            if writer is None:
                writer = pq.ParquetWriter(temporary, table.schema)  # snappy, pyarrow's default
            writer.write_table(table, row_group_size=BLOCK_ROWS)
        writer.close()
        os.replace(temporary, path)
    info = {
        "hosts": hosts,
        "crawls": len(paths),
        "rows": hosts * len(paths),
        "paths": [str(path) for path in paths],
        "bytes": sum(path.stat().st_size for path in paths),
        "names_seconds": names_seconds,
        "tables_seconds": time.perf_counter() - started,
    }
    info_file.write_text(json.dumps(info, indent=1))
    return info | {"cached": False}
