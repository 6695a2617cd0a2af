//! What `d`, `p` and `t` do to marked subscriptions (on Subscriptions, and
//! on Health's rows, which are subscriptions too).
//!
//! `p` on a mixed set pauses: when any marked subscription is active, the
//! active ones are paused and the paused ones left as they are; only when
//! none is active does `p` resume them all. Resuming delivers each one at
//! once to its recipients (the question counts them), so that question,
//! like a test's and a delete's, answers Enter with no.

use crate::console::kit::scope::Scope;
use crate::console::screens::bulk::{Bulk, Item, Skipped, Verb};
use crate::console::screens::subscriptions::Write as SubscriptionWrite;
use crate::console::screens::write::Write;

/// PostHog takes this many test deliveries a minute per project.
const TESTS_A_MINUTE: usize = 10;

/// A marked subscription as a bulk action sees it.
#[derive(Debug, Clone)]
pub struct Marked {
    pub id: i64,
    /// `#12 "Weekly revenue"`.
    pub label: String,
    pub paused: bool,
    pub deleted: bool,
    /// Delivers to a channel PostHog no longer supports: once paused it
    /// cannot be resumed.
    pub for_good: bool,
    /// How many recipients a delivery goes to (a resume delivers at once).
    pub recipients: usize,
}

impl Marked {
    /// A subscription of the list as a bulk action sees it.
    pub fn of(subscription: &crate::api::Subscription) -> Marked {
        Marked {
            id: subscription.id,
            label: super::words::label(subscription),
            paused: !subscription.is_enabled(),
            deleted: subscription.deleted,
            for_good: !subscription.is_supported(),
            recipients: subscription.recipients(),
        }
    }
}

/// The bulk action of a key on marked subscriptions.
pub fn bulk(verb: Verb, marked: &[Marked], scope: Scope) -> Result<Bulk, String> {
    let project = scope.project.to_string();
    match verb {
        Verb::Delete => soft_delete(marked, project),
        Verb::Pause => pause_or_resume(marked, project),
        Verb::Test => test(marked, project),
    }
}

fn skip(row: &Marked, why: &str) -> Skipped {
    Skipped {
        id: row.id.to_string(),
        label: row.label.clone(),
        why: why.into(),
    }
}

fn item(row: &Marked, write: Write, done: &'static str) -> Item {
    Item {
        id: row.id.to_string(),
        label: row.label.clone(),
        write,
        done,
    }
}

fn soft_delete(marked: &[Marked], project: String) -> Result<Bulk, String> {
    let (deleted, rest): (Vec<&Marked>, Vec<&Marked>) = marked.iter().partition(|row| row.deleted);
    if rest.is_empty() {
        return Err("every marked subscription is soft-deleted already: u restores one".into());
    }
    let items: Vec<Item> = rest
        .iter()
        .map(|row| {
            let write = Write::Subscription(SubscriptionWrite::SoftDelete {
                project: project.clone(),
                id: row.id,
            });
            item(row, write, "soft-deleted")
        })
        .collect();
    let skipped = deleted
        .iter()
        .map(|row| skip(row, "already soft-deleted"))
        .collect();
    Ok(Bulk::new(
        format!(
            "Soft-delete {}",
            crate::text::counted(items.len(), "subscription")
        ),
        &["Nothing is delivered once deleted; u restores one at a time (D shows the deleted).".into()],
        true,
        items,
        skipped,
    ))
}

fn pause_or_resume(marked: &[Marked], project: String) -> Result<Bulk, String> {
    let live: Vec<&Marked> = marked.iter().filter(|row| !row.deleted).collect();
    if live.is_empty() {
        return Err("every marked subscription is soft-deleted: u restores one first".into());
    }
    let deleted = marked
        .iter()
        .filter(|row| row.deleted)
        .map(|row| skip(row, "soft-deleted"));
    let pausing = live.iter().any(|row| !row.paused);
    let write = |row: &Marked| {
        Write::Subscription(SubscriptionWrite::SetEnabled {
            project: project.clone(),
            id: row.id,
            enabled: !pausing,
        })
    };
    if !pausing {
        let items = live
            .iter()
            .map(|row| item(row, write(row), "resumed"))
            .collect::<Vec<_>>();
        let recipients: usize = live.iter().map(|row| row.recipients).sum();
        return Ok(Bulk::new(
            format!("Resume {}", crate::text::counted(items.len(), "subscription")),
            &[format!(
                "Each is delivered at once to its recipients, {} in all, then on its schedule.",
                crate::text::counted(recipients, "recipient")
            )],
            true,
            items,
            deleted.collect(),
        ));
    }
    let (paused, active): (Vec<&Marked>, Vec<&Marked>) = live.into_iter().partition(|row| row.paused);
    let items: Vec<Item> = active.iter().map(|row| item(row, write(row), "paused")).collect();
    let mut skipped: Vec<Skipped> = paused.iter().map(|row| skip(row, "already paused")).collect();
    skipped.extend(deleted);
    let mut more = vec!["Nothing is delivered until p resumes them.".to_string()];
    if !skipped.is_empty() {
        more.push("(p resumes marked ones only when none of them is active.)".into());
    }
    let for_good = active.iter().filter(|row| row.for_good).count();
    if for_good > 0 {
        more.push(format!(
            "{} deliver to a channel PostHog no longer supports: once paused, they cannot be resumed.",
            crate::text::counted(for_good, "subscription")
        ));
    }
    Ok(Bulk::new(
        format!("Pause {}", crate::text::counted(items.len(), "subscription")),
        &more,
        for_good > 0,
        items,
        skipped,
    ))
}

fn test(marked: &[Marked], project: String) -> Result<Bulk, String> {
    let mut items = Vec::new();
    let mut skipped = Vec::new();
    for row in marked {
        if row.deleted {
            skipped.push(skip(row, "soft-deleted"));
        } else if row.paused {
            skipped.push(skip(row, "paused (p resumes them first)"));
        } else {
            let write = Write::Subscription(SubscriptionWrite::TestDelivery {
                project: project.clone(),
                id: row.id,
            });
            items.push(item(row, write, "test delivery on its way"));
        }
    }
    if items.is_empty() {
        return Err("none of the marked subscriptions is active: p resumes paused ones first".into());
    }
    let mut more = vec!["Each goes to every recipient of the subscription.".to_string()];
    if items.len() > TESTS_A_MINUTE {
        more.push(format!(
            "PostHog takes {TESTS_A_MINUTE} test deliveries a minute per project: the others are refused and stay marked, for t again a minute later."
        ));
    }
    Ok(Bulk::new(
        format!(
            "Send a test delivery of {} now",
            crate::text::counted(items.len(), "subscription")
        ),
        &more,
        true,
        items,
        skipped,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: i64, paused: bool, deleted: bool, for_good: bool) -> Marked {
        Marked {
            recipients: 2,
            id,
            label: format!("#{id}"),
            paused,
            deleted,
            for_good,
        }
    }

    const SCOPE: Scope = Scope {
        organization: "org",
        project: "7",
    };

    #[test]
    fn p_on_a_mixed_set_pauses_the_active_ones_and_resumes_only_a_paused_set() {
        let mixed = [
            row(1, false, false, false),
            row(2, true, false, false),
            row(3, false, true, false),
        ];
        let pause = bulk(Verb::Pause, &mixed, SCOPE).unwrap();
        assert_eq!(pause.title, "Pause 1 subscription");
        assert!(!pause.harmful, "pausing is harmless: Enter says yes");
        assert!(matches!(
            pause.items[..],
            [Item {
                write: Write::Subscription(SubscriptionWrite::SetEnabled {
                    id: 1,
                    enabled: false,
                    ..
                }),
                ..
            }]
        ));
        assert_eq!(pause.skipped.len(), 2);
        assert!(
            pause.question.contains("1 already paused, 1 soft-deleted"),
            "{}",
            pause.question
        );
        assert!(
            pause
                .question
                .contains("p resumes marked ones only when none of them is active")
        );

        let resume = bulk(
            Verb::Pause,
            &[row(2, true, false, false), row(4, true, false, true)],
            SCOPE,
        )
        .unwrap();
        assert_eq!(resume.title, "Resume 2 subscriptions");
        assert!(resume.harmful, "resuming sends a delivery: Enter says no");
        assert!(
            resume
                .question
                .contains("delivered at once to its recipients, 4 recipients in all"),
            "{}",
            resume.question
        );

        let webhook = bulk(Verb::Pause, &[row(5, false, false, true)], SCOPE).unwrap();
        assert!(webhook.harmful && webhook.question.contains("cannot be resumed"));
        assert!(bulk(Verb::Pause, &[row(3, false, true, false)], SCOPE).is_err());
    }

    #[test]
    fn tests_and_deletes_skip_what_they_cannot_do() {
        let marked: Vec<Marked> = (1..=12)
            .map(|id| row(id, id == 12, false, false))
            .chain([row(13, false, true, false)])
            .collect();
        let test = bulk(Verb::Test, &marked, SCOPE).unwrap();
        assert_eq!(test.items.len(), 11);
        assert!(test.harmful);
        assert!(
            test.question.contains("10 test deliveries a minute"),
            "{}",
            test.question
        );
        let delete = bulk(Verb::Delete, &marked, SCOPE).unwrap();
        assert_eq!((delete.items.len(), delete.skipped.len()), (12, 1));
        assert!(delete.question.starts_with("Soft-delete 12 subscriptions?"));
    }
}
