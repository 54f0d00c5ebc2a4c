"""Running one ingest in-process and checking what it promises, whatever the input was.

* the exit status is 0, or 2 with one line ``python -m ingest <cmd>: error: ...`` on stderr;
* no traceback: an exception escaping ``ingest.__main__.main`` is one;
* the books balance: for every committed manifest row, read = written + rejected (and the
  reasons add up), every listed part exists with its recorded size, and the rows of its parts
  are the rows it says it wrote;
* the values in the lake are possible ones (finite numbers, scores in range, host keys that
  are host keys), checked here with rules of our own rather than the ingest's validators.
"""

from __future__ import annotations

import contextlib
import io
import logging
import math
import re
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow.parquet as pq

from ingest.__main__ import main

# A SURT host key: labels of letters, digits, '-' and '_' (lower case), joined by commas.
HOST_KEY = re.compile(r"[0-9a-z_-]{1,63}(,[0-9a-z_-]{1,63})*")
ERROR_LINE = re.compile(r"python -m ingest ([a-z-]+): error: (.+)")


@dataclass
class Outcome:
    """What one run of the command line did."""

    status: int
    stdout: str
    stderr: str
    traceback: str | None = None
    log_errors: list[str] = field(default_factory=list)


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def run(argv: list[str]) -> Outcome:
    """``python -m ingest <argv>`` in this process, with its output captured."""
    out, err = io.StringIO(), io.StringIO()
    handler = _Records()
    root = logging.getLogger()
    root.addHandler(handler)
    caught = None
    status = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(argv)
            except SystemExit as exit_:
                status = exit_.code if isinstance(exit_.code, int) else 2
            except BaseException:
                caught = traceback.format_exc()
                status = -1
    finally:
        root.removeHandler(handler)
    with_trace = [
        f"{record.getMessage()}\n{''.join(traceback.format_exception(*record.exc_info))}"
        for record in handler.records
        if record.exc_info
    ]
    return Outcome(status or 0, out.getvalue(), err.getvalue(), caught, with_trace)


def check_status(outcome: Outcome, command: str, names: list[str]) -> list[str]:
    """Problems with the exit status and the message (``names``: one must be named on error)."""
    problems = []
    if outcome.traceback is not None:
        last = outcome.traceback.strip().splitlines()[-1]
        problems.append(f"exception escaped main: {last}\n{outcome.traceback}")
        return problems
    if "Traceback (most recent call last)" in outcome.stderr:
        problems.append(f"traceback in stderr:\n{outcome.stderr[-3000:]}")
    for trace in outcome.log_errors:
        problems.append(f"traceback logged:\n{trace[-3000:]}")
    if outcome.status not in (0, 2):
        problems.append(f"exit status {outcome.status}: {outcome.stderr[-600:]!r}")
    if outcome.status == 2:
        lines = [line for line in outcome.stderr.splitlines() if ERROR_LINE.fullmatch(line)]
        if len(lines) != 1:
            problems.append(f"exit 2 without exactly one error line: {outcome.stderr[-800:]!r}")
        else:
            found = ERROR_LINE.fullmatch(lines[0])
            if found.group(1) != command:
                problems.append(f"error line names command {found.group(1)!r}: {lines[0]}")
            if names and not any(name in lines[0] for name in names):
                problems.append(f"error line names none of {names}: {lines[0]}")
    return problems


def manifest(lake: Path, table: str) -> list[dict]:
    """The committed manifest rows of a table, read without the ingest's code."""
    folder = lake / "_manifest" / table
    rows = []
    for path in sorted(folder.glob("*.parquet")) if folder.is_dir() else []:
        rows.extend(pq.read_table(path).to_pylist())
    return rows


def committed(
    lake: Path, table: str, part_table: str | None = None
) -> list[tuple[dict, list[dict]]]:
    """(manifest row, rows of its parts in ``part_table``) of every committed input."""
    found = []
    for row in manifest(lake, table):
        rows = []
        for relative in row["output_files"] or []:
            if part_table is None or relative.startswith(f"{part_table}/"):
                path = lake / relative
                if path.is_file():
                    partition = path.parent.name
                    name, _, value = partition.partition("=")
                    for landed in pq.read_table(path).to_pylist():
                        landed[name] = value
                        rows.append(landed)
        found.append((row, rows))
    return found


def books(lake: Path, table: str, groups: list[tuple[tuple[str, ...], int]]) -> list[str]:
    """Problems with the books of every committed input of a manifest table.

    ``groups``: the lake tables an input's parts are in, and how many rows they hold together
    per written record (documents: ``(("documents",), 1)`` and ``(("document_scores",), k)``
    for k classifiers; annotations: ``(("page_annotations", "host_annotations"), 1)``).
    """
    problems = []
    for row in manifest(lake, table):
        where = f"{table} manifest row of {row['source_file']}"
        reasons = dict(row["rejected_by_reason"] or [])
        if row["records_read"] != row["records_written"] + row["records_rejected"]:
            problems.append(
                f"{where}: read {row['records_read']} != written {row['records_written']} "
                f"+ rejected {row['records_rejected']}"
            )
        if sum(reasons.values()) != row["records_rejected"]:
            problems.append(
                f"{where}: reasons {reasons} do not add up to {row['records_rejected']}"
            )
        if any(count <= 0 for count in reasons.values()):
            problems.append(f"{where}: a reason counted {reasons}")
        sizes = row.get("output_sizes")
        counted: Counter[str] = Counter()
        for position, relative in enumerate(row["output_files"] or []):
            path = lake / relative
            if not path.is_file():
                problems.append(f"{where}: part {relative} is missing")
                continue
            if sizes is not None and sizes[position] != path.stat().st_size:
                problems.append(
                    f"{where}: part {relative} has {path.stat().st_size} bytes, "
                    f"the manifest says {sizes[position]}"
                )
            counted[relative.split("/", 1)[0]] += pq.ParquetFile(path).metadata.num_rows
        for tables, per_record in groups:
            landed = sum(counted[name] for name in tables)
            if landed != row["records_written"] * per_record:
                problems.append(
                    f"{where}: {landed} rows in {'/'.join(tables)} parts, "
                    f"{row['records_written'] * per_record} expected from records_written"
                )
    return problems


def leftovers(lake: Path) -> list[str]:
    """Temporary files a finished run left in the lake."""
    return [str(path.relative_to(lake)) for path in lake.rglob("*.tmp")] if lake.is_dir() else []


def _finite(value) -> bool:
    return value is None or (isinstance(value, int | float) and math.isfinite(value))


def value_problems(table: str, rows: list[dict]) -> list[str]:
    """Impossible values among the rows of a lake table."""
    problems = []

    def bad(row: dict, what: str) -> None:
        if len(problems) < 5:
            problems.append(f"{table}: {what} in {row!r}"[:600])

    for row in rows:
        host = row.get("surt_host_name")
        if host is not None and not HOST_KEY.fullmatch(host):
            bad(row, f"host key {host!r}")
        for name, value in row.items():
            if isinstance(value, float) and not math.isfinite(value):
                bad(row, f"{name} = {value}")
        if table == "documents":
            if not row["doc_id"] or not row["doc_id"].strip():
                bad(row, "empty doc_id")
            score = row["language_score"]
            if score is not None and not 0 <= score <= 1:
                bad(row, "language_score outside [0, 1]")
            if row["language"] is not None and not re.fullmatch(r"[a-z]{2,3}", row["language"]):
                bad(row, f"language {row['language']!r}")
        elif table == "document_scores":
            if not 0 <= row["score"] <= 1:
                bad(row, "score outside [0, 1]")
        elif table == "host_ranks":
            for name in ("hc_pos", "pr_pos"):
                if row[name] is not None and row[name] < 1:
                    bad(row, f"{name} < 1")
            for name in ("hc_val", "pr_val"):
                if row[name] is not None and row[name] < 0:
                    bad(row, f"{name} < 0")
        elif table in ("host_vertices", "host_edges"):
            for name in ("vertex_id", "from_vertex_id", "to_vertex_id"):
                if name in row and row[name] < 0:
                    bad(row, f"{name} < 0")
        elif table == "host_index":
            for name, value in row.items():
                if (name.startswith(("nutch_", "fetch_")) or name.endswith("rank")) and (
                    value is not None and value < 0
                ):
                    bad(row, f"{name} < 0")
            pct = row.get("fetch_200_lote_pct")
            if pct is not None and pct > 100:
                bad(row, "fetch_200_lote_pct > 100")
            fetched, known = row.get("nutch_fetched"), row.get("nutch_num_records")
            if fetched is not None and known is not None and fetched > known:
                bad(row, "nutch_fetched > nutch_num_records")
            lote, ok = row.get("fetch_200_lote"), row.get("fetch_200")
            if lote is not None and ok is not None and lote > ok:
                bad(row, "fetch_200_lote > fetch_200")
        elif table in ("page_annotations", "host_annotations"):
            for name in (
                "quality_score",
                "language_score",
                "medical_score",
                "education_score",
                "technology_score",
                "science_score",
            ):
                if row.get(name) is not None and not 0 <= row[name] <= 1:
                    bad(row, f"{name} outside [0, 1]")
            if row.get("quality_int_score") is not None and not 0 <= row["quality_int_score"] <= 5:
                bad(row, "quality_int_score outside 0-5")
            if table == "page_annotations" and not (row.get("page_key") or "").strip():
                bad(row, "empty page_key")
    return problems
