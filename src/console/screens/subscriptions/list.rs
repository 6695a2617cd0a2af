//! The project's subscriptions: too many to load whole, so the server
//! searches and orders them; each shows its schedule and next delivery
//! (relative and in UTC), overdue or ended. Soft delete and restore, and
//! the form in `fields.rs` (with its choices in `choices.rs`), beside it.

#[path = "held.rs"]
mod held;

// Its words and bulk actions are its screen's, beside it.
pub use crate::console::screens::subscriptions::bulk;
pub use crate::console::screens::subscriptions::words::{self, label};

use std::cmp::Ordering;

use chrono::{DateTime, Utc};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::api::{Subscription, SubscriptionFilter, SubscriptionState};
use crate::console::kit::cell::{contains, styled, text};
use crate::console::kit::column::{Column, Sort};
use crate::console::kit::detail::{field, heading, marked, optional, user_lines};
use crate::console::kit::scope::Scope;
use crate::console::kit::theme::Theme;
use crate::console::kit::view::ViewCx;
use crate::console::screens;
use crate::console::screens::Screen;
use crate::console::screens::ScreenId;
use crate::console::screens::list::Resource;
use crate::console::table::Table;
use crate::console::table::hooks::Hooks;
use crate::console::table::listing::Listing;
use crate::display::relative;
use crate::schedule::Schedule;

/// Deliveries listed in a subscription's detail.
const UPCOMING: usize = 5;

/// The most rows a narrowing to one state looks through, from the top of
/// the server's order: the overdue and the ended come first in theirs, so
/// this bounds only a look for the paused or the active among very many.
/// `L` looks this many further each time it is pressed.
pub const SCAN_LIMIT: u64 = 5_000;

#[derive(Debug, Default)]
pub struct Subscriptions {
    /// What the server is asked for: deleted or not, the search, the
    /// order, the target type and what they deliver.
    pub filter: SubscriptionFilter,
    /// The one state shown (`f`, `o`, `:state`): the API has no filter by
    /// state, so the rows are narrowed as they arrive.
    pub state: Option<SubscriptionState>,
    /// How many times the look was asked to go [`SCAN_LIMIT`] further
    /// (`L`); a new narrowing starts again at none.
    pub looked_further: u64,
    /// The moment "overdue" is judged at (the app keeps it current).
    pub as_of: DateTime<Utc>,
    /// The user's own sort, kept while a state that needs an order of its
    /// own (overdue, ended) is shown, and given back after.
    pub sort_before_state: Option<usize>,
    /// The project's Slack integrations, to name a target's workspace and
    /// the integration it posts through.
    pub integrations: words::Integrations,
    /// What the latest list a health look read (whole) said of each state:
    /// how many are in each, and the rows of every state but active.
    pub known: Option<std::sync::Arc<crate::health::list::States>>,
    /// The rows shown are `known`'s rows of the state narrowed to, held
    /// whole (not fetched by page): one press answers, and says as of when.
    pub held: bool,
    /// What the open subscription form asked the server for (the
    /// catalogue, a dashboard's tiles, an integration's channels), each
    /// with the ticket whose answer alone is taken.
    pub asked: crate::console::screens::subscriptions::asked::Asked,
    /// The soft delete `u` can undo now, and its timer.
    pub undo: crate::console::screens::subscriptions::undo::Undo,
    /// The delivery a test or a resume started, looked for until it
    /// lands, and the subscription read again after it.
    pub watch: crate::console::screens::subscriptions::watch::Watch,
    /// A subscription read before a key acts on it (`p`, `e`, `u` where
    /// this list has not loaded it, `:sub ID`), and the last one read.
    pub read: crate::console::screens::subscriptions::read::ReadFirst,
}

impl Subscriptions {
    /// The state `f` narrows to next: overdue, paused, ended, active,
    /// unsupported, then every state again.
    pub fn next_state(&self) -> Option<SubscriptionState> {
        use SubscriptionState::*;
        match self.state {
            None | Some(Deleted) => Some(Overdue),
            Some(Overdue) => Some(Paused),
            Some(Paused) => Some(Ended),
            Some(Ended) => Some(Active),
            Some(Active) => Some(Unsupported),
            Some(Unsupported) => None,
        }
    }

    /// The filters in force, in words: "overdue · slack · dashboards".
    pub fn filters(&self) -> Vec<String> {
        let mut words = Vec::new();
        if let Some(state) = self.state.filter(|state| *state != SubscriptionState::Deleted) {
            words.push(state.as_str().to_string());
        }
        if let Some(target) = &self.filter.target_type {
            words.push(format!("to {target}"));
        }
        if let Some(delivers) = &self.filter.resource_type {
            let what = match delivers.as_str() {
                "ai_prompt" => "AI reports",
                "dashboard" => "dashboards",
                "insight" => "insights",
                other => other,
            };
            words.push(what.to_string());
        }
        words
    }
}

/// Narrow tables keep the id, the title and the state; then the next
/// delivery (relative, standing in for the wide one), the target, the
/// schedule, the next delivery in full, and who created it.
const COLUMNS: [Column; 8] = [
    Column::content("ID"),
    Column::fill("TITLE", 3, 22),
    Column::fill("TARGET", 2, 20).drops(3),
    Column::fill("SCHEDULE", 2, 24).drops(4),
    Column::content("NEXT DELIVERY (UTC)").drops(5),
    Column::content("NEXT").drops(2).instead_of("NEXT DELIVERY (UTC)"),
    Column::fill("CREATED BY", 1, 12).drops(6),
    Column::content("STATE").drops(1),
];

/// The server's orderings `s` cycles through; the first is its default.
const SORTS: [Sort; 5] = [
    Sort {
        label: "newest first",
        column: None,
        descending: true,
        ordering: Some("-created_at"),
    },
    Sort {
        label: "next delivery first",
        column: Some("NEXT"),
        descending: false,
        ordering: Some("next_delivery_date"),
    },
    Sort {
        label: "next delivery last",
        column: Some("NEXT"),
        descending: true,
        ordering: Some("-next_delivery_date"),
    },
    Sort {
        label: "title A-Z",
        column: Some("TITLE"),
        descending: false,
        ordering: Some("title"),
    },
    Sort {
        label: "title Z-A",
        column: Some("TITLE"),
        descending: true,
        ordering: Some("-title"),
    },
];

impl Listing for Subscriptions {
    type Row = Subscription;
    const NOUN: &'static str = "subscription";

    fn columns(&self) -> &'static [Column] {
        &COLUMNS
    }

    fn cells(&self, subscription: &Subscription, view: &ViewCx) -> Vec<Span<'static>> {
        let theme = view.theme;
        let now = view.now;
        let state = subscription.state(now);
        let state_style = match state {
            SubscriptionState::Overdue => theme.error,
            SubscriptionState::Deleted | SubscriptionState::Paused | SubscriptionState::Unsupported => {
                theme.warning
            }
            _ => theme.dim,
        };
        // A subscription without a title is called by what it delivers,
        // dimmed: it is not a title anyone gave it.
        let title = match words::title(subscription) {
            Some(title) => text(title),
            None => styled(words::untitled(subscription), theme.dim),
        };
        let target_style = if words::through_broken(subscription, &self.integrations) {
            theme.warning
        } else {
            Style::new()
        };
        // Nothing to come is said dimmed; overdue stands out.
        let next_style = match state {
            SubscriptionState::Overdue => theme.error,
            SubscriptionState::Active => Style::new(),
            _ => theme.dim,
        };
        vec![
            text(subscription.id.to_string()),
            title,
            styled(words::target_cell(subscription, &self.integrations), target_style),
            text(schedule_cell(subscription)),
            styled(words::next_long(subscription, now, view.zone), next_style),
            styled(words::next_short(subscription, now), next_style),
            text(
                subscription
                    .created_by
                    .as_ref()
                    .map(|user| user.display_name())
                    .unwrap_or_default(),
            ),
            styled(state.as_str(), state_style),
        ]
    }

    fn detail(&self, subscription: &Subscription, view: &ViewCx) -> (String, Vec<Line<'static>>) {
        detail(subscription, &self.integrations, view)
    }

    fn id(subscription: &Subscription) -> String {
        subscription.id.to_string()
    }

    fn matches(subscription: &Subscription, needle: &str) -> bool {
        let text = |value: &Option<String>| value.as_deref().is_some_and(|text| contains(text, needle));
        text(&subscription.title)
            || text(&subscription.target_value)
            || text(&subscription.summary)
            || subscription.id.to_string() == needle.strip_prefix('#').unwrap_or(needle)
    }

    fn sorts(&self) -> &'static [Sort] {
        &SORTS
    }

    /// The server orders subscriptions; locally only by id.
    fn compare(a: &Subscription, b: &Subscription, _sort: &Sort) -> Ordering {
        b.id.cmp(&a.id)
    }
}

impl Screen for Subscriptions {
    const ID: ScreenId = ScreenId::Subscriptions;
    const TITLE: &'static str = "Subscriptions";
    const TAB: ScreenId = ScreenId::Subscriptions;
    const WRITE_SCOPE: &'static str = "subscription:write";
    const COMMANDS: &'static [(&'static str, &'static str)] = &[
        ("subs", "show the subscriptions"),
        ("subscriptions", "show the subscriptions"),
    ];
}

impl Hooks for Subscriptions {
    type Pager = crate::console::table::pager::ByOffset;
    const MARKS: bool = true;

    fn search_on_server(&mut self, text: &str) -> bool {
        // Held rows are filtered here, as they are typed.
        if self.held {
            return false;
        }
        let text = text.trim();
        if self.filter.search.as_deref().unwrap_or("") == text {
            return false;
        }
        self.filter.search = (!text.is_empty()).then(|| text.to_string());
        true
    }

    fn order_on_server(&mut self, sort: &Sort) -> bool {
        self.filter.ordering = (*sort != SORTS[0])
            .then_some(sort.ordering)
            .flatten()
            .map(str::to_string);
        true
    }

    fn searched(&self) -> Option<&str> {
        if self.held {
            return None;
        }
        Some(self.filter.search.as_deref().unwrap_or(""))
    }

    fn narrowed(&self) -> bool {
        self.state
            .is_some_and(|state| state != SubscriptionState::Deleted)
    }

    fn keeps(&self, subscription: &Subscription) -> bool {
        match self.state {
            None | Some(SubscriptionState::Deleted) => true,
            Some(state) => subscription.state(self.as_of) == state,
        }
    }

    /// In the order a state's narrowing asks for, its rows come first:
    /// the look stops at the first row past them.
    fn scan_on(&self, last: &Subscription) -> bool {
        let ordering = self.filter.ordering.as_deref();
        match self.state {
            Some(SubscriptionState::Overdue) if ordering == Some("next_delivery_date") => {
                last.next_delivery_date.is_some_and(|next| next < self.as_of)
            }
            Some(SubscriptionState::Ended) if ordering == Some("-next_delivery_date") => {
                last.next_delivery_date.is_none()
            }
            _ => true,
        }
    }

    fn scan_limit(&self) -> u64 {
        SCAN_LIMIT.saturating_mul(self.looked_further.saturating_add(1))
    }
}

impl Resource for Subscriptions {
    type Request = screens::subscriptions::Request;

    fn heading(&self) -> String {
        let name = if self.filter.deleted {
            "Deleted subscriptions"
        } else {
            Self::TITLE
        };
        std::iter::once(name.to_string())
            .chain(self.filters())
            .collect::<Vec<_>>()
            .join(" · ")
    }

    fn query(&self, scope: Scope) -> Option<screens::subscriptions::Request> {
        if self.held {
            return None;
        }
        Some(screens::subscriptions::Request {
            project: scope.project.to_string(),
            filter: self.filter.clone(),
        })
    }

    fn empty(&self) -> &'static str {
        let narrowed = self
            .state
            .is_some_and(|state| state != SubscriptionState::Deleted)
            || self.filter.target_type.is_some()
            || self.filter.resource_type.is_some();
        match (self.filter.search.is_some(), self.filter.deleted) {
            (true, _) => "no subscription matches the search: / changes it",
            (false, true) => "no deleted subscriptions here: D shows the others",
            (false, false) if narrowed => "none in this state or filter: f or :state shows every state",
            (false, false) => "no subscriptions here: n creates one",
        }
    }

    fn shows_relative_times(&self) -> bool {
        true
    }

    fn state(&self) -> Option<&'static str> {
        self.filter.deleted.then_some("showing deleted")
    }
}

/// The schedule in a cell: the server's summary without its "sent ".
fn schedule_cell(subscription: &Subscription) -> String {
    let summary = subscription.summary.as_deref().unwrap_or_default();
    summary.strip_prefix("sent ").unwrap_or(summary).to_string()
}

/// A subscription's detail: its fields, the integration it posts
/// through, who created it and its next deliveries.
fn detail(
    subscription: &Subscription,
    integrations: &words::Integrations,
    view: &ViewCx,
) -> (String, Vec<Line<'static>>) {
    let theme = view.theme;
    let now = view.now;
    let days = subscription
        .byweekday
        .as_ref()
        .map(|days| days.iter().map(|d| d.as_str()).collect::<Vec<_>>().join(","))
        .unwrap_or_else(|| "-".into());
    let mut lines = vec![
        field("id", subscription.id.to_string(), theme),
        title_line(subscription, theme),
        state_line(subscription.state(now), theme),
        field("target", words::target_detail(subscription), theme),
        field("dashboard", resource(subscription, subscription.dashboard), theme),
        field("insight", resource(subscription, subscription.insight), theme),
        field("schedule", optional(subscription.summary.clone()), theme),
        field(
            "rule",
            format!(
                "{} every {} · days {days} · position {} · count {}",
                optional(subscription.frequency.clone()),
                optional(subscription.interval),
                optional(subscription.bysetpos),
                optional(subscription.count),
            ),
            theme,
        ),
        field("starts", view.when(subscription.start_date), theme),
        field("until", view.when(subscription.until_date), theme),
        field(
            "next delivery",
            words::next_detail(subscription, now, view.zone),
            theme,
        ),
        field(
            "invite message",
            optional(subscription.invite_message.clone()),
            theme,
        ),
        field("created", view.when(subscription.created_at), theme),
        field(
            "deleted",
            if subscription.deleted {
                "yes (soft-deleted)"
            } else {
                "no"
            },
            theme,
        ),
    ];
    lines.splice(6..6, today_lines(subscription, theme));
    // The integration a Slack target posts through, by name and state,
    // under the target.
    if let Some(id) = subscription.integration_id {
        let words = words::integration(id, integrations);
        let line = if words::through_broken(subscription, integrations) {
            marked("via", words, theme.error, theme)
        } else {
            field("via", words, theme)
        };
        lines.insert(4, line);
    }
    if let Some(user) = &subscription.created_by {
        lines.push(heading("created by", theme));
        lines.extend(user_lines(user, theme));
    }
    lines.extend(upcoming_lines(subscription, view));
    (format!("#{}", subscription.id), lines)
}

/// The subscription's title, or "none" and what it delivers.
fn title_line(subscription: &Subscription, theme: &Theme) -> Line<'static> {
    match words::title(subscription) {
        Some(title) => field("title", title, theme),
        None => {
            let delivered = words::delivered(subscription)
                .map(|delivered| format!(" ({delivered})"))
                .unwrap_or_default();
            marked("title", format!("none{delivered}"), theme.dim, theme)
        }
    }
}

/// The subscription's state, marked where it asks for attention.
fn state_line(state: SubscriptionState, theme: &Theme) -> Line<'static> {
    match state {
        SubscriptionState::Overdue => marked(
            "state",
            "OVERDUE: the next delivery is past and was not sent",
            theme.error,
            theme,
        ),
        SubscriptionState::Paused => marked(
            "state",
            "PAUSED: nothing is delivered until it is resumed",
            theme.warning,
            theme,
        ),
        SubscriptionState::Unsupported => marked(
            "state",
            "UNSUPPORTED: PostHog no longer delivers to this channel; once paused it cannot be resumed",
            theme.warning,
            theme,
        ),
        other => field("state", other.as_str(), theme),
    }
}

/// Today's PostHog: an AI report's question and window, a dashboard's
/// insights, what an AI summary reads besides (the integration is named
/// in the target).
fn today_lines(subscription: &Subscription, theme: &Theme) -> Vec<Line<'static>> {
    let mut today = Vec::new();
    if let Some(prompt) = &subscription.prompt {
        today.push(field("prompt", prompt.clone(), theme));
    }
    if let Some(window) = subscription.window() {
        today.push(field("window", window.describe(), theme));
    }
    if let Some(contexts) = subscription.contexts_words() {
        today.push(field("reads", contexts, theme));
    }
    if let Some(exports) = subscription
        .dashboard_export_insights
        .as_ref()
        .filter(|exports| !exports.is_empty())
    {
        let ids: Vec<String> = exports.iter().map(i64::to_string).collect();
        today.push(field("exports", format!("insights {}", ids.join(", ")), theme));
    }
    today
}

/// The next deliveries under their heading, or why none are to come.
fn upcoming_lines(subscription: &Subscription, view: &ViewCx) -> Vec<Line<'static>> {
    let (theme, now) = (view.theme, view.now);
    let mut lines = vec![heading(&format!("next {UPCOMING} deliveries"), theme)];
    // Paused, or to a channel no longer supported: nothing is to come.
    let upcoming = Schedule::of(subscription)
        .filter(|_| subscription.delivers_on_schedule())
        .map(|schedule| schedule.occurrences_after(now, UPCOMING))
        .unwrap_or_default();
    if let Some(why) = subscription.why_no_deliveries() {
        lines.push(Line::styled(format!("   {why}"), theme.warning));
    } else if upcoming.is_empty() {
        lines.push(Line::styled("   none left in the schedule", theme.warning));
    }
    for at in upcoming {
        lines.push(Line::raw(format!(
            "   {}  {}",
            view.when(Some(at)),
            relative(at, now)
        )));
    }
    lines
}

/// A dashboard's or insight's id, with the name the server gives what the
/// subscription delivers.
fn resource(subscription: &Subscription, id: Option<i64>) -> String {
    match (id, subscription.resource_name.as_deref()) {
        (Some(id), Some(name)) if !name.is_empty() => format!("{id} ({name})"),
        (id, _) => optional(id),
    }
}
