//! Connection settings of the scriptable commands, first found wins: flags,
//! then environment variables, then the defaults of design.md. The key comes
//! only from the environment, never a flag (it would show in `ps`).

use std::time::Duration;

use clap::Args;

use super::UsageError;
use crate::api::{ApiKey, Client, ClientConfig};

pub const DEFAULT_HOST: &str = "https://us.posthog.com";
pub const CURRENT: &str = "@current";

#[derive(Debug, Clone, Args)]
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
    /// Seconds to wait for an answer before giving up.
    #[arg(long, global = true, value_name = "SECONDS", default_value_t = 30.0)]
    pub timeout: f64,
}

/// Resolved settings and the client built from them.
#[derive(Debug, Clone)]
pub struct Connection {
    pub client: Client,
    pub organization: String,
    pub project: String,
}

fn setting(flag: &Option<String>, variable: &str) -> Option<String> {
    flag.clone()
        .or_else(|| std::env::var(variable).ok())
        .map(|value| value.trim().to_string())
        .filter(|value| !value.is_empty())
}

impl ConnectionArgs {
    pub fn connect(&self) -> anyhow::Result<Connection> {
        let host = setting(&self.host, "ORGDECK_HOST").unwrap_or_else(|| DEFAULT_HOST.to_string());
        let key = std::env::var("ORGDECK_API_KEY")
            .map(ApiKey::new)
            .unwrap_or_else(|_| ApiKey::new(""));
        if key.is_empty() {
            return Err(UsageError(
                "no API key: set ORGDECK_API_KEY to a personal API key (orgdeck takes no key as a flag, where `ps` would show it)"
                    .into(),
            )
            .into());
        }
        if !(self.timeout.is_finite() && self.timeout > 0.0) {
            return Err(UsageError(format!(
                "--timeout {} is not a positive number of seconds",
                self.timeout
            ))
            .into());
        }
        let mut config = ClientConfig::new(host, key);
        config.timeout = Duration::from_secs_f64(self.timeout);
        let client = Client::new(config).map_err(|error| UsageError(error.to_string()))?;
        Ok(Connection {
            client,
            organization: setting(&self.org, "ORGDECK_ORG").unwrap_or_else(|| CURRENT.into()),
            project: setting(&self.project, "ORGDECK_PROJECT").unwrap_or_else(|| CURRENT.into()),
        })
    }
}
