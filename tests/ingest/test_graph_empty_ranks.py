"""A ranks file with its header and no lines: refused, naming it, and never an abort at exit.

The abort was exit 134, "terminate called without an active exception", about 1 run in 20
under load: Arrow's CSV reader reads ahead on its own IO threads, and one of them could still
hold the Python stream (or a block read from it) when the process exited; freeing it needs the
GIL, which a thread cannot take once the interpreter finalizes. `ingest.graph_text` now waits,
before a read returns, until every Python object Arrow was handed is freed; and a header-only
ranks file is refused before any reader opens. The CLI runs below are subprocesses, as the
abort only shows at a real exit.
"""

from __future__ import annotations

import gc
import gzip
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from hostaware.paths import PROJECT
from ingest import graph_text
from ingest.lake import manifest_rows
from ingest.webgraph import EDGES, HOST_HEADER, RANKS, read_text_table
from tests.ingest.graph_files import RELEASE, _write

RUNS = 10


def _run(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *argv],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONFAULTHANDLER": "1"},
        check=False,
    )


def test_a_header_only_ranks_file_is_refused_by_the_cli_every_time(tmp_path: Path):
    ranks = _write(tmp_path / f"{RELEASE}-host-ranks.txt.gz", [HOST_HEADER])
    argv = ["-m", "ingest", "graph", "--release", RELEASE, "--ranks", str(ranks)]

    def once(run: int) -> subprocess.CompletedProcess:
        return _run(*argv, "--lake", str(tmp_path / f"lake{run}"))

    with ThreadPoolExecutor(2) as pool:  # two at a time: some load, as when it aborted
        runs = list(pool.map(once, range(RUNS)))
    for run in runs:
        assert (run.returncode, run.stdout) == (2, ""), run.stderr
        assert run.stderr == (
            f"python -m ingest graph: error: {ranks}: a ranks file with its header and no "
            "lines: a release's ranks list every host of its graph, so the file was cut short "
            "(download it again); nothing ingested\n"
        )
    for run in range(RUNS):
        assert manifest_rows(tmp_path / f"lake{run}", "host_ranks") == []
        assert not list((tmp_path / f"lake{run}").glob("host_ranks/*/*.parquet"))


# The case that aborted: a reader opened on a file with no lines, then a quick exit. The
# header check is bypassed so that the reader does open.
_OPEN_A_READER_ON_NO_LINES = """
import sys
from pathlib import Path
import ingest.graph_text
ingest.graph_text._check_header = lambda path, text_format: True
from ingest.webgraph import ingest_graph
(row,) = ingest_graph(sys.argv[1], Path(sys.argv[2]), ranks=Path(sys.argv[3]))
print(row["records_read"])
"""


def test_a_reader_on_a_file_without_lines_never_aborts_the_exit(tmp_path: Path):
    ranks = _write(tmp_path / "r.txt.gz", [HOST_HEADER])

    def once(run: int) -> subprocess.CompletedProcess:
        lake = tmp_path / f"lake{run}"
        return _run("-c", _OPEN_A_READER_ON_NO_LINES, RELEASE, str(lake), str(ranks))

    with ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(once, range(RUNS)))
    assert [(run.returncode, run.stdout) for run in runs] == [(0, "0\n")] * RUNS, [
        run.stderr for run in runs if run.returncode
    ]


def _handed_to_arrow() -> list[object]:
    gc.collect()
    return [
        thing
        for thing in gc.get_objects()
        if isinstance(thing, (graph_text._WatchedStream, graph_text._Utf8Replacing))
    ]


@pytest.mark.parametrize(
    ("lines", "text_format"),
    [
        ([], EDGES),  # no reader at all
        (["1\t9.0E6\t1\t0.2\tcom.a"], RANKS),  # the fast path
        (["1\t9.0E6\t1\t0.2\tcom..a", "2\t8.0E6\t2\t0.1\tcom.b"], RANKS),  # both paths
        (["1\t9.0E6\t1"], RANKS),  # a parse error on the fast path
    ],
)
def test_nothing_handed_to_arrow_outlives_a_read(tmp_path: Path, lines, text_format):
    header = [HOST_HEADER] if text_format is RANKS else []
    path = tmp_path / "f.txt.gz"
    path.write_bytes(gzip.compress("".join(f"{x}\n" for x in [*header, *lines]).encode()))
    assert _handed_to_arrow() == []
    read_text_table(path, text_format, lambda batch: None, lambda: None)
    assert _handed_to_arrow() == []
