//! Writes the ids of created entries back into the file, keeping its
//! comments and layout (TOML through `toml_edit`; JSON keeps its key order).

use serde_json::Value;

/// A created entry: which list, its place there, the server's id.
#[derive(Debug, Clone, PartialEq)]
pub enum NewId {
    Role { index: usize, id: String },
    Subscription { index: usize, id: i64 },
}

impl NewId {
    fn place(&self) -> (&'static str, usize) {
        match self {
            NewId::Role { index, .. } => ("roles", *index),
            NewId::Subscription { index, .. } => ("subscriptions", *index),
        }
    }

    fn toml(&self) -> toml_edit::Value {
        match self {
            NewId::Role { id, .. } => toml_edit::Value::from(id.as_str()),
            NewId::Subscription { id, .. } => toml_edit::Value::from(*id),
        }
    }

    fn json(&self) -> Value {
        match self {
            NewId::Role { id, .. } => Value::from(id.as_str()),
            NewId::Subscription { id, .. } => Value::from(*id),
        }
    }
}

/// The file's text with each new id first in its entry.
pub fn with_ids(text: &str, ids: &[NewId]) -> anyhow::Result<String> {
    if text.trim_start().starts_with('{') {
        let mut document: Value = serde_json::from_str(text)?;
        for new in ids {
            let (list, index) = new.place();
            let entry = document
                .get_mut(list)
                .and_then(|entries| entries.get_mut(index))
                .and_then(Value::as_object_mut)
                .ok_or_else(|| {
                    anyhow::anyhow!("the file changed meanwhile: no {list} entry {}", index + 1)
                })?;
            let rest = std::mem::take(entry);
            entry.insert("id".into(), new.json());
            entry.extend(rest.into_iter().filter(|(key, _)| key != "id"));
        }
        let mut out = serde_json::to_string_pretty(&document)?;
        out.push('\n');
        return Ok(out);
    }
    let mut document: toml_edit::DocumentMut = text.parse()?;
    for new in ids {
        let (list, index) = new.place();
        let table = document
            .get_mut(list)
            .and_then(toml_edit::Item::as_array_of_tables_mut)
            .and_then(|tables| tables.get_mut(index))
            .ok_or_else(|| anyhow::anyhow!("the file changed meanwhile: no {list} entry {}", index + 1))?;
        table.insert("id", toml_edit::Item::Value(new.toml()));
        // The id first, the others in their order (a stable sort).
        table.sort_values_by(|a, _, b, _| (b.get() == "id").cmp(&(a.get() == "id")));
    }
    Ok(document.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_go_first_and_comments_stay() {
        let text = "# Ours.\n[orgdeck]\nproject = 1\n\n[[roles]]\nname = \"A\" # the first\n\n# A new report.\n[[subscriptions]]\ntitle = \"T\"\nfrequency = \"daily\"\n";
        let out = with_ids(
            text,
            &[
                NewId::Role {
                    index: 0,
                    id: "r-1".into(),
                },
                NewId::Subscription { index: 0, id: 42 },
            ],
        )
        .unwrap();
        assert_eq!(
            out,
            "# Ours.\n[orgdeck]\nproject = 1\n\n[[roles]]\nid = \"r-1\"\nname = \"A\" # the first\n\n# A new report.\n[[subscriptions]]\nid = 42\ntitle = \"T\"\nfrequency = \"daily\"\n"
        );
        let json = with_ids(
            "{\"subscriptions\": [{\"title\": \"T\"}]}",
            &[NewId::Subscription { index: 0, id: 7 }],
        )
        .unwrap();
        assert_eq!(
            json,
            "{\n  \"subscriptions\": [\n    {\n      \"id\": 7,\n      \"title\": \"T\"\n    }\n  ]\n}\n"
        );
    }
}
