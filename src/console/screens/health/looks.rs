//! Health's looks, one at a time, and "latest wins" for them: each look
//! carries the ticket it started with, and only the news of the latest is
//! taken (a look of a project left since, or one stopped and started
//! again, is dropped). What stops the look under way, and whether one the
//! server cut short by going away starts again once it answers, are kept
//! here beside the ticket they go with.

use crate::console::kit::latest::{Latest, Ticket};
use crate::console::kit::stop::Stop;

#[derive(Debug, Default)]
pub struct Looks {
    /// Issues the looks' tickets; only the last one's news is taken.
    latest: Latest,
    /// What stops the look under way, while one is.
    stop: Option<Stop>,
    /// A look the server's going away cut short (or kept from starting):
    /// looked at again once it answers.
    again: bool,
}

impl Looks {
    /// A new look: its ticket, which makes every earlier look's news
    /// stale, and the flag that stops it.
    pub fn start(&mut self) -> (Ticket, Stop) {
        let stop = Stop::default();
        self.stop = Some(stop.clone());
        (self.latest.issue(), stop)
    }

    /// Whether news with this ticket is of the latest look.
    pub fn is_current(&self, ticket: Ticket) -> bool {
        self.latest.is_current(ticket)
    }

    /// Esc: the look under way stops between requests. Whether there was
    /// one to stop.
    pub fn stop(&mut self) -> bool {
        match self.stop.take() {
            Some(stop) => {
                stop.stop();
                true
            }
            None => false,
        }
    }

    /// The latest look ended: nothing left to stop.
    pub fn ended(&mut self) {
        self.stop = None;
    }

    /// The server went away under the look: it starts again once the
    /// server answers.
    pub fn cut_short(&mut self) {
        self.again = true;
    }

    /// Whether a look was cut short, forgetting it (it starts again now).
    pub fn take_again(&mut self) -> bool {
        std::mem::take(&mut self.again)
    }

    /// Another project or connection: the look under way stops, its
    /// news, late, is dropped, and one cut short is not looked at again.
    pub fn forget(&mut self) {
        if let Some(stop) = self.stop.take() {
            stop.stop();
        }
        self.latest.issue();
        self.again = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_latest_looks_news_is_taken_and_forgetting_stops_it() {
        let mut looks = Looks::default();
        let (first, first_stop) = looks.start();
        let (second, second_stop) = looks.start();
        assert!(!looks.is_current(first) && looks.is_current(second));
        looks.forget();
        assert!(
            !looks.is_current(second),
            "a project left: its look's news is dropped"
        );
        assert!(second_stop.is_stopped() && !first_stop.is_stopped());
        assert!(!looks.stop(), "nothing under way to stop");
    }

    #[test]
    fn esc_stops_the_look_under_way_once_and_a_cut_look_is_taken_once() {
        let mut looks = Looks::default();
        let (_, stop) = looks.start();
        assert!(looks.stop() && stop.is_stopped());
        assert!(!looks.stop());
        let (_, _) = looks.start();
        looks.ended();
        assert!(!looks.stop(), "an ended look has nothing to stop");
        looks.cut_short();
        assert!(looks.take_again());
        assert!(!looks.take_again());
    }
}
