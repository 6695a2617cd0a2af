//! A write sent and its answer: each screen's write sends itself over the
//! one client (`screens/<name>/writes.rs`); an offboarding is run here, a
//! few steps at a time, telling each step as it ends.

use super::*;

impl Runner {
    /// Sends a change and says how it went; the footer's record of it comes
    /// from the client.
    pub(super) async fn write(&self, ticket: Ticket, write: Write) -> Msg {
        let client = &self.client;
        let result = match &write {
            Write::Role(write) => write.send(client).await,
            Write::Member(write) => write.send(client).await,
            Write::Subscription(write) => write.send(client).await,
            Write::People(write) => write.send(client).await,
            Write::Offboard(write) => self.offboard(ticket, &write.organization, &write.plan).await,
        };
        Msg::Written(Box::new(WriteAnswer {
            ticket,
            write,
            result,
        }))
    }
}
