#!/usr/bin/env python3
"""Issue 13's benchmark: many series, xs beside DuckDB in one run.

Data (see ../shared/bench/README.md):
    python3 ../shared/bench/gen.py --out DATA --trades-days 0 --sensor-days 0 \
        --cpu-hosts 30000 --cpu-interval 300 --cpu-days 1 --tick-symbols 1000 --tick-days 1
Run (DuckDB from PyPI: pip install duckdb):
    cargo build --release
    python3 tests/bench/series.py --data DATA --work /tmp/xs-series --runs 5

Measures, for xs (zero-flag imports) and DuckDB (CREATE TABLE AS read_csv):
  import time, rows/s and peak RSS of the whole process (cpu.csv, ticks.csv);
  footprint (allocated bytes over the CSV's size);
  TSBS q1 (one host, one metric, 12 h), q2 (one host, all metrics, 12 h),
  q3 (hourly mean of one metric per host over 12 h, all hosts), lastpoint (each host's
  latest row), reads of every series merged in time order (2 h of cpu, the day of ticks),
  one symbol's day to CSV.
xs queries run as one `xs` process each (what a user runs); DuckDB queries run in-process on a
warm connection (its best case; the CLI pays ~25 ms to start). Medians of --runs.
"""

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time

from measure import median_ms

CPU_ROWS = 8_640_000
TICK_ROWS = 3_453_653
HALF_DAY = ("2021-01-01T06:00:00Z", "2021-01-01T18:00:00Z")


def allocated(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            total += os.lstat(os.path.join(root, f)).st_blocks * 512
    return total


def timed_process(cmd, stdout=subprocess.DEVNULL):
    """Wall seconds and peak RSS (KiB) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=stdout, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return wall, max(after, before)


def peak_rss_of(cmd):
    out = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, check=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return int(out.stderr.strip().splitlines()[-1])


def run(xs, *args, out=subprocess.DEVNULL):
    subprocess.run([xs, *args], check=True, stdout=out, stderr=subprocess.DEVNULL)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--xs", default="target/release/xs")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--skip-import", action="store_true", help="reuse the stores in --work")
    a = ap.parse_args()
    import duckdb

    xs = os.path.abspath(a.xs)
    cpu_csv = os.path.join(a.data, "cpu.csv")
    ticks_csv = os.path.join(a.data, "ticks.csv")
    os.makedirs(a.work, exist_ok=True)
    cpu_db = os.path.join(a.work, "cpu")
    ticks_db = os.path.join(a.work, "ticks")
    duck_path = os.path.join(a.work, "duck.db")
    print(f"xs {xs}; duckdb {duckdb.__version__}; load {os.getloadavg()[0]:.2f}")

    if not a.skip_import:
        for path in (cpu_db, ticks_db):
            shutil.rmtree(path, ignore_errors=True)
        if os.path.exists(duck_path):
            os.remove(duck_path)
        for name, csv, db, rows in (("cpu", cpu_csv, cpu_db, CPU_ROWS), ("ticks", ticks_csv, ticks_db, TICK_ROWS)):
            t0 = time.perf_counter()
            rss = peak_rss_of([xs, "-d", db, "import", "-q", csv])
            wall = time.perf_counter() - t0
            size = os.path.getsize(csv)
            print(f"import {name}: xs {wall:.2f} s, {rows / wall / 1e6:.2f} M rows/s, peak RSS {rss / 1024:.0f} MiB, "
                  f"footprint {allocated(db) / size:.2f} of the CSV")
            script = (f"import duckdb; c = duckdb.connect({duck_path!r}); "
                      f"c.execute(\"CREATE TABLE {name} AS SELECT * FROM read_csv('{csv}')\")")
            before = os.path.getsize(duck_path) if os.path.exists(duck_path) else 0
            t0 = time.perf_counter()
            rss = peak_rss_of([sys.executable, "-c", script])
            wall = time.perf_counter() - t0
            grown = os.path.getsize(duck_path) - before
            print(f"import {name}: duckdb {wall:.2f} s, {rows / wall / 1e6:.2f} M rows/s, peak RSS {rss / 1024:.0f} MiB, "
                  f"footprint {grown / size:.2f} of the CSV")

    con = duckdb.connect(duck_path, read_only=True)
    frm, to = HALF_DAY
    host = "host_12345"
    queries = [
        ("q1 one host, one metric, 12 h",
         [xs, "-d", cpu_db, "range", frm, to, "--series", host, "--columns", "time,usage_user"],
         f"SELECT time, usage_user FROM cpu WHERE hostname = '{host}' AND time >= '{frm}' AND time < '{to}' ORDER BY time"),
        ("q2 one host, all metrics, 12 h",
         [xs, "-d", cpu_db, "range", frm, to, "--series", host],
         f"SELECT * FROM cpu WHERE hostname = '{host}' AND time >= '{frm}' AND time < '{to}' ORDER BY time"),
        ("q3 hourly mean(usage_user) per host, 12 h",
         [xs, "-d", cpu_db, "range", frm, to, "--every", "1h", "--agg", "mean(usage_user)"],
         f"SELECT hostname, time_bucket(INTERVAL 1 hour, time) AS hour, avg(usage_user) FROM cpu "
         f"WHERE time >= '{frm}' AND time < '{to}' GROUP BY ALL"),
        ("lastpoint, every host",
         [xs, "-d", cpu_db, "get", "--asof", "2021-01-02T00:00:00Z"],
         "SELECT * FROM cpu QUALIFY row_number() OVER (PARTITION BY hostname ORDER BY time DESC) = 1"),
        ("every host's rows, 2 h, merged in time order -> CSV",
         [xs, "-d", cpu_db, "range", "2021-01-01T00:00:00Z", "2021-01-01T02:00:00Z"],
         "COPY (SELECT * FROM cpu WHERE time >= '2021-01-01T00:00:00Z' AND time < '2021-01-01T02:00:00Z' "
         "ORDER BY time, hostname) TO '/dev/null' (HEADER)"),
        ("every symbol's day, merged in time order -> CSV",
         [xs, "-d", ticks_db, "range", "2021-01-01", "2021-01-02"],
         "COPY (SELECT * FROM ticks ORDER BY time, symbol) TO '/dev/null' (HEADER)"),
    ]
    for label, cmd, sql in queries:
        x = median_ms(lambda: run(*cmd), a.runs)
        # Like for like: xs writes CSV to /dev/null, so DuckDB does too. Fetching the rows
        # into Python instead makes an object of each value (a time zone's each time): q3's
        # 360,000 rows took DuckDB 2.5-3.4 s that way against 0.4 s written out.
        if not sql.startswith("COPY"):
            sql = f"COPY ({sql}) TO '/dev/null' (HEADER)"
        d = median_ms(lambda: con.execute(sql), a.runs)
        print(f"{label}: xs {x[0]:.1f} ms ({x[1]:.1f}-{x[2]:.1f}), duckdb in-process {d[0]:.1f} ms "
              f"({d[1]:.1f}-{d[2]:.1f}); duckdb/xs {d[0] / x[0]:.2f}")
    # Flat from few to many hosts: q1 on the first host and on the last.
    for h in ("host_0", "host_29999"):
        x = median_ms(lambda: run(xs, "-d", cpu_db, "range", frm, to, "--series", h, "--columns", "time,usage_user"), a.runs)
        print(f"q1 on {h}: xs {x[0]:.1f} ms")

    out = os.path.join(a.work, "one-symbol.csv")
    with open(out, "w") as f:
        x = median_ms(lambda: (f.seek(0), f.truncate(), run(xs, "-d", ticks_db, "range", "2021-01-01", "2021-01-02",
                                                             "--series", "S0000", out=f)), a.runs)
    rows = sum(1 for _ in open(out)) - 1
    dcon = duckdb.connect(duck_path, read_only=True)
    d = median_ms(lambda: dcon.execute(
        f"COPY (SELECT * FROM ticks WHERE symbol = 'S0000' ORDER BY time) TO '{out}.duck.csv' (HEADER)"), a.runs)
    print(f"one symbol's day -> CSV ({rows} rows): xs {x[0]:.1f} ms, duckdb COPY {d[0]:.1f} ms; duckdb/xs {d[0] / x[0]:.2f}")


if __name__ == "__main__":
    main()
