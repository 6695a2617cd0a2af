//! Bulk actions on marked rows. A screen whose list takes marks says what
//! each of its bulk keys does to the rows marked (a `bulk` in its
//! `writes.rs` or `bulk.rs`): one
//! question naming the count, a write for each row, and the marked rows it
//! leaves as they are, with why. The app asks the question once, sends the
//! writes a few at a time, lists each row's result, and keeps marked only
//! the rows that failed.
//!
//! A list opts in with two things: `const MARKS: bool = true` on its list,
//! and, for its bulk keys, a `bulk` in its screen's folder building a
//! [`Bulk`] (with [`Bulk::new`], [`crate::text::counted`] and [`sample`]),
//! named by its arm of `Screens::bulk` (`holder.rs`). Marking (Space, `*`, Esc), drawing
//! the marks, the header's count, the question, the run (at most
//! [`IN_FLIGHT`] writes on their way) and the results come with it; `d`,
//! `p` and `t` reach its `bulk` as a [`Verb`] whenever rows are marked.
//!
//! A bulk action that needs a choice first (People's `a`: which roles to
//! add the marked people to) is started by the app once the choice is
//! made: the list's module builds the [`Bulk`] from
//! `Table::marked_rows()` and the choice (one [`Item`] a row, each one
//! write; a `people::Write::AddToRoles` of one person fails the row when that
//! person is refused), and the app hands it to `App::ask_bulk`. A new key
//! that acts on marks with no choice first is a new [`Verb`], and one line
//! mapping its action to it in `shell/keys.rs`.
//!
//! A run whose writes move access is previewed as one change (their
//! changes as one batch, [`Bulk::access_change`]) before its question.
//!
//! What a row's success does to the screens is the news its write gives
//! ([`super::write::Write::changes`]), as a single write's does; a write
//! with no news changes nothing there, and the row is still unmarked.

use super::write::{Confirm, Confirmed, Write};
use crate::console::widgets::question::Answer;

/// The most writes of a bulk run on their way at once.
pub const IN_FLIGHT: usize = 4;

/// What a bulk key asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    /// `d`: delete, remove or soft-delete every marked row.
    Delete,
    /// `p`: pause (or resume) every marked row.
    Pause,
    /// `t`: a test delivery of every marked row.
    Test,
}

/// A write for one marked row.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// The row's id, as the list's `id` gives it.
    pub id: String,
    /// The row in words, for the results: `#12 "Weekly revenue"`.
    pub label: String,
    pub write: Write,
    /// What a success says: "paused".
    pub done: &'static str,
}

/// A marked row a bulk action leaves as it is, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Skipped {
    pub id: String,
    pub label: String,
    pub why: String,
}

/// A bulk action: the question before it and what it sends.
#[derive(Debug, Clone, PartialEq)]
pub struct Bulk {
    /// Names the run in the results: "Pause 20 subscriptions".
    pub title: String,
    /// The question, which names the count.
    pub question: String,
    /// Whether it destroys something or reaches people: then Enter says no.
    pub harmful: bool,
    pub items: Vec<Item>,
    pub skipped: Vec<Skipped>,
}

impl Bulk {
    /// A bulk action whose question starts with its title ("Pause 20
    /// subscriptions?") and goes on with `more` (one line each), naming the
    /// first rows and saying how many are left as they are.
    pub fn new(
        title: String,
        more: &[String],
        harmful: bool,
        items: Vec<Item>,
        skipped: Vec<Skipped>,
    ) -> Bulk {
        let mut question = format!("{title}?");
        let labels: Vec<String> = items.iter().map(|item| item.label.clone()).collect();
        question.push('\n');
        question.push_str(&sample(&labels));
        if !skipped.is_empty() {
            question.push_str(&format!(
                "\n{} marked {} left as {}: {}",
                skipped.len(),
                if skipped.len() == 1 { "is" } else { "are" },
                if skipped.len() == 1 { "it is" } else { "they are" },
                reasons(&skipped)
            ));
        }
        for line in more {
            question.push('\n');
            question.push_str(line);
        }
        Bulk {
            title,
            question,
            harmful,
            items,
            skipped,
        }
    }

    /// What the run changes of who reaches what, its writes' changes as
    /// one batch, to preview before it is asked about.
    pub fn access_change(&self) -> Option<crate::access::preview::Proposed> {
        super::write::combined(
            self.items
                .iter()
                .filter_map(|item| item.write.access_change())
                .collect(),
        )
    }

    /// The one question before the run.
    pub fn confirm(self) -> Confirm {
        Confirm {
            question: self.question.clone(),
            highlighted: Answer::on_enter(self.harmful),
            then: Confirmed::Bulk(Box::new(self)),
            form: None,
            production: false,
            previewed: false,
            losing: 0,
        }
    }
}

/// The first few of a list of rows in words, and how many more.
pub fn sample(labels: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut text = labels.iter().take(SHOWN).cloned().collect::<Vec<_>>().join(", ");
    if labels.len() > SHOWN {
        text.push_str(&format!(" and {} more", labels.len() - SHOWN));
    }
    text
}

/// Why rows are left as they are, each reason once with its count:
/// "2 already paused, 1 soft-deleted".
fn reasons(skipped: &[Skipped]) -> String {
    let mut counted: Vec<(&str, usize)> = Vec::new();
    for row in skipped {
        match counted.iter_mut().find(|(why, _)| *why == row.why) {
            Some((_, count)) => *count += 1,
            None => counted.push((&row.why, 1)),
        }
    }
    counted
        .iter()
        .map(|(why, count)| format!("{count} {why}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: i64) -> Item {
        Item {
            id: id.to_string(),
            label: format!("#{id}"),
            write: Write::Subscription(crate::console::screens::subscriptions::Write::TestDelivery {
                project: "1".into(),
                id,
            }),
            done: "tested",
        }
    }

    #[test]
    fn the_question_names_the_count_the_first_rows_and_what_is_left_alone() {
        let skipped = |id: i64, why: &str| Skipped {
            id: id.to_string(),
            label: format!("#{id}"),
            why: why.into(),
        };
        let bulk = Bulk::new(
            format!("Test {}", crate::text::counted(7, "subscription")),
            &["Each goes to every recipient.".into()],
            true,
            (1..=7).map(item).collect(),
            vec![
                skipped(8, "paused"),
                skipped(9, "paused"),
                skipped(10, "soft-deleted"),
            ],
        );
        assert_eq!(
            bulk.question,
            "Test 7 subscriptions?\n#1, #2, #3, #4, #5 and 2 more\n3 marked are left as they are: 2 paused, 1 soft-deleted\nEach goes to every recipient."
        );
        let confirm = bulk.confirm();
        assert_eq!(confirm.highlighted, Answer::No);
        assert!(matches!(confirm.then, Confirmed::Bulk(ref bulk) if bulk.items.len() == 7));
    }
}
