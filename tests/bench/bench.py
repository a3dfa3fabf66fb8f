#!/usr/bin/env python3
"""Benchmark of xs beside DuckDB and SQLite, all measured in the same run. Not part of CI.

Run it through run.sh, which installs the peers and then runs this file with the venv's python
(the duckdb module and CLI are taken from that venv):

    bash tests/bench/run.sh                          # full data (8.6 M trades, 2.7 M sensor rows)
    bash tests/bench/run.sh --quick                  # 2 days of trades, 3 of sensor: a smoke run
    bash tests/bench/run.sh --runs 3 --only duckdb,sqlite --datasets trades
    bash tests/bench/run.sh --queries-only --runs 3      # T-V1, T-VWAP, week max, as-of, bars

Environment: XS_BENCH_DIR  venv, data, stores and results (default <repo>/target/bench)
             XS_BENCH_GEN  the data generator (default <repo>/../shared/bench/gen.py)
             XS_BIN        the xs binary (default <repo>/target/release/xs)

Prints a markdown table and writes it to XS_BENCH_DIR/results.md, with the raw figures in
results.json (results-quick.* for --quick). tests/bench/README.md says what each row measures.
"""
import argparse
import importlib.util
import json
import os
import platform
import random
import shutil
import sqlite3
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import datasets
import report
from engines import ASOF_LOOKUPS, QUERY_OPS, SQLite, DuckDB, Xs, XsGrid, first_output_line
from measure import CommandFailed, count_output_lines, disk_usage, hyperfine, run_timed, summary

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
ENGINES = ("xs", "xs-grid", "duckdb", "sqlite")
# xs-grid (xs forced onto the grid layout) is opt-in: on the full trades file its inferred depth
# of 16 on a 1 ms grid allocates tens of GB.
DEFAULT_ENGINES = ("xs", "duckdb", "sqlite")
LOOKUP_WARMUP = 20
# Per mode: runs of each operation, runs of a CLI lookup, keys of an in-process lookup.
DEFAULT_COUNTS = {"full": (5, 200, 2000), "quick": (2, 50, 500)}
STARTED = time.monotonic()


def log(message):
    print(f"[bench {time.monotonic() - STARTED:6.0f} s] {message}", file=sys.stderr, flush=True)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small data, fewer runs: a smoke run")
    ap.add_argument("--runs", type=int, help="runs of each import, range and aggregation "
                    "(default 5, quick 2)")
    ap.add_argument("--lookup-runs", type=int,
                    help="runs of each CLI lookup (default 200, quick 50)")
    ap.add_argument("--inproc-lookups", type=int,
                    help="random keys looked up in-process (default 2000, quick 500)")
    ap.add_argument("--queries-only", action="store_true",
                    help="only the tick-data queries (T-V1, T-VWAP, a week's max, 1000 as-of "
                    "lookups, hourly sensor bars) on the stores of an earlier run; a missing "
                    "store is imported once, untimed")
    ap.add_argument("--only", default=",".join(DEFAULT_ENGINES),
                    help="engines to run (default: xs,duckdb,sqlite; also xs-grid)")
    ap.add_argument("--datasets", default=",".join(datasets.QUERIES), help="default: all")
    ap.add_argument("--bench-dir", type=Path,
                    default=Path(os.environ.get("XS_BENCH_DIR", REPO / "target" / "bench")))
    ap.add_argument("--gen", type=Path, default=Path(os.environ.get(
        "XS_BENCH_GEN", REPO.parent / "shared" / "bench" / "gen.py")))
    ap.add_argument("--xs", type=Path, default=Path(os.environ.get(
        "XS_BIN", REPO / "target" / "release" / "xs")))
    opts = ap.parse_args()
    opts.mode = "quick" if opts.quick else "full"
    runs, lookup_runs, inproc_lookups = DEFAULT_COUNTS[opts.mode]
    opts.runs = opts.runs or runs
    opts.lookup_runs = opts.lookup_runs or lookup_runs
    opts.inproc_lookups = opts.inproc_lookups or inproc_lookups
    opts.only = opts.only.split(",")
    opts.datasets = opts.datasets.split(",")
    for name in opts.only:
        if name not in ENGINES:
            ap.error(f"unknown engine {name!r}: choose among {', '.join(ENGINES)}")
    for name in opts.datasets:
        if name not in datasets.QUERIES:
            ap.error(f"unknown dataset {name!r}: choose among {', '.join(datasets.QUERIES)}")
    return opts


def duckdb_cli():
    """The binary of the duckdb-cli package (its bin/duckdb is a Python script that runs it,
    which would add an interpreter's start to every whole-process figure)."""
    spec = importlib.util.find_spec("duckdb_cli")
    return Path(spec.origin).parent / "duckdb" if spec else "duckdb"


def make_engines(opts):
    """The engines to run, in table order; the peers come from the venv this file runs in."""
    available = {"xs": Xs(opts.xs), "xs-grid": XsGrid(opts.xs), "duckdb": DuckDB(sys.executable, duckdb_cli()),
                 "sqlite": SQLite(shutil.which("sqlite3") or "sqlite3")}
    return [available[name] for name in ENGINES if name in opts.only]


def machine_info(engines, bench_dir):
    meminfo = Path("/proc/meminfo").read_text().split()
    cpus = [line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")]
    return {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "nproc": os.cpu_count(),
        "cpu": cpus[0] if cpus else platform.processor(),
        "memory_gib": round(int(meminfo[meminfo.index("MemTotal:") + 1]) / 2**20, 1),
        "kernel": platform.release(),
        "filesystem": first_output_line(["findmnt", "-no", "FSTYPE", "-T", str(bench_dir)]),
        "loadavg_at_start": os.getloadavg(),
        "python": platform.python_version(),
        "python_sqlite3_library": sqlite3.sqlite_version,
        "hyperfine": first_output_line(["hyperfine", "--version"]),
        "repo": first_output_line(["git", "-C", str(REPO), "describe", "--always", "--dirty"]),
        "versions": {engine.name: engine.version() for engine in engines},
    }


def remove(path):
    if path.is_dir():
        shutil.rmtree(path)
    elif path.exists():
        path.unlink()


def attempt(measure, *args):
    """The measurement, or {"error": first line of what went wrong}: never stops the run."""
    try:
        return measure(*args)
    except CommandFailed as err:
        log(f"  n/a: {err}")
        return {"error": str(err)}


def bench_imports(ds, engines, store_dir, runs):
    """Each import `runs` times into a fresh store, the engines taking turns run by run so that
    a change in the machine's load hits them alike. The last run's stores stay for the queries."""
    imports = all_imports(ds, engines, store_dir)
    timings = {imp.label: [] for imp in imports}
    errors = {}
    for run in range(1, runs + 1):
        for imp in imports:
            if imp.label in errors:
                continue
            remove(imp.store)
            os.sync()  # no writeback of the previous run during this one
            try:
                timings[imp.label].append(run_timed(imp.cmd))
            except CommandFailed as err:
                log(f"  import {imp.label}: n/a: {err}")
                errors[imp.label] = {"cmd": imp.cmd, "error": str(err)}
                continue
            log(f"  import {imp.label} run {run}/{runs}: {timings[imp.label][-1].wall_s:.2f} s")
    return {imp.label: errors.get(imp.label) or import_metrics(ds, imp, timings[imp.label])
            for imp in imports}


def import_metrics(ds, imp, timings):
    walls = [t.wall_s for t in timings]
    physical, apparent = disk_usage(imp.store)
    return {
        "cmd": imp.cmd,
        "wall_s": summary(walls),
        "rows_per_s": summary([ds.rows / w for w in walls]),
        "mb_per_s": summary([ds.csv_bytes / 1e6 / w for w in walls]),
        "peak_rss_mb": summary([t.peak_rss_mb for t in timings]),
        "store_physical_bytes": physical,
        "store_apparent_bytes": apparent,
        "physical_per_csv": physical / ds.csv_bytes,
        "apparent_per_csv": apparent / ds.csv_bytes,
    }


def bench_cli(what, cmd, runs, warmup, rows=None):
    """One probe run (it fails fast and counts the output lines), then hyperfine's runs."""
    lines = count_output_lines(cmd)
    times_s = hyperfine(cmd, runs, warmup)
    result = {"cmd": cmd, "output_lines": lines, "wall_ms": summary([t * 1e3 for t in times_s])}
    if rows is not None:
        result["rows_per_s"] = summary([rows / t for t in times_s])
    log(f"  {what}: median {result['wall_ms']['median']:.2f} ms, {lines} lines out")
    return result


def bench_inproc(engine, ds, store, keys_ms, agg_runs):
    """In-process lookups (and aggregation) of a peer, timed by inproc.py in its own process."""
    spec = {"db": str(store), "agg_runs": agg_runs, **engine.inproc(ds, keys_ms)}
    proc = subprocess.run([sys.executable, str(HERE / "inproc.py")], input=json.dumps(spec),
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:  # a Python traceback: its last line says what failed
        raise CommandFailed(proc.stderr.strip().splitlines()[-1])
    out = json.loads(proc.stdout)
    result = {"lookup_inproc": {"latency_us": summary(out["lookup_us"]),
                                "misses": out["lookup_misses"]}}
    if "agg_ms" in out:
        result["agg_inproc"] = {"wall_ms": summary(out["agg_ms"])}
    log(f"  in-process lookup: median "
        f"{result['lookup_inproc']['latency_us']['median']:.1f} µs")
    return result


def query_ops(ds):
    ops = ["range", "lookup_cli", "lookup_inproc"]
    return ops + ["agg_cli", "agg_inproc"] if ds.aggregate else ops


def bench_queries(ds, engine, store, opts, keys):
    """The query operations of one engine on its store: {op: result}."""
    log(f"{ds.name}: queries with {engine.name}")
    ops = {
        "range": attempt(bench_cli, "range", engine.range_cmd(ds, store), opts.runs, 1,
                         ds.range_rows),
        "lookup_cli": attempt(bench_cli, "lookup", engine.lookup_cmd(ds, store), opts.lookup_runs,
                              LOOKUP_WARMUP),
    }
    if ds.aggregate:
        ops["agg_cli"] = attempt(bench_cli, "vwap", engine.agg_cmd(ds, store), opts.runs, 1)
    if not isinstance(engine, Xs):
        inproc = attempt(bench_inproc, engine, ds, store, keys, opts.runs)
        for op in ("lookup_inproc", "agg_inproc") if ds.aggregate else ("lookup_inproc",):
            ops[op] = inproc.get(op, inproc)
    return ops


def bench_dataset(ds, engines, store_dir, opts):
    """All operations on one dataset: {op: {engine or import label: result}}."""
    store_dir.mkdir(parents=True, exist_ok=True)
    log(f"{ds.name}: {ds.rows} rows, {ds.csv_bytes / 1e6:.0f} MB; imports × {opts.runs}")
    result = {
        "facts": {"csv": str(ds.csv), "rows": ds.rows, "csv_bytes": ds.csv_bytes,
                  "range": ds.range_days, "range_rows": ds.range_rows,
                  "lookup": ds.iso(ds.lookup_ms)},
        "import": bench_imports(ds, engines, store_dir, opts.runs),
    }
    import_by_store = {imp.store: result["import"][imp.label]
                   for imp in all_imports(ds, engines, store_dir)}
    keys = ds.sample_times(opts.inproc_lookups)
    for engine in engines:
        store = engine.query_store(store_dir)
        failed = import_by_store[store].get("error")
        if failed:
            ops = {op: {"error": f"no store, its import failed: {failed}"} for op in query_ops(ds)}
        else:
            ops = bench_queries(ds, engine, store, opts, keys)
        if type(engine) is Xs:
            ops.update(xs_inproc(opts.bench_dir / "xs_inproc.json", ds))
        for op, value in ops.items():
            result.setdefault(op, {})[engine.name] = value
    return result


def bench_query_ops(ds, engines, store_dir, opts):
    """The tick-data queries of QUERY_OPS on each engine's store: {op: {engine: result}}."""
    store_dir.mkdir(parents=True, exist_ok=True)
    rnd = random.Random(7)
    # Existing times, each pushed up to a second later: mostly not exact hits.
    asof_ms = sorted(t + rnd.randrange(1000) for t in ds.sample_times(ASOF_LOOKUPS, seed=7))
    result = {"facts": {"csv": str(ds.csv), "rows": ds.rows, "csv_bytes": ds.csv_bytes,
                        "range": ds.range_days, "range_rows": ds.range_rows,
                        "lookup": ds.iso(ds.lookup_ms), "asof_lookups": len(asof_ms),
                        "queries": QUERY_OPS[ds.name]}}
    for engine in engines:
        store = engine.query_store(store_dir)
        if not store.exists():
            imp = engine.imports(ds, store_dir)[-1]
            log(f"{ds.name}: no {engine.name} store yet: importing once ({imp.label})")
            failed = attempt(run_timed, imp.cmd)
            if isinstance(failed, dict):
                for op in QUERY_OPS[ds.name]:
                    result.setdefault(op, {})[engine.name] = failed
                continue
        log(f"{ds.name}: tick-data queries with {engine.name}")
        for op, cmd in engine.query_cmds(ds, store, asof_ms).items():
            # The probe run of bench_cli warms the cache: no separate warm-up run.
            result.setdefault(op, {})[engine.name] = attempt(bench_cli, op, cmd, opts.runs, 0)
    return result


def all_imports(ds, engines, store_dir):
    return [imp for engine in engines for imp in engine.imports(ds, store_dir)]


def xs_inproc(path, ds):
    """xs's in-process figures come from its Rust bench, which writes them to xs_inproc.json:
    {"trades": {"lookup_us": MEDIAN, "agg_ms": MEDIAN}, "sensor": {"lookup_us": MEDIAN}}."""
    wanted = {"lookup_inproc": ("lookup_us", "latency_us")}
    if ds.aggregate:
        wanted["agg_inproc"] = ("agg_ms", "wall_ms")
    figures = json.loads(path.read_text()).get(ds.name, {}) if path.exists() else {}
    ops = {}
    for op, (key, metric) in wanted.items():
        if key in figures:
            ops[op] = {metric: {"median": figures[key]}, "source": str(path)}
        else:
            ops[op] = {"error": f"no {ds.name}.{key} in {path} (written by xs's Rust bench)"}
    return ops


def main():
    opts = parse_args()
    engines = make_engines(opts)
    data_dir = opts.bench_dir / "data" / opts.mode
    results = {
        "mode": opts.mode,
        "counts": {"runs": opts.runs, "lookup_runs": opts.lookup_runs,
                   "inproc_lookups": opts.inproc_lookups},
        "machine": machine_info(engines, opts.bench_dir),
        "data": datasets.ensure_data(opts.mode, opts.gen, data_dir, log),
        "datasets": {},
    }
    for name in opts.datasets:
        ds = datasets.load(name, data_dir)
        store_dir = opts.bench_dir / "stores" / opts.mode / name
        bench = bench_query_ops if opts.queries_only else bench_dataset
        results["datasets"][name] = bench(ds, engines, store_dir, opts)
    results["machine"]["loadavg_at_end"] = os.getloadavg()
    suffix = ("-quick" if opts.quick else "") + ("-queries" if opts.queries_only else "")
    markdown = report.markdown(results)
    (opts.bench_dir / f"results{suffix}.md").write_text(markdown)
    (opts.bench_dir / f"results{suffix}.json").write_text(json.dumps(results, indent=1) + "\n")
    print(markdown)
    log(f"wrote {opts.bench_dir}/results{suffix}.md and .json")


if __name__ == "__main__":
    main()
