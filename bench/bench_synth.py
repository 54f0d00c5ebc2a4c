"""Time the demo-crawl generator at each scale and measure its peak memory.

Runs ``python -m demo crawl`` in a child process per scale and samples the resident memory
of the child and its workers (summed) every 50 ms. Prints one line per scale and the generator's
own per-step timings.

    .venv/bin/python bench/bench_synth.py --scales demo paper --out /tmp/synth-bench
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import psutil

LIMITS = {"tiny": (10.0, None), "demo": (60.0, None), "paper": (900.0, 8 * 1024**3)}


def _tree_rss(process: psutil.Process) -> int:
    total = 0
    for member in [process, *process.children(recursive=True)]:
        with contextlib.suppress(psutil.NoSuchProcess):
            total += member.memory_info().rss
    return total


def run(scale: str, out: Path, seed: int) -> dict:
    target = out / scale / "raw"
    shutil.rmtree(out / scale, ignore_errors=True)
    command = [
        sys.executable,
        "-m",
        "demo",
        "crawl",
        "--out",
        str(target),
        "--scale",
        scale,
        "--seed",
        str(seed),
    ]
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    watched = psutil.Process(child.pid)
    peak = 0
    while child.poll() is None:
        try:
            peak = max(peak, _tree_rss(watched))
        except psutil.NoSuchProcess:
            break
        time.sleep(0.05)
    stdout, stderr = child.communicate()
    seconds = time.perf_counter() - started
    if child.returncode != 0:
        raise SystemExit(f"synth {scale} failed ({child.returncode}):\n{stderr}")
    truth = json.loads((target / "truth.json").read_text())
    size = sum(p.stat().st_size for p in (out / scale).rglob("*") if p.is_file())
    return {
        "scale": scale,
        "seconds": seconds,
        "peak_rss_bytes": peak,
        "bytes_written": size,
        "documents": truth["documents"]["count"],
        "hosts_ge3": truth["documents"]["hosts_with_ge3"],
        "documents_on_hosts_ge3": truth["documents"]["count_on_hosts_with_ge3"],
        "graph_hosts": truth["hosts"]["graph_host_count"],
        "summary": stdout.strip(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", nargs="+", default=["demo", "paper"], choices=list(LIMITS))
    parser.add_argument("--out", type=Path, default=Path("build/bench-synth"))
    parser.add_argument("--seed", type=int, default=20241010)
    args = parser.parse_args()
    print(f"cores: {psutil.cpu_count()}, memory: {psutil.virtual_memory().total / 1024**3:.1f} GiB")
    print(
        f"{'scale':<6} {'seconds':>8} {'limit':>6} {'peak RSS':>10} {'written':>10} "
        f"{'docs':>10} {'hosts>=3':>9} {'graph hosts':>12}"
    )
    for scale in args.scales:
        result = run(scale, args.out, args.seed)
        limit_seconds, limit_memory = LIMITS[scale]
        verdict = "ok" if result["seconds"] <= limit_seconds else "SLOW"
        if limit_memory and result["peak_rss_bytes"] > limit_memory:
            verdict += " MEMORY"
        peak_gb = result["peak_rss_bytes"] / 1024**3
        written_mb = result["bytes_written"] / 1024**2
        print(
            f"{scale:<6} {result['seconds']:>8.1f} {limit_seconds:>6.0f} {peak_gb:>8.2f}GB "
            f"{written_mb:>8.0f}MB {result['documents']:>10,} {result['hosts_ge3']:>9,} "
            f"{result['graph_hosts']:>12,}  {verdict}"
        )
        print(f"       {result['summary'].splitlines()[-1]}")


if __name__ == "__main__":
    main()
