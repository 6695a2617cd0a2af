//! Someone a write is about: how they are named on screen and their user
//! UUID, which is all a role's or a level's request needs of them; and
//! the words for a member and a level in questions and notices.

use crate::api::OrganizationMember;
use crate::api::models::level;

/// Someone to assign, add to roles or change: their name and user UUID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Person {
    pub label: String,
    pub uuid: String,
}

/// How a member is named in questions and notices: "Ada Okafor <ada@…>",
/// or their e-mail alone when that is all their name is.
pub fn named(member: &OrganizationMember) -> Person {
    let name = member.user.display_name();
    let label = if name.is_empty() || name == member.user.email {
        member.user.email.clone()
    } else {
        format!("{name} <{}>", member.user.email)
    };
    Person {
        label,
        uuid: member.user.uuid.clone(),
    }
}

/// "a member", "an admin", "an owner".
pub fn level_word(level: i64) -> String {
    match level::name(level) {
        name @ ("admin" | "owner" | "unknown") => format!("an {name}"),
        name => format!("a {name}"),
    }
}
