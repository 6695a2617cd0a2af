//! A page that is not a table (a person's, an offboarding): what the
//! shell asks of it while it is on show, through [`Page`] rather than a
//! list's `AnyTable`. The holder hands one out by [`super::ScreenId`]
//! (`Screens::page`), `None` for a list.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::Block;

use crate::console::kit::view::ViewCx;
use crate::console::screens::Ctx;

/// A screen on show that draws its own lines.
pub trait Page {
    /// Draws itself inside `block` (its border, title and status line are
    /// the shell's, as for a list).
    fn draw(&self, frame: &mut Frame, area: Rect, block: Block, view: &ViewCx);

    /// Whether Space is its own key here (an offboarding's options)
    /// rather than a list's mark, which a page takes none of.
    fn takes_space(&self) -> bool {
        false
    }

    /// Space, where it is the page's own.
    fn space(&mut self, _ctx: &mut Ctx) {}
}
