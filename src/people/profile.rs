//! Everything that touches one person: their roles, the subscriptions they
//! created, the subscriptions that mail them, their keys, and what would
//! break if they left. Read across every project of the organization the
//! key can reach; a project it cannot read is named, never skipped in
//! silence.

use std::collections::BTreeMap;

use futures_util::StreamExt;
use serde::Serialize;

use super::{HeldRole, RoleIndex};
use crate::api::enums::{ResourceType, TargetType};
use crate::api::{
    Client, Error, FetchAll, List, OrganizationMember, Project, ScopedApiKeys, Subscription,
    SubscriptionFilter, Whole,
};

/// A project, by id and name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProjectRef {
    pub id: i64,
    pub name: String,
}

/// A subscription found for a person, with its project.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Found {
    pub project: ProjectRef,
    pub subscription: Subscription,
    /// The person is its only recipient.
    pub sole_recipient: bool,
}

impl Found {
    /// `#47 "Weekly revenue"` (its title, else what it delivers).
    pub fn label(&self) -> String {
        label(&self.subscription)
    }

    /// An AI report: it cannot be re-enabled once its creator has left.
    pub fn is_ai_report(&self) -> bool {
        is_ai_report(&self.subscription)
    }
}

/// `#47 "Weekly revenue"`.
pub fn label(subscription: &Subscription) -> String {
    let title = subscription
        .title
        .as_deref()
        .filter(|title| !title.trim().is_empty())
        .or(subscription.resource_name.as_deref())
        .unwrap_or("untitled");
    format!("#{} \"{}\"", subscription.id, title)
}

pub fn is_ai_report(subscription: &Subscription) -> bool {
    subscription.resource_type == Some(ResourceType::AiPrompt)
}

/// A person's keys, or why they are not known.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Keys {
    Known(ScopedApiKeys),
    /// The server lists a person's keys to its web app alone (today's
    /// PostHog refuses a personal API key): said in [`UNLISTED`].
    Unlisted {
        unlisted: String,
    },
    Unknown {
        unknown: String,
    },
}

/// Why a person's keys are not shown by today's PostHog.
pub const UNLISTED: &str = "their keys cannot be listed with a personal API key: PostHog lists a \
                            person's keys only in its web app";

/// What that means for offboarding them.
pub const UNLISTED_MEANS: &str = "orgdeck cannot tell whether they have any; any they have keep \
                                  working while they are a member, and stop reaching this \
                                  organization once they are removed from it";

/// The person a page is about.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Person {
    pub email: String,
    /// Their user UUID, when known (a member, or the creator of something).
    pub uuid: Option<String>,
    pub name: String,
}

/// Everything about one person.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Profile {
    pub person: Person,
    /// `None`: not (or no longer) a member of the organization.
    pub member: Option<OrganizationMember>,
    pub roles: Vec<HeldRole>,
    pub created_subscriptions: Vec<Found>,
    pub receiving_subscriptions: Vec<Found>,
    pub keys: Keys,
    /// What would break if they left, in words.
    pub would_break: Vec<String>,
    /// What could not be read (a project the key cannot reach).
    pub warnings: Vec<String>,
}

/// Subscriptions listed per request, and lists read at once.
const PAGE: FetchAll = FetchAll {
    page_size: 100,
    concurrency: 4,
    progress: None,
    max_rows: None,
    pace: None,
};

/// Whether a subscription's e-mail recipients include this address.
pub fn mails(subscription: &Subscription, email: &str) -> bool {
    subscription.target_type == Some(TargetType::Email)
        && recipients(subscription).any(|address| address.eq_ignore_ascii_case(email.trim()))
}

/// A subscription's e-mail recipients, as written.
pub fn recipients(subscription: &Subscription) -> impl Iterator<Item = &str> {
    subscription
        .target_value
        .as_deref()
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|address| !address.is_empty())
}

/// The organization's projects the key lists (all, when a server does not
/// say whose a project is).
pub async fn projects(client: &Client, organization_id: &str) -> crate::api::error::Result<Vec<ProjectRef>> {
    let projects: Whole<Project> = client.all(&List::projects(), &FetchAll::default()).await?;
    let mut mine: Vec<ProjectRef> = projects
        .into_iter()
        .filter(|project| {
            project
                .organization
                .as_deref()
                .is_none_or(|owner| owner.eq_ignore_ascii_case(organization_id))
        })
        .map(|project| ProjectRef {
            id: project.id,
            name: project.name,
        })
        .collect();
    mine.sort_by_key(|project| project.id);
    Ok(mine)
}

/// Reads everything about the person with this e-mail address: a member,
/// or someone who left and is still mailed or named as a creator.
pub async fn gather(
    client: &Client,
    organization: &str,
    email: &str,
    index: &RoleIndex,
) -> anyhow::Result<Profile> {
    let (organization_id, member) = member_of(client, organization, email).await?;
    gather_member(client, &organization_id, email, member, index).await
}

/// The organization's id and its member with this e-mail address, if any.
pub async fn member_of(
    client: &Client,
    organization: &str,
    email: &str,
) -> anyhow::Result<(String, Option<OrganizationMember>)> {
    let organization_id = client.organization(organization).await?.id;
    let member = client.member_by_email(&organization_id, email.trim()).await?;
    Ok((organization_id, member))
}

/// [`gather`] of a member (or someone who is not, `None`) read already.
pub async fn gather_member(
    client: &Client,
    organization_id: &str,
    email: &str,
    member: Option<OrganizationMember>,
    index: &RoleIndex,
) -> anyhow::Result<Profile> {
    let email = email.trim().to_string();
    let organization_id = organization_id.to_string();
    let mut warnings = Vec::new();
    let (created, receiving) = subscriptions_of(
        client,
        &organization_id,
        &email,
        member.as_ref().map(|member| member.user.uuid.as_str()),
        &mut warnings,
    )
    .await?;
    let keys = match &member {
        Some(member) => match client.scoped_api_keys(&organization_id, &member.user.uuid).await {
            Ok(keys) => Keys::Known(keys),
            Err(error) if error.refuses_personal_keys() => Keys::Unlisted {
                unlisted: format!("{UNLISTED}; {UNLISTED_MEANS}"),
            },
            Err(error) => Keys::Unknown {
                unknown: format!("cannot read their keys: {error}"),
            },
        },
        None => Keys::Unknown {
            unknown: "not a member of the organization".into(),
        },
    };
    // Someone no longer a member is known by what they created.
    let known = member.as_ref().map(|member| &member.user).or_else(|| {
        created
            .iter()
            .find_map(|found| found.subscription.created_by.as_ref())
    });
    let uuid = known.map(|user| user.uuid.clone());
    let name = known
        .map(|user| user.display_name())
        .unwrap_or_else(|| email.clone());
    let roles = uuid
        .as_deref()
        .map(|uuid| index.of(uuid).to_vec())
        .unwrap_or_default();
    let mut profile = Profile {
        person: Person { email, uuid, name },
        member,
        roles,
        created_subscriptions: created,
        receiving_subscriptions: receiving,
        keys,
        would_break: Vec::new(),
        warnings,
    };
    profile.would_break = would_break(&profile);
    Ok(profile)
}

/// The subscriptions a person created and those that mail them, across
/// the organization's projects (a project at a time, its lists paged and
/// read whole, keeping only the person's). A project the server refuses to
/// list is named in `warnings`; a list that does not come whole, or any
/// other failure, fails the whole: a person's page is never drawn, nor an
/// offboarding planned, from part of a list.
async fn subscriptions_of(
    client: &Client,
    organization_id: &str,
    email: &str,
    uuid: Option<&str>,
    warnings: &mut Vec<String>,
) -> anyhow::Result<(Vec<Found>, Vec<Found>)> {
    let projects = projects(client, organization_id).await?;
    // A server without the `created_by` filter sends every row: each is checked.
    let creator = move |row: &Subscription| {
        row.created_by.as_ref().is_some_and(|user| {
            uuid.is_some_and(|uuid| user.uuid.eq_ignore_ascii_case(uuid))
                || user.email.eq_ignore_ascii_case(email)
        })
    };
    let reads = futures_util::stream::iter(projects.into_iter().map(|project| async move {
        let id = project.id.to_string();
        let mailed = SubscriptionFilter {
            target_type: Some("email".into()),
            ..SubscriptionFilter::default()
        };
        let mailed = List::subscriptions(&id, &mailed);
        let receiving = client.gather(&mailed, &PAGE, |rows: Vec<Subscription>| {
            Ok::<_, Error>(rows.into_iter().filter(|row| mails(row, email)).collect())
        });
        let created = async {
            match uuid {
                Some(uuid) => {
                    let filter = SubscriptionFilter {
                        created_by: Some(uuid.to_string()),
                        ..SubscriptionFilter::default()
                    };
                    let list = List::subscriptions(&id, &filter);
                    client
                        .gather(&list, &PAGE, |rows: Vec<Subscription>| {
                            Ok::<_, Error>(rows.into_iter().filter(creator).collect())
                        })
                        .await
                        .map(Whole::into_vec)
                }
                None => Ok(Vec::new()),
            }
        };
        let (receiving, created) = futures_util::join!(receiving, created);
        (project, receiving.map(Whole::into_vec), created)
    }))
    .buffered(2)
    .collect::<Vec<_>>()
    .await;
    let mut created = BTreeMap::new();
    let mut receiving = BTreeMap::new();
    for (project, mailed, made) in reads {
        let (mailed, made) = match (mailed, made) {
            (Ok(mailed), Ok(made)) => (mailed, made),
            (Err(error), _) | (_, Err(error)) if error.refusal().is_some() => {
                warnings.push(format!(
                    "project {} \"{}\" could not be read: {error}",
                    project.id, project.name
                ));
                continue;
            }
            (Err(error), _) | (_, Err(error)) => return Err(error.into()),
        };
        for subscription in mailed {
            let sole = recipients(&subscription).all(|address| address.eq_ignore_ascii_case(email));
            receiving.insert((project.id, subscription.id), found(&project, subscription, sole));
        }
        for subscription in made {
            let sole = mails(&subscription, email)
                && recipients(&subscription).all(|address| address.eq_ignore_ascii_case(email));
            created.insert((project.id, subscription.id), found(&project, subscription, sole));
        }
    }
    Ok((created.into_values().collect(), receiving.into_values().collect()))
}

fn found(project: &ProjectRef, subscription: Subscription, sole_recipient: bool) -> Found {
    Found {
        project: project.clone(),
        subscription,
        sole_recipient,
    }
}

/// What stops working, or goes on mailing nobody, once they are gone.
fn would_break(profile: &Profile) -> Vec<String> {
    let mut lines = Vec::new();
    for found in &profile.created_subscriptions {
        if found.is_ai_report() {
            lines.push(format!(
                "{} is an AI report they created: once they are no longer a member it cannot be \
                 re-enabled (PostHog checks its creator)",
                found.label()
            ));
        }
    }
    let kept = profile.created_subscriptions.len();
    if kept > 0 {
        lines.push(format!(
            "{kept} subscription{} created by them stay{} theirs: PostHog cannot give a \
             subscription to someone else",
            crate::text::plural(kept),
            if kept == 1 { "s" } else { "" }
        ));
    }
    for found in profile
        .receiving_subscriptions
        .iter()
        .filter(|found| found.sole_recipient)
    {
        if found.subscription.enabled != Some(false) && !found.subscription.deleted {
            lines.push(format!(
                "{} mails them alone: it would go on mailing an address nobody reads",
                found.label()
            ));
        }
    }
    if let Keys::Known(keys) = &profile.keys
        && keys.has_keys
    {
        lines.push(format!(
            "{} personal API key{}{}: they stop reaching this organization once they are removed \
             from it, and whatever uses them breaks",
            keys.keys.len(),
            crate::text::plural(keys.keys.len()),
            if keys.has_keys_active_last_week {
                " (used in the last week)"
            } else {
                ""
            }
        ));
    }
    if let Keys::Unlisted { .. } = &profile.keys {
        lines.push(format!(
            "any personal API keys they have stop reaching this organization once they are removed \
             from it, and whatever uses them breaks ({UNLISTED})"
        ));
    }
    lines
}
