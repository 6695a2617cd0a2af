//! `orgdeck login`: asks for host and key (the key typed hidden), checks the
//! key against the API, lets the user pick organization and project from the
//! API's lists, and writes the profile into the config file, owner-only.
//!
//! On a terminal the key is read with echo off; from a pipe each answer is
//! one line, so that scripts and tests can log in too.

use crate::text::printable;
use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;

use anyhow::Context;

use super::UsageError;
use super::connection::{CURRENT, ConnectionArgs, DEFAULT_HOST, check_transport, setting};
use crate::api::{ApiKey, Client, ClientConfig, FetchAll, List, Organization, PICKER_ROWS, Project};

/// Answers come from stdin one line at a time.
struct Prompter {
    lines: std::io::StdinLock<'static>,
    terminal: bool,
}

impl Prompter {
    fn new() -> Self {
        Prompter {
            lines: std::io::stdin().lock(),
            terminal: std::io::stdin().is_terminal(),
        }
    }

    /// One answer; the default when the user just presses Enter.
    fn ask(&mut self, question: &str, default: Option<&str>) -> anyhow::Result<String> {
        match default {
            Some(default) => eprint!("{question} [{default}]: "),
            None => eprint!("{question}: "),
        }
        std::io::stderr().flush()?;
        let mut line = String::new();
        if self.lines.read_line(&mut line)? == 0 {
            return Err(UsageError(format!("login: no answer to \"{question}\" (stdin closed)")).into());
        }
        let answer = line.trim();
        Ok(match (answer.is_empty(), default) {
            (true, Some(default)) => default.to_string(),
            _ => answer.to_string(),
        })
    }

    /// The key, never echoed.
    fn ask_hidden(&mut self, question: &str) -> anyhow::Result<ApiKey> {
        eprint!("{question}: ");
        std::io::stderr().flush()?;
        let key = if self.terminal {
            read_hidden()?
        } else {
            let mut line = String::new();
            self.lines.read_line(&mut line)?;
            line
        };
        let key = ApiKey::new(key);
        if key.is_empty() {
            return Err(UsageError("login: no API key given".into()).into());
        }
        Ok(key)
    }
}

/// Reads a line from the terminal in raw mode, so nothing is echoed. Ctrl-C
/// or Esc gives up.
fn read_hidden() -> anyhow::Result<String> {
    use crossterm::event::{Event, KeyCode, KeyEventKind, KeyModifiers, read};
    use crossterm::terminal::{disable_raw_mode, enable_raw_mode};

    struct RawMode;
    impl Drop for RawMode {
        fn drop(&mut self) {
            let _ = disable_raw_mode();
        }
    }

    enable_raw_mode()?;
    let raw = RawMode;
    let mut key = String::new();
    let finished = loop {
        match read()? {
            Event::Key(event) if event.kind != KeyEventKind::Release => {
                let control = event.modifiers.contains(KeyModifiers::CONTROL);
                match event.code {
                    KeyCode::Enter => break true,
                    KeyCode::Esc => break false,
                    KeyCode::Char('c') if control => break false,
                    KeyCode::Char('u') if control => key.clear(),
                    KeyCode::Backspace => {
                        key.pop();
                    }
                    KeyCode::Char(c) => key.push(c),
                    _ => {}
                }
            }
            Event::Paste(text) => key.push_str(&text),
            _ => {}
        }
    };
    drop(raw);
    eprintln!();
    if !finished {
        return Err(UsageError("login: cancelled".into()).into());
    }
    Ok(key)
}

/// What `login` writes: ids, with names to say what was chosen.
struct Chosen {
    host: String,
    organization: Named,
    project: Option<Named>,
    allow_http: bool,
}

/// An organization or project: its id, and its name where the key may read it.
struct Named {
    id: String,
    name: Option<String>,
}

impl Named {
    fn said(&self) -> String {
        match &self.name {
            Some(name) => format!("{name} ({})", self.id),
            None => self.id.clone(),
        }
    }
}

pub fn login(args: &ConnectionArgs, name: &str, replace: bool) -> anyhow::Result<std::process::ExitCode> {
    crate::logging::init(crate::config::open_log()?);
    let path = crate::config::config_path()
        .ok_or_else(|| UsageError("login: no config directory; set ORGDECK_CONFIG".into()))?;
    let mut prompter = Prompter::new();
    let existing = existing_profile(&path, name)?;
    if let Some((existing, _)) = &existing
        && !replace
    {
        eprintln!("{} already has a profile \"{name}\": {existing}", path.display());
        let answer = prompter.ask("Replace it with what you type now? (y/n)", Some("n"))?;
        if !answer.eq_ignore_ascii_case("y") && !answer.eq_ignore_ascii_case("yes") {
            anyhow::bail!(
                "login: profile \"{name}\" left as it was; pass --profile NAME to write another, or --replace"
            );
        }
    }
    // Logging in again keeps the host unless another is typed.
    let known_host = existing.and_then(|(_, host)| host);
    let host = match &args.host {
        Some(host) => host.trim().to_string(),
        None => prompter.ask("Host", Some(known_host.as_deref().unwrap_or(DEFAULT_HOST)))?,
    };
    let host = crate::config::with_scheme(&host);
    check_transport(&host, args.allow_http)?;
    let key = prompter.ask_hidden("Personal API key (typed hidden)")?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut config = ClientConfig::new(host.clone(), key.clone());
    config.timeout = std::time::Duration::from_secs_f64(args.timeout.max(1.0));
    config.max_answer = args.max_answer()?;
    config.max_rows = args.max_rows;
    let client = Client::new(config).map_err(|error| UsageError(error.to_string()))?;

    let current = runtime
        .block_on(client.current_key())
        .context("login: the key was not accepted")?;
    eprintln!(
        "Key \"{}\" accepted; scopes: {}",
        printable(&current.label),
        printable(&current.scopes.join(", "))
    );
    let (organization, project) = (
        setting(&args.org, "ORGDECK_ORG"),
        setting(&args.project, "ORGDECK_PROJECT"),
    );
    let organization = choose_organization(&runtime, &client, &mut prompter, organization.as_deref())?;
    let project = choose_project(
        &runtime,
        &client,
        &mut prompter,
        project.as_deref(),
        &organization.id,
    )?;
    let chosen = Chosen {
        host,
        organization,
        project,
        allow_http: args.allow_http,
    };
    let is_default = write_profile(&path, name, &chosen, &key)?;
    eprintln!(
        "Profile \"{name}\" written to {} (readable by you alone): {} / {}{}",
        path.display(),
        printable(&chosen.organization.said()),
        printable(&chosen.project.as_ref().map_or("no project".into(), Named::said)),
        if is_default { ", the default" } else { "" }
    );
    Ok(std::process::ExitCode::SUCCESS)
}

/// What the profile `name` of the file at `path` says, if there is one,
/// and its host.
fn existing_profile(path: &Path, name: &str) -> anyhow::Result<Option<(String, Option<String>)>> {
    let Some((file, _)) = crate::config::load_from(path.to_path_buf())? else {
        return Ok(None);
    };
    Ok(file.profiles.get(name).map(|profile| {
        let source = if profile.api_key_env.is_some() {
            "key from an environment variable"
        } else if profile.api_key_command.is_some() {
            "key from a command"
        } else if profile.api_key.is_some() {
            "key in the file"
        } else {
            "no key"
        };
        let summary = format!("{}, {source}", profile.host.as_deref().unwrap_or(DEFAULT_HOST));
        (summary, profile.host.clone())
    }))
}

/// The organization: `--org` as given, else one picked from the key's list;
/// a key that may not list them is asked for an id (or `@current`).
fn choose_organization(
    runtime: &tokio::runtime::Runtime,
    client: &Client,
    prompter: &mut Prompter,
    given: Option<&str>,
) -> anyhow::Result<Named> {
    if let Some(id) = given {
        let name = runtime.block_on(client.organization(id)).ok().map(|o| o.name);
        return Ok(Named {
            id: id.to_string(),
            name,
        });
    }
    match runtime.block_on(client.all(&List::<Organization>::organizations(), &picked())) {
        Ok(organizations) => {
            let organization = pick(
                prompter,
                "Organization",
                &organizations,
                |o| format!("{} ({})", o.name, o.id),
                |o, answer| o.id == answer,
            )?
            .ok_or_else(|| anyhow::anyhow!("login: the key sees no organization"))?;
            Ok(Named {
                id: organization.id,
                name: Some(organization.name),
            })
        }
        Err(error) if error.status() == Some(403) => {
            eprintln!("This key may not list organizations ({error}).");
            let id = prompter.ask(
                "Organization (a UUID, or @current for the key's own)",
                Some(CURRENT),
            )?;
            Ok(Named { id, name: None })
        }
        Err(error) => Err(error.into()),
    }
}

/// The project, as the organization: `--project`, a pick from the
/// organization's projects, or an id typed where they may not be listed.
fn choose_project(
    runtime: &tokio::runtime::Runtime,
    client: &Client,
    prompter: &mut Prompter,
    given: Option<&str>,
    organization: &str,
) -> anyhow::Result<Option<Named>> {
    if let Some(id) = given {
        let name = runtime.block_on(client.project(id)).ok().map(|p| p.name);
        return Ok(Some(Named {
            id: id.to_string(),
            name,
        }));
    }
    match runtime.block_on(client.all(&List::<Project>::projects(), &picked())) {
        Ok(projects) => {
            let ours: Vec<Project> = projects
                .into_iter()
                .filter(|p| {
                    organization == CURRENT || p.organization.as_deref().is_none_or(|o| o == organization)
                })
                .collect();
            let project = pick(
                prompter,
                "Project",
                &ours,
                |p| format!("{} ({})", p.name, p.id),
                |p, answer| p.id.to_string() == answer,
            )?;
            Ok(project.map(|p| Named {
                id: p.id.to_string(),
                name: Some(p.name),
            }))
        }
        Err(error) if error.status() == Some(403) => {
            eprintln!("This key may not list projects ({error}).");
            let id = prompter.ask("Project (an id, or @current for the key's own)", Some(CURRENT))?;
            Ok(Some(Named { id, name: None }))
        }
        Err(error) => Err(error.into()),
    }
}

/// One of `items`, by its number in the list or its id; the only one is
/// taken without asking.
fn pick<T: Clone>(
    prompter: &mut Prompter,
    what: &str,
    items: &[T],
    show: impl Fn(&T) -> String,
    has_id: impl Fn(&T, &str) -> bool,
) -> anyhow::Result<Option<T>> {
    match items {
        [] => return Ok(None),
        [only] => {
            eprintln!("{what}: {}", printable(&show(only)));
            return Ok(Some(only.clone()));
        }
        _ => {}
    }
    for (number, item) in items.iter().enumerate() {
        eprintln!("  {:>3}  {}", number + 1, printable(&show(item)));
    }
    for _ in 0..3 {
        let answer = prompter.ask(&format!("{what} (number or id)"), Some("1"))?;
        let by_number = answer
            .parse::<usize>()
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| items.get(i));
        if let Some(item) = by_number.or_else(|| items.iter().find(|item| has_id(item, &answer))) {
            return Ok(Some(item.clone()));
        }
        eprintln!(
            "\"{}\" is neither a number from 1 to {} nor an id in the list",
            printable(&answer),
            items.len()
        );
    }
    Err(UsageError(format!("login: no {} chosen", what.to_lowercase())).into())
}

/// Adds or replaces `[profiles.NAME]`, keeping the rest of the file (comments
/// included), makes it the default when there is none, and leaves the file
/// readable by its owner alone.
/// Returns whether the profile is the default one.
fn write_profile(path: &Path, name: &str, chosen: &Chosen, key: &ApiKey) -> anyhow::Result<bool> {
    use toml_edit::{DocumentMut, Item, Table, value};

    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(error) => return Err(error).with_context(|| format!("cannot read {}", path.display())),
    };
    let mut document: DocumentMut = text
        .parse()
        .with_context(|| format!("the config file {} is not valid TOML", path.display()))?;
    if document.get("default_profile").is_none() {
        document["default_profile"] = value(name);
    }
    let is_default = document["default_profile"].as_str() == Some(name);
    if document.get("profiles").is_none() {
        let mut profiles = Table::new();
        profiles.set_implicit(true);
        document["profiles"] = Item::Table(profiles);
    }
    // An existing profile is changed in place, so that its comments stay;
    // the key typed replaces whatever source it named.
    if document["profiles"].get(name).and_then(Item::as_table).is_none() {
        document["profiles"][name] = Item::Table(Table::new());
    }
    let profile = &mut document["profiles"][name];
    profile["host"] = value(&chosen.host);
    profile["organization"] = value(&chosen.organization.id);
    match &chosen.project {
        Some(project) => profile["project"] = value(&project.id),
        None => profile["project"] = Item::None,
    }
    profile["api_key_env"] = Item::None;
    profile["api_key_command"] = Item::None;
    profile["api_key"] = value(key.expose());
    // Never kept from before: a profile moved to https loses its old permission.
    profile["allow_http"] = if chosen.allow_http {
        value(true)
    } else {
        Item::None
    };
    // A config file that is a link (to a dotfiles repository, say) is
    // written where it points, and stays a link.
    let path = &link_target(path);

    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    // Written to a private temporary file beside the config, then renamed
    // over it: the key is never in a file others can read, even briefly.
    let temporary = path.with_extension("toml.tmp");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options
        .open(&temporary)
        .with_context(|| format!("cannot write {}", temporary.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    file.write_all(document.to_string().as_bytes())?;
    file.sync_all()?;
    std::fs::rename(&temporary, path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(is_default)
}

/// Where a path that is a symbolic link leads, followed link by link (a
/// dangling one too, so that its target is created); the path itself when
/// it is not a link.
fn link_target(path: &Path) -> std::path::PathBuf {
    let mut path = path.to_path_buf();
    for _ in 0..16 {
        let is_link = std::fs::symlink_metadata(&path).is_ok_and(|meta| meta.file_type().is_symlink());
        if !is_link {
            break;
        }
        let Ok(target) = std::fs::read_link(&path) else {
            break;
        };
        path = match path.parent() {
            Some(parent) if target.is_relative() => parent.join(target),
            _ => target,
        };
    }
    path
}

/// A list to pick from on the terminal: at most [`PICKER_ROWS`] rows, past
/// which it stops with an error (a longer one is given as --org or --project).
fn picked() -> FetchAll {
    FetchAll {
        max_rows: Some(PICKER_ROWS as u64),
        ..FetchAll::default()
    }
}
