//! What the preview holds between its moments: the read under way and
//! what waits on it (a question, or a write that had none), the preview
//! of the question open, the writes sent after a preview (checked when
//! they land), a bulk run's preview (checked when the run ends) and the
//! checks under way.

use std::sync::Arc;

use super::ask::Ask;
use super::msg::Previewed;
use crate::access::preview::Proposed;
use crate::console::kit::latest::{Latest, Stopper, Ticket};
use crate::console::screens::write::{Confirm, Write};

/// What waits on a preview read.
#[derive(Debug)]
pub enum Pending {
    /// A question, asked once the preview is in it.
    Ask(Confirm),
    /// A write that had no question (people assigned from the picker):
    /// sent as it was when nobody loses access, else asked about.
    Send(Write),
}

/// A read under way.
#[derive(Debug)]
struct Reading {
    ticket: Ticket,
    stop: Stopper,
    pending: Pending,
}

#[derive(Debug, Default)]
pub struct Preview {
    tickets: Latest,
    reading: Option<Reading>,
    /// The preview of the question open, or of the write about to go:
    /// what the check compares the server's levels with.
    pub ready: Option<Arc<Previewed>>,
    /// Writes sent after a preview, by their write's ticket.
    sent: Vec<(Ticket, Arc<Previewed>)>,
    /// The bulk run's preview, checked when the run ends.
    pub bulk: Option<Arc<Previewed>>,
    /// Checks under way, by ticket, and what stops them.
    checking: Vec<(Ticket, Stopper)>,
    /// A change previewed and said yes to: the next write goes out
    /// without reading again.
    pub cleared: bool,
}

impl Preview {
    /// Starts reading the rules `proposed` moves, `pending` waiting on
    /// them; a read under way before is stopped.
    pub fn start(&mut self, pending: Pending, organization: &str, proposed: Proposed) -> Ask {
        self.stop();
        let ticket = self.tickets.issue();
        let stop = Stopper::default();
        self.reading = Some(Reading {
            ticket,
            stop: stop.clone(),
            pending,
        });
        self.ready = None;
        Ask::Read {
            ticket,
            organization: organization.to_string(),
            proposed: Box::new(proposed),
            stop,
        }
    }

    /// Whether a read is under way.
    pub fn is_reading(&self) -> bool {
        self.reading.is_some()
    }

    /// Stops the read under way, if any: what waited on it is dropped
    /// (nothing is sent). `true` when there was one.
    pub fn stop(&mut self) -> bool {
        match self.reading.take() {
            Some(reading) => {
                reading.stop.stop();
                true
            }
            None => false,
        }
    }

    /// Whether an answer is still wanted.
    pub fn wants(&self, msg: &super::Msg) -> bool {
        match msg {
            super::Msg::Read { ticket, .. } => self
                .reading
                .as_ref()
                .is_some_and(|reading| reading.ticket == *ticket),
            super::Msg::Checked { ticket, .. } => {
                self.checking.iter().any(|(checking, _)| checking == ticket)
            }
        }
    }

    /// The read answered: what waited on it.
    pub fn arrived(&mut self, ticket: Ticket) -> Option<Pending> {
        let reading = self.reading.take_if(|reading| reading.ticket == ticket)?;
        Some(reading.pending)
    }

    /// The previewed write went out with this ticket.
    pub fn sent(&mut self, ticket: Ticket) {
        if let Some(ready) = self.ready.take() {
            self.sent.push((ticket, ready));
        }
    }

    /// The write of this ticket answered: its preview, to check when it
    /// succeeded.
    pub fn landed(&mut self, ticket: Ticket) -> Option<Arc<Previewed>> {
        let at = self.sent.iter().position(|(sent, _)| *sent == ticket)?;
        Some(self.sent.remove(at).1)
    }

    /// The check of a change made.
    pub fn check(&mut self, previewed: Arc<Previewed>) -> Ask {
        let ticket = self.tickets.issue();
        let stop = Stopper::default();
        self.checking.push((ticket, stop.clone()));
        Ask::Check {
            ticket,
            previewed,
            stop,
        }
    }

    /// A check answered.
    pub fn checked(&mut self, ticket: Ticket) {
        self.checking.retain(|(checking, _)| *checking != ticket);
    }

    /// Another organization: nothing of the old one is read or checked.
    pub fn forget(&mut self) {
        self.stop();
        for (_, stop) in &self.checking {
            stop.stop();
        }
        *self = Preview {
            tickets: std::mem::take(&mut self.tickets),
            ..Preview::default()
        };
    }
}
