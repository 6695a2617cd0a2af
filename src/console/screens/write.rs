//! What the screens ask the server to change, and the question asked
//! before a change: each screen's writes are its own (`<screen>/writes.rs`:
//! what it sends, its words for a question, its request over the one
//! client, the news its success is for the others), and [`Write`] holds
//! them as one variant per screen, so that the question, the production
//! rule, the bulk run and the effects runner carry any of them alike.
//! What a write answered is [`Written`], whatever screen sent it. What a
//! write changes of who reaches what ([`Write::access_change`], each
//! screen's own arm) is previewed before it is asked about or sent, and
//! the question carries the preview ([`Confirm::with_preview`]).

use crate::access::directory::People;
use crate::access::preview::{Change as AccessChange, Proposed};
use crate::api::{self, Client, OrganizationMember, Role, RoleMembership, Subscription};
use crate::console::widgets::form::Form;
use crate::console::widgets::question::Answer;

use super::bulk::Bulk;
use super::{Change, access, members, offboard, people, roles, subscriptions};

/// What a form is for.
#[derive(Debug, Clone, PartialEq)]
pub enum FormPurpose {
    NewRole,
    EditRole { id: String },
    NewSubscription,
    EditSubscription { id: i64 },
}

impl FormPurpose {
    pub fn is_subscription(&self) -> bool {
        matches!(
            self,
            FormPurpose::NewSubscription | FormPurpose::EditSubscription { .. }
        )
    }
}

/// What `n` or `e` opens on a screen, as the screen says
/// (`Screens::opens_new`, `opens_edit`).
#[derive(Debug)]
pub enum Opens {
    /// A form.
    Form(Box<Form>, FormPurpose),
    /// The picker of people to assign to the role shown (Members' `n`).
    Picker,
    /// A subscription not loaded: read it first; the form opens once it
    /// arrives.
    ReadFirst(i64, super::subscriptions::read::Then),
    /// The access rule under the cursor edited (`access/edit.rs`): read,
    /// then its chooser of levels.
    Rule,
    /// Nothing: no row to edit, or the screen takes no new rows.
    Nothing,
}

/// A question before a write (or a bulk run of writes), under the one rule
/// of [`crate::console::widgets::question`]: `y` yes, `n` or Esc no, Enter
/// the highlighted answer.
#[derive(Debug, Clone)]
pub struct Confirm {
    pub question: String,
    /// What Enter answers, drawn highlighted: no for anything that deletes,
    /// removes, or sends to people; yes for harmless changes.
    pub highlighted: Answer,
    /// What "yes" sends.
    pub then: Confirmed,
    /// The form the question came from: back to it on "no" or a failure.
    pub form: Option<Box<(Form, FormPurpose)>>,
    /// The question a production profile asks once more before a write.
    pub production: bool,
    /// Whether the preview of who gains and who loses access was read
    /// for it (or could not be, and it says so): yes sends without
    /// reading again.
    pub previewed: bool,
    /// How many people lose access, still to be asked about: yes asks
    /// "N people lose access. Go on?" (Enter meaning no) before sending.
    pub losing: usize,
}

impl Confirm {
    /// A question before one write; `harmful` when it destroys something or
    /// reaches people (then Enter says no).
    pub fn write(question: String, write: Write, harmful: bool) -> Confirm {
        Confirm {
            question,
            highlighted: Answer::on_enter(harmful),
            then: Confirmed::Write(write),
            form: None,
            production: false,
            previewed: false,
            losing: 0,
        }
    }

    /// The same question asked once more, on a production profile: Enter
    /// says no, whatever the change.
    pub fn once_more_on(self, profile: &str) -> Confirm {
        Confirm {
            question: format!(
                "PRODUCTION ({profile}): {}\nThis changes production. y does it; anything else keeps it as it is.",
                self.question.trim_end_matches('?')
            ),
            highlighted: Answer::No,
            production: true,
            ..self
        }
    }

    /// The change to who reaches what "yes" makes, to preview first.
    pub fn access_change(&self) -> Option<Proposed> {
        match &self.then {
            Confirmed::Write(write) => write.access_change(),
            Confirmed::Bulk(bulk) => bulk.access_change(),
        }
    }

    /// The question with the preview in it (`words`, cut to what the
    /// popup shows at 80x24); someone losing access makes Enter say no
    /// and yes ask once more.
    pub fn with_preview(self, words: &str, losing: usize) -> Confirm {
        Confirm {
            question: format!("{}\n\n{}", self.question, cut(words, PREVIEW_LINES)),
            highlighted: if losing > 0 { Answer::No } else { self.highlighted },
            previewed: true,
            losing,
            ..self
        }
    }

    /// The second question before a change that takes access away:
    /// "N people lose access. Go on?", Enter meaning no.
    pub fn losing_question(self) -> Confirm {
        Confirm {
            // What the change is stays said, above the count.
            question: format!(
                "{}\n{}\ny goes on; Enter, n or Esc changes nothing.",
                self.question
                    .lines()
                    .next()
                    .unwrap_or_default()
                    .trim_end_matches('?'),
                crate::access::preview::told::losing_question(self.losing)
            ),
            highlighted: Answer::No,
            losing: 0,
            ..self
        }
    }

    /// The one write "yes" sends, if it sends one.
    pub fn single(&self) -> Option<&Write> {
        match &self.then {
            Confirmed::Write(write) => Some(write),
            Confirmed::Bulk(_) => None,
        }
    }
}

/// The most lines of a preview a question shows (wrapped as the popup
/// wraps them): the popup stays readable at 80x24.
const PREVIEW_LINES: usize = 12;

/// A preview in words, only as much built as a question shows: its
/// lines past [`PREVIEW_LINES`] rows of the popup are counted, not told.
pub fn preview_words(effect: &crate::access::preview::Effect, what: &str) -> String {
    let width = crate::console::widgets::popup::WIDTH - 2;
    crate::access::preview::told::text_cut(effect, what, PREVIEW_LINES, |line| {
        crate::console::widgets::popup::wrap(line, width).len()
    })
}

/// `words` cut to `most` lines as the popup wraps them, the rest counted:
/// "… and 12 more lines".
fn cut(words: &str, most: usize) -> String {
    let width = crate::console::widgets::popup::WIDTH - 2;
    let lines: Vec<String> = words
        .trim_end()
        .lines()
        .flat_map(|line| crate::console::widgets::popup::wrap(line, width))
        .collect();
    if lines.len() <= most {
        return lines.join("\n");
    }
    let shown = most - 1;
    let mut out = lines[..shown].join("\n");
    out.push_str(&format!("\n… and {} more lines", lines.len() - shown));
    out
}

/// What a question's "yes" sends.
#[derive(Debug, Clone)]
pub enum Confirmed {
    Write(Write),
    /// A write for each marked row, a few at a time.
    Bulk(Box<Bulk>),
}

/// A change to send to the server: one variant per screen, each that
/// screen's own.
#[derive(Debug, Clone, PartialEq)]
pub enum Write {
    /// A role created, saved or deleted (`roles/writes.rs`).
    Role(roles::Write),
    /// People added to a role, or a membership removed (`members/writes.rs`).
    Member(members::Write),
    /// A subscription created, saved, soft-deleted, restored, tested,
    /// paused or resumed (`subscriptions/writes.rs`).
    Subscription(subscriptions::Write),
    /// People into roles, or a member's level (`people/writes.rs`).
    People(people::Write),
    /// An offboarding plan, run a few steps at a time: each step's end
    /// comes back as `Msg::OffboardStep` with the write's ticket, then the
    /// whole as `Written::Offboarded` (`offboard/writes.rs`).
    Offboard(offboard::Write),
    /// A rule set or removed (`access/writes.rs`, `e` on a rule).
    Access(access::Write),
}

impl Write {
    /// What the write does, in words, for a question.
    pub fn summary(&self) -> String {
        match self {
            Write::Role(write) => write.summary(),
            Write::Member(write) => write.summary(),
            Write::Subscription(write) => write.summary(),
            Write::People(write) => write.summary(),
            Write::Offboard(write) => write.summary(),
            Write::Access(write) => write.summary(),
        }
    }

    /// The change it makes to who reaches what, to preview before it is
    /// asked about or sent (`crate::console::screens::preview`): `None`
    /// for a write that moves no access.
    pub fn access_change(&self) -> Option<Proposed> {
        match self {
            Write::Role(write) => write.access_change(),
            Write::Member(write) => write.access_change(),
            Write::People(write) => write.access_change(),
            Write::Offboard(write) => write.access_change(),
            Write::Access(write) => write.access_change(),
            Write::Subscription(_) => None,
        }
    }

    /// Whether it can move who reaches what, even where `access_change`
    /// cannot say how (a membership whose person is not known by user):
    /// the screens that show access hear of it after it is made.
    pub fn moves_access(&self) -> bool {
        match self {
            Write::Member(_) | Write::People(_) | Write::Offboard(_) | Write::Access(_) => true,
            Write::Role(write) => matches!(write, roles::Write::Delete { .. }),
            Write::Subscription(_) => false,
        }
    }

    /// What its answer does: its screen's landing. An offboarding lands
    /// on its own screen, step by step, not here.
    pub fn land(&self, written: Written, at: &Landing) -> Landed {
        match self {
            Write::Role(write) => write.land(written),
            Write::Member(write) => write.land(written),
            Write::Subscription(write) => write.land(written, at),
            Write::People(write) => write.land(written),
            Write::Offboard(write) => Landed::unfit(write, &written),
            Write::Access(write) => write.land(written),
        }
    }

    /// The news its success is for every screen (a bulk run's row
    /// announces it as the single write does).
    pub fn changes(&self, written: &Written) -> Vec<Change> {
        match self {
            Write::Role(write) => write.changes(written),
            Write::Member(write) => write.changes(written),
            Write::Subscription(write) => write.changes(written),
            Write::People(write) => write.changes(written),
            Write::Offboard(_) => Vec::new(),
            Write::Access(write) => write.changes(written),
        }
    }
}

/// What a write answered.
#[derive(Debug)]
pub enum Written {
    Role(Box<Role>),
    /// Per person: the new membership, or why not.
    Assigned(Vec<(String, Result<RoleMembership, String>)>),
    Subscription(Box<Subscription>),
    Deleted,
    /// Taken, to be done later (202).
    Accepted,
    /// A member as they are now (a level changed).
    Member(Box<OrganizationMember>),
    /// An offboarding ran: every step's outcome, and where its record went.
    Offboarded(Box<offboard::Offboarded>),
    /// An offboarding refused before its first step (the key cannot do
    /// every step, its record cannot be written): why. Nothing changed.
    NotStarted(String),
    /// A rule as the server now holds it; `None`: removed.
    Rule(Option<Box<crate::api::access::AccessControl>>),
}

/// What the screen a write was for says its answer does. The shell
/// carries it out, because it holds what the answer reaches besides the
/// screens: the form or picker that sent it, the notice, the timers.
#[derive(Debug, Default)]
pub struct Landed {
    /// News for every screen, the owner's rows included: it hears its own
    /// news as the others do.
    pub changes: Vec<Change>,
    /// The notice: `Ok` says it is done, `Err` stays until dismissed.
    pub said: Option<Result<String, String>>,
    /// The form or picker that sent it closes.
    pub closes: bool,
    /// What only the shell can start, in order.
    pub then: Vec<Then>,
}

/// What a landed write asks of the shell besides its news and notice.
#[derive(Debug, Clone, PartialEq)]
pub enum Then {
    /// `u` undoes this soft delete for a while.
    OfferUndo(i64),
    /// The undo offered is spent (the subscription is restored).
    ForgetUndo,
    /// A form kept to come back to on a failure is not needed any more.
    ForgetResumed,
    /// Wait for this subscription's next delivery (of this trigger, or
    /// any) and say how it went.
    Watch {
        id: i64,
        trigger: Option<api::TriggerType>,
    },
    /// Read this subscription again a little later: what a delivery now
    /// (`why`: "tested", "resumed") changed.
    ReadAgain { id: i64, why: &'static str },
    /// A subscription restored: where the list shown no longer holds it,
    /// it is read again, the cursor finding it.
    Restored(i64),
    /// Nothing shown changes: the rows are not viewed again.
    Still,
}

/// What a write's landing may read of the moment: the time and zone a
/// notice names a time in, and the screen shown (a notice's hint is the
/// key on it).
#[derive(Debug, Clone, Copy)]
pub struct Landing {
    pub now: chrono::DateTime<chrono::Utc>,
    pub zone: crate::display::Zone,
    pub shown: super::ScreenId,
}

impl Landed {
    /// Done, and saying so.
    pub fn done(text: impl Into<String>) -> Landed {
        Landed {
            said: Some(Ok(text.into())),
            ..Landed::default()
        }
    }

    /// Done in part: a notice that stays.
    pub fn failed(text: impl Into<String>) -> Landed {
        Landed {
            said: Some(Err(text.into())),
            ..Landed::default()
        }
    }

    /// An answer of another kind than its write asks for: nothing lands.
    pub fn unfit(write: &impl std::fmt::Debug, written: &Written) -> Landed {
        tracing::warn!(?write, ?written, "an answer that does not fit its write");
        Landed {
            then: vec![Then::Still],
            ..Landed::default()
        }
    }

    pub fn with(mut self, changes: Vec<Change>) -> Landed {
        self.changes = changes;
        self
    }

    pub fn closing(mut self) -> Landed {
        self.closes = true;
        self
    }

    pub fn then(mut self, then: Then) -> Landed {
        self.then.push(then);
        self
    }
}

/// A refusal in the server's words, else the error: what a row of a write
/// of several requests says when it failed.
pub fn refused(error: api::Error) -> String {
    match error.refusal() {
        Some(refusal) if !refusal.detail.is_empty() => refusal.detail.clone(),
        _ => error.to_string(),
    }
}

/// Sends one request per membership of a write that adds people to roles
/// (what it is in words, the role's id, the user's UUID), each with its own
/// result.
pub(super) async fn add_each(
    client: &Client,
    organization: &str,
    adds: Vec<(String, String, String)>,
) -> Written {
    let mut results = Vec::new();
    for (what, role, user) in adds {
        let outcome = client
            .add_member(organization, &role, &user)
            .await
            .map(api::Raw::into_typed);
        results.push((what, outcome.map_err(refused)));
    }
    Written::Assigned(results)
}

/// A change about these people (by user UUID) alone, in every project.
pub fn proposed<'a>(change: AccessChange, uuids: impl IntoIterator<Item = &'a str>) -> Proposed {
    Proposed {
        change,
        people: People::only([], uuids, []),
        project: None,
        object: None,
    }
}

/// The changes of several writes (a bulk run's) as one: one batch, about
/// everyone any of them is about; `None` when none moves access. A rule
/// of one project among them makes it every project.
pub fn combined(proposals: Vec<Proposed>) -> Option<Proposed> {
    let mut proposals = proposals.into_iter();
    let first = proposals.next()?;
    let mut changes = vec![first.change];
    let mut people = first.people;
    let mut project = first.project;
    let object = first.object;
    for proposal in proposals {
        changes.push(proposal.change);
        people = either(people, proposal.people);
        if project != proposal.project {
            project = None;
        }
    }
    let change = match changes.len() {
        1 => changes.remove(0),
        _ => AccessChange::Batch(changes),
    };
    Some(Proposed {
        change,
        people,
        project,
        object,
    })
}

/// Everyone either names.
fn either(one: People, other: People) -> People {
    match (one, other) {
        (
            People::Only {
                mut membership_ids,
                mut user_uuids,
                mut emails,
            },
            People::Only {
                membership_ids: more_ids,
                user_uuids: more_uuids,
                emails: more_emails,
            },
        ) => {
            membership_ids.extend(more_ids);
            user_uuids.extend(more_uuids);
            emails.extend(more_emails);
            People::Only {
                membership_ids,
                user_uuids,
                emails,
            }
        }
        (People::Nobody, other) | (other, People::Nobody) => other,
        _ => People::Everyone,
    }
}
