"""Throughput and peak memory of the streaming lake ingests, beside plain pandas.

Inputs, generated once and cached in --out (names carry their size):

* a host-level ranks file in Common Crawl's exact format (FORMATS.md §1.4): gzip (one member
  per 1M-row block, written by two worker processes, then concatenated), the ``#``-prefixed
  header, rows sorted by ``hc_pos`` (1..N, dense), ``hc_val`` as Java ``Float.toString`` and
  ``pr_val`` as Java ``Double.toString`` (the formatters of ``demo.webgraph``), heavy
  tailed; ``pr_pos`` a permutation correlated with ``hc_pos``; unique reversed host names
  (registered domains with a few subdomains, the demo's TLD mix). Files holding its first
  --prefix-rows rows are assembled from the same gzip members, to show memory against size.
* a host index (FORMATS.md §2): 6 crawls x --index-hosts hosts, ``HOST_INDEX_SCHEMA`` of
  ``demo.crawls`` (one crawl drifted with ``drift_schema``), rows in SURT order, row
  groups of 1M rows, ``<out>/host-index-<n>/crawl=<id>/part-00000.parquet``.

Each job runs in a fresh child process, so that its peak memory is its own: the resident memory
of the child (and any children) is sampled every 50 ms, the child reports its ``VmHWM`` (peak
RSS since its exec) and ``ru_maxrss`` is read from ``wait4``. Linux starts a child's ru_maxrss
at its parent's peak RSS when it forks, so the inputs are generated in children too and this
process stays small (about 40 MB). The jobs:

* ours: ``ingest_graph`` / ``ingest_host_index`` into an empty lake (SHA-256, read, check,
  write zstd Parquet, manifest); the sampled peak sums the child and its worker processes;
* pandas load: ``pd.read_csv(path, sep='\\t')`` of the ranks file, ``pd.read_parquet`` of each
  host-index file (all columns), nothing else;
* pandas job: the same job as ours, the way pandas does it: the whole file in memory, host_rev
  '.' -> ',' (ranks) or the lake's columns renamed and cast (index), ``df.to_parquet`` (zstd,
  as the lake). No validation, no manifest.
* probes: where our time goes (checksum, gunzip alone, parsing without writing).

Timings are the child's own (after its imports); rows/s counts input rows. Files are in the
page cache when read (they were just written or read), for every job alike.

    PYTHONPATH=. .venv/bin/python bench/bench_lake_ingest.py --quick
    PYTHONPATH=. .venv/bin/python bench/bench_lake_ingest.py --out build/bench-lake
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import logging
import math
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import numpy as np
import psutil

REPO = Path(__file__).resolve().parents[1]
RELEASE = "cc-main-2024-25-nov-dec-jan"
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
    from demo.config import TLDS

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


def _unit(values: np.ndarray, salt: int) -> np.ndarray:
    """A uniform [0, 1) number per id, fixed by the id (and salt)."""
    return (_mix(values.astype(np.uint64) * np.uint64(8) + np.uint64(salt)) >> np.uint64(11)) * (
        1.0 / 2**53
    )


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
    from isal import igzip

    from demo.webgraph import _format_rows, _java_double_strs, _java_float_strs

    target, pr_pos_file, rows, start, stop = task
    started = time.perf_counter()
    hc_pos = np.arange(start + 1, stop + 1, dtype=np.int64)
    pr_pos = np.load(pr_pos_file, mmap_mode="r")[start:stop].astype(np.int64)
    multiplier = _coprime_multiplier(rows)
    node = (hc_pos - 1) * multiplier % rows  # which host sits at this position: a bijection
    rev, _, _ = host_names(node)
    text = _format_rows(
        "%d\t%s\t%d\t%s\t%s\n",
        (
            hc_pos.tolist(),
            _java_float_strs(_hc_values(hc_pos, rows)),
            pr_pos.tolist(),
            _java_double_strs(_pr_values(pr_pos)),
            rev,
        ),
    )
    temporary = Path(target).with_suffix(".tmp")
    temporary.write_bytes(igzip.compress(text.encode("ascii"), compresslevel=1, mtime=0))
    os.replace(temporary, target)
    return time.perf_counter() - started


def _coprime_multiplier(rows: int) -> int:
    multiplier = 2654435761 % rows or 1
    while math.gcd(multiplier, rows) != 1:
        multiplier += 1
    return multiplier


def _assemble(target: Path, members: list[Path]) -> None:
    from demo.webgraph import RANKS_HEADER

    temporary = target.with_suffix(".tmp")
    with temporary.open("wb") as out:
        out.write(gzip.compress((RANKS_HEADER + "\n").encode(), mtime=0))
        for member in members:
            with member.open("rb") as handle:
                shutil.copyfileobj(handle, out, 1 << 24)
    os.replace(temporary, target)


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
    # PageRank positions: a permutation, correlated with the harmonic-centrality position.
    rng = np.random.default_rng(SEED)
    key = rng.normal(0.0, 2.0, rows)
    key += np.log(np.arange(1, rows + 1, dtype=np.float64))
    order = np.argsort(key)
    del key
    pr_pos = np.empty(rows, dtype=np.int32)
    pr_pos[order] = np.arange(1, rows + 1, dtype=np.int32)
    del order
    pr_pos_file = folder / f"pr_pos-{rows}.npy"
    np.save(pr_pos_file, pr_pos)
    del pr_pos
    permutation_seconds = time.perf_counter() - started

    started = time.perf_counter()
    starts = list(range(0, rows, BLOCK_ROWS))
    members = [folder / f"block-{rows}-{index:05d}.gz" for index in range(len(starts))]
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
    pr_pos_file.unlink()
    info = {
        "rows": rows,
        "path": str(main),
        "bytes": main.stat().st_size,
        "heads": {n: str(p) for n, p in heads.items()},
        "permutation_seconds": permutation_seconds,
        "blocks_seconds_wall": blocks_wall,
        "blocks_seconds_cpu": block_seconds,
        "assemble_seconds": assemble_seconds,
        "workers": workers,
    }
    info_file.write_text(json.dumps(info, indent=1))
    info["cached"] = False
    return info


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


def _index_chunk(ids: np.ndarray, strings: dict, crawl_index: int, chunk: int, hosts: int):
    """One row group of one crawl: the host-level values are fixed by the host, the counts
    drawn per crawl (the shapes of ``demo.crawls.host_index_table``)."""
    import pyarrow as pa

    from demo.crawls import _FETCH_COLUMNS, _NUTCH_PCT, _ROBOTS, HOST_INDEX_SCHEMA

    n = len(ids)
    u = _unit(ids, 1)
    crawled = _unit(ids, 2) < 0.22  # most graph hosts are dangling: never crawled
    english = _unit(ids, 3) < 0.55
    site_scale = _unit(ids, 4)
    hcrank = _hc_values(u * hosts, hosts).astype(np.float64)
    normal = np.sqrt(2.0) * _erfinv_approx(2.0 * _unit(ids, 5) - 1.0)
    pr_position = np.clip(u * hosts * np.exp(0.7 * normal), 1, hosts)  # correlated with hc
    prank = _pr_values(pr_position)
    rng = np.random.default_rng([SEED, crawl_index, chunk])
    central = 1.0 - u  # 1 = most central
    spread = np.sqrt(2.0) * _erfinv_approx(2.0 * site_scale - 1.0)  # a standard normal
    site = np.where(
        crawled,
        np.round(np.exp(1.5 + 8.0 * central**3 + 1.3 * spread)),  # heavy tailed site sizes
        np.floor(site_scale * 4),
    )
    known = np.where(crawled, np.maximum(1, np.round(site * np.exp(rng.normal(0, 0.15, n)))), site)
    known = np.minimum(known, 2**30)
    coverage = 1.0 / (1.0 + np.exp(-(-0.9 + 1.4 * rng.standard_normal(n))))
    fetched = np.where(crawled & (rng.random(n) >= 0.08), np.round(known * coverage), 0)
    fetch_200 = np.round(fetched * rng.beta(18.0, 2.0, n))

    def share(values: np.ndarray, factor) -> np.ndarray:
        return np.round(values * factor).astype(np.int32)

    def pct(part: np.ndarray, whole: np.ndarray) -> np.ndarray:
        return np.where(whole > 0, np.round(100.0 * part / np.maximum(whole, 1)), 0).astype(
            np.int32
        )

    lote = share(fetch_200, np.where(english, 0.03, 0.95))
    gone = share(known, 0.06)
    length = np.where(fetch_200 > 0, np.exp(rng.normal(9.6, 0.4, n)), 0)
    columns = {
        **strings,
        "hcrank10": _rank10(hcrank, float(_hc_values(np.array([hosts]), hosts)[0]), HC_TOP),
        "prank10": _rank10(prank, float(_pr_values(np.array([hosts + 1]))[0]), PR_TOP),
        "prank": prank,
        "hcrank": hcrank,
        "warc_record_length_av": np.round(length).astype(np.int32),
        "warc_record_length_median": np.round(length * 0.9).astype(np.int32),
        "fetch_200": fetch_200.astype(np.int32),
        "fetch_200_lote": lote,
        "fetch_200_lote_pct": pct(lote, fetch_200),
        "nutch_numRecords": known.astype(np.int32),
    }
    for name in _FETCH_COLUMNS:
        columns[name] = rng.poisson(fetched * 0.01).astype(np.int32)
    nutch = {
        "fetched": fetched.astype(np.int32),
        "gone": gone,
        "unfetched": np.maximum(known - fetched - gone, 0).astype(np.int32),
        "notModified": share(fetched, 0.1),
        "redirPerm": share(known, 0.03),
        "redirTemp": share(known, 0.02),
    }
    for name in _NUTCH_PCT:
        columns[f"nutch_{name}"] = nutch[name]
        columns[f"nutch_{name}_pct"] = pct(nutch[name], known)
    zeros = np.zeros(n, dtype=np.int32)
    for name in _ROBOTS:
        columns[name] = (known > 0).astype(np.int32) if name == "robots_200" else zeros
    return pa.Table.from_arrays(
        [pa.array(columns[field.name], field.type) for field in HOST_INDEX_SCHEMA],
        schema=HOST_INDEX_SCHEMA,
    )


def host_index_files(out: Path, hosts: int) -> dict:
    """Six crawls of ``hosts`` hosts each, generated unless cached."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from demo.config import CRAWLS, DRIFTED_CRAWL
    from demo.crawls import drift_schema

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
            table = _index_chunk(sorted_ids[start:stop], strings, crawl_index, chunk, hosts)
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


# ----------------------------------------------------------------------- child jobs


def _child_ours_ranks(inputs: list[Path], lake: Path) -> dict:
    from ingest.webgraph import ingest_graph

    started = time.perf_counter()
    rows = ingest_graph(RELEASE, lake, ranks=inputs[0], max_reject_rate=0.001)
    return {
        "seconds": time.perf_counter() - started,
        "rows": sum(row["records_read"] for row in rows),
        "written": sum(row["records_written"] for row in rows),
    }


def _child_ours_index(inputs: list[Path], lake: Path) -> dict:
    from ingest.host_index import ingest_host_index

    started = time.perf_counter()
    workers = os.environ.get("BENCH_INDEX_WORKERS")
    if workers:
        rows = ingest_host_index(inputs, lake, workers=int(workers))
    else:
        rows = ingest_host_index(inputs, lake)
    return {
        "seconds": time.perf_counter() - started,
        "rows": sum(row["records_read"] for row in rows),
        "written": sum(row["records_written"] for row in rows),
        "drift": sum(len(row["schema_drift"]) for row in rows),
    }


def _child_pandas_load_ranks(inputs: list[Path], lake: Path) -> dict:
    import pandas as pd

    started = time.perf_counter()
    frame = pd.read_csv(inputs[0], sep="\t")
    return {"seconds": time.perf_counter() - started, "rows": len(frame)}


def _child_pandas_load_index(inputs: list[Path], lake: Path) -> dict:
    import pandas as pd

    started = time.perf_counter()
    rows = 0
    for path in inputs:
        frame = pd.read_parquet(path)
        rows += len(frame)
        del frame
    return {"seconds": time.perf_counter() - started, "rows": rows}


def _child_pandas_job_ranks(inputs: list[Path], lake: Path) -> dict:
    import pandas as pd

    started = time.perf_counter()
    frame = pd.read_csv(inputs[0], sep="\t")
    frame.columns = ["hc_pos", "hc_val", "pr_pos", "pr_val", "host_rev"]
    frame.insert(0, "surt_host_name", frame.pop("host_rev").str.replace(".", ",", regex=False))
    target = lake / "host_ranks" / f"release={RELEASE}" / "part-pandas.parquet"
    target.parent.mkdir(parents=True, exist_ok=True)
    frame.to_parquet(target, compression="zstd", index=False)
    return {"seconds": time.perf_counter() - started, "rows": len(frame)}


def _child_pandas_job_index(inputs: list[Path], lake: Path) -> dict:
    import pandas as pd
    import pyarrow.parquet as pq

    from ingest import schemas
    from ingest.host_index import SOURCE_NAMES
    from ingest.parquet_input import crawl_of_path

    started = time.perf_counter()
    rows = 0
    for path in inputs:
        present = set(pq.read_schema(path).names)
        wanted = {
            field.name: SOURCE_NAMES.get(field.name, field.name) for field in schemas.HOST_INDEX
        }
        frame = pd.read_parquet(path, columns=[s for s in wanted.values() if s in present])
        frame = frame.rename(columns={s: name for name, s in wanted.items()})
        for field in schemas.HOST_INDEX:
            if field.name not in frame:
                frame[field.name] = pd.array([pd.NA] * len(frame), dtype="Int64")
            elif str(field.type) == "int64":
                frame[field.name] = frame[field.name].astype("int64")
        frame = frame[[field.name for field in schemas.HOST_INDEX]]
        target = lake / "host_index" / f"crawl={crawl_of_path(path, None)}" / "part-pandas.parquet"
        target.parent.mkdir(parents=True, exist_ok=True)
        frame.to_parquet(target, compression="zstd", index=False)
        rows += len(frame)
        del frame
    return {"seconds": time.perf_counter() - started, "rows": rows}


def _child_probe_ranks(inputs: list[Path], lake: Path) -> dict:
    """Where the ranks ingest's time goes: each stage alone, one after the other."""
    from isal import igzip

    from ingest.lake import sha256_of
    from ingest.webgraph import RANKS, _to_lake, read_text_table

    path = inputs[0]
    times = {}
    started = time.perf_counter()
    sha256_of(path)
    times["sha256"] = time.perf_counter() - started
    started = time.perf_counter()
    size = 0
    with igzip.open(path, "rb") as stream:
        while chunk := stream.read(1 << 24):
            size += len(chunk)
    times["gunzip (ISA-L)"] = time.perf_counter() - started
    started = time.perf_counter()
    with gzip.open(path, "rb") as stream:
        while stream.read(1 << 24):
            pass
    times["gunzip (zlib, as pandas)"] = time.perf_counter() - started
    started = time.perf_counter()
    report = read_text_table(path, RANKS, lambda batch: None, lambda: None)
    times["gunzip+parse+check"] = time.perf_counter() - started
    started = time.perf_counter()
    read_text_table(path, RANKS, lambda batch: _to_lake(RANKS, batch), lambda: None)
    times["gunzip+parse+check+surt"] = time.perf_counter() - started
    return {"times": times, "rows": report.read, "uncompressed_bytes": size}


def _child_probe_index(inputs: list[Path], lake: Path) -> dict:
    import pyarrow.parquet as pq

    from ingest import schemas
    from ingest.host_index import REFERENCE_TYPES, SOURCE_NAMES, _checked
    from ingest.lake import IngestReport, sha256_of
    from ingest.parquet_input import open_parquet, plan_columns, read_planned

    times = {}
    started = time.perf_counter()
    for path in inputs:
        sha256_of(path)
    times["sha256"] = time.perf_counter() - started
    started = time.perf_counter()
    for path in inputs:
        pq.read_table(path)
    times["read_table (all columns)"] = time.perf_counter() - started
    started = time.perf_counter()
    rows = 0
    for path in inputs:
        parquet = open_parquet(path)
        plan, drift = plan_columns(
            path, parquet.schema_arrow, schemas.HOST_INDEX, SOURCE_NAMES, REFERENCE_TYPES,
            required=["surt_host_name"],
        )  # fmt: skip
        report = IngestReport(path, drift=drift)
        for batch in read_planned(parquet, plan, 1 << 20):
            _checked(batch, report, rows)
            rows += batch.num_rows
    times["read_planned+check"] = time.perf_counter() - started
    return {"times": times, "rows": rows}


CHILDREN = {
    "ours-ranks": _child_ours_ranks,
    "ours-index": _child_ours_index,
    "pandas-load-ranks": _child_pandas_load_ranks,
    "pandas-load-index": _child_pandas_load_index,
    "pandas-job-ranks": _child_pandas_job_ranks,
    "pandas-job-index": _child_pandas_job_index,
    "probe-ranks": _child_probe_ranks,
    "probe-index": _child_probe_index,
}


def _vm_hwm() -> int:
    """This process's peak resident memory since its exec (VmHWM), in bytes."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def _run_child(args: argparse.Namespace, prefixes: list[int]) -> None:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    if args.child == "gen-ranks":
        result = ranks_files(args.out, args.ranks_rows, prefixes, args.workers)
    elif args.child == "gen-index":
        result = host_index_files(args.out, args.index_hosts)
    else:
        result = CHILDREN[args.child](args.inputs, args.lake)
    result["vm_hwm"] = _vm_hwm()
    print(json.dumps(result))


def generate(kind: str, args: argparse.Namespace) -> dict:
    """Generate (or find cached) inputs in a child, so this process stays small: a child's
    ru_maxrss starts from its parent's peak at the fork, which would then hide its own."""
    command = [sys.executable, str(Path(__file__).resolve()), "--child", kind]
    command += ["--out", str(args.out), "--ranks-rows", str(args.ranks_rows)]
    command += ["--index-hosts", str(args.index_hosts), "--prefix-rows", args.prefix_rows]
    command += ["--workers", str(args.workers)]
    env = os.environ | {"PYTHONPATH": str(REPO)}
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True, env=env, cwd=REPO)
    if done.returncode != 0:
        raise SystemExit(f"generating {kind} failed ({done.returncode})")
    return json.loads(done.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------- measuring


def _tree_rss(process: psutil.Process) -> int:
    total = 0
    for member in [process, *process.children(recursive=True)]:
        with contextlib.suppress(psutil.NoSuchProcess, psutil.ZombieProcess):
            total += member.memory_info().rss
    return total


def measure(kind: str, inputs: list[Path], lake: Path, logs: Path) -> dict:
    """Run one job in a fresh child; its result, wall time and peak memory (two ways)."""
    shutil.rmtree(lake, ignore_errors=True)
    logs.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, str(Path(__file__).resolve()), "--child", kind, "--lake", str(lake)]
    command += [str(path) for path in inputs]
    env = os.environ | {"PYTHONPATH": str(REPO)}
    stdout_path, stderr_path = logs / f"{kind}.out", logs / f"{kind}.err"
    started = time.perf_counter()
    with stdout_path.open("w") as stdout, stderr_path.open("w") as stderr:
        child = subprocess.Popen(command, stdout=stdout, stderr=stderr, env=env, cwd=REPO)
        watched = psutil.Process(child.pid)
        peak = 0
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            with contextlib.suppress(psutil.NoSuchProcess, psutil.ZombieProcess):
                peak = max(peak, _tree_rss(watched))
            time.sleep(0.05)
    child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    errors = stderr_path.read_text()
    if child.returncode != 0:
        raise SystemExit(f"{kind} failed ({child.returncode}):\n{errors[-3000:]}")
    result = json.loads(stdout_path.read_text().strip().splitlines()[-1])
    result.update(
        wall=wall,
        peak_sampled=peak,
        peak_maxrss=usage.ru_maxrss * 1024,  # kilobytes on Linux
        careful_path="line by line" in errors,
        lake_bytes=sum(p.stat().st_size for p in lake.rglob("*") if p.is_file())
        if lake.exists()
        else 0,
    )
    shutil.rmtree(lake, ignore_errors=True)
    result["load"] = os.getloadavg()[0]
    return result


def measure_best(kind: str, inputs: list[Path], lake: Path, logs: Path, repeat: int) -> dict:
    """The fastest of ``repeat`` runs (this machine is shared), with the highest peaks seen."""
    runs = [measure(kind, inputs, lake, logs) for _ in range(repeat)]
    best = dict(min(runs, key=lambda run: run["seconds"]))
    for key in ("peak_sampled", "vm_hwm", "peak_maxrss"):
        best[key] = max(run[key] for run in runs)
    best["runs"] = [round(run["seconds"], 2) for run in runs]
    return best


def _gb(value: float) -> str:
    return f"{value / 1024**3:5.2f}"


def _peak(result: dict) -> int:
    return max(result["peak_sampled"], result["vm_hwm"], result["peak_maxrss"])


def _line(label: str, result: dict) -> str:
    rate = result["rows"] / result["seconds"]
    note = "  CAREFUL PATH" if result.get("careful_path") else ""
    runs = f", runs {result['runs']}" if len(result.get("runs", [])) > 1 else ""
    return (
        f"  {label:<13} {result['seconds']:>7.1f} s {rate:>12,.0f} rows/s  peak "
        f"{_gb(result['peak_sampled'])} sampled, {_gb(result['vm_hwm'])} VmHWM, "
        f"{_gb(result['peak_maxrss'])} ru_maxrss GB"
        f"  (wall {result['wall']:.1f} s, wrote {result['lake_bytes'] / 1e6:,.0f} MB, "
        f"load {result['load']:.1f}{runs}){note}"
    )


def bench_input(name: str, inputs: list[Path], args, logs: Path) -> dict:
    lake = args.out / "lake"
    kind = "ranks" if name.startswith("ranks") else "index"
    results = {"ours": measure_best(f"ours-{kind}", inputs, lake, logs, args.repeat)}
    print(f"{name}: {results['ours']['rows']:,} rows")
    print(_line("ours", results["ours"]))
    if results["ours"]["rows"] != results["ours"]["written"]:
        print(f"  ours rejected {results['ours']['rows'] - results['ours']['written']:,} rows")
    if not args.skip_pandas:
        for job in ("load", "job"):
            results[f"pandas-{job}"] = measure_best(
                f"pandas-{job}-{kind}", inputs, lake, logs, args.repeat
            )
            print(_line(f"pandas {job}", results[f"pandas-{job}"]))
    if not args.skip_probes:
        probe = measure(f"probe-{kind}", inputs, lake, logs)
        stages = ", ".join(f"{stage} {seconds:.1f} s" for stage, seconds in probe["times"].items())
        print(f"  stages alone: {stages}")
        if "uncompressed_bytes" in probe:
            print(f"  uncompressed: {probe['uncompressed_bytes'] / 1e9:.2f} GB")
        results["probe"] = probe
    return results


def _code_version() -> str:
    """The commit measured, and whether ingest/ differs from it (others edit it meanwhile)."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=REPO
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "ingest"], capture_output=True, text=True, cwd=REPO
        ).stdout.strip()
    except OSError:
        return "unknown"
    return f"{commit}{' + local changes in ingest/' if dirty else ''}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("build/bench-lake"))
    parser.add_argument("--ranks-rows", type=int, default=50_000_000)
    parser.add_argument("--index-hosts", type=int, default=5_000_000)
    parser.add_argument(
        "--prefix-rows",
        default="5000000,20000000",
        help="comma-separated: ranks files holding the first N rows, for memory against size",
    )
    parser.add_argument("--quick", action="store_true", help="5M ranks rows, 1M hosts")
    parser.add_argument("--skip-pandas", action="store_true")
    parser.add_argument("--skip-probes", action="store_true", help="no per-stage timings")
    parser.add_argument("--workers", type=int, default=2, help="processes generating the inputs")
    parser.add_argument("--repeat", type=int, default=1, help="best of this many runs per job")
    parser.add_argument("--only", nargs="+", choices=["ranks", "index"], default=["ranks", "index"])
    parser.add_argument(
        "--index-workers", type=int, help="workers= for ingest_host_index (default: its own)"
    )
    parser.add_argument(
        "--child", choices=[*CHILDREN, "gen-ranks", "gen-index"], help=argparse.SUPPRESS
    )
    parser.add_argument("--lake", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("inputs", nargs="*", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.quick:
        args.ranks_rows, args.index_hosts = 5_000_000, 1_000_000
        args.prefix_rows = "1000000,2000000"
    wanted = {int(n) for n in args.prefix_rows.split(",") if n}
    prefixes = sorted(n for n in wanted if n < args.ranks_rows)
    args.out = args.out.resolve()
    if args.child:
        _run_child(args, prefixes)
        return
    logs = args.out / "logs"
    memory = psutil.virtual_memory().total / 1024**3
    print(
        f"cores: {psutil.cpu_count()}, memory: {memory:.1f} GiB, out: {args.out}, "
        f"load average {os.getloadavg()[0]:.1f} (other work on this machine slows every job)"
    )
    print(f"code: {_code_version()}")

    ranks = generate("gen-ranks", args)
    how = "cached; generated" if ranks["cached"] else "generated"
    total = ranks["permutation_seconds"] + ranks["blocks_seconds_wall"] + ranks["assemble_seconds"]
    print(
        f"ranks file: {ranks['rows']:,} rows, {ranks['bytes'] / 1e9:.2f} GB gzip ({how} in "
        f"{total:.0f} s: "
        f"pr_pos permutation {ranks['permutation_seconds']:.1f} s, blocks "
        f"{ranks['blocks_seconds_wall']:.1f} s on {ranks['workers']} workers "
        f"({ranks['blocks_seconds_cpu'] / ranks['rows'] * 1e6:.1f} s per 1M rows per worker), "
        f"assembling {ranks['assemble_seconds']:.1f} s)"
    )
    index = generate("gen-index", args)
    how = "cached; generated" if index["cached"] else "generated"
    total = index["names_seconds"] + index["tables_seconds"]
    print(
        f"host index: {index['crawls']} crawls x {index['hosts']:,} hosts = "
        f"{index['rows']:,} rows, {index['bytes'] / 1e9:.2f} GB ({how} in {total:.0f} s: "
        f"names {index['names_seconds']:.1f} s, tables {index['tables_seconds']:.1f} s)"
    )
    if args.index_workers:
        os.environ["BENCH_INDEX_WORKERS"] = str(args.index_workers)
    print(
        "host-index ingest workers: "
        + (str(args.index_workers) if args.index_workers else "the ingest's default")
    )
    print()
    table = {}
    if "ranks" in args.only:
        table[f"ranks {ranks['rows'] // 10**6}M"] = bench_input(
            "ranks", [Path(ranks["path"])], args, logs
        )
    if "index" in args.only:
        table[f"index {index['crawls']}x{index['hosts'] / 10**6:g}M"] = bench_input(
            "index", [Path(p) for p in index["paths"]], args, logs
        )

    if "ranks" in args.only:
        print("\nflat memory: our ranks ingest on prefixes of the ranks file")
        scaling = []
        for _rows, path in sorted(ranks["heads"].items(), key=lambda item: int(item[0])):
            scaling.append(
                measure_best("ours-ranks", [Path(path)], args.out / "lake", logs, args.repeat)
            )
        scaling.append(table[next(iter(table))]["ours"])
        print(
            f"  {'rows':>12} {'seconds':>8} {'rows/s':>12} {'sampled GB':>10} {'VmHWM GB':>9} "
            f"{'ru_maxrss GB':>13}"
        )
        for result in scaling:
            print(
                f"  {result['rows']:>12,} {result['seconds']:>8.1f} "
                f"{result['rows'] / result['seconds']:>12,.0f} {_gb(result['peak_sampled']):>10} "
                f"{_gb(result['vm_hwm']):>9} {_gb(result['peak_maxrss']):>13}"
            )

    print("\nsummary (time in s, rate in rows/s, peak GB = max of sampled RSS, VmHWM, ru_maxrss)")
    header = (
        f"{'input':<14} {'rows':>11} | {'ours s':>7} {'rows/s':>10} {'peak':>5} | "
        f"{'load s':>7} {'rows/s':>10} {'peak':>5} | {'job s':>7} {'peak':>5} | "
        f"{'vs load':>7} {'vs job':>7}"
    )
    print(header)
    print("-" * len(header))
    for name, results in table.items():
        ours = results["ours"]
        line = (
            f"{name:<14} {ours['rows']:>11,} | {ours['seconds']:>7.1f} "
            f"{ours['rows'] / ours['seconds']:>10,.0f} {_gb(_peak(ours))} | "
        )
        if "pandas-load" in results:
            load, job = results["pandas-load"], results["pandas-job"]
            line += (
                f"{load['seconds']:>7.1f} {load['rows'] / load['seconds']:>10,.0f} "
                f"{_gb(_peak(load))} | {job['seconds']:>7.1f} {_gb(_peak(job))} | "
                f"{load['seconds'] / ours['seconds']:>6.2f}x "
                f"{job['seconds'] / ours['seconds']:>6.2f}x"
            )
        print(line)
    print("(vs load / vs job: pandas seconds over ours; the target is >= 3x, and flat memory)")


if __name__ == "__main__":
    main()
