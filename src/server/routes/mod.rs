//! HTTP handlers, one module per resource.

pub mod memberships;
pub mod pickers;
pub mod roles;
pub mod subscriptions;

/// Scope names of compat.md.
pub mod scope {
    pub const ORGANIZATION_READ: &str = "organization:read";
    pub const ORGANIZATION_WRITE: &str = "organization:write";
    pub const SUBSCRIPTION_READ: &str = "subscription:read";
    pub const SUBSCRIPTION_WRITE: &str = "subscription:write";
    pub const ORGANIZATION_MEMBER_READ: &str = "organization_member:read";
    pub const PROJECT_READ: &str = "project:read";
    pub const DASHBOARD_READ: &str = "dashboard:read";
    pub const INSIGHT_READ: &str = "insight:read";
}
