//! What a subscription can deliver: the project's dashboards and insights,
//! listed (`orgdeck dashboards list`, `orgdeck insights list`) and found by
//! name or short id for every flag that takes one (`--dashboard`,
//! `--insight`, `--export-insight`, `--context`, and `subs list`'s).

use super::UsageError;
use super::output::{Column, Format, ListWriter, fixed, flexible};
use crate::api::{Client, FetchAll, List, NamedItem, Raw};
use crate::text::printable;

/// A dashboard or an insight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Dashboard,
    Insight,
}

impl Kind {
    fn list(self, project: &str) -> List<NamedItem> {
        match self {
            Kind::Dashboard => List::dashboards(project),
            Kind::Insight => List::insights(project),
        }
    }

    pub fn noun(self) -> &'static str {
        match self {
            Kind::Dashboard => "dashboard",
            Kind::Insight => "insight",
        }
    }

    fn plural(self) -> &'static str {
        match self {
            Kind::Dashboard => "dashboards",
            Kind::Insight => "insights",
        }
    }
}

/// The most candidates a refusal names.
const NAMED: usize = 8;

/// The most rows looked through to find a name, where a server ignores
/// the search and sends every one.
const LOOKED_THROUGH: usize = 5_000;

/// `dashboards list` and `insights list`: every one, or those the
/// server's search finds (`--search`), written as their pages arrive;
/// `-o json` writes the server's objects as they came.
pub async fn list(
    client: &Client,
    project: &str,
    kind: Kind,
    search: Option<String>,
    format: Format,
) -> anyhow::Result<()> {
    let mut list = kind.list(project);
    if let Some(search) = search
        .as_deref()
        .map(str::trim)
        .filter(|search| !search.is_empty())
    {
        list = list.with("search", search);
    }
    let columns: Vec<Column> = match kind {
        Kind::Dashboard => vec![fixed("ID"), flexible("NAME")],
        Kind::Insight => vec![fixed("ID"), fixed("SHORT ID"), flexible("NAME")],
    };
    let mut writer = ListWriter::new(format, columns)?;
    let read = client
        .for_each_page(
            &list.raw(),
            &super::list_options(kind.plural()),
            |rows: Vec<Raw<NamedItem>>| writer.rows(&rows, |item| cells(kind, item)),
        )
        .await;
    super::end_list(writer, read)
}

fn cells(kind: Kind, item: &NamedItem) -> Vec<String> {
    let mut row = vec![item.id.to_string()];
    if kind == Kind::Insight {
        row.push(item.short_id.clone().unwrap_or_default());
    }
    row.push(item.shown_name());
    row
}

/// The id a flag names: an id as it is; an insight's short id; else the
/// name (in any case) that exactly one of them has, found by the server's
/// search. A name that several have, or none, is refused, naming the
/// candidates (usage errors: exit 2).
pub async fn resolve(
    client: &Client,
    project: &str,
    kind: Kind,
    text: &str,
    flag: &str,
) -> anyhow::Result<i64> {
    let text = text.trim();
    if let Ok(id) = text.parse::<i64>() {
        return Ok(id);
    }
    if text.is_empty() {
        return Err(usage(flag, format!("give a {}'s id or name", kind.noun())));
    }
    if kind == Kind::Insight && looks_like_short_id(text) {
        let list = kind.list(project).with("short_id", text);
        let (found, _) = client
            .first_rows(&list, LOOKED_THROUGH, &FetchAll::default())
            .await?;
        // A server without the filter sends them all: the id is checked here.
        if let Some(found) = found.iter().find(|item| item.short_id.as_deref() == Some(text)) {
            return Ok(found.id);
        }
    }
    let list = kind.list(project).with("search", text);
    let (found, more) = client
        .first_rows(&list, LOOKED_THROUGH, &FetchAll::default())
        .await?;
    let wanted = text.to_lowercase();
    let named: Vec<&NamedItem> = found
        .iter()
        .filter(|item| item.names().any(|name| name.trim().to_lowercase() == wanted))
        .collect();
    match named.as_slice() {
        [one] => Ok(one.id),
        [] => {
            let similar: Vec<&NamedItem> = found
                .iter()
                .filter(|item| item.names().any(|name| name.to_lowercase().contains(&wanted)))
                .collect();
            let or_short = if kind == Kind::Insight { " or short id" } else { "" };
            let hint = if similar.is_empty() {
                format!(
                    "; `orgdeck {} list` shows them{}",
                    kind.plural(),
                    if more {
                        " (the first 5,000 were looked through)"
                    } else {
                        ""
                    }
                )
            } else {
                format!("; those whose names hold it: {}", candidates(kind, &similar))
            };
            Err(usage(
                flag,
                format!(
                    "no {} has the name{or_short} \"{}\"{hint}",
                    kind.noun(),
                    printable(text)
                ),
            ))
        }
        several => Err(usage(
            flag,
            format!(
                "{} {} are named \"{}\"; give the id of one: {}",
                several.len(),
                kind.plural(),
                printable(text),
                candidates(kind, several)
            ),
        )),
    }
}

/// `--dashboard none` clears it; anything else names one.
pub async fn resolve_nullable(
    client: &Client,
    project: &str,
    kind: Kind,
    text: &str,
    flag: &str,
) -> anyhow::Result<Option<i64>> {
    if matches!(text.trim().to_ascii_lowercase().as_str(), "none" | "null") {
        return Ok(None);
    }
    resolve(client, project, kind, text, flag).await.map(Some)
}

/// PostHog's short ids are a few letters and digits (`9e3779b1`).
fn looks_like_short_id(text: &str) -> bool {
    (4..=16).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// `1 "Company KPIs"`, `2 (abc123) "Weekly active users"`, the first few.
fn candidates(kind: Kind, items: &[&NamedItem]) -> String {
    let mut named: Vec<String> = items
        .iter()
        .take(NAMED)
        .map(|item| match (kind, &item.short_id) {
            (Kind::Insight, Some(short)) => {
                format!(
                    "{} ({}) \"{}\"",
                    item.id,
                    printable(short),
                    printable(&item.shown_name())
                )
            }
            _ => format!("{} \"{}\"", item.id, printable(&item.shown_name())),
        })
        .collect();
    if items.len() > NAMED {
        named.push(format!("and {} more", items.len() - NAMED));
    }
    named.join(", ")
}

fn usage(flag: &str, message: String) -> anyhow::Error {
    UsageError(format!("--{flag}: {message}")).into()
}
