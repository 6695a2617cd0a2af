//! A JSON Schema of the file, for editors (`orgdeck export --schema`).

use serde_json::{Value, json};

/// A JSON Schema of the file, for editors.
pub fn schema() -> Value {
    let string = json!({"type": "string"});
    let integer = json!({"type": "integer"});
    let insight =
        json!({"oneOf": [{"type": "string", "description": "short id"}, {"type": "integer", "minimum": 1}]});
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "orgdeck roles and subscriptions as code",
        "type": "object",
        "additionalProperties": false,
        "required": ["orgdeck"],
        "properties": {
            "orgdeck": {
                "type": "object",
                "additionalProperties": false,
                "required": ["host", "organization", "project"],
                "properties": {"host": string, "organization": string, "project": integer}
            },
            "roles": {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["name"],
                    "properties": {
                        "id": string,
                        "name": {"type": "string", "minLength": 1},
                        "default": {"type": "boolean", "description": "read only: set in the organization's settings"},
                        "feature_flags_access_level": {"enum": [21, 37], "description": "older PostHog only: 21 view only, 37 can edit"},
                        "members": {"type": "array", "items": {"type": "string", "format": "email"}, "uniqueItems": true}
                    }
                }
            },
            "access": {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["project", "resource", "level"],
                    "oneOf": [{"required": ["role"]}, {"required": ["member"]}, {"required": ["everyone"]}],
                    "properties": {
                        "project": integer,
                        "resource": {"type": "string", "description": "project, or a resource: dashboard, insight, notebook, feature_flag, …"},
                        "object": {"type": "string", "description": "one object's id: a dashboard, insight, notebook or feature flag"},
                        "role": {"type": "string", "description": "a role, by name"},
                        "member": {"type": "string", "format": "email"},
                        "everyone": {"const": true},
                        "level": {"enum": ["none", "member", "admin", "viewer", "editor", "manager"]}
                    }
                }
            },
            "subscriptions": {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["target_type", "target_value", "frequency", "start_date"],
                    "oneOf": [{"required": ["insight"]}, {"required": ["dashboard"]}, {"required": ["prompt"]}],
                    "properties": {
                        "id": integer,
                        "title": string,
                        "insight": insight,
                        "dashboard": integer,
                        "export_insights": {"type": "array", "items": insight},
                        "prompt": string,
                        "target_type": {"enum": ["email", "slack", "webhook"]},
                        "target_value": string,
                        "integration": integer,
                        "frequency": {"enum": ["daily", "weekly", "monthly", "yearly"]},
                        "interval": {"type": "integer", "minimum": 1},
                        "byweekday": {"type": "array", "items": {"enum": ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]}},
                        "bysetpos": integer,
                        "count": {"type": "integer", "minimum": 1},
                        "start_date": {"type": "string", "format": "date-time"},
                        "until_date": {"type": "string", "format": "date-time"},
                        "enabled": {"type": "boolean"},
                        "invite_message": string
                    }
                }
            }
        }
    })
}
