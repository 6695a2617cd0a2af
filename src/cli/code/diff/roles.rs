//! The roles' members compared: the file's, set aside as it was read
//! ([`RoleMembers`]), with the server's, set aside in order of address in
//! lower case ([`LiveMembers`]), each side sorted and the two merged,
//! never a set of either held.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::{Action, Change, FieldChange, Prune};
use crate::cli::code::file::members::{ByAddress, Named};
use crate::cli::code::file::{Pos, RoleEntry, RoleMembers};
use crate::cli::code::members_aside::LiveMembers;
use crate::cli::code::sorted::Sorter;

/// The problem of members set aside and not read back.
pub(super) fn cannot_read_members(error: &std::io::Error) -> String {
    format!("cannot read back the server's members, set aside as they were read: {error}")
}

/// Strangers by (role's place, member's place): as written, and where.
pub(super) type Strangers = BTreeMap<(usize, usize), (String, Option<Pos>)>;

/// Where the file names someone who is not a member of the organization:
/// by (role's place, member's place) in the file, the address as
/// written and where it stands. The file's addresses are sorted again
/// outside memory, by address, and merged with the members set aside.
pub(super) fn strangers(named: &RoleMembers, live: &LiveMembers) -> std::io::Result<Strangers> {
    let mut by_address: Sorter<ByAddress> = Sorter::new(6);
    for member in named.all()? {
        by_address.push(ByAddress(member?))?;
    }
    let mut members = live.members()?.peekable();
    let mut strangers = BTreeMap::new();
    for record in by_address.finish()? {
        let ByAddress(named) = record?;
        // Past every member before it.
        while let Some(member) = members.peek() {
            match member {
                Ok((found, _)) if *found < named.lower => {
                    members.next();
                }
                Ok(_) => break,
                Err(_) => {
                    members.next().transpose()?;
                }
            }
        }
        let known = matches!(members.peek(), Some(Ok((found, _))) if *found == named.lower);
        if !known {
            let at = named.at();
            strangers.insert((named.role, named.place), (named.written, at));
        }
    }
    Ok(strangers)
}

/// The addresses of the role at `place` as written, each once, in order.
pub(super) fn written(named: &RoleMembers, place: usize) -> std::io::Result<Vec<String>> {
    let mut set = BTreeSet::new();
    for member in named.of(place)? {
        set.insert(member?.written);
    }
    Ok(set.into_iter().collect())
}

/// The role's changes: its fields, and its members (the file's, of the
/// role at `place`, merged with the server's; both set aside in order of
/// address in lower case).
pub(super) fn role_change(
    role: &RoleEntry,
    named: &RoleMembers,
    place: usize,
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
    // In order of address (lower case); each address once in a file
    // that passed its checks.
    let mut failed = None;
    let mut wanted = named
        .of(place)?
        .map_while(|member| match member {
            Ok(Named { lower, written, .. }) => Some((lower, written)),
            Err(error) => {
                failed = Some(error);
                None
            }
        })
        .peekable();
    let mut added: BTreeSet<String> = BTreeSet::new();
    let mut absent: BTreeSet<String> = BTreeSet::new();
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
            added.insert(member);
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
    added.extend(wanted.map(|(_, member)| member));
    if let Some(error) = failed {
        return Err(error);
    }
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

    fn role() -> RoleEntry {
        RoleEntry {
            id: Some("r1".into()),
            name: "Role".into(),
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
        // The file's roles: 0 with a member twice in two cases, 1 as the
        // server has it, 2 with a stranger.
        let named = RoleMembers::held(&[
            &["b@x.io", "a@x.io", "B@x.io", "d@x.io", "b@x.io"],
            &["A@X.IO", "c@x.io", "z@x.io"],
            &["q@x.io", "C@X.io"],
        ]);
        let (wanted, current) = (role(), role());
        let mut kept = 0;
        let change = role_change(
            &wanted,
            &named,
            0,
            &current,
            &live,
            Some(Prune::Members),
            &mut kept,
        )
        .unwrap()
        .unwrap();
        assert_eq!(change.members_added, ["B@x.io", "b@x.io", "d@x.io"]);
        assert_eq!(change.members_removed, ["c@x.io", "z@x.io"]);
        assert_eq!(kept, 0);
        let change = role_change(&wanted, &named, 0, &current, &live, None, &mut kept)
            .unwrap()
            .unwrap();
        assert!(change.members_removed.is_empty());
        assert_eq!(kept, 2);
        // The same members: nothing to do.
        assert!(
            role_change(
                &wanted,
                &named,
                1,
                &current,
                &live,
                Some(Prune::Members),
                &mut kept
            )
            .unwrap()
            .is_none()
        );
        // Who is not a member, by role and place, as written.
        let strangers = strangers(&named, &live).unwrap();
        let found: Vec<_> = strangers
            .into_iter()
            .map(|(place, (written, _))| (place, written))
            .collect();
        assert_eq!(
            found,
            [((1, 2), "z@x.io".to_string()), ((2, 0), "q@x.io".to_string())]
        );
    }
}
