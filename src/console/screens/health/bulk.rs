//! What `p` and `t` do to Health's marked rows: they act on their
//! subscriptions, as on Subscriptions, the look's health saying which are
//! paused. Nothing is deleted from Health.

use crate::api::health::Health;
use crate::console::kit::scope::Scope;
use crate::console::screens::bulk::{Bulk, Verb};
use crate::console::screens::subscriptions::bulk::{self as subscriptions_bulk, Marked};
use crate::health::HealthRow;

/// The bulk action of a key on marked rows; `None` for `d`.
pub fn bulk(verb: Verb, rows: &[&HealthRow], scope: Scope) -> Option<Result<Bulk, String>> {
    if verb == Verb::Delete {
        return None;
    }
    let marked: Vec<Marked> = rows
        .iter()
        .map(|row| Marked {
            id: row.id,
            label: format!("#{} \"{}\"", row.id, row.title),
            paused: matches!(row.health, Health::Paused | Health::AutoDisabled),
            deleted: false,
            for_good: row.health == Health::Unsupported,
            recipients: recipients(&row.target),
        })
        .collect();
    Some(subscriptions_bulk::bulk(verb, &marked, scope))
}

/// How many recipients the row's target has ("email a@b.co, c@d.co": 2).
pub fn recipients(target: &str) -> usize {
    let (kind, value) = target.split_once(' ').unwrap_or((target, ""));
    crate::api::subscription::recipients(Some(&crate::api::TargetType::from_wire(kind)), value)
}
