//! Who and what access is about: the organization (with what it says of
//! its resolution mode, its plan and whether members see each other), its
//! projects, its members and its roles with their members. Read once per
//! command through the [`Reader`]; the roles are read without the members
//! PostHog embeds in each (cut out of the page as it arrives), and each
//! role's memberships a page at a time, what is kept of each membership
//! and each member a compact row ([`RoleMember`], [`Person`]) rather than
//! the server's objects, counted as such against `--max-held-mib`. A read
//! about some people ([`People::Only`]) keeps only theirs.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};
use reqwest::Method;
use serde::{Deserialize, Serialize};

use super::read::{ReadError, ReadResult, Reader};
use crate::api::access::Mode;
use crate::api::models::{ListOrText, level};
use crate::api::{FetchAll, List, OrganizationMember, Project, Role, RoleMembership};
use crate::people::{RoleIndex, membership_user};

/// What the organization's answer tells of access. Every field is `None`
/// when the server does not say (PostHog says the plan in
/// `available_product_features`; the mode and member visibility only
/// where it has them).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Organization {
    pub id: String,
    pub name: String,
    /// The resolution mode the organization uses, when it says.
    #[serde(serialize_with = "mode_name")]
    pub mode: Option<Mode>,
    /// Whether its plan includes access control.
    pub access_control: Option<bool>,
    /// Whether its plan includes role-based access.
    pub role_based_access: Option<bool>,
    /// Whether members may see each other.
    pub members_visible: Option<bool>,
}

fn mode_name<S: serde::Serializer>(mode: &Option<Mode>, serializer: S) -> Result<S::Ok, S::Error> {
    match mode {
        Some(mode) => serializer.serialize_some(mode.as_str()),
        None => serializer.serialize_none(),
    }
}

/// A null read as the type's default.
fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// The organization as the API sends it, the fields access needs.
#[derive(Deserialize)]
struct OrganizationAnswer {
    #[serde(default, deserialize_with = "null_as_default")]
    id: String,
    #[serde(default, deserialize_with = "null_as_default")]
    name: String,
    #[serde(default)]
    uses_most_specific_access_resolution: Option<bool>,
    #[serde(default)]
    members_can_see_org_members: Option<bool>,
    #[serde(default)]
    available_product_features: Option<Vec<ProductFeature>>,
}

#[derive(Deserialize)]
struct ProductFeature {
    #[serde(default, deserialize_with = "null_as_default")]
    key: String,
}

impl From<OrganizationAnswer> for Organization {
    fn from(answer: OrganizationAnswer) -> Organization {
        let has = |keys: &[&str]| {
            answer.available_product_features.as_ref().map(|features| {
                features
                    .iter()
                    .any(|feature| keys.contains(&feature.key.as_str()))
            })
        };
        Organization {
            id: answer.id,
            name: answer.name,
            mode: answer
                .uses_most_specific_access_resolution
                .map(Mode::from_most_specific),
            // PostHog's checks have named the feature three ways over time.
            access_control: has(&[
                "access_control",
                "advanced_permissions",
                "project_based_permissioning",
            ]),
            role_based_access: has(&["role_based_access"]),
            members_visible: answer.members_can_see_org_members,
        }
    }
}

/// A project, by id and name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProjectRef {
    pub id: i64,
    pub name: String,
}

impl ProjectRef {
    /// "Hedgebox Web (1)".
    pub fn label(&self) -> String {
        format!("{} ({})", self.name, self.id)
    }
}

/// A member of the organization, as access names them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Person {
    /// What a member's rule names.
    pub membership_id: String,
    /// The user's uuid, what `users_with_access` names.
    pub user_uuid: String,
    pub email: String,
    pub name: String,
    /// 1 member, 8 admin, 15 owner.
    pub level: i64,
    pub last_login: Option<DateTime<Utc>>,
}

impl Person {
    pub fn from_member(member: &OrganizationMember) -> Person {
        Person {
            membership_id: member.id.to_lowercase(),
            user_uuid: member.user.uuid.to_lowercase(),
            email: member.user.email.clone(),
            name: member.user.display_name(),
            level: member.level,
            last_login: member.last_login,
        }
    }

    pub fn level_name(&self) -> &'static str {
        level::name(self.level)
    }

    pub fn is_organization_admin(&self) -> bool {
        self.level >= level::ADMIN
    }

    /// "Ivan Petrov <ivan.petrov@hedgebox.dev>", or the address alone.
    pub fn label(&self) -> String {
        if self.name.is_empty() || self.name == self.email {
            self.email.clone()
        } else {
            format!("{} <{}>", self.name, self.email)
        }
    }
}

/// A role and who holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RoleInfo {
    pub id: String,
    pub name: String,
    /// Its members, by name.
    pub members: Vec<RoleMember>,
}

impl crate::api::Kept for Person {
    fn heap_bytes(&self) -> u64 {
        [
            self.membership_id.heap_bytes(),
            self.user_uuid.heap_bytes(),
            self.email.heap_bytes(),
            self.name.heap_bytes(),
        ]
        .into_iter()
        .fold(0, u64::saturating_add)
    }
}

impl crate::api::Kept for RoleMember {
    fn heap_bytes(&self) -> u64 {
        [
            self.membership_id.heap_bytes(),
            self.user_uuid.heap_bytes(),
            self.email.heap_bytes(),
            self.name.heap_bytes(),
        ]
        .into_iter()
        .fold(0, u64::saturating_add)
    }
}

/// Someone in a role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RoleMember {
    /// Their organization membership id, when the server says it.
    pub membership_id: Option<String>,
    pub user_uuid: Option<String>,
    pub email: String,
    pub name: String,
}

impl RoleInfo {
    /// Whether the person holds the role.
    pub fn holds(&self, person: &Person) -> bool {
        self.members.iter().any(|member| {
            member.membership_id.as_deref() == Some(person.membership_id.as_str())
                || member.user_uuid.as_deref() == Some(person.user_uuid.as_str())
        })
    }
}

fn role_member(membership: &RoleMembership) -> RoleMember {
    let user = membership
        .user
        .as_ref()
        .or(membership.organization_member.as_ref().map(|member| &member.user));
    RoleMember {
        membership_id: membership
            .organization_member
            .as_ref()
            .map(|member| member.id.to_lowercase())
            .filter(|id| !id.is_empty()),
        user_uuid: membership_user(membership),
        email: user.map(|user| user.email.clone()).unwrap_or_default(),
        name: user.map(|user| user.display_name()).unwrap_or_default(),
    }
}

/// The organization, its projects and its roles.
/// Whom a read is about: everyone, or only some people (a change about
/// them moves nobody else's access, so the rest need not be held).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum People {
    #[default]
    Everyone,
    /// No one: the roles are read without their members (a reader that
    /// indexes them itself walks them with [`each_role_member`]).
    Nobody,
    /// By any of membership id, user uuid or e-mail address, lowercased:
    /// the members are walked whole to find them.
    Only {
        membership_ids: HashSet<String>,
        user_uuids: HashSet<String>,
        emails: HashSet<String>,
    },
    /// These members, read already (the one an offboarding or a change
    /// of level is about): the members are not read again.
    Known(Vec<Person>),
}

impl People {
    /// Only the people named by any of these.
    pub fn only<'a>(
        membership_ids: impl IntoIterator<Item = &'a str>,
        user_uuids: impl IntoIterator<Item = &'a str>,
        emails: impl IntoIterator<Item = &'a str>,
    ) -> People {
        let set = |ids: &mut dyn Iterator<Item = &'a str>| -> HashSet<String> {
            ids.map(|id| id.trim().to_lowercase())
                .filter(|id| !id.is_empty())
                .collect()
        };
        People::Only {
            membership_ids: set(&mut membership_ids.into_iter()),
            user_uuids: set(&mut user_uuids.into_iter()),
            emails: set(&mut emails.into_iter()),
        }
    }

    /// These members, read already.
    pub fn known(members: &[&OrganizationMember]) -> People {
        People::Known(members.iter().map(|member| Person::from_member(member)).collect())
    }

    fn names(&self, membership_id: Option<&str>, user_uuid: Option<&str>, email: &str) -> bool {
        match self {
            People::Everyone => true,
            People::Nobody => false,
            People::Known(people) => people.iter().any(|person| {
                membership_id.is_some_and(|id| id.eq_ignore_ascii_case(&person.membership_id))
                    || user_uuid.is_some_and(|uuid| uuid.eq_ignore_ascii_case(&person.user_uuid))
            }),
            People::Only {
                membership_ids,
                user_uuids,
                emails,
            } => {
                membership_id.is_some_and(|id| membership_ids.contains(&id.to_lowercase()))
                    || user_uuid.is_some_and(|uuid| user_uuids.contains(&uuid.to_lowercase()))
                    || (!email.is_empty() && emails.contains(&email.trim().to_lowercase()))
            }
        }
    }

    /// Whether a member of the organization is one of them.
    pub fn wants(&self, person: &Person) -> bool {
        self.names(
            Some(&person.membership_id),
            Some(&person.user_uuid),
            &person.email,
        )
    }

    /// Whether a role's member is one of them.
    fn wants_role_member(&self, member: &RoleMember) -> bool {
        self.names(
            member.membership_id.as_deref(),
            member.user_uuid.as_deref(),
            &member.email,
        )
    }
}

#[derive(Debug, Clone, Default)]
pub struct Directory {
    pub organization: Organization,
    /// By id.
    pub projects: Vec<ProjectRef>,
    /// By name (any case), then id.
    pub roles: Vec<RoleInfo>,
}

impl Directory {
    /// Reads the organization, the projects of it that the key lists, and
    /// every role with its members.
    pub async fn load(reader: &Reader, organization: &str) -> ReadResult<Directory> {
        Directory::load_for(reader, organization, &People::Everyone).await
    }

    /// [`Directory::load`] keeping, of each role's members, only `people`
    /// (every role's memberships are still walked whole).
    pub async fn load_for(reader: &Reader, organization: &str, people: &People) -> ReadResult<Directory> {
        Directory::load_with(reader, organization, people, None).await
    }

    /// [`Directory::load_for`] with the roles read already, as
    /// [`roles_held`] makes them of a role index (an offboarding has read
    /// one to plan, and its preview takes it rather than reading every
    /// role's memberships again).
    pub async fn load_with_roles(
        reader: &Reader,
        organization: &str,
        roles: Vec<RoleInfo>,
    ) -> ReadResult<Directory> {
        Directory::load_with(reader, organization, &People::Nobody, Some(roles)).await
    }

    async fn load_with(
        reader: &Reader,
        organization: &str,
        people: &People,
        held: Option<Vec<RoleInfo>>,
    ) -> ReadResult<Directory> {
        // The three at once: the organization as given (`@current` too)
        // names the roles' path.
        let (answer, listed, roles) = tokio::join!(
            reader.read(|client| async move {
                let url = client.url(&["api", "organizations", organization]);
                client
                    .call::<OrganizationAnswer>(Method::GET, url, None::<&()>)
                    .await
            }),
            projects(reader),
            async {
                match held {
                    Some(roles) => Ok(roles),
                    None => roles(reader, organization, people).await,
                }
            },
        );
        let answer = answer?;
        let organization = Organization::from(answer);
        let mut projects = listed?;
        // Projects of other organizations the key reaches are left out.
        projects.retain(|(_, owner)| {
            owner
                .as_deref()
                .is_none_or(|owner| owner.eq_ignore_ascii_case(&organization.id))
        });
        Ok(Directory {
            organization,
            projects: projects.into_iter().map(|(project, _)| project).collect(),
            roles: roles?,
        })
    }

    /// The role with this id or name (any case).
    pub fn role(&self, id_or_name: &str) -> Option<&RoleInfo> {
        let wanted = id_or_name.trim();
        self.roles
            .iter()
            .find(|role| role.id.eq_ignore_ascii_case(wanted))
            .or_else(|| {
                self.roles
                    .iter()
                    .find(|role| role.name.eq_ignore_ascii_case(wanted))
            })
            .or_else(|| {
                let lower = wanted.to_lowercase();
                self.roles.iter().find(|role| role.name.to_lowercase() == lower)
            })
    }

    /// The roles a person holds, by name.
    pub fn roles_of(&self, person: &Person) -> Vec<&RoleInfo> {
        self.roles.iter().filter(|role| role.holds(person)).collect()
    }

    /// Role names by id.
    pub fn role_names(&self) -> HashMap<&str, &str> {
        self.roles
            .iter()
            .map(|role| (role.id.as_str(), role.name.as_str()))
            .collect()
    }

    /// The project with this id.
    pub fn project(&self, id: &str) -> Option<&ProjectRef> {
        self.projects
            .iter()
            .find(|project| project.id.to_string() == id.trim())
    }
}

/// Reads a whole list in one of the reader's slots, and charges the pacer
/// for each page past the first.
async fn whole<T: crate::api::Row>(reader: &Reader, list: &List<T>) -> ReadResult<Vec<T>> {
    let options = FetchAll {
        concurrency: 4,
        ..FetchAll::default()
    };
    let rows = reader
        .read(|client| {
            let options = &options;
            async move { client.all(list, options).await }
        })
        .await?;
    let pages = (rows.len() as u64).div_ceil(options.page_size).max(1);
    reader.charge(pages - 1).await?;
    Ok(rows.into_vec())
}

/// Rows a page of the lists that grow with the organization (its members,
/// each role's memberships): PostHog sets no most (posthog.md 4), and at
/// 100 a page an organization of 90,000 members would cost some 2,700
/// paced requests rather than 270.
const LARGE_PAGE: u64 = 1_000;

/// What `each_page` keeps of every row of a whole list, a row for a row
/// (counted against the command's budget as what it keeps,
/// [`crate::api::Kept`], the server's objects let go as each page is
/// read), as [`whole`] reads it, in pages of [`LARGE_PAGE`].
async fn gathered<T: crate::api::Row, U: crate::api::Kept>(
    reader: &Reader,
    list: &List<T>,
    mut each_page: impl FnMut(Vec<T>) -> crate::api::error::Result<Vec<U>>,
) -> ReadResult<Vec<U>> {
    let options = FetchAll {
        concurrency: 4,
        page_size: LARGE_PAGE,
        ..FetchAll::default()
    };
    // Pages are counted as they come: a page may keep none of its rows.
    let mut pages = 0u64;
    let rows = reader
        .read(|client| {
            let options = &options;
            let (pages, each_page) = (&mut pages, &mut each_page);
            async move {
                client
                    .gather(list, options, |page| {
                        *pages += 1;
                        each_page(page)
                    })
                    .await
            }
        })
        .await?;
    reader.charge(pages.max(1) - 1).await?;
    Ok(rows.into_vec())
}

/// The projects the key lists, by id, each with the organization it says
/// it is of (a server that does not say keeps it).
async fn projects(reader: &Reader) -> ReadResult<Vec<(ProjectRef, Option<String>)>> {
    let listed: Vec<Project> = whole(reader, &List::projects()).await?;
    let mut projects: Vec<(ProjectRef, Option<String>)> = listed
        .into_iter()
        .map(|project| {
            (
                ProjectRef {
                    id: project.id,
                    name: project.name,
                },
                project.organization,
            )
        })
        .collect();
    projects.sort_by_key(|(project, _)| project.id);
    projects.dedup_by_key(|(project, _)| project.id);
    Ok(projects)
}

/// Every role with its members, from each role's memberships (the
/// members PostHog embeds in the roles' list are cut out as it arrives).
async fn roles(reader: &Reader, organization_id: &str, people: &People) -> ReadResult<Vec<RoleInfo>> {
    // One person known already (`access person`, a change about them):
    // their roles from the members the roles' list embeds, read once as
    // it arrives, rather than every role's memberships (one request a role).
    if let People::Known(known) = people
        && let [person] = known.as_slice()
        && !person.user_uuid.is_empty()
    {
        if reader.is_stopped() {
            return Err(ReadError::Stopped);
        }
        let index =
            RoleIndex::load_of(reader.client(), organization_id, &person.user_uuid, &|_, _| {}).await?;
        return Ok(roles_held(&index, person));
    }
    let listed: Vec<Role> = whole(reader, &List::roles(organization_id).without("members")).await?;
    let kept = |memberships: &[RoleMembership]| -> Vec<RoleMember> {
        memberships
            .iter()
            .map(role_member)
            .filter(|member| people.wants_role_member(member))
            .collect()
    };
    let kept = &kept;
    // Every role's memberships at once: the reader lets a few go at a time.
    let reads = listed.into_iter().map(|role| async move {
        let mut members: Vec<RoleMember> = match role.members {
            _ if *people == People::Nobody => Vec::new(),
            // A server that sends them anyway (the cut left its text alone).
            Some(ListOrText::List(memberships)) => kept(&memberships),
            _ => {
                let list = List::memberships(organization_id, &role.id);
                gathered(reader, &list, |page: Vec<RoleMembership>| Ok(kept(&page))).await?
            }
        };
        members.sort_by(|a, b| {
            a.name
                .to_lowercase()
                .cmp(&b.name.to_lowercase())
                .then_with(|| a.email.cmp(&b.email))
        });
        members.dedup_by(|a, b| a.user_uuid.is_some() && a.user_uuid == b.user_uuid);
        Ok::<_, ReadError>(RoleInfo {
            id: role.id.to_lowercase(),
            name: role.name,
            members,
        })
    });
    let mut roles = futures_util::future::try_join_all(reads).await?;
    sort_roles(&mut roles);
    Ok(roles)
}

/// The roles in the directory's order: by name (any case), then id.
fn sort_roles(roles: &mut [RoleInfo]) {
    roles.sort_by(|a, b| {
        a.name
            .to_lowercase()
            .cmp(&b.name.to_lowercase())
            .then_with(|| a.id.cmp(&b.id))
    });
}

/// Every role of `index` (a [`RoleIndex`] holding `person`'s memberships,
/// [`RoleIndex::load_of`]) with `person` its one member where they hold it:
/// what [`Directory::load_for`] reads of the roles for [`People::Known`]
/// of them alone, without reading it again.
pub fn roles_held(index: &RoleIndex, person: &Person) -> Vec<RoleInfo> {
    let theirs = index.of(&person.user_uuid);
    let mut roles: Vec<RoleInfo> = index
        .roles
        .iter()
        .map(|role| RoleInfo {
            id: role.id.to_lowercase(),
            name: role.name.clone(),
            members: match theirs.iter().any(|held| held.id.eq_ignore_ascii_case(&role.id)) {
                true => vec![RoleMember {
                    membership_id: Some(person.membership_id.clone()),
                    user_uuid: Some(person.user_uuid.clone()),
                    email: person.email.clone(),
                    name: person.name.clone(),
                }],
                false => Vec::new(),
            },
        })
        .collect();
    sort_roles(&mut roles);
    roles
}

/// Walks every role's memberships, a page at a time, handing each member
/// to `each` with the role's place in `roles`; nothing is kept. The roles
/// in the order given, each whole (a list is read whole or not at all).
pub async fn each_role_member(
    reader: &Reader,
    organization_id: &str,
    roles: &[RoleInfo],
    mut each: impl FnMut(usize, &RoleMember),
) -> ReadResult<()> {
    for (at, role) in roles.iter().enumerate() {
        let list = List::memberships(organization_id, &role.id);
        gathered(reader, &list, |page: Vec<RoleMembership>| {
            for membership in &page {
                each(at, &role_member(membership));
            }
            Ok(Vec::<String>::new())
        })
        .await?;
    }
    Ok(())
}

/// Walks every member of the organization, a page at a time, handing each
/// to `each` in the server's order; nothing is kept. `each` failing stops
/// the walk, its error given back beside the read's outcome.
pub async fn each_member<E>(
    reader: &Reader,
    organization_id: &str,
    mut each: impl FnMut(Person) -> Result<(), E>,
) -> ReadResult<Result<(), E>> {
    let mut failed = None;
    let read = gathered(reader, &List::members(organization_id), |page| {
        for member in &page {
            if failed.is_none()
                && let Err(error) = each(Person::from_member(member))
            {
                failed = Some(error);
            }
        }
        match failed {
            Some(_) => Err(crate::api::Error::Invalid(
                "the members could not be set aside".into(),
            )),
            None => Ok(Vec::<String>::new()),
        }
    })
    .await;
    match (read, failed) {
        (_, Some(error)) => Ok(Err(error)),
        (Err(error), None) => Err(error),
        (Ok(_), None) => Ok(Ok(())),
    }
}

/// The member with this e-mail address, or `None`.
pub async fn person(reader: &Reader, organization_id: &str, email: &str) -> ReadResult<Option<Person>> {
    let found = reader
        .read(|client| async move { client.member_by_email(organization_id, email).await })
        .await?;
    Ok(found.as_ref().map(Person::from_member))
}

/// Every member of the organization, by e-mail address (any case), then
/// membership id: the order of a review.
pub async fn everyone(reader: &Reader, organization_id: &str) -> ReadResult<Vec<Person>> {
    members(reader, organization_id, &People::Everyone).await
}

/// The members of the organization that are `people`, in the order of
/// [`everyone`]. The whole list is walked (a list is read whole or not at
/// all); only they are kept.
pub async fn members(reader: &Reader, organization_id: &str, people: &People) -> ReadResult<Vec<Person>> {
    let mut kept: Vec<Person> = match people {
        People::Known(known) => known.clone(),
        // Of each member, what access names them by; the server's objects
        // go as each page is read.
        _ => {
            gathered(reader, &List::members(organization_id), |page| {
                Ok(page
                    .iter()
                    .map(Person::from_member)
                    .filter(|person| people.wants(person))
                    .collect())
            })
            .await?
        }
    };
    kept.sort_by(|a, b| {
        a.email
            .to_lowercase()
            .cmp(&b.email.to_lowercase())
            .then_with(|| a.membership_id.cmp(&b.membership_id))
    });
    kept.dedup_by(|a, b| a.membership_id == b.membership_id);
    Ok(kept)
}
