//! Time-bucketed aggregations: `count`, `first`, `last`, `min`, `max`, `sum`, `mean`, `stddev`,
//! `vwap`, `median` and `quantile` per epoch-aligned bucket of a fixed duration, computed in one
//! streaming pass.
//!
//! The window is cut into slices of whole buckets; slices are scanned and aggregated in
//! parallel on the rayon pool and their output is handed on in time order. A bucket never
//! spans two slices, so no partial results are merged, even for buckets that straddle a
//! partition (year) boundary: the scan of a slice simply crosses it.
//!
//! `count`, `min` and `max` alone (no filter) fold the min/max summaries of bucket-layout
//! directory entries for the storage buckets that lie wholly inside one output bucket, so
//! those buckets' rows are never read.
//!
//! Values: nulls are skipped by every aggregate (`count` counts rows). NaN is a value: it
//! propagates through `sum`, `mean`, `stddev`, `vwap`, and makes `min`/`max`, `median` and
//! `quantile` NaN; `first`/`last` return it as stored. See docs/QUERIES.md.
//!
//! `median` and `quantile` need every value of a bucket: a slice keeps the values of the buckets
//! it may share with its neighbours (its first and last) and answers every other bucket as soon
//! as the bucket ends, so a query holds a few buckets' values at a time, not the window's.

use crate::db::config::Config;
use crate::db::schema::{split_top_level, ColumnType, FieldAt, Num, Schema};
use crate::db::summary::{decode_bounds, BoundKind, Bounds, SummaryLayout};
use crate::db::syms::Texts;
use crate::db::time::{
    civil_from_days, days_from_civil, format_duration, Granularity, END_TIME_NS, MIN_TIME_NS, NS_PER_DAY,
};
use crate::db::{Batch, BucketSummary, Columns, Database, RunTimes, Scanned};
use crate::error::{Error, Result};
use crate::io::output::{RowCache, RowFormatter};
use crate::io::timefmt::format_iso_exact;
use crate::query::filter::Filter;

/// What an aggregate computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Rows in the bucket (that pass the filter).
    Count,
    /// First non-null value, in time (then input) order.
    First,
    /// Last non-null value.
    Last,
    Min,
    Max,
    Sum,
    /// Arithmetic mean of the non-null values.
    Mean,
    /// Sample standard deviation (n − 1) of the non-null values; null below two values.
    Stddev,
    /// Σ price × qty / Σ qty over rows where both are non-null; null when Σ qty is 0.
    Vwap,
    /// `quantile(c, 0.5)`.
    Median,
    /// The continuous quantile of the non-null values (DuckDB's `quantile_cont`, numpy's
    /// `linear`): position (n − 1) × q of the sorted values, interpolated linearly.
    Quantile,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Count => "count",
            Kind::First => "first",
            Kind::Last => "last",
            Kind::Min => "min",
            Kind::Max => "max",
            Kind::Sum => "sum",
            Kind::Mean => "mean",
            Kind::Stddev => "stddev",
            Kind::Vwap => "vwap",
            Kind::Median => "median",
            Kind::Quantile => "quantile",
        }
    }

    fn parse(name: &str) -> Option<Kind> {
        Some(match name {
            "count" => Kind::Count,
            "first" => Kind::First,
            "last" => Kind::Last,
            "min" => Kind::Min,
            "max" => Kind::Max,
            "sum" => Kind::Sum,
            "mean" | "avg" => Kind::Mean,
            "stddev" => Kind::Stddev,
            "vwap" => Kind::Vwap,
            "median" => Kind::Median,
            "quantile" => Kind::Quantile,
            _ => return None,
        })
    }
}

const AGG_LIST: &str = "count, first(c), last(c), min(c), max(c), sum(c), mean(c), stddev(c), \
                        vwap(price,qty), median(c), quantile(c,q)";

/// The fraction `q` of `quantile(c, q)`, exactly as written: `num` / 10^`decimals`, 0 ≤ q ≤ 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fraction {
    num: i64,
    decimals: u8,
}

impl Fraction {
    const HALF: Fraction = Fraction { num: 5, decimals: 1 };

    /// Parses `text` (a plain decimal from 0 to 1, at most 18 decimals); `Err` says why not.
    fn parse(text: &str) -> Result<Fraction, String> {
        use crate::db::decimal::{parse, DecError, MAX_SCALE};
        let scaled = parse(text.as_bytes(), MAX_SCALE).map_err(|e| match e {
            DecError::TooManyDecimals { .. } => "has more than 18 decimals".to_string(),
            _ => "is not a number written as a plain decimal".to_string(),
        })?;
        if !(0..=crate::db::decimal::pow10(MAX_SCALE)).contains(&scaled) {
            return Err("is not between 0 and 1".into());
        }
        // The fewest decimals: the position's fraction is then `rem / 10^k` with both exact.
        let mut q = Fraction {
            num: scaled,
            decimals: MAX_SCALE,
        };
        while q.decimals > 0 && q.num % 10 == 0 {
            q.num /= 10;
            q.decimals -= 1;
        }
        Ok(q)
    }

    fn den(self) -> i64 {
        crate::db::decimal::pow10(self.decimals)
    }

    /// `q` as written in an output column name: `0.9`, `0.25`, `1`.
    fn text(self) -> String {
        crate::db::decimal::to_string(i128::from(self.num), self.decimals)
    }

    /// Where the quantile lies among `n` > 0 sorted values: index `lo` and the remainder `rem`
    /// (out of `den()`) of the way to `lo + 1`, computed exactly: (n − 1) × q = lo + rem / den.
    fn position(self, n: usize) -> (usize, i64) {
        let scaled = (n as i128 - 1) * i128::from(self.num);
        let den = i128::from(self.den());
        // lo ≤ n − 1 and rem < den ≤ 10^18: both fit.
        (
            usize::try_from(scaled / den).unwrap_or(n - 1),
            i64::try_from(scaled % den).unwrap_or(0),
        )
    }
}

fn is_numeric(ty: ColumnType) -> bool {
    !matches!(ty, ColumnType::Bool | ColumnType::Str(_) | ColumnType::Sym)
}

fn is_float(ty: ColumnType) -> bool {
    matches!(ty, ColumnType::F32 | ColumnType::F64)
}

/// One aggregate of a query: what it computes, over which column(s), and its output column.
#[derive(Clone, Debug)]
pub struct Agg {
    kind: Kind,
    /// Output column name, e.g. `count`, `first_price`, `vwap_price_qty`.
    name: String,
    /// The column aggregated (the price of `vwap`); `None` for `count`.
    field: Option<FieldAt>,
    /// The column name, for messages.
    column: String,
    /// The quantity of `vwap`.
    qty: Option<FieldAt>,
    /// The fraction of `median` (½) and `quantile`.
    q: Option<Fraction>,
    out_ty: ColumnType,
}

impl Agg {
    /// `kind` over the named columns of `schema`, with output column `name` (default: the
    /// kind and column names joined by `_`). `Err` names the column or type at fault.
    pub fn new(schema: &Schema, kind: Kind, columns: &[&str], name: Option<&str>) -> Result<Agg, String> {
        let call = format!("{}({})", kind.name(), columns.join(","));
        let (columns, q) = match (kind, columns) {
            (Kind::Median, _) => (columns, Some(Fraction::HALF)),
            (Kind::Quantile, [column, q]) => {
                let q = Fraction::parse(q).map_err(|why| {
                    format!(
                        "--agg `{call}`: q `{q}` {why}; q is a fraction from 0 to 1, e.g. \
                         quantile({column},0.9) for the 90th percentile"
                    )
                })?;
                (&columns[..1], Some(q))
            }
            (Kind::Quantile, _) => {
                let column = columns.first().copied().unwrap_or("price");
                return Err(format!(
                    "--agg `{call}`: quantile takes a column and a fraction q from 0 to 1: \
                     quantile({column},0.9); median({column}) is quantile({column},0.5)"
                ));
            }
            _ => (columns, None),
        };
        // Header text (`Adj Close`) names the column it was aliased to.
        let stored = columns
            .iter()
            .map(|c| super::stored_name(c, |n| schema.column_index(n).is_some()).map(|s| s.into_owned()))
            .collect::<Result<Vec<String>, String>>()
            .map_err(|e| format!("--agg `{call}`: {e}"))?;
        let columns: Vec<&str> = stored.iter().map(String::as_str).collect();
        let columns = columns.as_slice();
        let wanted = match kind {
            Kind::Count => 0,
            Kind::Vwap => 2,
            _ => 1,
        };
        if columns.len() != wanted {
            let usage = match kind {
                Kind::Count => "count takes no column: write `count`".to_string(),
                Kind::Vwap => "vwap takes two columns: vwap(price,qty)".to_string(),
                k => format!("{} takes one column, e.g. {}(price)", k.name(), k.name()),
            };
            return Err(format!("--agg `{call}`: {usage}"));
        }
        let mut fields = Vec::new();
        for &c in columns {
            let col = schema.column_index(c).ok_or_else(|| {
                let names: Vec<&str> = schema.columns().iter().map(|c| c.name.as_str()).collect();
                format!(
                    "--agg `{call}`: unknown column `{c}`; this database has {}",
                    names.join(",")
                )
            })?;
            let ty = schema.columns()[col].ty;
            if !matches!(kind, Kind::First | Kind::Last) && !is_numeric(ty) {
                return Err(format!(
                    "--agg `{call}`: `{c}` is {ty}, not a number; {} needs a numeric column \
                     (first({c}) and last({c}) work on any column)",
                    kind.name()
                ));
            }
            fields.push(schema.field_at(col));
        }
        let out_ty = match kind {
            Kind::Count => ColumnType::U64,
            Kind::First | Kind::Last | Kind::Min | Kind::Max => fields[0].ty,
            Kind::Sum => match fields[0].ty {
                ty if is_float(ty) => ColumnType::F64,
                // Exact, at the column's scale.
                ColumnType::Dec(s) => ColumnType::Dec(s),
                ColumnType::U8 | ColumnType::U16 | ColumnType::U32 | ColumnType::U64 => ColumnType::U64,
                _ => ColumnType::I64,
            },
            // The mean of decimals lies between their min and max: it fits the column's type.
            Kind::Mean => match fields[0].ty {
                ColumnType::Dec(s) => ColumnType::Dec(s),
                _ => ColumnType::F64,
            },
            Kind::Stddev | Kind::Vwap => ColumnType::F64,
            // Decimals interpolate exactly and round at the column's scale, as `mean` does.
            Kind::Median | Kind::Quantile => match fields[0].ty {
                ColumnType::Dec(s) => ColumnType::Dec(s),
                _ => ColumnType::F64,
            },
        };
        let name = match (name, q) {
            (Some(n), _) => n.to_string(),
            (None, _) if columns.is_empty() => kind.name().to_string(),
            (None, Some(q)) if kind == Kind::Quantile => {
                format!("{}_{}_{}", kind.name(), columns.join("_"), q.text())
            }
            (None, _) => format!("{}_{}", kind.name(), columns.join("_")),
        };
        Ok(Agg {
            kind,
            name,
            field: fields.first().copied(),
            column: columns.first().map(|c| c.to_string()).unwrap_or_default(),
            qty: fields.get(1).copied(),
            q,
            out_ty,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    fn empty(&self) -> Acc {
        match self.kind {
            Kind::Count => Acc::Count(0),
            Kind::First | Kind::Last => Acc::Pick(None),
            Kind::Min | Kind::Max => Acc::Extreme(None),
            Kind::Sum => match self.field.map(|f| f.ty) {
                Some(ty) if is_float(ty) => Acc::SumFloat { n: 0, sum: 0.0 },
                _ => Acc::SumInt { n: 0, sum: 0 },
            },
            Kind::Mean => match self.field.map(|f| f.ty) {
                Some(ColumnType::Dec(_)) => Acc::MeanDec { n: 0, sum: 0 },
                Some(ty) if !is_float(ty) => Acc::MeanInt { n: 0, sum: 0 },
                _ => Acc::Mean { n: 0, sum: 0.0 },
            },
            Kind::Stddev => Acc::Moments {
                n: 0,
                mean: 0.0,
                m2: 0.0,
            },
            Kind::Vwap => match (self.field.map(|f| f.ty), self.qty.map(|g| g.ty)) {
                (Some(ColumnType::Dec(_)), Some(ColumnType::Dec(_))) => Acc::DecVwap(DecVwap::default()),
                _ => Acc::Vwap { pq: 0.0, q: 0.0 },
            },
            Kind::Median | Kind::Quantile => match self.field.map(|f| f.ty) {
                Some(ColumnType::Dec(_)) => Acc::DecValues(Vec::new()),
                _ => Acc::Values(Vec::new()),
            },
        }
    }
}

/// Parses an `--agg` list such as `count,first(price),vwap(price,qty)` against `schema`.
pub fn parse_aggs(schema: &Schema, spec: &str) -> Result<Vec<Agg>, String> {
    let mut aggs = Vec::new();
    for item in split_top_level(spec) {
        let (fname, args) = match item.split_once('(') {
            None => (item, Vec::new()),
            Some((fname, rest)) => {
                let inner = rest
                    .strip_suffix(')')
                    .ok_or_else(|| format!("--agg `{item}`: missing `)`; write e.g. sum(qty)"))?;
                let args: Vec<&str> = inner
                    .split(',')
                    .map(str::trim)
                    .filter(|a| !a.is_empty())
                    .collect();
                (fname.trim(), args)
            }
        };
        let kind = Kind::parse(&fname.to_ascii_lowercase())
            .ok_or_else(|| format!("--agg: unknown aggregate `{item}`; use {AGG_LIST}"))?;
        aggs.push(Agg::new(schema, kind, &args, None)?);
    }
    if aggs.is_empty() {
        return Err(format!("--agg needs at least one aggregate: {AGG_LIST}"));
    }
    Ok(aggs)
}

/// The `--ohlcv price,qty` bars: open, high, low, close (first, max, min, last of the price),
/// volume (sum of the quantity) and count.
pub fn ohlcv(schema: &Schema, price: &str, qty: &str) -> Result<Vec<Agg>, String> {
    Ok(vec![
        Agg::new(schema, Kind::First, &[price], Some("open"))?,
        Agg::new(schema, Kind::Max, &[price], Some("high"))?,
        Agg::new(schema, Kind::Min, &[price], Some("low"))?,
        Agg::new(schema, Kind::Last, &[price], Some("close"))?,
        Agg::new(schema, Kind::Sum, &[qty], Some("volume"))?,
        Agg::new(schema, Kind::Count, &[], Some("count"))?,
    ])
    .and_then(|aggs| {
        // `first`/`last` accept any column; bars need a numeric price.
        Agg::new(schema, Kind::Max, &[price], None).map(|_| aggs)
    })
}

/// A bucketed aggregation ready to run: aggregates, bucket width, filter, output columns.
#[derive(Clone, Debug)]
pub struct Plan {
    aggs: Vec<Agg>,
    /// Bucket width; `None`: one bucket, the whole window (its time is FROM).
    every_ns: Option<i64>,
    /// Calendar months per bucket (`--every 1M`), 0 for fixed widths; `every_ns` is then the
    /// longest such bucket, which only sizes the scan's slices.
    months: u32,
    filter: Option<Filter>,
    out: Config,
    /// Output columns before the aggregates that hold each series' key values (aggregates
    /// per series); 0 when the aggregates fold every row together.
    group_len: usize,
    /// When every aggregate can be folded from directory summaries (bucket layout, no
    /// filter, only `count`, `min`, `max` of summarized columns): each aggregate's column
    /// among the summarized ones (0 for `count`).
    summary_slots: Option<Vec<usize>>,
}

impl Plan {
    /// The value columns the aggregates read (by schema index), for `db::with_columns`;
    /// `None` (every column) with a filter, which may read any. Per-series groups read no
    /// column: their values come from the series' name.
    fn columns_read(&self, columns: usize) -> Option<Vec<bool>> {
        if self.filter.is_some() {
            return None;
        }
        let mut wanted = vec![false; columns];
        for agg in &self.aggs {
            for field in [agg.field.as_ref(), agg.qty.as_ref()].into_iter().flatten() {
                *wanted.get_mut(field.col)? = true;
            }
        }
        Some(wanted)
    }

    /// Checks the bucket width against the database (`every_ns` a positive multiple of its
    /// granularity; `None` for one bucket over the whole window) and lays out the output
    /// columns.
    pub fn new(
        config: &Config,
        aggs: Vec<Agg>,
        every_ns: Option<i64>,
        filter: Option<Filter>,
    ) -> Result<Plan, String> {
        let g = config.granularity.ns();
        if let Some(every_ns) = every_ns.filter(|&e| e <= 0 || e % g != 0) {
            return Err(format!(
                "--every {}: a bucket must be a positive multiple of the database granularity {}; \
                 try --every {} or a multiple of it",
                format_duration(every_ns.max(0)),
                format_duration(g),
                format_duration(g)
            ));
        }
        let columns = aggs
            .iter()
            .map(|a| crate::db::schema::Column {
                name: a.name.clone(),
                ty: a.out_ty,
            })
            .collect();
        let mut schema = Schema::new(columns).map_err(|e| format!("--agg: {e}"))?;
        // first/last of a sym column copy its code: they print through the same dictionary.
        if let Some(dict) = config.schema.syms().filter(|_| schema.has_sym()) {
            schema.attach_syms(std::sync::Arc::clone(dict));
        }
        if schema.column_index(&config.time_column).is_some() {
            return Err(format!(
                "--agg: an output column is named `{}`, like the time column",
                config.time_column
            ));
        }
        // Bucket starts are multiples of the bucket width (from an origin of whole days): print
        // them at its precision, that of its largest divisor that divides a day (`7d`: a day).
        let gcd = |mut a: i64, mut b: i64| {
            while b != 0 {
                (a, b) = (b, a % b);
            }
            a
        };
        let granularity = every_ns
            .and_then(|every| Granularity::from_ns(gcd(every, NS_PER_DAY)))
            .unwrap_or(config.granularity);
        let out = Config {
            layout: config.layout,
            bucket_ns: config.bucket_ns,
            granularity,
            period: config.period,
            depth: 1,
            time_column: config.time_column.clone(),
            schema,
            keys: Default::default(),
            codec: Default::default(),
            timezone: Default::default(),
            date_order: None,
            decimal_comma: false,
        };
        let layout = SummaryLayout::new(&config.schema);
        let summary_slots = (config.may_summarize() && filter.is_none())
            .then(|| {
                aggs.iter()
                    .map(|a| match (a.kind, a.field) {
                        (Kind::Count, _) => Some(0),
                        (Kind::Min | Kind::Max, Some(f)) => layout.slot_of(f.col),
                        _ => None,
                    })
                    .collect::<Option<Vec<usize>>>()
            })
            .flatten();
        Ok(Plan {
            aggs,
            every_ns,
            months: 0,
            filter,
            out,
            group_len: 0,
            summary_slots,
        })
    }

    /// Buckets of `months` calendar months (UTC), counted from January 1970, instead of a fixed
    /// width: `--every 1M` is each month, `3M` the quarters, `12M` the years.
    pub fn calendar_months(mut self, months: u32) -> Result<Plan, String> {
        if months == 0 {
            return Err("--every 0M: a bucket must be at least one month".into());
        }
        self.months = months;
        self.every_ns = Some(MAX_MONTH_NS.saturating_mul(i64::from(months)));
        // Month starts are midnights: print them as days.
        self.out.granularity = Granularity::from_ns(86_400_000_000_000).unwrap_or(self.out.granularity);
        Ok(self)
    }

    /// The same aggregates per series: the output starts with the series key's `columns` (of
    /// `schema`), filled by `write_buckets_of` with each series' values.
    pub fn per_series(mut self, schema: &Schema, columns: &[usize]) -> Result<Plan, String> {
        let mut out_columns: Vec<crate::db::schema::Column> =
            columns.iter().map(|&c| schema.columns()[c].clone()).collect();
        out_columns.extend(self.out.schema.columns().iter().cloned());
        self.out.schema = Schema::new(out_columns).map_err(|e| format!("--agg: {e}"))?;
        if let Some(dict) = schema.syms().filter(|_| self.out.schema.has_sym()) {
            self.out.schema.attach_syms(std::sync::Arc::clone(dict));
        }
        self.group_len = columns.len();
        Ok(self)
    }

    /// A config describing the output rows (time = bucket start, one column per aggregate),
    /// for building a `RowFormatter`.
    pub fn output_config(&self) -> &Config {
        &self.out
    }

    /// Output column names after the time column.
    pub fn column_names(&self) -> Vec<&str> {
        self.out
            .schema
            .columns()
            .iter()
            .map(|c| c.name.as_str())
            .collect()
    }
}

/// The running state of one aggregate over one bucket.
#[derive(Clone, Debug)]
enum Acc {
    Count(u64),
    Pick(Option<Vec<u8>>),
    /// Best value so far; NaN once any value was NaN.
    Extreme(Option<Num>),
    SumInt {
        n: u64,
        sum: i128,
    },
    SumFloat {
        n: u64,
        sum: f64,
    },
    Mean {
        n: u64,
        sum: f64,
    },
    /// The exact sum of integers, divided at the end: a sum in f64 loses the low digits of
    /// large values (nanosecond stamps), and its result depended on how rows were grouped.
    MeanInt {
        n: u64,
        sum: i128,
    },
    /// The exact sum of `dec(S)` values (2^64 values of at most 2^63 cannot overflow an i128),
    /// divided and rounded at S decimals at the end.
    MeanDec {
        n: u64,
        sum: i128,
    },
    /// Welford's running mean and sum of squared deviations.
    Moments {
        n: u64,
        mean: f64,
        m2: f64,
    },
    Vwap {
        pq: f64,
        q: f64,
    },
    /// `vwap` of two `dec(S)` columns, exact: their scaled values' sums.
    DecVwap(DecVwap),
    /// The non-null values of `median`/`quantile` as f64 (integers as their nearest f64, as
    /// DuckDB's `quantile_cont` takes them), until the bucket is answered.
    Values(Vec<f64>),
    /// The scaled values of a `dec(S)` column, interpolated exactly.
    DecValues(Vec<i64>),
    /// A `median`/`quantile` answered (`settle`): the output field's bytes, `None` without
    /// values. Its values are dropped.
    Answer(Option<[u8; 8]>),
}

impl Acc {
    #[inline]
    fn add(&mut self, agg: &Agg, row: &[u8]) {
        if let Acc::Count(n) = self {
            *n += 1;
            return;
        }
        let Some(f) = agg.field else { return };
        if f.is_null(row) {
            return;
        }
        match self {
            Acc::Count(_) => {}
            Acc::Pick(v) => {
                if agg.kind == Kind::Last || v.is_none() {
                    let bytes = f.bytes(row);
                    match v {
                        Some(old) => old.copy_from_slice(bytes),
                        None => *v = Some(bytes.to_vec()),
                    }
                }
            }
            Acc::Extreme(best) => consider(agg.kind, best, f.num(row)),
            Acc::SumInt { n, sum } | Acc::MeanInt { n, sum } => {
                *n += 1;
                *sum += match f.num(row) {
                    Num::I(v) => i128::from(v),
                    Num::U(v) => i128::from(v),
                    Num::F(_) => 0,
                };
            }
            Acc::SumFloat { n, sum } => {
                *n += 1;
                *sum += f.f64(row);
            }
            Acc::Mean { n, sum } => {
                *n += 1;
                *sum += f.f64(row);
            }
            Acc::MeanDec { n, sum } => {
                *n += 1;
                if let Num::I(v) = f.num(row) {
                    *sum += i128::from(v);
                }
            }
            Acc::Moments { n, mean, m2 } => {
                let x = f.f64(row);
                *n += 1;
                let delta = x - *mean;
                *mean += delta / *n as f64;
                *m2 += delta * (x - *mean);
            }
            Acc::Vwap { pq, q } => {
                let Some(qf) = agg.qty else { return };
                if qf.is_null(row) {
                    return;
                }
                let (p, v) = (f.f64(row), qf.f64(row));
                *pq += p * v;
                *q += v;
            }
            Acc::DecVwap(sums) => {
                let Some(qf) = agg.qty else { return };
                if qf.is_null(row) {
                    return;
                }
                if let (Num::I(p), Num::I(v)) = (f.num(row), qf.num(row)) {
                    sums.add(p, v);
                }
            }
            Acc::Values(values) => values.push(f.f64(row)),
            Acc::DecValues(values) => {
                if let Num::I(v) = f.num(row) {
                    values.push(v);
                }
            }
            // Only a bucket that has ended is answered: no row comes after.
            Acc::Answer(_) => {}
        }
    }

    /// Answers a `median`/`quantile` from its values and drops them; other states stay.
    fn settle(&mut self, agg: &Agg) {
        let Some(q) = agg.q else { return };
        let answer = match self {
            Acc::Values(values) => quantile_f64(values, q).map(f64::to_le_bytes),
            Acc::DecValues(values) => quantile_dec(values, q).map(i64::to_le_bytes),
            _ => return,
        };
        *self = Acc::Answer(answer);
    }

    /// Writes the result into column `col` of the output row (left null when there is none).
    fn write(&mut self, agg: &Agg, out: &Schema, row: &mut [u8], col: usize, bucket_ns: i64) -> Result<()> {
        let f64_bytes = |v: f64| v.to_le_bytes();
        self.settle(agg);
        match self {
            Acc::Answer(Some(bytes)) => out.set_field_bytes(row, col, bytes),
            Acc::Count(n) => out.set_field_bytes(row, col, &n.to_le_bytes()),
            Acc::Pick(Some(v)) => out.set_field_bytes(row, col, v),
            Acc::Extreme(Some(x)) => {
                let ty = agg.out_ty;
                let mut bytes = [0u8; 8];
                let width = ty.width_bytes();
                match *x {
                    // Values came from a column of this very type: they fit its width.
                    Num::I(v) => bytes.copy_from_slice(&v.to_le_bytes()),
                    Num::U(v) => bytes.copy_from_slice(&v.to_le_bytes()),
                    Num::F(v) if ty == ColumnType::F32 => {
                        bytes[..4].copy_from_slice(&(v as f32).to_le_bytes())
                    }
                    Num::F(v) => bytes.copy_from_slice(&v.to_le_bytes()),
                }
                out.set_field_bytes(row, col, &bytes[..width]);
            }
            Acc::SumInt { n, sum } if *n > 0 => {
                let overflow = || {
                    let total = match agg.out_ty {
                        ColumnType::Dec(s) => crate::db::decimal::to_string(*sum, s),
                        _ => sum.to_string(),
                    };
                    Error::Overflow(format!(
                        "sum({}) of the bucket at {} is {total}, too large for {}; sum a narrower window or mean({}) instead",
                        agg.column,
                        format_iso_exact(bucket_ns),
                        agg.out_ty,
                        agg.column
                    ))
                };
                if agg.out_ty == ColumnType::U64 {
                    let v = u64::try_from(*sum).map_err(|_| overflow())?;
                    out.set_field_bytes(row, col, &v.to_le_bytes());
                } else {
                    let v = i64::try_from(*sum).map_err(|_| overflow())?;
                    out.set_field_bytes(row, col, &v.to_le_bytes());
                }
            }
            Acc::SumFloat { n, sum } if *n > 0 => out.set_field_bytes(row, col, &f64_bytes(*sum)),
            Acc::Mean { n, sum } if *n > 0 => out.set_field_bytes(row, col, &f64_bytes(*sum / *n as f64)),
            Acc::MeanInt { n, sum } if *n > 0 => {
                out.set_field_bytes(row, col, &f64_bytes(int_mean(*sum, *n)))
            }
            Acc::MeanDec { n, sum } if *n > 0 => {
                // Between the smallest and the largest value, so within i64.
                let mean = i64::try_from(crate::db::decimal::mean(*sum, *n)).unwrap_or(i64::MAX);
                out.set_field_bytes(row, col, &mean.to_le_bytes())
            }
            Acc::Moments { n, m2, .. } if *n > 1 => {
                out.set_field_bytes(row, col, &f64_bytes((*m2 / (*n - 1) as f64).sqrt()))
            }
            Acc::Vwap { pq, q } if *q != 0.0 || q.is_nan() => {
                out.set_field_bytes(row, col, &f64_bytes(*pq / *q))
            }
            Acc::DecVwap(sums) if sums.q != 0 => {
                let Some(ColumnType::Dec(scale)) = agg.field.map(|f| f.ty) else {
                    return Ok(());
                };
                out.set_field_bytes(row, col, &f64_bytes(sums.ratio(scale)))
            }
            _ => {}
        }
        Ok(())
    }
}

/// The sums of `vwap` over two `dec(S)` columns, of their scaled integers: Σ p·q and Σ q are
/// exact whatever the order rows, runs and slices are added in, so every layout, thread count
/// and window prints the same digits. Σ p·q is kept past i128 as `carries`·2^128 + `pq` (two
/// `dec(8)` columns pass 2^127 after about 10^14 large trades), and the ratio is divided exactly.
#[derive(Clone, Copy, Debug, Default)]
struct DecVwap {
    pq: i128,
    carries: i64,
    /// Σ q of i64 values: past i128 only after 2^64 rows.
    q: i128,
}

impl DecVwap {
    #[inline(always)]
    fn add(&mut self, p: i64, q: i64) {
        self.add_pq(i128::from(p) * i128::from(q));
        self.q += i128::from(q);
    }

    #[inline(always)]
    fn add_pq(&mut self, x: i128) {
        match self.pq.checked_add(x) {
            Some(sum) => self.pq = sum,
            None => self.wrap(x),
        }
    }

    /// Adds `x` past i128's range: the sum wraps and the carry counts it.
    #[cold]
    fn wrap(&mut self, x: i128) {
        self.pq = self.pq.wrapping_add(x);
        self.carries += if x > 0 { 1 } else { -1 };
    }

    fn merge(&mut self, later: DecVwap) {
        self.add_pq(later.pq);
        self.carries += later.carries;
        self.q += later.q;
    }

    /// Σ p·q / Σ q as the f64 nearest to it (ties to even), for a price of `scale` decimals
    /// (Σ q ≠ 0): the ratio of (carries·2^128 + pq) to q·10^scale, divided exactly.
    fn ratio(&self, scale: u8) -> f64 {
        // |carries·2^128 + pq|: past i128 its sign is the carries'.
        let (negative_num, num) = match self.carries {
            0 => (self.pq < 0, Wide::from(self.pq.unsigned_abs())),
            c => {
                let high = Wide::from(u128::from(c.unsigned_abs())).shl(128);
                let low = Wide::from(self.pq.unsigned_abs());
                let num = if (c > 0) == (self.pq >= 0) {
                    high.add(low)
                } else {
                    high.sub(low)
                };
                (c < 0, num)
            }
        };
        let den = Wide::from(self.q.unsigned_abs()).mul(crate::db::decimal::pow10(scale) as u64);
        let x = nearest_ratio(num, den);
        if negative_num != (self.q < 0) {
            -x
        } else {
            x
        }
    }
}

/// A non-negative integer of up to 320 bits (64-bit limbs, least significant first): the
/// exact numerator and denominator of a decimal `vwap`, which pass u128.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Wide([u64; 5]);

impl From<u128> for Wide {
    fn from(v: u128) -> Wide {
        Wide([v as u64, (v >> 64) as u64, 0, 0, 0])
    }
}

impl Wide {
    fn to_u128(self) -> Option<u128> {
        (self.0[2..].iter().all(|&x| x == 0)).then(|| u128::from(self.0[0]) | u128::from(self.0[1]) << 64)
    }

    fn bits(&self) -> u32 {
        (0..5)
            .rev()
            .find(|&i| self.0[i] != 0)
            .map_or(0, |i| 64 * i as u32 + 64 - self.0[i].leading_zeros())
    }

    /// `self · 2^k`; the caller keeps it within 320 bits.
    fn shl(&self, k: u32) -> Wide {
        let (limbs, bits) = ((k / 64) as usize, k % 64);
        let mut out = [0u64; 5];
        for i in (limbs..5).rev() {
            let lo = self.0[i - limbs];
            let below = if bits > 0 && i > limbs {
                self.0[i - limbs - 1] >> (64 - bits)
            } else {
                0
            };
            out[i] = (lo << bits) | below;
        }
        Wide(out)
    }

    fn add(&self, o: Wide) -> Wide {
        let (mut out, mut carry) = (self.0, false);
        for (x, y) in out.iter_mut().zip(o.0) {
            let (a, c1) = x.overflowing_add(y);
            let (b, c2) = a.overflowing_add(u64::from(carry));
            (*x, carry) = (b, c1 || c2);
        }
        Wide(out)
    }

    /// `self − o`, for `o <= self`.
    fn sub(&self, o: Wide) -> Wide {
        let (mut out, mut borrow) = (self.0, false);
        for (x, y) in out.iter_mut().zip(o.0) {
            let (a, b1) = x.overflowing_sub(y);
            let (b, b2) = a.overflowing_sub(u64::from(borrow));
            (*x, borrow) = (b, b1 || b2);
        }
        Wide(out)
    }

    fn mul(&self, m: u64) -> Wide {
        let (mut out, mut carry) = (self.0, 0u128);
        for x in out.iter_mut() {
            let v = u128::from(*x) * u128::from(m) + carry;
            (*x, carry) = (v as u64, v >> 64);
        }
        Wide(out)
    }

    fn cmp(&self, o: &Wide) -> std::cmp::Ordering {
        self.0.iter().rev().cmp(o.0.iter().rev())
    }
}

/// `num / den` (den > 0) as the f64 nearest to it, ties to even: 54 or 55 bits of the
/// quotient by long division, the remainder as a sticky bit, then one rounding. Both stay below 2^193
/// (`DecVwap`), so every shift fits `Wide`.
fn nearest_ratio(num: Wide, den: Wide) -> f64 {
    if num.bits() == 0 {
        return 0.0;
    }
    // num·2^s / den in [2^53, 2^55): s from the lengths, then num or den shifted to match.
    let s = 54 + den.bits() as i32 - num.bits() as i32;
    let (a, b) = if s >= 0 {
        (num.shl(s as u32), den)
    } else {
        (num, den.shl((-s) as u32))
    };
    let (q, sticky) = match (a.to_u128(), b.to_u128()) {
        // One u128 division where both fit (Σ q · 10^scale below 2^73: every benchmark file),
        // 55 steps of the long division otherwise; the two agree (a unit test checks).
        (Some(x), Some(y)) => ((x / y) as u64, x % y != 0),
        _ => long_division(a, &b),
    };
    // q has 54 or 55 bits: keep 53, rounding to nearest, ties to even.
    let extra = 64 - q.leading_zeros() - 53;
    let dropped = q & ((1 << extra) - 1);
    let half = 1 << (extra - 1);
    let mut m = q >> extra;
    if dropped > half || (dropped == half && (sticky || m & 1 == 1)) {
        m += 1;
    }
    // x = m · 2^(extra − s); m ≤ 2^53 is exact in f64, and the power of two is exact too.
    let e = extra as i32 - s;
    m as f64 * f64::from_bits(((e + 1023) as u64) << 52)
}

/// `a / b` for `a < b · 2^55`, by shifts and subtractions: the quotient and whether a
/// remainder is left.
fn long_division(mut a: Wide, b: &Wide) -> (u64, bool) {
    let mut q = 0u64;
    for i in (0..55).rev() {
        let step = b.shl(i);
        if a.cmp(&step) != std::cmp::Ordering::Less {
            a = a.sub(step);
            q |= 1 << i;
        }
    }
    (q, a.bits() != 0)
}

/// `sum / n` as the f64 nearest to it, within an ulp: the whole part and the remainder are
/// divided apart, so a sum past 2^53 keeps its low digits.
fn int_mean(sum: i128, n: u64) -> f64 {
    let n = i128::from(n);
    (sum / n) as f64 + (sum % n) as f64 / n as f64
}

impl Acc {
    /// Folds `later` (the same aggregate over rows that come after this one's) into `self`.
    fn merge(&mut self, agg: &Agg, later: Acc) {
        match (self, later) {
            (Acc::Count(a), Acc::Count(b)) => *a += b,
            (Acc::Pick(a), Acc::Pick(b)) if b.is_some() && (agg.kind == Kind::Last || a.is_none()) => *a = b,
            (Acc::Extreme(a), Acc::Extreme(Some(x))) => consider(agg.kind, a, x),
            (Acc::SumInt { n, sum }, Acc::SumInt { n: n2, sum: s2 })
            | (Acc::MeanInt { n, sum }, Acc::MeanInt { n: n2, sum: s2 })
            | (Acc::MeanDec { n, sum }, Acc::MeanDec { n: n2, sum: s2 }) => {
                *n += n2;
                *sum += s2;
            }
            (Acc::SumFloat { n, sum }, Acc::SumFloat { n: n2, sum: s2 })
            | (Acc::Mean { n, sum }, Acc::Mean { n: n2, sum: s2 }) => {
                *n += n2;
                *sum += s2;
            }
            (
                Acc::Moments { n, mean, m2 },
                Acc::Moments {
                    n: nb,
                    mean: mb,
                    m2: m2b,
                },
            ) => {
                // Chan et al.'s pairwise update.
                if nb == 0 {
                    return;
                }
                if *n == 0 {
                    (*n, *mean, *m2) = (nb, mb, m2b);
                    return;
                }
                let total = *n + nb;
                let delta = mb - *mean;
                *m2 += m2b + delta * delta * (*n as f64) * (nb as f64) / total as f64;
                *mean += delta * nb as f64 / total as f64;
                *n = total;
            }
            (Acc::Vwap { pq, q }, Acc::Vwap { pq: pq2, q: q2 }) => {
                *pq += pq2;
                *q += q2;
            }
            (Acc::DecVwap(a), Acc::DecVwap(b)) => a.merge(b),
            // Order does not matter to a quantile: append the shorter to the longer.
            (Acc::Values(a), Acc::Values(mut b)) => {
                if b.len() > a.len() {
                    std::mem::swap(a, &mut b);
                }
                a.extend_from_slice(&b);
            }
            (Acc::DecValues(a), Acc::DecValues(mut b)) => {
                if b.len() > a.len() {
                    std::mem::swap(a, &mut b);
                }
                a.extend_from_slice(&b);
            }
            _ => {}
        }
    }
}

/// The continuous quantile `q` of `values` (reordered): the values at sorted positions lo and
/// lo + 1 around (n − 1) × q, interpolated as DuckDB's `quantile_cont` does (`a + (b − a) × t`).
/// NaN when any value is NaN (NaN propagates, as in `min`/`max`); `None` without values.
fn quantile_f64(values: &mut [f64], q: Fraction) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    if values.iter().any(|v| v.is_nan()) {
        return Some(f64::NAN);
    }
    let (lo, rem) = q.position(values.len());
    // No NaN is left: `total_cmp` is the numeric order (-0 before 0, which compare equal).
    let (_, &mut a, above) = values.select_nth_unstable_by(lo, f64::total_cmp);
    if rem == 0 {
        return Some(a);
    }
    // rem > 0 only when lo < n − 1: the next value is the smallest above.
    let b = above.iter().copied().min_by(f64::total_cmp).unwrap_or(a);
    // Equal ends (infinities included) need no arithmetic, which would give NaN for ∞ − ∞.
    if a == b {
        return Some(a);
    }
    let t = rem as f64 / q.den() as f64;
    Some(a + (b - a) * t)
}

/// `quantile_f64` for the scaled values of a `dec(S)` column: `a + (b − a) × rem / den` exactly,
/// rounded half away from zero at S decimals (it lies between a and b, so it fits an i64).
fn quantile_dec(values: &mut [i64], q: Fraction) -> Option<i64> {
    if values.is_empty() {
        return None;
    }
    let (lo, rem) = q.position(values.len());
    let (_, &mut a, above) = values.select_nth_unstable(lo);
    if rem == 0 {
        return Some(a);
    }
    let b = above.iter().copied().min().unwrap_or(a);
    // |a × den| < 2^63 × 10^18 and (b − a) × rem < 2^64 × 10^18: well inside i128.
    let exact = i128::from(a) * i128::from(q.den()) + (i128::from(b) - i128::from(a)) * i128::from(rem);
    let den = u64::try_from(q.den()).unwrap_or(1);
    Some(i64::try_from(crate::db::decimal::mean(exact, den)).unwrap_or(a))
}

/// Keeps the smaller (`Min`) or larger (`Max`) of `best` and `x`; NaN wins and stays.
#[inline]
fn consider(kind: Kind, best: &mut Option<Num>, x: Num) {
    let wins = |less: bool, greater: bool| (kind == Kind::Min && less) || (kind == Kind::Max && greater);
    let better = match (*best, x) {
        (None, _) => true,
        (Some(Num::F(b)), _) if b.is_nan() => false,
        (_, Num::F(v)) if v.is_nan() => true,
        (Some(Num::I(b)), Num::I(v)) => wins(v < b, v > b),
        (Some(Num::U(b)), Num::U(v)) => wins(v < b, v > b),
        (Some(Num::F(b)), Num::F(v)) => wins(v < b, v > b),
        _ => false,
    };
    if better {
        *best = Some(x);
    }
}

/// Slices per rayon thread: enough to balance uneven data, few enough to keep scans long.
const SLICES_PER_THREAD: i64 = 8;
/// The thread count slices are cut for, whatever the machine's: where a slice ends decides
/// how a bucket's f64 sum is split into partial sums, so the same query gives the same digits
/// with any number of threads.
const SLICE_THREADS: i128 = 4;
/// Buckets in one slice, at most: bounds the memory of a slice's partial results.
const MAX_SLICE_BUCKETS: i64 = 1 << 16;

/// The longest calendar month, in ns.
const MAX_MONTH_NS: i64 = 31 * 86_400_000_000_000;

/// How times map to buckets: `origin + k × every`, or calendar months.
#[derive(Clone, Copy, Debug)]
struct Buckets {
    origin_ns: i64,
    every_ns: i64,
    /// Calendar months per bucket; 0 for the fixed width `every_ns`.
    months: u32,
    /// No `--every`: one bucket, the whole window from `origin`. Its width may pass i64's range
    /// (a window of more than 292 years), so `every_ns` saturates and cannot be divided by.
    whole_window: bool,
}

/// Where `--every` buckets are counted from: the epoch, but for whole weeks the Monday after
/// it (1970-01-05), so weeks run Monday to Sunday as ISO 8601 has them.
pub fn bucket_origin(every_ns: i64) -> i64 {
    const WEEK_NS: i64 = 7 * 86_400_000_000_000;
    if every_ns % WEEK_NS == 0 {
        4 * 86_400_000_000_000
    } else {
        0
    }
}

impl Buckets {
    /// The buckets as a grid of fixed cells, unless they are calendar months.
    fn grid(self) -> Option<crate::db::TimeGrid> {
        match (self.whole_window, self.months) {
            (true, _) => Some(crate::db::TimeGrid {
                origin_ns: self.origin_ns,
                every_ns: 0,
            }),
            (false, 0) => Some(crate::db::TimeGrid {
                origin_ns: self.origin_ns,
                every_ns: self.every_ns,
            }),
            _ => None,
        }
    }

    /// The start of the bucket holding `t_ns`.
    #[inline]
    fn of(self, t_ns: i64) -> i64 {
        if self.whole_window {
            return self.origin_ns;
        }
        if self.months > 0 {
            return self.month_start(self.month_of(t_ns));
        }
        // i64 arithmetic when it cannot overflow (always, but near the ends of the range).
        let start = t_ns
            .checked_sub(self.origin_ns)
            .map(|d| d.div_euclid(self.every_ns))
            .and_then(|k| k.checked_mul(self.every_ns))
            .and_then(|d| d.checked_add(self.origin_ns));
        if let Some(start) = start {
            return start;
        }
        let k = (i128::from(t_ns) - i128::from(self.origin_ns)).div_euclid(i128::from(self.every_ns));
        // A bucket of a very wide --every near 1678 may start before i64's range: clamp.
        i64::try_from(i128::from(self.origin_ns) + k * i128::from(self.every_ns)).unwrap_or(i64::MIN)
    }

    /// The end (exclusive) of the bucket holding `t_ns`: the next bucket's true start, even
    /// when this bucket's start was clamped to i64's range (its start plus the width would
    /// reach into the next bucket).
    #[inline]
    fn end_of(self, t_ns: i64) -> i64 {
        if self.whole_window {
            return i64::MAX;
        }
        if self.months > 0 {
            return self.month_start(self.month_of(t_ns) + i64::from(self.months));
        }
        let k = (i128::from(t_ns) - i128::from(self.origin_ns)).div_euclid(i128::from(self.every_ns));
        i64::try_from(i128::from(self.origin_ns) + (k + 1) * i128::from(self.every_ns)).unwrap_or(i64::MAX)
    }
}

impl Buckets {
    /// The first month (counted from January 1970) of the bucket holding `t_ns`.
    fn month_of(self, t_ns: i64) -> i64 {
        let (y, m, _) = civil_from_days(t_ns.div_euclid(86_400_000_000_000));
        let month = (y - 1970) * 12 + i64::from(m) - 1;
        month - month.rem_euclid(i64::from(self.months))
    }

    /// The start of month `month` (counted from January 1970), clamped to i64's range.
    fn month_start(self, month: i64) -> i64 {
        let (y, m) = (1970 + month.div_euclid(12), month.rem_euclid(12) as u32 + 1);
        let ns = i128::from(days_from_civil(y, m, 1)) * 86_400_000_000_000;
        i64::try_from(ns).unwrap_or(if ns < 0 { i64::MIN } else { i64::MAX })
    }
}

/// The partial results of one slice: (bucket start, states), in time order. Its first and last
/// buckets may continue in the neighbouring slices.
type Partials = Vec<(i64, Vec<Acc>)>;

/// Aggregates the rows with `from <= t < to` into the buckets of `plan` and formats one row per
/// bucket (time = bucket start) with `formatter` (built from `plan.output_config()`), passing
/// the bytes to `sink` in time order, at most `limit` rows. Buckets without rows are left out
/// unless `fill`. Returns the rows written. The header is the caller's to write.
///
/// The window is cut into time slices scanned in parallel; a bucket cut by a slice edge is
/// merged from its parts, so buckets of any width (a whole week, the whole window) use every
/// thread. A plan made `per_series` is written series by series (`write_series_buckets`).
#[allow(clippy::too_many_arguments)]
pub fn write_buckets<E: From<Error> + Send>(
    db: &Database,
    plan: &Plan,
    from_ns: i64,
    to_ns: i64,
    fill: bool,
    formatter: &RowFormatter,
    limit: u64,
    sink: &mut dyn FnMut(&[u8]) -> Result<(), E>,
) -> Result<u64, E> {
    if plan.group_len > 0 {
        return write_series_buckets(db, plan, from_ns, to_ns, fill, formatter, limit, sink);
    }
    write_buckets_of(
        db,
        plan,
        &Group::default(),
        from_ns,
        to_ns,
        fill,
        formatter,
        limit,
        Slicing::Parallel,
        sink,
    )
}

/// Output rows of one series that `write_series_buckets` holds in memory while the series
/// before it are written (about a MiB of CSV).
const HELD_ROWS: u64 = 16_384;

/// `write_buckets` per series of a series database's selected series (`Plan::per_series`):
/// each series' buckets in turn, in series order, every output row starting with the
/// series' key values; at most `limit` rows. Returns the rows written.
///
/// Series are aggregated in parallel a block at a time, each in one thread (slices of one
/// series would each read and decode its records); their output is kept in memory up to
/// `HELD_ROWS` rows a series and written in series order. A series with more, or where the
/// limit falls, is aggregated again, streamed, in its turn. Each block's handles are dropped
/// after it: handles kept to the end hold the memory their reads freed among them (300 MB
/// for 30,000 series).
#[allow(clippy::too_many_arguments)]
fn write_series_buckets<E: From<Error> + Send>(
    db: &Database,
    plan: &Plan,
    from_ns: i64,
    to_ns: i64,
    fill: bool,
    formatter: &RowFormatter,
    limit: u64,
    sink: &mut dyn FnMut(&[u8]) -> Result<(), E>,
) -> Result<u64, E> {
    use rayon::prelude::*;
    let columns = db.config().series_columns();
    let selected = db.selected_series()?;
    // A few series find their `sym` values' codes in their own rows; many read the
    // dictionary once (see `group_template`).
    let texts = db
        .schema()
        .syms()
        .filter(|_| selected.len() <= CODES_FROM_ROWS)
        .map(|dict| dict.texts_or_empty());
    // One series' buckets, in one slice: a series read again below must add a float
    // aggregate's parts in the order its held run did.
    let aggregate = |name: &str,
                     series: &Database,
                     limit: u64,
                     sink: &mut dyn FnMut(&[u8]) -> Result<(), E>|
     -> Result<u64, E> {
        let values = crate::db::series::values_of(db.schema(), &columns, name).unwrap_or_default();
        let group = Group {
            values: values.iter().map(crate::db::series::value_text).collect(),
            columns: &columns,
            texts: texts.as_ref(),
        };
        let rows = write_buckets_of(
            series,
            plan,
            &group,
            from_ns,
            to_ns,
            fill,
            formatter,
            limit,
            Slicing::Serial,
            sink,
        );
        // Close its files: thousands of series would pass the open-file limit.
        series.forget_partitions();
        rows
    };
    let mut handles = selected.into_iter();
    let mut left = limit;
    let block_len = 4 * rayon::current_num_threads().max(1);
    while left > 0 {
        let block: Vec<_> = handles.by_ref().take(block_len).collect();
        if block.is_empty() {
            break;
        }
        let held = left.min(HELD_ROWS);
        let outputs: Vec<Result<(Vec<u8>, u64), E>> = block
            .par_iter()
            .map(|(name, series)| {
                let mut bytes = Vec::new();
                let rows = aggregate(name, series, held, &mut |b: &[u8]| {
                    bytes.extend_from_slice(b);
                    Ok(())
                });
                rows.map(|rows| (bytes, rows))
            })
            .collect();
        for ((name, series), output) in block.iter().zip(outputs) {
            if left == 0 {
                break;
            }
            let (bytes, rows) = output?;
            // Whole, or the first `left` rows, which is all that is wanted: write it.
            // Otherwise (the series passed `held`, or the limit fell in it) read it again.
            if rows <= left && (rows < held || rows == left) {
                sink(&bytes)?;
                left -= rows;
                continue;
            }
            left -= aggregate(name, series, left, sink)?;
        }
    }
    Ok(limit - left)
}

/// Up to this many selected series, each per-series aggregate takes its `sym` values' codes
/// from the series' own rows (a point read each); past it the dictionary is read once.
const CODES_FROM_ROWS: usize = 32;

/// The series a run of `write_buckets_of` aggregates: its key values as text (`None` for
/// null; none outside a series database) and, for a few series, the dictionary's texts by
/// code (`group_template`).
#[derive(Default)]
struct Group<'a> {
    values: Vec<Option<String>>,
    /// The key columns' indexes in the schema.
    columns: &'a [usize],
    texts: Option<&'a Texts>,
}

/// The start of every output row of `group`: its key values. A `sym` value's code is the one
/// the series' rows store, when `group.texts` says it is that text: finding a text's code
/// otherwise reads the whole dictionary (half a megabyte at 30,000 hosts, for one host's few
/// output rows). `window`: where the series' rows are; without rows there and without
/// `fill`, no row is written and the codes are not looked for.
fn group_template(
    db: &Database,
    plan: &Plan,
    group: &Group,
    window: (i64, i64),
    fill: bool,
) -> Result<Vec<u8>> {
    let out = &plan.out.schema;
    let mut template = out.new_row();
    let mut stored: Option<Option<Vec<u8>>> = None;
    for (i, value) in group.values.iter().enumerate() {
        let Some(text) = value else {
            out.set_null(&mut template, i);
            continue;
        };
        let sym = out.columns()[i].ty == ColumnType::Sym;
        if let (Some(texts), Some(&col), true) = (group.texts, group.columns.get(i), sym) {
            // Read once for all the key's columns.
            if stored.is_none() {
                stored = Some(first_row(db, window)?);
            }
            match stored.as_ref().and_then(Option::as_ref) {
                Some(row) => {
                    let bytes = db.schema().field_bytes(row, col);
                    let code = u32::from_le_bytes(crate::db::schema::le(bytes));
                    if !db.schema().is_null(row, col) && texts.text(code) == Some(text.as_str()) {
                        out.set_field_bytes(&mut template, i, bytes);
                        continue;
                    }
                }
                None if !fill => continue,
                None => {}
            }
        }
        if let Some(dict) = out.syms().filter(|_| sym) {
            // The whole dictionary: damage to it is said as such (exit 3), not as a missing value.
            dict.snapshot()?;
        }
        out.set_field(&mut template, i, text)
            .map_err(|e| Error::Invalid(format!("series value `{text}`: {e}")))?;
    }
    Ok(template)
}

/// The first row stored in `[from, to)` of `db`, if any.
fn first_row(db: &Database, (from, to): (i64, i64)) -> Result<Option<Vec<u8>>> {
    let mut first = None;
    db.scan_batches(from, to, |batch| -> Result<bool> {
        first = db.batch_rows(batch).next().map(|(_, row)| row.to_vec());
        Ok(first.is_none())
    })?;
    Ok(first)
}

/// How `write_buckets_of` cuts its window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slicing {
    /// Time slices scanned in parallel: one series (or none) uses every thread.
    Parallel,
    /// One slice at a time, in this thread (as long as memory allows, so a series' record is
    /// read once): for callers that run many series in parallel, where slicing each series
    /// would read and decode its records once per slice.
    Serial,
}

/// `write_buckets` for one series of a `Plan::per_series`: every output row starts with
/// `group` (the series' key values, as text; `None` for null).
#[allow(clippy::too_many_arguments)]
fn write_buckets_of<E: From<Error>>(
    db: &Database,
    plan: &Plan,
    group: &Group,
    from_ns: i64,
    to_ns: i64,
    fill: bool,
    formatter: &RowFormatter,
    limit: u64,
    slicing: Slicing,
    sink: &mut dyn FnMut(&[u8]) -> Result<(), E>,
) -> Result<u64, E> {
    if group.values.len() != plan.group_len {
        return Err(Error::Invalid(format!(
            "aggregates per series need {} key value(s), got {}",
            plan.group_len,
            group.values.len()
        ))
        .into());
    }
    // An empty window (FROM == TO) has no `--every` bucket, but a whole-window aggregate still
    // answers for it, as for any window without rows (below). One that only the storable
    // range empties (past 2262-01-01) answers nothing: its FROM would print as another time.
    let whole_window = plan.every_ns.is_none();
    let asked_empty = from_ns == to_ns && (MIN_TIME_NS..END_TIME_NS).contains(&from_ns);
    let from_ns = from_ns.max(MIN_TIME_NS);
    let to_ns = to_ns.min(END_TIME_NS);
    if from_ns > to_ns || (from_ns == to_ns && !(whole_window && asked_empty)) || limit == 0 {
        return Ok(0);
    }
    let buckets = Buckets {
        origin_ns: match plan.every_ns {
            Some(every) => bucket_origin(every),
            None => from_ns,
        },
        every_ns: plan
            .every_ns
            .unwrap_or_else(|| to_ns.saturating_sub(from_ns).max(1)),
        whole_window,
        months: plan.months,
    };
    let (mut scan_from, mut scan_to) = (from_ns, to_ns);
    // Only the partitions that exist hold data.
    let keys = db.partition_keys()?;
    if let (Some(first), Some(last)) = (keys.first(), keys.last()) {
        scan_from = scan_from.max(first.start_ns());
        scan_to = scan_to.min(last.end_ns());
    } else {
        scan_to = scan_from;
    }
    let template = group_template(db, plan, group, (scan_from, scan_to), fill)?;
    let mut writer = Writer {
        plan,
        formatter,
        cache: RowCache::default(),
        buckets,
        // A whole-window aggregate answers even for an empty window (count 0, as SQL's
        // aggregate without GROUP BY does); per series, only the series with rows answer.
        fill: fill || (buckets.whole_window && group.values.is_empty()),
        row: template.clone(),
        template,
        empty: plan.aggs.iter().map(Agg::empty).collect(),
        bytes: Vec::new(),
        next_fill: buckets.of(from_ns),
        left: limit,
        rows: 0,
    };
    let mut written = 0u64;
    let mut pending: Option<(i64, Vec<Acc>)> = None;
    if scan_from < scan_to {
        let span = i128::from(scan_to) - i128::from(scan_from);
        let (threads, slices_per_thread) = match slicing {
            Slicing::Parallel => (SLICE_THREADS, SLICES_PER_THREAD),
            Slicing::Serial => (1, 1),
        };
        let g = i128::from(db.config().granularity.ns());
        let wanted = (span / (threads * i128::from(slices_per_thread))).max(1);
        let most = i128::from(MAX_SLICE_BUCKETS) * i128::from(buckets.every_ns);
        // Whole slots per slice.
        let slice_ns = i64::try_from(wanted.min(most).div_euclid(g).max(1) * g).unwrap_or(i64::MAX);
        let batch = match slicing {
            Slicing::Parallel => rayon::current_num_threads().max(1) * 2,
            Slicing::Serial => 1,
        };
        // Slices end on a grid the window fixes (`scan_from + k × slice_ns`), never where
        // data was found, which depends on the layout: the pieces a bucket's f64 sums are
        // split into, and so their last digits, are the same on every layout.
        let grid = |k: i128| {
            let point = i128::from(scan_from) + k * i128::from(slice_ns);
            i64::try_from(point).unwrap_or(i64::MAX).min(scan_to)
        };
        // Grid point k, moved back to the start of the bucket it cuts when that lies past the
        // point before: each bucket then sums its rows in one pass, in time order.
        let boundary = |k: i128| {
            let (point, start) = (grid(k), buckets.of(grid(k)));
            if point < scan_to && start > grid(k - 1) {
                start
            } else {
                point
            }
        };
        let mut at = scan_from;
        while at < scan_to && writer.left > 0 {
            let mut slices = Vec::with_capacity(batch);
            while slices.len() < batch && at < scan_to {
                // Skip stretches with no data: a fine --every over a long, sparse window would
                // otherwise cut millions of slices that each find nothing.
                match db.next_data_time(&keys, at)? {
                    Some(t) if t < scan_to => at = t,
                    _ => {
                        at = scan_to;
                        break;
                    }
                }
                // The first boundary past `at`: grid point k's, or else the next one's.
                let k = (i128::from(at) - i128::from(scan_from)).div_euclid(i128::from(slice_ns)) + 1;
                let end = Some(boundary(k))
                    .filter(|&end| end > at)
                    .unwrap_or_else(|| boundary(k + 1));
                slices.push((at, end));
                at = end;
            }
            let parts: Vec<Result<Partials>> = if slices.len() == 1 {
                vec![run_slice(db, plan, buckets, slices[0].0, slices[0].1)]
            } else {
                use rayon::prelude::*;
                slices
                    .par_iter()
                    .map(|&(a, b)| run_slice(db, plan, buckets, a, b))
                    .collect()
            };
            for part in parts {
                for (bucket, accs) in part? {
                    match &mut pending {
                        Some((b, acc)) if *b == bucket => {
                            for ((a, later), agg) in acc.iter_mut().zip(accs).zip(&plan.aggs) {
                                a.merge(agg, later);
                            }
                        }
                        _ => {
                            if let Some((b, mut acc)) = pending.take() {
                                writer.bucket(b, &mut acc)?;
                            }
                            pending = Some((bucket, accs));
                        }
                    }
                }
            }
            written += writer.drain(sink)?;
        }
    }
    if let Some((b, mut acc)) = pending.take() {
        writer.bucket(b, &mut acc)?;
    }
    writer.finish(to_ns)?;
    written += writer.drain(sink)?;
    Ok(written)
}

/// Formats finished buckets (and, with --fill, the empty ones between them).
struct Writer<'a> {
    plan: &'a Plan,
    formatter: &'a RowFormatter,
    cache: RowCache,
    buckets: Buckets,
    fill: bool,
    row: Vec<u8>,
    /// A row with the series' key values and every aggregate null.
    template: Vec<u8>,
    empty: Vec<Acc>,
    bytes: Vec<u8>,
    /// The next bucket start not printed yet (for --fill).
    next_fill: i64,
    /// Rows that may still be printed.
    left: u64,
    /// Rows in `bytes`.
    rows: u64,
}

impl Writer<'_> {
    /// Prints the bucket at `bucket_ns`, after the empty buckets before it with --fill.
    fn bucket(&mut self, bucket_ns: i64, accs: &mut [Acc]) -> Result<()> {
        self.fill_until(bucket_ns)?;
        self.emit(bucket_ns, accs)
    }

    fn emit(&mut self, bucket_ns: i64, accs: &mut [Acc]) -> Result<()> {
        // The next bucket's true start: a first bucket clamped to i64's range (a very wide
        // --every near 1678) plus its width would land off the epoch-aligned grid.
        self.next_fill = self.buckets.end_of(bucket_ns);
        if self.left == 0 {
            return Ok(());
        }
        let schema = &self.plan.out.schema;
        self.row.copy_from_slice(&self.template);
        for (i, (agg, acc)) in self.plan.aggs.iter().zip(accs.iter_mut()).enumerate() {
            acc.write(agg, schema, &mut self.row, self.plan.group_len + i, bucket_ns)?;
        }
        self.formatter
            .row_cached(&mut self.bytes, bucket_ns, &self.row, &mut self.cache)?;
        self.left -= 1;
        self.rows += 1;
        Ok(())
    }

    /// After the last bucket: with --fill, the empty buckets up to (not including) `to_ns`;
    /// for a whole-window aggregate, its one row when no bucket came, even for an empty window
    /// (after one, `next_fill` has moved past the origin).
    fn finish(&mut self, to_ns: i64) -> Result<()> {
        let origin = self.buckets.origin_ns;
        if self.fill && self.buckets.whole_window && self.next_fill == origin {
            let mut empty = std::mem::take(&mut self.empty);
            self.emit(origin, &mut empty)?;
            self.empty = empty;
        }
        self.fill_until(to_ns)
    }

    /// With --fill, prints the empty buckets from `next_fill` up to (not including) `until_ns`.
    fn fill_until(&mut self, until_ns: i64) -> Result<()> {
        // A whole-window aggregate has one bucket: its empty row is `finish`'s to print.
        if !self.fill || self.buckets.whole_window {
            return Ok(());
        }
        let mut empty = std::mem::take(&mut self.empty);
        while self.next_fill < until_ns && self.left > 0 {
            self.emit(self.next_fill, &mut empty)?;
        }
        self.empty = empty;
        Ok(())
    }

    /// Hands the formatted bytes to `sink`; returns how many rows they held.
    fn drain<E: From<Error>>(&mut self, sink: &mut dyn FnMut(&[u8]) -> Result<(), E>) -> Result<u64, E> {
        if !self.bytes.is_empty() {
            sink(&self.bytes)?;
            self.bytes.clear();
        }
        Ok(std::mem::take(&mut self.rows))
    }
}

/// Scans `[from, to)` and returns the states of the buckets it touches, in time order.
///
/// Reads whole batches from the engine and cuts them into runs of rows of one bucket, so the
/// bucket arithmetic runs once per run and each aggregate folds a run in its own tight loop.
fn run_slice(db: &Database, plan: &Plan, buckets: Buckets, from_ns: i64, to_ns: i64) -> Result<Partials> {
    let row_len = db.schema().row_len();
    let shape = db.batch_shape();
    let mut slice = Slice {
        plan,
        from_ns,
        row_len,
        out: Vec::new(),
        accs: plan.aggs.iter().map(Agg::empty).collect(),
        current: None,
        spare: Vec::new(),
    };
    let fold = |slice: &mut Slice, batch: Batch| -> Result<()> {
        for run in shape.runs(batch) {
            match run.times {
                RunTimes::At(t) => slice.run(
                    buckets.of(t),
                    RowTimes::All(t),
                    Run::Rows {
                        rows: run.rows,
                        row_len,
                    },
                )?,
                RunTimes::Each(times) => fold_timed(slice, buckets, times, |i, n| Run::Rows {
                    rows: &run.rows[i * row_len..(i + n) * row_len],
                    row_len,
                })?,
            }
        }
        Ok(())
    };
    let cannot_match = plan
        .filter
        .as_ref()
        .filter(|f| f.prunes())
        .map(|f| move |bounds: &[u8]| f.cannot_match(bounds));
    let prune: crate::db::Prune = cannot_match
        .as_ref()
        .map(|f| f as &(dyn Fn(&[u8]) -> bool + Sync));
    // Columnar records: only the columns the aggregates read are decoded.
    let columns = plan.columns_read(db.schema().columns().len());
    crate::db::with_columns(columns, || -> Result<()> {
        match &plan.summary_slots {
            Some(slots) => {
                // A storage bucket is summarized only when all of it falls in one output bucket.
                let same = |start_ns: i64, end_ns: i64| buckets.of(start_ns) == buckets.of(end_ns - 1);
                db.scan_summarized(from_ns, to_ns, &same, None, |piece| -> Result<bool> {
                    match piece {
                        Scanned::Batch(batch) => fold(&mut slice, batch)?,
                        Scanned::Summary(s) => slice.summary(buckets.of(s.start_ns), &s, slots),
                        Scanned::Columns(c) => {
                            fold_timed(&mut slice, buckets, c.times, |i, n| Run::Columns(c.slice(i, n)))?
                        }
                    }
                    Ok(true)
                })?
            }
            // A filter on a summarized column passes over the storage buckets it rules out.
            None if prune.is_some() => {
                db.scan_batches_pruned(from_ns, to_ns, prune, |batch| -> Result<bool> {
                    fold(&mut slice, batch)?;
                    Ok(true)
                })?
            }
            // Columnar records fold as the columns they decode to: no rows are built; without
            // a filter, which reads each row's time, times are told apart only by bucket.
            None => crate::db::with_time_grid(buckets.grid().filter(|_| plan.filter.is_none()), || {
                db.scan_columns(from_ns, to_ns, |piece| -> Result<bool> {
                    match piece {
                        Scanned::Batch(batch) => fold(&mut slice, batch)?,
                        Scanned::Columns(c) => {
                            fold_timed(&mut slice, buckets, c.times, |i, n| Run::Columns(c.slice(i, n)))?
                        }
                        Scanned::Summary(_) => {
                            return Err(Error::Invalid(
                                "a scan of columns handed out a bucket summary".into(),
                            ))
                        }
                    }
                    Ok(true)
                })
            })?,
        }
        Ok(())
    })?;
    if let Some(done) = slice.current {
        slice.out.push((done, slice.accs));
    }
    Ok(slice.out)
}

/// Folds rows (or a record's columns) with a time each, in runs of one bucket: `run_of(i,
/// n)` gives rows `i..i + n`.
fn fold_timed<'a>(
    slice: &mut Slice,
    buckets: Buckets,
    times: &[i64],
    run_of: impl Fn(usize, usize) -> Run<'a>,
) -> Result<()> {
    let mut i = 0;
    while i < times.len() {
        let start = buckets.of(times[i]);
        let end = buckets.end_of(times[i]);
        // Rows come in time order, but a run only takes rows that truly fall in the bucket;
        // at least one row, so a clamped bucket start cannot stall.
        let n = times[i..]
            .iter()
            .position(|&t| t < start || t >= end)
            .unwrap_or(times.len() - i)
            .max(1);
        slice.run(start, RowTimes::Each(&times[i..i + n]), run_of(i, n))?;
        i += n;
    }
    Ok(())
}

/// The times of a run of rows: one each, or one for all (a grid slot).
#[derive(Clone, Copy)]
enum RowTimes<'a> {
    Each(&'a [i64]),
    All(i64),
}

impl RowTimes<'_> {
    #[inline]
    fn at(self, k: usize) -> i64 {
        match self {
            RowTimes::Each(times) => times[k],
            RowTimes::All(t) => t,
        }
    }
}

/// The running state of one slice's scan.
struct Slice<'a> {
    plan: &'a Plan,
    /// Where the slice starts: a bucket that starts here or later lies wholly in it.
    from_ns: i64,
    row_len: usize,
    out: Partials,
    accs: Vec<Acc>,
    /// The bucket `accs` belong to.
    current: Option<i64>,
    /// Rows built from a columnar record, kept for the next.
    spare: Vec<u8>,
}

impl Slice<'_> {
    /// Makes `bucket` the one whose states `accs` hold, handing on the previous one.
    fn enter(&mut self, bucket: i64) {
        if self.current != Some(bucket) {
            if let Some(done) = self.current {
                let fresh = self.plan.aggs.iter().map(Agg::empty).collect();
                let mut accs = std::mem::replace(&mut self.accs, fresh);
                // A bucket that began in this slice and has ended has all its rows: answer
                // its quantiles now rather than keep its values. (The first bucket may have
                // rows in the slice before, the last in the slice after: they keep theirs.)
                if done >= self.from_ns {
                    for (acc, agg) in accs.iter_mut().zip(&self.plan.aggs) {
                        acc.settle(agg);
                    }
                }
                self.out.push((done, accs));
            }
            self.current = Some(bucket);
        }
    }

    /// Folds a storage bucket's summary (all in the bucket at `bucket`) exactly as its rows
    /// would fold: rows counted, min/max through `consider` (NaN wins, no value for a column
    /// without one). `slots[i]`: aggregate i's column among the summarized ones.
    fn summary(&mut self, bucket: i64, s: &BucketSummary, slots: &[usize]) {
        self.enter(bucket);
        for ((acc, agg), &slot) in self.accs.iter_mut().zip(&self.plan.aggs).zip(slots) {
            match acc {
                Acc::Count(n) => *n += s.rows,
                Acc::Extreme(best) => {
                    let Some(f) = agg.field else { continue };
                    let Some(kind) = BoundKind::of(f.ty) else { continue };
                    let (lo, hi) = match decode_bounds(kind, s.bounds, slot) {
                        Some(Bounds::Signed(lo, hi)) => (Num::I(lo), Num::I(hi)),
                        Some(Bounds::Unsigned(lo, hi)) => (Num::U(lo), Num::U(hi)),
                        Some(Bounds::Float(lo, hi)) => (Num::F(lo), Num::F(hi)),
                        None => continue,
                    };
                    consider(agg.kind, best, if agg.kind == Kind::Min { lo } else { hi });
                }
                _ => {}
            }
        }
    }

    /// Folds `run` (all in the bucket at `bucket`) into the bucket's states. Fails only on
    /// damage met by the filter (a `sym` code the dictionary lost).
    fn run(&mut self, bucket: i64, times: RowTimes, run: Run) -> Result<()> {
        let row_len = self.row_len;
        let plan = self.plan;
        // Rows built from columns, for the filter and the states without a loop over columns
        // (a buffer kept for the next run; a failed fold ends the query, and drops it).
        let mut spare = std::mem::take(&mut self.spare);
        if let Some(filter) = &plan.filter {
            let rows = rows_of(run, &mut spare);
            // A bucket none of whose rows pass is empty, as if it held no rows: whether its
            // storage buckets were skipped by their summaries or read must not show.
            for (k, r) in rows.chunks_exact(row_len).enumerate() {
                if filter.matches(times.at(k), r)? {
                    self.enter(bucket);
                    for (acc, agg) in self.accs.iter_mut().zip(&plan.aggs) {
                        acc.add(agg, r);
                    }
                }
            }
        } else {
            self.enter(bucket);
            let mut unfolded = Vec::new();
            for (i, (acc, agg)) in self.accs.iter_mut().zip(&plan.aggs).enumerate() {
                if !acc.add_run(agg, run) {
                    unfolded.push(i);
                }
            }
            if !unfolded.is_empty() {
                let rows = rows_of(run, &mut spare);
                for i in unfolded {
                    for r in rows.chunks_exact(row_len) {
                        self.accs[i].add(&plan.aggs[i], r);
                    }
                }
            }
        }
        self.spare = spare;
        Ok(())
    }
}

/// The rows of `run`: as they are, or built from its columns in `buf`.
fn rows_of<'r>(run: Run<'r>, buf: &'r mut Vec<u8>) -> &'r [u8] {
    match run {
        Run::Rows { rows, .. } => rows,
        Run::Columns(c) => {
            c.rows_into(buf);
            buf
        }
    }
}

/// A column of a run of rows: row `k`'s bytes start at `k * stride + offset` of `bytes`.
#[derive(Clone, Copy)]
struct Strided<'a> {
    bytes: &'a [u8],
    stride: usize,
    offset: usize,
}

impl<'a> Strided<'a> {
    #[inline(always)]
    fn at(self, k: usize) -> &'a [u8] {
        &self.bytes[k * self.stride + self.offset..]
    }

    /// The first `len` rows' bytes, in order: each slice starts at the row's value.
    #[inline(always)]
    fn iter(self, len: usize) -> impl Iterator<Item = &'a [u8]> + Clone {
        let offset = self.offset;
        let whole = self.bytes.get(..len * self.stride).unwrap_or(&[]);
        whole.chunks_exact(self.stride).map(move |row| &row[offset..])
    }
}

/// Whether any of the first `len` rows has a null in one of `fields`: the OR of each field's
/// header byte over the rows, with no exit at the first null, so that it compiles to wide
/// loads (most runs have none, and a row at a time was 5 % of a day's VWAP).
#[inline(always)]
fn has_null(heads: Strided, len: usize, fields: &[FieldAt]) -> bool {
    let whole = heads.bytes.get(..len * heads.stride).unwrap_or(&[]);
    fields.iter().any(|f| {
        let (byte, mask) = f.null_bit();
        let at = heads.offset + byte;
        let ored = if heads.stride == 1 && at == 0 {
            whole.iter().fold(0, |acc, &b| acc | b)
        } else {
            whole.chunks_exact(heads.stride).fold(0, |acc, row| acc | row[at])
        };
        ored & mask != 0
    })
}

#[inline(always)]
fn i64_of(bytes: &[u8]) -> i64 {
    i64::from_le_bytes(crate::db::schema::le(bytes))
}

#[inline(always)]
fn f64_of(bytes: &[u8]) -> f64 {
    f64::from_le_bytes(crate::db::schema::le(bytes))
}

/// Consecutive rows of one bucket as a scan hands them out: whole rows back to back, or a
/// columnar record's decoded columns, which fold without the rows being built.
#[derive(Clone, Copy)]
enum Run<'a> {
    Rows { rows: &'a [u8], row_len: usize },
    Columns(Columns<'a>),
}

impl<'a> Run<'a> {
    fn len(self) -> usize {
        match self {
            Run::Rows { rows, row_len } => rows.len() / row_len,
            Run::Columns(c) => c.times.len(),
        }
    }

    /// The rows' headers (present and null bits), which `FieldAt::is_null` reads.
    fn headers(self) -> Strided<'a> {
        match self {
            Run::Rows { rows, row_len } => Strided {
                bytes: rows,
                stride: row_len,
                offset: 0,
            },
            Run::Columns(c) => Strided {
                bytes: c.headers(),
                stride: c.header_len(),
                offset: 0,
            },
        }
    }

    /// Column `f` of the rows; `None` if the scan did not decode it, which a plan's own
    /// scan always does (`Plan::columns_read` names every column an aggregate reads).
    fn field(self, f: &FieldAt) -> Option<Strided<'a>> {
        match self {
            Run::Rows { rows, row_len } => Some(Strided {
                bytes: rows,
                stride: row_len,
                offset: f.offset,
            }),
            Run::Columns(c) => {
                let values = c.values(f.col);
                (values.len() == c.times.len() * f.width).then_some(Strided {
                    bytes: values,
                    stride: f.width,
                    offset: 0,
                })
            }
        }
    }
}

impl Acc {
    /// Folds a run of consecutive rows in order, exactly as `add` row by row would (same
    /// order of floating-point operations), with a tight loop per column type. Returns false,
    /// with nothing folded, for the states and types without one: the caller adds the rows.
    fn add_run(&mut self, agg: &Agg, run: Run) -> bool {
        let len = run.len();
        if let Acc::Count(n) = self {
            *n += len as u64;
            return true;
        }
        let Some(f) = agg.field else { return true };
        let Some(x) = run.field(&f) else { return false };
        let heads = run.headers();
        // Each row's header and value, in order: loops skip the rows where it is null (a
        // `filter` here costs a call per row).
        let rows = move || heads.iter(len).zip(x.iter(len));
        // Most runs hold no null: their loops then read the values alone.
        let no_nulls = move || !has_null(heads, len, &[f]);
        let values = move || rows().filter(move |(h, _)| !f.is_null(h)).map(|(_, v)| v);
        match self {
            Acc::Pick(v) => {
                let present = |k: &usize| !f.is_null(heads.at(*k));
                let pick = if agg.kind == Kind::Last {
                    (0..len).rev().find(present)
                } else if v.is_none() {
                    (0..len).find(present)
                } else {
                    None
                };
                if let Some(k) = pick {
                    let bytes = &x.at(k)[..f.width];
                    match v {
                        Some(old) => old.copy_from_slice(bytes),
                        None => *v = Some(bytes.to_vec()),
                    }
                }
            }
            Acc::SumFloat { n, sum } | Acc::Mean { n, sum } if f.ty == ColumnType::F64 => {
                let (mut count, mut total) = (*n, *sum);
                if no_nulls() {
                    count += len as u64;
                    for v in x.iter(len) {
                        total += f64_of(v);
                    }
                } else {
                    for (h, v) in rows() {
                        if f.is_null(h) {
                            continue;
                        }
                        count += 1;
                        total += f64_of(v);
                    }
                }
                (*n, *sum) = (count, total);
            }
            // 8-byte integers and decimals: an exact i128 sum (`add` does the same).
            Acc::SumInt { n, sum } | Acc::MeanInt { n, sum } | Acc::MeanDec { n, sum }
                if matches!(f.ty, ColumnType::I64 | ColumnType::Dec(_)) =>
            {
                let (mut count, mut total) = (*n, *sum);
                if no_nulls() {
                    count += len as u64;
                    total += x.iter(len).map(|v| i128::from(i64_of(v))).sum::<i128>();
                } else {
                    for (h, v) in rows() {
                        if f.is_null(h) {
                            continue;
                        }
                        count += 1;
                        total += i128::from(i64_of(v));
                    }
                }
                (*n, *sum) = (count, total);
            }
            Acc::Vwap { pq, q } => {
                let Some(g) = agg.qty else { return true };
                let Some(y) = run.field(&g) else { return false };
                if (f.ty, g.ty) != (ColumnType::F64, ColumnType::F64) {
                    return false;
                }
                let (mut pq_sum, mut q_sum) = (*pq, *q);
                for (h, (p, v)) in heads.iter(len).zip(x.iter(len).zip(y.iter(len))) {
                    if f.is_null(h) || g.is_null(h) {
                        continue;
                    }
                    let (p, v) = (f64_of(p), f64_of(v));
                    pq_sum += p * v;
                    q_sum += v;
                }
                (*pq, *q) = (pq_sum, q_sum);
            }
            Acc::DecVwap(sums) => {
                let Some(g) = agg.qty else { return true };
                let Some(y) = run.field(&g) else { return false };
                let mut total = *sums;
                if !has_null(heads, len, &[f, g]) {
                    for (p, v) in x.iter(len).zip(y.iter(len)) {
                        total.add(i64_of(p), i64_of(v));
                    }
                } else {
                    for (h, (p, v)) in heads.iter(len).zip(x.iter(len).zip(y.iter(len))) {
                        if !f.is_null(h) && !g.is_null(h) {
                            total.add(i64_of(p), i64_of(v));
                        }
                    }
                }
                *sums = total;
            }
            Acc::Extreme(best) if f.ty == ColumnType::F64 => {
                let mut b = match *best {
                    Some(Num::F(x)) => Some(x),
                    _ => None,
                };
                let max = agg.kind == Kind::Max;
                for (h, v) in rows() {
                    if f.is_null(h) {
                        continue;
                    }
                    // NaN wins and stays, as in `consider`.
                    if b.is_some_and(f64::is_nan) {
                        break;
                    }
                    let v = f64_of(v);
                    let better = match b {
                        None => true,
                        Some(_) if v.is_nan() => true,
                        Some(x) => (max && v > x) || (!max && v < x),
                    };
                    if better {
                        b = Some(v);
                    }
                }
                *best = b.map(Num::F);
            }
            // 8-byte integers and decimals: the same comparisons as `consider`, without NaN.
            Acc::Extreme(best) if matches!(f.ty, ColumnType::I64 | ColumnType::Dec(_)) => {
                let mut b = match *best {
                    Some(Num::I(x)) => Some(x),
                    _ => None,
                };
                let max = agg.kind == Kind::Max;
                for (h, v) in rows() {
                    if f.is_null(h) {
                        continue;
                    }
                    let v = i64_of(v);
                    b = Some(match b {
                        Some(x) if (max && v <= x) || (!max && v >= x) => x,
                        _ => v,
                    });
                }
                *best = b.map(Num::I);
            }
            Acc::Values(out) if f.ty == ColumnType::F64 => out.extend(values().map(f64_of)),
            Acc::DecValues(out) => out.extend(values().map(i64_of)),
            Acc::Moments { n, mean, m2 } if f.ty == ColumnType::F64 => {
                let (mut count, mut mu, mut sq) = (*n, *mean, *m2);
                for (h, v) in rows() {
                    if f.is_null(h) {
                        continue;
                    }
                    let x = f64_of(v);
                    count += 1;
                    let delta = x - mu;
                    mu += delta / count as f64;
                    sq += delta * (x - mu);
                }
                (*n, *mean, *m2) = (count, mu, sq);
            }
            _ => return false,
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(text: &str) -> Fraction {
        Fraction::parse(text).unwrap()
    }

    #[test]
    fn a_null_anywhere_in_a_run_is_found_in_any_field() {
        // Three columns (one header byte), and ten (column 8's null bit in the second byte).
        for (columns, second, strides) in [(3, 2, vec![1, 2, 5]), (10, 8, vec![2, 3, 16])] {
            let spec = (0..columns)
                .map(|i| format!("c{i}:i64"))
                .collect::<Vec<_>>()
                .join(",");
            let schema = Schema::parse_spec(&spec).unwrap();
            let (a, b) = (schema.field_at(0), schema.field_at(second));
            for stride in strides {
                for len in [0, 1, 31, 32, 33, 100] {
                    let found = |heads: &[u8]| {
                        let strided = Strided {
                            bytes: heads,
                            stride,
                            offset: 0,
                        };
                        [&[a][..], &[b], &[a, b]].map(|fields| has_null(strided, len, fields))
                    };
                    // The rows' headers, and one more row past the run, null everywhere.
                    let mut heads = vec![0u8; (len + 1) * stride];
                    heads[len * stride..].fill(0xff);
                    assert_eq!(
                        found(&heads),
                        [false; 3],
                        "{columns} columns, stride {stride}, len {len}"
                    );
                    for row in [0, len / 2, len.saturating_sub(1)]
                        .into_iter()
                        .filter(|_| len > 0)
                    {
                        let mut h = heads.clone();
                        // Every bit of the row's header set but the row's own (bit 0) and the
                        // null bits of a and b; then b's, then a's.
                        h[row * stride..(row + 1) * stride].fill(0xff);
                        h[row * stride] &= !0b11;
                        let (byte, mask) = b.null_bit();
                        h[row * stride + byte] &= !mask;
                        assert_eq!(
                            found(&h),
                            [false; 3],
                            "{columns} columns, stride {stride}, row {row}"
                        );
                        h[row * stride + byte] |= mask;
                        assert_eq!(
                            found(&h),
                            [false, true, true],
                            "{columns} columns, stride {stride}, row {row}"
                        );
                        h[row * stride] |= 0b10;
                        assert_eq!(
                            found(&h),
                            [true; 3],
                            "{columns} columns, stride {stride}, row {row}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn decimal_vwap_sums_are_exact_in_any_order_and_past_i128() {
        // Prices and quantities near i64's ends: each product is near 2^126, and three of
        // them pass i128 whichever way they are grouped.
        let rows = [
            (i64::MAX, i64::MAX),
            (i64::MAX - 7, i64::MAX),
            (i64::MAX, i64::MAX - 1),
            (-5, i64::MAX),
            (1, 1),
        ];
        let in_order = |order: &[usize]| {
            let mut sums = DecVwap::default();
            for &i in order {
                sums.add(rows[i].0, rows[i].1);
            }
            sums
        };
        let a = in_order(&[0, 1, 2, 3, 4]);
        assert_ne!(a.carries, 0, "the test must pass i128");
        for order in [[4, 3, 2, 1, 0], [3, 0, 4, 1, 2], [2, 3, 0, 4, 1]] {
            let b = in_order(&order);
            assert_eq!((b.pq, b.carries, b.q), (a.pq, a.carries, a.q), "{order:?}");
        }
        // Split in two and merged, as two slices of a window are.
        let mut first = in_order(&[0, 1]);
        first.merge(in_order(&[2, 3, 4]));
        assert_eq!((first.pq, first.carries, first.q), (a.pq, a.carries, a.q));
        // Σ p·q is 2^128·carries + pq: against the sum in f64, within f64's rounding.
        let exact: f64 = rows.iter().map(|&(p, v)| p as f64 * v as f64).sum();
        let ratio = a.ratio(0);
        assert!(
            (ratio - exact / a.q as f64).abs() <= ratio.abs() * 1e-12,
            "{ratio}"
        );
        // Back within i128 after a negative product: exact again.
        let mut back = DecVwap::default();
        back.add(i64::MAX, i64::MAX);
        back.add(i64::MAX, i64::MAX);
        back.add(i64::MAX, i64::MAX);
        back.add(-i64::MAX, i64::MAX);
        back.add(-i64::MAX, i64::MAX);
        assert_eq!(
            (back.pq, back.carries),
            (i128::from(i64::MAX) * i128::from(i64::MAX), 0)
        );
    }

    /// `num / den` (den != 0) as Rust's correctly rounded parse of its decimal expansion:
    /// 400 digits after the point, and a last 1 when the division has not ended (so a tie
    /// stays a tie only when it is one). Independent of `nearest_ratio`.
    fn nearest_by_text(num: i128, den: i128) -> f64 {
        let negative = (num < 0) != (den < 0) && num != 0;
        let (n, d) = (num.unsigned_abs(), den.unsigned_abs());
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
        text.parse().unwrap()
    }

    #[test]
    fn a_decimal_vwap_is_the_nearest_f64_to_the_ratio() {
        // Found by a review: Σ p·q = i128::MIN over Σ q = -1 overflowed the division (a
        // panic); a price below 1 came out 2 ulps off through two roundings.
        let mut edge = DecVwap::default();
        for (p, q) in [
            (i64::MIN, i64::MAX),
            (i64::MIN, i64::MAX),
            (-(1 << 32), 1 << 32),
            (0, i64::MIN),
            (0, i64::MIN),
            (0, -((1 << 32) - 1)),
        ] {
            edge.add(p, q);
        }
        assert_eq!((edge.pq, edge.carries, edge.q), (i128::MIN, 0, -1));
        assert_eq!(edge.ratio(0), 2f64.powi(127));
        let mut below_one = DecVwap::default();
        below_one.add(98_968_048, 1_713_100_232_261);
        assert_eq!(below_one.ratio(8), 0.98968048);
        // Random trades at every scale, some prices below 1, some quantities negative.
        let mut state = 0x0DEC_5EEDu64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state >> 11
        };
        for case in 0..3000 {
            let scale = (case % 19) as u8;
            let mut sums = DecVwap::default();
            for _ in 0..1 + next() % 5 {
                let p = (next() % 2_000_000_000_000) as i64 >> (next() % 40);
                let q = (next() % 1_000_000_000_000) as i64 - if case % 7 == 0 { 400_000_000_000 } else { 0 };
                sums.add(p, q);
            }
            if sums.q == 0 {
                continue;
            }
            let den = sums.q * 10i128.pow(u32::from(scale));
            assert_eq!(
                sums.ratio(scale),
                nearest_by_text(sums.pq, den),
                "{} / {den}",
                sums.pq
            );
        }
    }

    #[test]
    fn the_u128_division_agrees_with_the_long_division() {
        let mut state = 0x5EED_D1D0u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state
        };
        for _ in 0..20_000 {
            // b of 1 to 73 bits, a in [b · 2^53, b · 2^55) as nearest_ratio makes them.
            let b = (u128::from(next()) << 64 | u128::from(next())) >> (55 + next() % 73);
            let b = b.max(1);
            let a = (b << 53) + (u128::from(next()) << 64 | u128::from(next())) % ((b << 55) - (b << 53));
            let (q, rest) = long_division(Wide::from(a), &Wide::from(b));
            assert_eq!((q, rest), ((a / b) as u64, a % b != 0), "{a} / {b}");
        }
    }

    #[test]
    fn a_decimal_vwap_is_the_exact_ratio_rounded() {
        // 1.01 × 3 and 1.02 × 1 at 2 decimals: 4.05 / 4 = 1.0125.
        let mut sums = DecVwap::default();
        sums.add(101, 3);
        sums.add(102, 1);
        assert_eq!(sums.ratio(2), 1.0125);
        // 1/3: the f64 nearest to a third, which f64 sums of 0.1-steps miss.
        let mut third = DecVwap::default();
        third.add(1, 1);
        third.add(0, 2);
        assert_eq!(third.ratio(0), 1.0 / 3.0);
    }

    #[test]
    fn quantiles_interpolate_between_neighbours() {
        // numpy.quantile(v, q) (method "linear") gives these.
        let v = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0];
        for (q_text, want) in [("0", 1.0), ("0.5", 3.5), ("0.25", 1.75), ("0.9", 6.9), ("1", 9.0)] {
            let got = quantile_f64(&mut v.clone(), q(q_text)).unwrap();
            assert!((got - want).abs() < 1e-12, "q={q_text}: {got} != {want}");
        }
        assert_eq!(quantile_f64(&mut [7.0], q("0.3")), Some(7.0));
        assert_eq!(quantile_f64(&mut [], q("0.3")), None);
        assert!(quantile_f64(&mut [1.0, f64::NAN, 2.0], q("0.5"))
            .unwrap()
            .is_nan());
        let inf = f64::INFINITY;
        assert_eq!(quantile_f64(&mut [inf, inf, 0.0], q("0.9")), Some(inf));
        // Exact position: (n − 1) × 0.7 = 7 for n = 11, no float rounding at 6.999….
        let eleven: Vec<f64> = (0..11).map(f64::from).collect();
        assert_eq!(quantile_f64(&mut eleven.clone(), q("0.7")), Some(7.0));
        // Decimals: exact, then half away from zero at the scale.
        assert_eq!(quantile_dec(&mut [101, 102], q("0.5")), Some(102));
        assert_eq!(quantile_dec(&mut [-105, -104], q("0.5")), Some(-105));
        assert_eq!(
            quantile_dec(&mut [105, 101, 102, -105, -104], q("0.9")),
            Some(104)
        );
        // −0.5, half away from zero.
        assert_eq!(quantile_dec(&mut [i64::MIN, i64::MAX], q("0.5")), Some(-1));
        assert_eq!(
            quantile_dec(&mut [i64::MAX - 1, i64::MAX], q("0.999999999999999999")),
            Some(i64::MAX)
        );
    }

    fn schema() -> Schema {
        Schema::parse_spec("price:f64,qty:i32,side:str(4),n:u8").unwrap()
    }

    #[test]
    fn specs_parse_into_named_columns() {
        let s = schema();
        let aggs = parse_aggs(
            &s,
            "count, first(price),vwap(price, qty),SUM(qty),sum(n),max(side)",
        );
        assert!(aggs.unwrap_err().contains("`side` is str(4), not a number"));
        let aggs = parse_aggs(
            &s,
            "count,first(side),vwap(price,qty),sum(qty),sum(n),stddev(price)",
        )
        .unwrap();
        let names: Vec<&str> = aggs.iter().map(Agg::name).collect();
        assert_eq!(
            names,
            [
                "count",
                "first_side",
                "vwap_price_qty",
                "sum_qty",
                "sum_n",
                "stddev_price"
            ]
        );
        let types: Vec<ColumnType> = aggs.iter().map(|a| a.out_ty).collect();
        assert_eq!(
            types,
            [
                ColumnType::U64,
                ColumnType::Str(4),
                ColumnType::F64,
                ColumnType::I64,
                ColumnType::U64,
                ColumnType::F64
            ]
        );
        let aggs = parse_aggs(
            &s,
            "median(price),quantile(qty, 0.90),QUANTILE(n,1),quantile(price,.05)",
        )
        .unwrap();
        let names: Vec<&str> = aggs.iter().map(Agg::name).collect();
        assert_eq!(
            names,
            [
                "median_price",
                "quantile_qty_0.9",
                "quantile_n_1",
                "quantile_price_0.05"
            ]
        );
        assert!(aggs.iter().all(|a| a.out_ty == ColumnType::F64));
        let dec = Schema::parse_spec("d:dec(3)").unwrap();
        assert_eq!(
            parse_aggs(&dec, "median(d)").unwrap()[0].out_ty,
            ColumnType::Dec(3)
        );
        for (spec, says) in [
            ("quantile(price)", "quantile(price,0.9)"),
            ("quantile(price, 1.5)", "q `1.5` is not between 0 and 1"),
            ("quantile(price, x)", "q `x` is not a number"),
            ("quantile(price, 0.1234567890123456789)", "more than 18 decimals"),
            ("median(side)", "`side` is str(4), not a number"),
            ("median(price, 0.5)", "median takes one column"),
            ("mode(price)", "unknown aggregate"),
        ] {
            let e = parse_aggs(&s, spec).unwrap_err();
            assert!(e.contains(says), "{spec}: {e}");
        }
        assert!(parse_aggs(&s, "sum(volume)")
            .unwrap_err()
            .contains("unknown column `volume`"));
        assert!(parse_aggs(&s, "vwap(price)")
            .unwrap_err()
            .contains("vwap(price,qty)"));
        assert!(parse_aggs(&s, "sum(price").unwrap_err().contains("missing `)`"));
        assert!(parse_aggs(&s, "").is_err());
        assert!(ohlcv(&s, "side", "qty").is_err());
        assert_eq!(ohlcv(&s, "price", "qty").unwrap().len(), 6);
    }
}
