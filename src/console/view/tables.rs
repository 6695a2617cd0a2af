//! The three tables. Each draws only the rows in its window; rows not yet
//! loaded show as placeholders until their page arrives.

use crate::api::SubscriptionState;
use crate::text::printable;
use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Cell, Paragraph, Row, Table, TableState};

use super::format::{access_level, level, next_delivery, relative, when};
use super::theme::Theme;
use crate::console::app::App;
use crate::console::rows::{Rows, Tabular};

/// A column: its header, its width, and how wide the table must be for it
/// to show (narrow screens keep the columns that matter most).
struct Column {
    header: &'static str,
    width: Constraint,
    /// Shown on tables at least this wide and narrower than `shown_below`.
    shown_from: u16,
    shown_below: u16,
}

const fn column(header: &'static str, width: Constraint, shown_from: u16) -> Column {
    Column {
        header,
        width,
        shown_from,
        shown_below: u16::MAX,
    }
}

/// A column only for tables narrower than `below`: the compact form of one
/// that wider tables show in full.
const fn narrow_column(header: &'static str, width: Constraint, below: u16) -> Column {
    Column {
        header,
        width,
        shown_from: 0,
        shown_below: below,
    }
}

/// What a table shows besides its rows.
struct Spec<'a> {
    title: Line<'a>,
    columns: &'a [Column],
    /// Said when the list is empty.
    empty: &'a str,
}

/// Draws the rows in the window of `rows` with `cells` for each loaded row.
fn draw<T: Tabular>(
    frame: &mut Frame,
    area: Rect,
    spec: Spec,
    rows: &Rows<T>,
    theme: &Theme,
    cells: impl Fn(&T) -> Vec<Cell<'static>>,
) {
    let Spec {
        title,
        columns,
        empty,
    } = spec;
    let block = Block::bordered().border_type(BorderType::Rounded).title(title);
    let height = area.height.saturating_sub(3) as u64;
    if rows.is_empty() {
        let text = match rows.list.count() {
            None if rows.list.has_failed() => "could not load: r tries again",
            None => "loading…",
            Some(_) if rows.list.loaded().next().is_some() => "nothing here matches the filter: / changes it",
            Some(_) => empty,
        };
        frame.render_widget(
            Paragraph::new(Line::styled(format!(" {text}"), theme.dim)).block(block),
            area,
        );
        return;
    }
    let shown: Vec<bool> = columns
        .iter()
        .map(|column| (column.shown_from..column.shown_below).contains(&area.width))
        .collect();
    let keep = |cells: Vec<Cell<'static>>| -> Vec<Cell<'static>> {
        cells
            .into_iter()
            .zip(&shown)
            .filter(|(_, shown)| **shown)
            .map(|(cell, _)| cell)
            .collect()
    };
    let window = rows.top..(rows.top + height).min(rows.len());
    let table_rows: Vec<Row> = window
        .clone()
        .map(|shown| match rows.row(shown) {
            Some(row) => Row::new(keep(cells(row))),
            None => Row::new(vec![Cell::from("…")]).style(theme.dim),
        })
        .collect();
    let visible = || {
        columns
            .iter()
            .zip(&shown)
            .filter(|(_, shown)| **shown)
            .map(|(column, _)| column)
    };
    let widths: Vec<Constraint> = visible().map(|column| column.width).collect();
    let header = Row::new(visible().map(|column| Cell::from(column.header))).style(theme.header);
    let table = Table::new(table_rows, widths)
        .header(header)
        .block(block)
        .column_spacing(1)
        .row_highlight_style(theme.selected);
    let mut state =
        TableState::default().with_selected(Some((rows.cursor.saturating_sub(window.start)) as usize));
    frame.render_stateful_widget(table, area, &mut state);
}

fn title<'a>(name: &'a str, rows_shown: u64, total: Option<u64>, cursor: u64, theme: &Theme) -> Line<'a> {
    let filtered = match total {
        Some(total) if total != rows_shown => format!(" of {total}"),
        _ => String::new(),
    };
    let position = match (rows_shown, filtered.is_empty()) {
        (0, true) => String::new(),
        (0, false) => " 0".to_string(),
        _ => format!(" {}/{}", cursor + 1, rows_shown),
    };
    Line::from(vec![
        Span::styled(format!(" {name}"), theme.accent),
        Span::raw(format!("{position}{filtered} ")),
    ])
}

/// A cell of text that may come from a server: shown, never sent raw.
fn text(value: impl Into<String>) -> Cell<'static> {
    Cell::from(safe(value.into()))
}

fn styled(value: impl Into<String>, style: Style) -> Cell<'static> {
    Cell::from(Span::styled(safe(value.into()), style))
}

fn safe(value: String) -> String {
    match printable(&value) {
        std::borrow::Cow::Borrowed(_) => value,
        std::borrow::Cow::Owned(shown) => shown,
    }
}

pub fn roles(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let columns = [
        column("NAME", Constraint::Fill(3), 0),
        column("ACCESS", Constraint::Length(10), 0),
        column("MEMBERS", Constraint::Length(7), 50),
        column("CREATED BY", Constraint::Fill(2), 90),
        column("CREATED", Constraint::Length(16), 70),
    ];
    let rows = &app.roles;
    let heading = if app.role.is_none() && app.tab == crate::console::app::Tab::Members {
        "Choose a role"
    } else {
        "Roles"
    };
    let line = title(heading, rows.len(), rows.list.count(), rows.cursor, theme);
    let spec = Spec {
        title: line,
        columns: &columns,
        empty: "no roles yet",
    };
    draw(frame, area, spec, rows, theme, |role| {
        let members = role
            .members
            .as_ref()
            .and_then(|m| m.len())
            .map(|n| n.to_string())
            .unwrap_or_else(|| "-".into());
        vec![
            text(role.name.clone()),
            text(
                role.feature_flags_access_level
                    .map(access_level::name)
                    .unwrap_or("-"),
            ),
            text(members),
            text(
                role.created_by
                    .as_ref()
                    .map(|user| user.display_name())
                    .unwrap_or_default(),
            ),
            text(when(role.created_at)),
        ]
    });
}

pub fn members(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let columns = [
        column("NAME", Constraint::Fill(2), 0),
        column("EMAIL", Constraint::Fill(3), 60),
        column("LEVEL", Constraint::Length(7), 0),
        column("JOINED", Constraint::Length(16), 80),
        column("UPDATED", Constraint::Length(16), 110),
    ];
    let rows = &app.members;
    let name = app
        .role
        .as_ref()
        .map(|role| role.name.as_str())
        .unwrap_or("Members");
    let line = title(name, rows.len(), rows.list.count(), rows.cursor, theme);
    let spec = Spec {
        title: line,
        columns: &columns,
        empty: "nobody holds this role yet",
    };
    draw(frame, area, spec, rows, theme, |membership| {
        let user = membership.user.clone().unwrap_or_default();
        let member_level = membership.organization_member.as_ref().map(|member| member.level);
        vec![
            text(user.display_name()),
            text(user.email),
            text(member_level.map(level::name).unwrap_or("-")),
            text(when(membership.joined_at)),
            text(when(membership.updated_at)),
        ]
    });
}

pub fn subscriptions(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let columns = [
        column("ID", Constraint::Length(7), 0),
        column("TITLE", Constraint::Fill(3), 0),
        column("TARGET", Constraint::Fill(3), 70),
        column("SCHEDULE", Constraint::Fill(3), 100),
        column("NEXT DELIVERY (UTC)", Constraint::Length(30), 90),
        narrow_column("NEXT", Constraint::Length(11), 90),
        column("CREATED BY", Constraint::Fill(2), 130),
        column("STATE", Constraint::Length(7), 50),
    ];
    let rows = &app.subscriptions;
    let heading = if app.subscription_filter.deleted {
        "Deleted subscriptions"
    } else {
        "Subscriptions"
    };
    let line = title(heading, rows.len(), rows.list.count(), rows.cursor, theme);
    let now = app.now;
    let searched = app.subscription_filter.search.is_some();
    let spec = Spec {
        title: line,
        columns: &columns,
        empty: match (searched, app.subscription_filter.deleted) {
            (true, _) => "no subscription matches the search: / changes it",
            (false, true) => "no deleted subscriptions here: D shows the others",
            (false, false) => "no subscriptions here",
        },
    };
    draw(frame, area, spec, rows, theme, |subscription| {
        let state = subscription.state(now);
        let state_style = match state {
            SubscriptionState::Overdue => theme.error,
            SubscriptionState::Deleted | SubscriptionState::Paused => theme.warning,
            _ => theme.dim,
        };
        let next_style = if state == SubscriptionState::Overdue {
            theme.error
        } else {
            Style::new()
        };
        vec![
            text(subscription.id.to_string()),
            text(subscription.title.clone().unwrap_or_default()),
            text(format!(
                "{} {}",
                subscription
                    .target_type
                    .as_ref()
                    .map(|t| t.as_str())
                    .unwrap_or("?"),
                subscription.target_value.clone().unwrap_or_default()
            )),
            text(subscription.summary.clone().unwrap_or_default()),
            styled(next_delivery(subscription.next_delivery_date, now), next_style),
            styled(
                subscription
                    .next_delivery_date
                    .map(|at| relative(at, now))
                    .unwrap_or_else(|| "-".into()),
                next_style,
            ),
            text(
                subscription
                    .created_by
                    .as_ref()
                    .map(|user| user.display_name())
                    .unwrap_or_default(),
            ),
            styled(
                match state {
                    SubscriptionState::Active => "",
                    state => state.as_str(),
                },
                state_style,
            ),
        ]
    });
}
