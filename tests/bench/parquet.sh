#!/usr/bin/env bash
# Parquet and Arrow output beside DuckDB, in one run (docs/BENCHMARKS.md, "Parquet and Arrow"):
#   1. the trades database exported to Parquet by xs vs DuckDB's `COPY t TO 'x.parquet'` from
#      its own table (same rows, time as a timestamp), with hyperfine, and the file sizes;
#   2. `xs range --format arrow` of one day vs the CSV path, both into a pipe.
#
#   tests/bench/parquet.sh XS TRADES_CSV WORKDIR [DUCKDB_CLI] [XS_OTHER]
#
# TRADES_CSV: ../shared/bench/gen.py's trades.csv (8,568,430 rows). DUCKDB_CLI: the binary inside
# PyPI's duckdb-cli==1.5.6 (site-packages/duckdb_cli/duckdb). XS_OTHER: a second xs build
# (e.g. with snappy instead of zstd) timed and sized beside the first.
set -euo pipefail
xs=$(realpath "$1")
csv=$(realpath "$2")
work=$3
duck=${4:-duckdb}
other=${5:-}
mkdir -p "$work"
cd "$work"

if [ ! -d trades ]; then
  "$xs" -d trades import "$csv" 2>&1 | tail -1
fi
if [ ! -f t.duckdb ]; then
  "$duck" t.duckdb -c "CREATE TABLE t AS SELECT epoch_ms(time)::TIMESTAMPTZ AS time, price, qty, side, trade_id FROM read_csv('$csv')"
fi
"$xs" -d trades schema | head -5
"$duck" t.duckdb -readonly -c "DESCRIBE t"

cmds=(-n xs "$xs -d trades export -o xs.parquet"
      -n duckdb "$duck t.duckdb -readonly -c \"COPY t TO 'duck.parquet' (FORMAT parquet)\""
      -n duckdb-zstd "$duck t.duckdb -readonly -c \"COPY t TO 'duck-zstd.parquet' (FORMAT parquet, COMPRESSION zstd)\"")
if [ -n "$other" ]; then
  cmds+=(-n xs-other "$(realpath "$other") -d trades export -o other.parquet")
fi
hyperfine --warmup 1 --runs 5 --export-json parquet-export.json "${cmds[@]}"
ls -l xs.parquet duck.parquet duck-zstd.parquet ${other:+other.parquet}
"$duck" -c "SELECT count(*), sum(qty), min(time), max(time) FROM 'xs.parquet'"
"$duck" -c "SELECT count(*), sum(qty), min(time), max(time) FROM 'duck.parquet'"

day=(2021-01-03 2021-01-04)
hyperfine --warmup 2 --runs 10 --export-json parquet-range.json \
  -n arrow "$xs -d trades range ${day[*]} --format arrow | cat > /dev/null" \
  -n csv "$xs -d trades range ${day[*]} | cat > /dev/null"
"$xs" -d trades range "${day[@]}" --format arrow | wc -c
"$xs" -d trades range "${day[@]}" | wc -c
