//! `xs generate`: shell completions and the man page, from the clap definition itself.

use std::io::Write;

use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli::Cli;
use crate::exit::{CliResult, Failure};

/// Print shell completions or the man page (used to build completions/ and docs/xs.1).
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  xs generate bash > /etc/bash_completion.d/xs
  xs generate zsh > ~/.zfunc/_xs
  xs generate man > /usr/local/share/man/man1/xs.1")]
pub struct Args {
    /// bash, zsh, fish, powershell, elvish, or man.
    #[arg(value_name = "WHAT")]
    pub what: String,
}

pub fn run(args: Args) -> CliResult {
    let text = render(&args.what).ok_or_else(|| {
        Failure::usage(format!(
            "cannot generate `{}`: use bash, zsh, fish, powershell, elvish or man",
            args.what
        ))
    })?;
    let mut out = std::io::stdout().lock();
    out.write_all(&text)
        .and_then(|()| out.flush())
        .map_err(Failure::output)
}

/// The completion script for a shell name, or the man page for `man`.
pub fn render(what: &str) -> Option<Vec<u8>> {
    // The man page carries the bare package version so that it changes only with releases.
    let mut cmd = Cli::command().version(env!("CARGO_PKG_VERSION"));
    let mut buf = Vec::new();
    if what == "man" {
        clap_mangen::Man::new(cmd).render(&mut buf).ok()?;
    } else {
        let shell: Shell = what.parse().ok()?;
        clap_complete::generate(shell, &mut cmd, "xs", &mut buf);
    }
    Some(buf)
}
