//! Where things go on the screen, for any size down to 40x10. `update`
//! uses it too, to know how many rows a page is.

use ratatui::layout::{Constraint, Layout, Rect};

/// Lines of the header (title, tabs) and the footer (keys, last request).
const HEADER: u16 = 2;
const FOOTER: u16 = 2;
/// The table's border and its column header.
const TABLE_CHROME: u16 = 3;
/// The widest the detail pane beside the table gets.
const DETAIL_WIDTH: u16 = 72;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Areas {
    pub header: Rect,
    pub table: Rect,
    pub detail: Option<Rect>,
    pub footer: Rect,
}

/// Lays out a screen: the detail pane goes to the right on wide screens,
/// below on tall ones, and away on small ones.
pub fn areas(screen: Rect) -> Areas {
    let [header, body, footer] = Layout::vertical([
        Constraint::Length(HEADER.min(screen.height)),
        Constraint::Min(0),
        Constraint::Length(FOOTER.min(screen.height.saturating_sub(HEADER))),
    ])
    .areas(screen);
    let (table, detail) = if body.width >= 120 {
        // The pane takes 38% up to the width its fields need; on wide
        // screens the rest goes to the table's columns.
        let pane = (body.width * 38 / 100).min(DETAIL_WIDTH);
        let [table, detail] = Layout::horizontal([Constraint::Min(0), Constraint::Length(pane)]).areas(body);
        (table, Some(detail))
    } else if body.height >= 26 {
        let [table, detail] =
            Layout::vertical([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(body);
        (table, Some(detail))
    } else {
        (body, None)
    };
    Areas {
        header,
        table,
        detail,
        footer,
    }
}

/// Data rows the table shows on a screen of this size.
pub fn table_rows(width: u16, height: u16) -> u16 {
    areas(Rect::new(0, 0, width, height))
        .table
        .height
        .saturating_sub(TABLE_CHROME)
        .max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_size_gets_a_table() {
        for (width, height) in [
            (40, 10),
            (80, 24),
            (200, 50),
            (1, 1),
            (0, 0),
            (119, 25),
            (500, 200),
        ] {
            let areas = areas(Rect::new(0, 0, width, height));
            assert!(areas.table.width <= width && areas.table.height <= height);
            assert!(table_rows(width, height) >= 1);
        }
        assert!(areas(Rect::new(0, 0, 200, 50)).detail.is_some_and(|d| d.x > 0));
        assert!(areas(Rect::new(0, 0, 100, 40)).detail.is_some_and(|d| d.y > 2));
        assert!(areas(Rect::new(0, 0, 40, 10)).detail.is_none());
        assert_eq!(table_rows(200, 50), 43);
    }
}
