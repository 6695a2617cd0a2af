//! What an offboarding asks the server to change: its plan, run a few
//! steps at a time on the effects runner's task (`Write::run`: each step's
//! end told as it comes, with the write's ticket, and kept in the record),
//! and how the whole ended.

use std::sync::atomic::{AtomicBool, Ordering};

use super::Msg;
use crate::console::kit::latest::Ticket;
use crate::console::screens::request::Lent;
use crate::console::screens::write::Written;
use crate::people::offboard::{self, Journal, Plan, RecordAt, Session, Step};

/// An offboarding plan to run.
#[derive(Debug, Clone, PartialEq)]
pub struct Write {
    pub organization: String,
    pub plan: Box<Plan>,
}

impl Write {
    /// The change it makes to who reaches what, to preview before it is
    /// run: they leave every role, and the organization when the plan
    /// says so; `None` when their user UUID is not known.
    pub fn access_change(&self) -> Option<crate::access::preview::Proposed> {
        let uuid = self.plan.person.uuid.as_deref().filter(|uuid| !uuid.is_empty())?;
        Some(crate::console::screens::write::proposed(
            crate::access::preview::Change::Offboard {
                membership_id: uuid.to_lowercase(),
                remove_from_organization: self.plan.options.remove_from_organization,
            },
            [uuid],
        ))
    }

    /// What the write does, in words, for a question.
    pub fn summary(&self) -> String {
        format!(
            "Offboard {}: {} change{}",
            self.plan.person.email,
            self.plan.changes(),
            crate::text::plural(self.plan.changes())
        )
    }

    /// Runs an offboarding plan as the CLI runs it: the key checked against
    /// every step, the record (in the state directory) opened before the
    /// first, each step's end written to it and told as it comes (with the
    /// write's ticket), the record closed at the end. A record that can no
    /// longer be written stops the run: no step starts after it.
    pub async fn run(&self, ticket: Ticket, lent: Lent<'_, Msg>) -> Result<Written, crate::api::Error> {
        let Lent {
            client,
            clock,
            state_dir,
            tell,
        } = lent;
        let (organization, plan) = (&self.organization, &self.plan);
        let mut plan = Plan::clone(plan);
        let session = Session::open(client, organization, &plan, clock.now()).await?;
        let missing = session.missing(&plan);
        if !missing.is_empty() {
            return Ok(Written::NotStarted(format!(
                "this key cannot do every step, so nothing was changed: {}",
                missing.join("; ")
            )));
        }
        let host = client.base_url().as_str().to_string();
        let mut journal = match Journal::open(RecordAt::StateDir(state_dir), &session, &host, &plan) {
            Ok(journal) => journal,
            Err(error) => {
                return Ok(Written::NotStarted(format!(
                    "nothing was changed: the record cannot be written: {error}"
                )));
            }
        };
        let stop = AtomicBool::new(false);
        let mut unwritten: Option<std::io::Error> = None;
        let mut report = |at: usize, step: &Step| {
            if unwritten.is_none()
                && let Err(error) = journal.step(at + 1, step, clock.now())
            {
                unwritten = Some(error);
                stop.store(true, Ordering::SeqCst);
            }
            tell(Msg::OffboardStep {
                ticket,
                at,
                step: Box::new(step.clone()),
            });
        };
        offboard::run(
            client,
            &session.organization_id,
            &mut plan,
            session.today,
            &stop,
            &mut report,
        )
        .await;
        let closed = match unwritten {
            Some(error) => Err(error),
            None => journal.close(&plan, clock.now()).map(|_| ()),
        };
        let record = closed.map(|()| journal.path.clone()).map_err(|error| {
            format!(
                "{} ({error}): the run stopped, with {} step{} of it in the record; O plans what is left",
                journal.path.display(),
                journal.steps_written,
                crate::text::plural(journal.steps_written)
            )
        });
        Ok(Written::Offboarded(Box::new(Offboarded { plan, record })))
    }
}

/// How an offboarding ended.
#[derive(Debug)]
pub struct Offboarded {
    pub plan: Plan,
    /// The record's file, or why it could not be written.
    pub record: Result<std::path::PathBuf, String>,
}
