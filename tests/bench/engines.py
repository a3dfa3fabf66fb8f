"""What each engine runs for each operation: every command and SQL text the benchmark compares.

Each engine gives, for a Dataset:
  imports(ds, store_dir)  -> [Import]: labelled import commands, each into its own fresh store
  query_store(store_dir)  -> the store the query operations read (kept from the last import run)
  range_cmd / lookup_cmd / agg_cmd(ds, store) -> argv of one whole process, output on stdout
  query_cmds(ds, store)   -> {op: argv} of the tick-data queries (T-V1, T-VWAP, a week's max,
                             1000 as-of lookups; hourly bars of the sensor), see QUERY_OPS
  inproc(ds, keys_ms)     -> what inproc.py times in-process (peers only)

How the peers store time (each the natural choice of a user of that engine):
  trades  INTEGER epoch ms in both, as in the CSV.
  sensor  DuckDB: TIMESTAMPTZ, read_csv's inference from the ISO-8601 text.
          SQLite: INTEGER epoch seconds as the rowid (`time INTEGER PRIMARY KEY`), converted by
          unixepoch() from a TEMP staging table that `.import` fills, in the same transaction.
SQLite's tables are clustered on time, so a lookup or a range is one B-tree search; trades share
milliseconds, so their key is (time, trade_id) in a WITHOUT ROWID table. DuckDB has no index:
its zone maps (min/max per row group) prune the sorted time column.
"""
import subprocess
from dataclasses import dataclass
from pathlib import Path

import datasets
from datasets import ms_to_iso

# DuckDB's import, as a whole process: a python interpreter that loads the duckdb module.
DUCKDB_IMPORT = """
import duckdb, sys
con = duckdb.connect(sys.argv[1])
con.execute("CREATE TABLE t AS SELECT * FROM read_csv('%s')" % sys.argv[2].replace("'", "''"))
con.close()
"""

# The statements of SQLite's import, per dataset (run between BEGIN and COMMIT).
SQLITE_IMPORT = {
    "trades": [
        "CREATE TABLE t (time INTEGER NOT NULL, price REAL, qty REAL, side TEXT,"
        " trade_id INTEGER NOT NULL, PRIMARY KEY (time, trade_id)) WITHOUT ROWID",
        '.import --csv --skip 1 "{csv}" t',
    ],
    "sensor": [
        "CREATE TABLE t (time INTEGER NOT NULL PRIMARY KEY, temp REAL, humidity REAL,"
        " pressure REAL, status INTEGER)",
        "CREATE TEMP TABLE csv_rows (time TEXT, temp REAL, humidity REAL, pressure REAL,"
        " status INTEGER)",
        '.import --csv --skip 1 "{csv}" csv_rows',
        "INSERT INTO t SELECT unixepoch(time), temp, humidity, pressure, status FROM csv_rows",
    ],
}


# The tick-data queries of issue 7 (bench.py --queries-only), per dataset: op -> what it asks.
QUERY_OPS = {
    "trades": {
        "tv1_cli": "T-V1: mean(qty) per 1-minute bucket of the day",
        "tvwap_cli": "T-VWAP: VWAP per 1-minute bucket of the day",
        "week_max_cli": "max(price) over a week",
        "asof_cli": "1000 random as-of lookups, one process",
    },
    "sensor": {
        "bars_cli": "1-hour min/max/mean(temp) bars over the month",
    },
}
# The window of the week's max: the 5 days of trades lie inside it.
WEEK = ("2021-01-01", "2021-01-08")
ASOF_LOOKUPS = 1000


@dataclass(frozen=True)
class Import:
    label: str      # its name in the results: "duckdb", "xs --threads 2", …
    store: Path
    cmd: list


def first_output_line(cmd):
    """The first line a version command prints, or what went wrong."""
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"n/a ({err})"
    lines = (proc.stdout or proc.stderr).strip().splitlines()
    return lines[0] if lines else f"n/a (exit status {proc.returncode})"


class SqlPeer:
    """The SQL shared by DuckDB and SQLite. A subclass defines `name`, `int_div` (the SQL operator
    of integer division), time_value(ds, ms) (a time as its `time` column stores it: int or str)
    and run_sql(store, sql) (argv of its CLI printing the result as CSV)."""

    def lookup_param(self, ds):
        """The SQL of the lookup's bound parameter."""
        return "?"

    def literal(self, ds, ms):
        value = self.time_value(ds, ms)
        return str(value) if isinstance(value, int) else f"'{value}'"

    def range_sql(self, ds):
        lo, hi = ds.range_ms
        return (f"SELECT * FROM t WHERE time >= {self.literal(ds, lo)}"
                f" AND time < {self.literal(ds, hi)}")

    def vwap_sql(self, ds):
        """1-minute buckets of the range of trades: sum(qty) and VWAP."""
        lo, hi = ds.range_ms
        return (f"SELECT time {self.int_div} 60000 * 60000 AS minute, sum(qty) AS qty,"
                f" sum(price * qty) / sum(qty) AS vwap FROM t WHERE time >= {lo} AND time < {hi}"
                " GROUP BY minute ORDER BY minute")

    def query_sqls(self, ds, asof_ms):
        """{op: SQL} of QUERY_OPS[ds.name]; asof_ms: the as-of lookup times."""
        if ds.name == "sensor":
            lo, hi = (self.literal(ds, ms) for ms in ds.range_ms)
            return {"bars_cli": f"SELECT {self.hour_bucket()} AS hour, min(temp), max(temp),"
                                f" avg(temp) FROM t WHERE time >= {lo} AND time < {hi}"
                                " GROUP BY hour ORDER BY hour"}
        lo, hi = ds.range_ms
        minute = f"time {self.int_div} 60000 * 60000"
        day = f"FROM t WHERE time >= {lo} AND time < {hi} GROUP BY minute ORDER BY minute"
        wlo, whi = datasets.days_to_ms(WEEK)
        return {
            "tv1_cli": f"SELECT {minute} AS minute, avg(qty) {day}",
            "tvwap_cli": f"SELECT {minute} AS minute, sum(price * qty) / sum(qty) {day}",
            "week_max_cli": f"SELECT max(price) FROM t WHERE time >= {wlo} AND time < {whi}",
            "asof_cli": self.asof_sql(asof_ms),
        }

    def asof_sql(self, asof_ms):
        """Every row at the latest time <= each lookup time (what `xs get --asof` prints)."""
        values = ", ".join(f"({ms})" for ms in asof_ms)
        return (f"WITH q(ts) AS (VALUES {values}) SELECT t.* FROM q JOIN t"
                " ON t.time = (SELECT max(time) FROM t WHERE time <= q.ts) ORDER BY t.time")

    def query_cmds(self, ds, store, asof_ms):
        return {op: self.run_sql(store, sql) for op, sql in self.query_sqls(ds, asof_ms).items()}

    def range_cmd(self, ds, store):
        return self.run_sql(store, self.range_sql(ds))

    def lookup_cmd(self, ds, store):
        return self.run_sql(store, f"SELECT * FROM t WHERE time = {self.literal(ds, ds.lookup_ms)}")

    def agg_cmd(self, ds, store):
        return self.run_sql(store, self.vwap_sql(ds))

    def inproc(self, ds, keys_ms):
        return {"engine": self.name,
                "lookup_sql": f"SELECT * FROM t WHERE time = {self.lookup_param(ds)}",
                "keys": [self.time_value(ds, ms) for ms in keys_ms],
                "agg_sql": self.vwap_sql(ds) if ds.aggregate else None}


class DuckDB(SqlPeer):
    name = "duckdb"
    int_div = "//"  # `/` on integers returns a double

    def __init__(self, python, cli):
        self.python = str(python)
        self.cli = str(cli)

    def version(self):
        module = first_output_line([self.python, "-c", "import duckdb; print(duckdb.__version__)"])
        return f"CLI {first_output_line([self.cli, '--version'])}, python module {module}"

    def imports(self, ds, store_dir):
        store = self.query_store(store_dir)
        cmd = [self.python, "-c", DUCKDB_IMPORT, str(store), str(ds.csv)]
        return [Import(self.name, store, cmd)]

    def query_store(self, store_dir):
        return store_dir / "duckdb.db"

    def time_value(self, ds, ms):
        return ms if ds.time_format == "epoch_ms" else ms_to_iso(ms, "seconds")

    def lookup_param(self, ds):
        # a string parameter must be cast to compare as time, not the column as text
        return "?" if ds.time_format == "epoch_ms" else "CAST(? AS TIMESTAMPTZ)"

    def run_sql(self, store, sql):
        return [self.cli, "-readonly", "-csv", str(store), "-c", sql]

    def hour_bucket(self):
        return "time_bucket(INTERVAL 1 hour, time)"

    def asof_sql(self, asof_ms):
        # DuckDB's own as-of operator: one row per lookup time (several trades may share the
        # millisecond found; xs and the SQLite query print them all).
        values = ", ".join(f"({ms})" for ms in asof_ms)
        return (f"WITH q(ts) AS (VALUES {values}) SELECT t.* FROM q ASOF JOIN t"
                " ON q.ts >= t.time ORDER BY t.time")

    def range_cmd(self, ds, store):
        copy = f"COPY ({self.range_sql(ds)}) TO '/dev/stdout' (FORMAT csv, HEADER)"
        return self.run_sql(store, copy)


class SQLite(SqlPeer):
    name = "sqlite"
    int_div = "/"

    def __init__(self, cli):
        self.cli = str(cli)

    def version(self):
        return first_output_line([self.cli, "--version"])

    def imports(self, ds, store_dir):
        store = self.query_store(store_dir)
        # one transaction around the table's creation and the whole load
        statements = [s.format(csv=ds.csv) for s in SQLITE_IMPORT[ds.name]]
        cmd = [self.cli, str(store), "BEGIN", *statements, "COMMIT"]
        return [Import(self.name, store, cmd)]

    def query_store(self, store_dir):
        return store_dir / "sqlite.db"

    def time_value(self, ds, ms):
        return ms if ds.time_format == "epoch_ms" else ms // 1000

    def run_sql(self, store, sql):
        return [self.cli, "-readonly", "-csv", "-header", str(store), sql]

    def hour_bucket(self):
        return "time / 3600 * 3600"


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

    def query_cmds(self, ds, store, asof_ms):
        xs = [self.binary, "-d", str(store)]
        if ds.name == "sensor":
            return {"bars_cli": [*xs, "range", *ds.range_days, "--every", "1h",
                                 "--agg", "min(temp),max(temp),mean(temp)"]}
        day = [*xs, "range", *ds.range_days, "--every", "1m", "--agg"]
        return {
            "tv1_cli": [*day, "mean(qty)"],
            "tvwap_cli": [*day, "vwap(price,qty)"],
            "week_max_cli": [*xs, "range", *WEEK, "--agg", "max(price)"],
            "asof_cli": [*xs, "get", "--asof", *(ds.iso(ms) for ms in asof_ms)],
        }

class XsGrid(Xs):
    """xs forced onto the grid layout (`--layout grid`), beside the layout its inference picks
    (bucket for the trades): the same file, one import at 2 threads."""
    name = "xs-grid"

    def imports(self, ds, store_dir):
        store = store_dir / "xs-grid"
        return [Import("xs-grid --threads 2", store,
                       [self.binary, "-d", str(store), "import", "--layout", "grid",
                        "--threads", "2", str(ds.csv)])]

    def query_store(self, store_dir):
        return store_dir / "xs-grid"
