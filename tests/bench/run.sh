#!/usr/bin/env bash
# Benchmark xs beside DuckDB and SQLite (not part of CI). Usage:
#   bash tests/bench/run.sh [--quick] [--runs N] [--only xs,duckdb,sqlite] ...   (bench.py --help)
# Installs what is missing (sqlite3, hyperfine, GNU time from Debian; DuckDB's python module and
# CLI from PyPI into a venv under XS_BENCH_DIR), then runs bench.py with that venv's python.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
export XS_BENCH_DIR=${XS_BENCH_DIR:-$repo/target/bench}
venv=$XS_BENCH_DIR/venv
pins="duckdb==1.5.6 duckdb-cli==1.5.6 pytz==2026.6"  # DuckDB as in shared/bench/README.md;
# pytz lets the duckdb module return TIMESTAMPTZ values

missing=()
command -v sqlite3 >/dev/null || missing+=(sqlite3)
command -v hyperfine >/dev/null || missing+=(hyperfine)
[ -x /usr/bin/time ] || missing+=(time)
if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -qq
    apt-get install -y -qq "${missing[@]}"
fi

if [ "$(cat "$venv/pins" 2>/dev/null)" != "$pins" ]; then
    python3 -m venv "$venv"
    # shellcheck disable=SC2086  # $pins is a list of requirements
    "$venv/bin/pip" install --quiet $pins
    echo "$pins" > "$venv/pins"
fi

exec "$venv/bin/python" "$repo/tests/bench/bench.py" "$@"
