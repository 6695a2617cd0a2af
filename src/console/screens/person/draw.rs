//! A person's page drawn: each of its lines whole, wrapped to the width,
//! the cursor's line highlighted ([`crate::console::kit::page`]).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Block;

use super::page::{Item, Person};
use crate::console::kit::cell::{styled, text};
use crate::console::kit::page::PageLines;
use crate::console::kit::view::ViewCx;
use crate::people::profile::{Found, recipients};
use crate::text::plural;

/// The page in `block`, the cursor's line kept on screen.
pub fn draw(person: &Person, frame: &mut Frame, area: Rect, block: Block, view: &ViewCx) {
    let lines = &person.lines;
    let shown = (0..lines.len()).map(|at| lines.row(at).map(|item| Line::from(cells(item, view))));
    crate::console::kit::page::draw(frame, area, block, shown, lines.cursor(), view);
}

/// A line of the page, as spans.
pub fn cells(item: &Item, view: &ViewCx) -> Vec<Span<'static>> {
    let theme = view.theme;
    match item {
        Item::Heading { text: heading } => vec![styled(heading.clone(), theme.accent)],
        Item::Field { name, value } => {
            vec![styled(format!("  {name:<12}"), theme.dim), text(value.clone())]
        }
        Item::Role(role) => vec![
            text("  "),
            text(role.name.clone()),
            styled(format!("  since {}", view.day(role.joined_at)), theme.dim),
        ],
        Item::Subscription { found, .. } => vec![
            text("  "),
            text(found.label()),
            styled(format!("  {}", about(found)), theme.dim),
        ],
        Item::Key(key) => {
            let used = key
                .last_used_at
                .map(|at| format!("last used {}", view.day(Some(at))))
                .unwrap_or_else(|| "never used".into());
            vec![
                text("  "),
                text(format!("\"{}\"", key.label.as_deref().unwrap_or("unlabelled"))),
                styled(format!("  {} · {used}", key.scopes.join(", ")), theme.dim),
            ]
        }
        Item::Access(said) => super::access::spans(said, view),
        Item::Text { text: said, warning } => {
            let shown = if *warning {
                styled(said.clone(), theme.warning)
            } else {
                text(said.clone())
            };
            vec![text("  "), shown]
        }
    }
}

/// `#47 "Weekly revenue" · project "Hedgebox Web" · mails them alone · paused`.
fn about(found: &Found) -> String {
    let subscription = &found.subscription;
    let mut parts = vec![format!("project \"{}\"", found.project.name)];
    let count = recipients(subscription).count();
    if count > 0 {
        parts.push(if found.sole_recipient {
            "mails them alone".to_string()
        } else {
            format!("{count} recipient{}", plural(count))
        });
    }
    if found.is_ai_report() {
        parts.push("AI report".into());
    }
    if subscription.deleted {
        parts.push("deleted".into());
    } else if subscription.enabled == Some(false) {
        parts.push("paused".into());
    }
    parts.join(" · ")
}
