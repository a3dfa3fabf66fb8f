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
  xs generate man > /usr/local/share/man/man1/xs.1
  xs generate man import > /usr/local/share/man/man1/xs-import.1")]
pub struct Args {
    /// bash, zsh, fish, powershell, elvish, or man.
    #[arg(value_name = "WHAT")]
    pub what: String,

    /// With `man`: the page of this subcommand (`xs-import(1)`) instead of the top page.
    #[arg(value_name = "SUBCOMMAND")]
    pub subcommand: Option<String>,
}

pub fn run(args: Args) -> CliResult {
    let text = match (&args.subcommand, args.what.as_str()) {
        (Some(name), "man") => render_man_of(name).ok_or_else(|| {
            Failure::usage(format!(
                "no subcommand `{name}`: use one of {}",
                subcommand_names().join(", ")
            ))
        })?,
        (Some(_), _) => return Err(Failure::usage("only `man` takes a subcommand")),
        (None, what) => render(what).ok_or_else(|| {
            Failure::usage(format!(
                "cannot generate `{what}`: use bash, zsh, fish, powershell, elvish or man"
            ))
        })?,
    };
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

/// The subcommands that have a man page of their own, as `xs generate man NAME` takes them.
pub fn subcommand_names() -> Vec<String> {
    Cli::command()
        .get_subcommands()
        .filter(|c| c.get_name() != "help")
        .map(|c| c.get_name().to_string())
        .collect()
}

/// The man page `xs-NAME(1)` of subcommand `name`.
pub fn render_man_of(name: &str) -> Option<Vec<u8>> {
    let mut cmd = Cli::command().version(env!("CARGO_PKG_VERSION"));
    // Building gives each subcommand its display name (`xs-import`) and usage (`xs import`).
    cmd.build();
    let sub = cmd.find_subcommand(name)?.clone();
    let mut buf = Vec::new();
    clap_mangen::Man::new(sub).render(&mut buf).ok()?;
    Some(buf)
}
