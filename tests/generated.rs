//! completions/ and docs/xs.1 are generated from the clap definition; this test fails when the
//! committed files are stale. Refresh them with: XS_BLESS=1 cargo test --test generated

mod common;

use std::path::Path;

const FILES: [(&str, &str); 6] = [
    ("bash", "completions/xs.bash"),
    ("zsh", "completions/_xs"),
    ("fish", "completions/xs.fish"),
    ("powershell", "completions/_xs.ps1"),
    ("elvish", "completions/xs.elv"),
    ("man", "docs/xs.1"),
];

#[test]
fn committed_completions_and_man_page_are_fresh() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bless = std::env::var_os("XS_BLESS").is_some();
    let mut stale = Vec::new();
    for (what, file) in FILES {
        let out = common::xs().args(["generate", what]).output().expect("xs runs");
        assert!(
            out.status.success(),
            "xs generate {what}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let path = root.join(file);
        if bless {
            std::fs::write(&path, &out.stdout).expect("write generated file");
        } else if std::fs::read(&path).ok().as_deref() != Some(&out.stdout[..]) {
            stale.push(file);
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated files {stale:?}: run XS_BLESS=1 cargo test --test generated"
    );
}

/// One page per subcommand in docs/man/ (`xs-import.1` …), each named by the top page's
/// SUBCOMMANDS section, which lists them as `xs-NAME(1)`.
#[test]
fn every_subcommand_has_a_fresh_man_page() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bless = std::env::var_os("XS_BLESS").is_some();
    let out = common::xs().args(["generate", "man"]).output().expect("xs runs");
    let top = String::from_utf8_lossy(&out.stdout).into_owned();
    let names: Vec<&str> = top
        .split("xs\\-")
        .skip(1)
        .filter_map(|rest| rest.split_once("(1)").map(|(name, _)| name))
        .filter(|name| *name != "help")
        .collect();
    assert!(names.len() >= 10, "subcommands in the top page: {names:?}");
    let dir = root.join("docs/man");
    if bless {
        std::fs::create_dir_all(&dir).expect("create docs/man");
    }
    let mut stale = Vec::new();
    for name in &names {
        let out = common::xs()
            .args(["generate", "man", name])
            .output()
            .expect("xs runs");
        assert!(out.status.success(), "xs generate man {name}");
        let page = String::from_utf8_lossy(&out.stdout);
        assert!(page.contains(&format!(".TH xs-{name} 1")), "{page}");
        let path = dir.join(format!("xs-{name}.1"));
        if bless {
            std::fs::write(&path, &out.stdout).expect("write man page");
        } else if std::fs::read(&path).ok().as_deref() != Some(&out.stdout[..]) {
            stale.push(path);
        }
    }
    let pages = std::fs::read_dir(&dir).map_or(0, |d| d.count());
    assert_eq!(
        pages,
        names.len(),
        "docs/man holds a page per subcommand, no more"
    );
    assert!(
        stale.is_empty(),
        "stale man pages {stale:?}: run XS_BLESS=1 cargo test --test generated"
    );
}

/// Completions offer the values of enumerated options rather than file names.
#[test]
fn completions_offer_the_values_of_enumerated_options() {
    let out = common::xs().args(["generate", "bash"]).output().expect("xs runs");
    let bash = String::from_utf8_lossy(&out.stdout);
    for values in [
        "grid bucket",
        "year month day",
        "earlier later",
        "csv tsv ndjson parquet arrow",
        "iso epoch-s epoch-ms epoch-us epoch-ns",
    ] {
        assert!(
            bash.contains(&format!("compgen -W \"{values}\"")),
            "bash completion lacks `{values}`"
        );
    }
}

#[test]
fn version_names_the_package_version() {
    let out = common::xs().arg("--version").output().expect("xs runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with(&format!("xs {}", env!("CARGO_PKG_VERSION"))),
        "{text}"
    );
}

#[test]
fn generate_refuses_unknown_targets() {
    let (code, _, stderr) = common::run({
        let mut c = common::xs();
        c.args(["generate", "tcsh"]);
        c
    });
    assert_eq!(code, 2);
    assert!(
        stderr.contains("use bash, zsh, fish, powershell, elvish or man"),
        "{stderr}"
    );
}
