//! Personal API keys: minted once, stored only as a hash, looked up by hash.

use chrono::Utc;
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use sha2::{Digest, Sha256};

use super::rows::{parse_stamp, stamp};
use crate::api::PersonalApiKey;
use crate::server::error::{ApiError, ApiResult};

/// Characters after the `phx_` prefix.
const TOKEN_LENGTH: usize = 48;
const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// What one of a key's stored lists (scopes, organizations, projects)
/// lets it reach.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reach<T> {
    /// No list, or an empty one: everything the key's owner can reach.
    Everything,
    /// Only what the list names. A list that does not parse is stored
    /// damage, and reaches nothing: `Only(vec![])`.
    Only(Vec<T>),
}

impl<T: PartialEq> Reach<T> {
    /// Whether `item` is within reach.
    pub fn allows(&self, item: &T) -> bool {
        match self {
            Reach::Everything => true,
            Reach::Only(items) => items.contains(item),
        }
    }

    /// Whether the list restricts the key at all.
    pub fn is_restricted(&self) -> bool {
        matches!(self, Reach::Only(_))
    }

    /// The list as PostHog shows it: empty when unrestricted.
    pub fn listed(&self) -> &[T] {
        match self {
            Reach::Everything => &[],
            Reach::Only(items) => items,
        }
    }
}

impl<T: serde::de::DeserializeOwned> Reach<T> {
    /// Reads a stored JSON list: NULL or `[]` is everything, anything that
    /// is not a JSON list of the right type is nothing.
    fn stored(text: Option<String>) -> Self {
        let Some(text) = text else {
            return Reach::Everything;
        };
        match serde_json::from_str::<Vec<T>>(&text) {
            Ok(items) if items.is_empty() => Reach::Everything,
            Ok(items) => Reach::Only(items),
            Err(error) => {
                tracing::warn!(
                    "a personal API key's stored list does not parse ({error}); it grants nothing"
                );
                Reach::Only(Vec::new())
            }
        }
    }
}

/// A stored key as the authentication check needs it.
#[derive(Debug, Clone)]
pub struct KeyRecord {
    pub id: String,
    pub user_id: i64,
    /// The scopes the key holds. No list, an empty one, or one that does
    /// not parse holds none: PostHog checks `scope in key.scopes`, which an
    /// empty list never passes (posthog.md 3), though `@current` shows such
    /// a key as `["*"]`.
    pub scopes: Vec<String>,
    pub scoped_organizations: Reach<String>,
    pub scoped_teams: Reach<i64>,
}

impl KeyRecord {
    /// Whether the key grants `scope`: an exact match, the matching `:write`
    /// for a `:read`, or `*`. A key without scopes grants nothing.
    pub fn grants(&self, scope: &str) -> bool {
        !self.scopes.is_empty() && crate::api::scopes_grant(&self.scopes, scope)
    }
}

/// What a new key may reach besides its scopes.
#[derive(Debug, Clone, Default)]
pub struct Restrictions {
    /// Organization ids (UUIDs); empty for every organization.
    pub organizations: Vec<String>,
    /// Project ids; empty for every project.
    pub projects: Vec<i64>,
}

impl Restrictions {
    /// No restriction beyond the scopes.
    pub fn none() -> Self {
        Self::default()
    }
}

/// The stored form of a key: `sha256$` and the hex digest.
pub fn hash_key(key: &str) -> String {
    format!("sha256${}", hex::encode(Sha256::digest(key.as_bytes())))
}

/// A new key: `phx_` and 48 random letters and digits (285 bits).
pub fn generate_key() -> ApiResult<String> {
    let mut token = String::with_capacity(TOKEN_LENGTH);
    let mut bytes = [0u8; 64];
    while token.len() < TOKEN_LENGTH {
        getrandom::fill(&mut bytes).map_err(|error| ApiError::internal(format!("no randomness: {error}")))?;
        // Rejection sampling keeps every character equally likely.
        let usable = 256 - 256 % ALPHABET.len();
        for byte in bytes
            .iter()
            .map(|&byte| usize::from(byte))
            .filter(|&byte| byte < usable)
        {
            if token.len() == TOKEN_LENGTH {
                break;
            }
            token.push(char::from(ALPHABET[byte % ALPHABET.len()]));
        }
    }
    Ok(format!("phx_{token}"))
}

/// PostHog's masked form: the first and last four characters.
fn mask(key: &str) -> String {
    let tail: String = key
        .chars()
        .rev()
        .take(4)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    format!("{}...{tail}", key.chars().take(4).collect::<String>())
}

/// Whether a scope is one a key may hold: `*` or `object:read|write`.
pub fn is_valid_scope(scope: &str) -> bool {
    scope == "*"
        || scope.split_once(':').is_some_and(|(object, action)| {
            !object.is_empty()
                && object.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                && matches!(action, "read" | "write")
        })
}

/// Mints a key for `user_id` and returns it; only its hash is kept.
pub fn mint(tx: &Transaction, user_id: i64, label: &str, scopes: &[String]) -> ApiResult<String> {
    mint_restricted(tx, user_id, label, scopes, &Restrictions::none())
}

/// Mints a key limited to some organizations or projects.
pub fn mint_restricted(
    tx: &Transaction,
    user_id: i64,
    label: &str,
    scopes: &[String],
    restrictions: &Restrictions,
) -> ApiResult<String> {
    let key = generate_key()?;
    let list = |items: String, empty: bool| (!empty).then_some(items);
    tx.execute(
        "INSERT INTO personal_api_keys
             (id, user_id, label, secure_value, mask_value, scopes, created_at,
              scoped_organizations, scoped_teams)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            uuid::Uuid::new_v4().to_string(),
            user_id,
            label,
            hash_key(&key),
            mask(&key),
            serde_json::to_string(scopes).map_err(ApiError::internal)?,
            stamp(&Utc::now()),
            list(
                serde_json::to_string(&restrictions.organizations).map_err(ApiError::internal)?,
                restrictions.organizations.is_empty()
            ),
            list(
                serde_json::to_string(&restrictions.projects).map_err(ApiError::internal)?,
                restrictions.projects.is_empty()
            ),
        ],
    )?;
    Ok(key)
}

/// The key whose hash is `secure_value`, if any and if its owner is still
/// active: a deactivated user's keys are as unknown keys (posthog.md 1).
pub fn find(connection: &Connection, secure_value: &str) -> ApiResult<Option<KeyRecord>> {
    let mut statement = connection.prepare_cached(
        "SELECT k.id, k.user_id, k.scopes, k.scoped_organizations, k.scoped_teams
         FROM personal_api_keys k JOIN users u ON u.id = k.user_id
         WHERE k.secure_value = ?1 AND u.is_active = 1",
    )?;
    Ok(statement
        .query_row([secure_value], |row| {
            Ok(KeyRecord {
                id: row.get(0)?,
                user_id: row.get(1)?,
                scopes: Reach::stored(row.get(2)?).listed().to_vec(),
                scoped_organizations: Reach::stored(row.get(3)?),
                scoped_teams: Reach::stored(row.get(4)?),
            })
        })
        .optional()?)
}

/// The calling key as `personal_api_keys/@current` shows it.
pub fn describe(connection: &Connection, id: &str) -> ApiResult<PersonalApiKey> {
    let mut statement = connection.prepare_cached(
        "SELECT id, label, mask_value, scopes, scoped_organizations, scoped_teams, created_at, last_used_at,
                user_id
         FROM personal_api_keys WHERE id = ?1",
    )?;
    statement
        .query_row([id], |row| {
            let scopes = match Reach::<String>::stored(row.get(3)?) {
                Reach::Everything => vec!["*".into()],
                Reach::Only(scopes) => scopes,
            };
            Ok(PersonalApiKey {
                id: row.get(0)?,
                label: row.get(1)?,
                mask_value: row.get(2)?,
                scopes,
                scoped_organizations: Some(Reach::<String>::stored(row.get(4)?).listed().to_vec()),
                scoped_teams: Some(Reach::<i64>::stored(row.get(5)?).listed().to_vec()),
                created_at: parse_stamp(row.get(6)?),
                last_used_at: parse_stamp(row.get(7)?),
                user_id: Some(row.get::<_, i64>(8)?.into()),
            })
        })
        .optional()?
        .ok_or_else(ApiError::invalid_key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_long_random_and_masked() {
        let key = generate_key().unwrap();
        assert!(key.starts_with("phx_"));
        assert_eq!(key.len(), 4 + TOKEN_LENGTH);
        assert_ne!(key, generate_key().unwrap());
        let masked = mask(&key);
        assert!(masked.starts_with("phx_...") && masked.len() == 11);
        assert!(hash_key(&key).starts_with("sha256$"));
    }

    #[test]
    fn write_grants_read_and_star_grants_all() {
        let key = |scopes: &[&str]| KeyRecord {
            id: String::new(),
            user_id: 1,
            scopes: Reach::stored(Some(serde_json::to_string(scopes).unwrap()))
                .listed()
                .to_vec(),
            scoped_organizations: Reach::Everything,
            scoped_teams: Reach::Everything,
        };
        assert!(key(&["organization:write"]).grants("organization:read"));
        assert!(!key(&["organization:read"]).grants("organization:write"));
        assert!(!key(&["subscription:write"]).grants("organization:read"));
        assert!(key(&["*"]).grants("subscription:write"));
        // posthog.md 3: `"*" in []` is false, so an empty list grants nothing.
        assert!(!key(&[]).grants("subscription:write"));
        assert!(!key(&[]).grants("organization:read"));
        assert!(is_valid_scope("organization_member:read"));
        assert!(!is_valid_scope("organization:delete") && !is_valid_scope("x"));
    }

    #[test]
    fn a_stored_list_that_does_not_parse_reaches_nothing() {
        assert_eq!(Reach::<String>::stored(None), Reach::Everything);
        assert_eq!(Reach::<String>::stored(Some("[]".into())), Reach::Everything);
        assert_eq!(
            Reach::<i64>::stored(Some("[1, 2]".into())),
            Reach::Only(vec![1, 2])
        );
        for damaged in ["*", "organization:read", "{\"a\":1}", "[1", "[\"x\"]"] {
            let reach = Reach::<i64>::stored(Some(damaged.into()));
            assert_eq!(reach, Reach::Only(vec![]), "{damaged}");
            assert!(!reach.allows(&1));
        }
        let damaged = KeyRecord {
            id: String::new(),
            user_id: 1,
            scopes: Reach::<String>::stored(Some("organization:read".into()))
                .listed()
                .to_vec(),
            scoped_organizations: Reach::Everything,
            scoped_teams: Reach::Everything,
        };
        assert!(!damaged.grants("organization:read"));
    }
}
