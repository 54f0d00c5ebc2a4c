"""Reading Common Crawl's host-level web-graph ranks files, streamed (FORMATS.md §1.4).

``<release>-host-ranks.txt.gz``: gzip, one ``#``-prefixed TAB header line, then
``harmonicc_pos, harmonicc_val, pr_pos, pr_val, host_rev`` per row. Values are Java
``Float``/``Double.toString`` text (``3.4626736E7``, ``3.79E-4``), which DOUBLE parsing reads as
it is; the older join path writes ``---`` for a missing value (read as null). A domain-level
file has a sixth column, ``#n_hosts``.

The file is read in blocks by Arrow's CSV reader with every column as text, then each column is
checked against its pattern: a row that does not fit is rejected with its line number, not
dropped silently, and the batch keeps only rows that fit.
"""

from __future__ import annotations

import gzip
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
from pyarrow import csv

__all__ = ["HOST_HEADER", "RanksError", "RanksReport", "read_ranks"]

HOST_HEADER = "#harmonicc_pos\t#harmonicc_val\t#pr_pos\t#pr_val\t#host_rev"
DOMAIN_HEADER = HOST_HEADER + "\t#n_hosts"
_NAMES = ("hc_pos", "hc_val", "pr_pos", "pr_val", "host_rev")
_POSITION = r"^([1-9][0-9]*|---)$"
_JAVA_NUMBER = r"^(-?[0-9]+\.[0-9]+(E-?[0-9]+)?|NaN|-?Infinity|---)$"
_HOST = r"^[a-z0-9_-]+(\.[a-z0-9_-]+)*$"

RANKS_BATCH = pa.schema(
    [
        pa.field("surt_host_name", pa.string(), nullable=False),
        pa.field("hc_pos", pa.int64()),
        pa.field("hc_val", pa.float64()),
        pa.field("pr_pos", pa.int64()),
        pa.field("pr_val", pa.float64()),
    ]
)


class RanksError(ValueError):
    """A ranks file that cannot be read as one (wrong header, too many bad rows)."""


@dataclass
class RanksReport:
    """What reading one ranks file found."""

    path: Path
    read: int = 0
    written: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)  # "line N: reason: text", the first few

    def reject(self, reason: str, line: int, text: str) -> None:
        """Count one rejected line (and keep the first ten as examples)."""
        self.rejected[reason] += 1
        if len(self.examples) < 10:
            self.examples.append(f"{self.path}:{line}: {reason}: {text[:120]!r}")


def _check_header(path: Path) -> int:
    with gzip.open(path, "rt", encoding="utf-8", newline="") as handle:
        header = handle.readline().rstrip("\r\n")
    if header == HOST_HEADER:
        return 5
    if header == DOMAIN_HEADER:
        return 6
    raise RanksError(f"{path}:1: not a Common Crawl ranks header: {header[:120]!r}")


def read_ranks(
    path: Path, max_reject_rate: float = 0.001, block_size: int = 1 << 24
) -> Iterator[tuple[pa.RecordBatch, RanksReport]]:
    """Stream a ranks file as batches of ``RANKS_BATCH`` rows (hosts as SURT keys).

    Yields each batch with the running report. Raises :class:`RanksError` for a wrong header,
    and, at the end, when more than ``max_reject_rate`` of the rows were rejected.
    """
    width = _check_header(path)
    report = RanksReport(path)
    names = [*_NAMES, "n_hosts"][:width]
    extra: list[tuple[int, str]] = []

    def wrong_width(row: csv.InvalidRow) -> str:
        extra.append((row.number or 0, row.text))
        return "skip"

    reader = csv.open_csv(
        pa.input_stream(str(path), compression="gzip"),
        read_options=csv.ReadOptions(
            skip_rows=1, column_names=names, block_size=block_size, use_threads=False
        ),
        parse_options=csv.ParseOptions(
            delimiter="\t", quote_char=False, double_quote=False, invalid_row_handler=wrong_width
        ),
        convert_options=csv.ConvertOptions(
            column_types=dict.fromkeys(names, pa.string()), strings_can_be_null=False
        ),
    )
    line = 2  # the first data line of the file
    for batch in reader:
        skipped = sorted(number for number, _ in extra if number)
        for number, text in extra:
            report.read += 1
            report.reject("wrong_column_count", number or line, text)
        extra.clear()
        rows = batch.num_rows

        def line_of(index: int, first: int = line, skipped: list[int] = skipped) -> int:
            """The file line of the batch's row ``index`` (rows skipped above it counted)."""
            number = first + index
            for skipped_line in skipped:
                if skipped_line <= number:
                    number += 1
            return number

        report.read += rows
        checks = [
            pc.match_substring_regex(batch.column("hc_pos"), _POSITION),
            pc.match_substring_regex(batch.column("hc_val"), _JAVA_NUMBER),
            pc.match_substring_regex(batch.column("pr_pos"), _POSITION),
            pc.match_substring_regex(batch.column("pr_val"), _JAVA_NUMBER),
            pc.match_substring_regex(batch.column("host_rev"), _HOST),
        ]
        valid = checks[0]
        for check in checks[1:]:
            valid = pc.and_(valid, check)
        if not pc.all(valid).as_py():
            bad = pc.invert(valid).to_numpy(zero_copy_only=False).nonzero()[0]
            columns = [batch.column(name).to_pylist() for name in names]
            for index in bad.tolist():
                fields = [column[index] for column in columns]
                failing = [n for n, c in zip(_NAMES, checks, strict=True) if not c[index].as_py()]
                report.reject(f"malformed_{failing[0]}", line_of(index), "\t".join(fields))
            batch = batch.filter(valid)
        line += rows + len(skipped)
        report.written += batch.num_rows

        def number(name: str, kind: pa.DataType, batch: pa.RecordBatch = batch) -> pa.Array:
            text = batch.column(name)
            return pc.cast(pc.if_else(pc.equal(text, "---"), None, text), kind)

        yield (
            pa.RecordBatch.from_arrays(
                [
                    pc.replace_substring(batch.column("host_rev"), ".", ","),
                    number("hc_pos", pa.int64()),
                    number("hc_val", pa.float64()),
                    number("pr_pos", pa.int64()),
                    number("pr_val", pa.float64()),
                ],
                schema=RANKS_BATCH,
            ),
            report,
        )
    for number_, text in extra:
        report.read += 1
        report.reject("wrong_column_count", number_ or line, text)
    rejected = sum(report.rejected.values())
    if report.read and rejected / report.read > max_reject_rate:
        raise RanksError(
            f"{path}: {rejected:,} of {report.read:,} rows rejected (more than "
            f"{max_reject_rate:.2%}); first: {'; '.join(report.examples[:3])}"
        )
