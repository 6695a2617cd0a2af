//! What the key may do: its scopes (read from `personal_api_keys/@current`,
//! and learnt from any 403 naming a scope), `--read-only`, and how many
//! insights a dashboard subscription may export (learnt from a refusal). A
//! write the key cannot make is refused before it is tried, with the reason.

use super::App;
use super::keymap::Action;

/// What the console knows of the key's permissions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Permissions {
    /// The key's scopes, once read; `None` until then (writes are allowed
    /// and the server decides).
    pub scopes: Option<Vec<String>>,
    /// Scopes a 403 said the key lacks.
    pub denied: Vec<String>,
    /// Started with `--read-only`: no writes at all.
    pub read_only: bool,
    /// The most insights a dashboard subscription may export: the plan
    /// decides it (posthog.md 15-4), so it is unknown until a refusal of
    /// more names it; the form then refuses a choice beyond it.
    pub export_cap: Option<usize>,
}

impl Permissions {
    /// Whether the key holds a scope, as the server decides it, unless a
    /// refusal said otherwise; unknown scopes leave it to the server.
    pub fn grants(&self, scope: &str) -> bool {
        if self.denied.iter().any(|denied| denied == scope) {
            return false;
        }
        self.scopes
            .as_deref()
            .is_none_or(|scopes| crate::api::scopes_grant(scopes, scope))
    }
}

impl App {
    /// The scope a write on the shown screen needs, if the action writes.
    fn scope_for(&self, action: Action) -> Option<&'static str> {
        if !action.writes() {
            return None;
        }
        Some(self.screens.shown(self.shown()).write_scope(action))
    }

    /// Whether Space is the shown page's own key (an offboarding's
    /// options) rather than a mark.
    pub(super) fn page_takes_space(&self) -> bool {
        self.screens
            .page(self.shown())
            .is_some_and(|page| page.takes_space())
    }

    /// Why an action is unavailable, if it is.
    pub fn unavailable(&self, action: Action) -> Option<String> {
        // Space that is a page's own (an offboarding's options) marks nothing.
        let options = action == Action::Mark && self.page_takes_space();
        if matches!(action, Action::Mark | Action::MarkAll)
            && !options
            && !self.screens.shown(self.shown()).takes_marks()
        {
            return Some(format!(
                "the {} take no marks",
                self.screens.shown(self.shown()).title().to_lowercase()
            ));
        }
        let scope = self.scope_for(action)?;
        if self.permissions.read_only {
            return Some("read-only: orgdeck was started with --read-only".into());
        }
        if self.connection.switching.is_some() {
            return Some("a :ctx switch is on its way; wait until it has answered".into());
        }
        if !self.permissions.grants(scope) {
            return Some(format!("the API key lacks the '{scope}' scope"));
        }
        None
    }

    /// Takes the scopes the server says the key holds.
    pub(super) fn scopes_known(&mut self, scopes: Option<Vec<String>>) {
        if scopes.is_some() {
            self.permissions.scopes = scopes;
        }
        self.window.dirty = true;
    }

    /// Remembers a scope a refusal named as missing.
    pub(super) fn learn_from(&mut self, error: &crate::api::Error) {
        if let Some(cap) = error.export_cap() {
            self.permissions.export_cap = Some(cap);
        }
        if let Some(scope) = error.refusal().and_then(|refusal| refusal.missing_scope())
            && !self.permissions.denied.iter().any(|known| known == scope)
        {
            self.permissions.denied.push(scope.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_grant_as_the_server_does() {
        let mut permissions = Permissions::default();
        assert!(
            permissions.grants("organization:write"),
            "unknown: the server decides"
        );
        permissions.scopes = Some(vec!["organization:read".into(), "subscription:write".into()]);
        assert!(!permissions.grants("organization:write"));
        assert!(permissions.grants("subscription:read"));
        permissions.scopes = Some(vec!["*".into()]);
        permissions.denied.push("subscription:write".into());
        assert!(!permissions.grants("subscription:write"), "a 403 overrides");
    }
}
