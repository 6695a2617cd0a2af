//! Who the key is and what they may do, asked before a command that changes
//! many things starts, so that it never stops half-way on a 403: the key's
//! user (`users/@me`), their level in the organization (their membership),
//! the key's scopes and the organizations and projects it is limited to
//! (`personal_api_keys/@current`). [`Caller::shortfalls`] says, for the
//! operations a plan holds, what is missing to do them all, with the
//! operations each lack stops, as the server would refuse them (posthog.md
//! 1, 3, 15-13 and 15-19).

use super::client::Client;
use super::error::Result;
use super::models::{PersonalApiKey, User, level, scopes_grant};

/// Something orgdeck does that needs a permission.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operation {
    /// Create, rename or delete a role.
    ChangeRole,
    /// Add someone to a role or take them out of it.
    ChangeRoleMembers,
    /// Create or change a subscription of a project; `ai_prompt` when it is
    /// (or becomes) an AI-prompt subscription, which needs `query:read`.
    ChangeSubscription { project: i64, ai_prompt: bool },
    /// Change a member's level, from `from` to `to`.
    SetLevel { user_uuid: String, from: i64, to: i64 },
    /// Remove a member (themselves: leave), whose level is `level`.
    RemoveMember { user_uuid: String, level: i64 },
    /// Set or remove an access rule of a project: on one object (which its
    /// creator or a manager of it may change too), or project- or
    /// resource-wide (organization admins only, posthog.md 16.2).
    ChangeAccess { project: i64, object: bool },
}

impl Operation {
    /// The scope the key needs for it.
    fn scope(&self) -> &'static str {
        match self {
            Operation::ChangeRole | Operation::ChangeRoleMembers => "organization:write",
            Operation::ChangeSubscription { .. } => "subscription:write",
            Operation::SetLevel { .. } | Operation::RemoveMember { .. } => "organization_member:write",
            Operation::ChangeAccess { .. } => "access_control:write",
        }
    }

    /// Whether it goes to an organization endpoint (which PostHog refuses
    /// to a key limited to projects).
    fn on_the_organization(&self) -> bool {
        !matches!(
            self,
            Operation::ChangeSubscription { .. } | Operation::ChangeAccess { .. }
        )
    }
}

/// One thing missing for an operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lack {
    /// The key lacks a scope.
    Scope(&'static str),
    /// The key is limited to other organizations.
    Organization,
    /// The key is limited to projects: organization endpoints refuse it.
    ProjectsOnly,
    /// The key is limited to other projects than this one.
    Project(i64),
    /// The key's user is not a member of the organization.
    NotAMember,
    /// The key's user's level is below the one needed, for this.
    Level { needs: i64, to: &'static str },
    /// Nobody changes their own level.
    OwnLevel,
    /// An owner is never removed: they must be made admin by another owner.
    OwnerRemoval,
}

/// A lack, and the operations (by the caller's numbers) it stops.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shortfall {
    pub lack: Lack,
    pub stops: Vec<usize>,
}

/// The key's user, their level, and the key.
#[derive(Debug, Clone, PartialEq)]
pub struct Caller {
    pub user: User,
    pub organization_id: String,
    /// Their level in the organization; `None`: not a member.
    pub level: Option<i64>,
    /// The key, or why it could not be read (then its scopes and limits are
    /// the server's to judge).
    pub key: std::result::Result<PersonalApiKey, String>,
}

impl Client {
    /// Who this key is in `organization_id` (a UUID): three requests. A key
    /// refused `users/@me` (PostHog asks `user:read` there) is known by the
    /// `user_id` its own description carries, found among the members.
    pub async fn caller(&self, organization_id: &str) -> Result<Caller> {
        let key = self.current_key().await;
        let (user, member) = match self.me().await {
            Ok(user) => {
                let member = self.member_by_email(organization_id, &user.email).await?;
                (user, member)
            }
            Err(refused) if refused.status() == Some(403) => {
                let user_id = key
                    .as_ref()
                    .ok()
                    .and_then(|key| key.user_id.as_ref())
                    .map(|id| match id {
                        serde_json::Value::String(text) => text.clone(),
                        other => other.to_string(),
                    });
                let Some(user_id) = user_id else {
                    return Err(refused);
                };
                match self.member_by_user_id(organization_id, &user_id).await? {
                    Some(member) => (member.user.clone(), Some(member)),
                    None => return Err(refused),
                }
            }
            Err(error) => return Err(error),
        };
        let key = key.map_err(|error| error.to_string());
        let level = member
            .filter(|member| member.user.uuid.is_empty() || member.user.uuid.eq_ignore_ascii_case(&user.uuid))
            .map(|member| member.level);
        Ok(Caller {
            user,
            organization_id: organization_id.to_string(),
            level,
            key,
        })
    }
}

impl Caller {
    /// What one operation lacks, first the key's, then the user's.
    pub fn lacks(&self, operation: &Operation) -> Vec<Lack> {
        let mut lacks = Vec::new();
        if let Ok(key) = &self.key {
            let scope = operation.scope();
            if !scopes_grant(&key.scopes, scope) {
                lacks.push(Lack::Scope(scope));
            }
            if let Operation::ChangeSubscription { ai_prompt: true, .. } = operation
                && !scopes_grant(&key.scopes, "query:read")
            {
                lacks.push(Lack::Scope("query:read"));
            }
            let organizations = key.scoped_organizations.as_deref().unwrap_or_default();
            if !organizations.is_empty()
                && !organizations
                    .iter()
                    .any(|id| id.eq_ignore_ascii_case(&self.organization_id))
            {
                lacks.push(Lack::Organization);
            }
            let projects = key.scoped_teams.as_deref().unwrap_or_default();
            if !projects.is_empty() {
                match operation {
                    Operation::ChangeSubscription { project, .. }
                    | Operation::ChangeAccess { project, .. }
                        if !projects.contains(project) =>
                    {
                        lacks.push(Lack::Project(*project))
                    }
                    _ if operation.on_the_organization() => lacks.push(Lack::ProjectsOnly),
                    _ => {}
                }
            }
        }
        let Some(mine) = self.level else {
            lacks.push(Lack::NotAMember);
            return lacks;
        };
        let is_me = |uuid: &str| uuid.eq_ignore_ascii_case(&self.user.uuid);
        let needs = |lacks: &mut Vec<Lack>, needed: i64, to: &'static str| {
            if mine < needed {
                lacks.push(Lack::Level { needs: needed, to });
            }
        };
        match operation {
            Operation::ChangeRole => needs(&mut lacks, level::ADMIN, "change roles"),
            Operation::ChangeRoleMembers => needs(&mut lacks, level::ADMIN, "change who is in a role"),
            Operation::ChangeSubscription { .. } | Operation::ChangeAccess { object: true, .. } => {}
            Operation::ChangeAccess { object: false, .. } => {
                needs(&mut lacks, level::ADMIN, "change project-wide access rules")
            }
            Operation::SetLevel { user_uuid, from, to } => {
                if is_me(user_uuid) {
                    lacks.push(Lack::OwnLevel);
                } else {
                    needs(&mut lacks, level::ADMIN, "change a member's level");
                    if *from > level::ADMIN {
                        needs(&mut lacks, *from, "change an owner's level");
                    }
                    if *to > level::ADMIN {
                        needs(&mut lacks, *to, "make someone owner");
                    }
                }
            }
            Operation::RemoveMember {
                user_uuid,
                level: theirs,
            } => {
                if *theirs >= level::OWNER {
                    lacks.push(Lack::OwnerRemoval);
                } else if !is_me(user_uuid) {
                    needs(&mut lacks, level::ADMIN, "remove a member");
                    if *theirs > level::ADMIN {
                        needs(&mut lacks, *theirs, "remove an owner");
                    }
                }
            }
        }
        lacks.dedup();
        lacks
    }

    /// What is missing to do every operation, each lack once with the
    /// numbers of the operations it stops, in the order first met. Empty:
    /// the key may do them all.
    pub fn shortfalls(&self, operations: impl IntoIterator<Item = (usize, Operation)>) -> Vec<Shortfall> {
        let mut found: Vec<Shortfall> = Vec::new();
        for (number, operation) in operations {
            for lack in self.lacks(&operation) {
                match found.iter_mut().find(|shortfall| shortfall.lack == lack) {
                    Some(shortfall) => shortfall.stops.push(number),
                    None => found.push(Shortfall {
                        lack,
                        stops: vec![number],
                    }),
                }
            }
        }
        found
    }

    /// What is missing to do every operation, one line a lack naming the
    /// steps it stops ("… (steps 1, 4)"). Empty: the key may do them all.
    pub fn missing(&self, operations: impl IntoIterator<Item = (usize, Operation)>) -> Vec<String> {
        self.shortfalls(operations)
            .into_iter()
            .map(|shortfall| {
                let numbers: Vec<String> = shortfall.stops.iter().map(usize::to_string).collect();
                format!(
                    "{} (step{} {})",
                    self.explain(&shortfall.lack),
                    crate::text::plural(numbers.len()),
                    numbers.join(", ")
                )
            })
            .collect()
    }

    /// A lack in words, naming the key's user where it is theirs.
    pub fn explain(&self, lack: &Lack) -> String {
        let who = format!("{} (the key's user)", self.user.email);
        match lack {
            Lack::Scope(scope) => format!("the key lacks the '{scope}' scope"),
            Lack::Organization => "the key is limited to other organizations".into(),
            Lack::ProjectsOnly => {
                "the key is limited to projects, and organization endpoints refuse such keys".into()
            }
            Lack::Project(project) => format!("the key is limited to projects other than {project}"),
            Lack::NotAMember => format!("{who} is not a member of the organization"),
            Lack::Level { needs, to } => format!(
                "{who} is {} {}, and only {} {} may {to}",
                article(self.level.unwrap_or_default()),
                level::name(self.level.unwrap_or_default()),
                article(*needs),
                level::name(*needs)
            ),
            Lack::OwnLevel => {
                format!("{who} cannot change their own level (PostHog refuses it): another owner must run it")
            }
            Lack::OwnerRemoval => {
                "an owner cannot be removed (PostHog refuses it): another owner must make them admin first"
                    .into()
            }
        }
    }

    /// Whether the key's scopes were read; when not, why.
    pub fn scopes_unknown(&self) -> Option<&str> {
        self.key.as_ref().err().map(String::as_str)
    }
}

/// "a" or "an", before a level's name.
fn article(level: i64) -> &'static str {
    match level::name(level) {
        "admin" | "owner" | "unknown" => "an",
        _ => "a",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caller(level: Option<i64>, scopes: &[&str]) -> Caller {
        Caller {
            user: User {
                uuid: "me".into(),
                email: "me@x.io".into(),
                ..User::default()
            },
            organization_id: "org".into(),
            level,
            key: Ok(PersonalApiKey {
                scopes: scopes.iter().map(|scope| scope.to_string()).collect(),
                ..PersonalApiKey::default()
            }),
        }
    }

    fn remove(uuid: &str, theirs: i64) -> Operation {
        Operation::RemoveMember {
            user_uuid: uuid.into(),
            level: theirs,
        }
    }

    #[test]
    fn a_plain_member_s_key_lacks_the_level_for_roles_and_members_not_for_subscriptions() {
        let member = caller(Some(level::MEMBER), &["*"]);
        let edit = Operation::ChangeSubscription {
            project: 1,
            ai_prompt: false,
        };
        let found = member.shortfalls([
            (1, Operation::ChangeRoleMembers),
            (2, edit.clone()),
            (3, edit),
            (4, remove("them", level::MEMBER)),
        ]);
        assert_eq!(
            found,
            vec![
                Shortfall {
                    lack: Lack::Level {
                        needs: level::ADMIN,
                        to: "change who is in a role"
                    },
                    stops: vec![1],
                },
                Shortfall {
                    lack: Lack::Level {
                        needs: level::ADMIN,
                        to: "remove a member"
                    },
                    stops: vec![4],
                },
            ]
        );
        assert_eq!(
            member.explain(&found[0].lack),
            "me@x.io (the key's user) is a member, and only an admin may change who is in a role"
        );
        // Leaving needs no level.
        assert!(member.lacks(&remove("ME", level::MEMBER)).is_empty());
    }

    #[test]
    fn scopes_and_the_key_s_limits_are_the_key_s_lacks() {
        let mut admin = caller(Some(level::ADMIN), &["subscription:write", "organization:read"]);
        assert_eq!(
            admin.lacks(&Operation::ChangeRoleMembers),
            vec![Lack::Scope("organization:write")]
        );
        assert_eq!(
            admin.lacks(&Operation::ChangeSubscription {
                project: 2,
                ai_prompt: true
            }),
            vec![Lack::Scope("query:read")]
        );
        if let Ok(key) = &mut admin.key {
            key.scopes = vec!["*".into()];
            key.scoped_teams = Some(vec![1]);
        }
        assert_eq!(
            admin.lacks(&Operation::ChangeSubscription {
                project: 2,
                ai_prompt: false
            }),
            vec![Lack::Project(2)]
        );
        assert_eq!(admin.lacks(&Operation::ChangeRole), vec![Lack::ProjectsOnly]);
        if let Ok(key) = &mut admin.key {
            key.scoped_teams = None;
            key.scoped_organizations = Some(vec!["other".into()]);
        }
        assert_eq!(admin.lacks(&Operation::ChangeRole), vec![Lack::Organization]);
        // A key not read: the server judges the scopes, the level still counts.
        admin.key = Err("404".into());
        admin.level = Some(level::MEMBER);
        assert_eq!(admin.lacks(&Operation::ChangeRole).len(), 1);
        assert_eq!(admin.scopes_unknown(), Some("404"));
    }

    #[test]
    fn owners_are_kept_and_only_owners_change_them() {
        let admin = caller(Some(level::ADMIN), &["*"]);
        let demote = Operation::SetLevel {
            user_uuid: "them".into(),
            from: level::OWNER,
            to: level::ADMIN,
        };
        assert_eq!(
            admin.lacks(&demote),
            vec![Lack::Level {
                needs: level::OWNER,
                to: "change an owner's level"
            }]
        );
        let owner = caller(Some(level::OWNER), &["*"]);
        assert!(owner.lacks(&demote).is_empty());
        assert_eq!(
            owner.lacks(&Operation::SetLevel {
                user_uuid: "me".into(),
                from: level::OWNER,
                to: level::ADMIN
            }),
            vec![Lack::OwnLevel]
        );
        assert_eq!(
            owner.lacks(&remove("them", level::OWNER)),
            vec![Lack::OwnerRemoval]
        );
        assert_eq!(owner.lacks(&remove("me", level::OWNER)), vec![Lack::OwnerRemoval]);
        assert!(owner.lacks(&remove("them", level::ADMIN)).is_empty());
        assert_eq!(
            admin.explain(&Lack::Level {
                needs: level::OWNER,
                to: "change an owner's level"
            }),
            "me@x.io (the key's user) is an admin, and only an owner may change an owner's level"
        );
        let outsider = caller(None, &["*"]);
        assert_eq!(outsider.lacks(&Operation::ChangeRole), vec![Lack::NotAMember]);
    }
}
