#!/usr/bin/env python3
"""Wall time of `xs stat` on two databases, for the "stat" section of docs/BENCHMARKS.md.

    python3 tests/bench/stat_bench.py                 # build both databases, measure, print
    python3 tests/bench/stat_bench.py --runs 10 --days 3

  sec1y  one year at 1 s granularity, every slot filled: a 271 MiB partition, one data segment.
  ms3d   1 ms granularity, DAYS days of rows in one year partition: a 265 GiB sparse file of
         which DAYS × 742 MiB is data. stat must walk the data segments and never read the holes.

The partition file is created by `xs put` (so its header is the real one), then its data region
is filled directly with rows (flags byte 0x01 = present, then the f64 value), as docs/FORMAT.md
lays them out. Cold runs drop the partition file's pages from the cache first
(posix_fadvise DONTNEED, this file only); warm runs are hyperfine's.

Environment: XS_BIN        the xs binary (default <repo>/target/release/xs)
             XS_BENCH_DIR  where the databases go (default <repo>/target/bench/stat); about
                           0.3 GB + DAYS × 0.75 GB of disk, removed with --clean
"""
import argparse
import json
import os
import platform
import shutil
import struct
import subprocess
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
ROW = b"\x01" + struct.pack("<d", 61837.63)  # schema v:f64: 1 flags byte + 8 bytes
HEADER_LEN = 4096
NS = 1_000_000_000


def xs(binary, db, *args, capture=True):
    return subprocess.run([binary, "-d", str(db), *args], check=True, capture_output=capture, text=True)


def create(binary, db, granularity, first_time):
    if db.exists():
        shutil.rmtree(db)
    subprocess.run([binary, "create", str(db), "--granularity", granularity, "--columns", "v:f64"],
                   check=True, capture_output=True)
    xs(binary, db, "put", first_time, "1.0")


def fill(path, first_slot, slots):
    """Writes `slots` rows from slot `first_slot` in 1 MiB writes, then fsyncs."""
    per_chunk = (1 << 20) // len(ROW)
    chunk = ROW * per_chunk
    fd = os.open(path, os.O_WRONLY)
    try:
        at = HEADER_LEN + first_slot * len(ROW)
        left = slots
        while left > 0:
            n = min(left, per_chunk)
            os.pwrite(fd, chunk if n == per_chunk else ROW * n, at)
            at += n * len(ROW)
            left -= n
        os.fsync(fd)
    finally:
        os.close(fd)


def drop_cache(db):
    for path in db.glob("*.xs"):
        fd = os.open(path, os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)


def cold(binary, db, args, runs):
    """Wall times, and the bytes the runs read from the device (rusage inblock × 512, max)."""
    times, device_bytes = [], 0
    for _ in range(runs):
        drop_cache(db)
        start = time.perf_counter()
        proc = subprocess.Popen([binary, "-d", str(db), "stat", *args], stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        times.append(time.perf_counter() - start)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            raise SystemExit(f"xs stat failed on {db}")
        device_bytes = max(device_bytes, usage.ru_inblock * 512)
    return times, device_bytes


def warm(binary, db, args, runs):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        cmd = " ".join([binary, "-d", str(db), "stat", *args])
        subprocess.run(["hyperfine", "-N", "--warmup", "1", "--runs", str(runs), "--export-json", out.name,
                        "--style", "none", cmd], check=True, capture_output=True)
        return json.load(open(out.name))["results"][0]["times"]


def cold_cells(binary, db, runs):
    times, device_bytes = cold(binary, db, [], runs)
    return [fmt(times), f"{device_bytes / 2**30:.2f} GiB"]


def fmt(times):
    times = sorted(times)
    return f"{times[len(times) // 2] * 1000:.1f} ms (min {times[0] * 1000:.1f})"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--days", type=int, default=3)
    ap.add_argument("--clean", action="store_true", help="remove the databases afterwards")
    a = ap.parse_args()
    binary = os.environ.get("XS_BIN", str(REPO / "target/release/xs"))
    root = Path(os.environ.get("XS_BENCH_DIR", REPO / "target/bench/stat"))
    root.mkdir(parents=True, exist_ok=True)

    sec = root / "sec1y"
    create(binary, sec, "1s", "2023-01-01T00:00:00Z")
    fill(sec / "2023.xs", 0, 365 * 86_400)

    ms = root / "ms3d"
    create(binary, ms, "1ms", "2024-03-04T00:00:00Z")
    first_slot = (1_709_510_400 - 1_704_067_200) * 1000  # 2024-03-04 from 2024-01-01, in ms
    fill(ms / "2024.xs", first_slot, a.days * 86_400_000)

    print(f"machine: {platform.node()}, {os.cpu_count()} cores, {platform.platform()}")
    print(f"xs: {binary}\n")
    print(f"load average before: {os.getloadavg()[0]:.1f}\n")
    print("| database | logical | physical | rows | stat cold | read from device (cold) | stat warm | stat --fast warm |")
    print("|---|---|---|---|---|---|---|---|")
    for name, db in [("1 s, 1 year full", sec), (f"1 ms, {a.days} days", ms)]:
        report = json.loads(xs(binary, db, "stat", "--json").stdout)["total"]
        row = [
            name,
            f"{report['logical_bytes'] / 2**30:.1f} GiB",
            f"{report['physical_bytes'] / 2**30:.2f} GiB",
            f"{report['rows']:,}",
            *cold_cells(binary, db, a.runs),
            fmt(warm(binary, db, [], a.runs)),
            fmt(warm(binary, db, ["--fast"], a.runs)),
        ]
        print("| " + " | ".join(row) + " |")
    if a.clean:
        shutil.rmtree(root)


if __name__ == "__main__":
    main()
