"""Faults against every ingest (issue 17): SIGKILL at each step of the lake protocol then a
rerun, two ingests at once, a read-only lake, a part deleted behind the manifest, a file
ingested again under another crawl, one content under two names, workers outliving a killed
parent.

Kills are exact: ``tests/ingest/fuzz/killer.py`` wraps ``os.replace`` (every publish and commit of
the lake protocol is a rename) and SIGKILLs the ingest before or after its N-th rename. What a
rerun leaves is compared with a clean run through the committed parts only (the manifest rows
and the parts their ``output_files`` list), as staging reads the lake.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.fixtures.crawls import REAL_DATA, Crawl
from tests.fixtures.processes import alive
from tests.ingest.fuzz.oracle import ERROR_LINE, books, committed, leftovers, manifest, run

REPO = Path(__file__).resolve().parents[2]
KILLER = REPO / "tests" / "ingest" / "fuzz" / "killer.py"
REGISTRY = REPO / "seeds" / "classifier_registry.csv"
FIXTURES = REPO / "tests" / "fixtures" / "real"
CRAWL = "CC-MAIN-2024-10"
RELEASE = "cc-main-2024-nov-feb-apr"
TABLES = {
    "documents": ["documents"],
    "graph": ["host_ranks", "host_vertices", "host_edges"],
    "host-index": ["host_index"],
    "annotations": ["page_annotations", "host_annotations"],
    "scores": ["document_scores"],
}


@pytest.fixture(scope="module")
def raw(dclm_demo_raw: Path) -> Path:
    """A raw folder holding the demo classifier dclm_demo, trained on the tiny corpus."""
    return dclm_demo_raw


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seed registry's dclm_demo row and one precomputed classifier (for ``scores``)."""
    path = tmp_path_factory.mktemp("faults-registry") / "registry.csv"
    with REGISTRY.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    header = list(rows[0])
    precomputed = dict.fromkeys(header, "")
    precomputed.update(
        classifier="prob_model", style="test", kind="quality", score_transform="precomputed",
        score_scale="1", hq_threshold="0.5", is_english_trained="true",
    )  # fmt: skip
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, header, lineterminator="\n")
        writer.writeheader()
        writer.writerows([row for row in rows if row["classifier"] == "dclm_demo"] + [precomputed])
    return path


def _inputs(kind: str, tiny_crawl: Crawl, folder: Path) -> list[str]:
    """The arguments (after the lake) of one small ingest of each kind, inputs copied."""
    folder.mkdir(parents=True, exist_ok=True)
    if kind == "documents":
        files = [shutil.copy(REAL_DATA / "warcio-examples" / "example.warc.gz", folder),
                 shutil.copy(FIXTURES / "whirlwind" / "whirlwind.warc.gz", folder)]  # fmt: skip
        return ["--crawl", CRAWL, "--allow-crawl-mismatch", "--workers", "1", "--warc", *files]
    if kind == "graph":
        source = tiny_crawl.root / "webgraph" / RELEASE
        files = {name: shutil.copy(source / f"{RELEASE}-host-{name}.txt.gz", folder)
                 for name in ("ranks", "vertices", "edges")}  # fmt: skip
        return ["--release", RELEASE, "--ranks", files["ranks"], "--vertices", files["vertices"],
                "--edges", files["edges"]]  # fmt: skip
    if kind == "host-index":
        for crawl in ("CC-MAIN-2024-10", "CC-MAIN-2023-50"):
            target = folder / f"crawl={crawl}"
            target.mkdir()
            shutil.copy(tiny_crawl.root / "host-index" / f"crawl={crawl}" / "part-00000.parquet",
                        target)  # fmt: skip
        return ["--workers", "1", "--path", str(folder)]
    if kind == "annotations":
        for level in ("hosts", "urls"):
            target = folder / level / f"crawl={CRAWL}"
            target.mkdir(parents=True)
            shutil.copy(
                tiny_crawl.root / "gneissweb-annotations" / level / f"crawl={CRAWL}"
                / "part-00000.parquet", target,
            )  # fmt: skip
        return ["--workers", "1", "--path", str(folder)]
    raise AssertionError(kind)


def _scores_lake(raw: Path, registry: Path, tiny_crawl: Crawl, folder: Path) -> tuple[Path, list]:
    """A lake with documents committed, and the arguments of a scores ingest of two files."""
    lake = folder / "base-lake"
    args = _inputs("documents", tiny_crawl, folder / "docs")
    outcome = run(["documents", "--lake", str(lake), "--raw", str(raw), "--registry",
                   str(registry), "--classifiers", "dclm_demo", *args])  # fmt: skip
    assert outcome.status == 0, outcome.stderr
    ids = [row["doc_id"] for _, rows in committed(lake, "documents", "documents") for row in rows]
    files = []
    for number, chunk in enumerate((ids[::2], ids[1::2])):
        path = folder / f"scores-{number}.parquet"
        pq.write_table(pa.table({"doc_id": chunk, "score": [0.25 + number / 2] * len(chunk)}), path)
        files.append(str(path))
    return lake, ["--classifier", "prob_model", "--crawl", CRAWL, "--registry", str(registry),
                  "--path", *files]  # fmt: skip


def _argv(kind: str, lake: Path, args: list, raw: Path, registry: Path) -> list[str]:
    extra = ["--raw", str(raw), "--registry", str(registry), "--classifiers", "dclm_demo"]
    return [kind, "--lake", str(lake), *(extra if kind == "documents" else []), *map(str, args)]


def _popen(argv: list[str], stderr: Path | None = None, **env: str) -> subprocess.Popen:
    """Start ``python -m ingest`` under the killer; ``stderr``: a file its errors go to (that
    a test can read while it runs), else a pipe."""
    with contextlib.ExitStack() as stack:
        errors = stack.enter_context(stderr.open("w")) if stderr else subprocess.PIPE
        process = subprocess.Popen(
            [sys.executable, str(KILLER), *argv],
            cwd=REPO,
            env={**os.environ, **env},
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
            start_new_session=True,
        )
    process.stderr_path = stderr  # read by _finish
    return process


def _finish(process: subprocess.Popen, timeout: float = 300) -> tuple[int, str]:
    """Wait for the ingest, then kill what is left of its process group (workers it left)."""
    try:
        process.wait(timeout=timeout)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    _, stderr = process.communicate(timeout=30)
    if getattr(process, "stderr_path", None) is not None:
        stderr = process.stderr_path.read_text()
    return process.returncode, stderr


def _wait_until(condition, process: subprocess.Popen, what: str, timeout: float = 120) -> None:
    """Poll ``condition()`` until it holds: a signal from ``process``, never a fixed sleep."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert process.poll() is None, f"ended before {what}: {_finish(process)}"
        assert time.monotonic() < deadline, f"not {what} within {timeout:.0f} s"
        time.sleep(0.02)


def content(lake: Path, kind: str) -> dict:
    """What staging would read: committed rows per table, and the manifest's books."""
    found = {}
    for table in TABLES[kind]:
        found[table] = sorted(

                (row["source_sha256"], row["records_read"], row["records_written"],
                 tuple(sorted(dict(row["rejected_by_reason"] or []).items())))
                for row in manifest(lake, table)

        )  # fmt: skip
        for part_table in {relative.split("/", 1)[0] for row in manifest(lake, table)
                           for relative in row["output_files"] or []}:  # fmt: skip
            found[f"{table}:{part_table}"] = sorted(
                repr(sorted(landed.items()))
                for _, rows in committed(lake, table, part_table)
                for landed in rows
            )
    return found


def _check_books(lake: Path, kind: str) -> None:
    for table in TABLES[kind]:
        groups = (
            [(("documents",), 1), (("document_scores",), 1)]
            if kind == "documents"
            else [((table,), 1)]
        )
        assert books(lake, table, groups) == []


@pytest.mark.parametrize("kind", ["documents", "graph", "host-index", "annotations", "scores"])
def test_sigkill_at_every_protocol_step_then_rerun_equals_a_clean_run(
    kind: str, raw: Path, registry: Path, tiny_crawl: Crawl, tmp_path: Path
):
    if kind == "scores":
        base, args = _scores_lake(raw, registry, tiny_crawl, tmp_path)
    else:
        base, args = None, _inputs(kind, tiny_crawl, tmp_path / "in")

    def fresh(name: str) -> Path:
        lake = tmp_path / name / "lake"
        if base is not None:
            shutil.copytree(base, lake)
        else:
            lake.parent.mkdir(parents=True)
        return lake

    clean = fresh("clean")
    count_file = tmp_path / "renames"
    status, stderr = _finish(
        _popen(_argv(kind, clean, args, raw, registry), HOSTAWARE_KILL_COUNT=str(count_file))
    )
    assert status == 0, stderr
    renames = int(count_file.read_text())
    assert renames >= 4, f"{kind}: {renames} renames: fewer than two files' part + manifest"
    expected = content(clean, kind)
    points = [(n, "before") for n in range(1, renames + 1)] + [(renames, "after")]
    for at, when in points:
        lake = fresh(f"kill-{at}-{when}")
        argv = _argv(kind, lake, args, raw, registry)
        status, stderr = _finish(_popen(argv, HOSTAWARE_KILL_AT=str(at), HOSTAWARE_KILL_WHEN=when))
        assert status == -signal.SIGKILL, f"{kind}: not killed at rename {at} ({when}): {stderr}"
        status, stderr = _finish(_popen(argv))
        assert status == 0, f"{kind}: rerun after a kill {when} rename {at}: {stderr}"
        assert content(lake, kind) == expected, f"{kind}: killed {when} rename {at}, then rerun"
        assert leftovers(lake) == [], f"{kind}: killed {when} rename {at}, then rerun"
        _check_books(lake, kind)


def _error_line(stderr: str, command: str) -> str:
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if ERROR_LINE.fullmatch(line)]
    assert len(lines) == 1, stderr
    assert lines[0].startswith(f"python -m ingest {command}: error: "), lines[0]
    return lines[0]


@pytest.mark.parametrize("same_files", [True, False], ids=["same_files", "different_files"])
def test_two_ingests_of_one_table_at_once_end_as_one_run(
    same_files: bool, tiny_crawl: Crawl, raw: Path, registry: Path, tmp_path: Path
):
    files = sorted((tiny_crawl.root / "host-index").glob("crawl=*/part-*.parquet"))
    work = tmp_path / "in"
    copies = []
    for path in files:
        target = work / path.parent.name / path.name
        target.parent.mkdir(parents=True)
        copies.append(str(shutil.copy(path, target)))
    first = copies if same_files else copies[::2]
    second = copies if same_files else copies[1::2]
    clean = tmp_path / "clean"
    outcome = run(["host-index", "--lake", str(clean), "--workers", "1", "--path", *copies])
    assert outcome.status == 0, outcome.stderr
    lake = tmp_path / "lake"
    runs = [
        _popen(["host-index", "--lake", str(lake), "--workers", "1", "--path", *paths])
        for paths in (first, second)
    ]
    results = [_finish(process) for process in runs]
    assert [status for status, _ in results] == [0, 0], results
    assert content(lake, "host-index") == content(clean, "host-index")
    assert leftovers(lake) == []


def test_a_second_ingest_waits_and_never_deletes_the_first_ones_files(
    tiny_crawl: Crawl, tmp_path: Path
):
    """Finding 10: with the first ingest paused half-way (a part written under its temporary
    name, not yet renamed), a second ingest of the same table used to remove that file as a
    leftover, and the first then died. Now the second waits for the first's lock."""
    files = sorted((tiny_crawl.root / "host-index").glob("crawl=*/part-*.parquet"))
    clean = tmp_path / "clean"
    everything = ["host-index", "--lake", str(clean), "--workers", "1", "--path"]
    assert run([*everything, *map(str, files)]).status == 0
    lake = tmp_path / "lake"
    paused, resume = tmp_path / "paused", tmp_path / "resume"
    argv = ["host-index", "--lake", str(lake), "--workers", "1", "--path"]
    first = _popen(
        [*argv, *map(str, files[::2])],
        HOSTAWARE_PAUSE_AT="1",
        HOSTAWARE_PAUSED=str(paused),
        HOSTAWARE_RESUME=str(resume),
    )
    try:
        _wait_until(paused.exists, first, "paused")
        temporary = Path(paused.read_text())
        assert temporary.name.startswith(".part-") and temporary.is_file()
        log = tmp_path / "second.log"
        second = _popen([*argv, *map(str, files[1::2])], stderr=log)
        # The second says when it reaches the first one's lock: wait for that, not for a time.
        _wait_until(lambda: "waiting for it" in log.read_text(), second, "waiting for the lock")
        assert temporary.is_file(), "the second ingest deleted the first one's temporary part"
        assert second.poll() is None, "the second ingest did not wait for the first"
    finally:
        resume.write_text("go")
    results = [_finish(first), _finish(second)]
    assert [status for status, _ in results] == [0, 0], results
    assert content(lake, "host-index") == content(clean, "host-index")
    assert leftovers(lake) == []


def _immutable(lake: Path, on: bool) -> bool:
    """Make the lake read-only even for root (chattr +i), or writable again."""
    if os.geteuid() != 0:
        for path in [lake, *lake.rglob("*")]:
            path.chmod(path.stat().st_mode & ~0o222 if on else path.stat().st_mode | 0o200)
        return True
    result = subprocess.run(["chattr", "-R", "+i" if on else "-i", str(lake)], capture_output=True)
    return result.returncode == 0


def test_a_read_only_lake_gives_a_one_line_error(tiny_crawl: Crawl, tmp_path: Path):
    args = _inputs("graph", tiny_crawl, tmp_path / "in")
    lake = tmp_path / "lake"
    argv = _argv("graph", lake, args, tmp_path, tmp_path)
    assert run(argv).status == 0
    if not _immutable(lake, True):
        pytest.skip("cannot make a folder read-only here (chattr +i refused)")
    try:
        for again in (argv, _argv("graph", lake, args[:4], tmp_path, tmp_path)):
            status, stderr = _finish(_popen(again))  # nothing new to do, then a subset
            assert status == 2, stderr
            _error_line(stderr, "graph")
        status, stderr = _finish(
            _popen(
                [
                    "host-index",
                    "--lake",
                    str(lake),
                    "--crawl",
                    CRAWL,
                    "--path",
                    str(tiny_crawl.root / "host-index" / f"crawl={CRAWL}"),
                ]
            )
        )
        assert status == 2, stderr
        assert str(lake) in _error_line(stderr, "host-index")
    finally:
        _immutable(lake, False)


@pytest.mark.parametrize("kind", ["graph", "host-index"])
def test_a_part_deleted_behind_the_manifest_is_redone_or_reported(
    kind: str, tiny_crawl: Crawl, tmp_path: Path
):
    args = _inputs(kind, tiny_crawl, tmp_path / "in")
    clean = tmp_path / "clean"
    assert run(_argv(kind, clean, args, tmp_path, tmp_path)).status == 0
    expected = content(clean, kind)
    lake = tmp_path / "lake"
    argv = _argv(kind, lake, args, tmp_path, tmp_path)
    assert run(argv).status == 0
    table = TABLES[kind][0]
    (row, *_) = manifest(lake, table)
    gone = lake / row["output_files"][0]
    gone.unlink()
    # given its input again: the input is ingested again, the lake is whole
    outcome = run(argv)
    assert outcome.status == 0, outcome.stderr
    assert gone.is_file()
    assert content(lake, kind) == expected
    # not given its input: the missing part is reported, naming it or its input file
    gone.unlink()
    source = Path(row["source_file"])
    others = [a for a in map(str, args) if Path(a).resolve() != source.resolve()]
    if kind == "graph":
        others = [a for a in others if a not in ("--ranks",)] if table == "host_ranks" else others
    status, stderr = _finish(_popen(_argv(kind, lake, others, tmp_path, tmp_path)))
    assert "Traceback" not in stderr, stderr
    assert gone.name in stderr or source.name in stderr or str(gone) in stderr, (status, stderr)


def test_a_file_in_the_lake_under_another_crawl_is_refused_unless_replaced(
    raw: Path, registry: Path, tmp_path: Path
):
    path = Path(shutil.copy(REAL_DATA / "resiliparse-cc" / "warcfile.warc.gz", tmp_path))
    lake = tmp_path / "lake"

    def documents(crawl: str, *extra: str):
        return run(["documents", "--crawl", crawl, "--allow-crawl-mismatch", "--lake", str(lake),
                    "--raw", str(raw), "--registry", str(registry), "--classifiers", "dclm_demo",
                    "--workers", "1", *extra, "--warc", str(path)])  # fmt: skip

    assert documents("CC-MAIN-2020-34").status == 0
    before = committed(lake, "documents", "documents")
    ids = sorted(row["doc_id"] for _, rows in before for row in rows)
    outcome = documents("CC-MAIN-2024-10")
    assert outcome.status == 2, outcome.stdout
    assert "CC-MAIN-2020-34" in _error_line(outcome.stderr, "documents")
    assert committed(lake, "documents", "documents") == before
    outcome = documents("CC-MAIN-2024-10", "--replace")
    assert outcome.status == 0, outcome.stderr
    after = committed(lake, "documents", "documents")
    assert [row["crawl"] for row, _ in after] == ["CC-MAIN-2024-10"]
    assert sorted(row["doc_id"] for _, rows in after for row in rows) == ids
    assert {row["crawl"] for _, rows in after for row in rows} == {"CC-MAIN-2024-10"}
    assert not list((lake / "documents").glob("crawl=CC-MAIN-2020-34/part-*.parquet"))


def _moved(kind: str, tiny_crawl: Crawl, folder: Path, crawl: str) -> list[str]:
    """The same input files as :func:`_inputs`'s (one crawl), copied under ``crawl=<crawl>``."""
    if kind == "host-index":
        sources = [tiny_crawl.root / "host-index" / f"crawl={CRAWL}" / "part-00000.parquet"]
    else:
        sources = [
            tiny_crawl.root
            / "gneissweb-annotations"
            / level
            / f"crawl={CRAWL}"
            / "part-00000.parquet"
            for level in ("hosts", "urls")
        ]
    files = []
    for source in sources:
        target = folder / source.parents[1].name / f"crawl={crawl}" / source.name
        target.parent.mkdir(parents=True)
        files.append(str(shutil.copy(source, target)))
    return files


def _inject(fault: str, monkeypatch: pytest.MonkeyPatch, crawl: str) -> None:
    """Make the lake refuse the new copy: its parts cannot be written (the disk is full), the
    partition ``crawl=<crawl>`` refuses the parts' renames (read-only), or the manifest's
    rename fails (the disk is full)."""
    real_replace = os.replace

    def refusing_replace(source, target, *args, **kwargs):
        target = Path(target)
        if fault == "part_rename" and target.parent.name == f"crawl={crawl}":
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(target))
        if fault == "manifest_rename" and target.parent.parent.name == "_manifest":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(source))
        return real_replace(source, target, *args, **kwargs)

    monkeypatch.setattr(os, "replace", refusing_replace)
    if fault == "write":
        for name in ("write_batch", "write_table"):
            real = getattr(pq.ParquetWriter, name)

            def full(self, *args, _real=real, **kwargs):
                if f"crawl={crawl}" in str(self.where):
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self.where))
                return _real(self, *args, **kwargs)

            monkeypatch.setattr(pq.ParquetWriter, name, full)


@pytest.mark.parametrize("fault", ["write", "part_rename", "manifest_rename"])
@pytest.mark.parametrize("kind", ["host-index", "annotations"])
def test_a_replace_that_fails_keeps_the_old_copy_and_names_the_input(
    kind: str, fault: str, tiny_crawl: Crawl, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Finding 8: ``--replace`` used to uncommit the old copy before writing the new one, so a
    full disk or a read-only partition left part of the file in neither crawl, and the message
    named no input. Now the old copy stays committed until the new one replaces it."""
    moved_to = "CC-MAIN-2024-18"
    old = _moved(kind, tiny_crawl, tmp_path / "old", CRAWL)
    new = _moved(kind, tiny_crawl, tmp_path / "new", moved_to)
    lake = tmp_path / "lake"
    argv = [kind, "--lake", str(lake), "--workers", "1"]
    assert run([*argv, "--path", *old]).status == 0
    before = content(lake, kind)
    rows = [row for table in TABLES[kind] for row in manifest(lake, table)]
    assert {row["crawl"] for row in rows} == {CRAWL} and len(rows) == len(old)

    with monkeypatch.context() as patch:
        _inject(fault, patch, moved_to)
        outcome = run([*argv, "--replace", "--path", *new])
    assert outcome.status == 2, outcome.stdout
    line = _error_line(outcome.stderr, kind)
    assert all(path in line for path in new), line
    assert content(lake, kind) == before, f"{fault}: the old copy changed"
    assert leftovers(lake) == []
    assert not list(lake.glob(f"*/crawl={moved_to}/part-*.parquet")), "orphan parts left"

    outcome = run([*argv, "--replace", "--path", *new])
    assert outcome.status == 0, outcome.stderr
    after = content(lake, kind)
    rows = [row for table in TABLES[kind] for row in manifest(lake, table)]
    assert {row["crawl"] for row in rows} == {moved_to} and len(rows) == len(old)
    for name, landed in after.items():
        if ":" in name:  # the same rows, in the new crawl only
            moved = [text.replace(f"'{CRAWL}'", f"'{moved_to}'") for text in before[name]]
            assert landed == sorted(moved), name
    assert not list(lake.glob(f"*/crawl={CRAWL}/part-*.parquet")), "the old copy's parts stay"
    assert leftovers(lake) == []


@pytest.mark.parametrize("kind", ["host-index", "annotations"])
def test_a_replace_killed_at_any_rename_leaves_the_old_copy_or_the_new_one_whole(
    kind: str, tiny_crawl: Crawl, tmp_path: Path
):
    moved_to = "CC-MAIN-2024-18"
    old = _moved(kind, tiny_crawl, tmp_path / "old", CRAWL)
    new = _moved(kind, tiny_crawl, tmp_path / "new", moved_to)

    def lake_with_old(name: str) -> Path:
        lake = tmp_path / name / "lake"
        assert run([kind, "--lake", str(lake), "--workers", "1", "--path", *old]).status == 0
        return lake

    replace = ["--workers", "1", "--replace", "--path", *new]
    clean = lake_with_old("clean")
    before = content(clean, kind)
    count_file = tmp_path / "renames"
    status, stderr = _finish(
        _popen([kind, "--lake", str(clean), *replace], HOSTAWARE_KILL_COUNT=str(count_file))
    )
    assert status == 0, stderr
    after = content(clean, kind)
    renames = int(count_file.read_text())
    for at, when in [(n, "before") for n in range(1, renames + 1)] + [(renames, "after")]:
        lake = lake_with_old(f"kill-{at}-{when}")
        argv = [kind, "--lake", str(lake), *replace]
        status, stderr = _finish(_popen(argv, HOSTAWARE_KILL_AT=str(at), HOSTAWARE_KILL_WHEN=when))
        assert status == -signal.SIGKILL, f"not killed at rename {at} ({when}): {stderr}"
        # One file's copy is whole in one crawl: each input is in its old crawl or its new one.
        found = content(lake, kind)
        for table in TABLES[kind]:
            for row in manifest(lake, table):
                parts = [lake / relative for relative in row["output_files"]]
                assert all(map(Path.is_file, parts)), f"killed {when} rename {at}: {row}"
        assert all(
            landed in (before.get(name), after.get(name)) for name, landed in found.items()
        ), f"killed {when} rename {at}: a file is in neither crawl, or in both"
        status, stderr = _finish(_popen(argv))
        assert status == 0, f"rerun after a kill {when} rename {at}: {stderr}"
        assert content(lake, kind) == after, f"killed {when} rename {at}, then rerun"
        assert leftovers(lake) == []


@pytest.mark.parametrize("naming", ["copy", "relative_and_absolute"])
def test_one_content_under_two_names_in_one_run_is_ingested_once(
    naming: str, raw: Path, registry: Path, tmp_path: Path, monkeypatch
):
    path = Path(shutil.copy(REAL_DATA / "resiliparse-cc" / "warcfile.warc.gz", tmp_path))
    if naming == "copy":
        names = [str(path), str(shutil.copy(path, tmp_path / "again.warc.gz"))]
    else:
        monkeypatch.chdir(tmp_path)
        names = [path.name, str(path)]

    def documents(lake: Path, files: list[str]):
        return run(["documents", "--crawl", "CC-MAIN-2020-34", "--lake", str(lake),
                    "--raw", str(raw), "--registry", str(registry), "--classifiers", "dclm_demo",
                    "--workers", "1", "--warc", *files])  # fmt: skip

    # Inputs are taken in sorted order: the first of the same content is the one ingested.
    first = min(str(Path(name).absolute()) for name in names)
    assert documents(tmp_path / "clean", [first]).status == 0
    outcome = documents(tmp_path / "lake", names)
    assert outcome.status == 0, outcome.stderr
    expected = content(tmp_path / "clean", "documents")
    assert (
        content(tmp_path / "lake", "documents")["documents:documents"]
        == expected["documents:documents"]
    )
    assert len(expected["documents:documents"]) == 16


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            found += [int(child) for child in (task / "children").read_text().split()]
    return found


def test_killing_the_document_ingest_kills_its_workers(
    tiny_crawl: Crawl, raw: Path, registry: Path, tmp_path: Path
):
    files = sorted((tiny_crawl.root / "warc" / CRAWL).glob("*.warc.gz"))
    process = _popen(["documents", "--crawl", CRAWL, "--lake", str(tmp_path / "lake"),
                      "--raw", str(raw), "--registry", str(registry), "--classifiers",
                      "dclm_demo", "--workers", "2", "--warc", *map(str, files)])  # fmt: skip
    try:
        workers: list[int] = []

        def started() -> bool:
            workers[:] = _children(process.pid)
            return len(workers) >= 2

        _wait_until(started, process, "both workers started")
        # Killed as soon as they exist, whatever they are doing: they must die either way
        # (a worker not yet set up to die with its parent sees its parent gone, and exits).
        os.kill(process.pid, signal.SIGKILL)  # the parent only
        process.wait()
        deadline = time.monotonic() + 30  # the kernel kills them at once; this is a bound
        while any(map(alive, workers)) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert [pid for pid in workers if alive(pid)] == [], "workers outlived their parent"
    finally:
        _finish(process, timeout=5)
