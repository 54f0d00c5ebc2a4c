"""The crawl plan's command line (``python -m plan``): arguments, a failing dbt, the what-if.

Plain unit tests need no warehouse: the arguments and output checked before any work, a failing
dbt, a what-if plan with a fake dbt that leaves the shared warehouse alone. Tests marked
``warehouse`` run ``python -m plan`` on a copy of the tiny crawl's warehouse
(``tiny_warehouse_path`` in tests/conftest.py, named by ``HOSTAWARE_TEST_WAREHOUSE``; skipped
when unset): dbt rewrites the plan on a scratch copy.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow.parquet as pq
import pytest

from hostaware.paths import HOME_VARIABLE, PROJECT, WAREHOUSE_VARIABLE
from plan.__main__ import main
from plan.crawl_plan import (
    MAX_BUDGET_PAGES,
    PlanError,
    PlanRequest,
    check_budget,
    dbt_vars,
    make_plan,
    output_format,
    run_dbt,
    sweep_scratch,
)
from tests.fixtures.processes import alive

# ----------------------------------------------------------------------- without a warehouse


def test_plan_output_format_comes_from_the_suffix():
    assert output_format(Path("plan.csv")) == "csv"
    assert output_format(Path("PLAN.Parquet")) == "parquet"
    with pytest.raises(PlanError, match=r"\.csv or \.parquet"):
        output_format(Path("plan.json"))


def test_plan_passes_only_the_vars_given():
    assert json.loads(dbt_vars(PlanRequest(500, Path("p.csv")))) == {
        "plan_budget_pages": 500,
        "plan_constraint_costs": False,
        "plan_changes": False,
    }
    assert json.loads(dbt_vars(PlanRequest(500, Path("p.csv"), 2, 0.25))) == {
        "plan_budget_pages": 500,
        "plan_constraint_costs": False,
        "plan_changes": False,
        "plan_sample_size": 2,
        "plan_exploration_share": 0.25,
    }


def test_plan_with_a_bad_suffix_fails_before_running_dbt(tmp_path: Path, capsys):
    code = main(["--budget", "10", "--out", str(tmp_path / "plan.txt")])
    assert code == 2
    assert "must end in .csv or .parquet" in capsys.readouterr().err


def test_plan_arguments_are_checked(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--budget", "0", "--out", "plan.csv"])
    assert exit_info.value.code == 2
    with pytest.raises(SystemExit):
        main(["--budget", "10", "--out", "p.csv", "--exploration-share", "1.5"])
    assert "must be in [0, 1]" in capsys.readouterr().err


def test_a_failing_dbt_is_an_error_with_dbts_message(tmp_path: Path):
    fake = tmp_path / "dbt"
    fake.write_text(
        '#!/bin/sh\necho "Compilation Error in model plan_host_fetch_budget: $*"\nexit 2\n'
    )
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    warehouse = tmp_path / "warehouse.duckdb"
    scratch = tmp_path / "scratch"
    request = PlanRequest(10, tmp_path / "p.csv")
    with pytest.raises(PlanError) as error:
        run_dbt(request, warehouse, tmp_path / "home", scratch, str(fake))
    message = str(error.value)
    assert "dbt run failed (exit 2)" in message
    assert "Compilation Error in model plan_host_fetch_budget" in message
    assert "--select int_plan_hosts+" in message
    assert '"plan_constraint_costs": false, "plan_changes": false}' in message
    assert f"--target-path {scratch / 'target'} --log-path {scratch / 'logs'}" in message
    assert (scratch / "exports").is_dir(), "the external models' folder exists first"
    assert not (tmp_path / "home").exists(), "nothing is written in the shared home"


@pytest.mark.parametrize(
    ("budget", "message"),
    [
        ("1e30", "argument --budget: not an integer: '1e30'"),
        ("10" + "0" * 30, f"must be at most {MAX_BUDGET_PAGES:,} pages (2**53)"),
        (str(2**53 + 1), f"must be at most {MAX_BUDGET_PAGES:,} pages (2**53)"),
        ("-5", "must be >= 1, got -5"),
        ("ten", "not an integer: 'ten'"),
    ],
)
def test_a_bad_budget_is_a_one_line_error_before_any_work(budget, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--budget", budget, "--out", "plan.csv", "--warehouse", "/nonexistent"])
    assert exit_info.value.code == 2
    error = capsys.readouterr().err
    assert message in error
    assert len(error.strip().splitlines()) == 1, error


def test_the_largest_budget_is_two_to_the_53_pages():
    assert check_budget(2**53) == 2**53
    for bad in (0, 2**53 + 1, 1.5, True):
        with pytest.raises(PlanError, match="--budget must be"):
            check_budget(bad)


def _out_cases(tmp_path: Path) -> list[tuple[Path, str]]:
    folder = tmp_path / "already-a-folder.csv"
    folder.mkdir()
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder\n")
    cases = [
        (folder, "is a folder: name the file to write"),
        (a_file / "plan.csv", "is not a folder"),
        (a_file / "deeper" / "plan.parquet", "is not a folder"),
        (Path("/proc/plan.csv"), "cannot write in /proc"),  # root too: the mode says writable
        (Path("/proc/hostaware/plan.csv"), "cannot write in /proc"),
    ]
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o500)
        cases.append((locked / "plan.csv", "cannot write in"))
    return cases


def test_an_unwritable_out_fails_before_any_work(tmp_path: Path, capsys):
    ran = tmp_path / "dbt-ran"
    fake = tmp_path / "dbt"
    fake.write_text(f"#!/bin/sh\ntouch {ran}\nexit 0\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    warehouse = tmp_path / "warehouse.duckdb"
    duckdb.connect(str(warehouse)).close()
    for out, message in _out_cases(tmp_path):
        with pytest.raises(PlanError, match=message):
            make_plan(PlanRequest(10, out), warehouse, tmp_path, str(fake))
        code = main(["--budget", "10", "--out", str(out), "--warehouse", "/nonexistent"])
        assert code == 2, out
        error = capsys.readouterr().err
        assert message in error and "no warehouse" not in error, error
        assert len(error.strip().splitlines()) == 1, error
    assert not ran.exists(), "dbt must not run"
    assert not list(tmp_path.rglob("*.partial"))


def test_an_out_ending_in_a_slash_names_a_folder_and_is_refused(tmp_path: Path, capsys):
    """Finding 12: ``--out plan.csv/`` was read as the file plan.csv (a Path drops the /)."""
    (tmp_path / "folder.csv").mkdir()
    (tmp_path / "file.csv").write_text("a file\n")
    for name in ("new.csv", "folder.csv", "file.csv"):
        out = f"{tmp_path / name}/"
        assert main(["--budget", "10", "--out", out, "--warehouse", "/nonexistent"]) == 2
        error = capsys.readouterr().err
        assert f"--out {out} ends in /, so it names a folder" in error, error
        assert len(error.strip().splitlines()) == 1, error
    assert sorted(path.name for path in tmp_path.iterdir()) == ["file.csv", "folder.csv"]


_FAKE_PLAN_DBT = """#!{python}
import json, os, sys
from pathlib import Path
import duckdb
Path(os.environ["CALLED"]).write_text(json.dumps({{"env": dict(os.environ), "argv": sys.argv}}))
budget = json.loads(sys.argv[sys.argv.index("--vars") + 1])["plan_budget_pages"]
with duckdb.connect(os.environ["WAREHOUSE_PATH"]) as connection:
    connection.execute(
        "create or replace table plan_host_fetch_budget as select 'com,a' as surt_host_name,"
        " 'deepen' as phase, ?::bigint as known_url_count, 0::bigint as pages_sampled,"
        " ?::bigint as pages_deepened, 0::bigint as pages_explored,"
        " ?::bigint as pages_to_fetch, 0.5 * ? as expected_hq",
        [budget, budget, budget, budget],
    )
"""


def test_a_what_if_plan_leaves_the_shared_warehouse_exports_and_target_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    home = tmp_path / "home"
    (home / "exports").mkdir(parents=True)
    exported = home / "exports" / "plan_host_fetch_budget.parquet"
    exported.write_bytes(b"the shared plan's export")
    warehouse = home / "warehouse.duckdb"
    with duckdb.connect(str(warehouse)) as connection:
        connection.execute(
            "create table plan_host_fetch_budget as select 'com,a' as surt_host_name,"
            " 'deepen' as phase, 5000::bigint as known_url_count, 0::bigint as pages_sampled,"
            " 500::bigint as pages_deepened, 0::bigint as pages_explored,"
            " 500::bigint as pages_to_fetch, 250.0 as expected_hq"
        )
    before = warehouse.read_bytes()
    fake = tmp_path / "dbt"
    fake.write_text(_FAKE_PLAN_DBT.format(python=sys.executable))
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    called = tmp_path / "called.json"
    monkeypatch.setenv("CALLED", str(called))
    request = PlanRequest(100, tmp_path / "out" / "plan.csv")
    summary = make_plan(request, warehouse, home, str(fake))
    plan = pd.read_csv(tmp_path / "out" / "plan.csv")
    assert plan["pages_to_fetch"].tolist() == [100], "the what-if plan is written"
    assert "budget: 100 pages spent of 100 asked" in summary
    assert warehouse.read_bytes() == before, "the shared warehouse is not written"
    with duckdb.connect(str(warehouse), read_only=True) as connection:
        (spent,) = connection.execute(
            "select sum(pages_to_fetch) from plan_host_fetch_budget"
        ).fetchone()
    assert spent == 500
    assert exported.read_bytes() == b"the shared plan's export"
    assert sorted(path.name for path in home.iterdir()) == ["exports", "warehouse.duckdb"]
    run = json.loads(called.read_text())
    scratch = Path(run["env"]["WAREHOUSE_PATH"]).parent
    assert scratch != home and run["env"]["WAREHOUSE_PATH"].endswith("/warehouse.duckdb")
    assert run["env"]["HOSTAWARE_EXPORTS"] == str(scratch / "exports")
    assert run["env"]["HOSTAWARE_HOME"] == str(home.resolve()), "the lake is still read from home"
    assert run["argv"][-4:] == [
        "--target-path",
        str(scratch / "target"),
        "--log-path",
        str(scratch / "logs"),
    ]
    assert not scratch.exists(), "the scratch folder is removed"
    assert not list(tmp_path.rglob("*.partial"))


# A plan run with a fake dbt (its path is the first argument), as ``python -m plan`` runs.
_PLAN_WITH_DBT = (
    "import sys; import hostaware.dbt as dbt; dbt.executable = lambda: sys.argv[1]; "
    "from plan.__main__ import main; sys.exit(main(sys.argv[2:]))"
)


def _start_plan(tmp_path: Path, dbt_script: str) -> subprocess.Popen:
    """``python -m plan`` on an empty warehouse with a fake dbt, its scratch in tmp/temp."""
    fake = tmp_path / f"dbt-{len(list(tmp_path.glob('dbt-*')))}"
    fake.write_text(dbt_script)
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    warehouse = home / "warehouse.duckdb"
    if not warehouse.exists():
        duckdb.connect(str(warehouse)).close()
    (tmp_path / "temp").mkdir(exist_ok=True)
    env = {**os.environ, HOME_VARIABLE: str(home), "TMPDIR": str(tmp_path / "temp")}
    env["DBT_PID"] = str(tmp_path / "dbt.pid")
    argv = ["--budget", "10", "--out", str(tmp_path / "plan.csv"), "--warehouse", str(warehouse)]
    return subprocess.Popen(
        [sys.executable, "-c", _PLAN_WITH_DBT, str(fake), *argv],
        cwd=PROJECT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_a_stopped_or_killed_plan_leaves_no_dbt_and_no_scratch(number: int, tmp_path: Path):
    """Finding 12: a killed ``python -m plan`` left its ``dbt run`` running and its scratch
    copy of the warehouse in the temporary folder. Now dbt dies with it, and the scratch goes
    with it (SIGTERM, Ctrl-C) or with the next plan (SIGKILL leaves no time)."""
    pid_file = tmp_path / "dbt.pid"
    plan = _start_plan(tmp_path, '#!/bin/sh\necho $$ > "$DBT_PID.tmp"\n'
                                 'mv "$DBT_PID.tmp" "$DBT_PID"\nexec sleep 600\n')  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not pid_file.exists():  # dbt says it runs: no fixed wait
            assert plan.poll() is None, plan.communicate()
            assert time.monotonic() < deadline, "dbt never started"
            time.sleep(0.02)
        dbt_pid = int(pid_file.read_text())
        (scratch,) = (tmp_path / "temp").glob("hostaware-plan-*")
        assert scratch.name.startswith(f"hostaware-plan-{plan.pid}-")
        assert (scratch / "warehouse.duckdb").is_file() and alive(dbt_pid)
        os.kill(plan.pid, number)
        _, stderr = plan.communicate(timeout=120)
    finally:
        plan.kill()
    assert plan.returncode == -number, stderr
    deadline = time.monotonic() + 30  # the kernel kills it at once; this is only a bound
    while alive(dbt_pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not alive(dbt_pid), "dbt outlived the plan"
    if number == signal.SIGKILL:
        assert scratch.is_dir(), "a SIGKILL leaves no time to clean up"
        again = _start_plan(tmp_path, "#!/bin/sh\necho dbt failed\nexit 3\n")
        _, stderr = again.communicate(timeout=120)
        assert again.returncode == 2 and "dbt run failed (exit 3)" in stderr, stderr
    else:
        assert f"python -m plan: stopped by {signal.Signals(number).name}" in stderr
    assert not list((tmp_path / "temp").iterdir()), "scratch left behind"
    assert not (tmp_path / "plan.csv").exists()


def test_only_the_scratch_of_processes_that_are_gone_is_swept(tmp_path: Path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    stale = tmp_path / f"hostaware-plan-{int(dead.stdout)}-abc"
    mine = tmp_path / f"hostaware-plan-{os.getpid()}-def"
    other = tmp_path / "hostaware-plan-notapid-x"
    for folder in (stale, mine, other):
        (folder / "target").mkdir(parents=True)
        (folder / "warehouse.duckdb").write_bytes(b"scratch")
    assert sweep_scratch(tmp_path) == [stale]
    assert sorted(tmp_path.iterdir()) == sorted([mine, other])


# ----------------------------------------------------------------------- on the tiny warehouse


@pytest.fixture(scope="module")
def warehouse_copy(tiny_warehouse_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    warehouse = tiny_warehouse_path
    home = tmp_path_factory.mktemp("plan-home")
    shutil.copy2(warehouse, home / "warehouse.duckdb")
    wal = warehouse.with_name(warehouse.name + ".wal")
    if wal.exists():
        shutil.copy2(wal, home / "warehouse.duckdb.wal")
    return home / "warehouse.duckdb"


def _plan(warehouse_copy: Path, *arguments: str) -> subprocess.CompletedProcess:
    home = warehouse_copy.parent
    env = {
        **os.environ,
        HOME_VARIABLE: str(home),
        "DBT_TARGET_PATH": str(home / "target"),
        "DBT_LOG_PATH": str(home / "logs"),
    }
    env.pop(WAREHOUSE_VARIABLE, None)
    command = [sys.executable, "-m", "plan", "--warehouse", str(warehouse_copy)]
    return subprocess.run(
        [*command, *arguments], cwd=PROJECT, env=env, capture_output=True, text=True, check=False
    )


def _shared_plan(warehouse: Path) -> tuple[int, bytes]:
    """The pages of the warehouse's own plan, and the bytes of its exported file."""
    with duckdb.connect(str(warehouse), read_only=True) as connection:
        (spent,) = connection.execute(
            "select sum(pages_to_fetch) from plan_host_fetch_budget"
        ).fetchone()
    exported = warehouse.parent / "exports" / "plan_host_fetch_budget.parquet"
    return int(spent), exported.read_bytes() if exported.exists() else b""


def _known_urls(warehouse: Path) -> int:
    with duckdb.connect(str(warehouse), read_only=True) as connection:
        (known,) = connection.execute(
            "select sum(known_url_count) from plan_host_fetch_budget"
        ).fetchone()
    return int(known)


@pytest.mark.warehouse
@pytest.mark.parametrize(
    ("suffix", "options"),
    [(".csv", ()), (".parquet", ("--sample-size", "2", "--exploration-share", "0.2"))],
)
def test_plan_writes_a_file_that_spends_the_budget(warehouse_copy: Path, suffix, options):
    budget = min(1000, _known_urls(warehouse_copy) // 3)
    shared_before = _shared_plan(warehouse_copy)
    out = warehouse_copy.parent / f"plan{suffix}"
    result = _plan(warehouse_copy, "--budget", str(budget), "--out", str(out), *options)
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr}"
    assert budget < _known_urls(warehouse_copy)
    plan = pd.read_csv(out) if suffix == ".csv" else pq.read_table(out).to_pandas()
    assert plan["pages_to_fetch"].sum() == budget
    assert plan["surt_host_name"].is_unique
    assert (plan["pages_to_fetch"] <= plan["known_url_count"]).all()
    assert f"budget: {budget:,} pages spent of {budget:,} asked" in result.stdout
    assert "expected HQ pages:" in result.stdout
    for phase in ("sample", "deepen", "explore"):
        assert re.search(rf"^{phase}\s", result.stdout, re.MULTILINE), phase
    # a what-if plan: the warehouse's plan, its export and dbt's target folder are unchanged
    assert _shared_plan(warehouse_copy) == shared_before
    assert not (warehouse_copy.parent / "target").exists()
