"""The markdown report of a results dict (the one bench.py writes to results.json)."""

PEERS = (("duckdb", "DuckDB"), ("sqlite", "SQLite"))
T1, T2 = "xs --threads 1", "xs --threads 2"

# xs forced onto the grid layout, shown beside the layout xs infers (see engines.XsGrid).
GRID_IMPORT = "xs-grid --threads 2"

# (label, op, metric, the xs entry compared with the peers); ↑ higher is better, ↓ lower is.
ROWS = [
    ("import, rows/s ↑ (xs --threads 1)", "import", "rows_per_s", T1),
    ("import, rows/s ↑ (xs --threads 2)", "import", "rows_per_s", T2),
    ("import, MB/s ↑ (xs --threads 1)", "import", "mb_per_s", T1),
    ("import, MB/s ↑ (xs --threads 2)", "import", "mb_per_s", T2),
    ("import, peak RSS MB ↓ (xs --threads 1)", "import", "peak_rss_mb", T1),
    ("import, peak RSS MB ↓ (xs --threads 2)", "import", "peak_rss_mb", T2),
    ("store physical size / CSV size ↓", "import", "physical_per_csv", T2),
    ("store apparent size / CSV size ↓", "import", "apparent_per_csv", T2),
    ("range {range} → CSV, rows/s ↑", "range", "rows_per_s", "xs"),
    ("one lookup, whole CLI process, ms ↓", "lookup_cli", "wall_ms", "xs"),
    ("one lookup in-process, µs ↓", "lookup_inproc", "latency_us", "xs"),
    ("1-minute sum(qty) + VWAP of the day, CLI, ms ↓", "agg_cli", "wall_ms", "xs"),
    ("1-minute sum(qty) + VWAP of the day, in-process, ms ↓", "agg_inproc", "wall_ms", "xs"),
    ("T-V1: 1-minute mean(qty) of the day, CLI, ms ↓", "tv1_cli", "wall_ms", "xs"),
    ("T-VWAP: 1-minute VWAP of the day, CLI, ms ↓", "tvwap_cli", "wall_ms", "xs"),
    ("max(price) over a week, CLI, ms ↓", "week_max_cli", "wall_ms", "xs"),
    ("{asof} random as-of lookups, one CLI process, ms ↓", "asof_cli", "wall_ms", "xs"),
    ("1-hour min/max/mean(temp) bars of the month, CLI, ms ↓", "bars_cli", "wall_ms", "xs"),
]
SIZE_BYTES = {"physical_per_csv": "store_physical_bytes",
              "apparent_per_csv": "store_apparent_bytes"}


def number(value):
    """Three significant digits, no exponent; millions as 'M'."""
    if value >= 1e6:
        return f"{value / 1e6:.3g} M"
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def median(entry, metric):
    value = entry[metric]
    return value["median"] if isinstance(value, dict) else value


def cell(entry, metric, notes):
    """'median (min–max)', a size ratio with its size, 'n/a [k]' (note k of `notes` says why),
    or '—' when not run."""
    if entry is None:
        return "—"
    if "error" in entry:
        if entry["error"] not in notes:
            notes.append(entry["error"])
        return f"n/a [{notes.index(entry['error']) + 1}]"
    value = entry[metric]
    if metric in SIZE_BYTES:
        return f"{value:.2f} ({entry[SIZE_BYTES[metric]] / 1e6:,.0f} MB)"
    if "min" in value:
        return f"{number(value['median'])} ({number(value['min'])}–{number(value['max'])})"
    return number(value["median"])


def ratio(xs, peer, metric):
    if not xs or not peer or "error" in xs or "error" in peer:
        return "—"
    value = median(xs, metric) / median(peer, metric)
    return f"{value:.2g}" if value < 100 else f"{value:,.0f}"


def dataset_table(name, result):
    facts = result["facts"]
    lines = [f"## {name}: {facts['rows']:,} rows, {facts['csv_bytes'] / 1e6:,.0f} MB of CSV", "",
             "| operation | xs | xs grid | DuckDB | SQLite | xs/DuckDB | xs/SQLite |",
             "|---|---|---|---|---|---|---|"]
    notes = []
    for label, op, metric, xs_key in ROWS:
        if op not in result:
            continue
        xs = result[op].get(xs_key)
        grid_key = "xs-grid" if xs_key == "xs" else (GRID_IMPORT if xs_key == T2 else None)
        grid = result[op].get(grid_key) if grid_key else None
        peers = [result[op].get(key) for key, _ in PEERS]
        grid_cell = cell(grid, metric, notes) if grid else "–"
        cells = [cell(xs, metric, notes), grid_cell] + [cell(p, metric, notes) for p in peers]
        cells += [ratio(xs, p, metric) for p in peers]
        label = label.format(range=" to ".join(facts["range"]), asof=facts.get("asof_lookups"))
        lines.append(f"| {label} | {' | '.join(cells)} |")
    lines.append("")
    lines += [f"[{k}] {note}  " for k, note in enumerate(notes, 1)]
    lines += [output_check(result), ""]
    return lines


def output_check(result):
    """Lines printed by each engine's range: the rows, plus one if it prints a header (DuckDB and
    SQLite do); any other count is flagged."""
    rows = result["facts"]["range_rows"]
    if "range" not in result:
        printed = [f"{op} {engine} {entry['output_lines']:,}" for op, entries in result.items()
                   if op.endswith("_cli") for engine, entry in entries.items()
                   if "output_lines" in entry]
        return "Lines printed (with header): " + (", ".join(printed) or "none") + "."
    printed = []
    for engine, entry in result.get("range", {}).items():
        if "output_lines" in entry:
            flag = "" if entry["output_lines"] - rows in (0, 1) else " (WRONG COUNT)"
            printed.append(f"{engine} {entry['output_lines']:,}{flag}")
    return (f"Check: {rows:,} rows in the range; lines printed: {', '.join(printed) or 'none'}."
            f" The CLI lookups read {result['facts']['lookup']}.")


def loadavg(triple):
    return "/".join(f"{x:.1f}" for x in triple)


def header(results):
    m = results["machine"]
    counts = results["counts"]
    versions = "; ".join(version if version.startswith(name) else f"{name} {version}"
                         for name, version in m["versions"].items())
    title = "xs beside DuckDB and SQLite" + (" (QUICK smoke data)" if results["mode"] == "quick"
                                             else "")
    return [
        f"# {title}", "",
        f"{m['date']} · {m['nproc']} × {m['cpu']} · {m['memory_gib']} GiB · Linux {m['kernel']}"
        f" · {m['filesystem']} · load average {loadavg(m['loadavg_at_start'])} at start,"
        f" {loadavg(m['loadavg_at_end'])} at the end",
        "",
        f"Versions: {versions}; {m['hyperfine']}; Python {m['python']}"
        f" (sqlite3 library {m['python_sqlite3_library']}); repo {m['repo']}.",
        "",
        f"Cells: median (min–max) of {counts['runs']} runs; a CLI lookup: {counts['lookup_runs']}"
        f" runs; in-process lookups: {counts['inproc_lookups']} random existing keys."
        " ↑ higher is better, ↓ lower is better; ratio = xs median / peer median.",
        "",
    ]


def markdown(results):
    lines = header(results)
    for name, result in results["datasets"].items():
        lines += dataset_table(name, result)
    return "\n".join(lines)
