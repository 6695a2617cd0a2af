//! `orgdeck subscriptions list|get|create|update|delete|restore|pause|resume|test|deliveries|health`
//! (alias `subs`)

mod deliveries;
mod health;
mod input;
mod slack;

use clap::Subcommand;

use super::connection::Connection;
use super::output::{self, Column, Format, ListWriter, fixed, flexible};
use super::{UsageError, date};
use crate::api::{
    DeliveryStatus, List, Raw, ResourceType, Subscription, SubscriptionFilter, SubscriptionState, Verbatim,
};
use crate::display::{Zone, when};
use crate::schedule::Schedule;
use input::SubscriptionFields;

#[derive(Debug, Subcommand)]
pub enum SubscriptionsCommand {
    /// List the project's subscriptions (all pages).
    List {
        /// Soft-deleted ones instead of the others.
        #[arg(long)]
        deleted: bool,
        /// Only those in this state: active, paused, overdue, ended, deleted
        /// or unsupported (a channel today's PostHog no longer delivers to).
        #[arg(long, value_parser = parse_state)]
        state: Option<SubscriptionState>,
        /// Find in titles, insight and dashboard names (and targets, on older servers).
        #[arg(long)]
        search: Option<String>,
        /// email or slack (webhook on older servers).
        #[arg(long, value_name = "TYPE", value_parser = input::parse_target_type)]
        target_type: Option<String>,
        /// What they deliver: insight, dashboard or ai_prompt.
        #[arg(long, value_name = "TYPE", value_parser = input::parse_enum::<ResourceType>)]
        resource_type: Option<String>,
        /// Only those delivering this dashboard (its id or name).
        #[arg(long, value_name = "DASHBOARD")]
        dashboard: Option<String>,
        /// Only those delivering this insight (its id, short id or name).
        #[arg(long, value_name = "INSIGHT")]
        insight: Option<String>,
        /// created_at, next_delivery_date, title or created_by__email; a leading - for descending.
        #[arg(long, allow_hyphen_values = true, value_parser = parse_ordering)]
        ordering: Option<String>,
    },
    /// Show one subscription and its next deliveries.
    Get {
        /// The subscription's id.
        id: i64,
    },
    /// Create a subscription.
    Create {
        #[command(flatten)]
        fields: SubscriptionFields,
    },
    /// Change the given fields of a subscription (a PATCH of those alone).
    Update {
        /// The subscription's id.
        id: i64,
        #[command(flatten)]
        fields: SubscriptionFields,
    },
    /// Soft-delete a subscription (it can be restored).
    Delete {
        /// The subscription's id.
        id: i64,
    },
    /// Restore a soft-deleted subscription.
    Restore {
        /// The subscription's id.
        id: i64,
    },
    /// Pause a subscription: nothing is delivered until it is resumed.
    Pause {
        /// The subscription's id.
        id: i64,
    },
    /// Resume a paused (or auto-disabled) subscription.
    Resume {
        /// The subscription's id.
        id: i64,
    },
    /// Send a test delivery now.
    Test {
        /// The subscription's id.
        id: i64,
    },
    /// A subscription's deliveries, newest first: when, why, how it went, and
    /// to whom it failed.
    Deliveries {
        /// The subscription's id.
        id: i64,
        /// Only these: completed, failed, skipped or starting.
        #[arg(long, value_parser = input::parse_enum::<DeliveryStatus>)]
        status: Option<String>,
        /// At most this many.
        #[arg(long, value_name = "N", default_value_t = 500)]
        limit: usize,
    },
    /// The health of every subscription, worst first: failing, partial, auto-disabled,
    /// unsupported, overdue, paused, ended, ok, new or unknown, since when, who it fails
    /// for and what fixes it. Reads only what changed since the last look.
    Health(health::HealthArgs),
}

impl SubscriptionsCommand {
    /// Whether the command changes anything (refused under --read-only).
    pub fn writes(&self) -> bool {
        !matches!(
            self,
            SubscriptionsCommand::List { .. }
                | SubscriptionsCommand::Get { .. }
                | SubscriptionsCommand::Deliveries { .. }
                | SubscriptionsCommand::Health(_)
        )
    }

    /// How long it may take by default (`--deadline`).
    pub fn span(&self) -> super::Span {
        match self {
            SubscriptionsCommand::List { .. } | SubscriptionsCommand::Deliveries { .. } => super::Span::Lists,
            SubscriptionsCommand::Health(_) => super::Span::Paced,
            _ => super::Span::One,
        }
    }
}

fn parse_ordering(text: &str) -> Result<String, String> {
    match text.trim_start_matches('-') {
        "created_at" | "next_delivery_date" | "title" | "created_by__email" => Ok(text.to_string()),
        _ => Err(format!(
            "\"{text}\": order by created_at, next_delivery_date, title or created_by__email (a leading - for descending)"
        )),
    }
}

fn parse_state(text: &str) -> Result<SubscriptionState, String> {
    SubscriptionState::parse(text.trim()).ok_or_else(|| {
        format!(
            "\"{text}\" is not a state: {}",
            SubscriptionState::ALL.map(SubscriptionState::as_str).join(", ")
        )
    })
}

pub async fn run(
    command: SubscriptionsCommand,
    connection: Connection,
    format: Format,
) -> anyhow::Result<()> {
    let client = &connection.client;
    let project = connection.project.as_str();
    match command {
        SubscriptionsCommand::List {
            deleted,
            state,
            search,
            target_type,
            resource_type,
            dashboard,
            insight,
            ordering,
        } => {
            use super::catalog::{Kind, resolve};
            let dashboard = match dashboard {
                Some(text) => Some(resolve(client, project, Kind::Dashboard, &text, "dashboard").await?),
                None => None,
            };
            let insight = match insight {
                Some(text) => Some(resolve(client, project, Kind::Insight, &text, "insight").await?),
                None => None,
            };
            let filter = SubscriptionFilter {
                deleted: deleted || state == Some(SubscriptionState::Deleted),
                search,
                target_type,
                resource_type,
                dashboard,
                insight,
                ordering,
                ..SubscriptionFilter::default()
            };
            // Rows are written as their pages arrive, in the server's order,
            // and not kept: memory stays flat however long the list.
            let now = crate::clock::system_now();
            let mut writer = ListWriter::new(format, COLUMNS.to_vec())?;
            let options = super::list_options("subscriptions");
            let list = List::subscriptions(project, &filter);
            // The API has no filter by state: it is read off each row.
            let read = match (format, state) {
                // The server's objects passed on as they came, never read.
                (Format::Json, None) => {
                    client
                        .for_each_page(&list.verbatim(), &options, |rows: Vec<Verbatim<Subscription>>| {
                            writer.json_rows(&rows)
                        })
                        .await
                }
                (Format::Json, Some(state)) => {
                    client
                        .for_each_page(&list.raw(), &options, |mut rows: Vec<Raw<Subscription>>| {
                            rows.retain(|subscription| subscription.state(now) == state);
                            writer.json_rows(&rows)
                        })
                        .await
                }
                (Format::Table, state) => {
                    client
                        .for_each_page(&list, &options, |mut rows: Vec<Subscription>| {
                            if let Some(state) = state {
                                rows.retain(|subscription| subscription.state(now) == state);
                            }
                            writer.table_rows(&rows, |subscription| cells(subscription, now))
                        })
                        .await
                }
            };
            super::end_list(writer, read)
        }
        SubscriptionsCommand::Get { id } => show(&client.subscription(project, id).await?, format),
        SubscriptionsCommand::Create { fields } => {
            let today = client.is_todays_posthog(project).await?;
            let prepared = fields.prepare(client, project, true, today).await?;
            let missing: Vec<&str> = ["target_type", "target_value", "frequency", "start_date"]
                .into_iter()
                .filter(|field| !prepared.body.contains_key(*field))
                .collect();
            if !missing.is_empty() {
                let flags: Vec<String> = missing
                    .iter()
                    .map(|field| format!("--{}", field.replace('_', "-")))
                    .collect();
                return Err(UsageError(format!(
                    "subscriptions create needs {} (--slack-channel sets the target)",
                    flags.join(", ")
                ))
                .into());
            }
            let (created, prepared) = match client.create_subscription(project, &prepared.body).await {
                Err(error) if let Some(capped) = error.export_cap().and_then(|cap| prepared.capped(cap)) => {
                    (client.create_subscription(project, &capped.body).await?, capped)
                }
                answer => (answer?, prepared),
            };
            tell(&prepared.notes, format)?;
            show(&created, format)
        }
        SubscriptionsCommand::Update { id, fields } => {
            // The row says which server this is (today's carries `enabled`).
            let today = client.subscription(project, id).await?.enabled.is_some();
            let prepared = fields.prepare(client, project, false, today).await?;
            if prepared.body.keys().all(|name| name == "send_test_now") && !fields.send_now() {
                return Err(UsageError(
                    "nothing to change: give at least one field flag, --body or --send-now".into(),
                )
                .into());
            }
            let updated = match client.update_subscription(project, id, &prepared.body).await {
                Err(error) if let Some(capped) = error.export_cap().and_then(|cap| prepared.capped(cap)) => {
                    let updated = client.update_subscription(project, id, &capped.body).await?;
                    tell(&capped.notes, format)?;
                    return show(&updated, format);
                }
                answer => answer?,
            };
            tell(&prepared.notes, format)?;
            show(&updated, format)
        }
        SubscriptionsCommand::Pause { id } => {
            deliveries::set_enabled(client, project, id, false, format).await
        }
        SubscriptionsCommand::Resume { id } => {
            deliveries::set_enabled(client, project, id, true, format).await
        }
        SubscriptionsCommand::Test { id } => deliveries::test(client, project, id, format).await,
        SubscriptionsCommand::Deliveries { id, status, limit } => {
            deliveries::list(client, project, id, status.as_deref(), limit, format).await
        }
        SubscriptionsCommand::Health(args) => {
            let host = client.base_url().as_str().trim_end_matches('/').to_string();
            health::run(client, &host, project, args, client.max_rows(), format).await
        }
        SubscriptionsCommand::Delete { id } => {
            let subscription = client.soft_delete_subscription(project, id).await?;
            match format {
                Format::Json => output::print_json(&subscription),
                Format::Table => output::print(&format!(
                    "soft-deleted subscription {id}; undo with: orgdeck subscriptions restore {id}\n"
                )),
            }
        }
        SubscriptionsCommand::Restore { id } => {
            let subscription = client.restore_subscription(project, id).await?;
            match format {
                Format::Json => output::print_json(&subscription),
                Format::Table => output::print(&format!("restored subscription {id}\n")),
            }
        }
    }
}

/// What orgdeck chose for the user: above the record, or on stderr when
/// stdout is JSON for a program.
fn tell(notes: &[String], format: Format) -> anyhow::Result<()> {
    for note in notes {
        match format {
            Format::Table => output::print(&format!("{note}\n"))?,
            Format::Json => eprintln!("orgdeck: {}", crate::text::printable(note)),
        }
    }
    Ok(())
}

fn target(subscription: &Subscription) -> String {
    format!(
        "{}:{}",
        subscription
            .target_type
            .as_ref()
            .map(|t| t.as_str())
            .unwrap_or("?"),
        subscription.target_value.as_deref().unwrap_or("")
    )
}

const COLUMNS: [Column; 6] = [
    fixed("ID"),
    flexible("TITLE"),
    flexible("TARGET"),
    flexible("SCHEDULE"),
    fixed("NEXT (UTC)"),
    fixed("STATE"),
];

/// A subscription's line of the list.
fn cells(subscription: &Subscription, now: chrono::DateTime<chrono::Utc>) -> Vec<String> {
    vec![
        subscription.id.to_string(),
        subscription.title.clone().unwrap_or_default(),
        target(subscription),
        subscription.summary.clone().unwrap_or_default(),
        when(subscription.next_delivery_date, Zone::Utc),
        subscription.state(now).to_string(),
    ]
}

/// A subscription: its JSON as the server sent it, or its fields.
fn show(subscription: &Raw<Subscription>, format: Format) -> anyhow::Result<()> {
    if format == Format::Json {
        return output::print_json(subscription);
    }
    let text = |value: &Option<String>| value.clone().unwrap_or_else(|| "-".into());
    let number = |value: Option<i64>| value.map(|n| n.to_string()).unwrap_or_else(|| "-".into());
    let now = crate::clock::system_now();
    // A paused subscription, or one to a channel no longer supported,
    // has nothing to come.
    let upcoming = Schedule::of(subscription)
        .filter(|_| subscription.delivers_on_schedule())
        .map(|schedule| schedule.occurrences_after(now, 5))
        .unwrap_or_default()
        .into_iter()
        .map(|at| when(Some(at), Zone::Utc))
        .collect::<Vec<_>>();
    let state = subscription.state(now);
    // A dashboard's or insight's id, with the name the server gives it.
    let resource = |id: Option<i64>| match (id, subscription.resource_name.as_deref()) {
        (Some(id), Some(name)) if !name.is_empty() => format!("{id} ({name})"),
        (id, _) => number(id),
    };
    let mut fields = vec![
        ("id", subscription.id.to_string()),
        ("title", text(&subscription.title)),
        ("state", state.to_string()),
        ("target", subscription.target_words()),
        ("dashboard", resource(subscription.dashboard)),
        ("insight", resource(subscription.insight)),
    ];
    // Today's PostHog: an AI report's question and window, a dashboard's
    // insights to export, what an AI summary reads besides; older servers
    // have none of them. (The integration is named in the target.)
    if let Some(prompt) = &subscription.prompt {
        fields.push(("prompt", prompt.clone()));
    }
    if let Some(window) = subscription.window() {
        fields.push(("window", window.describe()));
    }
    if let Some(contexts) = subscription.contexts_words() {
        fields.push(("reads", contexts));
    }
    if let Some(exports) = subscription
        .dashboard_export_insights
        .as_ref()
        .filter(|exports| !exports.is_empty())
    {
        let ids: Vec<String> = exports.iter().map(i64::to_string).collect();
        fields.push(("exports", format!("insights {}", ids.join(", "))));
    }
    fields.extend([
        ("schedule", text(&subscription.summary)),
        (
            "frequency",
            subscription
                .frequency
                .as_ref()
                .map(|f| f.to_string())
                .unwrap_or_else(|| "-".into()),
        ),
        ("interval", number(subscription.interval)),
        (
            "byweekday",
            subscription
                .byweekday
                .as_ref()
                .map(|days| days.iter().map(|d| d.as_str()).collect::<Vec<_>>().join(","))
                .unwrap_or_else(|| "-".into()),
        ),
        ("bysetpos", number(subscription.bysetpos)),
        ("count", number(subscription.count)),
        ("start date", date(subscription.start_date)),
        ("until date", date(subscription.until_date)),
        ("next delivery", date(subscription.next_delivery_date)),
        (
            "upcoming",
            if let Some(why) = subscription.why_no_deliveries() {
                why.into()
            } else if upcoming.is_empty() {
                "-".into()
            } else {
                upcoming.join(", ")
            },
        ),
        ("invite message", text(&subscription.invite_message)),
        (
            "created by",
            subscription
                .created_by
                .as_ref()
                .map(|user| format!("{} <{}>", user.display_name(), user.email))
                .unwrap_or_else(|| "-".into()),
        ),
        ("created at", date(subscription.created_at)),
    ]);
    output::print(&output::record(&fields))
}
