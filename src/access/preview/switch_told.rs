//! The switch preview in words ([`super::switch`]): what `orgdeck access
//! switch-preview` prints and the console's `:switch-preview` shows, the
//! same words in both: the heading (the mode, assumed or not, "N changes
//! for M people"), then each person and, under them, each project or
//! resource whose level moves, why, and the fix.

use super::told::{people, who};
use super::{Switch, Switched};
use crate::api::access::levels::{self, PROJECT};
use crate::text::printable;

/// "Hedgebox resolves access highest-wins (assumed: …); switching to most-specific:".
pub fn heading(organization: &str, found: &Switch) -> String {
    format!(
        "{} resolves access {}{}; switching to {}:",
        printable(organization),
        found.from,
        if found.mode_known {
            ""
        } else {
            " (assumed: the server does not say, and PostHog enforces it today)"
        },
        found.to
    )
}

/// "3 changes for 2 people.", or "Nobody's access changes.".
pub fn count(found: &Switch) -> String {
    if found.lines.is_empty() {
        return "Nobody's access changes.".into();
    }
    format!(
        "{} change{} for {}.",
        found.lines.len(),
        if found.lines.len() == 1 { "" } else { "s" },
        people(found.people)
    )
}

/// "project", or the resource in words.
pub fn thing(line: &Switched) -> String {
    if line.resource == PROJECT {
        "project".to_string()
    } else {
        levels::display_name(&line.resource)
    }
}

/// "dashboards editor → viewer in Hedgebox Web (1), because …".
pub fn what(line: &Switched) -> String {
    format!(
        "{} {} → {} in {}, because {}",
        thing(line),
        line.today,
        line.after_switch,
        printable(&line.project.label()),
        printable(&line.because)
    )
}

/// "fix: give ada@… their own rule: dashboards editor".
pub fn fix(line: &Switched) -> String {
    format!("fix: {}", printable(&line.fix))
}

/// The whole preview as the CLI prints it.
pub fn text(found: &Switch, organization: &str) -> String {
    let mut out = format!("{}\n", heading(organization, found));
    out.push_str(&format!("  {}\n", count(found)));
    let mut last = String::new();
    for line in &found.lines {
        if line.membership_id != last {
            out.push_str(&format!("  {}\n", printable(&who(&line.name, &line.email))));
            last = line.membership_id.clone();
        }
        out.push_str(&format!("    {}\n      {}\n", what(line), fix(line)));
    }
    out
}
