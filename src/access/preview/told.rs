//! A preview in words, for the CLI to print and the console to show: the
//! organization's mode, who loses, who gains and who changes in the other
//! mode alone, then a line a person and project (lines that move alike
//! told as one). Pure: it returns `String`s, every word the server gave
//! through [`printable`].

use std::collections::HashMap;

use super::{Effect, Line, OtherMode};
use crate::api::access::levels::AccessLevel;
use crate::text::printable;

/// The preview in words.
pub fn text(effect: &Effect, what: &str) -> String {
    told_within(effect, what, usize::MAX, &|_| 1)
}

/// The preview in words, no more than `most` rows as `rows` counts the
/// rows a line takes (a popup wraps them): the lines past them are not
/// built but counted, "… and N more lines".
pub fn text_cut(effect: &Effect, what: &str, most: usize, rows: impl Fn(&str) -> usize) -> String {
    told_within(effect, what, most, &rows)
}

/// The preview in words, the lines told while `most` rows hold them.
fn told_within(effect: &Effect, what: &str, most: usize, rows: &dyn Fn(&str) -> usize) -> String {
    let mode = if effect.mode_known {
        format!("The organization resolves access {}.", mode_words(effect.mode))
    } else {
        format!(
            "The server does not say how the organization resolves access: shown {} (what PostHog enforces), the other mode where it differs.",
            mode_words(effect.mode)
        )
    };
    let mut out = format!("{}\n  {mode}\n", printable(what));
    if effect.lines.is_empty() {
        out.push_str("  Nobody's access changes.\n");
        return out;
    }
    let others = effect.people.saturating_sub(effect.losing + effect.gaining);
    let mut parts = Vec::new();
    if effect.losing > 0 {
        parts.push(format!(
            "{} lose{} access",
            people(effect.losing),
            if effect.losing == 1 { "s" } else { "" }
        ));
    }
    if effect.gaining > 0 {
        parts.push(format!(
            "{} gain{}",
            people(effect.gaining),
            if effect.gaining == 1 { "s" } else { "" }
        ));
    }
    if others > 0 {
        parts.push(format!(
            "{} change{} in the other mode only",
            people(others),
            if others == 1 { "s" } else { "" }
        ));
    }
    let summary = format!("  {}", parts.join(", "));
    out.push_str(&summary);
    out.push_str(":\n");
    let rows_of = |text: &str| text.lines().map(rows).sum::<usize>();
    let mut used = rows_of(&out);
    let groups = grouped(&effect.lines);
    for (at, group) in groups.iter().enumerate() {
        let told = group_text(group);
        // A row is kept for "… and N more lines" unless this is the last.
        let kept = usize::from(at + 1 < groups.len());
        let need = rows_of(&told);
        if used.saturating_add(need).saturating_add(kept) > most {
            let more: usize = groups[at..].iter().map(|group| group_lines(group)).sum();
            out.push_str(&format!(
                "  … and {more} more line{}\n",
                crate::text::plural(more)
            ));
            break;
        }
        used += need;
        out.push_str(&told);
    }
    out
}

/// How many lines a group is told in ([`group_text`]): one, and the
/// other mode's under it where it differs.
fn group_lines(group: &[&Line]) -> usize {
    group
        .first()
        .map_or(0, |first| 1 + usize::from(first.other_mode.is_some()))
}

/// The lines of one person in one project that move the same way for the
/// same reason (a new admin's every resource, editor → manager), gathered
/// in the order their first line came; a project's own line and an
/// object's stand alone.
pub fn grouped(lines: &[Line]) -> Vec<Vec<&Line>> {
    let mut groups: Vec<Vec<&Line>> = Vec::new();
    let mut at: HashMap<GroupKey<'_>, usize> = HashMap::new();
    for line in lines {
        let alone = line.object.is_some() || line.resource == crate::api::access::levels::PROJECT;
        let key = (!alone).then(|| GroupKey {
            person: &line.membership_id,
            project: line.project.id,
            before: &line.before,
            after: &line.after,
            because: &line.because,
            other_mode: line.other_mode.as_ref(),
            loses: line.loses,
        });
        let Some(key) = key else {
            groups.push(vec![line]);
            continue;
        };
        match at.get(&key) {
            Some(&place) => groups[place].push(line),
            None => {
                at.insert(key, groups.len());
                groups.push(vec![line]);
            }
        }
    }
    groups
}

/// What lines must share to be told as one.
#[derive(PartialEq, Eq, Hash)]
struct GroupKey<'a> {
    person: &'a str,
    project: i64,
    before: &'a AccessLevel,
    after: &'a AccessLevel,
    because: &'a str,
    other_mode: Option<&'a OtherMode>,
    loses: bool,
}

/// One line, or lines of one person and project moving alike told as one:
/// "Ada: 31 resources (actions, dashboards, …) editor → manager in
/// Hedgebox Web (1), because …".
pub fn group_text(group: &[&Line]) -> String {
    match group {
        [] => String::new(),
        [line] => line_text(line),
        [first, ..] => {
            let names: Vec<String> = group
                .iter()
                .map(|line| crate::api::access::levels::display_name(&line.resource))
                .collect();
            let resources = match group.len() == crate::api::access::levels::RESOURCES.len() {
                true => format!("every resource ({})", group.len()),
                false => format!("{} resources ({})", group.len(), names.join(", ")),
            };
            let what = format!(
                "{resources} {} → {} in {}",
                first.before,
                first.after,
                first.project.label()
            );
            told(first, &what)
        }
    }
}

pub fn mode_words(mode: &str) -> String {
    match mode {
        "most-specific" => "by the most specific rule (most-specific)".into(),
        _ => "by the highest rule (highest-wins)".into(),
    }
}

/// "1 person", "3 people".
pub fn people(count: usize) -> String {
    if count == 1 {
        "1 person".into()
    } else {
        format!("{count} people")
    }
}

/// "  - Ada Okafor <ada@…>: dashboards editor → viewer in Hedgebox Web (1),
/// because …", with the other mode's line under it where it differs; a
/// line that moves in the other mode alone starts with "~".
pub fn line_text(line: &Line) -> String {
    told(line, &line.what())
}

/// "Ada Okafor <ada@…>", or the address alone: a person as every
/// preview names them.
pub fn who(name: &str, email: &str) -> String {
    if name.is_empty() || name == email {
        email.to_string()
    } else {
        format!("{name} <{email}>")
    }
}

/// A line told with `what` moves (its own [`Line::what`], or a group's).
pub fn told(line: &Line, what: &str) -> String {
    let who = who(&line.name, &line.email);
    let moved = line.before != line.after;
    let mark = match (line.loses, moved) {
        (true, _) => "-",
        (false, true) => "+",
        (false, false) => "~",
    };
    let mut out = if moved {
        format!(
            "  {mark} {}: {}, because {}\n",
            printable(&who),
            printable(what),
            printable(&line.because)
        )
    } else {
        format!(
            "  {mark} {}: {} (unchanged in this mode)\n",
            printable(&who),
            printable(what),
        )
    };
    if let Some(other) = &line.other_mode {
        out.push_str(&format!(
            "      {}: {} → {}, because {}\n",
            other.mode,
            other.before,
            other.after,
            printable(&other.because)
        ));
    }
    out
}

/// "1 person loses access. Go on?": the second question before a change
/// that takes access away.
pub fn losing_question(losing: usize) -> String {
    format!(
        "{} lose{} access. Go on?",
        people(losing),
        if losing == 1 { "s" } else { "" }
    )
}

/// Why a change is refused before anything is sent: the Terraform-locked
/// rules it would change.
pub fn locked_text(locked: &[String]) -> String {
    printable(&format!(
        "refused before sending anything: Terraform manages {} and the project locks it (change it in your Terraform configuration, or turn off the Terraform lock in project settings)",
        locked.join("; ")
    ))
    .into_owned()
}

/// After the change, the server's levels against the preview, in a line:
/// "checked: the server's 44 levels are as previewed", or how many differ
/// and the first of them.
pub fn checked_text(checked: &super::world::Checked) -> String {
    if checked.differences.is_empty() {
        return format!(
            "checked: the server's {} level{} after the change are as previewed",
            checked.compared,
            crate::text::plural(checked.compared)
        );
    }
    let first = checked
        .differences
        .first()
        .map(String::as_str)
        .unwrap_or_default();
    let more = checked.differences.len() - 1;
    let mut out = format!(
        "the server resolves {} level{} otherwise than previewed: {}",
        checked.differences.len(),
        crate::text::plural(checked.differences.len()),
        printable(first)
    );
    if more > 0 {
        out.push_str(&format!(" (and {more} more)"));
    }
    out
}
