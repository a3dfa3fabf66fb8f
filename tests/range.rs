//! `xs range`: formats, projection, time formats, limit, ordered parallel output, pipes and
//! write errors.

#[path = "readout_support/mod.rs"]
mod support;

use std::process::Command as StdCommand;

use support::{create, fill, ok, s, xs, xs_std};
use xs::db::Stored;
use xs::io::stream::JOB_INPUT_BYTES;
use xs::{Access, Database};

/// 2021-01-01T00:00:00Z in ns.
const T2021: i64 = 1_609_459_200_000_000_000;

/// A small 1 ms database with a few rows of every kind of value, two at one timestamp.
fn small() -> (tempfile::TempDir, std::path::PathBuf) {
    let (tmp, db) = create(
        "db",
        &[
            "-g",
            "1ms",
            "-c",
            "price:f64,qty:f32,side:str(8),n:i32",
            "--depth",
            "2",
        ],
    );
    let d = s(&db);
    ok(&[
        "-d",
        d,
        "put",
        "2021-01-01T00:00:00.001Z",
        "price=0.1",
        "qty=1.5",
        "side=buy",
        "n=-7",
    ]);
    ok(&[
        "-d",
        d,
        "put",
        "--append",
        "2021-01-01T00:00:00.001Z",
        "price=NaN",
        "qty=",
        "side=a,\"b\"",
        "n=",
    ]);
    ok(&[
        "-d",
        d,
        "put",
        "2021-01-01T00:00:01.500Z",
        "price=-inf",
        "qty=3e38",
        "side=x\ty",
        "n=2147483647",
    ]);
    (tmp, db)
}

#[test]
fn csv_is_the_default_with_a_header_and_round_trip_floats() {
    let (_tmp, db) = small();
    let out = ok(&["-d", s(&db), "range", "2021-01-01", "2021-01-02"]);
    assert_eq!(
        out,
        "time,price,qty,side,n\n\
         2021-01-01T00:00:00.001Z,0.1,1.5,buy,-7\n\
         2021-01-01T00:00:00.001Z,NaN,,\"a,\"\"b\"\"\",\n\
         2021-01-01T00:00:01.500Z,-inf,3e38,x\ty,2147483647\n"
    );
}

#[test]
fn tsv_escapes_and_no_header_drops_the_header() {
    let (_tmp, db) = small();
    let out = ok(&[
        "-d",
        s(&db),
        "range",
        "2021-01-01",
        "2021-01-02",
        "-f",
        "tsv",
        "--no-header",
    ]);
    assert_eq!(
        out,
        "2021-01-01T00:00:00.001Z\t0.1\t1.5\tbuy\t-7\n\
         2021-01-01T00:00:00.001Z\tNaN\t\ta,\"b\"\t\n\
         2021-01-01T00:00:01.500Z\t-inf\t3e38\tx\\ty\t2147483647\n"
    );
}

#[test]
fn columns_project_in_the_given_order_and_limit_stops() {
    let (_tmp, db) = small();
    let out = ok(&[
        "-d",
        s(&db),
        "range",
        "2021-01-01",
        "2021-01-02",
        "--columns",
        "n,time",
        "--limit",
        "2",
    ]);
    assert_eq!(
        out,
        "n,time\n-7,2021-01-01T00:00:00.001Z\n,2021-01-01T00:00:00.001Z\n"
    );
    let out = xs()
        .args([
            "-d",
            s(&db),
            "range",
            "2021-01-01",
            "2021-01-02",
            "--columns",
            "price,volume",
        ])
        .output()
        .expect("xs runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown column `volume`") && err.contains("time,price,qty,side,n"),
        "{err}"
    );
}

#[test]
fn time_formats_epoch_and_strftime() {
    let (_tmp, db) = small();
    let d = s(&db);
    let first = |fmt: &str| -> String {
        let out = ok(&[
            "-d",
            d,
            "range",
            "2021-01-01",
            "2021-01-02",
            "--columns",
            "time",
            "--no-header",
            "--time-format",
            fmt,
        ]);
        out.lines().last().expect("a row").to_string()
    };
    assert_eq!(first("iso"), "2021-01-01T00:00:01.500Z");
    assert_eq!(first("epoch-ms"), "1609459201500");
    assert_eq!(first("epoch-us"), "1609459201500000");
    assert_eq!(first("epoch-ns"), "1609459201500000000");
    assert_eq!(first("epoch-s"), "1609459201.500");
    assert_eq!(first("%Y-%m-%d %H:%M:%S%.3f"), "2021-01-01 00:00:01.500");
    let out = xs()
        .args([
            "-d",
            d,
            "range",
            "2021-01-01",
            "2021-01-02",
            "--time-format",
            "unix",
        ])
        .output()
        .expect("xs runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown time format `unix`"));
}

#[test]
fn ndjson_lines_parse_and_carry_the_stored_values() {
    let (_tmp, db) = small();
    let out = ok(&[
        "-d",
        s(&db),
        "range",
        "2021-01-01",
        "2021-01-02",
        "-f",
        "ndjson",
        "--time-format",
        "epoch-ms",
    ]);
    let rows: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l:?}: {e}")))
        .collect();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0]["time"], 1_609_459_200_001i64);
    assert_eq!(rows[0]["price"], 0.1);
    assert_eq!(rows[0]["qty"], 1.5);
    assert_eq!(rows[0]["side"], "buy");
    assert_eq!(rows[0]["n"], -7);
    assert!(rows[1]["price"].is_null(), "NaN prints as null");
    assert!(rows[1]["qty"].is_null() && rows[1]["n"].is_null());
    assert_eq!(rows[1]["side"], "a,\"b\"");
    assert!(rows[2]["price"].is_null(), "-inf prints as null");
    assert_eq!(rows[2]["qty"].as_f64().map(|v| v as f32), Some(3e38f32));
    assert_eq!(rows[2]["side"], "x\ty");
    assert_eq!(rows[2]["n"], 2_147_483_647);
}

/// A 1 s database with `n` rows from 2021-01-01 on: temp = i / 4, count = i.
fn big(n: u64) -> (tempfile::TempDir, std::path::PathBuf) {
    let (tmp, db) = create("big", &["-g", "1s", "-c", "temp:f64,count:u64"]);
    fill(&db, T2021, n, |i| {
        vec![format!("{}", i as f64 / 4.0), i.to_string()]
    });
    (tmp, db)
}

#[test]
fn big_ranges_come_out_complete_and_in_order() {
    let n = 300_000u64;
    let (_tmp, db) = big(n);
    let out = ok(&[
        "-d",
        s(&db),
        "range",
        "2021-01-01",
        "2022-01-01",
        "--no-header",
        "--time-format",
        "epoch-s",
        "--columns",
        "time,count",
    ]);
    let mut lines = 0u64;
    for (i, line) in out.lines().enumerate() {
        let expected = format!("{},{i}", T2021 / 1_000_000_000 + i as i64);
        assert_eq!(line, expected, "line {i}");
        lines += 1;
    }
    assert_eq!(lines, n);
    // A limit that ends inside a parallel batch.
    let out = ok(&[
        "-d",
        s(&db),
        "range",
        "2021-01-01",
        "2022-01-01",
        "--limit",
        "123457",
        "--columns",
        "count",
    ]);
    let last: Vec<&str> = out.lines().collect();
    assert_eq!(last.len(), 123_458);
    assert_eq!(last[last.len() - 1], "123456");
}

/// Imports `times` (row i: `n` = i, and `tag` = a text of i when `with_text`) into a 1 ms
/// columnar bucket database of 1-day buckets, and checks that its records are cut into the
/// `want_pieces` pieces per record (at the default job size) and that every window, cut
/// inside records and between pages, gives each row once, in order, as does a limit that
/// ends inside a piece.
fn read_out_in_pieces(times: &[i64], with_text: bool, want_pieces: &dyn Fn(&[usize]) -> bool) {
    let spec = if with_text { "n:u64,tag:str(12)" } else { "n:u64" };
    let (_tmp, db) = create(
        "pieces",
        &[
            "-g", "1ms", "-c", spec, "--layout", "bucket", "--bucket", "1d", "--codec", "columnar",
        ],
    );
    let line = |i: usize, t: i64| match with_text {
        true => format!("{t},{i},t{}\n", i % 1000),
        false => format!("{t},{i}\n"),
    };
    let mut csv = String::from(if with_text { "time,n,tag\n" } else { "time,n\n" });
    for (i, &t) in times.iter().enumerate() {
        csv.push_str(&line(i, t));
    }
    let file = db.with_extension("csv");
    std::fs::write(&file, csv).expect("write csv");
    ok(&["-d", s(&db), "import", "--quiet", "--time-unit", "ns", s(&file)]);
    let handle = Database::open(&db, Access::Read, &mut |_| {}).expect("open");
    let mut pieces = Vec::new();
    handle
        .scan_stored(i64::MIN, i64::MAX, |piece| -> Result<bool, xs::Error> {
            if let Stored::Record(record) = piece {
                pieces.push(record.place.split(record.bytes, JOB_INPUT_BYTES).len());
            }
            Ok(true)
        })
        .expect("scan");
    assert!(want_pieces(&pieces), "pieces per record: {pieces:?}");
    let day = 86_400_000_000_000i64;
    let windows = [
        (T2021, T2021 + 3 * day),
        (T2021 + 1, T2021 + day + 7_777_000_000),
        (T2021 + 12_345_600_000_000, T2021 + 2 * day - 1_000_000),
        (times[20_000], times[20_000] + 1_000_000),
    ];
    for (from, to) in windows {
        let (from_arg, to_arg) = (format!("{from}ns"), format!("{to}ns"));
        let out = ok(&[
            "-d",
            s(&db),
            "range",
            &from_arg,
            &to_arg,
            "--no-header",
            "--time-format",
            "epoch-ns",
        ]);
        let want: String = times
            .iter()
            .enumerate()
            .filter(|(_, &t)| from <= t && t < to)
            .map(|(i, &t)| line(i, t))
            .collect();
        assert!(
            out == want,
            "window {from}..{to}: {} lines, want {}",
            out.lines().count(),
            want.lines().count()
        );
    }
    let out = ok(&[
        "-d",
        s(&db),
        "range",
        "2021-01-01",
        "2021-01-04",
        "--no-header",
        "--limit",
        "100001",
        "--columns",
        "n",
    ]);
    let want: String = (0..100_001).map(|i| format!("{i}\n")).collect();
    assert!(out == want, "the limit gave {} lines", out.lines().count());
}

/// Columnar records larger than a read-out job are cut into pieces at page edges, each
/// decoded by the job that formats it: 150,000 rows in two records (days), the first of
/// about 136,000: one every 1.1 s, and bursts of 700 rows (more than a 512-value page) at
/// every 997th time and across each multiple of 512 × 56 rows, where the 256 KiB jobs cut
/// the first record (rows of 9 bytes: 56 pages a piece).
#[test]
fn records_cut_into_pieces_give_every_row_once_in_order() {
    let (mut times, mut t, mut next_cut) = (Vec::new(), T2021, 512 * 56);
    for k in 0.. {
        if times.len() >= 150_000 {
            break;
        }
        let across_cut = times.len() + 300 >= next_cut;
        if across_cut {
            next_cut += 512 * 56;
        }
        let burst = if k % 997 == 0 || across_cut { 700 } else { 1 };
        times.extend(std::iter::repeat_n(t, burst));
        t += 1_100_000_000;
    }
    times.truncate(150_000);
    read_out_in_pieces(&times, false, &|p| p.len() == 2 && p[0] >= 4);
}

/// A regular series' time offsets are a progression, cut where a piece's rows end; a record
/// with a text column (a zstd frame, which every piece would decode whole) is not cut, and
/// is read out as before: decoded once, its rows cut into jobs.
#[test]
fn regular_records_cut_and_text_records_read_whole() {
    // 150,000 rows, one every 1.5 s: two records of 57,600 and the rest.
    let times: Vec<i64> = (0..150_000).map(|i| T2021 + i * 1_500_000_000).collect();
    read_out_in_pieces(&times, false, &|p| p.len() == 3 && p[0] >= 2);
    read_out_in_pieces(&times, true, &|p| p.len() == 3 && p.iter().all(|&n| n == 1));
}

#[test]
fn piping_into_head_ends_quietly_with_success() {
    let (_tmp, db) = big(200_000);
    let out = StdCommand::new("bash")
        .args([
            "-o",
            "pipefail",
            "-c",
            "\"$XS\" -d \"$DB\" range 2021-01-01 2022-01-01 | head -n 3",
        ])
        .env("XS", assert_cmd::cargo::cargo_bin("xs"))
        .env("DB", &db)
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stdout: {stdout}\nstderr: {stderr}");
    assert_eq!(stdout.lines().count(), 3, "{stdout}");
    assert_eq!(stderr, "", "stderr must stay empty");
}

/// The capacity of the pipe behind `fd` (either end).
fn pipe_capacity(fd: &impl std::os::fd::AsRawFd) -> i32 {
    // SAFETY: F_GETPIPE_SZ on a descriptor the test owns; no memory is passed.
    unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETPIPE_SZ) }
}

#[test]
fn large_output_into_a_pipe_asks_for_a_larger_pipe_buffer() {
    use std::io::Read;
    use std::process::Stdio;
    let (_tmp, db) = big(100_000);
    let run = |args: &[&str]| {
        let mut child = xs_std()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("xs runs");
        let mut stdout = child.stdout.take().expect("piped");
        let mut text = String::new();
        stdout.read_to_string(&mut text).unwrap();
        let status = child.wait().unwrap();
        assert!(status.success(), "{args:?}: {status}");
        (text, pipe_capacity(&stdout))
    };
    // ~3 MB of CSV: complete, and written through a 1 MiB pipe when the system allows one.
    let (text, capacity) = run(&["-d", s(&db), "range", "2021-01-01", "2022-01-01", "--no-header"]);
    assert_eq!(text.lines().count(), 100_000);
    assert!(
        text.ends_with(",24999.75,99999\n"),
        "{}",
        &text[text.len() - 40..]
    );
    let max: i32 = std::fs::read_to_string("/proc/sys/fs/pipe-max-size")
        .map(|t| t.trim().parse().unwrap())
        .unwrap_or(0);
    if max >= 1 << 20 {
        assert_eq!(capacity, 1 << 20);
    }
    // One row: the pipe keeps its default size (no megabyte of pipe pages for a small answer).
    let (text, capacity) = run(&["-d", s(&db), "get", "2021-01-01T00:00:05Z"]);
    assert_eq!(text.lines().count(), 2);
    assert_eq!(capacity, 64 << 10);
}

#[test]
fn a_full_disk_is_a_clear_error() {
    let (_tmp, db) = big(50_000);
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full exists");
    let out = xs_std()
        .args(["-d", s(&db), "range", "2021-01-01", "2022-01-01"])
        .stdout(full)
        .output()
        .expect("xs runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.starts_with("xs: cannot write to standard output: No space left on device"),
        "{stderr}"
    );
}

#[test]
fn a_full_disk_is_a_clear_error_even_for_one_small_flush() {
    let (_tmp, db) = small();
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full exists");
    let out = xs_std()
        .args(["-d", s(&db), "range", "2021-01-01", "2021-01-02"])
        .stdout(full)
        .output()
        .expect("xs runs");
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("No space left on device"));
}

#[test]
fn a_reversed_window_is_a_usage_error() {
    let (_tmp, db) = small();
    let out = xs()
        .args(["-d", s(&db), "range", "2021-01-02", "2021-01-01"])
        .output()
        .expect("xs runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is after TO"));
}

/// Issue 18: open windows (`FROM` alone, `..TO`, `FROM..TO`), `now` and `--last`.
#[test]
fn open_windows_now_and_last() {
    let (_tmp, db) = small();
    let d = s(&db);
    let all = ok(&["-d", d, "range", "2021-01-01", "2021-01-02", "--no-header"]);
    assert_eq!(all.lines().count(), 3);
    assert_eq!(ok(&["-d", d, "range", "2021-01-01", "--no-header"]), all);
    assert_eq!(ok(&["-d", d, "range", "..2021-01-02", "--no-header"]), all);
    assert_eq!(ok(&["-d", d, "range", "..", "--no-header"]), all);
    let first = ok(&["-d", d, "range", "..2021-01-01T00:00:01Z", "--no-header"]);
    assert_eq!(first.lines().count(), 2, "{first}");
    let last = ok(&["-d", d, "range", "2021-01-01T00:00:01Z..", "--no-header"]);
    assert_eq!(last.lines().count(), 1, "{last}");
    let mid = ok(&[
        "-d",
        d,
        "range",
        "2021-01-01T00:00:00.001Z..2021-01-01T00:00:00.002Z",
        "--no-header",
    ]);
    assert_eq!(mid.lines().count(), 2, "{mid}");
    // Nothing is stored after now, or in the last hour.
    assert_eq!(ok(&["-d", d, "range", "now", "--no-header"]), "");
    assert_eq!(ok(&["-d", d, "range", "--last", "1h", "--no-header"]), "");
    assert_eq!(ok(&["-d", d, "range", "--last", "100000d", "--no-header"]), all);
    let out = xs()
        .args(["-d", d, "range", "2021-01-01..2021-01-02", "2021-01-03"])
        .output()
        .expect("xs runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("the window is given twice"), "{err}");
}

/// Issue 18: an aggregate over a window without rows printed only the header; like SQL's
/// aggregate without GROUP BY it now answers with count 0 (the other aggregates empty).
#[test]
fn a_whole_window_aggregate_of_no_rows_is_count_zero() {
    let (_tmp, db) = small();
    let d = s(&db);
    assert_eq!(
        ok(&[
            "-d",
            d,
            "range",
            "2022-01-01",
            "2022-01-02",
            "--agg",
            "count,sum(n)"
        ]),
        "time,count,sum_n\n2022-01-01T00:00:00.000Z,0,\n"
    );
    assert_eq!(
        ok(&["-d", d, "range", "2021-01-01", "2021-01-02", "--agg", "count"]),
        "time,count\n2021-01-01T00:00:00.000Z,3\n"
    );
}

/// Regression: an empty window (FROM == TO) aggregated to only the header, where any other
/// window without rows answers count 0. `range` takes FROM == TO as a window without rows, so a
/// whole-window aggregate answers it too; `--every` buckets, of which it has none, print none.
#[test]
fn a_whole_window_aggregate_of_an_empty_window_is_count_zero() {
    let (_tmp, db) = small();
    let d = s(&db);
    let at = "2021-01-01T00:00:00.001Z";
    assert_eq!(
        ok(&["-d", d, "range", at, at, "--agg", "count,sum(n)"]),
        "time,count,sum_n\n2021-01-01T00:00:00.001Z,0,\n"
    );
    assert_eq!(
        ok(&["-d", d, "range", at, at]),
        "time,price,qty,side,n\n",
        "no rows in it"
    );
    assert_eq!(
        ok(&["-d", d, "range", at, at, "--every", "1s", "--agg", "count", "--fill"]),
        "time,count\n"
    );
}

/// Regression: `-o /dev/null` (any device or pipe) was written as a temporary file renamed over
/// it, which replaced the device with a regular file. A FIFO stands in for the device here.
#[test]
fn output_to_a_fifo_writes_into_it_and_leaves_it_a_fifo() {
    use std::io::Read;
    use std::os::unix::fs::FileTypeExt;
    let (tmp, db) = small();
    let fifo = tmp.path().join("out.fifo");
    let path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path the test owns.
    assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0, "mkfifo");
    for format in ["csv", "arrow"] {
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                std::fs::File::open(&fifo)
                    .unwrap()
                    .read_to_end(&mut bytes)
                    .unwrap();
                bytes
            })
        };
        ok(&[
            "-d",
            s(&db),
            "range",
            "2021-01-01",
            "2021-01-02",
            "--format",
            format,
            "-o",
            s(&fifo),
        ]);
        // Before the join: replaced, the FIFO would never see a writer and its reader would wait.
        assert!(
            std::fs::metadata(&fifo).unwrap().file_type().is_fifo(),
            "{format}: still a FIFO"
        );
        let bytes = reader.join().unwrap();
        match format {
            "csv" => assert!(
                String::from_utf8(bytes).unwrap().starts_with("time,price"),
                "{format}"
            ),
            _ => assert!(bytes.len() > 100, "{format}: an Arrow stream came through"),
        }
    }
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 2, "no temporary file is left: {left:?}");
}

/// Regression: `-o LINK` wrote a temporary file beside the link and renamed it over the link,
/// which turned the link into a regular file. The link's target is the file replaced.
#[test]
fn output_to_a_link_replaces_its_target_and_leaves_it_a_link() {
    let (tmp, db) = small();
    let target = tmp.path().join("target.csv");
    std::fs::write(&target, "old\n").unwrap();
    let dir = tmp.path().join("links");
    std::fs::create_dir(&dir).unwrap();
    let link = dir.join("out.csv");
    std::os::unix::fs::symlink("../target.csv", &link).unwrap();
    ok(&["-d", s(&db), "range", "2021-01-01", "2021-01-02", "-o", s(&link)]);
    assert!(
        std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(),
        "still a link"
    );
    let text = std::fs::read_to_string(&target).unwrap();
    assert!(text.starts_with("time,price,qty,side,n\n"), "{text}");
    assert_eq!(text.lines().count(), 4, "{text}");
    let left = |d: &std::path::Path| std::fs::read_dir(d).unwrap().count();
    assert_eq!(left(&dir), 1, "no temporary file beside the link");
    // target.csv, links/ and the database.
    assert_eq!(left(tmp.path()), 3, "no temporary file beside the target");
}

/// Regression: `-o /dev/stdout` (a link to `/proc/self/fd/1`) with stdout redirected to a file
/// wrote a temporary file renamed over the link: the rows never reached the file, and the
/// link became a file. A link of the test's own stands in for /dev/stdout.
#[test]
fn output_to_a_link_to_stdout_writes_into_the_file_stdout_is_on() {
    let (tmp, db) = small();
    let link = tmp.path().join("stdout.csv");
    std::os::unix::fs::symlink("/proc/self/fd/1", &link).unwrap();
    let captured = tmp.path().join("captured.txt");
    let out = xs_std()
        .args(["-d", s(&db), "range", "2021-01-01", "2021-01-02", "-o", s(&link)])
        .stdout(std::fs::File::create(&captured).unwrap())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&captured).unwrap();
    assert!(text.starts_with("time,price,qty,side,n\n"), "{text:?}");
    assert_eq!(text.lines().count(), 4, "{text}");
    assert!(
        std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(),
        "still a link"
    );
}

#[test]
fn a_range_without_a_window_says_how_to_give_one() {
    // clap said only "required arguments were not provided: <FROM>", though `..` gives all.
    let (_tmp, db) = small();
    let out = xs().args(["-d", s(&db), "range"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "give the window: FROM [TO] (`..` for every row, `2024-08-08..` from a time on), or --last DUR"
        ),
        "{err}"
    );
    assert!(ok(&["-d", s(&db), "range", ".."]).starts_with("time,price,qty,side,n\n"));
}
