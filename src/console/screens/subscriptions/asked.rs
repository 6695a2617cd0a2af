//! What the subscription form asks the server for: the project's
//! dashboards and insights as it opens (the catalogue), and as it is filled
//! in the tiles of the dashboard it delivers and the channels of the Slack
//! integration it posts through; and "latest wins" for each: the ticket of
//! the catalogue asked by the form open now, and for a lookup the id last
//! asked for, so that it is asked once, and the ticket of that request, so
//! that only its answer is taken (not one for a form closed, or a
//! dashboard chosen away, since).

use crate::console::kit::latest::{Latest, Ticket};

/// One kind of lookup: what was last asked for, and its ticket.
#[derive(Debug, Default)]
pub struct Lookup {
    asked: Option<i64>,
    latest: Latest,
}

impl Lookup {
    /// The ticket to ask for `wanted` with, unless nothing is wanted or it
    /// was asked for already.
    pub fn ask(&mut self, wanted: Option<i64>) -> Option<(i64, Ticket)> {
        let id = wanted.filter(|id| self.asked != Some(*id))?;
        self.asked = Some(id);
        Some((id, self.latest.issue()))
    }

    /// Whether an answer with this ticket is of the last request.
    pub fn is_current(&self, ticket: Ticket) -> bool {
        self.latest.is_current(ticket)
    }

    /// Its answer was not taken (chosen away meanwhile, or failed): asked
    /// again when wanted again.
    pub fn forget(&mut self) {
        self.asked = None;
    }

    /// Another form: nothing asked yet, and answers on their way are for
    /// the earlier one.
    fn reset(&mut self) {
        self.asked = None;
        self.latest.issue();
    }
}

/// The subscription form's lookups.
#[derive(Debug, Default)]
pub struct Asked {
    /// The project's dashboards and insights, asked as a form opens.
    pub catalog: Latest,
    pub tiles: Lookup,
    pub channels: Lookup,
}

impl Asked {
    /// A form opens: what an earlier one asked counts no more.
    pub fn reset(&mut self) {
        self.catalog.issue();
        self.tiles.reset();
        self.channels.reset();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lookup_is_asked_once_and_only_its_latest_answer_is_taken() {
        let mut asked = Asked::default();
        let (id, first) = asked.tiles.ask(Some(7)).unwrap();
        assert_eq!(id, 7);
        assert_eq!(asked.tiles.ask(Some(7)), None, "asked once");
        assert_eq!(asked.tiles.ask(None), None);
        let (_, second) = asked.tiles.ask(Some(8)).unwrap();
        assert!(!asked.tiles.is_current(first) && asked.tiles.is_current(second));
        asked.tiles.forget();
        assert!(asked.tiles.ask(Some(8)).is_some(), "asked again once forgotten");
        let (_, channels) = asked.channels.ask(Some(1)).unwrap();
        let catalog = asked.catalog.issue();
        asked.reset();
        assert!(
            !asked.channels.is_current(channels) && !asked.catalog.is_current(catalog),
            "a new form drops the old answers"
        );
        assert!(asked.channels.ask(Some(1)).is_some());
    }
}
