//! What an older PostHog does that the client works around, each said once
//! per client (and so per command): PostHog's application of August 2025
//! passes every query parameter of a role list to its database filter, so
//! `roles/?limit=100&offset=0` answers 500 there; the list is asked again
//! without `limit` and `offset`, and from then on asked that way.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// What this client learnt of its server, and what it has to say of it.
#[derive(Debug, Default)]
pub struct Older {
    /// Role lists are asked without `limit` and `offset`.
    roles_unpaged: AtomicBool,
    /// Notes not yet taken, each once.
    notes: Mutex<Vec<String>>,
}

impl Older {
    pub fn roles_unpaged(&self) -> bool {
        self.roles_unpaged.load(Ordering::Relaxed)
    }

    /// A role list answered 500 with `limit` and `offset` and its answer
    /// without them: said once.
    pub fn found_roles_unpaged(&self, path: &str) {
        if self.roles_unpaged.swap(true, Ordering::Relaxed) {
            return;
        }
        let note = format!(
            "the server answered 500 to {path}?limit=…&offset=… (an older PostHog passes them to its filter): \
             role lists are asked again without limit and offset"
        );
        tracing::warn!("{note}");
        self.say(note);
    }

    fn say(&self, note: String) {
        if let Ok(mut notes) = self.notes.lock() {
            notes.push(note);
        }
    }

    /// The notes not yet taken.
    pub fn take_notes(&self) -> Vec<String> {
        self.notes
            .lock()
            .map(|mut notes| std::mem::take(&mut *notes))
            .unwrap_or_default()
    }
}
