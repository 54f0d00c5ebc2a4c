"""A warehouse's tables against the reference's Parquet output, compared inside DuckDB.

For tables too large for pandas merges (fct_host_crawls: 30M rows at paper scale): both sides
are selected with the same casts (keys as text, float keys rounded, numbers as doubles with
NaN as null, exact columns as text), joined on their keys, and summed up per check: rows on
one side only, nulls on one side, unequal exact columns, the largest absolute and relative
differences (|difference| / max(1, |value|)), with example rows.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["FLOAT_KEYS", "RELATIVE_TOLERANCE", "compare_parquet"]

FLOAT_KEYS = {"budget_share", "coverage_band_lower"}
RELATIVE_TOLERANCE = 1e-9  # a difference above this (relative) is shown as an example row


def _source(out: Path, table: str) -> str | None:
    """The reference's output of ``table``: a folder of Parquet files or one file."""
    folder, single = out / table, out / f"{table}.parquet"
    if folder.is_dir():
        return f"read_parquet('{folder}/*.parquet')"
    return f"read_parquet('{single}')" if single.exists() else None


def _select(relation: str, keys: list[str], numeric: list[str], exact: list[str]) -> str:
    """The compared columns of one side, selected from ``relation``.

    Keys as text (float keys rounded), numbers as doubles with NaN as null, the exact columns
    as text.
    """
    parts = [
        f"round({k}::double, 9) as {k}" if k in FLOAT_KEYS else f"{k}::varchar as {k}" for k in keys
    ]
    parts += [f"nullif({c}::double, 'nan'::double) as {c}" for c in numeric]
    parts += [f"{c}::varchar as {c}" for c in exact]
    return f"select {', '.join(parts)}, true as present from {relation}"


def _compare_table(
    connection,
    columns: tuple[list[str], list[str], list[str]],
    relation: str,
    source: str,
    row: dict,
    examples: int,
    partition: str | None,
) -> None:
    """Fill ``row`` with the comparison of one table (see ``compare_parquet``)."""
    keys, numeric, exact = columns
    dbt_columns = {name for name, *_ in connection.execute(f"describe {relation}").fetchall()}
    reference_columns = {
        name for name, *_ in connection.execute(f"describe select * from {source}").fetchall()
    }
    row["problems"] += [f"dbt lacks {c}" for c in [*keys, *numeric, *exact] if c not in dbt_columns]
    if any(key not in dbt_columns for key in keys):
        return
    numeric = [c for c in numeric if c in dbt_columns and c in reference_columns]
    exact = [c for c in exact if c in dbt_columns and c in reference_columns]
    key_list = ", ".join(keys)
    total, distinct = connection.execute(
        f"select count(*), count(distinct ({key_list})) from {relation}"
    ).fetchone()
    if total != distinct:
        row["problems"].append(f"dbt: {total - distinct:,} rows repeat a key ({key_list})")
    # a large table is joined one partition (crawl) at a time: a sixth of the memory
    values = [None]
    if partition:
        values = [
            value
            for (value,) in connection.execute(
                f"select {partition} from {relation} union select {partition} from {source}"
            ).fetchall()
        ]
    both = "d.present and p.present"
    checks = [  # (description, condition, columns to show in examples, what it measures)
        ("only in dbt", "p.present is null", [], "count"),
        ("only in the reference", "d.present is null", [], "count"),
    ]
    for c in numeric:
        relative = f"abs(d.{c} - p.{c}) / greatest(1, abs(d.{c}), abs(p.{c}))"
        checks += [
            (
                f"{c}: null on one side",
                f"{both} and (d.{c} is null) != (p.{c} is null)",
                [c],
                "count",
            ),
            (f"{c}: absolute difference", f"abs(d.{c} - p.{c})", [c], "max"),
            (f"{c}: relative difference", relative, [c], "max"),
        ]
    checks += [
        (f"{c}: unequal", f"{both} and d.{c} is distinct from p.{c}", [c], "count") for c in exact
    ]
    measures = ", ".join(
        f"count(*) filter (where {condition})" if kind == "count" else f"max({condition})"
        for _, condition, _, kind in checks
    )
    matched = f"count(*) filter (where {both})"
    totals = [0] * (len(checks) + 1)
    first_seen: dict[int, object] = {}  # check -> the partition where it first found something
    for value in values:
        where = "" if value is None else f" where {partition} = '{value}'"
        joined = (
            f"({_select(relation + where, keys, numeric, exact)}) as d full outer join "
            f"({_select(source + where, keys, numeric, exact)}) as p on "
            + " and ".join(f"d.{k} is not distinct from p.{k}" for k in keys)
        )
        found = connection.execute(f"select {matched}, {measures} from {joined}").fetchone()
        totals[0] += found[0]
        for index, (check, measure) in enumerate(zip(checks, found[1:], strict=True)):
            kind = check[3]
            measure = measure or 0
            totals[index + 1] = (
                totals[index + 1] + measure if kind == "count" else max(totals[index + 1], measure)
            )
            interesting = measure > (RELATIVE_TOLERANCE if "relative" in check[0] else 0)
            if interesting and "absolute" not in check[0] and index not in first_seen:
                first_seen[index] = joined
    row["rows"], row["only_dbt"], row["only_reference"] = totals[0], totals[1], totals[2]
    row.update(null_mismatches=0, exact_mismatches=0, max_abs=0.0, max_rel=0.0, worst="")
    for (description, _, columns, _), total in zip(checks[2:], totals[3:], strict=True):
        if description.endswith("null on one side"):
            row["null_mismatches"] += total
        elif description.endswith("unequal"):
            row["exact_mismatches"] += total
        elif description.endswith("absolute difference"):
            row["max_abs"] = max(row["max_abs"], total)
        elif total > row["max_rel"]:
            row["max_rel"], row["worst"] = total, columns[0]
    for index, joined in sorted(first_seen.items()):
        description, condition, columns, kind = checks[index]
        total = totals[index + 1]
        if kind == "max":
            condition = f"{condition} > {RELATIVE_TOLERANCE} order by {condition} desc"
            description += f" up to {total:.1e}"
        else:
            description = f"{description}: {total:,} rows"
        shown = [f"coalesce(d.{k}, p.{k})::varchar" for k in keys] + [
            f"coalesce(d.{c}::varchar, 'null') || ' | ' || coalesce(p.{c}::varchar, 'null')"
            for c in columns
        ]
        labels = [*keys, *[f"{c} (dbt | reference)" for c in columns]]
        rows = connection.execute(
            f"select {', '.join(shown)} from {joined} where {condition} limit {examples}"
        ).fetchall()
        row["examples"].append((description, [dict(zip(labels, r, strict=True)) for r in rows]))


def compare_parquet(
    warehouse: Path,
    out: Path,
    tables: dict[str, tuple[list[str], list[str], list[str]]],
    work: Path,
    partitions: dict[str, str] | None = None,
    examples: int = 3,
) -> list[dict]:
    """Each table of ``tables`` (name → keys, numeric and exact columns) against ``out``.

    Per table: rows on both sides, on one side only, null and exact mismatches, the largest
    absolute and relative differences, and a few example rows that differ. A table named in
    ``partitions`` is joined one value of that column at a time (less memory); DuckDB spills
    to ``work``.
    """
    import duckdb

    found = []
    spill = work / "duckdb-tmp"
    spill.mkdir(parents=True, exist_ok=True)
    with duckdb.connect() as connection:
        connection.execute(
            f"set threads = 2; set memory_limit = '6GB'; set temp_directory = '{spill}'"
        )
        connection.execute(f"attach '{warehouse}' as wh (read_only)")
        relations = dict(
            connection.execute(
                "select table_name, schema_name from duckdb_tables() where database_name = 'wh' "
                "union all select view_name, schema_name from duckdb_views() "
                "where database_name = 'wh' and not internal"
            ).fetchall()
        )
        for table, columns in tables.items():
            row: dict = {"table": table, "problems": [], "examples": []}
            found.append(row)
            source = _source(out, table)
            if table not in relations or source is None:
                row["problems"].append("not in the warehouse" if source else "no reference output")
                continue
            relation = f'wh."{relations[table]}"."{table}"'
            try:
                _compare_table(
                    connection,
                    columns,
                    relation,
                    source,
                    row,
                    examples,
                    (partitions or {}).get(table),
                )
            except duckdb.Error as error:  # a model whose columns drifted from the contract
                row.pop("rows", None)
                row["problems"].append(f"comparison failed: {str(error).splitlines()[0]}")
    return found
