//! A Slack channel by name (`--slack-channel '#ops'`), found through the
//! project's Slack integration: the one that works, or the one chosen with
//! `--integration`; what is wrong said with what to do next.

use super::super::UsageError;
use crate::api::{ChannelQuery, Client};
use crate::text::printable;

/// The integration and target value for a Slack channel named `channel`
/// ('#ops', 'ops' or an id such as 'C0123').
pub(super) async fn slack_target(
    client: &Client,
    project: &str,
    channel: &str,
    chosen: Option<i64>,
) -> anyhow::Result<(i64, String, String)> {
    let integrations = match client.integrations(project, "slack").await {
        Ok(page) => page.results,
        Err(error) if error.status() == Some(404) => {
            return Err(UsageError(format!(
                "--slack-channel {}: this server has no integrations to resolve a channel through; give --target-value with the channel instead",
                printable(channel)
            ))
            .into());
        }
        Err(error) => return Err(error.into()),
    };
    let integration = match chosen {
        Some(id) => integrations
            .iter()
            .find(|integration| integration.id == id)
            .ok_or_else(|| {
                UsageError(format!(
                    "--integration {id}: no Slack integration {id} in this project"
                ))
            })?,
        None => {
            let healthy: Vec<_> = integrations.iter().filter(|i| !i.is_broken()).collect();
            match healthy.as_slice() {
                [only] => *only,
                [] if integrations.is_empty() => {
                    return Err(UsageError(
                        "this project has no Slack integration: connect Slack in PostHog first".into(),
                    )
                    .into());
                }
                [] => {
                    return Err(UsageError(format!(
                        "this project's Slack integrations no longer work ({}): reconnect Slack in PostHog first",
                        list_integrations(&integrations)
                    ))
                    .into());
                }
                several => {
                    return Err(UsageError(format!(
                        "this project has several Slack integrations; choose one with --integration ID: {}",
                        list_integrations(&several.iter().map(|i| (*i).clone()).collect::<Vec<_>>())
                    ))
                    .into());
                }
            }
        }
    };
    if integration.is_broken() {
        return Err(UsageError(format!(
            "Slack integration {} no longer works ({}): reconnect Slack in PostHog first",
            integration.id,
            printable(integration.errors.as_deref().unwrap_or(""))
        ))
        .into());
    }
    let wanted = channel.trim().trim_start_matches('#');
    let by_id = client
        .channel(project, integration.id, wanted)
        .await
        .ok()
        .flatten();
    let found = match by_id {
        Some(found) => found,
        None => {
            let query = ChannelQuery {
                search: Some(wanted.to_string()),
                limit: Some(50),
                offset: None,
            };
            let listed = client.channels(project, integration.id, &query).await?.channels;
            match listed.iter().find(|c| c.name.eq_ignore_ascii_case(wanted)) {
                Some(found) => found.clone(),
                None => {
                    let near: Vec<String> = listed
                        .iter()
                        .take(8)
                        .map(|c| format!("#{}", printable(&c.name)))
                        .collect();
                    return Err(UsageError(format!(
                        "no Slack channel \"{}\" through {}{}",
                        printable(channel),
                        printable(&integration.name()),
                        if near.is_empty() {
                            String::new()
                        } else {
                            format!("; channels like it: {}", near.join(", "))
                        }
                    ))
                    .into());
                }
            }
        }
    };
    let note = format!(
        "posting to #{}{} through {}",
        printable(&found.name),
        if found.is_private { " (private)" } else { "" },
        printable(&integration.name())
    );
    Ok((integration.id, found.target_value(), note))
}

fn list_integrations(integrations: &[crate::api::Integration]) -> String {
    integrations
        .iter()
        .map(|integration| {
            format!(
                "{} {}{}",
                integration.id,
                printable(&integration.name()),
                if integration.is_broken() {
                    " (no longer works)"
                } else {
                    ""
                }
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}
