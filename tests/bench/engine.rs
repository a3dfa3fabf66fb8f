//! The O(1) claim, measured: warm in-process `get` and `put` latency on a database with one
//! partition and on one with twenty (twenty years) of the same density. Equal medians mean the
//! cost of a row does not depend on how much the database holds.
//!
//! Run: `cargo bench --bench engine` (env XS_BENCH_DIR picks the scratch directory,
//! default target/bench; XS_BENCH_ROWS_PER_YEAR the density, default 10000;
//! XS_BENCH_SAMPLES and XS_BENCH_RUNS the lookups per run and runs, default 200000 and 9).

use std::path::{Path, PathBuf};
use std::time::Instant;

use xs::db::config::{Config, Layout};
use xs::db::schema::Schema;
use xs::db::time::{days_from_civil, Granularity, Period, NS_PER_DAY, NS_PER_SEC};
use xs::{Database, PutMode};

/// Random lookups per run (env XS_BENCH_SAMPLES) and runs (XS_BENCH_RUNS): small values let
/// the bench run under `valgrind --tool=callgrind` to count instructions per call.
fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// xorshift64*: deterministic, so every run reads the same timestamps.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

fn config() -> Config {
    Config {
        layout: Layout::Grid,
        bucket_ns: 0,
        granularity: Granularity::from_ns(NS_PER_SEC).expect("1s divides a day"),
        period: Period::Year,
        depth: 1,
        time_column: "time".into(),
        schema: Schema::parse_spec("price:f64,qty:f64,side:str(4),trade_id:u64").expect("valid spec"),
        keys: Default::default(),
        codec: Default::default(),
        timezone: Default::default(),
        date_order: None,
        decimal_comma: false,
    }
}

/// Random whole-second timestamps, `per_year` in each year of `years`.
fn timestamps(years: std::ops::Range<i64>, per_year: usize, rng: &mut Rng) -> Vec<i64> {
    let mut out = Vec::with_capacity(per_year * years.clone().count());
    for year in years {
        let start_s = days_from_civil(year, 1, 1) * NS_PER_DAY / NS_PER_SEC;
        let len_s = (days_from_civil(year + 1, 1, 1) - days_from_civil(year, 1, 1)) * 86_400;
        for _ in 0..per_year {
            out.push((start_s + (rng.next() % len_s as u64) as i64) * NS_PER_SEC);
        }
    }
    out
}

fn build(dir: &Path, times: &[i64]) -> Database {
    let _ = std::fs::remove_dir_all(dir);
    let db = Database::create(dir, &config()).expect("create bench database");
    let mut row = db.schema().new_row();
    for (i, &t) in times.iter().enumerate() {
        for (col, text) in ["30000.5", "0.25", "buy", &i.to_string()].iter().enumerate() {
            db.schema().set_field(&mut row, col, text).expect("valid field");
        }
        db.put(t, &row, PutMode::Replace).expect("put");
    }
    db.sync().expect("sync");
    db
}

fn median_ns(mut samples: Vec<u64>) -> (f64, f64) {
    samples.sort_unstable();
    let pct = |p: f64| samples[((samples.len() - 1) as f64 * p) as usize] as f64;
    (pct(0.5), pct(0.99))
}

/// Per-call latency of `op` over XS_BENCH_SAMPLES random picks from `times`.
fn measure(times: &[i64], seed: u64, mut op: impl FnMut(i64)) -> (f64, f64) {
    let samples_per_run = env_or("XS_BENCH_SAMPLES", 200_000);
    let mut rng = Rng(seed);
    let picks: Vec<i64> = (0..samples_per_run)
        .map(|_| times[(rng.next() % times.len() as u64) as usize])
        .collect();
    let mut samples = Vec::with_capacity(samples_per_run);
    for &t in &picks {
        let started = Instant::now();
        op(t);
        samples.push(started.elapsed().as_nanos() as u64);
    }
    median_ns(samples)
}

struct Result {
    name: &'static str,
    partitions: usize,
    get_median_ns: f64,
    get_p99_ns: f64,
    put_median_ns: f64,
    put_p99_ns: f64,
}

/// One database under test with the timestamps it holds.
struct Subject {
    name: &'static str,
    partitions: usize,
    dir: PathBuf,
    db: Database,
    times: Vec<i64>,
    gets: Vec<(f64, f64)>,
    puts: Vec<(f64, f64)>,
}

fn prepare(name: &'static str, dir: PathBuf, years: std::ops::Range<i64>, per_year: usize) -> Subject {
    let partitions = years.clone().count();
    let times = timestamps(years, per_year, &mut Rng(0x9e37_79b9_7f4a_7c15));
    let started = Instant::now();
    let db = build(&dir, &times);
    eprintln!(
        "{name}: built {} rows in {:.1} s",
        times.len(),
        started.elapsed().as_secs_f64()
    );
    Subject {
        name,
        partitions,
        dir,
        db,
        times,
        gets: Vec::new(),
        puts: Vec::new(),
    }
}

/// One get run and one put run on `s`, warm.
fn run_once(s: &mut Subject, run: u64) {
    let mut slab = Vec::new();
    for &t in &s.times {
        s.db.get_into(t, &mut slab).expect("get");
    }
    let row = s.db.get(s.times[0]).expect("get").remove(0);
    let db = &s.db;
    s.gets.push(measure(&s.times, run + 1, |t| {
        let n = db.get_into(t, &mut slab).expect("get");
        assert_eq!(n, 1, "every sampled timestamp holds a row");
    }));
    s.puts.push(measure(&s.times, run + 100, |t| {
        db.put(t, &row, PutMode::Replace).expect("put")
    }));
}

fn finish(mut s: Subject) -> Result {
    s.db.sync().expect("sync");
    let mid = |v: &mut Vec<(f64, f64)>| {
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        v[v.len() / 2]
    };
    let (get_median_ns, get_p99_ns) = mid(&mut s.gets);
    let (put_median_ns, put_p99_ns) = mid(&mut s.puts);
    drop(s.db);
    let _ = std::fs::remove_dir_all(&s.dir);
    Result {
        name: s.name,
        partitions: s.partitions,
        get_median_ns,
        get_p99_ns,
        put_median_ns,
        put_p99_ns,
    }
}

fn main() {
    let base = PathBuf::from(std::env::var("XS_BENCH_DIR").unwrap_or_else(|_| "target/bench".into()));
    std::fs::create_dir_all(&base).expect("bench dir");
    let per_year = env_or("XS_BENCH_ROWS_PER_YEAR", 10_000);
    let samples = env_or("XS_BENCH_SAMPLES", 200_000);
    let runs = env_or("XS_BENCH_RUNS", 9);
    println!(
        "engine O(1) bench: {per_year} rows per year at 1 s granularity, {samples} random existing \
         timestamps per run, median of {runs} runs"
    );
    // The control holds as many rows as the twenty years in one partition: if it is as slow as
    // the twenty-partition database, any difference comes from the working set, not the count.
    // XS_BENCH_ONLY=1p|20p|control runs one database alone (for callgrind).
    let only = std::env::var("XS_BENCH_ONLY").ok();
    let wanted = |key: &str| only.as_deref().is_none_or(|o| o == key);
    let mut subjects = Vec::new();
    if wanted("1p") {
        subjects.push(prepare(
            "1 partition",
            base.join("engine-1y"),
            2021..2022,
            per_year,
        ));
    }
    if wanted("20p") {
        subjects.push(prepare(
            "20 partitions",
            base.join("engine-20y"),
            2002..2022,
            per_year,
        ));
    }
    if wanted("control") {
        let dir = base.join("engine-1y-dense");
        subjects.push(prepare(
            "1 partition, 20× rows (control)",
            dir,
            2021..2022,
            20 * per_year,
        ));
    }
    // Runs alternate between the databases so that load on a shared machine hits all alike.
    for run in 0..runs as u64 {
        for s in subjects.iter_mut() {
            run_once(s, run);
        }
    }
    let results: Vec<Result> = subjects.into_iter().map(finish).collect();
    println!("| database | partitions | get median | get p99 | put median | put p99 |");
    println!("|---|---|---|---|---|---|");
    for r in &results {
        println!(
            "| {} | {} | {:.2} µs | {:.2} µs | {:.2} µs | {:.2} µs |",
            r.name,
            r.partitions,
            r.get_median_ns / 1e3,
            r.get_p99_ns / 1e3,
            r.put_median_ns / 1e3,
            r.put_p99_ns / 1e3
        );
    }
    let [one, twenty, control] = &results[..] else {
        return;
    };
    println!(
        "ratio 20 partitions / 1 partition: get {:.2}, put {:.2}; 20 partitions / control: get {:.2}, put {:.2}",
        twenty.get_median_ns / one.get_median_ns,
        twenty.put_median_ns / one.put_median_ns,
        twenty.get_median_ns / control.get_median_ns,
        twenty.put_median_ns / control.put_median_ns
    );
    let json = format!(
        "{{\"get_median_us_1p\": {:.3}, \"get_median_us_20p\": {:.3}, \"get_median_us_control\": {:.3}, \
         \"put_median_us_1p\": {:.3}, \"put_median_us_20p\": {:.3}, \"put_median_us_control\": {:.3}}}\n",
        one.get_median_ns / 1e3,
        twenty.get_median_ns / 1e3,
        control.get_median_ns / 1e3,
        one.put_median_ns / 1e3,
        twenty.put_median_ns / 1e3,
        control.put_median_ns / 1e3
    );
    std::fs::write(base.join("xs_engine.json"), json).expect("write results");
}
