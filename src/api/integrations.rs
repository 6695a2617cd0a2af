//! What a subscription form offers to choose from on today's PostHog: Slack
//! integrations and their channels (posthog.md §10), a dashboard's insights
//! from its tiles (§11), and the quota of AI summaries.

use chrono::{DateTime, Utc};
use reqwest::Method;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::client::Client;
use super::error::Result;
use super::models::{Page, User};
use super::time::flexible_datetime;

/// A connection of the project to another service (Slack, among others).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Integration {
    #[serde(default)]
    pub id: i64,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub display_name: Option<String>,
    #[serde(default)]
    pub config: Option<Value>,
    /// What went wrong with the connection ("" or absent when nothing did).
    #[serde(default)]
    pub errors: Option<String>,
    #[serde(default, with = "flexible_datetime")]
    pub created_at: Option<DateTime<Utc>>,
    #[serde(default)]
    pub created_by: Option<User>,
}

impl Integration {
    /// A connection whose token no longer works (revoked, uninstalled): it
    /// cannot deliver, and is not offered for new subscriptions.
    pub fn is_broken(&self) -> bool {
        self.errors
            .as_deref()
            .is_some_and(|errors| !errors.trim().is_empty())
    }

    /// The name to show: the server's, else the kind and id.
    pub fn name(&self) -> String {
        self.display_name
            .clone()
            .filter(|name| !name.trim().is_empty())
            .unwrap_or_else(|| format!("{} #{}", self.kind, self.id))
    }
}

/// A Slack channel an integration can post to.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SlackChannel {
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub is_private: bool,
    #[serde(default)]
    pub is_member: bool,
    #[serde(default)]
    pub is_ext_shared: bool,
    #[serde(default)]
    pub is_private_without_access: bool,
}

impl SlackChannel {
    /// The target value PostHog's own UI writes: `C123|#name`.
    pub fn target_value(&self) -> String {
        format!("{}|#{}", self.id, self.name)
    }
}

/// A page of an integration's channels.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Channels {
    #[serde(default)]
    pub channels: Vec<SlackChannel>,
    #[serde(default)]
    pub has_more: bool,
    #[serde(default, rename = "lastRefreshedAt")]
    pub last_refreshed_at: Option<String>,
}

/// A dashboard with its tiles, for choosing the insights it exports.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Dashboard {
    #[serde(default)]
    pub id: i64,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub tiles: Vec<DashboardTile>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DashboardTile {
    #[serde(default)]
    pub id: i64,
    /// Text and button tiles hold no insight.
    #[serde(default)]
    pub insight: Option<TileInsight>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TileInsight {
    #[serde(default)]
    pub id: i64,
    #[serde(default)]
    pub short_id: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub derived_name: Option<String>,
}

impl TileInsight {
    pub fn title(&self) -> String {
        self.name
            .clone()
            .or_else(|| self.derived_name.clone())
            .filter(|name| !name.trim().is_empty())
            .unwrap_or_else(|| format!("insight #{}", self.id))
    }
}

impl Dashboard {
    /// The insights a dashboard subscription exports unless told which:
    /// every one on the dashboard, in the tiles' order. The server's cap
    /// depends on the plan (posthog.md 15-4) and is never assumed here: a
    /// refusal names it ([`super::Refusal::export_cap`]).
    pub fn default_exports(&self) -> Vec<&TileInsight> {
        self.insights()
    }

    /// The insights a dashboard subscription may export, in the tiles'
    /// order, each once.
    pub fn insights(&self) -> Vec<&TileInsight> {
        let mut seen = std::collections::HashSet::new();
        self.tiles
            .iter()
            .filter_map(|tile| tile.insight.as_ref())
            .filter(|insight| seen.insert(insight.id))
            .collect()
    }
}

/// How many subscriptions have AI summaries on, and how many may.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SummaryQuota {
    #[serde(default)]
    pub active_count: i64,
    #[serde(default)]
    pub limit: Option<i64>,
    #[serde(default)]
    pub at_limit: bool,
}

/// How channels are looked up.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChannelQuery {
    pub search: Option<String>,
    pub limit: Option<u32>,
    pub offset: Option<u32>,
}

impl Client {
    /// The project's integrations of one kind (`slack`), first page: a
    /// project has a handful.
    pub async fn integrations(&self, project: &str, kind: &str) -> Result<Page<Integration>> {
        let mut url = self.url(&["api", "projects", project, "integrations"]);
        url.query_pairs_mut().append_pair("kind", kind);
        self.call(Method::GET, url, None::<&()>).await
    }

    /// A Slack integration's channels matching a search.
    pub async fn channels(&self, project: &str, integration: i64, query: &ChannelQuery) -> Result<Channels> {
        let mut url = self.url(&[
            "api",
            "projects",
            project,
            "integrations",
            &integration.to_string(),
            "channels",
        ]);
        {
            let mut pairs = url.query_pairs_mut();
            if let Some(search) = query.search.as_deref().filter(|search| !search.trim().is_empty()) {
                pairs.append_pair("search", search);
            }
            if let Some(limit) = query.limit {
                pairs.append_pair("limit", &limit.to_string());
            }
            if let Some(offset) = query.offset {
                pairs.append_pair("offset", &offset.to_string());
            }
        }
        self.call(Method::GET, url, None::<&()>).await
    }

    /// One channel by id (`C123`), when the integration can see it.
    pub async fn channel(&self, project: &str, integration: i64, id: &str) -> Result<Option<SlackChannel>> {
        let mut url = self.url(&[
            "api",
            "projects",
            project,
            "integrations",
            &integration.to_string(),
            "channels",
        ]);
        url.query_pairs_mut().append_pair("channel_id", id);
        let found: Channels = self.call(Method::GET, url, None::<&()>).await?;
        Ok(found.channels.into_iter().find(|channel| channel.id == id))
    }

    /// A dashboard with its tiles.
    pub async fn dashboard(&self, project: &str, id: i64) -> Result<Dashboard> {
        let url = self.url(&["api", "projects", project, "dashboards", &id.to_string()]);
        self.call(Method::GET, url, None::<&()>).await
    }

    /// A dashboard with its tiles, to choose the insights a subscription
    /// exports; `None` from a server that shows no dashboard's tiles (an
    /// older PostHog, which delivers a dashboard whole) or no such
    /// dashboard (the subscription's write then says so).
    pub async fn dashboard_tiles(&self, project: &str, id: i64) -> Result<Option<Dashboard>> {
        match self.dashboard(project, id).await {
            Ok(dashboard) => Ok(Some(dashboard)),
            Err(error) if error.status() == Some(404) => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// How many AI summaries are on and allowed.
    pub async fn summary_quota(&self, project: &str) -> Result<SummaryQuota> {
        let url = self.url(&["api", "projects", project, "subscriptions", "summary_quota"]);
        self.call(Method::GET, url, None::<&()>).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dashboards_insights_come_from_its_tiles_once_each() {
        let dashboard: Dashboard = serde_json::from_value(serde_json::json!({
            "id": 3, "name": "Growth",
            "tiles": [
                {"id": 1, "insight": {"id": 10, "short_id": "a", "name": "Signups"}},
                {"id": 2, "insight": null, "text": {"body": "notes"}},
                {"id": 3, "insight": {"id": 11, "name": null, "derived_name": "Pageviews count"}},
                {"id": 4, "insight": {"id": 10, "name": "Signups"}}
            ]
        }))
        .unwrap();
        let titles: Vec<String> = dashboard
            .insights()
            .iter()
            .map(|insight| insight.title())
            .collect();
        assert_eq!(titles, ["Signups", "Pageviews count"]);
        let many = Dashboard {
            tiles: (1..=9)
                .map(|id| DashboardTile {
                    id,
                    insight: Some(TileInsight {
                        id,
                        ..TileInsight::default()
                    }),
                })
                .collect(),
            ..Dashboard::default()
        };
        let exported: Vec<i64> = many.default_exports().iter().map(|insight| insight.id).collect();
        assert_eq!(exported, (1..=9).collect::<Vec<_>>(), "every one: no cap assumed");
    }

    #[test]
    fn broken_integrations_and_channel_targets() {
        let revoked: Integration =
            serde_json::from_value(serde_json::json!({"id": 2, "kind": "slack", "errors": "invalid_auth"}))
                .unwrap();
        assert!(revoked.is_broken());
        assert_eq!(revoked.name(), "slack #2");
        let healthy: Integration = serde_json::from_value(
            serde_json::json!({"id": 1, "kind": "slack", "errors": "", "display_name": "Hedgebox"}),
        )
        .unwrap();
        assert!(!healthy.is_broken());
        let channel = SlackChannel {
            id: "C01".into(),
            name: "ops".into(),
            ..SlackChannel::default()
        };
        assert_eq!(channel.target_value(), "C01|#ops");
    }
}
