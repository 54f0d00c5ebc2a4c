"""What the command lines (``python -m ingest``, ``python -m plan``, ``python -m demo``) share.

Standard library only (``ingest`` imports it): :class:`OneLineParser`, whose errors are one
line (``prog: error: message``, exit status 2), the argument types the commands check
their numbers with (:func:`non_negative`, :func:`positive`, :func:`share`), and
:func:`unwritable_folder`, the check of an ``--out`` before any work.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import NoReturn

__all__ = ["OneLineParser", "non_negative", "positive", "share", "unwritable_folder"]


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (``prog: error: message``), exit code 2."""

    def error(self, message: str) -> NoReturn:
        """Print ``message`` as one line and exit with status 2 (not argparse's usage text)."""
        self.exit(2, f"{self.prog}: error: {message}\n")


def _integer_at_least(text: str, minimum: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
    return value


def non_negative(text: str) -> int:
    """An argparse type: an integer >= 0."""
    return _integer_at_least(text, 0)


def positive(text: str) -> int:
    """An argparse type: an integer >= 1."""
    return _integer_at_least(text, 1)


def share(text: str) -> float:
    """An argparse type: a number in [0, 1]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in [0, 1], got {value}")
    return value


def unwritable_folder(folder: Path) -> str | None:
    """Why files cannot be written in ``folder`` (made first when missing), or None when they can.

    The nearest folder that exists (``folder`` or a parent) must be a folder in which a file
    can be created: that is tried, with a temporary file removed at once, since file modes do
    not tell (root passes every mode check, ``/proc`` and read-only mounts refuse anyway).
    """
    existing = folder.absolute()
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        return f"{existing} is not a folder"
    try:
        with tempfile.NamedTemporaryFile(dir=existing, prefix=".hostaware-probe-"):
            pass
    except OSError as error:
        return f"cannot write in {existing}: {error.strerror or error}"
    return None
