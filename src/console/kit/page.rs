//! A page of lines (a person's, an offboarding): its lines held with the
//! cursor over them and the filter `/` typed ([`Lines`], erased for the
//! shell as [`PageLines`]), and drawn by its screen: each line whole,
//! wrapped to the width, the cursor's line highlighted and kept on screen.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph};

use super::view::ViewCx;
use super::wrap::wrap;

/// Draws `lines` (each a line of the page, `None` for one not yet there)
/// in `block`, the line at `cursor` highlighted and scrolled into view.
pub fn draw(
    frame: &mut Frame,
    area: Rect,
    block: Block,
    lines: impl IntoIterator<Item = Option<Line<'static>>>,
    cursor: u64,
    view: &ViewCx,
) {
    let theme = view.theme;
    let width = usize::from(area.width.saturating_sub(2));
    let height = usize::from(area.height.saturating_sub(2));
    let mut wrapped: Vec<Line<'static>> = Vec::new();
    let mut cursor_end = 0;
    for (at, line) in (0u64..).zip(lines) {
        let Some(mut line) = line else {
            wrapped.push(Line::styled("…", theme.dim));
            continue;
        };
        let selected = at == cursor;
        if selected {
            line = line.style(theme.selected);
        }
        wrapped.extend(wrap(vec![line], width));
        if selected {
            cursor_end = wrapped.len();
        }
    }
    let scroll = u16::try_from(cursor_end.saturating_sub(height)).unwrap_or(u16::MAX);
    frame.render_widget(Paragraph::new(wrapped).block(block).scroll((scroll, 0)), area);
}

/// What a line of a page says of itself besides how it is drawn: its id
/// (what `y` copies) and, through `Serialize`, its JSON (what `Y` copies,
/// `v` shows and `/` looks in).
pub trait PageItem: serde::Serialize {
    fn id(&self) -> String;
}

/// A page's lines and where the user is in them: all held (a page is
/// gathered whole, never paged), the cursor and the first line on screen,
/// and the filter `/` typed (the lines whose JSON holds it).
#[derive(Debug)]
pub struct Lines<T> {
    items: Vec<T>,
    /// Whether the page has its lines (none until it is first opened):
    /// the shell says "loading…" until then.
    held: bool,
    /// Positions in `items` shown under a filter.
    view: Option<Vec<usize>>,
    filter: String,
    cursor: u64,
    top: u64,
}

impl<T> Default for Lines<T> {
    fn default() -> Self {
        Lines {
            items: Vec::new(),
            held: false,
            view: None,
            filter: String::new(),
            cursor: 0,
            top: 0,
        }
    }
}

impl<T: PageItem> Lines<T> {
    /// A page opened afresh: no lines yet, no filter, the cursor at the top.
    pub fn open(&mut self) {
        *self = Lines {
            held: true,
            ..Lines::default()
        };
    }

    /// The page's lines (made again), the filter kept and the cursor where
    /// it was.
    pub fn hold(&mut self, items: Vec<T>, height: u64) {
        self.items = items;
        self.held = true;
        let cursor = self.cursor as i64;
        self.apply_view(height);
        self.move_to(cursor, height);
    }

    /// No filter: every line shown, the cursor where it was.
    pub fn unfilter(&mut self) {
        self.filter.clear();
        self.view = None;
    }

    /// The line shown at a position.
    pub fn row(&self, shown: u64) -> Option<&T> {
        let index = match &self.view {
            Some(view) => *view.get(usize::try_from(shown).ok()?)?,
            None => usize::try_from(shown).ok()?,
        };
        self.items.get(index)
    }

    pub fn selected(&self) -> Option<&T> {
        self.row(self.cursor)
    }

    /// The position among all the lines (the filter aside) of the first
    /// that `wanted` picks.
    pub fn position(&self, wanted: impl Fn(&T) -> bool) -> Option<u64> {
        self.items.iter().position(wanted).map(|at| at as u64)
    }
}

/// A page's lines as the shell moves over them, their type erased.
pub trait PageLines {
    /// How many lines the page has (`None` before it has any).
    fn count(&self) -> Option<u64>;
    /// Lines shown (under the filter).
    fn len(&self) -> u64;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Whether it has lines the filter hides.
    fn has_loaded_rows(&self) -> bool;
    fn cursor(&self) -> u64;
    fn top(&self) -> u64;
    /// Moves the cursor (clamped to the lines) and keeps it in a window of
    /// `height` lines.
    fn move_to(&mut self, position: i64, height: u64);
    fn scroll(&mut self, height: u64);
    fn filter(&self) -> &str;
    /// A new filter: the cursor back at the top, shown once applied.
    fn set_filter(&mut self, text: String);
    /// Shows the lines the filter keeps.
    fn apply_view(&mut self, height: u64);
    fn selected_id(&self) -> Option<String>;
    fn selected_json(&self) -> Option<String>;
}

impl<T: PageItem> PageLines for Lines<T> {
    fn count(&self) -> Option<u64> {
        self.held.then_some(self.items.len() as u64)
    }

    fn len(&self) -> u64 {
        match &self.view {
            Some(view) => view.len() as u64,
            None => self.items.len() as u64,
        }
    }

    fn has_loaded_rows(&self) -> bool {
        !self.items.is_empty()
    }

    fn cursor(&self) -> u64 {
        self.cursor
    }

    fn top(&self) -> u64 {
        self.top
    }

    fn move_to(&mut self, position: i64, height: u64) {
        let last = self.len().saturating_sub(1) as i64;
        self.cursor = position.clamp(0, last.max(0)) as u64;
        self.scroll(height);
    }

    fn scroll(&mut self, height: u64) {
        let height = height.max(1);
        if self.cursor < self.top {
            self.top = self.cursor;
        } else if self.cursor >= self.top + height {
            self.top = self.cursor + 1 - height;
        }
        self.top = self.top.min(self.len().saturating_sub(height));
    }

    fn filter(&self) -> &str {
        &self.filter
    }

    fn set_filter(&mut self, text: String) {
        self.filter = text;
        self.cursor = 0;
        self.top = 0;
    }

    fn apply_view(&mut self, height: u64) {
        let needle = self.filter.trim().to_lowercase();
        self.view = (!needle.is_empty()).then(|| {
            self.items
                .iter()
                .enumerate()
                .filter(|(_, item)| {
                    serde_json::to_string(item).is_ok_and(|json| super::cell::contains(&json, &needle))
                })
                .map(|(at, _)| at)
                .collect()
        });
        self.scroll(height);
    }

    fn selected_id(&self) -> Option<String> {
        self.selected().map(PageItem::id)
    }

    fn selected_json(&self) -> Option<String> {
        self.selected().map(super::cell::pretty)
    }
}
