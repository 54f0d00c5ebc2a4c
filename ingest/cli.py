"""The command-line pieces ``python -m ingest`` shares with the other commands.

They live in :mod:`hostaware.cli` (one copy for ``ingest``, ``plan`` and ``demo``); this module
only re-exports the two names ``demo/__main__.py`` imports from here, so that import keeps
working until it imports :mod:`hostaware.cli` itself.
"""

from __future__ import annotations

from hostaware.cli import OneLineParser, non_negative

__all__ = ["OneLineParser", "non_negative"]
