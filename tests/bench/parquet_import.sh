#!/usr/bin/env bash
# Parquet import beside DuckDB, in one run (docs/BENCHMARKS.md, "Parquet import beside DuckDB"):
# `xs import FILE.parquet` into a new database vs DuckDB's
# `CREATE TABLE t AS SELECT * FROM read_parquet(FILE)` into a new database file (python duckdb),
# alternating, with hyperfine; then wall, user and system CPU and peak RSS of one run each with
# GNU time.
#
#   tests/bench/parquet_import.sh XS TRADES_CSV WORKDIR [XS_OTHER] [RUNS]
#
# TRADES_CSV: ../shared/bench/gen.py's trades.csv (8,568,430 rows); the Parquet file is made from
# it once by DuckDB: COPY (SELECT * FROM read_csv(TRADES_CSV)) TO 'trades.parquet'. XS_OTHER: a
# second xs build (e.g. the one before a change) timed beside the first. Needs python3 with
# duckdb (pip install duckdb), hyperfine and /usr/bin/time.
set -euo pipefail
xs=$(realpath "$1")
csv=$(realpath "$2")
work=$3
other=${4:+$(realpath "$4")}
runs=${5:-3}
mkdir -p "$work"
cd "$work"
[ -f trades.parquet ] || python3 -c "import duckdb; duckdb.sql(\"COPY (SELECT * FROM read_csv('$csv')) TO 'trades.parquet'\")"
duck="python3 -c \"import duckdb; duckdb.connect('d.duckdb').execute(\\\"CREATE TABLE t AS SELECT * FROM read_parquet('trades.parquet')\\\")\""
cmds=(-n xs "$xs import trades.parquet -d pq -q"
      -n duckdb-ctas "$duck")
prep='rm -rf pq pq-other d.duckdb d.duckdb.wal'
if [ -n "$other" ]; then
  cmds+=(-n xs-other "$other import trades.parquet -d pq-other -q")
fi
hyperfine --runs "$runs" --prepare "$prep" --export-json parquet-import.json "${cmds[@]}"
for c in "$xs import trades.parquet -d pq -q" "$duck" ${other:+"$other import trades.parquet -d pq-other -q"}; do
  eval "$prep"
  /usr/bin/time -f "%e s wall, %U s user, %S s sys, %M KB peak RSS: $c" bash -c "$c"
done
"$xs" -d pq range 1970-01-01 2100-01-01 --agg "count,sum(qty)" 2>/dev/null | tail -1
