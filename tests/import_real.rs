//! `xs import` of files as users have them (issue 14): no header, a preamble, a header that does
//! not name every field, `;` and decimal commas, null tokens, times of day with the date in the
//! file name, date and time in two columns, local times, unusual formats. Each fixture under
//! fixtures/import/real/ mimics one quirk of a real public file; every test reads the stored
//! rows back.

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use tempfile::TempDir;

const REAL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/import/real");

fn xs(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("xs").unwrap();
    cmd.current_dir(dir).env_remove("XS_LAYOUT").env_remove("XS_DB");
    cmd
}

/// Runs and returns (exit code, stdout, stderr).
fn run(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn ok(cmd: &mut Command) -> (String, String) {
    let (code, out, err) = run(cmd);
    assert_eq!(code, 0, "command {cmd:?} failed\nstdout:\n{out}\nstderr:\n{err}");
    (out, err)
}

/// A copy of a fixture in `dir` (its name matters: it may hold the date).
fn fixture(dir: &Path, name: &str) -> PathBuf {
    let to = dir.join(name);
    fs::copy(Path::new(REAL).join(name), &to).unwrap();
    to
}

/// Every stored row as CSV, header first.
fn range(dir: &Path, db: &str) -> String {
    ok(xs(dir).args(["-d", db, "range", "1900-01-01", "2200-01-01"])).0
}

#[test]
fn times_of_day_take_the_date_from_the_file_name() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // Lean/OANDA: no header, ms since midnight, CRLF, no final newline, date in the name.
    let input = fixture(d, "oanda_20140501_eurusd_quote.csv");
    let (_, err) = ok(xs(d).args(["-d", "q", "import"]).arg(&input));
    assert!(err.contains("no header"), "{err}");
    assert!(err.contains("milliseconds since midnight"), "{err}");
    assert!(
        err.contains("date is taken from the file name (`20140501`)"),
        "{err}"
    );
    assert_eq!(
        range(d, "q"),
        "column_1,column_2,column_3\n\
         2014-05-01T00:00:00.292Z,1.38676,1.38686\n\
         2014-05-01T00:00:00.920Z,1.38676,1.38687\n\
         2014-05-01T00:00:02.870Z,1.38675,1.38688\n\
         2014-05-01T01:00:00.000Z,1.38673,1.38687\n\
         2014-05-01T23:59:59.999Z,1.38670,1.38680\n"
    );
    // The next day's file into the same database takes its own date.
    let next = d.join("oanda_20140502_eurusd_quote.csv");
    fs::copy(&input, &next).unwrap();
    ok(xs(d).args(["-d", "q", "import", "-q"]).arg(&next));
    let all = range(d, "q");
    assert_eq!(all.lines().count(), 11, "{all}");
    assert!(
        all.contains("2014-05-02T00:00:00.292Z,1.38676,1.38686\n"),
        "{all}"
    );
}

#[test]
fn times_of_day_without_a_date_are_refused_and_date_places_them() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let input = fixture(d, "eurusd_quote.csv");
    let (code, _, err) = run(xs(d).args(["-d", "q", "import"]).arg(&input));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("times of day") && err.contains("--date YYYY-MM-DD"),
        "{err}"
    );
    assert!(!d.join("q").exists(), "nothing is created");
    let (code, _, err) = run(xs(d)
        .args(["-d", "q", "import", "--date", "2014-13-01"])
        .arg(&input));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("bad --date"), "{err}");
    ok(xs(d)
        .args(["-d", "q", "import", "--date", "2014-05-02"])
        .arg(&input));
    let rows = range(d, "q");
    assert!(
        rows.starts_with("column_1,column_2,column_3\n2014-05-02T00:00:00.292Z,1.38676,1.38686\n"),
        "{rows}"
    );
    assert!(
        rows.ends_with("2014-05-02T23:59:59.999Z,1.38670,1.38680\n"),
        "{rows}"
    );
    // An existing database is no excuse: the same file without a date is refused there too.
    let (code, _, err) = run(xs(d).args(["-d", "q", "import"]).arg(&input));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--date"), "{err}");
    // A named time column of small numbers is a time of day too, never 1970.
    fs::write(d.join("tod.csv"), "time,v\n1,10\n2,20\n").unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "tod", "import", "tod.csv"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--date"), "{err}");
    ok(xs(d).args([
        "-d",
        "tod",
        "import",
        "tod.csv",
        "--date",
        "2020-02-29",
        "--time-unit",
        "s",
    ]));
    assert_eq!(
        range(d, "tod"),
        "time,v\n2020-02-29T00:00:01Z,10\n2020-02-29T00:00:02Z,20\n"
    );
}

#[test]
fn a_header_short_of_one_name_over_a_date_and_a_time() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // backtrader: `Date` names two fields (date, time); CRLF.
    let input = fixture(d, "es_minutes.txt");
    let (_, err) = ok(xs(d).args(["-d", "es", "import"]).arg(&input));
    assert!(
        err.contains("the header names 7 columns but the rows have 8"),
        "{err}"
    );
    assert!(err.contains("time from columns `Date`+`time` joined"), "{err}");
    assert!(err.contains("granularity 1m"), "{err}");
    let rows = range(d, "es");
    assert!(
        rows.starts_with(
            "Date_time,Open,High,Low,Close,Volume,OpenInterest\n\
             2006-01-02T09:01:00Z,3602.00,3603.00,3597.00,3599.00,5699,0\n\
             2006-01-02T09:02:00Z,3600.00,3601.00,3595.00,3597.00,894,0\n"
        ),
        "{rows}"
    );
    assert!(
        rows.ends_with("2006-01-02T09:10:00Z,3594.50,3595.50,3589.50,3591.50,726,0\n"),
        "{rows}"
    );
    assert_eq!(rows.lines().count(), 11);
    // Importing it again into the existing database finds the joined time columns by name.
    let (_, err) = ok(xs(d).args(["-d", "es", "import"]).arg(&input));
    assert!(err.contains("10 rows read, 10 stored, 0 rejected"), "{err}");
    assert_eq!(range(d, "es"), rows);
}

#[test]
fn semicolons_decimal_commas_two_time_columns_and_sentinels() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // UCI air quality: `;`, `2,6`, DD/MM/YYYY + HH.MM.SS, -200 = missing (also written
    // `-200,0`, which `--null -200` must match too: it was stored as -200.0), `;;` trailing
    // columns, all-`;` lines at the end, CRLF, names like CO(GT).
    let input = fixture(d, "airquality.csv");
    let (_, err) = ok(xs(d).args(["-d", "air", "import", "--null", "-200"]).arg(&input));
    for needle in [
        "delimiter `;` (detected",
        "decimal comma",
        "column \"CO(GT)\" is called `co_gt`",
        "column \"\" is called `column_7`",
        "time from columns `Date`+`Time` joined",
        "day/month/year",
        "5 rows read, 5 stored, 0 rejected",
        "4 field(s) held a null token",
    ] {
        assert!(err.contains(needle), "{needle} not in\n{err}");
    }
    assert_eq!(
        range(d, "air"),
        "Date_Time,co_gt,pt08_s1_co,T,RH\n\
         2004-03-10T18:00:00Z,2.6,1360,13.6,48.9\n\
         2004-03-10T19:00:00Z,2.0,1292,13.3,47.7\n\
         2004-03-10T20:00:00Z,,1402,11.9,54.0\n\
         2004-03-13T21:00:00Z,2.2,,11.0,60.0\n\
         2004-03-13T22:00:00Z,,1100,,61.5\n"
    );
    // The alias and the header text both name columns in specs.
    ok(xs(d)
        .args([
            "-d",
            "air2",
            "import",
            "--null",
            "-200",
            "--time-column",
            "Date,Time",
        ])
        .args(["--columns", "CO(GT):f32,pt08_s1_co:i32"])
        .arg(&input));
    let config = fs::read_to_string(d.join("air2/xs.toml")).unwrap();
    assert!(config.contains("name = \"co_gt\"\ntype = \"f32\""), "{config}");
    assert!(
        config.contains("name = \"pt08_s1_co\"\ntype = \"i32\""),
        "{config}"
    );
    // Without --null the sentinel is a number, stored as it is.
    ok(xs(d).args(["-d", "raw", "import", "-q"]).arg(&input));
    assert!(range(d, "raw").contains("2004-03-10T20:00:00Z,-200.0,1402"));
}

#[test]
fn a_preamble_unit_names_24_00_and_a_fixed_offset() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // TMY3: a station line before the header, MM/DD/YYYY and HH:MM with 24:00, local standard
    // time UTC−9.
    let input = fixture(d, "tmy3.csv");
    let (_, err) = ok(xs(d)
        .args(["-d", "tmy", "import", "--timezone", "-09:00"])
        .arg(&input));
    assert!(err.contains("skipped 1 line(s) before the header"), "{err}");
    assert!(err.contains("month/day/year"), "{err}");
    assert!(err.contains("read in UTC-09:00"), "{err}");
    assert_eq!(
        range(d, "tmy"),
        "date_mm_dd_yyyy_time_hh_mm,ghi_w_m_2,ghi_source,dry_bulb_c\n\
         1997-01-01T10:00:00Z,0,1,4.0\n\
         1997-01-01T11:00:00Z,0,1,4.0\n\
         1997-01-02T09:00:00Z,0,1,4.0\n\
         1997-01-13T10:00:00Z,0,1,4.0\n\
         1997-01-13T11:00:00Z,0,1,4.0\n\
         1997-01-14T09:00:00Z,0,1,4.0\n"
    );
    // --skip-lines says the same; --skip-lines 0 reads the station line as the header.
    ok(xs(d)
        .args(["-d", "tmy2", "import", "--skip-lines", "1", "-q"])
        .arg(&input));
    assert_eq!(range(d, "tmy2").lines().count(), 7);
    let (code, _, err) = run(xs(d)
        .args(["-d", "tmy3", "import", "--skip-lines", "0"])
        .arg(&input));
    assert_ne!(code, 0, "{err}");
}

#[test]
fn compact_dates_without_a_header_in_a_fixed_zone() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // HistData: `YYYYMMDD HHMMSSmmm`, EST without DST.
    let input = fixture(d, "histdata_ticks.csv");
    ok(xs(d)
        .args(["-d", "fx", "import", "--timezone", "-05:00"])
        .arg(&input));
    assert_eq!(
        range(d, "fx"),
        "column_1,column_2,column_3,column_4\n\
         2020-01-01T22:00:00.065Z,1.121200,1.121720,0\n\
         2020-01-01T22:00:10.447Z,1.121200,1.121920,0\n\
         2020-01-01T22:00:10.498Z,1.121170,1.121610,0\n"
    );
    let (code, _, err) = run(xs(d)
        .args(["-d", "bad", "import", "--timezone", "Mars/Olympus"])
        .arg(&input));
    assert_eq!(code, 2);
    assert!(err.contains("bad --timezone"), "{err}");
}

#[test]
fn named_zones_refuse_dst_gaps_and_overlaps_unless_told() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // New York: 2024-03-10 02:30 does not exist, 2024-11-03 01:30 happens twice.
    let text = "time,v\n2024-01-15 09:30:00,1\n2024-03-10 02:30:00,2\n2024-11-03 01:30:00,3\n2024-07-01 12:00:00,4\n";
    fs::write(d.join("ny.csv"), text).unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "ny", "import", "ny.csv", "--timezone", "America/New_York"]));
    assert_eq!(code, 4, "{err}");
    let rejects: Vec<PathBuf> = fs::read_dir(d.join("ny"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("rejects-"))
        .collect();
    let rejected = fs::read_to_string(&rejects[0]).unwrap();
    assert!(
        rejected.contains("does not exist in America/New_York"),
        "{rejected}"
    );
    assert!(
        rejected.contains("occurs twice in America/New_York"),
        "{rejected}"
    );
    assert_eq!(
        range(d, "ny"),
        "time,v\n2024-01-15T14:30:00Z,1\n2024-07-01T16:00:00Z,4\n"
    );
    ok(xs(d).args([
        "-d",
        "ny2",
        "import",
        "ny.csv",
        "--timezone",
        "America/New_York",
        "--dst",
        "earlier",
    ]));
    assert_eq!(
        range(d, "ny2"),
        "time,v\n2024-01-15T14:30:00Z,1\n2024-03-10T07:30:00Z,2\n2024-07-01T16:00:00Z,4\n\
         2024-11-03T05:30:00Z,3\n"
    );
}

#[test]
fn names_that_specs_cannot_use_get_aliases() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let input = fixture(d, "stocks.csv");
    let (_, err) = ok(xs(d)
        .args(["-d", "s", "import", "--columns", "Adj Close:f32"])
        .arg(&input));
    assert!(
        err.contains("column \"Adj Close\" is called `adj_close`"),
        "{err}"
    );
    let rows = range(d, "s");
    assert!(
        rows.starts_with("Date,Ticker,Open,Close,Volume,adj_close\n"),
        "{rows}"
    );
    assert!(
        rows.contains("2000-03-02T00:00:00Z,MSFT,45.10,46.10,1000,1.5033\n"),
        "{rows}"
    );
    assert_eq!(rows.lines().count(), 7);
    // Duplicate and empty names.
    fs::write(
        d.join("dup.csv"),
        "time,v,v,\n2024-01-01T00:00:00Z,1,2,3\n2024-01-01T00:00:01Z,4,5,6\n",
    )
    .unwrap();
    ok(xs(d).args(["-d", "dup", "import", "dup.csv"]));
    assert_eq!(
        range(d, "dup"),
        "time,v,v_2,column_4\n2024-01-01T00:00:00Z,1,2,3\n2024-01-01T00:00:01Z,4,5,6\n"
    );
}

#[test]
fn headers_are_detected_and_can_be_forced() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let input = fixture(d, "trades_noheader.csv");
    let (_, err) = ok(xs(d).args(["-d", "k", "import"]).arg(&input));
    assert!(err.contains("no header"), "{err}");
    assert!(err.contains("5 rows read, 5 stored, 0 rejected"), "{err}");
    assert!(range(d, "k").starts_with("column_1,column_2,column_3\n2023-01-01T00:03:56Z,90.54,1.10\n"));
    // Into an existing database a headerless file is read in the order `xs range` writes, and
    // its first row is data, not a header.
    ok(xs(d).args([
        "create",
        "e",
        "--granularity",
        "1s",
        "--columns",
        "price:f64,qty:f64",
        "--depth",
        "4",
    ]));
    ok(xs(d).args(["-d", "e", "import", "-q"]).arg(&input));
    assert!(range(d, "e").starts_with("time,price,qty\n2023-01-01T00:03:56Z,90.54,1.1\n"));
    assert_eq!(range(d, "e").lines().count(), 6);
    // --header reads the first line as names even when it types like the rows.
    let (_, err) = ok(xs(d)
        .args(["-d", "h", "import", "--header", "--time-column", "1672531436"])
        .arg(&input));
    assert!(err.contains("4 rows read, 4 stored"), "{err}");
    assert!(range(d, "h").starts_with("1672531436,90.54,1.1\n2023-01-01T00:04:31Z,90.45,1.00\n"));
    let (code, _, err) = run(xs(d)
        .args(["-d", "h2", "import", "--header", "--no-header"])
        .arg(&input));
    assert_eq!(code, 2, "{err}");
}

#[test]
fn null_tokens_in_numeric_columns() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let input = fixture(d, "nulls_pipe.csv");
    let (_, err) = ok(xs(d).args(["-d", "n", "import"]).arg(&input));
    assert!(err.contains("delimiter `|`"), "{err}");
    assert!(err.contains("column `temp`: `N/A`, `null` read as null"), "{err}");
    assert!(err.contains("4 field(s) held a null token"), "{err}");
    assert_eq!(
        range(d, "n"),
        "time,temp,hum\n2024-01-01T00:00:00Z,1.5,\n2024-01-01T00:01:00Z,,40\n\
         2024-01-01T00:02:00Z,,41\n2024-01-01T00:03:00Z,2.5,\n"
    );
    // In a text column `NA` is text; a missing time is rejected with its reason.
    fs::write(d.join("t.csv"), "time,name\n2024-01-01T00:00:00Z,NA\nNA,x\n").unwrap();
    ok(xs(d).args(["create", "t", "--granularity", "1s", "--columns", "name:str(4)"]));
    let (code, _, err) = run(xs(d).args(["-d", "t", "import", "t.csv"]));
    assert_eq!(code, 4, "{err}");
    assert_eq!(range(d, "t"), "time,name\n2024-01-01T00:00:00Z,NA\n");
}

fn range_of_dmy_amb2() -> String {
    "local_time,v\n2024-01-31T23:00:00.000Z,1\n2024-04-02T23:00:00.500Z,2\n".into()
}

#[test]
fn day_month_order_is_decided_or_refused() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // Every date reads both ways and the rows are in time order either way: refused.
    fs::write(d.join("amb.csv"), "date,v\n01/02/2024,1\n03/04/2024,2\n").unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "amb", "import", "amb.csv"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--time-format dmy (day first) or --time-format mdy"),
        "{err}"
    );
    // The keywords choose the order, whatever the shape of the rest (here a time, a fraction
    // and a zone by name).
    fs::write(
        d.join("amb2.csv"),
        "Local time,v
01.02.2024 00:00:00.000 GMT+0100,1
03.04.2024 00:00:00.500 GMT+0100,2
",
    )
    .unwrap();
    // Dates written with dots are day first (no locale puts the month first between dots).
    let (_, err) = ok(xs(d).args(["-d", "amb2", "import", "amb2.csv"]));
    assert!(err.contains("written with dots"), "{err}");
    assert!(err.contains("--time-format mdy"), "{err}");
    assert_eq!(range(d, "amb2"), range_of_dmy_amb2());
    let (_, err) = ok(xs(d).args(["-d", "mdy2", "import", "--time-format", "mdy", "amb2.csv"]));
    assert!(err.contains("month/day/year"), "{err}");
    assert!(range(d, "mdy2").contains("2024-01-01T23:00:00.000Z,1\n"));
    let (_, err) = ok(xs(d).args(["-d", "dmy", "import", "--time-format", "dmy", "amb2.csv"]));
    assert!(err.contains("day/month/year"), "{err}");
    assert_eq!(range(d, "dmy"), range_of_dmy_amb2());
    ok(xs(d).args(["-d", "mdy", "import", "--time-format", "MDY", "amb.csv"]));
    assert_eq!(
        range(d, "mdy"),
        "date,v\n2024-01-02T00:00:00Z,1\n2024-03-04T00:00:00Z,2\n"
    );
    // Only day/month keeps these in order.
    fs::write(
        d.join("dm.csv"),
        "date,v\n01/02/2024,1\n02/02/2024,2\n03/02/2024,3\n01/03/2024,4\n",
    )
    .unwrap();
    let (_, err) = ok(xs(d).args(["-d", "dm", "import", "dm.csv"]));
    assert!(err.contains("day/month/year"), "{err}");
    assert!(range(d, "dm").ends_with("2024-03-01T00:00:00Z,4\n"));
    // Slashes with the year first, and fractions.
    fs::write(
        d.join("ymd.csv"),
        "time,v\n2011/07/31 22:00:00.123,1\n2011/07/31 22:00:01.5,2\n",
    )
    .unwrap();
    ok(xs(d).args(["-d", "ymd", "import", "ymd.csv"]));
    assert_eq!(
        range(d, "ymd"),
        "time,v\n2011-07-31T22:00:00.123Z,1\n2011-07-31T22:00:01.500Z,2\n"
    );
}

#[test]
fn the_sample_spans_the_whole_file() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // A regular 5-minute series whose one repeated hour comes late (as in NAB's file): with a
    // small first chunk, only a sample across the file sees it and gives the depth for it.
    let mut text = String::from("timestamp,value\n");
    let start = 1_385_942_400; // 2013-12-02T00:00:00Z
    for i in 0..20_000 {
        text.push_str(&format!("{},{i}\n", start + i * 300));
    }
    for i in 19_988..20_000 {
        text.push_str(&format!("{},{}\n", start + i * 300, 100_000 + i));
    }
    fs::write(d.join("late.csv"), &text).unwrap();
    let (_, err) = ok(xs(d).args(["-d", "late", "import", "late.csv", "--chunk-bytes", "2000"]));
    assert!(err.contains("creating it from all 20012 rows"), "{err}");
    assert!(err.contains("20012 rows read, 20012 stored, 0 rejected"), "{err}");
    // The last timestamp holds both of its rows, in input order.
    let last = ok(xs(d).args(["-d", "late", "get", "2014-02-09T10:35:00Z"])).0;
    assert_eq!(
        last,
        "timestamp,value\n2014-02-09T10:35:00Z,19999\n2014-02-09T10:35:00Z,119999\n"
    );
    // A stream is sampled at its head only, and says so; the late repeats are then rejected
    // with their reason, not lost.
    // (On the grid, one row a timestamp, where a late repeat has no room.)
    let (code, _, err) = run(xs(d)
        .args([
            "-d",
            "stream",
            "import",
            "-",
            "--chunk-bytes",
            "2000",
            "--codec",
            "raw",
        ])
        .write_stdin(text.clone()));
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("only the head"), "{err}");
    assert!(err.contains("12 rejected"), "{err}");
    // Past a few MiB the sample takes evenly spaced windows, the last one at the end: a longer
    // text value in the last row is seen, so its column is wide enough.
    let mut big = String::from("time,v,name\n");
    for i in 0..150_000 {
        big.push_str(&format!("{},{i},ab\n", 1_600_000_000 + i));
    }
    big.push_str("1600150000,0,a-much-longer-name\n");
    fs::write(d.join("big.csv"), &big).unwrap();
    let (_, err) = ok(xs(d).args(["-d", "big", "import", "big.csv"]));
    assert!(err.contains("rows sampled across the file"), "{err}");
    assert!(
        err.contains("150001 rows read, 150001 stored, 0 rejected"),
        "{err}"
    );
    let last = ok(xs(d).args(["-d", "big", "get", "2020-09-15T06:06:40Z"])).0;
    assert_eq!(last, "time,v,name\n2020-09-15T06:06:40Z,0,a-much-longer-name\n");
}

#[test]
fn quiet_means_quiet() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // A new database inferred from a headerless `;` file with nulls: every note is held back.
    let mut text = String::new();
    for i in 0..100 {
        text.push_str(&format!("{};{};NA\n", 1_700_000_000 + i, i));
    }
    fs::write(d.join("q.csv"), &text).unwrap();
    let (out, err) = ok(xs(d).args(["-d", "q", "import", "-q", "q.csv"]));
    assert_eq!((out.as_str(), err.as_str()), ("", ""));
    assert_eq!(range(d, "q").lines().nth(1), Some("2023-11-14T22:13:20Z,0,"));
    // Into the existing database too.
    let (out, err) = ok(xs(d).args(["-d", "q", "import", "--quiet", "q.csv"]));
    assert_eq!((out.as_str(), err.as_str()), ("", ""));
    // What needs action still shows: rejected rows, and refusals.
    fs::write(
        d.join("bad.csv"),
        "1700000200;1;NA\n1700000201;x;NA\n1700000202;2;NA\n",
    )
    .unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "q", "import", "-q", "bad.csv"]));
    assert_eq!(code, 4);
    assert!(err.contains("1 row(s) rejected"), "{err}");
    let (code, _, err) = run(xs(d)
        .args(["-d", "tod", "import", "-q"])
        .arg(fixture(d, "eurusd_quote.csv")));
    assert_eq!(code, 2);
    assert!(err.contains("--date"), "{err}");
}

#[test]
fn decimal_commas_forced_and_tabs_sniffed() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // Tabs and decimal commas, both detected.
    fs::write(
        d.join("tabs.tsv"),
        "time\tv\n2024-01-01T00:00:00Z\t1,5\n2024-01-01T00:00:01Z\t-0,25\n",
    )
    .unwrap();
    let (_, err) = ok(xs(d).args(["-d", "tabs", "import", "tabs.tsv"]));
    assert!(
        err.contains("delimiter tab") && err.contains("decimal comma"),
        "{err}"
    );
    assert_eq!(
        range(d, "tabs"),
        "time,v\n2024-01-01T00:00:00Z,1.50\n2024-01-01T00:00:01Z,-0.25\n"
    );
    // In a comma-separated file a decimal comma can only be quoted: --decimal-comma reads it.
    fs::write(
        d.join("q.csv"),
        "time,v\n2024-01-01T00:00:00Z,\"1,5\"\n2024-01-01T00:00:01Z,2\n",
    )
    .unwrap();
    ok(xs(d).args(["create", "q", "--granularity", "1s", "--columns", "v:f64"]));
    let (code, _, _) = run(xs(d).args(["-d", "q", "import", "q.csv"]));
    assert_eq!(code, 4, "without it `1,5` is no number");
    ok(xs(d).args(["-d", "q", "import", "q.csv", "--decimal-comma"]));
    assert_eq!(
        range(d, "q"),
        "time,v\n2024-01-01T00:00:00Z,1.5\n2024-01-01T00:00:01Z,2.0\n"
    );
}

#[test]
fn into_an_existing_database_a_header_is_known_by_its_names() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    ok(xs(d).args(["create", "e", "--granularity", "1s", "--columns", "v:i64"]));
    // A headerless file whose first row has a bad value: still data, rejected with its reason.
    fs::write(d.join("a.csv"), "1700000000,x\n1700000001,1\n").unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "e", "import", "a.csv"]));
    assert_eq!(code, 4, "{err}");
    assert_eq!(range(d, "e"), "time,v\n2023-11-14T22:13:21Z,1\n");
    // A header in another order is a header.
    fs::write(d.join("b.csv"), "v,time\n2,1700000002\n").unwrap();
    ok(xs(d).args(["-d", "e", "import", "b.csv"]));
    assert!(range(d, "e").ends_with("2023-11-14T22:13:22Z,2\n"));
}

#[test]
fn a_time_of_day_pattern_takes_the_date() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    fs::write(d.join("t.csv"), "time,v\n9h30m05s,1\n16h00m00s,2\n").unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "p", "import", "t.csv", "--time-format", "%Hh%Mm%Ss"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--date"), "{err}");
    ok(xs(d)
        .args([
            "-d",
            "p",
            "import",
            "t.csv",
            "--time-format",
            "%Hh%Mm%Ss",
            "--date",
            "2024-07-01",
        ])
        .args(["--timezone", "America/New_York"]));
    assert_eq!(
        range(d, "p"),
        "time,v\n2024-07-01T13:30:05Z,1\n2024-07-01T20:00:00Z,2\n"
    );
}

#[test]
fn spaces_after_delimiters_and_a_twelve_hour_clock() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // Spaces around numbers do not make them text; text keeps its spaces.
    fs::write(
        d.join("sp.csv"),
        "time, v, s\n2024-01-01T00:00:00Z, 1.5, a\n 2024-01-01T00:00:01Z , 2 , b\n",
    )
    .unwrap();
    let (_, err) = ok(xs(d).args(["-d", "sp", "import", "sp.csv"]));
    assert!(err.contains("columns: v:dec(1),s:str(4)"), "{err}");
    assert_eq!(
        range(d, "sp"),
        "time,v,s\n2024-01-01T00:00:00Z,1.5, a\n2024-01-01T00:00:01Z,2.0, b\n"
    );
    // US spreadsheet exports: M/D/YYYY with AM/PM.
    fs::write(
        d.join("us.csv"),
        "date,v\n1/2/2020 1:05:00 PM,1\n1/13/2020 12:05:00 AM,2\n",
    )
    .unwrap();
    let (_, err) = ok(xs(d).args(["-d", "us", "import", "us.csv"]));
    assert!(err.contains("month/day/year"), "{err}");
    assert_eq!(
        range(d, "us"),
        "date,v\n2020-01-02T13:05:00Z,1\n2020-01-13T00:05:00Z,2\n"
    );
}

#[test]
fn a_pandas_index_is_not_the_time() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // An unnamed index column of 0, 1, 2… first, a date in the file name: the time is `when`.
    let mut text = String::from(",when,v\n");
    for i in 0..10 {
        text.push_str(&format!("{i},2024-01-01T00:00:{i:02}Z,{i}\n"));
    }
    fs::write(d.join("export_20240101.csv"), &text).unwrap();
    let (_, err) = ok(xs(d).args(["-d", "p", "import", "export_20240101.csv"]));
    assert!(err.contains("column \"\" is called `column_1`"), "{err}");
    assert!(err.contains("time column `when`"), "{err}");
    assert!(range(d, "p").starts_with("when,column_1,v\n2024-01-01T00:00:00Z,0,0\n"));
}

#[test]
fn month_names_and_compact_dates_beside_a_time() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    fs::write(
        d.join("m.csv"),
        "Date,Time,Close\n02-Jan-2020,09:30,1\n02-Jan-2020,09:31,2\n03-Jan-2020,09:30,3\n",
    )
    .unwrap();
    let (_, err) = ok(xs(d).args(["-d", "m", "import", "m.csv"]));
    assert!(err.contains("time from columns `Date`+`Time` joined"), "{err}");
    assert_eq!(
        range(d, "m"),
        "Date_Time,Close\n2020-01-02T09:30:00Z,1\n2020-01-02T09:31:00Z,2\n2020-01-03T09:30:00Z,3\n"
    );
    fs::write(
        d.join("c.csv"),
        "20130101,22:00:00,1.5\n20130101,22:01:00,1.6\n20130102,00:00:00,1.7\n",
    )
    .unwrap();
    ok(xs(d).args(["-d", "c", "import", "c.csv"]));
    assert_eq!(
        range(d, "c"),
        "column_1_column_2,column_3\n2013-01-01T22:00:00Z,1.5\n2013-01-01T22:01:00Z,1.6\n2013-01-02T00:00:00Z,1.7\n"
    );
}

#[test]
fn every_input_must_date_its_times_of_day_before_anything_is_written() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    fs::create_dir(d.join("days")).unwrap();
    fs::copy(
        Path::new(REAL).join("oanda_20140501_eurusd_quote.csv"),
        d.join("days/a_20140501.csv"),
    )
    .unwrap();
    // Another day's quotes (not the same bytes, which would be refused as a copy).
    let quotes = fs::read_to_string(Path::new(REAL).join("eurusd_quote.csv")).unwrap();
    fs::write(d.join("days/b_nodate.csv"), quotes.replacen("292,", "293,", 1)).unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "q", "import", "days"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("b_nodate.csv") && err.contains("--date"), "{err}");
    assert!(!d.join("q").exists(), "nothing is created");
    // One file per day, each dated by its name.
    fs::remove_file(d.join("days/b_nodate.csv")).unwrap();
    fs::copy(
        Path::new(REAL).join("eurusd_quote.csv"),
        d.join("days/c_20140502.csv"),
    )
    .unwrap();
    ok(xs(d).args(["-d", "q2", "import", "days"]));
    let rows = range(d, "q2");
    assert!(
        rows.contains("2014-05-01T23:59:59.999Z") && rows.contains("2014-05-02T00:00:00.292Z"),
        "{rows}"
    );
    assert_eq!(rows.lines().count(), 11);
}

#[test]
fn new_flags_are_documented_and_checked() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let help = ok(xs(d).args(["import", "--help"])).0;
    for flag in [
        "--header",
        "--skip-lines",
        "--decimal-comma",
        "--null",
        "--date",
        "--timezone",
        "--dst",
        "--time-column <NAME[,NAME]>",
        "--encoding <NAME>",
    ] {
        assert!(help.contains(flag), "{flag} not in\n{help}");
    }
    let input = fixture(d, "stocks.csv");
    for (args, needle) in [
        (&["--dst", "both"][..], "invalid value 'both' for '--dst"),
        (&["--date", "01/05/2014"], "bad --date"),
        (&["--timezone", "+25:00"], "bad --timezone"),
        (&["--time-column", "Date,"], "--time-column has an empty name"),
        (
            &["--time-column", "When"],
            "--time-column `When` is not among the input columns",
        ),
        (&["--skip-lines", "x"], "invalid value 'x'"),
        (
            &["--encoding", "klingon"],
            "--encoding klingon: not an encoding xs knows",
        ),
    ] {
        let (code, _, err) = run(xs(d).args(["-d", "s", "import"]).arg(&input).args(args));
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!d.join("s").exists(), "{args:?} created the database");
    }
}

#[test]
fn seconds_since_midnight_with_a_fraction_dated_inside_the_name() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // LOBSTER message files: no header, seconds after midnight (New York) to the ns.
    let input = fixture(d, "AAPL_2012-06-21_34200000_57600000_message_1.csv");
    let (_, err) = ok(xs(d)
        .args(["-d", "lob", "import", "--timezone", "America/New_York"])
        .arg(&input));
    assert!(err.contains("seconds since midnight"), "{err}");
    assert!(err.contains("from the file name (`2012-06-21`)"), "{err}");
    let rows = ok(xs(d).args(["-d", "lob", "range", "2012-06-21", "2012-06-22"])).0;
    assert!(
        rows.starts_with("column_1,column_2,column_3,column_4,column_5,column_6\n2012-06-21T13:30:00.004241176Z,1,16113575,18,5853300,1\n"),
        "{rows}"
    );
    assert!(
        rows.ends_with("2012-06-21T19:59:59.999000000Z,3,16113575,18,5853300,1\n"),
        "{rows}"
    );
    // kdb+ times with a `D` between date and time.
    fs::write(
        d.join("kdb.csv"),
        "timestamp,size\n2019.10.01D00:00:02.584432000,10\n2019.10.01D00:00:02.600000000,20\n",
    )
    .unwrap();
    ok(xs(d).args(["-d", "kdb", "import", "kdb.csv"]));
    assert_eq!(
        range(d, "kdb"),
        "timestamp,size\n2019-10-01T00:00:02.584432Z,10\n2019-10-01T00:00:02.600000Z,20\n"
    );
}

/// Rejected rows' reasons, from the rejects file of database `db`.
fn rejects_of(dir: &Path, db: &str) -> String {
    let files: Vec<PathBuf> = fs::read_dir(dir.join(db))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("rejects-"))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    fs::read_to_string(&files[0]).unwrap()
}

#[test]
fn iso_times_take_any_fraction_but_never_move_below_a_nanosecond() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // Twelve fraction digits (picosecond clocks): zeros past the ninth are exact; the third row
    // has a digit below one nanosecond, so it is not on the nanosecond grid.
    let text = "time,v\n\
                2024-01-01T00:00:00.100000000000Z,1\n\
                2024-01-01T00:00:01.000000001000Z,2\n\
                2024-01-01T00:00:02.123456789100Z,3\n\
                2024-01-01T00:00:03Z,4\n";
    fs::write(d.join("ps.csv"), text).unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "ps", "import", "ps.csv"]));
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("ISO-8601"), "{err}");
    let rejected = rejects_of(d, "ps");
    assert!(
        rejected.contains("2024-01-01T00:00:02.123456789100Z"),
        "{rejected}"
    );
    assert!(
        rejected.contains("fraction digits below one nanosecond") && rejected.contains("--floor-time"),
        "{rejected}"
    );
    assert_eq!(
        range(d, "ps"),
        "time,v\n2024-01-01T00:00:00.100000000Z,1\n2024-01-01T00:00:01.000000001Z,2\n\
         2024-01-01T00:00:03.000000000Z,4\n"
    );
    // With --floor-time the time is rounded down to the nanosecond, and counted as floored.
    let (_, err) = ok(xs(d).args(["-d", "ps", "import", "--floor-time", "ps.csv"]));
    assert!(err.contains("4 stored, 0 rejected"), "{err}");
    assert!(
        range(d, "ps").contains("2024-01-01T00:00:02.123456789Z,3\n"),
        "{}",
        range(d, "ps")
    );
    // Time arguments follow the same rule: trailing zeros are fine, a finer digit is refused.
    let (out, _) = ok(xs(d).args(["-d", "ps", "get", "2024-01-01T00:00:01.0000000010Z"]));
    assert_eq!(out, "time,v\n2024-01-01T00:00:01.000000001Z,2\n");
    let (code, _, err) = run(xs(d).args(["-d", "ps", "get", "2024-01-01T00:00:01.0000000011Z"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot read time"), "{err}");
}

#[test]
fn queries_take_the_header_text_of_an_aliased_column_too() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let input = fixture(d, "stocks.csv");
    ok(xs(d).args(["-d", "s", "import", "-q"]).arg(&input));
    let window = ["2000-03-01", "2000-03-03"];
    // --columns, by header text and by alias: the same column.
    let (by_text, _) = ok(xs(d).args(["-d", "s", "range"]).args(window).args([
        "--columns",
        "Date,Ticker,Adj Close",
        "--where",
        "Ticker=MSFT",
    ]));
    assert_eq!(
        by_text,
        "Date,Ticker,Adj Close\n2000-03-01T00:00:00Z,MSFT,1.5033\n2000-03-02T00:00:00Z,MSFT,1.5033\n"
    );
    let (by_alias, _) = ok(xs(d).args(["-d", "s", "range"]).args(window).args([
        "--columns",
        "Date,Ticker,adj_close",
        "--where",
        "Ticker=MSFT",
    ]));
    assert_eq!(
        by_alias.lines().skip(1).collect::<Vec<_>>(),
        by_text.lines().skip(1).collect::<Vec<_>>()
    );
    // --where and --agg take it as well.
    let (out, _) = ok(xs(d).args(["-d", "s", "range"]).args(window).args([
        "--where",
        "Adj Close=3.952",
        "--columns",
        "Ticker",
    ]));
    assert_eq!(out, "Ticker\nAAPL\nAAPL\n");
    let (out, _) = ok(xs(d).args(["-d", "s", "range"]).args(window).args([
        "--agg",
        "max(Adj Close),min(adj_close)",
        "--all-series",
    ]));
    assert_eq!(
        out,
        "Date,max_adj_close,min_adj_close\n2000-03-01T00:00:00Z,3.9520,1.5033\n"
    );
    // Text that could mean two aliased columns is refused, not guessed.
    fs::write(
        d.join("two.csv"),
        "time,Adj Close,adj close\n2024-01-01T00:00:00Z,1,2\n",
    )
    .unwrap();
    ok(xs(d).args(["-d", "two", "import", "-q", "two.csv"]));
    let (code, _, err) = run(xs(d).args([
        "-d",
        "two",
        "range",
        "2024-01-01",
        "2024-01-02",
        "--columns",
        "Adj Close",
    ]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("`adj_close` or `adj_close_2`"), "{err}");
    let (out, _) = ok(xs(d).args([
        "-d",
        "two",
        "range",
        "2024-01-01",
        "2024-01-02",
        "--columns",
        "adj_close_2",
    ]));
    assert_eq!(out, "adj_close_2\n2\n");
}

#[test]
fn zones_by_name_and_days_of_the_week() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // As database exports (`… UTC`), RFC 2822 (mail, RSS, HTTP) and JavaScript write times.
    let cases = [
        (
            "utc.csv",
            "time,v\n2021-01-01 00:00:00 UTC,1\n2021-01-01 00:00:01.5 UTC,2\n",
        ),
        (
            "rfc.csv",
            "time,v\n\"Fri, 01 Jan 2021 00:00:00 GMT\",1\n\"Fri, 01 Jan 2021 00:00:01.5 GMT\",2\n",
        ),
        (
            "js.csv",
            "time,v\nFri Jan 01 2021 01:00:00 GMT+0100 (Central European Standard Time),1\n\
             Fri Jan 01 2021 01:00:01.5 GMT+0100 (Central European Standard Time),2\n",
        ),
    ];
    for (name, text) in cases {
        fs::write(d.join(name), text).unwrap();
        let db = name.trim_end_matches(".csv");
        ok(xs(d).args(["-d", db, "import", name]));
        assert_eq!(
            range(d, db),
            "time,v\n2021-01-01T00:00:00.000Z,1\n2021-01-01T00:00:01.500Z,2\n",
            "{name}"
        );
    }
    // A zone abbreviation names different offsets in different places: not taken for UTC.
    fs::write(
        d.join("est.csv"),
        "time,v\n2021-01-01 00:00:00 EST,1\n2021-01-01 00:00:01 EST,2\n",
    )
    .unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "est", "import", "est.csv"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("the zone abbreviation `EST`, which xs does not read"),
        "{err}"
    );
}

/// `text` in UTF-16 (little- or big-endian), with its byte-order mark.
fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
    std::iter::once('\u{feff}')
        .chain(text.chars())
        .collect::<String>()
        .encode_utf16()
        .flat_map(|u| {
            if big_endian {
                u.to_be_bytes()
            } else {
                u.to_le_bytes()
            }
        })
        .collect()
}

#[test]
fn utf16_by_its_byte_order_mark_and_other_encodings_by_name() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // Excel's "Unicode text": UTF-16LE with a byte-order mark, tab-separated; also gzipped.
    let text = "time\tprice\tcity\n2021-01-01T00:00:00Z\t1.5\tZürich\n2021-01-01T00:00:01Z\t1.6\t東京\n";
    let want = "time,price,city\n2021-01-01T00:00:00Z,1.5,Zürich\n2021-01-01T00:00:01Z,1.6,東京\n";
    fs::write(d.join("le.txt"), utf16(text, false)).unwrap();
    fs::write(d.join("be.csv"), utf16(&text.replace('\t', ","), true)).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, &utf16(text, false)).unwrap();
    fs::write(d.join("le.txt.gz"), gz.finish().unwrap()).unwrap();
    for (name, db) in [("le.txt", "le"), ("be.csv", "be"), ("le.txt.gz", "gz")] {
        let (_, err) = ok(xs(d).args(["-d", db, "import", name]));
        assert!(
            err.contains("(its byte-order mark says so), read as UTF-8"),
            "{name}: {err}"
        );
        assert_eq!(range(d, db), want, "{name}");
    }
    // A later file of the same import is decoded on its own.
    ok(xs(d).args(["-d", "le", "import", "be.csv"]));
    assert_eq!(range(d, "le"), want);

    // Windows-1252 (Excel in Western Europe): refused before anything is created, with the
    // value shown as it would read; --encoding imports it.
    let latin: Vec<u8> = [
        &b"time,city,v\n2021-01-01,Z"[..],
        &[0xfc],
        b"rich,1 ",
        &[0x80],
        b"\n2021-01-02,M",
        &[0xfc],
        b"nchen,2\n",
    ]
    .concat();
    fs::write(d.join("win.csv"), &latin).unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "win", "import", "win.csv"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("column `city` holds `Z\\xFCrich`, which reads `Zürich` in windows-1252"),
        "{err}"
    );
    assert!(!d.join("win").exists());
    // Only the header in another encoding: refused too, not a name with a replacement mark.
    let header: Vec<u8> = [
        &b"time,Temp"[..],
        &[0xe9],
        b"rature\n2021-01-01,1\n2021-01-02,2\n",
    ]
    .concat();
    fs::write(d.join("hdr.csv"), header).unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "hdr", "import", "hdr.csv"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("the header is not UTF-8 (`Temp\u{FFFD}rature`)"),
        "{err}"
    );
    // A binary file: the message shows a short start of it, control bytes escaped, not the
    // kilobytes of its "header" raw to the terminal.
    let binary: Vec<u8> = (0..3000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    fs::write(d.join("bin.csv"), &binary).unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "bin", "import", "bin.csv"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.len() < 800, "{} bytes: {err}", err.len());
    assert!(!err.bytes().any(|b| b < b' ' && b != b'\n'), "{err:?}");
    let (_, err) = ok(xs(d).args(["-d", "hdr", "import", "--encoding", "windows-1252", "hdr.csv"]));
    assert!(err.contains("Température"), "{err}");
    let (_, err) = ok(xs(d).args(["-d", "win", "import", "--encoding", "latin1", "win.csv"]));
    assert!(
        err.contains("text in windows-1252 (--encoding), read as UTF-8"),
        "{err}"
    );
    assert_eq!(
        range(d, "win"),
        "time,city,v\n2021-01-01T00:00:00Z,Zürich,1 €\n2021-01-02T00:00:00Z,München,2\n"
    );
    // Into an existing database without --encoding, each such row is rejected with the reason.
    let (code, _, _) = run(xs(d).args(["-d", "win", "import", "win.csv"]));
    assert_eq!(code, 4);
    let rejects = fs::read_dir(d.join("win"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("rejects-"))
        .expect("rejects file");
    let rejects = String::from_utf8_lossy(&fs::read(rejects).unwrap()).into_owned();
    assert!(
        rejects.contains("the text is not UTF-8; if the file is in another encoding, pass --encoding"),
        "{rejects}"
    );

    // Bytes the encoding cannot hold (a lone surrogate) stop the import at their offset.
    let mut bad = utf16("time,v\n2021-01-01T00:00:00Z,1\n", false);
    bad.extend_from_slice(&[0x00, 0xd8]);
    bad.extend(utf16(",2\n", false).into_iter().skip(2));
    fs::write(d.join("bad.csv"), bad).unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "bad", "import", "bad.csv"]));
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("is not valid UTF-16LE text; its byte-order mark said this encoding"),
        "{err}"
    );
}

#[test]
fn comment_lines_before_the_header_and_dots_and_dashes_as_nulls() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // InfluxDB's annotated CSV: annotation lines of the rows' width before the header.
    fs::write(
        d.join("influx.csv"),
        "#group,false,false,true,false,false\n#datatype,string,long,dateTime:RFC3339,double,string\n\
         #default,_result,,,,\n,result,table,_time,_value,_field\n\
         ,,0,2021-01-01T00:00:10Z,21.5,temp\n,,0,2021-01-01T00:00:20Z,21.6,temp\n",
    )
    .unwrap();
    let (_, err) = ok(xs(d).args(["-d", "influx", "import", "influx.csv"]));
    assert!(
        err.contains("skipped 3 line(s) before the header: comments (`#`)"),
        "{err}"
    );
    assert_eq!(
        range(d, "influx"),
        "_time,result,table,_value,_field\n2021-01-01T00:00:10Z,,0,21.5,temp\n\
         2021-01-01T00:00:20Z,,0,21.6,temp\n"
    );
    // Several tables, each with its annotations and header again: those are not rows, and do
    // not hide the header from the sniffer.
    let table = |n: u32, times: &[&str]| {
        let mut t = String::from(
            "#group,false,false,true\n#datatype,string,long,dateTime:RFC3339\n#default,_result,,\n,result,table,_time\n",
        );
        for time in times {
            t.push_str(&format!(",,{n},{time}\n"));
        }
        t
    };
    fs::write(
        d.join("tables.csv"),
        format!(
            "{}\n{}",
            table(0, &["2021-01-01T00:00:10Z", "2021-01-01T00:00:20Z"]),
            table(1, &["2021-01-01T00:00:30Z"])
        ),
    )
    .unwrap();
    let (_, err) = ok(xs(d).args(["-d", "tables", "import", "tables.csv"]));
    assert!(err.contains("3 rows read, 3 stored, 0 rejected"), "{err}");
    assert!(err.contains("3 comment line(s) (`#`) skipped"), "{err}");
    assert!(err.contains("1 line(s) repeating the header skipped"), "{err}");
    assert_eq!(
        range(d, "tables"),
        "_time,result,table\n2021-01-01T00:00:10Z,,0\n2021-01-01T00:00:20Z,,0\n\
         2021-01-01T00:00:30Z,,1\n"
    );
    // Under a leading comment, rows whose first field starts with `#` (hashtags, `#1`) are
    // data: stored, or rejected with their reason; only a line that starts as a leading
    // comment did is one again.
    fs::write(
        d.join("tags.csv"),
        "# exported by tool\ntag,time,v\nplain,2021-01-01T00:00:00Z,1\n#go,2021-01-01T00:00:01Z,2.5\n\
         #zig,2021-01-01T0x:00:02Z,3.5\n# exported by tool\n# another remark\n",
    )
    .unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "tags", "import", "tags.csv"]));
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("v:dec(1)"), "{err}");
    assert!(err.contains("4 rows read, 2 stored, 2 rejected"), "{err}");
    assert!(err.contains("1 comment line(s) (`#`) skipped"), "{err}");
    assert_eq!(
        range(d, "tags"),
        "time,tag,v\n2021-01-01T00:00:00Z,plain,1.0\n2021-01-01T00:00:01Z,#go,2.5\n"
    );
    // A header that starts with `#` under a comment: the comment alone is skipped.
    fs::write(
        d.join("hashhdr.csv"),
        "# exported by logger v2\n#time,value\n2021-01-01T00:00:00Z,1.5\n2021-01-01T00:00:01Z,1.25\n",
    )
    .unwrap();
    let (_, err) = ok(xs(d).args(["-d", "hashhdr", "import", "hashhdr.csv"]));
    assert!(err.contains("skipped 1 line(s) before the header"), "{err}");
    assert_eq!(
        range(d, "hashhdr"),
        "time,value\n2021-01-01T00:00:00Z,1.50\n2021-01-01T00:00:01Z,1.25\n"
    );
    // A lone `#` is a column's name, not a comment.
    fs::write(
        d.join("hash.csv"),
        "#,time,price\n1,2021-01-01T00:00:00Z,1.5\n2,2021-01-01T00:00:01Z,1.6\n",
    )
    .unwrap();
    ok(xs(d).args(["-d", "hash", "import", "hash.csv"]));
    assert_eq!(
        range(d, "hash"),
        "time,column_1,price\n2021-01-01T00:00:00Z,1,1.5\n2021-01-01T00:00:01Z,2,1.6\n"
    );
    // FRED writes a missing value as `.`, other sources as `-`: null in a numeric column,
    // text in a text column.
    fs::write(
        d.join("fred.csv"),
        "DATE,DGS10,vol,note\n2021-01-01,.,-,-\n2021-01-04,0.93,-5,.\n2021-01-05,0.96,7,x\n",
    )
    .unwrap();
    let (_, err) = ok(xs(d).args(["-d", "fred", "import", "fred.csv"]));
    assert!(err.contains("column `DGS10`: `.` read as null"), "{err}");
    assert!(err.contains("column `vol`: `-` read as null"), "{err}");
    assert_eq!(
        range(d, "fred"),
        "DATE,DGS10,vol,note\n2021-01-01T00:00:00Z,,,-\n2021-01-04T00:00:00Z,0.93,-5,.\n\
         2021-01-05T00:00:00Z,0.96,7,x\n"
    );
    // A column of dashes alone (a web log's missing user) is text, and keeps its dashes.
    fs::write(
        d.join("log.csv"),
        "time,user,bytes\n2021-01-01T00:00:00Z,-,512\n2021-01-01T00:00:01Z,-,-\n",
    )
    .unwrap();
    let (_, err) = ok(xs(d).args(["-d", "log", "import", "log.csv"]));
    assert!(err.contains("user:str("), "{err}");
    assert!(err.contains("column `bytes`: `-` read as null"), "{err}");
    fs::write(d.join("log2.csv"), "time,user,bytes\n2021-01-01T00:00:02Z,al,7\n").unwrap();
    ok(xs(d).args(["-d", "log", "import", "log2.csv"]));
    assert_eq!(
        range(d, "log"),
        "time,user,bytes\n2021-01-01T00:00:00Z,-,512\n2021-01-01T00:00:01Z,-,\n\
         2021-01-01T00:00:02Z,al,7\n"
    );
}

#[test]
fn a_header_repeated_by_files_joined_into_one_is_skipped_and_said() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // `cat day1.csv day2.csv`: the second header is not data, and does not type the columns.
    let day = |date: &str, quoted: bool| {
        let header = if quoted {
            "\"time\",\"price\""
        } else {
            "time,price"
        };
        format!("{header}\n{date}T00:00:00Z,1.5\n{date}T00:00:01Z,1.25\n")
    };
    // The third file brings its own byte-order mark, as Excel writes them.
    let joined = format!(
        "{}{}\u{feff}{}",
        day("2021-01-01", false),
        day("2021-01-02", false),
        day("2021-01-03", false)
    );
    fs::write(d.join("joined.csv"), joined).unwrap();
    let (_, err) = ok(xs(d).args(["-d", "j", "import", "joined.csv"]));
    assert!(err.contains("price:dec(2)"), "{err}");
    assert!(err.contains("6 rows read, 6 stored, 0 rejected"), "{err}");
    assert!(err.contains("2 line(s) repeating the header skipped"), "{err}");
    assert_eq!(range(d, "j").lines().count(), 7);
    // Quoted, into the existing database; a row that only resembles the header is rejected.
    let quoted = format!("{}{}", day("2021-01-04", true), day("2021-01-05", true));
    fs::write(d.join("quoted.csv"), format!("{quoted}time,prices\n")).unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "j", "import", "quoted.csv"]));
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("5 rows read, 4 stored, 1 rejected"), "{err}");
    assert!(err.contains("1 line(s) repeating the header skipped"), "{err}");
    assert_eq!(range(d, "j").lines().count(), 11);
    // Without a header, a record of blanks repeats nothing: it is not data either way, and is
    // skipped as a blank line.
    fs::write(
        d.join("nohdr.csv"),
        "2021-02-01T00:00:00Z,1.5\n , \n2021-02-01T00:00:01Z,1.5\n",
    )
    .unwrap();
    let (code, _, err) = run(xs(d).args([
        "-d",
        "j",
        "import",
        "--no-header",
        "--columns",
        "time,price",
        "nohdr.csv",
    ]));
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("2 rows read, 2 stored, 0 rejected"), "{err}");
    assert!(!err.contains("repeating the header"), "{err}");
}

#[test]
fn lines_ending_in_a_carriage_return_alone() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // Excel's "CSV (Macintosh)": every line ends in `\r`, none in `\n`.
    fs::write(
        d.join("mac.csv"),
        "time,note,v\r2021-01-01T00:00:00Z,\"a, b\",1\r2021-01-01T0x:00:01Z,c,2\r2021-01-01T00:00:02Z,d,3\r",
    )
    .unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "mac", "import", "--max-rejects", "0", "mac.csv"]));
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("lines end in a carriage return alone"), "{err}");
    assert!(err.contains("3 rows read, 2 stored, 1 rejected"), "{err}");
    assert_eq!(
        range(d, "mac"),
        "time,note,v\n2021-01-01T00:00:00Z,\"a, b\",1\n2021-01-01T00:00:02Z,d,3\n"
    );
    // The reject names the physical line it was on.
    let rejects = fs::read_dir(d.join("mac"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("rejects-"))
        .expect("rejects file");
    let rejects = fs::read_to_string(rejects).unwrap();
    assert!(rejects.contains("\"mac.csv\",3,"), "{rejects}");
    // A cell's line break (Excel writes an LF) does not hide the CR line ends; a CR inside
    // quotes is read as a line break.
    fs::write(
        d.join("mac2.csv"),
        "time,note,v\r2021-01-01T00:00:00Z,\"two\nlines\",1\r2021-01-01T00:00:01Z,\"c\rd\",2\r",
    )
    .unwrap();
    let (_, err) = ok(xs(d).args(["-d", "mac2", "import", "mac2.csv"]));
    assert!(err.contains("lines end in a carriage return alone"), "{err}");
    assert_eq!(
        range(d, "mac2"),
        "time,note,v\n2021-01-01T00:00:00Z,\"two\nlines\",1\n2021-01-01T00:00:01Z,\"c\nd\",2\n"
    );
}

#[test]
fn interval_times_are_stored_at_their_start() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // ENTSO-E's day-ahead prices: `START - END` in local time, `n/e` for "not expected".
    fixture(d, "entsoe_day_ahead.csv");
    let (_, err) = ok(xs(d).args([
        "-d",
        "prices",
        "import",
        "entsoe_day_ahead.csv",
        "--timezone",
        "Europe/Brussels",
    ]));
    assert!(
        err.contains("intervals `START - END`, stored at their start: dates read as day/month/year"),
        "{err}"
    );
    assert!(err.contains("`n/e` read as null"), "{err}");
    let stored = range(d, "prices");
    let lines: Vec<&str> = stored.lines().collect();
    assert_eq!(lines.len(), 11, "{stored}");
    assert_eq!(
        lines[0],
        "mtu_cet_cest,day_ahead_price_eur_mwh,Currency,bzn_de_lu"
    );
    // 20:00 in Brussels in January is 19:00 UTC.
    assert_eq!(lines[1], "2020-01-12T19:00:00Z,41.88,EUR,");
    assert_eq!(lines[4], "2020-01-12T22:00:00Z,,EUR,");
    assert_eq!(lines[5], "2020-01-12T23:00:00Z,,EUR,");
    assert_eq!(lines[10], "2020-01-13T04:00:00Z,35.10,EUR,");
    assert!(!err.contains("warning"), "{err}");
    // Without a zone the times are read as UTC, and the column's name (CET/CEST) earns a
    // warning that `-q` does not silence: it needs action.
    let (_, err) = ok(xs(d).args(["-d", "utc", "import", "-q", "entsoe_day_ahead.csv"]));
    assert!(
        err.contains("warning: times without a zone were read as UTC, but the time column's name `mtu_cet_cest` says CET/CEST"),
        "{err}"
    );
    assert!(range(d, "utc").contains("\n2020-01-12T20:00:00Z,41.88,EUR,\n"));
    let (_, err) = ok(xs(d).args([
        "-d",
        "utc2",
        "import",
        "-q",
        "entsoe_day_ahead.csv",
        "--timezone",
        "UTC",
    ]));
    assert_eq!(err, "");

    // ISO 8601's `START/END`, and an interval that ends before it starts: rejected with its
    // reason, never stored at either end.
    fs::write(
        d.join("iso.csv"),
        "period,mwh\n2020-01-01T00:00Z/2020-01-01T01:00Z,5\n2020-01-01T01:00Z/2020-01-01T02:00Z,6\n\
         2020-01-01T03:00Z/2020-01-01T02:00Z,7\n2020-01-01T03:00Z/2020-01-01T04:00Z,8\n",
    )
    .unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "iso", "import", "iso.csv"]));
    assert_eq!(code, 4, "{err}");
    let rejects = fs::read_dir(d.join("iso"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("rejects-"))
        .expect("rejects file");
    let rejects = fs::read_to_string(rejects).unwrap();
    assert!(rejects.contains("\"iso.csv\",4,"), "{rejects}");
    assert!(
        rejects.contains("the interval ends before it starts"),
        "{rejects}"
    );
    assert_eq!(
        range(d, "iso"),
        "period,mwh\n2020-01-01T00:00:00Z,5\n2020-01-01T01:00:00Z,6\n2020-01-01T03:00:00Z,8\n"
    );
}

#[test]
fn question_marks_are_null_beside_numbers() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // UCI's household power file: `;`, date and time apart, `?` for a missing reading.
    fixture(d, "household_power.txt");
    let (_, err) = ok(xs(d).args(["-d", "power", "import", "household_power.txt"]));
    assert!(err.contains("column `Voltage`: `?` read as null"), "{err}");
    assert_eq!(
        range(d, "power"),
        "Date_Time,Global_active_power,Global_reactive_power,Voltage,Global_intensity,\
         Sub_metering_1,Sub_metering_2,Sub_metering_3\n\
         2007-04-28T00:20:00Z,0.242,0.000,242.990,1.000,0.000,0.000,0.000\n\
         2007-04-28T00:21:00Z,,,,,,,\n2007-04-28T00:22:00Z,,,,,,,\n\
         2007-04-28T00:23:00Z,0.240,0.000,243.120,1.000,0.000,0.000,1.000\n"
    );
    // A column of question marks and words is text, and keeps them.
    fs::write(
        d.join("q.csv"),
        "time,answer\n2021-01-01T00:00:00Z,?\n2021-01-01T00:00:01Z,yes\n",
    )
    .unwrap();
    ok(xs(d).args(["-d", "q", "import", "q.csv"]));
    assert_eq!(
        range(d, "q"),
        "time,answer\n2021-01-01T00:00:00Z,?\n2021-01-01T00:00:01Z,yes\n"
    );
}

#[test]
fn times_as_go_kibana_java_and_db2_write_them() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let cases = [
        // Kibana's CSV export (the date holds a comma, so it is quoted).
        (
            "kibana",
            "\"Jan 1, 2021 @ 00:00:00.000\"",
            "\"Jan 1, 2021 @ 00:00:01.500\"",
        ),
        // Go's time.Time printed: the offset, then the zone's abbreviation.
        (
            "go",
            "2020-12-31 19:00:00 -0500 EST",
            "2021-01-01 00:00:01.5 +0000 UTC",
        ),
        // RFC 9557 and Java's ZonedDateTime: the offset, then the zone in brackets.
        (
            "java",
            "2021-01-01T01:00:00+01:00[Europe/Paris]",
            "2021-01-01T01:00:01.5+01:00[Europe/Paris]",
        ),
        // DB2's timestamps.
        ("db2", "2021-01-01-00.00.00.000000", "2021-01-01-00.00.01.500000"),
    ];
    for (name, first, second) in cases {
        fs::write(
            d.join(format!("{name}.csv")),
            format!("time,v\n{first},1\n{second},2\n"),
        )
        .unwrap();
        ok(xs(d).args(["-d", name, "import", "-q", &format!("{name}.csv")]));
        let stored = range(d, name);
        let times: Vec<&str> = stored
            .lines()
            .skip(1)
            .map(|l| l.split(',').next().unwrap())
            .collect();
        assert_eq!(times.len(), 2, "{name}: {stored}");
        assert!(times[0].starts_with("2021-01-01T00:00:00"), "{name}: {stored}");
        assert!(times[1].starts_with("2021-01-01T00:00:01.5"), "{name}: {stored}");
    }
}

/// Kaggle's per-ticker daily files: each holds one symbol in a `Name` column. A database made
/// from the first keeps each file's rows apart by that column, so the second ticker's file,
/// at the same dates, adds its rows instead of replacing the first's (issue 13's first case).
#[test]
fn per_ticker_files_keep_every_ticker() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let aapl = fixture(d, "kaggle_stocks_AAPL.csv");
    let msft = fixture(d, "kaggle_stocks_MSFT.csv");
    let (_, err) = ok(xs(d).args(["-d", "s", "import"]).arg(&aapl));
    assert!(err.contains("series key `Name` (guessed)"), "{err}");
    let (_, err) = ok(xs(d).args(["-d", "s", "import"]).arg(&msft));
    assert!(!err.contains("replaced"), "{err}");
    let out = range(d, "s");
    assert_eq!(out.lines().count(), 7, "{out}");
    assert!(
        out.contains("2013-02-08T00:00:00Z,67.7142,68.4014,66.8928,67.8542,158168416,AAPL"),
        "{out}"
    );
    assert!(
        out.contains("2013-02-12T00:00:00Z,27.8800,28.0000,27.7500,27.8800,35990829,MSFT"),
        "{out}"
    );
}

/// Clock digits without separators (`93000500` is 09:30:00.500, China's CTP ticks; `93000`
/// is 09:30:00) are times of day on the file name's date, never epoch numbers of 1972.
#[test]
fn clock_digits_are_times_of_day() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let input = fixture(d, "ctp_hhmmssmmm_20210104.csv");
    let (_, err) = ok(xs(d).args(["-d", "c", "import"]).arg(&input));
    assert!(err.contains("clock times written HHMMSSmmm"), "{err}");
    let out = range(d, "c");
    assert!(out.contains("2021-01-04T09:30:00.500Z,10.5,100"), "{out}");
    assert!(out.contains("2021-01-04T14:59:59.999Z,10.2,10"), "{out}");
    let input = fixture(d, "clock_hhmmss_20210104.csv");
    ok(xs(d).args(["-d", "h", "import"]).arg(&input));
    let out = range(d, "h");
    assert!(
        out.contains("2021-01-04T09:30:00Z,10.5") && out.contains("2021-01-04T14:59:59Z,10.2"),
        "{out}"
    );
    // 34200 could be 03:42:00 or 34,200 s after midnight (09:30): three values cannot tell.
    let input = fixture(d, "clock_or_seconds_20210105.csv");
    let (code, _, err) = run(xs(d).args(["-d", "a", "import"]).arg(&input));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--time-format hhmmss") && err.contains("--time-unit s"),
        "{err}"
    );
    assert!(!d.join("a").join("xs.toml").exists());
    ok(xs(d).args(["-d", "a", "import", "--time-unit", "s"]).arg(&input));
    assert!(range(d, "a").contains("2021-01-05T09:30:00Z,10.5"));
    ok(xs(d)
        .args(["-d", "b", "import", "--time-format", "hhmmss"])
        .arg(&input));
    assert!(range(d, "b").contains("2021-01-05T03:42:00Z,10.5"));
}

/// `YYYYMMDDHHMM` and `YYYYMMDDHH` written as one number are date-times, not epoch
/// milliseconds of 1976 or seconds of 2034; a pattern with an hour and no minute keeps its hour.
#[test]
fn compact_date_times_are_not_epoch_numbers() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let input = fixture(d, "compact_yyyymmddhhmm.csv");
    let (_, err) = ok(xs(d).args(["-d", "m", "import"]).arg(&input));
    assert!(err.contains("date-times written YYYYMMDDHHMM"), "{err}");
    let out = range(d, "m");
    assert!(
        out.contains("2021-01-01T12:30:00Z,1.5") && out.contains("2021-01-01T12:45:00Z,3.5"),
        "{out}"
    );
    let input = fixture(d, "compact_yyyymmddhh.csv");
    ok(xs(d).args(["-d", "h", "import"]).arg(&input));
    let out = range(d, "h");
    assert!(
        out.contains("2021-01-01T06:00:00Z,2") && out.contains("2021-01-01T12:00:00Z,3"),
        "{out}"
    );
    ok(xs(d)
        .args(["-d", "p", "import", "--time-format", "%Y%m%d%H"])
        .arg(&input));
    assert!(range(d, "p").contains("2021-01-01T12:00:00Z,3"));
}

/// A column of row numbers is not seconds since midnight, even with a date in the file name,
/// and a `Date` column of spreadsheet serial numbers is not either: both are refused.
#[test]
fn ids_and_serial_dates_are_not_times_of_day() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let input = fixture(d, "orders_20210105.csv");
    let (code, _, err) = run(xs(d).args(["-d", "o", "import"]).arg(&input));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("found no column whose values read as times"),
        "{err}"
    );
    let input = fixture(d, "excel_serial_dates.csv");
    let (code, _, err) = run(xs(d).args(["-d", "e", "import"]).arg(&input));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("column `Date` holds numbers such as 44197")
            && err.contains("serial dates")
            && err.contains("--time-format excel"),
        "{err}"
    );
    // As the refusal says: serial days, with a time of day in their fraction too.
    ok(xs(d)
        .args(["-d", "e", "import", "-q", "--time-format", "excel"])
        .arg(&input));
    assert_eq!(
        range(d, "e"),
        "Date,Close\n2021-01-01T00:00:00Z,100.50\n2021-01-02T00:00:00Z,101.00\n\
         2021-01-03T00:00:00Z,99.25\n"
    );
    let input = d.join("serial_times.csv");
    fs::write(
        &input,
        "when,v\n44197.0416666667,1\n44197.0833333333,2\n44197.125,3\n",
    )
    .unwrap();
    ok(xs(d)
        .args(["-d", "s", "import", "-q", "--time-format", "excel"])
        .arg(&input));
    assert_eq!(
        range(d, "s"),
        "when,v\n2021-01-01T01:00:00Z,1\n2021-01-01T02:00:00Z,2\n2021-01-01T03:00:00Z,3\n"
    );
}

/// Of a `date` column and a `timestamp` (`event_time`, `ts_ms`) column, the time is the one
/// with the time of day; a `Time` column of `HHMM` digits beside a date joins it.
#[test]
fn the_time_column_is_the_one_with_the_time_of_day() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let input = fixture(d, "date_and_timestamp.csv");
    let (_, err) = ok(xs(d).args(["-d", "s", "import"]).arg(&input));
    assert!(err.contains("time column `timestamp`"), "{err}");
    let out = range(d, "s");
    assert!(out.contains("2021-01-04T09:31:00.456Z,2021-01-04,10.6"), "{out}");
    // Regression: a `date` came before any other name but an exact one, and every row of
    // the day was stored at its midnight (exit 0) beside an `event_time` or a `ts_ms`.
    for (db, name, column, rows) in [
        (
            "e",
            "date_and_event_time.csv",
            "event_time",
            "time,date,symbol,px\n\
             2024-03-08T14:31:00.123Z,2024-03-08,ES,5101.25\n\
             2024-03-08T14:32:00.456Z,2024-03-08,ES,5102.25\n\
             2024-03-08T14:32:00.456Z,2024-03-08,NQ,18101.50\n\
             2024-03-08T14:33:00.789Z,2024-03-08,ES,5103.25\n",
        ),
        (
            "m",
            "date_and_epoch_ms.csv",
            "ts_ms",
            "time,date,symbol,px\n\
             2024-03-08T14:00:01.123Z,20240308,ES,5100.25\n\
             2024-03-08T14:00:01.456Z,20240308,ES,5100.50\n\
             2024-03-08T14:00:01.456Z,20240308,NQ,18100.25\n\
             2024-03-08T14:01:02.789Z,20240308,ES,5100.75\n",
        ),
    ] {
        let input = fixture(d, name);
        let (_, err) = ok(xs(d).args(["-d", db, "import"]).arg(&input));
        assert!(err.contains(&format!("time column `{column}`")), "{err}");
        let out = range(d, db).replacen(column, "time", 1);
        assert_eq!(out, rows);
    }
    let input = fixture(d, "date_hhmm_columns.csv");
    let (_, err) = ok(xs(d).args(["-d", "j", "import"]).arg(&input));
    assert!(err.contains("time from columns `Date`+`Time` joined"), "{err}");
    let out = range(d, "j");
    assert!(
        out.contains("2021-01-04T09:30:00Z,100.5,101.0") && out.contains("2021-01-04T16:00:00Z,102.0,102.5"),
        "{out}"
    );
}

/// A tab-separated file whose prices have a decimal point groups thousands with commas: no
/// decimal comma, so `143,301` is never 143.301; it is 143301 (it was kept as text, so a
/// volume could not be summed). In a `;` file of decimal commas, a dot groups
/// thousands (`1.234` is 1234), and a text column keeps its commas.
#[test]
fn thousands_separators_are_not_decimal_commas() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let input = fixture(d, "us_thousands.tsv");
    let (_, err) = ok(xs(d).args(["-d", "u", "import"]).arg(&input));
    assert!(!err.contains("decimal comma"), "{err}");
    let out = range(d, "u");
    assert!(
        err.contains("numbers with thousands grouped by `,` (detected"),
        "{err}"
    );
    assert!(out.contains("2021-01-04T00:00:00Z,129.41,143301\n"), "{out}");
    assert!(!out.contains("143.301"), "{out}");
    let input = fixture(d, "de_thousands_dot.csv");
    let (_, err) = ok(xs(d).args(["-d", "g", "import"]).arg(&input));
    assert!(err.contains("decimal comma"), "{err}");
    let out = range(d, "g");
    // The sample reads `1.234` as the import does (1234, no decimals), so `Wert` takes the two
    // decimals of `2,25` and `12.345,67`, which a German `1.234,56` no longer turns into text.
    assert!(out.contains("2021-01-01T00:00:00Z,1.50,\"a,b\""), "{out}");
    assert!(out.contains("2021-01-03T00:00:00Z,1234.00,\"999,99\""), "{out}");
    assert!(out.contains("2021-01-05T00:00:00Z,12345.67,e"), "{out}");
}

/// A German export whose every amount is a thousand or more (`1.234,56`): no plain `2,5` showed
/// the decimal comma, so the amounts stayed text and a quantity of `12.000` was stored as
/// twelve, a thousandth of it, exit 0.
#[test]
fn a_number_with_both_marks_shows_the_decimal_comma_and_the_dots_group_thousands() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let text = "Datum;Wert;Menge\n01.02.2024 10:00;1.234,56;1.000\n02.02.2024 10:00;2.345,67;2.500\n\
                03.02.2024 10:00;3.456,78;12.000\n";
    fs::write(d.join("de.csv"), text).unwrap();
    let (_, err) = ok(xs(d).args(["-d", "g", "import", "de.csv"]));
    assert!(err.contains("decimal comma"), "{err}");
    let out = range(d, "g");
    assert!(out.contains("2024-02-01T10:00:00Z,1234.56,1000\n"), "{out}");
    assert!(out.contains("2024-02-03T10:00:00Z,3456.78,12000\n"), "{out}");
    // The other way round (`1,234.56`, with `;` between fields): no decimal comma; commas
    // group thousands, so `1,000` is a thousand, never one.
    let text = "date;amount;qty\n2024-01-01;1,234.56;1,000\n2024-01-02;2,345.67;2,500\n";
    fs::write(d.join("en.csv"), text).unwrap();
    let (_, err) = ok(xs(d).args(["-d", "e", "import", "en.csv"]));
    assert!(!err.contains("decimal comma"), "{err}");
    let out = range(d, "e");
    assert!(out.contains("2024-01-01T00:00:00Z,1234.56,1000\n"), "{out}");
}

/// A `;` file whose numbers are only `1.736`, `736`, `12.500`: nothing tells whether the point
/// groups thousands (a German export of whole quantities) or is a decimal point. Read as
/// decimals, as before, but said with a warning that names --decimal-comma, also under -q when
/// the import creates the database (a later -q import into it is not told again).
#[test]
fn numbers_that_may_group_thousands_with_a_point_are_warned_of() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let text = "Datum;Menge;Preis\n2021-01-01 00:00:00;1.736;12\n2021-01-01 00:00:01;736;13\n\
                2021-01-01 00:00:02;12.500;14\n";
    fs::write(d.join("de.csv"), text).unwrap();
    let (_, err) = ok(xs(d).args(["-d", "g", "import", "-q", "de.csv"]));
    assert!(
        err.contains("xs: warning: de.csv: numbers such as `1.736`, `12.500` are read as decimals (1.736)")
            && err.contains("groups thousands instead (1736)")
            && err.contains("pass --decimal-comma"),
        "{err}"
    );
    assert!(range(d, "g").contains("2021-01-01T00:00:00Z,1.736,12\n"));
    let (_, err) = ok(xs(d).args(["-d", "g", "import", "-q", "de.csv"]));
    assert!(err.is_empty(), "{err}");
    // The flag settles it: the points group thousands.
    let (_, err) = ok(xs(d).args(["-d", "k", "import", "-q", "--decimal-comma", "de.csv"]));
    assert!(err.is_empty(), "{err}");
    let out = range(d, "k");
    assert!(
        out.contains("2021-01-01T00:00:00Z,1736,12\n") && out.contains("12500,14"),
        "{out}"
    );
    // A number that tells the mark (`0.5`, `2.25`) leaves no doubt: no warning.
    let text = "Datum;Menge\n2021-01-01 00:00:00;1.736\n2021-01-01 00:00:01;2.25\n";
    fs::write(d.join("told.csv"), text).unwrap();
    let (_, err) = ok(xs(d).args(["-d", "p", "import", "-q", "told.csv"]));
    assert!(err.is_empty(), "{err}");
}

/// Chinese futures feeds write a trading day and the time as digits with its milliseconds
/// (`20240102,093000123`): the date alone was taken for the time, every row of a day stored
/// at its midnight, exit 0.
#[test]
fn a_date_beside_clock_digits_with_milliseconds_is_joined_not_stored_at_midnight() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    for (name, clocks, times) in [
        (
            "ms",
            ["093000123", "093001000", "160000000"],
            ["09:30:00.123", "09:30:01.000", "16:00:00.000"],
        ),
        (
            "s",
            ["093000", "093001", "160000"],
            ["09:30:00", "09:30:01", "16:00:00"],
        ),
    ] {
        let mut text = String::from("date,time,sym,px\n");
        for (k, clock) in clocks.iter().enumerate() {
            text.push_str(&format!("20240102,{clock},AAA,1.{k}\n"));
        }
        fs::write(d.join("f.csv"), text).unwrap();
        let (_, err) = ok(xs(d).args(["-d", name, "import", "f.csv"]));
        assert!(err.contains("time column `date_time`"), "{err}");
        let out = range(d, name);
        for (k, time) in times.iter().enumerate() {
            assert!(out.contains(&format!("2024-01-02T{time}Z,AAA,1.{k}\n")), "{out}");
        }
    }
    // Wind's ticks write the hour without its zero (`93000500`), which no clock beside a date
    // reads: the date alone was the time, every row at midnight, exit 0. Refused, saying how
    // to join them or to take the midnights knowingly.
    let text = "date,time,sym,px\n20240102,93000500,AAA,1.5\n20240102,93001000,AAA,1.6\n\
                20240102,145959000,AAA,1.7\n";
    fs::write(d.join("w.csv"), text).unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "w", "import", "w.csv"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--time-column date,time"), "{err}");
    assert!(
        err.contains("--time-column date to store each row at its day's midnight"),
        "{err}"
    );
    assert!(!d.join("w").join("xs.toml").exists());
    let (_, err) = ok(xs(d).args(["-d", "w", "import", "w.csv", "--time-column", "date"]));
    assert!(err.contains("3 stored"), "{err}");
}

/// NYSE TAQ's daily trade files: `|` between fields, the time as `HHMMSS` and nine digits of
/// nanoseconds (Eastern time, so the zone is a flag), rows sorted by symbol from 04:00 to 20:00,
/// and an `END` line last. The clock digits were refused ("read in no format xs knows").
#[test]
fn taq_clock_digits_with_nanoseconds_sorted_by_symbol_are_read() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let text = "Time|Exchange|Symbol|Sale Condition|Trade Volume|Trade Price\n\
                040000012345678|P|AAPL|@ T|100|185.10\n\
                093000123456789|Q|AAPL|@   |200|185.20\n\
                195959999999999|P|AAPL|@ T|50|185.30\n\
                040000500000000|P|MSFT|@ T|10|370.10\n\
                193000000000000|Q|MSFT|@   |20|370.20\n\
                END|||||\n";
    fs::write(d.join("EQY_US_ALL_TRADE_20240102.txt"), text).unwrap();
    let (code, _, err) = run(xs(d)
        .args(["-d", "taq", "import", "EQY_US_ALL_TRADE_20240102.txt"])
        .args(["--timezone", "America/New_York"]));
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("clock times written HHMMSSfffffffff"), "{err}");
    assert!(err.contains("6 rows read, 5 stored, 1 rejected"), "{err}");
    assert!(rejects_of(d, "taq").contains("`END`"), "{}", rejects_of(d, "taq"));
    let out = range(d, "taq");
    for row in [
        "2024-01-02T09:00:00.012345678Z,P,AAPL,@ T,100,185.10",
        "2024-01-02T14:30:00.123456789Z,Q,AAPL,@   ,200,185.20",
        "2024-01-03T00:59:59.999999999Z,P,AAPL,@ T,50,185.30",
        "2024-01-02T09:00:00.500000000Z,P,MSFT,@ T,10,370.10",
    ] {
        assert!(out.contains(row), "{row}: {out}");
    }
}

#[test]
fn a_directory_holding_a_file_and_its_compressed_copy_is_refused() {
    // `m.csv` and `m.csv.gz` side by side: imported as one input, every row stored twice.
    let t = TempDir::new().unwrap();
    let d = t.path();
    fs::create_dir(d.join("in")).unwrap();
    let text = "time,v\n2024-01-01T00:00:00Z,1\n";
    fs::write(d.join("in/m.csv"), text).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, text.as_bytes()).unwrap();
    fs::write(d.join("in/m.csv.gz"), gz.finish().unwrap()).unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "m", "import", "in"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("look like the same file compressed and not"),
        "{err}"
    );
    assert!(!d.join("m").join("xs.toml").exists());
}

#[test]
fn an_input_given_twice_in_one_command_is_refused_not_stored_twice() {
    // One import adds a later file's rows at a stored time to the rows there (split files),
    // so `xs import a.csv a.csv` stored every row twice, exit 0.
    let t = TempDir::new().unwrap();
    let d = t.path();
    let text = "time,v\n2024-01-01T00:00:00Z,1\n2024-01-01T00:01:00Z,2\n";
    fs::write(d.join("a.csv"), text).unwrap();
    fs::write(d.join("copy.csv"), text).unwrap();
    fs::write(d.join("a_20240101.csv"), text).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, text.as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    fs::write(d.join("a.csv.gz"), &gz).unwrap();
    // The same rows compressed under other names, and compressed again (other bytes): each
    // pair stored every row twice, exit 0, found by a sweep of vendor-style files.
    fs::write(d.join("twin.csv.gz"), &gz).unwrap();
    fs::write(d.join("hourly_copy.gz"), &gz).unwrap();
    fs::write(
        d.join("again.csv.zst"),
        zstd::encode_all(text.as_bytes(), 3).unwrap(),
    )
    .unwrap();
    fs::create_dir(d.join("in")).unwrap();
    fs::write(d.join("in/b.csv"), "time,v\n2024-01-02T00:00:00Z,3\n").unwrap();
    for (args, why) in [
        (&["a.csv", "a.csv"][..], "are the same file"),
        (&["a.csv", "./a.csv"][..], "are the same file"),
        (&["in", "in/b.csv"][..], "are the same file"),
        (
            &["a.csv", "a.csv.gz"][..],
            "look like the same file compressed and not",
        ),
        (&["a.csv", "copy.csv"][..], "hold the same bytes"),
        (&["a.csv", "a_20240101.csv"][..], "hold the same bytes"),
        (
            &["a.csv.gz", "twin.csv.gz"][..],
            "hold the same rows, compressed or not",
        ),
        (
            &["copy.csv", "hourly_copy.gz"][..],
            "hold the same rows, compressed or not",
        ),
        (
            &["twin.csv.gz", "again.csv.zst"][..],
            "hold the same rows, compressed or not",
        ),
    ] {
        let (code, _, err) = run(xs(d).args(["-d", "m", "import"]).args(args));
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains(why) && err.contains("store each row twice"),
            "{args:?}: {err}"
        );
        assert!(!d.join("m").join("xs.toml").exists(), "{args:?}");
    }
    // Into an existing database too; files that merely share a size or a name elsewhere import.
    ok(xs(d).args(["-d", "m", "import", "-q", "a.csv"]));
    let (code, _, err) = run(xs(d).args(["-d", "m", "import", "a.csv", "copy.csv"]));
    assert_eq!(code, 2, "{err}");
    fs::write(
        d.join("c.csv"),
        "time,v\n2024-01-01T00:02:00Z,3\n2024-01-01T00:03:00Z,4\n",
    )
    .unwrap();
    fs::create_dir(d.join("other")).unwrap();
    fs::write(d.join("other/a.csv.gz"), "time,v\n2024-01-01T00:04:00Z,5\n").unwrap();
    ok(xs(d).args(["-d", "m", "import", "-q", "a.csv", "c.csv", "other/a.csv.gz"]));
    // Files of a header alone (hours without trades) share their bytes and store nothing
    // twice: found by the model test, which had them refused.
    fs::write(d.join("h1.csv"), "time,v\n").unwrap();
    fs::write(d.join("h2.csv"), "time,v\n").unwrap();
    ok(xs(d).args(["-d", "m", "import", "-q", "h1.csv", "h2.csv", "c.csv"]));
    assert_eq!(
        range(d, "m"),
        "time,v\n2024-01-01T00:00:00Z,1\n2024-01-01T00:01:00Z,2\n2024-01-01T00:02:00Z,3\n\
         2024-01-01T00:03:00Z,4\n2024-01-01T00:04:00Z,5\n"
    );
}

/// A directory's files that an import of it leaves out (other extensions) are named in a
/// warning, even with -q: they were passed over unsaid. Hidden files are left out unsaid:
/// a macOS `._data.csv` (binary) failed the whole import.
#[test]
fn files_a_directory_import_leaves_out_are_named() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    fs::create_dir(d.join("in")).unwrap();
    fs::write(d.join("in/a.csv"), "time,v\n2024-01-01T00:00:00Z,1\n").unwrap();
    fs::write(d.join("in/b.TSV"), "time\tv\n2024-01-01T00:01:00Z\t2\n").unwrap();
    fs::write(d.join("in/c.txt"), "time,v\n2024-01-01T00:02:00Z,3\n").unwrap();
    fs::write(d.join("in/._a.csv"), b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X").unwrap();
    let (_, err) = ok(xs(d).args(["-d", "m", "import", "-q", "in"]));
    assert!(
        err.contains("1 file(s) in the directories given are not imported")
            && err.contains(": in/c.txt;")
            && err.contains("name a file to import it whatever its name"),
        "{err}"
    );
    assert_eq!(
        range(d, "m"),
        "time,v\n2024-01-01T00:00:00Z,1\n2024-01-01T00:01:00Z,2\n"
    );
    fs::remove_file(d.join("in/a.csv")).unwrap();
    fs::remove_file(d.join("in/b.TSV")).unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "m", "import", "in"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("holds no .csv or .tsv files"), "{err}");
}

#[test]
fn epoch_numbers_of_another_magnitude_are_refused_not_read_in_1970() {
    // Binance switched its files from milliseconds to microseconds; a command with a
    // milliseconds file and a seconds file read the seconds as milliseconds: 1970-01-20.
    let t = TempDir::new().unwrap();
    let d = t.path();
    fs::write(
        d.join("ms.csv"),
        "time,sym,v\n1717200000000,b,1\n1717200001000,b,2\n",
    )
    .unwrap();
    fs::write(d.join("s.csv"), "time,sym,v\n1717200000,a,1\n").unwrap();
    // A whole file of seconds is read in its own unit (each input's times as written).
    let (code, _, err) = run(xs(d).args(["-d", "e", "import", "ms.csv", "s.csv"]));
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("s.csv: times read as epoch numbers read as seconds"),
        "{err}"
    );
    assert!(range(d, "e").contains("2024-06-01T00:00:00.000Z"));
    // One row of seconds among milliseconds is that row's problem: refused, never 1970.
    let mut mixed = String::from("time,sym,v\n");
    for i in 2..11 {
        mixed.push_str(&format!("17172000{i:02}000,b,{i}\n"));
    }
    mixed.push_str("1717200011,b,11\n");
    fs::write(d.join("mixed.csv"), mixed).unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "e", "import", "ms.csv", "mixed.csv"]));
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("12 rows read, 11 stored, 1 rejected"), "{err}");
    assert!(rejects_of(d, "e").contains("another magnitude than the milliseconds"));
    assert!(!range(d, "e").contains("1970"));
    // Given, the unit is the user's word: no magnitude is checked.
    let (code, _, err) = run(xs(d).args(["-d", "f", "import", "s.csv", "--time-unit", "ms"]));
    assert_eq!(code, 0, "{err}");
    // Times from 1678 to 2200 overflowed the bucket choice's span: a panic. A 0 among them,
    // far smaller than any time in nanoseconds of these decades, is no time of the file: it
    // is refused, not stored as 1970 (nor read as seconds).
    let text = "time,v\n-2194689599999999999,2\n0,4\n1709251199999999999,5\n7258118400123456789,3\n";
    fs::write(d.join("ns.csv"), text).unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "n", "import", "ns.csv"]));
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("4 rows read, 3 stored, 1 rejected"), "{err}");
    assert!(rejects_of(d, "n").contains("far smaller than the epoch nanoseconds"));
    // ISO times from the first storable second to the last (the midnight-crossing test
    // subtracted them: a panic in debug builds).
    let text = "time,v\n1678-01-01T00:00:00Z,1\n1970-01-01T00:00:00Z,3\n2261-12-31T23:59:59Z,4\n";
    fs::write(d.join("edges.csv"), text).unwrap();
    let (_, err) = ok(xs(d).args(["-d", "g", "import", "edges.csv"]));
    assert!(err.contains("3 rows read, 3 stored"), "{err}");
    let out = range(d, "n");
    assert!(!out.contains("1970"), "{out}");
    assert!(
        out.contains("1900-06-15T12:00:00.000000001Z,2\n2024-02-29T23:59:59.999999999Z,5"),
        "{out}"
    );
}

#[test]
fn a_yyyymmdd_date_among_epoch_numbers_is_refused_not_stored_in_1970() {
    // `20240305` among seconds of 2024 has eight digits, within the seconds' magnitude: it was
    // stored as 1970-08-23T06:18:25Z, exit 0. Among milliseconds, as 1970-01-01T05:37:04Z.
    let t = TempDir::new().unwrap();
    let d = t.path();
    let text = "time,v\n1709596800,1\n1709596801,2\n20240305,3\n1709596803,4\n";
    fs::write(d.join("s.csv"), text).unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "s", "import", "s.csv"]));
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("4 rows read, 3 stored, 1 rejected"), "{err}");
    assert!(
        rejects_of(d, "s").contains("reads as a date written YYYYMMDD among epoch seconds"),
        "{}",
        rejects_of(d, "s")
    );
    assert!(!range(d, "s").contains("1970"), "{}", range(d, "s"));
    let text = "time,v\n1709596800000,1\n1709596801000,2\n20240305,3\n";
    fs::write(d.join("ms.csv"), text).unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "m", "import", "ms.csv"]));
    assert_eq!(code, 4, "{err}");
    assert!(rejects_of(d, "m").contains("among epoch milliseconds"));
    assert!(!range(d, "m").contains("1970"));
    // Numbers that are no date stay times of 1970 in the unit; small ones (a `0` or `60` for
    // a missing time) are refused as no time of the file. `--time-unit` reads every number as
    // it says.
    let text = "time,v\n1709596800,1\n20241399,2\n60,3\n";
    fs::write(d.join("nodate.csv"), text).unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "n", "import", "nodate.csv"]));
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("3 rows read, 2 stored, 1 rejected"), "{err}");
    assert!(rejects_of(d, "n").contains("far smaller than the epoch seconds"));
    assert!(
        range(d, "n").contains("1970-08-23T06:36:39Z,2"),
        "{}",
        range(d, "n")
    );
    let (_, err) = ok(xs(d).args(["-d", "n60", "import", "nodate.csv", "--time-unit", "s"]));
    assert!(err.contains("3 rows read, 3 stored, 0 rejected"), "{err}");
    let (_, err) = ok(xs(d).args(["-d", "u", "import", "s.csv", "--time-unit", "s"]));
    assert!(err.contains("4 rows read, 4 stored, 0 rejected"), "{err}");
    assert!(
        range(d, "u").contains("1970-08-23T06:18:25Z,3"),
        "{}",
        range(d, "u")
    );
}

#[test]
fn times_with_a_zone_abbreviation_are_refused_with_the_format_that_reads_them() {
    // `EST` can be read only as text: CST is US Central or China. The message said "found no
    // column whose values read as times … name it with --time-column", also when it was named.
    let t = TempDir::new().unwrap();
    let d = t.path();
    let text = "ts,v\n2024-03-05 09:30:00.25 PST,1\n2024-07-05 09:31:00.5 PDT,2\n";
    fs::write(d.join("pst.csv"), text).unwrap();
    for given in [&[][..], &["--time-column", "ts"][..]] {
        let (code, _, err) = run(xs(d).args(["-d", "p", "import", "pst.csv"]).args(given));
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains("holds times such as `2024-03-05 09:30:00.25 PST`"),
            "{err}"
        );
        assert!(err.contains("` PST` by `-08:00`"), "{err}");
        assert!(!err.contains("name it with --time-column"), "{err}");
    }
    // The advice, followed (for both abbreviations): each row stored at its instant.
    let text = text.replace(" PST,", "-08:00,").replace(" PDT,", "-07:00,");
    fs::write(d.join("offsets.csv"), text).unwrap();
    let (_, err) = ok(xs(d).args(["-d", "p", "import", "offsets.csv"]));
    assert!(err.contains("2 rows read, 2 stored, 0 rejected"), "{err}");
    let out = range(d, "p");
    assert!(out.contains("2024-03-05T17:30:00.25Z,1"), "{out}");
    assert!(out.contains("2024-07-05T16:31:00.50Z,2"), "{out}");
}

#[test]
fn codes_with_leading_zeros_stay_text_and_tell_series_apart() {
    // Weather-station files `station,date,temp` with `0001`: typed i64, the zeros lost and no
    // series key, so the second station's file replaced the first one's rows (exit 0).
    let t = TempDir::new().unwrap();
    let d = t.path();
    fs::write(
        d.join("station_0001.csv"),
        "station,date,temp\n0001,2024-03-01,10.5\n0001,2024-03-02,11.5\n",
    )
    .unwrap();
    fs::write(
        d.join("station_0002.csv"),
        "station,date,temp\n0002,2024-03-01,7.5\n",
    )
    .unwrap();
    let (_, err) = ok(xs(d).args(["-d", "w", "import", "station_0001.csv"]));
    assert!(
        err.contains("series key `station`") && err.contains("station:sym"),
        "{err}"
    );
    let (_, err) = ok(xs(d).args(["-d", "w", "import", "station_0002.csv"]));
    assert!(!err.contains("replaced"), "{err}");
    assert_eq!(
        range(d, "w"),
        "date,station,temp\n2024-03-01T00:00:00Z,0001,10.5\n2024-03-01T00:00:00Z,0002,7.5\n\
         2024-03-02T00:00:00Z,0001,11.5\n"
    );
}

#[test]
fn a_column_headed_hash_is_no_time_of_day() {
    // Onset HOBO: `"#","Date Time, GMT-05:00",…` with two-digit years. The row numbers under
    // `#` (aliased `column_1`) were taken for seconds since midnight: a refusal that named
    // --date, which then stored every row at 00:00:01, 00:00:02 … of that day.
    let t = TempDir::new().unwrap();
    let d = t.path();
    let text = "\"Plot Title: 10293845\"\n\"#\",\"Date Time, GMT-05:00\",\"Temp, °F\"\n\
                1,03/09/24 10:00:00 PM,40.1\n2,03/09/24 10:15:00 PM,40.0\n3,03/09/24 10:30:00 PM,39.8\n";
    fs::write(d.join("hobo.csv"), text).unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "h", "import", "hobo.csv"]));
    assert_eq!(code, 2, "{err}");
    assert!(!err.contains("--date"), "{err}");
    let (code, _, err) = run(xs(d).args(["-d", "h", "import", "hobo.csv", "--date", "2024-03-09"]));
    assert_ne!(code, 0, "{err}");
}

#[test]
fn headerless_trade_ids_are_not_epoch_seconds() {
    // Binance's headerless trades: `id,price,qty,quote_qty,time_ms,is_buyer_maker,best_match`.
    // The ids (4.3e9) read as epoch seconds fall in 2106: the first column was taken for the
    // time, every row stored 82 years late, exit 0.
    let t = TempDir::new().unwrap();
    let d = t.path();
    let mut text = String::new();
    for i in 0..50u64 {
        text.push_str(&format!(
            "{},42072.{:02},0.065,262.15,{},False,True\n",
            4_300_000_000u64 + i,
            i % 100,
            1_735_603_200_068u64 + 37 * i
        ));
    }
    fs::write(d.join("BTCUSDT-trades-2024-12-31.csv"), text).unwrap();
    let (_, err) = ok(xs(d).args(["-d", "b", "import", "BTCUSDT-trades-2024-12-31.csv"]));
    assert!(
        err.contains("time column `column_5`") && err.contains("(2024)"),
        "{err}"
    );
    let out = range(d, "b");
    assert!(
        out.contains("\n2024-12-31T00:00:00.068Z,4300000000,42072.00,"),
        "{out}"
    );
}

#[test]
fn a_header_in_another_case_names_the_same_columns() {
    // A second vendor writes `Time,Symbol,Ask,Bid` for a database of `time,symbol,bid,ask`:
    // the line was read as data (rejected) and the rows below it mapped by position, bid and
    // ask swapped.
    let t = TempDir::new().unwrap();
    let d = t.path();
    fs::write(
        d.join("a.csv"),
        "time,symbol,bid,ask\n2024-01-02T00:00:01Z,EURUSD,1.1000,1.1002\n",
    )
    .unwrap();
    fs::write(
        d.join("b.csv"),
        "Time,Symbol,Ask,Bid\n2024-01-02T00:00:03Z,GBPUSD,1.2702,1.2700\n",
    )
    .unwrap();
    ok(xs(d).args(["-d", "q", "import", "a.csv"]));
    let (_, err) = ok(xs(d).args(["-d", "q", "import", "b.csv"]));
    assert!(err.contains("1 rows read, 1 stored, 0 rejected"), "{err}");
    assert!(range(d, "q").ends_with("2024-01-02T00:00:03Z,GBPUSD,1.2700,1.2702\n"));
}

#[test]
fn decimal_commas_with_an_exponent_are_numbers() {
    // A German spreadsheet's export writes small and large values as `1,5E-03`.
    let t = TempDir::new().unwrap();
    let d = t.path();
    let text = "Zeit;Wert;Menge\n2024-01-01 00:00:00;1,5E-03;2,5\n2024-01-01 00:01:00;2,25E+02;3,0\n\
                2024-01-01 00:02:00;-3,1e-5;4,5\n";
    fs::write(d.join("exp.csv"), text).unwrap();
    let (_, err) = ok(xs(d).args(["-d", "e", "import", "exp.csv"]));
    assert!(err.contains("decimal comma") && err.contains("Wert:f64"), "{err}");
    assert_eq!(
        range(d, "e"),
        "Zeit,Wert,Menge\n2024-01-01T00:00:00Z,0.0015,2.5\n2024-01-01T00:01:00Z,225.0,3.0\n\
         2024-01-01T00:02:00Z,-0.000031,4.5\n"
    );
}

#[test]
fn a_quote_after_a_space_is_text_and_lines_of_spaces_are_blank() {
    // Hand-written CSV: `, "Smith, John"`. After a space a quote is text (a ditto mark ` "`
    // must not swallow the lines after it), so the comma splits the field: rejected, with a
    // reason that says why. An indented empty line is no row.
    let t = TempDir::new().unwrap();
    let d = t.path();
    let input = fixture(d, "quoted_after_space.csv");
    let (code, _, err) = run(xs(d).args(["-d", "q", "import"]).arg(&input));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("quote fields that hold the delimiter"), "{err}");
    // A later row so written is rejected, saying why.
    let text =
        "time,name,amount\n2021-01-04 09:30:00,Roe,3\n   \n2021-01-04 09:31:00, \"Smith, John\", 12.5\n";
    fs::write(d.join("later.csv"), text).unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "q", "import", "later.csv"]));
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("2 rows read, 1 stored, 1 rejected"), "{err}");
    let rejects = rejects_of(d, "q");
    assert!(rejects.contains("a quote after a space is text"), "{rejects}");
    // Ditto marks stay in their rows.
    let ditto = "time, item, qty\n2024-01-01 00:00, pen, 5\n2024-01-01 01:00, \", 6\n\
                 2024-01-01 02:00, \", 7\n2024-01-01 03:00, pencil, 8\n";
    fs::write(d.join("ditto.csv"), ditto).unwrap();
    ok(xs(d).args(["-d", "ditto", "import", "ditto.csv"]));
    let out = range(d, "ditto");
    assert_eq!(out.lines().count(), 5, "{out}");
    assert!(out.contains("2024-01-01T02:00:00Z,\" \"\"\",7\n"), "{out}");
}

#[test]
fn integers_past_u64_are_kept_digit_for_digit() {
    // Token amounts in wei: as f64 the first two would read back as one number.
    let t = TempDir::new().unwrap();
    let d = t.path();
    let input = fixture(d, "wei_amounts.csv");
    let (_, err) = ok(xs(d).args(["-d", "w", "import"]).arg(&input));
    assert!(err.contains("--columns value_wei:f64,"), "{err}");
    let out = range(d, "w");
    assert!(out.contains(",12000000000000000000001\n"), "{out}");
    assert!(out.contains(",12000000000000000000002\n"), "{out}");
    assert!(out.contains(",999999999999999999999999999999\n"), "{out}");
    assert!(out.ends_with(",4,5\n"), "{out}");
}

#[test]
fn a_file_where_the_database_should_be_is_refused_before_the_report() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    fs::write(d.join("notes.txt"), "mine\n").unwrap();
    let input = fixture(d, "wei_amounts.csv");
    for db in ["notes.txt", "notes.txt/db"] {
        let (code, _, err) = run(xs(d).args(["-d", db, "import"]).arg(&input));
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("notes.txt is a file, not a directory"), "{err}");
        assert!(!err.contains("creating it"), "{err}");
        assert!(
            !err.contains("os error") && !err.contains("Not a directory"),
            "{err}"
        );
    }
    assert_eq!(fs::read_to_string(d.join("notes.txt")).unwrap(), "mine\n");
}

#[test]
fn a_loggers_unit_lines_under_the_header_are_skipped_and_said() {
    // Campbell Scientific TOA5: a file line, the names, then units and the processing of each
    // column in lines of their own, then the rows (a missing value written `NAN`).
    let t = TempDir::new().unwrap();
    let d = t.path();
    let input = fixture(d, "toa5_logger.dat");
    let (_, err) = ok(xs(d).args(["-d", "l", "import"]).arg(&input));
    assert!(err.contains("skipped 1 line(s) before the header"), "{err}");
    assert!(err.contains("skipped 2 line(s) after the header: units"), "{err}");
    assert!(err.contains("6 rows read, 6 stored, 0 rejected"), "{err}");
    let out = range(d, "l");
    assert!(
        out.starts_with("TIMESTAMP,RECORD,BattV_Min,AirTC_Avg,RH,WS_ms_Avg\n"),
        "{out}"
    );
    assert!(
        out.contains("2021-06-01T01:00:00Z,1001,12.91,14.52,78.3,2.104\n"),
        "{out}"
    );
    assert!(
        out.ends_with("2021-06-01T06:00:00Z,1006,12.95,15.02,76.2,2.5\n"),
        "{out}"
    );
    // A second day's file into the database: the same lines skipped, by its known names.
    let next = d.join("toa5_next.dat");
    let text = fs::read_to_string(&input)
        .unwrap()
        .replace("2021-06-01", "2021-06-02");
    fs::write(&next, text).unwrap();
    let (_, err) = ok(xs(d).args(["-d", "l", "import"]).arg(&next));
    assert!(err.contains("6 rows read, 6 stored, 0 rejected"), "{err}");
    assert_eq!(range(d, "l").lines().count(), 13);
    // Found in each input on its own: a file without unit lines, imported beside one with
    // them, keeps its first rows.
    let bare = "TS,V\n2024-01-02 00:00,10\n2024-01-02 01:00,20\n2024-01-02 02:00,30\n2024-01-02 03:00,40\n";
    let units = "TS,V\n,Volts\n,Avg\n2024-01-01 00:00,1\n2024-01-01 01:00,2\n2024-01-01 02:00,3\n2024-01-01 03:00,4\n";
    fs::write(d.join("units.csv"), units).unwrap();
    fs::write(d.join("bare.csv"), bare).unwrap();
    let (_, err) = ok(xs(d).args(["-d", "two", "import", "units.csv", "bare.csv"]));
    assert!(err.contains("8 rows read, 8 stored, 0 rejected"), "{err}");
}

/// Writes `text` to `dir/name` and imports it with zero flags into `db`: (exit code, stderr).
fn import_text(dir: &Path, db: &str, name: &str, text: &str, flags: &[&str]) -> (i32, String) {
    fs::write(dir.join(name), text).unwrap();
    let (code, _, err) = run(xs(dir).args(["-d", db, "import", name]).args(flags));
    (code, err)
}

#[test]
fn an_ambiguous_date_column_is_not_replaced_by_numbers_read_as_epoch_seconds() {
    // Yahoo's daily bars with US dates that read both ways: `Volume` (3.7e9) would read as
    // seconds of 2088.
    let t = TempDir::new().unwrap();
    let d = t.path();
    let text = "Date,Close,Volume\n1/2/2024,4742.83,3743050000\n1/3/2024,4704.81,3950760000\n\
                1/4/2024,4688.68,3715480000\n1/5/2024,4697.24,3844370000\n";
    let (code, err) = import_text(d, "y", "spx.csv", text, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("column `Date`") && err.contains("--time-format mdy"),
        "{err}"
    );
    assert!(!d.join("y").exists());
    let (code, err) = import_text(d, "y", "spx.csv", text, &["--time-format", "mdy"]);
    assert_eq!(code, 0, "{err}");
    assert!(range(d, "y").contains("2024-01-02T00:00:00Z,4742.83,3743050000\n"));
}

#[test]
fn two_digit_year_dates_with_dots_are_not_times_of_day() {
    // A German bank statement: `02.01.24` is the 2nd of January 2024, not 02:01:24 on the
    // date in the file name.
    let t = TempDir::new().unwrap();
    let d = t.path();
    let text = "\"Konto\";\"Buchungstag\";\"Betrag\"\n\"DE1\";\"02.01.24\";\"1500,00\"\n\
                \"DE1\";\"03.01.24\";\"-12,50\"\n\"DE1\";\"15.01.24\";\"-99,99\"\n";
    let (code, err) = import_text(d, "k", "Kontoauszug_20240131.csv", text, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--time-format '%d.%m.%y'"), "{err}");
    let (code, err) = import_text(
        d,
        "k",
        "Kontoauszug_20240131.csv",
        text,
        &["--time-format", "%d.%m.%y"],
    );
    assert_eq!(code, 0, "{err}");
    let out = range(d, "k");
    assert!(out.contains("2024-01-02T00:00:00Z,DE1,1500.00\n"), "{out}");
    assert!(out.contains("2024-01-15T00:00:00Z,DE1,-99.99\n"), "{out}");
}

#[test]
fn a_quote_never_closed_is_a_rejected_row_not_the_rest_of_the_file() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let mut text = String::from("time,level,msg\n");
    for i in 0..20 {
        let msg = if i == 9 { "\"unterminated note" } else { "ok" };
        text.push_str(&format!("2024-01-01T00:{i:02}:00Z,{i},{msg}\n"));
    }
    let (code, err) = import_text(d, "q", "log.csv", &text, &[]);
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("10 rows read, 9 stored, 1 rejected"), "{err}");
    let rejects = rejects_of(d, "q");
    assert!(
        rejects.contains("is never closed: the 10 line(s) after it"),
        "{rejects}"
    );
}

#[test]
fn a_header_short_of_names_is_fitted_only_where_the_rows_say_how() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // R's write.table: row names first, without a name in the header.
    let text = "\"date\",\"value\",\"flag\"\n\"1\",\"2024-01-01\",1.5,TRUE\n\"2\",\"2024-01-02\",NA,FALSE\n";
    let (code, err) = import_text(d, "r", "r.csv", text, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("as R's write.table writes them"), "{err}");
    assert_eq!(
        range(d, "r"),
        "date,column_1,value,flag\n2024-01-01T00:00:00Z,1,1.5,true\n2024-01-02T00:00:00Z,2,,false\n"
    );
    // Unquoted thousands: which field is `volume` cannot be told.
    let text = "date,close,volume\n2024-01-02,185.64,82,488,700\n2024-01-03,184.25,58,414,500\n";
    let (code, err) = import_text(d, "u", "u.csv", text, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("quote fields that hold the delimiter, or name every field"),
        "{err}"
    );
    assert!(!d.join("u").exists());
    // Every row ending in a delimiter; a header ending in one.
    let (code, err) = import_text(
        d,
        "e",
        "e.csv",
        "time,v\n2024-01-01T00:00:00Z,1,\n2024-01-01T01:00:00Z,2,\n",
        &[],
    );
    assert_eq!(code, 0, "{err}");
    // (The empty third field is no column: unnamed, without a value.)
    assert!(range(d, "e").starts_with("time,v\n2024-01-01T00:00:00Z,1\n"));
    let (code, err) = import_text(d, "h", "h.csv", "time,a,b,\n2024-01-01T00:00:00Z,1,2\n", &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("the header ends in a delimiter the rows lack"),
        "{err}"
    );
    assert!(!err.contains("column_4"), "{err}");
    assert_eq!(range(d, "h"), "time,a,b\n2024-01-01T00:00:00Z,1,2\n");
    // A first column of 1s ending in a delimiter is no row count: the empty field is the
    // extra one. A first column of 1, 3 counts no rows: refused.
    let text = "station,observed,temp\n1,2024-01-01 00:00,5.5,\n1,2024-01-01 01:00,6.5,\n";
    let (code, err) = import_text(d, "st", "st.csv", text, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(range(d, "st").starts_with("observed,station,temp\n2024-01-01T00:00:00Z,1,5.5\n"));
    let (code, err) = import_text(
        d,
        "qp",
        "qp.csv",
        "qty,price,date\n1,5.5,2024-01-01,x\n3,6.5,2024-01-02,y\n",
        &[],
    );
    assert_eq!(code, 2, "{err}");
}

#[test]
fn excels_sep_line_names_the_delimiter() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let text = "\u{feff}sep=;\r\ntime;value\r\n2024-01-01T00:00:00Z;1,5\r\n2024-01-01T01:00:00Z;2,25\r\n";
    let (code, err) = import_text(d, "s", "s.csv", text, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("skipped the first line `sep=;`"), "{err}");
    assert_eq!(
        range(d, "s"),
        "time,value\n2024-01-01T00:00:00Z,1.50\n2024-01-01T01:00:00Z,2.25\n"
    );
    // A decimal comma before three digits where no thousands group could start: `0,123`.
    let meter = "Zeit;kWh\n2024-03-01 00:15;0,123\n2024-03-01 00:30;0,456\n2024-03-01 00:45;1234,500\n";
    let (code, err) = import_text(d, "m", "meter.csv", meter, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("decimal comma"), "{err}");
    assert!(range(d, "m").ends_with("2024-03-01T00:45:00Z,1234.500\n"));
    // Only a file that starts with the line skips it: the next one keeps its header. Numbers
    // with spaces around a decimal comma read as the sample read them.
    fs::write(d.join("s1.csv"), "sep=;\ntime;v;w\n2024-01-01 00:00;1; 3,5\n").unwrap();
    fs::write(d.join("s2.csv"), "time;v;w\n2024-01-02 00:00;2; 4,5\n").unwrap();
    let (_, err) = ok(xs(d).args(["-d", "s2", "import", "s1.csv", "s2.csv"]));
    assert!(err.contains("2 rows read, 2 stored, 0 rejected"), "{err}");
    assert_eq!(
        range(d, "s2"),
        "time,v,w\n2024-01-01T00:00:00Z,1,3.5\n2024-01-02T00:00:00Z,2,4.5\n"
    );
}

#[test]
fn a_zone_stated_in_the_time_columns_header_places_the_times() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // Onset HOBO: a title line, `#` for the row number, the offset in the header.
    let hobo = "\"Plot Title: Greenhouse\"\n\"#\",\"Date Time, GMT-05:00\",\"Temp, °F\"\n\
                1,2024-01-15 10:00:00,68.512\n2,2024-01-15 10:15:00,68.340\n";
    let (code, err) = import_text(d, "h", "hobo.csv", hobo, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("read in UTC-05:00, as the header `Date Time, GMT-05:00` says"),
        "{err}"
    );
    assert!(range(d, "h").contains("2024-01-15T15:00:00Z,1,68.512\n"));
    // The next file into that database: its header says the same.
    let next = hobo.replace("2024-01-15", "2024-01-16");
    let (code, err) = import_text(d, "h", "hobo2.csv", &next, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(range(d, "h").contains("2024-01-16T15:15:00Z,2,68.34"));
    // A named zone, with its summer time; --timezone still decides.
    let berlin = "Date (Europe/Berlin),v\n2024-07-01 12:00:00,1\n2024-07-01 13:00:00,2\n";
    let (code, err) = import_text(d, "b", "b.csv", berlin, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(range(d, "b").contains("2024-07-01T10:00:00Z,1\n"));
    let (code, err) = import_text(d, "u", "b.csv", berlin, &["--timezone", "UTC"]);
    assert_eq!(code, 0, "{err}");
    assert!(range(d, "u").contains("2024-07-01T12:00:00Z,1\n"));
}

#[test]
fn mysql_nulls_hours_beside_dates_and_zone_names_in_patterns() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let (code, err) = import_text(
        d,
        "m",
        "dump.tsv",
        "created_at\tamount\n2024-01-01 10:00:00\t12.50\n2024-01-01 10:05:00\t\\N\n2024-01-01 10:10:00\t7.25\n",
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("amount:dec(2)"), "{err}");
    assert!(range(d, "m").contains("2024-01-01T10:05:00Z,\n"));
    // A load table's hour beside its date: refused, and the flags it names work.
    let load = "Date,Hour,Load_MW\n2024-01-01,0,100\n2024-01-01,1,90\n2024-01-01,2,85\n2024-01-02,0,101\n";
    let (code, err) = import_text(d, "l", "load.csv", load, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--time-column Date,Hour --time-format '%Y-%m-%d %H'"),
        "{err}"
    );
    let (code, err) = import_text(
        d,
        "l",
        "load.csv",
        load,
        &["--time-column", "Date,Hour", "--time-format", "%Y-%m-%d %H"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(range(d, "l").contains("2024-01-01T02:00:00Z,85\n"));
    // Hour-ending tables (1 to 24): the same flags; hour 24 is the next midnight.
    let ending = "Date,HE,Load_MW\n2024-01-01,1,100\n2024-01-01,2,90\n2024-01-01,24,85\n\
                  2024-01-02,1,101\n2024-01-02,24,99\n";
    let (code, err) = import_text(d, "he", "he.csv", ending, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--time-column Date,HE --time-format '%Y-%m-%d %H'")
            && err.contains("24 is the next midnight"),
        "{err}"
    );
    let (code, err) = import_text(
        d,
        "he",
        "he.csv",
        ending,
        &["--time-column", "Date,HE", "--time-format", "%Y-%m-%d %H"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        range(d, "he"),
        "Date_HE,Load_MW\n2024-01-01T01:00:00Z,100\n2024-01-01T02:00:00Z,90\n\
         2024-01-02T00:00:00Z,85\n2024-01-02T01:00:00Z,101\n2024-01-03T00:00:00Z,99\n"
    );
    // %Z reads a zone's name and would drop it.
    let (code, err) = import_text(
        d,
        "z",
        "z.csv",
        "time,v\n2024-01-01 10:00:00 EST,1\n",
        &["--time-format", "%Y-%m-%d %H:%M:%S %Z"],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("%Z") && err.contains("--timezone"), "{err}");
}

#[test]
fn a_third_sweep_quoted_values_after_spaces_named_counters_and_updated_at() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // A whole quoted value after a space is read as quoted.
    let (code, err) = import_text(
        d,
        "p",
        "p.csv",
        "time,city,temp\n2024-01-01T00:00:00Z, \"Paris\",5.1\n2024-01-01T01:00:00Z, \"Lyon\",6.2\n",
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        range(d, "p"),
        "time,city,temp\n2024-01-01T00:00:00Z,Paris,5.1\n2024-01-01T01:00:00Z,Lyon,6.2\n"
    );
    // A counter with a name of its own is no R row name: the unnamed field is the last, whose
    // place is not told.
    let (code, err) = import_text(
        d,
        "n",
        "n.csv",
        "n,time,value\n1,2024-01-01T00:00:00Z,1.5,ok\n2,2024-01-01T01:00:00Z,2.5,ok\n",
        &[],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot be told"), "{err}");
    // `updated_at` holds the letters of `date`, not a date: the first time column wins.
    let (code, err) = import_text(
        d,
        "u",
        "u.tsv",
        "id\tcreated_at\tamount\tupdated_at\n1\t2024-01-01 10:00:00\t12.50\t\\N\n\
         2\t2024-01-01 10:05:00\t3.00\t2024-01-02 00:00:00\n",
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("time column `created_at`"), "{err}");
    // A header that mentions an offset and UTC alone does not say which applies: read as UTC,
    // with a warning; one zone taken from the header brings no warning.
    let (code, err) = import_text(
        d,
        "c",
        "c.csv",
        "Time (converted from GMT+2 to UTC),Close\n2024-01-01 00:00:00,1.1\n",
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert!(range(d, "c").contains("2024-01-01T00:00:00Z,1.1"));
    assert!(err.contains("says an offset from UTC"), "{err}");
    let (code, err) = import_text(
        d,
        "l",
        "l.csv",
        "local_time (UTC+09:00),v\n2024-01-01 09:00:00,1\n",
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert!(range(d, "l").contains("2024-01-01T00:00:00Z,1"));
    assert!(!err.contains("warning"), "{err}");
    // Dotted dates with a two-digit year beside a time of day: the hint names both columns.
    let (code, err) = import_text(
        d,
        "z",
        "z.csv",
        "Datum;Zeit;Wert\n02.01.24;09.30.00;1,5\n03.01.24;09.31.00;2,5\n",
        &[],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--time-column Datum,Zeit --time-format '%d.%m.%y %H.%M.%S'"),
        "{err}"
    );
    let (code, err) = import_text(
        d,
        "z",
        "z.csv",
        "Datum;Zeit;Wert\n02.01.24;09.30.00;1,5\n03.01.24;09.31.00;2,5\n",
        &[
            "--time-column",
            "Datum,Zeit",
            "--time-format",
            "%d.%m.%y %H.%M.%S",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(range(d, "z").contains("2024-01-03T09:31:00Z,2.5"));
}

#[test]
fn times_of_day_that_cross_midnight_are_refused_not_dated_a_day_early() {
    // An FX tick file named by its trade date runs from before midnight to after it.
    let t = TempDir::new().unwrap();
    let d = t.path();
    let text = "time,bid,ask\n23:59:58.500,1.1000,1.1002\n23:59:59.900,1.1001,1.1003\n\
                00:00:00.100,1.1002,1.1004\n00:00:01.000,1.1003,1.1005\n";
    let (code, err) = import_text(d, "fx", "fx_20240102.csv", text, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("go back from 2024-01-02T23:59:59.900Z to 2024-01-02T00:00:00.100Z"),
        "{err}"
    );
    assert!(err.contains("crosses midnight"), "{err}");
    assert!(!d.join("fx").exists());
    // Into an existing database, the same.
    let day = "time,bid,ask\n09:00:00.000,1.1000,1.1002\n09:00:01.000,1.1001,1.1003\n";
    let (code, err) = import_text(d, "fx", "fx_20240103.csv", day, &[]);
    assert_eq!(code, 0, "{err}");
    let (code, err) = import_text(d, "fx", "fx_20240102.csv", text, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("go back from 23:59:59.900 to 00:00:00.100"), "{err}");
    assert_eq!(range(d, "fx").lines().count(), 3);
}

#[test]
fn a_later_input_of_times_of_day_that_crosses_midnight_keeps_no_row_a_day_early() {
    // Only the first input's sample was checked for a crossing: in one command with another
    // file first, a later file's rows after midnight were stored a day early, exit 0.
    let t = TempDir::new().unwrap();
    let d = t.path();
    let day = "time,bid\n09:00:00.000,1\n09:00:01.500,2\n";
    let crossing = "time,bid\n23:59:58.500,1\n23:59:59.900,2\n00:00:00.100,3\n00:00:01.000,4\n";
    let files = [("fx_20240103.csv", day), ("fx_20240102.csv", crossing)];
    let (code, err) = import_files(d, "fx", &files, &[]);
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("6 rows read, 4 stored, 2 rejected"), "{err}");
    assert!(!range(d, "fx").contains("2024-01-02T00:00"), "{}", range(d, "fx"));
    assert!(
        rejects_of(d, "fx").contains("went back from 23:59:59.900 to 00:00:00.100"),
        "{}",
        rejects_of(d, "fx")
    );
    // In chunks of a few records, so the crossing falls inside a chunk, at a chunk's start
    // and before later chunks and batches.
    for bytes in ["1", "13", "30", "64"] {
        let db = format!("fx{bytes}");
        let (code, err) = import_files(d, &db, &files, &["--chunk-bytes", bytes]);
        assert_eq!(code, 4, "--chunk-bytes {bytes}: {err}");
        assert!(
            err.contains("6 rows read, 4 stored, 2 rejected"),
            "{bytes}: {err}"
        );
        assert!(!range(d, &db).contains("2024-01-02T00:00"), "{bytes}");
    }
    // Past the first chunk (1 MiB) and into later ones: 2.2 MB of ticks from 18:00 every
    // 150 ms, crossing midnight at row 144,000; every row after it is rejected.
    let mut big = String::from("time,bid\n");
    for i in 0..150_000u64 {
        let ms = (18 * 3_600_000 + i * 150) % 86_400_000;
        let (h, m, s) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60);
        big.push_str(&format!("{h:02}:{m:02}:{s:02}.{:03},{i}\n", ms % 1000));
    }
    let files = [("fx_20240103.csv", day), ("fx_20240104.csv", big.as_str())];
    let (code, err) = import_files(d, "big", &files, &["--max-rejects", "10000"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("150002 rows read, 144002 stored, 6000 rejected"),
        "{err}"
    );
    // The 90 KB after midnight cut into chunks of 16 KiB: the first chunks after the one
    // with the crossing are rejected whole.
    let args = ["--max-rejects", "10000", "--chunk-bytes", "16384"];
    let (code, err) = import_files(d, "big", &files, &args);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("150002 rows read, 144002 stored, 6000 rejected"),
        "{err}"
    );
    let out = range(d, "big");
    assert!(
        out.ends_with("2024-01-04T23:59:59.850Z,143999\n"),
        "{}",
        &out[out.len() - 200..]
    );
}

#[test]
fn a_file_sorted_by_series_with_times_of_day_from_morning_to_evening_keeps_every_row() {
    // TAQ's daily files: times of day, sorted by symbol, each from 04:00 to 20:00. At each new
    // symbol the times go back 16 hours: the file was refused as crossing midnight (exit 2).
    let t = TempDir::new().unwrap();
    let d = t.path();
    let mut taq = String::from("Symbol,Time,Price\n");
    for (k, sym) in ["AAPL", "MSFT", "SPY"].iter().enumerate() {
        for time in ["04:00:00.000", "09:30:00.000", "15:59:59.999", "19:59:00.000"] {
            taq.push_str(&format!("{sym},{time},{k}.5\n"));
        }
    }
    let files = [("taq_20240103.csv", taq.as_str())];
    let expected = "2024-01-03T04:00:00.000Z,AAPL,0.5\n";
    // Whole, and in chunks of a few records: the fall to the next symbol's morning at a
    // chunk's start and inside one.
    for extra in [
        &[][..],
        &["--chunk-bytes", "1"],
        &["--chunk-bytes", "30"],
        &["--chunk-bytes", "64"],
    ] {
        let db = format!("taq{}", extra.len());
        let (code, err) = import_files(d, &db, &files, extra);
        assert_eq!(code, 0, "{extra:?}: {err}");
        assert!(
            err.contains("12 rows read, 12 stored, 0 rejected"),
            "{extra:?}: {err}"
        );
        let out = range(d, &db);
        assert_eq!(out.lines().count(), 13, "{out}");
        assert!(out.contains(expected), "{out}");
        assert!(out.contains("2024-01-03T19:59:00.000Z,SPY,2.5\n"), "{out}");
        fs::remove_dir_all(d.join(&db)).unwrap();
    }
    // As one series, the same file does cross midnight: refused.
    let (code, err) = import_files(d, "one", &files, &["--series-by", "none"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("go back from") && err.contains("--date"), "{err}");
    // A symbol that does run past midnight: its rows from there on are rejected, the others'
    // stored (a later input, read past the first input's sample).
    let late = "Symbol,Time,Price\nAAPL,04:00:00.000,1\nAAPL,19:59:00.000,2\nQQQ,04:00:00.000,3\n\
                QQQ,23:59:59.000,4\nQQQ,00:00:01.000,5\nQQQ,00:00:02.000,6\n";
    let files = [("taq_20240103.csv", taq.as_str()), ("late_20240104.csv", late)];
    let (code, err) = import_files(d, "late", &files, &[]);
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("18 rows read, 16 stored, 2 rejected"), "{err}");
    assert!(
        rejects_of(d, "late").contains("went back from 23:59:59 to 00:00:01"),
        "{}",
        rejects_of(d, "late")
    );
    assert!(
        !range(d, "late").contains("2024-01-04T00:00"),
        "{}",
        range(d, "late")
    );
}

#[test]
fn a_new_series_right_after_midnight_in_a_file_sorted_by_time_is_not_stored_a_day_early() {
    // Sorted by time, host `c` first reports at 00:00:00, after the other hosts' 23:59:59 and
    // before they come back: taken alone, its fall to 00:00 reads like the next series of a file
    // sorted by series. Host `a` coming back at 00:00:01 shows it was midnight, so `c`'s row is
    // past it too.
    let t = TempDir::new().unwrap();
    let d = t.path();
    let day = "time,host,v\n09:00:00,a,1\n09:00:01,b,2\n";
    let crossing = "time,host,v\n23:59:58,a,1\n23:59:58,b,2\n23:59:59,a,3\n23:59:59,b,4\n\
                    00:00:00,c,5\n00:00:01,a,6\n00:00:01,b,7\n";
    let files = [("m_20240103.csv", day), ("m_20240102.csv", crossing)];
    let (code, err) = import_files(d, "m", &files, &["--series-by", "host"]);
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("9 rows read, 6 stored, 3 rejected"), "{err}");
    let out = range(d, "m");
    assert!(!out.contains("2024-01-02T00:00:00"), "{out}");
    assert!(out.contains("2024-01-02T23:59:59Z,b,4"), "{out}");
    // As a first input, the sample shows it: refused.
    let (code, err) = import_files(
        d,
        "first",
        &[("m_20240102.csv", crossing)],
        &["--series-by", "host"],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("go back from"), "{err}");
}

/// Writes each `(name, text)` into `dir` and imports them all in one command into `db`:
/// (exit code, stderr).
fn import_files(dir: &Path, db: &str, files: &[(&str, &str)], extra: &[&str]) -> (i32, String) {
    for (name, text) in files {
        fs::write(dir.join(name), text).unwrap();
    }
    let (code, _, err) = run(xs(dir)
        .args(["-d", db, "import"])
        .args(files.iter().map(|(name, _)| *name))
        .args(extra));
    (code, err)
}

/// A German spreadsheet export (`;`, decimal commas) and a program's (`,`, points) of the
/// same readings.
const SEMICOLONS: &str = "time;value\n2024-01-01 00:00;1,5\n2024-01-02 00:00;2,5\n";
const COMMAS: &str = "time,value\n2024-01-03 00:00,3.5\n2024-01-04 00:00,4.5\n";
const READINGS: &str = "time,value\n2024-01-01T00:00:00Z,1.5\n2024-01-02T00:00:00Z,2.5\n\
                        2024-01-03T00:00:00Z,3.5\n2024-01-04T00:00:00Z,4.5\n";

#[test]
fn each_input_is_read_in_its_own_delimiter_and_decimal_mark() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // Either first, into a new database; then both again into the existing one.
    for (db, files) in [
        ("a", [("de.csv", SEMICOLONS), ("us.csv", COMMAS)]),
        ("b", [("us.csv", COMMAS), ("de.csv", SEMICOLONS)]),
    ] {
        let (code, err) = import_files(d, db, &files, &[]);
        assert_eq!(code, 0, "{err}");
        let second = files[1].0;
        let said = if second == "us.csv" {
            "us.csv: read with delimiter `,`, decimal points"
        } else {
            "de.csv: read with delimiter `;`, decimal commas"
        };
        assert!(err.contains(said), "{err}");
        assert_eq!(range(d, db), READINGS);
        let (code, err) = import_files(d, db, &files, &[]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(range(d, db), READINGS, "{err}");
    }
    // A delimiter given is every input's: the second file's lines are rejected, not misread.
    let (code, err) = import_files(
        d,
        "c",
        &[("de.csv", SEMICOLONS), ("us.csv", COMMAS)],
        &["--delimiter", ";"],
    );
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("5 rows read, 2 stored, 3 rejected"), "{err}");
    let rejects = fs::read_dir(d.join("c"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("rejects-"))
        .unwrap();
    let rejects = fs::read_to_string(rejects).unwrap();
    assert!(rejects.contains("expected 2 fields, found 1"), "{rejects}");
}

#[test]
fn a_later_input_in_its_own_delimiter_keeps_quoted_line_ends_inside_their_rows() {
    // The reader cuts chunks at record ends: in a `;` file, a quoted field after a `;` may hold
    // line ends, which the first input's `,` would have taken for record ends.
    let t = TempDir::new().unwrap();
    let d = t.path();
    // Longer than the 64 KiB a read takes at least, so that it is cut into chunks.
    let mut semis = String::from("time;note\n");
    for i in 0..3000 {
        let (m, s) = (i / 60, i % 60);
        semis.push_str(&format!(
            "2024-01-02 00:{m:02}:{s:02};\"line one\nline, two; {i}\"\n"
        ));
    }
    let files = [
        (
            "a.csv",
            "time,note\n2024-01-01 00:00:00,a plain note of the width of the others\n",
        ),
        ("b.csv", semis.as_str()),
    ];
    let (code, err) = import_files(d, "n", &files, &["--chunk-bytes", "100"]);
    assert_eq!(code, 0, "{err}");
    let out = range(d, "n");
    assert_eq!(out.lines().count(), 1 + 1 + 2 * 3000);
    assert!(out.contains("2024-01-02T00:49:59Z,\"line one\nline, two; 2999\""));
}

#[test]
fn a_later_input_without_the_first_ones_preamble_or_header() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let preamble = "Station report\nStation: A1, exported 2024-01-02\ntime,temp,hum\n\
                    2024-01-01T00:00:00Z,1.5,20\n2024-01-01T00:01:00Z,1.6,21\n2024-01-01T00:02:00Z,1.6,21\n";
    let plain = "time,temp,hum\n2024-01-01T00:03:00Z,1.7,22\n2024-01-01T00:04:00Z,1.8,23\n";
    let bare = "2024-01-01T00:05:00Z,1.9,24\n2024-01-01T00:06:00Z,2.0,25\n";
    let all = "time,temp,hum\n2024-01-01T00:00:00Z,1.5,20\n2024-01-01T00:01:00Z,1.6,21\n\
               2024-01-01T00:02:00Z,1.6,21\n2024-01-01T00:03:00Z,1.7,22\n2024-01-01T00:04:00Z,1.8,23\n\
               2024-01-01T00:05:00Z,1.9,24\n2024-01-01T00:06:00Z,2.0,25\n";
    let (code, err) = import_files(
        d,
        "p",
        &[("p1.csv", preamble), ("p2.csv", plain), ("p3.csv", bare)],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("p2.csv: read with 0 line(s) before the header"),
        "{err}"
    );
    assert!(
        err.contains("p3.csv: read with no header, 0 line(s) before the header"),
        "{err}"
    );
    assert_eq!(range(d, "p"), all);
    let (code, err) = import_files(
        d,
        "q",
        &[("p2.csv", plain), ("p3.csv", bare), ("p1.csv", preamble)],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("p1.csv: read with 2 line(s) before the header"),
        "{err}"
    );
    assert_eq!(range(d, "q"), all);
    // Into the existing database, as the next day's cron job does.
    let (code, err) = import_files(d, "q", &[("p3.csv", bare), ("p1.csv", preamble)], &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(range(d, "q"), all);
}

#[test]
fn a_later_input_with_dates_in_the_other_order_is_read_in_its_own() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let eu = "date,value\n13/01/2024,1\n14/01/2024,2\n02/03/2024,3\n";
    let us = "date,value\n01/15/2024,4\n01/16/2024,5\n03/04/2024,6\n";
    // Days of 12 or less read both ways: kept in the import's order.
    let either = "date,value\n05/06/2024,7\n";
    let want = "date,value\n2024-01-13T00:00:00Z,1\n2024-01-14T00:00:00Z,2\n2024-01-15T00:00:00Z,4\n\
                2024-01-16T00:00:00Z,5\n2024-03-02T00:00:00Z,3\n2024-03-04T00:00:00Z,6\n";
    let (code, err) = import_files(d, "a", &[("eu.csv", eu), ("us.csv", us), ("x.csv", either)], &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("us.csv: dates read as month/day/year, not day/month/year as in the first input"),
        "{err}"
    );
    assert!(!err.contains("x.csv"), "{err}");
    assert_eq!(range(d, "a"), format!("{want}2024-06-05T00:00:00Z,7\n"));
    let (code, err) = import_files(d, "b", &[("us.csv", us), ("eu.csv", eu)], &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("eu.csv: dates read as day/month/year, not month/day/year"),
        "{err}"
    );
    assert_eq!(range(d, "b"), want);
    // An order given is every input's: the other file's rows that do not read are rejected.
    let (code, err) = import_files(
        d,
        "c",
        &[("eu.csv", eu), ("us.csv", us)],
        &["--time-format", "dmy"],
    );
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("6 rows read, 4 stored, 2 rejected"), "{err}");
}

/// `parts` of (header order, rows) joined as `cat` joins files: each part under its own header.
fn joined(parts: &[(&[usize], usize)]) -> (String, String) {
    let names = ["time", "price", "symbol"];
    let mut text = String::new();
    let mut want = String::from("time,price,symbol\n");
    let mut t = 0;
    for (order, rows) in parts {
        let header: Vec<&str> = order.iter().map(|&i| names[i]).collect();
        text.push_str(&header.join(","));
        text.push('\n');
        for _ in 0..*rows {
            let fields = [
                format!("2024-01-02T{:02}:{:02}:{:02}Z", t / 3600, t / 60 % 60, t % 60),
                format!("{}.{:02}", 100 + t % 50, t % 100),
                format!("S{}", t % 7),
            ];
            let row: Vec<&str> = order.iter().map(|&i| fields[i].as_str()).collect();
            text.push_str(&row.join(","));
            text.push('\n');
            want.push_str(&fields.join(","));
            want.push('\n');
            t += 1;
        }
    }
    (text, want)
}

#[test]
fn files_joined_with_cat_under_headers_in_other_orders_keep_each_value_in_its_column() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // Small: the second header is in the sample, which must not type `price` as text.
    let (text, want) = joined(&[(&[0, 1, 2], 3), (&[0, 2, 1], 3)]);
    let (code, err) = import_text(d, "a", "a.csv", &text, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("price:dec(2)"), "{err}");
    assert!(
        err.contains(
            "a.csv: line 5 is a header again, naming the columns in another order than the \
             header before it (time,symbol,price); the rows below it were read in that order"
        ),
        "{err}"
    );
    assert_eq!(range(d, "a"), want);
    // Large: headers inside later chunks and batches, and back to the first order.
    let (text, want) = joined(&[(&[0, 1, 2], 9000), (&[2, 0, 1], 9000), (&[0, 1, 2], 9000)]);
    let (code, err) = import_text(d, "a", "b.csv", &text, &["--chunk-bytes", "100"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("b.csv: line 9002 is a header again"), "{err}");
    assert!(err.contains("b.csv: line 18003 is a header again"), "{err}");
    assert!(err.contains("27000 rows read, 27000 stored"), "{err}");
    assert_eq!(range(d, "a"), want);
}

/// Review of the per-input dialects and reordered headers: each case stored wrong, or lost
/// rows, before its fix.
#[test]
fn a_headerless_later_input_is_the_rest_of_the_first_in_its_order() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let first = "seq,ts,price\n1,1704067200001,1.5\n2,1704067200123,2.5\n3,1704067200456,2.5\n";
    let rest = "4,1704067201789,3.5\n5,1704067202001,4.5\n";
    let (code, err) = import_files(d, "e", &[("ep1.csv", first), ("ep2.csv", rest)], &[]);
    assert_eq!(code, 0, "{err}");
    assert!(range(d, "e").ends_with("2024-01-01T00:00:01.789Z,4,3.5\n2024-01-01T00:00:02.001Z,5,4.5\n"));
}

#[test]
fn a_later_input_whose_numbers_do_not_tell_keeps_the_first_ones_decimal_comma() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let first = "time;value\n2024-01-01 00:00;1,5\n2024-01-02 00:00;2,5\n";
    // Dots that group thousands (German), or no decimal at all in the first rows.
    let grouped = "time;value\n2024-01-03 00:00;1.500\n2024-01-04 00:00;2.000\n";
    let mut late = String::from("time;value\n");
    for i in 0..1100 {
        late.push_str(&format!("2024-02-01 {:02}:{:02};0\n", i / 60 % 24, i % 60));
    }
    late.push_str("2024-02-02 00:00;2,5\n");
    let (code, err) = import_files(
        d,
        "g",
        &[("de1.csv", first), ("de2.csv", grouped), ("de3.csv", &late)],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("decimal points"), "{err}");
    let out = range(d, "g");
    assert!(
        out.contains("2024-01-03T00:00:00Z,1500.0\n2024-01-04T00:00:00Z,2000.0\n"),
        "{out}"
    );
    assert!(out.ends_with("2024-02-02T00:00:00Z,2.5\n"), "{out}");
}

#[test]
fn the_sample_follows_headers_back_in_the_first_order_and_forgets_windows_of_unknown_order() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let text = "time,name,value\n2024-01-01T00:00:00Z,a,1.5\n2024-01-01T00:00:01Z,b,2.5\n\
                time,value,name\n2024-01-01T00:00:02Z,3.5,c\ntime,name,value\n\
                2024-01-01T00:00:03Z,d,4.5\n2024-01-01T00:00:04Z,e,5.5\n";
    let (code, err) = import_text(d, "r", "r1.csv", text, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("value:dec(1)"), "{err}");
    // Past the head, sampled windows cannot tell which order their first rows are in.
    let mut text = String::from("time,name,value\n");
    for i in 0..100 {
        text.push_str(&format!(
            "2024-01-01T00:{:02}:{:02}Z,n{},{i}.5\n",
            i / 60,
            i % 60,
            i % 7
        ));
    }
    text.push_str("time,value,name\n");
    for i in 100..40_000 {
        let (h, m, s) = (i / 3600, i / 60 % 60, i % 60);
        text.push_str(&format!("2024-01-01T{h:02}:{m:02}:{s:02}Z,{i}.5,n{}\n", i % 7));
    }
    let (code, err) = import_text(d, "r2", "r2.csv", &text, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("name:sym,value:dec(1)"), "{err}");
    assert!(err.contains("40000 rows read, 40000 stored"), "{err}");
}

#[test]
fn a_quoted_header_behind_a_byte_order_mark_is_a_header_again() {
    // PowerShell's Export-Csv quotes every name; each joined part starts with a BOM.
    let t = TempDir::new().unwrap();
    let d = t.path();
    let text = "time;value;name\n2024-01-01 00:00;1,5;a\n\u{feff}\"name\";\"time\";\"value\"\n\
                b;2024-01-01 00:01;2,5\n\u{feff}\"time\";\"value\";\"name\"\n2024-01-01 00:02;3,5;c\n";
    let (code, err) = import_text(d, "p", "ps.csv", text, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("value:dec(1)"), "{err}");
    assert_eq!(
        range(d, "p"),
        "time,value,name\n2024-01-01T00:00:00Z,1.5,a\n2024-01-01T00:01:00Z,2.5,b\n\
         2024-01-01T00:02:00Z,3.5,c\n"
    );
}

#[test]
fn a_parquet_input_after_a_csv_under_a_reordered_header_keeps_its_rows() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let (code, err) = import_text(
        d,
        "src",
        "pq.csv",
        "time,price,symbol\n2024-01-02T00:00:10Z,1.5,A\n2024-01-02T00:00:11Z,2.5,B\n",
        &[],
    );
    assert_eq!(code, 0, "{err}");
    ok(xs(d).args(["-d", "src", "export", "-o", "p.parquet"]));
    let csv =
        "time,price,symbol\n2024-01-02T00:00:00Z,3.5,C\nsymbol,time,price\nD,2024-01-02T00:00:01Z,4.5\n";
    fs::write(d.join("pr.csv"), csv).unwrap();
    ok(xs(d).args(["-d", "new", "import", "pr.csv", "p.parquet"]));
    assert_eq!(
        range(d, "new"),
        "time,price,symbol\n2024-01-02T00:00:00Z,3.5,C\n2024-01-02T00:00:01Z,4.5,D\n\
         2024-01-02T00:00:10Z,1.5,A\n2024-01-02T00:00:11Z,2.5,B\n"
    );
}

#[test]
fn a_later_input_whose_times_are_written_otherwise_is_read_in_its_own_format() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let iso = "time,v\n2024-01-02T00:00:00Z,1\n2024-01-02T00:00:01Z,2\n";
    let epoch_ms = "time,v\n1704153602000,3\n1704153603000,4\n";
    let us = "time,v\n01/02/2024 00:00:04,5\n01/13/2024 00:00:00,6\n";
    let want = "time,v\n2024-01-02T00:00:00Z,1\n2024-01-02T00:00:01Z,2\n2024-01-02T00:00:02Z,3\n\
                2024-01-02T00:00:03Z,4\n2024-01-02T00:00:04Z,5\n2024-01-13T00:00:00Z,6\n";
    let files = [("iso.csv", iso), ("ms.csv", epoch_ms), ("us.csv", us)];
    let (code, err) = import_files(d, "a", &files, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("ms.csv: times read as epoch numbers"), "{err}");
    assert!(err.contains("us.csv: times read as dates"), "{err}");
    assert_eq!(range(d, "a"), want);
    // The other way round, and into the existing database.
    let (code, err) = import_files(
        d,
        "b",
        &[("us.csv", us), ("ms.csv", epoch_ms), ("iso.csv", iso)],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(range(d, "b"), want);
    let (code, err) = import_files(d, "b", &files, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(range(d, "b"), want);
    // A few bad times in a file of the import's format are its rows' problem, not a new format.
    let mostly = "time,v\n2024-01-03T00:00:00Z,7\n2024-01-03T00:00:01Z,8\n2024-01-03T00:00:02Z,9\n\
                  2024-01-03T00:00:03Z,10\n2024-01-03T00:00:04Z,11\n2024-01-03T00:00:05Z,12\n\
                  2024-01-03T00:00:06Z,13\n2024-01-03T00:00:07Z,14\n2024-01-03T00:00:08Z,15\n\
                  yesterday,16\n";
    let (code, err) = import_files(d, "b", &[("iso.csv", iso), ("mostly.csv", mostly)], &[]);
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("12 rows read, 11 stored, 1 rejected"), "{err}");
    // A format given holds for every input: the epoch file's rows are rejected.
    let (code, err) = import_files(
        d,
        "c",
        &[("iso.csv", iso), ("ms.csv", epoch_ms)],
        &["--time-format", "%Y-%m-%dT%H:%M:%SZ"],
    );
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("4 rows read, 2 stored, 2 rejected"), "{err}");
}

#[test]
fn a_csv_after_a_parquet_input_reads_its_own_text_times() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let (code, err) = import_text(d, "src", "a.csv", "time,price\n2024-01-02T00:00:10Z,1.5\n", &[]);
    assert_eq!(code, 0, "{err}");
    ok(xs(d).args(["-d", "src", "export", "-o", "p.parquet"]));
    fs::write(d.join("b.csv"), "time;price\n2024-01-02 00:00:00;3,5\n").unwrap();
    let (_, err) = ok(xs(d).args(["-d", "new", "import", "p.parquet", "b.csv"]));
    assert!(
        err.contains("b.csv: read with delimiter `;`, decimal commas"),
        "{err}"
    );
    assert!(range(d, "new").contains("2024-01-02T00:00:00.000Z,3.5\n"));
}

#[test]
fn a_later_input_of_times_of_day_without_a_date_for_them_is_not_stored_in_1970() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let full = "time,v\n2024-01-01T00:00:00Z,1\n2024-01-02T00:00:00Z,2\n";
    for day in [
        "time,v\n09:30:00,1\n09:31:00,2\n",
        "time,v\n1,1\n2,2\n",
        "time,v\n100001,1\n100002,2\n",
    ] {
        let (code, err) = import_files(d, "a", &[("a.csv", full), ("quotes.csv", day)], &[]);
        assert_eq!(code, 4, "{err}");
        assert!(err.contains("4 rows read, 2 stored, 2 rejected"), "{err}");
        assert!(!range(d, "a").contains("1970"));
    }
}

#[test]
fn a_later_input_of_times_of_day_is_dated_by_its_file_name() {
    // As the same file is when imported alone: the date in its name, said in the summary.
    // They were rejected, in a command whose first input has full dates.
    let t = TempDir::new().unwrap();
    let d = t.path();
    let full = "time,v\n2024-01-01T00:00:00Z,1\n2024-01-02T00:00:00Z,2\n";
    for (day, first) in [
        ("time,v\n09:30:00,3\n09:31:00,4\n", "2024-01-03T09:30:00"),
        ("time,v\n1,3\n2,4\n", "2024-01-03T00:00:01"),
        ("time,v\n100001,3\n100002,4\n", "2024-01-03T10:00:01"),
    ] {
        let files = [("a.csv", full), ("quotes_20240103.csv", day)];
        let (code, err) = import_files(d, "a", &files, &[]);
        assert_eq!(code, 0, "{err}");
        assert!(err.contains("4 rows read, 4 stored, 0 rejected"), "{err}");
        assert!(err.contains("on 20240103, the date in its name"), "{err}");
        let out = range(d, "a");
        assert!(out.contains(first), "{out}");
        assert!(!out.contains("1970"), "{out}");
        fs::remove_dir_all(d.join("a")).unwrap();
    }
}

#[test]
fn epoch_seconds_in_a_csv_after_a_parquet_of_milliseconds_are_not_read_as_milliseconds() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let (code, err) = import_text(
        d,
        "src",
        "a.csv",
        "time,v\n1704153610000,1\n1704153611000,2\n",
        &[],
    );
    assert_eq!(code, 0, "{err}");
    ok(xs(d).args(["-d", "src", "export", "-o", "p.parquet"]));
    fs::write(d.join("s.csv"), "time,v\n1704153612,3\n1704153613,4\n").unwrap();
    let (_, err) = ok(xs(d).args(["-d", "new", "import", "p.parquet", "s.csv"]));
    assert!(
        err.contains("s.csv: times read as epoch numbers read as seconds"),
        "{err}"
    );
    let out = range(d, "new");
    assert!(
        out.ends_with("2024-01-02T00:00:12.000Z,3\n2024-01-02T00:00:13.000Z,4\n"),
        "{out}"
    );
}

#[test]
fn a_table_of_other_columns_above_the_header_is_refused_not_skipped_as_a_preamble() {
    // Two exports joined with `cat`: the first table's header and rows are narrower than the
    // second's, so they once passed for a preamble, and its rows were skipped with exit 0.
    let t = TempDir::new().unwrap();
    let d = t.path();
    let joined = "time,price,qty\n2024-03-05T09:30:00Z,1.5,10\n2024-03-05T09:30:01Z,1.6,11\n\
                  time,qty,price,side\n2024-03-05T09:30:02Z,12,1.7,buy\n\
                  2024-03-05T09:30:03Z,13,1.8,sell\n";
    let (code, err) = import_text(d, "j", "joined.csv", joined, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "joined.csv: lines 1-3 look like a table of their own, a header (`time,price,qty`) \
             and 2 row(s) with times"
        ) && err.contains("split it at line 4")
            && err.contains("--skip-lines 3"),
        "{err}"
    );
    // A later input too, though a later input's notes are not printed.
    fs::write(
        d.join("first.csv"),
        "time,qty,price,side\n2024-03-04T09:30:00Z,1,1.0,buy\n",
    )
    .unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "k", "import", "-q", "first.csv", "joined.csv"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("joined.csv: lines 1-3 look like a table"), "{err}");
    // Told it is a preamble, xs skips it.
    let (code, err) = import_text(d, "s", "joined.csv", joined, &["--skip-lines", "3"]);
    assert_eq!(code, 0, "{err}");
    assert!(range(d, "s").ends_with("2024-03-05T09:30:03Z,13,1.8,sell\n"));
    // Key/value lines with a date among them stay a preamble.
    let meta = "Station,XYZ\nLatitude,55.3\nCreated,2024-03-05\ntime,a,b\n\
                2024-03-05T00:00:00Z,1,2\n2024-03-05T00:00:01Z,1,3\n";
    let (code, err) = import_text(d, "m", "meta.csv", meta, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("skipped 3 line(s) before the header"), "{err}");
    assert_eq!(
        range(d, "m"),
        "time,a,b\n2024-03-05T00:00:00Z,1,2\n2024-03-05T00:00:01Z,1,3\n"
    );
    // A logger's start and end times under its name are keys beside times, not rows.
    let logger = "Logger,SN123\nStart,2024-03-05 00:00:00\nEnd,2024-03-06 00:00:00\ntime,a,b\n\
                  2024-03-05T00:00:00Z,1,2\n2024-03-05T00:00:01Z,1,3\n";
    let (code, err) = import_text(d, "l", "logger.csv", logger, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("skipped 3 line(s) before the header"), "{err}");
}

#[test]
fn a_zero_for_a_missing_time_among_epoch_milliseconds_is_refused_not_stored_in_1970() {
    // Past the sample (its rows all read alike), a `0` or `-1` written for a missing time among
    // milliseconds of 2024 was stored at 1970-01-01T00:00:00Z, exit 0.
    let t = TempDir::new().unwrap();
    let d = t.path();
    let mut text = String::from("time,v\n");
    for i in 0..300_000u64 {
        let time = match i {
            250_001 => "0".to_string(),
            280_003 => "-1".to_string(),
            _ => (1_709_625_600_000 + i * 1000).to_string(),
        };
        text.push_str(&format!("{time},{i}\n"));
    }
    fs::write(d.join("ticks.csv"), text).unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "t", "import", "-q", "ticks.csv"]));
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("2 row(s) rejected"), "{err}");
    let rejects = rejects_of(d, "t");
    assert!(
        rejects.contains("an epoch number far smaller than the epoch milliseconds the others were read as")
            && rejects.contains(": `0`\",\"0,250001\"")
            && rejects.contains(": `-1`\",\"-1,280003\""),
        "{rejects}"
    );
    let (out, _) = ok(xs(d).args(["-d", "t", "range", "1900-01-01", "2000-01-01"]));
    assert_eq!(out, "time,v\n");
    // Given the unit, a number is the time it says.
    let (code, _, err) = run(xs(d).args(["-d", "u", "import", "-q", "ticks.csv", "--time-unit", "ms"]));
    assert_eq!(code, 4, "{err}");
    assert!(
        rejects_of(d, "u").contains("1969-12-31T23:59:59.999Z is not a multiple of the granularity 1s"),
        "{}",
        rejects_of(d, "u")
    );
    let (out, _) = ok(xs(d).args(["-d", "u", "range", "1970-01-01", "1970-01-02"]));
    assert_eq!(out, "time,v\n1970-01-01T00:00:00Z,250001\n");
}

#[test]
fn a_column_of_epoch_seconds_and_milliseconds_is_refused_saying_both() {
    // Seconds of 2024 joined to milliseconds (an exchange that changed its unit): the message
    // was "found no column whose values read as times", though each part reads alone.
    let t = TempDir::new().unwrap();
    let d = t.path();
    let mut text = String::from("unix,close\n");
    for i in 0..3000u64 {
        let time = 1_709_614_800 + i * 60;
        let time = if i < 2000 { time } else { time * 1000 };
        text.push_str(&format!("{time},{}\n", 100 + i % 7));
    }
    let (code, err) = import_text(d, "m", "mixed.csv", &text, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "column `unix`: holds epoch numbers of 2 magnitudes, seconds such as `1709614800` \
             and milliseconds such as `1709734800000`: xs reads one unit per column"
        ) && err.contains("--time-unit"),
        "{err}"
    );
    assert!(!d.join("m").exists());
}

/// Every stored row of `db` in a wide window (the years below reach back to 1880).
fn all_rows(dir: &Path, db: &str) -> String {
    ok(xs(dir).args(["-d", db, "range", "1700-01-01", "2200-01-01"])).0
}

/// Monthly and yearly series: `1949-01` is a month and `1880` in a `Year` column a year, each
/// stored at its period's first day; dates before 1980 in a column named `Month` or `Period`
/// are dates all the same (they once read as no time at all, or as seconds since midnight).
#[test]
fn months_and_years_are_stored_at_their_first_day() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // The classic airline-passengers file: `Month,#Passengers`, CRLF.
    let input = fixture(d, "airline_passengers_monthly.csv");
    let (_, err) = ok(xs(d).args(["-d", "air", "import"]).arg(&input));
    assert!(
        err.contains("time column `Month`") && err.contains("months written YYYY-MM"),
        "{err}"
    );
    let out = all_rows(d, "air");
    assert_eq!(out.lines().count(), 25, "{out}");
    assert!(
        out.starts_with("Month,passengers\n1949-01-01T00:00:00Z,112\n1949-02-01T00:00:00Z,118\n"),
        "{out}"
    );
    assert!(out.ends_with("1950-12-01T00:00:00Z,140\n"), "{out}");

    // A year column, imported whole, then a later year into the same database.
    let input = fixture(d, "annual_temperature_anomaly.csv");
    let (_, err) = ok(xs(d).args(["-d", "temp", "import"]).arg(&input));
    assert!(err.contains("years, each stored at its January 1st"), "{err}");
    let next = d.join("annual_1890.csv");
    fs::write(&next, "Year,Mean\n1890,-0.35\n").unwrap();
    ok(xs(d).args(["-d", "temp", "import", "-q"]).arg(&next));
    let out = all_rows(d, "temp");
    assert_eq!(out.lines().count(), 12, "{out}");
    assert!(
        out.starts_with("Year,Mean\n1880-01-01T00:00:00Z,-0.16\n1881-01-01T00:00:00Z,-0.08\n"),
        "{out}"
    );
    assert!(
        out.ends_with("1889-01-01T00:00:00Z,-0.10\n1890-01-01T00:00:00Z,-0.35\n"),
        "{out}"
    );

    // Full dates of 1948 in a column named `Period`.
    let input = fixture(d, "unemployment_period_1948.csv");
    ok(xs(d).args(["-d", "rate", "import", "-q"]).arg(&input));
    assert_eq!(
        all_rows(d, "rate"),
        "Period,Rate\n1948-01-01T00:00:00Z,3.4\n1948-02-01T00:00:00Z,3.8\n\
         1948-03-01T00:00:00Z,4.0\n1948-04-01T00:00:00Z,3.9\n"
    );

    // Months written as one number, in a column named so (`202111` is no clock time) or
    // given by a pattern without a day.
    let input = d.join("yyyymm.csv");
    fs::write(&input, "month,v\n202111,1\n202112,2\n202201,3\n").unwrap();
    let (_, err) = ok(xs(d).args(["-d", "ym", "import"]).arg(&input));
    assert!(err.contains("months written YYYYMM"), "{err}");
    let months = "2021-11-01T00:00:00Z,1\n2021-12-01T00:00:00Z,2\n2022-01-01T00:00:00Z,3\n";
    assert_eq!(all_rows(d, "ym"), format!("month,v\n{months}"));
    let input = d.join("obs.csv");
    fs::write(&input, "obs,v\n202111,1\n202112,2\n202201,3\n").unwrap();
    ok(xs(d)
        .args(["-d", "obs", "import", "-q", "--time-format", "%Y%m"])
        .arg(&input));
    assert_eq!(all_rows(d, "obs"), format!("obs,v\n{months}"));

    // ISO weeks without their day are given by a pattern: each at its Monday.
    let input = d.join("weeks.csv");
    fs::write(&input, "week,v\n2021-W01,1\n2021-W02,2\n").unwrap();
    ok(xs(d)
        .args(["-d", "wk", "import", "-q", "--time-format", "%G-W%V"])
        .arg(&input));
    assert_eq!(
        all_rows(d, "wk"),
        "week,v\n2021-01-04T00:00:00Z,1\n2021-01-11T00:00:00Z,2\n"
    );

    // Four digits that are no storable year (`1230`, a day written MMDD) are not years; the
    // clocks beside them, too few to tell from seconds since midnight, are refused.
    let input = d.join("mmdd.csv");
    fs::write(&input, "date,time,v\n1230,0930,1\n1230,1000,2\n").unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "md", "import"]).arg(&input));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("both as clock times written HHMM and as seconds"),
        "{err}"
    );
    assert!(!d.join("md").exists());
}

/// A date split over `Year,Month,Day` columns is not taken for the year alone (every day of a
/// year at its January 1st): refused with the flags that join them, which then import it.
#[test]
fn a_date_split_over_year_month_day_columns_names_the_flags_that_join_it() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let input = fixture(d, "daily_weather_year_month_day.csv");
    let (code, _, err) = run(xs(d).args(["-d", "w", "import"]).arg(&input));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("column `Year`: it holds years, and the date goes on in `Month` and `Day`")
            && err.contains("--time-column Year,Month,Day --time-format '%Y %m %d'"),
        "{err}"
    );
    assert!(!d.join("w").exists());
    ok(xs(d)
        .args(["-d", "w", "import", "-q", "--time-column", "Year,Month,Day"])
        .args(["--time-format", "%Y %m %d"])
        .arg(&input));
    let out = all_rows(d, "w");
    assert_eq!(out.lines().count(), 7, "{out}");
    assert!(
        out.contains("1975-12-31T00:00:00Z,4.1,-1.7\n1976-01-01T00:00:00Z,4.6,-1.4\n"),
        "{out}"
    );
}

/// Eurostat's SDMX-CSV: quarters (`2019-Q4`) and, in annual files, years in the
/// `TIME_PERIOD` column; each stored at its period's first day. `--time-format quarter` reads
/// the other spellings (`Q1 2020`).
#[test]
fn quarters_and_years_in_a_time_period_column() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let input = fixture(d, "eurostat_gdp_quarterly.csv");
    let (_, err) = ok(xs(d).args(["-d", "q", "import"]).arg(&input));
    assert!(
        err.contains("time column `TIME_PERIOD`") && err.contains("quarters (`1990Q1`)"),
        "{err}"
    );
    let out = ok(xs(d).args([
        "-d",
        "q",
        "range",
        "2019-01-01",
        "2021-01-01",
        "--columns",
        "TIME_PERIOD,geo,OBS_VALUE,OBS_FLAG",
    ]))
    .0;
    assert_eq!(out.lines().count(), 13, "{out}");
    assert!(out.contains("2019-10-01T00:00:00Z,AT,1.2,\n"), "{out}");
    assert!(out.contains("2020-04-01T00:00:00Z,DE,-9.4,\n"), "{out}");
    assert!(out.ends_with("2020-07-01T00:00:00Z,FR,18.6,p\n"), "{out}");

    let input = fixture(d, "eurostat_population_annual.csv");
    let (_, err) = ok(xs(d).args(["-d", "a", "import"]).arg(&input));
    assert!(err.contains("years, each stored at its January 1st"), "{err}");
    let out = ok(xs(d).args([
        "-d",
        "a",
        "range",
        "2019-01-01",
        "2021-01-01",
        "--columns",
        "TIME_PERIOD,geo,OBS_VALUE",
    ]))
    .0;
    assert_eq!(
        out,
        "TIME_PERIOD,geo,OBS_VALUE\n2019-01-01T00:00:00Z,AT,8858775\n2019-01-01T00:00:00Z,DE,83019213\n\
         2020-01-01T00:00:00Z,AT,8901064\n2020-01-01T00:00:00Z,DE,83166711\n"
    );

    let input = d.join("q.csv");
    fs::write(&input, "when,v\nQ4 2020,1\nQ1 2021,2\n").unwrap();
    ok(xs(d)
        .args(["-d", "w", "import", "-q", "--time-format", "quarter"])
        .arg(&input));
    assert_eq!(
        all_rows(d, "w"),
        "when,v\n2020-10-01T00:00:00Z,1\n2021-01-01T00:00:00Z,2\n"
    );
}

/// Months with their name (`Jan 2021`, `September 2021`, `2021-Jan`), ISO weeks (`2021-W05`,
/// at their Monday) and days of the year (`2021-032`) read with no flag; so do months whose
/// first value has one digit (`1949-1`, which a first version of the name shapes refused).
#[test]
fn month_names_iso_weeks_and_days_of_the_year_are_read() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    for (db, text, how, rows) in [
        (
            "names",
            "Month,v\nJan 2021,1\nSeptember 2021,2\n",
            "months written with their name",
            "2021-01-01T00:00:00Z,1\n2021-09-01T00:00:00Z,2\n",
        ),
        (
            "year_first",
            "Month,v\n2021-Jan,1\n2021-Feb,2\n",
            "months written with their name",
            "2021-01-01T00:00:00Z,1\n2021-02-01T00:00:00Z,2\n",
        ),
        (
            "weeks",
            "week,v\n2021-W05,1\n2021-W06,2\n",
            "ISO weeks written YYYY-Www, each stored at its Monday",
            "2021-02-01T00:00:00Z,1\n2021-02-08T00:00:00Z,2\n",
        ),
        (
            "ordinal",
            "day,v\n2021-032,1\n2021-365,2\n",
            "days of the year written YYYY-DDD",
            "2021-02-01T00:00:00Z,1\n2021-12-31T00:00:00Z,2\n",
        ),
        (
            "unpadded",
            "Month,v\n1949-1,1\n1949-2,2\n1949-10,3\n",
            "months written YYYY-MM",
            "1949-01-01T00:00:00Z,1\n1949-02-01T00:00:00Z,2\n1949-10-01T00:00:00Z,3\n",
        ),
    ] {
        let input = d.join(format!("{db}.csv"));
        fs::write(&input, text).unwrap();
        let (_, err) = ok(xs(d).args(["-d", db, "import"]).arg(&input));
        assert!(err.contains(how), "{db}: {err}");
        let header = text.lines().next().unwrap();
        assert_eq!(all_rows(d, db), format!("{header}\n{rows}"), "{db}");
    }
}

/// Found by a sweep of vendor-shaped files: times stored wrong with exit 0, or refused in
/// words that did not help. Each is now read right or refused before anything is created.
#[test]
fn periods_beside_dates_months_in_a_date_column_and_times_around_zero() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let exists = |db: &str| d.join(db).exists();
    // `date` = 201901 in a file whose name holds a date: months, not clock times of that day.
    let mut monthly = String::from("date,Value\n");
    for m in 1..=12 {
        monthly.push_str(&format!("2019{m:02},{m}.50\n"));
    }
    let (code, err) = import_text(d, "ms", "monthly_sales_20211231.csv", &monthly, &[]);
    assert_eq!(code, 0, "{err}");
    let out = all_rows(d, "ms");
    assert!(
        out.starts_with("date,Value\n2019-01-01T00:00:00Z,1.50\n2019-02-01T00:00:00Z,2.50\n"),
        "{out}"
    );
    // Digits that read only as clock times in a date column: refused, the patterns named.
    let (code, err) = import_text(
        d,
        "cl",
        "clock_20211231.csv",
        "date,v\n093000,1\n093001,2\n093002,3\n093003,4\n",
        &[],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("'%Y%m%d'") && err.contains("--date"), "{err}");
    assert!(!exists("cl"));
    // A date and the number of its half hour (Elexon): no period number reads as a time.
    let mut elexon = String::from("SETTLEMENT_DATE,SETTLEMENT_PERIOD,PRICE\n");
    for p in 1..=48 {
        elexon.push_str(&format!("2021-01-01,{p},{p}.5\n"));
    }
    let (code, err) = import_text(d, "el", "elexon.csv", &elexon, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("numbers the periods of each day (1 to 48)")
            && err.contains("--time-column SETTLEMENT_DATE"),
        "{err}"
    );
    assert!(!exists("el"));
    // An hour column named `OPR_HR` (CAISO) is an hour like `Hour`; its flags work.
    let caiso = "OPR_DT,OPR_HR,LMP\n2021-01-01,1,30.1\n2021-01-01,2,30.2\n2021-01-01,24,30.3\n";
    let (code, err) = import_text(d, "ca", "caiso.csv", caiso, &[]);
    assert_eq!(code, 2, "{err}");
    let join = ["--time-column", "OPR_DT,OPR_HR", "--time-format", "%Y-%m-%d %H"];
    assert!(err.contains(&join[..2].join(" ")), "{err}");
    let (code, err) = import_text(d, "ca", "caiso.csv", caiso, &join);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        all_rows(d, "ca"),
        "OPR_DT_OPR_HR,LMP\n2021-01-01T01:00:00Z,30.1\n2021-01-01T02:00:00Z,30.2\n\
         2021-01-02T00:00:00Z,30.3\n"
    );
    // Hours worked beside a date are a quantity, not the hour of the row: imported.
    let sheet = "Date,Hours,Employee\n2021-01-04,8,ann\n2021-01-04,7,bob\n2021-01-05,9,ann\n";
    let (code, err) = import_text(d, "ts", "timesheet.csv", sheet, &[]);
    assert_eq!(code, 0, "{err}");
    // Years with their weeks join as ISO weeks; years with quarters are refused.
    let weeks = "Year,Week,sales\n2020,1,3\n2020,2,6\n2021,1,9\n";
    let (code, err) = import_text(d, "yw", "yw.csv", weeks, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--time-column Year,Week --time-format '%G %V'"),
        "{err}"
    );
    let flags = ["--time-column", "Year,Week", "--time-format", "%G %V"];
    let (code, err) = import_text(d, "yw", "yw.csv", weeks, &flags);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        all_rows(d, "yw"),
        "Year_Week,sales\n2019-12-30T00:00:00Z,3\n2020-01-06T00:00:00Z,6\n2021-01-04T00:00:00Z,9\n"
    );
    let (code, err) = import_text(d, "yq", "yq.csv", "Year,Quarter,gdp\n2020,1,5\n2020,2,6\n", &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("`Quarter` numbers the parts of each year"), "{err}");
    // Seconds from an oscilloscope's trigger, some negative: refused before creating anything.
    let mut scope = String::from("Time (s),Voltage (V)\n");
    for i in 0..50 {
        scope.push_str(&format!("{:.4},{}\n", -0.005 + f64::from(i) * 0.0002, i));
    }
    let (code, err) = import_text(d, "os", "scope.csv", &scope, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("around zero") && err.contains("1970-01-01"), "{err}");
    assert!(!exists("os"));
    // A time column named for a zone the old list lacked (IST, ET): read as UTC, with a warning.
    for (header, zone) in [("Time (IST)", "IST"), ("Time (ET)", "ET")] {
        let db = format!("z{zone}");
        let text = format!("\"{header}\",v\n2021-06-01 00:00:00,1\n2021-06-01 00:30:00,2\n");
        let (code, err) = import_text(d, &db, "zone.csv", &text, &[]);
        assert_eq!(code, 0, "{err}");
        assert!(
            err.contains(&format!("says {zone}: if they are local times")),
            "{err}"
        );
    }
    let (code, err) = import_text(d, "fr", "fr.csv", "Date et heure,v\n2021-06-01 00:00:00,1\n", &[]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("warning"), "{err}");
    // Impossible dates among good ones: the message shows one, and a given format reads the
    // rest (the bad rows rejected with their reason).
    let mut feb = String::from("time,v\n");
    for day in 1..=20 {
        feb.push_str(&format!("2021-02-{day:02}T00:00:00Z,{day}\n"));
    }
    for day in 29..=31 {
        feb.push_str(&format!("2021-02-{day}T00:00:00Z,{day}\n"));
    }
    let (code, err) = import_text(d, "fb", "feb.csv", &feb, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("`2021-02-29T00:00:00Z`") && err.contains("20 of the sample's 23"),
        "{err}"
    );
    let flags = ["--time-format", "%Y-%m-%dT%H:%M:%SZ", "--max-rejects", "3"];
    let (code, err) = import_text(d, "fb", "feb.csv", &feb, &flags);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("20 stored, 3 rejected"), "{err}");
    let (code, err) = import_text(d, "fc", "feb.csv", &feb, &["--time-format", "%Y-%m-%d"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("do not read with --time-format '%Y-%m-%d'"), "{err}");
}

/// A logger pads its preamble to the rows' width (`Serial:,10234567,,`): skipped, not read as
/// rows under a missing header. UTF-16 without a byte-order mark is read as UTF-16, and an
/// empty input is named in its refusal.
#[test]
fn a_padded_preamble_utf16_without_a_mark_and_an_empty_file() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let mut hobo = String::from(
        "Logger:,HOBO U12,,\r\nSerial:,10234567,,\r\nLocation:,Greenhouse 3,,\r\n,,,\r\n\
         Date Time,Temp C,RH %,Battery V\r\n",
    );
    for h in 0..24 {
        hobo.push_str(&format!("2021-05-01 {h:02}:00:00,2{}.5,50,3.200\r\n", h % 10));
    }
    let (code, err) = import_text(d, "hobo", "hobo.csv", &hobo, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("skipped 4 line(s) before the header"), "{err}");
    let out = all_rows(d, "hobo");
    assert!(
        out.starts_with("date_time,temp_c,rh,battery_v\n2021-05-01T00:00:00Z,20.5,50,3.200\n"),
        "{out}"
    );
    assert_eq!(out.lines().count(), 25, "{out}");
    // A sparse first row of a file without a header is a row, not a preamble.
    let sparse = "2021-05-01 00:00:00,,,\n2021-05-01 01:00:00,1,2,3\n2021-05-01 02:00:00,4,5,6\n";
    let (code, err) = import_text(d, "sp", "sparse.csv", sparse, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(all_rows(d, "sp").lines().count(), 4);

    let text = "time,sensor,temp\n2021-01-01T00:00:00Z,s1,20.5\n2021-01-01T00:00:01Z,s1,20.6\n";
    for (name, bytes) in [
        (
            "le.csv",
            text.encode_utf16()
                .flat_map(u16::to_le_bytes)
                .collect::<Vec<u8>>(),
        ),
        ("be.csv", text.encode_utf16().flat_map(u16::to_be_bytes).collect()),
    ] {
        fs::write(d.join(name), bytes).unwrap();
        let db = format!("u{name}");
        ok(xs(d).args(["-d", &db, "import", "-q", name]));
        assert_eq!(all_rows(d, &db), text, "{name}");
    }
    // Without a mark and with text beyond ASCII early on (`München`, `€`): it was taken for
    // windows-1252, its zero bytes shown raw in the message.
    let text = "time\tort\tv\r\n2021-01-01T00:00:00Z\tMünchen\t1\r\n2021-01-01T00:00:01Z\tKöln €\t2\r\n";
    let bytes: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    fs::write(d.join("de.tsv"), bytes).unwrap();
    let (_, err) = ok(xs(d).args(["-d", "de", "import", "de.tsv"]));
    assert!(
        err.contains("text in UTF-16LE (no byte-order mark; its zero bytes say so)"),
        "{err}"
    );
    assert_eq!(
        all_rows(d, "de"),
        "time,ort,v\n2021-01-01T00:00:00Z,München,1\n2021-01-01T00:00:01Z,Köln €,2\n"
    );

    let (code, err) = import_text(d, "e", "empty.csv", "", &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("empty.csv: no column names and no rows"), "{err}");
}

/// A cron job loading a UK vendor's daily files (`05/03/2021 09:30:00`): the day and month
/// order the first import took is recorded, so the file of the 1st to the 12th of a month,
/// whose dates read both ways, is read like the others instead of refused (exit 2) on 12 days
/// of every month.
#[test]
fn daily_day_first_files_read_in_the_order_the_database_records() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let day = |dd: u32, mm: u32| {
        format!("time,v\n{dd:02}/{mm:02}/2021 09:30:00,{dd}\n{dd:02}/{mm:02}/2021 16:00:00,{mm}\n")
    };
    // The 13th tells the order; the config records it (format 6).
    let (code, err) = import_text(d, "uk", "d13.csv", &day(13, 3), &[]);
    assert_eq!(code, 0, "{err}");
    let toml = fs::read_to_string(d.join("uk/xs.toml")).unwrap();
    assert!(
        toml.contains("format = 6\n") && toml.contains("date_order = \"dmy\"\n"),
        "{toml}"
    );
    // The 5th of April reads both ways: the recorded order reads it.
    let (code, err) = import_text(d, "uk", "d05.csv", &day(5, 4), &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("dates read as day/month/year, as this database records"),
        "{err}"
    );
    assert_eq!(
        all_rows(d, "uk"),
        "time,v\n2021-03-13T09:30:00Z,13\n2021-03-13T16:00:00Z,3\n\
         2021-04-05T09:30:00Z,5\n2021-04-05T16:00:00Z,4\n"
    );
    // Without a recorded order such a file is refused, naming the flags; the flag at creation
    // is recorded too.
    let (code, err) = import_text(d, "n", "d05.csv", &day(5, 4), &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--time-format dmy"), "{err}");
    let (code, err) = import_text(d, "m", "d05.csv", &day(5, 4), &["--time-format", "mdy"]);
    assert_eq!(code, 0, "{err}");
    let toml = fs::read_to_string(d.join("m/xs.toml")).unwrap();
    assert!(toml.contains("date_order = \"mdy\"\n"), "{toml}");
    let (code, err) = import_text(d, "m", "d06.csv", &day(6, 4), &[]);
    assert_eq!(code, 0, "{err}");
    assert!(all_rows(d, "m").contains("2021-06-04T09:30:00Z,6\n"));
    // ISO times record no order, and need no format 6.
    let (code, err) = import_text(d, "iso", "iso.csv", "time,v\n2021-04-05T09:30:00Z,1\n", &[]);
    assert_eq!(code, 0, "{err}");
    let toml = fs::read_to_string(d.join("iso/xs.toml")).unwrap();
    assert!(
        !toml.contains("date_order") && !toml.contains("format = 6"),
        "{toml}"
    );
}

/// A cron job loading a German vendor's daily files (`;`, `1.234,5`): the first file showed
/// decimal commas, and the database records it, so the next day's file whose numbers all look
/// like `-2.000` stores −2000, not −2 (which it did with exit 0 and a warning only).
#[test]
fn daily_decimal_comma_files_read_with_the_mark_the_database_records() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let first = "Datum;Wert\n01.03.2024;1,5\n02.03.2024;-2,25\n03.03.2024;3,125\n";
    let (code, err) = import_text(d, "de", "d1.csv", first, &[]);
    assert_eq!(code, 0, "{err}");
    let toml = fs::read_to_string(d.join("de/xs.toml")).unwrap();
    assert!(
        toml.contains("format = 7\n") && toml.contains("decimal_comma = true\n"),
        "{toml}"
    );
    let (out, _) = ok(xs(d).args(["-d", "de", "schema"]));
    assert!(out.contains("decimal mark comma"), "{out}");
    let ambiguous = "Datum;Wert\n04.03.2024;-2.000\n05.03.2024;1.500\n";
    let (code, err) = import_text(d, "de", "d2.csv", ambiguous, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("numbers read with a decimal comma, as the database records")
            && !err.contains("warning"),
        "{err}"
    );
    // A file whose numbers show a point decides for itself.
    let (code, err) = import_text(d, "de", "d3.csv", "Datum;Wert\n06.03.2024;7.25\n", &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        range(d, "de"),
        "Datum,Wert\n2024-03-01T00:00:00Z,1.500\n2024-03-02T00:00:00Z,-2.250\n\
         2024-03-03T00:00:00Z,3.125\n2024-03-04T00:00:00Z,-2000.000\n\
         2024-03-05T00:00:00Z,1500.000\n2024-03-06T00:00:00Z,7.250\n"
    );
    // --decimal-point says the points are decimal points.
    let again = "Datum;Wert\n05.03.2024;1.500\n";
    let (code, err) = import_text(d, "de", "d4.csv", again, &["--decimal-point"]);
    assert_eq!(code, 0, "{err}");
    assert!(range(d, "de").contains("2024-03-05T00:00:00Z,1.500\n"));
    // A database from decimal points records nothing, and its next such file is warned about.
    let points = "Datum;Wert\n01.03.2024;1.25\n";
    let (code, err) = import_text(d, "pt", "p1.csv", points, &[]);
    assert_eq!(code, 0, "{err}");
    let toml = fs::read_to_string(d.join("pt/xs.toml")).unwrap();
    assert!(!toml.contains("decimal_comma"), "{toml}");
    let (code, err) = import_text(d, "pt", "p2.csv", ambiguous, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("warning: p2.csv: numbers such as `-2.000`"), "{err}");
}

/// Exports that group thousands (`"1,234.56"` quoted in a comma-separated file, `1 234,56`
/// in a French one, `1'234.56` in a Swiss one) stored every price as text, exit 0: no sum, no
/// filter, no mean. The mark is detected where a number shows it, and numbers are read
/// without it; a number that cannot tell (`"1,234"` alone) stays text, and a later file's
/// grouped number rejected from a numeric column names --thousands.
#[test]
fn numbers_with_grouped_thousands_are_read_as_numbers() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let us = "time,price,qty,note\n2024-01-02T00:00:00Z,\"1,234.56\",5,a\n\
              2024-01-02T00:01:00Z,999.50,\"1,200\",\"b, c\"\n2024-01-02T00:02:00Z,\"12,345.00\",7,d\n";
    let (code, err) = import_text(d, "us", "us.csv", us, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("numbers with thousands grouped by `,` (detected"),
        "{err}"
    );
    assert!(err.contains("price:dec(2),qty:i64,note:str"), "{err}");
    assert_eq!(
        range(d, "us"),
        "time,price,qty,note\n2024-01-02T00:00:00Z,1234.56,5,a\n\
         2024-01-02T00:01:00Z,999.50,1200,\"b, c\"\n2024-01-02T00:02:00Z,12345.00,7,d\n"
    );
    let (out, _) = ok(xs(d).args(["-d", "us", "range", "..", "--agg", "sum(qty)"]));
    assert!(out.ends_with(",1212\n"), "{out}");
    for (db, text) in [
        (
            "fr",
            "time;price\n2024-01-02T00:00:00Z;1 234,56\n2024-01-02T00:01:00Z;999,5\n",
        ),
        (
            "nbsp",
            "time;price\n2024-01-02T00:00:00Z;1\u{a0}234,56\n2024-01-02T00:01:00Z;999,5\n",
        ),
        (
            "ch",
            "time,price\n2024-01-02T00:00:00Z,1'234.56\n2024-01-02T00:01:00Z,999.5\n",
        ),
    ] {
        let (code, err) = import_text(d, db, &format!("{db}.csv"), text, &[]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            range(d, db),
            "time,price\n2024-01-02T00:00:00Z,1234.56\n2024-01-02T00:01:00Z,999.50\n",
            "{db}: {err}"
        );
    }
    // Nothing tells whether `1,234` is a thousand or one and a quarter: kept as written.
    let amb = "time,id\n2024-01-02T00:00:00Z,\"1,234\"\n2024-01-02T00:01:00Z,\"5,678\"\n";
    let (code, err) = import_text(d, "amb", "amb.csv", amb, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(range(d, "amb").contains(",\"1,234\"\n"), "{err}");
    // The next day's file, whose numbers do not show the mark: the reason names the flag,
    // which reads it.
    let next = "time,price,qty,note\n2024-01-03T00:00:00Z,999,\"1,300\",e\n";
    let (code, err) = import_text(d, "us", "next.csv", next, &[]);
    assert_eq!(code, 4, "{err}");
    let rejects = fs::read_dir(d.join("us"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("rejects-"))
        .map(|p| fs::read_to_string(p).unwrap())
        .unwrap();
    assert!(
        rejects.contains("`1,300` reads as a number whose thousands are grouped by `,`")
            && rejects.contains("pass --thousands ','"),
        "{rejects}"
    );
    // A plain number keeps the column's own reason (three decimals, not a grouped thousand).
    let finer = "time,price,qty,note\n2024-01-03T00:00:01Z,1.005,1,f\n";
    let (code, err) = import_text(d, "us", "finer.csv", finer, &[]);
    assert_eq!(code, 4, "{err}");
    let reasons: String = fs::read_dir(d.join("us"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("rejects-"))
        .map(|p| fs::read_to_string(p).unwrap())
        .collect();
    assert!(
        reasons.contains("3 decimals, more than dec(2) holds"),
        "{reasons}"
    );
    assert!(
        !reasons.contains("`1.005` reads as a number whose thousands"),
        "{reasons}"
    );
    let (code, err) = import_text(d, "us", "next.csv", next, &["--thousands", ","]);
    assert_eq!(code, 0, "{err}");
    assert!(range(d, "us").contains("2024-01-03T00:00:00Z,999.00,1300,e\n"));
    let (code, _, err) = run(xs(d).args(["-d", "us", "import", "next.csv", "--thousands", "x"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("bad --thousands `x`"), "{err}");
}

/// A file split for mailing, its header in the first part only, its time in the second
/// field: the second part was read in the database's order (time first), and every row was
/// rejected (`unreadable time: BTC`). The field that holds the times places them, the other
/// columns in the database's order, and the import says how it read them.
#[test]
fn the_rest_of_a_split_file_without_a_header_is_read_in_its_own_order() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let first = "symbol,time,price\nBTC,2024-01-02T00:00:00Z,1.5\nETH,2024-01-02T00:00:01Z,2.5\n";
    let (code, err) = import_text(d, "s", "part1.csv", first, &[]);
    assert_eq!(code, 0, "{err}");
    let rest = "BTC,2024-01-02T00:00:02Z,1.6\nETH,2024-01-02T00:00:03Z,2.6\n";
    let (code, err) = import_text(d, "s", "part2.csv", rest, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(
            "the times are in field 2 of each line, not the first: the fields are read as symbol,time,price"
        ),
        "{err}"
    );
    assert_eq!(
        range(d, "s"),
        "time,symbol,price\n2024-01-02T00:00:00Z,BTC,1.5\n2024-01-02T00:00:01Z,ETH,2.5\n\
         2024-01-02T00:00:02Z,BTC,1.6\n2024-01-02T00:00:03Z,ETH,2.6\n"
    );
    // Times first, as the database reads a headerless file: nothing said, nothing moved.
    let (code, err) = import_text(d, "s", "part3.csv", "2024-01-02T00:00:04Z,SOL,3.5\n", &[]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("the times are in field"), "{err}");
    assert!(range(d, "s").ends_with("2024-01-02T00:00:04Z,SOL,3.5\n"));
}

/// NumPy's `savetxt` writes every float as `%.18e` (`1.704355201500000000e+09`), R and
/// spreadsheets write large numbers as `1.7043552E+09`: epoch times so written were refused
/// ("read in no format xs knows"). They are read exactly, and their padding zeros do not make
/// the granularity a nanosecond.
#[test]
fn epoch_times_in_scientific_notation_are_read_exactly() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let text = "time v\n1.704355200000000000e+09 1.500000000000000000e+00\n\
                1.704355201500000000e+09 2.500000000000000000e+00\n";
    let (code, err) = import_text(d, "np", "np.txt", text, &["--delimiter", " "]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("epoch numbers read as seconds") && err.contains("granularity 100ms"),
        "{err}"
    );
    assert_eq!(
        range(d, "np"),
        "time,v\n2024-01-04T08:00:00.0Z,1.5\n2024-01-04T08:00:01.5Z,2.5\n"
    );
    let text = "Timestamp,Value\n1.7043552E+09,3\n1.7043553E+09,4\n";
    let (code, err) = import_text(d, "r", "r.csv", text, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("granularity 1s"), "{err}");
    assert_eq!(
        range(d, "r"),
        "Timestamp,Value\n2024-01-04T08:00:00Z,3\n2024-01-04T08:01:40Z,4\n"
    );
}

/// Spreadsheet exports end their lines in delimiters (`time;v;;`): the two unnamed, empty
/// fields became f64 columns `column_3` and `column_4`, and the next day's file that ended its
/// lines in one `;` fewer was refused (exit 2) as lacking `column_4`. They are no columns now;
/// such a field is skipped while empty, and a row with a value there is rejected, not stored
/// without it.
#[test]
fn unnamed_empty_trailing_fields_are_no_columns_and_later_files_may_vary() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let first = "time;v;;\n2024-01-02T00:00:00Z;1;;\n2024-01-02T00:01:00Z;2;;\n";
    let (code, err) = import_text(d, "e", "d1.csv", first, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("`column_3`, `column_4` (unnamed in the header) hold no value in the sample"),
        "{err}"
    );
    assert!(err.contains("columns: v:i64 ("), "{err}");
    for (name, text) in [
        ("d2.csv", "time;v;\n2024-01-03T00:00:00Z;3;\n"),
        ("d3.csv", "time;v;;;\n2024-01-04T00:00:00Z;4;;;\n"),
        ("d4.csv", "time;v\n2024-01-05T00:00:00Z;5\n"),
    ] {
        let (code, err) = import_text(d, "e", name, text, &[]);
        assert_eq!(code, 0, "{name}: {err}");
    }
    let (code, err) = import_text(d, "e", "d5.csv", "time;v;;\n2024-01-06T00:00:00Z;6;7;\n", &[]);
    assert_eq!(code, 4, "{err}");
    let rejects = fs::read_dir(d.join("e"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("rejects-"))
        .map(|p| fs::read_to_string(p).unwrap())
        .unwrap();
    assert!(
        rejects.contains(
            "field 3 has no name in the header and no column in the database, so `7` would be lost"
        ),
        "{rejects}"
    );
    assert_eq!(
        range(d, "e"),
        "time,v\n2024-01-02T00:00:00Z,1\n2024-01-02T00:01:00Z,2\n2024-01-03T00:00:00Z,3\n\
         2024-01-04T00:00:00Z,4\n2024-01-05T00:00:00Z,5\n"
    );
    // --ignore-columns leaves the value out, as it leaves out a named column.
    let (code, err) = import_text(
        d,
        "e",
        "d5.csv",
        "time;v;;\n2024-01-06T00:00:00Z;6;7;\n",
        &["--ignore-columns"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(range(d, "e").ends_with("2024-01-06T00:00:00Z,6\n"));
}

#[test]
fn a_price_beside_a_date_is_a_value_not_the_time_of_day() {
    // `13.21` reads as H.MM: a daily file of a date and a close price was stored at
    // 2021-01-04T13:21, the prices gone, exit 0. Likewise a decimal comma (`11,06`, every
    // row then rejected) and an `HH:MM` duration.
    let t = TempDir::new().unwrap();
    let d = t.path();
    fs::write(
        d.join("close.csv"),
        "date,close,volume\n2021-01-04,13.21,1200\n2021-01-05,13.45,900\n",
    )
    .unwrap();
    ok(xs(d).args(["-d", "p", "import", "-q", "close.csv"]));
    assert_eq!(
        range(d, "p"),
        "date,close,volume\n2021-01-04T00:00:00Z,13.21,1200\n2021-01-05T00:00:00Z,13.45,900\n"
    );
    fs::write(
        d.join("kurs.csv"),
        "Datum;Kurs;Volumen\n2021-01-01;11,06;163\n2021-01-02;23,14;384\n",
    )
    .unwrap();
    ok(xs(d).args(["-d", "k", "import", "-q", "kurs.csv"]));
    assert_eq!(
        range(d, "k"),
        "Datum,Kurs,Volumen\n2021-01-01T00:00:00Z,11.06,163\n2021-01-02T00:00:00Z,23.14,384\n"
    );
    fs::write(
        d.join("work.csv"),
        "date,duration,project\n2021-01-01,04:00,a\n2021-01-02,05:30,b\n",
    )
    .unwrap();
    ok(xs(d).args(["-d", "w", "import", "-q", "work.csv"]));
    assert_eq!(
        range(d, "w"),
        "date,duration,project\n2021-01-01T00:00:00Z,04:00,a\n2021-01-02T00:00:00Z,05:30,b\n"
    );
    // Strava: the workout's seconds (`Elapsed Time`) were taken for times of day, and the
    // --date the refusal named stored them as the clock; the span is no time candidate.
    fs::write(
        d.join("strava.csv"),
        "Activity ID,Activity Date,Elapsed Time,Distance\n\
         4570000000,\"Jan 4, 2021, 6:00:00 AM\",1800,5.00\n\
         4570001234,\"Jan 5, 2021, 7:07:13 AM\",1860,6.01\n",
    )
    .unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "s", "import", "strava.csv", "--date", "2021-01-04"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("activity_date") && err.contains("--time-format"),
        "{err}"
    );
    ok(xs(d)
        .args([
            "-d",
            "s",
            "import",
            "-q",
            "strava.csv",
            "--time-column",
            "Activity Date",
        ])
        .args(["--time-format", "%b %d, %Y, %I:%M:%S %p"]));
    assert!(
        range(d, "s").contains("2021-01-05T07:07:13Z,4570001234,1860,6.01\n"),
        "{}",
        range(d, "s")
    );
    // A column named as a clock still joins, in either spelling.
    fs::write(
        d.join("clock.csv"),
        "Date,Time,v\n2021-01-04,13.21,1\n2021-01-04,13.45,2\n",
    )
    .unwrap();
    ok(xs(d).args(["-d", "c", "import", "-q", "clock.csv"]));
    assert_eq!(
        range(d, "c"),
        "Date_Time,v\n2021-01-04T13:21:00Z,1\n2021-01-04T13:45:00Z,2\n"
    );
    fs::write(
        d.join("zeit.csv"),
        "Datum;Uhrzeit;Wert\n04.01.2021;13:21;1\n04.01.2021;13:45;2\n",
    )
    .unwrap();
    ok(xs(d).args(["-d", "z", "import", "-q", "zeit.csv"]));
    assert!(
        range(d, "z").contains("2021-01-04T13:45:00Z,2"),
        "{}",
        range(d, "z")
    );
    // A file of times alone says so, naming the file and the way out.
    fs::write(
        d.join("only.csv"),
        "time\n2021-01-04T00:00:00Z\n2021-01-05T00:00:00Z\n",
    )
    .unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "o", "import", "only.csv"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("only.csv: no column besides the time (`time`)"),
        "{err}"
    );
}

#[test]
fn a_row_counter_is_not_read_as_seconds_since_midnight() {
    // `sample,value` counting 1, 2, 3 in a file named `…_20210102.csv` was stored at
    // 2021-01-02T00:00:01, 00:00:02, …, exit 0.
    let t = TempDir::new().unwrap();
    let d = t.path();
    let rows: String = (1..=30).map(|i| format!("{i},20.{i:03}\n")).collect();
    fs::write(d.join("lab_20210102.csv"), format!("sample,value\n{rows}")).unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "l", "import", "lab_20210102.csv"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("column `sample` counts up by one from row to row (1, 2, 3, …)")
            && err.contains("--time-column sample --time-unit s"),
        "{err}"
    );
    assert!(!d.join("l").exists());
    // Headerless, likewise; the flags it names import it.
    fs::write(d.join("nohead_20210102.csv"), &rows).unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "l", "import", "nohead_20210102.csv"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("column `column_1` counts up by one"), "{err}");
    ok(xs(d).args([
        "-d",
        "l",
        "import",
        "-q",
        "lab_20210102.csv",
        "--time-column",
        "sample",
        "--time-unit",
        "s",
    ]));
    assert!(range(d, "l").starts_with("sample,value\n2021-01-02T00:00:01Z,20.001\n"));
}

#[test]
fn refusals_of_unplaceable_times_name_what_they_may_be() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // Excel serial days with a fraction fit below a day of seconds: the way out is excel.
    fs::write(
        d.join("x.csv"),
        "Timestamp,v\n44197.000000,0\n44197.041667,1\n44197.083333,2\n",
    )
    .unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "x", "import", "x.csv"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("pass --time-format excel"), "{err}");
    ok(xs(d).args(["-d", "x", "import", "-q", "x.csv", "--time-format", "excel"]));
    // 0.041667 of a day is 3,600.029 s, read to the millisecond.
    assert!(
        range(d, "x").contains("2021-01-01T01:00:00.029Z,1\n"),
        "{}",
        range(d, "x")
    );
    // Excel's `1/4/21` beside `9:30:00 AM`: the refusal named only --date, which put every
    // row on one day (and rejected the rest). The two-digit year's date is joined with the
    // clock by itself now, and only the order of day and month, which no value tells, is asked.
    fs::write(
        d.join("xl.csv"),
        "Date,Time,Value\n1/4/21,9:30:00 AM,0.0\n1/4/21,4:30:00 PM,1.5\n1/5/21,9:30:00 AM,2.5\n",
    )
    .unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "xl", "import", "xl.csv"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("column `Date`+`Time`") && err.contains("--time-format mdy (month first)"),
        "{err}"
    );
    assert!(!err.contains("--date"), "{err}");
    ok(xs(d).args(["-d", "xl", "import", "-q", "xl.csv", "--time-format", "mdy"]));
    assert!(
        range(d, "xl").contains("2021-01-05T09:30:00Z,2.5\n"),
        "{}",
        range(d, "xl")
    );
    ok(xs(d)
        .args([
            "-d",
            "xl2",
            "import",
            "-q",
            "xl.csv",
            "--time-column",
            "Date,Time",
        ])
        .args(["--time-format", "%m/%d/%y %I:%M:%S %p"]));
    assert!(range(d, "xl2").contains("2021-01-05T09:30:00Z,2.5\n"));
    // One column of values and no time.
    fs::write(d.join("v.csv"), "value\n0.5\n1.5\n2.5\n").unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "v", "import", "v.csv"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("the input has no other column"), "{err}");
    // Years no i64 of nanoseconds holds are not "no valid ISO-8601 times".
    let mut years = String::from("time,v\n");
    for y in [1600, 1700, 1800, 1900, 2000, 9999, 9998, 9997] {
        years.push_str(&format!("{y}-01-01,{y}\n"));
    }
    fs::write(d.join("y.csv"), years).unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "y", "import", "y.csv"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("lie outside the years 1678 to 2261"), "{err}");
    // IB's Flex query: the refusal spoke of `IBCommission`'s -1.00 as seconds near 1970 and
    // never of `DateTime`, the column that holds the times.
    fs::write(
        d.join("ib.csv"),
        "\"Symbol\",\"DateTime\",\"Quantity\",\"IBCommission\"\n\
         \"AAPL\",\"20210104;093000\",\"100\",\"-1.00\"\n\
         \"MSFT\",\"20210104;093405\",\"101\",\"-1.01\"\n\
         \"AAPL\",\"20210104;094000\",\"102\",\"-1.02\"\n",
    )
    .unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "ib", "import", "ib.csv"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("column `DateTime`, named like a time, holds times such as `20210104;093000`"),
        "{err}"
    );
    ok(xs(d)
        .args(["-d", "ib", "import", "-q", "ib.csv", "--time-column", "DateTime"])
        .args(["--time-format", "%Y%m%d;%H%M%S"]));
    assert!(
        range(d, "ib").contains("2021-01-04T09:34:05Z,MSFT,101,-1.01\n"),
        "{}",
        range(d, "ib")
    );
}

#[test]
fn a_headerless_file_imports_again_into_the_database_it_made() {
    // A nightly re-run of the same headerless file must store the same rows. Three shapes
    // failed: MetaTrader's date and time (joined into `column_1_column_2`: every row rejected,
    // "expected 6 fields, found 7"), a time not in the first column (every row rejected), and
    // a first row with an empty field (its made-up name `column_3` taken for a header).
    let t = TempDir::new().unwrap();
    let d = t.path();
    let files = [
        (
            "mt4.csv",
            "2021.01.04,00:00,1.22395,1.22500,1234\n2021.01.04,00:01,1.22470,1.22510,987\n\
             2021.01.04,00:02,1.22490,1.22520,1002\n",
            "column_1_column_2,column_3,column_4,column_5\n2021-01-04T00:00:00Z,1.22395,1.22500,1234\n\
             2021-01-04T00:01:00Z,1.22470,1.22510,987\n2021-01-04T00:02:00Z,1.22490,1.22520,1002\n",
        ),
        (
            "third.csv",
            "ab,1.5,2021-01-01T00:00:00Z,x\ncd,2.5,2021-01-01T00:01:00Z,y\nef,3.5,2021-01-01T00:02:00Z,z\n",
            "column_3,column_1,column_2,column_4\n2021-01-01T00:00:00Z,ab,1.5,x\n\
             2021-01-01T00:01:00Z,cd,2.5,y\n2021-01-01T00:02:00Z,ef,3.5,z\n",
        ),
        (
            // TrueFX: the time second and not ISO (its format was looked for in the first).
            "truefx.csv",
            "EUR/USD,20210104 00:00:00.966,1.22389,1.22396\nEUR/USD,20210104 00:00:01.388,1.22416,1.22423\n\
             EUR/USD,20210104 00:00:02.012,1.22410,1.22420\n",
            "column_2,column_1,column_3,column_4\n2021-01-04T00:00:00.966Z,EUR/USD,1.22389,1.22396\n\
             2021-01-04T00:00:01.388Z,EUR/USD,1.22416,1.22423\n2021-01-04T00:00:02.012Z,EUR/USD,1.22410,1.22420\n",
        ),
        (
            "empty.csv",
            "2021-01-04T00:00:00Z,1.5,,a\n2021-01-04T00:01:00Z,2.5,3,b\n2021-01-04T00:02:00Z,3.5,4,c\n",
            "column_1,column_2,column_3,column_4\n2021-01-04T00:00:00Z,1.5,,a\n\
             2021-01-04T00:01:00Z,2.5,3,b\n2021-01-04T00:02:00Z,3.5,4,c\n",
        ),
    ];
    for (name, text, stored) in files {
        fs::write(d.join(name), text).unwrap();
        let db = format!("db_{name}");
        ok(xs(d).args(["-d", &db, "import", "-q", name]));
        assert_eq!(range(d, &db), stored, "{name}");
        let (_, err) = ok(xs(d).args(["-d", &db, "import", name]));
        assert!(err.contains("3 rows read, 3 stored, 0 rejected"), "{name}: {err}");
        assert_eq!(range(d, &db), stored, "{name}");
    }
}

#[test]
fn bloomberg_and_spreadsheet_error_values_are_null_beside_numbers() {
    // `#N/A N/A` made Bloomberg's BEST_EPS a str(64) column; a spreadsheet's `#DIV/0!` too.
    let t = TempDir::new().unwrap();
    let d = t.path();
    fs::write(
        d.join("bbg.csv"),
        "Dates,PX_LAST,BEST_EPS,RATIO\n1/4/2021,13.21,#N/A N/A,0.5\n1/5/2021,13.45,1.25,#DIV/0!\n\
         1/6/2021,#N/A Invalid Security,#N/A Field Not Applicable,0.25\n",
    )
    .unwrap();
    let (_, err) = ok(xs(d).args(["-d", "b", "import", "bbg.csv", "--time-format", "mdy"]));
    assert!(err.contains("`#N/A N/A`"), "{err}");
    assert_eq!(
        range(d, "b"),
        "Dates,PX_LAST,BEST_EPS,RATIO\n2021-01-04T00:00:00Z,13.21,,0.50\n\
         2021-01-05T00:00:00Z,13.45,1.25,\n2021-01-06T00:00:00Z,,,0.25\n"
    );
}

#[test]
fn a_zone_named_before_the_header_is_warned_of_when_times_are_read_as_utc() {
    // Open-Meteo writes its zone in a block above the header and local times without an
    // offset: they were stored an hour off (Berlin in winter) with no word.
    let t = TempDir::new().unwrap();
    let d = t.path();
    let text = "latitude,longitude,utc_offset_seconds,timezone,timezone_abbreviation\n\
                52.52,13.42,3600,Europe/Berlin,CET\n\n\
                time,temperature_2m (°C)\n2021-01-04T00:00,1.5\n2021-01-04T01:00,1.25\n2021-01-04T02:00,1.0\n";
    fs::write(d.join("om.csv"), text).unwrap();
    let (_, err) = ok(xs(d).args(["-d", "o", "import", "-q", "om.csv"]));
    assert!(
        err.contains("the lines before the header name the zone Europe/Berlin")
            && err.contains("--timezone Europe/Berlin"),
        "{err}"
    );
    // Given the zone, the times are placed in it, and nothing more is said.
    let (_, err) = ok(xs(d).args(["-d", "b", "import", "-q", "om.csv", "--timezone", "Europe/Berlin"]));
    assert!(!err.contains("warning"), "{err}");
    assert!(
        range(d, "b").contains("2021-01-03T23:00:00Z,1.50\n"),
        "{}",
        range(d, "b")
    );
}

#[test]
fn inputs_of_one_command_that_cover_the_same_times_are_warned_of() {
    // MetaTrader's per-symbol files, without a symbol column, given as one directory: both
    // symbols' rows were stored side by side at each minute as one series, with no word.
    let t = TempDir::new().unwrap();
    let d = t.path();
    fs::create_dir(d.join("fx")).unwrap();
    fs::write(
        d.join("fx/EURUSD.csv"),
        "2021.01.04,00:00,1.2240,5\n2021.01.04,00:01,1.2247,7\n2021.01.04,00:02,1.2249,9\n",
    )
    .unwrap();
    fs::write(
        d.join("fx/GBPUSD.csv"),
        "2021.01.04,00:00,1.3640,4\n2021.01.04,00:01,1.3647,6\n2021.01.04,00:02,1.3649,8\n",
    )
    .unwrap();
    let (_, err) = ok(xs(d).args(["-d", "db", "import", "-q", "fx"]));
    assert!(
        err.contains(
            "EURUSD.csv and fx/GBPUSD.csv both hold rows from 2021-01-04T00:00:00Z to 2021-01-04T00:02:00Z"
        ) && err.contains("--series-by"),
        "{err}"
    );
    // A day split into two files shares only the time of the cut: nothing to say.
    fs::write(
        d.join("am.csv"),
        "time,v\n2021-01-04T00:00:00Z,1\n2021-01-04T12:00:00Z,2\n",
    )
    .unwrap();
    fs::write(
        d.join("pm.csv"),
        "time,v\n2021-01-04T12:00:00Z,3\n2021-01-04T23:00:00Z,4\n",
    )
    .unwrap();
    let (_, err) = ok(xs(d).args(["-d", "day", "import", "-q", "--depth", "2", "am.csv", "pm.csv"]));
    assert!(!err.contains("both hold rows"), "{err}");
}

#[test]
fn entsoe_intervals_that_name_their_zone_place_a_repeated_hour_twice() {
    // ENTSO-E's exports since 2024 write `(CEST)` and `(CET)` after the times of the day the
    // clocks go back: no format read them (zero flags: no time column; no --time-format
    // either), and `--dst earlier` put both 02:00 at one instant.
    let t = TempDir::new().unwrap();
    let d = t.path();
    let mut text = String::from("\"MTU (CET/CEST)\",\"Actual Total Load (MW)\"\n");
    for (hh, zone, load) in [
        ("01", "", 1),
        ("02", " (CEST)", 2),
        ("02", " (CET)", 3),
        ("03", "", 4),
    ] {
        for q in ["00", "30"] {
            let end = if q == "00" {
                format!("{hh}:30:00")
            } else {
                format!("{:02}:00:00", hh.parse::<u8>().unwrap() + 1)
            };
            let _ = std::fmt::Write::write_fmt(
                &mut text,
                format_args!("\"27/10/2024 {hh}:{q}:00{zone} - 27/10/2024 {end}{zone}\",\"{load}{q}\"\n"),
            );
        }
    }
    fs::write(d.join("load.csv"), &text).unwrap();
    ok(xs(d).args([
        "-d",
        "l",
        "import",
        "-q",
        "load.csv",
        "--timezone",
        "Europe/Berlin",
    ]));
    assert_eq!(
        range(d, "l"),
        "mtu_cet_cest,actual_total_load_mw\n\
         2024-10-26T23:00:00Z,100\n2024-10-26T23:30:00Z,130\n\
         2024-10-27T00:00:00Z,200\n2024-10-27T00:30:00Z,230\n\
         2024-10-27T01:00:00Z,300\n2024-10-27T01:30:00Z,330\n\
         2024-10-27T02:00:00Z,400\n2024-10-27T02:30:00Z,430\n"
    );
}

#[test]
fn a_database_dumps_backslash_n_is_null_in_text_columns_too() {
    // PostgreSQL's `COPY … TO` (text format) and MySQL write `\N` for every null: numbers got
    // null, text kept the two characters `\N`.
    let t = TempDir::new().unwrap();
    let d = t.path();
    let dump = "ts\thost\tnote\tv\n2021-01-04 09:30:00+00\tweb1\t\\N\t1.5\n\
                2021-01-04 09:31:00+00\tweb2\tok\t\\N\n2021-01-04 09:32:00+00\t\\N\tfine\t2.5\n";
    fs::write(d.join("dump.tsv"), dump).unwrap();
    ok(xs(d).args(["-d", "p", "import", "-q", "dump.tsv", "--series-by", "none"]));
    assert_eq!(
        range(d, "p"),
        "ts,host,note,v\n2021-01-04T09:30:00Z,web1,,1.5\n2021-01-04T09:31:00Z,web2,ok,\n\
         2021-01-04T09:32:00Z,,fine,2.5\n"
    );
}

#[test]
fn an_average_time_beside_a_date_and_seconds_since_1904_are_not_the_time() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // Google Analytics: `Avg. Time on Page` (00:03:51) was joined to `Date` as its clock, so
    // every day's row sat at 00:03:51, and a refreshed report added a second row per day.
    let ga = "# ----------------------------------------\n# Pages\n# ----------------------------------------\n\n\
              Date,Avg. Time on Page,Pageviews\n20210104,00:03:51,4776\n20210105,00:05:45,1931\n20210106,00:02:10,2010\n";
    fs::write(d.join("ga.csv"), ga).unwrap();
    ok(xs(d).args(["-d", "ga", "import", "-q", "ga.csv"]));
    assert!(
        range(d, "ga").starts_with("Date,avg_time_on_page,Pageviews\n2021-01-04T00:00:00Z,00:03:51,4776\n"),
        "{}",
        range(d, "ga")
    );
    // LabVIEW counts seconds from 1904: read from 1970 they were stored in 2087, exit 0.
    let mut lv = String::from("Time\tVoltage\n");
    for i in 0..10 {
        lv.push_str(&format!("{}.000\t5.04{i}\n", 3_692_597_400u64 + i));
    }
    fs::write(d.join("lv.txt"), lv).unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "lv", "import", "lv.txt"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("fall in 2087, decades from now") && err.contains("subtract 2082844800"),
        "{err}"
    );
    assert!(!d.join("lv").exists());
}

#[test]
fn an_order_book_without_times_is_refused_and_dashes_are_null_beside_numbers() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // LOBSTER's order book file has no time (its message file has): its first column, a
    // price level that stood still, was read as milliseconds since midnight of the name's
    // date and every row stored at 01:37:33.400.
    let book: String = (0..12)
        .map(|i| format!("5853400,{},5853200,{}\n", 95 + i, 412 - i))
        .collect();
    fs::write(d.join("AAPL_2012-06-21_34200000_57600000_orderbook_1.csv"), book).unwrap();
    let (code, _, err) = run(xs(d).args([
        "-d",
        "ob",
        "import",
        "AAPL_2012-06-21_34200000_57600000_orderbook_1.csv",
    ]));
    assert_eq!(code, 2, "{err}");
    assert!(!d.join("ob").exists());
    // Davis WeatherLink writes `---` where a sensor gave nothing: the column was text.
    let davis = "time,Temp Out,THSW Index\n2021-01-04T00:05:00Z,3.1,---\n2021-01-04T00:10:00Z,3.0,2.5\n\
                 2021-01-04T00:15:00Z,--,2.25\n";
    fs::write(d.join("davis.csv"), davis).unwrap();
    ok(xs(d).args(["-d", "dv", "import", "-q", "davis.csv"]));
    assert_eq!(
        range(d, "dv"),
        "time,temp_out,thsw_index\n2021-01-04T00:05:00Z,3.1,\n2021-01-04T00:10:00Z,3.0,2.50\n\
         2021-01-04T00:15:00Z,,2.25\n"
    );
}

/// A pipe or FIFO named by its path (`xs import <(cat f.csv)`, `/dev/stdin`, `mkfifo`) is read
/// once: the first 8 bytes were read to look for Parquet and then lost (the first row became
/// the header, exit 0), a gzip stream lost its magic, a large one was sampled by reopening it,
/// and a FIFO's writer was cut off so that the import waited forever.
#[test]
fn a_pipe_named_by_its_path_is_read_once_and_whole() {
    use std::io::Write;
    let t = TempDir::new().unwrap();
    let d = t.path();
    let mut csv = String::from("time,v\n");
    for i in 0..200_000 {
        csv.push_str(&format!("{},{}\n", 1_704_067_200 + i, i % 977));
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(csv.as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    let last = "2024-01-03T07:33:19Z,691\n";
    for (db, bytes) in [("plain", csv.as_bytes().to_vec()), ("gz", gz)] {
        ok(xs(d)
            .args(["-d", db, "import", "-q", "/dev/stdin"])
            .write_stdin(bytes));
        let rows = range(d, db);
        assert!(
            rows.starts_with("time,v\n2024-01-01T00:00:00Z,0\n"),
            "{db}: {}",
            &rows[..80]
        );
        assert_eq!(rows.lines().count(), 200_001, "{db}");
        assert!(rows.ends_with(last), "{db}");
    }
    // A FIFO, its writer another process's thread.
    let fifo = d.join("feed.csv");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let writer = {
        let (fifo, csv) = (fifo.clone(), csv.clone());
        std::thread::spawn(move || fs::write(fifo, csv))
    };
    ok(xs(d)
        .args(["-d", "fifo", "import", "-q"])
        .arg(&fifo)
        .timeout(std::time::Duration::from_secs(60)));
    writer.join().unwrap().unwrap();
    let rows = range(d, "fifo");
    assert_eq!(rows.lines().count(), 200_001);
    assert!(rows.ends_with(last));
}

/// Minute bars as charting and broker exports write them: `Date,Time` with the clock as a
/// number, `930` for 09:30 (no leading zero for the hour), `1559` for 15:59. With zero flags
/// the two columns were not joined (a three-digit clock was no clock), and joined by hand they
/// were refused as HHMM; now both columns make each bar's time, stored to the minute.
#[test]
fn minute_bars_with_hmm_clocks_beside_their_date_are_read_with_zero_flags() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let mut csv = String::from("Date,Time,Open,High,Low,Close,Volume\n");
    for day in ["20240307", "20240308"] {
        for minute in (9 * 60 + 30..16 * 60).step_by(15) {
            let clock = (minute / 60) * 100 + minute % 60;
            csv += &format!(
                "{day},{clock},510.{},510.9,509.1,510.5,{}\n",
                minute % 10,
                1000 + minute
            );
        }
    }
    fs::write(d.join("bars.csv"), &csv).unwrap();
    let (_, err) = ok(xs(d).args(["-d", "bars", "import", "bars.csv"]));
    assert!(err.contains("time from columns `Date`+`Time` joined"), "{err}");
    let out = range(d, "bars");
    assert_eq!(out.lines().count(), 1 + 2 * 26, "{out}");
    for row in [
        "Date_Time,Open,High,Low,Close,Volume",
        "2024-03-07T09:30:00Z,510.0,510.9,509.1,510.5,1570",
        "2024-03-07T10:00:00Z,510.0,510.9,509.1,510.5,1600",
        "2024-03-08T15:45:00Z,510.5,510.9,509.1,510.5,1945",
    ] {
        assert!(out.lines().any(|l| l == row), "{row}: {out}");
    }
}

/// A few clock times written HHMM in a file whose name holds the date (`930`, `1000`,
/// `1559`) were stored as seconds since midnight, 00:15:30 … 00:25:59, exit 0: too few
/// values to tell the two readings apart are now refused, naming --time-unit s.
#[test]
fn a_few_hhmm_numbers_are_not_taken_for_seconds_since_midnight() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    fs::write(
        d.join("ES_20240308.csv"),
        "Time,Open\n930,1\n931,2\n1000,3\n1559,4\n",
    )
    .unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "es", "import", "ES_20240308.csv"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("read both as clock times written HHMM and as seconds since midnight"),
        "{err}"
    );
    assert!(
        err.contains("pass --time-format hhmm if they are clock times"),
        "{err}"
    );
    assert!(err.contains("--time-unit s if they are seconds"), "{err}");
    assert!(!d.join("es").exists());
    // Said to be seconds, they are; said to be clocks, they are.
    ok(xs(d).args(["-d", "es", "import", "-q", "--time-unit", "s", "ES_20240308.csv"]));
    assert!(range(d, "es").contains("\n2024-03-08T00:15:30Z,1\n"));
    ok(xs(d).args([
        "-d",
        "hm",
        "import",
        "-q",
        "--time-format",
        "hhmm",
        "ES_20240308.csv",
    ]));
    assert!(range(d, "hm").contains("\n2024-03-08T09:30:00Z,1\n2024-03-08T09:31:00Z,2\n"));
}

/// What a review found the first reading of `930` beside a date did wrong: a 3-digit
/// quantity named like a time (`ResponseTime`, one row a date) and batch ids after a date
/// (`2024-03-07-001`) became times of day, and `--time-unit s` no longer decided. Also: a
/// 24-hour day of bars (`0` … `2359`) and hourly rows (`0`, `100` … `2300`) beside their
/// date, stored at the date's midnight with exit 0, are read as clocks.
#[test]
fn hmm_clocks_beside_a_date_are_read_only_where_they_are_clocks() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let mut resp = String::from("Date,ResponseTime,Requests\n");
    for day in 1..=25 {
        resp += &format!("2024-02-{day:02},{},3331\n", 118 + day);
    }
    fs::write(d.join("resp.csv"), resp).unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "r", "import", "resp.csv"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("pass --time-column Date to store each row at its day's midnight"),
        "{err}"
    );
    let mut ids = String::from("batch,weight\n");
    for k in 1..=40 {
        ids += &format!("2024-03-07-{k:03},12\n");
    }
    fs::write(d.join("batches.csv"), ids).unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "b", "import", "batches.csv"]));
    assert_eq!(code, 2, "{err}");
    let mut secs = String::from("Date,Secs,value\n");
    for k in 1..=20 {
        secs += &format!("2024-03-09,{},{k}\n", 100 * k + 200);
    }
    fs::write(d.join("secs.csv"), secs).unwrap();
    ok(xs(d).args([
        "-d",
        "s",
        "import",
        "-q",
        "--time-column",
        "Date,Secs",
        "--time-unit",
        "s",
        "secs.csv",
    ]));
    assert!(
        range(d, "s").contains("\n2024-03-09T00:05:00Z,1\n"),
        "{}",
        range(d, "s")
    );
    let mut bars = String::from("Date,Time,Close\n");
    for minute in 0..24 * 60 {
        bars += &format!("20240308,{},{minute}\n", minute / 60 * 100 + minute % 60);
    }
    fs::write(d.join("bars24.csv"), bars).unwrap();
    ok(xs(d).args(["-d", "bars", "import", "-q", "bars24.csv"]));
    let out = range(d, "bars");
    assert_eq!(out.lines().count(), 1 + 1440);
    for row in [
        "Date_Time,Close",
        "2024-03-08T00:00:00Z,0",
        "2024-03-08T00:05:00Z,5",
        "2024-03-08T23:59:00Z,1439",
    ] {
        assert!(out.lines().any(|l| l == row), "{row}: {out}");
    }
    let mut hourly = String::from("Date,Time,TempC\n");
    for day in 1..=3 {
        for hour in 0..24 {
            hourly += &format!("2024-03-{day:02},{},{hour}\n", hour * 100);
        }
    }
    fs::write(d.join("hourly.csv"), hourly).unwrap();
    ok(xs(d).args(["-d", "h", "import", "-q", "hourly.csv"]));
    let out = range(d, "h");
    assert_eq!(out.lines().count(), 1 + 72);
    assert!(
        out.contains("\n2024-03-01T00:00:00Z,0\n2024-03-01T01:00:00Z,1\n"),
        "{out}"
    );
}

/// Two FIFOs fed in turn by one writer (`cat a > f1; cat b > f2`): the Parquet sniffing of
/// pipes held the first open, unread, while it opened the second, and the import waited
/// forever on a writer stuck on the first. And `- /dev/stdin` split one stream between two
/// readers (a record cut in two, exit 4): refused.
#[test]
fn fifos_fed_in_turn_are_read_in_turn() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let day = |from: i64| {
        let mut csv = String::from("time,v\n");
        for i in 0..20_000 {
            csv.push_str(&format!("{},{}\n", from + i, i % 977));
        }
        csv
    };
    let (a, b) = (day(1_704_067_200), day(1_704_153_600));
    let (f1, f2) = (d.join("f1"), d.join("f2"));
    for f in [&f1, &f2] {
        assert!(std::process::Command::new("mkfifo")
            .arg(f)
            .status()
            .unwrap()
            .success());
    }
    let writer = {
        let (f1, f2) = (f1.clone(), f2.clone());
        std::thread::spawn(move || fs::write(f1, a).and_then(|_| fs::write(f2, b)))
    };
    ok(xs(d)
        .args(["-d", "two", "import", "-q"])
        .arg(&f1)
        .arg(&f2)
        .timeout(std::time::Duration::from_secs(60)));
    writer.join().unwrap().unwrap();
    assert_eq!(range(d, "two").lines().count(), 1 + 40_000);

    let (code, _, err) = run(xs(d)
        .args(["-d", "dup", "import", "-", "/dev/stdin"])
        .write_stdin(day(1_704_067_200)));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("are the same input (standard input); name it once"),
        "{err}"
    );
    assert!(!d.join("dup").exists());
}

/// Numbers that read as seconds since midnight of the file name's date, but are not: each
/// stored every row at a wrong time of the right day with exit 0. Now refused, naming the way.
#[test]
fn numbers_that_are_no_seconds_since_midnight_are_refused() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // Minute bars' `930` … `1559` (HHMM) were 00:15:30 … 00:25:59; then refused; now they
    // are read as the clocks they are, on the file name's date.
    let input = fixture(d, "spy_bars_20240308.csv");
    let (_, err) = ok(xs(d).args(["-d", "spy", "import"]).arg(&input));
    assert!(
        err.contains(
            "clock times written HHMM: numbers from 930 to 1559 whose last two digits never pass \
             59 (390 values), not seconds since midnight"
        ),
        "{err}"
    );
    let out = range(d, "spy");
    assert_eq!(out.lines().count(), 1 + 390, "{out}");
    assert!(
        out.starts_with("Time,Close\n2024-03-08T09:30:00Z,170.03\n"),
        "{out}"
    );
    assert!(out.ends_with("\n2024-03-08T15:59:00Z,170.00\n"), "{out}");
    for (name, says) in [
        // A logger's Excel serial times `45360.010417` were 12:36:00.010417.
        (
            "logger_20240309.csv",
            "whose whole part is the serial day of the file name's date `20240309` (45360): \
             spreadsheet serial times (days since 1899-12-30), not seconds since midnight; pass \
             --time-format excel",
        ),
        // A PI export's `Sample` counter beside a `Timestamp` xs cannot read (a two-digit year)
        // was taken for seconds, though a column named like a time holds the times.
        (
            "pi_export_20240309.csv",
            "column `Timestamp`, named like a time, holds times such as `09-Mar-24 10:00:00` that \
             read in no format xs knows",
        ),
        // A minute of the day beside the date: every row of a day was at its midnight.
        (
            "date_minute.csv",
            "column `Date` holds dates alone (`2024-03-09`) and the column after it, `Minute`, \
             values (`0`) that xs does not read as a time of day beside them",
        ),
    ] {
        let input = fixture(d, name);
        let db = format!("db_{name}");
        let (code, _, err) = run(xs(d).args(["-d", &db, "import"]).arg(&input));
        assert_eq!(code, 2, "{name}: {err}");
        assert!(err.contains(says), "{name}: {err}");
        assert!(!d.join(&db).exists(), "{name}: a database was left");
    }
    // The flag named reads the serial times.
    let input = fixture(d, "logger_20240309.csv");
    ok(xs(d)
        .args(["-d", "x", "import", "--time-format", "excel"])
        .arg(&input));
    assert!(
        range(d, "x").contains("\n2024-03-09T00:15:00.029Z,20.1\n"),
        "{}",
        range(d, "x")
    );
}

/// A long-format metrics export (`timestamp,instance,metric,value`: a row per instance and
/// metric at each time) keys its series by both columns: the key guessed was `instance`
/// alone, and the next file, of another metric, replaced the first file's rows (a warning
/// said so, naming `--unique-by`).
#[test]
fn a_long_format_export_keys_its_series_by_both_name_columns() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let first = fixture(d, "prom_long_cpu_mem.csv");
    let (_, err) = ok(xs(d).args(["-d", "p", "import"]).arg(&first));
    assert!(err.contains("series key `instance,metric` (guessed)"), "{err}");
    assert!(err.contains("--series-by instance,metric"), "{err}");
    let second = fixture(d, "prom_long_disk.csv");
    let (_, err) = ok(xs(d).args(["-d", "p", "import"]).arg(&second));
    assert!(!err.contains("removed") && !err.contains("replaced"), "{err}");
    let rows = range(d, "p");
    assert_eq!(rows.lines().count(), 1 + 40 * 3 * 3, "{rows}");
    // Each stored row is an input row.
    let mut want: Vec<String> = [&first, &second]
        .iter()
        .flat_map(|f| {
            fs::read_to_string(f)
                .unwrap()
                .lines()
                .skip(1)
                .map(String::from)
                .collect::<Vec<_>>()
        })
        .collect();
    let mut got: Vec<String> = rows
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let t = chrono::DateTime::parse_from_rfc3339(f[0]).unwrap().timestamp();
            format!("{t},{},{},{}", f[1], f[2], f[3])
        })
        .collect();
    want.sort();
    got.sort();
    assert_eq!(got, want);
}

/// Files joined end to end repeat their header; with a trailing delimiter too (`timestamp,
/// value,`), the repeated header made every column look like text, so the first line was
/// taken for data and the import refused ("found no column whose values read as times").
#[test]
fn a_repeated_header_does_not_hide_the_header() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let input = d.join("joined.csv");
    fs::write(
        &input,
        "timestamp,value,\n2024-01-01 00:00:00,1.0,\n2024-01-01 00:10:00,1.1,\n\
         timestamp,value,\n2024-01-01 00:20:00,1.2,\n",
    )
    .unwrap();
    let (_, err) = ok(xs(d).args(["-d", "j", "import"]).arg(&input));
    assert!(err.contains("1 line(s) repeating the header skipped"), "{err}");
    let rows = range(d, "j");
    assert!(rows.starts_with("timestamp,value\n"), "{rows}");
    assert!(
        rows.contains("\n2024-01-01T00:00:00Z,1.0\n")
            && rows.contains("\n2024-01-01T00:10:00Z,1.1\n")
            && rows.contains("\n2024-01-01T00:20:00Z,1.2\n"),
        "{rows}"
    );
    assert_eq!(rows.lines().count(), 4, "{rows}");
}

/// Ordinary files that the first versions of this stop's fixes misread, found by a review:
/// a text trade id joined the series key (a series per row), `min_temp` and `quarter` beside
/// a date were taken for times within the day (refused), and a constant `load_ts` beside a
/// `date` became the time (every row at one instant).
#[test]
fn ordinary_columns_beside_a_date_or_a_series_stay_what_they_are() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let symbols = ["AAPL", "MSFT", "IBM", "ORCL"];
    let mut trades = String::from("time,symbol,trade_id,price,qty\n");
    let mut weather = String::from("date,min_temp,max_temp,station\n");
    let mut quarter = String::from("date,quarter,company,revenue\n");
    let mut loads = String::from("date,symbol,close,load_ts\n");
    for k in 0..40 {
        for (s, sym) in symbols.iter().enumerate() {
            let n = k * 4 + s;
            trades.push_str(&format!(
                "2024-03-01T14:00:{:02}Z,{sym},T{n:08}x,{}.5,{}\n",
                k,
                100 + s,
                10 + k
            ));
            let day = format!("2024-02-{:02}", 1 + k % 28);
            if k < 28 {
                weather.push_str(&format!("{day},{},{},K{sym}\n", s as i64 - 3, 10 + s));
                quarter.push_str(&format!("{day},Q{},{sym},{}\n", 1 + k % 4, 10 * n));
                loads.push_str(&format!("{day},{sym},{},2024-03-01 06:00:00\n", 100 + n));
            }
        }
    }
    for (name, text, time, series) in [
        ("trades.csv", &trades, "time", "symbol"),
        ("weather.csv", &weather, "date", "station"),
        ("quarter.csv", &quarter, "date", "company"),
        ("loads.csv", &loads, "date", "symbol"),
    ] {
        let input = d.join(name);
        fs::write(&input, text).unwrap();
        let db = format!("db_{name}");
        let (_, err) = ok(xs(d).args(["-d", &db, "import"]).arg(&input));
        assert!(err.contains(&format!("time column `{time}`")), "{name}: {err}");
        assert!(
            err.contains(&format!("series key `{series}` (guessed)")),
            "{name}: {err}"
        );
        let rows = text.lines().count();
        assert!(
            err.contains(&format!("{} rows read, {} stored", rows - 1, rows - 1)),
            "{name}: {err}"
        );
    }
}

/// A date column beside seconds since midnight (`Date,Time` = `2024-03-07,34224.685659`, as
/// LOBSTER-style and exchange exports write them): with a fraction, the dates alone were
/// taken as the time and every row of a day was stored at its midnight, exit 0; the refusal
/// for whole seconds named `--time-column Date,Time`, which then read nothing. Now both are
/// refused with zero flags, and the join the refusal names reads each row's time from both.
/// So is a file whose name has a date and whose `Date` column holds other dates.
#[test]
fn a_date_beside_seconds_since_midnight_is_read_from_both() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let first = fixture(d, "secs_of_day_ticks.csv");
    let (code, _, err) = run(xs(d).args(["-d", "s", "import"]).arg(&first));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("pass --time-column Date,Time"), "{err}");
    assert!(!d.join("s").exists());

    let (_, err) = ok(xs(d)
        .args(["-d", "s", "import", "--time-column", "Date,Time"])
        .arg(&first));
    assert!(
        err.contains("a date (ISO-8601 times) and seconds since its midnight"),
        "{err}"
    );
    // Into the database it made, the same way.
    let more = fixture(d, "secs_of_day_ticks_more.csv");
    ok(xs(d)
        .args(["-d", "s", "import", "-q", "--time-column", "Date,Time"])
        .arg(&more));
    let out = range(d, "s");
    assert_eq!(out.lines().count(), 1 + 80 + 30, "{out}");
    for row in [
        "2024-03-07T09:30:24.685659Z,181.78,3000",
        "2024-03-08T09:30:17.264723Z,181.70,4900",
        "2024-03-11T09:40:47.940368Z,181.02,4400",
    ] {
        assert!(out.contains(&format!("\n{row}\n")), "{row}: {out}");
    }

    // Whole seconds, milliseconds by their median (one second past a day is rejected, not
    // taken for a unit), a row that does not read rejected alone; a clock written HHMM
    // beside a date is still a clock.
    let csv = |times: &str| {
        let mut csv = String::from("Date,Time,v\n");
        for (k, time) in times.split(',').enumerate() {
            csv += &format!("2024-03-0{},{time},{k}\n", 7 + k % 2);
        }
        fs::write(d.join("j.csv"), csv).unwrap();
    };
    for (case, (times, first_stored, rejected)) in [
        ("34200,34260,36000,37800", "2024-03-07T09:30:00Z", 0),
        (
            "34200123,34260000,36000000,37800000",
            "2024-03-07T09:30:00.123Z",
            0,
        ),
        (
            "34200,34260,36000,86401,37800,38000,39000,40000",
            "2024-03-07T09:30:00Z",
            1,
        ),
        (
            "34200.5,34260,n/a,37800,38000,39000,40000,41000",
            "2024-03-07T09:30:00.500Z",
            1,
        ),
        ("0930,0931,1000,1030", "2024-03-07T09:30:00Z", 0),
    ]
    .into_iter()
    .enumerate()
    {
        csv(times);
        let db = format!("j{case}");
        let (code, _, err) = run(xs(d).args(["-d", &db, "import", "j.csv", "--time-column", "Date,Time"]));
        assert_eq!(code, if rejected > 0 { 4 } else { 0 }, "{times}: {err}");
        let out = range(d, &db);
        assert!(out.contains(&format!("\n{first_stored},0\n")), "{times}: {out}");
        assert_eq!(
            out.lines().count(),
            1 + times.split(',').count() - rejected,
            "{times}: {out}"
        );
    }
    // Numbers that are no seconds since midnight are refused, joined or not: clocks too few
    // to tell from seconds (20 or more are read, `minute_bars_with_hmm_clocks…`) and a
    // spreadsheet's fractions of a day.
    for (times, says) in [
        (
            "930,931,945,1000,1559",
            "clock times written HHMM or seconds since midnight, and the sample has too few (xs \
             reads 20 distinct or more, several to a date, as clocks) to tell: pass --time-format \
             hhmm if they are clock times, --time-unit s if they are seconds since midnight",
        ),
        (
            "0.375,0.5,0.625,0.75",
            "as a spreadsheet's fractions of a day are",
        ),
    ] {
        csv(times);
        let (code, _, err) = run(xs(d).args(["-d", "r", "import", "j.csv", "--time-column", "Date,Time"]));
        assert_eq!(code, 2, "{times}: {err}");
        assert!(err.contains(says), "{times}: {err}");
        assert!(!d.join("r").exists());
    }
    // The flag the refusal names reads them as clocks, with the pair joined or not.
    csv("930,931,945,1000,1559");
    for flags in [
        &["--time-format", "hhmm"][..],
        &["--time-column", "Date,Time", "--time-format", "hhmm"],
    ] {
        let db = format!("hm{}", flags.len());
        let (_, err) = ok(xs(d).args(["-d", &db, "import", "j.csv"]).args(flags));
        assert!(
            err.contains("and clock times written HHMM (--time-format hhmm)"),
            "{err}"
        );
        let out = range(d, &db);
        assert!(out.contains("\n2024-03-07T09:30:00Z,0\n"), "{out}");
        assert!(out.contains("\n2024-03-07T15:59:00Z,4\n"), "{out}");
    }
    // A daily file of a date and a duration named like a time keeps its dates (one row a
    // date: no time of day to join), and a value column `2024-03-07 1` is no time.
    fs::write(
        d.join("runs.csv"),
        "Activity Date,Moving Time,Distance\n2024-02-01,1830.5,5.1\n2024-02-02,1860.25,6.0\n2024-02-03,1900.75,6.2\n",
    )
    .unwrap();
    ok(xs(d).args(["-d", "runs", "import", "runs.csv"]));
    assert!(
        range(d, "runs").contains("\n2024-02-01T00:00:00Z,1830.50,5.1\n"),
        "{}",
        range(d, "runs")
    );
    fs::write(
        d.join("batch.csv"),
        "batch,v\n2024-03-07 1,5\n2024-03-07 2,6\n2024-03-08 1,7\n",
    )
    .unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "b", "import", "batch.csv"]));
    assert_eq!(code, 2, "{err}");

    // A date in the file name does not date the rows of a `Date` column of other days: the
    // rows of 2024-03-08 were stored on 2024-03-07, the file name's date, exit 0.
    fs::copy(&first, d.join("ticks_20240307.csv")).unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "n", "import", "ticks_20240307.csv"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("but column `Date` holds other dates (`2024-03-08`)")
            && err.contains("Pass --time-column Date,Time"),
        "{err}"
    );
    assert!(!d.join("n").exists());
    // Dates that are the file name's are what they were.
    fs::copy(&more, d.join("ticks_20240311.csv")).unwrap();
    ok(xs(d).args(["-d", "n", "import", "ticks_20240311.csv"]));
    assert!(
        range(d, "n").contains("\n2024-03-11T09:40:47.940368Z,2024-03-11,181.02,4400\n"),
        "{}",
        range(d, "n")
    );
}

#[test]
fn dates_with_two_digit_years_are_joined_with_their_clock_and_read_in_their_century() {
    // US spreadsheets and weather loggers (Davis WeatherLink, Onset HOBO) write `1/13/24`
    // beside `12:05 AM`: refused before, naming --date, --time-column and a strftime pattern.
    let t = TempDir::new().unwrap();
    let d = t.path();
    let us = "Date,Time,Temp Out\n1/13/24,12:05 AM,45.2\n1/13/24,12:15 PM,50.1\n1/14/24,1:20 PM,51.1\n";
    fs::write(d.join("us.csv"), us).unwrap();
    let (_, err) = ok(xs(d).args(["-d", "us", "import", "us.csv"]));
    assert!(
        err.contains("month/day/year") && err.contains("two-digit years: 00-68 read as 2000-2068"),
        "{err}"
    );
    assert_eq!(
        range(d, "us"),
        "Date_Time,temp_out\n2024-01-13T00:05:00Z,45.2\n2024-01-13T12:15:00Z,50.1\n\
         2024-01-14T13:20:00Z,51.1\n"
    );
    // Day first, in one column, across a century: 99 is 1999, 00 is 2000.
    let uk = "time,v\n31/12/99 23:30,1\n01/01/00 00:30,2\n13/01/00 12:00,3\n";
    fs::write(d.join("uk.csv"), uk).unwrap();
    ok(xs(d).args(["-d", "uk", "import", "-q", "uk.csv"]));
    assert_eq!(
        range(d, "uk"),
        "time,v\n1999-12-31T23:30:00Z,1\n2000-01-01T00:30:00Z,2\n2000-01-13T12:00:00Z,3\n"
    );
    // Year first, as Japanese files write it (`24/01/06`): every value also reads day first
    // (24 January 2006), so it is refused rather than stored across thirty years.
    let jp: String = std::iter::once("date,v\n".to_string())
        .chain((1..=28).step_by(3).map(|day| format!("24/01/{day:02},{day}\n")))
        .collect();
    fs::write(d.join("jp.csv"), jp).unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "jp", "import", "jp.csv"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--time-format '%y/%m/%d'"), "{err}");
    ok(xs(d).args(["-d", "jp", "import", "-q", "jp.csv", "--time-format", "%y/%m/%d"]));
    assert!(
        range(d, "jp").contains("\n2024-01-28T00:00:00Z,28\n"),
        "{}",
        range(d, "jp")
    );
}

#[test]
fn davis_weatherlinks_one_letter_meridiem_is_read() {
    // WeatherLink exports `1/13/24` beside `12:05a` (and `---` for a missing reading): the
    // clock read in no format, and the import was refused.
    let t = TempDir::new().unwrap();
    let d = t.path();
    let text = "Date\tTime\tTemp Out\tHi Temp\n1/13/24\t11:55p\t45.2\t45.3\n\
                1/14/24\t12:00a\t45.1\t---\n1/14/24\t12:05p\t50.1\t50.2\n";
    fs::write(d.join("davis.txt"), text).unwrap();
    ok(xs(d).args(["-d", "w", "import", "-q", "davis.txt"]));
    assert_eq!(
        range(d, "w"),
        "Date_Time,temp_out,hi_temp\n2024-01-13T23:55:00Z,45.2,45.3\n\
         2024-01-14T00:00:00Z,45.1,\n2024-01-14T12:05:00Z,50.1,50.2\n"
    );
}

#[test]
fn a_date_and_a_time_of_day_apart_or_reversed_are_joined_never_stored_at_midnight() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // The time of day first: before, every row went to its date's midnight, exit 0.
    let input = fixture(d, "time_before_date.csv");
    let (_, err) = ok(xs(d).args(["-d", "rev", "import"]).arg(&input));
    assert!(err.contains("time column `Date_Time`"), "{err}");
    let out = range(d, "rev");
    assert_eq!(out.lines().count(), 13, "{out}");
    assert!(
        out.starts_with("Date_Time,Value\n2024-03-04T09:30:00Z,0\n2024-03-04T12:30:00Z,1\n"),
        "{out}"
    );
    assert!(out.contains("\n2024-03-05T18:30:00Z,11\n"), "{out}");
    // A later file of the same shape finds the two columns again.
    fs::write(d.join("more.csv"), "Time,Date,Value\n09:30:00,2024-03-06,12\n").unwrap();
    ok(xs(d).args(["-d", "rev", "import"]).arg(d.join("more.csv")));
    assert!(range(d, "rev").contains("\n2024-03-06T09:30:00Z,12\n"));

    // Apart, a series key between them (`Date,Symbol,Time,Price`).
    let input = fixture(d, "date_symbol_time.csv");
    ok(xs(d).args(["-d", "sym", "import"]).arg(&input));
    let out = range(d, "sym");
    assert_eq!(out.lines().count(), 13, "{out}");
    assert!(
        out.starts_with(
            "Date_Time,Symbol,Price\n2024-03-04T09:30:00Z,A,100.5\n2024-03-04T12:30:00Z,B,101.5\n"
        ),
        "{out}"
    );
}

#[test]
fn a_spreadsheet_footer_does_not_part_the_date_from_its_time_of_day() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // Three rows and `Summe;;3.000,75;6;`: before, the footer made the dates the time, and the
    // three rows went to midnight.
    let input = fixture(d, "excel_footer_de.csv");
    let (code, _, err) = run(xs(d).args(["-d", "de", "import"]).arg(&input));
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("time column `Datum_Uhrzeit`"), "{err}");
    let out = range(d, "de");
    assert_eq!(
        out,
        "Datum_Uhrzeit,Preis,Menge\n\
         2024-03-04T09:30:00Z,1000.00,1\n\
         2024-03-04T09:37:00Z,1001.50,2\n\
         2024-03-04T09:44:00Z,999.25,3\n"
    );
    let rejects = fs::read_dir(d.join("de"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("rejects-"))
        .unwrap();
    let rejects = fs::read_to_string(rejects).unwrap();
    assert!(rejects.contains("unreadable time: `Summe `"), "{rejects}");
}

#[test]
fn dates_beside_times_of_day_that_cannot_be_joined_are_refused_not_stored_at_midnight() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // One value in four of `Time` is text: not joined, and the dates alone would stack each
    // day's rows at its midnight.
    let input = fixture(d, "clock_mixed.csv");
    let (code, _, err) = run(xs(d).args(["-d", "mixed", "import"]).arg(&input));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "column `Date` holds dates alone (`2024-03-04`) and column `Time` times of day (`09:30`)"
        ) && err.contains("--time-column Date,Time to join them"),
        "{err}"
    );
    assert!(!d.join("mixed").join("xs.toml").exists());
    // The flag the message gives, and then the format the next message asks for: the rows
    // with both are stored, the others rejected.
    let (code, _, err) = run(xs(d)
        .args(["-d", "mixed", "import", "--time-column", "Date,Time"])
        .arg(&input));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--time-format"), "{err}");
    let (code, _, err) = run(xs(d)
        .args([
            "-d",
            "mixed",
            "import",
            "--time-column",
            "Date,Time",
            "--time-format",
            "%Y-%m-%d %H:%M",
        ])
        .arg(&input));
    assert_eq!(code, 4, "{err}");
    let out = range(d, "mixed");
    assert!(
        out.starts_with("Date_Time,Value\n2024-03-04T09:30:00Z,1\n"),
        "{out}"
    );
    assert_eq!(out.lines().count(), 8, "{out}");

    // A daily table (one row a date): the dates are the time, the sunrise a value.
    let input = fixture(d, "daily_sunrise.csv");
    let (_, err) = ok(xs(d).args(["-d", "daily", "import"]).arg(&input));
    assert!(err.contains("time column `Date`"), "{err}");
    assert!(range(d, "daily").starts_with("Date,Sunrise,Temp\n2024-03-04T00:00:00Z,06:40,0.5\n"));
}

#[test]
fn per_instrument_files_keyed_by_isin_keep_each_others_rows() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // Before, `ISIN` was no series name: the second file replaced the first's 3 rows, exit 0.
    for (file, isin, base) in [("de.csv", "DE0007164600", 100), ("us.csv", "US0378331005", 200)] {
        let rows: String = (1..=3)
            .map(|day| format!("2024-01-0{day},{isin},{}.5\n", base + day))
            .collect();
        fs::write(d.join(file), format!("Date,ISIN,Close\n{rows}")).unwrap();
        let (_, err) = ok(xs(d).args(["-d", "isin", "import"]).arg(d.join(file)));
        assert!(!err.contains("replaced"), "{err}");
    }
    let out = range(d, "isin");
    assert_eq!(out.lines().count(), 7, "{out}");
    assert!(
        out.contains("2024-01-01T00:00:00Z,DE0007164600,101.5\n2024-01-01T00:00:00Z,US0378331005,201.5\n"),
        "{out}"
    );
}

#[test]
fn empty_fields_past_the_headers_width_are_dropped_not_the_row() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // Some lines end with the delimiter, as spreadsheets write ragged rows: before, each was
    // rejected ("expected 3 fields, found 4"). A line with text past the header's width is
    // still rejected.
    fs::write(
        d.join("a.csv"),
        "time;a;b\n2024-01-01T00:00:00Z;1;2\n2024-01-02T00:00:00Z;3;4;\n\
         2024-01-03T00:00:00Z;5;6; ;\n2024-01-04T00:00:00Z;7;8;x\n",
    )
    .unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "r", "import", "a.csv"]));
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("4 rows read, 3 stored, 1 rejected"), "{err}");
    assert_eq!(
        range(d, "r"),
        "time,a,b\n2024-01-01T00:00:00Z,1,2\n2024-01-02T00:00:00Z,3,4\n2024-01-03T00:00:00Z,5,6\n"
    );
}
