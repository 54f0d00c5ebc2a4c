"""The fuzz campaign of issue 17, kept in the suite: hostile inputs against every ingest.

Each case mutates a real input (Common Crawl WARC excerpts, the real ranks excerpt, the real
host-index and annotation fixtures, the tiny synth crawl), runs ``python -m ingest`` on it
in-process and checks what the ingests promise (``tests/ingest/fuzz/oracle.py``): exit status 0 or 2
with one error line naming the file, no traceback, books that balance against the lake's
parts, possible values only, and an oracle of what must still be there (``tests/ingest/fuzz``).

Bounded in time: a few seconds per kind by default (``HOSTAWARE_FUZZ_SECONDS`` per kind or
``HOSTAWARE_FUZZ_CASES`` per kind for a longer campaign; ``HOSTAWARE_FUZZ_SEED`` changes the
cases). A failing case prints its seed, its mutation and the command that replays it alone
(``HOSTAWARE_FUZZ_REPLAY=<kind>:<seed>``). ``HOSTAWARE_FUZZ_REPORT=<file>`` appends the
campaign's figures as JSON lines.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import random
import shutil
import zlib
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from tests.fixtures.crawls import REAL_DATA, Crawl
from tests.fixtures.real.annotations import published
from tests.ingest.fuzz import line_mutators, parquet_mutators, warc_mutators
from tests.ingest.fuzz.budget import budget
from tests.ingest.fuzz.oracle import books, check_status, committed, leftovers, run, value_problems
from tests.ingest.fuzz.warcfile import record_ids

REPO = Path(__file__).resolve().parents[2]
REGISTRY = REPO / "seeds" / "classifier_registry.csv"
FIXTURES = REPO / "tests" / "fixtures" / "real"
CRAWL = "CC-MAIN-2020-34"  # isPartOf of the resiliparse excerpt; others pass as mismatches
RELEASE = "cc-main-2024-nov-feb-apr"


class Campaign:
    """Cases tried per mutation, and the failing ones with what replays them."""

    def __init__(self, kind: str, test: str, seconds: float) -> None:
        self.budget = budget(kind, seconds)
        self.test = test
        self.tried: Counter[str] = Counter()
        self.failed: Counter[str] = Counter()
        self.failures: list[str] = []

    def record(self, seed: int, mutation: str, label: str, problems: list[str]) -> None:
        self.tried[label] += 1
        if problems:
            self.failed[label] += 1
            if len(self.failures) < 12:
                self.failures.append(
                    f"case {self.budget.kind}:{seed} ({mutation}):\n  "
                    + "\n  ".join(problem[:1500] for problem in problems[:4])
                    + f"\n  replay: {self.budget.replay_hint(seed, self.test)}"
                )

    def finish(self) -> None:
        figures = {
            label: {"cases": self.tried[label], "failing": self.failed[label]}
            for label in sorted(self.tried)
        }
        total, failing = sum(self.tried.values()), sum(self.failed.values())
        summary = f"fuzz {self.budget.kind}: {total} cases, {failing} failing: " + ", ".join(
            f"{label} {count['cases']}/{count['failing']}" for label, count in figures.items()
        )
        print(summary)
        report = os.environ.get("HOSTAWARE_FUZZ_REPORT")
        if report:
            with open(report, "a", encoding="utf-8") as handle:
                handle.write(json.dumps({"kind": self.budget.kind, "figures": figures}) + "\n")
        assert total or self.budget.cases == 0, "no case ran"
        assert not failing, summary + "\n\n" + "\n\n".join(self.failures)


# ----------------------------------------------------------------------- documents (WARC)


@pytest.fixture(scope="module")
def classifier_raw(dclm_demo_raw: Path) -> Path:
    """A raw folder with the one demo classifier the fuzz cases score with (dclm_demo)."""
    return dclm_demo_raw


def _documents_argv(lake: Path, raw: Path, files: list[Path]) -> list[str]:
    # The cases damage pages on purpose: --max-failure-rate 1 commits what a file still holds.
    return [
        "documents", "--crawl", CRAWL, "--allow-crawl-mismatch", "--lake", str(lake),
        "--raw", str(raw), "--registry", str(REGISTRY), "--classifiers", "dclm_demo",
        "--workers", "1", "--max-failure-rate", "1", "--warc", *map(str, files),
    ]  # fmt: skip


def _control(path: Path, seed: int) -> tuple[Path, set[str]]:
    """A small well-formed WARC with two pages of ids unique to the case."""
    ids = {f"<urn:uuid:00000000-0000-4000-8000-{seed % 10**12:012d}>",
           f"<urn:uuid:00000000-0000-4000-9000-{seed % 10**12:012d}>"}  # fmt: skip
    html = b"<html><body><article><p>" + b"A control page about research. " * 30 + b"</p></article>"
    with path.open("wb") as handle:
        writer = WARCWriter(handle, gzip=True)
        for number, record_id in enumerate(sorted(ids)):
            http = StatusAndHeaders(
                "200 OK", [("Content-Type", "text/html; charset=utf-8")], protocol="HTTP/1.1"
            )
            writer.write_record(
                writer.create_warc_record(
                    f"http://control{number}.example.org/",
                    "response",
                    payload=io.BytesIO(html),
                    http_headers=http,
                    warc_headers_dict={"WARC-Record-ID": record_id},
                )
            )
    return path, ids


def _documents_of(lake: Path) -> dict[str, tuple[dict, list[dict]]]:
    return {
        Path(row["source_file"]).name: (row, rows)
        for row, rows in committed(lake, "documents", "documents")
    }


def _tiny_excerpt(tiny_crawl: Crawl, members: int = 45) -> bytes:
    """The first gzip members of the tiny crawl's first WARC file (a few dozen records)."""
    data = sorted((tiny_crawl.root / "warc" / "CC-MAIN-2024-10").glob("*.warc.gz"))[0].read_bytes()
    kept, position = [], 0
    while len(kept) < members and position < len(data):
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        inflater.decompress(data[position:])
        end = len(data) - len(inflater.unused_data)
        kept.append(data[position:end])
        position = end
    return b"".join(kept)


@pytest.fixture(scope="module")
def warc_bases(classifier_raw: Path, tiny_crawl: Crawl, tmp_path_factory) -> list:
    """The base files, each with the pages a clean ingest of it writes, by unit."""
    sources = [
        ("resiliparse", (REAL_DATA / "resiliparse-cc" / "warcfile.warc.gz").read_bytes(),
         ".warc.gz"),
        ("warcio", (REAL_DATA / "warcio-examples" / "example.warc.gz").read_bytes(), ".warc.gz"),
        ("chunked", (REAL_DATA / "warcio-examples" / "example-iana.org-chunked.warc").read_bytes(),
         ".warc"),
        ("whirlwind", (FIXTURES / "whirlwind" / "whirlwind.warc.gz").read_bytes(), ".warc.gz"),
        ("whirlwind_wet", (FIXTURES / "whirlwind" / "whirlwind.warc.wet.gz").read_bytes(),
         ".warc.wet.gz"),
        ("tiny", _tiny_excerpt(tiny_crawl), ".warc.gz"),
    ]  # fmt: skip
    folder = tmp_path_factory.mktemp("warc-bases")
    bases = []
    for name, data, suffix in sources:
        base = warc_mutators.Base(name, data, suffix)
        path = folder / f"{name}{suffix}"
        path.write_bytes(data)
        outcome = run(_documents_argv(folder / f"lake-{name}", classifier_raw, [path]))
        assert outcome.status == 0, (name, outcome.stderr, outcome.traceback)
        ((_, rows),) = _documents_of(folder / f"lake-{name}").values()
        unit_of = {offset: index for index, offset in enumerate(base.offsets())}
        for landed in rows:
            base.written.setdefault(unit_of[landed["warc_record_offset"]], []).append(
                landed["doc_id"]
            )
        assert rows, f"{name}: a base file must have pages"
        bases.append(base)
    return bases


def _warc_case(seed: int, bases, raw: Path, folder: Path) -> tuple[str, str, list[str]]:
    rng = random.Random(seed)
    kinds = list(warc_mutators.MUTATIONS)
    kind = kinds[seed % len(kinds)]
    base = rng.choice(bases)
    mutated = warc_mutators.mutate(rng, base, [b for b in bases if b is not base], kind)
    by_name = {candidate.name: candidate for candidate in bases}
    must, least = warc_mutators.expected(mutated, by_name)
    case = folder / f"case-{seed}"
    case.mkdir()
    target = case / f"a-{base.name}{base.suffix}"
    data = mutated.data
    target.write_bytes(data)
    control, control_ids = _control(case / "z-control.warc.gz", seed)
    lake = case / "lake"
    outcome = run(_documents_argv(lake, raw, [target, control]))
    problems = check_status(outcome, "documents", [target.name])
    if outcome.traceback is None:
        problems += books(lake, "documents", [(("documents",), 1), (("document_scores",), 1)])
        if outcome.status == 0:
            problems += [f"left in the lake: {name}" for name in leftovers(lake)]
        found = _documents_of(lake)
        for table, rows in (
            ("documents", [r for _, (_, rs) in found.items() for r in rs]),
            ("document_scores", [r for _, rs in committed(lake, "documents", "document_scores")
                                 for r in rs]),
        ):  # fmt: skip
            problems += value_problems(table, rows)
        if control.name not in found:
            problems.append("the well-formed file after it was not committed")
        elif {r["doc_id"] for r in found[control.name][1]} != control_ids:
            problems.append("the well-formed file after it lost pages")
        if target.name in found:
            row, rows = found[target.name]
            ids = {r["doc_id"] for r in rows}
            if must - ids:
                problems.append(
                    f"pages of untouched records missing from the lake: {sorted(must - ids)[:5]} "
                    f"({len(must - ids)} of {len(must)}); read {row['records_read']}, "
                    f"rejected {dict(row['rejected_by_reason'])}"
                )
            stray = ids - record_ids(data, mutated.gzipped)
            if stray:
                problems.append(
                    f"ids in the lake that no record of the file has: {sorted(stray)[:5]}"
                )
            if row["records_read"] < least:
                problems.append(
                    f"read {row['records_read']} captures, the file holds {least} untouched ones"
                )
            counted = row["records_rejected"] + sum(dict(row["nulled_by_reason"] or []).values())
            if mutated.counted and not counted:
                problems.append(
                    f"damage not counted: read {row['records_read']}, written "
                    f"{row['records_written']}, nothing rejected or nulled"
                )
        elif must:
            problems.append(
                f"file not committed (exit {outcome.status}) though {len(must)} pages are intact: "
                f"{outcome.stderr.strip()[-300:]!r}"
            )
    shutil.rmtree(case, ignore_errors=True)
    return kind, mutated.mutation + f" of {base.name}", problems


def test_fuzz_documents_warc(warc_bases, classifier_raw: Path, tmp_path: Path):
    campaign = Campaign("warc", "warc", 30)
    for seed in campaign.budget.seeds():
        kind, mutation, problems = _warc_case(seed, warc_bases, classifier_raw, tmp_path)
        campaign.record(seed, mutation, kind, problems)
    campaign.finish()


# ----------------------------------------------------------------------- graph (text lines)


def _ranks_base() -> bytes:
    path = FIXTURES / "webgraph" / f"{RELEASE}-host-ranks.txt.gz"
    lines = gzip.decompress(path.read_bytes()).split(b"\n")[:121]
    return gzip.compress(b"\n".join(lines) + b"\n", mtime=0)


def _graph_bases(tiny_crawl: Crawl) -> dict[str, bytes]:
    folder = tiny_crawl.root / "webgraph" / RELEASE
    return {
        "ranks": _ranks_base(),
        "vertices": (folder / f"{RELEASE}-host-vertices.txt.gz").read_bytes(),
        "edges": (folder / f"{RELEASE}-host-edges.txt.gz").read_bytes(),
    }


_TABLE_OF = {"ranks": "host_ranks", "vertices": "host_vertices", "edges": "host_edges"}
_WIDTH = {"ranks": 5, "vertices": 2, "edges": 2}


def _expected_row(kind: str, line: bytes) -> tuple:
    """The lake row of a well-formed line, by plain Python (FORMATS.md §1.2-1.4)."""
    fields = line.decode().split("\t")
    if kind == "ranks":
        return (int(fields[0]), float(fields[1]), int(fields[2]), float(fields[3]),
                fields[4].replace(".", ","))  # fmt: skip
    if kind == "vertices":
        return (int(fields[0]), fields[1].replace(".", ","))
    return (int(fields[0]), int(fields[1]))


def _lake_row(kind: str, row: dict) -> tuple:
    if kind == "ranks":
        return (row["hc_pos"], row["hc_val"], row["pr_pos"], row["pr_val"], row["surt_host_name"])
    if kind == "vertices":
        return (row["vertex_id"], row["surt_host_name"])
    return (row["from_vertex_id"], row["to_vertex_id"])


def _graph_case(seed: int, bases: dict[str, bytes], folder: Path) -> tuple[str, str, list[str]]:
    rng = random.Random(seed)
    kind = ["ranks", "vertices", "edges"][seed % 3]
    case = line_mutators.mutate(rng, bases[kind], kind == "ranks", _WIDTH[kind])
    work = folder / f"case-{seed}"
    work.mkdir()
    paths = {}
    for name, data in bases.items():
        paths[name] = work / f"{RELEASE}-host-{name}.txt.gz"
        paths[name].write_bytes(case.data if name == kind else data)
    lake = work / "lake"
    strict = rng.random() < 0.75
    argv = ["graph", "--release", RELEASE, "--lake", str(lake), "--ranks", str(paths["ranks"]),
            "--vertices", str(paths["vertices"]), "--edges", str(paths["edges"])]  # fmt: skip
    if strict:
        argv += ["--max-reject-rate", "1"]
    outcome = run(argv)
    problems = check_status(outcome, "graph", [paths[kind].name])
    label = f"{kind}:{case.mutation.split()[0]}"
    if outcome.traceback is None:
        for table in _TABLE_OF.values():
            problems += books(lake, table, [((table,), 1)])
            rows = [r for _, rs in committed(lake, table) for r in rs]
            problems += value_problems(table, rows)
        if outcome.status == 0:
            problems += [f"left in the lake: {name}" for name in leftovers(lake)]
        table = _TABLE_OF[kind]
        entries = {
            Path(row["source_file"]).name: (row, rows) for row, rows in committed(lake, table)
        }
        mine = entries.get(paths[kind].name)
        if mine is None and outcome.status == 0:
            problems.append("exit 0 but the mutated file has no manifest row")
        if mine is not None:
            row, rows = mine
            lines, clean = line_mutators.count_lines(case.data)
            header = 1 if kind == "ranks" else 0
            if case.stream_damaged or not clean:
                if not row["records_rejected"]:
                    problems.append(
                        f"a damaged gzip stream committed with nothing rejected "
                        f"(read {row['records_read']})"
                    )
            elif case.header_changed:
                if row["records_read"] not in (lines - header, lines):
                    problems.append(f"read {row['records_read']}, the file has {lines} lines")
            elif row["records_read"] != lines - header:
                problems.append(
                    f"read {row['records_read']} records, the file has {lines - header} data lines"
                )
            if not case.stream_damaged:
                _, base_lines = line_mutators.data_lines(bases[kind], kind == "ranks")
                landed = {_lake_row(kind, r) for r in rows}
                missing = [
                    index for index in case.kept
                    if _expected_row(kind, base_lines[index]) not in landed
                ]  # fmt: skip
                if missing:
                    problems.append(
                        f"{len(missing)} untouched lines not in the lake, e.g. line "
                        f"{missing[0]}: {base_lines[missing[0]]!r}"
                    )
    shutil.rmtree(work, ignore_errors=True)
    return label, f"{kind} {case.mutation}", problems


def test_fuzz_graph_lines(tiny_crawl: Crawl, tmp_path: Path):
    bases = _graph_bases(tiny_crawl)
    campaign = Campaign("graph", "graph_lines", 12)
    for seed in campaign.budget.seeds():
        label, mutation, problems = _graph_case(seed, bases, tmp_path)
        campaign.record(seed, mutation, label.split(":")[0] + ":" + label.split(":")[1], problems)
    campaign.finish()


# ----------------------------------------------------------------------- Parquet inputs


def _rows_key(row: dict) -> tuple:
    return tuple(sorted((name, repr(value)) for name, value in row.items()))


def _parquet_case(
    seed: int,
    command: str,
    bases: list[tuple[str, str, pa.Table]],
    folder: Path,
    extra: tuple[str, ...] = (),
) -> tuple[str, str, list[str]]:
    rng = random.Random(seed)
    name, folder_name, table = rng.choice(bases)
    case = parquet_mutators.mutate(rng, table, extra)
    work = folder / f"case-{seed}"
    target = work / "in" / folder_name / f"part-{name}.parquet"
    target.parent.mkdir(parents=True)
    target.write_bytes(case.data)
    lake = work / "lake"
    strict = rng.random() < 0.75
    extra = ["--max-reject-rate", "1"] if strict else []
    argv = [command, "--path", str(work / "in"), "--lake", str(lake), "--workers", "1",
            "--crawl", "CC-MAIN-2024-10", *extra]  # fmt: skip
    outcome = run(argv)
    problems = check_status(outcome, command, [target.name])
    tables = ["host_index"] if command == "host-index" else ["page_annotations", "host_annotations"]
    label = case.mutation.split()[0]
    if outcome.traceback is None:
        mine = None
        for lake_table in tables:
            problems += books(lake, lake_table, [((lake_table,), 1)])
            for row, rows in committed(lake, lake_table):
                problems += value_problems(lake_table, rows)
                if Path(row["source_file"]).name == target.name:
                    mine = (row, rows)
        if outcome.status == 0:
            problems += [f"left in the lake: {left}" for left in leftovers(lake)]
            if mine is None and case.rows:
                problems.append("exit 0 but the file has no manifest row")
        if mine is not None:
            row, rows = mine
            # A file unreadable as a whole may still be committed when its damage is only in
            # columns the ingest does not read: then it must land exactly as the intact file.
            unread_damage = case.rows is None
            if unread_damage and row["records_read"] != table.num_rows:
                problems.append(f"an unreadable file was committed: read {row['records_read']}")
            elif not unread_damage and row["records_read"] != case.rows:
                problems.append(f"read {row['records_read']} rows, the file has {case.rows}")
            if unread_damage or (case.touched is not None and case.rows):
                # the rows left alone land as a clean run of them alone lands them
                touched = set() if unread_damage else case.touched
                keep = [i for i in range(table.num_rows) if i not in touched]
                clean_in = work / "clean" / folder_name / f"part-{name}.parquet"
                clean_in.parent.mkdir(parents=True)
                pq.write_table(table.take(pa.array(keep, pa.int64())), clean_in)
                clean_lake = work / "clean-lake"
                argv = [command, "--path", str(work / "clean"), "--lake", str(clean_lake),
                        "--workers", "1", "--crawl", "CC-MAIN-2024-10",
                        "--max-reject-rate", "1"]  # fmt: skip
                if run(argv).status == 0:
                    expected = Counter(
                        _rows_key(r)
                        for lake_table in tables
                        for _, rs in committed(clean_lake, lake_table)
                        for r in rs
                    )
                    landed = Counter(_rows_key(r) for r in rows)
                    lost = expected - landed
                    if lost:
                        problems.append(
                            f"{sum(lost.values())} rows of untouched input rows missing, e.g. "
                            f"{next(iter(lost))[:6]}"
                        )
                    if unread_damage and landed != expected:
                        problems.append(
                            "a file damaged in columns the ingest does not read landed other "
                            "rows than the intact file"
                        )
    shutil.rmtree(work, ignore_errors=True)
    return label, case.mutation + f" of {name}", problems


def test_fuzz_host_index_parquet(tiny_crawl: Crawl, tmp_path: Path):
    real = FIXTURES / "host-index" / "crawl=CC-MAIN-2025-13" / "part-0.parquet"
    tiny = tiny_crawl.root / "host-index" / "crawl=CC-MAIN-2024-10" / "part-00000.parquet"
    bases = [
        ("real", "crawl=CC-MAIN-2025-13", pq.read_table(real)),
        ("tiny", "crawl=CC-MAIN-2024-10", pq.read_table(tiny).slice(0, 60)),
    ]
    campaign = Campaign("host-index", "host_index_parquet", 10)
    for seed in campaign.budget.seeds():
        label, mutation, problems = _parquet_case(seed, "host-index", bases, tmp_path)
        campaign.record(seed, mutation, label, problems)
    campaign.finish()


def test_fuzz_annotations_parquet(tiny_crawl: Crawl, tmp_path: Path):
    annotations = FIXTURES / "annotations"
    tiny = tiny_crawl.root / "gneissweb-annotations"
    bases = [
        ("cc_hosts", "crawl=CC-MAIN-2024-18", pq.read_table(
            annotations / "cc_gneissweb_hosts" / "crawl=CC-MAIN-2024-18" / "part-00000.parquet")),
        ("cc_urls", "crawl=CC-MAIN-2024-22", pq.read_table(
            annotations / "cc_gneissweb_urls" / "crawl=CC-MAIN-2024-22" / "part-00000.parquet")),
        ("fineweb_edu", "fineweb",
         pq.read_table(annotations / "fineweb_edu" / "part-00000.parquet")),
        ("tiny_hosts", "crawl=CC-MAIN-2024-10", pq.read_table(
            tiny / "hosts" / "crawl=CC-MAIN-2024-10" / "part-00000.parquet").slice(0, 40)),
        # the published shapes: nested keys and scores (DCLM, datatrove), FineWeb2-HQ
        ("dclm", "dclm", published.dclm_rows([0.9, 0.01, 0.5, 0.2, 0.03])),
        ("fineweb2_hq", "fineweb2_hq", published.fineweb2_hq_rows([0.97, 0.99, 0.95])),
        ("datatrove", "datatrove", published.datatrove_edu_rows()),
    ]  # fmt: skip
    campaign = Campaign("annotations", "annotations_parquet", 10)
    extra = ("duplicate_name", "float16")
    for seed in campaign.budget.seeds():
        label, mutation, problems = _parquet_case(seed, "annotations", bases, tmp_path, extra)
        campaign.record(seed, mutation, label, problems)
    campaign.finish()
