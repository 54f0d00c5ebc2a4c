"""Throughput and peak memory of the streaming lake ingests, beside plain pandas.

Inputs, generated once and cached in --out (names carry their size) by ``python -m demo
bench-inputs`` (``demo/bench_inputs.py``, which says what they hold):

* a host-level ranks file of --ranks-rows rows in Common Crawl's exact format (FORMATS.md §1.4),
  and files holding its first --prefix-rows rows, to show memory against size;
* a host index (FORMATS.md §2): 6 crawls x --index-hosts hosts, one crawl's schema drifted.

Each job runs in a fresh child process, so that its peak memory is its own: the resident memory
of the child (and any children) is sampled every 50 ms, the child reports its ``VmHWM`` (peak
RSS since its exec) and ``ru_maxrss`` is read from ``wait4``. Linux starts a child's ru_maxrss
at its parent's peak RSS when it forks, so the inputs are generated in children too and this
process stays small (about 40 MB). The jobs:

* ours: ``ingest_graph`` / ``ingest_host_index`` into an empty lake (SHA-256, read, check,
  write zstd Parquet, manifest); the sampled peak sums the child and its worker processes;
* pandas load: ``pd.read_csv(path, sep='\\t')`` of the ranks file, ``pd.read_parquet`` of each
  host-index file (all columns), nothing else;
* pandas job: the same job as ours, the way pandas does it: the whole file in memory, host_rev
  '.' -> ',' (ranks) or the lake's columns renamed and cast (index), ``df.to_parquet`` (zstd,
  as the lake). No validation, no manifest.
* probes: where our time goes (checksum, gunzip alone, parsing without writing).

Timings are the child's own (after its imports); rows/s counts input rows. Files are in the
page cache when read (they were just written or read), for every job alike.

    PYTHONPATH=. .venv/bin/python bench/bench_lake_ingest.py --quick
    PYTHONPATH=. .venv/bin/python bench/bench_lake_ingest.py --out build/bench-lake
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import logging
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]
RELEASE = "cc-main-2024-25-nov-dec-jan"

# ----------------------------------------------------------------------- child jobs


def _child_ours_ranks(inputs: list[Path], lake: Path) -> dict:
    from ingest.webgraph import ingest_graph

    started = time.perf_counter()
    rows = ingest_graph(RELEASE, lake, ranks=inputs[0], max_reject_rate=0.001)
    return {
        "seconds": time.perf_counter() - started,
        "rows": sum(row["records_read"] for row in rows),
        "written": sum(row["records_written"] for row in rows),
    }


def _child_ours_index(inputs: list[Path], lake: Path) -> dict:
    from ingest.host_index import ingest_host_index

    started = time.perf_counter()
    workers = os.environ.get("BENCH_INDEX_WORKERS")
    if workers:
        rows = ingest_host_index(inputs, lake, workers=int(workers))
    else:
        rows = ingest_host_index(inputs, lake)
    return {
        "seconds": time.perf_counter() - started,
        "rows": sum(row["records_read"] for row in rows),
        "written": sum(row["records_written"] for row in rows),
        "drift": sum(len(row["schema_drift"]) for row in rows),
    }


def _child_pandas_load_ranks(inputs: list[Path], lake: Path) -> dict:
    import pandas as pd

    started = time.perf_counter()
    frame = pd.read_csv(inputs[0], sep="\t")
    return {"seconds": time.perf_counter() - started, "rows": len(frame)}


def _child_pandas_load_index(inputs: list[Path], lake: Path) -> dict:
    import pandas as pd

    started = time.perf_counter()
    rows = 0
    for path in inputs:
        frame = pd.read_parquet(path)
        rows += len(frame)
        del frame
    return {"seconds": time.perf_counter() - started, "rows": rows}


def _child_pandas_job_ranks(inputs: list[Path], lake: Path) -> dict:
    import pandas as pd

    started = time.perf_counter()
    frame = pd.read_csv(inputs[0], sep="\t")
    frame.columns = ["hc_pos", "hc_val", "pr_pos", "pr_val", "host_rev"]
    frame.insert(0, "surt_host_name", frame.pop("host_rev").str.replace(".", ",", regex=False))
    target = lake / "host_ranks" / f"release={RELEASE}" / "part-pandas.parquet"
    target.parent.mkdir(parents=True, exist_ok=True)
    frame.to_parquet(target, compression="zstd", index=False)
    return {"seconds": time.perf_counter() - started, "rows": len(frame)}


def _child_pandas_job_index(inputs: list[Path], lake: Path) -> dict:
    import pandas as pd
    import pyarrow.parquet as pq

    from ingest import schemas
    from ingest.host_index import SOURCE_NAMES
    from ingest.parquet_input import crawl_of_path

    started = time.perf_counter()
    rows = 0
    for path in inputs:
        present = set(pq.read_schema(path).names)
        wanted = {
            field.name: SOURCE_NAMES.get(field.name, field.name) for field in schemas.HOST_INDEX
        }
        frame = pd.read_parquet(path, columns=[s for s in wanted.values() if s in present])
        frame = frame.rename(columns={s: name for name, s in wanted.items()})
        for field in schemas.HOST_INDEX:
            if field.name not in frame:
                frame[field.name] = pd.array([pd.NA] * len(frame), dtype="Int64")
            elif str(field.type) == "int64":
                frame[field.name] = frame[field.name].astype("int64")
        frame = frame[[field.name for field in schemas.HOST_INDEX]]
        target = lake / "host_index" / f"crawl={crawl_of_path(path, None)}" / "part-pandas.parquet"
        target.parent.mkdir(parents=True, exist_ok=True)
        frame.to_parquet(target, compression="zstd", index=False)
        rows += len(frame)
        del frame
    return {"seconds": time.perf_counter() - started, "rows": rows}


def _child_probe_ranks(inputs: list[Path], lake: Path) -> dict:
    """Where the ranks ingest's time goes: each stage alone, one after the other."""
    from isal import igzip

    from ingest.lake import sha256_of
    from ingest.webgraph import RANKS, _to_lake, read_text_table

    path = inputs[0]
    times = {}
    started = time.perf_counter()
    sha256_of(path)
    times["sha256"] = time.perf_counter() - started
    started = time.perf_counter()
    size = 0
    with igzip.open(path, "rb") as stream:
        while chunk := stream.read(1 << 24):
            size += len(chunk)
    times["gunzip (ISA-L)"] = time.perf_counter() - started
    started = time.perf_counter()
    with gzip.open(path, "rb") as stream:
        while stream.read(1 << 24):
            pass
    times["gunzip (zlib, as pandas)"] = time.perf_counter() - started
    started = time.perf_counter()
    report = read_text_table(path, RANKS, lambda batch: None, lambda: None)
    times["gunzip+parse+check"] = time.perf_counter() - started
    started = time.perf_counter()
    read_text_table(path, RANKS, lambda batch: _to_lake(RANKS, batch), lambda: None)
    times["gunzip+parse+check+surt"] = time.perf_counter() - started
    return {"times": times, "rows": report.read, "uncompressed_bytes": size}


def _child_probe_index(inputs: list[Path], lake: Path) -> dict:
    import pyarrow.parquet as pq

    from ingest import schemas
    from ingest.host_index import REFERENCE_TYPES, SOURCE_NAMES, _checked
    from ingest.lake import IngestReport, sha256_of
    from ingest.parquet_input import open_parquet, plan_columns, read_planned

    times = {}
    started = time.perf_counter()
    for path in inputs:
        sha256_of(path)
    times["sha256"] = time.perf_counter() - started
    started = time.perf_counter()
    for path in inputs:
        pq.read_table(path)
    times["read_table (all columns)"] = time.perf_counter() - started
    started = time.perf_counter()
    rows = 0
    for path in inputs:
        parquet = open_parquet(path)
        plan, drift = plan_columns(
            path, parquet.schema_arrow, schemas.HOST_INDEX, SOURCE_NAMES, REFERENCE_TYPES,
            required=["surt_host_name"],
        )  # fmt: skip
        report = IngestReport(path, drift=drift)
        for batch in read_planned(parquet, plan, 1 << 20):
            _checked(batch, report, rows)
            rows += batch.num_rows
    times["read_planned+check"] = time.perf_counter() - started
    return {"times": times, "rows": rows}


CHILDREN = {
    "ours-ranks": _child_ours_ranks,
    "ours-index": _child_ours_index,
    "pandas-load-ranks": _child_pandas_load_ranks,
    "pandas-load-index": _child_pandas_load_index,
    "pandas-job-ranks": _child_pandas_job_ranks,
    "pandas-job-index": _child_pandas_job_index,
    "probe-ranks": _child_probe_ranks,
    "probe-index": _child_probe_index,
}


def _vm_hwm() -> int:
    """This process's peak resident memory since its exec (VmHWM), in bytes."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def _run_child(args: argparse.Namespace) -> None:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    result = CHILDREN[args.child](args.inputs, args.lake)
    result["vm_hwm"] = _vm_hwm()
    print(json.dumps(result))


def generate(kind: str, args: argparse.Namespace, prefixes: list[int]) -> dict:
    """Generate (or find cached) inputs in a child, ``python -m demo bench-inputs``, so this
    process stays small: a child's ru_maxrss starts from its parent's peak at the fork, which
    would then hide its own."""
    command = [sys.executable, "-m", "demo", "bench-inputs", kind, "--out", str(args.out)]
    if kind == "ranks":
        command += ["--rows", str(args.ranks_rows), "--workers", str(args.workers)]
        command += ["--prefix-rows", ",".join(map(str, prefixes))]
    else:
        command += ["--hosts", str(args.index_hosts)]
    env = os.environ | {"PYTHONPATH": str(REPO)}
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True, env=env, cwd=REPO)
    if done.returncode != 0:
        raise SystemExit(f"generating {kind} failed ({done.returncode})")
    return json.loads(done.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------- measuring


def _tree_rss(process: psutil.Process) -> int:
    total = 0
    for member in [process, *process.children(recursive=True)]:
        with contextlib.suppress(psutil.NoSuchProcess, psutil.ZombieProcess):
            total += member.memory_info().rss
    return total


def measure(kind: str, inputs: list[Path], lake: Path, logs: Path) -> dict:
    """Run one job in a fresh child; its result, wall time and peak memory (two ways)."""
    shutil.rmtree(lake, ignore_errors=True)
    logs.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, str(Path(__file__).resolve()), "--child", kind, "--lake", str(lake)]
    command += [str(path) for path in inputs]
    env = os.environ | {"PYTHONPATH": str(REPO)}
    stdout_path, stderr_path = logs / f"{kind}.out", logs / f"{kind}.err"
    started = time.perf_counter()
    with stdout_path.open("w") as stdout, stderr_path.open("w") as stderr:
        child = subprocess.Popen(command, stdout=stdout, stderr=stderr, env=env, cwd=REPO)
        watched = psutil.Process(child.pid)
        peak = 0
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            with contextlib.suppress(psutil.NoSuchProcess, psutil.ZombieProcess):
                peak = max(peak, _tree_rss(watched))
            time.sleep(0.05)
    child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    errors = stderr_path.read_text()
    if child.returncode != 0:
        raise SystemExit(f"{kind} failed ({child.returncode}):\n{errors[-3000:]}")
    result = json.loads(stdout_path.read_text().strip().splitlines()[-1])
    result.update(
        wall=wall,
        peak_sampled=peak,
        peak_maxrss=usage.ru_maxrss * 1024,  # kilobytes on Linux
        careful_path="line by line" in errors,
        lake_bytes=sum(p.stat().st_size for p in lake.rglob("*") if p.is_file())
        if lake.exists()
        else 0,
    )
    shutil.rmtree(lake, ignore_errors=True)
    result["load"] = os.getloadavg()[0]
    return result


def measure_best(kind: str, inputs: list[Path], lake: Path, logs: Path, repeat: int) -> dict:
    """The fastest of ``repeat`` runs (this machine is shared), with the highest peaks seen."""
    runs = [measure(kind, inputs, lake, logs) for _ in range(repeat)]
    best = dict(min(runs, key=lambda run: run["seconds"]))
    for key in ("peak_sampled", "vm_hwm", "peak_maxrss"):
        best[key] = max(run[key] for run in runs)
    best["runs"] = [round(run["seconds"], 2) for run in runs]
    return best


def _gb(value: float) -> str:
    return f"{value / 1024**3:5.2f}"


def _peak(result: dict) -> int:
    return max(result["peak_sampled"], result["vm_hwm"], result["peak_maxrss"])


def _line(label: str, result: dict) -> str:
    rate = result["rows"] / result["seconds"]
    note = "  CAREFUL PATH" if result.get("careful_path") else ""
    runs = f", runs {result['runs']}" if len(result.get("runs", [])) > 1 else ""
    return (
        f"  {label:<13} {result['seconds']:>7.1f} s {rate:>12,.0f} rows/s  peak "
        f"{_gb(result['peak_sampled'])} sampled, {_gb(result['vm_hwm'])} VmHWM, "
        f"{_gb(result['peak_maxrss'])} ru_maxrss GB"
        f"  (wall {result['wall']:.1f} s, wrote {result['lake_bytes'] / 1e6:,.0f} MB, "
        f"load {result['load']:.1f}{runs}){note}"
    )


def bench_input(name: str, inputs: list[Path], args, logs: Path) -> dict:
    lake = args.out / "lake"
    kind = "ranks" if name.startswith("ranks") else "index"
    results = {"ours": measure_best(f"ours-{kind}", inputs, lake, logs, args.repeat)}
    print(f"{name}: {results['ours']['rows']:,} rows")
    print(_line("ours", results["ours"]))
    if results["ours"]["rows"] != results["ours"]["written"]:
        print(f"  ours rejected {results['ours']['rows'] - results['ours']['written']:,} rows")
    if not args.skip_pandas:
        for job in ("load", "job"):
            results[f"pandas-{job}"] = measure_best(
                f"pandas-{job}-{kind}", inputs, lake, logs, args.repeat
            )
            print(_line(f"pandas {job}", results[f"pandas-{job}"]))
    if not args.skip_probes:
        probe = measure(f"probe-{kind}", inputs, lake, logs)
        stages = ", ".join(f"{stage} {seconds:.1f} s" for stage, seconds in probe["times"].items())
        print(f"  stages alone: {stages}")
        if "uncompressed_bytes" in probe:
            print(f"  uncompressed: {probe['uncompressed_bytes'] / 1e9:.2f} GB")
        results["probe"] = probe
    return results


def _code_version() -> str:
    """The commit measured, and whether ingest/ differs from it (others edit it meanwhile)."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=REPO
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "ingest"], capture_output=True, text=True, cwd=REPO
        ).stdout.strip()
    except OSError:
        return "unknown"
    return f"{commit}{' + local changes in ingest/' if dirty else ''}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("build/bench-lake"))
    parser.add_argument("--ranks-rows", type=int, default=50_000_000)
    parser.add_argument("--index-hosts", type=int, default=5_000_000)
    parser.add_argument(
        "--prefix-rows",
        default="5000000,20000000",
        help="comma-separated: ranks files holding the first N rows, for memory against size",
    )
    parser.add_argument("--quick", action="store_true", help="5M ranks rows, 1M hosts")
    parser.add_argument("--skip-pandas", action="store_true")
    parser.add_argument("--skip-probes", action="store_true", help="no per-stage timings")
    parser.add_argument("--workers", type=int, default=2, help="processes generating the inputs")
    parser.add_argument("--repeat", type=int, default=1, help="best of this many runs per job")
    parser.add_argument("--only", nargs="+", choices=["ranks", "index"], default=["ranks", "index"])
    parser.add_argument(
        "--index-workers", type=int, help="workers= for ingest_host_index (default: its own)"
    )
    parser.add_argument("--child", choices=list(CHILDREN), help=argparse.SUPPRESS)
    parser.add_argument("--lake", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("inputs", nargs="*", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.quick:
        args.ranks_rows, args.index_hosts = 5_000_000, 1_000_000
        args.prefix_rows = "1000000,2000000"
    wanted = {int(n) for n in args.prefix_rows.split(",") if n}
    prefixes = sorted(n for n in wanted if n < args.ranks_rows)
    args.out = args.out.resolve()
    if args.child:
        _run_child(args)
        return
    logs = args.out / "logs"
    memory = psutil.virtual_memory().total / 1024**3
    print(
        f"cores: {psutil.cpu_count()}, memory: {memory:.1f} GiB, out: {args.out}, "
        f"load average {os.getloadavg()[0]:.1f} (other work on this machine slows every job)"
    )
    print(f"code: {_code_version()}")

    ranks = generate("ranks", args, prefixes)
    how = "cached; generated" if ranks["cached"] else "generated"
    total = ranks["permutation_seconds"] + ranks["blocks_seconds_wall"] + ranks["assemble_seconds"]
    print(
        f"ranks file: {ranks['rows']:,} rows, {ranks['bytes'] / 1e9:.2f} GB gzip ({how} in "
        f"{total:.0f} s: "
        f"pr_pos permutation {ranks['permutation_seconds']:.1f} s, blocks "
        f"{ranks['blocks_seconds_wall']:.1f} s on {ranks['workers']} workers "
        f"({ranks['blocks_seconds_cpu'] / ranks['rows'] * 1e6:.1f} s per 1M rows per worker), "
        f"assembling {ranks['assemble_seconds']:.1f} s)"
    )
    index = generate("host-index", args, prefixes)
    how = "cached; generated" if index["cached"] else "generated"
    total = index["names_seconds"] + index["tables_seconds"]
    print(
        f"host index: {index['crawls']} crawls x {index['hosts']:,} hosts = "
        f"{index['rows']:,} rows, {index['bytes'] / 1e9:.2f} GB ({how} in {total:.0f} s: "
        f"names {index['names_seconds']:.1f} s, tables {index['tables_seconds']:.1f} s)"
    )
    if args.index_workers:
        os.environ["BENCH_INDEX_WORKERS"] = str(args.index_workers)
    print(
        "host-index ingest workers: "
        + (str(args.index_workers) if args.index_workers else "the ingest's default")
    )
    print()
    table = {}
    if "ranks" in args.only:
        table[f"ranks {ranks['rows'] // 10**6}M"] = bench_input(
            "ranks", [Path(ranks["path"])], args, logs
        )
    if "index" in args.only:
        table[f"index {index['crawls']}x{index['hosts'] / 10**6:g}M"] = bench_input(
            "index", [Path(p) for p in index["paths"]], args, logs
        )

    if "ranks" in args.only:
        print("\nflat memory: our ranks ingest on prefixes of the ranks file")
        scaling = []
        for _rows, path in sorted(ranks["heads"].items(), key=lambda item: int(item[0])):
            scaling.append(
                measure_best("ours-ranks", [Path(path)], args.out / "lake", logs, args.repeat)
            )
        scaling.append(table[next(iter(table))]["ours"])
        print(
            f"  {'rows':>12} {'seconds':>8} {'rows/s':>12} {'sampled GB':>10} {'VmHWM GB':>9} "
            f"{'ru_maxrss GB':>13}"
        )
        for result in scaling:
            print(
                f"  {result['rows']:>12,} {result['seconds']:>8.1f} "
                f"{result['rows'] / result['seconds']:>12,.0f} {_gb(result['peak_sampled']):>10} "
                f"{_gb(result['vm_hwm']):>9} {_gb(result['peak_maxrss']):>13}"
            )

    print("\nsummary (time in s, rate in rows/s, peak GB = max of sampled RSS, VmHWM, ru_maxrss)")
    header = (
        f"{'input':<14} {'rows':>11} | {'ours s':>7} {'rows/s':>10} {'peak':>5} | "
        f"{'load s':>7} {'rows/s':>10} {'peak':>5} | {'job s':>7} {'peak':>5} | "
        f"{'vs load':>7} {'vs job':>7}"
    )
    print(header)
    print("-" * len(header))
    for name, results in table.items():
        ours = results["ours"]
        line = (
            f"{name:<14} {ours['rows']:>11,} | {ours['seconds']:>7.1f} "
            f"{ours['rows'] / ours['seconds']:>10,.0f} {_gb(_peak(ours))} | "
        )
        if "pandas-load" in results:
            load, job = results["pandas-load"], results["pandas-job"]
            line += (
                f"{load['seconds']:>7.1f} {load['rows'] / load['seconds']:>10,.0f} "
                f"{_gb(_peak(load))} | {job['seconds']:>7.1f} {_gb(_peak(job))} | "
                f"{load['seconds'] / ours['seconds']:>6.2f}x "
                f"{job['seconds'] / ours['seconds']:>6.2f}x"
            )
        print(line)
    print("(vs load / vs job: pandas seconds over ours; the target is >= 3x, and flat memory)")


if __name__ == "__main__":
    main()
