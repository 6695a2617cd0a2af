//! The deliveries of one subscription, opened with Enter on it: newest
//! first, as the server keeps them (posthog.md §9). They are paged by
//! cursor, 50 at a time and without a count, so the list knows the cursor
//! of each page it has reached and is one row longer than what arrived
//! while the server says there is more: moving onto that row fetches the
//! next page, and only then. A server without deliveries (older PostHog,
//! the seed flavor) answers 404, which the list shows as "this server keeps
//! no delivery history".
//!
//! `f` shows the failed ones and the partial ones: a delivery that failed
//! as a whole, or one completed whose recipients were not all reached. The
//! server filters by status alone (a partial one is `completed`), so the
//! list is asked for whole and narrowed in the console, looked through
//! from the newest, [`FAILED_SCAN`] at most.

use std::cmp::Ordering;

use chrono::{DateTime, Utc};
use ratatui::text::{Line, Span};

use crate::api::{self, Delivery, DeliveryStatus, RecipientCounts, RecipientResult, RecipientStatus};
use crate::console::kit::cell::{contains, styled, text};
use crate::console::kit::column::{Column, Sort};
use crate::console::kit::detail::{field, heading, marked, optional};
use crate::console::kit::scope::Scope;
use crate::console::kit::theme::Theme;
use crate::console::kit::view::ViewCx;
use crate::console::screens;
use crate::console::screens::Screen;
use crate::console::screens::ScreenId;
use crate::console::screens::deliveries::words::who_and_why;
use crate::console::screens::list::Resource;
use crate::console::screens::subscriptions::words::channel;
use crate::console::table::Table;
use crate::console::table::hooks::Hooks;
use crate::console::table::listing::Listing;
use crate::console::table::pager::{ByCursor, Pager};
use crate::display::relative;

/// The most deliveries `f` looks through for the failed and partial ones.
pub const FAILED_SCAN: u64 = 1_000;

/// The subscription whose deliveries are shown.
#[derive(Debug, Clone, PartialEq)]
pub struct ChosenSubscription {
    pub id: i64,
    pub title: String,
}

#[derive(Debug, Default)]
pub struct Deliveries {
    /// `None` until a subscription's deliveries are opened.
    pub subscription: Option<ChosenSubscription>,
    /// The server answered 404: it keeps no delivery history.
    pub no_history: bool,
    /// `f`: only the failed and partial ones, narrowed in the console.
    pub failed_only: bool,
}

/// Narrow tables keep when (AGO), how it went, and what failed; then how
/// many it reached, what started it, and the exact time.
const COLUMNS: [Column; 6] = [
    Column::content("TIME (UTC)").drops(3),
    Column::content("AGO"),
    Column::content("TRIGGER").drops(2),
    Column::content("STATUS"),
    Column::content("RECIPIENTS").drops(1),
    Column::fill("ERROR", 1, 36),
];

const SORTS: [Sort; 1] = [Sort {
    label: "newest first",
    column: None,
    descending: true,
    ordering: None,
}];

/// When a delivery happened: when it was due, else when it was recorded.
fn time(delivery: &Delivery) -> Option<DateTime<Utc>> {
    delivery.scheduled_at.or(delivery.created_at)
}

/// The trigger in words.
fn trigger(delivery: &Delivery) -> String {
    match &delivery.trigger_type {
        Some(api::TriggerType::Scheduled) => "scheduled".into(),
        Some(api::TriggerType::Manual) => "manual (test)".into(),
        Some(api::TriggerType::TargetChange) => "target change".into(),
        Some(api::TriggerType::Other(other)) => other.clone(),
        None => "-".into(),
    }
}

/// The status as a word that stands out when it failed.
fn status(delivery: &Delivery) -> String {
    match &delivery.status {
        Some(DeliveryStatus::Failed) => "FAILED".into(),
        Some(status) => status.as_str().to_string(),
        None => "-".into(),
    }
}

/// "2 ok", "1 ok, 1 partial", "1 ok, 2 failed", "-" for none recorded.
fn recipients(delivery: &Delivery) -> String {
    delivery.recipient_counts().words()
}

/// A recipient as people name it: a Slack channel by its name.
fn recipient<'a>(delivery: &Delivery, recipient: &'a str) -> &'a str {
    match delivery.target_type {
        Some(api::TargetType::Slack) => channel(recipient),
        _ => recipient,
    }
}

/// Who it did not reach and why, the first of them: "accounts@…: Domain
/// hedgebox-finance.invalid does not exist (+1 more)" (failed ones before
/// those reached in part); or the delivery's own error when it failed as
/// a whole. An address's domain is left out where the error names it.
pub fn failure(delivery: &Delivery) -> Option<String> {
    let short: Vec<_> = delivery
        .recipient_results
        .iter()
        .filter(|result| result.status != Some(RecipientStatus::Success))
        .collect();
    let first = short
        .iter()
        .find(|result| result.status != Some(RecipientStatus::Partial))
        .or_else(|| short.first());
    let Some(first) = first else {
        return delivery.error_text();
    };
    let message = first
        .error
        .as_ref()
        .and_then(|error| error.message.clone())
        .filter(|message| !message.trim().is_empty())
        .or_else(|| delivery.error_text())
        .unwrap_or_else(|| match &first.status {
            Some(status) => status.as_str().to_string(),
            None => "no result".into(),
        });
    let more = match short.len() {
        0 | 1 => String::new(),
        many => format!(" (+{} more)", many - 1),
    };
    Some(format!(
        "{}{more}",
        who_and_why(recipient(delivery, &first.recipient), &message)
    ))
}

impl Listing for Deliveries {
    type Row = Delivery;
    const NOUN: &'static str = "delivery";

    fn columns(&self) -> &'static [Column] {
        &COLUMNS
    }

    fn cells(&self, delivery: &Delivery, view: &ViewCx) -> Vec<Span<'static>> {
        let theme = view.theme;
        let now = view.now;
        let style = if delivery.has_failed() {
            theme.error
        } else if delivery.recipient_counts().any_short() {
            theme.warning
        } else {
            theme.dim
        };
        vec![
            text(view.when(time(delivery))),
            text(time(delivery).map(|at| relative(at, now)).unwrap_or_default()),
            text(trigger(delivery)),
            styled(status(delivery), style),
            styled(recipients(delivery), style),
            styled(failure(delivery).unwrap_or_default(), theme.error),
        ]
    }

    fn detail(&self, delivery: &Delivery, view: &ViewCx) -> (String, Vec<Line<'static>>) {
        detail(delivery, view)
    }

    fn id(delivery: &Delivery) -> String {
        delivery.id.clone()
    }

    fn matches(delivery: &Delivery, needle: &str) -> bool {
        contains(&delivery.id, needle)
            || contains(&status(delivery), needle)
            || contains(&trigger(delivery), needle)
            || failure(delivery).is_some_and(|error| contains(&error, needle))
            || delivery
                .recipient_results
                .iter()
                .any(|result| contains(&result.recipient, needle))
    }

    fn sorts(&self) -> &'static [Sort] {
        &SORTS
    }

    fn compare(a: &Delivery, b: &Delivery, _sort: &Sort) -> Ordering {
        time(b).cmp(&time(a))
    }
}

impl Screen for Deliveries {
    const ID: ScreenId = ScreenId::Deliveries;
    const TITLE: &'static str = "Deliveries";
    const TAB: ScreenId = ScreenId::Subscriptions;
    const PARENT: Option<ScreenId> = Some(ScreenId::Subscriptions);
    const WRITE_SCOPE: &'static str = "subscription:write";
    const COMMANDS: &'static [(&'static str, &'static str)] = &[(
        "deliveries",
        "the deliveries of the subscription under the cursor",
    )];
}

impl Hooks for Deliveries {
    /// The server pages deliveries by cursor, with no count.
    type Pager = ByCursor;

    fn answered_with(&mut self, error: &api::Error) -> bool {
        self.no_history = error.keeps_no_history();
        self.no_history
    }

    /// A page came: the server keeps a history after all.
    fn loaded(&mut self, _rows: &crate::console::table::rows::Rows<Delivery>) {
        self.no_history = false;
    }

    fn narrowed(&self) -> bool {
        self.failed_only
    }

    /// Failed, or not reaching every recipient.
    fn keeps(&self, delivery: &Delivery) -> bool {
        delivery.has_failed() || delivery.recipient_counts().any_short()
    }

    fn scan_limit(&self) -> u64 {
        FAILED_SCAN
    }
}

impl Resource for Deliveries {
    type Request = screens::deliveries::Request;

    fn heading(&self) -> String {
        // The header reads "Subscriptions › #12 Weekly › deliveries".
        let name = match &self.subscription {
            Some(subscription) if subscription.title.is_empty() => format!("#{}", subscription.id),
            Some(subscription) => format!("#{} {}", subscription.id, subscription.title),
            None => Self::TITLE.into(),
        };
        if self.failed_only {
            format!("{name} · failed and partial only")
        } else {
            name
        }
    }

    fn is_open(&self) -> bool {
        self.subscription.is_some()
    }

    fn close(&mut self) {
        self.subscription = None;
    }

    fn query(&self, scope: Scope) -> Option<screens::deliveries::Request> {
        Some(screens::deliveries::Request {
            project: scope.project.to_string(),
            subscription: self.subscription.as_ref()?.id,
            // Partial ones are `completed`: no status filter finds them.
            status: None,
            after: None,
        })
    }

    fn empty(&self) -> &'static str {
        if self.no_history {
            "this server keeps no delivery history"
        } else if self.failed_only {
            "no failed or partial deliveries: f shows them all"
        } else {
            "no deliveries yet: t sends a test delivery"
        }
    }

    fn shows_relative_times(&self) -> bool {
        true
    }
}

/// Where it went: "email a@b.co, c@d.co", "Slack #ops".
fn target(delivery: &Delivery) -> String {
    let value = delivery.target_value.as_deref().unwrap_or("-");
    match &delivery.target_type {
        Some(api::TargetType::Slack) => format!("Slack {}", channel(value)),
        kind => format!("{} {value}", optional(kind.as_ref())),
    }
}

/// A delivery's detail: its status, times and target, and how each
/// recipient fared.
fn detail(delivery: &Delivery, view: &ViewCx) -> (String, Vec<Line<'static>>) {
    let theme = view.theme;
    let now = view.now;
    let counts = delivery.recipient_counts();
    let at = |value: Option<DateTime<Utc>>| match value {
        Some(at) => format!(
            "{} {} · {}",
            view.when(Some(at)),
            view.zone_label(),
            relative(at, now)
        ),
        None => "-".into(),
    };
    let mut lines = vec![
        status_line(delivery, &counts, theme),
        field("trigger", trigger(delivery), theme),
        field("scheduled", at(delivery.scheduled_at), theme),
        field("started", at(delivery.created_at), theme),
        field("finished", at(delivery.finished_at), theme),
        field("target", target(delivery), theme),
    ];
    if let Some(error) = delivery.error_text() {
        lines.push(marked("error", error, theme.error, theme));
    }
    if let Some(summary) = delivery.change_summary.as_ref().filter(|s| !s.is_empty()) {
        lines.push(field("change", summary.clone(), theme));
    }
    if let Some(prompt) = delivery.ai_report_prompt.as_ref().filter(|p| !p.is_empty()) {
        lines.push(field("prompt", prompt.clone(), theme));
    }
    lines.push(heading(&format!("recipients: {}", counts.words()), theme));
    if delivery.recipient_results.is_empty() {
        lines.push(Line::styled("   none recorded", theme.dim));
    }
    for result in &delivery.recipient_results {
        lines.push(recipient_line(delivery, result, theme));
    }
    lines.push(field("delivery id", delivery.id.clone(), theme));
    (format!("delivery {}", view.when(time(delivery))), lines)
}

/// The delivery's status, marked where it failed or reached recipients
/// only in part.
fn status_line(delivery: &Delivery, counts: &RecipientCounts, theme: &Theme) -> Line<'static> {
    let failed = counts.failed;
    match &delivery.status {
        Some(DeliveryStatus::Failed) => marked(
            "status",
            format!(
                "FAILED: {}",
                delivery
                    .error_text()
                    .unwrap_or_else(|| format!("{failed} recipient(s) failed"))
            ),
            theme.error,
            theme,
        ),
        _ if counts.any_short() => marked(
            "status",
            format!(
                "{}: {} of {} recipients not fully reached ({})",
                status(delivery),
                counts.partial + counts.failed,
                counts.total(),
                counts.words()
            ),
            theme.warning,
            theme,
        ),
        _ => field("status", status(delivery), theme),
    }
}

/// How one recipient fared: delivered, in part (and why), or not (and why).
fn recipient_line(delivery: &Delivery, result: &RecipientResult, theme: &Theme) -> Line<'static> {
    let recipient = crate::text::printable(recipient(delivery, &result.recipient)).into_owned();
    match &result.status {
        Some(RecipientStatus::Success) => Line::raw(format!("   ✓ {recipient}  delivered")),
        // Reached, but not with all that was sent.
        Some(RecipientStatus::Partial) => {
            let message = result
                .error
                .as_ref()
                .and_then(|error| error.message.clone())
                .map(|message| format!(": {message}"))
                .unwrap_or_default();
            Line::styled(
                crate::text::printable(&format!("   ~ {recipient}  partial{message}")).into_owned(),
                theme.warning,
            )
        }
        other => {
            let word = other.as_ref().map_or("no result", |status| status.as_str());
            let error = result.error.as_ref();
            let message = error
                .and_then(|error| error.message.clone())
                .unwrap_or_else(|| "no error recorded".into());
            let kind = error
                .and_then(|error| error.kind.clone())
                .map(|kind| format!(" ({kind})"))
                .unwrap_or_default();
            Line::styled(
                crate::text::printable(&format!("   ✗ {recipient}  {word}: {message}{kind}")).into_owned(),
                theme.error,
            )
        }
    }
}

impl Table<Deliveries> {
    /// Opens a subscription's deliveries, from the newest, fetched afresh
    /// each time (new ones may have landed since).
    pub fn open(&mut self, subscription: ChosenSubscription) {
        self.resource.subscription = Some(subscription);
        self.resource.failed_only = false;
        self.pager.restart();
        self.filter.clear();
        self.rows.clear();
    }

    /// `f`: only the failed and partial deliveries, or all again, from
    /// the newest.
    pub fn toggle_failed(&mut self) {
        self.resource.failed_only = !self.resource.failed_only;
        // The rows come again: the view of the old ones goes with them.
        self.rows.view = None;
    }

    /// The subscription shown, if any.
    pub fn subscription(&self) -> Option<i64> {
        self.resource.subscription.as_ref().map(|chosen| chosen.id)
    }

    /// The newest delivery loaded.
    pub fn newest(&self) -> Option<&Delivery> {
        self.rows.list.get(0)
    }

    /// The id of the newest delivery of this subscription on hand, if its
    /// deliveries are the ones held: a delivery waited for is a newer one.
    pub fn newest_of(&self, subscription: i64) -> Option<String> {
        (self.subscription() == Some(subscription))
            .then(|| self.newest().map(|delivery| delivery.id.clone()))
            .flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Page;
    use crate::console::table::pager::Asks;

    fn page(rows: usize, next: Option<&str>) -> Page<Delivery> {
        Page {
            count: 0,
            next: next.map(str::to_string),
            previous: None,
            results: vec![Delivery::default(); rows],
        }
    }

    fn result(recipient: &str, status: &str, message: Option<&str>) -> api::RecipientResult {
        api::RecipientResult {
            recipient: recipient.into(),
            status: Some(RecipientStatus::from_wire(status)),
            error: message.map(|message| api::DeliveryError {
                message: Some(message.into()),
                kind: Some("SMTPRecipientsRefused".into()),
            }),
        }
    }

    #[test]
    fn the_error_names_who_was_not_reached_and_why() {
        let partial = Delivery {
            status: Some(DeliveryStatus::Completed),
            error: Some(serde_json::json!({"message": "1 of 3 recipients failed"})),
            recipient_results: vec![
                result("fatima@hedgebox.dev", "success", None),
                result(
                    "accounts@hedgebox-finance.invalid",
                    "failed",
                    Some("Domain hedgebox-finance.invalid does not exist"),
                ),
                result("tomas@hedgebox.dev", "success", None),
            ],
            ..Delivery::default()
        };
        assert_eq!(
            failure(&partial).as_deref(),
            Some("accounts@…: Domain hedgebox-finance.invalid does not exist")
        );
        let two = Delivery {
            recipient_results: vec![
                result("ops@hedgebox.dev", "partial", Some("1 of 2 charts missing")),
                result("finance@hedgebox.dev", "failed", Some("550 mailbox unavailable")),
                result("cfo@hedgebox.dev", "failed", None),
            ],
            error: Some(serde_json::json!({"message": "2 of 3 recipients failed"})),
            ..Delivery::default()
        };
        // The failed before the partial; the domain kept where the error
        // does not name it; a failure without a message takes the delivery's.
        assert_eq!(
            failure(&two).as_deref(),
            Some("finance@hedgebox.dev: 550 mailbox unavailable (+2 more)")
        );
        let whole = Delivery {
            status: Some(DeliveryStatus::Failed),
            error: Some(serde_json::json!({"message": "export timed out"})),
            ..Delivery::default()
        };
        assert_eq!(failure(&whole).as_deref(), Some("export timed out"));
        let slack = Delivery {
            target_type: Some(api::TargetType::Slack),
            recipient_results: vec![result("C0001000|#metrics", "failed", Some("Slack revoked"))],
            ..Delivery::default()
        };
        assert_eq!(failure(&slack).as_deref(), Some("#metrics: Slack revoked"));
        assert_eq!(failure(&Delivery::default()), None);
    }

    #[test]
    fn the_list_grows_a_page_at_a_time_and_knows_each_cursor() {
        let deliveries = Deliveries {
            subscription: Some(ChosenSubscription {
                id: 7,
                title: String::new(),
            }),
            ..Deliveries::default()
        };
        let scope = Scope {
            organization: "o",
            project: "1",
        };
        let mut pager = ByCursor::default();
        let first = deliveries.query(scope).unwrap();
        assert_eq!(first.after, None);
        assert_eq!(Pager::counted(&mut pager, 0, &page(100, Some("/next-1"))), 101);
        assert!(
            matches!(pager.request_at(first.clone(), 100), Some(screens::deliveries::Request { subscription: 7, after: Some(link), .. }) if link == "/next-1")
        );
        assert_eq!(pager.request_at(first, 200), None, "no cursor yet");
    }
}
