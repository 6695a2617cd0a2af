//! The `orgdeck` binary: parse the command line and dispatch.

use std::process::ExitCode;

use clap::Parser as _;

fn main() -> ExitCode {
    let cli = match orgdeck::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return orgdeck::cli::refused_command_line(error),
    };
    match orgdeck::cli::run(cli) {
        Ok(code) => code,
        // A reader that stopped early (`| head`) is not a failure of ours.
        Err(error) if closed_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            // Server-written parts were escaped where they entered the error;
            // this is the last guard before the terminal.
            let message = format!("{error:#}");
            eprintln!("orgdeck: {}", orgdeck::text::printable_lines(&message));
            orgdeck::cli::exit_code(&error)
        }
    }
}

fn closed_pipe(error: &anyhow::Error) -> bool {
    error
        .downcast_ref::<orgdeck::cli::output::ClosedOutput>()
        .is_some()
}
