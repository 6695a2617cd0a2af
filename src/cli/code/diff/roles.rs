//! The roles' members compared: the file's (in memory) with the server's,
//! set aside in order of address in lower case ([`LiveMembers`]), each
//! side sorted and the two merged, never a set of either held.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{Action, Change, FieldChange, Prune};
use crate::cli::code::file::RoleEntry;
use crate::cli::code::members_aside::LiveMembers;
use crate::cli::code::sorted::Sorter;

/// The problem of members set aside and not read back.
pub(super) fn cannot_read_members(error: &std::io::Error) -> String {
    format!("cannot read back the server's members, set aside as they were read: {error}")
}

/// Where the file names someone who is not a member of the organization:
/// (role's place, member's place) in the file. The file's addresses are
/// sorted outside memory and merged with the members set aside.
pub(super) fn strangers(
    roles: &[RoleEntry],
    live: &LiveMembers,
) -> std::io::Result<BTreeSet<(usize, usize)>> {
    let mut named: Sorter<(String, String, String)> = Sorter::new(3);
    for (role_index, role) in roles.iter().enumerate() {
        for (member_index, email) in role.members.iter().enumerate() {
            named.push((
                email.to_lowercase(),
                role_index.to_string(),
                member_index.to_string(),
            ))?;
        }
    }
    let mut members = live.members()?.peekable();
    let mut strangers = BTreeSet::new();
    for record in named.finish()? {
        let (email, role_index, member_index) = record?;
        // Past every member before it.
        while let Some(member) = members.peek() {
            match member {
                Ok((found, _)) if *found < email => {
                    members.next();
                }
                Ok(_) => break,
                Err(_) => {
                    members.next().transpose()?;
                }
            }
        }
        let known = matches!(members.peek(), Some(Ok((found, _))) if *found == email);
        if !known && let (Ok(role), Ok(member)) = (role_index.parse(), member_index.parse()) {
            strangers.insert((role, member));
        }
    }
    Ok(strangers)
}

/// The role's changes: its fields, and its members (the file's, in
/// memory, merged with the server's set aside; both in order of address
/// in lower case).
pub(super) fn role_change(
    role: &RoleEntry,
    current: &RoleEntry,
    live: &LiveMembers,
    prune: Option<Prune>,
    kept: &mut usize,
) -> std::io::Result<Option<Change>> {
    let mut fields = Vec::new();
    if role.name != current.name {
        fields.push(FieldChange {
            field: "name".into(),
            old: Value::from(current.name.clone()),
            new: Value::from(role.name.clone()),
        });
    }
    // Compared only where the server has it (older PostHog): today's
    // ignores it, and a file exported there has none.
    if let (Some(wanted), Some(has)) = (
        role.feature_flags_access_level,
        current.feature_flags_access_level,
    ) && wanted != has
    {
        fields.push(FieldChange {
            field: "feature_flags_access_level".into(),
            old: Value::from(has),
            new: Value::from(wanted),
        });
    }
    let mut wanted: Vec<(String, &str)> = role
        .members
        .iter()
        .map(|member| (member.to_lowercase(), member.as_str()))
        .collect();
    wanted.sort_unstable();
    let mut added: BTreeSet<String> = BTreeSet::new();
    let mut absent: BTreeSet<String> = BTreeSet::new();
    let mut wanted = wanted.into_iter().peekable();
    let id = current.id.as_deref().unwrap_or_default();
    // The last address (lower case) both name: the server may hold it
    // more than once, written in other cases.
    let mut both: Option<String> = None;
    for membership in live.memberships(id)? {
        let (email, written, _) = membership?;
        if written.is_empty() {
            continue;
        }
        while let Some((_, member)) = wanted.next_if(|(wanted, _)| *wanted < email) {
            added.insert(member.to_string());
        }
        let mut held = both.as_deref() == Some(email.as_str());
        while wanted.next_if(|(wanted, _)| *wanted == email).is_some() {
            held = true;
        }
        if held {
            both = Some(email);
        } else {
            absent.insert(written);
        }
    }
    added.extend(wanted.map(|(_, member)| member.to_string()));
    let (added, absent): (Vec<String>, Vec<String>) =
        (added.into_iter().collect(), absent.into_iter().collect());
    let removed = if prune.is_some() {
        absent
    } else {
        *kept += absent.len();
        Vec::new()
    };
    if fields.is_empty() && added.is_empty() && removed.is_empty() {
        return Ok(None);
    }
    Ok(Some(Change {
        action: Action::Change,
        kind: "role".into(),
        id: current.id.clone(),
        name: role.name.clone(),
        fields,
        members_added: added,
        members_removed: removed,
        line: role.at.map(|at| at.line),
        index: None,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::code::members_aside;

    fn role(members: &[&str]) -> RoleEntry {
        RoleEntry {
            id: Some("r1".into()),
            name: "Role".into(),
            members: members.iter().map(|member| member.to_string()).collect(),
            ..RoleEntry::default()
        }
    }

    /// Added and removed as sets by address in any case, each list sorted
    /// as written and once; members the server holds twice, in two cases,
    /// are neither.
    #[test]
    fn members_are_compared_in_any_case_by_merging() {
        let live = members_aside::held(
            &[
                ("a@x.io", "u1"),
                ("B@x.io", "u2"),
                ("c@x.io", "u3"),
                ("d@x.io", "u4"),
            ],
            &[(
                "r1",
                &[
                    ("A@x.io", "m1"),
                    ("a@X.io", "m2"),
                    ("c@x.io", "m3"),
                    ("", "m4"),
                    ("z@x.io", "m5"),
                ],
            )],
        );
        let wanted = role(&["b@x.io", "a@x.io", "B@x.io", "d@x.io", "b@x.io"]);
        let current = role(&[]);
        let mut kept = 0;
        let change = role_change(&wanted, &current, &live, Some(Prune::Members), &mut kept)
            .unwrap()
            .unwrap();
        assert_eq!(change.members_added, ["B@x.io", "b@x.io", "d@x.io"]);
        assert_eq!(change.members_removed, ["c@x.io", "z@x.io"]);
        assert_eq!(kept, 0);
        let change = role_change(&wanted, &current, &live, None, &mut kept)
            .unwrap()
            .unwrap();
        assert!(change.members_removed.is_empty());
        assert_eq!(kept, 2);
        // The same members: nothing to do.
        let same = role(&["A@X.IO", "c@x.io", "z@x.io"]);
        assert!(
            role_change(&same, &current, &live, Some(Prune::Members), &mut kept)
                .unwrap()
                .is_none()
        );
        // Who is not a member, by role and place.
        let roles = [wanted, role(&["q@x.io", "C@X.io"])];
        let strangers = strangers(&roles, &live).unwrap();
        assert_eq!(strangers.into_iter().collect::<Vec<_>>(), [(1, 0)]);
    }
}
