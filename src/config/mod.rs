//! The config file: profiles (host, organization, project, where the key
//! comes from) and which one is the default.
//!
//! `~/.config/orgdeck/config.toml` on Linux (the platform's config
//! directory); `ORGDECK_CONFIG` names another file. A key written in the
//! file itself is accepted only when the file is readable by its owner alone.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::Deserialize;

use crate::api::{ApiKey, Client, ClientConfig};

pub mod colour;
pub mod files;
mod key_sources;
mod log_file;

pub use key_sources::{KeyPrompt, stop_running_key_commands};
pub use log_file::{log_path, open_log};

/// The host when nothing names one.
pub const DEFAULT_HOST: &str = "https://us.posthog.com";
/// The organization or project the key belongs to, when nothing names one.
pub const CURRENT: &str = "@current";

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    pub default_profile: Option<String>,
    #[serde(default)]
    pub profiles: BTreeMap<String, Profile>,
    /// Console keys by action: `quit = "ctrl-q"` or `refresh = ["r", "f5"]`.
    #[serde(default)]
    pub keys: BTreeMap<String, Keys>,
    /// Console colours: names (`cyan`, `lightred`) or `#rrggbb`.
    #[serde(default)]
    pub theme: ThemeColors,
    /// `false`: the console takes no clicks or wheel.
    pub mouse: Option<bool>,
}

/// One key or several.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Keys {
    One(String),
    Many(Vec<String>),
}

impl Keys {
    pub fn into_vec(self) -> Vec<String> {
        match self {
            Keys::One(key) => vec![key],
            Keys::Many(keys) => keys,
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThemeColors {
    pub accent: Option<String>,
    pub dim: Option<String>,
    /// The background of the selected row.
    pub selected: Option<String>,
    pub error: Option<String>,
    pub warning: Option<String>,
    pub ok: Option<String>,
    /// The colour of rows marked for a bulk action.
    pub marked: Option<String>,
}

/// One place orgdeck can connect to.
#[derive(Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    pub host: Option<String>,
    pub organization: Option<String>,
    pub project: Option<String>,
    /// The environment variable that holds the key.
    pub api_key_env: Option<String>,
    /// A command that prints the key (a password manager, say).
    pub api_key_command: Option<String>,
    /// The key itself: only in a file readable by its owner alone.
    pub api_key: Option<ApiKey>,
    /// Allow plain http to a host other than this machine.
    #[serde(default)]
    pub allow_http: bool,
    /// The console refreshes the list on screen every this many seconds.
    pub refresh: Option<u32>,
    /// The console's header bar in this colour (a name or `#rrggbb`), so
    /// that one host never looks like another.
    pub color: Option<String>,
    /// A production host: the console asks once more before any write.
    #[serde(default)]
    pub production: bool,
    /// The zone the console shows times in: local, UTC or one like Europe/Paris.
    pub tz: Option<String>,
}

/// How the console shows a profile: its colour, and whether it is production.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProfileLook {
    pub color: Option<String>,
    pub production: bool,
    pub tz: Option<String>,
}

impl Profile {
    pub fn look(&self) -> ProfileLook {
        ProfileLook {
            color: self.color.clone(),
            production: self.production,
            tz: self.tz.clone(),
        }
    }
}

// By hand, so that a key written in the file never shows.
impl std::fmt::Debug for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Profile")
            .field("host", &self.host)
            .field("organization", &self.organization)
            .field("project", &self.project)
            .field("api_key_env", &self.api_key_env)
            .field("api_key_command", &self.api_key_command)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("allow_http", &self.allow_http)
            .field("refresh", &self.refresh)
            .field("color", &self.color)
            .field("production", &self.production)
            .field("tz", &self.tz)
            .finish()
    }
}

impl<'de> Deserialize<'de> for ApiKey {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(ApiKey::new)
    }
}

/// Where orgdeck keeps state (Health's index, offboarding records):
/// `ORGDECK_STATE_DIR`, else the platform's state directory
/// (`~/.local/state/orgdeck` on Linux).
pub fn state_dir() -> PathBuf {
    match std::env::var_os("ORGDECK_STATE_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => platform_state_dir(),
    }
}

/// The platform's state directory for orgdeck, whatever the environment
/// says: where the log goes unless `ORGDECK_LOG` names a file.
pub fn platform_state_dir() -> PathBuf {
    dirs::state_dir()
        .or_else(dirs::data_local_dir)
        .unwrap_or_else(std::env::temp_dir)
        .join("orgdeck")
}

/// Makes the platform's state directory owner-only: created 0700, and made
/// 0700 when an earlier orgdeck created it open to others (0755). A
/// directory named by `ORGDECK_STATE_DIR` is created 0700 but never
/// changed: it may be the user's own.
pub fn create_platform_state_dir() -> anyhow::Result<PathBuf> {
    let dir = platform_state_dir();
    create_private_dir(&dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let metadata =
            std::fs::symlink_metadata(&dir).with_context(|| format!("cannot read {}", dir.display()))?;
        if metadata.is_dir() && metadata.permissions().mode() & 0o077 != 0 {
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
                .with_context(|| format!("cannot make {} owner-only", dir.display()))?;
        }
    }
    Ok(dir)
}

/// Makes a directory (and those above it) that only its owner may enter.
pub fn create_private_dir(dir: &Path) -> anyhow::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(dir)
        .with_context(|| format!("cannot create {}", dir.display()))
}

/// Where the config file is: `ORGDECK_CONFIG`, else the platform's config
/// directory.
pub fn config_path() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("ORGDECK_CONFIG") {
        return Some(PathBuf::from(path));
    }
    dirs::config_dir().map(|dir| dir.join("orgdeck").join("config.toml"))
}

/// The config file, when there is one.
pub fn load() -> anyhow::Result<Option<(ConfigFile, PathBuf)>> {
    match config_path() {
        Some(path) => load_from(path),
        None => Ok(None),
    }
}

/// The config file at `path`, when there is one.
pub fn load_from(path: PathBuf) -> anyhow::Result<Option<(ConfigFile, PathBuf)>> {
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => {
            return Err(error).with_context(|| format!("cannot read the config file {}", path.display()));
        }
    };
    let file: ConfigFile = toml::from_str(&text).map_err(|error| {
        anyhow::anyhow!(
            "the config file {} is not valid{}: {}",
            path.display(),
            place(&text, error.span()),
            error.message()
        )
    })?;
    Ok(Some((file, path)))
}

/// Where in the file a mistake is, as " (line L, column C)". The parser's
/// own report quotes the line, which could be a line holding a key, so only
/// its message and position are ever shown.
fn place(text: &str, span: Option<std::ops::Range<usize>>) -> String {
    let Some(at) = span.map(|span| span.start.min(text.len())) else {
        return String::new();
    };
    let before = text.get(..at).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    format!(" (line {line}, column {column})")
}

impl ConfigFile {
    /// The profile chosen by name, else the default one (or the only one).
    pub fn profile(&self, chosen: Option<&str>) -> anyhow::Result<Option<(String, Profile)>> {
        let name = match chosen.or(self.default_profile.as_deref()) {
            Some(name) => name.to_string(),
            None if self.profiles.len() == 1 => self.profiles.keys().next().cloned().unwrap_or_default(),
            None => return Ok(None),
        };
        match self.profiles.get(&name) {
            Some(profile) => Ok(Some((name, profile.clone()))),
            None => {
                let known: Vec<&str> = self.profiles.keys().map(String::as_str).collect();
                bail!(
                    "there is no profile \"{name}\" in the config file (it has: {})",
                    known.join(", ")
                )
            }
        }
    }
}

/// Plain http to another machine would carry the key in the clear: refused
/// unless allowed. The caller adds how to allow it where it is asked.
pub fn check_transport(host: &str, allow_http: bool) -> Result<(), String> {
    let Ok(url) = reqwest::Url::parse(host) else {
        return Ok(()); // the client reports a bad host itself
    };
    let local = url.host_str().is_some_and(is_loopback);
    if url.scheme() == "http" && !local && !allow_http {
        return Err(format!(
            "{} is plain http: the API key would travel unencrypted. Use https",
            crate::api::secret::redacted_url(host)
        ));
    }
    Ok(())
}

/// A profile made ready to use: its key read, its transport checked, its
/// client built. What the console's `:ctx` switches to.
#[derive(Debug, Clone)]
pub struct OpenedProfile {
    pub name: String,
    pub host: String,
    pub organization: String,
    pub project: String,
    pub client: Client,
    pub look: ProfileLook,
}

/// Opens the profile `name` of the config file at `path`, on its own
/// settings alone: host, organization and project from the profile (or the
/// defaults), the key from the source it names. Flags and the environment
/// belong to the connection a command started with, so `ORGDECK_API_KEY` is
/// never sent to a profile's host. Its client keeps the limits of
/// `limits` (timeout, answer, rows and bytes held). This may run the
/// profile's key command, so it belongs off the render loop.
pub fn open_profile(path: &Path, name: &str, limits: &Client) -> anyhow::Result<OpenedProfile> {
    let Some((file, path)) = load_from(path.to_path_buf())? else {
        bail!("there is no config file at {}", path.display());
    };
    let Some((name, profile)) = file.profile(Some(name))? else {
        bail!("there is no profile \"{name}\" in {}", path.display());
    };
    let Some(key) = profile.key(&name, &path, KeyPrompt::Detached)? else {
        bail!(no_key_source(&name));
    };
    let host = with_scheme(profile.host.as_deref().unwrap_or(DEFAULT_HOST));
    check_transport(&host, profile.allow_http).map_err(|refusal| {
        anyhow::anyhow!("{refusal}, or set allow_http = true in the profile if you must")
    })?;
    let client = Client::new(ClientConfig::new(host.clone(), key).limits_of(limits))?;
    Ok(OpenedProfile {
        host: client.base_url().as_str().trim_end_matches('/').to_string(),
        organization: profile.organization.clone().unwrap_or_else(|| CURRENT.into()),
        project: profile.project.clone().unwrap_or_else(|| CURRENT.into()),
        look: profile.look(),
        name,
        client,
    })
}

/// What to say of a profile that names no key.
pub fn no_key_source(name: &str) -> String {
    format!("profile \"{name}\" names no key: set api_key_env, api_key_command or api_key")
}

/// One line per profile for a picker: its name and where it points.
pub fn profile_summaries(path: &Path) -> anyhow::Result<Vec<(String, String)>> {
    let Some((file, _)) = load_from(path.to_path_buf())? else {
        bail!(
            "there is no config file at {}: `orgdeck login` writes one",
            path.display()
        );
    };
    Ok(file
        .profiles
        .iter()
        .map(|(name, profile)| {
            let host = profile.host.as_deref().unwrap_or(DEFAULT_HOST);
            let organization = profile.organization.as_deref().unwrap_or(CURRENT);
            let project = profile.project.as_deref().unwrap_or(CURRENT);
            let default = if file.default_profile.as_deref() == Some(name.as_str()) {
                "default · "
            } else {
                ""
            };
            (
                name.clone(),
                format!("{default}{host} · org {organization} · project {project}"),
            )
        })
        .collect())
}

/// A host as written, with its scheme: `127.0.0.1:8010` or `localhost:8010`
/// is the reference server on this machine, which speaks plain http (https
/// to it fails with a TLS error that says nothing useful); any other host
/// without a scheme is https.
pub fn with_scheme(host: &str) -> String {
    let host = host.trim();
    if host.contains("://") {
        return host.to_string();
    }
    let name = host.split('/').next().unwrap_or(host);
    // `[::1]:8010`, `127.0.0.1:8010`, `localhost`: the name before the port.
    let name = match name.rsplit_once(':') {
        Some((before, port)) if port.chars().all(|c| c.is_ascii_digit()) => before,
        _ => name,
    };
    let scheme = if is_loopback(name) { "http" } else { "https" };
    format!("{scheme}://{host}")
}

/// Whether a host is this machine, where plain http cannot be overheard.
pub fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|address| address.is_loopback())
}

/// How a connection's settings were arrived at.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Origin {
    /// The profile alone, or flags and environment where there is none.
    #[default]
    Plain,
    /// A profile that flags or the environment changed.
    Adjusted,
    /// PostHog CLI's credentials: there was neither a profile nor a key.
    PosthogCli,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_parse_and_keys_never_show() {
        let file: ConfigFile = toml::from_str(
            r##"
            default_profile = "cloud"
            [profiles.cloud]
            host = "https://us.posthog.com"
            api_key_env = "ORGDECK_TEST_NO_SUCH_VARIABLE"
            [profiles.local]
            host = "http://127.0.0.1:8010"
            api_key = "phx_written_in_the_file"
            refresh = 30
            color = "#8b0000"
            production = true
            "##,
        )
        .unwrap();
        let (name, cloud) = file.profile(None).unwrap().unwrap();
        assert_eq!(name, "cloud");
        assert!(
            cloud
                .key(&name, Path::new("/nonexistent"), KeyPrompt::Allowed)
                .unwrap_err()
                .to_string()
                .contains("not set")
        );
        let (_, local) = file.profile(Some("local")).unwrap().unwrap();
        assert!(!format!("{local:?}").contains("written_in_the_file"));
        assert_eq!((local.refresh, cloud.refresh), (Some(30), None));
        assert_eq!(
            local.look(),
            ProfileLook {
                color: Some("#8b0000".into()),
                production: true,
                tz: None,
            }
        );
        assert_eq!(cloud.look(), ProfileLook::default());
        assert!(
            file.profile(Some("nope"))
                .unwrap_err()
                .to_string()
                .contains("it has: cloud, local")
        );
        assert!(
            toml::from_str::<ConfigFile>("[profiles.x]\nhots = 1").is_err(),
            "typos are reported"
        );
    }

    #[test]
    fn a_key_in_a_file_others_can_read_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "").unwrap();
        let profile = Profile {
            api_key: Some(ApiKey::new("phx_k")),
            ..Profile::default()
        };
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let refused = profile
            .key("p", &path, KeyPrompt::Allowed)
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains("chmod 600") && !refused.contains("phx_k"),
            "{refused}"
        );
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(
            profile
                .key("p", &path, KeyPrompt::Allowed)
                .unwrap()
                .unwrap()
                .expose(),
            "phx_k"
        );
        let command = Profile {
            api_key_command: Some("printf phx_from_a_command".into()),
            ..Profile::default()
        };
        assert_eq!(
            command
                .key("p", &path, KeyPrompt::Allowed)
                .unwrap()
                .unwrap()
                .expose(),
            "phx_from_a_command"
        );
    }

    #[test]
    fn a_broken_file_is_reported_without_quoting_the_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(
            &path,
            "[profiles.p]\nhost = \"https://x\"\napi_key = phx_unquoted_secret\n",
        )
        .unwrap();
        let refused = format!("{:#}", load_from(path).unwrap_err());
        assert!(refused.contains("(line 3, column 11)"), "{refused}");
        assert!(!refused.contains("unquoted_secret"), "{refused}");
    }

    #[test]
    fn a_key_command_reads_nothing_from_orgdecks_input() {
        let path = Path::new("/nonexistent");
        let reads_input = Profile {
            api_key_command: Some("cat".into()),
            ..Profile::default()
        };
        let refused = reads_input
            .key("p", path, KeyPrompt::Allowed)
            .unwrap_err()
            .to_string();
        assert!(refused.contains("printed no key"), "{refused}");
        let fails = Profile {
            api_key_command: Some("echo phx_shown_on_error >&2; exit 3".into()),
            ..Profile::default()
        };
        let refused = fails.key("p", path, KeyPrompt::Allowed).unwrap_err().to_string();
        assert!(
            refused.contains("failed") && !refused.contains("phx_shown"),
            "{refused}"
        );
    }

    #[test]
    fn hosts_without_a_scheme_get_the_one_they_speak() {
        assert_eq!(with_scheme("127.0.0.1:8010"), "http://127.0.0.1:8010");
        assert_eq!(with_scheme(" localhost:8010/ "), "http://localhost:8010/");
        assert_eq!(with_scheme("[::1]:8010"), "http://[::1]:8010");
        assert_eq!(with_scheme("us.posthog.com"), "https://us.posthog.com");
        assert_eq!(with_scheme("10.0.0.5:8000"), "https://10.0.0.5:8000");
        assert_eq!(with_scheme("http://example.com"), "http://example.com");
    }

    #[test]
    fn loopback_hosts() {
        for host in ["127.0.0.1", "localhost", "[::1]", "127.5.5.5"] {
            assert!(is_loopback(host), "{host}");
        }
        for host in ["10.0.0.1", "example.com", "192.168.1.1"] {
            assert!(!is_loopback(host), "{host}");
        }
    }
}

/// Credentials of PostHog's own CLI, used where orgdeck has no profile.
#[derive(Debug, Clone)]
pub struct PosthogCli {
    pub host: Option<String>,
    pub key: ApiKey,
    pub project: Option<String>,
    /// Where they were found, to say so.
    pub source: String,
}

#[derive(Deserialize)]
struct PosthogCliFile {
    #[serde(alias = "api_key")]
    token: ApiKey,
    host: Option<String>,
    #[serde(alias = "project_id")]
    env_id: Option<serde_json::Value>,
}

/// PostHog's CLI credentials: `POSTHOG_CLI_API_KEY` (or `POSTHOG_CLI_TOKEN`),
/// `POSTHOG_CLI_HOST`, `POSTHOG_CLI_PROJECT_ID` (or `POSTHOG_CLI_ENV_ID`), or
/// else the file `~/.posthog/credentials.json` its `login` writes.
pub fn posthog_cli_credentials() -> Option<PosthogCli> {
    let variable = |names: &[&str]| {
        names.iter().find_map(|name| {
            std::env::var(name)
                .ok()
                .filter(|value| !value.trim().is_empty())
                .map(|v| (name.to_string(), v))
        })
    };
    if let Some((name, key)) = variable(&["POSTHOG_CLI_API_KEY", "POSTHOG_CLI_TOKEN"]) {
        return Some(PosthogCli {
            host: variable(&["POSTHOG_CLI_HOST"]).map(|(_, host)| host),
            key: ApiKey::new(key),
            project: variable(&["POSTHOG_CLI_PROJECT_ID", "POSTHOG_CLI_ENV_ID"]).map(|(_, id)| id),
            source: format!("${name}"),
        });
    }
    let path = dirs::home_dir()?.join(".posthog").join("credentials.json");
    let text = std::fs::read_to_string(&path).ok()?;
    let file: PosthogCliFile = serde_json::from_str(&text).ok()?;
    let project = file.env_id.map(|id| match id {
        serde_json::Value::String(text) => text,
        other => other.to_string(),
    });
    Some(PosthogCli {
        host: file.host,
        key: file.token,
        project,
        source: path.display().to_string(),
    })
}
