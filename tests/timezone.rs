//! The zone of local times is the database's (`timezone` in xs.toml, format 5): a database
//! created from New York times reads the next day's file in New York time too, without the
//! flag that a cron job would have to repeat (and, forgotten once, would store the day five
//! hours early with exit 0). Every test reads the stored rows back.

mod common;

use std::fs;
use std::path::Path;

use common::{ok_of as ok, output_of as run, xs_at as xs};
use tempfile::TempDir;

/// Every stored row as CSV, header first.
fn range(dir: &Path, db: &str) -> String {
    ok(xs(dir).args(["-d", db, "range", "1900-01-01", "2200-01-01"])).0
}

/// A day of a vendor's file in its local (New York) time, no zone in the text.
fn day(dir: &Path, name: &str, date: &str, prices: &[&str]) {
    let mut text = String::from("time,price\n");
    for (i, p) in prices.iter().enumerate() {
        text.push_str(&format!("{date} 09:3{i}:00,{p}\n"));
    }
    fs::write(dir.join(name), text).unwrap();
}

/// The text of the rejects file an import left in the database `db`.
fn rejects(dir: &Path, db: &str) -> String {
    let listed = fs::read_dir(dir.join(db))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("rejects-"))
        .expect("a rejects file");
    fs::read_to_string(listed).unwrap()
}

fn config(dir: &Path, db: &str) -> String {
    fs::read_to_string(dir.join(db).join("xs.toml")).unwrap()
}

#[test]
fn the_next_days_file_is_read_in_the_zone_the_database_was_created_with() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    day(d, "d1.csv", "2024-03-01", &["1.5", "1.6"]);
    day(d, "d2.csv", "2024-03-04", &["2.5", "2.6"]);
    let (_, err) = ok(xs(d).args(["-d", "ny", "import", "d1.csv", "--timezone", "America/New_York"]));
    assert!(
        err.contains("same as: xs create ny") && err.contains("--timezone America/New_York"),
        "{err}"
    );
    let toml = config(d, "ny");
    assert!(toml.contains("format = 5\n"), "{toml}");
    assert!(toml.contains("timezone = \"America/New_York\"\n"), "{toml}");
    // The cron job's next run, without the flag: EST is UTC−5 on both days.
    let (_, err) = ok(xs(d).args(["-d", "ny", "import", "d2.csv"]));
    assert!(
        err.contains("times without a zone were read as America/New_York (the database's zone"),
        "{err}"
    );
    assert_eq!(
        range(d, "ny"),
        "time,price\n2024-03-01T14:30:00Z,1.5\n2024-03-01T14:31:00Z,1.6\n\
         2024-03-04T14:30:00Z,2.5\n2024-03-04T14:31:00Z,2.6\n"
    );
    // -q stays quiet.
    let (_, err) = ok(xs(d).args(["-d", "ny", "import", "-q", "d2.csv"]));
    assert_eq!(err, "");
    let (out, _) = ok(xs(d).args(["-d", "ny", "schema"]));
    assert!(out.contains("time zone    America/New_York"), "{out}");
    let (out, _) = ok(xs(d).args(["-d", "ny", "schema", "--json"]));
    assert!(out.contains("\"timezone\": \"America/New_York\""), "{out}");
}

#[test]
fn an_imports_own_timezone_decides_for_that_import_only() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    day(d, "d1.csv", "2024-03-01", &["1.5"]);
    day(d, "utc.csv", "2024-03-05", &["3.5"]);
    day(d, "d3.csv", "2024-03-06", &["4.5"]);
    ok(xs(d).args(["-d", "ny", "import", "d1.csv", "--timezone", "America/New_York"]));
    let (_, err) = ok(xs(d).args(["-d", "ny", "import", "utc.csv", "--timezone", "UTC"]));
    assert!(err.contains("times without a zone were read as UTC\n"), "{err}");
    ok(xs(d).args(["-d", "ny", "import", "d3.csv"]));
    assert_eq!(
        range(d, "ny"),
        "time,price\n2024-03-01T14:30:00Z,1.5\n2024-03-05T09:30:00Z,3.5\n2024-03-06T14:30:00Z,4.5\n"
    );
    assert!(config(d, "ny").contains("timezone = \"America/New_York\""));
}

#[test]
fn a_zone_the_first_files_header_states_is_recorded() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    fs::write(
        d.join("a.csv"),
        "Timestamp (UTC+01:00),v\n2024-01-02 10:00:00,1\n",
    )
    .unwrap();
    fs::write(d.join("b.csv"), "timestamp_utc_01_00,v\n2024-01-03 10:00:00,2\n").unwrap();
    ok(xs(d).args(["-d", "berlin", "import", "a.csv"]));
    assert!(
        config(d, "berlin").contains("timezone = \"+01:00\""),
        "{}",
        config(d, "berlin")
    );
    // The next file names the column as the database does, without the zone in its header.
    ok(xs(d).args(["-d", "berlin", "import", "b.csv"]));
    assert_eq!(
        range(d, "berlin"),
        "timestamp_utc_01_00,v\n2024-01-02T09:00:00Z,1\n2024-01-03T09:00:00Z,2\n"
    );
}

#[test]
fn create_records_a_zone_and_alter_changes_it_for_later_imports() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    ok(xs(d).args([
        "create",
        "fx",
        "--granularity",
        "1s",
        "--columns",
        "price:f64",
        "--timezone",
        "-05:00",
    ]));
    assert!(config(d, "fx").contains("timezone = \"-05:00\""));
    day(d, "d1.csv", "2024-07-01", &["1.5"]);
    ok(xs(d).args(["-d", "fx", "import", "d1.csv"]));
    let (_, err) = ok(xs(d).args(["-d", "fx", "alter", "--timezone", "UTC"]));
    assert!(err.contains("stored rows do not move"), "{err}");
    // UTC again: written as the oldest format that holds the database.
    let toml = config(d, "fx");
    assert!(
        toml.contains("format = 1\n") && !toml.contains("timezone"),
        "{toml}"
    );
    day(d, "d2.csv", "2024-07-02", &["2.5"]);
    ok(xs(d).args(["-d", "fx", "import", "d2.csv"]));
    assert_eq!(
        range(d, "fx"),
        "time,price\n2024-07-01T14:30:00Z,1.5\n2024-07-02T09:30:00Z,2.5\n"
    );
    let (code, _, err) = run(xs(d).args(["-d", "fx", "alter", "--timezone", "Mars/Olympus"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("bad --timezone `Mars/Olympus`"), "{err}");
}

#[test]
fn a_local_time_the_databases_zone_repeats_is_rejected_with_its_reason() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    day(d, "d1.csv", "2024-10-01", &["1.5"]);
    ok(xs(d).args(["-d", "ny", "import", "d1.csv", "--timezone", "America/New_York"]));
    // 01:30 happens twice in New York on 2024-11-03.
    fs::write(d.join("fall.csv"), "time,price\n2024-11-03 01:30:00,9.5\n").unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "ny", "import", "fall.csv"]));
    assert_eq!(code, 4, "{err}");
    let rejects = rejects(d, "ny");
    assert!(
        rejects.contains("occurs twice in America/New_York") && rejects.contains("--dst earlier"),
        "{rejects}"
    );
    assert_eq!(range(d, "ny"), "time,price\n2024-10-01T13:30:00Z,1.5\n");
    // --dst decides, in the database's zone.
    ok(xs(d).args(["-d", "ny", "import", "fall.csv", "--dst", "earlier"]));
    assert!(range(d, "ny").contains("2024-11-03T05:30:00Z,9.5\n"));
}

/// Times given on the command line without a zone are read in the database's zone, as its
/// imports read the same text: a `put` of New York 09:31 was stored at 09:31 UTC (four hours
/// before the row an import stored from the same text), and `get` of the text an import read
/// found nothing, both with exit 0.
#[test]
fn times_on_the_command_line_are_read_in_the_databases_zone() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    day(d, "d1.csv", "2024-03-01", &["1.5"]);
    ok(xs(d).args(["-d", "ny", "import", "d1.csv", "--timezone", "America/New_York"]));
    let get = |args: &[&str]| ok(xs(d).args(["-d", "ny", "get"]).args(args)).0;
    let first = "time,price\n2024-03-01T14:30:00Z,1.5\n";
    // The text the import read, with a space or a T; an offset or an epoch stays what it says.
    assert_eq!(get(&["2024-03-01 09:30:00"]), first);
    assert_eq!(get(&["2024-03-01T09:30"]), first);
    assert_eq!(get(&["2024-03-01T14:30:00Z"]), first);
    assert_eq!(get(&["2024-03-01T09:30:00-05:00"]), first);
    assert_eq!(get(&["1709303400s"]), first);
    ok(xs(d).args(["-d", "ny", "put", "2024-03-01 09:31:00", "7.5"]));
    let second = "time,price\n2024-03-01T14:31:00Z,7.5\n";
    let stdin = ok(xs(d)
        .args(["-d", "ny", "get", "-"])
        .write_stdin("2024-03-01 09:31:00\n"))
    .0;
    assert_eq!(stdin, second);
    let window = |args: &[&str]| ok(xs(d).args(["-d", "ny", "range"]).args(args)).0;
    assert_eq!(window(&["2024-03-01 09:31", "2024-03-01 09:32"]), second);
    assert_eq!(window(&["2024-03-01T09:31..2024-03-01T09:32"]), second);
    // A local day is the zone's day: both rows (as a UTC day it also would be, by luck of the
    // hour; the day before, as the zone reads it, holds none).
    assert_eq!(
        window(&["2024-03-01", "2024-03-02"]),
        "time,price\n2024-03-01T14:30:00Z,1.5\n2024-03-01T14:31:00Z,7.5\n"
    );
    assert_eq!(
        window(&["2024-03-01T09:31:00", "--where", "time<2024-03-01T09:31:00"]),
        "time,price\n"
    );
    assert_eq!(window(&["..", "--where", "time>=2024-03-01T09:31:00"]), second);
    let exported = ok(xs(d).args(["-d", "ny", "export", "--from", "2024-03-01 09:31", "-o", "-"])).0;
    assert_eq!(exported, second);
    fs::write(d.join("probe.csv"), "time,note\n2024-03-01 09:30:30,a\n").unwrap();
    let joined = ok(xs(d).args(["-d", "ny", "get", "--asof", "--join", "probe.csv"])).0;
    assert!(
        joined.contains("2024-03-01 09:30:30,a,2024-03-01T14:30:00Z,1.5"),
        "{joined}"
    );
    let (_, err) = ok(xs(d).args(["-d", "ny", "delete", "2024-03-01 09:31:00"]));
    assert!(err.contains("deleted 1 rows"), "{err}");
    assert_eq!(range(d, "ny"), first);
    // A wall time the zone skips or repeats is refused, naming the offsets that say which.
    let (code, _, err) = run(xs(d).args(["-d", "ny", "get", "2024-03-10 02:30"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("time `2024-03-10T02:30:00` does not exist in America/New_York")
            && err.contains("2024-03-10T02:30:00-05:00"),
        "{err}"
    );
    let (code, _, err) = run(xs(d).args(["-d", "ny", "put", "2024-11-03 01:30", "9"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("occurs twice in America/New_York")
            && err
                .contains("2024-11-03T01:30:00-04:00 (the first) or 2024-11-03T01:30:00-05:00 (the second)"),
        "{err}"
    );
    assert_eq!(range(d, "ny"), first);
}

#[test]
fn a_config_with_a_bad_or_unversioned_timezone_is_refused() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    day(d, "d1.csv", "2024-03-01", &["1.5"]);
    ok(xs(d).args(["-d", "ny", "import", "d1.csv", "--timezone", "America/New_York"]));
    let good = config(d, "ny");
    for (edit, says) in [
        (
            good.replace("America/New_York", "America/Gotham"),
            "bad timezone `America/Gotham`",
        ),
        (
            good.replace("format = 5", "format = 4"),
            "timezone needs `format = 5`",
        ),
    ] {
        fs::write(d.join("ny").join("xs.toml"), edit).unwrap();
        let (code, _, err) = run(xs(d).args(["-d", "ny", "range", "2024-01-01", "2025-01-01"]));
        assert_eq!(code, 3, "{err}");
        assert!(err.contains(says), "{err}");
    }
}

#[test]
fn a_time_without_an_offset_among_times_with_one_is_rejected_not_read_as_utc() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // Before, the third row was stored at 10:00:02Z, an hour after the row written after it.
    fs::write(
        d.join("mixed.csv"),
        "time,v\n2024-01-01T10:00:00+01:00,1\n2024-01-01T10:00:01+01:00,2\n\
         2024-01-01T10:00:02,3\n2024-01-01T10:00:03+01:00,4\n",
    )
    .unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "m", "import", "mixed.csv"]));
    assert_eq!(code, 4, "{err}");
    let rejects = rejects(d, "m");
    assert!(
        rejects.contains("a time without a zone or offset among times that carry one")
            && rejects.contains("--timezone UTC if it is UTC")
            && rejects.contains("\"2024-01-01T10:00:02,3\""),
        "{rejects}"
    );
    assert_eq!(
        range(d, "m"),
        "time,v\n2024-01-01T09:00:00Z,1\n2024-01-01T09:00:01Z,2\n2024-01-01T09:00:03Z,4\n"
    );
    // A zone given places it.
    ok(xs(d).args(["-d", "m", "import", "mixed.csv", "--timezone", "Europe/Berlin"]));
    assert!(range(d, "m").contains("\n2024-01-01T09:00:02Z,3\n"));
    // Times all without a zone are still read as UTC, as the summary says.
    fs::write(d.join("naive.csv"), "time,v\n2024-01-02T10:00:00,5\n").unwrap();
    ok(xs(d).args(["-d", "m", "import", "naive.csv"]));
    assert!(range(d, "m").contains("\n2024-01-02T10:00:00Z,5\n"));
}
