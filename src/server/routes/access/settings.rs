//! The settings page's endpoints (posthog.md 16.4): the project's defaults,
//! every member's and every role's access with the level enforced and what
//! applies without their own rule, each subject's object rules, and the
//! object search. Not paginated, as PostHog's are not: every member times
//! every resource in one answer, which the members' endpoint writes a
//! chunk of members at a time as the client takes it.

use std::collections::HashMap;

use axum::Json;
use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};

use super::{ACCESS_CONTROL_READ, scope};
use crate::api::access::levels::{self, AccessLevel, OBJECT_RESOURCES, PROJECT, RESOURCES};
use crate::api::access::{
    AccessDefaults, FoundObject, MemberAccess, ObjectRule, ObjectRuleResource, ObjectRules, ObjectSearch,
    Ordered, Principal, ResourceDefault, RoleAccess, SettingsAnswer, SettingsEntry, SettingsHeader, Subject,
};
use crate::server::AppState;
use crate::server::access::{self, Scope};
use crate::server::auth::{Caller, PathParams};
use crate::server::error::{ApiError, ApiResult};
use crate::server::routes::JsonBytes;
use crate::server::routes::streamed::{CHUNK, envelope_head, write_row};
use crate::server::store::access::{self as store, Rows};
use crate::server::store::objects::{self, Key};

/// The most objects the search answers with.
const SEARCH_LIMIT: usize = 20;

/// The first value of a query parameter, when it is not empty.
fn param(query: &Option<String>, name: &str) -> Option<String> {
    let query = query.as_deref()?;
    form_urlencoded::parse(query.as_bytes())
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.into_owned())
        .filter(|value| !value.is_empty())
}

fn header(scope: &Scope) -> SettingsHeader {
    SettingsHeader {
        available_project_levels: levels::MEMBER_LEVELS.to_vec(),
        available_resource_levels: levels::RESOURCE_LEVELS.to_vec(),
        can_edit: scope
            .resolver()
            .can_modify(scope.who(), scope.project(), scope.project()),
    }
}

/// `GET …/access_control_defaults`.
pub async fn defaults(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(project): PathParams<String>,
) -> ApiResult<Json<AccessDefaults>> {
    caller.require(ACCESS_CONTROL_READ)?;
    let scope = scope(&app.db, &caller, &project).await?;
    let mut project_level = levels::default_level(PROJECT);
    let mut saved: HashMap<&str, AccessLevel> = HashMap::new();
    for rule in scope
        .rules
        .iter()
        .filter(|rule| rule.subject == Subject::Everyone)
    {
        if rule.resource == PROJECT {
            project_level = rule.level.clone();
        } else if rule.resource_id.is_none()
            && let Some(resource) = RESOURCES.iter().find(|known| **known == rule.resource)
        {
            saved.insert(resource, rule.level.clone());
        }
    }
    let header = header(&scope);
    Ok(Json(AccessDefaults {
        available_project_levels: header.available_project_levels,
        available_resource_levels: header.available_resource_levels,
        can_edit: header.can_edit,
        project_access_level: Some(project_level),
        resource_access_levels: Ordered(
            RESOURCES
                .iter()
                .map(|resource| {
                    (
                        resource.to_string(),
                        ResourceDefault {
                            access_level: saved.get(resource).cloned(),
                            minimum: Some(levels::minimum_level(resource)),
                            maximum: Some(levels::maximum_level(resource)),
                        },
                    )
                })
                .collect(),
        ),
        object_rule_resources: OBJECT_RESOURCES
            .iter()
            .map(|resource| ObjectRuleResource {
                resource: resource.to_string(),
                available_access_levels: levels::levels(resource).to_vec(),
                minimum_access_level: Some(levels::minimum_level(resource)),
            })
            .collect(),
    }))
}

/// The cells of one subject: the project and every resource.
fn cells(scope: &Scope, who: Principal) -> (SettingsEntry, Ordered<SettingsEntry>) {
    let resolver = scope.resolver();
    let project = SettingsEntry::of(&resolver.project_entry(who, scope.project()));
    let resources = RESOURCES
        .iter()
        .map(|resource| {
            (
                resource.to_string(),
                SettingsEntry::of(&resolver.resource_entry(who, resource)),
            )
        })
        .collect();
    (project, Ordered(resources))
}

/// The membership a `member_id` names (`_get_membership`): 404 for one of
/// another organization, one that is not a uuid, or any when the
/// organization hides its members from a caller who cannot manage access.
fn membership(connection: &rusqlite::Connection, scope: &Scope, member_id: &str) -> ApiResult<String> {
    if !scope.members_can_see_members
        && !scope
            .resolver()
            .can_modify(scope.who(), scope.project(), scope.project())
    {
        return Err(ApiError::not_found());
    }
    let id = uuid::Uuid::parse_str(member_id)
        .map_err(|_| ApiError::not_found())?
        .hyphenated()
        .to_string();
    match store::membership_organization(connection, &id)? {
        Some(organization) if organization == scope.organization_id => Ok(id),
        _ => Err(ApiError::not_found()),
    }
}

/// The role a `role_id` names (`_get_role`): 404 unless it is one of the
/// organization's.
fn role(connection: &rusqlite::Connection, scope: &Scope, role_id: &str) -> ApiResult<String> {
    let id = uuid::Uuid::parse_str(role_id)
        .map_err(|_| ApiError::not_found())?
        .hyphenated()
        .to_string();
    match store::role_organization(connection, &id)? {
        Some(organization) if organization == scope.organization_id => Ok(id),
        _ => Err(ApiError::not_found()),
    }
}

/// `GET …/access_control_members[?member_id=]`: every active member's access
/// (one member's with `member_id`). When the organization hides its
/// members, a caller who is not an organization admin sees those a rule
/// grants the project, never those who reach it as admins alone.
pub async fn members(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(project): PathParams<String>,
    RawQuery(query): RawQuery,
) -> ApiResult<Response> {
    caller.require(ACCESS_CONTROL_READ)?;
    let scope = scope(&app.db, &caller, &project).await?;
    let (scope, people) = app
        .db
        .read(move |connection| {
            let only = param(&query, "member_id")
                .map(|id| membership(connection, &scope, &id))
                .transpose()?;
            let people = store::people(connection, &scope.organization_id, only.as_deref())?;
            Ok((scope, people))
        })
        .await?;
    let head = envelope_head(&SettingsAnswer::<MemberAccess> {
        header: header(&scope),
        results: Vec::new(),
    })?;
    let state = MemberRows {
        head: Some(head),
        people: people.into_iter(),
        scope,
        wrote_row: false,
        done: false,
    };
    let body = futures_util::stream::unfold(state, |mut state| async move {
        let bytes = state.next_bytes()?;
        Some((bytes, state))
    });
    Ok(([(CONTENT_TYPE, "application/json")], Body::from_stream(body)).into_response())
}

/// The members' answer as it is written: every member times every
/// resource is some 9 KB a member (1.7 GB at 180,000), so their rows are
/// worked out and written [`CHUNK`] members at a time as the client takes
/// them, never the whole answer held.
struct MemberRows {
    head: Option<bytes::Bytes>,
    people: std::vec::IntoIter<store::Person>,
    scope: Scope,
    wrote_row: bool,
    done: bool,
}

impl MemberRows {
    /// The next piece of the body; `None` once it has all been sent.
    fn next_bytes(&mut self) -> Option<Result<bytes::Bytes, std::io::Error>> {
        if let Some(head) = self.head.take() {
            return Some(Ok(head));
        }
        if self.done {
            return None;
        }
        let hide = !self.scope.members_can_see_members && !self.scope.is_admin();
        let resolver = self.scope.resolver();
        let mut out = Vec::with_capacity(CHUNK * 9 * 1024);
        let mut taken = 0;
        for person in self.people.by_ref() {
            taken += 1;
            if hide && !resolver.project_scoped(Principal::Member(&person.member), self.scope.project()) {
                continue;
            }
            let (project, resources) = cells(&self.scope, Principal::Member(&person.member));
            let row = MemberAccess {
                organization_membership_id: person.member.membership_id,
                user: person.user,
                organization_level: person.member.organization_level,
                project,
                resources,
            };
            if let Err(error) = write_row(&mut out, &mut self.wrote_row, &row) {
                self.done = true;
                return Some(Err(std::io::Error::other(error)));
            }
            if taken == CHUNK {
                return Some(Ok(out.into()));
            }
        }
        self.done = true;
        out.extend_from_slice(b"]}");
        Some(Ok(out.into()))
    }
}

/// An answer as JSON, written into one buffer sized for it.
fn answer_bytes<T: serde::Serialize>(answer: &SettingsAnswer<T>) -> ApiResult<bytes::Bytes> {
    // About 9 KB a row (a member or role times every resource).
    let mut buffer = Vec::with_capacity(1024 + answer.results.len() * 9 * 1024);
    serde_json::to_writer(&mut buffer, answer).map_err(ApiError::internal)?;
    Ok(buffer.into())
}

/// `GET …/access_control_roles[?role_id=]`.
pub async fn roles(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(project): PathParams<String>,
    RawQuery(query): RawQuery,
) -> ApiResult<JsonBytes> {
    caller.require(ACCESS_CONTROL_READ)?;
    let scope = scope(&app.db, &caller, &project).await?;
    let bytes = app
        .db
        .read(move |connection| {
            let only = param(&query, "role_id")
                .map(|id| role(connection, &scope, &id))
                .transpose()?;
            let results: Vec<RoleAccess> = store::roles(connection, &scope.organization_id, only.as_deref())?
                .into_iter()
                .map(|(role_id, role_name)| {
                    let (project, resources) = cells(&scope, Principal::Role(&role_id));
                    RoleAccess {
                        role_id,
                        role_name,
                        project,
                        resources,
                    }
                })
                .collect();
            answer_bytes(&SettingsAnswer {
                header: header(&scope),
                results,
            })
        })
        .await?;
    Ok(JsonBytes(bytes))
}

/// A subject's object rules, each with its object's name (its id when the
/// object is gone), by resource and then name.
fn object_rules(
    connection: &rusqlite::Connection,
    scope: &Scope,
    subject: &Subject,
) -> ApiResult<ObjectRules> {
    let rows = store::rows(connection, scope.project_id, Rows::ObjectRulesOf(subject))?;
    let mut ids: HashMap<String, Vec<String>> = HashMap::new();
    for rule in &rows {
        if let Some(id) = &rule.shown.resource_id {
            ids.entry(rule.shown.resource.clone())
                .or_default()
                .push(id.clone());
        }
    }
    let mut names: HashMap<(String, String), (Option<String>, Option<String>)> = HashMap::new();
    for (resource, ids) in &ids {
        for named in objects::names(connection, scope.project_id, resource, ids)? {
            names.insert((resource.clone(), named.id), (named.name, named.short_id));
        }
    }
    let mut results: Vec<ObjectRule> = rows
        .into_iter()
        .map(|rule| {
            let resource_id = rule.shown.resource_id.unwrap_or_default();
            let (name, short_id) = names
                .get(&(rule.shown.resource.clone(), resource_id.clone()))
                .cloned()
                .unwrap_or_default();
            ObjectRule {
                name: Some(
                    name.filter(|name| !name.is_empty())
                        .unwrap_or_else(|| resource_id.clone()),
                ),
                resource: rule.shown.resource,
                resource_id,
                short_id,
                access_level: rule.shown.access_level,
            }
        })
        .collect();
    results.sort_by_cached_key(|rule| {
        (
            rule.resource.clone(),
            rule.name.clone().unwrap_or_default().to_lowercase(),
        )
    });
    Ok(ObjectRules { results })
}

/// `GET …/access_control_default_objects`: everyone's object rules.
pub async fn default_objects(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(project): PathParams<String>,
) -> ApiResult<Json<ObjectRules>> {
    caller.require(ACCESS_CONTROL_READ)?;
    let scope = scope(&app.db, &caller, &project).await?;
    let found = app
        .db
        .read(move |connection| object_rules(connection, &scope, &Subject::Everyone))
        .await?;
    Ok(Json(found))
}

/// `GET …/access_control_member_objects?member_id=`.
pub async fn member_objects(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(project): PathParams<String>,
    RawQuery(query): RawQuery,
) -> ApiResult<Json<ObjectRules>> {
    caller.require(ACCESS_CONTROL_READ)?;
    let scope = scope(&app.db, &caller, &project).await?;
    let found = app
        .db
        .read(move |connection| {
            let member_id = param(&query, "member_id")
                .ok_or_else(|| ApiError::validation("invalid", "member_id is required"))?;
            let id = membership(connection, &scope, &member_id)?;
            object_rules(connection, &scope, &Subject::Member(id))
        })
        .await?;
    Ok(Json(found))
}

/// `GET …/access_control_role_objects?role_id=`.
pub async fn role_objects(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(project): PathParams<String>,
    RawQuery(query): RawQuery,
) -> ApiResult<Json<ObjectRules>> {
    caller.require(ACCESS_CONTROL_READ)?;
    let scope = scope(&app.db, &caller, &project).await?;
    let found = app
        .db
        .read(move |connection| {
            let role_id = param(&query, "role_id")
                .ok_or_else(|| ApiError::validation("invalid", "role_id is required"))?;
            let id = role(connection, &scope, &role_id)?;
            object_rules(connection, &scope, &Subject::Role(id))
        })
        .await?;
    Ok(Json(found))
}

/// `GET …/access_control_object_search?resource=R&search=S|id=I`: at most
/// 20 objects the caller can see (an organization admin, every one), by
/// name; `id` takes a primary key, or an insight's or notebook's short id.
pub async fn object_search(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(project): PathParams<String>,
    RawQuery(query): RawQuery,
) -> ApiResult<Json<ObjectSearch>> {
    caller.require(ACCESS_CONTROL_READ)?;
    let scope = scope(&app.db, &caller, &project).await?;
    let found = app
        .db
        .read(move |connection| {
            let resource = param(&query, "resource").unwrap_or_default();
            if !objects::holds(&resource) {
                return Err(ApiError::validation(
                    "invalid",
                    "resource does not support object access rules",
                ));
            }
            let mut found = match (param(&query, "id"), param(&query, "search")) {
                (Some(id), _) => {
                    objects::find(connection, scope.project_id, &resource, Key::PrimaryOrShort(&id))?
                        .into_iter()
                        .collect()
                }
                (None, search) => objects::all(connection, scope.project_id, &resource, search.as_deref())?,
            };
            let resolver = scope.resolver();
            found.retain(|object| scope.is_admin() || resolver.visible(scope.who(), access::target(object)));
            found.sort_by_cached_key(|object| {
                (
                    object.name.clone().unwrap_or_default().to_lowercase(),
                    object.id.clone(),
                )
            });
            found.truncate(SEARCH_LIMIT);
            Ok(ObjectSearch {
                results: found
                    .into_iter()
                    .map(|object| FoundObject {
                        name: Some(
                            object
                                .name
                                .filter(|name| !name.is_empty())
                                .unwrap_or_else(|| object.id.clone()),
                        ),
                        id: object.id,
                    })
                    .collect(),
            })
        })
        .await?;
    Ok(Json(found))
}
