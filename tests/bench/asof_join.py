#!/usr/bin/env python3
"""The as-of join (`xs get --asof --join`) beside DuckDB's ASOF JOIN, in one run.

Data (see ../shared/bench/README.md): two days of multi-symbol ticks from gen.py with different
seeds, one as the quotes book, one as the trades to join:
    python3 ../shared/bench/gen.py --out DATA/q --trades-days 0 --sensor-days 0 --tick-symbols 1000 --tick-days 1
    python3 ../shared/bench/gen.py --out DATA/t --seed 7 --trades-days 0 --sensor-days 0 --tick-symbols 1000 --tick-days 1
Run (DuckDB from PyPI: pip install duckdb):
    cargo build --release
    python3 tests/bench/asof_join.py --data DATA --work /tmp/xs-asof --runs 5

Measures (medians of --runs, warm cache):
  join: every trade of DATA/t/ticks.csv with the latest quote of its symbol at or before it,
        written as CSV to /dev/null: one `xs get --asof --join` process against DuckDB's
        `COPY (SELECT … FROM read_csv(trades) ASOF LEFT JOIN quotes …) TO '/dev/null'` on a warm
        in-process connection (its best case); both print the trade's columns and all of the
        quote's ("join"), or its time, price and qty ("join, 3 cols");
  lookups: 1,000 random (symbol, time) pairs, the same two ways.
Both answers are compared: every probe must match a quote at the same time in both.
"""

import argparse
import os
import random
import subprocess

from measure import median_ms


def xs_join(xs, db, probes, out=subprocess.DEVNULL, columns=None):
    extra = ["--columns", ",".join(columns)] if columns else []
    subprocess.run([xs, "-d", db, "get", "--asof", "--join", probes, "--time-format", "epoch-ms", *extra],
                   check=True, stdout=out, stderr=subprocess.DEVNULL)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--xs", default="target/release/xs")
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    import duckdb

    quotes_csv = os.path.join(a.data, "q", "ticks.csv")
    trades_csv = os.path.join(a.data, "t", "ticks.csv")
    os.makedirs(a.work, exist_ok=True)
    db = os.path.join(a.work, "quotes")
    if not os.path.exists(db):
        subprocess.run([a.xs, "import", quotes_csv, "-d", db, "-q"], check=True)
    con = duckdb.connect(os.path.join(a.work, "quotes.duckdb"))
    con.execute("CREATE TABLE IF NOT EXISTS quotes AS SELECT * FROM read_csv(?)", [quotes_csv])

    # 1,000 random (symbol, time) probes over the day, symbols drawn from the stored ones.
    rng = random.Random(13)
    symbols = [r[0] for r in con.execute("SELECT DISTINCT symbol FROM quotes ORDER BY 1").fetchall()]
    lo, hi = con.execute("SELECT min(time), max(time) FROM quotes").fetchone()
    pairs = os.path.join(a.work, "pairs.csv")
    with open(pairs, "w") as f:
        f.write("symbol,time\n")
        for _ in range(1000):
            f.write(f"{rng.choice(symbols)},{rng.randint(lo, hi)}\n")

    # Both print the same columns: every probe column, then the matched quote's columns (all
    # of them, as xs does by default; or the three of `--columns time,price,qty`).
    all_columns = ["time", "symbol", "price", "qty", "side", "trade_id"]

    def duck(probes, columns=None):
        picked = ", ".join(f"q.{c} AS q_{c}" for c in (columns or all_columns))
        return (f"SELECT p.*, {picked} "
                f"FROM read_csv('{probes}') p ASOF LEFT JOIN quotes q "
                f"ON p.symbol = q.symbol AND p.time >= q.time")

    results = {}
    three = ["time", "price", "qty"]
    for name, probes, columns in [("join", trades_csv, None), ("join, 3 cols", trades_csv, three),
                                  ("lookups", pairs, None)]:
        n = sum(1 for _ in open(probes)) - 1
        # The answers agree: the matched quote time of every probe.
        out = os.path.join(a.work, f"{name.split(',')[0]}.xs.csv")
        with open(out, "w") as f:
            xs_join(a.xs, db, probes, out=f, columns=columns)
        with open(out) as f:
            header = f.readline().rstrip("\n").split(",")
            qt = header.index("quotes.time")
            tcol = header.index("time")
            got = sorted((int(r[tcol]), r[header.index("symbol")], r[qt])
                         for r in (line.rstrip("\n").split(",") for line in f))
        want = sorted((int(t), s, "" if q is None else str(q)) for t, s, q in con.execute(
            f"SELECT p.time, p.symbol, q.time FROM read_csv('{probes}') p ASOF LEFT JOIN quotes q "
            f"ON p.symbol = q.symbol AND p.time >= q.time").fetchall())
        assert got == want, f"{name}: xs and DuckDB disagree"
        xs_ms = median_ms(lambda: xs_join(a.xs, db, probes, columns=columns), a.runs)
        dk_ms = median_ms(lambda: con.execute(f"COPY ({duck(probes, columns)}) TO '/dev/null' (FORMAT CSV)"),
                          a.runs)
        results[name] = (n, xs_ms, dk_ms)

    print(f"{'':12} {'probes':>10} {'xs ms (min-max)':>24} {'DuckDB ms (min-max)':>24} {'ratio':>7}")
    for name, (n, x, d) in results.items():
        print(f"{name:12} {n:>10,} {x[0]:>10.1f} ({x[1]:.1f}-{x[2]:.1f}) {d[0]:>10.1f} ({d[1]:.1f}-{d[2]:.1f})"
              f" {d[0] / x[0]:>6.2f}x")
    print("(answers identical: every probe matched the same quote time in both)")


if __name__ == "__main__":
    main()
