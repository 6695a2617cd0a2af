//! `PATCH /api/organizations/:id/`: what an organization decides about
//! access. `uses_most_specific_access_resolution` (PostHog's model names it
//! so, posthog.md 16.6) switches it between the two resolution modes;
//! `members_can_see_org_members` hides its members from each other.
//! Admins and owners only, as PostHog's organization writes are.

use axum::Json;
use axum::extract::State;

use crate::api::Organization;
use crate::server::AppState;
use crate::server::auth::{Access, Caller, PathParams};
use crate::server::body::JsonObject;
use crate::server::error::{ApiError, ApiResult};
use crate::server::fields;
use crate::server::routes::scope::ORGANIZATION_WRITE;
use crate::server::store::{access as store, directory};

pub async fn update(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(organization): PathParams<String>,
    body: Result<JsonObject, ApiError>,
) -> ApiResult<Json<Organization>> {
    caller.require(ORGANIZATION_WRITE)?;
    let organization = caller.organization(&app.db, &organization, Access::Admin).await?;
    let JsonObject(body) = body?;
    let most_specific = fields::boolean(&body, "uses_most_specific_access_resolution")?
        .not_null("uses_most_specific_access_resolution")?;
    let members_visible =
        fields::boolean(&body, "members_can_see_org_members")?.not_null("members_can_see_org_members")?;
    let user_id = caller.key.user_id;
    let resolution = caller.access.resolution;
    let found = app
        .db
        .write(move |tx| {
            store::set_organization_access(tx, &organization, most_specific, members_visible)?;
            shown(tx, &organization, user_id, resolution)
        })
        .await?;
    Ok(Json(found))
}

/// The organization as the caller sees it, with what it decided about
/// access (the server's default mode when it decided nothing).
pub fn shown(
    connection: &rusqlite::Connection,
    organization: &str,
    user_id: i64,
    resolution: crate::api::access::Mode,
) -> ApiResult<Organization> {
    let mut found = directory::organization(connection, organization, user_id)?;
    let chosen = store::organization_access(connection, organization)?;
    found.uses_most_specific_access_resolution = Some(
        chosen
            .most_specific
            .unwrap_or(resolution == crate::api::access::Mode::MostSpecific),
    );
    found.members_can_see_org_members = Some(chosen.members_can_see_members);
    Ok(found)
}
