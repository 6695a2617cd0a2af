//! `orgdeck subscriptions list|get|create|update|delete|restore` (alias `subs`)

use crate::api::SubscriptionState;
use clap::Subcommand;
use serde_json::{Map, Value};

use super::connection::Connection;
use super::output::{self, Format, fixed, flexible};
use super::{UsageError, body_from, date, fetch_all};
use crate::api::time::{format_datetime, parse_user_datetime};
use crate::api::{Frequency, List, Subscription, SubscriptionFilter, TargetType, Weekday};
use crate::console::view::format::when as minute;
use crate::schedule::{Schedule, position_name};

#[derive(Debug, Subcommand)]
pub enum SubscriptionsCommand {
    /// List the project's subscriptions (all pages).
    List {
        /// Soft-deleted ones instead of the others.
        #[arg(long)]
        deleted: bool,
        /// Find in titles, targets, insight and dashboard names.
        #[arg(long)]
        search: Option<String>,
        #[arg(long, value_name = "TYPE")]
        target_type: Option<String>,
        #[arg(long, value_name = "ID")]
        dashboard: Option<i64>,
        #[arg(long, value_name = "ID")]
        insight: Option<i64>,
        /// created_at, next_delivery_date or title; a leading - for descending.
        #[arg(long, allow_hyphen_values = true, value_parser = parse_ordering)]
        ordering: Option<String>,
    },
    /// Show one subscription and its next deliveries.
    Get { id: i64 },
    /// Create a subscription.
    Create {
        #[command(flatten)]
        fields: SubscriptionFields,
    },
    /// Change the given fields of a subscription (a PATCH of those alone).
    Update {
        id: i64,
        #[command(flatten)]
        fields: SubscriptionFields,
    },
    /// Soft-delete a subscription (it can be restored).
    Delete { id: i64 },
    /// Restore a soft-deleted subscription.
    Restore { id: i64 },
}

/// Every writable field as a flag. `none` clears a nullable one.
#[derive(Debug, clap::Args)]
pub struct SubscriptionFields {
    /// email, slack or webhook.
    #[arg(long, value_name = "TYPE", value_parser = parse_enum::<TargetType>)]
    target_type: Option<String>,
    /// Comma-separated addresses, a Slack channel, or an http(s) URL.
    #[arg(long, value_name = "VALUE")]
    target_value: Option<String>,
    /// daily, weekly, monthly or yearly.
    #[arg(long, value_parser = parse_enum::<Frequency>)]
    frequency: Option<String>,
    /// Every N periods.
    #[arg(long, value_name = "N")]
    interval: Option<i64>,
    /// Days, e.g. monday,friday (or weekdays, or none).
    #[arg(long, value_name = "DAYS")]
    byweekday: Option<String>,
    /// Which of the days in a period: 1-4, first..fourth, -1/last, or none.
    #[arg(long, value_name = "POSITION", allow_hyphen_values = true)]
    bysetpos: Option<String>,
    /// Deliveries in all, or none.
    #[arg(long, value_name = "N")]
    count: Option<String>,
    /// 2026-12-01, "2026-12-01 09:00" or ISO 8601 (UTC unless an offset is given).
    #[arg(long, value_name = "WHEN")]
    start_date: Option<String>,
    /// Like --start-date, or none.
    #[arg(long, value_name = "WHEN")]
    until_date: Option<String>,
    #[arg(long)]
    title: Option<String>,
    #[arg(long, value_name = "TEXT")]
    invite_message: Option<String>,
    /// Dashboard id, or none.
    #[arg(long, value_name = "ID")]
    dashboard: Option<String>,
    /// Insight id, or none.
    #[arg(long, value_name = "ID")]
    insight: Option<String>,
    /// A JSON body from a file, or - for stdin; flags override its fields.
    #[arg(long, value_name = "FILE")]
    body: Option<String>,
}

fn parse_enum<T: std::str::FromStr>(text: &str) -> Result<String, String> {
    let text = text.trim().to_ascii_lowercase();
    text.parse::<T>()
        .map(|_| text.clone())
        .map_err(|_| format!("\"{text}\" is not one of the allowed values"))
}

fn parse_ordering(text: &str) -> Result<String, String> {
    match text.trim_start_matches('-') {
        "created_at" | "next_delivery_date" | "title" => Ok(text.to_string()),
        _ => Err(format!(
            "\"{text}\": order by created_at, next_delivery_date or title (a leading - for descending)"
        )),
    }
}

fn is_none(text: &str) -> bool {
    matches!(text.trim().to_ascii_lowercase().as_str(), "none" | "null")
}

fn usage(flag: &str, message: String) -> anyhow::Error {
    UsageError(format!("--{flag}: {message}")).into()
}

fn nullable_id(flag: &str, text: &str) -> anyhow::Result<Value> {
    if is_none(text) {
        return Ok(Value::Null);
    }
    text.trim()
        .parse::<i64>()
        .map(Value::from)
        .map_err(|_| usage(flag, format!("\"{text}\" is not a number (or none)")))
}

fn weekdays(text: &str) -> anyhow::Result<Value> {
    if is_none(text) {
        return Ok(Value::Null);
    }
    if text.trim().eq_ignore_ascii_case("weekdays") {
        return Ok(Value::from(
            Weekday::ALL[..5].iter().map(|d| d.as_str()).collect::<Vec<_>>(),
        ));
    }
    let mut days = Vec::new();
    for part in text
        .split(',')
        .map(|part| part.trim().to_ascii_lowercase())
        .filter(|p| !p.is_empty())
    {
        let day = Weekday::ALL
            .iter()
            .find(|day| day.as_str() == part || (part.len() >= 3 && day.as_str().starts_with(&part)))
            .ok_or_else(|| usage("byweekday", format!("\"{part}\" is not a day of the week")))?;
        days.push(day.as_str());
    }
    Ok(Value::from(days))
}

fn position(text: &str) -> anyhow::Result<Value> {
    if is_none(text) {
        return Ok(Value::Null);
    }
    let lowered = text.trim().to_ascii_lowercase();
    let named = [1, 2, 3, 4, -1]
        .into_iter()
        .find(|&n| position_name(n) == Some(lowered.as_str()));
    named
        .or_else(|| lowered.parse().ok())
        .map(Value::from)
        .ok_or_else(|| {
            usage(
                "bysetpos",
                format!("\"{text}\" is not a position: 1-4, first..fourth, -1, last or none"),
            )
        })
}

fn when(flag: &str, text: &str, nullable: bool) -> anyhow::Result<Value> {
    if nullable && is_none(text) {
        return Ok(Value::Null);
    }
    parse_user_datetime(text)
        .map(|at| Value::from(format_datetime(&at)))
        .ok_or_else(|| {
            usage(
                flag,
                format!("\"{text}\" is not a date: use 2026-12-01, \"2026-12-01 09:00\" or ISO 8601"),
            )
        })
}

impl SubscriptionFields {
    /// The request body: `--body` first, then every flag given over it.
    fn body(&self) -> anyhow::Result<Map<String, Value>> {
        let mut body = match &self.body {
            Some(source) => body_from(source)?,
            None => Map::new(),
        };
        let mut set = |name: &str, value: Value| {
            body.insert(name.to_string(), value);
        };
        if let Some(text) = &self.target_type {
            set("target_type", Value::from(text.as_str()));
        }
        if let Some(text) = &self.target_value {
            set("target_value", Value::from(text.as_str()));
        }
        if let Some(text) = &self.frequency {
            set("frequency", Value::from(text.as_str()));
        }
        if let Some(interval) = self.interval {
            set("interval", Value::from(interval));
        }
        if let Some(text) = &self.byweekday {
            set("byweekday", weekdays(text)?);
        }
        if let Some(text) = &self.bysetpos {
            set("bysetpos", position(text)?);
        }
        if let Some(text) = &self.count {
            set("count", nullable_id("count", text)?);
        }
        if let Some(text) = &self.start_date {
            set("start_date", when("start-date", text, false)?);
        }
        if let Some(text) = &self.until_date {
            set("until_date", when("until-date", text, true)?);
        }
        if let Some(text) = &self.title {
            set("title", Value::from(text.as_str()));
        }
        if let Some(text) = &self.invite_message {
            set("invite_message", Value::from(text.as_str()));
        }
        if let Some(text) = &self.dashboard {
            set("dashboard", nullable_id("dashboard", text)?);
        }
        if let Some(text) = &self.insight {
            set("insight", nullable_id("insight", text)?);
        }
        Ok(body)
    }
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
            search,
            target_type,
            dashboard,
            insight,
            ordering,
        } => {
            let filter = SubscriptionFilter {
                deleted,
                search,
                target_type,
                dashboard,
                insight,
                ordering,
                ..SubscriptionFilter::default()
            };
            let rows = fetch_all(client, &List::subscriptions(project, &filter), "subscriptions").await?;
            match format {
                Format::Json => output::print_json(&rows),
                Format::Table => output::print(&table(&rows)),
            }
        }
        SubscriptionsCommand::Get { id } => show(&client.subscription(project, id).await?, format),
        SubscriptionsCommand::Create { fields } => {
            let body = fields.body()?;
            let missing: Vec<&str> = ["target_type", "target_value", "frequency", "start_date"]
                .into_iter()
                .filter(|field| !body.contains_key(*field))
                .collect();
            if !missing.is_empty() {
                let flags: Vec<String> = missing
                    .iter()
                    .map(|field| format!("--{}", field.replace('_', "-")))
                    .collect();
                return Err(UsageError(format!("subscriptions create needs {}", flags.join(", "))).into());
            }
            show(&client.create_subscription(project, &body).await?, format)
        }
        SubscriptionsCommand::Update { id, fields } => {
            let body = fields.body()?;
            if body.is_empty() {
                return Err(
                    UsageError("nothing to change: give at least one field flag or --body".into()).into(),
                );
            }
            show(&client.update_subscription(project, id, &body).await?, format)
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

fn table(subscriptions: &[Subscription]) -> String {
    let now = crate::clock::system_now();
    let rows: Vec<Vec<String>> = subscriptions
        .iter()
        .map(|subscription| {
            vec![
                subscription.id.to_string(),
                subscription.title.clone().unwrap_or_default(),
                target(subscription),
                subscription.summary.clone().unwrap_or_default(),
                minute(subscription.next_delivery_date),
                match subscription.state(now) {
                    SubscriptionState::Active => String::new(),
                    state => state.to_string(),
                },
            ]
        })
        .collect();
    let columns = [
        fixed("ID"),
        flexible("TITLE"),
        flexible("TARGET"),
        flexible("SCHEDULE"),
        fixed("NEXT (UTC)"),
        fixed("STATE"),
    ];
    output::table(&columns, &rows, output::output_width())
}

fn show(subscription: &Subscription, format: Format) -> anyhow::Result<()> {
    if format == Format::Json {
        return output::print_json(subscription);
    }
    let text = |value: &Option<String>| value.clone().unwrap_or_else(|| "-".into());
    let number = |value: Option<i64>| value.map(|n| n.to_string()).unwrap_or_else(|| "-".into());
    let now = crate::clock::system_now();
    let upcoming = Schedule::of(subscription)
        .map(|schedule| schedule.occurrences_after(now, 5))
        .unwrap_or_default()
        .into_iter()
        .map(|at| minute(Some(at)))
        .collect::<Vec<_>>();
    let state = subscription.state(now);
    output::print(&output::record(&[
        ("id", subscription.id.to_string()),
        ("title", text(&subscription.title)),
        ("state", state.to_string()),
        ("target", target(subscription)),
        ("dashboard", number(subscription.dashboard)),
        ("insight", number(subscription.insight)),
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
            if upcoming.is_empty() {
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
    ]))
}
