"""In-process query latency of a peer through its Python module; bench.py runs it, one process per
engine and dataset, with the venv's python (where the duckdb module lives).

stdin:  {"engine": "sqlite" | "duckdb", "db": PATH, "lookup_sql": SQL with one "?", "keys": [...],
         "agg_sql": SQL or null, "agg_runs": N}
stdout: {"lookup_us": [one latency per key], "lookup_misses": keys that found no row,
         "agg_ms": [one per run]}

A lookup is execute(sql, (key,)) + fetchall() on one read-only connection: Python's sqlite3
module caches the prepared statement; duckdb's execute() binds the parameter to the same SQL.
"""
import json
import sys
import time

WARMUP_LOOKUPS = 100


def connect(engine, db):
    if engine == "sqlite":
        import sqlite3
        return sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    import duckdb
    return duckdb.connect(db, read_only=True)


def timed_query(con, sql, params=()):
    """(nanoseconds, rows returned) of one query, rows fetched."""
    start = time.perf_counter_ns()
    rows = con.execute(sql, params).fetchall()
    return time.perf_counter_ns() - start, len(rows)


def lookups(con, sql, keys):
    """Latencies in µs of one lookup per key, and how many keys found no row (should be 0)."""
    for key in keys[:WARMUP_LOOKUPS]:
        timed_query(con, sql, (key,))
    timings = [timed_query(con, sql, (key,)) for key in keys]
    return [ns / 1e3 for ns, _ in timings], sum(1 for _, rows in timings if rows == 0)


def main():
    spec = json.load(sys.stdin)
    con = connect(spec["engine"], spec["db"])
    latencies_us, misses = lookups(con, spec["lookup_sql"], spec["keys"])
    result = {"lookup_us": latencies_us, "lookup_misses": misses}
    if spec["agg_sql"]:
        timed_query(con, spec["agg_sql"])
        result["agg_ms"] = [timed_query(con, spec["agg_sql"])[0] / 1e6
                            for _ in range(spec["agg_runs"])]
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
