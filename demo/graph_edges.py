"""Edges of the demo's host-level web graph: drawn towards attractive hosts, within groups.

``generate_edges`` draws each host's out-links: a share within the host's locality group (its
registered domain or TLD), the rest globally, each target drawn by attractiveness weight, no
self-loops and no duplicates; hosts whose wanted out-degree cannot be met are topped up over a
few rounds. ``perturb_edges`` derives a later graph release from an earlier one (a share of the
edges dropped and redrawn). Every draw comes from the ``numpy.random.Generator`` passed in.
``demo.webgraph`` computes the centralities of the edges and writes the graph's files.
"""

from __future__ import annotations

import numpy as np

__all__ = ["check_edges", "generate_edges", "perturb_edges"]

_MAX_TOPUP_ROUNDS = 8


class _TargetSampler:
    """Draws link targets: globally by attractiveness, or within the source's group.

    Args:
        attractiveness: positive weight per node; targets are drawn proportionally to it.
        group: locality key per node (any sortable dtype); local links stay inside a group.
        local_share: probability that a link is drawn inside the source's group.
    """

    def __init__(self, attractiveness: np.ndarray, group: np.ndarray, local_share: float) -> None:
        weights = np.asarray(attractiveness, dtype=np.float64)
        n_nodes = weights.shape[0]
        if weights.ndim != 1 or n_nodes == 0:
            raise ValueError("attractiveness must be a non-empty 1-D array")
        if not np.all(np.isfinite(weights)) or np.any(weights <= 0):
            raise ValueError("attractiveness must be finite and positive")
        group_arr = np.asarray(group)
        if group_arr.shape != (n_nodes,):
            raise ValueError("group must have one entry per node")
        if not 0.0 <= local_share <= 1.0:
            raise ValueError("local_share must be within [0, 1]")
        _, codes = np.unique(group_arr, return_inverse=True)
        codes = codes.ravel()
        self.n_nodes = n_nodes
        self.local_share = float(local_share)
        self.weights = weights
        self.global_cum = np.cumsum(weights)
        # Nodes sorted by group (stable, so by id inside a group) with running weight sums.
        self.order = np.argsort(codes, kind="stable")
        sorted_weights = weights[self.order]
        self.sorted_cum = np.cumsum(sorted_weights)
        sorted_cum_excl = self.sorted_cum - sorted_weights
        position = np.empty(n_nodes, dtype=np.int64)
        position[self.order] = np.arange(n_nodes)
        sorted_codes = codes[self.order]
        n_groups = int(codes.max()) + 1
        group_start = np.searchsorted(sorted_codes, np.arange(n_groups), side="left")
        group_end = np.searchsorted(sorted_codes, np.arange(n_groups), side="right")
        group_total = np.bincount(codes, weights=weights, minlength=n_groups)
        # Per node: where its group starts and ends in ``order``, the weight available to it
        # once it is excluded, and its own offset inside the group.
        self.node_lo = group_start[codes]
        self.node_hi = group_end[codes] - 1
        self.node_base = sorted_cum_excl[self.node_lo]
        self.node_avail = group_total[codes] - weights
        self.node_self_offset = sorted_cum_excl[position] - self.node_base
        self.node_has_peer = (group_end - group_start)[codes] > 1

    def sample(self, rng: np.random.Generator, sources: np.ndarray) -> np.ndarray:
        """Draw one target per source.

        Args:
            rng: random generator (two uniform draws per source, always).
            sources: node id per link to draw.

        Returns:
            Target node id per source (a self-loop is possible only for global draws).
        """
        count = sources.shape[0]
        go_local = rng.random(count) < self.local_share
        uniform = rng.random(count)
        targets = np.empty(count, dtype=np.int64)
        local = go_local & self.node_has_peer[sources]
        glob = ~local
        if glob.any():
            draw = uniform[glob] * self.global_cum[-1]
            idx = np.searchsorted(self.global_cum, draw, side="right")
            targets[glob] = np.minimum(idx, self.n_nodes - 1)
        if local.any():
            src = sources[local]
            offset = uniform[local] * self.node_avail[src]
            # Skip over the source's own weight so that it is never drawn.
            offset = offset + np.where(offset >= self.node_self_offset[src], self.weights[src], 0.0)
            idx = np.searchsorted(self.sorted_cum, self.node_base[src] + offset, side="right")
            idx = np.clip(idx, self.node_lo[src], self.node_hi[src])
            targets[local] = self.order[idx]
        return targets


def _sorted_unique(keys: np.ndarray) -> np.ndarray:
    """Sort integer keys and drop repeats (cheaper than ``np.unique`` for this use).

    Args:
        keys: 1-D int64 array.

    Returns:
        Sorted array of the distinct keys.
    """
    ordered = np.sort(keys)
    if ordered.shape[0] < 2:
        return ordered
    first = np.empty(ordered.shape[0], dtype=bool)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    return ordered[first]


def _keys_to_edges(keys: np.ndarray, n_nodes: int) -> np.ndarray:
    """Decode sorted ``from * n + to`` keys into an ``(E, 2)`` int64 edge array.

    Args:
        keys: edge keys.
        n_nodes: number of nodes.

    Returns:
        The edges, in key order.
    """
    edges = np.empty((keys.shape[0], 2), dtype=np.int64)
    edges[:, 0] = keys // n_nodes
    edges[:, 1] = keys % n_nodes
    return edges


def _fill_out_degrees(
    rng: np.random.Generator,
    sampler: _TargetSampler,
    wanted: np.ndarray,
    keys: np.ndarray,
) -> np.ndarray:
    """Add edges until every node has its wanted out-degree or the top-up rounds run out.

    Each round draws the missing links of every node, drops self-loops and merges them into the
    existing keys; repeated draws of an existing edge are discarded, so the next round retries.

    Args:
        rng: random generator.
        sampler: target sampler.
        wanted: wanted distinct out-degree per node (already capped at ``n - 1``).
        keys: sorted, unique ``from * n + to`` keys of the edges present so far.

    Returns:
        Sorted, unique keys including the added edges.
    """
    n_nodes = sampler.n_nodes
    node_ids = np.arange(n_nodes, dtype=np.int64)
    for _ in range(_MAX_TOPUP_ROUNDS):
        realised = np.bincount(keys // n_nodes, minlength=n_nodes)
        deficit = np.maximum(wanted - realised, 0)
        if not deficit.any():
            break
        sources = np.repeat(node_ids, deficit)
        targets = sampler.sample(rng, sources)
        keep = targets != sources
        keys = _sorted_unique(np.concatenate((keys, sources[keep] * n_nodes + targets[keep])))
    return keys


def _wanted_degrees(out_degree: np.ndarray, n_nodes: int) -> np.ndarray:
    """Validate out-degrees and cap them at ``n - 1``.

    Args:
        out_degree: wanted out-degree per node.
        n_nodes: number of nodes.

    Returns:
        int64 array of capped out-degrees.
    """
    degrees = np.asarray(out_degree)
    if degrees.shape != (n_nodes,):
        raise ValueError("out_degree must have one entry per node")
    if np.any(degrees < 0):
        raise ValueError("out_degree must be non-negative")
    return np.minimum(degrees.astype(np.int64), n_nodes - 1)


def generate_edges(
    rng: np.random.Generator,
    out_degree: np.ndarray,
    attractiveness: np.ndarray,
    group: np.ndarray,
    local_share: float = 0.3,
) -> np.ndarray:
    """Draw a directed host graph with given out-degrees and attractiveness-driven in-degrees.

    Each link of node ``i`` goes, with probability ``local_share``, to another node of the same
    ``group`` (drawn proportionally to attractiveness inside the group) and otherwise to any node
    drawn proportionally to attractiveness. A node alone in its group links globally. Self-loops
    and duplicates are removed and the missing links redrawn for a few rounds, so the realised
    out-degree equals ``min(out_degree, n - 1)`` except for nodes whose wanted degree is a large
    share of all nodes, which may end up a bit lower.

    Args:
        rng: random generator; the result is a deterministic function of its state.
        out_degree: wanted number of distinct out-links per node (0 for dangling hosts).
        attractiveness: positive weight per node, driving its expected in-degree.
        group: locality key per node (registered domain, TLD...); integers or strings.
        local_share: share of links drawn inside the source's group.

    Returns:
        int64 array of shape ``(E, 2)`` with ``(from, to)`` rows sorted by ``from`` then ``to``.
    """
    sampler = _TargetSampler(attractiveness, group, local_share)
    wanted = _wanted_degrees(out_degree, sampler.n_nodes)
    keys = _fill_out_degrees(rng, sampler, wanted, np.empty(0, dtype=np.int64))
    return _keys_to_edges(keys, sampler.n_nodes)


def perturb_edges(
    rng: np.random.Generator,
    edges: np.ndarray,
    out_degree: np.ndarray,
    attractiveness: np.ndarray,
    group: np.ndarray,
    drop_share: float,
    local_share: float = 0.3,
) -> np.ndarray:
    """Derive the next graph release: drop a share of the edges and draw replacements.

    Exactly ``round(drop_share * E)`` edges, chosen uniformly, are dropped. Each node then gets new
    links, drawn as in :func:`generate_edges`, until it is back at ``min(out_degree, n - 1)``
    distinct out-links. With the ``out_degree`` used for the first release that adds about as many
    edges as were dropped; pass different out-degrees or attractiveness to let hosts grow or shrink
    between releases. A dropped edge may be drawn again.

    Args:
        rng: random generator.
        edges: ``(E, 2)`` edges of the previous release (unique, no self-loops).
        out_degree: wanted out-degree per node in the new release.
        attractiveness: positive weight per node in the new release.
        group: locality key per node.
        drop_share: share of the previous edges to drop, in ``[0, 1]``.
        local_share: share of new links drawn inside the source's group.

    Returns:
        int64 array of shape ``(E', 2)`` sorted by ``(from, to)``.
    """
    if not 0.0 <= drop_share <= 1.0:
        raise ValueError("drop_share must be within [0, 1]")
    sampler = _TargetSampler(attractiveness, group, local_share)
    n_nodes = sampler.n_nodes
    old = check_edges(n_nodes, edges)
    n_drop = round(drop_share * old.shape[0])
    keep = np.ones(old.shape[0], dtype=bool)
    keep[rng.permutation(old.shape[0])[:n_drop]] = False
    kept = old[keep]
    keys = _sorted_unique(kept[:, 0] * n_nodes + kept[:, 1])
    keys = keys[(keys // n_nodes) != (keys % n_nodes)]
    wanted = _wanted_degrees(out_degree, n_nodes)
    keys = _fill_out_degrees(rng, sampler, wanted, keys)
    return _keys_to_edges(keys, n_nodes)


def check_edges(n_nodes: int, edges: np.ndarray) -> np.ndarray:
    """Validate an edge array.

    Args:
        n_nodes: number of nodes.
        edges: ``(E, 2)`` integer array of node ids.

    Returns:
        The edges as int64.
    """
    arr = np.asarray(edges)
    if arr.size == 0:
        return np.empty((0, 2), dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError("edges must have shape (E, 2)")
    arr = arr.astype(np.int64, copy=False)
    if arr.min() < 0 or arr.max() >= n_nodes:
        raise ValueError("edge endpoints must be node ids in [0, n_nodes)")
    return arr
