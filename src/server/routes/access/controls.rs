//! The rule endpoints (posthog.md 16.3): `access_controls` of a project and
//! of its objects, `resource_access_controls`, `users_with_access`, and the
//! settings page's `access_control_object_rules`. Checks come in PostHog's
//! order: scope, the project, the level the action needs on the resource
//! and the object, then the body.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};

use super::rules::{self, Requested};
use super::{ACCESS_CONTROL_READ, ACCESS_CONTROL_WRITE, scope};
use crate::api::access::levels::{self, AccessLevel, PROJECT};
use crate::api::access::{
    AccessControls, InheritedAccess, Principal, Target, UserWithAccess, UsersWithAccess,
};
use crate::api::models::level;
use crate::server::AppState;
use crate::server::access::{self, Scope, manager_of};
use crate::server::auth::{Caller, PathParams};
use crate::server::body::JsonObject;
use crate::server::error::{ApiError, ApiResult};
use crate::server::store::access::{self as store, Rows};
use crate::server::store::objects::{self, Key, Object};

/// The level reading and writing need: `member`/`admin` on a project,
/// `viewer`/`editor` on anything else (PostHog's read and write levels).
fn needed(resource: &str, write: bool) -> AccessLevel {
    match (resource == PROJECT, write) {
        (true, false) => AccessLevel::Member,
        (true, true) => AccessLevel::Admin,
        (false, false) => AccessLevel::Viewer,
        (false, true) => AccessLevel::Editor,
    }
}

/// The object of the path, after PostHog's checks on its resource and on
/// it; 404 when the project has no such object.
fn object_of(
    connection: &rusqlite::Connection,
    scope: &Scope,
    resource: &str,
    key: &str,
    write: bool,
) -> ApiResult<Object> {
    let required = needed(resource, write);
    scope.require_resource(resource, required.clone())?;
    let object = objects::find(connection, scope.project_id, resource, Key::Address(key))?
        .ok_or_else(ApiError::not_found)?;
    scope.require_object(access::target(&object), required)?;
    Ok(object)
}

/// The answer of `GET …/access_controls` for a target.
fn answer(connection: &rusqlite::Connection, scope: &Scope, target: Target) -> ApiResult<AccessControls> {
    let resolver = scope.resolver();
    let resource = target.resource;
    let rows = store::rows(
        connection,
        scope.project_id,
        Rows::Object {
            resource,
            resource_id: target.id,
        },
    )?;
    let inherited = resolver
        .inherited_object(Principal::Everyone, target)
        .map(|resolved| InheritedAccess::of(&resolved, Some(None)));
    Ok(AccessControls {
        access_controls: rows.into_iter().map(|rule| rule.shown).collect(),
        available_access_levels: levels::levels(resource).to_vec(),
        default_access_level: Some(levels::default_level(resource)),
        minimum_access_level: Some(levels::minimum_level(resource)),
        maximum_access_level: Some(levels::maximum_level(resource)),
        user_access_level: resolver
            .object(scope.who(), target)
            .map(|resolved| resolved.level),
        user_can_edit_access_levels: resolver.can_modify(scope.who(), target, scope.project()),
        inherited_access: Some(inherited),
    })
}

/// `GET /api/projects/:id/access_controls`.
pub async fn project_get(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(project): PathParams<String>,
) -> ApiResult<Json<AccessControls>> {
    caller.require(ACCESS_CONTROL_READ)?;
    let scope = scope(&app.db, &caller, &project).await?;
    let found = app
        .db
        .read(move |connection| {
            scope.require_object(scope.project(), AccessLevel::Member)?;
            answer(connection, &scope, scope.project())
        })
        .await?;
    Ok(Json(found))
}

/// `GET …/<objects>/:id/access_controls`.
pub async fn object_get(
    app: AppState,
    caller: Caller,
    (project, key): (String, String),
    resource: &'static str,
) -> ApiResult<Json<AccessControls>> {
    caller.require(ACCESS_CONTROL_READ)?;
    let scope = scope(&app.db, &caller, &project).await?;
    let found = app
        .db
        .read(move |connection| {
            let object = object_of(connection, &scope, resource, &key, false)?;
            answer(connection, &scope, access::target(&object))
        })
        .await?;
    Ok(Json(found))
}

/// A rule written, as PostHog answers it: 200 with the rule, or 204 when
/// it was removed.
fn written(rule: Option<crate::api::access::AccessControl>) -> Response {
    match rule {
        Some(rule) => (StatusCode::OK, Json(rule)).into_response(),
        None => StatusCode::NO_CONTENT.into_response(),
    }
}

/// A write through one of the rule endpoints: `prepare` checks access and
/// fixes what the path decides, then the body is read and the rule made,
/// in one transaction.
async fn write_rule(
    app: AppState,
    caller: Caller,
    project: String,
    headers: HeaderMap,
    body: Result<JsonObject, ApiError>,
    prepare: impl FnOnce(
        &rusqlite::Connection,
        &Scope,
        &mut serde_json::Map<String, serde_json::Value>,
    ) -> ApiResult<(String, String, String)>
    + Send
    + 'static,
) -> ApiResult<Response> {
    caller.require(ACCESS_CONTROL_WRITE)?;
    let manager = manager_of(&headers);
    let now = app.clock.now();
    let user_id = caller.key.user_id;
    let options = caller.access;
    let project_id = app
        .db
        .read({
            let caller = caller.clone();
            move |connection| caller.project_in(connection, &project)
        })
        .await?;
    let rule = app
        .db
        .write(move |tx| {
            let scope = Scope::load(tx, options, project_id, user_id)?;
            let mut body_fields = serde_json::Map::new();
            let (resource, id, creator) = prepare(tx, &scope, &mut body_fields)?;
            let JsonObject(mut sent) = body?;
            sent.extend(body_fields);
            let requested: Requested = rules::fields(tx, &sent)?;
            let target = Target {
                resource: &resource,
                id: &id,
                creator: (!creator.is_empty()).then_some(creator.as_str()),
            };
            rules::check(tx, &scope, &requested, target)?;
            rules::upsert(tx, &scope, &requested, manager, now)
        })
        .await?;
    Ok(written(rule))
}

/// `PUT /api/projects/:id/access_controls`: project access for a member, a
/// role or everyone.
pub async fn project_put(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(project): PathParams<String>,
    headers: HeaderMap,
    body: Result<JsonObject, ApiError>,
) -> ApiResult<Response> {
    write_rule(app, caller, project, headers, body, |_, scope, fields| {
        scope.require_object(scope.project(), AccessLevel::Admin)?;
        let id = scope.project_id.to_string();
        fields.insert("resource".into(), PROJECT.into());
        fields.insert("resource_id".into(), id.clone().into());
        Ok((PROJECT.to_string(), id, String::new()))
    })
    .await
}

/// `PUT …/<objects>/:id/access_controls`.
pub async fn object_put(
    app: AppState,
    caller: Caller,
    (project, key): (String, String),
    headers: HeaderMap,
    body: Result<JsonObject, ApiError>,
    resource: &'static str,
) -> ApiResult<Response> {
    write_rule(
        app,
        caller,
        project,
        headers,
        body,
        move |connection, scope, fields| {
            let object = object_of(connection, scope, resource, &key, true)?;
            fields.insert("resource".into(), resource.into());
            fields.insert("resource_id".into(), object.id.clone().into());
            let creator = object.creator().unwrap_or_default().to_string();
            Ok((resource.to_string(), object.id, creator))
        },
    )
    .await
}

/// `GET /api/projects/:id/resource_access_controls`: every resource-wide
/// rule of the project.
pub async fn resource_get(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(project): PathParams<String>,
) -> ApiResult<Json<AccessControls>> {
    caller.require(ACCESS_CONTROL_READ)?;
    let scope = scope(&app.db, &caller, &project).await?;
    let found = app
        .db
        .read(move |connection| {
            scope.require_object(scope.project(), AccessLevel::Member)?;
            let rows = store::rows(connection, scope.project_id, Rows::ResourceWide)?;
            let resolver = scope.resolver();
            Ok(AccessControls {
                access_controls: rows.into_iter().map(|rule| rule.shown).collect(),
                available_access_levels: levels::RESOURCE_LEVELS.to_vec(),
                default_access_level: Some(AccessLevel::Editor),
                minimum_access_level: Some(AccessLevel::None),
                maximum_access_level: Some(AccessLevel::Manager),
                user_access_level: resolver
                    .object(scope.who(), scope.project())
                    .map(|resolved| resolved.level),
                user_can_edit_access_levels: resolver.can_modify(
                    scope.who(),
                    scope.project(),
                    scope.project(),
                ),
                inherited_access: None,
            })
        })
        .await?;
    Ok(Json(found))
}

/// `PUT /api/projects/:id/resource_access_controls`: a rule on a whole
/// resource; the resource (and any object) come in the body.
pub async fn resource_put(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(project): PathParams<String>,
    headers: HeaderMap,
    body: Result<JsonObject, ApiError>,
) -> ApiResult<Response> {
    write_rule(app, caller, project, headers, body, |_, scope, _| {
        scope.require_object(scope.project(), AccessLevel::Admin)?;
        Ok((PROJECT.to_string(), scope.project_id.to_string(), String::new()))
    })
    .await
}

/// `…/<objects>/:id/resource_access_controls`: resource-wide rules are the
/// project's alone.
pub async fn resource_level_elsewhere(caller: Caller) -> ApiResult<()> {
    let _ = caller;
    Err(ApiError::validation(
        "invalid",
        "Resource-level access controls can only be configured for projects.",
    ))
}

/// `PUT /api/projects/:id/access_control_object_rules`: a rule on an object
/// named by resource and primary key.
pub async fn object_rules_put(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(project): PathParams<String>,
    headers: HeaderMap,
    body: Result<JsonObject, ApiError>,
) -> ApiResult<Response> {
    // The body names the object, so it is read before the object is.
    let sent = body
        .as_ref()
        .map(|JsonObject(sent)| sent.clone())
        .map_err(ApiError::clone);
    write_rule(
        app,
        caller,
        project,
        headers,
        body,
        move |connection, scope, fields| {
            let sent = sent?;
            let text = |name: &str| match sent.get(name) {
                Some(serde_json::Value::String(text)) => text.clone(),
                Some(serde_json::Value::Number(number)) => number.to_string(),
                _ => String::new(),
            };
            let resource = text("resource");
            if !objects::holds(&resource) {
                return Err(ApiError::validation(
                    "invalid",
                    "resource does not support object access rules",
                ));
            }
            let resource_id = text("resource_id");
            if resource_id.is_empty() {
                return Err(ApiError::validation("invalid", "resource_id is required"));
            }
            // An object the caller cannot see is not theirs to configure: 404
            // rather than 403, so that the answer does not confirm it exists.
            let object = objects::find(
                connection,
                scope.project_id,
                &resource,
                Key::Primary(&resource_id),
            )?
            .filter(|object| {
                scope.is_admin() || scope.resolver().visible(scope.who(), access::target(object))
            })
            .ok_or_else(ApiError::not_found)?;
            fields.insert("resource".into(), resource.clone().into());
            fields.insert("resource_id".into(), object.id.clone().into());
            let creator = object.creator().unwrap_or_default().to_string();
            Ok((resource, object.id, creator))
        },
    )
    .await
}

/// Everyone who reaches `target`, their level and how, highest first
/// (`_get_users_with_access`).
fn users_with_access(
    connection: &rusqlite::Connection,
    scope: &Scope,
    target: Target,
) -> ApiResult<UsersWithAccess> {
    let resolver = scope.resolver();
    let resource = target.resource;
    let mut users: Vec<(usize, UserWithAccess)> = Vec::new();
    for person in store::people(connection, &scope.organization_id, None)? {
        let who = Principal::Member(&person.member);
        if !resolver.reaches_project(who, scope.project()) {
            continue;
        }
        let Some(resolved) = resolver.object(who, target) else {
            continue;
        };
        if resolved.level == AccessLevel::None {
            continue;
        }
        let rank = levels::rank(resource, &resolved.level).unwrap_or(0);
        users.push((
            rank,
            UserWithAccess {
                user_id: person.user.uuid.clone(),
                access_level: resolved.level,
                access_source: resolver.access_source(who, target, scope.project()),
                organization_membership_id: Some(person.member.membership_id.clone()),
                organization_membership_level: Some(
                    level::name(person.member.organization_level).to_string(),
                ),
            },
        ));
    }
    // By level, highest first, then by user id, descending.
    users.sort_by(|(a_rank, a), (b_rank, b)| (b_rank, &b.user_id).cmp(&(a_rank, &a.user_id)));
    let users: Vec<UserWithAccess> = users.into_iter().map(|(_, user)| user).collect();
    Ok(UsersWithAccess {
        total_count: users.len() as u64,
        users,
    })
}

/// `GET /api/projects/:id/users_with_access`.
pub async fn project_users(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(project): PathParams<String>,
) -> ApiResult<Json<UsersWithAccess>> {
    caller.require(ACCESS_CONTROL_READ)?;
    let scope = scope(&app.db, &caller, &project).await?;
    let found = app
        .db
        .read(move |connection| users_with_access(connection, &scope, scope.project()))
        .await?;
    Ok(Json(found))
}

/// `GET …/<objects>/:id/users_with_access`.
pub async fn object_users(
    app: AppState,
    caller: Caller,
    (project, key): (String, String),
    resource: &'static str,
) -> ApiResult<Json<UsersWithAccess>> {
    caller.require(ACCESS_CONTROL_READ)?;
    let scope = scope(&app.db, &caller, &project).await?;
    let found = app
        .db
        .read(move |connection| {
            let object = object_of(connection, &scope, resource, &key, false)?;
            users_with_access(connection, &scope, access::target(&object))
        })
        .await?;
    Ok(Json(found))
}
