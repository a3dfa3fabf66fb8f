//! Model-based test: random sequences of operations on real databases (real sparse files in a
//! temp directory), each step checked against an in-memory reference model of the documented
//! semantics (docs/IMPORT.md, docs/QUERIES.md): a map from timestamp to the rows stored there,
//! in order.
//!
//! Operations: create (both layouts; granularities 1 ns … 1 d; depths 1 … 3000; rows of 2 to
//! a few hundred bytes with nulls, NaN, extreme integers, `str(N)` with quotes and delimiters,
//! `dec(S)` decimals written every way the parser takes (`+1.50`, `.5`, `5.`), summed and
//! averaged exactly by the model and filtered with literals finer than S; `sym` text of any
//! length (also as the series and the unique key, whose order is the text's; read through
//! `sym.idx` entry by entry in half the cases, the dictionary loaded whole in the others);
//! year, month and day partitions), import (several files, duplicates at one timestamp, out of
//! order, misaligned and unstorable times, tiny chunks so batches split a timestamp's rows,
//! `--floor-time`), put, put --append, delete, defrag, alter (widen, rename, add columns; a
//! refusal expected exactly when a value would not fit or the new rows pass the bounds).
//! After every step every read path is compared with the model: the scan of the whole database and of windows that start and end
//! mid-slot, `range`'s writer (parallel, ordered, `--limit`), `get`, as-of lookups with and
//! without a bound, `--agg count,min,max,sum,first,last,median,quantile` and `--ohlcv` over
//! random `--every`, `stat`'s row counts, and an `export` re-imported into a fresh database.
//!
//! Some databases have a series key (column `s`: each series stored apart; reads merge them in
//! time order, ties in series order) and some a unique key (column `id`: an imported or put
//! row replaces the row of its key at its time and series; rows of one time are in key order).
//!
//! The engine is driven in-process through the same library calls the `xs` subcommands make,
//! one `Database::open` per command as a new process would, so that a long soak is cheap:
//!
//! ```sh
//! XS_MODEL_CASES=100000 cargo test --release --test model -- --nocapture   # the soak
//! XS_MODEL_SEED=1234 cargo test --test model                               # replay one case
//! ```
//!
//! A failure prints the seed, the database settings and the steps that led to it.

use std::collections::BTreeMap;

use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, TimeUnit};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use xs::db::asof::AsOf;
use xs::db::config::{Config, Layout, RecordCodec};
use xs::db::defrag::{defrag, DefragOptions};
use xs::db::lock::LockWait;
use xs::db::schema::{ColumnType, Schema, Value};
use xs::db::series::compare_values;
use xs::db::stat::{stat, StatOptions};
use xs::db::time::{PartitionKey, END_TIME_NS, MIN_TIME_NS};
use xs::import::timeparse::{TimeFormat as InputTimeFormat, TimeSpec};
use xs::import::{CsvOptions, DateSource, Options, Sniff};
use xs::io::columnar::{ColumnarWriter, Container};
use xs::io::output::{Format, OutputOptions, RowFormatter, TimeFormat};
use xs::io::stream::{set_job_input_bytes, write_range, write_range_where, Compression, JOB_INPUT_BYTES};
use xs::io::timefmt::{format_iso_exact, EpochUnit};
use xs::query::agg::{ohlcv, parse_aggs, write_buckets, Plan};
use xs::query::asof_join::{asof_join, Matches, Strategy};
use xs::query::filter::Filter;
use xs::{Access, Database, PutMode};

const NS_PER_SEC: i64 = 1_000_000_000;
const DAY_NS: i64 = 86_400 * NS_PER_SEC;

/// Cases per layout when `XS_MODEL_CASES` is not set: enough to catch a regression in CI in a
/// few seconds.
const CI_CASES: u64 = 60;

#[test]
fn model_grid() {
    run_cases(Layout::Grid, RecordCodec::Raw, 0x6772_6964);
}

#[test]
fn model_bucket() {
    run_cases(Layout::Bucket, RecordCodec::Raw, 0x6275_636b);
}

/// The bucket layout with columnar records (and raw ones where a bucket is smaller raw).
#[test]
fn model_columnar() {
    run_cases(Layout::Bucket, RecordCodec::Columnar, 0x636f_6c75);
}

fn run_cases(layout: Layout, codec: RecordCodec, salt: u64) {
    let name = match codec {
        RecordCodec::Raw => layout.name(),
        RecordCodec::Columnar => "columnar",
    };
    if let Ok(seed) = std::env::var("XS_MODEL_SEED") {
        let seed: u64 = seed.parse().expect("XS_MODEL_SEED is a number");
        run_case(layout, codec, seed);
        return;
    }
    let cases: u64 = std::env::var("XS_MODEL_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(CI_CASES);
    let base = std::env::var("XS_MODEL_BASE")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0u64);
    let records_before = COLUMNAR_RECORDS.load(Ordering::Relaxed);
    for i in 0..cases {
        run_case(layout, codec, (base + i) ^ (salt << 20));
        if cases >= 1000 && (i + 1) % 1000 == 0 {
            eprintln!("model {name}: {} cases passed", i + 1);
        }
    }
    eprintln!("model {name}: {cases} cases passed");
    if codec == RecordCodec::Columnar {
        // Small buckets are stored raw (they are smaller so): the cases must still reach the
        // columnar records, or this test would check nothing of them.
        let columnar = COLUMNAR_RECORDS.load(Ordering::Relaxed) - records_before;
        eprintln!("model {name}: {columnar} columnar records at the ends of the cases");
        assert!(cases < 20 || columnar > 0, "no case stored a columnar record");
    }
}

/// A small deterministic generator (SplitMix64): a seed replays a case exactly.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0).
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn range(&mut self, lo: i64, hi_inclusive: i64) -> i64 {
        lo + self.below((hi_inclusive - lo + 1) as u64) as i64
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

/// Values the unique key `id` takes (besides null).
const UNIQUE_IDS: i64 = 6;

/// The reference: every stored row, by timestamp, in stored order, as encoded bytes. With a
/// series key, a timestamp's rows are in series order, each series' rows in stored order.
#[derive(Clone, Default)]
struct Model {
    rows: BTreeMap<i64, Vec<Vec<u8>>>,
}

/// The columns of the keys, and how rows compare by them.
struct Keys {
    schema: Schema,
    series: Option<usize>,
    unique: Option<usize>,
}

impl Keys {
    fn series_of(&self, row: &[u8]) -> Vec<Value> {
        self.series
            .map(|c| vec![self.schema.value(row, c).unwrap()])
            .unwrap_or_default()
    }

    fn same_series(&self, a: &[u8], b: &[u8]) -> bool {
        self.series_of(a) == self.series_of(b)
    }

    fn key_of(&self, row: &[u8]) -> Vec<Value> {
        self.unique
            .map(|c| vec![self.schema.value(row, c).unwrap()])
            .unwrap_or_default()
    }

    /// Puts a timestamp's rows in series order (stable: each series keeps its order).
    fn order(&self, rows: &mut [Vec<u8>]) {
        rows.sort_by(|a, b| compare_values(&self.series_of(a), &self.series_of(b)));
    }

    /// How many rows of `row`'s series are stored in `rows`.
    fn count_series(&self, rows: &[Vec<u8>], row: &[u8]) -> usize {
        rows.iter().filter(|r| self.same_series(r, row)).count()
    }

    /// Merges `row` into `rows` by unique key: it replaces the row of its series with its key,
    /// or joins them; that series' rows in key order.
    /// Returns whether it replaced a row.
    fn merge_unique(&self, rows: &mut Vec<Vec<u8>>, row: Vec<u8>) -> bool {
        let before = rows.len();
        rows.retain(|r| !(self.same_series(r, &row) && self.key_of(r) == self.key_of(&row)));
        let replaced = rows.len() < before;
        rows.push(row);
        rows.sort_by(|a, b| {
            compare_values(&self.series_of(a), &self.series_of(b))
                .then_with(|| compare_values(&self.key_of(a), &self.key_of(b)))
        });
        replaced
    }
}

impl Model {
    fn flat(&self, from: i64, to: i64) -> Vec<(i64, Vec<u8>)> {
        if from >= to {
            return Vec::new();
        }
        self.rows
            .range(from..to)
            .flat_map(|(&t, rows)| rows.iter().map(move |r| (t, r.clone())))
            .collect()
    }
    fn count(&self) -> usize {
        self.rows.values().map(Vec::len).sum()
    }
    fn remove_empty(&mut self) {
        self.rows.retain(|_, rows| !rows.is_empty());
    }
}

/// One case: a database, its model, and the log of what was done to it.
struct Case {
    seed: u64,
    /// The test that runs it: model_grid, model_bucket or model_columnar.
    test: &'static str,
    rng: Rng,
    tmp: tempfile::TempDir,
    dir: PathBuf,
    config: Config,
    model: Model,
    /// Interesting times of this case: partition edges, block edges, and what was written.
    anchors: Vec<i64>,
    log: String,
    files: u64,
    /// `Database::set_merge_window_bytes` of every read: small windows (tens to a thousand
    /// rows) make reads over several series narrow, and re-read windows a burst overfills.
    merge_window_bytes: usize,
}

fn run_case(layout: Layout, codec: RecordCodec, seed: u64) {
    let mut rng = Rng(seed);
    let config = random_config(&mut rng, layout, codec);
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("db");
    Database::create(&dir, &config).expect("create");
    let test = match (layout, codec) {
        (Layout::Grid, _) => "model_grid",
        (Layout::Bucket, RecordCodec::Raw) => "model_bucket",
        (Layout::Bucket, RecordCodec::Columnar) => "model_columnar",
    };
    let mut case = Case {
        seed,
        test,
        rng,
        tmp,
        dir,
        // From the seed, not the case's generator, so that a seed replays as before.
        merge_window_bytes: [4096, 64 << 10, 32 << 20][(seed % 3) as usize],
        log: format!("config:\n{}\n", config.to_toml()),
        config,
        model: Model::default(),
        anchors: Vec::new(),
        files: 0,
    };
    // `range`'s writer: jobs of 64 bytes or 4 KiB send the model's small ranges through
    // its pipeline (jobs formatted on the pool, sunk in order, cut by the limit).
    set_job_input_bytes([64, 4096, JOB_INPUT_BYTES][(seed / 3 % 3) as usize]);
    // Half the cases read `sym` texts through `sym.idx` however small the dictionary (one
    // entry at a time, the whole dictionary past 64 codes); the others load it whole.
    xs::db::syms::set_read_whole_below([0, u64::MAX][(seed / 9 % 2) as usize]);
    case.anchors = case.base_times();
    let steps = case.rng.range(1, 7);
    for _ in 0..steps {
        match case.rng.below(100) {
            0..=44 => case.import(),
            45..=59 => case.put(),
            60..=74 => case.delete(),
            75..=87 => case.alter(),
            _ => case.defrag(),
        }
        case.check_all();
    }
    case.check_export_reimport();
    case.count_columnar_records();
}

/// Columnar records the cases left (counted by `xs stat`'s walk, which reads every record).
static COLUMNAR_RECORDS: AtomicU64 = AtomicU64::new(0);

/// Random settings that `Config::parse` accepts (a retry until one does).
fn random_config(rng: &mut Rng, layout: Layout, codec: RecordCodec) -> Config {
    const GRANULARITIES: &[&str] = &[
        "1ns", "100ns", "1us", "1ms", "5ms", "250ms", "1s", "15s", "1m", "1h", "1d",
    ];
    loop {
        let granularity = rng.pick(GRANULARITIES);
        let g = xs::db::time::parse_duration(granularity).expect("duration");
        let mut depth = match layout {
            Layout::Bucket => 1,
            Layout::Grid => match rng.below(10) {
                0..=3 => 1,
                4..=5 => rng.range(2, 4) as u32,
                6..=7 => rng.range(5, 100) as u32,
                _ => rng.pick(&[500u32, 1000, 3000]),
            },
        };
        let mut columns = Vec::new();
        let extra = rng.range(0, 4);
        if rng.chance(85) {
            columns.push("f:f64".to_string());
        }
        if rng.chance(85) {
            columns.push("n:i64".to_string());
        }
        if rng.chance(60) {
            columns.push(format!("d:dec({})", rng.pick(&[0u8, 2, 8, 18])));
        }
        for i in 0..extra {
            let ty = match rng.below(13) {
                0 => "i8".to_string(),
                1 => "i16".to_string(),
                2 => "i32".to_string(),
                3 => "i64".to_string(),
                4 => "u8".to_string(),
                5 => "u64".to_string(),
                6 => "f32".to_string(),
                7 => "f64".to_string(),
                8 => "bool".to_string(),
                9 => format!("dec({})", rng.range(0, 18)),
                10 => "sym".to_string(),
                _ => format!("str({})", rng.pick(&[1u16, 3, 16, 200, 300])),
            };
            columns.push(format!("c{i}:{ty}"));
        }
        if columns.is_empty() {
            columns.push("b:bool".to_string());
        }
        let series = rng.chance(40);
        // Keys on `sym` columns too: series named by the text, rows in key order by the text.
        if series {
            columns.push(if rng.chance(30) { "s:sym" } else { "s:str(2)" }.to_string());
        }
        let unique = rng.chance(30);
        if unique {
            columns.push(if rng.chance(30) { "id:sym" } else { "id:i64" }.to_string());
        }
        // Shuffle so that the summed and priced columns move around the row.
        for i in (1..columns.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            columns.swap(i, j);
        }
        let schema = Schema::parse_spec(&columns.join(",")).expect("schema");
        let period = rng.pick(&["year", "month", "day"]);
        let bucket = match layout {
            Layout::Grid => String::new(),
            Layout::Bucket => {
                let k = rng.pick(&[1i64, 2, 10, 1000, 60_000]);
                let width = g.saturating_mul(k);
                if width <= 0 || DAY_NS % width != 0 {
                    continue;
                }
                format!("bucket = \"{}\"\n", xs::db::time::format_duration(width))
            }
        };
        // A unique key has at most `UNIQUE_IDS` values (and null): a grid slot holds them all,
        // so the model never meets a full slot there.
        if unique && layout == Layout::Grid {
            depth = depth.max(UNIQUE_IDS as u32 + 1);
        }
        let mut keys = String::new();
        if series {
            keys.push_str("series_by = [\"s\"]\n");
        }
        if unique {
            keys.push_str("unique_by = [\"id\"]\n");
        }
        let codec_line = match codec {
            RecordCodec::Raw => "",
            RecordCodec::Columnar => "codec = \"columnar\"\n",
        };
        let format = if codec == RecordCodec::Columnar {
            4
        } else if schema.has_sym() {
            3
        } else if series || unique {
            2
        } else {
            1
        };
        let mut toml = format!(
            "format = {format}\nlayout = \"{}\"\n{bucket}{codec_line}granularity = \"{granularity}\"\npartition = \"{period}\"\n\
             depth = {depth}\ntime_column = \"time\"\nrow_len = {}\n{keys}",
            layout.name(),
            schema.row_len()
        );
        for c in schema.columns() {
            let _ = write!(toml, "[[columns]]\nname = \"{}\"\ntype = \"{}\"\n", c.name, c.ty);
        }
        if let Ok(config) = Config::parse(&toml) {
            return config;
        }
    }
}

impl Case {
    fn g(&self) -> i64 {
        self.config.granularity.ns()
    }

    fn keys(&self) -> Keys {
        Keys {
            schema: self.schema().clone(),
            series: self
                .schema()
                .column_index("s")
                .filter(|_| self.config.has_series()),
            unique: self
                .schema()
                .column_index("id")
                .filter(|_| !self.config.keys.unique.is_empty()),
        }
    }

    fn schema(&self) -> &Schema {
        &self.config.schema
    }

    fn fail(&self, what: &str) -> ! {
        panic!(
            "model test failed (replay: XS_MODEL_SEED={} cargo test --test model {}):\n{what}\n\n{}",
            self.seed, self.test, self.log
        );
    }

    /// Partition and day edges near a few dates, block edges of the first slots, the ends of
    /// the storable range.
    fn base_times(&mut self) -> Vec<i64> {
        let mut bases = vec![
            0,
            -DAY_NS,
            1_704_067_200 * NS_PER_SEC,              // 2024-01-01
            1_709_164_800 * NS_PER_SEC,              // 2024-02-29
            1_709_251_200 * NS_PER_SEC - NS_PER_SEC, // 2024-02-29T23:59:59
            951_868_800 * NS_PER_SEC,                // 2000-03-01
            MIN_TIME_NS,
            END_TIME_NS - self.g(),
        ];
        let chosen = self.rng.range(1, 2);
        let mut out = Vec::new();
        for _ in 0..chosen {
            let b = self.rng.pick(&bases);
            out.push(b - b.rem_euclid(self.g()));
        }
        bases.clear();
        out
    }

    /// A time near this case's anchors: aligned unless `misaligned`.
    fn random_time(&mut self, misaligned: bool) -> i64 {
        let g = self.g();
        let anchor = self.rng.pick(&self.anchors);
        let slab = self.config.slab_len().max(1) as i64;
        let slots: i64 = match self.rng.below(6) {
            0 => self.rng.range(-3, 3),
            1 => self.rng.range(0, 40),
            // A slot whose bytes straddle a 4 KiB block edge.
            2 => {
                let block = self.rng.range(1, 8);
                (block * 4096) / slab + self.rng.range(-1, 1)
            }
            3 => self.rng.range(-2000, 2000),
            4 => {
                // A day or a month away (crosses day and month partitions).
                let days = self.rng.pick(&[1i64, 31, 400]);
                (days * DAY_NS / g).saturating_add(self.rng.range(-2, 2))
            }
            _ => self.rng.range(0, 3),
        };
        let mut t = anchor.saturating_add(slots.saturating_mul(g));
        if misaligned && g > 1 {
            t = t.saturating_add(self.rng.range(1, g - 1));
        }
        t
    }

    /// A value for column `col` as CSV text ("" is null) and `put` text.
    fn random_value(&mut self, col: usize) -> String {
        let ty = self.schema().columns()[col].ty;
        let name = self.schema().columns()[col].name.clone();
        if self.rng.chance(8) {
            return String::new();
        }
        let r = &mut self.rng;
        if name == "s" && self.config.has_series() {
            return r.pick(&["a", "b", "cc"]).to_string();
        }
        if name == "id" && !self.config.keys.unique.is_empty() {
            return r.range(0, UNIQUE_IDS - 1).to_string();
        }
        match ty {
            // The summed column stays small enough that no bucket's sum overflows.
            ColumnType::I64 if name == "n" => r.range(-1_000_000_000_000, 1_000_000_000_000).to_string(),
            ColumnType::I8 => r.pick(&["-128", "127", "0", "-1", "5"]).to_string(),
            ColumnType::I16 => r.range(-32768, 32767).to_string(),
            ColumnType::I32 => r.pick(&["-2147483648", "2147483647", "0", "42"]).to_string(),
            ColumnType::I64 => r
                .pick(&[
                    "-9223372036854775808",
                    "9223372036854775807",
                    "0",
                    "-7",
                    "123456789012",
                ])
                .to_string(),
            ColumnType::U8 => r.range(0, 255).to_string(),
            ColumnType::U16 => r.range(0, 65535).to_string(),
            ColumnType::U32 => r.pick(&["0", "4294967295", "7"]).to_string(),
            ColumnType::U64 => r.pick(&["0", "18446744073709551615", "1"]).to_string(),
            ColumnType::F32 => r
                .pick(&["1.5", "-0", "3.4028235e38", "NaN", "-inf", "0.1"])
                .to_string(),
            ColumnType::F64 => match r.below(10) {
                0 => "NaN".to_string(),
                1 => "-0".to_string(),
                2 => "inf".to_string(),
                3 => "1e300".to_string(),
                4 => "-2.5e-310".to_string(),
                _ => {
                    let v = (r.next() % 2_000_000) as f64 / 100.0 - 10_000.0;
                    ryu::Buffer::new().format(v).to_string()
                }
            },
            ColumnType::Dec(s) => {
                // The summed column stays small enough that no bucket's sum overflows.
                let v = if name == "d" {
                    r.range(-1_000_000_000_000, 1_000_000_000_000)
                } else {
                    match r.below(4) {
                        0 => i64::MIN,
                        1 => i64::MAX,
                        _ => r.range(-100_000, 100_000),
                    }
                };
                dec_text(r, v, s)
            }
            ColumnType::Bool => r.pick(&["true", "false"]).to_string(),
            // Any length: short symbols, text with delimiters and quotes, and long values.
            ColumnType::Sym => match r.below(8) {
                0 => "L".repeat(r.range(13, 300) as usize),
                1 => "a,\"b\";\tc".to_string(),
                2 => "é€x".to_string(),
                _ => r
                    .pick(&["BTCUSDT", "DOGEUSDT", "buy", "sell", "x", "NA", "0"])
                    .to_string(),
            },
            ColumnType::Str(n) => {
                const PIECES: &[&str] = &["a", "Z", ",", "\"", " x", "é", "€", ";", "\t", "\n", "9"];
                let mut s = String::new();
                let want = r.range(1, i64::from(n).min(12));
                while (s.len() as i64) < want {
                    let p = r.pick(PIECES);
                    if s.len() + p.len() > usize::from(n) {
                        break;
                    }
                    s.push_str(p);
                }
                if s.is_empty() || s.starts_with(' ') || s.ends_with(' ') {
                    s = "a".into();
                }
                s
            }
        }
    }

    fn random_row(&mut self) -> Vec<String> {
        (0..self.schema().columns().len())
            .map(|c| self.random_value(c))
            .collect()
    }

    /// The stored bytes of a row given as text, as `put` encodes it.
    fn encode(&self, values: &[String]) -> Vec<u8> {
        let schema = self.schema();
        let mut row = schema.new_row();
        for (col, text) in values.iter().enumerate() {
            schema
                .set_field(&mut row, col, text)
                .unwrap_or_else(|e| self.fail(&format!("the model made a bad value `{text}`: {e}")));
        }
        row
    }

    fn open_write(&self) -> Database {
        Database::open(&self.dir, Access::Write(LockWait::No), &mut |_| {})
            .unwrap_or_else(|e| self.fail(&format!("open for writing: {e}")))
    }

    fn open_read(&self) -> Database {
        let db = Database::open(&self.dir, Access::Read, &mut |_| {})
            .unwrap_or_else(|e| self.fail(&format!("open for reading: {e}")));
        db.set_merge_window_bytes(self.merge_window_bytes);
        db
    }

    fn is_storable(&self, t: i64) -> bool {
        (MIN_TIME_NS..END_TIME_NS).contains(&t)
    }

    /// An import of 1-3 files of random rows; the model applies the upsert of docs/IMPORT.md.
    fn import(&mut self) {
        let files = self.rng.range(1, 3);
        let floor = self.rng.chance(30);
        let columns = self.schema().columns().len();
        // Input column order: the schema's, or shuffled (columns are matched by name).
        let mut order: Vec<usize> = (0..columns).collect();
        if self.rng.chance(30) {
            for i in (1..order.len()).rev() {
                let j = self.rng.below(i as u64 + 1) as usize;
                order.swap(i, j);
            }
        }
        // `--update-columns`: each file gives the key columns and some of the others; its rows
        // change only those in the stored rows they meet.
        let update = self.rng.chance(25);
        let keys = self.keys();
        let mut inputs: Vec<PathBuf> = Vec::new();
        let mut texts: Vec<String> = Vec::new();
        // (time, values, the columns its file gives)
        let mut all_rows: Vec<(i64, Vec<String>, Vec<usize>)> = Vec::new();
        let mut described = String::new();
        for _ in 0..files {
            let given: Vec<usize> = if update {
                let mut given: Vec<usize> = order
                    .iter()
                    .copied()
                    .filter(|&c| keys.series == Some(c) || keys.unique == Some(c) || self.rng.chance(50))
                    .collect();
                given.sort_unstable();
                given
            } else {
                (0..columns).collect()
            };
            let n = match self.rng.below(10) {
                0 => 0,
                1..=6 => self.rng.range(1, 30),
                _ => self.rng.range(30, 400),
            };
            // The file's fields: the time (`None`) first, then the columns given.
            let mut fields: Vec<Option<usize>> = std::iter::once(None)
                .chain(order.iter().copied().filter(|c| given.contains(c)).map(Some))
                .collect();
            let names: Vec<String> = self.schema().columns().iter().map(|c| c.name.clone()).collect();
            let header_of = |fields: &[Option<usize>]| {
                let names: Vec<&str> = fields
                    .iter()
                    .map(|f| f.map_or("time", |c| names[c].as_str()))
                    .collect();
                names.join(",") + "\n"
            };
            let mut text = header_of(&fields);
            // Files joined with `cat`: a header again, often in another order, before some rows.
            let joined = self.rng.chance(15);
            // Times: a few distinct ones, repeated (several rows at one timestamp), in any order.
            let distinct: Vec<i64> = (0..self.rng.range(1, 12))
                .map(|_| {
                    let misaligned = self.rng.chance(5);
                    self.random_time(misaligned)
                })
                .collect();
            let sorted = self.rng.chance(40);
            let regular = self.rng.chance(15);
            // A regular series is often longer than a page of a columnar stream (512 values).
            let n = if regular && self.rng.chance(50) {
                self.rng.range(520, 1500)
            } else {
                n
            };
            let mut times: Vec<i64> = if regular {
                // A regular series: one row a step apart (time offsets in a progression), or
                // with jitter (sorted, many distinct offsets: a paged stream).
                let step = self.g().saturating_mul(self.rng.range(1, 3));
                let jitter = if self.rng.chance(50) { self.g() } else { 0 };
                (0..n)
                    .map(|i| {
                        let t = distinct[0].saturating_add(i.saturating_mul(step));
                        t.saturating_add(jitter.saturating_mul(self.rng.range(0, 1)))
                    })
                    .collect()
            } else {
                (0..n).map(|_| self.rng.pick(&distinct)).collect()
            };
            if sorted {
                times.sort();
            }
            for t in times {
                if joined && self.rng.chance(5) {
                    for i in (1..fields.len()).rev() {
                        let j = self.rng.below(i as u64 + 1) as usize;
                        fields.swap(i, j);
                    }
                    text.push_str(&header_of(&fields));
                }
                let mut values = self.random_row();
                for (i, f) in fields.iter().enumerate() {
                    if i > 0 {
                        text.push(',');
                    }
                    match f {
                        None => {
                            let _ = write!(text, "{}", format_iso_exact(t));
                        }
                        Some(c) => text.push_str(&csv_field(&values[*c])),
                    }
                }
                text.push('\n');
                for (c, v) in values.iter_mut().enumerate() {
                    if !given.contains(&c) {
                        v.clear(); // not in the file: null in a row it adds
                    }
                }
                all_rows.push((t, values, given.clone()));
            }
            self.files += 1;
            let path = self.tmp.path().join(format!("in{}.csv", self.files));
            std::fs::write(&path, &text).expect("write input");
            texts.push(text);
            let _ = write!(
                described,
                " {}:{}rows",
                path.file_name().unwrap().to_string_lossy(),
                n
            );
            inputs.push(path);
        }
        let chunk_bytes = self.rng.pick(&[1usize, 64, 1000, 1 << 20]);
        let threads = self.rng.range(1, 3) as usize;
        let sync = self.rng.chance(20);
        // Held-back bucket rows kept in memory: 1 byte spills them after every batch.
        let hold_bytes = self.rng.pick(&[1u64, 4096, xs::import::HOLD_BYTES]);
        // New series built aside and put in place at the end: none, some, or all of them.
        let defer_after = self
            .rng
            .pick(&[0usize, 1, 3, xs::import::DEFER_SYNC_AFTER_SERIES]);
        let _ = writeln!(
            self.log,
            "import{described} floor={floor} chunk_bytes={chunk_bytes} threads={threads} update={update} \
             hold_bytes={hold_bytes} defer_after={defer_after}"
        );

        // The model: every row stored or rejected; a timestamp's first touch clears it.
        let g = self.g();
        let depth = match self.config.layout {
            Layout::Grid => self.config.depth as usize,
            Layout::Bucket => usize::MAX,
        };
        let mut touched = std::collections::HashSet::new();
        let (mut stored, mut rejected) = (0u64, 0u64);
        let mut next = self.model.clone();
        // Stored rows this import replaces and removes: per (time, series), the rows there
        // before its first touch against the rows it leaves; with a unique key, each row that
        // takes the place of one with its key.
        let mut displaced = 0u64;
        let mut first_touch: BTreeMap<(i64, Option<String>), (usize, usize)> = BTreeMap::new();
        for (t, values, given) in &all_rows {
            let mut t = *t;
            if !self.is_storable(t) {
                rejected += 1;
                continue;
            }
            if t.rem_euclid(g) != 0 {
                if !floor {
                    rejected += 1;
                    continue;
                }
                t -= t.rem_euclid(g);
            }
            let row = self.encode(values);
            // A row without its unique key cannot be told from the others at its time.
            if keys.unique.is_some_and(|c| keys.schema.is_null(&row, c)) {
                rejected += 1;
                continue;
            }
            let rows = next.rows.entry(t).or_default();
            if update {
                // The stored row it updates: its key's, or the one row of its series.
                let mine: Vec<usize> = (0..rows.len())
                    .filter(|&k| keys.same_series(&rows[k], &row))
                    .filter(|&k| keys.unique.is_none() || keys.key_of(&rows[k]) == keys.key_of(&row))
                    .collect();
                match mine.as_slice() {
                    [] if keys.unique.is_some() => {
                        keys.merge_unique(rows, row);
                    }
                    [] => {
                        rows.push(row);
                        keys.order(rows);
                    }
                    [k] => {
                        for &c in given {
                            keys.schema.copy_field(&mut rows[*k], &row, c);
                        }
                        displaced += 1;
                    }
                    _ => {
                        rejected += 1;
                        continue;
                    }
                }
                stored += 1;
                self.anchors.push(t);
                continue;
            }
            if keys.unique.is_some() {
                displaced += u64::from(keys.merge_unique(rows, row));
                stored += 1;
                self.anchors.push(t);
                continue;
            }
            // A timestamp's first touch in this import clears its rows (of the row's series).
            let series = keys.series_of(&row).first().map(|v| format!("{v:?}"));
            if touched.insert((t, series.clone())) {
                let before = keys.count_series(rows, &row);
                first_touch.insert((t, series.clone()), (before, 0));
                rows.retain(|r| !keys.same_series(r, &row));
            }
            if keys.count_series(rows, &row) >= depth {
                rejected += 1;
                continue;
            }
            if let Some(e) = first_touch.get_mut(&(t, series)) {
                e.1 += 1;
            }
            rows.push(row);
            keys.order(rows);
            stored += 1;
            self.anchors.push(t);
        }
        next.remove_empty();

        // Two inputs of the same bytes, more than a header, are refused: nothing changes.
        let rows_in = |t: &str| t.lines().filter(|l| !l.trim().is_empty()).count();
        let copies = (0..texts.len()).any(|i| (0..i).any(|j| texts[i] == texts[j] && rows_in(&texts[i]) > 1));
        let db = self.open_write();
        let setting = ImportSetting {
            chunk_bytes,
            floor,
            threads,
            sync,
            update,
            hold_bytes,
            defer_after,
            rejects: self.tmp.path().join("rejects.csv"),
        };
        if copies {
            match run_import(&db, &inputs, &setting) {
                Err(e) if e.to_string().contains("hold the same bytes") => return,
                other => self.fail(&format!("an import of two copies was not refused: {other:?}")),
            }
        }
        let summary =
            run_import(&db, &inputs, &setting).unwrap_or_else(|e| self.fail(&format!("import failed: {e}")));
        drop(db);
        let (mut replaced, mut removed) = (displaced, 0u64);
        for &(before, after) in first_touch.values() {
            replaced += before.min(after) as u64;
            removed += before.saturating_sub(after) as u64;
        }
        if summary.rows_replaced != replaced || summary.rows_removed != removed {
            self.fail(&format!(
                "import replaced {} and removed {} stored rows, want {replaced} and {removed}",
                summary.rows_replaced, summary.rows_removed
            ));
        }
        if summary.rows_read != all_rows.len() as u64
            || summary.rows_stored != stored
            || summary.rows_rejected != rejected
        {
            self.fail(&format!(
                "import counts: read {} stored {} rejected {}, want read {} stored {stored} rejected {rejected}",
                summary.rows_read,
                summary.rows_stored,
                summary.rows_rejected,
                all_rows.len()
            ));
        }
        self.model = next;
    }

    fn put(&mut self) {
        let t = self.random_time(false);
        let values = self.random_row();
        let append = self.rng.chance(50);
        let _ = writeln!(self.log, "put {} append={append} {values:?}", format_iso_exact(t));
        let row = self.encode(&values);
        let db = self.open_write();
        let mode = if append { PutMode::Append } else { PutMode::Replace };
        // The database's own codes for its sym values (the model's are remapped by
        // `resync_syms`).
        let mut stored = db.schema().new_row();
        for (col, text) in values.iter().enumerate() {
            db.schema()
                .set_field(&mut stored, col, text)
                .unwrap_or_else(|e| self.fail(&format!("encode `{text}` for the database: {e}")));
        }
        let result = db.put(t, &stored, mode).and_then(|()| db.sync());
        drop(db);
        let keys = self.keys();
        let full = append
            && keys.unique.is_none()
            && self.config.layout == Layout::Grid
            && self
                .model
                .rows
                .get(&t)
                .map_or(0, |rows| keys.count_series(rows, &row))
                >= self.config.depth as usize;
        // A row without its unique key is refused.
        let full = full || keys.unique.is_some_and(|c| keys.schema.is_null(&row, c));
        match result {
            Err(_) if !self.is_storable(t) || full => {}
            Err(e) => self.fail(&format!("put failed: {e}")),
            Ok(()) if !self.is_storable(t) || full => self.fail("put succeeded where it must fail"),
            Ok(()) => {
                let rows = self.model.rows.entry(t).or_default();
                if keys.unique.is_some() {
                    keys.merge_unique(rows, row);
                } else {
                    if !append {
                        rows.retain(|r| !keys.same_series(r, &row));
                    }
                    rows.push(row);
                    keys.order(rows);
                }
                self.anchors.push(t);
            }
        }
    }

    /// A window that starts and ends anywhere, mid-slot included.
    fn random_window(&mut self) -> (i64, i64) {
        let g = self.g();
        let mut a = self.random_time(false);
        let mut b = self.random_time(false);
        if self.rng.chance(50) && g > 1 {
            a = a.saturating_add(self.rng.range(-(g - 1), g - 1));
            b = b.saturating_add(self.rng.range(-(g - 1), g - 1));
        }
        if a > b {
            std::mem::swap(&mut a, &mut b);
        }
        // The empty window FROM == TO (a whole-window aggregate answers it with count 0).
        if self.rng.chance(4) {
            b = a;
        }
        if self.rng.chance(10) {
            (i64::MIN, i64::MAX)
        } else {
            (a, b)
        }
    }

    fn delete(&mut self) {
        let (from, to) = if self.rng.chance(30) {
            let t = self.random_time(false);
            (t, t.saturating_add(self.g()))
        } else {
            self.random_window()
        };
        let _ = writeln!(
            self.log,
            "delete {} {}",
            format_iso_exact(from),
            format_iso_exact(to)
        );
        let want = self.model.flat(from, to).len() as u64;
        let db = self.open_write();
        let deleted = db
            .delete(from, to)
            .and_then(|n| db.sync().map(|()| n))
            .unwrap_or_else(|e| self.fail(&format!("delete failed: {e}")));
        drop(db);
        if deleted != want {
            self.fail(&format!("delete counted {deleted} rows, want {want}"));
        }
        if from < to {
            let keys: Vec<i64> = self.model.rows.range(from..to).map(|(&t, _)| t).collect();
            for t in keys {
                self.model.rows.remove(&t);
            }
        }
    }

    /// `xs alter`: widen, rename and add random columns; the model converts its rows itself
    /// (unchanged fields copied, widened ones through their text, added ones null), and
    /// expects a refusal exactly when a dec value would not fit its new scale or the new rows
    /// pass the memory bounds, with nothing changed.
    fn alter(&mut self) {
        use xs::db::alter::{self, Change};
        let old = self.config.clone();
        let schema = old.schema.clone();
        // Columns other reads pick by name (summed, priced, keys) keep their names and types.
        let fixed = |name: &str| ["f", "n", "d", "id"].contains(&name) || (name == "s" && old.has_series());
        let mut changes = Vec::new();
        let mut new_columns: Vec<(String, ColumnType, Option<usize>)> = schema
            .columns()
            .iter()
            .enumerate()
            .map(|(i, c)| (c.name.clone(), c.ty, Some(i)))
            .collect();
        for (i, c) in schema.columns().iter().enumerate() {
            if !self.rng.chance(30) || (fixed(&c.name) && c.name != "s") {
                continue;
            }
            let wider: Vec<ColumnType> = match c.ty {
                ColumnType::I8 => vec![ColumnType::I16, ColumnType::I32, ColumnType::I64],
                ColumnType::I16 => vec![ColumnType::I32, ColumnType::I64],
                ColumnType::I32 => vec![ColumnType::I64],
                ColumnType::U8 => vec![ColumnType::U16, ColumnType::I16, ColumnType::U64, ColumnType::I64],
                ColumnType::U16 => vec![ColumnType::U32, ColumnType::I32],
                ColumnType::U32 => vec![ColumnType::U64, ColumnType::I64],
                ColumnType::Str(n) if c.name == "s" => vec![ColumnType::Str(n + 1), ColumnType::Str(n + 6)],
                ColumnType::Str(n) if n < 4000 => vec![ColumnType::Str(n + 1), ColumnType::Str(n + 50)],
                ColumnType::Dec(d) if d < 18 => vec![ColumnType::Dec(d + 1), ColumnType::Dec(18)],
                _ => continue,
            };
            let ty = self.rng.pick(&wider);
            changes.push(Change::Widen {
                name: c.name.clone(),
                ty,
            });
            new_columns[i].1 = ty;
        }
        for (i, c) in schema.columns().iter().enumerate() {
            if fixed(&c.name) || !self.rng.chance(25) {
                continue;
            }
            let to = format!("r{}", self.rng.below(1_000_000));
            if new_columns.iter().any(|(n, _, _)| *n == to) {
                continue;
            }
            changes.push(Change::Rename {
                from: c.name.clone(),
                to: to.clone(),
            });
            new_columns[i].0 = to;
        }
        let adds = if changes.is_empty() {
            1
        } else {
            self.rng.range(0, 2)
        };
        for _ in 0..adds {
            let name = format!("a{}", self.rng.below(1_000_000));
            if new_columns.iter().any(|(n, _, _)| *n == name) {
                continue;
            }
            let ty = match self.rng.below(6) {
                0 => ColumnType::I8,
                1 => ColumnType::U64,
                2 => ColumnType::F64,
                3 => ColumnType::Bool,
                4 => ColumnType::Dec(self.rng.range(0, 18) as u8),
                _ => ColumnType::Str(self.rng.pick(&[1u16, 7, 300])),
            };
            changes.push(Change::Add {
                name: name.clone(),
                ty,
            });
            new_columns.push((name, ty, None));
        }
        let _ = writeln!(self.log, "alter {changes:?}");
        let new_schema = Schema::parse_spec(
            &new_columns
                .iter()
                .map(|(n, t, _)| format!("{n}:{t}"))
                .collect::<Vec<_>>()
                .join(","),
        )
        .unwrap_or_else(|e| self.fail(&format!("the model made a bad schema: {e}")));
        // The model's conversion: `None` when a value does not fit its widened column.
        let convert = |row: &[u8]| -> Option<Vec<u8>> {
            let mut out = new_schema.new_row();
            for (j, (_, ty, source)) in new_columns.iter().enumerate() {
                let Some(i) = *source else { continue };
                if schema.is_null(row, i) {
                    continue;
                }
                if *ty == schema.columns()[i].ty {
                    new_schema.set_field_bytes(&mut out, j, schema.field_bytes(row, i));
                    continue;
                }
                let text = match schema.value(row, i).unwrap() {
                    Value::Int(v) => v.to_string(),
                    Value::UInt(v) => v.to_string(),
                    Value::Str(v) => v,
                    Value::Dec(v, s) => dec_string(i128::from(v), s),
                    other => panic!("the model widened a {other:?}"),
                };
                new_schema.set_field(&mut out, j, &text).ok()?;
            }
            Some(out)
        };
        let mut converted = Model::default();
        let mut fits = true;
        for (&t, rows) in &self.model.rows {
            for row in rows {
                match convert(row) {
                    Some(r) => converted.rows.entry(t).or_default().push(r),
                    None => fits = false,
                }
            }
        }
        // The bounds every config is held to (memory, partition size), as on open.
        let within_bounds = Config::parse(
            &Config {
                schema: new_schema.clone(),
                ..old.clone()
            }
            .to_toml(),
        )
        .is_ok();
        let db = self.open_write();
        let result =
            alter::plan(&self.dir, &old, &changes).and_then(|plan| alter::alter(&db, &plan, &mut |_| {}));
        drop(db);
        match result {
            Ok(outcome) if fits && within_bounds => {
                let loaded =
                    Config::load(&self.dir).unwrap_or_else(|e| self.fail(&format!("load after alter: {e}")));
                if loaded.schema.spec() != new_schema.spec() || loaded != outcome.config {
                    self.fail(&format!(
                        "alter wrote the schema {}, the model wants {}",
                        loaded.schema.spec(),
                        new_schema.spec()
                    ));
                }
                self.config = loaded;
                // The model's rows keep the model's sym codes: its dictionary goes along.
                if let Some(dict) = old.schema.syms() {
                    self.config.schema.attach_syms(std::sync::Arc::clone(dict));
                }
                self.model = converted;
            }
            Ok(_) => self.fail(&format!(
                "alter succeeded where it must fail (values fit: {fits})"
            )),
            Err(e) if !fits || !within_bounds => {
                let _ = writeln!(self.log, "  refused: {e}");
                if Config::load(&self.dir).ok().as_ref() != Some(&old) {
                    self.fail(&format!("a refused alter changed the config: {e}"));
                }
            }
            Err(e) => self.fail(&format!("alter failed: {e}")),
        }
    }

    fn defrag(&mut self) {
        let min = self.rng.pick(&[0u64, 1]);
        // The bucket layout's defrag also converts between record codecs.
        let codec = match self.config.layout {
            Layout::Bucket => self
                .rng
                .pick(&[None, Some(RecordCodec::Raw), Some(RecordCodec::Columnar)]),
            Layout::Grid => None,
        };
        let given = codec
            .map(|c| format!(" --codec {}", c.name()))
            .unwrap_or_default();
        let _ = writeln!(self.log, "defrag --min-extents {min}{given}");
        let mut db = self.open_write();
        if let Some(codec) = codec {
            db.set_codec(codec)
                .unwrap_or_else(|e| self.fail(&format!("set_codec failed: {e}")));
            self.config.codec = codec;
        }
        let options = DefragOptions {
            min_fragmented_extents: min,
            dry_run: false,
            assume_free_bytes: None,
            codec: None,
        };
        defrag(&db, &[], options, &mut |_| {}).unwrap_or_else(|e| self.fail(&format!("defrag failed: {e}")));
    }

    // ---- reads ----

    /// The model encodes `sym` values with a dictionary of its own; after a write, its rows
    /// take the database's codes for the same texts (a text the database lacks gets a code it
    /// does not have, which the comparisons then show), and its schema the database's
    /// dictionary as now stored.
    fn resync_syms(&mut self) {
        if !self.schema().has_sym() {
            return;
        }
        let fresh = std::sync::Arc::new(
            xs::db::syms::SymDict::load(&self.dir, true)
                .unwrap_or_else(|e| self.fail(&format!("load the dictionary: {e}"))),
        );
        let old = self.schema().clone();
        let cols: Vec<usize> = (0..old.columns().len())
            .filter(|&c| old.columns()[c].ty == ColumnType::Sym)
            .collect();
        for rows in self.model.rows.values_mut() {
            for row in rows.iter_mut() {
                recode(&old, &fresh, &cols, row);
            }
        }
        self.config.schema.attach_syms(fresh);
    }

    /// Rows of `db` with the model's codes for their sym values.
    fn recoded(&self, db: &Database, rows: Vec<(i64, Vec<u8>)>) -> Vec<(i64, Vec<u8>)> {
        let Some(dict) = self.schema().syms() else {
            return rows;
        };
        let cols: Vec<usize> = (0..self.schema().columns().len())
            .filter(|&c| self.schema().columns()[c].ty == ColumnType::Sym)
            .collect();
        rows.into_iter()
            .map(|(t, mut row)| {
                recode(db.schema(), dict, &cols, &mut row);
                (t, row)
            })
            .collect()
    }

    fn count_columnar_records(&mut self) {
        if self.config.layout != Layout::Bucket {
            return;
        }
        let db = self.open_read();
        // Not the `--fast` walk: that one reads no record, so it counts none.
        let options = xs::db::stat::StatOptions { count_rows: true };
        let report =
            xs::db::stat::stat(&db, &[], options).unwrap_or_else(|e| self.fail(&format!("stat failed: {e}")));
        let records: u64 = report
            .partitions
            .iter()
            .filter_map(|p| p.bucket.as_ref()?.codec.as_ref())
            .map(|c| c.columnar_records)
            .sum();
        COLUMNAR_RECORDS.fetch_add(records, Ordering::Relaxed);
    }

    fn check_all(&mut self) {
        self.resync_syms();
        let db = self.open_read();
        self.check_scan(&db, i64::MIN, i64::MAX);
        self.check_range_output(&db, i64::MIN, i64::MAX, u64::MAX);
        let all = self.model.flat(i64::MIN, i64::MAX);
        self.check_arrow_output(&db, (i64::MIN, i64::MAX), None, &all, u64::MAX);
        for _ in 0..3 {
            let (from, to) = self.random_window();
            self.check_scan(&db, from, to);
            let limit = if self.rng.chance(30) {
                self.rng.range(0, 5) as u64
            } else {
                u64::MAX
            };
            self.check_range_output(&db, from, to, limit);
            let want = self.model.flat(from, to);
            self.check_arrow_output(&db, (from, to), None, &want, limit);
        }
        for _ in 0..2 {
            self.check_filtered_output(&db);
        }
        self.check_get(&db);
        self.check_asof(&db);
        if db.is_series_root() {
            self.check_one_series();
        }
        for _ in 0..2 {
            self.check_agg(&db);
        }
        self.check_stat(&db);
        if self.rng.chance(25) {
            self.check_export_reimport();
        }
    }

    /// `--series V`: the rows of one series (or two), alone.
    fn check_one_series(&mut self) {
        let mut db = self.open_read();
        let picked: Vec<&str> = match self.rng.below(3) {
            0 => vec!["a"],
            1 => vec!["cc", "a"],
            _ => vec![""],
        };
        let texts: Vec<String> = picked.iter().map(|s| s.to_string()).collect();
        db.select_series(&texts)
            .unwrap_or_else(|e| self.fail(&format!("select series {picked:?}: {e}")));
        let keys = self.keys();
        let mut model = self.model.clone();
        for rows in model.rows.values_mut() {
            rows.retain(|r| {
                let text = match keys.series_of(r).first() {
                    Some(Value::Str(s)) => s.clone(),
                    _ => String::new(),
                };
                picked.contains(&text.as_str())
            });
        }
        model.remove_empty();
        let mut got: Vec<(i64, Vec<u8>)> = Vec::new();
        db.scan(i64::MIN, i64::MAX, |t, row| -> xs::Result<bool> {
            got.push((t, row.to_vec()));
            Ok(true)
        })
        .unwrap_or_else(|e| self.fail(&format!("scan of series {picked:?} failed: {e}")));
        let want = model.flat(i64::MIN, i64::MAX);
        if got != want {
            self.fail(&format!("scan of series {picked:?}: {}", self.diff(&got, &want)));
        }
    }

    fn check_scan(&self, db: &Database, from: i64, to: i64) {
        let mut got: Vec<(i64, Vec<u8>)> = Vec::new();
        db.scan(from, to, |t, row| -> xs::Result<bool> {
            got.push((t, row.to_vec()));
            Ok(true)
        })
        .unwrap_or_else(|e| self.fail(&format!("scan failed: {e}")));
        let want = self.model.flat(from, to);
        if got != want {
            self.fail(&format!(
                "scan {}..{}: {}",
                format_iso_exact(from),
                format_iso_exact(to),
                self.diff(&got, &want)
            ));
        }
    }

    /// Describes the first difference between two row lists.
    fn diff(&self, got: &[(i64, Vec<u8>)], want: &[(i64, Vec<u8>)]) -> String {
        let at = got
            .iter()
            .zip(want)
            .position(|(a, b)| a != b)
            .unwrap_or(got.len().min(want.len()));
        let show = |r: Option<&(i64, Vec<u8>)>| match r {
            Some((t, row)) => format!("{} {:?}", format_iso_exact(*t), self.values(row)),
            None => "(none)".into(),
        };
        format!(
            "{} rows, want {}; first difference at row {at}: got {}, want {}",
            got.len(),
            want.len(),
            show(got.get(at)),
            show(want.get(at))
        )
    }

    fn values(&self, row: &[u8]) -> Vec<Value> {
        (0..self.schema().columns().len())
            .map(|c| self.schema().value(row, c).unwrap())
            .collect()
    }

    fn formatter(&self, config: &Config) -> RowFormatter {
        self.formatter_of(config, None)
    }

    /// A CSV formatter of `columns` (the time and those named; all when `None`).
    fn formatter_of(&self, config: &Config, columns: Option<Vec<String>>) -> RowFormatter {
        let options = OutputOptions {
            format: Format::Csv,
            time_format: TimeFormat::Epoch(EpochUnit::Ns),
            columns,
            header: false,
        };
        RowFormatter::new(config, &options).expect("formatter")
    }

    /// Now and then `--columns`: the time and a few columns in a random order (columnar
    /// records then decode only those; a read that prints no `sym` column never reads the
    /// dictionary). The names, and the schema indexes of the value columns among them.
    fn random_columns(&mut self) -> (Option<Vec<String>>, Vec<usize>) {
        let schema = self.schema().clone();
        let mut shown: Vec<usize> = (0..schema.columns().len()).collect();
        let names = self.rng.chance(30).then(|| {
            for i in (1..shown.len()).rev() {
                shown.swap(i, self.rng.below(i as u64 + 1) as usize);
            }
            shown.truncate(self.rng.below(shown.len() as u64 + 1) as usize);
            let mut names = vec![self.config.time_column.clone()];
            names.extend(shown.iter().map(|&c| schema.columns()[c].name.clone()));
            names
        });
        (names, shown)
    }

    /// `range`'s writer (parallel formatting, ordered output, limit) against the model's rows
    /// formatted one by one. Half the time the writer formats through the read handle's own
    /// config, whose `sym` dictionary is read only if a printed column needs it, as a `range`
    /// process does; the model's rows through the model's dictionary.
    fn check_range_output(&mut self, db: &Database, from: i64, to: i64, limit: u64) {
        let (columns, _) = self.random_columns();
        let formatter = self.formatter_of(&self.config, columns.clone());
        let own = self
            .rng
            .chance(50)
            .then(|| self.formatter_of(db.config(), columns));
        let mut got = Vec::new();
        write_range(
            db,
            from,
            to,
            own.as_ref().unwrap_or(&formatter),
            limit,
            Compression::None,
            &mut |b: &[u8]| -> xs::Result<()> {
                got.extend_from_slice(b);
                Ok(())
            },
        )
        .unwrap_or_else(|e| self.fail(&format!("range failed: {e}")));
        let mut want = Vec::new();
        for (t, row) in self
            .model
            .flat(from, to)
            .iter()
            .take(usize::try_from(limit).unwrap_or(usize::MAX))
        {
            formatter.row(&mut want, *t, row).unwrap();
        }
        if got != want {
            let (g, w) = (String::from_utf8_lossy(&got), String::from_utf8_lossy(&want));
            let at = g.lines().zip(w.lines()).position(|(a, b)| a != b);
            self.fail(&format!(
                "range {}..{} limit {limit}: {} lines, want {}; first difference at line {at:?}:\n got {:?}\nwant {:?}",
                format_iso_exact(from),
                format_iso_exact(to),
                g.lines().count(),
                w.lines().count(),
                at.and_then(|i| g.lines().nth(i)),
                at.and_then(|i| w.lines().nth(i)),
            ));
        }
    }

    /// `range --format arrow`'s writer (time slices gathered in parallel, written in order;
    /// the limit) in batches of a few rows, read back with Arrow's own reader: the rows `want`
    /// (at most `limit`), each value as the model holds it.
    fn check_arrow_output(
        &mut self,
        db: &Database,
        (from, to): (i64, i64),
        filter: Option<&Filter>,
        want: &[(i64, Vec<u8>)],
        limit: u64,
    ) {
        let batch_rows = 1 + self.rng.below(6) as usize;
        let (names, shown) = self.random_columns();
        let schema = self.schema().clone();
        let mut bytes = Vec::new();
        let mut writer = ColumnarWriter::with_batch_rows(
            &self.config,
            names.as_deref(),
            Container::ArrowStream,
            &mut bytes,
            batch_rows,
        )
        .unwrap_or_else(|e| self.fail(&format!("arrow writer: {e:?}")));
        writer
            .write_range(db, (from, to), filter, limit)
            .unwrap_or_else(|e| self.fail(&format!("range --format arrow failed: {e:?}")));
        writer
            .finish()
            .unwrap_or_else(|e| self.fail(&format!("range --format arrow: finish: {e:?}")));
        let batches: Vec<RecordBatch> = arrow_ipc::reader::StreamReader::try_new(bytes.as_slice(), None)
            .unwrap_or_else(|e| self.fail(&format!("range --format arrow: not a stream: {e}")))
            .map(|b| b.unwrap_or_else(|e| self.fail(&format!("range --format arrow: a bad batch: {e}"))))
            .collect();
        if let Some(big) = batches.iter().find(|b| b.num_rows() > batch_rows) {
            self.fail(&format!(
                "a batch of {} rows, {batch_rows} at most",
                big.num_rows()
            ));
        }
        let got: Vec<(i64, Vec<String>)> = batches.iter().flat_map(arrow_rows).collect();
        let unit_ns = match batches.first().map(|b| b.schema().field(0).data_type().clone()) {
            Some(DataType::Timestamp(TimeUnit::Second, _)) => 1_000_000_000,
            Some(DataType::Timestamp(TimeUnit::Millisecond, _)) => 1_000_000,
            Some(DataType::Timestamp(TimeUnit::Microsecond, _)) => 1_000,
            _ => 1,
        };
        let want: Vec<(i64, Vec<String>)> = want
            .iter()
            .take(usize::try_from(limit).unwrap_or(usize::MAX))
            .map(|(t, row)| {
                let cells = shown
                    .iter()
                    .map(|&c| match schema.value(row, c).unwrap() {
                        Value::Null => "null".to_string(),
                        // Arrow has no empty text in xs's output: an empty string is null.
                        Value::Str(text) if text.is_empty() => "null".to_string(),
                        Value::Str(text) => text,
                        Value::Int(v) | Value::Dec(v, _) => v.to_string(),
                        Value::UInt(v) => v.to_string(),
                        Value::Float(v) => format!("{:?}", v.to_bits()),
                        Value::Bool(v) => v.to_string(),
                    })
                    .collect();
                (t.div_euclid(unit_ns), cells)
            })
            .collect();
        if got != want {
            let at = got.iter().zip(&want).position(|(a, b)| a != b);
            self.fail(&format!(
                "range --format arrow {}..{} limit {limit}, batches of {batch_rows}, columns {names:?}: \
                 {} rows, want {}; first difference at row {at:?}: got {:?}, want {:?}",
                format_iso_exact(from),
                format_iso_exact(to),
                got.len(),
                want.len(),
                at.map(|i| &got[i]),
                at.map(|i| &want[i]),
            ));
        }
    }

    /// A random `--where` of one to three conditions on random columns (or the time column),
    /// as `range` takes it, and the model's own reading of it.
    fn random_filter(&mut self) -> (Vec<String>, Vec<ModelCond>) {
        let schema = self.schema().clone();
        let mut conds = Vec::new();
        let mut texts: Vec<String> = Vec::new();
        for _ in 0..self.rng.range(1, 3) {
            let col = (!self.rng.chance(10)).then(|| self.rng.below(schema.columns().len() as u64) as usize);
            let name = col.map_or(self.config.time_column.clone(), |c| {
                schema.columns()[c].name.clone()
            });
            let op = self.rng.pick(&["=", "!=", "<", "<=", ">", ">=", "in", "in"]);
            let n = if op == "in" { self.rng.range(1, 3) } else { 1 };
            let mut vals = Vec::new();
            let mut lits = Vec::new();
            for _ in 0..n {
                let (val, lit) = match col {
                    None => {
                        let misaligned = self.rng.chance(30);
                        let t = self.random_time(misaligned);
                        (Value::Int(t), format!("{t}ns"))
                    }
                    Some(c) => {
                        let text = self.random_value(c);
                        // A literal finer than a dec column's scale: between two storable values.
                        if let ColumnType::Dec(s) = schema.columns()[c].ty {
                            if !text.is_empty() && s < 18 && self.rng.chance(40) {
                                let mut scratch = schema.new_row();
                                let _ = schema.set_field(&mut scratch, c, &text);
                                if let Value::Dec(v, _) = schema.value(&scratch, c).unwrap() {
                                    if v.unsigned_abs() < (i64::MAX as u64) / 10 {
                                        let finer = i128::from(v) * 10 + if v < 0 { -5 } else { 5 };
                                        vals.push(Value::Dec(finer as i64, s + 1));
                                        lits.push(dec_string(finer, s + 1));
                                        continue;
                                    }
                                }
                            }
                        }
                        let mut scratch = schema.new_row();
                        schema.set_field(&mut scratch, c, &text).unwrap_or_else(|e| {
                            self.fail(&format!("the model made a bad value `{text}`: {e}"))
                        });
                        let lit = match schema.columns()[c].ty {
                            ColumnType::Str(_) | ColumnType::Sym if !text.is_empty() => {
                                format!("'{}'", text.replace('\'', "''"))
                            }
                            _ => text,
                        };
                        (schema.value(&scratch, c).unwrap(), lit)
                    }
                };
                vals.push(val);
                lits.push(lit);
            }
            // An empty value is the null test, and only `=`/`!=` take one.
            let null_test = vals.contains(&Value::Null);
            let op = match (null_test, op) {
                (true, "=" | "in" | "<" | "<=") => "=",
                (true, _) => "!=",
                (false, op) => op,
            };
            let text = match (null_test, op) {
                (true, op) => format!("{name}{op}"),
                (false, "in") => format!("{name} in ({})", lits.join(", ")),
                (false, op) => format!("{name} {op} {}", lits[0]),
            };
            conds.push(ModelCond {
                col,
                op,
                vals: if null_test { Vec::new() } else { vals },
            });
            match texts.last_mut() {
                Some(last) if self.rng.chance(50) => {
                    last.push_str(" and ");
                    last.push_str(&text);
                }
                _ => texts.push(text),
            }
        }
        (texts, conds)
    }

    /// `range --where`'s writer (buckets skipped by their summaries, parallel formatting)
    /// against the model's rows that pass the model's reading of the filter.
    fn check_filtered_output(&mut self, db: &Database) {
        let (texts, conds) = self.random_filter();
        let (from, to) = if self.rng.chance(50) {
            (i64::MIN, i64::MAX)
        } else {
            self.random_window()
        };
        let _ = writeln!(
            self.log,
            "  check range --where {texts:?} window {}..{}",
            format_iso_exact(from),
            format_iso_exact(to)
        );
        let filter = Filter::parse(&self.config, &texts)
            .unwrap_or_else(|e| self.fail(&format!("--where {texts:?} refused: {e}")))
            .expect("a filter");
        let formatter = self.formatter(&self.config);
        let mut got = Vec::new();
        write_range_where(
            db,
            from,
            to,
            Some(&filter),
            &formatter,
            u64::MAX,
            Compression::None,
            &mut |b: &[u8]| -> xs::Result<()> {
                got.extend_from_slice(b);
                Ok(())
            },
        )
        .unwrap_or_else(|e| self.fail(&format!("range --where failed: {e}")));
        let schema = self.schema();
        let mut want = Vec::new();
        let mut want_rows = Vec::new();
        for (t, row) in self.model.flat(from, to) {
            if conds.iter().all(|c| c.holds(schema, t, &row)) {
                formatter.row(&mut want, t, &row).unwrap();
                want_rows.push((t, row));
            }
        }
        self.check_arrow_output(db, (from, to), Some(&filter), &want_rows, u64::MAX);
        if got != want {
            let (g, w) = (String::from_utf8_lossy(&got), String::from_utf8_lossy(&want));
            let at = g.lines().zip(w.lines()).position(|(a, b)| a != b);
            self.fail(&format!(
                "range --where {texts:?}: {} lines, want {}; first difference at line {at:?}:\n got {:?}\nwant {:?}",
                g.lines().count(),
                w.lines().count(),
                at.and_then(|i| g.lines().nth(i)),
                at.and_then(|i| w.lines().nth(i)),
            ));
        }
    }

    fn check_get(&mut self, db: &Database) {
        let mut times: Vec<i64> = self.model.rows.keys().copied().take(50).collect();
        for _ in 0..5 {
            times.push(self.random_time(false));
        }
        for t in times {
            if !self.is_storable(t) {
                continue;
            }
            let got = db
                .get(t)
                .unwrap_or_else(|e| self.fail(&format!("get failed: {e}")));
            let want = self.model.rows.get(&t).cloned().unwrap_or_default();
            if got != want {
                self.fail(&format!(
                    "get {}: {} rows, want {}",
                    format_iso_exact(t),
                    got.len(),
                    want.len()
                ));
            }
        }
    }

    fn check_asof(&mut self, db: &Database) {
        if !db.is_series_root() {
            let model = self.model.clone();
            return self.check_asof_of(db, &model, "");
        }
        // As-of works per series: each series against its own rows of the model.
        let keys = self.keys();
        let series = db
            .selected_series()
            .unwrap_or_else(|e| self.fail(&format!("list series: {e}")));
        for (name, one) in series {
            let mut model = self.model.clone();
            for rows in model.rows.values_mut() {
                rows.retain(|r| xs::db::series::name_of(&keys.series_of(r)) == name);
            }
            model.remove_empty();
            self.check_asof_of(&one, &model, &name);
        }
    }

    fn check_asof_of(&mut self, db: &Database, model: &Model, series: &str) {
        let asof = AsOf::new(db).unwrap_or_else(|e| self.fail(&format!("as-of: {e}")));
        for _ in 0..8 {
            let misaligned = self.rng.chance(30);
            let at = self.random_time(misaligned);
            let within = match self.rng.below(3) {
                0 => None,
                1 => Some(self.g().saturating_mul(self.rng.range(0, 5))),
                _ => Some(self.rng.range(0, DAY_NS)),
            };
            let not_before = within.map_or(i64::MIN, |w| at.saturating_sub(w));
            let got = asof
                .latest(at, not_before)
                .unwrap_or_else(|e| self.fail(&format!("as-of failed: {e}")));
            let want = model
                .rows
                .range(..=at)
                .next_back()
                .map(|(&t, _)| t)
                .filter(|&t| t >= not_before);
            if got != want {
                self.fail(&format!(
                    "as-of {} within {within:?} series `{series}`: {:?}, want {:?}",
                    format_iso_exact(at),
                    got.map(format_iso_exact),
                    want.map(format_iso_exact)
                ));
            }
            // With the rows (the bucket layout reads them from the record it searched).
            let mut slab = Vec::new();
            let found = asof
                .latest_rows(at, not_before, &mut slab)
                .unwrap_or_else(|e| self.fail(&format!("as-of rows failed: {e}")));
            let row_len = db.schema().row_len();
            let got_rows = found.map(|(t, count)| {
                let rows: Vec<Vec<u8>> = slab[..count * row_len]
                    .chunks_exact(row_len)
                    .map(<[u8]>::to_vec)
                    .collect();
                (t, rows)
            });
            let want_rows = want.map(|t| (t, model.rows[&t].clone()));
            if got_rows != want_rows {
                self.fail(&format!(
                    "as-of rows {} within {within:?} series `{series}`: {:?}, want {:?}",
                    format_iso_exact(at),
                    got_rows.as_ref().map(|(t, r)| (format_iso_exact(*t), r.len())),
                    want_rows.as_ref().map(|(t, r)| (format_iso_exact(*t), r.len()))
                ));
            }
        }
        self.check_asof_join(db, model, series);
    }

    /// The as-of join of random probes (the last row of the latest timestamp at or before
    /// each), by lookups and by a merged scan, against the model.
    fn check_asof_join(&mut self, db: &Database, model: &Model, series: &str) {
        let n = self.rng.range(1, 40) as usize;
        let mut probes: Vec<i64> = (0..n)
            .map(|_| {
                let misaligned = self.rng.chance(30);
                self.random_time(misaligned)
            })
            .collect();
        probes.sort_unstable();
        let within = match self.rng.below(3) {
            0 => None,
            1 => Some(self.g().saturating_mul(self.rng.range(0, 5))),
            _ => Some(self.rng.range(0, DAY_NS)),
        };
        // Sometimes with a `--where`: only passing rows match.
        let (texts, conds) = if self.rng.chance(30) {
            self.random_filter()
        } else {
            (Vec::new(), Vec::new())
        };
        let filter = Filter::parse(&self.config, &texts)
            .unwrap_or_else(|e| self.fail(&format!("--where {texts:?} refused: {e}")));
        let schema = self.schema().clone();
        let passes = |t: i64, row: &[u8]| conds.iter().all(|c| c.holds(&schema, t, row));
        for strategy in [Strategy::Lookups, Strategy::Scan] {
            let mut matches = Matches::new(self.schema().row_len());
            let found = asof_join(db, &probes, within, strategy, filter.as_ref(), &mut matches)
                .unwrap_or_else(|e| self.fail(&format!("as-of join: {e}")));
            for (&p, hit) in probes.iter().zip(&found) {
                let not_before = within.map_or(i64::MIN, |w| p.saturating_sub(w));
                let want = model
                    .rows
                    .range(..=p)
                    .rev()
                    .find_map(|(&t, rows)| rows.iter().rev().find(|r| passes(t, r)).map(|r| (t, r.clone())))
                    .filter(|(t, _)| *t >= not_before);
                let got = hit.map(|k| {
                    let (t, row) = matches.get(k);
                    (t, row.to_vec())
                });
                // Compared as bytes (a NaN equals itself there).
                if got != want {
                    let show = |m: &Option<(i64, Vec<u8>)>| {
                        m.as_ref().map(|(t, r)| (format_iso_exact(*t), self.values(r)))
                    };
                    self.fail(&format!(
                        "as-of join {strategy:?} at {} within {within:?} where {texts:?} series `{series}`: {:?}, want {:?}",
                        format_iso_exact(p),
                        show(&got),
                        show(&want)
                    ));
                }
            }
        }
    }

    /// Aggregates over a random window and `--every`, against sums computed from the model.
    fn check_agg(&mut self, db: &Database) {
        let schema = self.schema().clone();
        let numeric: Vec<usize> = (0..schema.columns().len())
            .filter(|&c| {
                !matches!(
                    schema.columns()[c].ty,
                    ColumnType::Bool | ColumnType::Str(_) | ColumnType::Sym
                )
            })
            .collect();
        let mut spec = vec!["count".to_string()];
        for &c in &numeric {
            let name = &schema.columns()[c].name;
            spec.push(format!("min({name})"));
            spec.push(format!("max({name})"));
            spec.push(format!("first({name})"));
            spec.push(format!("last({name})"));
        }
        // The q of each column's `quantile`, as written (`.25`, `0.90`, `1`).
        let qs: Vec<String> = numeric
            .iter()
            .map(|_| match self.rng.below(6) {
                0 => "0".to_string(),
                1 => self.rng.pick(&["1", "1.0"]).to_string(),
                2 => ".25".to_string(),
                3 => "0.90".to_string(),
                _ => format!("0.{:03}", self.rng.below(1000)),
            })
            .collect();
        for (&c, q) in numeric.iter().zip(&qs) {
            let name = &schema.columns()[c].name;
            spec.push(format!("median({name})"));
            spec.push(format!("quantile({name}, {q})"));
        }
        if schema.column_index("n").is_some() {
            spec.push("sum(n)".into());
        }
        let dec_d = schema
            .column_index("d")
            .filter(|&c| matches!(schema.columns()[c].ty, ColumnType::Dec(_)));
        if dec_d.is_some() {
            spec.push("sum(d)".into());
            spec.push("mean(d)".into());
            spec.push("vwap(d,d)".into());
        }
        let use_ohlcv =
            schema.column_index("f").is_some() && schema.column_index("n").is_some() && self.rng.chance(30);
        let aggs = if use_ohlcv {
            ohlcv(&schema, "f", "n").expect("ohlcv")
        } else {
            parse_aggs(&schema, &spec.join(",")).expect("aggs")
        };
        let g = self.g();
        let every = match self.rng.below(4) {
            0 => None,
            1 => Some(g),
            2 => Some(g.saturating_mul(self.rng.pick(&[2i64, 3, 7, 1000]))),
            3 if self.rng.chance(30) => Some(7 * DAY_NS),
            _ => Some(DAY_NS - DAY_NS % g),
        }
        .filter(|&e| e > 0 && e % g == 0);
        let (from, to) = self.random_window();
        let fill = false;
        let (texts, conds) = if self.rng.chance(50) {
            self.random_filter()
        } else {
            (Vec::new(), Vec::new())
        };
        let _ = writeln!(
            self.log,
            "  check agg {} every={every:?} window {}..{} where {texts:?}",
            if use_ohlcv {
                "ohlcv(f,n)".to_string()
            } else {
                spec.join(",")
            },
            format_iso_exact(from),
            format_iso_exact(to)
        );
        let filter = Filter::parse(&self.config, &texts)
            .unwrap_or_else(|e| self.fail(&format!("--where {texts:?} refused: {e}")));
        let mut plan = Plan::new(&self.config, aggs, every, filter).expect("plan");
        // A series database aggregates per series as `range` does (a `per_series` plan:
        // series in parallel blocks, output in series order, the limit across them) or over
        // all series (`--all-series`).
        let keys = self.keys();
        let per_series = keys.series.is_some() && self.rng.chance(50);
        let limit = if self.rng.chance(20) {
            self.rng.below(8)
        } else {
            u64::MAX
        };
        let _ = writeln!(self.log, "    per series: {per_series}, limit {limit}");
        if per_series {
            plan = plan
                .per_series(&schema, &self.config.series_columns())
                .expect("per-series plan");
        }
        let formatter = self.formatter(plan.output_config());
        let mut got = Vec::new();
        let mut sink = |b: &[u8]| -> xs::Result<()> {
            got.extend_from_slice(b);
            Ok(())
        };
        write_buckets(db, &plan, from, to, fill, &formatter, limit, &mut sink)
            .unwrap_or_else(|e| self.fail(&format!("aggregate failed: {e}")));
        let got = String::from_utf8(got).expect("utf-8");

        // The model's buckets, per series when per series (in series order): epoch-aligned,
        // or one bucket timed FROM.
        let from_c = from.max(MIN_TIME_NS);
        let to_c = to.min(END_TIME_NS);
        let mut groups: Vec<Vec<Value>> = Vec::new();
        if per_series {
            for rows in self.model.rows.values() {
                for r in rows {
                    let s = keys.series_of(r);
                    if !groups.contains(&s) {
                        groups.push(s);
                    }
                }
            }
            groups.sort_by(|a, b| compare_values(a, b));
        } else {
            groups.push(Vec::new());
        }
        let mut want_buckets: Vec<WantBucket> = Vec::new();
        for group in &groups {
            let mut buckets: BTreeMap<i64, Vec<&Vec<u8>>> = BTreeMap::new();
            if from_c < to_c {
                for (&t, rows) in self.model.rows.range(from_c..to_c) {
                    let b = match every {
                        // A wide bucket near 1678 starts before i64's range: the engine clamps.
                        // Epoch-aligned; whole weeks from Monday 1970-01-05.
                        Some(e) => {
                            let origin = if e % (7 * DAY_NS) == 0 { 4 * DAY_NS } else { 0 };
                            let offset = (i128::from(t) - i128::from(origin)).rem_euclid(i128::from(e));
                            i64::try_from(i128::from(t) - offset).unwrap_or(i64::MIN)
                        }
                        None => from_c,
                    };
                    let passing = rows.iter().filter(|r| {
                        (!per_series || keys.series_of(r) == *group)
                            && conds.iter().all(|c| c.holds(&schema, t, r))
                    });
                    // A bucket none of whose rows pass is empty: left out.
                    let passing: Vec<&Vec<u8>> = passing.collect();
                    if !passing.is_empty() {
                        buckets.entry(b).or_default().extend(passing);
                    }
                }
            }
            // A whole-window aggregate answers even without rows: count 0, the rest null (over
            // all series; per series, only the series with rows answer), also for the empty
            // window FROM == TO, unless the storable range is what empties the window.
            let answers = from_c < to_c || (from == to && from_c == from && from < END_TIME_NS);
            if !per_series && every.is_none() && answers && buckets.is_empty() {
                buckets.insert(from_c, Vec::new());
            }
            // A series' key value as `range` prints it ("" for null).
            let text = group
                .first()
                .map(|v| xs::db::series::value_text(v).unwrap_or_default());
            want_buckets.extend(buckets.into_iter().map(|(b, rows)| (text.clone(), b, rows)));
        }
        want_buckets.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        let got_lines: Vec<&str> = got.lines().collect();
        if got_lines.len() != want_buckets.len() {
            self.fail(&format!(
                "aggregate: {} buckets, want {}:\n{got}",
                got_lines.len(),
                want_buckets.len()
            ));
        }
        let col_of = |name: &str| schema.column_index(name).expect("column");
        for (line, (series_text, b, rows)) in got_lines.iter().zip(&want_buckets) {
            let mut fields = split_csv_line(line);
            let mut want: Vec<Cell> = vec![Cell::Int(i128::from(*b))];
            // The series' value follows the bucket's time (a series value here has no
            // delimiter or quote: `a`, `b`, `cc` or null).
            if let Some(text) = series_text {
                if fields.get(1) != Some(&text.as_str()) {
                    self.fail(&format!(
                        "aggregate bucket {} of series {text:?}: got {line:?}\nall output:\n{got}",
                        format_iso_exact(*b)
                    ));
                }
                fields.remove(1);
            }
            if use_ohlcv {
                let f = col_of("f");
                let n = col_of("n");
                want.push(first(&schema, rows, f));
                want.push(extreme(&schema, rows, f, true));
                want.push(extreme(&schema, rows, f, false));
                want.push(last(&schema, rows, f));
                want.push(sum(&schema, rows, n));
                want.push(Cell::Int(rows.len() as i128));
            } else {
                want.push(Cell::Int(rows.len() as i128));
                for &c in &numeric {
                    want.push(extreme(&schema, rows, c, false));
                    want.push(extreme(&schema, rows, c, true));
                    want.push(first(&schema, rows, c));
                    want.push(last(&schema, rows, c));
                }
                for (&c, q) in numeric.iter().zip(&qs) {
                    want.push(quantile(&schema, rows, c, "0.5"));
                    want.push(quantile(&schema, rows, c, q));
                }
                if schema.column_index("n").is_some() {
                    want.push(sum(&schema, rows, col_of("n")));
                }
                if let Some(d) = dec_d {
                    want.push(sum(&schema, rows, d));
                    want.push(dec_mean(&schema, rows, d));
                    want.push(dec_vwap(&schema, rows, d, d));
                }
            }
            let same =
                fields.len() == want.len() && fields.iter().zip(&want).all(|(text, cell)| cell.matches(text));
            if !same {
                self.fail(&format!(
                    "aggregate bucket {}: got {line:?}, want {want:?}\nall output:\n{got}",
                    format_iso_exact(*b)
                ));
            }
        }
    }

    fn check_stat(&self, db: &Database) {
        let s = stat(db, &[], StatOptions { count_rows: true })
            .unwrap_or_else(|e| self.fail(&format!("stat failed: {e}")));
        let rows = s.total_rows.map_or(0, |r| r.rows);
        if rows != self.model.count() as u64 {
            self.fail(&format!("stat counts {rows} rows, want {}", self.model.count()));
        }
        // Per partition, added up over the series that have it.
        let mut by_key: BTreeMap<PartitionKey, u64> = BTreeMap::new();
        for p in &s.partitions {
            *by_key.entry(p.key).or_default() += p.rows.map_or(0, |r| r.rows);
        }
        for (&key, &got) in &by_key {
            let p = (key,);
            let want = self.model.flat(key.start_ns(), key.end_ns()).len() as u64;
            if got != want {
                self.fail(&format!(
                    "stat partition {}: {got} rows, want {want}",
                    partition_name(p.0)
                ));
            }
        }
    }

    /// `export` (ISO times, CSV with a header) re-imported into a fresh database with the same
    /// settings stores the same bytes.
    fn check_export_reimport(&mut self) {
        let db = self.open_read();
        let options = OutputOptions::default();
        let formatter = RowFormatter::new(&self.config, &options).expect("formatter");
        let mut text = Vec::new();
        formatter.header(&mut text);
        write_range(
            &db,
            MIN_TIME_NS,
            END_TIME_NS,
            &formatter,
            u64::MAX,
            Compression::None,
            &mut |b: &[u8]| -> xs::Result<()> {
                text.extend_from_slice(b);
                Ok(())
            },
        )
        .unwrap_or_else(|e| self.fail(&format!("export failed: {e}")));
        drop(db);
        let path = self.tmp.path().join("export.csv");
        std::fs::write(&path, &text).expect("write export");
        let copy_dir = self.tmp.path().join("copy");
        let _ = std::fs::remove_dir_all(&copy_dir);
        let copy = Database::create(&copy_dir, &self.config)
            .unwrap_or_else(|e| self.fail(&format!("create copy: {e}")));
        let setting = ImportSetting {
            chunk_bytes: 1 << 20,
            floor: false,
            threads: 2,
            sync: false,
            update: false,
            hold_bytes: xs::import::HOLD_BYTES,
            defer_after: xs::import::DEFER_SYNC_AFTER_SERIES,
            rejects: self.tmp.path().join("rejects-copy.csv"),
        };
        let summary = run_import(&copy, std::slice::from_ref(&path), &setting)
            .unwrap_or_else(|e| self.fail(&format!("re-import of the export failed: {e}")));
        if summary.rows_rejected != 0 {
            let rejects =
                std::fs::read_to_string(self.tmp.path().join("rejects-copy.csv")).unwrap_or_default();
            self.fail(&format!(
                "re-import of the export rejected {} rows:\n{rejects}",
                summary.rows_rejected
            ));
        }
        let mut got = Vec::new();
        copy.scan(i64::MIN, i64::MAX, |t, row| -> xs::Result<bool> {
            got.push((t, row.to_vec()));
            Ok(true)
        })
        .expect("scan copy");
        // The copy has a dictionary of its own.
        let got = self.recoded(&copy, got);
        let want = self.model.flat(i64::MIN, i64::MAX);
        if got != want {
            self.fail(&format!("export → import: {}", self.diff(&got, &want)));
        }
    }
}

/// How one import runs: the knobs the model varies.
struct ImportSetting {
    chunk_bytes: usize,
    floor: bool,
    threads: usize,
    sync: bool,
    /// `--update-columns`.
    update: bool,
    /// `Options::hold_bytes`.
    hold_bytes: u64,
    /// `Options::defer_sync_after_series`.
    defer_after: usize,
    rejects: PathBuf,
}

/// `xs import FILES…` into `db` with ISO times in UTC and a header, as the subcommand runs it.
fn run_import(db: &Database, inputs: &[PathBuf], setting: &ImportSetting) -> xs::Result<xs::import::Summary> {
    let csv = CsvOptions {
        delimiter: b',',
        has_header: true,
        skip_lines: 0,
        sep_line: false,
        unit_lines: false,
        column_names: None,
        decimal_comma: false,
        thousands: None,
        nulls: Vec::new(),
        chunk_bytes: setting.chunk_bytes,
        sniff: Sniff::default(),
        columnar: Vec::new(),
        pipes: Vec::new(),
        encoding: None,
        comments: Vec::new(),
    };
    let prepared = xs::import::prepare(inputs, &csv)?;
    let opts = Options {
        csv,
        time_columns: Vec::new(),
        time: TimeSpec::utc(InputTimeFormat::Iso),
        date: DateSource::None,
        ignore_unknown_columns: false,
        update_columns: setting.update,
        floor_time: setting.floor,
        rejects_path: setting.rejects.clone(),
        sync: setting.sync,
        threads: Some(setting.threads),
        rerun_command: "xs import (model test)".into(),
        kill_after_journal: false,
        hold_bytes: setting.hold_bytes,
        defer_sync_after_series: setting.defer_after,
    };
    xs::import::run(db, prepared, &opts, &|_| {})
}

fn partition_name(key: PartitionKey) -> String {
    key.file_name()
}

/// A CSV field as an input file holds it: quoted when it has a delimiter, quote or line end.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// An aggregate output row the model expects: the series' key text (per series), the
/// bucket's start, and its rows.
type WantBucket<'a> = (Option<String>, i64, Vec<&'a Vec<u8>>);

/// Splits one line of numeric CSV (aggregate output has no quoted fields).
fn split_csv_line(line: &str) -> Vec<&str> {
    line.split(',').collect()
}

/// An expected aggregate field.
#[derive(Debug)]
enum Cell {
    Null,
    Int(i128),
    Float(f64),
    /// An `f32` column's value: printed as the shortest `f32`, so compared as one.
    Float32(f32),
    /// A `dec(S)` value, scaled: printed with exactly S decimals.
    Dec(i128, u8),
}

impl Cell {
    fn matches(&self, text: &str) -> bool {
        match self {
            Cell::Null => text.is_empty(),
            Cell::Int(v) => text.parse::<i128>().is_ok_and(|x| x == *v),
            // -0 and 0 compare equal (min and max may keep either); NaN matches NaN.
            Cell::Float(v) => text
                .parse::<f64>()
                .is_ok_and(|x| x == *v || (x.is_nan() && v.is_nan())),
            Cell::Float32(v) => text
                .parse::<f32>()
                .is_ok_and(|x| x == *v || (x.is_nan() && v.is_nan())),
            Cell::Dec(v, s) => text == dec_string(*v, *s),
        }
    }
}

/// One `--where` condition as the model reads it (docs/QUERIES.md, "Filter"): `col` `None`
/// for the time column; no `vals` for the null tests `COL=` and `COL!=`.
#[derive(Debug)]
struct ModelCond {
    col: Option<usize>,
    op: &'static str,
    vals: Vec<Value>,
}

impl ModelCond {
    fn holds(&self, schema: &Schema, t: i64, row: &[u8]) -> bool {
        use std::cmp::Ordering;
        let v = match self.col {
            None => Value::Int(t),
            Some(c) => schema.value(row, c).unwrap(),
        };
        if self.vals.is_empty() {
            return (v == Value::Null) == (self.op == "=");
        }
        if v == Value::Null {
            return false;
        }
        let ord = |w: &Value| -> Option<Ordering> {
            match (&v, w) {
                (Value::Int(a), Value::Int(b)) => Some(a.cmp(b)),
                (Value::UInt(a), Value::UInt(b)) => Some(a.cmp(b)),
                (Value::Float(a), Value::Float(b)) => a.partial_cmp(b),
                (Value::Bool(a), Value::Bool(b)) => Some(a.cmp(b)),
                (Value::Str(a), Value::Str(b)) => Some(a.as_bytes().cmp(b.as_bytes())),
                // Exactly, at the finer of the two scales.
                (Value::Dec(a, s), Value::Dec(b, t)) => {
                    let up = |x: i64, by: u8| i128::from(x) * 10i128.pow(u32::from(by));
                    let k = (*s).max(*t);
                    Some(up(*a, k - s).cmp(&up(*b, k - t)))
                }
                _ => panic!("a value of another kind: {v:?} {w:?}"),
            }
        };
        // NaN equals NaN and is unordered.
        let equal = |w: &Value| {
            ord(w) == Some(Ordering::Equal)
                || matches!((&v, w), (Value::Float(a), Value::Float(b)) if a.is_nan() && b.is_nan())
        };
        let w = &self.vals[0];
        match self.op {
            "in" => self.vals.iter().any(equal),
            "=" => equal(w),
            "!=" => !equal(w),
            "<" => ord(w) == Some(Ordering::Less),
            "<=" => matches!(ord(w), Some(Ordering::Less | Ordering::Equal)),
            ">" => ord(w) == Some(Ordering::Greater),
            ">=" => matches!(ord(w), Some(Ordering::Greater | Ordering::Equal)),
            op => panic!("op {op}"),
        }
    }
}

/// Gives the sym fields of `row` (codes of `from`'s dictionary) the codes of their texts in `to`.
fn recode(from: &Schema, to: &xs::db::syms::SymDict, cols: &[usize], row: &mut [u8]) {
    for &c in cols {
        if let Value::Str(text) = from.value(row, c).unwrap() {
            let code = to.intern(&text).expect("a sym text");
            let at = from.field_offset(c);
            row[at..at + 4].copy_from_slice(&code.to_le_bytes());
        }
    }
}

fn cell(v: Value, ty: ColumnType) -> Cell {
    match v {
        Value::Null => Cell::Null,
        Value::Int(i) => Cell::Int(i128::from(i)),
        Value::UInt(u) => Cell::Int(i128::from(u)),
        // Widened exactly from f32, so narrowing back is exact too.
        Value::Float(f) if ty == ColumnType::F32 => Cell::Float32(f as f32),
        Value::Float(f) => Cell::Float(f),
        Value::Dec(v, s) => Cell::Dec(i128::from(v), s),
        Value::Bool(_) | Value::Str(_) => Cell::Null,
    }
}

fn non_null(schema: &Schema, rows: &[&Vec<u8>], col: usize) -> Vec<Cell> {
    let ty = schema.columns()[col].ty;
    rows.iter()
        .map(|r| schema.value(r, col).unwrap())
        .filter(|v| *v != Value::Null)
        .map(|v| cell(v, ty))
        .collect()
}

fn first(schema: &Schema, rows: &[&Vec<u8>], col: usize) -> Cell {
    non_null(schema, rows, col)
        .into_iter()
        .next()
        .unwrap_or(Cell::Null)
}

fn last(schema: &Schema, rows: &[&Vec<u8>], col: usize) -> Cell {
    non_null(schema, rows, col)
        .into_iter()
        .last()
        .unwrap_or(Cell::Null)
}

/// The min (or max) of the non-null values; NaN wins.
fn extreme(schema: &Schema, rows: &[&Vec<u8>], col: usize, max: bool) -> Cell {
    let values = non_null(schema, rows, col);
    let mut best: Option<Cell> = None;
    for c in values {
        best = Some(match (best, c) {
            (None, c) => c,
            (Some(Cell::Float(a)), _) if a.is_nan() => Cell::Float(a),
            (Some(_), Cell::Float(b)) if b.is_nan() => Cell::Float(b),
            (Some(Cell::Float32(a)), _) if a.is_nan() => Cell::Float32(a),
            (Some(_), Cell::Float32(b)) if b.is_nan() => Cell::Float32(b),
            (Some(Cell::Float(a)), Cell::Float(b)) => {
                Cell::Float(if (b > a) == max && b != a { b } else { a })
            }
            (Some(Cell::Float32(a)), Cell::Float32(b)) => {
                Cell::Float32(if (b > a) == max && b != a { b } else { a })
            }
            (Some(Cell::Int(a)), Cell::Int(b)) => Cell::Int(if max { a.max(b) } else { a.min(b) }),
            (Some(Cell::Dec(a, s)), Cell::Dec(b, _)) => Cell::Dec(if max { a.max(b) } else { a.min(b) }, s),
            (Some(a), _) => a,
        });
    }
    best.unwrap_or(Cell::Null)
}

fn sum(schema: &Schema, rows: &[&Vec<u8>], col: usize) -> Cell {
    let values = non_null(schema, rows, col);
    if values.is_empty() {
        return Cell::Null;
    }
    let mut total = 0i128;
    let mut scale = None;
    for c in values {
        match c {
            Cell::Int(i) => total += i,
            Cell::Dec(i, s) => {
                total += i;
                scale = Some(s);
            }
            _ => {}
        }
    }
    match scale {
        Some(s) => Cell::Dec(total, s),
        None => Cell::Int(total),
    }
}

/// The continuous quantile `q` (decimal text from 0 to 1) of a column's non-null values
/// (docs/QUERIES.md): sorted, position (n − 1)·q taken exactly, a + (b − a)·t between its
/// neighbours; NaN if any value is NaN. Numbers enter as f64; `dec(S)` is interpolated exactly
/// and rounded half away from zero at S decimals.
fn quantile(schema: &Schema, rows: &[&Vec<u8>], col: usize, q: &str) -> Cell {
    let values = non_null(schema, rows, col);
    if values.is_empty() {
        return Cell::Null;
    }
    let (int, frac) = q.split_once('.').unwrap_or((q, ""));
    let den = 10i128.pow(frac.len() as u32);
    let num = format!("{int}{frac}").parse::<i128>().unwrap_or(0);
    let pos = (values.len() as i128 - 1) * num;
    let (lo, rem) = ((pos / den) as usize, pos % den);
    if let Cell::Dec(_, s) = values[0] {
        let mut v: Vec<i128> = values
            .iter()
            .map(|c| if let Cell::Dec(x, _) = c { *x } else { 0 })
            .collect();
        v.sort();
        let (a, b) = (v[lo], v[(lo + 1).min(v.len() - 1)]);
        let exact = a * den + (b - a) * rem;
        let (whole, part) = (exact / den, exact % den);
        let rounded = if 2 * part.abs() >= den {
            whole + exact.signum()
        } else {
            whole
        };
        return Cell::Dec(rounded, s);
    }
    let mut v: Vec<f64> = values
        .iter()
        .map(|c| match *c {
            Cell::Int(i) => i as f64,
            Cell::Float(f) => f,
            Cell::Float32(f) => f64::from(f),
            _ => f64::NAN,
        })
        .collect();
    if v.iter().any(|x| x.is_nan()) {
        return Cell::Float(f64::NAN);
    }
    v.sort_by(|x, y| x.partial_cmp(y).expect("no NaN left"));
    let (a, b) = (v[lo], v[(lo + 1).min(v.len() - 1)]);
    if rem == 0 || a == b {
        return Cell::Float(a);
    }
    Cell::Float(a + (b - a) * (rem as f64 / den as f64))
}

/// The exact mean of a `dec(S)` column's values at S decimals, half away from zero.
fn dec_mean(schema: &Schema, rows: &[&Vec<u8>], col: usize) -> Cell {
    let values = non_null(schema, rows, col);
    let Some(Cell::Dec(_, s)) = values.first() else {
        return Cell::Null;
    };
    let s = *s;
    let (mut total, n) = (0i128, values.len() as i128);
    for c in &values {
        if let Cell::Dec(i, _) = c {
            total += i;
        }
    }
    let (q, r) = (total / n, total % n);
    Cell::Dec(if 2 * r.abs() >= n { q + total.signum() } else { q }, s)
}

/// `vwap(p,q)` of two `dec` columns (docs/QUERIES.md): the exact Σ p·q / Σ q of their
/// scaled integers over the rows where both are present, as the f64 nearest to it: Rust's
/// correctly rounded parse of the ratio's decimal expansion (400 digits after the point, and
/// a last 1 when the division has not ended).
fn dec_vwap(schema: &Schema, rows: &[&Vec<u8>], p: usize, q: usize) -> Cell {
    let (mut pq, mut sum_q, mut scale) = (0i128, 0i128, 0u8);
    for r in rows {
        if let (Value::Dec(a, s), Value::Dec(b, _)) =
            (schema.value(r, p).unwrap(), schema.value(r, q).unwrap())
        {
            pq += i128::from(a) * i128::from(b);
            sum_q += i128::from(b);
            scale = s;
        }
    }
    if sum_q == 0 {
        return Cell::Null;
    }
    let den = sum_q * 10i128.pow(u32::from(scale));
    let negative = (pq < 0) != (den < 0) && pq != 0;
    let (n, d) = (pq.unsigned_abs(), den.unsigned_abs());
    let mut text = format!("{}{}.", if negative { "-" } else { "" }, n / d);
    let mut r = n % d;
    for _ in 0..400 {
        r *= 10;
        text.push(char::from(b'0' + (r / d) as u8));
        r %= d;
    }
    if r != 0 {
        text.push('1');
    }
    Cell::Float(text.parse().expect("a decimal"))
}

/// `v` / 10^`s` with exactly `s` decimals, written independently of the engine.
fn dec_string(v: i128, s: u8) -> String {
    let digits = format!("{:0>width$}", v.unsigned_abs(), width = usize::from(s) + 1);
    let (int, frac) = digits.split_at(digits.len() - usize::from(s));
    let sign = if v < 0 { "-" } else { "" };
    if s == 0 {
        format!("{sign}{int}")
    } else {
        format!("{sign}{int}.{frac}")
    }
}

/// `v` / 10^`s` as import and `put` take it, in one of the forms they accept: as printed,
/// with a `+`, without trailing zeros (`5.` or `5` when none are left), with extra zeros, or
/// without the leading `0` (`.5`).
fn dec_text(r: &mut Rng, v: i64, s: u8) -> String {
    let plain = dec_string(i128::from(v), s);
    match r.below(6) {
        0 if v >= 0 => format!("+{plain}"),
        1 if s > 0 => {
            let t = plain.trim_end_matches('0');
            if r.chance(50) {
                t.to_string()
            } else {
                t.trim_end_matches('.').to_string()
            }
        }
        2 => format!("{plain}{}", if s > 0 { "00" } else { ".00" }),
        3 if plain.starts_with("0.") => plain[1..].to_string(),
        _ => plain,
    }
}

/// The rows of an Arrow batch as (time in its unit, each value as text), as the model tells
/// them: integers and decimals as their integer, floats as their bits, `sym` by its text.
fn arrow_rows(batch: &RecordBatch) -> Vec<(i64, Vec<String>)> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::*;
    let cell = |column: &dyn Array, i: usize| -> String {
        if column.is_null(i) {
            return "null".into();
        }
        match column.data_type() {
            DataType::Int8 => column.as_primitive::<Int8Type>().value(i).to_string(),
            DataType::Int16 => column.as_primitive::<Int16Type>().value(i).to_string(),
            DataType::Int32 => column.as_primitive::<Int32Type>().value(i).to_string(),
            DataType::Int64 => column.as_primitive::<Int64Type>().value(i).to_string(),
            DataType::UInt8 => column.as_primitive::<UInt8Type>().value(i).to_string(),
            DataType::UInt16 => column.as_primitive::<UInt16Type>().value(i).to_string(),
            DataType::UInt32 => column.as_primitive::<UInt32Type>().value(i).to_string(),
            DataType::UInt64 => column.as_primitive::<UInt64Type>().value(i).to_string(),
            DataType::Float32 => format!(
                "{:?}",
                f64::from(column.as_primitive::<Float32Type>().value(i)).to_bits()
            ),
            DataType::Float64 => format!("{:?}", column.as_primitive::<Float64Type>().value(i).to_bits()),
            DataType::Decimal128(..) => column.as_primitive::<Decimal128Type>().value(i).to_string(),
            DataType::Boolean => column.as_boolean().value(i).to_string(),
            DataType::Utf8 => column.as_string::<i32>().value(i).to_string(),
            DataType::Dictionary(..) => {
                let dict = column.as_dictionary::<Int32Type>();
                let key = dict.keys().value(i) as usize;
                dict.values().as_string::<i32>().value(key).to_string()
            }
            other => panic!("an Arrow type xs does not write: {other}"),
        }
    };
    let time = batch.column(0);
    assert!(
        matches!(time.data_type(), DataType::Timestamp(..)),
        "the first column is {}, not the time",
        time.data_type()
    );
    // Every timestamp unit is an i64 a value.
    let times: Vec<i64> = time.to_data().buffer::<i64>(0).to_vec();
    (0..batch.num_rows())
        .map(|i| {
            let cells = batch.columns()[1..].iter().map(|c| cell(c.as_ref(), i)).collect();
            (times[i], cells)
        })
        .collect()
}
