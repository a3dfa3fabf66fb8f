//! Min/max summaries in bucket directory entries (partition version 2): `count`, `min` and
//! `max` answered from the directory give what the rows give (edge buckets, `--every` bars,
//! nulls, NaN, integer limits, f32) after every kind of write; a summary whose check fails is
//! not used; a version-1 partition (fixtures/v1-bucket, written by the previous xs) reads,
//! takes writes as version 1, and `defrag` upgrades it.

mod common;

use std::fs;
use std::os::unix::fs::FileExt;
use std::path::Path;

use common::TestDb;

const COLUMNS: &str = "f:f64,g:f32,i:i64,u:u64,n:i16,s:str(4)";
const AGGS: &str = "count,min(f),max(f),min(g),max(g),min(i),max(i),min(u),max(u),min(n),max(n)";

fn bucket_db(columns: &str) -> TestDb {
    TestDb::create(
        "1ms",
        columns,
        &["--layout", "bucket", "--bucket", "1s", "--partition", "day"],
    )
}

fn import(db: &TestDb, name: &str, text: &str) {
    let path = db.path.with_file_name(name);
    fs::write(&path, text).unwrap();
    db.ok(&["import", path.to_str().unwrap()]);
}

/// 2024-01-01T23:59:00Z in ms: the data crosses a day (partition) boundary.
const T0_MS: i64 = 1_704_153_540_000;

/// About 120 s of rows, several per second and some sharing a millisecond, with nulls, a
/// second where every value is null, one NaN, integers at their limits, f32 values and ±0.
fn ticks() -> String {
    let mut text = String::from("time,f,g,i,u,n,s\n");
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    for k in 0..600i64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let t = T0_MS + k * 200 + (x % 150) as i64;
        let t = if k % 9 == 0 {
            T0_MS + (k - 1).max(0) * 200
        } else {
            t
        };
        let null = |m: u64| x.is_multiple_of(m);
        let all_null = (t - T0_MS) / 1000 == 7;
        let f = match k {
            300 => "NaN".into(),
            301 => "-0".into(),
            302 => "0".into(),
            _ if all_null || null(11) => String::new(),
            _ => format!("{}.{}", (x % 20_000) as i64 - 10_000, x % 100),
        };
        let g = if all_null || null(7) {
            String::new()
        } else {
            format!("{}", ((x >> 8) % 1000) as f32 / 7.0)
        };
        let i = match k {
            100 => i64::MIN.to_string(),
            400 => i64::MAX.to_string(),
            _ if all_null || null(5) => String::new(),
            _ => ((x >> 16) as i64 % 1_000_000).to_string(),
        };
        let u = match k {
            200 => u64::MAX.to_string(),
            _ if all_null || null(6) => String::new(),
            _ => ((x >> 20) % 1_000_000).to_string(),
        };
        let n = if all_null || null(4) {
            String::new()
        } else {
            ((x >> 24) as i64 % 60_000 - 30_000)
                .clamp(-32768, 32767)
                .to_string()
        };
        text.push_str(&format!("{t},{f},{g},{i},{u},{n},s{}\n", k % 10));
    }
    text
}

/// `range … --agg AGGS` through the summaries, and the same with `first(s)` added, which
/// makes every bucket read its rows; the two must agree once `first_s` is cut off.
fn both_paths(db: &TestDb, args: &[&str], aggs: &str) -> (String, String) {
    let with = |spec: &str| {
        let mut a: Vec<&str> = vec!["range"];
        a.extend_from_slice(args);
        a.extend_from_slice(&["--agg", spec]);
        db.ok(&a)
    };
    let summarized = with(aggs);
    let rows = with(&format!("{aggs},first(s)"))
        .lines()
        .map(|l| l.rsplit_once(',').map_or(l, |(head, _)| head).to_string() + "\n")
        .collect();
    (summarized, rows)
}

/// Windows with partial edge buckets, whole buckets, a partition boundary, and `--every`
/// bars whose edges do and do not fall on storage bucket edges.
fn assert_summaries_agree(db: &TestDb, what: &str) {
    let windows = [
        ["2024-01-01T23:00:00Z", "2024-01-02T01:00:00Z"],
        ["2024-01-01T23:59:03.500Z", "2024-01-02T00:00:30.250Z"],
        ["2024-01-01T23:59:05Z", "2024-01-01T23:59:09Z"],
        ["2024-01-02T00:00:00Z", "2024-01-02T00:00:01Z"],
    ];
    let everys: [&[&str]; 6] = [
        &[],
        &["--every", "1s"],
        &["--every", "2s"],
        &["--every", "7s"],
        &["--every", "1500ms"],
        &["--every", "1m"],
    ];
    for w in windows {
        for every in everys {
            let mut args = w.to_vec();
            args.extend_from_slice(every);
            let (summarized, rows) = both_paths(db, &args, AGGS);
            assert!(summarized.lines().count() > 1, "{what}: {args:?} found no rows");
            assert_eq!(summarized, rows, "{what}: range {args:?}");
        }
    }
}

#[test]
fn summaries_answer_like_rows_after_every_kind_of_write() {
    let db = bucket_db(COLUMNS);
    let text = ticks();
    import(&db, "ticks.csv", &text);
    assert_summaries_agree(&db, "import");

    // A plain reference for the whole window, computed from the input.
    let whole = db.ok(&["range", "2024-01-01", "2024-01-03", "--agg", AGGS]);
    let got: Vec<&str> = whole.lines().nth(1).unwrap().split(',').skip(1).collect();
    let fields: Vec<Vec<&str>> = text.lines().skip(1).map(|l| l.split(',').collect()).collect();
    let values = |c: usize| fields.iter().map(move |r| r[c]).filter(|v| !v.is_empty());
    let ints = |c: usize| {
        let v: Vec<i128> = values(c).map(|x| x.parse().unwrap()).collect();
        [
            v.iter().min().unwrap().to_string(),
            v.iter().max().unwrap().to_string(),
        ]
    };
    let g: Vec<f32> = values(2).map(|x| x.parse().unwrap()).collect();
    let g_min = g.iter().copied().fold(f32::INFINITY, f32::min);
    let g_max = g.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    assert_eq!(got[0], fields.len().to_string(), "{whole}");
    assert_eq!(
        got[1..3],
        ["NaN", "NaN"],
        "one NaN makes min and max NaN: {whole}"
    );
    assert_eq!(got[3].parse::<f32>().unwrap(), g_min, "{whole}");
    assert_eq!(got[4].parse::<f32>().unwrap(), g_max, "{whole}");
    assert_eq!(got[5..7], ints(3), "{whole}");
    assert_eq!(got[5..7], [i64::MIN.to_string(), i64::MAX.to_string()]);
    assert_eq!(got[7..9], ints(4), "{whole}");
    assert_eq!(got[8], u64::MAX.to_string());
    assert_eq!(got[9..11], ints(5), "{whole}");
    // The all-null second: counted rows, no values.
    let quiet = db.ok(&[
        "range",
        "2024-01-01T23:59:07Z",
        "2024-01-01T23:59:08Z",
        "--agg",
        "count,min(f),max(i),max(u)",
    ]);
    assert!(quiet.lines().nth(1).unwrap().ends_with(",,,"), "{quiet}");

    // Upsert: a re-import of part of the input with other values, some in new seconds.
    let mut fix = String::from("time,f,g,i,u,n,s\n");
    for line in text.lines().skip(1).step_by(17) {
        let t: i64 = line.split(',').next().unwrap().parse().unwrap();
        fix.push_str(&format!("{t},{},1.5,-3,4,5,fx\n", t % 997));
        fix.push_str(&format!("{},-1e300,,,,,fy\n", t + 3));
    }
    import(&db, "fix.csv", &fix);
    assert_summaries_agree(&db, "upsert");
    import(&db, "fix.csv", &fix);
    assert_summaries_agree(&db, "the same upsert again");

    db.ok(&[
        "put",
        "2024-01-01T23:59:20.001Z",
        "f=1e308",
        "i=-5",
        "u=6",
        "n=-32768",
    ]);
    db.ok(&[
        "put",
        "--append",
        "2024-01-01T23:59:20.001Z",
        "f=-1e308",
        "g=3.25",
    ]);
    db.ok(&[
        "put",
        "--append",
        "2024-01-02T00:00:10.999Z",
        "u=18446744073709551615",
    ]);
    assert_summaries_agree(&db, "put");

    db.ok(&["delete", "2024-01-01T23:59:30.250Z", "2024-01-01T23:59:40.750Z"]);
    assert_summaries_agree(&db, "delete");

    db.ok(&["defrag"]);
    assert_summaries_agree(&db, "defrag");
}

/// Bytes at `at` of `path` replaced by `bytes`.
fn patch(path: &Path, at: u64, bytes: &[u8]) {
    let f = fs::OpenOptions::new().write(true).open(path).unwrap();
    f.write_all_at(bytes, at).unwrap();
}

#[test]
fn whole_buckets_are_answered_from_verified_summaries() {
    // One i64 column: entries of 32 + 16 bytes; one row at second 5 of the day, value 5.
    let db = bucket_db("v:i64");
    import(&db, "one.csv", "time,v\n2024-01-01T00:00:05Z,5\n");
    let max = |extra: &str| {
        let out = db.ok(&[
            "range",
            "2024-01-01",
            "2024-01-02",
            "--agg",
            &format!("max(v){extra}"),
        ]);
        out.lines().nth(1).unwrap().split(',').nth(1).unwrap().to_string()
    };
    assert_eq!(max(""), "5");
    // Change the row in the data file behind the directory's back, and give the record a
    // matching check (version 3): the record is the offset width (1), the offset (0), the row
    // (flags byte, then v), then its CRC-32 over the bucket index (5) and those 11 bytes.
    let data = db.file("2024-01-01.xs.data");
    patch(&data, 4096 + 3, &99i64.to_le_bytes());
    let body = fs::read(&data).unwrap()[4096..4096 + 11].to_vec();
    patch(
        &data,
        4096 + 11,
        &xs::db::partition::unit_check(5, &body).to_le_bytes(),
    );
    assert_eq!(max(",first(v)"), "99", "the row path reads the record");
    assert_eq!(
        max(""),
        "5",
        "max alone is answered from the summary, not the record"
    );
    // A partial bucket (the window ends inside it) reads the record.
    let out = db.ok(&[
        "range",
        "2024-01-01",
        "2024-01-01T00:00:05.500Z",
        "--agg",
        "max(v)",
    ]);
    assert!(out.ends_with(",99\n"), "{out}");
    // Now damage the summary's max without fixing the entry's check: it is not believed, and
    // the entry is refused as damaged (exit 6), naming the file, offset and times.
    let entry = 4096 + 5 * 48;
    patch(&db.file("2024-01-01.xs"), entry + 40, &1000i64.to_le_bytes());
    let out = db
        .xs(&["range", "2024-01-01", "2024-01-02", "--agg", "max(v)"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(6), "{stderr}");
    assert!(
        stderr.contains(&format!("directory entry at byte offset {entry}"))
            && stderr.contains("2024-01-01T00:00:05Z to 2024-01-01T00:00:06Z"),
        "{stderr}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("1000"));
}

/// The partition header version (u32 at 8) and the directory's size.
fn version_and_len(path: &Path) -> (u32, u64) {
    let bytes = fs::read(path).unwrap();
    (
        u32::from_le_bytes(bytes[8..12].try_into().unwrap()),
        bytes.len() as u64,
    )
}

/// `csv` with the whole numbers of fields `cols` written as floats are (`4` → `4.0`).
fn dotted(csv: &str, cols: &[usize]) -> String {
    let mut out = String::new();
    for (i, line) in csv.lines().enumerate() {
        let fields: Vec<String> = line
            .split(',')
            .enumerate()
            .map(|(c, f)| {
                let whole = !f.is_empty() && f.trim_start_matches('-').bytes().all(|b| b.is_ascii_digit());
                if i > 0 && cols.contains(&c) && whole {
                    format!("{f}.0")
                } else {
                    f.to_string()
                }
            })
            .collect();
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

#[test]
fn a_version_1_partition_reads_takes_writes_and_defrag_upgrades_it() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/v1-bucket");
    // input.csv comes along; xs ignores files that are not partitions.
    let db = TestDb::copy_of(&fixture);
    let v1_len = 4096 + 1440 * 16;
    assert_eq!(version_and_len(&db.file("2024-01-01.xs")), (1, v1_len));
    let input = fs::read_to_string(fixture.join("input.csv")).unwrap();
    // The float columns f and g print whole numbers with `.0`, unlike the input.
    let input = dotted(&input, &[1, 2]);
    let all = |db: &TestDb| db.ok(&["range", "2024-01-01", "2024-01-03"]);
    assert_eq!(all(&db), input);
    let aggs = "count,min(f),max(f),min(g),max(g),min(i),max(i),min(u),max(u)";
    let check = |what: &str| {
        for args in [
            &["2024-01-01", "2024-01-03"][..],
            &["2024-01-01", "2024-01-03", "--every", "1m"],
            &["2024-01-01T00:00:05Z", "2024-01-01T00:02:10Z", "--every", "30s"],
        ] {
            let (summarized, rows) = both_paths(&db, args, aggs);
            assert_eq!(summarized, rows, "{what}: {args:?}");
        }
    };
    check("version 1");
    let whole = db.ok(&["range", "2024-01-01", "2024-01-03", "--agg", aggs]);
    assert_eq!(
        whole.lines().nth(1).unwrap(),
        format!(
            "2024-01-01T00:00:00.000Z,8,NaN,NaN,-1.5,100.0,{},{},0,{}",
            i64::MIN,
            i64::MAX,
            u64::MAX
        )
    );

    // Writes keep version 1 and 16-byte entries.
    import(
        &db,
        "more.csv",
        "time,f,g,i,u,s\n2024-01-01T00:00:10Z,8,8,8,8,n\n2024-01-01T00:05:00Z,9,9,9,9,m\n",
    );
    db.ok(&["put", "2024-01-01T00:02:00Z", "f=-1", "u=1"]);
    db.ok(&["put", "--append", "2024-01-01T00:02:00Z", "i=-1"]);
    db.ok(&["delete", "2024-01-01T00:02:30Z", "2024-01-01T00:03:00Z"]);
    assert_eq!(version_and_len(&db.file("2024-01-01.xs")), (1, v1_len));
    assert_eq!(version_and_len(&db.file("2024-01-01.xs.data")).0, 1);
    check("version 1 after writes");
    let before = all(&db);
    assert!(
        before.contains("2024-01-01T00:05:00.000Z,9.0,9.0,9,9,m\n"),
        "{before}"
    );
    assert!(!before.contains("00:02:30.500Z"), "{before}");

    // Defrag rewrites every version-1 partition as version 3 (summaries and checksums):
    // 32 + 16 × 4 numeric columns.
    let dry = db.ok(&["defrag", "--dry-run"]);
    assert!(
        dry.contains("partition version 1 (a rewrite adds summaries and checksums: version 3)"),
        "{dry}"
    );
    let said = db.ok(&["defrag"]);
    assert_eq!(
        said.matches("summaries and checksums added (partition version 1 → 3)")
            .count(),
        2,
        "{said}"
    );
    for name in ["2024-01-01.xs", "2024-01-02.xs"] {
        assert_eq!(version_and_len(&db.file(name)), (3, 4096 + 1440 * 96), "{name}");
    }
    assert_eq!(all(&db), before, "defrag keeps every row");
    check("after the upgrade");
}
