"""Timing primitives: one process under /usr/bin/time, repeated runs under hyperfine, disk usage.

Every failure of a measured command becomes a CommandFailed whose message is the first line of the
command's stderr, so a caller can record it as "n/a" and go on.
"""
import json
import os
import shlex
import shutil
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

TIMEOUT_S = 1800  # a hung command (an xs under construction, say) must not hang the whole run


class CommandFailed(Exception):
    """A measured command could not run, exited non-zero or timed out."""


@dataclass(frozen=True)
class ProcessRun:
    wall_s: float
    peak_rss_mb: float


def first_line(text):
    lines = text.strip().splitlines()
    return lines[0] if lines else ""


def _run(cmd, stdout, wrapper=()):
    """subprocess.run of [*wrapper, *cmd] that turns every way of failing into CommandFailed."""
    for program in (*wrapper[:1], cmd[0]):
        if not shutil.which(program):
            raise CommandFailed(f"not found: {program}")
    try:
        proc = subprocess.run([*wrapper, *cmd], stdin=subprocess.DEVNULL, stdout=stdout,
                              stderr=subprocess.PIPE, timeout=TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise CommandFailed(f"timed out after {TIMEOUT_S} s") from None
    if proc.returncode != 0:
        message = first_line(proc.stderr.decode(errors="replace"))
        raise CommandFailed(message or f"exit status {proc.returncode}")
    return proc


def run_timed(cmd):
    """Runs cmd once under `/usr/bin/time -f %M`: wall time (perf_counter) and peak RSS."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        start = time.perf_counter()
        _run(cmd, subprocess.DEVNULL, wrapper=("/usr/bin/time", "-f", "%M", "-o", report.name))
        wall_s = time.perf_counter() - start
        peak_rss_kb = int(report.read().split()[-1])
    return ProcessRun(wall_s, peak_rss_kb / 1024)


def median_ms(fn, runs):
    """(median, min, max) in milliseconds of `runs` calls of fn in this process."""
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), min(times), max(times)


def count_output_lines(cmd):
    """Runs cmd once (the probe before timing it) and returns how many lines it printed."""
    return _run(cmd, subprocess.PIPE).stdout.count(b"\n")


def hyperfine(cmd, runs, warmup):
    """Wall times in seconds of `runs` runs of cmd (no shell; its stdout goes through a pipe)."""
    with tempfile.NamedTemporaryFile("r", suffix=".json") as export:
        _run(["hyperfine", "--shell=none", "--style", "none", "--output", "pipe",
              "--warmup", str(warmup), "--runs", str(runs),
              "--export-json", export.name, shlex.join(cmd)], subprocess.DEVNULL)
        return json.load(export)["results"][0]["times"]


def disk_usage(path):
    """(physical, apparent) bytes of a file or directory tree: st_blocks × 512 and st_size,
    so the sparse files of an xs database count for what they really allocate."""
    path = Path(path)
    files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
    stats = [os.stat(p) for p in files]
    return sum(s.st_blocks * 512 for s in stats), sum(s.st_size for s in stats)


def summary(values):
    """Median, min and max of a list of numbers."""
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "n": len(values)}
