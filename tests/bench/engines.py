"""What each engine runs for each operation: every command and SQL text the benchmark compares.

Each engine gives, for a Dataset:
  imports(ds, store_dir)  -> [Import]: labelled import commands, each into its own fresh store
  query_store(store_dir)  -> the store the query operations read (kept from the last import run)
  range_cmd / lookup_cmd / agg_cmd(ds, store) -> argv of one whole process, output on stdout
  inproc(ds)              -> the SQL that inproc.py times in-process (peers only)

Peers store the time column as loaded from the CSV: trades time as INTEGER epoch ms (both);
sensor time as TIMESTAMPTZ in DuckDB (read_csv's inference) and as ISO-8601 TEXT in SQLite (what
`.import` loads without a conversion step; ISO text of one fixed format sorts like time).
"""
import subprocess
from dataclasses import dataclass
from pathlib import Path

# DuckDB's import, as a whole process: a python interpreter that loads the duckdb module.
DUCKDB_IMPORT = """
import duckdb, sys
con = duckdb.connect(sys.argv[1])
con.execute("CREATE TABLE t AS SELECT * FROM read_csv('%s')" % sys.argv[2].replace("'", "''"))
con.close()
"""

# SQLite tables, clustered on time (WITHOUT ROWID) so that a lookup or a range is one B-tree
# search; trades share milliseconds, so their key is (time, trade_id).
SQLITE_TABLES = {
    "trades": "time INTEGER NOT NULL, price REAL, qty REAL, side TEXT, trade_id INTEGER NOT NULL,"
              " PRIMARY KEY (time, trade_id)",
    "sensor": "time TEXT NOT NULL PRIMARY KEY, temp REAL, humidity REAL, pressure REAL,"
              " status INTEGER",
}

# DuckDB's type for the bound parameter of a lookup (a string must be cast to compare as time).
DUCKDB_TIME_TYPES = {"epoch_ms": "BIGINT", "iso_s": "TIMESTAMPTZ"}


@dataclass(frozen=True)
class Import:
    label: str      # the column/row name in the results: "duckdb", "xs --threads 2", …
    store: Path
    cmd: list


def range_sql(ds):
    lo, hi = ds.range_ms
    return f"SELECT * FROM t WHERE time >= {ds.sql_literal(lo)} AND time < {ds.sql_literal(hi)}"


def lookup_sql(ds, value):
    return f"SELECT * FROM t WHERE time = {value}"


def vwap_sql(ds, int_div):
    """1-minute buckets of one day of trades: sum(qty) and VWAP; int_div is the SQL operator of
    integer division (DuckDB's `/` on integers returns a double)."""
    lo, hi = ds.range_ms
    return (f"SELECT time {int_div} 60000 * 60000 AS minute, sum(qty) AS qty,"
            f" sum(price * qty) / sum(qty) AS vwap FROM t WHERE time >= {lo} AND time < {hi}"
            " GROUP BY minute ORDER BY minute")


def first_output_line(cmd):
    """The first line a version command prints, or the first line of its error."""
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"n/a ({err})"
    lines = (proc.stdout or proc.stderr).strip().splitlines()
    return lines[0] if lines else f"n/a (exit status {proc.returncode})"


class DuckDB:
    name = "duckdb"

    def __init__(self, python, cli):
        self.python = str(python)
        self.cli = str(cli)

    def version(self):
        return first_output_line([self.cli, "--version"])

    def imports(self, ds, store_dir):
        store = self.query_store(store_dir)
        return [Import(self.name, store, [self.python, "-c", DUCKDB_IMPORT, str(store), str(ds.csv)])]

    def query_store(self, store_dir):
        return store_dir / "duckdb.db"

    def _sql(self, store, sql):
        return [self.cli, "-readonly", "-csv", str(store), "-c", sql]

    def range_cmd(self, ds, store):
        return self._sql(store, f"COPY ({range_sql(ds)}) TO '/dev/stdout' (FORMAT csv, HEADER)")

    def lookup_cmd(self, ds, store):
        return self._sql(store, lookup_sql(ds, ds.sql_literal(ds.lookup_ms)))

    def agg_cmd(self, ds, store):
        return self._sql(store, vwap_sql(ds, "//"))

    def inproc(self, ds):
        param = f"CAST(? AS {DUCKDB_TIME_TYPES[ds.time_format]})"
        return {"lookup_sql": lookup_sql(ds, param),
                "agg_sql": vwap_sql(ds, "//") if ds.aggregate else None}


class SQLite:
    name = "sqlite"

    def __init__(self, cli):
        self.cli = str(cli)

    def version(self):
        return first_output_line([self.cli, "--version"])

    def imports(self, ds, store_dir):
        store = self.query_store(store_dir)
        # One transaction around the table's creation and the whole `.import`.
        cmd = [self.cli, str(store), "BEGIN", f"CREATE TABLE t ({SQLITE_TABLES[ds.name]}) WITHOUT ROWID",
               f'.import --csv --skip 1 "{ds.csv}" t', "COMMIT"]
        return [Import(self.name, store, cmd)]

    def query_store(self, store_dir):
        return store_dir / "sqlite.db"

    def _sql(self, store, sql):
        return [self.cli, "-readonly", "-csv", "-header", str(store), sql]

    def range_cmd(self, ds, store):
        return self._sql(store, range_sql(ds))

    def lookup_cmd(self, ds, store):
        return self._sql(store, lookup_sql(ds, ds.sql_literal(ds.lookup_ms)))

    def agg_cmd(self, ds, store):
        return self._sql(store, vwap_sql(ds, "/"))

    def inproc(self, ds):
        return {"lookup_sql": lookup_sql(ds, "?"),
                "agg_sql": vwap_sql(ds, "/") if ds.aggregate else None}


class Xs:
    name = "xs"
    THREADS = (1, 2)

    def __init__(self, binary):
        self.binary = str(binary)

    def version(self):
        return first_output_line([self.binary, "--version"])

    def imports(self, ds, store_dir):
        # The store must not exist: xs infers the schema from the file and creates it.
        return [Import(f"xs --threads {n}", store_dir / f"xs-t{n}",
                       [self.binary, "-d", str(store_dir / f"xs-t{n}"), "import",
                        "--threads", str(n), str(ds.csv)])
                for n in self.THREADS]

    def query_store(self, store_dir):
        return store_dir / f"xs-t{self.THREADS[-1]}"

    def range_cmd(self, ds, store):
        return [self.binary, "-d", str(store), "range", *ds.range_days]

    def lookup_cmd(self, ds, store):
        return [self.binary, "-d", str(store), "get", ds.iso(ds.lookup_ms)]

    def agg_cmd(self, ds, store):
        return [self.binary, "-d", str(store), "range", *ds.range_days,
                "--every", "1m", "--agg", "sum(qty),vwap(price,qty)"]
