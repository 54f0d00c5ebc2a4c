"""A mart against the reference's frame: the same keys, every number within a tolerance.

``assert_matches`` is the tests' check (an absolute tolerance, nulls equal, listing every
difference), ``assert_rows_match`` the plan tests' (integers and strings exactly, floats within
the tolerance); ``differences`` is the benchmarks' summary (rows on one side only, null and
exact mismatches, the largest absolute and relative difference).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import pandas as pd

__all__ = [
    "ATOL",
    "as_float",
    "assert_matches",
    "assert_rows_match",
    "budget_key",
    "differences",
]

ATOL = 1e-9


def as_float(values: Iterable) -> np.ndarray:
    """Numbers as float64, SQL nulls (None, pd.NA, NaN) as NaN."""
    return np.array(
        [np.nan if value is None or value is pd.NA else float(value) for value in values]
    )


def budget_key(frame: pd.DataFrame, column: str = "budget_share") -> pd.DataFrame:
    """A float key rounded to 12 decimals, so that 0.1 from SQL and from YAML meet."""
    return frame.assign(**{column: frame[column].astype(float).round(12)})


def assert_matches(
    label: str,
    actual: pd.DataFrame,
    expected: pd.DataFrame,
    keys: list[str],
    numeric: list[str],
    exact: tuple[str, ...] = (),
    atol: float = ATOL,
) -> dict[str, float]:
    """Same key set; every numeric column within ``atol`` (null = NaN); ``exact`` columns equal.

    Returns the largest absolute difference per numeric column.
    """
    actual = actual.set_index(keys).sort_index()
    expected = expected.set_index(keys).sort_index()
    assert not actual.index.duplicated().any(), f"{label}: duplicate keys in the mart"
    only_mart = sorted(set(actual.index) - set(expected.index), key=str)
    only_reference = sorted(set(expected.index) - set(actual.index), key=str)
    assert not only_mart and not only_reference, (
        f"{label}: keys only in the mart {only_mart[:10]}, only in the reference "
        f"{only_reference[:10]}"
    )
    actual = actual.loc[expected.index]
    problems: list[str] = []
    largest: dict[str, float] = {}
    for column in numeric:
        mart = as_float(actual[column])
        reference = as_float(expected[column])
        both_missing = np.isnan(mart) & np.isnan(reference)
        difference = np.abs(mart - reference)
        wrong = ~both_missing & ~(difference <= atol)
        finite = difference[~np.isnan(difference)]
        largest[column] = float(finite.max()) if finite.size else 0.0
        problems += [
            f"{column} at {key}: mart {m!r}, reference {r!r}"
            for key, m, r in zip(expected.index[wrong], mart[wrong], reference[wrong], strict=True)
        ]
    for column in exact:
        mart_values = actual[column].astype(object).where(actual[column].notna(), None)
        reference_values = expected[column].astype(object).where(expected[column].notna(), None)
        problems += [
            f"{column} at {key}: mart {m!r}, reference {r!r}"
            for key, m, r in zip(expected.index, mart_values, reference_values, strict=True)
            if m != r
        ]
    assert not problems, f"{label}: {len(problems)} differences:\n" + "\n".join(problems[:40])
    print(f"{label}: {len(expected)} rows, max |difference| {largest}")
    return largest


def differences(
    mart: pd.DataFrame,
    reference: pd.DataFrame,
    keys: list[str],
    numeric: list[str],
    exact: list[str] = (),  # type: ignore[assignment]
) -> dict:
    """Rows compared, rows on one side only, null and exact mismatches, largest differences.

    The relative difference is |difference| / max(1, |value|). Float keys named
    ``budget_share`` are rounded to 12 decimals; other keys compare as objects.
    """
    frames = []
    for frame in (mart, reference):
        frame = frame[[*keys, *numeric, *exact]].copy()
        for key in keys:
            if key == "budget_share":
                frame[key] = frame[key].astype(float).round(12)
            else:
                frame[key] = frame[key].astype(object)
        frames.append(frame)
    joined = frames[0].merge(
        frames[1], on=keys, how="outer", suffixes=("_dbt", "_ref"), indicator=True
    )
    matched = joined[joined["_merge"] == "both"]
    row = {
        "rows": len(matched),
        "only_dbt": int((joined["_merge"] == "left_only").sum()),
        "only_reference": int((joined["_merge"] == "right_only").sum()),
        "null_mismatches": 0,
        "exact_mismatches": 0,
        "max_abs": 0.0,
        "max_rel": 0.0,
        "worst": "",
    }
    for column in numeric:
        a, b = as_float(matched[f"{column}_dbt"]), as_float(matched[f"{column}_ref"])
        row["null_mismatches"] += int((np.isnan(a) != np.isnan(b)).sum())
        both = ~(np.isnan(a) | np.isnan(b))
        if not both.any():
            continue
        difference = np.abs(a[both] - b[both])
        relative = difference / np.maximum(1.0, np.maximum(np.abs(a[both]), np.abs(b[both])))
        row["max_abs"] = max(row["max_abs"], float(difference.max()))
        if relative.max() > row["max_rel"]:
            row["max_rel"], row["worst"] = float(relative.max()), column
    for column in exact:
        a = matched[f"{column}_dbt"].astype(object).where(matched[f"{column}_dbt"].notna())
        b = matched[f"{column}_ref"].astype(object).where(matched[f"{column}_ref"].notna())
        row["exact_mismatches"] += int((~((a == b) | (a.isna() & b.isna()))).sum())
    return row


def _objects(values: Iterable) -> list:
    """Python values with SQL nulls (None, NaN, pd.NA) as None."""
    out = []
    for value in values:
        if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
            out.append(None)
        else:
            out.append(value.item() if isinstance(value, np.generic) else value)
    return out


def assert_rows_match(
    label: str,
    actual: pd.DataFrame,
    expected: pd.DataFrame,
    keys: list[str],
    strings: list[str],
    integers: list[str],
    floats: list[str],
    atol: float = ATOL,
) -> dict[str, float]:
    """Same keys once each; strings and integers equal; floats within ``atol`` (nulls equal).

    Returns the largest absolute difference per float column.
    """
    actual = actual.set_index(keys)
    expected = expected.set_index(keys)
    assert not actual.index.duplicated().any(), f"{label}: duplicate keys in the model"
    only_model = sorted(set(actual.index) - set(expected.index), key=str)
    only_reference = sorted(set(expected.index) - set(actual.index), key=str)
    assert not only_model and not only_reference, (
        f"{label}: keys only in the model {only_model[:5]}, only in the reference "
        f"{only_reference[:5]}"
    )
    actual = actual.loc[expected.index]
    problems: list[str] = []
    largest: dict[str, float] = {}
    for column in strings + integers:
        for key, got, want in zip(
            expected.index, _objects(actual[column]), _objects(expected[column]), strict=True
        ):
            if column in integers and (got is None or int(got) != got):
                problems.append(f"{column} at {key}: model {got!r} is not an integer")
            elif got != want:
                problems.append(f"{column} at {key}: model {got!r}, reference {want!r}")
    for column in floats:
        largest[column] = 0.0
        for key, got, want in zip(
            expected.index, _objects(actual[column]), _objects(expected[column]), strict=True
        ):
            if got is None or want is None:
                if got is not want:
                    problems.append(f"{column} at {key}: model {got!r}, reference {want!r}")
                continue
            difference = abs(float(got) - float(want))
            largest[column] = max(largest[column], difference)
            if not difference <= atol:
                problems.append(f"{column} at {key}: model {got!r}, reference {want!r}")
    assert not problems, f"{label}: {len(problems)} differences\n" + "\n".join(problems[:20])
    return largest
