"""Whether a process is alive.

How the ingest and the plan tell a dead writer's leftovers (a ``.empty.<pid>.tmp`` schema file,
a ``hostaware-plan-<pid>-...`` scratch folder) from the files of one still running.
"""

from __future__ import annotations

import os

__all__ = ["is_running"]


def is_running(pid: int) -> bool:
    """Whether a process has this pid (one of another user's counts: it cannot be signalled)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
