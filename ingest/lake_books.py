"""An ingest's books and its one error type, shared by every ingest (part of :mod:`ingest.lake`).

:class:`IngestReport` counts what reading one input file found: records read = written +
rejected, by reason, with the values nulled and the schema drift met; its numbers become the
file's manifest row. :class:`LakeError` is the error of an ingest that cannot start or finish;
``python -m ingest`` prints it as one line.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ingest.reasons import is_registered

__all__ = ["IngestReport", "LakeError"]

_EXAMPLES = 10  # rejected records kept verbatim in the manifest, per file


class LakeError(RuntimeError):
    """An ingest that cannot start or finish: bad arguments, unreadable input, too many rejects."""


def _check_registered(reason: str, kind: str) -> None:
    """Refuse a reason :mod:`ingest.reasons` does not list (a bug, never bad input)."""
    if not is_registered(reason, kind):
        raise LakeError(
            f"a bug: {kind} reason {reason!r} is not registered in ingest/reasons.py "
            "(register it there and list it in docs/formats.md)"
        )


@dataclass
class IngestReport:
    """What reading one input file found: records read = written + rejected, by reason."""

    path: Path
    read: int = 0
    written: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)  # "file:where: reason: text", the first few
    nulled: Counter[str] = field(default_factory=Counter)  # values nulled in written records
    drift: list[str] = field(default_factory=list)  # schema differences met and how they were read

    def reject(self, reason: str, where: str | int, text: str, count: int = 1) -> None:
        """Count rejected records (keeping the first few verbatim as examples).

        Args:
            reason: a short snake_case reason (``malformed_hc_val``).
            where: the line number or record position in the file.
            text: the record as read (shortened).
            count: how many records this call rejects (one example is kept).
        """
        _check_registered(reason, "rejected")
        self.rejected[reason] += count
        if len(self.examples) < _EXAMPLES:
            self.examples.append(f"{self.path}:{where}: {reason}: {text[:160]!r}")

    def null(self, reason: str, where: str | int, text: str, count: int = 1) -> None:
        """Count values set to null in records that are still written (a NaN rank, say).

        Args:
            reason: a short snake_case reason (``non_finite_hc_val``).
            where: the line number or record position in the file.
            text: the value or record as read (shortened).
            count: how many values this call nulls (one example is kept).
        """
        _check_registered(reason, "nulled")
        self.nulled[reason] += count
        if len(self.examples) < _EXAMPLES:
            self.examples.append(f"{self.path}:{where}: {reason} (nulled): {text[:160]!r}")

    def reject_rows(
        self,
        reasons: Iterable[tuple[str, np.ndarray]],
        first_row: int,
        describe: Callable[[int], str],
    ) -> None:
        """Count the rows of a batch each boolean mask marks, keeping three examples per reason.

        Args:
            reasons: (reason, mask over the batch's rows) pairs; masks should not overlap.
            first_row: the file position of the batch's first row.
            describe: the text of the example kept for a row (its index in the batch).
        """
        for reason, mask in reasons:
            _check_registered(reason, "rejected")
            rows = np.flatnonzero(mask)
            for row in rows[:3].tolist():
                self.reject(reason, f"row {first_row + row}", describe(row))
            if rows.size > 3:
                self.rejected[reason] += int(rows.size - 3)

    @property
    def rejected_count(self) -> int:
        """All rejected records."""
        return sum(self.rejected.values())

    def check(self, max_reject_rate: float) -> None:
        """Raise :class:`LakeError` when the books do not balance or too much was rejected."""
        if self.read != self.written + self.rejected_count:
            raise LakeError(
                f"{self.path}: read {self.read:,} != written {self.written:,} + rejected "
                f"{self.rejected_count:,} (a bug: every record must be written or rejected)"
            )
        if self.read and self.rejected_count / self.read > max_reject_rate:
            raise LakeError(
                f"{self.path}: {self.rejected_count:,} of {self.read:,} records rejected (more "
                f"than --max-reject-rate {max_reject_rate:.2%}); first: "
                + "; ".join(self.examples[:3])
            )
