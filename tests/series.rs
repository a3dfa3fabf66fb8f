//! Series keys and unique keys (issue 13): files of different series never touch each other,
//! a day split into files at any point imports to exactly the rows of the whole day, and every
//! read can ask for one series or merge them all.

mod common;

use std::path::{Path, PathBuf};

use common::{run, sparse_data, xs, TestDb};

/// A temp directory holding input files and the database `db` inside it.
struct Work {
    tmp: tempfile::TempDir,
}

impl Work {
    fn new() -> Work {
        Work {
            tmp: tempfile::tempdir().expect("temp dir"),
        }
    }

    fn db(&self) -> PathBuf {
        self.tmp.path().join("db")
    }

    fn file(&self, name: &str, text: &str) -> PathBuf {
        let path = self.tmp.path().join(name);
        std::fs::write(&path, text).expect("write input");
        path
    }

    /// `xs -d DB ARGS…` → (code, stdout, stderr).
    fn xs(&self, args: &[&str]) -> (i32, String, String) {
        let mut cmd = xs();
        cmd.arg("-d").arg(self.db()).args(args);
        run(cmd)
    }

    fn ok(&self, args: &[&str]) -> String {
        let (code, out, err) = self.xs(args);
        assert_eq!(code, 0, "xs {args:?}: {err}");
        out
    }

    fn import(&self, file: &Path, extra: &[&str]) -> String {
        let mut cmd = xs();
        cmd.arg("-d").arg(self.db()).arg("import").arg(file).args(extra);
        let (code, _, err) = run(cmd);
        assert_eq!(code, 0, "import {}: {err}", file.display());
        err
    }
}

/// Daily bars of one ticker: the same 40 timestamps for every ticker.
fn ticker_file(ticker: &str, base: f64) -> String {
    let mut text = String::from("date,ticker,close,volume\n");
    for day in 0..40 {
        let t = 1_704_067_200 + day * 86_400;
        text.push_str(&format!("{t},{ticker},{:.2},{}\n", base + day as f64, 1000 + day));
    }
    text
}

fn lines(text: &str) -> Vec<&str> {
    text.lines().collect()
}

#[test]
fn per_ticker_files_keep_every_row() {
    let w = Work::new();
    let tickers = ["AAPL", "MSFT", "GOOG", "AMZN", "TSLA"];
    for (i, t) in tickers.iter().enumerate() {
        let f = w.file(&format!("{t}.csv"), &ticker_file(t, 100.0 * (i + 1) as f64));
        w.import(&f, &["--series-by", "ticker", "--time-unit", "s"]);
    }
    let all = w.ok(&["range", "2024-01-01", "2025-01-01"]);
    assert_eq!(lines(&all).len(), 1 + 5 * 40, "{all}");
    // Merged in time order, ties in series order (by value).
    assert_eq!(
        lines(&all)[1..6],
        [
            "2024-01-01T00:00:00Z,AAPL,100.00,1000",
            "2024-01-01T00:00:00Z,AMZN,400.00,1000",
            "2024-01-01T00:00:00Z,GOOG,300.00,1000",
            "2024-01-01T00:00:00Z,MSFT,200.00,1000",
            "2024-01-01T00:00:00Z,TSLA,500.00,1000",
        ]
    );
    let msft = w.ok(&["range", "2024-01-01", "2025-01-01", "--series", "MSFT"]);
    assert_eq!(lines(&msft).len(), 41);
    assert!(lines(&msft)[1..].iter().all(|l| l.contains(",MSFT,")), "{msft}");
    let two = w.ok(&[
        "range",
        "2024-01-01",
        "2025-01-01",
        "--series",
        "TSLA,AAPL",
        "--limit",
        "3",
    ]);
    assert_eq!(
        lines(&two)[1..],
        [
            "2024-01-01T00:00:00Z,AAPL,100.00,1000",
            "2024-01-01T00:00:00Z,TSLA,500.00,1000",
            "2024-01-02T00:00:00Z,AAPL,101.00,1001",
        ]
    );
    // Each series sits in its own directory.
    for t in tickers {
        assert!(w.db().join("series").join(t).is_dir(), "{t}");
    }
}

/// Trades of several symbols that share milliseconds, with ids.
fn trades(symbols: &[&str], per_ms: usize, ms: usize) -> Vec<String> {
    let mut rows = Vec::new();
    let mut id = 0;
    for m in 0..ms {
        for s in symbols {
            for k in 0..per_ms {
                id += 1;
                let t = 1_723_161_600_000u64 + m as u64 * 7;
                rows.push(format!("{t},{s},{}.{k},{},{id}", 50 + m % 13, 1 + (id % 5)));
            }
        }
    }
    rows
}

const TRADES_HEADER: &str = "time,symbol,price,qty,trade_id\n";

#[test]
fn inference_proposes_series_and_unique_keys_and_says_so() {
    let w = Work::new();
    let f = w.file(
        "trades.csv",
        &(TRADES_HEADER.to_string() + &trades(&["BTCUSDT", "ETHUSDT", "SOLUSDT"], 2, 200).join("\n")),
    );
    let err = w.import(&f, &[]);
    assert!(err.contains("series key `symbol` (guessed)"), "{err}");
    assert!(err.contains("unique key `trade_id` (guessed)"), "{err}");
    assert!(err.contains("--series-by symbol --unique-by trade_id"), "{err}");
    assert!(err.contains("1200 stored"), "{err}");
    let toml = std::fs::read_to_string(w.db().join("xs.toml")).unwrap();
    // The symbol is repeated text, inferred `sym` (format 3); the records columnar: format 4.
    assert!(
        toml.contains("format = 4")
            && toml.contains("codec = \"columnar\"")
            && toml.contains("type = \"sym\"")
            && toml.contains("series_by = [\"symbol\"]"),
        "{toml}"
    );
    let eth = w.ok(&["range", "2024-08-09", "2024-08-10", "--series", "ETHUSDT"]);
    assert_eq!(lines(&eth).len(), 401);
}

#[test]
fn eth_after_btc_sharing_milliseconds_erases_nothing() {
    let w = Work::new();
    let btc = w.file(
        "btc.csv",
        &(TRADES_HEADER.to_string() + &trades(&["BTCUSDT"], 3, 100).join("\n")),
    );
    let eth = w.file(
        "eth.csv",
        &(TRADES_HEADER.to_string() + &trades(&["ETHUSDT"], 2, 100).join("\n")),
    );
    w.import(&btc, &["--series-by", "symbol"]);
    let err = w.import(&eth, &[]);
    assert!(!err.contains("removed"), "{err}");
    let out = w.ok(&["range", "2024-08-09", "2024-08-10"]);
    assert_eq!(lines(&out).len(), 1 + 300 + 200);
}

/// Splits `rows` into files at `cuts` (row indices).
fn split(w: &Work, rows: &[String], cuts: &[usize], tag: &str) -> Vec<PathBuf> {
    let mut bounds = vec![0];
    bounds.extend_from_slice(cuts);
    bounds.push(rows.len());
    bounds
        .windows(2)
        .enumerate()
        .map(|(i, b)| {
            w.file(
                &format!("{tag}-{i}.csv"),
                &(TRADES_HEADER.to_string() + &rows[b[0]..b[1]].join("\n")),
            )
        })
        .collect()
}

/// Every file of a database by relative path, with its data (the lock and rejects files
/// aside: the lock is one process's, a rejects file is named by the clock).
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if p.is_dir() {
                stack.push(p);
            } else if name != ".lock" && !name.starts_with("rejects") {
                out.push((
                    p.strip_prefix(dir).unwrap().display().to_string(),
                    sparse_data(&p),
                ));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_day_split_anywhere_imports_to_the_whole_day_with_a_unique_key() {
    let rows = trades(&["BTCUSDT", "ETHUSDT"], 3, 120);
    let whole = Work::new();
    let all = whole.file("all.csv", &(TRADES_HEADER.to_string() + &rows.join("\n")));
    let keys = [
        "--series-by",
        "symbol",
        "--unique-by",
        "trade_id",
        "--granularity",
        "1ms",
        "--depth",
        "8",
    ];
    whole.import(&all, &keys);
    let expected = whole.ok(&["range", "2024-08-09", "2024-08-10"]);
    assert_eq!(lines(&expected).len(), 1 + rows.len());
    // Cuts inside a millisecond's rows (row 4 of 6 at one ms), in and out of order, twice.
    for (cuts, order) in [
        (vec![4], vec![0, 1]),
        (vec![4], vec![1, 0]),
        (vec![100, 101, 500], vec![2, 0, 3, 1, 0]),
        (vec![1, 719], vec![2, 1, 0, 1]),
    ] {
        // The same imports in the same order, twice: the same bytes.
        let runs: Vec<Work> = (0..2)
            .map(|_| {
                let w = Work::new();
                let parts = split(&w, &rows, &cuts, "part");
                w.import(&parts[order[0]], &keys);
                for &i in &order[1..] {
                    w.import(&parts[i], &[]);
                }
                w
            })
            .collect();
        let got = runs[0].ok(&["range", "2024-08-09", "2024-08-10"]);
        assert!(
            got == expected,
            "cuts {cuts:?} order {order:?}: rows differ from the whole day"
        );
        let (a, b) = (files(&runs[0].db()), files(&runs[1].db()));
        assert!(
            a == b,
            "cuts {cuts:?} order {order:?}: two runs wrote different bytes"
        );
        // Importing any part again changes no byte.
        let again = split(&runs[0], &rows, &cuts, "again");
        runs[0].import(&again[order[0]], &[]);
        assert!(files(&runs[0].db()) == a, "cuts {cuts:?}: a re-run changed bytes");
    }
}

#[test]
fn a_day_split_without_a_unique_key_says_what_it_removed() {
    let rows = trades(&["BTCUSDT"], 3, 50);
    let w = Work::new();
    // Cut inside the rows of one millisecond (two before, one after): the second file
    // replaces the two with its one.
    let parts = split(&w, &rows, &[5], "part");
    w.import(
        &parts[0],
        &["--series-by", "none", "--unique-by", "none", "--depth", "8"],
    );
    let err = w.import(&parts[1], &[]);
    assert!(err.contains("1 stored row(s) replaced, 1 removed"), "{err}");
    assert!(
        err.contains("warning: this import removed 1 stored row(s)")
            && err.contains("--unique-by")
            && err.contains("create it with --series-by COLS"),
        "{err}"
    );
    // The millisecond kept one row of three: the two stored before the cut were replaced.
    let out = w.ok(&["range", "2024-08-09", "2024-08-10"]);
    assert_eq!(lines(&out).len(), 1 + rows.len() - 2);
}

#[test]
fn an_input_missing_a_column_is_refused() {
    let w = Work::new();
    let full = w.file(
        "full.csv",
        &(TRADES_HEADER.to_string() + &trades(&["BTCUSDT"], 1, 20).join("\n")),
    );
    w.import(&full, &[]);
    let partial = w.file(
        "partial.csv",
        "time,symbol,price,trade_id\n1723161600000,BTCUSDT,1.5,1\n",
    );
    let mut cmd = xs();
    cmd.arg("-d").arg(w.db()).arg("import").arg(&partial);
    let (code, _, err) = run(cmd);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("lacks the database column(s) qty") && err.contains("--update-columns"),
        "{err}"
    );
    let out = w.ok(&["get", "2024-08-09T00:00:00Z"]);
    assert!(
        out.contains(",1\n") && !out.contains(",,"),
        "the stored row is untouched: {out}"
    );
}

#[test]
fn update_columns_changes_only_the_columns_the_input_has() {
    let w = Work::new();
    let full = w.file(
        "full.csv",
        "time,host,cpu,mem\n2024-01-01T00:00:00Z,a,1,10\n2024-01-01T00:00:00Z,b,2,20\n\
         2024-01-01T00:01:00Z,a,3,30\n",
    );
    w.import(&full, &["--series-by", "host"]);
    let mem = w.file(
        "mem.csv",
        "time,host,mem\n2024-01-01T00:00:00Z,a,11\n2024-01-01T00:02:00Z,b,22\n",
    );
    let err = w.import(&mem, &["--update-columns"]);
    assert!(
        err.contains("2 stored, 0 rejected") && err.contains("1 stored row(s) updated"),
        "{err}"
    );
    let expected = "time,host,cpu,mem\n\
                    2024-01-01T00:00:00Z,a,1,11\n\
                    2024-01-01T00:00:00Z,b,2,20\n\
                    2024-01-01T00:01:00Z,a,3,30\n\
                    2024-01-01T00:02:00Z,b,,22\n";
    assert_eq!(w.ok(&["range", "2024-01-01", "2024-01-02"]), expected);
    // Updating with what is stored changes no byte.
    let before = files(&w.db());
    w.import(&mem, &["--update-columns"]);
    assert!(files(&w.db()) == before, "a re-run changed the files");
    assert_eq!(w.ok(&["range", "2024-01-01", "2024-01-02"]), expected);
}

/// A row of an input that a later row of the same input replaces (same time and unique key)
/// is counted among the rows stored and the rows replaced, and the summary says that the
/// replaced rows may be the input's own: "3 stored" over 2 rows in the database adds up.
#[test]
fn rows_an_input_replaces_itself_are_said_to_be_its_own() {
    let w = Work::new();
    let f = w.file(
        "dup.csv",
        "time,id,price\n2024-01-01T00:00:00Z,1,10\n2024-01-01T00:00:00Z,1,11\n2024-01-01T00:00:01Z,2,12\n",
    );
    let err = w.import(&f, &["--unique-by", "id"]);
    assert!(err.contains("3 rows read, 3 stored, 0 rejected"), "{err}");
    assert!(
        err.contains(
            "1 row(s) replaced by a later row with the same time and id (rows stored before, or \
             earlier rows of this input)"
        ),
        "{err}"
    );
    assert_eq!(
        w.ok(&["range", "2024-01-01", "2024-01-02"]),
        "time,id,price\n2024-01-01T00:00:00Z,1,11\n2024-01-01T00:00:01Z,2,12\n"
    );
}

/// Per-ticker files that number their rows from 1 (`id,timestamp,symbol,close`): a unique key
/// `id` was guessed instead of the series key `symbol` once a file had 64 rows, and the next
/// ticker's file replaced the first one's rows (same ids, same times), exit 0.
#[test]
fn per_ticker_files_numbered_from_one_keep_each_ticker() {
    let w = Work::new();
    let file = |ticker: &str, base: f64| {
        let mut text = String::from("id,timestamp,symbol,close\n");
        for i in 0..70 {
            let t = 1_704_205_800 + 60 * i;
            text.push_str(&format!("{},{t},{ticker},{:.1}\n", i + 1, base + i as f64 / 10.0));
        }
        w.file(&format!("{ticker}_1min.csv"), &text)
    };
    let err = w.import(&file("AAPL", 100.0), &[]);
    assert!(err.contains("series key `symbol`"), "{err}");
    let err = w.import(&file("MSFT", 300.0), &[]);
    assert!(!err.contains("replaced"), "{err}");
    let out = w.ok(&["range", "2024-01-01", "2024-01-03"]);
    assert_eq!(out.lines().count(), 1 + 140, "{out}");
    assert!(
        out.contains(",AAPL,100.0") && out.contains(",MSFT,300.0"),
        "{out}"
    );
}

/// `--series C,D` read (and deleted) the series C and D where a series `C,D` is stored, exit 0.
/// A stored value with a comma is taken whole; where its parts are stored too it is refused.
#[test]
fn a_series_value_with_a_comma_is_never_split_silently() {
    let w = Work::new();
    let f = w.file(
        "c.csv",
        "time,sym,v\n2024-01-01T00:00:00Z,\"A,B\",1\n2024-01-01T00:00:00Z,A,2\n2024-01-01T00:00:00Z,E,4\n",
    );
    w.import(&f, &["--series-by", "sym"]);
    assert_eq!(
        w.ok(&["range", "2024-01-01", "2024-01-02", "--series", "A,B"]),
        "time,sym,v\n2024-01-01T00:00:00Z,\"A,B\",1\n"
    );
    assert_eq!(
        w.ok(&["range", "2024-01-01", "2024-01-02", "--series", "A,E"]),
        "time,sym,v\n2024-01-01T00:00:00Z,A,2\n2024-01-01T00:00:00Z,E,4\n"
    );
    let f = w.file("b.csv", "time,sym,v\n2024-01-01T00:00:00Z,B,3\n");
    w.import(&f, &[]);
    let (code, _, err) = w.xs(&["delete", "2024-01-01", "2024-01-02", "--series", "A,B"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--series A --series B"), "{err}");
    assert_eq!(w.ok(&["range", "2024-01-01", "2024-01-02"]).lines().count(), 5);
}

/// A `, `-separated file's ` USDJPY` was a series of its own beside `USDJPY` from another
/// file, and `--series USDJPY` missed its rows.
#[test]
fn a_series_value_is_read_without_the_spaces_around_it() {
    let w = Work::new();
    let a = w.file(
        "a.csv",
        "time, symbol, price\n2024-01-01T00:00:00Z, USDJPY, 150.1\n2024-01-01T00:00:01Z, EURUSD , 1.1\n",
    );
    w.import(&a, &["--series-by", "symbol"]);
    let b = w.file("b.csv", "time,symbol,price\n2024-01-01T00:00:02Z,USDJPY,150.2\n");
    w.import(&b, &[]);
    assert_eq!(
        w.ok(&["range", "2024-01-01", "2024-01-02", "--series", "USDJPY"]),
        "time,symbol,price\n2024-01-01T00:00:00Z,USDJPY,150.1\n2024-01-01T00:00:02Z,USDJPY,150.2\n"
    );
    assert!(w
        .ok(&["range", "2024-01-01", "2024-01-02", "--series", "EURUSD"])
        .contains(",EURUSD,1.1"));
}

/// A row whose unique key is empty cannot be told from the other rows at its time: two such
/// rows replaced each other while the summary counted both stored. Now each is rejected with
/// its reason, and `put` refuses one.
#[test]
fn a_row_without_its_unique_key_is_rejected() {
    let w = Work::new();
    let f = w.file(
        "keyless.csv",
        "time,symbol,trade_id,price\n2024-01-05T14:30:00Z,AAPL,,1.5\n2024-01-05T14:30:00Z,AAPL,,2.5\n\
         2024-01-05T14:30:00Z,AAPL,7,3.5\n",
    );
    let (code, _, err) = w.xs(&["import", f.to_str().unwrap(), "--unique-by", "trade_id"]);
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("3 rows read, 1 stored, 2 rejected"), "{err}");
    let rejects = std::fs::read_dir(w.db())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("rejects-"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .unwrap_or_default();
    assert!(
        rejects.contains("column `trade_id` of the unique key is empty"),
        "{rejects}"
    );
    assert_eq!(
        w.ok(&["range", "2024-01-05", "2024-01-06"]),
        "time,symbol,trade_id,price\n2024-01-05T14:30:00Z,AAPL,7,3.5\n"
    );
    let (code, _, err) = w.xs(&["put", "2024-01-05T14:31:00Z", "symbol=AAPL", "price=1"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("column `trade_id` of the unique key is empty"),
        "{err}"
    );
}

#[test]
fn update_columns_by_unique_key_in_any_order() {
    let rows = trades(&["BTCUSDT", "ETHUSDT"], 3, 30);
    // The same trades with a corrected qty (the trade id, time and symbol say which), split in two.
    let fixes: Vec<String> = rows
        .iter()
        .step_by(2)
        .map(|r| {
            let f: Vec<&str> = r.split(',').collect();
            format!("{},{},{},9{}", f[0], f[1], f[4], f[4])
        })
        .collect();
    let mut stored = Vec::new();
    for order in [[0, 1], [1, 0]] {
        let w = Work::new();
        let full = w.file("full.csv", &(TRADES_HEADER.to_string() + &rows.join("\n")));
        w.import(&full, &["--series-by", "symbol", "--unique-by", "trade_id"]);
        let half = fixes.len() / 2;
        let parts = [&fixes[..half], &fixes[half..]];
        for k in order {
            let f = w.file(
                &format!("fix{k}.csv"),
                &format!("time,symbol,trade_id,qty\n{}\n", parts[k].join("\n")),
            );
            let err = w.import(&f, &["--update-columns"]);
            assert!(
                err.contains(&format!("{} stored row(s) updated", parts[k].len())),
                "{err}"
            );
        }
        // A new trade id at a stored time is added, its other columns null.
        let new = w.file(
            "new.csv",
            "time,symbol,trade_id,qty\n1723161600000,BTCUSDT,999,7\n",
        );
        w.import(&new, &["--update-columns"]);
        stored.push(w.ok(&["range", "2024-08-09", "2024-08-10"]));
    }
    assert_eq!(stored[0], stored[1], "the order of the updates matters");
    let out = lines(&stored[0]);
    assert_eq!(out.len(), 1 + rows.len() + 1);
    // Each trade keeps its time, symbol and price; the fixed ones have the new qty.
    for (i, r) in rows.iter().enumerate() {
        let f: Vec<&str> = r.split(',').collect();
        let qty = if i % 2 == 0 {
            format!("9{}", f[4])
        } else {
            f[3].to_string()
        };
        let got: Vec<Vec<&str>> = out[1..]
            .iter()
            .map(|l| l.split(',').collect::<Vec<_>>())
            .filter(|g| g[4] == f[4])
            .collect();
        assert_eq!(got.len(), 1, "trade {}: {got:?}", f[4]);
        let price: f64 = got[0][2].parse().unwrap();
        assert_eq!(
            (got[0][1], price, got[0][3]),
            (f[1], f[2].parse::<f64>().unwrap(), qty.as_str()),
            "trade {}",
            f[4]
        );
    }
    assert!(
        out.contains(&"2024-08-09T00:00:00.000Z,BTCUSDT,,7,999"),
        "{}",
        stored[0]
    );
}

#[test]
fn update_columns_needs_the_keys_and_one_row_per_time_without_a_unique_key() {
    let w = Work::new();
    let full = w.file(
        "full.csv",
        "time,host,cpu,mem\n2024-01-01T00:00:00Z,a,1,10\n2024-01-01T00:00:00Z,a,2,20\n",
    );
    w.import(&full, &["--series-by", "host", "--depth", "2"]);
    let nokey = w.file("nokey.csv", "time,mem\n2024-01-01T00:00:00Z,5\n");
    let mut cmd = xs();
    cmd.arg("-d")
        .arg(w.db())
        .args(["import", "--update-columns"])
        .arg(&nokey);
    let (code, _, err) = run(cmd);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("lacks the key column(s) host"), "{err}");
    // Two rows stored at the time and no unique key: which to update cannot be told.
    let two = w.file("two.csv", "time,host,mem\n2024-01-01T00:00:00Z,a,5\n");
    let mut cmd = xs();
    cmd.arg("-d")
        .arg(w.db())
        .args(["import", "--update-columns", "--max-rejects", "1"])
        .arg(&two);
    let (code, _, err) = run(cmd);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("0 stored, 1 rejected"), "{err}");
    let rejects = std::fs::read_dir(w.db())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("rejects-"))
        .expect("a rejects file");
    let text = std::fs::read_to_string(rejects).unwrap();
    assert!(
        text.contains("2 rows are stored at 2024-01-01T00:00:00Z") && text.contains("--unique-by"),
        "{text}"
    );
    assert_eq!(
        w.ok(&["range", "2024-01-01", "2024-01-02"]),
        "time,host,cpu,mem\n2024-01-01T00:00:00Z,a,1,10\n2024-01-01T00:00:00Z,a,2,20\n"
    );
}

/// Three quotes of series A and B (`--series-by sym`): A at 1 s and 5 s, B at 2 s.
fn quotes_by_sym() -> Work {
    let w = Work::new();
    let q = w.file(
        "q.csv",
        "time,sym,bid\n\
         2024-01-01T00:00:01Z,A,1\n\
         2024-01-01T00:00:02Z,B,2\n\
         2024-01-01T00:00:05Z,A,3\n",
    );
    w.import(&q, &["--series-by", "sym"]);
    w
}

#[test]
fn get_and_asof_work_per_series() {
    let w = quotes_by_sym();
    let out = w.ok(&["get", "--asof", "2024-01-01T00:00:04Z"]);
    assert_eq!(
        lines(&out)[1..],
        ["2024-01-01T00:00:01Z,A,1", "2024-01-01T00:00:02Z,B,2"]
    );
    let out = w.ok(&["get", "--asof", "--series", "A", "2024-01-01T00:00:09Z"]);
    assert_eq!(lines(&out)[1..], ["2024-01-01T00:00:05Z,A,3"]);
    let out = w.ok(&["get", "--series", "B", "2024-01-01T00:00:02Z"]);
    assert_eq!(lines(&out)[1..], ["2024-01-01T00:00:02Z,B,2"]);
    let (code, _, err) = w.xs(&["get", "--series", "B", "2024-01-01T00:00:01Z"]);
    assert_eq!(code, 1, "{err}");
    let (code, _, err) = w.xs(&["get", "--series", "Z", "2024-01-01T00:00:01Z"]);
    assert_eq!(code, 1);
    assert!(err.contains("holds no series `Z`"), "{err}");
}

/// Regression: `get` reads the series in parallel blocks; its rows must still come in time
/// order, ties in series order, cut by `--limit` at the same row, and the series past the
/// first block must answer.
#[test]
fn get_over_many_series_keeps_time_then_series_order() {
    let w = Work::new();
    let mut csv = String::from("time,sym,v\n");
    // More series than any machine's block of series read in parallel (4 a thread). Series
    // k holds seconds 0 and 1 + k % 5: the latest rows tie in groups of 60.
    for k in 0..300 {
        for s in [0, 1 + k % 5] {
            csv.push_str(&format!("{},s{k:03},{}\n", 1_704_067_200 + s, k * 10 + s));
        }
    }
    let f = w.file("t.csv", &csv);
    w.import(&f, &["--series-by", "sym"]);
    let mut want: Vec<(i64, i64, String)> = (0..300)
        .map(|k| {
            let s = 1 + k % 5;
            (s, k, format!("2024-01-01T00:00:{s:02}Z,s{k:03},{}", k * 10 + s))
        })
        .collect();
    want.sort();
    let want: Vec<&str> = want.iter().map(|(_, _, line)| line.as_str()).collect();
    let out = w.ok(&["get", "--asof", "2024-01-01T00:01:00Z"]);
    let got: Vec<&str> = out.lines().skip(1).collect();
    assert_eq!(got, want);
    for n in [6, 130] {
        let out = w.ok(&["get", "--asof", "2024-01-01T00:01:00Z", "--limit", &n.to_string()]);
        let got: Vec<&str> = out.lines().skip(1).collect();
        assert_eq!(got, want[..n]);
    }
    // A plain get at one time: every series that has it, in series order.
    let out = w.ok(&["get", "2024-01-01T00:00:03Z"]);
    let got: Vec<&str> = out.lines().skip(1).collect();
    let at3: Vec<&str> = want
        .iter()
        .copied()
        .filter(|l| l.starts_with("2024-01-01T00:00:03Z"))
        .collect();
    assert_eq!(got.len(), 60);
    assert_eq!(got, at3);
}

#[test]
fn an_asof_join_looks_each_row_up_in_its_series() {
    let w = quotes_by_sym();
    // Trades of three symbols, out of time order; C has no quotes, A's first trade none yet.
    let trades = w.file(
        "trades.csv",
        "sym,time,px\n\
         A,2024-01-01T00:00:06Z,10\n\
         B,2024-01-01T00:00:03Z,11\n\
         C,2024-01-01T00:00:03Z,12\n\
         A,2024-01-01T00:00:00Z,13\n\
         A,2024-01-01T00:00:04Z,14\n",
    );
    let out = w.ok(&[
        "get",
        "--asof",
        "--join",
        trades.to_str().unwrap(),
        "--prefix",
        "quote",
    ]);
    assert_eq!(
        out,
        "sym,time,px,quote.time,quote.sym,quote.bid\n\
         A,2024-01-01T00:00:06Z,10,2024-01-01T00:00:05Z,A,3\n\
         B,2024-01-01T00:00:03Z,11,2024-01-01T00:00:02Z,B,2\n\
         C,2024-01-01T00:00:03Z,12,,,\n\
         A,2024-01-01T00:00:00Z,13,,,\n\
         A,2024-01-01T00:00:04Z,14,2024-01-01T00:00:01Z,A,1\n"
    );
    // Without a series column: every row in the one --series given, or an error that says so.
    // Fields are trimmed, the series key's too.
    let spaced = w.file("spaced.csv", "time, sym\n2024-01-01T00:00:03Z, B\n");
    let out = w.ok(&[
        "get",
        "--asof",
        "--join",
        spaced.to_str().unwrap(),
        "--prefix",
        "q",
    ]);
    assert_eq!(
        out,
        "time,sym,q.time,q.sym,q.bid\n2024-01-01T00:00:03Z, B,2024-01-01T00:00:02Z,B,2\n"
    );
    let times = w.file("times.csv", "2024-01-01T00:00:03Z\n2024-01-01T00:00:09Z\n");
    let out = w.ok(&[
        "get",
        "--asof",
        "--join",
        times.to_str().unwrap(),
        "--series",
        "A",
        "--prefix",
        "q",
    ]);
    assert_eq!(
        out,
        "time,q.time,q.sym,q.bid\n\
         2024-01-01T00:00:03Z,2024-01-01T00:00:01Z,A,1\n\
         2024-01-01T00:00:09Z,2024-01-01T00:00:05Z,A,3\n"
    );
    let (code, _, err) = w.xs(&["get", "--asof", "--join", times.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("no series column `sym`") && err.contains("--series"),
        "{err}"
    );
}

#[test]
fn aggregates_go_per_series_unless_all_series() {
    let w = Work::new();
    let f = w.file(
        "t.csv",
        "time,sym,price,qty\n\
         2024-01-01T00:00:01Z,A,10,1\n\
         2024-01-01T00:00:01Z,B,20,2\n\
         2024-01-01T00:01:30Z,A,11,3\n\
         2024-01-01T00:01:31Z,B,21,4\n",
    );
    w.import(&f, &["--series-by", "sym"]);
    let out = w.ok(&[
        "range",
        "2024-01-01",
        "2024-01-02",
        "--every",
        "1m",
        "--agg",
        "count,sum(qty)",
    ]);
    assert_eq!(
        out,
        "time,sym,count,sum_qty\n\
         2024-01-01T00:00:00Z,A,1,1\n\
         2024-01-01T00:01:00Z,A,1,3\n\
         2024-01-01T00:00:00Z,B,1,2\n\
         2024-01-01T00:01:00Z,B,1,4\n"
    );
    let out = w.ok(&[
        "range",
        "2024-01-01",
        "2024-01-02",
        "--every",
        "1m",
        "--agg",
        "count,sum(qty)",
        "--all-series",
    ]);
    assert_eq!(
        out,
        "time,count,sum_qty\n2024-01-01T00:00:00Z,2,3\n2024-01-01T00:01:00Z,2,7\n"
    );
    let out = w.ok(&[
        "range",
        "2024-01-01",
        "2024-01-02",
        "--ohlcv",
        "price,qty",
        "--series",
        "B",
    ]);
    assert_eq!(
        out,
        "time,sym,open,high,low,close,volume,count\n2024-01-01T00:00:00Z,B,20,21,20,21,6,2\n"
    );
}

/// Regression: per-series aggregates run a block of series in parallel and hold each one's
/// output; the output must still go series by series, each in time order, and `--limit` must
/// cut it at the same row, across blocks and for a series whose output is too long to hold
/// (read again, streamed).
#[test]
fn per_series_aggregates_keep_order_and_limit_across_parallel_blocks() {
    let w = Work::new();
    let long = "s150";
    let mut csv = String::from("time,sym,v\n");
    let mut expected: Vec<String> = Vec::new();
    // More series than any machine's block of series aggregated in parallel (4 a thread).
    for k in 0..300 {
        let sym = format!("s{k:03}");
        let seconds: Vec<i64> = if sym == long {
            (0..16_500).collect()
        } else {
            vec![0, 1, 65 + k]
        };
        for &s in &seconds {
            let v = k * 1000 + s % 7;
            csv.push_str(&format!("{},{sym},{v}\n", 1_704_067_200 + s));
            expected.push(format!(
                "2024-01-01T{:02}:{:02}:{:02}Z,{sym},1,{v}",
                s / 3600,
                s / 60 % 60,
                s % 60
            ));
        }
    }
    let f = w.file("t.csv", &csv);
    w.import(&f, &["--series-by", "sym"]);
    let aggregate = |limit: Option<usize>| {
        let mut args = vec![
            "range",
            "2024-01-01",
            "2024-01-02",
            "--every",
            "1s",
            "--agg",
            "count,sum(v)",
        ];
        let limit_text = limit.map(|n| n.to_string());
        if let Some(n) = &limit_text {
            args.extend(["--limit", n.as_str()]);
        }
        w.ok(&args)
    };
    let header = "time,sym,count,sum_v";
    let full = aggregate(None);
    let lines: Vec<&str> = full.lines().collect();
    assert_eq!(lines[0], header);
    assert_eq!(lines.len() - 1, expected.len());
    for (i, (got, want)) in lines[1..].iter().zip(&expected).enumerate() {
        assert_eq!(got, want, "row {i}");
    }
    // The long series starts after 10 short ones (30 rows) and ends 16,500 rows later.
    for n in [
        1,
        7,
        29,
        30,
        31,
        16_383,
        16_384,
        16_530,
        16_531,
        expected.len() - 1,
    ] {
        let out = aggregate(Some(n));
        let got: Vec<&str> = out.lines().collect();
        assert_eq!(got[0], header, "--limit {n}");
        assert_eq!(got.len() - 1, n, "--limit {n}");
        assert!(got[1..] == lines[1..=n], "--limit {n}: not the first {n} rows");
    }
}

#[test]
fn delete_put_export_and_stat_know_series() {
    let w = Work::new();
    let f = w.file(
        "t.csv",
        "time,sym,v\n2024-01-01T00:00:01Z,A,1\n2024-01-01T00:00:01Z,B,2\n2024-01-01T00:00:02Z,A,3\n",
    );
    w.import(&f, &["--series-by", "sym"]);
    let err = {
        let (code, _, err) = w.xs(&["delete", "2024-01-01", "2024-01-02", "--series", "A"]);
        assert_eq!(code, 0, "{err}");
        err
    };
    assert!(err.contains("deleted 2 rows"), "{err}");
    w.ok(&["put", "2024-01-01T00:00:03Z", "C", "7"]);
    let out = w.ok(&["export", "-o", "-"]);
    assert_eq!(
        out,
        "time,sym,v\n2024-01-01T00:00:01Z,B,2\n2024-01-01T00:00:03Z,C,7\n"
    );
    let stat = w.ok(&["stat"]);
    assert!(stat.contains("series: 3 (key sym)"), "{stat}");
    assert!(stat.contains("B/2024") && stat.contains("C/2024"), "{stat}");
    let json = w.ok(&["stat", "--json", "--series", "C"]);
    assert!(json.contains("\"series\": 1"), "{json}");
    // Partitions named as stat names them, by stat, defrag and check.
    let one = w.ok(&["stat", "C/2024"]);
    assert!(one.contains("C/2024") && !one.contains("B/2024"), "{one}");
    let both = w.ok(&["stat", "B/2024", "C/2024"]);
    assert!(both.contains("B/2024") && both.contains("C/2024"), "{both}");
    let defrag = w.ok(&["defrag", "--dry-run", "C/2024"]);
    assert!(
        defrag.contains("C/2024") && !defrag.contains("B/2024"),
        "{defrag}"
    );
    let (code, _, err) = w.xs(&["stat", "B/2024", "C/2023"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("name the same partitions of each series"), "{err}");
    let (code, _, err) = w.xs(&["stat", "Z/2024"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("holds no series `Z`"), "{err}");
    let check = w.ok(&["check"]);
    assert!(
        check.contains("B/2024: 1 rows verified, ok\nC/2024: 1 rows verified"),
        "{check}"
    );
}

#[test]
fn series_on_a_plain_database_is_refused() {
    let db = TestDb::create("1s", "v:i64", &[]);
    let (code, _, err) = run(db.xs(&["range", "2024-01-01", "2024-01-02", "--series", "A"]));
    assert_eq!(code, 2);
    assert!(err.contains("has no series key"), "{err}");
}

#[test]
fn keys_are_checked_at_create_and_fixed_after() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("db");
    for (columns, key, says) in [
        ("x:f64,v:i64", "x", "is a float"),
        ("s:str(100),v:i64", "s", "past the 240"),
        ("s:str(8),v:i64", "nope", "which is not a column"),
        ("s:str(8),v:i64", "time", "the time column"),
    ] {
        let mut cmd = xs();
        cmd.arg("create")
            .arg(&path)
            .args(["-g", "1s", "-c", columns, "--series-by", key]);
        let (code, _, err) = run(cmd);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(says), "{columns} {key}: {err}");
    }
    let w = Work::new();
    let f = w.file("t.csv", "time,sym,v\n2024-01-01T00:00:01Z,A,1\n");
    w.import(&f, &["--series-by", "sym"]);
    let mut cmd = xs();
    cmd.arg("-d")
        .arg(w.db())
        .args(["import"])
        .arg(&f)
        .args(["--series-by", "v"]);
    let (code, _, err) = run(cmd);
    assert_eq!(code, 2);
    assert!(err.contains("cannot change"), "{err}");
}

#[test]
fn a_link_in_place_of_a_series_directory_is_refused() {
    let w = Work::new();
    let f = w.file("t.csv", "time,sym,v\n2024-01-01T00:00:01Z,A,1\n");
    w.import(&f, &["--series-by", "sym"]);
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), w.db().join("series").join("B")).unwrap();
    let (code, _, err) = w.xs(&["put", "2024-01-01T00:00:02Z", "B", "2"]);
    assert_ne!(code, 0);
    assert!(err.contains("link"), "{err}");
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    // Readers, which open every series side by side, refuse it too, and a file in its place.
    for args in [
        &["range", ".."][..],
        &["get", "--asof", "2024-01-02"],
        &["range", "..", "--series", "B"],
    ] {
        let (code, out, err) = w.xs(args);
        assert_eq!(code, 3, "{args:?}: {out}{err}");
        assert!(err.contains("B is a symbolic link"), "{args:?}: {err}");
    }
    std::fs::remove_file(w.db().join("series").join("B")).unwrap();
    std::fs::write(w.db().join("series").join("B"), "").unwrap();
    let (code, _, err) = w.xs(&["range", ".."]);
    assert_ne!(code, 0);
    assert!(err.contains("is a file where xs keeps a directory"), "{err}");
}

/// `series/` itself a link to another database's series: every command refuses it before it
/// reads or writes a byte there. Before, reads answered with the other database's rows (and
/// this one's symbol texts), `put` wrote into it, and `alter` rewrote its partitions.
#[test]
fn a_link_in_place_of_the_series_directory_is_refused_and_its_target_untouched() {
    let w = Work::new();
    let f = w.file("a.csv", "time,sym,v\n2024-01-01T00:00:01Z,A,1\n");
    w.import(&f, &["--series-by", "sym"]);
    let other = w.tmp.path().join("other");
    let g = w.file("z.csv", "time,sym,v\n2024-01-01T00:00:01Z,Z,9\n");
    let (code, _, err) = run({
        let mut cmd = xs();
        cmd.arg("-d")
            .arg(&other)
            .arg("import")
            .arg(&g)
            .args(["--series-by", "sym"]);
        cmd
    });
    assert_eq!(code, 0, "{err}");
    // What a killed import leaves there too: a writer must not clear it through the link.
    std::fs::create_dir(other.join("series").join(".Y.new")).unwrap();
    std::fs::write(other.join("series").join(".Y.new").join("2024.xs"), "").unwrap();
    std::fs::write(w.db().join(".import-unfinished"), "xs import a.csv\n").unwrap();
    let before = files(&other);
    std::fs::rename(w.db().join("series"), w.tmp.path().join("kept")).unwrap();
    std::os::unix::fs::symlink(other.join("series"), w.db().join("series")).unwrap();
    let h = w.file("b.csv", "time,sym,v\n2024-01-01T00:00:03Z,Z,4\n");
    let h = h.to_str().unwrap();
    for args in [
        &["range", ".."][..],
        &["range", "..", "--series", "Z"],
        &["get", "--asof", "2024-01-02"],
        &["range", "..", "--every", "1h", "--agg", "sum(v)"],
        &["export", "-o", "-"],
        &["put", "2024-01-01T00:00:02Z", "Z", "5"],
        &["import", h],
        &["delete", "2024-01-01", "2024-01-02"],
        &["alter", "--add", "w:i64"],
        &["defrag"],
        &["stat"],
        &["check"],
    ] {
        let (code, out, err) = w.xs(args);
        assert_eq!(code, 3, "{args:?}: {out}{err}");
        assert!(err.contains("series is a symbolic link"), "{args:?}: {err}");
    }
    assert!(files(&other) == before, "the linked database changed");
}

/// The as-of join of an input large enough to be read in pieces side by side (several
/// 64 KiB pieces), against a brute-force join: probes of every series in no order, a series
/// with no quotes, keys with spaces and over 15 bytes, epoch and ISO times, missing times,
/// short records, CRLF line ends and blank lines. The same input with one quoted field (read
/// in one csv pass instead) joins the same way, and `--within` bounds the look back.
#[test]
fn a_join_read_in_pieces_matches_a_brute_force_join() {
    const BASE_MS: i64 = 1_704_067_200_000; // 2024-01-01T00:00:00Z
    let w = Work::new();
    let mut rng = common::Rng(0x9e37_79b9_7f4a_7c15);
    let symbols = ["A", "B", "CC", "A_SYMBOL_LONGER_THAN_15"];
    // Quotes: per symbol, increasing times within the first hour, a bid per row.
    let mut quotes: Vec<Vec<(i64, i64)>> = vec![Vec::new(); symbols.len()];
    let mut text = String::from("time,sym,bid\n");
    for (s, sym) in symbols.iter().enumerate() {
        let mut t = BASE_MS + rng.below(5_000) as i64;
        for _ in 0..300 {
            let bid = rng.below(100_000) as i64;
            quotes[s].push((t, bid));
            text.push_str(&format!("{t},{sym},{bid}\n"));
            t += 1 + rng.below(10_000) as i64;
        }
    }
    let q = w.file("q.csv", &text);
    w.import(&q, &["--series-by", "sym", "--time-unit", "ms"]);

    // Probes: (line as written, its field count, its symbol index, its probe time).
    let mut lines: Vec<(String, usize, Option<usize>, Option<i64>)> = Vec::new();
    for k in 0..9_000 {
        let pick = rng.below(symbols.len() as u64 + 1) as usize;
        let (sym_text, sym) = match pick {
            p if p < symbols.len() && rng.below(10) == 0 => (format!(" {} ", symbols[p]), Some(p)),
            p if p < symbols.len() => (symbols[p].to_string(), Some(p)),
            _ => ("ZZ".to_string(), None),
        };
        let t = BASE_MS - 10_000 + rng.below(3_500_000) as i64;
        let (time_text, time) = match rng.below(40) {
            0 => (String::new(), None),
            1 | 2 => {
                let ms = t - BASE_MS;
                let iso = format!(
                    "2024-01-01T00:{:02}:{:02}.{:03}Z",
                    ms / 60_000,
                    ms / 1000 % 60,
                    ms % 1000
                );
                if ms >= 0 {
                    (iso, Some(t))
                } else {
                    (t.to_string(), Some(t))
                }
            }
            _ => (t.to_string(), Some(t)),
        };
        let (line, fields) = if rng.below(25) == 0 {
            (format!("{sym_text},{time_text}"), 2)
        } else {
            (format!("{sym_text},{time_text},note {k}"), 3)
        };
        lines.push((line, fields, sym, time));
    }
    let input = |quoted_line: Option<usize>| {
        let mut text = String::from("sym,time,note\n");
        for (k, (line, ..)) in lines.iter().enumerate() {
            if Some(k) == quoted_line {
                text.push_str(&line.replacen(",note", ",\"note", 1));
                text.push('"');
            } else {
                text.push_str(line);
            }
            text.push_str(if k % 7 == 0 { "\r\n" } else { "\n" });
            if k % 500 == 0 {
                text.push('\n');
            }
        }
        text
    };
    let want = |quoted_line: Option<usize>, within: Option<i64>| {
        let mut out = String::from("sym,time,note,q.time,q.sym,q.bid\n");
        for (k, (line, fields, sym, time)) in lines.iter().enumerate() {
            let line = match Some(k) == quoted_line {
                true => format!("{}\"", line.replacen(",note", ",\"note", 1)),
                false => line.clone(),
            };
            out.push_str(&line);
            out.push_str(&",".repeat(3 - fields));
            let hit = match (sym, time) {
                (Some(s), Some(t)) => quotes[*s]
                    .iter()
                    .rev()
                    .find(|(qt, _)| qt <= t)
                    .filter(|(qt, _)| within.is_none_or(|w| t - qt <= w)),
                _ => None,
            };
            match hit {
                Some((qt, bid)) => out.push_str(&format!(",{qt},{},{bid}\n", symbols[sym.unwrap()])),
                None => out.push_str(",,,\n"),
            }
        }
        out
    };
    let quoted_at = (4_321..).find(|&k| lines[k].1 == 3);
    for (quoted_line, within) in [(None, None), (quoted_at, None), (None, Some(50))] {
        let file = w.file("probes.csv", &input(quoted_line));
        assert!(std::fs::metadata(&file).unwrap().len() > 3 * 64 * 1024);
        let mut args = vec![
            "get",
            "--asof",
            "--join",
            file.to_str().unwrap(),
            "--prefix",
            "q",
            "--time-format",
            "epoch-ms",
        ];
        let within_text = within.map(|w| format!("{w}ms"));
        if let Some(w) = &within_text {
            args.extend(["--within", w]);
        }
        let (code, out, err) = w.xs(&args);
        assert_eq!(code, 0, "{err}");
        let expected = want(quoted_line, within);
        if out != expected {
            let first = out.lines().zip(expected.lines()).position(|(a, b)| a != b);
            panic!(
                "quoted line {quoted_line:?}, within {within:?}: first difference at output line {first:?}: {:?} against {:?}",
                first.and_then(|i| out.lines().nth(i)),
                first.and_then(|i| expected.lines().nth(i))
            );
        }
        assert!(err.contains("have no time"), "{err}");
    }
}

#[test]
fn rows_held_back_for_many_series_spill_to_disk_and_come_back_whole() {
    // Only the bucket layout holds a bucket's rows back until it is complete.
    if common::layout() != "bucket" {
        return;
    }
    // 1,000 hosts every minute for 12 hours, time ordered: ~19 MB, three import batches, and
    // every host holds its open bucket's rows back from batch to batch: a 6-hour bucket spans
    // two batches, a day bucket all three (its rows come back from three spills).
    let (hosts, minutes) = (1000, 720);
    let mut text = String::from("time,host,n,v\n");
    for m in 0..minutes {
        for h in 0..hosts {
            let n = m * hosts + h;
            text.push_str(&format!("{},h{h},{n},{}\n", 1_609_459_200 + 60 * m, n % 97));
        }
    }
    let keys = ["--series-by", "host", "--granularity", "1m", "--layout", "bucket"];
    for (bucket, unique) in [("6h", &[][..]), ("1d", &["--unique-by", "n"][..])] {
        let runs: Vec<Work> = ["", "1"]
            .iter()
            .map(|budget| {
                let w = Work::new();
                let input = w.file("in.csv", &text);
                let mut cmd = xs();
                cmd.arg("-d")
                    .arg(w.db())
                    .arg("import")
                    .arg(&input)
                    .args(keys)
                    .args(unique)
                    .args(["--bucket", bucket]);
                if !budget.is_empty() {
                    // One byte: every batch's held rows go to the scratch file.
                    cmd.env("XS_IMPORT_HOLD_BYTES", budget);
                }
                let (code, _, err) = run(cmd);
                assert_eq!(code, 0, "{err}");
                assert!(err.contains("720000 rows read, 720000 stored"), "{err}");
                w
            })
            .collect();
        assert!(
            files(&runs[0].db()) == files(&runs[1].db()),
            "{unique:?}: spilling held rows changed the files written"
        );
        for h in ["h0", "h777", "h999"] {
            let out = runs[1].ok(&[
                "range",
                "2021-01-01",
                "2021-01-02",
                "--series",
                h,
                "--columns",
                "time,v",
            ]);
            let expected: Vec<String> = (0..minutes)
                .map(|m| {
                    let n = m * hosts + h[1..].parse::<i64>().unwrap();
                    let t = chrono::DateTime::from_timestamp(1_609_459_200 + 60 * m, 0).unwrap();
                    format!("{},{}", t.format("%Y-%m-%dT%H:%M:%SZ"), n % 97)
                })
                .collect();
            assert_eq!(lines(&out)[1..], expected[..], "{unique:?} {h}");
        }
        // No scratch file is left behind.
        assert!(!files(&runs[1].db()).iter().any(|(p, _)| p.contains("scratch")));
    }
}

#[test]
fn a_row_past_the_depth_names_its_series() {
    // Each series has its own slots: the reason says which one is full at that time.
    let w = Work::new();
    let file = w.file(
        "q.csv",
        "time,symbol,bid\n2024-01-02T00:00:00Z,AAA,1\n2024-01-02T00:00:00Z,BBB,2\n\
         2024-01-02T00:00:00Z,BBB,3\n",
    );
    let mut cmd = xs();
    cmd.arg("-d").arg(w.db()).arg("import").arg(&file).args([
        "--layout",
        "grid",
        "--series-by",
        "symbol",
        "--unique-by",
        "none",
        "--granularity",
        "1s",
        "--depth",
        "1",
    ]);
    let (code, _, err) = run(cmd);
    assert_eq!(code, 4, "{err}");
    let rejects = std::fs::read_dir(w.db())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("rejects-"))
        .expect("a rejects file");
    let rejects = std::fs::read_to_string(rejects).unwrap();
    assert!(
        rejects.contains("more rows at 2024-01-02T00:00:00Z in series `BBB` than the database depth 1"),
        "{rejects}"
    );
    assert_eq!(lines(&w.ok(&["range", "2024-01-02", "2024-01-03"])).len(), 3);
}

/// Under a two-column key, `--series` takes `A:B,C:D` as two series (it was refused: the
/// whole text was first read as one series of three values), a value holding a comma
/// (`ok,x:e`) whole when it is stored, and a value holding a colon (`f:x:y`) by the one way
/// of joining its parts that names a stored series; `get --asof` and `delete` alike.
#[test]
fn two_column_series_values_with_commas_and_colons_are_named() {
    let w = Work::new();
    let f = w.file(
        "two.csv",
        "time,ex,sym,v\n2024-01-01T00:00:00Z,a,b,1\n2024-01-01T00:00:00Z,c,d,2\n\
         2024-01-01T00:00:00Z,\"ok,x\",e,3\n2024-01-01T00:00:00Z,f,x:y,4\n",
    );
    w.import(&f, &["--series-by", "ex,sym"]);
    let range = |series: &str| w.ok(&["range", "2024-01-01", "2024-01-02", "--series", series]);
    assert_eq!(
        range("a:b,c:d"),
        "time,ex,sym,v\n2024-01-01T00:00:00Z,a,b,1\n2024-01-01T00:00:00Z,c,d,2\n"
    );
    assert_eq!(
        range("ok,x:e"),
        "time,ex,sym,v\n2024-01-01T00:00:00Z,\"ok,x\",e,3\n"
    );
    assert_eq!(range("f:x:y"), "time,ex,sym,v\n2024-01-01T00:00:00Z,f,x:y,4\n");
    let asof = w.ok(&["get", "--asof", "2024-01-02", "--series", "f:x:y"]);
    assert_eq!(asof, "time,ex,sym,v\n2024-01-01T00:00:00Z,f,x:y,4\n");
    let (code, _, err) = w.xs(&["range", "2024-01-01", "2024-01-02", "--series", "a:b:c"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("give their values joined by `:`"), "{err}");
    let (code, _, err) = w.xs(&["delete", "2024-01-01", "2024-01-02", "--series", "a:b,f:x:y"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("deleted 2 rows"), "{err}");
    let left = w.ok(&[
        "range",
        "2024-01-01",
        "2024-01-02",
        "--series",
        "a:b,c:d",
        "--series",
        "ok,x:e",
        "--series",
        "f:x:y",
    ]);
    assert_eq!(
        left,
        "time,ex,sym,v\n2024-01-01T00:00:00Z,c,d,2\n2024-01-01T00:00:00Z,\"ok,x\",e,3\n"
    );
}

/// A read over several series in small windows: a window where no series has rows jumps to
/// where the first one's resume, and never opens a partition past the read's end (series B's
/// 2026 file is damaged, and a read of 2024 does not see it).
#[test]
fn a_merged_read_jumps_over_empty_windows_and_stops_at_its_end() {
    let w = Work::new();
    let f = w.file(
        "t.csv",
        "time,sym,v\n2024-01-01T00:00:01Z,A,1\n2024-01-01T00:00:02Z,B,2\n\
         2024-03-01T00:00:03Z,A,3\n2024-07-01T00:00:04Z,B,4\n2026-05-01T00:00:05Z,B,5\n",
    );
    w.import(&f, &["--series-by", "sym", "--partition", "year"]);
    let b_2026 = w.db().join("series").join("B").join("2026.xs");
    assert!(b_2026.exists());
    let read = |from: &str, to: &str| {
        let db = xs::Database::open(&w.db(), xs::Access::Read, &mut |_| {}).unwrap();
        // 16 rows a window: 8 seconds for two series.
        db.set_merge_window_bytes(1);
        let (from, to) = (xs_time(from), xs_time(to));
        let mut got = Vec::new();
        db.scan(from, to, |t, _| -> xs::error::Result<bool> {
            got.push(t);
            Ok(true)
        })
        .map(|()| got)
    };
    let all = read("2024-01-01T00:00:00Z", "2027-01-01T00:00:00Z").unwrap();
    assert_eq!(all.len(), 5);
    std::fs::write(&b_2026, b"XXXXXXXX").unwrap();
    let year = read("2024-01-01T00:00:00Z", "2025-01-01T00:00:00Z").unwrap();
    assert_eq!(year, all[..4]);
    let err = read("2024-01-01T00:00:00Z", "2027-01-01T00:00:00Z").unwrap_err();
    assert!(err.to_string().contains("2026.xs"), "{err}");
}

/// Nanoseconds since the epoch of an RFC 3339 UTC time.
fn xs_time(text: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(text)
        .unwrap()
        .timestamp_nanos_opt()
        .unwrap()
}

/// Bars of `tickers` (`T000`, `T001`, …) at three daily timestamps, `close` = `base` + the
/// ticker's number.
fn many_tickers(numbers: std::ops::Range<usize>, base: f64) -> String {
    let mut text = String::from("date,ticker,close\n");
    for day in 0..3 {
        let t = 1_704_067_200 + day * 86_400;
        for n in numbers.clone() {
            text.push_str(&format!("{t},T{n:03},{:.2}\n", base + n as f64));
        }
    }
    text
}

/// The entries of the database's `series/` directory, sorted.
fn series_entries(w: &Work) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(w.db().join("series"))
        .expect("series/")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn many_new_series_are_put_in_place_whole() {
    // Past 32 new series an import builds each one aside (`series/.NAME.new`) and renames
    // them into place at its end: every row is there, nothing is left aside.
    let w = Work::new();
    let first = w.file("first.csv", &many_tickers(0..50, 100.0));
    w.import(&first, &["--series-by", "ticker", "--time-unit", "s"]);
    let names: Vec<String> = (0..50).map(|n| format!("T{n:03}")).collect();
    assert_eq!(series_entries(&w), names);
    let all = w.ok(&["range", "2024-01-01", "2025-01-01"]);
    assert_eq!(lines(&all).len(), 1 + 3 * 50, "{all}");
    assert!(all.contains("2024-01-03T00:00:00Z,T049,149.00\n"), "{all}");

    // Ten stored series changed, forty new ones: the stored ones are written in place.
    let second = w.file("second.csv", &many_tickers(40..90, 500.0));
    w.import(&second, &[]);
    let names: Vec<String> = (0..90).map(|n| format!("T{n:03}")).collect();
    assert_eq!(series_entries(&w), names);
    let all = w.ok(&["range", "2024-01-01", "2025-01-01"]);
    assert_eq!(lines(&all).len(), 1 + 3 * 90, "{all}");
    assert!(all.contains("2024-01-01T00:00:00Z,T039,139.00\n"), "{all}");
    assert!(all.contains("2024-01-01T00:00:00Z,T040,540.00\n"), "{all}");
    assert!(all.contains("2024-01-02T00:00:00Z,T089,589.00\n"), "{all}");
    let one = w.ok(&["range", "2024-01-01", "2025-01-01", "--series", "T077"]);
    assert_eq!(
        lines(&one)[1..],
        [
            "2024-01-01T00:00:00Z,T077,577.00",
            "2024-01-02T00:00:00Z,T077,577.00",
            "2024-01-03T00:00:00Z,T077,577.00"
        ]
    );
    let (code, _, err) = w.xs(&["check"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_series_an_import_left_aside_is_never_read_and_goes_with_the_next_writer() {
    let w = Work::new();
    let first = w.file("first.csv", &many_tickers(0..3, 100.0));
    w.import(&first, &["--series-by", "ticker", "--time-unit", "s"]);
    let before = w.ok(&["range", "2024-01-01", "2025-01-01"]);
    // What an import killed before its end leaves: a series built aside, and its marker.
    let aside = w.db().join("series").join(".T009.new");
    common::sparse_copy(&w.db().join("series").join("T000"), &aside);
    std::fs::write(w.db().join(".import-unfinished"), "xs -d db import first.csv\n").unwrap();
    assert_eq!(w.ok(&["range", "2024-01-01", "2025-01-01"]), before);
    let (_, out, _) = w.xs(&["stat"]);
    assert!(!out.contains("T009"), "{out}");
    // The next writer removes it before anything else.
    w.import(&first, &[]);
    assert_eq!(series_entries(&w), ["T000", "T001", "T002"]);
    assert_eq!(w.ok(&["range", "2024-01-01", "2025-01-01"]), before);
}

#[test]
fn series_built_aside_are_put_in_place_under_no_sync_too() {
    // Every new series built aside (the test hook), the import told not to fsync: they are
    // still renamed into place whole, and stored as a synced import stores them.
    let w = Work::new();
    let file = w.file("bars.csv", &many_tickers(0..5, 100.0));
    let mut cmd = xs();
    cmd.env("XS_IMPORT_DEFER_SYNC_AFTER", "0")
        .arg("-d")
        .arg(w.db())
        .args(["import", "--no-sync", "--series-by", "ticker", "--time-unit", "s"])
        .arg(&file);
    let (code, _, err) = run(cmd);
    assert_eq!(code, 0, "{err}");
    assert_eq!(series_entries(&w), ["T000", "T001", "T002", "T003", "T004"]);
    let all = w.ok(&["range", "2024-01-01", "2025-01-01"]);
    assert_eq!(lines(&all).len(), 1 + 3 * 5, "{all}");
    let synced = Work::new();
    synced.import(&file, &["--series-by", "ticker", "--time-unit", "s"]);
    assert_eq!(synced.ok(&["range", "2024-01-01", "2025-01-01"]), all);
}
