"""One writer per lake table folder: the ``flock`` an ingest holds on every table it writes.

Part of the lake's write protocol (:mod:`ingest.lake`). Leftovers of interrupted runs are
removed only under the lock, so an ingest never deletes another's temporary files.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from ingest.lake_books import LakeError

__all__ = ["table_lock"]

log = logging.getLogger(__name__)


@contextlib.contextmanager
def table_lock(lake: Path, tables: Iterable[str]) -> Iterator[None]:
    """Hold the write lock of the given table folders (a second ingest of them waits).

    The locks are ``flock``s on ``<lake>/_locks/<table>.lock``, taken in name order (two
    ingests that share tables cannot deadlock); the kernel releases them when the process ends,
    so a killed ingest never leaves a stale lock. The file holds the holder's pid, for the
    message a waiting ingest logs.

    Raises:
        LakeError: when the lake cannot be written (read-only, not a folder).
    """
    handles: list[int] = []
    try:
        folder = lake / "_locks"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            for table in sorted(set(tables)):
                path = folder / f"{table}.lock"
                handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
                handles.append(handle)
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    holder = os.pread(handle, 32, 0).decode(errors="replace").strip() or "?"
                    log.warning(
                        "another ingest (pid %s) is writing lake table %s; waiting for it",
                        holder,
                        table,
                    )
                    fcntl.flock(handle, fcntl.LOCK_EX)
                os.ftruncate(handle, 0)
                os.pwrite(handle, f"{os.getpid()}\n".encode(), 0)
        except OSError as error:
            raise LakeError(f"cannot write to the lake {lake}: {error.strerror or error}") from None
        yield
    finally:
        for handle in handles:
            os.close(handle)
