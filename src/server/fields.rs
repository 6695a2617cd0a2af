//! Reading and validating JSON request bodies field by field, with the codes
//! and messages a Django REST Framework server (PostHog) answers.

use std::str::FromStr;

use chrono::{DateTime, Datelike, Utc};
use serde_json::{Map, Value};

use super::error::{ApiError, ApiResult};
use crate::api::time::parse_datetime;

/// A field of a request body: left out, sent as null, or sent with a value.
#[derive(Debug, Clone, PartialEq)]
pub enum Field<T> {
    Absent,
    Null,
    Value(T),
}

impl<T> Field<T> {
    /// The value of a field that may not be null (but may be left out).
    pub fn not_null(self, name: &str) -> ApiResult<Option<T>> {
        match self {
            Field::Absent => Ok(None),
            Field::Null => Err(ApiError::validation("null", "This field may not be null.").on(name)),
            Field::Value(value) => Ok(Some(value)),
        }
    }

    /// The value of a field that must be present and not null.
    pub fn required(self, name: &str) -> ApiResult<T> {
        match self {
            Field::Absent => Err(ApiError::required(name)),
            other => other.not_null(name)?.ok_or_else(|| ApiError::required(name)),
        }
    }

    /// `None` when left out, `Some(None)` for null, `Some(Some(v))` for a value.
    pub fn nullable(self) -> Option<Option<T>> {
        match self {
            Field::Absent => None,
            Field::Null => Some(None),
            Field::Value(value) => Some(Some(value)),
        }
    }

    fn map<U>(self, f: impl FnOnce(T) -> ApiResult<U>) -> ApiResult<Field<U>> {
        Ok(match self {
            Field::Absent => Field::Absent,
            Field::Null => Field::Null,
            Field::Value(value) => Field::Value(f(value)?),
        })
    }
}

fn invalid(name: &str, detail: impl Into<String>) -> ApiError {
    ApiError::validation("invalid", detail).on(name)
}

fn raw<'a>(body: &'a Map<String, Value>, name: &str) -> Field<&'a Value> {
    match body.get(name) {
        None => Field::Absent,
        Some(Value::Null) => Field::Null,
        Some(value) => Field::Value(value),
    }
}

/// A string field, trimmed as DRF does; numbers are taken as their text.
/// NUL is refused, as DRF's `ProhibitNullCharactersValidator` refuses it.
pub fn string(body: &Map<String, Value>, name: &str) -> ApiResult<Field<String>> {
    trimmed(body, name)?.map(|text| refuse_nul(name, text))
}

fn trimmed(body: &Map<String, Value>, name: &str) -> ApiResult<Field<String>> {
    raw(body, name).map(|value| match value {
        Value::String(text) => Ok(text.trim().to_string()),
        Value::Number(number) => Ok(number.to_string()),
        _ => Err(invalid(name, "Not a valid string.")),
    })
}

/// DRF's text for a string holding NUL (which PostgreSQL cannot store).
pub const NULL_CHARACTERS: &str = "Null characters are not allowed.";

fn refuse_nul(name: &str, text: String) -> ApiResult<String> {
    if text.contains('\0') {
        Err(ApiError::validation("null_characters_not_allowed", NULL_CHARACTERS).on(name))
    } else {
        Ok(text)
    }
}

/// A string that may not be blank and has at most `max` characters.
pub fn checked_string(
    body: &Map<String, Value>,
    name: &str,
    max: Option<usize>,
    allow_blank: bool,
) -> ApiResult<Field<String>> {
    // DRF's order: blank, then the validators (length, then NUL).
    trimmed(body, name)?.map(|text| {
        if !allow_blank && text.is_empty() {
            return Err(ApiError::validation("blank", "This field may not be blank.").on(name));
        }
        if let Some(max) = max.filter(|&max| text.chars().count() > max) {
            return Err(ApiError::validation(
                "max_length",
                format!("Ensure this field has no more than {max} characters."),
            )
            .on(name));
        }
        refuse_nul(name, text)
    })
}

/// An integer field: JSON integers, integral floats and numeric strings.
pub fn integer(body: &Map<String, Value>, name: &str) -> ApiResult<Field<i64>> {
    raw(body, name).map(|value| {
        let parsed = match value {
            Value::Number(number) => number.as_i64().or_else(|| {
                number
                    .as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
                    .map(|f| f as i64)
            }),
            Value::String(text) => text.trim().parse::<i64>().ok(),
            _ => None,
        };
        parsed.ok_or_else(|| invalid(name, "A valid integer is required."))
    })
}

/// An integer within `min..=max`.
pub fn ranged_integer(body: &Map<String, Value>, name: &str, min: i64, max: i64) -> ApiResult<Field<i64>> {
    integer(body, name)?.map(|value| {
        if value < min {
            Err(ApiError::validation(
                "min_value",
                format!("Ensure this value is greater than or equal to {min}."),
            )
            .on(name))
        } else if value > max {
            Err(ApiError::validation(
                "max_value",
                format!("Ensure this value is less than or equal to {max}."),
            )
            .on(name))
        } else {
            Ok(value)
        }
    })
}

/// A boolean field, accepting the spellings DRF accepts.
pub fn boolean(body: &Map<String, Value>, name: &str) -> ApiResult<Field<bool>> {
    raw(body, name).map(|value| match value {
        Value::Bool(flag) => Ok(*flag),
        Value::Number(number) if number.as_i64() == Some(1) => Ok(true),
        Value::Number(number) if number.as_i64() == Some(0) => Ok(false),
        Value::String(text) => parse_bool(text).ok_or_else(|| invalid(name, "Must be a valid boolean.")),
        _ => Err(invalid(name, "Must be a valid boolean.")),
    })
}

/// The boolean spellings DRF accepts, for bodies and query parameters.
pub fn parse_bool(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "true" | "t" | "1" | "yes" | "y" | "on" => Some(true),
        "false" | "f" | "0" | "no" | "n" | "off" => Some(false),
        _ => None,
    }
}

/// An ISO 8601 date-time; naive values are taken as UTC.
pub fn datetime(body: &Map<String, Value>, name: &str) -> ApiResult<Field<DateTime<Utc>>> {
    const WRONG_FORMAT: &str = "Datetime has wrong format. Use one of these formats instead: \
                                YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].";
    raw(body, name).map(|value| match value {
        // Years 1 to 9999 in UTC, as a Python datetime holds them.
        Value::String(text) => parse_datetime(text)
            .filter(|at| (1..=9999).contains(&at.year()))
            .ok_or_else(|| invalid(name, WRONG_FORMAT)),
        _ => Err(invalid(name, WRONG_FORMAT)),
    })
}

fn parse_choice<T: FromStr>(name: &str, value: &Value) -> ApiResult<T> {
    let text = match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    text.parse::<T>().map_err(|_| {
        ApiError::validation("invalid_choice", format!("\"{text}\" is not a valid choice.")).on(name)
    })
}

/// One of an enumeration's known values.
pub fn choice<T: FromStr>(body: &Map<String, Value>, name: &str) -> ApiResult<Field<T>> {
    raw(body, name).map(|value| parse_choice(name, value))
}

/// A list of an enumeration's known values; a bad item names itself as
/// `field__index`, as PostHog joins nested attributes.
pub fn choice_list<T: FromStr>(body: &Map<String, Value>, name: &str) -> ApiResult<Field<Vec<T>>> {
    raw(body, name).map(|value| match value {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(index, item)| parse_choice(&format!("{name}__{index}"), item))
            .collect(),
        other => Err(ApiError::validation(
            "not_a_list",
            format!("Expected a list of items but got type \"{}\".", json_type(other)),
        )
        .on(name)),
    })
}

/// The Python name of a JSON value's type, as DRF reports it.
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(number) if number.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn body(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn integers_accept_what_drf_accepts() {
        let b = body(json!({"a": 3, "b": "4", "c": 5.0, "d": 5.5, "e": true, "f": null}));
        assert_eq!(integer(&b, "a").unwrap(), Field::Value(3));
        assert_eq!(integer(&b, "b").unwrap(), Field::Value(4));
        assert_eq!(integer(&b, "c").unwrap(), Field::Value(5));
        assert_eq!(integer(&b, "d").unwrap_err().body.unwrap().code, "invalid_input");
        assert!(integer(&b, "e").is_err());
        assert_eq!(integer(&b, "f").unwrap(), Field::Null);
        assert_eq!(integer(&b, "g").unwrap(), Field::Absent);
    }

    #[test]
    fn strings_are_trimmed_and_checked() {
        let b = body(json!({"name": "  Ops  ", "blank": "   ", "long": "x".repeat(201), "obj": {}}));
        assert_eq!(
            checked_string(&b, "name", Some(200), false).unwrap(),
            Field::Value("Ops".into())
        );
        let blank = checked_string(&b, "blank", None, false)
            .unwrap_err()
            .body
            .unwrap();
        assert_eq!(
            (blank.code.as_str(), blank.attr.as_deref()),
            ("blank", Some("blank"))
        );
        let long = checked_string(&b, "long", Some(200), false)
            .unwrap_err()
            .body
            .unwrap();
        assert_eq!(long.code, "max_length");
        assert!(string(&b, "obj").is_err());
    }

    #[test]
    fn list_items_name_their_index() {
        use crate::api::Weekday;
        let b = body(json!({"days": ["monday", "funday"], "one": "monday"}));
        let error = choice_list::<Weekday>(&b, "days").unwrap_err().body.unwrap();
        assert_eq!(error.attr.as_deref(), Some("days__1"));
        assert_eq!(error.detail, "\"funday\" is not a valid choice.");
        assert_eq!(
            choice_list::<Weekday>(&b, "one").unwrap_err().body.unwrap().code,
            "not_a_list"
        );
    }
}
