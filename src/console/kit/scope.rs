//! Where a screen's rows live on the server: the organization and the
//! project it is about. Every screen's requests and writes are addressed
//! by it, so it sits on the floor every screen stands on.

/// The organization and the project the screen is about.
#[derive(Debug, Clone, Copy)]
pub struct Scope<'a> {
    pub organization: &'a str,
    pub project: &'a str,
}
