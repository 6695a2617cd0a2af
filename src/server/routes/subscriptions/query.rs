//! What a subscription request's query string asks for: a list's filters,
//! search and ordering (posthog.md 8.3; compat.md for the older flavor), and
//! the filters today's PostHog applies to a single row as well.

use crate::api::{ResourceType, Subscription};
use crate::server::Flavor;
use crate::server::error::{ApiError, ApiResult};
use crate::server::fields::parse_bool;
use crate::server::paging::ListRequest;
use crate::server::store::subscription_list::{ListQuery, Sort, SortKey};

/// The target types a list may be filtered by in today's PostHog, sorted.
const TARGET_TYPES: [&str; 2] = ["email", "slack"];

/// A parameter's value, trimmed; an empty one counts as absent.
fn text<'a>(request: &'a ListRequest, name: &str) -> Option<&'a str> {
    request.param(name).map(str::trim).filter(|text| !text.is_empty())
}

/// An `insight` or `dashboard` id filter.
fn id_filter(request: &ListRequest, name: &str) -> ApiResult<Option<i64>> {
    text(request, name)
        .map(|text| {
            text.parse::<i64>()
                .map_err(|_| ApiError::validation("invalid", "Enter a number.").on(name))
        })
        .transpose()
}

/// `?deleted=`: today's PostHog reads any value as true or false (Django's
/// `str_to_bool`); the older docs take true or false only.
fn deleted_filter(request: &ListRequest, flavor: Flavor) -> ApiResult<Option<bool>> {
    let Some(value) = request.param("deleted") else {
        return Ok(None);
    };
    match flavor {
        Flavor::Current => Ok(Some(matches!(
            value.trim().to_ascii_lowercase().as_str(),
            "y" | "yes" | "t" | "true" | "on" | "1"
        ))),
        Flavor::Seed => match value.trim() {
            "" => Ok(None),
            text => parse_bool(text)
                .map(Some)
                .ok_or_else(|| ApiError::validation("invalid", "Must be a valid boolean.").on("deleted")),
        },
    }
}

/// The filters and ordering of a list.
pub fn list_query(request: &ListRequest, flavor: Flavor) -> ApiResult<ListQuery> {
    let target_type = text(request, "target_type").map(str::to_string);
    let mut created_by = None;
    let mut resource_type = None;
    if flavor == Flavor::Current {
        if let Some(kind) = &target_type
            && !TARGET_TYPES.contains(&kind.as_str())
        {
            return Err(ApiError::validation(
                "invalid_input",
                format!("Must be one of: {}.", TARGET_TYPES.join(", ")),
            )
            .on("target_type"));
        }
        if let Some(uuid) = text(request, "created_by") {
            let uuid = uuid::Uuid::parse_str(uuid)
                .map_err(|_| ApiError::validation("invalid_input", "Not a valid UUID.").on("created_by"))?;
            created_by = Some(uuid.hyphenated().to_string());
        }
        // Other values are ignored, as PostHog ignores them.
        resource_type = text(request, "resource_type").and_then(|kind| match kind {
            "insight" => Some(ResourceType::Insight),
            "dashboard" => Some(ResourceType::Dashboard),
            "ai_prompt" => Some(ResourceType::AiPrompt),
            _ => None,
        });
    }
    Ok(ListQuery {
        deleted: deleted_filter(request, flavor)?.unwrap_or(false),
        insight: id_filter(request, "insight")?,
        dashboard: id_filter(request, "dashboard")?,
        target_type,
        created_by,
        resource_type,
        search: search_terms(request.param("search").unwrap_or("")),
        // The older flavor also finds a target value (compat.md's extension).
        search_targets: flavor == Flavor::Seed,
        ordering: ordering(request.param("ordering").unwrap_or("")),
    })
}

/// DRF's search terms: split at white space and commas.
fn search_terms(search: &str) -> Vec<String> {
    search
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|term| !term.is_empty())
        .map(str::to_string)
        .collect()
}

/// A comma list of fields, each with `-` for descending; DRF's ordering
/// filter drops the fields it does not allow.
fn ordering(text: &str) -> Vec<Sort> {
    text.split(',')
        .filter_map(|field| {
            let field = field.trim();
            let (descending, name) = match field.strip_prefix('-') {
                Some(name) => (true, name),
                None => (false, field),
            };
            SortKey::from_wire(name).map(|key| Sort { key, descending })
        })
        .collect()
}

/// Today's PostHog filters every action's rows by `deleted`, `insight` and
/// `dashboard` when they are given, so a retrieve or an update of a row
/// they exclude answers 404. The older flavor ignores them there.
#[derive(Debug, Clone, Copy, Default)]
pub struct RowFilter {
    deleted: Option<bool>,
    insight: Option<i64>,
    dashboard: Option<i64>,
}

impl RowFilter {
    pub fn of(request: &ListRequest, flavor: Flavor) -> ApiResult<RowFilter> {
        match flavor {
            Flavor::Seed => Ok(RowFilter::default()),
            Flavor::Current => Ok(RowFilter {
                deleted: deleted_filter(request, flavor)?,
                insight: id_filter(request, "insight")?,
                dashboard: id_filter(request, "dashboard")?,
            }),
        }
    }

    /// Whether the row is one the request may see.
    pub fn admits(&self, subscription: &Subscription) -> bool {
        self.deleted.is_none_or(|deleted| subscription.deleted == deleted)
            && self
                .insight
                .is_none_or(|insight| subscription.insight == Some(insight))
            && self
                .dashboard
                .is_none_or(|dashboard| subscription.dashboard == Some(dashboard))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_terms_split_at_spaces_and_commas() {
        assert_eq!(search_terms(" weekly,  revenue ,"), ["weekly", "revenue"]);
        assert!(search_terms(" , ").is_empty());
    }

    #[test]
    fn unknown_ordering_fields_are_dropped() {
        let sorts = ordering("-title, nonsense,created_by__email,");
        assert_eq!(
            sorts,
            [
                Sort {
                    key: SortKey::Title,
                    descending: true
                },
                Sort {
                    key: SortKey::CreatorEmail,
                    descending: false
                }
            ]
        );
        assert!(ordering("target_value").is_empty());
    }
}
