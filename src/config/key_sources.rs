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
            let printed = run_key_command(name, command, prompt, KEY_COMMAND_TIMEOUT)?;
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
fn run_key_command(
    name: &str,
    command: &str,
    prompt: KeyPrompt,
    timeout: Duration,
) -> anyhow::Result<Vec<u8>> {
    let mut builder = Command::new("sh");
    builder
        .args(["-c", command])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    if prompt == KeyPrompt::Detached {
        use std::os::unix::process::CommandExt;
        // gpg's pinentry would open this terminal by name, setsid or not.
        builder.env_remove("GPG_TTY");
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
    let _running = Running::register(&child, prompt);
    let stdout = Drained::start(child.stdout.take());
    let stderr = Drained::start(child.stderr.take());
    let started = Instant::now();
    let deadline = started + timeout;
    let mut said = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {}
            Err(error) => {
                stop(&mut child, prompt);
                return Err(error).with_context(|| format!("profile \"{name}\": its api_key_command"));
            }
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
                timeout.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    // Something the command left running may hold its output open: what it
    // printed is taken after a moment, and, detached, that straggler stopped.
    let grace = Instant::now() + Duration::from_secs(1);
    let closed = stdout.wait_until(grace) && stderr.wait_until(grace);
    if !closed {
        leftovers(&child, prompt);
    }
    let printed = stdout.taken();
    let complaint = stderr.taken();
    if !status.success() {
        bail!(
            "profile \"{name}\": its api_key_command failed ({status}){}",
            last_words(&complaint, &printed)
        );
    }
    Ok(printed)
}

/// A pipe read to its end on another thread, so that a command printing
/// much never blocks on a full pipe; what has arrived can be taken at any
/// time.
struct Drained {
    read: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    done: std::sync::mpsc::Receiver<()>,
}

impl Drained {
    fn start(pipe: Option<impl Read + Send + 'static>) -> Drained {
        let read = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let (finished, done) = std::sync::mpsc::channel();
        let into = read.clone();
        std::thread::spawn(move || {
            if let Some(mut pipe) = pipe {
                let mut chunk = [0u8; 4096];
                while let Ok(count @ 1..) = pipe.read(&mut chunk) {
                    if let Ok(mut read) = into.lock() {
                        read.extend_from_slice(&chunk[..count]);
                    }
                }
            }
            let _ = finished.send(());
        });
        Drained { read, done }
    }

    /// Whether the pipe closed by `deadline`.
    fn wait_until(&self, deadline: Instant) -> bool {
        let left = deadline.saturating_duration_since(Instant::now());
        self.done.recv_timeout(left).is_ok()
    }

    fn taken(&self) -> Vec<u8> {
        self.read.lock().map(|read| read.clone()).unwrap_or_default()
    }
}

/// The process groups of detached key commands still running, so that
/// quitting the console stops them rather than leaving them behind.
static RUNNING: std::sync::Mutex<Vec<i32>> = std::sync::Mutex::new(Vec::new());

/// A detached command's process group, registered while it runs.
struct Running(Option<i32>);

impl Running {
    fn register(child: &std::process::Child, prompt: KeyPrompt) -> Running {
        let group = (prompt == KeyPrompt::Detached)
            .then(|| i32::try_from(child.id()).ok())
            .flatten();
        if let (Some(group), Ok(mut running)) = (group, RUNNING.lock()) {
            running.push(group);
        }
        Running(group)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let (Some(group), Ok(mut running)) = (self.0, RUNNING.lock()) {
            running.retain(|known| *known != group);
        }
    }
}

/// Stops every detached key command still running: for the console's exit.
pub fn stop_running_key_commands() {
    if let Ok(running) = RUNNING.lock() {
        for group in running.iter() {
            sigkill(-*group);
        }
    }
}

/// SIGKILL to a process (`target` > 0) or a process group (`target` < 0,
/// the negated group id) the caller knows to exist: a key command not yet
/// reaped, a group whose members still hold its pipes (the kernel does not
/// reuse a pid while its group lives), or a descendant found a moment ago.
fn sigkill(target: i32) {
    #[cfg(unix)]
    if target.unsigned_abs() > 1 {
        // SAFETY: kill(2) takes plain integers and reads no memory of ours;
        // the guard keeps out 0, 1 and -1 (our group, init, everyone).
        unsafe {
            libc::kill(target, libc::SIGKILL);
        }
    }
}

/// Stops a key command that took too long, with everything it started: a
/// detached one leads its own process group (not yet reaped); one that
/// shares orgdeck's terminal is stopped with its descendants.
fn stop(child: &mut std::process::Child, prompt: KeyPrompt) {
    if let Ok(pid) = i32::try_from(child.id()) {
        match prompt {
            KeyPrompt::Detached => sigkill(-pid),
            KeyPrompt::Allowed => {
                for descendant in descendants(pid) {
                    sigkill(descendant);
                }
            }
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The processes started, directly or not, by `pid`, as /proc tells them
/// (Linux); none where there is no /proc.
fn descendants(pid: i32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let parents: Vec<(i32, i32)> = entries
        .flatten()
        .filter_map(|entry| {
            let process: i32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            // "pid (name) state ppid …": the name may hold spaces and parentheses.
            let parent = stat
                .rsplit_once(") ")?
                .1
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            Some((process, parent))
        })
        .collect();
    let mut found = vec![pid];
    let mut at = 0;
    while let Some(&parent) = found.get(at) {
        found.extend(
            parents
                .iter()
                .filter(|(process, of)| *of == parent && !found.contains(process))
                .map(|(process, _)| *process)
                .collect::<Vec<_>>(),
        );
        at += 1;
    }
    found.remove(0);
    found
}

/// After a command ended with its output still held open: detached, what
/// it left running is stopped (its members keep the group alive).
fn leftovers(child: &std::process::Child, prompt: KeyPrompt) {
    if prompt == KeyPrompt::Detached
        && let Ok(group) = i32::try_from(child.id())
    {
        sigkill(-group);
    }
}

/// The last line a failed command wrote on its error output, to say why,
/// with control characters dropped and any word that could be a secret
/// left out: one holding what the command printed, or like a token.
fn last_words(complaint: &[u8], printed: &[u8]) -> String {
    let text = String::from_utf8_lossy(complaint);
    let Some(line) = text.lines().map(str::trim).rfind(|line| !line.is_empty()) else {
        return String::new();
    };
    let printed = String::from_utf8_lossy(printed);
    let candidate = printed.lines().map(str::trim).find(|line| line.len() >= 8);
    let secret = |word: &str| {
        word.contains("phx_")
            || candidate.is_some_and(|candidate| word.contains(candidate))
            || (word.len() >= 24
                && word
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_-=+/".contains(c)))
    };
    let shown: Vec<String> = line
        .split_whitespace()
        .map(|word| {
            if secret(word) {
                "<redacted>".to_string()
            } else {
                word.chars().filter(|c| !c.is_control()).collect()
            }
        })
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

    /// Whether a process runs (a zombie nobody reaped does not).
    fn alive(pid: &str) -> bool {
        std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())).is_ok_and(|stat| {
            stat.rsplit(") ")
                .next()
                .is_some_and(|rest| !rest.starts_with('Z'))
        })
    }

    #[test]
    fn a_stuck_command_is_stopped_with_all_it_started() {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        let command = format!("sleep 100 & echo $! > {}; sleep 100", pidfile.display());
        let started = Instant::now();
        let refused = run_key_command("p", &command, KeyPrompt::Detached, Duration::from_millis(300))
            .unwrap_err()
            .to_string();
        assert!(refused.contains("did not finish"), "{refused}");
        assert!(started.elapsed() < Duration::from_secs(5));
        let pid = std::fs::read_to_string(&pidfile).unwrap();
        std::thread::sleep(Duration::from_millis(200));
        assert!(!alive(&pid), "what it started is stopped too");

        // One that ends but leaves something holding its output is not waited on.
        let started = Instant::now();
        let command = format!("echo phx_k; sleep 300 & echo $! > {}", pidfile.display());
        let printed = run_key_command("p", &command, KeyPrompt::Detached, Duration::from_secs(60)).unwrap();
        assert_eq!(String::from_utf8_lossy(&printed).trim(), "phx_k");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        let pid = std::fs::read_to_string(&pidfile).unwrap();
        std::thread::sleep(Duration::from_millis(200));
        assert!(!alive(&pid), "and the straggler is stopped");
    }

    #[test]
    fn a_stuck_command_sharing_the_terminal_is_stopped_with_its_children() {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        let command = format!("sleep 100 & echo $! > {}; sleep 100", pidfile.display());
        let refused = run_key_command("p", &command, KeyPrompt::Allowed, Duration::from_millis(300))
            .unwrap_err()
            .to_string();
        assert!(refused.contains("did not finish"), "{refused}");
        let pid = std::fs::read_to_string(&pidfile).unwrap();
        std::thread::sleep(Duration::from_millis(200));
        assert!(!alive(&pid), "what it started is stopped too");
    }

    #[test]
    fn a_failed_commands_last_words_never_hold_a_secret() {
        let said = last_words(
            b"+ KEY=abcdefghijklmnopqrstuvwxyz0123\nerror: \x1b[31mlocked\x1b[0m\n",
            b"",
        );
        assert_eq!(said, ": error: [31mlocked[0m");
        let said = last_words(b"cannot use s3cretvalue here", b"s3cretvalue\n");
        assert_eq!(said, ": cannot use <redacted> here");
        let said = last_words(b"token abcdefghijklmnopqrstuvwxyz0123 refused", b"");
        assert_eq!(said, ": token <redacted> refused");
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
