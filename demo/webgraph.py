r"""Synthetic host-level web graph in Common Crawl's exact file formats (FORMATS.md §1).

The caller supplies one entry per host (reversed host names, wanted out-degrees, attractiveness
weights and a locality group such as the registered domain). This module draws the edges,
computes the two centralities Common Crawl publishes (harmonic centrality and PageRank) and writes
the ``vertices``, ``edges`` and ``ranks`` files byte for byte the way Common Crawl lays them out:

* ``vertices``: ``<id>\t<rev_host>`` per line, no header, ids ``0..n-1`` in the lexicographic
  order of the reversed host names (FORMATS.md §1.2);
* ``edges``: ``<from_id>\t<to_id>`` per line, no header, sorted numerically, no self-loops and
  no duplicates (FORMATS.md §1.3);
* ``ranks``: one ``#``-prefixed header line, then ``hc_pos, hc_val, pr_pos, pr_val, rev_host``
  rows sorted by ``hc_pos``. Positions are 1-based, dense and unique, and ties are broken by node
  id. Values print the way Java's ``Float.toString`` / ``Double.toString`` print them
  (FORMATS.md §1.4).

Every random draw comes from the ``numpy.random.Generator`` passed in, and gzip members are written
with ``mtime=0`` and no file name, so the same seed gives byte-identical files.
"""

from __future__ import annotations

import gzip
import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from decimal import ROUND_CEILING, ROUND_FLOOR, Context, Decimal
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import breadth_first_order

__all__ = [
    "RANKS_HEADER",
    "generate_edges",
    "harmonic_centrality",
    "java_double_str",
    "java_float_str",
    "pagerank",
    "perturb_edges",
    "rank_positions",
    "write_edges",
    "write_ranks",
    "write_vertices",
]

RANKS_HEADER = "#harmonicc_pos\t#harmonicc_val\t#pr_pos\t#pr_val\t#host_rev"
"""Header line of a host-level ranks file (FORMATS.md §1.4), without its line end."""

_GZIP_LEVEL = 1  # zlib level 1: 4x faster than 6, files about 5% larger
_ROWS_PER_BLOCK = 100_000
_MAX_TOPUP_ROUNDS = 8

# ---------------------------------------------------------------------------------------------
# Java Float.toString / Double.toString
# ---------------------------------------------------------------------------------------------


def _digits_and_exponent(text: str) -> tuple[str, int]:
    """Split a non-negative decimal literal into significant digits and a scientific exponent.

    Args:
        text: a finite, non-negative literal such as ``"0.00538"``, ``"1e-05"``, ``"34626736.0"``
            or ``"3.4626736e+07"``.

    Returns:
        ``(digits, exponent)`` with no leading or trailing zeros in ``digits`` such that the value
        is ``digits[0].digits[1:] × 10**exponent``; ``("", 0)`` for zero.
    """
    mantissa, _, exp_text = text.lower().partition("e")
    exponent = int(exp_text) if exp_text else 0
    int_part, _, frac_part = mantissa.partition(".")
    all_digits = int_part + frac_part
    point = len(int_part) + exponent  # value = 0.<all_digits> × 10**point
    stripped = all_digits.lstrip("0")
    point -= len(all_digits) - len(stripped)
    digits = stripped.rstrip("0")
    if not digits:
        return "", 0
    return digits, point - 1


def _java_layout(negative: bool, digits: str, exponent: int) -> str:
    """Lay out shortest digits the way Java's ``Float/Double.toString`` does.

    Args:
        negative: whether to print a leading minus sign.
        digits: significant digits without leading or trailing zeros (empty for zero).
        exponent: scientific exponent, the value being ``digits[0].digits[1:] × 10**exponent``.

    Returns:
        Plain decimal notation with at least one fractional digit when ``1e-3 <= |v| < 1e7``,
        otherwise computerized scientific notation ``d.dddE<n>``.
    """
    sign = "-" if negative else ""
    if not digits:
        return sign + "0.0"
    if -3 <= exponent < 7:
        if exponent >= 0:
            int_part = digits[: exponent + 1].ljust(exponent + 1, "0")
            frac_part = digits[exponent + 1 :] or "0"
            return f"{sign}{int_part}.{frac_part}"
        return f"{sign}0.{'0' * (-exponent - 1)}{digits}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exponent}"


def _two_digit_choice(
    magnitude: float, digits: str, exponent: int, round_trips: Callable[[Decimal], bool]
) -> tuple[str, int]:
    """Apply Java's rule for values whose shortest decimal has a single digit.

    Java (JDK 19+) then picks, among the decimals of length 1 *or 2* that round to the value, the
    one closest to it. This only changes the result for subnormals, e.g. ``Float.MIN_VALUE``
    prints ``1.4E-45`` where the shortest decimal is ``1E-45``.

    Args:
        magnitude: the absolute value (exactly representable as a Python float).
        digits: the shortest digits found (length 1).
        exponent: their scientific exponent.
        round_trips: whether a decimal parses back to the value in the target format.

    Returns:
        ``(digits, exponent)`` of the decimal Java prints.
    """
    exact = Decimal(magnitude)
    best: tuple[Decimal, Decimal, tuple[str, int]] | None = None
    for rounding in (ROUND_FLOOR, ROUND_CEILING):
        candidate = Context(prec=2, rounding=rounding).plus(exact)
        if not round_trips(candidate):
            continue
        cand_digits, cand_exp = _digits_and_exponent(str(candidate))
        distance = abs(candidate - exact)
        parity = Decimal(int(cand_digits[-1]) % 2)  # prefer an even last digit on a tie
        if best is None or (distance, parity) < best[:2]:
            best = (distance, parity, (cand_digits, cand_exp))
    return best[2] if best is not None else (digits, exponent)


_F32_MIN_NORMAL = float(np.finfo(np.float32).tiny)
_F64_MIN_NORMAL = float(np.finfo(np.float64).tiny)
_F32_PLAIN_LOW = float(np.float32(1e-3))  # smallest float32 whose shortest decimal is >= 0.001
_PLAIN_HIGH = 1e7


def _float32_round_trips(candidate: Decimal, target: np.float32) -> bool:
    """Whether a decimal parses back to ``target`` as a float32.

    Args:
        candidate: the decimal to parse.
        target: the float32 it must denote.

    Returns:
        True when ``np.float32(float(candidate)) == target``.
    """
    return bool(np.float32(float(candidate)) == target)


def _float32_generic(magnitude: np.float32) -> str:
    """Java text of a positive finite float32, by the general digits-then-layout route.

    Args:
        magnitude: a positive, finite float32.

    Returns:
        Java ``Float.toString`` text.
    """
    digits, exponent = _digits_and_exponent(
        np.format_float_scientific(magnitude, unique=True, trim="-")
    )
    if len(digits) == 1:
        digits, exponent = _two_digit_choice(
            float(magnitude), digits, exponent, lambda c: _float32_round_trips(c, magnitude)
        )
    return _java_layout(False, digits, exponent)


def _float32_fast(magnitude: np.float32) -> str:
    """Java text of a positive finite float32, using numpy's layouts where they match Java's.

    For normal values the one-digit rule of :func:`_two_digit_choice` never changes the digits, and
    numpy's ``trim='0'`` layouts are Java's once the exponent is respelled.

    Args:
        magnitude: a positive, finite float32.

    Returns:
        Java ``Float.toString`` text (same as :func:`_float32_generic`).
    """
    value = float(magnitude)
    if value < _F32_MIN_NORMAL:
        return _float32_generic(magnitude)
    if _F32_PLAIN_LOW <= value < _PLAIN_HIGH:
        return np.format_float_positional(magnitude, unique=True, trim="0")
    text = np.format_float_scientific(magnitude, unique=True, trim="0", exp_digits=1)
    return text.replace("e+", "E").replace("e-", "E-")


def _double_generic(magnitude: float) -> str:
    """Java text of a positive finite double, by the general digits-then-layout route.

    Args:
        magnitude: a positive, finite double.

    Returns:
        Java ``Double.toString`` text.
    """
    digits, exponent = _digits_and_exponent(repr(magnitude))
    if len(digits) == 1:
        digits, exponent = _two_digit_choice(
            magnitude, digits, exponent, lambda c: float(c) == magnitude
        )
    return _java_layout(False, digits, exponent)


def _double_fast(magnitude: float) -> str:
    """Java text of a positive finite double, reusing Python's ``repr`` layout where it matches.

    ``repr`` is positional with a fractional digit for ``1e-4 <= v < 1e16`` and scientific
    otherwise, so Java's plain range needs no change and ``repr``'s scientific form only needs its
    exponent respelled.

    Args:
        magnitude: a positive, finite double.

    Returns:
        Java ``Double.toString`` text (same as :func:`_double_generic`).
    """
    if magnitude < _F64_MIN_NORMAL:
        return _double_generic(magnitude)
    text = repr(magnitude)
    if 1e-3 <= magnitude < _PLAIN_HIGH:
        return text
    mantissa, marker, exp_text = text.partition("e")
    if not marker:
        return _double_generic(magnitude)
    if "." not in mantissa:
        mantissa += ".0"
    return f"{mantissa}E{int(exp_text)}"


def _java_special(value: float, negative: bool) -> str | None:
    """Java text for NaN, infinities and zeros.

    Args:
        value: the number.
        negative: its sign bit.

    Returns:
        The text, or None when ``value`` is finite and non-zero.
    """
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "-Infinity" if negative else "Infinity"
    if value == 0.0:
        return "-0.0" if negative else "0.0"
    return None


def java_float_str(value: float) -> str:
    """Format a number like Java 19+ ``Float.toString`` of the float32 nearest to it.

    Args:
        value: any real number; it is first rounded to the nearest float32.

    Returns:
        The shortest decimal that round-trips to the float32, e.g. ``"3.4626736E7"``, ``"100.0"``,
        ``"0.001"``, ``"1.0E-4"``.
    """
    with np.errstate(over="ignore"):  # beyond the float32 range is Infinity, as in Java
        f32 = np.float32(value)
    negative = bool(np.signbit(f32))
    special = _java_special(float(f32), negative)
    if special is not None:
        return special
    text = _float32_fast(np.abs(f32))
    return "-" + text if negative else text


def java_double_str(value: float) -> str:
    """Format a number like Java 19+ ``Double.toString``.

    Args:
        value: a double.

    Returns:
        The shortest decimal that round-trips (Python's ``repr`` digits) in Java layout, e.g.
        ``"0.005384977821460953"``, ``"3.794876113587071E-4"``, ``"1.0E7"``.
    """
    number = float(value)
    negative = math.copysign(1.0, number) < 0
    special = _java_special(number, negative)
    if special is not None:
        return special
    text = _double_fast(abs(number))
    return "-" + text if negative else text


def _java_layout_of_shortest(text: str, plain: bool) -> str:
    """Respell a positive number's shortest decimal (as Arrow prints it) in Java's layout.

    Arrow's float-to-string cast prints the shortest round-tripping digits, positionally from
    1e-6 up to 1e21 (without a trailing ``.0`` for whole numbers) and as ``2.5e-9`` outside.

    Args:
        text: Arrow's text of a positive, finite, normal value.
        plain: whether Java prints the value positionally (``1e-3 <= v < 1e7``).

    Returns:
        Java ``Float/Double.toString`` text.
    """
    if plain:
        return text if "." in text else text + ".0"
    mantissa, marker, exponent = text.partition("e")
    if marker:
        return f"{mantissa if '.' in mantissa else mantissa + '.0'}E{int(exponent)}"
    integer, _, fraction = text.partition(".")
    if integer != "0":  # at least 1e7
        digits = (integer + fraction).rstrip("0")
        power = len(integer) - 1
    else:  # below 1e-3
        significant = fraction.lstrip("0")
        power = -(len(fraction) - len(significant) + 1)
        digits = significant.rstrip("0")
    return f"{digits[0]}.{digits[1:] or '0'}E{power}"


def _java_strs(values: np.ndarray, single: bool) -> list[str]:
    """Format many numbers like :func:`java_float_str` (single) or :func:`java_double_str`.

    The shortest digits come from Arrow's C++ float-to-string cast (shortest round-trip, for
    float32 in single precision); only the layout is respelled here. Zeros, subnormals,
    negatives and non-finite values take the per-value route.

    Args:
        values: 1-D array of numbers.
        single: format as float32 (Java ``Float``) rather than double.

    Returns:
        One string per element, in order.
    """
    numbers = np.asarray(values).astype(np.float32 if single else np.float64).ravel()
    if numbers.size == 0:
        return []
    tiny = np.finfo(numbers.dtype).tiny
    low = np.float32(_F32_PLAIN_LOW) if single else 1e-3
    with np.errstate(invalid="ignore"):
        regular = np.isfinite(numbers) & (numbers >= tiny)
        plain = regular & (numbers >= low) & (numbers < _PLAIN_HIGH)
    shortest = pc.cast(pa.array(numbers), pa.string()).to_pylist()
    formatter = java_float_str if single else java_double_str
    return [
        _java_layout_of_shortest(text, is_plain) if is_regular else formatter(float(number))
        for text, is_regular, is_plain, number in zip(
            shortest, regular.tolist(), plain.tolist(), numbers.tolist(), strict=True
        )
    ]


def _java_float_strs(values: np.ndarray) -> list[str]:
    """Format many numbers like :func:`java_float_str`."""
    return _java_strs(values, single=True)


def _java_double_strs(values: np.ndarray) -> list[str]:
    """Format many numbers like :func:`java_double_str`."""
    return _java_strs(values, single=False)


# ---------------------------------------------------------------------------------------------
# Edge generation
# ---------------------------------------------------------------------------------------------


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
    old = _check_edges(n_nodes, edges)
    n_drop = round(drop_share * old.shape[0])
    keep = np.ones(old.shape[0], dtype=bool)
    keep[rng.permutation(old.shape[0])[:n_drop]] = False
    kept = old[keep]
    keys = _sorted_unique(kept[:, 0] * n_nodes + kept[:, 1])
    keys = keys[(keys // n_nodes) != (keys % n_nodes)]
    wanted = _wanted_degrees(out_degree, n_nodes)
    keys = _fill_out_degrees(rng, sampler, wanted, keys)
    return _keys_to_edges(keys, n_nodes)


# ---------------------------------------------------------------------------------------------
# Centralities
# ---------------------------------------------------------------------------------------------


def _check_edges(n_nodes: int, edges: np.ndarray) -> np.ndarray:
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


def _adjacency(n_nodes: int, edges: np.ndarray) -> csr_matrix:
    """Build the 0/1 adjacency matrix (row = from, column = to), duplicates collapsed.

    Args:
        n_nodes: number of nodes.
        edges: ``(E, 2)`` edges.

    Returns:
        CSR matrix with float64 ones.
    """
    arr = _check_edges(n_nodes, edges)
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
    hc_text = _java_float_strs(hc[order])
    pr_text = _java_double_strs(pr[order])
    hc_pos_list = hc_pos[order].tolist()
    pr_pos_list = pr_pos[order].tolist()
    host_list = [hosts[node] for node in order.tolist()]

    def blocks() -> Iterable[str]:
        yield RANKS_HEADER + "\n"
        for start in range(0, len(host_list), _ROWS_PER_BLOCK):
            stop = start + _ROWS_PER_BLOCK
            yield _format_rows(
                "%d\t%s\t%d\t%s\t%s\n",
                (
                    hc_pos_list[start:stop],
                    hc_text[start:stop],
                    pr_pos_list[start:stop],
                    pr_text[start:stop],
                    host_list[start:stop],
                ),
            )

    _write_gzip_lines(Path(path), blocks())
