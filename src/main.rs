//! The `orgdeck` binary: parse the command line and dispatch.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = orgdeck::cli::Cli::parse();
    match orgdeck::cli::run(cli) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("orgdeck: {error:#}");
            orgdeck::cli::exit_code(&error)
        }
    }
}
