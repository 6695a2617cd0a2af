//! The read-only endpoints the console uses for pickers (compat.md).

use axum::Json;
use axum::extract::State;

use super::page_of;
use super::scope::{DASHBOARD_READ, INSIGHT_READ, ORGANIZATION_MEMBER_READ, ORGANIZATION_READ, PROJECT_READ};
use crate::api::time::parse_datetime;
use crate::api::{Organization, OrganizationMember, Page, PersonalApiKey, Project};
use crate::server::auth::{Access, Caller, PathParams};
use crate::server::error::ApiError;
use crate::server::error::ApiResult;
use crate::server::paging::ListRequest;
use crate::server::store::directory::{self, Catalog, CatalogQuery};
use crate::server::store::keys;
use crate::server::store::member_list::{self, MemberQuery};
use crate::server::store::rows::stamp;
use crate::server::{AppState, Flavor};

pub async fn organizations(
    State(app): State<AppState>,
    caller: Caller,
    request: ListRequest,
) -> ApiResult<Json<Page<Organization>>> {
    caller.require(ORGANIZATION_READ)?;
    let key = caller.key;
    page_of(&app.db, request, move |connection, page| {
        let reach = (&key.scoped_organizations, &key.scoped_teams);
        directory::organizations(connection, key.user_id, reach, page)
    })
    .await
}

pub async fn projects(
    State(app): State<AppState>,
    caller: Caller,
    request: ListRequest,
) -> ApiResult<Json<Page<Project>>> {
    caller.require(PROJECT_READ)?;
    let (key, access) = (caller.key, caller.access);
    page_of(&app.db, request, move |connection, page| {
        // Projects the user cannot reach are not listed (posthog.md 16.6).
        let teams =
            crate::server::access::reachable_projects(connection, access, key.user_id, &key.scoped_teams)?;
        let reach = (&key.scoped_organizations, &teams);
        directory::projects(connection, key.user_id, reach, page)
    })
    .await
}

/// One organization, `@current` included: what the console's header names.
pub async fn organization(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(organization): PathParams<String>,
) -> ApiResult<Json<Organization>> {
    caller.require(ORGANIZATION_READ)?;
    let organization = caller
        .organization(&app.db, &organization, Access::Member)
        .await?;
    let (user_id, resolution) = (caller.key.user_id, caller.access.resolution);
    let found = app
        .db
        .read(move |connection| {
            super::access::organization::shown(connection, &organization, user_id, resolution)
        })
        .await?;
    Ok(Json(found))
}

/// One project, `@current` included.
pub async fn project(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(project): PathParams<String>,
) -> ApiResult<Json<Project>> {
    caller.require(PROJECT_READ)?;
    let project = caller.project(&app.db, &project).await?;
    let found = app
        .db
        .read(move |connection| directory::project(connection, project))
        .await?;
    Ok(Json(found))
}

pub async fn members(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(organization): PathParams<String>,
    request: ListRequest,
) -> ApiResult<Json<Page<OrganizationMember>>> {
    caller.require(ORGANIZATION_MEMBER_READ)?;
    let organization = caller
        .organization(&app.db, &organization, Access::Member)
        .await?;
    let query = member_query(&request, app.flavor)?;
    let searches = query.search.is_some();
    let page = (request.limit, request.offset);
    let (count, rows) = app
        .db
        .read_list(searches, move |connection, snapshot| {
            member_list::members(snapshot, connection, &organization, &query, page)
        })
        .await?;
    Ok(Json(request.page(count, rows)))
}

/// The filters and order of today's PostHog (posthog.md §7). The older
/// flavor has no filters, but leaves out inactive users and lists the
/// newest first too (compat.md's header).
fn member_query(request: &ListRequest, flavor: Flavor) -> ApiResult<MemberQuery> {
    const SEARCH_MAX: usize = 200;
    if flavor == Flavor::Seed {
        return Ok(MemberQuery {
            people_only: true,
            newest_first: true,
            ..MemberQuery::default()
        });
    }
    let text = |name: &str| request.param(name).map(str::trim).filter(|text| !text.is_empty());
    let search = text("search").map(str::to_string);
    if search
        .as_ref()
        .is_some_and(|search| search.chars().count() > SEARCH_MAX)
    {
        return Err(
            ApiError::validation("invalid_input", "Search query must be 200 characters or fewer.")
                .on("search"),
        );
    }
    let updated_after = text("updated_after")
        .map(|text| {
            parse_datetime(text).map(|at| stamp(&at)).ok_or_else(|| {
                ApiError::validation("invalid", "Enter a valid date/time.").on("updated_after")
            })
        })
        .transpose()?;
    Ok(MemberQuery {
        people_only: true,
        email: text("email").map(str::to_string),
        updated_after,
        search,
        newest_first: text("order") != Some("joined_at"),
    })
}

/// The dashboards or insights the caller's lists show (posthog.md 16.6),
/// with their creators and the caller's level on each in today's flavor:
/// `search` in their names (at most 200 characters, §11), an insight by
/// its `short_id`.
async fn catalog(
    app: AppState,
    caller: Caller,
    project: String,
    request: ListRequest,
    kind: Catalog,
) -> ApiResult<axum::response::Response> {
    use axum::response::IntoResponse;
    const SEARCH_MAX: usize = 200;
    caller.require(match kind {
        Catalog::Dashboards => DASHBOARD_READ,
        Catalog::Insights => INSIGHT_READ,
    })?;
    let text = |name: &str| request.param(name).map(str::trim).filter(|text| !text.is_empty());
    let search = text("search").map(str::to_string);
    if search
        .as_ref()
        .is_some_and(|search| search.chars().count() > SEARCH_MAX)
    {
        return Err(
            ApiError::validation("invalid_input", "Search query must be 200 characters or fewer.")
                .on("search"),
        );
    }
    let query = CatalogQuery {
        search,
        short_id: match kind {
            Catalog::Insights => text("short_id").map(str::to_string),
            Catalog::Dashboards => None,
        },
    };
    let resource = match kind {
        Catalog::Dashboards => "dashboard",
        Catalog::Insights => "insight",
    };
    let flavor = app.flavor;
    let page = app
        .db
        .read(move |connection| {
            let project = caller.project_in(connection, &project)?;
            super::access::objects::catalog_page(connection, &caller, project, resource, &query, &request)
        })
        .await?;
    Ok(match flavor {
        Flavor::Current => Json(page).into_response(),
        Flavor::Seed => Json(super::access::objects::named_page(page)).into_response(),
    })
}

pub async fn dashboards(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(project): PathParams<String>,
    request: ListRequest,
) -> ApiResult<axum::response::Response> {
    catalog(app, caller, project, request, Catalog::Dashboards).await
}

pub async fn insights(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(project): PathParams<String>,
    request: ListRequest,
) -> ApiResult<axum::response::Response> {
    catalog(app, caller, project, request, Catalog::Insights).await
}

/// The calling key; needs no scope.
pub async fn current_key(State(app): State<AppState>, caller: Caller) -> ApiResult<Json<PersonalApiKey>> {
    let id = caller.key.id.clone();
    let key = app
        .db
        .read(move |connection| keys::describe(connection, &id))
        .await?;
    Ok(Json(key))
}
