//! What the lists ask the server to change, and the question asked before
//! a change: the vocabulary the lists and the app share, kept below both
//! (the app re-exports it), so that no list reaches up into the app.

use crate::api::SubscriptionInput;
use crate::console::lists::picker::Person;
use crate::console::screens::roles;
use crate::console::widgets::form::Form;
use crate::console::widgets::question::Answer;

use super::bulk::Bulk;

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

    /// The one write "yes" sends, if it sends one.
    pub fn single(&self) -> Option<&Write> {
        match &self.then {
            Confirmed::Write(write) => Some(write),
            Confirmed::Bulk(_) => None,
        }
    }
}

/// What a question's "yes" sends.
#[derive(Debug, Clone)]
pub enum Confirmed {
    Write(Write),
    /// A write for each marked row, a few at a time.
    Bulk(Box<Bulk>),
}

/// A change to send to the server. Each screen's own writes move into its
/// folder (`screens/<name>/writes.rs`) as one variant here, Roles first.
#[derive(Debug, Clone, PartialEq)]
pub enum Write {
    /// A role created, saved or deleted: the Roles screen's own
    /// (`screens/roles/writes.rs`).
    Role(roles::Write),
    RemoveMember {
        organization: String,
        role: String,
        id: String,
    },
    /// A new subscription from a form's body.
    CreateSubscription {
        project: String,
        body: Box<SubscriptionInput>,
    },
    /// The changed fields of a subscription.
    UpdateSubscription {
        project: String,
        id: i64,
        body: Box<SubscriptionInput>,
    },
    /// One request per person, each with its own result.
    AssignMembers {
        organization: String,
        role: String,
        people: Vec<Person>,
    },
    /// `PATCH {"deleted": true}`: subscriptions are never hard-deleted.
    SoftDelete {
        project: String,
        id: i64,
    },
    Restore {
        project: String,
        id: i64,
    },
    /// People into roles: one request per person and role, each with its
    /// own result (`Written::Assigned`).
    AddToRoles {
        organization: String,
        people: Vec<Person>,
        roles: Vec<crate::people::RoleRef>,
    },
    /// A member's level (1 member, 8 admin, 15 owner).
    SetLevel {
        organization: String,
        person: Person,
        level: i64,
    },
    /// An offboarding plan, run a few steps at a time: each step's end
    /// comes back as `Msg::OffboardStep` with the write's ticket, then the
    /// whole as `Written::Offboarded`.
    Offboard {
        organization: String,
        plan: Box<crate::people::offboard::Plan>,
    },
    /// `POST …/test-delivery/`: a delivery now (202, no body).
    TestDelivery {
        project: String,
        id: i64,
    },
    /// `PATCH {"enabled": …}`: pause, or resume.
    SetEnabled {
        project: String,
        id: i64,
        enabled: bool,
    },
}

impl Write {
    /// What the write does, in words, for a question.
    pub fn summary(&self) -> String {
        match self {
            Write::Role(write) => write.summary(),
            Write::RemoveMember { .. } => "Remove the member from the role".into(),
            Write::CreateSubscription { .. } => "Create the subscription".into(),
            Write::UpdateSubscription { id, .. } => format!("Save subscription #{id}"),
            Write::AssignMembers { people, .. } => format!(
                "Assign {} {} to the role",
                people.len(),
                if people.len() == 1 { "person" } else { "people" }
            ),
            Write::AddToRoles { people, roles, .. } => format!(
                "Add {} {} to {} role{}",
                people.len(),
                if people.len() == 1 { "person" } else { "people" },
                roles.len(),
                crate::text::plural(roles.len())
            ),
            Write::SetLevel { person, level, .. } => format!(
                "Make {} {}",
                person.label,
                crate::api::models::level::name(*level)
            ),
            Write::Offboard { plan, .. } => format!(
                "Offboard {}: {} change{}",
                plan.person.email,
                plan.changes(),
                crate::text::plural(plan.changes())
            ),
            Write::SoftDelete { id, .. } => format!("Soft-delete subscription #{id}"),
            Write::Restore { id, .. } => format!("Restore subscription #{id}"),
            Write::TestDelivery { id, .. } => format!("Send a test delivery of #{id} to its recipients"),
            Write::SetEnabled {
                id, enabled: true, ..
            } => format!("Resume subscription #{id}"),
            Write::SetEnabled {
                id, enabled: false, ..
            } => format!("Pause subscription #{id}"),
        }
    }
}
