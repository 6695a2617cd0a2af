//! Connection settings, first found wins: flags, then environment variables,
//! then the config file's active profile, then the defaults of design.md. The
//! key comes from the environment or the profile, never a flag (it would
//! show in `ps`). Plain http goes only to this machine unless allowed.

use std::time::Duration;

use clap::Args;

use super::UsageError;
use crate::api::{ApiKey, Client, ClientConfig, Deadline};
use crate::config::Origin;
use crate::config::{ConfigFile, Profile};

pub use crate::config::{CURRENT, DEFAULT_HOST};

#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Connection")]
pub struct ConnectionArgs {
    /// API host [env: ORGDECK_HOST] [default: https://us.posthog.com]
    #[arg(long, global = true, value_name = "URL")]
    pub host: Option<String>,
    /// Organization: a UUID or @current [env: ORGDECK_ORG] [default: @current]
    #[arg(long, global = true, value_name = "ID")]
    pub org: Option<String>,
    /// Project: an id or @current [env: ORGDECK_PROJECT] [default: @current]
    #[arg(long, global = true, value_name = "ID")]
    pub project: Option<String>,
    /// The config file's profile to use [env: ORGDECK_PROFILE] [default: its default_profile]
    #[arg(long, global = true, value_name = "NAME")]
    pub profile: Option<String>,
    /// Allow plain http to a host other than this machine (the key would travel unencrypted).
    #[arg(long, global = true)]
    pub allow_http: bool,
    /// Seconds one request may take, its answer included (the whole
    /// command: --deadline).
    #[arg(long, global = true, value_name = "SECONDS", default_value_t = 30.0)]
    pub timeout: f64,
    /// The most time the whole command may take, retries, waits and its
    /// question included, as seconds or 90s, 10m, 1h; past it the command
    /// stops with exit 1 [default: 2m for a command on one thing; 10m for
    /// lists, people show, export, plan and offboard --dry-run; 1h for
    /// apply, people offboard and subs health]
    #[arg(long, global = true, value_name = "SECONDS", value_parser = parse_duration)]
    pub deadline: Option<Duration>,
    /// The largest answer read from the server, in MiB; reading stops past it.
    #[arg(long, global = true, value_name = "MIB", default_value_t = 64.0)]
    pub max_answer_mib: f64,
    /// The most rows taken from one list, repeats included: a longer list
    /// stops with an error (the console's pickers show fewer, and say so).
    /// What a command keeps of lists is capped in bytes too: --max-held-mib.
    #[arg(long, global = true, value_name = "N", default_value_t = crate::api::client::DEFAULT_MAX_ROWS,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_rows: u64,
    /// The most MiB of rows a command keeps of the lists it reads whole,
    /// all of them together (people, export, plan, apply, subs health),
    /// counted as their JSON plus their size once read: past it the command
    /// stops with an error.
    #[arg(long, global = true, value_name = "MIB", default_value_t = 48.0)]
    pub max_held_mib: f64,
}

/// `--deadline`: seconds, or a number with s, m or h.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit) = match text.char_indices().last() {
        Some((at, 's')) => (&text[..at], 1.0),
        Some((at, 'm')) => (&text[..at], 60.0),
        Some((at, 'h')) => (&text[..at], 3600.0),
        _ => (text, 1.0),
    };
    let seconds = number
        .trim()
        .parse::<f64>()
        .ok()
        .map(|number| number * unit)
        .filter(|seconds| seconds.is_finite() && *seconds > 0.0 && *seconds <= 366.0 * 86_400.0)
        .ok_or_else(|| format!("\"{text}\" is not a time: give seconds (90), or 90s, 10m, 1h"))?;
    Ok(Duration::from_secs_f64(seconds))
}

/// Resolved settings and the client built from them.
#[derive(Debug, Clone)]
pub struct Connection {
    pub client: Client,
    pub organization: String,
    pub project: String,
    /// The profile the settings came from, if any.
    pub profile: Option<String>,
    /// How the settings were arrived at, beyond the profile.
    pub origin: Origin,
    /// The config file as read, for the console's keys and colours.
    pub file: Option<ConfigFile>,
    /// The profile's `refresh`: the console's interval, in seconds.
    pub refresh: Option<u32>,
    /// The profile's colour and whether it is production.
    pub look: crate::config::ProfileLook,
}

/// A flag, else its environment variable; trimmed, and absent when blank.
pub(super) fn setting(flag: &Option<String>, variable: &str) -> Option<String> {
    flag.clone()
        .or_else(|| std::env::var(variable).ok())
        .map(|value| value.trim().to_string())
        .filter(|value| !value.is_empty())
}

impl ConnectionArgs {
    /// The connection of a scriptable command: `deadline` bounds the whole
    /// command from now on, retries and waits included, and one budget
    /// (`--max-held-mib`) what it keeps of lists.
    pub fn connect_command(&self, deadline: Duration) -> anyhow::Result<Connection> {
        let mut connection = self.connect_until(Some(Deadline::after(deadline)))?;
        connection.client = connection.client.with_holding();
        Ok(connection)
    }

    /// How long a command of `span` may take: `--deadline`, else its own.
    pub fn deadline(&self, span: super::Span) -> Duration {
        self.deadline.unwrap_or_else(|| span.deadline())
    }

    /// The connection of the console, where `--timeout` bounds each request.
    pub fn connect(&self) -> anyhow::Result<Connection> {
        self.connect_until(None)
    }

    fn timeout(&self) -> anyhow::Result<Duration> {
        if !(self.timeout.is_finite() && self.timeout > 0.0 && self.timeout < 1e9) {
            return Err(UsageError(format!(
                "--timeout {} is not a positive number of seconds",
                self.timeout
            ))
            .into());
        }
        Ok(Duration::from_secs_f64(self.timeout))
    }

    /// `--max-held-mib` in bytes.
    pub fn max_held(&self) -> anyhow::Result<u64> {
        let mib = self.max_held_mib;
        if !(mib.is_finite() && mib > 0.0 && mib <= 1024.0 * 1024.0) {
            return Err(UsageError(format!(
                "--max-held-mib {mib} is not a size in MiB (more than 0, at most 1048576)"
            ))
            .into());
        }
        Ok((mib * 1024.0 * 1024.0) as u64)
    }

    /// `--max-answer-mib` in bytes.
    pub fn max_answer(&self) -> anyhow::Result<u64> {
        let mib = self.max_answer_mib;
        if !(mib.is_finite() && mib > 0.0 && mib <= 1024.0 * 1024.0) {
            return Err(UsageError(format!(
                "--max-answer-mib {mib} is not a size in MiB (more than 0, at most 1048576)"
            ))
            .into());
        }
        Ok((mib * 1024.0 * 1024.0) as u64)
    }

    fn connect_until(&self, deadline: Option<Deadline>) -> anyhow::Result<Connection> {
        let timeout = self.timeout()?;
        let max_answer = self.max_answer()?;
        let max_held = self.max_held()?;
        // Each flag and variable is read once.
        let chosen = setting(&self.profile, "ORGDECK_PROFILE");
        let given_host = setting(&self.host, "ORGDECK_HOST");
        let given_organization = setting(&self.org, "ORGDECK_ORG");
        let given_project = setting(&self.project, "ORGDECK_PROJECT");
        let given_key = std::env::var("ORGDECK_API_KEY")
            .map(ApiKey::new)
            .ok()
            .filter(|key| !key.is_empty());
        let usage = |error: anyhow::Error| UsageError(format!("{error:#}"));
        let (file, profile) = match crate::config::load().map_err(usage)? {
            Some((file, path)) => {
                let found = file.profile(chosen.as_deref()).map_err(usage)?;
                // Several profiles and none chosen: guessing could pick the wrong account.
                if found.is_none() && given_key.is_none() && file.profiles.len() > 1 {
                    let names: Vec<&str> = file.profiles.keys().map(String::as_str).collect();
                    return Err(UsageError(format!(
                        "{} has profiles {} but no default_profile: pass --profile NAME, set ORGDECK_PROFILE, or add default_profile = \"{}\" to the file",
                        path.display(),
                        names.join(", "),
                        names[0]
                    ))
                    .into());
                }
                let profile = found.map(|(name, profile)| (name, profile, path));
                (Some(file), profile)
            }
            None if chosen.is_some() => {
                let path = crate::config::config_path().unwrap_or_default();
                return Err(UsageError(format!(
                    "profile \"{}\" was asked for, but there is no config file at {}",
                    chosen.unwrap_or_default(),
                    path.display()
                ))
                .into());
            }
            None => (None, None),
        };
        let from_profile =
            |pick: fn(&Profile) -> Option<String>| profile.as_ref().and_then(|(_, p, _)| pick(p));
        // Where orgdeck has neither a key nor a profile, PostHog's own CLI may have logged in.
        let posthog_cli = (profile.is_none() && given_key.is_none())
            .then(crate::config::posthog_cli_credentials)
            .flatten();
        if let Some(found) = &posthog_cli {
            eprintln!(
                "orgdeck: no profile; using the credentials of PostHog's CLI from {}",
                found.source
            );
        }
        let origin = match (&profile, &posthog_cli) {
            (Some(_), _)
                if given_host.is_some()
                    || given_organization.is_some()
                    || given_project.is_some()
                    || given_key.is_some() =>
            {
                Origin::Adjusted
            }
            (None, Some(_)) => Origin::PosthogCli,
            _ => Origin::Plain,
        };
        let host = given_host
            .or_else(|| from_profile(|p| p.host.clone()))
            .or_else(|| posthog_cli.as_ref().and_then(|found| found.host.clone()))
            .unwrap_or_else(|| DEFAULT_HOST.to_string());
        let host = crate::config::with_scheme(&host);
        let key = match (given_key, &profile, &posthog_cli) {
            (Some(key), _, _) => key,
            (None, Some((name, profile, path)), _) => profile
                .key(name, path, crate::config::KeyPrompt::Allowed)
                .map_err(|error| UsageError(error.to_string()))?
                .ok_or_else(|| UsageError(crate::config::no_key_source(name)))?,
            (None, None, Some(found)) => found.key.clone(),
            (None, None, None) => {
                return Err(UsageError(
                    "no API key: run `orgdeck login` to set up a profile, or set ORGDECK_API_KEY to a personal API key (orgdeck takes no key as a flag, where `ps` would show it)"
                        .into(),
                )
                .into());
            }
        };
        let allow_http = self.allow_http || profile.as_ref().is_some_and(|(_, p, _)| p.allow_http);
        check_transport(&host, allow_http)?;
        let mut config = ClientConfig::new(host, key);
        config.timeout = timeout;
        config.max_answer = max_answer;
        config.max_rows = self.max_rows;
        config.max_held = max_held;
        config.deadline = deadline;
        let client = Client::new(config).map_err(|error| UsageError(error.to_string()))?;
        let refresh = profile.as_ref().and_then(|(_, p, _)| p.refresh);
        let look = profile.as_ref().map(|(_, p, _)| p.look()).unwrap_or_default();
        Ok(Connection {
            client,
            refresh,
            look,
            origin,
            organization: given_organization
                .or_else(|| from_profile(|p| p.organization.clone()))
                .unwrap_or_else(|| CURRENT.into()),
            project: given_project
                .or_else(|| from_profile(|p| p.project.clone()))
                .or_else(|| posthog_cli.as_ref().and_then(|found| found.project.clone()))
                .unwrap_or_else(|| CURRENT.into()),
            profile: profile.map(|(name, _, _)| name),
            file,
        })
    }
}

/// Plain http to another machine would carry the key in the clear: refused
/// unless allowed.
pub(super) fn check_transport(host: &str, allow_http: bool) -> anyhow::Result<()> {
    crate::config::check_transport(host, allow_http).map_err(|refusal| {
        UsageError(format!(
            "{refusal}, or pass --allow-http (or allow_http = true in the profile) if you must"
        ))
        .into()
    })
}
