r"""The demo's host-level web graph: its centralities and Common Crawl's exact file formats.

The edges are drawn by ``demo.graph_edges`` (towards attractive hosts, within locality groups).
This module computes the two centralities Common Crawl publishes (harmonic centrality and
PageRank) and writes the ``vertices``, ``edges`` and ``ranks`` files (FORMATS.md §1) byte for
byte the way Common Crawl lays them out, the values formatted by ``demo.java_numbers``:

* ``vertices``: ``<id>\t<rev_host>`` per line, no header, ids ``0..n-1`` in the lexicographic
  order of the reversed host names (FORMATS.md §1.2);
* ``edges``: ``<from_id>\t<to_id>`` per line, no header, sorted numerically, no self-loops and
  no duplicates (FORMATS.md §1.3);
* ``ranks``: one ``#``-prefixed header line, then ``hc_pos, hc_val, pr_pos, pr_val, rev_host``
  rows sorted by ``hc_pos``. Positions are 1-based, dense and unique, and ties are broken by node
  id. Values print the way Java's ``Float.toString`` / ``Double.toString`` print them
  (FORMATS.md §1.4).

Nothing here is random; gzip members are written with ``mtime=0`` and no file name, so the same
edges and hosts give byte-identical files.
"""

from __future__ import annotations

import gzip
import itertools
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import breadth_first_order

from demo.graph_edges import check_edges
from demo.java_numbers import java_double_strs, java_float_strs

__all__ = [
    "RANKS_HEADER",
    "harmonic_centrality",
    "pagerank",
    "rank_positions",
    "ranks_rows",
    "write_edges",
    "write_ranks",
    "write_vertices",
]

RANKS_HEADER = "#harmonicc_pos\t#harmonicc_val\t#pr_pos\t#pr_val\t#host_rev"
"""Header line of a host-level ranks file (FORMATS.md §1.4), without its line end."""

_GZIP_LEVEL = 1  # zlib level 1: 4x faster than 6, files about 5% larger
_ROWS_PER_BLOCK = 100_000


# ---------------------------------------------------------------------------------------------
# Centralities
# ---------------------------------------------------------------------------------------------


def _adjacency(n_nodes: int, edges: np.ndarray) -> csr_matrix:
    """Build the 0/1 adjacency matrix (row = from, column = to), duplicates collapsed.

    Args:
        n_nodes: number of nodes.
        edges: ``(E, 2)`` edges.

    Returns:
        CSR matrix with float64 ones.
    """
    arr = check_edges(n_nodes, edges)
    matrix = csr_matrix((np.ones(arr.shape[0]), (arr[:, 0], arr[:, 1])), shape=(n_nodes, n_nodes))
    matrix.sum_duplicates()
    matrix.data[:] = 1.0
    return matrix


def harmonic_centrality(n_nodes: int, edges: np.ndarray) -> np.ndarray:
    """Exact harmonic centrality over incoming distances, as Common Crawl defines it.

    ``HC(v) = Σ_{u ≠ v, d(u, v) < ∞} 1 / d(u, v)`` where ``d(u, v)`` is the length of the shortest
    directed path from ``u`` to ``v``. One breadth-first search per node with out-links (memory
    ``O(n)`` per search); BFS visiting order is level by level, so the levels are read off the
    predecessor positions.

    Args:
        n_nodes: number of nodes.
        edges: ``(E, 2)`` edges ``(from, to)``.

    Returns:
        float32 array of length ``n_nodes`` (summed in float64, then cast, like HyperBall's
        Java floats).
    """
    adjacency = _adjacency(n_nodes, edges)
    totals = np.zeros(n_nodes, dtype=np.float64)
    position = np.empty(n_nodes, dtype=np.int64)
    sources = np.flatnonzero(np.diff(adjacency.indptr) > 0)
    for source in sources.tolist():
        order, predecessors = breadth_first_order(
            adjacency, source, directed=True, return_predecessors=True
        )
        reached = order.shape[0]
        if reached < 2:
            continue
        position[order] = np.arange(reached)
        parent_pos = position[predecessors[order[1:]]]
        distance = _bfs_levels(parent_pos)
        totals[order[1:]] += 1.0 / distance
    return totals.astype(np.float32)


def _bfs_levels(parent_pos: np.ndarray) -> np.ndarray:
    """Distances from the root for nodes in BFS visiting order.

    Args:
        parent_pos: for each visited node but the root (in visiting order), the visiting position
            of its BFS parent (the root is position 0).

    Returns:
        float64 distance per entry of ``parent_pos``.
    """
    reached = parent_pos.shape[0] + 1
    if np.all(parent_pos[1:] >= parent_pos[:-1]):
        # FIFO order: the nodes of level k+1 are exactly those whose parent sits in level k.
        bounds = [1]
        while bounds[-1] < reached:
            bound = int(np.searchsorted(parent_pos, bounds[-1], side="left")) + 1
            if bound <= bounds[-1]:
                raise ValueError("parent positions do not describe a BFS tree")
            bounds.append(bound)
        counts = np.diff(np.asarray(bounds))
        return np.repeat(np.arange(1, counts.shape[0] + 1, dtype=np.float64), counts)
    depth = np.full(reached, -1.0)  # generic fallback, never needed for a FIFO traversal
    depth[0] = 0.0
    parents = np.concatenate(([0], parent_pos))
    while np.any(depth < 0):
        ready = (depth < 0) & (depth[parents] >= 0)
        depth[ready] = depth[parents[ready]] + 1.0
    return depth[1:]


def pagerank(
    n_nodes: int, edges: np.ndarray, damping: float = 0.85, tol: float = 1e-12
) -> np.ndarray:
    """PageRank by power iteration: uniform teleport, dangling mass spread uniformly.

    Args:
        n_nodes: number of nodes.
        edges: ``(E, 2)`` edges ``(from, to)``; duplicates count once.
        damping: damping factor.
        tol: stop when the L1 change between iterations is below this.

    Returns:
        float64 array of length ``n_nodes`` summing to 1.
    """
    if n_nodes <= 0:
        return np.zeros(0, dtype=np.float64)
    adjacency = _adjacency(n_nodes, edges)
    out_deg = np.diff(adjacency.indptr).astype(np.float64)
    dangling = out_deg == 0
    inv_deg = np.where(dangling, 0.0, 1.0 / np.maximum(out_deg, 1.0))
    transition_t = adjacency.T.tocsr()  # row v lists the nodes linking to v
    rank = np.full(n_nodes, 1.0 / n_nodes)
    for _ in range(10_000):
        spread = damping * rank[dangling].sum() + (1.0 - damping)
        new = damping * (transition_t @ (rank * inv_deg)) + spread / n_nodes
        new /= new.sum()
        change = np.abs(new - rank).sum()
        rank = new
        if change < tol:
            break
    return rank


def rank_positions(values: np.ndarray) -> np.ndarray:
    """Positions as in the ranks file: 1 for the largest value, ties by node id ascending.

    Args:
        values: one value per node.

    Returns:
        int64 array with a 1-based, dense and unique position per node.
    """
    arr = np.asarray(values, dtype=np.float64)
    ids = np.arange(arr.shape[0])
    order = np.lexsort((ids, -arr))
    positions = np.empty(arr.shape[0], dtype=np.int64)
    positions[order] = np.arange(1, arr.shape[0] + 1)
    return positions


# ---------------------------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------------------------


def _write_gzip_lines(path: Path, blocks: Iterable[str]) -> None:
    r"""Write text blocks to a reproducible gzip file (mtime 0, no file name in the header).

    Args:
        path: destination.
        blocks: text chunks, each already ending with ``"\n"``.
    """
    with (
        open(path, "wb") as raw,
        gzip.GzipFile(
            filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=_GZIP_LEVEL
        ) as packed,
    ):
        for block in blocks:
            packed.write(block.encode("utf-8"))


def _format_rows(row_format: str, columns: Sequence[Sequence[object]]) -> str:
    r"""Format rows with one ``%`` operation per block (much faster than one f-string per row).

    Args:
        row_format: ``%``-format of one row, ending with ``"\n"``; values go in as arguments only.
        columns: equally long columns, one per placeholder.

    Returns:
        The formatted rows, concatenated.
    """
    n_rows = len(columns[0]) if columns else 0
    if n_rows == 0:
        return ""
    flat = tuple(itertools.chain.from_iterable(zip(*columns, strict=True)))
    return (row_format * n_rows) % flat


def _check_rev_hosts(rev_hosts: Sequence[str]) -> list[str]:
    """Check that reversed host names are sorted and free of tabs and line breaks.

    Args:
        rev_hosts: reversed host names, in node id order.

    Returns:
        The names as a list.
    """
    hosts = list(rev_hosts)
    assert all(a <= b for a, b in itertools.pairwise(hosts)), (
        "rev_hosts must be sorted lexicographically (node ids follow the sort order)"
    )
    for host in hosts:
        if "\t" in host or "\n" in host or "\r" in host:
            raise ValueError(f"host name contains a tab or line break: {host!r}")
    return hosts


def write_vertices(path: Path, rev_hosts: Sequence[str]) -> None:
    r"""Write a vertices file: ``<id>\t<rev_host>`` per line, ids ``0..n-1``, gzip.

    Args:
        path: destination (``...-vertices.txt.gz``).
        rev_hosts: reversed host names, sorted lexicographically; node id = index.
    """
    hosts = _check_rev_hosts(rev_hosts)

    def blocks() -> Iterable[str]:
        for start in range(0, len(hosts), _ROWS_PER_BLOCK):
            chunk = hosts[start : start + _ROWS_PER_BLOCK]
            yield _format_rows("%d\t%s\n", (range(start, start + len(chunk)), chunk))

    _write_gzip_lines(Path(path), blocks())


def write_edges(path: Path, edges: np.ndarray) -> None:
    r"""Write an edges file: ``<from_id>\t<to_id>`` per line, sorted by (from, to), gzip.

    Args:
        path: destination (``...-edges.txt.gz``).
        edges: ``(E, 2)`` edges; they are sorted here, and must have no duplicates.
    """
    arr = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    if arr.shape[0]:
        arr = arr[np.lexsort((arr[:, 1], arr[:, 0]))]

    def blocks() -> Iterable[str]:
        for start in range(0, arr.shape[0], _ROWS_PER_BLOCK):
            chunk = arr[start : start + _ROWS_PER_BLOCK]
            yield _format_rows("%d\t%d\n", (chunk[:, 0].tolist(), chunk[:, 1].tolist()))

    _write_gzip_lines(Path(path), blocks())


def write_ranks(
    path: Path, rev_hosts: Sequence[str], harmonic: np.ndarray, pagerank: np.ndarray
) -> None:
    r"""Write a host-level ranks file (FORMATS.md §1.4).

    A header line, then ``hc_pos\thc_val\tpr_pos\tpr_val\trev_host`` per node sorted by
    ``hc_pos``; ``hc_val`` prints as a Java float and ``pr_val`` as a Java double.

    Args:
        path: destination (``...-host-ranks.txt.gz``).
        rev_hosts: reversed host names, sorted lexicographically; node id = index.
        harmonic: harmonic centrality per node (rounded to float32 for printing and ranking).
        pagerank: PageRank per node (float64).
    """
    hosts = _check_rev_hosts(rev_hosts)
    hc = np.asarray(harmonic).astype(np.float32)
    pr = np.asarray(pagerank, dtype=np.float64)
    if hc.shape != (len(hosts),) or pr.shape != (len(hosts),):
        raise ValueError("harmonic and pagerank need one value per host")
    hc_pos = rank_positions(hc)
    pr_pos = rank_positions(pr)
    order = np.argsort(hc_pos, kind="stable")
    hc_sorted, pr_sorted = hc[order], pr[order]
    hc_pos_list = hc_pos[order].tolist()
    pr_pos_list = pr_pos[order].tolist()
    host_list = [hosts[node] for node in order.tolist()]

    def blocks() -> Iterable[str]:
        yield RANKS_HEADER + "\n"
        for start in range(0, len(host_list), _ROWS_PER_BLOCK):
            stop = start + _ROWS_PER_BLOCK
            yield ranks_rows(
                hc_pos_list[start:stop],
                hc_sorted[start:stop],
                pr_pos_list[start:stop],
                pr_sorted[start:stop],
                host_list[start:stop],
            )

    _write_gzip_lines(Path(path), blocks())


def ranks_rows(
    hc_pos: Sequence[int],
    harmonic: np.ndarray,
    pr_pos: Sequence[int],
    pagerank: np.ndarray,
    rev_hosts: Sequence[str],
) -> str:
    r"""Rows of a ranks file, ``hc_pos\thc_val\tpr_pos\tpr_val\trev_host\n`` each.

    ``harmonic`` prints as Java floats, ``pagerank`` as Java doubles; the rows come out in the
    order given (a ranks file's is by ``hc_pos``).
    """
    return _format_rows(
        "%d\t%s\t%d\t%s\t%s\n",
        (
            list(hc_pos),
            java_float_strs(np.asarray(harmonic, dtype=np.float32)),
            list(pr_pos),
            java_double_strs(np.asarray(pagerank, dtype=np.float64)),
            list(rev_hosts),
        ),
    )
