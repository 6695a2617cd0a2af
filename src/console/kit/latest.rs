//! "The latest request wins", written once.
//!
//! A search typed on, a form closed and opened again, a `:ctx` asked twice,
//! a list refreshed: each time a newer request replaces an older one whose
//! answer may still be on its way. Each request carries the [`Ticket`] its
//! [`Latest`] issued; an answer is acted on only while its ticket is still
//! the latest, so a late answer for a screen the user left is dropped.

/// The mark a request carries back with its answer.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ticket(u64);

/// Issues tickets, and says which one is the latest.
#[derive(Debug, Default, Clone)]
pub struct Latest {
    last: Ticket,
}

impl Latest {
    /// A new ticket, which makes every earlier one stale.
    pub fn issue(&mut self) -> Ticket {
        self.last.0 += 1;
        self.last
    }

    /// The latest ticket (before any is issued, the first one, which
    /// stands for how things started).
    pub fn current(&self) -> Ticket {
        self.last
    }

    /// Whether an answer with this ticket is still wanted.
    pub fn is_current(&self, ticket: Ticket) -> bool {
        ticket == self.last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_latest_ticket_is_current() {
        let mut latest = Latest::default();
        let start = latest.current();
        assert!(latest.is_current(start));
        let first = latest.issue();
        let second = latest.issue();
        assert!(!latest.is_current(start) && !latest.is_current(first));
        assert!(latest.is_current(second));
        assert_eq!(latest.current(), second);
    }
}

/// What stops a read under way (its page left, Esc, a read started
/// again, another organization), carried by the ask that started it: one
/// flag the read checks between requests and during one.
#[derive(Clone, Default)]
pub struct Stopper(pub std::sync::Arc<crate::access::read::Stop>);

impl Stopper {
    pub fn stop(&self) {
        self.0.stop();
    }
}

impl std::fmt::Debug for Stopper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_stopped() {
            "Stopper(stopped)"
        } else {
            "Stopper"
        })
    }
}

impl PartialEq for Stopper {
    /// The same flag.
    fn eq(&self, other: &Stopper) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}
