//! The deliveries of one subscription, opened with `:deliveries` on the
//! subscription under the cursor. A stub the next issue fills in: it shows
//! the newest page the server keeps (deliveries are paged by cursor, not
//! by offset, so the list is as long as that page), read-only.

use std::cmp::Ordering;

use chrono::{DateTime, Utc};
use ratatui::layout::Constraint;
use ratatui::text::{Line, Span};

use super::{Column, ListId, Query, Resource, Scope, Sort, Table, contains, styled, text};
use crate::api::Delivery;
use crate::console::app::Confirm;
use crate::console::view::detail::{field, optional};
use crate::console::view::format::when;
use crate::console::view::theme::Theme;

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
}

const COLUMNS: [Column; 5] = [
    Column::new("SCHEDULED (UTC)", Constraint::Length(16), 0),
    Column::new("STATUS", Constraint::Length(10), 0),
    Column::new("TRIGGER", Constraint::Length(10), 70),
    Column::new("RECIPIENTS", Constraint::Length(12), 50),
    Column::new("ERROR", Constraint::Fill(1), 90),
];

const SORTS: [Sort; 1] = [Sort {
    label: "newest first",
    column: None,
    descending: true,
    ordering: None,
}];

impl Resource for Deliveries {
    type Row = Delivery;
    const ID: ListId = ListId::Deliveries;
    const TITLE: &'static str = "Deliveries";
    const NOUN: &'static str = "delivery";
    const TAB: ListId = ListId::Subscriptions;
    const PARENT: Option<ListId> = Some(ListId::Subscriptions);
    const WRITE_SCOPE: &'static str = "subscription:write";

    fn heading(&self) -> String {
        match &self.subscription {
            Some(subscription) => format!("#{} {}", subscription.id, subscription.title),
            None => Self::TITLE.into(),
        }
    }

    fn is_open(&self) -> bool {
        self.subscription.is_some()
    }

    fn close(&mut self) {
        self.subscription = None;
    }

    fn query(&self, scope: Scope) -> Option<Query> {
        Some(Query::Deliveries {
            project: scope.project.to_string(),
            subscription: self.subscription.as_ref()?.id,
        })
    }

    fn empty(&self) -> &'static str {
        "no deliveries kept for this subscription"
    }

    fn columns(&self) -> &'static [Column] {
        &COLUMNS
    }

    fn cells(&self, delivery: &Delivery, _now: DateTime<Utc>, theme: &Theme) -> Vec<Span<'static>> {
        let (delivered, failed) = delivery.recipients_delivered_and_failed();
        let status = delivery
            .status
            .as_ref()
            .map(|status| status.as_str().to_string())
            .unwrap_or_else(|| "-".into());
        let style = if delivery.has_failed() {
            theme.error
        } else {
            theme.dim
        };
        vec![
            text(when(delivery.scheduled_at.or(delivery.created_at))),
            styled(status, style),
            text(optional(
                delivery.trigger_type.as_ref().map(|t| t.as_str().to_string()),
            )),
            text(format!("{delivered} ok, {failed} failed")),
            text(delivery.error_text().unwrap_or_default()),
        ]
    }

    fn detail(
        &self,
        delivery: &Delivery,
        _now: DateTime<Utc>,
        theme: &Theme,
    ) -> (String, Vec<Line<'static>>) {
        let lines = vec![
            field("id", delivery.id.clone(), theme),
            field("scheduled", when(delivery.scheduled_at), theme),
            field("finished", when(delivery.finished_at), theme),
            field(
                "status",
                optional(delivery.status.as_ref().map(|s| s.as_str().to_string())),
                theme,
            ),
            field(
                "error",
                delivery.error_text().unwrap_or_else(|| "-".into()),
                theme,
            ),
        ];
        (format!("delivery {}", delivery.id), lines)
    }

    fn id(delivery: &Delivery) -> String {
        delivery.id.clone()
    }

    fn matches(delivery: &Delivery, needle: &str) -> bool {
        contains(&delivery.id, needle)
            || delivery
                .error_text()
                .is_some_and(|error| contains(&error, needle))
    }

    fn sorts(&self) -> &'static [Sort] {
        &SORTS
    }

    fn compare(a: &Delivery, b: &Delivery, _sort: &Sort) -> Ordering {
        b.scheduled_at.cmp(&a.scheduled_at)
    }

    /// Deliveries are history: nothing to delete.
    fn confirm_delete(&self, _delivery: &Delivery, _scope: Scope) -> Option<Confirm> {
        None
    }
}

impl Table<Deliveries> {
    /// Opens another subscription's deliveries.
    pub fn open(&mut self, subscription: ChosenSubscription) {
        if self.resource.subscription.as_ref() == Some(&subscription) {
            return;
        }
        self.resource.subscription = Some(subscription);
        self.filter.clear();
        self.rows.clear();
    }
}
