//! Where a profile's key comes from: an environment variable, a command (a
//! password manager), or the config file itself when only its owner can
//! read it. Whatever goes wrong is said without the key.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use super::Profile;
use crate::api::ApiKey;

/// Whether a key command may use the terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyPrompt {
    /// Before the console starts, a password manager may ask for a
    /// passphrase on the terminal.
    Allowed,
    /// Inside the console, which owns the terminal: the command runs in a
    /// session of its own, with no terminal to read keys from or draw on.
    Detached,
}

/// How long a key command may take: long enough for a password manager to
/// ask for a passphrase, short enough that a stuck one is reported.
const KEY_COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

impl Profile {
    /// The key, from the one source the profile names: the environment
    /// variable, the command, or the file itself (owner-only files alone).
    pub fn key(&self, name: &str, file: &Path, prompt: KeyPrompt) -> anyhow::Result<Option<ApiKey>> {
        let named: Vec<&str> = [
            ("api_key_env", self.api_key_env.is_some()),
            ("api_key_command", self.api_key_command.is_some()),
            ("api_key", self.api_key.is_some()),
        ]
        .into_iter()
        .filter_map(|(source, set)| set.then_some(source))
        .collect();
        if named.len() > 1 {
            bail!(
                "profile \"{name}\" names more than one key source ({}); keep one",
                named.join(", ")
            );
        }
        if let Some(variable) = &self.api_key_env {
            return match std::env::var(variable) {
                Ok(key) if !key.trim().is_empty() => Ok(Some(ApiKey::new(key))),
                _ => bail!("profile \"{name}\" takes its key from ${variable}, which is not set"),
            };
        }
        if let Some(command) = &self.api_key_command {
            let printed = run_key_command(name, command, prompt)?;
            // The first line, as `pass show` prints the secret first and notes after it.
            let printed = String::from_utf8_lossy(&printed);
            let first = printed.lines().map(str::trim).find(|line| !line.is_empty());
            let Some(first) = first else {
                bail!("profile \"{name}\": its api_key_command printed no key");
            };
            return Ok(Some(ApiKey::new(first)));
        }
        if let Some(key) = &self.api_key {
            check_owner_only(file)?;
            return Ok(Some(key.clone()));
        }
        Ok(None)
    }
}

/// Runs a profile's key command and returns what it printed. It reads
/// nothing from orgdeck's input, and one that does not finish in time is
/// stopped, with everything it started when it runs detached.
fn run_key_command(name: &str, command: &str, prompt: KeyPrompt) -> anyhow::Result<Vec<u8>> {
    let mut builder = Command::new("sh");
    builder
        .args(["-c", command])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    if prompt == KeyPrompt::Detached {
        use std::os::unix::process::CommandExt;
        // SAFETY: runs in the forked child before exec and calls only
        // setsid(2), which is async-signal-safe; it touches no memory.
        unsafe {
            builder.pre_exec(|| {
                if libc::setsid() == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    let mut child = builder
        .spawn()
        .with_context(|| format!("profile \"{name}\": cannot run its api_key_command"))?;
    // Read on other threads, so that a command printing much never blocks on a full pipe.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut printed = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut printed);
            }
            printed
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|pipe| Box::new(pipe) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|pipe| Box::new(pipe) as Box<dyn Read + Send>),
    );
    let started = Instant::now();
    let deadline = started + KEY_COMMAND_TIMEOUT;
    let mut said = false;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        // A slow one (a password manager asking) is named, not waited on in silence.
        if !said
            && prompt == KeyPrompt::Allowed
            && started.elapsed() > Duration::from_millis(500)
            && std::io::IsTerminal::is_terminal(&std::io::stderr())
        {
            eprintln!("orgdeck: waiting for the api_key_command of profile \"{name}\"…");
            said = true;
        }
        if Instant::now() >= deadline {
            stop(&mut child, prompt);
            bail!(
                "profile \"{name}\": its api_key_command did not finish within {} s",
                KEY_COMMAND_TIMEOUT.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let printed = stdout.join().unwrap_or_default();
    let complaint = stderr.join().unwrap_or_default();
    if !status.success() {
        bail!(
            "profile \"{name}\": its api_key_command failed ({status}){}",
            last_words(&complaint)
        );
    }
    Ok(printed)
}

/// Stops a key command that took too long: a detached one with everything
/// it started (it leads its own process group).
fn stop(child: &mut std::process::Child, prompt: KeyPrompt) {
    #[cfg(unix)]
    if prompt == KeyPrompt::Detached
        && let Ok(group) = i32::try_from(child.id())
    {
        // SAFETY: kill(2) with a negative pid signals the process group the
        // child leads since its setsid; it reads no memory of ours.
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The last line a failed command wrote on its error output, to say why,
/// with any word that could be a key left out.
fn last_words(complaint: &[u8]) -> String {
    let text = String::from_utf8_lossy(complaint);
    let Some(line) = text.lines().map(str::trim).rfind(|line| !line.is_empty()) else {
        return String::new();
    };
    let shown: Vec<&str> = line
        .split_whitespace()
        .map(|word| if word.contains("phx_") { "<redacted>" } else { word })
        .collect();
    let mut shown = shown.join(" ");
    if shown.chars().count() > 200 {
        shown = shown.chars().take(200).collect::<String>() + "…";
    }
    format!(": {shown}")
}

/// A key written in a file others can reach is refused, with the fix.
fn check_owner_only(file: &Path) -> anyhow::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(file)
            .with_context(|| format!("cannot read the permissions of {}", file.display()))?
            .permissions()
            .mode();
        if mode & 0o077 != 0 {
            bail!(
                "{} holds an API key but is not yours alone (mode {:o}); make it so: chmod 600 {}",
                file.display(),
                mode & 0o777,
                shell_quoted(&file.display().to_string())
            );
        }
    }
    Ok(())
}

/// A path as a shell reads it back: quoted where it must be.
fn shell_quoted(text: &str) -> String {
    let plain = text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%".contains(c));
    if plain && !text.is_empty() {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_quoted_for_the_shell_where_they_must_be() {
        assert_eq!(
            shell_quoted("/home/a/.config/orgdeck/config.toml"),
            "/home/a/.config/orgdeck/config.toml"
        );
        assert_eq!(
            shell_quoted("/tmp/sp dir/c'fg.toml"),
            r"'/tmp/sp dir/c'\''fg.toml'"
        );
    }

    #[test]
    fn a_detached_command_has_no_terminal_and_a_stuck_one_is_reported() {
        let profile = |command: &str| Profile {
            api_key_command: Some(command.into()),
            ..Profile::default()
        };
        let path = Path::new("/nonexistent");
        let refused = profile("read x < /dev/tty && echo phx_k")
            .key("p", path, KeyPrompt::Detached)
            .unwrap_err()
            .to_string();
        assert!(refused.contains("failed") && refused.contains("tty"), "{refused}");
        let first_line = profile("printf 'phx_first\\nurl: example.com\\n'")
            .key("p", path, KeyPrompt::Detached)
            .unwrap()
            .unwrap();
        assert_eq!(first_line.expose(), "phx_first");
        let two = Profile {
            api_key_env: Some("X".into()),
            api_key_command: Some("true".into()),
            ..Profile::default()
        };
        let refused = two.key("p", path, KeyPrompt::Allowed).unwrap_err().to_string();
        assert!(refused.contains("more than one key source"), "{refused}");
    }
}
