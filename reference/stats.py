"""Statistics the analyses share: md5 orders, mid-ranks, Pearson and Spearman, quantiles.

docs/definitions.md §4.0: randomness is ``md5(key || ':' || seed)``, read as DuckDB's
``md5_number`` (the digest's 16 bytes as a little-endian 128-bit integer); rank statistics use
mid-ranks (ties share their average rank); quantiles interpolate linearly between order
statistics (``quantile_cont``).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

try:  # CPython's own md5 (hashlib's fallback): half the cost per call of OpenSSL's
    from _md5 import md5 as _fast_md5
except ImportError:  # pragma: no cover
    _fast_md5 = hashlib.md5

_MD5_CHUNK = 1 << 20

__all__ = [
    "bounded",
    "group_pearson",
    "group_ranks",
    "md5_halves",
    "md5_number",
    "md5_order",
    "midranks",
    "pearson",
    "quantile_cont",
    "spearman",
    "summary",
]


def md5_number(text: str) -> int:
    """DuckDB's ``md5_number(text)``: the md5 digest read as a little-endian integer."""
    return int.from_bytes(hashlib.md5(text.encode()).digest(), "little")


def md5_halves(
    names: Sequence[str | bytes] | pd.Series, suffix: str = ""
) -> tuple[np.ndarray, np.ndarray]:
    """``md5_number(name || suffix)`` of each name as its high and low uint64 halves.

    A million names at a time, so that the Python strings and digests of a crawl's 28.8M page
    keys are never all held at once.
    """
    tail = suffix.encode()
    values = names.array if isinstance(names, pd.Series) else names
    high = np.empty(len(values), dtype=np.uint64)
    low = np.empty(len(values), dtype=np.uint64)
    for start in range(0, len(values), _MD5_CHUNK):
        part = values[start : start + _MD5_CHUNK]
        part = part.tolist() if hasattr(part, "tolist") else part
        digests = b"".join(
            [_fast_md5((n if isinstance(n, bytes) else n.encode()) + tail).digest() for n in part]
        )
        halves = np.frombuffer(digests, dtype="<u8").reshape(-1, 2)
        high[start : start + len(part)] = halves[:, 1]
        low[start : start + len(part)] = halves[:, 0]
    return high, low


def md5_order(
    names: Sequence[str | bytes] | pd.Series,
    suffix: str = "",
    ties: Callable[[], np.ndarray] | None = None,
) -> np.ndarray:
    """The positions of ``names`` in ascending ``md5_number(name || suffix)`` order.

    One sort while the 64-bit prefixes differ; all 128 bits where two are equal; and where two
    digests are equal, ``ties()`` (a sort key per name, computed only then) decides, else their
    positions.
    """
    high, low = md5_halves(names, suffix)
    order = np.argsort(high, kind="stable")
    if np.any(np.diff(high[order]) == 0):  # a 64-bit prefix collision: use all 128 bits
        order = np.lexsort((low, high))
        if ties is not None and np.any((np.diff(high[order]) == 0) & (np.diff(low[order]) == 0)):
            order = np.lexsort((ties(), low, high))
    return order


def midranks(values: np.ndarray) -> np.ndarray:
    """Mid-ranks from 1 (``scipy.stats.rankdata``'s average ranks), by one argsort."""
    values = np.asarray(values)
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    new = np.empty(len(values), dtype=bool)
    new[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    run = np.cumsum(new) - 1
    counts = np.bincount(run)
    ranks = np.empty(len(values))
    ranks[order] = (np.cumsum(counts) - (counts - 1) / 2.0)[run]
    return ranks


def group_ranks(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Mid-ranks within each group (group codes 0, 1, ...)."""
    if groups.max(initial=0) == 0:
        return midranks(values)
    return pd.Series(values).groupby(groups).rank(method="average").to_numpy()


def group_pearson(
    x: np.ndarray, y: np.ndarray, groups: np.ndarray, weights: np.ndarray | None = None
) -> np.ndarray:
    """Pearson correlation (weighted, if weights are given) per group, from centred sums.

    NaN for a group where a side is constant (or has one member).
    """
    w = np.ones_like(x, dtype=float) if weights is None else weights
    total = np.bincount(groups, weights=w)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_x = np.bincount(groups, weights=w * x) / total
        mean_y = np.bincount(groups, weights=w * y) / total
        dx, dy = x - mean_x[groups], y - mean_y[groups]
        sxy = np.bincount(groups, weights=w * dx * dy)
        sxx = np.bincount(groups, weights=w * dx * dx)
        syy = np.bincount(groups, weights=w * dy * dy)
        rho = sxy / np.sqrt(sxx * syy)
    return np.clip(np.where(sxx * syy > 0, rho, np.nan), -1.0, 1.0)


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson correlation; NaN with fewer than two pairs or a constant side."""
    if len(x) < 2:
        return math.nan
    return float(
        group_pearson(np.asarray(x, float), np.asarray(y, float), np.zeros(len(x), int))[0]
    )


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rho (Pearson of mid-ranks); NaN with fewer than two pairs or a constant side."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) < 2 or x.min() == x.max() or y.min() == y.max():
        return math.nan
    return pearson(midranks(x), midranks(y))


def bounded(value: float | None) -> float:
    """A correlation as the marts report it: NaN where undefined, clamped to [-1, 1]."""
    return math.nan if value is None or np.isnan(value) else max(-1.0, min(1.0, float(value)))


def quantile_cont(values: np.ndarray, q: float) -> float:
    """The linear-interpolation quantile between the order statistics around (n - 1) q.

    NaN values are skipped; NaN when nothing is left. Exact on ``Fraction``s (object arrays).
    """
    array = np.asarray(values)
    if array.dtype == object:
        ordered = sorted(v for v in array if v is not None and v == v)
    else:
        ordered = np.sort(array[~np.isnan(array)])
    if not len(ordered):
        return math.nan
    position = (len(ordered) - 1) * q
    low, high = math.floor(position), math.ceil(position)
    lo, hi = ordered[low], ordered[high]
    return lo if low == high else lo + (hi - lo) * (position - low)


def summary(values: Sequence[float]) -> dict[str, float]:
    """Mean, sample sd (NaN below two values), min and max; all NaN without values."""
    if not len(values):
        return {"mean": math.nan, "sd": math.nan, "min": math.nan, "max": math.nan}
    return {
        "mean": math.fsum(values) / len(values),
        "sd": float(np.std(values, ddof=1)) if len(values) > 1 else math.nan,
        "min": float(min(values)),
        "max": float(max(values)),
    }
