//! The `xs` binary: parse arguments, run one subcommand, print its error, exit with its code.

mod cli;
mod cmd;
mod exit;

use clap::Parser;

fn main() {
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout with 0; usage errors to stderr with 2.
            let code = if e.use_stderr() {
                exit::USAGE
            } else {
                exit::SUCCESS
            };
            let _ = e.print();
            std::process::exit(code);
        }
    };
    let code = match cmd::run(cli) {
        Ok(()) => exit::SUCCESS,
        Err(failure) => {
            if let Some(message) = failure.message {
                eprintln!("xs: {message}");
            }
            failure.code
        }
    };
    std::process::exit(code);
}
