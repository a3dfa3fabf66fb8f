#!/usr/bin/env python3
"""Zero-flag imports of xs beside DuckDB in-process, in turns, on the same files.

    python3 tests/bench/imports.py --runs 5 --xs new=target/release/xs [--xs old=OTHER] FILE...

Each round imports every file with each xs build (`xs import -q FILE -d DIR`, DIR fresh, so xs
infers the schema) and then with DuckDB's Python module (`CREATE TABLE t AS SELECT * FROM
read_csv('FILE')` into a fresh database file, its default threads; the connection is opened
before the clock starts and closed, which checkpoints, inside it). Rounds alternate the
engines, so a slow stretch of a shared machine slows all alike. Prints the median wall time of
each and DuckDB's median over it (above 1: xs is faster). Put FILE and --work on the same
file system (tmpfs here: /dev/shm) so disk speed is not what is measured.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--xs", action="append", required=True, metavar="NAME=PATH")
    ap.add_argument("--work", default="/dev/shm/xs-imports")
    args = ap.parse_args()
    import duckdb  # after the arguments: `--help` works without it

    builds = [spec.split("=", 1) for spec in args.xs]
    os.makedirs(args.work, exist_ok=True)
    db_dir = os.path.join(args.work, "xs")
    duck_file = os.path.join(args.work, "t.duckdb")
    print(f"duckdb {duckdb.__version__}; load {os.getloadavg()[0]:.2f}", flush=True)
    for path in args.files:
        times = {name: [] for name, _ in builds}
        times["duckdb"] = []
        for _ in range(args.runs):
            for name, xs in builds:
                shutil.rmtree(db_dir, ignore_errors=True)
                start = time.perf_counter()
                subprocess.run([xs, "import", "-q", path, "-d", db_dir], check=True)
                times[name].append(time.perf_counter() - start)
            if os.path.exists(duck_file):
                os.remove(duck_file)
            con = duckdb.connect(duck_file)
            start = time.perf_counter()
            con.execute(f"CREATE TABLE t AS SELECT * FROM read_csv('{path}')")
            con.close()
            times["duckdb"].append(time.perf_counter() - start)
        duck = statistics.median(times["duckdb"])
        cells = [os.path.basename(path)]
        for name, _ in builds:
            ms = statistics.median(times[name])
            cells.append(f"{name} {ms * 1000:.1f} ms ({duck / ms:.2f}× DuckDB)")
        cells.append(f"duckdb {duck * 1000:.1f} ms")
        print(" | ".join(cells), flush=True)
    print(f"load {os.getloadavg()[0]:.2f}", flush=True)
    shutil.rmtree(args.work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
