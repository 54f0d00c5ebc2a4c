"""The one way to run dbt from Python: ``run`` (a subprocess of the project's dbt).

``run`` starts dbt in the project folder with the project's profiles, a home and a warehouse
(``hostaware.paths.dbt_env``), anonymous usage statistics off, and returns dbt's finished
process; with ``check`` (the default) a failed dbt raises ``DbtError`` carrying dbt's output.
A dbt that cannot be started at all always raises ``DbtError``. dbt dies with its caller: its
process group is stopped when the caller is interrupted (an exception, Ctrl-C, a SIGTERM the
caller turns into one), and on Linux the kernel kills it when the caller is killed.
``measure`` runs a command (a benchmark's dbt build) with its output to a file and reports its
wall time and the peak memory of its process tree (``measure_worker``: of a bench's child
process that hands back a pickled result); ``node_results`` reads a build's per-node
times; ``timed_build`` is the benches' one measured ``dbt build`` into a fresh warehouse, on
DuckDB or on Spark.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from hostaware.paths import PROFILES_DIR, PROJECT, dbt_env

__all__ = [
    "DBT",
    "SPARK_DBT",
    "DbtError",
    "Measured",
    "executable",
    "measure",
    "node_results",
    "run",
    "timed_build",
]

# The project's dbt (its .venv), and dbt-spark's (.venv-spark: `make spark-venv`).
DBT = PROJECT / ".venv" / "bin" / "dbt"
SPARK_DBT = PROJECT / ".venv-spark" / "bin" / "dbt"

_PR_SET_PDEATHSIG = 1  # prctl(2) option: the signal a process gets when its parent dies


class DbtError(Exception):
    """dbt could not be started, or it failed; the message says which, with dbt's output.

    Attributes:
        command: the command line run.
        returncode: dbt's exit code, or None when it could not be started.
        output: dbt's standard output then standard error, stripped.
    """

    def __init__(self, command: list[str], returncode: int | None, output: str) -> None:
        self.command = command
        self.returncode = returncode
        self.output = output
        verb = command[1] if len(command) > 1 else ""
        if returncode is None:
            message = f"cannot run dbt ({command[0]}): {output}"
        else:
            message = f"dbt {verb} failed (exit {returncode}):\n{output}"
        super().__init__(message)


def _die_with_parent() -> Callable[[], None] | None:
    """What a child runs before dbt starts, so that it dies when this process dies, however.

    On Linux the kernel sends the child SIGKILL when its parent ends (``prctl``'s
    ``PR_SET_PDEATHSIG``, kept across ``exec``), SIGKILL of the parent included; a parent gone
    before that call is caught by the child's parent having changed. Elsewhere: nothing (the
    caller still stops dbt's process group when it is interrupted).
    """
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def set_up() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:
            os._exit(1)

    return set_up


def _stop_group(child: subprocess.Popen, grace: float = 5.0) -> None:
    """Stop a child and its process group: SIGTERM, then SIGKILL after ``grace`` seconds."""
    for number in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, number)
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(timeout=grace)
            return


def executable() -> str:
    """The dbt beside this Python (the project's venv), else the project's ``.venv``, else PATH."""
    for candidate in (Path(sys.executable).parent / "dbt", DBT):
        if candidate.is_file():
            return str(candidate)
    return "dbt"


def run(
    args: Sequence[str],
    *,
    home: Path | None = None,
    warehouse: Path | None = None,
    exports: Path | None = None,
    env: Mapping[str, str | None] | None = None,
    dbt: str | Path | None = None,
    project: Path = PROJECT,
    profiles_dir: Path = PROFILES_DIR,
    check: bool = True,
) -> subprocess.CompletedProcess[str]:
    """Run ``dbt <args>`` in ``project`` and return the finished process (output captured).

    Args:
        args: dbt's arguments (``["build", "--select", ...]``).
        home: ``HOSTAWARE_HOME`` (the lake dbt reads); when given, ``WAREHOUSE_PATH`` and
            ``DBT_PROFILES_DIR`` are set too (``hostaware.paths.dbt_env``).
        warehouse: ``WAREHOUSE_PATH`` (default ``home/warehouse.duckdb``).
        exports: ``HOSTAWARE_EXPORTS``, where the exported marts go (default: unset).
        env: more variables, over the rest; a value of None removes the variable.
        dbt: the dbt executable (default ``executable()``).
        project: the dbt project folder (the working directory).
        profiles_dir: the folder of ``profiles.yml``.
        check: raise ``DbtError`` when dbt exits non-zero.

    Raises:
        DbtError: dbt cannot be started, or (with ``check``) it failed.
    """
    environment = {**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    if home is not None:
        environment |= dbt_env(home, warehouse, profiles_dir=profiles_dir, exports=exports)
    elif warehouse is not None or exports is not None:
        raise ValueError("name the home (the lake dbt reads) with the warehouse or exports")
    for name, value in (env or {}).items():
        if value is None:
            environment.pop(name, None)
        else:
            environment[name] = value
    command = [str(dbt or executable()), *args]
    try:
        child = subprocess.Popen(
            command,
            cwd=project,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            process_group=0,  # its own group, so that all of it can be stopped at once
            preexec_fn=_die_with_parent(),
        )
    except OSError as error:
        raise DbtError(command, None, str(error)) from error
    try:
        stdout, stderr = child.communicate()
    except BaseException:  # interrupted (Ctrl-C, SIGTERM made an exception): dbt stops too
        _stop_group(child)
        raise
    result = subprocess.CompletedProcess(command, child.returncode, stdout, stderr)
    if check and result.returncode != 0:
        raise DbtError(command, result.returncode, (result.stdout + result.stderr).strip())
    return result


@dataclass(frozen=True)
class Measured:
    """A finished command: its wall seconds, peak memory and exit code.

    Attributes:
        seconds: wall time from start to exit.
        peak: the largest RSS of its process tree (summed over the processes), in bytes.
        returncode: its exit code.
    """

    seconds: float
    peak: int
    returncode: int


def _tree_rss(process) -> int:  # a psutil.Process
    import psutil

    total = 0
    for member in [process, *process.children(recursive=True)]:
        with contextlib.suppress(psutil.NoSuchProcess):
            total += member.memory_info().rss
    return total


def measure(
    command: Sequence[str],
    log: Path,
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path = PROJECT,
    interval: float = 0.1,
) -> Measured:
    """Run ``command`` (dbt, or any process a benchmark times), its output to ``log``.

    The process tree's RSS is summed and sampled every ``interval`` seconds (needs psutil,
    imported here so that the rest of this module does not).
    """
    import psutil

    with log.open("w") as output:
        started = time.perf_counter()
        child = subprocess.Popen(
            list(command), cwd=cwd, env=dict(env or os.environ), stdout=output, stderr=output
        )
        watched = psutil.Process(child.pid)
        peak = 0
        while child.poll() is None:
            with contextlib.suppress(psutil.NoSuchProcess):
                peak = max(peak, _tree_rss(watched))
            time.sleep(interval)
        seconds = time.perf_counter() - started
    return Measured(seconds, peak, child.returncode)


def measure_worker(command: Sequence[str], log: Path, out: Path, label: str) -> dict:
    """``measure`` a benchmark's child process that pickles a dict into ``out``.

    Returns that dict with ``seconds`` and ``peak``; a failed child raises ``SystemExit``
    naming ``label`` with the end of its ``log``.
    """
    import pickle

    run = measure(command, log)
    if run.returncode != 0:
        raise SystemExit(f"{label} failed ({run.returncode}):\n{log.read_text()[-6000:]}")
    with out.open("rb") as handle:
        result = pickle.load(handle)
    return {"seconds": run.seconds, "peak": run.peak, **result}


def node_results(target: Path) -> tuple[float, list[dict], list[dict]]:
    """Dbt's ``run_results.json`` under ``target``: its elapsed seconds, nodes and unbuilt.

    Each node: ``node`` ("model name", "test name", ...), ``seconds``, ``status``, ``message``;
    the nodes slowest first; unbuilt = the models and seeds whose status is not success.
    """
    results = json.loads((target / "run_results.json").read_text())
    nodes = [
        {
            "node": node["unique_id"].split(".", 1)[0] + " " + node["unique_id"].rsplit(".", 1)[1],
            "seconds": node["execution_time"],
            "status": node["status"],
            "message": (node["message"] or "").strip(),
        }
        for node in results["results"]
    ]
    nodes.sort(key=lambda node: -node["seconds"])
    unbuilt = [
        n for n in nodes if n["node"].startswith(("model", "seed")) and n["status"] != "success"
    ]
    return results["elapsed_time"], nodes, unbuilt


def gigabytes(value: int) -> float:
    """Bytes in GiB, as the benches print memory."""
    return value / 1024**3


def slowest_nodes(nodes: Sequence[dict], top: int, indent: str = "  ") -> list[str]:
    """Lines naming a build's ``top`` slowest nodes (``node_results``) and their shares."""
    total = sum(node["seconds"] for node in nodes)
    lines = [f"{indent}slowest nodes (of {len(nodes)}; their times sum to {total:.1f} s):"]
    for node in nodes[:top]:
        share = node["seconds"] / total if total else 0.0
        lines.append(f"{indent}  {node['seconds']:>8.2f} s {share:>6.1%}  {node['node']}")
    return lines


def timed_build(
    home: Path,
    warehouse: Path,
    work: Path,
    name: str,
    *,
    select: Sequence[str] = (),
    exclude: Sequence[str] = (),
    with_tests: bool = False,
    threads: int | None = None,
    fresh: bool = True,
    variables: Mapping[str, object] | None = None,
    engine: str = "duckdb",
    environment: Mapping[str, str] | None = None,
) -> dict:
    """One measured ``dbt build`` of ``home``'s lake into a fresh ``warehouse`` (deleted first).

    ``engine`` "spark" builds with dbt-spark from .venv-spark (the ``spark`` target, Spark in
    dbt's process): ``warehouse`` is then the Spark warehouse folder
    (``HOSTAWARE_SPARK_WAREHOUSE``, its Derby metastore inside) and Spark logs errors only
    (``SPARK_CONF_DIR`` spark-conf/, unless set); ``environment`` adds variables to dbt's
    (Spark's driver memory, shuffle partitions, ``SPARK_LOCAL_DIRS``).

    ``select``, ``exclude``: dbt selectors (every node when ``select`` is empty); ``variables``:
    dbt vars (``--vars``) over the project's; ``fresh``
    false builds into ``warehouse`` as it is (a part timed over the parents an earlier build
    made); without ``with_tests`` the data and unit
    tests are left out. dbt's target, logs, exports and output go under ``work`` (named after
    ``name``). Raises ``SystemExit`` with the end of dbt's output when dbt wrote no
    ``run_results.json`` (it failed before building); otherwise returns ``name``,
    ``warehouse``, ``code`` (dbt's exit code), ``seconds`` and ``peak`` (``measure``),
    ``elapsed``, ``nodes`` and ``unbuilt`` (``node_results``), ``target`` and ``log``: whether a
    failed test or an unbuilt model stops the bench is the caller's choice.
    """
    if engine not in ("duckdb", "spark"):
        raise ValueError(f"engine is duckdb or spark, not {engine!r}")
    if fresh and engine == "spark":
        shutil.rmtree(warehouse, ignore_errors=True)
    elif fresh:
        for path in (warehouse, warehouse.with_name(warehouse.name + ".wal")):
            path.unlink(missing_ok=True)
    target, log = work / f"target-{name}", work / f"dbt-{name}.log"
    shutil.rmtree(target, ignore_errors=True)  # no run_results.json of an earlier build
    env = {**os.environ, **dbt_env(home, warehouse, exports=work / f"exports-{name}")}
    env |= {"DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "DBT_LOG_PATH": str(work / f"logs-{name}")}
    dbt, profile_target = executable(), "dev"
    if engine == "spark":
        dbt, profile_target = str(SPARK_DBT), "spark"
        env |= {"HOSTAWARE_SPARK_WAREHOUSE": str(warehouse)}
        env.setdefault("SPARK_CONF_DIR", str(PROJECT / "spark-conf"))
    env |= dict(environment or {})
    command = [dbt, "build", "--target", profile_target, "--target-path", str(target)]
    if select:
        command += ["--select", *select]
    if exclude:
        command += ["--exclude", *exclude]
    if not with_tests:
        command += ["--exclude-resource-type", "test", "unit_test"]
    if threads:
        command += ["--threads", str(threads)]
    if variables:
        command += ["--vars", json.dumps(dict(variables))]
    run = measure(command, log, env=env)
    if not (target / "run_results.json").exists():
        raise SystemExit(
            f"dbt build ({name}) failed ({run.returncode}):\n{log.read_text()[-6000:]}"
        )
    elapsed, nodes, unbuilt = node_results(target)
    return {
        "name": name,
        "warehouse": warehouse,
        "code": run.returncode,
        "seconds": run.seconds,
        "peak": run.peak,
        "elapsed": elapsed,
        "nodes": nodes,
        "unbuilt": unbuilt,
        "target": target,
        "log": log,
    }
