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

/// A stored key as the authentication check needs it.
#[derive(Debug, Clone)]
pub struct KeyRecord {
    pub id: String,
    pub user_id: i64,
    pub scopes: Vec<String>,
    pub scoped_organizations: Vec<String>,
    pub scoped_teams: Vec<i64>,
}

impl KeyRecord {
    /// Whether the key grants `scope`: an exact match, the matching `:write`
    /// for a `:read`, `*`, or an empty list (which means every scope).
    pub fn grants(&self, scope: &str) -> bool {
        crate::api::scopes_grant(&self.scopes, scope)
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
    let key = generate_key()?;
    tx.execute(
        "INSERT INTO personal_api_keys (id, user_id, label, secure_value, mask_value, scopes, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            uuid::Uuid::new_v4().to_string(),
            user_id,
            label,
            hash_key(&key),
            mask(&key),
            serde_json::to_string(scopes).map_err(ApiError::internal)?,
            stamp(&Utc::now()),
        ],
    )?;
    Ok(key)
}

fn json_list<T: serde::de::DeserializeOwned>(text: Option<String>) -> Vec<T> {
    text.and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

/// The key whose hash is `secure_value`, if any.
pub fn find(connection: &Connection, secure_value: &str) -> ApiResult<Option<KeyRecord>> {
    let mut statement = connection.prepare_cached(
        "SELECT id, user_id, scopes, scoped_organizations, scoped_teams
         FROM personal_api_keys WHERE secure_value = ?1",
    )?;
    Ok(statement
        .query_row([secure_value], |row| {
            Ok(KeyRecord {
                id: row.get(0)?,
                user_id: row.get(1)?,
                scopes: json_list(row.get(2)?),
                scoped_organizations: json_list(row.get(3)?),
                scoped_teams: json_list(row.get(4)?),
            })
        })
        .optional()?)
}

/// The calling key as `personal_api_keys/@current` shows it.
pub fn describe(connection: &Connection, id: &str) -> ApiResult<PersonalApiKey> {
    let mut statement = connection.prepare_cached(
        "SELECT id, label, mask_value, scopes, scoped_organizations, scoped_teams, created_at, last_used_at
         FROM personal_api_keys WHERE id = ?1",
    )?;
    statement
        .query_row([id], |row| {
            let scopes: Vec<String> = json_list(row.get(3)?);
            Ok(PersonalApiKey {
                id: row.get(0)?,
                label: row.get(1)?,
                mask_value: row.get(2)?,
                scopes: if scopes.is_empty() {
                    vec!["*".into()]
                } else {
                    scopes
                },
                scoped_organizations: Some(json_list(row.get(4)?)),
                scoped_teams: Some(json_list(row.get(5)?)),
                created_at: parse_stamp(row.get(6)?),
                last_used_at: parse_stamp(row.get(7)?),
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
            scopes: scopes.iter().map(|s| s.to_string()).collect(),
            scoped_organizations: vec![],
            scoped_teams: vec![],
        };
        assert!(key(&["organization:write"]).grants("organization:read"));
        assert!(!key(&["organization:read"]).grants("organization:write"));
        assert!(!key(&["subscription:write"]).grants("organization:read"));
        assert!(key(&["*"]).grants("subscription:write"));
        assert!(key(&[]).grants("subscription:write"));
        assert!(is_valid_scope("organization_member:read"));
        assert!(!is_valid_scope("organization:delete") && !is_valid_scope("x"));
    }
}
