//! Access control as PostHog serves it (posthog.md 16.3-16.7): the rule
//! endpoints of a project and of its dashboards, insights, notebooks and
//! feature flags (`controls`, validated and written by `rules`), the
//! settings page's endpoints (`settings`), Terraform's management endpoints
//! (`management`), the notebooks and flags themselves (`objects`), and an
//! organization's resolution mode (`organization`).
//!
//! Every answer comes from the one resolver, `api::access::resolve`.

mod controls;
pub mod management;
pub mod objects;
pub mod organization;
mod rules;
mod settings;

use axum::Router;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::routing::{get, put};

use crate::api::access::client::collection;
use crate::api::access::levels::OBJECT_RESOURCES;
use crate::server::AppState;
use crate::server::access::Scope;
use crate::server::auth::{Caller, PathParams};
use crate::server::body::JsonObject;
use crate::server::error::{ApiError, ApiResult};
use crate::server::store::Db;

/// The scopes of posthog.md 15-17.
pub const ACCESS_CONTROL_READ: &str = "access_control:read";
pub const ACCESS_CONTROL_WRITE: &str = "access_control:write";

/// The routes of an organization: its resolution mode.
pub fn organization_routes(router: Router<AppState>) -> Router<AppState> {
    router.route(
        "/api/organizations/{organization}",
        axum::routing::patch(organization::update),
    )
}

/// The routes under one project prefix (`/api/projects`, `/api/environments`).
pub fn project_routes(mut router: Router<AppState>, prefix: &str) -> Router<AppState> {
    let at = |tail: &str| format!("{prefix}/{{project}}/{tail}");
    router = router
        .route(
            &at("access_controls"),
            get(controls::project_get).put(controls::project_put),
        )
        .route(
            &at("resource_access_controls"),
            get(controls::resource_get).put(controls::resource_put),
        )
        // PostHog's deprecated name for the same.
        .route(
            &at("global_access_controls"),
            get(controls::resource_get).put(controls::resource_put),
        )
        .route(&at("users_with_access"), get(controls::project_users))
        .route(&at("access_control_defaults"), get(settings::defaults))
        .route(&at("access_control_members"), get(settings::members))
        .route(&at("access_control_roles"), get(settings::roles))
        .route(
            &at("access_control_default_objects"),
            get(settings::default_objects),
        )
        .route(
            &at("access_control_member_objects"),
            get(settings::member_objects),
        )
        .route(&at("access_control_role_objects"), get(settings::role_objects))
        .route(&at("access_control_object_search"), get(settings::object_search))
        .route(
            &at("access_control_object_rules"),
            put(controls::object_rules_put),
        )
        .route(&at("access_control_management"), put(management::claim))
        .route(
            &at("access_control_management_settings"),
            get(management::settings).patch(management::update_settings),
        )
        .route(&at("notebooks"), get(objects::notebooks))
        .route(&at("notebooks/{id}"), get(objects::notebook))
        .route(&at("feature_flags"), get(objects::feature_flags))
        .route(&at("feature_flags/{id}"), get(objects::feature_flag));
    for &resource in OBJECT_RESOURCES {
        let Some(collection) = collection(resource) else {
            continue;
        };
        let object = |tail: &str| at(&format!("{collection}/{{id}}/{tail}"));
        router = router
            .route(
                &object("access_controls"),
                get(
                    move |State(app): State<AppState>,
                          caller: Caller,
                          PathParams(path): PathParams<(String, String)>| {
                        controls::object_get(app, caller, path, resource)
                    },
                )
                .put(
                    move |State(app): State<AppState>,
                          caller: Caller,
                          PathParams(path): PathParams<(String, String)>,
                          headers: HeaderMap,
                          body: Result<JsonObject, ApiError>| {
                        controls::object_put(app, caller, path, headers, body, resource)
                    },
                ),
            )
            .route(
                &object("users_with_access"),
                get(
                    move |State(app): State<AppState>,
                          caller: Caller,
                          PathParams(path): PathParams<(String, String)>| {
                        controls::object_users(app, caller, path, resource)
                    },
                ),
            );
        for name in ["resource_access_controls", "global_access_controls"] {
            router = router.route(
                &object(name),
                get(controls::resource_level_elsewhere).put(controls::resource_level_elsewhere),
            );
        }
    }
    router
}

/// The caller's view of the project of the path, read in one trip to the
/// pool after the caller's key, scope and reach of the project are checked.
async fn scope(db: &Db, caller: &Caller, raw_project: &str) -> ApiResult<Scope> {
    let caller = caller.clone();
    let raw = raw_project.to_string();
    db.read(move |connection| {
        let project_id = caller.project_in(connection, &raw)?;
        Scope::load(connection, caller.access, project_id, caller.key.user_id)
    })
    .await
}
