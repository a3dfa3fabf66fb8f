//! Runs the shell transcripts of README.md and docs/*.md and compares what they print with what
//! the docs show, so that the docs cannot drift from the binary (issue 18).
//!
//! **What runs.** Every ```` ```console ```` block. A line starting with `$ ` is a command (a line
//! ending in `\` continues it on the next line); the lines after it, up to the next `$ ` or the
//! end of the block, are what a user sees: stdout and stderr together, in order. A transcript in
//! any other kind of block (```` ``` ````, ```` ```text ````, ```` ```sh ````) is an error, so there is
//! one convention; ```` ```sh ```` blocks hold commands without output and are not run (an install,
//! a cron line, a benchmark on generated gigabytes).
//!
//! **How.** The blocks of one file run in order in one fresh working directory (state carries
//! over, like a tour), which holds a copy of `fixtures/`. Each command runs as `sh -c` with the
//! built `xs` first on `PATH`, stdin empty, `LC_ALL=C`, and no `XS_DB`/`XS_LAYOUT` from the caller.
//! A command must exit 0 unless it ends with a `# exit N` comment, which says the status it
//! must exit with. A command that needs a tool the machine lacks ([`TOOLS`]: jq, DuckDB, Polars,
//! pandas) is skipped with a note, unless `XS_DOCS_STRICT=1` (set by `.ci/run`) makes that a
//! failure.
//!
//! **Comparison.** Exact, line by line, after these normalisations, applied to the expected and
//! the actual text alike:
//! - `trailing-space`: spaces at the end of a line are dropped.
//! - `workdir`: the working directory's absolute path reads `<dir>`.
//! - `elapsed`: durations and rates of a run (`0.02 s`, `131768 rows/s`, `13.0 MB/s`) read
//!   `<elapsed>`.
//! - `now`: timestamps of the current time in file names (`rejects-20261121T122542Z.csv`) read
//!   `<now>`.
//! - `file-system`: what the file system decides rather than xs. Extents and fragmented extents
//!   (and `stat --json`'s `data_bytes`, `mean_extent_bytes`, `fragmentation_pct`) read `<fs>`.
//!   Physical (allocated) sizes and fill (row bytes / physical bytes) are compared within 10%
//!   (sizes within 10% or 16 KiB): ext4, xfs and btrfs allocate a few blocks more or less for
//!   the same writes, but a footprint that grew is still caught. These rules apply to `stat`
//!   tables (whose column padding is collapsed), `stat --json` keys and `defrag` lines. Logical
//!   sizes, rows, row bytes, data segments, buckets, live and garbage bytes, and every figure
//!   `import` prints (its footprint estimate included) stay exact: those are xs's own.
//!
//! A line `...` in the expected output matches any number of lines (for long outputs trimmed in
//! the docs; use it sparingly).
//!
//! On a mismatch the test prints the file, the command's line, the command and a diff, and goes
//! on with the rest of the file. `XS_BLESS=1 cargo test --test docs` writes the actual output
//! into the docs instead, for the commands that do not match; read every change before
//! committing it: the point is true docs, not quiet tests.

use regex::Regex;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::LazyLock;

/// Tools some transcripts pipe into, beyond `sh` and coreutils: a command that contains the
/// needle runs only when the probe succeeds.
const TOOLS: &[(&str, &str, &str)] = &[
    ("| jq", "jq --version", "jq"),
    ("| duckdb", "duckdb --version", "the duckdb command-line tool"),
    ("import duckdb", "python3 -c 'import duckdb'", "Python's duckdb"),
    ("import polars", "python3 -c 'import polars'", "Python's polars"),
    ("polars as pl", "python3 -c 'import polars'", "Python's polars"),
    (
        "import pandas",
        "python3 -c 'import pandas, pyarrow'",
        "Python's pandas and pyarrow",
    ),
];

/// One command of a transcript and the output the docs show for it.
struct Step {
    /// 1-based line of the `$ ` line in the doc.
    line: usize,
    command: String,
    /// 0-based doc lines `[start, end)` holding the expected output.
    expected_lines: (usize, usize),
    expected: Vec<String>,
    exit_code: i32,
}

/// The commands of every ```console block of one doc, in order.
fn transcript(text: &str, file: &str) -> Vec<Step> {
    let lines: Vec<&str> = text.lines().collect();
    let exit_re = Regex::new(r"#\s*exit (\d+)\s*$").expect("regex");
    let mut steps = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(info) = lines[i].strip_prefix("```") else {
            i += 1;
            continue;
        };
        let info = info.trim().to_string();
        let start = i + 1;
        let mut end = start;
        while end < lines.len() && !lines[end].starts_with("```") {
            end += 1;
        }
        if info != "console" {
            if let Some(k) = (start..end).find(|&k| lines[k].starts_with("$ ")) {
                panic!(
                    "{file}:{}: a transcript in a ```{info} block: label it ```console (run by \
                     tests/docs.rs), or show commands without `$ ` and output in a ```sh block",
                    k + 1
                );
            }
            i = end + 1;
            continue;
        }
        let mut k = start;
        while k < end {
            let Some(first) = lines[k].strip_prefix("$ ") else {
                panic!(
                    "{file}:{}: a ```console block must start with a `$ ` command line",
                    k + 1
                );
            };
            let line = k + 1;
            let mut command = first.to_string();
            while command.ends_with('\\') && k + 1 < end {
                k += 1;
                command.push('\n');
                command.push_str(lines[k]);
            }
            k += 1;
            let out_start = k;
            while k < end && !lines[k].starts_with("$ ") {
                k += 1;
            }
            let exit_code = exit_re
                .captures(&command)
                .map_or(0, |c| c[1].parse().expect("exit code is a number"));
            steps.push(Step {
                line,
                command,
                expected_lines: (out_start, k),
                expected: lines[out_start..k].iter().map(|s| s.to_string()).collect(),
                exit_code,
            });
        }
        i = end + 1;
    }
    steps
}

/// The patterns of the normalisation rules.
struct Rules {
    elapsed: Regex,
    now: Regex,
    stat_row: Regex,
    many_row: Regex,
    header: Regex,
    json_fs: Regex,
    json_approx: Regex,
    defrag_pair: Regex,
    defrag_size: Regex,
    defrag_extents: Regex,
    /// The file system's free space in a defrag plan: the machine's, not xs's.
    free_space: Regex,
    approx: Regex,
}

/// A size as xs prints it: `92.0 KiB`, `432 B`, or bytes (`--bytes`).
const SIZE: &str = r"\d+(?:\.\d+)? (?:B|KiB|MiB|GiB|TiB)|\d+";

static RULES: LazyLock<Rules> = LazyLock::new(|| {
    let re = |pattern: &str| Regex::new(pattern).expect("valid regex");
    Rules {
        elapsed: re(r"\b\d+(?:\.\d+)? s, \d+ rows/s, \d+(?:\.\d+)? MB/s|\b\d+\.\d+ s\b"),
        now: re(r"\b\d{8}T\d{6}Z\b"),
        // partition logical physical rows row-bytes fill extents segments fragmented first last
        stat_row: re(&format!(
            r"^(\S+)\s+({SIZE})\s+({SIZE})\s+(\d+|-)\s+({SIZE}|-)\s+([\d.]+%|-)\s+(?:\d+|-)\s+(\d+)\s+(?:\d+ \([\d.]+%\)|-)\s+(\S+)\s+(\S+)$"
        )),
        // database layout partitions logical physical rows garbage rejects
        many_row: re(&format!(
            r"^(\S+(?: \(\d+ databases?\))?)\s+((?:grid|bucket)(?: \(\d+ series\))?)?\s+(\d+)\s+({SIZE})\s+({SIZE})\s+(\d+|-)\s+({SIZE})\s+(.*)$"
        )),
        header: re(r"^(partition|database)\s+.*\bphysical\b"),
        json_fs: re(
            r#""(extents|fragmented_extents|fragmentation_pct|mean_extent_bytes|data_bytes)": (?:[\d.]+|null)"#,
        ),
        json_approx: re(r#""(\w*physical\w*|fill)": ([\d.]+)"#),
        defrag_pair: re(&format!(r"\bphysical ({SIZE}) → ({SIZE})")),
        defrag_size: re(&format!(r"\b({SIZE}) physical\b")),
        defrag_extents: re(r"\bextents \d+ → \d+|\b\d+ extents\b"),
        free_space: re(r"\b\d+(?:\.\d+)? (?:B|KiB|MiB|GiB|TiB) available\b"),
        approx: re(r"≈([\d.]+)"),
    }
});

/// `92.0 KiB` as `≈94208`: a figure compared within 10% (or 16 KiB) by [`same_line`].
fn approx_size(size: &str) -> String {
    let (number, unit) = size.split_once(' ').unwrap_or((size, "B"));
    let scale = match unit {
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        "TiB" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => 1.0,
    };
    let value: f64 = number.parse().expect("a number");
    format!("≈{}", (value * scale).round())
}

fn collapse(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// One line after the normalisations listed at the top of this file.
fn normalise(line: &str, workdir: &str) -> String {
    let r = &*RULES;
    let mut s = line.trim_end().replace(workdir, "<dir>");
    s = r.elapsed.replace_all(&s, "<elapsed>").into_owned();
    s = r.now.replace_all(&s, "<now>").into_owned();
    if let Some(c) = r.stat_row.captures(&s) {
        let fill = c[6].trim_end_matches('%');
        return format!(
            "{} {} {} {} {} ≈{fill}% <fs> {} <fs> {} {}",
            &c[1],
            &c[2],
            approx_size(&c[3]),
            &c[4],
            &c[5],
            &c[7],
            &c[8],
            &c[9]
        );
    }
    if let Some(c) = r.many_row.captures(&s) {
        let layout = c.get(2).map_or("", |m| m.as_str());
        return collapse(&format!(
            "{} {layout} {} {} {} {} {} {}",
            &c[1],
            &c[3],
            &c[4],
            approx_size(&c[5]),
            &c[6],
            &c[7],
            &c[8]
        ));
    }
    if r.header.is_match(&s) {
        return collapse(&s);
    }
    s = r.json_fs.replace_all(&s, "\"$1\": <fs>").into_owned();
    s = r.json_approx.replace_all(&s, "\"$1\": ≈$2").into_owned();
    s = r
        .defrag_pair
        .replace_all(&s, |c: &regex::Captures| {
            format!("physical {} → {}", approx_size(&c[1]), approx_size(&c[2]))
        })
        .into_owned();
    s = r
        .defrag_size
        .replace_all(&s, |c: &regex::Captures| {
            format!("{} physical", approx_size(&c[1]))
        })
        .into_owned();
    s = r.defrag_extents.replace_all(&s, "<fs extents>").into_owned();
    s = r
        .free_space
        .replace_all(&s, "<free space> available")
        .into_owned();
    s
}

/// Two normalised lines are the same when their text is, and each `≈N` figure of one is
/// within 10% of the other's (sizes in bytes: or within 16 KiB).
fn same_line(expected: &str, actual: &str) -> bool {
    let r = &*RULES;
    if r.approx.split(expected).ne(r.approx.split(actual)) {
        return false;
    }
    let numbers = |s: &str| -> Vec<f64> {
        r.approx
            .captures_iter(s)
            .map(|c| c[1].parse().unwrap_or(f64::NAN))
            .collect()
    };
    let (e, a) = (numbers(expected), numbers(actual));
    e.len() == a.len()
        && e.iter().zip(&a).all(|(&x, &y)| {
            let slack = if x >= 1024.0 || y >= 1024.0 { 16384.0 } else { 0.0 };
            (x - y).abs() <= (0.1 * x.abs().max(y.abs())).max(slack)
        })
}

/// Whether `actual` matches `expected`, where an expected line `...` stands for any lines.
fn matches(expected: &[String], actual: &[String]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first == "..." => (0..=actual.len()).any(|k| matches(rest, &actual[k..])),
        Some((first, rest)) => {
            actual.first().is_some_and(|a| same_line(first, a)) && matches(rest, &actual[1..])
        }
    }
}

/// A line diff (longest common subsequence): `-` expected only, `+` actual only.
fn diff(expected: &[String], actual: &[String]) -> String {
    let (n, m) = (expected.len(), actual.len());
    let mut lcs = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if same_line(&expected[i], &actual[j]) {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut lines) = (0, 0, Vec::new());
    while i < n || j < m {
        if i < n && j < m && same_line(&expected[i], &actual[j]) {
            lines.push(format!("   {}", expected[i]));
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            lines.push(format!("  +{}", actual[j]));
            j += 1;
        } else {
            lines.push(format!("  -{}", expected[i]));
            i += 1;
        }
    }
    // Three lines of context around each change.
    let changed: Vec<usize> = (0..lines.len())
        .filter(|&k| !lines[k].starts_with("   "))
        .collect();
    let near = |k: usize| changed.iter().any(|&c| c.abs_diff(k) <= 3);
    let mut out = String::new();
    let mut skipped = false;
    for (k, line) in lines.iter().enumerate() {
        if near(k) {
            let _ = writeln!(out, "{line}");
            skipped = false;
        } else if !skipped {
            out.push_str("   ...\n");
            skipped = true;
        }
    }
    out
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create fixture dir");
    for entry in std::fs::read_dir(from).expect("read fixtures") {
        let entry = entry.expect("fixture entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy fixture");
        }
    }
}

fn tool_missing(command: &str) -> Option<&'static str> {
    TOOLS.iter().find_map(|&(needle, probe, name)| {
        let present = command.contains(needle)
            && !Command::new("sh")
                .args(["-c", &format!("{probe} >/dev/null 2>&1")])
                .status()
                .is_ok_and(|s| s.success());
        present.then_some(name)
    })
}

/// A fresh working directory holding a copy of `fixtures/`, where commands run as a user's
/// would: `sh -c`, the built `xs` first on `PATH`.
struct Workdir {
    _tmp: tempfile::TempDir,
    path: PathBuf,
    path_var: std::ffi::OsString,
}

impl Workdir {
    fn new() -> Workdir {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        // Under target/, not /tmp: stat's figures need a file system with FIEMAP (tmpfs has none).
        let tmp = tempfile::Builder::new()
            .prefix("docs-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .expect("temp dir");
        let path = tmp.path().canonicalize().expect("canonical temp dir");
        copy_tree(&root.join("fixtures"), &path.join("fixtures"));
        let bin_dir = Path::new(env!("CARGO_BIN_EXE_xs"))
            .parent()
            .expect("bin dir")
            .to_path_buf();
        let path_var = std::env::join_paths(std::iter::once(bin_dir).chain(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        )))
        .expect("PATH");
        Workdir {
            _tmp: tmp,
            path,
            path_var,
        }
    }

    fn text(&self) -> &str {
        self.path.to_str().expect("UTF-8 temp path")
    }

    /// Runs `command`; its exit code and its stdout and stderr together, in order.
    fn run(&self, command: &str) -> (i32, String) {
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("exec 2>&1\n{command}"))
            .current_dir(&self.path)
            .env("PATH", &self.path_var)
            .env("LC_ALL", "C")
            .env_remove("XS_DB")
            .env_remove("XS_LAYOUT")
            .env_remove("XS_FAULT")
            .stdin(Stdio::null())
            .output()
            .expect("sh runs");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    }
}

/// Runs the transcripts of one doc; panics with every mismatch.
fn run_doc(rel: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = root.join(rel);
    let text = std::fs::read_to_string(&path).expect("read doc");
    let steps = transcript(&text, rel);
    assert!(!steps.is_empty(), "{rel}: no ```console block");

    let work = Workdir::new();
    let workdir_text = work.text().to_string();
    let strict = std::env::var_os("XS_DOCS_STRICT").is_some_and(|v| v == "1");
    let bless = std::env::var_os("XS_BLESS").is_some();

    let mut failures = String::new();
    let mut blessed: Vec<((usize, usize), Vec<String>)> = Vec::new();
    for step in &steps {
        if let Some(tool) = tool_missing(&step.command) {
            let note = format!(
                "{rel}:{}: needs {tool}, which is not installed: `{}`\n",
                step.line, step.command
            );
            if strict {
                failures.push_str(&note);
            } else {
                eprint!("skipped {note}");
            }
            continue;
        }
        let (code, raw) = work.run(&step.command);
        let raw_lines: Vec<String> = raw.lines().map(|l| l.trim_end().to_string()).collect();
        let norm = |lines: &[String]| -> Vec<String> {
            lines
                .iter()
                .map(|l| {
                    if l == "..." {
                        l.clone()
                    } else {
                        normalise(l, &workdir_text)
                    }
                })
                .collect()
        };
        let expected = norm(&step.expected);
        let actual = norm(&raw_lines);
        let same = matches(&expected, &actual);
        if code != step.exit_code {
            let _ = write!(
                failures,
                "\n{rel}:{}: `{}` exited with {code}, the doc says {} ({})\n{}",
                step.line,
                step.command,
                step.exit_code,
                if step.exit_code == 0 {
                    "no `# exit N` comment"
                } else {
                    "its `# exit N` comment"
                },
                raw_lines.iter().map(|l| format!("  |{l}\n")).collect::<String>()
            );
        } else if !same {
            if bless {
                let fresh = raw_lines
                    .iter()
                    .map(|l| l.replace(&workdir_text, "<dir>"))
                    .collect();
                blessed.push((step.expected_lines, fresh));
            } else {
                let _ = write!(
                    failures,
                    "\n{rel}:{}: `{}` printed other output than the doc shows (- doc, + actual, after \
                     normalisation):\n{}",
                    step.line,
                    step.command,
                    diff(&expected, &actual)
                );
            }
        }
    }
    if bless && !blessed.is_empty() {
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        for ((start, end), fresh) in blessed.into_iter().rev() {
            lines.splice(start..end, fresh);
        }
        std::fs::write(&path, lines.join("\n") + "\n").expect("write blessed doc");
        eprintln!("blessed {rel}: read the changes (git diff) before committing them");
    }
    assert!(
        failures.is_empty(),
        "{rel}: the docs and xs disagree (XS_BLESS=1 cargo test --test docs rewrites the \
         outputs; read the diff before committing it):\n{failures}"
    );
}

/// README.md and docs/*.md, as paths relative to the repository.
fn doc_files() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec!["README.md".to_string()];
    let mut docs: Vec<String> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// The docs that have transcripts, each run by a test below.
const TESTED: &[&str] = &[
    "README.md",
    "docs/GUIDE.md",
    "docs/OUTPUT.md",
    "docs/QUERIES.md",
    "docs/STAT.md",
];

#[test]
fn every_transcript_is_a_console_block_of_a_tested_doc() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for rel in doc_files() {
        let text = std::fs::read_to_string(root.join(&rel)).expect("read doc");
        // Panics on a transcript outside a ```console block.
        let steps = transcript(&text, &rel);
        assert_eq!(
            !steps.is_empty(),
            TESTED.contains(&rel.as_str()),
            "{rel}: TESTED in tests/docs.rs must list exactly the docs with ```console blocks"
        );
    }
}

/// The README's quick start (its first ```sh block: the `xs` lines) makes the database that
/// the tour's import of the same file then works with: the two used to disagree on its time
/// column, and the tour's import was refused.
#[test]
fn quick_start_agrees_with_the_tour() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("README.md")).expect("read README");
    let block = text
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a ```sh block");
    let quick: Vec<String> = block
        .lines()
        .map(|l| l.split(" #").next().unwrap_or("").trim())
        .map(|l| {
            l.strip_prefix("cargo run --release -- ")
                .map_or(l.to_string(), |rest| format!("xs {rest}"))
        })
        .filter(|l| l.starts_with("xs "))
        .collect();
    assert!(
        !quick.is_empty(),
        "README's quick start runs no xs command:\n{block}"
    );
    let tour = transcript(&text, "README.md")
        .into_iter()
        .find(|s| s.command.starts_with("xs import") && s.command.contains("btcusdt-trades-20240808.csv"))
        .expect("the tour imports the BTCUSDT trades");
    let work = Workdir::new();
    for command in quick.iter().chain([&tour.command]) {
        let (code, out) = work.run(command);
        assert_eq!(
            code, 0,
            "README: `{command}` (quick start, then the tour's import) failed:\n{out}"
        );
    }
}

#[test]
fn readme() {
    run_doc("README.md");
}

#[test]
fn guide() {
    run_doc("docs/GUIDE.md");
}

#[test]
fn output() {
    run_doc("docs/OUTPUT.md");
}

#[test]
fn queries() {
    run_doc("docs/QUERIES.md");
}

#[test]
fn stat() {
    run_doc("docs/STAT.md");
}

#[test]
fn normalisation_keeps_what_xs_decides() {
    let n = |s: &str| normalise(s, "/w");
    let same = |a: &str, b: &str| same_line(&n(a), &n(b));
    let row = "2024       14.6 MiB  92.0 KiB  2880   70.3 KiB  76.4%        2         2    0 (0.0%)  2024-03-01T00:00:00Z  2024-03-02T23:59:00Z";
    assert_eq!(
        n(row),
        "2024 14.6 MiB ≈94208 2880 70.3 KiB ≈76.4% <fs> 2 <fs> 2024-03-01T00:00:00Z 2024-03-02T23:59:00Z"
    );
    // Extents, fragmentation and a few blocks of physical size are the file system's.
    assert!(same(
        row,
        &row.replace("92.0 KiB", "96.0 KiB")
            .replace("76.4%", "73.2%")
            .replace("    0 (0.0%)", "   1 (33.3%)")
    ));
    // Logical sizes, rows, row bytes, segments, times, and a physical size that grew are not.
    for (from, to) in [
        ("14.6 MiB", "1.6 GiB"),
        ("2880", "4320"),
        ("70.3 KiB", "70.4 KiB"),
        ("2         2    0", "2         3    0"),
        ("92.0 KiB", "192.0 KiB"),
        ("76.4%", "56.4%"),
        ("23:59:00Z", "23:58:00Z"),
    ] {
        let changed = row.replacen(from, to, 1);
        assert_ne!(changed, row, "{from}");
        assert!(!same(row, &changed), "{from} → {to} must be caught");
    }
    assert!(same(
        r#"  "physical_bytes": 114688,"#,
        r#"  "physical_bytes": 118784,"#
    ));
    assert!(!same(
        r#"  "physical_bytes": 114688,"#,
        r#"  "physical_bytes": 1146880,"#
    ));
    assert!(!same(r#"  "fill": 0.941685"#, r#"  "fill": 0.5"#));
    assert!(!same(r#"  "rows": 4320,"#, r#"  "rows": 2880,"#));
    assert!(same(
        "imported 1 file(s) into s: 3 rows read, 3 stored, 0 rejected; 1 partition(s) (2024); 0.00 s, 922360 rows/s, 31.4 MB/s",
        "imported 1 file(s) into s: 3 rows read, 3 stored, 0 rejected; 1 partition(s) (2024); 1.25 s, 2 rows/s, 0.0 MB/s"
    ));
    assert_eq!(
        n("  rejected rows: /w/s/rejects-20261121T122542Z.csv"),
        "  rejected rows: <dir>/s/rejects-<now>.csv"
    );
    assert!(same(
        "2024: skipped, not fragmented enough: 2 extents, 2 data segments, 92.0 KiB physical",
        "2024: skipped, not fragmented enough: 3 extents, 2 data segments, 96.0 KiB physical"
    ));
    assert!(!same(
        "2024: skipped, not fragmented enough: 2 extents, 2 data segments, 92.0 KiB physical",
        "2024: skipped, not fragmented enough: 2 extents, 3 data segments, 92.0 KiB physical"
    ));
    let many = "data/ticks           bucket (1 series)           1   1.6 GiB  172.0 KiB  3000      0 B  0";
    assert!(same(many, &many.replace("172.0 KiB", "180.0 KiB")));
    for (from, to) in [
        ("1.6 GiB", "241.0 MiB"),
        ("3000", "3001"),
        ("(1 series)", "(2 series)"),
        ("  0 B", "  9 B"),
    ] {
        assert!(
            !same(many, &many.replacen(from, to, 1)),
            "{from} → {to} must be caught"
        );
    }
    let footprint =
        "  footprint: about 52 bytes on disk per row (row, time offset, directory), 0.56× the input";
    assert!(!same(footprint, &footprint.replace("52", "55")));
    let lines = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(matches(&lines(&["a", "...", "d"]), &lines(&["a", "b", "c", "d"])));
    assert!(matches(&lines(&["a", "...", "d"]), &lines(&["a", "d"])));
    assert!(!matches(&lines(&["a", "...", "d"]), &lines(&["a", "b", "c"])));
    assert!(!matches(&lines(&["a", "b"]), &lines(&["a", "b", "c"])));
}

#[test]
fn transcripts_parse_commands_continuations_outputs_and_exit_codes() {
    let doc = "text\n```console\n$ xs a \\\n  --b\nout 1\nout 2\n$ xs c   # exit 4\n$ xs d\n```\n```sh\nxs e\n```\n";
    let steps = transcript(doc, "t.md");
    let summary: Vec<(usize, &str, Vec<String>, i32)> = steps
        .iter()
        .map(|s| (s.line, s.command.as_str(), s.expected.clone(), s.exit_code))
        .collect();
    assert_eq!(
        summary,
        vec![
            (
                3,
                "xs a \\\n  --b",
                vec!["out 1".to_string(), "out 2".to_string()],
                0
            ),
            (7, "xs c   # exit 4", vec![], 4),
            (8, "xs d", vec![], 0),
        ]
    );
    assert_eq!(steps[0].expected_lines, (4, 6));
    for wrong in [
        "```\n$ xs a\nout\n```\n",
        "```text\n$ xs a\n```\n",
        "```sh\n$ xs a\n```\n",
    ] {
        let refused = std::panic::catch_unwind(|| transcript(wrong, "t.md")).is_err();
        assert!(
            refused,
            "a transcript outside a console block must be refused: {wrong:?}"
        );
    }
}
