"""``python -m demo crawl``: write a complete demo crawl in Common Crawl's formats.

Layout under ``--out`` (usually ``$HOSTAWARE_HOME/raw``)::

    warc/CC-MAIN-2024-10/*.warc.gz              WARC sample (tiny, demo)
    webgraph/<release>/<release>-host-{vertices,edges,ranks}.txt.gz
    host-index/crawl=<crawl>/part-00000.parquet six crawls
    gneissweb-annotations/urls/crawl=<crawl>/part-NNNNN.parquet   URL level (<= 2M rows a part)
    gneissweb-annotations/hosts/crawl=<crawl>/part-00000.parquet  host level
    training/labelled_corpus.tsv.gz             labelled corpus for the demo classifiers
    classifier_registry.csv                     the demo classifiers' registry rows
    truth.json                                  every planted parameter and realised summary
    paper-sample.txt                            paper scale: the sample's stand-in input file

The annotations are Common Crawl's own GneissWeb datasets (``gneissweb`` module docstring): URL
level ``url_surtkey, fetch_time, in_gneissweb, gneissweb_{technology,science,education,medical}``
and host level ``surt_host_name, gneissweb_{…}, in_gneissweb``, the crawl only in the folder.

At ``paper`` scale the WARC text is not written: the crawl holds ``paper-sample.txt`` instead,
and once the crawl is in place the classified sample is committed to the lake's ``documents``
and ``document_scores`` tables (``--lake``, default ``<out>/../lake``) as the ingest of that file
(``demo.paper_lake``). Everything is written under a temporary name and moved into place at the
end, so a failed or interrupted run leaves no half-written crawl.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from demo import corpus, crawls, gneissweb, graph_edges, paper_lake, warcfiles, webgraph
from demo.config import CRAWLS, GRAPH_RELEASES, SAMPLE_CRAWL, SCALES, Scale
from demo.model import (
    ROLE_DANGLING,
    Documents,
    Hosts,
    draw_documents,
    draw_hosts,
    variance_splits,
)
from demo.truth import build_truth, coverage_summary

__all__ = ["SynthError", "sample_truth", "synthesize"]

log = logging.getLogger(__name__)

# Crawl-to-release alignment of the host index's ranks: log-normal jitter of the first release's
# centrality, larger for crawls further from it.
_RANK_JITTER = {
    "CC-MAIN-2021-04": 0.45,
    "CC-MAIN-2021-49": 0.35,
    "CC-MAIN-2022-33": 0.3,
    "CC-MAIN-2023-06": 0.2,
    "CC-MAIN-2023-50": 0.0,
    "CC-MAIN-2024-10": 0.0,
}
_PARQUET_OPTIONS = {"compression": "zstd", "use_dictionary": True, "write_statistics": True}


class SynthError(ValueError):
    """A bad argument to ``synth`` (reported as one line, exit code 2)."""


@dataclass
class Graph:
    """Centrality of every host (index = host id; 0 where the host is not in the release)."""

    harmonic: list[np.ndarray]  # per release
    pagerank: list[np.ndarray]
    in_release: list[np.ndarray]  # bool per release
    edge_counts: list[int]


def _streams(seed: int) -> dict[str, np.random.Generator]:
    names = ("hosts", "documents", "graph", "crawls", "warc", "corpus")
    children = np.random.SeedSequence(seed).spawn(len(names))
    return {name: np.random.default_rng(child) for name, child in zip(names, children, strict=True)}


def synthesize(
    out: Path, seed: int, scale_name: str, force: bool = False, lake: Path | None = None
) -> dict:
    """Write the demo crawl of the given scale and seed to ``out``; return the truth summary.

    Raises:
        SynthError: unknown scale, negative seed, or a non-empty ``out`` without ``force``.
    """
    if scale_name not in SCALES:
        raise SynthError(f"unknown scale {scale_name!r}: choose one of {', '.join(SCALES)}")
    if seed < 0:
        raise SynthError(f"--seed must be a non-negative integer, got {seed}")
    if out.exists() and not out.is_dir():
        raise SynthError(f"--out {out} exists and is not a folder")
    if out.exists() and any(out.iterdir()) and not force:
        raise SynthError(f"--out {out} is not empty: pass --force to replace it")
    scale = SCALES[scale_name]
    started = time.perf_counter()
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.parent / f".{out.name}.partial-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    try:
        lake = lake or out.parent / "lake"
        truth, timings, sample = _write_all(staging, seed, scale, lake)
        (staging / "truth.json").write_text(json.dumps(truth, indent=2, sort_keys=True) + "\n")
        _publish(staging, out)
        if sample is not None:  # paper scale: the sample file is in place, ingest it
            mark = time.perf_counter()
            paper_lake.write_sample(lake, out / paper_lake.SOURCE_NAME, *sample)
            timings["lake"] = round(time.perf_counter() - mark, 2)
        truth["timings_seconds"] = timings
        truth["generation_seconds"] = round(time.perf_counter() - started, 2)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return truth


def sample_truth(seed: int, scale_name: str) -> tuple[Hosts, Documents, crawls.PageRows]:
    """The WARC sample's hosts, pages and true scores, drawn again from the seed (no files).

    These are the draws ``synthesize`` makes (each purpose has its own random stream), for
    checking what it wrote against the latent truth, which is too large for truth.json.
    """
    scale = SCALES[scale_name]
    rng = _streams(seed)
    hosts = draw_hosts(rng["hosts"], scale)
    documents = draw_documents(rng["documents"], hosts, variance_splits(hosts))
    pages, _ = _sample_pages(rng["warc"], hosts, documents)
    return hosts, documents, pages


def _publish(staging: Path, out: Path) -> None:
    """Swap the finished folder into place (the old one is removed only after the swap)."""
    retired = out.parent / f".{out.name}.retired-{os.getpid()}"
    if out.exists():
        out.rename(retired)
    staging.rename(out)
    shutil.rmtree(retired, ignore_errors=True)


def _write_all(
    root: Path, seed: int, scale: Scale, lake: Path
) -> tuple[dict, dict[str, float], tuple[Hosts, Documents, crawls.PageRows] | None]:
    """Write every part of the crawl under root.

    Returns the truth, the seconds per step and, at paper scale, the sample (hosts, documents,
    pages) to commit to the lake once the crawl is in place (``None`` otherwise).
    """
    rng = _streams(seed)
    timings: dict[str, float] = {}

    def lap(name: str, since: float) -> float:
        now = time.perf_counter()
        timings[name] = round(now - since, 2)
        log.info("synth %s: %s done in %.1f s", scale.name, name, now - since)
        return now

    mark = time.perf_counter()
    hosts = draw_hosts(rng["hosts"], scale)
    splits = variance_splits(hosts)
    documents = draw_documents(rng["documents"], hosts, splits)
    mark = lap("model", mark)

    graph = _write_graph(root / "webgraph", rng["graph"], hosts, scale)
    mark = lap("webgraph", mark)

    # One crawl at a time: its counts, host-index partition and annotations, then its summary.
    pages, fetched_at = _sample_pages(rng["warc"], hosts, documents)
    count_model = crawls.CrawlCountModel(rng["crawls"], hosts)
    crawl_streams = rng["crawls"].spawn(len(CRAWLS))
    coverage = []
    annotations = root / "gneissweb-annotations"
    for crawl, crawl_rng in zip(CRAWLS, crawl_streams, strict=True):
        counts = count_model.for_crawl(crawl, crawl_rng)
        harmonic, pagerank = _crawl_centrality(crawl_rng, graph, crawl)
        table = crawls.host_index_table(crawl_rng, hosts, counts, harmonic, pagerank)
        _write_parquet(table, root / "host-index" / f"crawl={crawl}" / "part-00000.parquet")
        del table
        sample = pages if crawl == SAMPLE_CRAWL else None
        totals = gneissweb.AnnotationTotals.empty(hosts.count)
        parts = gneissweb.annotation_parts(crawl_rng, hosts, counts, splits, scale, sample, totals)
        for index, table in enumerate(parts):
            path = annotations / "urls" / f"crawl={crawl}" / f"part-{index:05d}.parquet"
            _write_parquet(table, path)
            del table
        table = gneissweb.host_annotation_table(hosts, totals)
        _write_parquet(table, annotations / "hosts" / f"crawl={crawl}" / "part-00000.parquet")
        del table
        coverage.append(coverage_summary(hosts, counts, graph.harmonic[0], totals, scale))
    mark = lap("host_index_and_annotations", mark)

    # The WARC files and the training corpus are independent: one process pool writes them all.
    workers = max(1, min(os.cpu_count() or 1, scale.warc_files + 1))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        training_future = (
            pool.submit(
                corpus.write_training_corpus,
                rng["corpus"],
                root / "training" / "labelled_corpus.tsv.gz",
                scale.training_docs,
            )
            if scale.training_docs
            else None
        )
        if scale.warc_files:
            jobs = _warc_jobs(
                root / "warc" / SAMPLE_CRAWL, seed, hosts, documents, pages, fetched_at, scale
            )
            warc_summary = warcfiles.summarise(list(pool.map(warcfiles.write_warc_job, jobs)))
            sample = None
        else:
            paper_lake.write_source(root, seed)
            warc_summary = paper_lake.summary(lake, documents.count)
            sample = (hosts, documents, pages)
        training = training_future.result() if training_future else {}
    corpus.write_registry(root / "classifier_registry.csv")
    lap("warc_and_training_corpus" if scale.warc_files else "training_corpus", mark)

    return (
        build_truth(
            seed=seed,
            scale=scale,
            hosts=hosts,
            documents=documents,
            splits=splits,
            graph=graph,
            coverage=coverage,
            warc=warc_summary,
            training=training,
        ),
        timings,
        sample,
    )


# --------------------------------------------------------------------------- web graph


def _write_graph(folder: Path, rng: np.random.Generator, hosts: Hosts, scale: Scale) -> Graph:
    """Both graph releases: from generated edges (tiny, demo) or from the model (paper)."""
    nodes = np.flatnonzero(hosts.in_graph)
    surt = crawls.host_strings(hosts)[1].take(pa.array(nodes))
    rev_hosts_arrow = pc.replace_substring(surt, ",", ".")
    order = pc.sort_indices(rev_hosts_arrow).to_numpy()  # byte order: the graph's vertex order
    nodes = nodes[order]
    rev_hosts = np.array(rev_hosts_arrow.take(pa.array(order)).to_pylist(), dtype=object)
    crawled = hosts.role[nodes] != ROLE_DANGLING
    weights = np.exp(hosts.attractiveness[nodes])
    harmonic, pagerank, present, edge_counts = [], [], [], []
    if scale.write_graph_files:
        out_degree = np.where(crawled, np.round(np.exp(rng.normal(1.9, 0.8, len(nodes)))), 0)
        group = hosts.tld_index[nodes]
        edges = graph_edges.generate_edges(rng, out_degree.astype(np.int64), weights, group)
        releases_edges = [
            edges,
            graph_edges.perturb_edges(
                rng, edges, out_degree.astype(np.int64), weights, group, drop_share=0.15
            ),
        ]
        for release, release_edges in zip(GRAPH_RELEASES, releases_edges, strict=True):
            hc = webgraph.harmonic_centrality(len(nodes), release_edges)
            pr = webgraph.pagerank(len(nodes), release_edges)
            target = folder / release
            target.mkdir(parents=True, exist_ok=True)
            webgraph.write_vertices(target / f"{release}-host-vertices.txt.gz", list(rev_hosts))
            webgraph.write_edges(target / f"{release}-host-edges.txt.gz", release_edges)
            webgraph.write_ranks(target / f"{release}-host-ranks.txt.gz", list(rev_hosts), hc, pr)
            harmonic.append(_scatter(hosts.count, nodes, hc.astype(np.float64)))
            pagerank.append(_scatter(hosts.count, nodes, pr))
            present.append(hosts.in_graph.copy())
            edge_counts.append(len(release_edges))
    else:
        standard = (
            hosts.attractiveness[nodes] - hosts.attractiveness[nodes].mean()
        ) / hosts.attractiveness[nodes].std()
        base_hc = np.exp(12.0 + 1.1 * standard)
        base_pr = np.exp(1.3 * standard + 0.4 * rng.standard_normal(len(nodes)))
        for index, release in enumerate(GRAPH_RELEASES):
            jitter = 0.0 if index == 0 else 0.3
            hc = (base_hc * np.exp(jitter * rng.standard_normal(len(nodes)))).astype(np.float32)
            pr = base_pr * np.exp(jitter * rng.standard_normal(len(nodes)))
            pr = pr / pr.sum()
            target = folder / release
            target.mkdir(parents=True, exist_ok=True)
            webgraph.write_ranks(target / f"{release}-host-ranks.txt.gz", list(rev_hosts), hc, pr)
            harmonic.append(_scatter(hosts.count, nodes, hc.astype(np.float64)))
            pagerank.append(_scatter(hosts.count, nodes, pr))
            present.append(hosts.in_graph.copy())
            edge_counts.append(0)
    return Graph(harmonic, pagerank, present, edge_counts)


def _scatter(size: int, index: np.ndarray, values: np.ndarray) -> np.ndarray:
    result = np.zeros(size, dtype=np.float64)
    result[index] = values
    return result


def _crawl_centrality(
    rng: np.random.Generator, graph: Graph, crawl: str
) -> tuple[np.ndarray, np.ndarray]:
    """The host index's hcrank/prank of a crawl: the first release's values, jittered by age."""
    jitter = _RANK_JITTER[crawl]
    harmonic, pagerank = graph.harmonic[0], graph.pagerank[0]
    if jitter == 0:
        return harmonic, pagerank
    noise = np.exp(jitter * rng.standard_normal((2, len(harmonic))))
    return (harmonic * noise[0]).astype(np.float32).astype(np.float64), pagerank * noise[1]


# --------------------------------------------------------------------------- the WARC sample


_CRAWL_START = crawls.crawl_start(SAMPLE_CRAWL)  # 2024-02-20
_PATHS = ("article", "blog", "news", "wiki", "docs", "forum/thread", "p", "story", "en/page")


def _sample_pages(
    rng: np.random.Generator, hosts: Hosts, documents: Documents
) -> tuple[crawls.PageRows, np.ndarray]:
    """Record id, URL and fetch time (seconds after the crawl's start) of every sample page."""
    count = documents.count
    ids = crawls.record_id_array(rng, count)
    section = pa.array(["/" + path + "/" for path in _PATHS]).take(
        pa.array(rng.integers(0, len(_PATHS), count))
    )
    slug = pc.cast(pa.array(rng.integers(10_000, 99_999_999, count)), pa.string())
    path = pc.if_else(
        pa.array(rng.random(count) < 0.1),
        pc.binary_join_element_wise("/index.php?id=", slug, ""),
        pc.binary_join_element_wise(section, slug, ".html", ""),
    )
    host = crawls.host_strings(hosts)[0].take(pa.array(documents.host_id))
    urls = pc.binary_join_element_wise("https://", host, path, "")
    fetched = rng.uniform(0, crawls.CRAWL_DAYS * 86400, count).round()
    rows = crawls.PageRows(
        host_id=documents.host_id,
        record_id=ids,
        url=urls,
        fetch_time=_fetch_time_us(fetched),
        true_score=documents.true_score,
    )
    return rows, fetched


def _fetch_time_us(seconds: np.ndarray) -> np.ndarray:
    """Microseconds since the epoch of captures ``seconds`` after the sample crawl's start."""
    return (int(_CRAWL_START.timestamp()) + seconds.astype(np.int64)) * 1_000_000


def _warc_jobs(
    folder: Path,
    seed: int,
    hosts: Hosts,
    documents: Documents,
    pages: crawls.PageRows,
    fetched_at: np.ndarray,
    scale: Scale,
) -> list[warcfiles.WarcJob]:
    """Spread the sample pages over ``scale.warc_files`` files, each page in fetch-time order."""
    folder.mkdir(parents=True, exist_ok=True)
    assignment = np.random.default_rng([seed, 7]).integers(0, scale.warc_files, documents.count)
    jobs = []
    for file_index in range(scale.warc_files):
        rows = np.flatnonzero(assignment == file_index)
        rows = rows[np.argsort(fetched_at[rows], kind="stable")]
        jobs.append(
            warcfiles.WarcJob(
                path=folder / warcfiles.warc_file_name(SAMPLE_CRAWL, file_index),
                crawl=SAMPLE_CRAWL,
                seed=(seed, file_index),
                file_index=file_index,
                urls=pages.url.take(pa.array(rows)).to_pylist(),
                record_ids=pages.record_id.take(pa.array(rows)).to_pylist(),
                fetched_at=[_CRAWL_START + timedelta(seconds=float(s)) for s in fetched_at[rows]],
                languages=list(documents.language[rows]),
                host_languages=list(hosts.language[documents.host_id[rows]]),
                true_scores=documents.true_score[rows],
            )
        )
    return jobs


def _write_parquet(table: pa.Table, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.partial")
    pq.write_table(table, temporary, **_PARQUET_OPTIONS)
    temporary.rename(path)
