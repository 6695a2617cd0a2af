//! Drawing the frame: from the app's state only, never touching the
//! network. The shell draws what is its own (the header and tabs, the
//! footer, the notice, the help, the detail, the mode's overlay; where
//! each goes is `layout.rs`) and lends the list shown to the table's
//! drawing (`list.rs`, `table/draw.rs`). Only the rows on screen are
//! drawn, so a frame costs the same for 100 rows and 1,000,000.

pub mod detail;
pub mod help;
pub mod layout;
mod list;

use crate::text::{is_unsafe, printable, printable_lines};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph};
use unicode_width::UnicodeWidthStr;

use super::command;
use super::{App, Mode, Origin};
use crate::console::kit::fit;
use crate::console::kit::theme::Theme;
use crate::console::kit::view::ViewCx;
use crate::console::screens::ScreenId;
use crate::console::screens::members::picker;
use crate::console::screens::subscriptions::fields;
use crate::console::widgets::{chooser, form, popup, results, switcher};

const SPINNER: [&str; 8] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧"];

/// Draws the frame of `app` in `theme`; the zone and the time the frame is
/// drawn at are the app's, passed down in one [`ViewCx`].
pub fn draw(frame: &mut Frame, app: &App, theme: &Theme) {
    let view = ViewCx {
        theme,
        zone: app.context.zone,
        now: app.window.now,
    };
    draw_screen(frame, app, &view);
    guard(frame.buffer_mut());
}

/// The last line of defence: whatever text reached the screen without
/// going through [`printable`], no control or bidi character leaves it for
/// the terminal. (Values from a server are escaped where they are drawn, so
/// this finds nothing on a screen drawn as intended.)
fn guard(buffer: &mut ratatui::buffer::Buffer) {
    for cell in buffer.content.iter_mut() {
        if cell.symbol().chars().any(is_unsafe) {
            cell.set_symbol("\u{fffd}");
        }
    }
}

fn draw_screen(frame: &mut Frame, app: &App, view: &ViewCx) {
    let theme = view.theme;
    let areas = layout::areas(frame.area());
    header(frame, areas.header, app, theme);
    if app.overlays.detail_open {
        // In place of the table and the pane: all the room there is.
        let body = Rect::new(
            0,
            areas.table.y,
            frame.area().width,
            areas.footer.y.saturating_sub(areas.table.y),
        );
        detail::draw(frame, body, app, view);
    } else {
        list::draw(frame, areas.table, app, view);
        if let Some(area) = areas.detail {
            detail::draw(frame, area, app, view);
        }
    }
    footer(frame, areas.footer, app, view);
    // An error is drawn over the table until dismissed; a success is a
    // flash in the footer.
    if let Some(notice) = app.notice.shown.as_ref().filter(|notice| notice.error) {
        let style = theme.error;
        let text = printable_lines(&notice.text).into_owned();
        // At the bottom of the table, or at its top when the cursor is down there.
        let table = app.screens.shown(app.shown());
        let cursor_row = table.cursor().saturating_sub(table.top());
        let rows = u64::from(areas.table.height.saturating_sub(3));
        let at_top = cursor_row + 5 >= rows;
        // As many lines as the text needs (up to half the table): a refusal's
        // advice is at its end, and must not be cut off.
        let inner = usize::from(areas.table.width.saturating_sub(2)).max(1);
        let wrapped: Vec<Line> = text
            .lines()
            .flat_map(|line| popup::wrap(line, inner))
            .map(Line::raw)
            .collect();
        let lines = u16::try_from(wrapped.len())
            .unwrap_or(u16::MAX)
            .min((areas.table.height / 2).max(2));
        let paragraph = Paragraph::new(wrapped).style(style);
        overlay(frame, areas.table, paragraph, style, at_top, lines);
    }
    match &app.mode {
        Mode::Help => help::draw(frame, app, theme),
        Mode::Command(input) => {
            let roles = app.role_names();
            let known = command::Known { roles: &roles };
            command::draw_completions(frame, areas.table, input.value(), known, theme)
        }
        Mode::Form(form, purpose) => {
            let preview = if purpose.is_subscription() {
                fields::preview(form, app.window.now, theme)
            } else {
                Vec::new()
            };
            form::draw(frame, form, preview, theme)
        }
        Mode::Confirm(confirm) => popup::confirm(frame, &confirm.question, confirm.highlighted, theme),
        Mode::Results => {
            if let Some(report) = &app.bulk.report {
                results::draw(frame, report, theme)
            }
        }
        Mode::Picker(shown) => picker::draw(frame, shown, theme),
        Mode::Switcher(shown) => switcher::draw(frame, shown, theme),
        Mode::Chooser(shown, _) => chooser::draw(frame, shown, theme),
        _ => {}
    }
}

fn count(rows: Option<u64>) -> String {
    rows.map(|count| format!(" ({count})")).unwrap_or_default()
}

fn header(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let context = &app.context;
    let mut title = vec![Span::styled(" orgdeck ", theme.accent)];
    if context.demo {
        title.push(Span::styled(" DEMO ", theme.demo));
        title.push(Span::raw(" "));
    }
    if context.read_only {
        title.push(Span::styled("READ-ONLY  ", theme.warning));
    }
    if context.production {
        title.push(Span::styled(" PRODUCTION ", theme.production));
        title.push(Span::raw(" "));
    }
    // What the screen is about comes first; on a narrow screen the host is
    // what gets cut.
    match (&context.profile, context.origin) {
        _ if context.demo => {}
        (Some(profile), origin) => {
            title.push(Span::styled("profile ", theme.dim));
            title.push(Span::raw(profile.clone()));
            if origin == Origin::Adjusted {
                title.push(Span::styled(" + flags/env", theme.dim));
            }
            title.push(Span::raw("  "));
        }
        (None, Origin::PosthogCli) => title.push(Span::styled("PostHog CLI credentials  ", theme.dim)),
        (None, _) => title.push(Span::styled("no profile  ", theme.dim)),
    }
    let organization = printable(
        context
            .organization_name
            .as_deref()
            .unwrap_or(&context.organization),
    )
    .into_owned();
    let project = printable(context.project_name.as_deref().unwrap_or(&context.project)).into_owned();
    title.push(Span::styled("org ", theme.dim));
    title.push(Span::raw(organization));
    title.push(Span::styled("  project ", theme.dim));
    title.push(Span::raw(project));
    title.push(Span::styled("  · ", theme.dim));
    title.push(Span::raw(context.host.clone()));

    // What does not fit is cut with an ellipsis: a host without its port
    // must not read as another host.
    let width = usize::from(area.width);
    let lines = vec![
        fit::fit_line(Line::from(title), width),
        tab_line(app, theme, width),
    ];
    // The profile's colour across the title bar (none under NO_COLOR).
    if let Some(color) = context.color.filter(|_| theme.tints) {
        let bar = Rect::new(area.x, area.y, area.width, area.height.min(1));
        frame.render_widget(Block::new().style(ratatui::style::Style::new().bg(color)), bar);
    }
    frame.render_widget(Paragraph::new(lines), area);
}

/// The tabs, what is marked, and where a list opened from another is. The
/// breadcrumb keeps its last part: where room is short the tabs not chosen
/// lose their counts, then their names, and the crumb's earlier parts are
/// cut first.
fn tab_line(app: &App, theme: &Theme, width: usize) -> Line<'static> {
    let (tagged, crumb) = tab_layout(app, theme, width);
    let mut spans: Vec<Span<'static>> = tagged.into_iter().map(|(span, _)| span).collect();
    if let Some(parts) = crumb {
        let used: usize = spans.iter().map(Span::width).sum();
        let room = width.saturating_sub(used + 1);
        spans.push(Span::styled(
            format!(" {}", fit::fit_parts(&parts, " › ", room)),
            theme.accent,
        ));
    }
    fit::fit_line(Line::from(spans), width)
}

/// The tabs line's spans as they fit `width` (each with the tab a click on
/// it chooses), and the breadcrumb's parts.
#[allow(clippy::type_complexity)]
fn tab_layout(
    app: &App,
    theme: &Theme,
    width: usize,
) -> (Vec<(Span<'static>, Option<ScreenId>)>, Option<Vec<String>>) {
    let shown = app.screens.shown(app.shown());
    // Where a list opened from another is: its parent, the row, the list.
    let crumb: Option<Vec<String>> = match shown.parent() {
        Some(parent) if shown.is_open() => Some(vec![
            app.screens.shown(parent).title().to_string(),
            printable(&shown.heading()).into_owned(),
            shown.title().to_lowercase(),
        ]),
        _ if app.navigation.tab != app.shown() => Some(vec![format!("choose a {} (Enter)", shown.noun())]),
        _ => None,
    };
    let crumb_width = crumb.as_ref().map_or(0, |parts| {
        1 + parts.iter().map(|part| part.width()).sum::<usize>() + 3 * parts.len().saturating_sub(1)
    });
    let mut spans = Vec::new();
    for compact in [Compact::None, Compact::Counts, Compact::Names] {
        spans = tabs(app, theme, compact);
        let used: usize = spans.iter().map(|(span, _)| span.width()).sum();
        if used + crumb_width <= width {
            break;
        }
    }
    (spans, crumb)
}

/// The tab drawn at this column of the tabs line, if any: what a click
/// there chooses.
pub fn tab_at(app: &App, column: u16) -> Option<ScreenId> {
    let (spans, _) = tab_layout(app, &Theme::plain(), usize::from(app.window.size.0));
    let mut start = 0usize;
    for (span, tab) in spans {
        let end = start + span.width();
        if (start..end).contains(&usize::from(column)) {
            return tab;
        }
        start = end;
    }
    None
}

/// How much the tabs not chosen give up for the breadcrumb.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Compact {
    None,
    /// No row counts.
    Counts,
    /// Their keys alone.
    Names,
}

fn tabs(app: &App, theme: &Theme, compact: Compact) -> Vec<(Span<'static>, Option<ScreenId>)> {
    let mut tabs = vec![(Span::raw(" "), None)];
    for (number, tab) in app.tabs().enumerate() {
        let table = app.screens.shown(tab);
        let chosen = tab == app.navigation.tab;
        let style = if chosen { theme.selected } else { theme.dim };
        let name = if chosen || compact != Compact::Names {
            format!(" {}", table.title())
        } else {
            String::new()
        };
        // Health, under its own key (`4` is for People, design.md), counts
        // the failing ones (those not reaching people) once a look has
        // said, from any tab.
        if tab == ScreenId::Health {
            let key = app.keymap.key_for(super::keymap::Action::Show(tab));
            tabs.push((Span::styled(format!(" {key}{name}"), style), Some(tab)));
            // What it says is Health's own (`screens/health/tab.rs`).
            tabs.push((app.screens.health.tab_news(style, theme), Some(tab)));
            tabs.push((Span::raw(" "), None));
            continue;
        }
        let rows = table
            .count()
            .filter(|_| table.is_open() && (chosen || compact == Compact::None));
        let label = format!(" {}{name}{} ", number + 1, count(rows));
        tabs.push((Span::styled(label, style), Some(tab)));
        tabs.push((Span::raw(" "), None));
    }
    // How many rows of the list shown are marked, for a bulk action.
    let shown = app.screens.shown(app.shown());
    if shown.marked() > 0 {
        tabs.push((
            Span::styled(
                format!(" {} marked ", crate::text::thousands(shown.marked() as u64)),
                theme.marked.patch(theme.header),
            ),
            None,
        ));
    }
    tabs
}

/// The two lines at the bottom: the filter or command being typed, a
/// notice of success or the keys; then the spinner, what is in force on
/// the list and the last request.
fn footer(frame: &mut Frame, area: Rect, app: &App, view: &ViewCx) {
    let theme = view.theme;
    let first = match &app.mode {
        Mode::Filter(input) => prompt("/", input, area, frame, theme),
        Mode::Command(input) => prompt(":", input, area, frame, theme),
        _ if app.notice.shown.as_ref().is_some_and(|notice| !notice.error) => {
            let text = app.notice.text();
            let flash = printable(&text.replace('\n', " · ")).into_owned();
            Line::styled(format!(" {flash}"), theme.ok)
        }
        _ => keys_line(app, area, theme),
    };
    let width = usize::from(area.width);
    let lines = vec![
        fit::fit_line(first, width),
        fit::fit_line(Line::from(status_spans(app, view)), width),
    ];
    frame.render_widget(Paragraph::new(lines), area);
}

/// The keys of the screen shown and what they do. Help comes last, and
/// stays whatever the width: the keys that do not fit are dropped from
/// the middle, with "…" to say so.
fn keys_line(app: &App, area: Rect, theme: &Theme) -> Line<'static> {
    let mut items = Vec::new();
    let mut help = Vec::new();
    for (keys, what, action) in app.keymap.footer(app.shown()) {
        // Keys the key or --read-only rules out are shown dimmed.
        let (key_style, label_style) = match app.unavailable(action) {
            Some(_) => (theme.dim, theme.dim),
            None => (theme.accent, ratatui::style::Style::new()),
        };
        let item = vec![
            Span::styled(format!(" {keys}"), key_style),
            Span::styled(format!(" {what} "), label_style),
        ];
        if action == super::keymap::Action::Help {
            help = item;
        } else {
            items.push(item);
        }
    }
    fit::fit_items(items, help, theme.dim, usize::from(area.width))
}

/// The spinner, what is in force on the list, an undo offered, keys held
/// for rows, and the server not reached or the last request.
fn status_spans(app: &App, view: &ViewCx) -> Vec<Span<'static>> {
    let theme = view.theme;
    let mut second = Vec::new();
    if app.requests.in_flight > 0 {
        second.push(Span::styled(
            format!(" {} ", SPINNER[app.requests.spinner % SPINNER.len()]),
            theme.accent,
        ));
    } else {
        second.push(Span::raw("   "));
    }
    // What is in force on the list comes first: the request is the part
    // that may be cut off.
    let state = state_line(app, view);
    if !state.is_empty() {
        second.push(Span::styled(format!("{state}   "), theme.warning));
    }
    if let Some(words) = app.screens.subscriptions.undo_words() {
        second.push(Span::styled(words, theme.demo));
        second.push(Span::raw("   "));
    }
    if app.held_keys() > 0 {
        second.push(Span::styled(
            format!(
                "{} typed, waiting for the rows   ",
                crate::text::counted(app.held_keys(), "key")
            ),
            theme.warning,
        ));
    }
    second.extend(request_spans(app, theme));
    second
}

/// A server not reached is named, with why and when it is tried again,
/// in place of the last request's record (its status, time, method and
/// path).
fn request_spans(app: &App, theme: &Theme) -> Vec<Span<'static>> {
    let mut second = Vec::new();
    if let Some(offline) = &app.connection.offline {
        second.push(Span::styled(
            printable(&offline.line(app.window.now)).into_owned(),
            theme.error,
        ));
    } else if let Some(log) = &app.requests.last {
        let status = match (log.status, log.retry_in) {
            (Some(429), Some(wait)) => format!("throttled, retrying in {} s", wait.as_secs().max(1)),
            (Some(status), Some(wait)) => format!("{status}, retrying in {} s", wait.as_secs().max(1)),
            (None, Some(wait)) => format!("no answer, retrying in {} s", wait.as_secs().max(1)),
            (Some(status), None) => status.to_string(),
            (None, None) => "no answer".into(),
        };
        let style = match (log.status, log.retry_in) {
            (_, Some(_)) => theme.warning,
            (Some(200..=299), None) => theme.ok,
            _ => theme.error,
        };
        second.push(Span::styled(status, style));
        second.push(Span::styled(
            format!(" · {} ms  ", log.elapsed.as_millis()),
            theme.dim,
        ));
        second.push(Span::styled(
            format!(
                "{} {}",
                printable(&log.request.method),
                printable(&log.request.path)
            ),
            theme.dim,
        ));
    }
    second
}

/// The filter, sort and switches in force on the shown list.
fn state_line(app: &App, view: &ViewCx) -> String {
    let table = app.screens.shown(app.shown());
    let mut parts = Vec::new();
    if !table.filter().is_empty() && !matches!(app.mode, Mode::Filter(_)) {
        parts.push(format!("filter \"{}\"", printable(table.filter())));
    }
    match table.sort() {
        Some(sort) if sort.ordering.is_some() => parts.push(format!("sorted: {}", sort.label)),
        Some(sort) => parts.push(format!("sorted by {}", sort.label)),
        None => {}
    }
    parts.extend(table.state().map(str::to_string));
    if let Some(seconds) = app.refresh.every {
        parts.push(match app.refresh.last {
            Some(at) => format!(
                "refreshed {} {}, every {seconds} s",
                view.in_zone(at, "%H:%M:%S"),
                view.zone_label()
            ),
            None => format!("refreshing every {seconds} s"),
        });
    }
    parts.join(" · ")
}

/// The input line of `/` or `:`, with the terminal cursor in it.
fn prompt<'a>(
    sign: &'a str,
    input: &tui_input::Input,
    area: Rect,
    frame: &mut Frame,
    theme: &Theme,
) -> Line<'a> {
    let width = area.width.saturating_sub(2) as usize;
    let scroll = input.visual_scroll(width);
    let cursor = input.visual_cursor().saturating_sub(scroll);
    frame.set_cursor_position((area.x + 1 + cursor as u16, area.y));
    let visible: String = input.value().chars().skip(scroll).collect();
    Line::from(vec![Span::styled(sign, theme.accent), Span::raw(visible)])
}

/// A bordered box over the bottom (or top) of `area`.
/// A notice of `lines` lines in a box over the table, at its bottom or top.
fn overlay(
    frame: &mut Frame,
    area: Rect,
    paragraph: Paragraph,
    style: ratatui::style::Style,
    at_top: bool,
    lines: u16,
) {
    let height = (lines + 2).min(area.height);
    let y = if at_top {
        area.y + area.height.min(2)
    } else {
        area.y + area.height - height
    };
    let box_area = Rect::new(
        area.x,
        y,
        area.width,
        height.min(area.height.saturating_sub(y - area.y)),
    );
    popup::clear(frame, box_area);
    frame.render_widget(
        paragraph.block(
            Block::bordered()
                .border_type(BorderType::Rounded)
                .border_style(style)
                .title_bottom(Line::raw(" Esc dismisses ").right_aligned()),
        ),
        box_area,
    );
}
