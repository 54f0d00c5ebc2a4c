"""Worker processes for the ingests: one job per input file, workers that die with the ingest.

Part of the lake's write protocol (:mod:`ingest.lake`): :func:`map_files` runs jobs that each
ingest and commit one file; :func:`worker_pool` is every ingest's pool of forked workers (the
document ingest's too), each dying with the ingest (:func:`die_with_parent`);
:func:`files_failed` is the one message naming the files refused.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor

from ingest.lake_books import LakeError

__all__ = ["die_with_parent", "files_failed", "map_files", "worker_pool"]

# Default cap on file workers: each holds a few record batches in flight (~0.3 GB with the
# host index's 256k-row batches), so the default stays far below 4 GB on big machines.
_DEFAULT_WORKERS_MAX = 4

_PR_SET_PDEATHSIG = 1  # prctl(2) option: the signal a process gets when its parent dies


def die_with_parent() -> None:
    """Make this (forked worker) process be killed when its parent dies, however it dies.

    On Linux the kernel sends SIGKILL (``prctl(PR_SET_PDEATHSIG)``); a parent that died before
    this call is caught by its pid having changed. Elsewhere it does nothing.
    """
    parent = os.getppid()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent or parent == 1:
        os._exit(1)


def worker_pool(
    workers: int, initializer: Callable[..., None] = die_with_parent, initargs: tuple = ()
) -> ProcessPoolExecutor:
    """``workers`` forked processes that die with the ingest; ``initializer`` sets each up.

    Forked (Arrow re-creates its thread pools after a fork), so a calling script needs no
    ``if __name__ == "__main__"`` guard. An ``initializer`` other than :func:`die_with_parent`
    must call it first.
    """
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("fork"),
        initializer=initializer,
        initargs=initargs,
    )


def map_files(function: Callable[..., dict], jobs: list[tuple], workers: int | None) -> list[dict]:
    """``function(*job)`` for every job, in worker processes when there are several files.

    ``workers`` defaults to one per core, at most four.

    Each job ingests and commits one input file on its own, so files are independent: every
    job runs even when another fails, results come back in job order, and when files failed a
    :class:`LakeError` names each of them once all jobs are done (the others stay committed).
    A job's first item is its input file: a file that could not be read or written (an
    ``OSError``: the lake full or read-only, say) fails with a message naming it.
    Workers are :func:`worker_pool`'s, as for the document ingest: forked, dying with the
    ingest.
    """
    count = max(1, min(workers or min(os.cpu_count() or 1, _DEFAULT_WORKERS_MAX), len(jobs)))
    results: list[dict] = []
    failures: list[str] = []

    def collect(job: tuple, outcome: Callable[[], dict]) -> None:
        try:
            results.append(outcome())
        except LakeError as error:
            failures.append(str(error))
        except OSError as error:
            failures.append(_os_failure(job[0], error))

    if count == 1:
        for job in jobs:
            collect(job, lambda job=job: function(*job))
    else:
        with worker_pool(count) as pool:
            for job, future in [(job, pool.submit(function, *job)) for job in jobs]:
                collect(job, future.result)
    if failures:
        raise LakeError(files_failed(failures, len(jobs)))
    return results


def _os_failure(path: object, error: OSError) -> str:
    """The message of an input file whose ingest met an ``OSError``, naming the file first."""
    where = f" ({error.filename})" if error.filename and str(error.filename) != str(path) else ""
    return f"{path}: {error.strerror or error}{where}"


def files_failed(failures: Sequence[str], files: int) -> str:
    """One message for the files an ingest refused (each named by its own error)."""
    if len(failures) == 1:
        return failures[0]
    return f"{len(failures)} of {files} files refused: " + "; ".join(failures)
