//! The objects rules may be about (dashboards, insights, notebooks, feature
//! flags), read the one way access needs them: by the key their address
//! uses, by primary key, all of a project's, with their creators and names.

use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, OptionalExtension, Row, params_from_iter};

use super::rows::{parse_stamp, user_at, user_columns};
use crate::api::User;
use crate::server::error::ApiResult;

/// One object.
#[derive(Debug, Clone)]
pub struct Object {
    pub resource: &'static str,
    /// The primary key, as text: what rules store.
    pub id: String,
    /// What the object is called (a notebook's title, a flag's key).
    pub name: Option<String>,
    /// An insight's or notebook's short id.
    pub short_id: Option<String>,
    pub created_by: Option<User>,
    pub created_at: Option<chrono::DateTime<chrono::Utc>>,
    /// A notebook's last change.
    pub modified_at: Option<chrono::DateTime<chrono::Utc>>,
    /// A flag's description (PostHog's `name`; its key is its name here).
    pub description: Option<String>,
    /// Whether a flag is on.
    pub active: bool,
}

impl Object {
    /// The creator's user id (uuid), what the resolver compares.
    pub fn creator(&self) -> Option<&str> {
        self.created_by.as_ref().map(|user| user.uuid.as_str())
    }
}

/// How a resource's table is read.
struct Shape {
    resource: &'static str,
    table: &'static str,
    /// `id, name, short_id, created_at, modified_at, description, active` as SQL.
    columns: &'static str,
    /// The column a search and the order go by.
    name: &'static str,
    /// Rows not shown (soft deleted).
    hidden: &'static str,
}

const SHAPES: &[Shape] = &[
    Shape {
        resource: "dashboard",
        table: "dashboards",
        columns: "CAST(o.id AS TEXT), o.name, NULL, NULL, NULL, NULL, 1",
        name: "o.name",
        hidden: "0",
    },
    Shape {
        resource: "insight",
        table: "insights",
        columns: "CAST(o.id AS TEXT), coalesce(nullif(o.name, ''), o.derived_name), o.short_id, NULL, NULL, NULL, 1",
        name: "coalesce(nullif(o.name, ''), o.derived_name)",
        hidden: "0",
    },
    Shape {
        resource: "notebook",
        table: "notebooks",
        columns: "o.id, o.title, o.short_id, o.created_at, o.last_modified_at, NULL, 1",
        name: "o.title",
        hidden: "o.deleted",
    },
    Shape {
        resource: "feature_flag",
        table: "feature_flags",
        columns: "CAST(o.id AS TEXT), o.key, NULL, o.created_at, NULL, o.name, o.active",
        name: "o.key",
        hidden: "o.deleted",
    },
];

fn shape(resource: &str) -> Option<&'static Shape> {
    SHAPES.iter().find(|shape| shape.resource == resource)
}

/// Whether the server holds objects of `resource`.
pub fn holds(resource: &str) -> bool {
    shape(resource).is_some()
}

fn select(shape: &Shape) -> String {
    format!(
        "SELECT {}, {} FROM {} o LEFT JOIN users cu ON cu.id = o.created_by",
        shape.columns,
        user_columns("cu"),
        shape.table
    )
}

fn object_at(shape: &'static Shape) -> impl Fn(&Row) -> rusqlite::Result<Object> {
    move |row| {
        Ok(Object {
            resource: shape.resource,
            id: row.get(0)?,
            name: row.get(1)?,
            short_id: row.get(2)?,
            created_at: parse_stamp(row.get(3)?),
            modified_at: parse_stamp(row.get(4)?),
            description: row.get(5)?,
            active: row.get::<_, Option<bool>>(6)?.unwrap_or(true),
            created_by: user_at(row, 7)?,
        })
    }
}

/// How an object is looked for.
#[derive(Debug, Clone, Copy)]
pub enum Key<'a> {
    /// By the key its address uses: a notebook's short id, else the id.
    Address(&'a str),
    /// By primary key (what rules store); an insight's or notebook's short
    /// id too, as PostHog's object search takes them.
    PrimaryOrShort(&'a str),
    /// By primary key alone.
    Primary(&'a str),
}

/// One object of the project, shown or not (`None`: no such object).
pub fn find(connection: &Connection, project_id: i64, resource: &str, key: Key) -> ApiResult<Option<Object>> {
    let Some(shape) = shape(resource) else {
        return Ok(None);
    };
    let numeric = shape.resource != "notebook";
    let condition = match key {
        Key::Address(_) if !numeric => "o.short_id = ?2",
        Key::PrimaryOrShort(_) if shape.resource == "insight" => {
            "(CAST(o.id AS TEXT) = ?2 OR o.short_id = ?2)"
        }
        Key::PrimaryOrShort(_) if !numeric => "(o.id = ?2 OR o.short_id = ?2)",
        _ if numeric => "CAST(o.id AS TEXT) = ?2",
        _ => "o.id = ?2",
    };
    let (Key::Address(text) | Key::PrimaryOrShort(text) | Key::Primary(text)) = key;
    let sql = format!(
        "{} WHERE o.project_id = ?1 AND {condition} AND NOT {}",
        select(shape),
        shape.hidden
    );
    Ok(connection
        .prepare_cached(&sql)?
        .query_row(
            params_from_iter([SqlValue::Integer(project_id), SqlValue::Text(text.to_string())]),
            object_at(shape),
        )
        .optional()?)
}

/// Every object of `resource` in the project, in PostHog's order for its
/// list: dashboards by name, insights by id, notebooks last changed first,
/// flags newest first; those whose name holds `search` (any case) with one.
pub fn all(
    connection: &Connection,
    project_id: i64,
    resource: &str,
    search: Option<&str>,
) -> ApiResult<Vec<Object>> {
    let Some(shape) = shape(resource) else {
        return Ok(Vec::new());
    };
    let order = match shape.resource {
        "dashboard" => "o.name, o.id",
        "insight" => "o.id",
        "notebook" => "o.last_modified_at DESC, o.id",
        _ => "o.created_at DESC, o.id DESC",
    };
    let sql = format!(
        "{} WHERE o.project_id = ?1 AND NOT {} AND (?2 IS NULL OR icontains({}, ?2)) ORDER BY {order}",
        select(shape),
        shape.hidden,
        shape.name
    );
    let search = search
        .map(|text| SqlValue::Text(text.to_string()))
        .unwrap_or(SqlValue::Null);
    let found = connection
        .prepare_cached(&sql)?
        .query_map(
            params_from_iter([SqlValue::Integer(project_id), search]),
            object_at(shape),
        )?
        .collect::<Result<_, _>>()?;
    Ok(found)
}

/// An object's name as the settings answers show it.
#[derive(Debug, Clone)]
pub struct Named {
    pub id: String,
    pub name: Option<String>,
    /// An insight's short id.
    pub short_id: Option<String>,
}

/// The names (and insights' short ids) of objects by primary key,
/// soft-deleted ones too: rules on them are what a settings page cleans up.
pub fn names(
    connection: &Connection,
    project_id: i64,
    resource: &str,
    ids: &[String],
) -> ApiResult<Vec<Named>> {
    let Some(shape) = shape(resource) else {
        return Ok(Vec::new());
    };
    let ids = serde_json::to_string(ids).map_err(crate::server::error::ApiError::internal)?;
    let key = if shape.resource == "notebook" {
        "o.id"
    } else {
        "CAST(o.id AS TEXT)"
    };
    let sql = format!(
        "SELECT {key}, {}, {} FROM {} o WHERE o.project_id = ?1 AND {key} IN (SELECT value FROM json_each(?2))",
        shape.name,
        if shape.resource == "insight" {
            "o.short_id"
        } else {
            "NULL"
        },
        shape.table
    );
    let found = connection
        .prepare_cached(&sql)?
        .query_map(
            params_from_iter([SqlValue::Integer(project_id), SqlValue::Text(ids)]),
            |row| {
                Ok(Named {
                    id: row.get(0)?,
                    name: row.get(1)?,
                    short_id: row.get(2)?,
                })
            },
        )?
        .collect::<Result<_, _>>()?;
    Ok(found)
}
