//! The `xs` binary: parse arguments, run one subcommand, print its error, exit with its code.

mod cli;
mod cmd;
mod exit;

use clap::Parser;

fn main() {
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout with 0; usage errors to stderr with 2, with the
            // `xs:` prefix every other error has.
            if !e.use_stderr() {
                let _ = e.print();
                std::process::exit(exit::SUCCESS);
            }
            let text = e.render().to_string();
            eprint!("xs: {}", text.strip_prefix("error: ").unwrap_or(&text));
            std::process::exit(exit::USAGE);
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
