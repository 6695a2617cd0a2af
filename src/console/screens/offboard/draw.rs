//! An offboarding drawn: its options, plan and outcomes, each line whole,
//! wrapped to the width, the cursor's line highlighted
//! ([`crate::console::kit::page`]).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Block;

use super::page::{Item, Offboarding};
use crate::console::kit::cell::{styled, text};
use crate::console::kit::page::PageLines;
use crate::console::kit::view::ViewCx;
use crate::people::offboard::{Status, Step};

/// The offboarding in `block`, the cursor's line kept on screen.
pub fn draw(offboarding: &Offboarding, frame: &mut Frame, area: Rect, block: Block, view: &ViewCx) {
    let lines = &offboarding.lines;
    let shown = (0..lines.len()).map(|at| lines.row(at).map(|item| Line::from(cells(item, view))));
    crate::console::kit::page::draw(frame, area, block, shown, lines.cursor(), view);
}

/// A line of the offboarding, as spans.
pub fn cells(item: &Item, view: &ViewCx) -> Vec<Span<'static>> {
    let theme = view.theme;
    match item {
        Item::Heading { text: said } => vec![styled(said.clone(), theme.accent)],
        Item::Option { toggle, on } => vec![
            text(format!("  [{}] ", if *on { "x" } else { " " })),
            text(toggle.label()),
        ],
        Item::Warning { text: said } => vec![text("  ! "), styled(said.clone(), theme.warning)],
        Item::Step { number, step } => {
            let lead = text(format!("{number:>3}. {} ", mark(step)));
            match step.status {
                Status::Failed => vec![
                    lead,
                    styled(
                        format!(
                            "{}: {}",
                            step.description,
                            step.error.as_deref().unwrap_or("failed")
                        ),
                        theme.error,
                    ),
                ],
                Status::Done => vec![lead, styled(step.description.clone(), theme.ok)],
                Status::Unchanged => vec![lead, text(format!("{} (already so)", step.description))],
                Status::Noted => vec![lead, styled(step.description.clone(), theme.dim)],
                Status::Planned => vec![lead, text(step.description.clone())],
            }
        }
        Item::Text { text: said } => vec![text("  "), text(said.clone())],
    }
}

/// A step's mark: • to do, · only said, ✓ done, = already so, ✗ failed.
fn mark(step: &Step) -> &'static str {
    match step.status {
        Status::Planned => "•",
        Status::Noted => "·",
        Status::Done => "✓",
        Status::Unchanged => "=",
        Status::Failed => "✗",
    }
}
