//! Access levels and the resources that take rules (posthog.md 16.1): which
//! levels each resource has and in what order, its built-in default, the
//! bounds a rule must keep, and which resources stand for another.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::api::enums::{UnknownValue, string_enum};

string_enum!(
    /// An access level. Projects and the organization are `none` < `member`
    /// < `admin`; every other resource `none` < `viewer` < `editor` <
    /// `manager`.
    AccessLevel {
        None => "none",
        Member => "member",
        Admin => "admin",
        Viewer => "viewer",
        Editor => "editor",
        Manager => "manager",
    }
);

/// The project, as a resource: an object (the project itself) whose rules
/// decide who reaches it.
pub const PROJECT: &str = "project";

/// The organization: no rules, its members' levels decide.
pub const ORGANIZATION: &str = "organization";

/// The levels of a project or of the organization, lowest first.
pub const MEMBER_LEVELS: &[AccessLevel] = &[AccessLevel::None, AccessLevel::Member, AccessLevel::Admin];

/// The levels of every other resource, lowest first.
pub const RESOURCE_LEVELS: &[AccessLevel] = &[
    AccessLevel::None,
    AccessLevel::Viewer,
    AccessLevel::Editor,
    AccessLevel::Manager,
];

/// The resources that take rules (`ACCESS_CONTROL_RESOURCES`), in
/// PostHog's order: the settings endpoints answer for each of them.
pub const RESOURCES: &[&str] = &[
    "action",
    "customer_analytics",
    "dashboard",
    "early_access_feature",
    "endpoint",
    "experiment",
    "export",
    "external_data_source",
    "warehouse_objects",
    "feature_flag",
    "heatmap",
    "hog_flow",
    "insight",
    "llm_analytics",
    "evaluation",
    "tagger",
    "llm_skill",
    "ai_observability_clusters",
    "notebook",
    "revenue_analytics",
    "session_recording",
    "sharing_configuration",
    "survey",
    "ticket",
    "web_analytics",
    "activity_log",
    "error_tracking",
    "logs",
    "mcp_analytics",
    "metrics",
    "tracing",
    "replay_scanner",
    "toolbar",
    "llm_playground",
];

/// The resources whose objects the reference server holds, so that rules
/// may name one of them (`object_rule_resources`), sorted.
pub const OBJECT_RESOURCES: &[&str] = &["dashboard", "feature_flag", "insight", "notebook"];

/// Every public API scope object, in PostHog's order (posthog/scopes.py,
/// internal ones left out): what a rule's `resource` may name.
pub const SCOPE_OBJECTS: &[&str] = &[
    "action",
    "access_control",
    "account",
    "activity_log",
    "alert",
    "annotation",
    "approvals",
    "batch_export",
    "batch_import",
    "batch_import_support",
    "billing",
    "business_knowledge",
    "canvas",
    "cohort",
    "comment",
    "conversation",
    "customer_analytics",
    "customer_task",
    "customer_journey",
    "customer_profile_config",
    "data_catalog",
    "data_catalog_approval",
    "dashboard",
    "event_filter",
    "dashboard_template",
    "dataset",
    "early_access_feature",
    "endpoint",
    "engineering_analytics",
    "error_tracking",
    "evaluation",
    "element",
    "event_definition",
    "experiment",
    "experiment_holdout",
    "experiment_saved_metric",
    "export",
    "external_data_schema",
    "external_data_source",
    "feature_flag",
    "file_system",
    "file_system_shortcut",
    "group",
    "health_issue",
    "heatmap",
    "hog_flow",
    "hog_function",
    "ingestion_warning",
    "insight",
    "insight_variable",
    "integration",
    "legal_document",
    "link",
    "live_debugger",
    "llm_analytics",
    "ai_observability_clusters",
    "llm_gateway",
    "llm_playground",
    "llm_prompt",
    "llm_provider_key",
    "llm_skill",
    "logs",
    "loop",
    "marketing_analytics",
    "mcp_analytics",
    "metrics",
    "notebook",
    "organization",
    "organization_integration",
    "organization_member",
    "person",
    "plugin",
    "product_enablement",
    "product_tour",
    "project",
    "property_definition",
    "query",
    "query_performance",
    "replay_scanner",
    "review_hog",
    "revenue_analytics",
    "session_recording",
    "session_recording_playlist",
    "sharing_configuration",
    "signal_scout",
    "stamphog",
    "streamlit_app",
    "subscription",
    "survey",
    "tagger",
    "ticket",
    "task",
    "toolbar",
    "tracing",
    "field_note",
    "uploaded_media",
    "usage_metric",
    "user",
    "user_interview",
    "vision_action",
    "vision_alert",
    "visual_review",
    "warehouse_objects",
    "warehouse_table",
    "warehouse_view",
    "web_analytics",
    "webhook",
    "wizard_session",
];

/// Resources that have no access of their own and use another's
/// (`RESOURCE_INHERITANCE_MAP`).
const INHERITS: &[(&str, &str)] = &[
    ("session_recording_playlist", "session_recording"),
    ("warehouse_table", "warehouse_objects"),
    ("warehouse_view", "warehouse_objects"),
    ("dataset", "llm_analytics"),
    ("llm_provider_key", "llm_analytics"),
    ("llm_prompt", "llm_analytics"),
    ("account", "customer_analytics"),
    ("customer_journey", "customer_analytics"),
    ("experiment_saved_metric", "experiment"),
    ("experiment_holdout", "experiment"),
    ("dashboard_template", "dashboard"),
    ("marketing_analytics", "web_analytics"),
    ("vision_action", "replay_scanner"),
    ("vision_alert", "replay_scanner"),
];

/// The resource whose access `resource` uses, when it has none of its own.
pub fn inherits_from(resource: &str) -> Option<&'static str> {
    INHERITS
        .iter()
        .find(|(child, _)| *child == resource)
        .map(|(_, parent)| *parent)
}

/// The resource whose rules decide for `resource`: its parent when it
/// inherits, else itself.
pub fn deciding_resource(resource: &str) -> &str {
    inherits_from(resource).unwrap_or(resource)
}

/// Whether resource-wide rules mean anything for `resource`: not for the
/// organization, a project or a plugin, whose access comes from membership
/// (`RESOURCES_WITHOUT_RESOURCE_LEVEL_CONTROLS`).
pub fn has_resource_rules(resource: &str) -> bool {
    !matches!(resource, "organization" | "project" | "plugin")
}

/// Whether a rule may name `resource` (any public scope object).
pub fn is_scope_object(resource: &str) -> bool {
    SCOPE_OBJECTS.contains(&resource)
}

/// The levels of `resource`, lowest first.
pub fn levels(resource: &str) -> &'static [AccessLevel] {
    if resource == PROJECT || resource == ORGANIZATION {
        MEMBER_LEVELS
    } else {
        RESOURCE_LEVELS
    }
}

/// Where `level` stands among the levels of `resource`; `None` for a level
/// that resource does not have.
pub fn rank(resource: &str, level: &AccessLevel) -> Option<usize> {
    levels(resource).iter().position(|known| known == level)
}

/// Whether `level` reaches `required` among the levels of `resource`; a
/// level the resource does not have reaches nothing.
pub fn reaches(resource: &str, level: &AccessLevel, required: &AccessLevel) -> bool {
    match (rank(resource, level), rank(resource, required)) {
        (Some(level), Some(required)) => level >= required,
        _ => false,
    }
}

/// The built-in default: `admin` for a project, `member` for the
/// organization, `viewer` for the activity log and the toolbar, `editor`
/// for everything else.
pub fn default_level(resource: &str) -> AccessLevel {
    match resource {
        PROJECT => AccessLevel::Admin,
        ORGANIZATION => AccessLevel::Member,
        "activity_log" | "toolbar" => AccessLevel::Viewer,
        _ => AccessLevel::Editor,
    }
}

/// The lowest level a rule may set: `viewer` for actions, else `none`.
pub fn minimum_level(resource: &str) -> AccessLevel {
    if resource == "action" {
        AccessLevel::Viewer
    } else {
        AccessLevel::None
    }
}

/// The highest level: `viewer` for the activity log and the toolbar, else
/// the top of the resource's levels.
pub fn maximum_level(resource: &str) -> AccessLevel {
    match resource {
        "activity_log" | "toolbar" => AccessLevel::Viewer,
        _ => levels(resource).last().cloned().unwrap_or(AccessLevel::Manager),
    }
}

/// The resource in words, plural, as PostHog's messages name it.
pub fn display_name(resource: &str) -> String {
    match resource {
        "organization" => "organization".into(),
        "hog_flow" => "workflows".into(),
        "ai_observability_clusters" => "AI trace clusters".into(),
        "external_data_source" => "data warehouse sources".into(),
        "warehouse_objects" => "data warehouse tables & views".into(),
        "llm_playground" => "LLM playground".into(),
        "llm_analytics" => "LLM analytics".into(),
        "mcp_analytics" => "MCP analytics".into(),
        "llm_skill" => "LLM skills".into(),
        "activity_log" => "activity log".into(),
        // Names that are plural or uncountable already.
        "customer_analytics" | "revenue_analytics" | "web_analytics" | "error_tracking" | "logs"
        | "metrics" | "tracing" | "toolbar" => resource.replace('_', " "),
        _ => format!("{}s", resource.replace('_', " ")),
    }
}

/// Why a level cannot be set on a resource, in PostHog's words (posthog.md
/// 16.1-16.2); `None` when it can.
pub fn level_refusal(resource: &str, level: &AccessLevel) -> Option<String> {
    let levels = levels(resource);
    let Some(at) = rank(resource, level) else {
        let names: Vec<&str> = levels.iter().map(AccessLevel::as_str).collect();
        return Some(format!(
            "Invalid access level. Must be one of: {}",
            names.join(", ")
        ));
    };
    let minimum = minimum_level(resource);
    if rank(resource, &minimum).is_some_and(|floor| at < floor) {
        return Some(format!(
            "Access level cannot be set below the minimum '{minimum}' for {resource}."
        ));
    }
    let maximum = maximum_level(resource);
    if rank(resource, &maximum).is_some_and(|ceiling| at > ceiling) {
        return Some(format!(
            "Access level cannot be set above the maximum '{maximum}' for {resource}."
        ));
    }
    None
}

/// PostHog's refusal of an unknown resource: the public scope objects as a
/// Python tuple.
pub fn resource_refusal() -> String {
    let quoted: Vec<String> = SCOPE_OBJECTS.iter().map(|name| format!("'{name}'")).collect();
    format!("Invalid resource. Must be one of: ({})", quoted.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_bounds_are_posthog_s() {
        assert_eq!(default_level("project"), AccessLevel::Admin);
        assert_eq!(default_level("dashboard"), AccessLevel::Editor);
        assert_eq!(default_level("toolbar"), AccessLevel::Viewer);
        assert_eq!(maximum_level("activity_log"), AccessLevel::Viewer);
        assert_eq!(maximum_level("project"), AccessLevel::Admin);
        assert_eq!(minimum_level("action"), AccessLevel::Viewer);
        assert_eq!(RESOURCES.len(), 34);
        assert!(RESOURCES.iter().all(|resource| is_scope_object(resource)));
        assert!(OBJECT_RESOURCES.windows(2).all(|pair| pair[0] < pair[1]));
    }

    #[test]
    fn refusals_read_as_posthog_s() {
        assert_eq!(
            level_refusal("project", &AccessLevel::Viewer).unwrap(),
            "Invalid access level. Must be one of: none, member, admin"
        );
        assert_eq!(
            level_refusal("action", &AccessLevel::None).unwrap(),
            "Access level cannot be set below the minimum 'viewer' for action."
        );
        assert_eq!(
            level_refusal("toolbar", &AccessLevel::Editor).unwrap(),
            "Access level cannot be set above the maximum 'viewer' for toolbar."
        );
        assert_eq!(level_refusal("dashboard", &AccessLevel::Manager), None);
        assert!(
            resource_refusal().starts_with("Invalid resource. Must be one of: ('action', 'access_control'")
        );
    }

    #[test]
    fn inherited_resources_use_their_parent() {
        assert_eq!(deciding_resource("dashboard_template"), "dashboard");
        assert_eq!(deciding_resource("dashboard"), "dashboard");
        assert!(!has_resource_rules("project"));
    }
}
