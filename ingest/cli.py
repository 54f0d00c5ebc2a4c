"""What the command lines (``python -m ingest``, ``python -m demo``) share: one-line errors."""

from __future__ import annotations

import argparse
from typing import NoReturn

__all__ = ["OneLineParser", "non_negative"]


def non_negative(text: str) -> int:
    """An argparse type: an integer >= 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (``prog: error: message``), exit code 2."""

    def error(self, message: str) -> NoReturn:
        """Print ``message`` as one line and exit with status 2 (not argparse's usage text)."""
        self.exit(2, f"{self.prog}: error: {message}\n")
