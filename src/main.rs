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
    if matches!(
        cli.command,
        cli::Command::Range(_) | cli::Command::Get(_) | cli::Command::Export(_)
    ) {
        keep_freed_memory();
    }
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

/// For the commands that read rows out: large blocks freed stay in the process for the next
/// allocation, where glibc hands each back to the kernel (past its 128 KiB mmap and trim
/// thresholds). A read-out builds and frees megabytes a batch, and a page handed back is a
/// page fault, zeroed, when used again: that was a fifth of the CPU time of Arrow output.
/// Imports keep glibc's defaults, which hold their peak memory lower.
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters; called before any thread starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
    }
}
