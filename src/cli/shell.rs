//! `orgdeck completions SHELL` and `orgdeck man`: what a shell and `man`
//! need, made from the command line's own definition (clap_complete,
//! clap_mangen), so they never fall behind it.

use std::io::Write;

use clap::CommandFactory;

use super::Cli;

/// The shells completions are made for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
    Powershell,
}

impl From<Shell> for clap_complete::Shell {
    fn from(shell: Shell) -> Self {
        match shell {
            Shell::Bash => clap_complete::Shell::Bash,
            Shell::Zsh => clap_complete::Shell::Zsh,
            Shell::Fish => clap_complete::Shell::Fish,
            Shell::Powershell => clap_complete::Shell::PowerShell,
        }
    }
}

/// Writes the completion script for `shell` to stdout.
pub fn completions(shell: Shell) -> anyhow::Result<()> {
    let mut command = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(
        clap_complete::Shell::from(shell),
        &mut command,
        "orgdeck",
        &mut out,
    );
    write_out(&out)
}

/// Writes the manual page (roff) of orgdeck and every subcommand to stdout.
pub fn man() -> anyhow::Result<()> {
    let command = Cli::command();
    let mut out = Vec::new();
    clap_mangen::Man::new(command.clone()).render(&mut out)?;
    for sub in command.get_subcommands().filter(|sub| !sub.is_hide_set()) {
        let title = format!("orgdeck-{}", sub.get_name());
        out.extend_from_slice(b"\n");
        clap_mangen::Man::new(sub.clone()).title(title).render(&mut out)?;
    }
    write_out(&out)
}

fn write_out(bytes: &[u8]) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(bytes)
        .and_then(|()| stdout.flush())
        .map_err(super::output::output_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every command and every argument says what it is for: `--help`
    /// has no empty line.
    #[test]
    fn every_help_line_says_something() {
        fn walk(command: &clap::Command, path: &str, silent: &mut Vec<String>) {
            let path = format!("{path} {}", command.get_name());
            if command.get_about().is_none() && command.get_long_about().is_none() {
                silent.push(format!("{path}: no description"));
            }
            for argument in command.get_arguments() {
                let id = argument.get_id().as_str();
                if matches!(id, "help" | "version") {
                    continue;
                }
                if argument.get_help().is_none() && argument.get_long_help().is_none() {
                    silent.push(format!("{path} {id}: no help"));
                }
            }
            for sub in command.get_subcommands() {
                walk(sub, &path, silent);
            }
        }
        let mut silent = Vec::new();
        let mut command = Cli::command();
        command.build();
        walk(&command, "", &mut silent);
        assert!(
            silent.is_empty(),
            "{} silent:\n{}",
            silent.len(),
            silent.join("\n")
        );
    }
}
