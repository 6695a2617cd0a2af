//! What a list of subscriptions asks the server for (compat.md's filters and
//! ordering), and whether a subscription it holds still fits them. Below
//! both `operations` and `paging`, which each use it, so that neither
//! reaches into the other for it.

use super::models::Subscription;

/// The filters and ordering of the subscription list (compat.md).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SubscriptionFilter {
    /// Soft-deleted ones only, instead of the others.
    pub deleted: bool,
    pub search: Option<String>,
    pub target_type: Option<String>,
    pub dashboard: Option<i64>,
    pub insight: Option<i64>,
    /// `insight`, `dashboard` or `ai_prompt` (today's PostHog).
    pub resource_type: Option<String>,
    /// The UUID of the user who created them (today's PostHog).
    pub created_by: Option<String>,
    /// `created_at`, `next_delivery_date` or `title`, `-` for descending.
    pub ordering: Option<String>,
}

impl SubscriptionFilter {
    pub fn query(&self) -> Vec<(&'static str, String)> {
        let mut query = Vec::new();
        if self.deleted {
            query.push(("deleted", "true".to_string()));
        }
        let texts = [
            ("search", &self.search),
            ("target_type", &self.target_type),
            ("resource_type", &self.resource_type),
            ("created_by", &self.created_by),
            ("ordering", &self.ordering),
        ];
        for (name, value) in texts {
            if let Some(value) = value.as_ref().filter(|value| !value.is_empty()) {
                query.push((name, value.clone()));
            }
        }
        let ids = [("dashboard", self.dashboard), ("insight", self.insight)];
        for (name, value) in ids {
            if let Some(value) = value {
                query.push((name, value.to_string()));
            }
        }
        query
    }

    /// The id a search names, when it is one (`12` or `#12`): PostHog
    /// searches titles and names, never ids, so a list that shows what is
    /// typed reads that subscription as well.
    pub fn searched_id(&self) -> Option<i64> {
        let text = self.search.as_deref()?.trim();
        let digits = text.strip_prefix('#').unwrap_or(text);
        (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
            .then(|| digits.parse().ok())
            .flatten()
            .filter(|id| *id > 0)
    }

    /// Whether the list holds this subscription by every filter but the
    /// search.
    pub fn holds(&self, subscription: &Subscription) -> bool {
        let text = |wanted: &Option<String>, has: Option<&str>| {
            wanted
                .as_deref()
                .filter(|wanted| !wanted.is_empty())
                .is_none_or(|wanted| has.is_some_and(|has| has.eq_ignore_ascii_case(wanted)))
        };
        let id = |wanted: Option<i64>, has: Option<i64>| wanted.is_none_or(|wanted| has == Some(wanted));
        subscription.deleted == self.deleted
            && text(
                &self.target_type,
                subscription.target_type.as_ref().map(|kind| kind.as_str()),
            )
            && text(
                &self.resource_type,
                subscription.resource_type.as_ref().map(|kind| kind.as_str()),
            )
            && text(
                &self.created_by,
                subscription.created_by.as_ref().map(|user| user.uuid.as_str()),
            )
            && id(self.dashboard, subscription.dashboard)
            && id(self.insight, subscription.insight)
    }

    /// Whether the server's search finds this subscription by its title or
    /// by the name of what it delivers (as PostHog searches, term by term).
    pub fn search_finds(&self, subscription: &Subscription) -> bool {
        let Some(search) = self.search.as_deref() else {
            return true;
        };
        let names = [&subscription.title, &subscription.resource_name]
            .into_iter()
            .flatten()
            .map(|name| name.to_lowercase())
            .collect::<Vec<_>>();
        search
            .split([' ', ','])
            .filter(|term| !term.is_empty())
            .all(|term| names.iter().any(|name| name.contains(&term.to_lowercase())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_become_query_parameters() {
        let filter = SubscriptionFilter {
            deleted: true,
            search: Some("kpi".into()),
            insight: Some(4),
            ordering: Some("-next_delivery_date".into()),
            ..SubscriptionFilter::default()
        };
        assert_eq!(
            filter.query(),
            vec![
                ("deleted", "true".to_string()),
                ("search", "kpi".to_string()),
                ("ordering", "-next_delivery_date".to_string()),
                ("insight", "4".to_string())
            ]
        );
    }
}
