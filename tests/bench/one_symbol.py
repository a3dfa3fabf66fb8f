#!/usr/bin/env python3
"""Issue 13's one symbol's day -> CSV, like for like: xs (ISO times, and epoch-ms times as
DuckDB writes the BIGINT column back) beside DuckDB's in-process COPY, in turn, each round
written to files in OUT_DIR (tmpfs). Medians and quartiles of ROUNDS.

    python3 tests/bench/one_symbol.py XS TICKS_DB TICKS.duckdb [ROUNDS] [OUT_DIR]

TICKS_DB: `xs import ticks.csv` (zero flags); TICKS.duckdb: CREATE TABLE ticks AS SELECT *
FROM read_csv('ticks.csv'). Data: ../shared/bench/gen.py --tick-symbols 1000 --tick-days 1.
"""
import os
import statistics as st
import subprocess
import sys
import time

import duckdb

xs, db, duck = sys.argv[1], sys.argv[2], sys.argv[3]
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 15
out = sys.argv[5] if len(sys.argv) > 5 else "/dev/shm"
con = duckdb.connect(duck, read_only=True)


def ms(f):
    t = time.perf_counter()
    f()
    return (time.perf_counter() - t) * 1e3


day = ["range", "2021-01-01", "2021-01-02", "--series", "S0000"]
cmds = {
    "xs iso": [xs, "-d", db, *day, "-o", f"{out}/one-iso.csv"],
    "xs epoch-ms": [xs, "-d", db, *day, "--time-format", "epoch-ms", "-o", f"{out}/one-ms.csv"],
}
sql = f"COPY (SELECT * FROM ticks WHERE symbol = 'S0000' ORDER BY time) TO '{out}/one-duck.csv' (HEADER)"
res = {k: [] for k in [*cmds, "duckdb COPY"]}
for _ in range(rounds):
    for k, c in cmds.items():
        res[k].append(ms(lambda: subprocess.run(c, check=True)))
    res["duckdb COPY"].append(ms(lambda: con.execute(sql)))
for k, v in res.items():
    v = sorted(v)
    print(f"{k}: median {st.median(v):.1f} ms (q1 {v[len(v) // 4]:.1f}, q3 {v[3 * len(v) // 4]:.1f})")
d = st.median(res["duckdb COPY"])
for k in cmds:
    print(f"duckdb/{k}: {d / st.median(res[k]):.2f}")
for f in ["one-iso.csv", "one-ms.csv", "one-duck.csv"]:
    print(f, os.path.getsize(f"{out}/{f}"), "bytes")
