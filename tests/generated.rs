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
