//! The objects rules are about, listed and retrieved as PostHog does: the
//! notebooks (addressed by short id) and feature flags rules need, and the
//! dashboards and insights lists, each filtered by the caller's access
//! (posthog.md 16.6 "Lists are filtered") with their creators and the
//! caller's level on each.

use axum::Json;
use axum::extract::State;

use super::scope;
use crate::api::access::levels::AccessLevel;
use crate::api::access::{AccessItem, FeatureFlag, Notebook};
use crate::api::{NamedItem, Page};
use crate::server::AppState;
use crate::server::access::{self, Scope};
use crate::server::auth::{Caller, PathParams};
use crate::server::error::{ApiError, ApiResult};
use crate::server::paging::ListRequest;
use crate::server::store::directory::CatalogQuery;
use crate::server::store::objects::{self, Key, Object};

/// The objects of a resource the caller's lists show, after PostHog's check
/// that they may read the resource at all.
fn listed(connection: &rusqlite::Connection, scope: &Scope, resource: &str) -> ApiResult<Vec<Object>> {
    scope.require_resource(resource, AccessLevel::Viewer)?;
    let resolver = scope.resolver();
    let mut all = objects::all(connection, scope.project_id, resource, None)?;
    all.retain(|object| resolver.visible(scope.who(), access::target(object)));
    Ok(all)
}

/// One object the caller may read; 404 when there is none, 403 when they
/// may not.
fn retrieved(
    connection: &rusqlite::Connection,
    scope: &Scope,
    resource: &str,
    key: &str,
) -> ApiResult<Object> {
    scope.require_resource(resource, AccessLevel::Viewer)?;
    let object = objects::find(connection, scope.project_id, resource, Key::Address(key))?
        .ok_or_else(ApiError::not_found)?;
    scope.require_object(access::target(&object), AccessLevel::Viewer)?;
    Ok(object)
}

/// The caller's level on an object.
fn level(scope: &Scope, object: &Object) -> Option<AccessLevel> {
    scope
        .resolver()
        .object(scope.who(), access::target(object))
        .map(|resolved| resolved.level)
}

fn page_of<T>(request: &ListRequest, rows: Vec<T>) -> Page<T> {
    let count = rows.len() as u64;
    let page: Vec<T> = rows
        .into_iter()
        .skip(usize::try_from(request.offset).unwrap_or(usize::MAX))
        .take(usize::try_from(request.limit).unwrap_or(usize::MAX))
        .collect();
    request.page(count, page)
}

fn notebook_of(scope: &Scope, object: Object) -> Notebook {
    Notebook {
        user_access_level: level(scope, &object),
        short_id: object.short_id.unwrap_or_default(),
        title: object.name,
        created_by: object.created_by,
        created_at: object.created_at,
        last_modified_at: object.modified_at,
        deleted: false,
        id: object.id,
    }
}

fn flag_of(scope: &Scope, object: Object) -> ApiResult<FeatureFlag> {
    Ok(FeatureFlag {
        user_access_level: level(scope, &object),
        id: object.id.parse().map_err(ApiError::internal)?,
        key: object.name.clone().unwrap_or_default(),
        name: object.description.clone().unwrap_or_default(),
        active: object.active,
        deleted: false,
        created_by: object.created_by,
        created_at: object.created_at,
    })
}

/// `GET /api/projects/:id/notebooks/`: newest change first.
pub async fn notebooks(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(project): PathParams<String>,
    request: ListRequest,
) -> ApiResult<Json<Page<Notebook>>> {
    caller.require("notebook:read")?;
    let scope = scope(&app.db, &caller, &project).await?;
    let page = app
        .db
        .read(move |connection| {
            let rows = listed(connection, &scope, "notebook")?
                .into_iter()
                .map(|object| notebook_of(&scope, object))
                .collect();
            Ok(page_of(&request, rows))
        })
        .await?;
    Ok(Json(page))
}

/// `GET /api/projects/:id/notebooks/:short_id/`.
pub async fn notebook(
    State(app): State<AppState>,
    caller: Caller,
    PathParams((project, short_id)): PathParams<(String, String)>,
) -> ApiResult<Json<Notebook>> {
    caller.require("notebook:read")?;
    let scope = scope(&app.db, &caller, &project).await?;
    let found = app
        .db
        .read(move |connection| {
            let object = retrieved(connection, &scope, "notebook", &short_id)?;
            Ok(notebook_of(&scope, object))
        })
        .await?;
    Ok(Json(found))
}

/// `GET /api/projects/:id/feature_flags/`: newest first.
pub async fn feature_flags(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(project): PathParams<String>,
    request: ListRequest,
) -> ApiResult<Json<Page<FeatureFlag>>> {
    caller.require("feature_flag:read")?;
    let scope = scope(&app.db, &caller, &project).await?;
    let page = app
        .db
        .read(move |connection| {
            let rows = listed(connection, &scope, "feature_flag")?
                .into_iter()
                .map(|object| flag_of(&scope, object))
                .collect::<ApiResult<Vec<_>>>()?;
            Ok(page_of(&request, rows))
        })
        .await?;
    Ok(Json(page))
}

/// `GET /api/projects/:id/feature_flags/:id/`.
pub async fn feature_flag(
    State(app): State<AppState>,
    caller: Caller,
    PathParams((project, id)): PathParams<(String, String)>,
) -> ApiResult<Json<FeatureFlag>> {
    caller.require("feature_flag:read")?;
    let scope = scope(&app.db, &caller, &project).await?;
    let found = app
        .db
        .read(move |connection| {
            let object = retrieved(connection, &scope, "feature_flag", &id)?;
            flag_of(&scope, object)
        })
        .await?;
    Ok(Json(found))
}

/// A page of the dashboards (`dashboard`) or insights (`insight`) the caller's
/// lists show, each with its creator and the caller's level.
pub fn catalog_page(
    connection: &rusqlite::Connection,
    caller: &Caller,
    project_id: i64,
    resource: &str,
    query: &CatalogQuery,
    request: &ListRequest,
) -> ApiResult<Page<AccessItem>> {
    let scope = Scope::load(connection, caller.access, project_id, caller.key.user_id)?;
    let mut found = listed(connection, &scope, resource)?;
    let lower = |name: &Option<String>| name.as_deref().unwrap_or_default().to_lowercase();
    if let Some(search) = &query.search {
        let search = search.to_lowercase();
        found.retain(|object| lower(&object.name).contains(&search));
    }
    if let Some(short_id) = &query.short_id {
        found.retain(|object| object.short_id.as_ref() == Some(short_id));
    }
    let id = |object: &Object| object.id.parse::<i64>().unwrap_or_default();
    if resource == "dashboard" {
        // By name, as PostHog orders the dashboards it does not pin (this
        // server pins none).
        found.sort_by_cached_key(|object| (lower(&object.name), id(object)));
    } else {
        found.sort_by_key(id);
    }
    let rows = found
        .into_iter()
        .map(|object| AccessItem {
            user_access_level: level(&scope, &object),
            id: object.id.parse().unwrap_or_default(),
            name: object.name,
            short_id: object.short_id,
            created_by: object.created_by,
        })
        .collect();
    Ok(page_of(request, rows))
}

/// The same page as the older flavor shows it: ids and names alone.
pub fn named_page(page: Page<AccessItem>) -> Page<NamedItem> {
    Page {
        count: page.count,
        next: page.next,
        previous: page.previous,
        results: page
            .results
            .into_iter()
            .map(|item| NamedItem {
                id: item.id,
                name: item.name,
                short_id: item.short_id,
                derived_name: None,
            })
            .collect(),
    }
}

/// 403 unless the caller may read the dashboard (its tiles' route).
pub fn require_dashboard(
    connection: &rusqlite::Connection,
    caller: &Caller,
    project_id: i64,
    id: i64,
) -> ApiResult<()> {
    let scope = Scope::load(connection, caller.access, project_id, caller.key.user_id)?;
    let key = id.to_string();
    retrieved(connection, &scope, "dashboard", &key).map(|_| ())
}
