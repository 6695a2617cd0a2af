//! What Health's tab says after its name, from any tab: how many
//! subscriptions are not reaching people once a look has said, ✓ only
//! after a complete look found none, and how far a look came while it
//! has not reached every subscription.

use ratatui::style::Style;
use ratatui::text::Span;

use super::Board;
use super::board::Verdict;
use crate::console::kit::theme::Theme;
use crate::console::table::Table;

impl Table<Board> {
    /// The tab's news, in the tab's style (chosen or not) marked as it warns.
    pub fn tab_news(&self, style: Style, theme: &Theme) -> Span<'static> {
        match self.verdict() {
            Verdict::Nothing => Span::styled(" ", style),
            Verdict::Clear => Span::styled(" ✓ ", style.patch(theme.ok)),
            Verdict::Failed { count: 0 } => Span::styled(" look failed ", style.patch(theme.warning)),
            Verdict::Failed { count } => Span::styled(
                format!(" {count} failing · look failed "),
                style.patch(theme.error),
            ),
            Verdict::Failing {
                count: 0,
                percent: Some(percent),
            } => Span::styled(format!(" 0 failing · {percent} % "), style.patch(theme.warning)),
            Verdict::Failing { count, percent } => {
                let known = percent
                    .map(|percent| format!(" · {percent} %"))
                    .unwrap_or_default();
                Span::styled(format!(" {count} failing{known} "), style.patch(theme.error))
            }
        }
    }
}
