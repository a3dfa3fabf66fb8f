#!/usr/bin/env python3
"""The real consumers read what xs writes (issue 17): DuckDB and Polars open xs's Parquet files,
Arrow IPC file and stream, and Hive-partitioned dataset, and every count, sum, min, max, type,
null count and first/last row must equal what xs itself says about the database. Any difference
is a failure with the numbers side by side; a missing module is a failure too, never a skip.

    python3 tests/interop/parquet_consumers.py path/to/xs      # .ci/run does this
"""

import csv
import io
import os
import random
import struct
import subprocess
import sys
import tempfile

try:
    import duckdb
    import polars as pl
except ImportError as e:
    sys.exit(f"FAIL: {e}: install the consumers first: pip install duckdb polars")

XS = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/xs")
FAILURES = []

COLUMNS = "a:i8,b:i16,c:i32,d:i64,e:u8,f:u32,g:u64,x:f32,y:f64,ok:bool,side:str(8)"
NUMERIC = ["a", "b", "c", "d", "e", "f", "g", "x", "y"]
DUCK_TYPES = {
    "time": "TIMESTAMP WITH TIME ZONE",
    "a": "TINYINT",
    "b": "SMALLINT",
    "c": "INTEGER",
    "d": "BIGINT",
    "e": "UTINYINT",
    "f": "UINTEGER",
    "g": "UBIGINT",
    "x": "FLOAT",
    "y": "DOUBLE",
    "ok": "BOOLEAN",
    "side": "VARCHAR",
}
POLARS_TYPES = {
    "time": pl.Datetime("ms", "UTC"),
    "a": pl.Int8,
    "b": pl.Int16,
    "c": pl.Int32,
    "d": pl.Int64,
    "e": pl.UInt8,
    "f": pl.UInt32,
    "g": pl.UInt64,
    "x": pl.Float32,
    "y": pl.Float64,
    "ok": pl.Boolean,
    "side": pl.String,
}
FROM, TO = "2024-01-01", "2025-01-01"


def xs(*args, env=None, binary=False):
    out = subprocess.run([XS, *args], capture_output=True, env=env)
    if out.returncode != 0:
        sys.exit(f"FAIL: xs {' '.join(args)} exited {out.returncode}: {out.stderr.decode()}")
    return out.stdout if binary else out.stdout.decode()


def check(what, got, want):
    if got != want:
        FAILURES.append(f"{what}: consumer says {got!r}, xs says {want!r}")


def close(what, got, want):
    if got is None or want is None or abs(got - want) > 1e-9 * max(1.0, abs(want)):
        FAILURES.append(f"{what}: consumer says {got!r}, xs says {want!r}")


def same(what, column, got, want):
    """Equal values; an f32 is compared as f32 (xs prints its shortest f32 text, readers the
    exact binary value widened to a double)."""
    if column == "x" and got is not None and want is not None:
        pack = lambda v: struct.pack("<f", v)
        if pack(got) != pack(want):
            FAILURES.append(f"{what}: consumer says {got!r}, xs says {want!r} (as f32)")
        return
    check(what, got, want)


def number(text):
    if text == "":
        return None
    return float(text) if any(ch in text for ch in ".eEn") else int(text)


def make_input(path, rows):
    """Deterministic rows over 3.2 days across a month's end, every type, nulls, extremes, two
    rows at one time."""
    rnd = random.Random(17)
    t0 = 1_719_705_600_000  # 2024-06-30T00:00:00Z
    with open(path, "w") as f:
        f.write("time,a,b,c,d,e,f,g,x,y,ok,side\n")
        for i in range(rows):
            t = t0 + i * 1_001 - (i % 2)  # pairs share a millisecond
            if i % 101 == 5:
                f.write(f"{t},,,,,,,,,,,\n")
                continue
            # Past i64::MAX once: the u64 column must stay unsigned; sums stay within 64 bits.
            g = 9223372036854775808 if i == 7 else rnd.randrange(1 << 40)
            f.write(
                f"{t},{rnd.randrange(-128, 128)},{rnd.randrange(-32768, 32768)},"
                f"{rnd.randrange(-2**31, 2**31)},{rnd.randrange(-2**44, 2**44)},{rnd.randrange(256)},"
                f"{rnd.randrange(2**32)},{g},{rnd.randrange(-10**6, 10**6) / 64},"
                f"{rnd.uniform(-1e6, 1e6)!r},{'true' if i % 3 else 'false'},"
                f"{rnd.choice(['buy', 'sell', 'séll', ''])}\n"
            )


def expected(db, env):
    """What xs says: per numeric column count, sum, min, max; and the first and last rows."""
    aggs = ",".join(f"sum({c}),min({c}),max({c})" for c in NUMERIC)
    text = xs("-d", db, "range", FROM, TO, "--agg", "count," + aggs, env=env)
    head, row = text.splitlines()
    stats = dict(zip(head.split(","), row.split(",")))
    rows = list(csv.DictReader(io.StringIO(xs("-d", db, "range", FROM, TO, env=env))))
    # Values per column (nulls left out), from xs's own CSV of the same rows.
    for c in NUMERIC:
        stats[f"count_{c}"] = str(sum(1 for r in rows if r[c] != ""))
    return stats, rows


def check_duckdb(label, source, stats, rows):
    con = duckdb.connect()
    types = dict(con.execute(f"SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM {source})").fetchall())
    check(f"{label} duckdb types", types, DUCK_TYPES)
    check(f"{label} duckdb count", con.execute(f"SELECT count(*) FROM {source}").fetchone()[0], int(stats["count"]))
    for c in NUMERIC:
        n, s, lo, hi = con.execute(f"SELECT count({c}), sum({c}), min({c}), max({c}) FROM {source}").fetchone()
        check(f"{label} duckdb count({c})", n, int(stats[f"count_{c}"]))
        close(f"{label} duckdb sum({c})", float(s), float(number(stats[f"sum_{c}"])))
        same(f"{label} duckdb min({c})", c, lo, number(stats[f"min_{c}"]))
        same(f"{label} duckdb max({c})", c, hi, number(stats[f"max_{c}"]))
    nulls = con.execute(f"SELECT count(*) FILTER (WHERE side IS NULL) FROM {source}").fetchone()[0]
    check(f"{label} duckdb null sides", nulls, sum(1 for r in rows if r["side"] == ""))
    first, last = con.execute(
        f"SELECT strftime(min(time), '%Y-%m-%dT%H:%M:%S.%gZ'), strftime(max(time), '%Y-%m-%dT%H:%M:%S.%gZ') FROM {source}"
    ).fetchone()
    check(f"{label} duckdb first time", first, rows[0]["time"])
    check(f"{label} duckdb last time", last, rows[-1]["time"])


def check_polars(label, frame, stats, rows):
    check(f"{label} polars schema", dict(frame.schema), POLARS_TYPES)
    check(f"{label} polars rows", frame.height, int(stats["count"]))
    for c in NUMERIC:
        col = frame[c]
        check(f"{label} polars count({c})", col.len() - col.null_count(), int(stats[f"count_{c}"]))
        close(f"{label} polars sum({c})", float(col.cast(pl.Float64).sum()), float(number(stats[f"sum_{c}"])))
        same(f"{label} polars min({c})", c, col.min(), number(stats[f"min_{c}"]))
        same(f"{label} polars max({c})", c, col.max(), number(stats[f"max_{c}"]))
    for which, i in (("first", 0), ("last", -1)):
        got = frame.row(i, named=True)
        want = rows[i]
        check(f"{label} polars {which} time", got["time"].strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z", want["time"])
        for c in NUMERIC:
            same(f"{label} polars {which} {c}", c, got[c], number(want[c]))
        check(f"{label} polars {which} side", got["side"], want["side"] or None)
        check(f"{label} polars {which} ok", got["ok"], {"true": True, "false": False, "": None}[want["ok"]])


def one_layout(tmp, layout, csv_path):
    env = dict(os.environ, XS_LAYOUT=layout)
    db = os.path.join(tmp, f"db-{layout}")
    xs("create", db, "--granularity", "1ms", "--columns", COLUMNS, "--depth", "2", "--partition", "day", env=env)
    xs("-d", db, "import", csv_path, "--time-unit", "ms", env=env)
    stats, rows = expected(db, env)
    if int(stats["count"]) < 270_000:
        sys.exit(f"FAIL: {layout}: only {stats['count']} rows imported")
    parquet = os.path.join(tmp, f"{layout}.parquet")
    arrow = os.path.join(tmp, f"{layout}.arrow")
    xs("-d", db, "export", "-o", parquet, env=env)
    xs("-d", db, "export", "-o", arrow, env=env)
    check_duckdb(f"{layout} parquet", f"read_parquet('{parquet}')", stats, rows)
    check_polars(f"{layout} parquet", pl.read_parquet(parquet), stats, rows)
    check_polars(f"{layout} arrow file", pl.read_ipc(arrow), stats, rows)
    stream = xs("-d", db, "range", FROM, TO, "--format", "arrow", env=env, binary=True)
    check_polars(f"{layout} arrow stream", pl.read_ipc_stream(io.BytesIO(stream)), stats, rows)
    groups = duckdb.execute(f"SELECT count(DISTINCT row_group_id) FROM parquet_metadata('{parquet}')").fetchone()[0]
    check(f"{layout} row groups", groups, -(-int(stats["count"]) // 262_144))
    # Hive-partitioned by month: the same totals, and a month column from the path.
    ds = os.path.join(tmp, f"ds-{layout}")
    xs("-d", db, "export", "--split", "month", "--format", "parquet", "-o", ds, env=env)
    glob = f"read_parquet('{ds}/**/*.parquet', hive_partitioning = true)"
    months = duckdb.execute(f"SELECT count(DISTINCT month) FROM {glob}").fetchone()[0]
    check(f"{layout} hive months", months, len({r['time'][:7] for r in rows}))
    check_duckdb(f"{layout} hive", f"(SELECT * EXCLUDE (year, month) FROM {glob})", stats, rows)
    scanned = pl.scan_parquet(ds, hive_partitioning=True).drop(["year", "month"]).sort("time", maintain_order=True)
    check(f"{layout} polars hive rows", scanned.select(pl.len()).collect().item(), int(stats["count"]))


def series_dataset(tmp):
    db = os.path.join(tmp, "db-series")
    path = os.path.join(tmp, "ticks.csv")
    rnd = random.Random(5)
    with open(path, "w") as f:
        f.write("time,symbol,price,qty\n")
        for i in range(20_000):
            for sym in ("BTC", "ETH", "SOL"):
                if rnd.random() < 0.7:
                    f.write(f"{1_717_200_000 + i * 300},{sym},{rnd.uniform(1, 100):.2f},{rnd.randrange(1, 9)}\n")
    xs("-d", db, "import", path, "--series-by", "symbol", "--time-unit", "s", "--columns",
       "symbol:str(8),price:f64,qty:i32")
    text = xs("-d", db, "range", FROM, TO, "--agg", "count,sum(qty),min(price),max(price)")
    want = {r["symbol"]: r for r in csv.DictReader(io.StringIO(text))}
    ds = os.path.join(tmp, "ds-series")
    xs("-d", db, "export", "--split", "day", "--format", "parquet", "-o", ds)
    got = duckdb.execute(
        f"SELECT series, count(*), sum(qty), min(price), max(price), any_value(typeof(time)) "
        f"FROM read_parquet('{ds}/**/*.parquet', hive_partitioning = true) GROUP BY series ORDER BY series"
    ).fetchall()
    check("series names", [g[0] for g in got], sorted(want))
    for series, n, qty, lo, hi, ty in got:
        w = want[series]
        check(f"series {series} count", n, int(w["count"]))
        check(f"series {series} sum(qty)", qty, int(w["sum_qty"]))
        check(f"series {series} min(price)", lo, float(w["min_price"]))
        check(f"series {series} max(price)", hi, float(w["max_price"]))
        check(f"series {series} time type", ty, "TIMESTAMP WITH TIME ZONE")
    frame = pl.read_parquet(f"{ds}/**/*.parquet", hive_partitioning=True)
    check("series polars rows", frame.height, sum(int(w["count"]) for w in want.values()))
    check("series polars symbol = series", (frame["symbol"] == frame["series"]).all(), True)


def duckdb_written(tmp):
    """Parquet written by DuckDB (its defaults: Snappy, TIMESTAMPTZ as µs UTC, DECIMAL, VARCHAR)
    imports into xs with its types and values; and Polars' Parquet (zstd, ns timestamps) too."""
    src = os.path.join(tmp, "duck.parquet")
    duckdb.sql(f"""COPY (SELECT TIMESTAMPTZ '2024-08-08 00:00:00+00' + to_milliseconds(i * 250) AS ts,
                      'S' || (i % 5) AS sym, (10000 + i)::DECIMAL(18, 2) AS px,
                      (i * 0.5)::DOUBLE AS q, i % 2 = 0 AS b, i::INTEGER AS n,
                      CASE WHEN i % 7 = 0 THEN NULL ELSE i END AS maybe
                    FROM range(200000) t(i)) TO '{src}' (FORMAT parquet)""")
    db = os.path.join(tmp, "from-duckdb")
    xs("import", src, "-d", db, "-q")
    want = duckdb.sql(f"SELECT count(*), sum(px), sum(q), sum(maybe), min(n), max(n) FROM '{src}'").fetchall()[0]
    text = xs("-d", db, "range", "2024-08-01", "2024-09-01", "--all-series",
              "--agg", "count,sum(px),sum(q),sum(maybe),min(n),max(n)")
    got = next(csv.DictReader(io.StringIO(text)))
    check("duckdb-written count", int(got["count"]), want[0])
    check("duckdb-written sum(px)", got["sum_px"], f"{want[1]:.2f}")
    close("duckdb-written sum(q)", float(got["sum_q"]), want[2])
    check("duckdb-written sum(maybe)", int(got["sum_maybe"]), want[3])
    check("duckdb-written min/max(n)", (int(got["min_n"]), int(got["max_n"])), (want[4], want[5]))
    # Polars writes ns timestamps with zstd; the same rows come back from xs.
    psrc = os.path.join(tmp, "polars.parquet")
    pl.read_parquet(src).write_parquet(psrc)
    pdb = os.path.join(tmp, "from-polars")
    xs("import", psrc, "-d", pdb, "-q")
    check("polars-written rows identical to duckdb-written",
          xs("-d", pdb, "range", "2024-08-01", "2024-09-01"), xs("-d", db, "range", "2024-08-01", "2024-09-01"))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        csv_path = os.path.join(tmp, "all.csv")
        make_input(csv_path, 280_000)
        for layout in ("grid", "bucket"):
            one_layout(tmp, layout, csv_path)
        series_dataset(tmp)
        duckdb_written(tmp)
    if FAILURES:
        print(f"FAIL: {len(FAILURES)} difference(s) between xs and its Parquet/Arrow consumers:", file=sys.stderr)
        for f in FAILURES:
            print("  " + f, file=sys.stderr)
        sys.exit(1)
    print(f"ok: DuckDB {duckdb.__version__} and Polars {pl.__version__} read xs's Parquet and Arrow exactly")


if __name__ == "__main__":
    main()
