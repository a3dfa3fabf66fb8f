//! Read-out benchmark helper (docs/BENCHMARKS.md, section "Read-out"). Not a test; run with
//!
//!     cargo bench --bench readout -- build-sensor DATA/sensor.csv DB    # 1 s grid, 2.68 M rows
//!     cargo bench --bench readout -- build-trades DATA/trades.csv DB 1  # 1 ms grid, first N days
//!     cargo bench --bench readout -- get DB 200000                      # in-process get latency
//!     cargo bench --bench readout -- get DB 200000 target/bench/xs_inproc.json sensor
//!                                     # … and merge {"sensor": {"lookup_us": median}} into that file,
//!                                     # which the peer harness (tests/bench/bench.py) reads
//!     cargo bench --bench readout -- format DB FROM TO                  # in-process format rate
//!     cargo bench --bench readout -- series-range DB SERIES FROM TO COLUMNS N
//!                                     # one series' window → CSV in memory, N times (TSBS q1/q2;
//!                                     # COLUMNS `all` or `time,usage_user`): open, select, read,
//!                                     # format, each time
//!
//! The builders write rows straight through the engine (header-named CSV, no quoting), so the
//! benchmark does not depend on `xs import`.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::time::Instant;

use xs::db::config::{Config, Layout};
use xs::db::lock::LockWait;
use xs::db::schema::Schema;
use xs::db::time::{Granularity, Period, NS_PER_MS, NS_PER_SEC};
use xs::io::output::{OutputOptions, RowFormatter};
use xs::io::stream::{write_range, Compression};
use xs::io::timefmt::{parse_iso, parse_time_arg, TimeArg};
use xs::{Access, Database};

type Res<T = ()> = Result<T, Box<dyn std::error::Error>>;

/// A time argument as the benchmark databases (no `timezone`) read it.
fn utc_arg(text: &str) -> Result<i64, String> {
    parse_time_arg(text).map(TimeArg::utc)
}

fn main() -> Res {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["build-sensor", csv, db] => build(
            csv,
            db,
            "temp:f64,humidity:f64,pressure:f64,status:u8",
            NS_PER_SEC,
            None,
        ),
        ["build-trades", csv, db, days] => {
            let days: i64 = days.parse()?;
            build(
                csv,
                db,
                "price:f64,qty:f64,side:str(4),trade_id:u64",
                NS_PER_MS,
                Some(days),
            )
        }
        ["get", db, n] => get(db, n.parse()?).map(|_| ()),
        ["get", db, n, json, dataset] => {
            let median_us = get(db, n.parse()?)?;
            merge_inproc_json(json, dataset, median_us)
        }
        ["format", db, from, to] => format(db, utc_arg(from)?, utc_arg(to)?),
        ["series-range", db, series, from, to, columns, n] => {
            series_range(db, series, utc_arg(from)?, utc_arg(to)?, columns, n.parse()?)
        }
        [] => Ok(()), // `cargo bench` without arguments: nothing to do
        other => Err(format!("unknown arguments {other:?}; see the header of tests/bench/readout.rs").into()),
    }
}

/// Reads `csv` (time first; ISO or epoch ms), keeps `days` days from the first row, and
/// writes it into a new database at `db`. Depth: the most rows at one timestamp.
fn build(csv: &str, db: &str, spec: &str, granularity_ns: i64, days: Option<i64>) -> Res {
    let started = Instant::now();
    let schema = Schema::parse_spec(spec)?;
    let mut rows: Vec<(i64, Vec<u8>)> = Vec::new();
    let mut end_ns = i64::MAX;
    for (i, line) in BufReader::with_capacity(1 << 20, std::fs::File::open(csv)?)
        .lines()
        .enumerate()
    {
        let line = line?;
        if i == 0 {
            continue;
        }
        let mut fields = line.split(',');
        let t_text = fields.next().ok_or("empty line")?;
        let t = match parse_iso(t_text.as_bytes()) {
            Some(t) => t,
            None => t_text.parse::<i64>()? * NS_PER_MS,
        };
        if let Some(days) = days {
            if end_ns == i64::MAX {
                end_ns = t + days * 86_400 * NS_PER_SEC;
            }
            if t >= end_ns {
                break;
            }
        }
        let mut row = schema.new_row();
        for (col, text) in fields.enumerate() {
            schema
                .set_field(&mut row, col, text)
                .map_err(|e| format!("line {}: {e}", i + 1))?;
        }
        rows.push((t, row));
    }
    let mut per_t: HashMap<i64, u32> = HashMap::new();
    for (t, _) in &rows {
        *per_t.entry(*t).or_default() += 1;
    }
    let depth = per_t.values().copied().max().unwrap_or(1);
    let config = Config {
        layout: Layout::Grid,
        bucket_ns: 0,
        granularity: Granularity::from_ns(granularity_ns).ok_or("granularity")?,
        period: Period::Year,
        depth,
        time_column: "time".into(),
        schema: schema.clone(),
        keys: Default::default(),
        codec: Default::default(),
        timezone: Default::default(),
        date_order: None,
        decimal_comma: false,
    };
    let database = Database::create(Path::new(db), &config)?;
    drop(database);
    let database = Database::open(Path::new(db), Access::Write(LockWait::No), &mut |_| {})?;
    // Rows are in time order: build each run of consecutive slots, write it with one pwrite.
    let slab_len = config.slab_len() as usize;
    let row_len = schema.row_len();
    let mut run: Vec<u8> = Vec::new();
    let mut run_start: Option<xs::db::Slot> = None;
    let mut last_index = 0u64;
    let mut k = 0usize;
    let mut stored: Vec<u8> = Vec::new();
    let mut flush = |start: Option<xs::db::Slot>, run: &mut Vec<u8>| -> Res {
        if let Some(start) = start {
            let p = database.partition(start.key, true)?.ok_or("partition")?;
            // As stored: each slot followed by its check (partition version 3).
            stored.clear();
            for (i, slab) in run.chunks_exact(slab_len).enumerate() {
                p.encode_slot(start.index + i as u64, slab, &mut stored);
            }
            p.write_at(&stored, p.slot_offset(start.index))?;
        }
        run.clear();
        Ok(())
    };
    for (t, row) in &rows {
        let slot = database.slot_of(*t)?;
        let contiguous = run_start.is_some_and(|s| s.key == slot.key)
            && (slot.index == last_index || slot.index == last_index + 1)
            && run.len() < (64 << 20);
        if !contiguous {
            flush(run_start, &mut run)?;
            run_start = Some(slot);
            last_index = slot.index;
            run.resize(slab_len, 0);
            k = 0;
        } else if slot.index != last_index {
            last_index = slot.index;
            run.resize(run.len() + slab_len, 0);
            k = 0;
        }
        let at = run.len() - slab_len + k * row_len;
        run[at..at + row_len].copy_from_slice(row);
        k += 1;
    }
    flush(run_start, &mut run)?;
    database.sync_partitions(&database.partition_keys()?)?;
    eprintln!(
        "built {db}: {} rows, depth {depth}, in {:.1} s",
        rows.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Median and p99 of `n` single-timestamp gets at timestamps that hold rows, in one process.
/// Returns the median in µs.
fn get(db: &str, n: usize) -> Res<f64> {
    let database = Database::open(Path::new(db), Access::Read, &mut |_| {})?;
    let mut times = Vec::new();
    let keys = database.partition_keys()?;
    let (Some(first), Some(last)) = (keys.first(), keys.last()) else {
        return Err("empty database".into());
    };
    database.scan(
        first.start_ns(),
        last.end_ns(),
        |t, _| -> Result<bool, xs::Error> {
            if times.last() != Some(&t) {
                times.push(t);
            }
            Ok(true)
        },
    )?;
    // A fixed pseudo-random order (xorshift), so the reads are not sequential.
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut picks = Vec::with_capacity(n);
    for _ in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        picks.push(times[(x % times.len() as u64) as usize]);
    }
    let mut lat = Vec::with_capacity(n);
    let mut found = 0usize;
    for &t in &picks {
        let start = Instant::now();
        let rows = database.get(t)?;
        lat.push(start.elapsed().as_nanos() as u64);
        found += rows.len();
    }
    lat.sort_unstable();
    println!(
        "in-process get over {n} random stored timestamps: median {:.2} µs, p99 {:.2} µs ({found} rows)",
        lat[n / 2] as f64 / 1000.0,
        lat[n * 99 / 100] as f64 / 1000.0
    );
    Ok(lat[n / 2] as f64 / 1000.0)
}

/// Sets `{dataset: {"lookup_us": median_us}}` in the JSON file at `path`, keeping what else is
/// there (other benches add their own keys).
fn merge_inproc_json(path: &str, dataset: &str, median_us: f64) -> Res {
    let mut doc: serde_json::Value = match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => serde_json::json!({}),
        Err(e) => return Err(e.into()),
    };
    let root = doc.as_object_mut().ok_or("xs_inproc.json is not a JSON object")?;
    let entry = root.entry(dataset).or_insert_with(|| serde_json::json!({}));
    let entry = entry
        .as_object_mut()
        .ok_or("dataset entry is not a JSON object")?;
    entry.insert(
        "lookup_us".into(),
        serde_json::json!((median_us * 1000.0).round() / 1000.0),
    );
    std::fs::write(path, serde_json::to_string_pretty(&doc)? + "\n")?;
    eprintln!("wrote {dataset}.lookup_us = {median_us:.3} to {path}");
    Ok(())
}

/// Formats [from, to) as CSV into memory (no write): the rate of the formatting alone.
fn format(db: &str, from: i64, to: i64) -> Res {
    let database = Database::open(Path::new(db), Access::Read, &mut |_| {})?;
    let formatter = RowFormatter::new(database.config(), &OutputOptions::default())?;
    for _ in 0..3 {
        let start = Instant::now();
        let mut bytes = 0usize;
        let rows = write_range(
            &database,
            from,
            to,
            &formatter,
            u64::MAX,
            Compression::None,
            &mut |b: &[u8]| -> Result<(), xs::Error> {
                bytes += b.len();
                Ok(())
            },
        )?;
        let secs = start.elapsed().as_secs_f64();
        println!(
            "formatted {rows} rows ({:.0} MB of CSV) in {:.3} s: {:.2} M rows/s",
            bytes as f64 / 1e6,
            secs,
            rows as f64 / secs / 1e6
        );
    }
    Ok(())
}

/// TSBS q1/q2 in-process: each run opens the database read-only, selects one series, reads the
/// window and formats it as CSV into memory, as one `xs range --series` does without the
/// process around it. Prints the median and p99 of `n` runs.
fn series_range(db: &str, series: &str, from: i64, to: i64, columns: &str, n: usize) -> Res {
    let options = OutputOptions {
        columns: (columns != "all").then(|| columns.split(',').map(str::to_string).collect()),
        ..OutputOptions::default()
    };
    let mut lat = Vec::with_capacity(n);
    let mut out = Vec::new();
    let mut rows = 0;
    for _ in 0..n.max(1) {
        out.clear();
        let start = Instant::now();
        let mut database = Database::open(Path::new(db), Access::Read, &mut |_| {})?;
        let missing = database.select_series(&[series.to_string()])?;
        if !missing.is_empty() {
            return Err(format!("{db} holds no series {series}").into());
        }
        let formatter = RowFormatter::new(database.config(), &options)?;
        rows = write_range(
            &database,
            from,
            to,
            &formatter,
            u64::MAX,
            Compression::None,
            &mut |b: &[u8]| -> Result<(), xs::Error> {
                out.extend_from_slice(b);
                Ok(())
            },
        )?;
        lat.push(start.elapsed().as_nanos() as u64);
    }
    lat.sort_unstable();
    println!(
        "in-process range of series {series} ({rows} rows, {} bytes of CSV), {} runs: median {:.1} µs, p99 {:.1} µs",
        out.len(),
        lat.len(),
        lat[lat.len() / 2] as f64 / 1000.0,
        lat[lat.len() * 99 / 100] as f64 / 1000.0
    );
    Ok(())
}
