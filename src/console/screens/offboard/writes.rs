//! What an offboarding asks the server to change: its plan, run a few
//! steps at a time by the effects runner (which tells each step's end as it
//! comes, with the write's ticket, and keeps the record), and how the whole
//! ended.

use crate::people::offboard::Plan;

/// An offboarding plan to run.
#[derive(Debug, Clone, PartialEq)]
pub struct Write {
    pub organization: String,
    pub plan: Box<Plan>,
}

impl Write {
    /// What the write does, in words, for a question.
    pub fn summary(&self) -> String {
        format!(
            "Offboard {}: {} change{}",
            self.plan.person.email,
            self.plan.changes(),
            crate::text::plural(self.plan.changes())
        )
    }
}

/// How an offboarding ended.
#[derive(Debug)]
pub struct Offboarded {
    pub plan: Plan,
    /// The record's file, or why it could not be written.
    pub record: Result<std::path::PathBuf, String>,
}
