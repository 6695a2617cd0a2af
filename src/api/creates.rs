//! A create that failed may have happened: PostHog can save a subscription
//! and then answer 500 (posthog.md 15-20), and an answer lost on the way
//! (a timeout, a connection dropped after the request left) says nothing
//! about whether the server acted. Sending the create again could make a
//! second one, which for a subscription mails its recipients twice.
//!
//! So after such a failure the create operations of the client look for
//! what they tried to create before they answer: a subscription with the
//! same fields made by the key's user since a few minutes before the
//! request was sent; a role by its name; a membership by its role and
//! user. Found, it is returned as created; not found, the error says
//! plainly that nothing was created and trying again is safe; and when the
//! look itself fails, that it cannot be told. Every caller (apply, `subs
//! create`, `members add`, the console's forms and bulk adds) gets this
//! without code of its own, and none sends a create again blindly.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;

use super::client::{Client, Deadline};
use super::error::{Error, Result, TransportKind};
use super::models::{Role, RoleMembership, Subscription};
use super::paging::{FetchAll, List};
use super::query::SubscriptionFilter;
use super::raw::Raw;

/// How far before the request a subscription found may have been made
/// (the server's clock against this machine's).
pub const LOOK_BACK: Duration = Duration::from_secs(10 * 60);

/// The most pages of the newest subscriptions read while looking.
const LOOK_PAGES: u64 = 10;

/// The fields that say what a subscription is; others (write-only ones,
/// `invite_message` that PostHog echoes as null) are not compared.
const IDENTITY: &[&str] = &[
    "title",
    "insight",
    "dashboard",
    "prompt",
    "target_type",
    "target_value",
    "frequency",
    "interval",
    "byweekday",
    "bysetpos",
    "count",
    "start_date",
    "until_date",
    "integration_id",
    "dashboard_export_insights",
    "enabled",
];

/// Whether a create that ended in `error` may have been done all the
/// same: the server failed (5xx), the answer was lost (no answer in time,
/// the connection broke after sending), or a success status came with an
/// answer orgdeck could not read. A refusal (4xx, 429 among them) or a
/// connection never made means nothing was done.
pub fn may_have_happened(error: &Error) -> bool {
    match error {
        Error::Api(refusal) => refusal.status >= 500,
        Error::Transport { kind, .. } => {
            matches!(kind, TransportKind::Dropped | TransportKind::Timeout)
        }
        Error::Deadline { sent, .. } => *sent,
        Error::Decode { status, .. } => (200..300).contains(status),
        Error::TooLarge { .. } | Error::TooLargeStreamed { .. } => true,
        _ => false,
    }
}

impl Client {
    /// A client for looking after a failed create: the command's deadline
    /// may have passed waiting for the lost answer, so the look has one
    /// request's time of its own.
    fn looker(&self) -> Client {
        self.with_deadline(Deadline::after(self.timeout()))
    }

    /// After a create of a subscription failed with `error`: the one made
    /// all the same, or the error saying whether it was made.
    pub(super) async fn settle_subscription(
        &self,
        project: &str,
        body: &(impl Serialize + ?Sized),
        sent: DateTime<Utc>,
        error: Error,
    ) -> Result<Raw<Subscription>> {
        if !may_have_happened(&error) {
            return Err(error);
        }
        let wanted = match serde_json::to_value(body) {
            Ok(wanted) => wanted,
            Err(_) => return Err(error),
        };
        let since = sent - chrono::Duration::from_std(LOOK_BACK).unwrap_or_default();
        let found = self.looker().find_subscription(project, &wanted, since).await;
        settle(error, "subscription", found)
    }

    /// The newest subscription of the project with the fields of `wanted`
    /// (a create's body), made since `since` by the key's user (when the
    /// key may read who that is): what a create that failed may have made.
    pub async fn find_subscription(
        &self,
        project: &str,
        wanted: &Value,
        since: DateTime<Utc>,
    ) -> Result<Option<Raw<Subscription>>> {
        // A key without the user:read scope cannot ask who it is; the
        // fields and the time then say it alone.
        let me = self.me().await.ok().map(|user| user.uuid);
        let filter = SubscriptionFilter {
            ordering: Some("-created_at".into()),
            ..SubscriptionFilter::default()
        };
        let list = List::subscriptions(project, &filter).raw();
        let mut found: Option<Raw<Subscription>> = None;
        for page in 0..LOOK_PAGES {
            let rows = self.page(&list, 100, page * 100).await?;
            let mut older = false;
            let more = rows.next.is_some();
            for row in rows.results {
                let made = row.created_at;
                older |= made.is_some_and(|made| made < since);
                let mine = match (&me, &row.created_by) {
                    (Some(me), Some(by)) => by.uuid == *me,
                    (Some(_), None) => false,
                    (None, _) => true,
                };
                let recent = made.is_none_or(|made| made >= since);
                if mine && recent && !row.deleted && same_fields(wanted, &row.value()) {
                    let newer = found
                        .as_ref()
                        .is_none_or(|held| (row.created_at, row.id) > (held.created_at, held.id));
                    if newer {
                        found = Some(row);
                    }
                }
            }
            if older || !more {
                break;
            }
        }
        Ok(found)
    }

    /// After a create of a role failed with `error`: the role of that name
    /// (names are unique in an organization), or the error saying whether
    /// it was made.
    pub(super) async fn settle_role(
        &self,
        organization: &str,
        name: &str,
        error: Error,
    ) -> Result<Raw<Role>> {
        if !may_have_happened(&error) {
            return Err(error);
        }
        let found = self.looker().find_role(organization, name).await;
        settle(error, &format!("role \"{name}\""), found)
    }

    /// The role named `name` (exactly, else in another case).
    pub async fn find_role(&self, organization: &str, name: &str) -> Result<Option<Raw<Role>>> {
        let roles = self
            .all(&List::roles(organization).raw(), &FetchAll::default())
            .await?;
        let exact = roles.iter().position(|role| role.name == name);
        let any_case = || {
            roles
                .iter()
                .position(|role| role.name.to_lowercase() == name.to_lowercase())
        };
        Ok(exact.or_else(any_case).map(|index| roles[index].clone()))
    }

    /// After adding a member to a role failed with `error`: the membership
    /// of that user in the role, or the error saying whether it was made.
    pub(super) async fn settle_membership(
        &self,
        organization: &str,
        role: &str,
        user_uuid: &str,
        error: Error,
    ) -> Result<Raw<RoleMembership>> {
        if !may_have_happened(&error) {
            return Err(error);
        }
        let found = self.looker().find_membership(organization, role, user_uuid).await;
        settle(error, "membership", found)
    }

    /// The membership of the user with this UUID in the role.
    pub async fn find_membership(
        &self,
        organization: &str,
        role: &str,
        user_uuid: &str,
    ) -> Result<Option<Raw<RoleMembership>>> {
        let list = List::memberships(organization, role).raw();
        let memberships = self.all(&list, &FetchAll::default()).await?;
        Ok(memberships.into_iter().find(|membership| {
            membership
                .user
                .as_ref()
                .or(membership.organization_member.as_ref().map(|member| &member.user))
                .is_some_and(|user| user.uuid == user_uuid)
        }))
    }
}

/// What a look after a failed create comes to.
fn settle<T>(error: Error, what: &str, found: Result<Option<Raw<T>>>) -> Result<Raw<T>> {
    match found {
        Ok(Some(made)) => {
            tracing::warn!(%error, what, "the create failed but was made: taking it as created");
            Ok(made)
        }
        Ok(None) => Err(Error::NotCreated {
            what: what.to_string(),
            cause: Box::new(error),
        }),
        Err(look) => Err(Error::CreateUnknown {
            what: what.to_string(),
            cause: Box::new(error),
            look: Box::new(look),
        }),
    }
}

/// Whether a subscription as read has the fields a create sent: each
/// identifying field of the body the row has, equal once both are read
/// the same way (an empty text, list or null alike; dates by instant; the
/// export's insights as a set).
pub fn same_fields(wanted: &Value, row: &Value) -> bool {
    IDENTITY
        .iter()
        .all(|field| match (wanted.get(field), row.get(field)) {
            (Some(wanted), Some(held)) => same(field, wanted, held),
            _ => true,
        })
}

fn same(field: &str, wanted: &Value, held: &Value) -> bool {
    let empty = |value: &Value| match value {
        Value::Null => true,
        Value::String(text) => text.is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    };
    if empty(wanted) || empty(held) {
        return empty(wanted) && empty(held);
    }
    match (wanted, held) {
        (Value::String(a), Value::String(b)) if field.ends_with("_date") => {
            match (super::time::parse_datetime(a), super::time::parse_datetime(b)) {
                (Some(a), Some(b)) => a == b,
                _ => a == b,
            }
        }
        (Value::Array(a), Value::Array(b)) if field == "dashboard_export_insights" => {
            let mut a: Vec<String> = a.iter().map(Value::to_string).collect();
            let mut b: Vec<String> = b.iter().map(Value::to_string).collect();
            a.sort();
            b.sort();
            a == b
        }
        (a, b) => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::error::{Refusal, RequestLabel};
    use serde_json::json;

    #[test]
    fn only_what_may_have_been_done_is_looked_for() {
        let request = RequestLabel {
            method: "POST".into(),
            path: "/api/projects/1/subscriptions/".into(),
        };
        let refused = |status| Error::Api(Box::new(Refusal::new(request.clone(), status, None)));
        assert!(may_have_happened(&refused(500)));
        assert!(may_have_happened(&refused(503)));
        assert!(!may_have_happened(&refused(400)));
        assert!(!may_have_happened(&refused(429)));
        let transport = |kind, message: &str| Error::Transport {
            request: request.clone(),
            server: "http://h".into(),
            kind,
            message: message.into(),
            timeout: None,
        };
        assert!(may_have_happened(&transport(TransportKind::Dropped, "reset")));
        assert!(may_have_happened(&transport(TransportKind::Timeout, "timed out")));
        assert!(!may_have_happened(&transport(TransportKind::Connect, "refused")));
        let past_deadline = |sent| Error::Deadline {
            request: request.clone(),
            deadline: Duration::from_secs(60),
            sent,
        };
        assert!(!may_have_happened(&past_deadline(false)));
        assert!(may_have_happened(&past_deadline(true)));
    }

    #[test]
    fn fields_compare_as_the_server_writes_them() {
        let body = json!({
            "title": null, "insight": 3, "target_type": "email", "target_value": "a@b.c",
            "frequency": "weekly", "interval": 1, "byweekday": ["monday"],
            "start_date": "2026-12-07T09:00:00Z", "until_date": null,
            "dashboard_export_insights": null, "send_test_now": false, "invite_message": "hi"
        });
        let row = json!({
            "id": 9, "title": "", "insight": 3, "target_type": "email", "target_value": "a@b.c",
            "frequency": "weekly", "interval": 1, "byweekday": ["monday"],
            "start_date": "2026-12-07T09:00:00.000000Z", "until_date": null,
            "dashboard_export_insights": [], "invite_message": null
        });
        assert!(same_fields(&body, &row));
        let mut other = row.clone();
        other["target_value"] = json!("x@b.c");
        assert!(!same_fields(&body, &other));
        let mut titled = row;
        titled["title"] = json!("Weekly");
        assert!(!same_fields(&body, &titled));
        assert!(same_fields(
            &json!({"dashboard_export_insights": [2, 1]}),
            &json!({"dashboard_export_insights": [1, 2]})
        ));
    }
}
