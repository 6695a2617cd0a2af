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

/// The most terms one search may have. PostHog sets no limit, but each
/// term is one more condition on every row: a few hundred would cost the
/// server seconds (and past about a thousand, SQLite refuses the query).
pub const MAX_SEARCH_TERMS: usize = 32;

/// The most fields one `ordering` may name, for the same reason.
pub const MAX_ORDERING_FIELDS: usize = 8;

/// A parameter's value as Django reads it: the last one sent, when the
/// name is repeated.
fn param<'a>(request: &'a ListRequest, name: &str) -> Option<&'a str> {
    request
        .query
        .iter()
        .rev()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.as_str())
}

/// A parameter's value as sent; an empty one counts as absent (PostHog's
/// `if value:`). White space is kept: `" email"` is no target type.
fn given<'a>(request: &'a ListRequest, name: &str) -> Option<&'a str> {
    param(request, name).filter(|value| !value.is_empty())
}

/// A parameter's value, trimmed (Python's `int()` takes white space round
/// a number); an empty one counts as absent.
fn text<'a>(request: &'a ListRequest, name: &str) -> Option<&'a str> {
    param(request, name)
        .map(str::trim)
        .filter(|text| !text.is_empty())
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

/// Today's filters by several insights, or by a dashboard's tiles
/// (posthog.md 15-5).
#[derive(Default)]
struct ListFilters {
    insights: Option<Vec<i64>>,
    dashboard_tiles: Option<i64>,
}

/// A comma list of ids (`insights=1,2,3`); any piece that is not one is a
/// 400, never a filter quietly dropped.
fn id_list_filter(request: &ListRequest, name: &str) -> ApiResult<Option<Vec<i64>>> {
    text(request, name)
        .map(|text| {
            text.split(',')
                .map(|piece| {
                    piece.trim().parse::<i64>().map_err(|_| {
                        ApiError::validation(
                            "invalid",
                            format!("\"{}\" is not an id: give ids separated by commas.", piece.trim()),
                        )
                        .on(name)
                    })
                })
                .collect()
        })
        .transpose()
}

/// `?deleted=`: today's PostHog reads any value as true or false (Django's
/// `str_to_bool`); the older docs take true or false only.
fn deleted_filter(request: &ListRequest, flavor: Flavor) -> ApiResult<Option<bool>> {
    let Some(value) = param(request, "deleted") else {
        return Ok(None);
    };
    match flavor {
        // `str_to_bool` neither trims nor takes anything else for true.
        Flavor::Current => Ok(Some(matches!(
            value.to_lowercase().as_str(),
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
    let target_type = match flavor {
        Flavor::Current => given(request, "target_type"),
        Flavor::Seed => text(request, "target_type"),
    }
    .map(str::to_string);
    let mut created_by = None;
    let mut resource_type = None;
    let mut list_filters = ListFilters::default();
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
        if let Some(uuid) = given(request, "created_by") {
            let uuid = uuid::Uuid::parse_str(uuid)
                .map_err(|_| ApiError::validation("invalid_input", "Not a valid UUID.").on("created_by"))?;
            created_by = Some(uuid.hyphenated().to_string());
        }
        list_filters = ListFilters {
            insights: id_list_filter(request, "insights")?,
            dashboard_tiles: id_filter(request, "dashboard_tiles")?,
        };
        // Other values are ignored, as PostHog ignores them.
        resource_type = given(request, "resource_type").and_then(|kind| match kind {
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
        insights: list_filters.insights,
        dashboard_tiles: list_filters.dashboard_tiles,
        search: distinct_terms(bounded_search(param(request, "search").unwrap_or(""))?),
        // The older flavor also finds a target value (compat.md's extension).
        search_targets: flavor == Flavor::Seed,
        ordering: ordering(
            bounded_ordering(param(request, "ordering").unwrap_or(""))?,
            flavor,
        ),
    })
}

/// The search's terms, at most [`MAX_SEARCH_TERMS`] of them.
fn bounded_search(search: &str) -> ApiResult<Vec<String>> {
    let terms = search_terms(search);
    if terms.len() > MAX_SEARCH_TERMS {
        return Err(ApiError::validation(
            "invalid_input",
            format!(
                "A search may have at most {MAX_SEARCH_TERMS} terms; this one has {}.",
                terms.len()
            ),
        )
        .on("search"));
    }
    Ok(terms)
}

/// The ordering as sent, when it names at most [`MAX_ORDERING_FIELDS`].
fn bounded_ordering(text: &str) -> ApiResult<&str> {
    let fields = text.split(',').filter(|field| !field.trim().is_empty()).count();
    if fields > MAX_ORDERING_FIELDS {
        return Err(ApiError::validation(
            "invalid_input",
            format!("An ordering may name at most {MAX_ORDERING_FIELDS} fields; this one names {fields}."),
        )
        .on("ordering"));
    }
    Ok(text)
}

/// The terms that decide the search: every term must be found, so a term
/// that repeats another (in any case) or stands inside a longer one adds
/// nothing, and is dropped. The empty term ("any name") is kept once.
fn distinct_terms(terms: Vec<String>) -> Vec<String> {
    let folded: Vec<String> = terms.iter().map(|term| term.to_lowercase()).collect();
    let mut kept: Vec<String> = Vec::new();
    let mut kept_folded: Vec<&str> = Vec::new();
    for (index, (term, fold)) in terms.iter().zip(&folded).enumerate() {
        let implied = !fold.is_empty()
            && folded.iter().enumerate().any(|(other, longer)| {
                other != index
                    && longer.contains(fold.as_str())
                    && (longer.len() > fold.len() || other < index)
            });
        if !implied && !kept_folded.contains(&fold.as_str()) {
            kept.push(term.clone());
            kept_folded.push(fold);
        }
    }
    kept
}

/// White space as Python's `str.isspace` (and so `\s` and `split()`)
/// reads it: Unicode's, and the four information separators.
fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

fn is_quote(c: char) -> bool {
    c == '"' || c == '\''
}

/// Django's `smart_split`: the pieces of `text` between white space, where
/// a piece holding a quoted string (backslash escaping) keeps the white
/// space inside it. A quote that is never closed is an ordinary character.
fn smart_split(text: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let at = |index: usize| chars.get(index).map_or(text.len(), |&(at, _)| at);
    // The end of a run of characters that are neither space nor quote.
    let run = |mut index: usize| {
        while index < chars.len() && !is_space(chars[index].1) && !is_quote(chars[index].1) {
            index += 1;
        }
        index
    };
    // The index of the quote closing the one at `open`, if any; `\` takes
    // the next character, a line break excepted (a regex `.`).
    let closing = |open: usize| {
        let quote = chars[open].1;
        let mut index = open + 1;
        while index < chars.len() {
            match chars[index].1 {
                '\\' if chars.get(index + 1).is_some_and(|&(_, next)| next != '\n') => index += 2,
                '\\' => return None,
                c if c == quote => return Some(index),
                _ => index += 1,
            }
        }
        None
    };
    let mut pieces = Vec::new();
    let mut start = 0;
    while start < chars.len() {
        if is_space(chars[start].1) {
            start += 1;
            continue;
        }
        // Runs and complete quoted strings, at least one of them quoted...
        let mut end = None;
        let mut index = run(start);
        while index < chars.len() && is_quote(chars[index].1) {
            let Some(close) = closing(index) else { break };
            index = run(close + 1);
            end = Some(index);
        }
        // ... or else everything up to the next space.
        let end = end.unwrap_or_else(|| {
            let mut index = start;
            while index < chars.len() && !is_space(chars[index].1) {
                index += 1;
            }
            index
        });
        pieces.push(&text[at(start)..at(end)]);
        start = end;
    }
    pieces
}

/// DRF's search terms (`search_smart_split`, DRF 3.15 and later, which
/// today's PostHog runs): the pieces of `smart_split`, commas trimmed; a
/// quoted piece is one term without its quotes, any other is split at
/// commas.
fn search_terms(search: &str) -> Vec<String> {
    let mut terms = Vec::new();
    for piece in smart_split(search) {
        let piece = piece.trim_matches(',');
        let mut chars = piece.chars();
        match (chars.next(), chars.next_back()) {
            // `unescape_string_literal`; a lone quote is an empty phrase.
            (Some(first), last) if is_quote(first) && last.is_none_or(|last| last == first) => {
                let inner = piece
                    .strip_prefix(first)
                    .and_then(|rest| rest.strip_suffix(first))
                    .unwrap_or("");
                terms.push(
                    inner
                        .replace(&format!("\\{first}"), &first.to_string())
                        .replace("\\\\", "\\"),
                );
            }
            _ => terms.extend(
                piece
                    .split(',')
                    .filter(|term| !term.is_empty())
                    .map(|term| term.trim_matches(is_space).to_string()),
            ),
        }
    }
    terms
}

/// A comma list of fields, each with `-` for descending; DRF's ordering
/// filter drops the fields it does not allow. The creator's e-mail is
/// today's (compat.md allows the other three only). A field named again
/// orders nothing more and is dropped.
fn ordering(text: &str, flavor: Flavor) -> Vec<Sort> {
    let mut sorts: Vec<Sort> = Vec::new();
    let fields = text.split(',').filter_map(|field| {
        let field = field.trim();
        let (descending, name) = match field.strip_prefix('-') {
            Some(name) => (true, name),
            None => (false, field),
        };
        SortKey::from_wire(name)
            .filter(|&key| key != SortKey::CreatorEmail || flavor == Flavor::Current)
            .map(|key| Sort { key, descending })
    });
    for sort in fields {
        if !sorts.iter().any(|known| known.key == sort.key) {
            sorts.push(sort);
        }
    }
    sorts
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
        assert_eq!(search_terms("a\tb\u{1f}c\u{a0}d"), ["a", "b", "c", "d"]);
        assert!(search_terms(" , ").is_empty());
    }

    /// DRF 3.15's `search_smart_split`, case by case.
    #[test]
    fn quoted_phrases_are_kept_whole() {
        let cases: &[(&str, &[&str])] = &[
            ("\"board pack\" 4", &["board pack", "4"]),
            ("'board pack',x", &["'board pack'", "x"]),
            (",'board pack',", &["board pack"]),
            ("\"a\\\"b\"", &["a\"b"]),
            ("\"back\\\\slash\"", &["back\\slash"]),
            ("\"done", &["\"done"]),
            ("done\"", &["done\""]),
            ("O'Reilly", &["O'Reilly"]),
            ("a\"b c\"d", &["a\"b c\"d"]),
            ("\"a\"b\"c", &["\"a\"b", "\"c"]),
            ("\"a b\",c", &["\"a b\"", "c"]),
            ("\"", &[""]),
            ("''", &[""]),
            ("\"a\\", &["\"a\\"]),
        ];
        for (search, terms) in cases {
            assert_eq!(search_terms(search), *terms, "{search}");
        }
    }

    #[test]
    fn terms_that_add_nothing_are_dropped() {
        let terms = |text: &str| distinct_terms(search_terms(text));
        assert_eq!(terms(&["e"; 300].join(" ")), ["e"]);
        assert_eq!(terms("rev Revenue e E venue"), ["Revenue"]);
        assert_eq!(terms("week daily"), ["week", "daily"]);
        assert_eq!(terms("\"\" a \"\""), ["", "a"]);
        assert_eq!(terms("Ab aB"), ["Ab"]);
    }

    #[test]
    fn searches_and_orderings_are_bounded() {
        let many = ["t"; MAX_SEARCH_TERMS + 1].join(" ");
        let error = bounded_search(&many).unwrap_err();
        assert_eq!(error.body.unwrap().attr.as_deref(), Some("search"));
        assert!(bounded_search(&["t"; MAX_SEARCH_TERMS].join(" ")).is_ok());
        let error = bounded_ordering(&["title"; MAX_ORDERING_FIELDS + 1].join(",")).unwrap_err();
        assert_eq!(error.body.unwrap().attr.as_deref(), Some("ordering"));
        assert_eq!(ordering("title,-title,title", Flavor::Current).len(), 1);
    }

    #[test]
    fn unknown_ordering_fields_are_dropped() {
        let sorts = ordering("-title, nonsense,created_by__email,", Flavor::Current);
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
        assert!(ordering("target_value", Flavor::Current).is_empty());
        assert!(ordering("created_by__email", Flavor::Seed).is_empty());
    }
}
