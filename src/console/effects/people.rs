//! The People view's tasks: the role index read in the background, the
//! narrowings (`:no-role` streams every member a few pages at a time,
//! keeping those in no role; `:has-role` reads the role's memberships), a
//! person's page gathered, and an offboarding run step by step.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::Runner;
use crate::api::{FetchAll, List, OrganizationMember};
use crate::console::app::{Narrow, Offboarded, PeopleNews, SharedIndex, Stop, Ticket, Written};
use crate::console::screens::offboard::Msg as OffboardMsg;
use crate::console::screens::people::Msg as PeopleMsg;
use crate::console::screens::person::Msg as PersonMsg;
use crate::people::offboard::{self, Journal, Plan, RecordAt, Session, Step};
use crate::people::{RoleIndex, profile};

/// Members a page of `:no-role`'s look through everyone.
const SCAN_PAGE: u64 = 500;

/// Member pages in flight at once while `:no-role` looks through them all.
const PAGES_AT_ONCE: usize = 4;

/// Why a look through the members ended early.
enum Ended {
    Stopped,
    Failed(crate::api::Error),
}

impl From<crate::api::Error> for Ended {
    fn from(error: crate::api::Error) -> Self {
        Ended::Failed(error)
    }
}

impl Runner {
    /// Reads who holds which role, telling of each role read.
    pub(super) fn load_role_index(&self, ticket: Ticket, organization: String) {
        let runner = self.clone();
        let messages = self.messages.clone();
        let progress: Box<dyn Fn(usize, usize) + Send + Sync> = Box::new(move |done, total| {
            // The loop has ended when the channel is closed: nothing to tell.
            let _ = messages.send(PeopleMsg::RoleIndexProgress { ticket, done, total }.into());
        });
        tokio::spawn(async move {
            // What the index holds is one budget (--max-held-mib).
            let client = runner.client.with_holding();
            let result = RoleIndex::load(&client, &organization, progress.as_ref())
                .await
                .map(|index| SharedIndex(Arc::new(index)))
                .map_err(|error| error.to_string());
            let _ = runner
                .messages
                .send(PeopleMsg::RoleIndex { ticket, result }.into());
        });
    }

    /// A narrowing of People, its news sent as it goes.
    pub(super) fn narrow_people(
        &self,
        ticket: Ticket,
        organization: String,
        narrow: Narrow,
        oldest_first: bool,
        stop: Stop,
    ) {
        let runner = self.clone();
        tokio::spawn(async move {
            let result = runner
                .narrow(ticket, &organization, narrow, oldest_first, stop)
                .await;
            let _ = runner
                .messages
                .send(PeopleMsg::PeopleNarrowed { ticket, result }.into());
        });
    }

    /// Whether it was stopped, or why it failed.
    async fn narrow(
        &self,
        ticket: Ticket,
        organization: &str,
        narrow: Narrow,
        oldest_first: bool,
        stop: Stop,
    ) -> Result<bool, String> {
        let messages = self.messages.clone();
        let send = move |news: PeopleNews| {
            let _ = messages.send(PeopleMsg::PeopleNews { ticket, news }.into());
        };
        let index = match narrow {
            Narrow::Role(role) => {
                // A role's memberships name its people: no need to look through everyone.
                let memberships = self
                    .client
                    .all(&List::memberships(organization, &role.id), &FetchAll::default())
                    .await
                    .map_err(|error| error.to_string())?;
                let mut people: Vec<OrganizationMember> = memberships
                    .into_iter()
                    .filter_map(|membership| {
                        membership.organization_member.or_else(|| {
                            membership.user.map(|user| OrganizationMember {
                                user,
                                ..OrganizationMember::default()
                            })
                        })
                    })
                    .collect();
                people.sort_by_key(|member| member.joined_at);
                if !oldest_first {
                    people.reverse();
                }
                let total = people.len() as u64;
                send(PeopleNews::Rows(people));
                send(PeopleNews::Progress { done: total, total });
                return Ok(false);
            }
            Narrow::NoRole(index) => index,
        };
        let order = if oldest_first { "joined_at" } else { "-joined_at" };
        let list = List::members(organization).with("order", order);
        let told = send.clone();
        // Every member is read: in pages of 500 (a server that allows fewer
        // is followed by its `next` links), a fifth of the requests, and a
        // fifth of the rows an offset has the server step over.
        let options = FetchAll {
            page_size: SCAN_PAGE,
            concurrency: PAGES_AT_ONCE,
            progress: Some(Arc::new(move |done, total| {
                told(PeopleNews::Progress { done, total })
            })),
            max_rows: None,
            pace: None,
        };
        let outcome = self
            .client
            .for_each_page(&list, &options, |page: Vec<OrganizationMember>| {
                if stop.is_stopped() {
                    return Err(Ended::Stopped);
                }
                let kept: Vec<OrganizationMember> = page
                    .into_iter()
                    .filter(|member| index.0.of(&member.user.uuid).is_empty())
                    .collect();
                if !kept.is_empty() {
                    send(PeopleNews::Rows(kept));
                }
                Ok(())
            })
            .await;
        match outcome {
            Ok(_) => Ok(false),
            Err(Ended::Stopped) => Ok(true),
            Err(Ended::Failed(error)) => Err(error.to_string()),
        }
    }

    /// Gathers a person's page.
    pub(super) fn gather_profile(
        &self,
        ticket: Ticket,
        organization: String,
        email: String,
        index: SharedIndex,
    ) {
        let runner = self.clone();
        tokio::spawn(async move {
            // What the page holds is one budget (--max-held-mib).
            let client = runner.client.with_holding();
            let result = profile::gather(&client, &organization, &email, &index.0)
                .await
                .map(Box::new)
                .map_err(|error| format!("{error:#}"));
            let _ = runner.messages.send(PersonMsg::Profile { ticket, result }.into());
        });
    }

    /// Runs an offboarding plan as the CLI runs it: the key checked against
    /// every step, the record (in the state directory) opened before the
    /// first, each step's end written to it and told as it comes (with the
    /// write's ticket), the record closed at the end. A record that can no
    /// longer be written stops the run: no step starts after it.
    pub(super) async fn offboard(
        &self,
        ticket: Ticket,
        organization: &str,
        plan: &Plan,
    ) -> Result<Written, crate::api::Error> {
        let mut plan = plan.clone();
        let session = Session::open(&self.client, organization, &plan, self.clock.now()).await?;
        let missing = session.missing(&plan);
        if !missing.is_empty() {
            return Ok(Written::NotStarted(format!(
                "this key cannot do every step, so nothing was changed: {}",
                missing.join("; ")
            )));
        }
        let host = self.client.base_url().as_str().to_string();
        let mut journal = match Journal::open(RecordAt::StateDir(&self.state_dir), &session, &host, &plan) {
            Ok(journal) => journal,
            Err(error) => {
                return Ok(Written::NotStarted(format!(
                    "nothing was changed: the record cannot be written: {error}"
                )));
            }
        };
        let messages = self.messages.clone();
        let clock = self.clock.clone();
        let stop = AtomicBool::new(false);
        let mut unwritten: Option<std::io::Error> = None;
        let mut report = |at: usize, step: &Step| {
            if unwritten.is_none()
                && let Err(error) = journal.step(at + 1, step, clock.now())
            {
                unwritten = Some(error);
                stop.store(true, Ordering::SeqCst);
            }
            let _ = messages.send(
                OffboardMsg::OffboardStep {
                    ticket,
                    at,
                    step: Box::new(step.clone()),
                }
                .into(),
            );
        };
        offboard::run(
            &self.client,
            &session.organization_id,
            &mut plan,
            session.today,
            &stop,
            &mut report,
        )
        .await;
        let closed = match unwritten {
            Some(error) => Err(error),
            None => journal.close(&plan, self.clock.now()).map(|_| ()),
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
