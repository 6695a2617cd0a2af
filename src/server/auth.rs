//! Authentication and access: who calls, with which scopes, and whether they
//! may reach the organization or project in the path.

use axum::extract::{FromRequestParts, Path};
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use rusqlite::Connection;
use serde::de::DeserializeOwned;

use super::AppState;
use super::error::{ApiError, ApiResult};
use super::store::keys::{self, KeyRecord};
use super::store::{Db, Snapshot, directory};
use crate::api::models::level;

/// The caller, authenticated by the personal API key of the request.
#[derive(Debug, Clone)]
pub struct Caller {
    pub key: KeyRecord,
    /// The access control the server applies.
    pub access: super::access::AccessOptions,
}

/// What the caller wants to do in an organization.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Reading, or writing where membership is enough (subscriptions).
    Member,
    /// Writing roles and memberships: admins and owners only.
    Admin,
}

/// The request's credentials, read but not yet looked up: a handler that
/// reads the database once looks the key up in the same trip to the pool
/// ([`Credentials::key_in`]), or finds it remembered and makes no trip at
/// all ([`Credentials::remembered`]); the others take a [`Caller`].
#[derive(Clone)]
pub struct Credentials {
    /// The key's stored form (its hash); the key itself goes no further.
    secure_value: String,
    throttle: Option<std::sync::Arc<super::throttle::Throttle>>,
    access: super::access::AccessOptions,
}

impl FromRequestParts<AppState> for Credentials {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let header = parts
            .headers
            .get(AUTHORIZATION)
            .ok_or_else(ApiError::not_authenticated)?;
        let value = header.to_str().map_err(|_| ApiError::invalid_key())?.trim();
        let Some((scheme, token)) = value.split_once(' ') else {
            return Err(ApiError::not_authenticated());
        };
        let token = token.trim();
        if !scheme.eq_ignore_ascii_case("bearer") || token.is_empty() {
            return Err(ApiError::not_authenticated());
        }
        Ok(Credentials {
            secure_value: keys::hash_key(token),
            throttle: state.throttle.clone(),
            access: state.access,
        })
    }
}

impl Credentials {
    /// The key these credentials name, as verified in this generation of
    /// the data, when it is remembered.
    pub fn remembered(&self, snapshot: &Snapshot) -> Option<KeyRecord> {
        snapshot.key(&self.secure_value)
    }

    /// The key these credentials name, on a connection already in hand
    /// (remembered for the generation); 401 for an unknown key.
    pub fn key_in(&self, connection: &Connection, snapshot: &Snapshot) -> ApiResult<KeyRecord> {
        if let Some(key) = snapshot.key(&self.secure_value) {
            return Ok(key);
        }
        let key = keys::find(connection, &self.secure_value)?.ok_or_else(ApiError::invalid_key)?;
        snapshot.keep_key(&self.secure_value, &key);
        Ok(key)
    }

    /// The caller with this key: 429 past its rate limit (each call counts
    /// as a request).
    pub fn caller(&self, key: KeyRecord) -> ApiResult<Caller> {
        if let Some(throttle) = &self.throttle {
            throttle.check(&key.id).map_err(ApiError::throttled)?;
        }
        Ok(Caller {
            key,
            access: self.access,
        })
    }
}

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let credentials = Credentials::from_request_parts(parts, state).await?;
        let remembered = credentials.remembered(&state.db.snapshot());
        let key = match remembered {
            Some(key) => key,
            None => {
                let credentials = credentials.clone();
                state
                    .db
                    .read_list(false, move |connection, snapshot| {
                        credentials.key_in(connection, snapshot)
                    })
                    .await?
            }
        };
        credentials.caller(key)
    }
}

impl Caller {
    /// 403 naming the scope unless the key grants it.
    pub fn require(&self, scope: &str) -> ApiResult<()> {
        if self.key.grants(scope) {
            Ok(())
        } else {
            Err(ApiError::missing_scope(scope))
        }
    }

    /// Resolves the organization of the path (a UUID or `@current`) and
    /// checks that the caller may act in it.
    pub async fn organization(&self, db: &Db, raw: &str, access: Access) -> ApiResult<String> {
        let key = self.key.clone();
        let raw = raw.to_string();
        // PostHog refuses a project-scoped key on every organization
        // endpoint, whichever organization it names.
        if key.scoped_teams.is_restricted() {
            return Err(ApiError::permission_denied(
                "API keys with scoped projects are only supported on project-based endpoints.",
            ));
        }
        db.read(move |connection| {
            let organization_id = if raw == "@current" {
                directory::current_context(connection, key.user_id)?
                    .0
                    .ok_or_else(|| ApiError::not_found_with("Organization not found."))?
            } else {
                let id = uuid::Uuid::parse_str(&raw)
                    .map_err(|_| ApiError::not_found_with("Organization not found."))?;
                id.hyphenated().to_string()
            };
            if !directory::organization_exists(connection, &organization_id)? {
                return Err(ApiError::not_found_with("Organization not found."));
            }
            refuse_other_organizations(&key, &organization_id)?;
            let Some(member_level) = directory::member_level(connection, &organization_id, key.user_id)?
            else {
                return Err(ApiError::permission_denied(NOT_A_MEMBER));
            };
            if access == Access::Admin && member_level < level::ADMIN {
                return Err(ApiError::level_too_low());
            }
            Ok(organization_id)
        })
        .await
    }

    /// Resolves the project of the path (an integer or `@current`) and checks
    /// that the caller belongs to its organization.
    pub async fn project(&self, db: &Db, raw: &str) -> ApiResult<i64> {
        if let Some(project) = db.snapshot().project(&self.key.id, raw) {
            return Ok(project);
        }
        let caller = self.clone();
        let raw = raw.to_string();
        db.read_list(false, move |connection, snapshot| {
            caller.project_remembering(connection, snapshot, &raw)
        })
        .await
    }

    /// [`Caller::project_in`], remembered for the generation when it is
    /// reached.
    pub fn project_remembering(
        &self,
        connection: &Connection,
        snapshot: &Snapshot,
        raw: &str,
    ) -> ApiResult<i64> {
        if let Some(project) = snapshot.project(&self.key.id, raw) {
            return Ok(project);
        }
        let project = self.project_in(connection, raw)?;
        snapshot.keep_project(&self.key.id, raw, project);
        Ok(project)
    }

    /// [`Caller::project`] on a connection already in hand, so that a
    /// handler can resolve the project and read in one trip to the pool.
    pub fn project_in(&self, connection: &Connection, raw: &str) -> ApiResult<i64> {
        let key = &self.key;
        {
            let not_found = ApiError::not_found;
            let project_id = if raw == "@current" {
                directory::current_context(connection, key.user_id)?
                    .1
                    .ok_or_else(not_found)?
            } else {
                raw.parse::<i64>().map_err(|_| not_found())?
            };
            let organization_id =
                directory::project_organization(connection, project_id)?.ok_or_else(not_found)?;
            if !key.scoped_teams.allows(&project_id) {
                return Err(ApiError::permission_denied(format!(
                    "API key does not have access to the requested project: ID {project_id}."
                )));
            }
            refuse_other_organizations(key, &organization_id)?;
            if directory::member_level(connection, &organization_id, key.user_id)?.is_none()
                || !super::access::reaches_project(
                    connection,
                    self.access,
                    &organization_id,
                    project_id,
                    key.user_id,
                )?
            {
                return Err(ApiError::permission_denied(
                    "You don't have access to the project.",
                ));
            }
            Ok(project_id)
        }
    }
}

/// DRF's default detail: PostHog's organization permission has no message.
const NOT_A_MEMBER: &str = "You do not have permission to perform this action.";

/// 403 unless the key's organizations include `organization_id` (the
/// organization of the path, or of the project in it).
fn refuse_other_organizations(key: &KeyRecord, organization_id: &str) -> ApiResult<()> {
    if key.scoped_organizations.allows(&organization_id.to_string()) {
        Ok(())
    } else {
        Err(ApiError::permission_denied(format!(
            "API key does not have access to the requested organization: ID {organization_id}."
        )))
    }
}

/// Path parameters; a path that does not decode is a 404, as an unknown id.
pub struct PathParams<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for PathParams<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        Path::<T>::from_request_parts(parts, state)
            .await
            .map(|Path(value)| PathParams(value))
            .map_err(|_| ApiError::not_found())
    }
}
