#!/usr/bin/env python3
"""DuckDB reads `xs range` output with the column types the schema says (not a CI test).

Float columns whose values are all whole numbers must still come out DOUBLE: xs prints every
float with a decimal point or an exponent (`52.0`), so DuckDB's `read_csv` type sniffing sees a
float. A `dec(S)` column prints exactly S decimals (`61837.63000000`); DuckDB's CSV sniffer reads
such a column as DOUBLE (it sniffs no DECIMAL from CSV text), which is acceptable for CSV (checked with DuckDB 2.0.0): the
text carries every digit, and `read_csv(..., types={'vol': 'DECIMAL(18,8)'})` reads it exactly.
Usage: python3 tests/bench/duckdb_types.py [XS_BIN] (default target/release/xs). Exits 1
with the types DuckDB chose when one is not the expected type.
"""
import subprocess
import sys
import tempfile
from pathlib import Path

import duckdb

XS = sys.argv[1] if len(sys.argv) > 1 else "target/release/xs"
EXPECTED = {
    "time": "TIMESTAMP WITH TIME ZONE",
    "price": "DOUBLE",  # whole numbers only, below
    "qty": "DOUBLE",  # f32
    "n": "BIGINT",
    "side": "VARCHAR",
    "ok": "BOOLEAN",
    "vol": "DOUBLE",  # dec(8): see above
}


def main() -> int:
    failed = False
    for layout in ("grid", "bucket"):
        with tempfile.TemporaryDirectory() as tmp:
            db = Path(tmp) / "db"
            env = {"XS_LAYOUT": layout, "PATH": "/usr/bin:/bin"}
            run = lambda *a: subprocess.run([XS, *a], check=True, capture_output=True, env=env, text=True)
            run("create", str(db), "-g", "1s", "-c", "price:f64,qty:f32,n:i64,side:str(4),ok:bool,vol:dec(8)")
            csv = Path(tmp) / "in.csv"
            rows = ["time,price,qty,n,side,ok,vol"]
            for i in range(3000):
                rows.append(f"{1704067200 + i},{52 + i % 7},{i % 3},{i},{'buy' if i % 2 else 'sell'},{'true' if i % 3 else 'false'},{i % 5}.{i:08d}")
            csv.write_text("\n".join(rows) + "\n")
            run("-d", str(db), "import", str(csv))
            out = Path(tmp) / "out.csv"
            out.write_text(run("-d", str(db), "range", "2024-01-01", "2024-01-02").stdout)
            described = duckdb.sql(f"DESCRIBE SELECT * FROM read_csv('{out}')").fetchall()
            got = {row[0]: row[1] for row in described}
            bad = {k: (got.get(k), v) for k, v in EXPECTED.items() if got.get(k) != v}
            print(f"{layout}: {got}")
            if bad:
                print(f"{layout}: wrong types (got, want): {bad}")
                failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
