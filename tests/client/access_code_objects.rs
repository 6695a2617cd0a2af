//! A plan that changes rules on objects (a notebook, a feature flag)
//! previews who gains and who loses on each of them (issue 32 req 2, 4),
//! and the preview is what the reference server resolves once the plan is
//! applied, in both resolution modes: every member whose level on the
//! object moves has a line saying so with the level they then get, and
//! nobody else's moves.

use std::collections::HashMap;

use reqwest::StatusCode;
use serde_json::{Value, json};

use super::apply::Workspace;
use super::cli::orgdeck;
use crate::support::TestServer;

/// The file's text with the `[[access]]` entry holding every one of
/// `lines` given `level`.
fn with_level(text: &str, lines: &[&str], level: &str) -> String {
    let blocks: Vec<&str> = text.split("\n[[access]]\n").collect();
    let at = blocks
        .iter()
        .position(|block| lines.iter().all(|line| block.lines().any(|found| found == *line)))
        .unwrap_or_else(|| panic!("no entry with {lines:?} in {text}"));
    let edited: Vec<String> = blocks
        .iter()
        .enumerate()
        .map(|(index, block)| {
            if index != at {
                return block.to_string();
            }
            block
                .lines()
                .map(|line| {
                    if line.starts_with("level = ") {
                        format!("level = \"{level}\"")
                    } else {
                        line.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect();
    let joined = edited.join("\n[[access]]\n");
    if text.ends_with('\n') && !joined.ends_with('\n') {
        format!("{joined}\n")
    } else {
        joined
    }
}

/// Everyone's level on an object, by e-mail address (`users_with_access`
/// lists those above none).
async fn levels_on(server: &TestServer, key: &str, path: &str) -> HashMap<String, String> {
    let reply = server.get(key, &format!("{path}users_with_access")).await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.json);
    let members = server
        .all(
            key,
            &format!("/api/organizations/{}/members/", server.organization),
        )
        .await;
    let email_of: HashMap<String, String> = members
        .iter()
        .map(|member| {
            (
                member["user"]["uuid"].as_str().unwrap().to_lowercase(),
                member["user"]["email"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    reply.json["users"]
        .as_array()
        .unwrap()
        .iter()
        .map(|user| {
            let uuid = user["user_id"].as_str().unwrap().to_lowercase();
            (
                email_of.get(&uuid).cloned().unwrap_or(uuid),
                user["access_level"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn object_rules_in_a_plan_are_previewed_as_the_server_then_resolves_them() {
    for most_specific in [false, true] {
        let server = TestServer::demo().await;
        let key = server.key(&["*"]);
        if most_specific {
            let path = format!("/api/organizations/{}/", server.organization);
            server
                .patch(&key, &path, json!({"uses_most_specific_access_resolution": true}))
                .await
                .expect(StatusCode::OK);
        }
        let notebooks = server.all(&key, "/api/projects/1/notebooks/").await;
        let notebook = notebooks
            .iter()
            .find(|notebook| notebook["title"] == "Incident review: checkout outage")
            .unwrap();
        let flags = server.all(&key, "/api/projects/1/feature_flags/").await;
        let flag = flags.iter().find(|flag| flag["key"] == "new-checkout").unwrap();
        let objects = [
            (
                "notebook",
                notebook["id"].as_str().unwrap().to_string(),
                format!(
                    "/api/projects/1/notebooks/{}/",
                    notebook["short_id"].as_str().unwrap()
                ),
            ),
            (
                "feature_flag",
                flag["id"].to_string(),
                format!("/api/projects/1/feature_flags/{}/", flag["id"]),
            ),
        ];

        let file = Workspace::new("access.toml");
        let exported = orgdeck(&server, &key, &["export", file.arg(), "--access"], None).await;
        assert_eq!(exported.code, 0, "{}", exported.stderr);
        let text = file.read();
        // On-call only views the incident review; Marketing, shut out of
        // the flag by its own rule, becomes an editor of it.
        let notebook_id = format!("object = \"{}\"", objects[0].1);
        let edited = with_level(
            &text,
            &["resource = \"notebook\"", &notebook_id, "role = \"On-call\""],
            "viewer",
        );
        let flag_id = format!("object = \"{}\"", objects[1].1);
        let edited = with_level(
            &edited,
            &["resource = \"feature_flag\"", &flag_id, "role = \"Marketing\""],
            "editor",
        );
        file.write(&edited);

        let mut before = Vec::new();
        for (_, _, path) in &objects {
            before.push(levels_on(&server, &key, path).await);
        }
        let planned = orgdeck(&server, &key, &["plan", file.arg(), "-o", "json"], None).await;
        assert_eq!(planned.code, 2, "{}{}", planned.stdout, planned.stderr);
        let plan: Value = planned.json();
        let lines = plan["preview"]["lines"].as_array().cloned().unwrap_or_default();
        let mode = if most_specific {
            "most-specific"
        } else {
            "highest-wins"
        };
        assert_eq!(plan["preview"]["mode"], mode, "{plan}");
        let table = orgdeck(&server, &key, &["plan", file.arg()], None).await;
        assert!(
            table.stdout.contains(
                "notebook \"Incident review: checkout outage\" editor → viewer in Hedgebox Web (1)"
            ),
            "{mode}: {}",
            table.stdout
        );

        let applied = orgdeck(&server, &key, &["apply", file.arg(), "--yes"], None).await;
        assert_eq!(applied.code, 0, "{}{}", applied.stdout, applied.stderr);
        for ((resource, _, path), before) in objects.iter().zip(before) {
            let after = levels_on(&server, &key, path).await;
            let previewed: HashMap<String, (String, String)> = lines
                .iter()
                .filter(|line| line["resource"] == *resource && line["object"].is_string())
                .map(|line| {
                    (
                        line["email"].as_str().unwrap().to_string(),
                        (
                            line["before"].as_str().unwrap().to_string(),
                            line["after"].as_str().unwrap().to_string(),
                        ),
                    )
                })
                .collect();
            assert!(!previewed.is_empty(), "{mode}: no line on the {resource}: {plan}");
            let level = |levels: &HashMap<String, String>, email: &str| {
                levels.get(email).cloned().unwrap_or_else(|| "none".to_string())
            };
            let mut everyone: Vec<&String> = before
                .keys()
                .chain(after.keys())
                .chain(previewed.keys())
                .collect();
            everyone.sort();
            everyone.dedup();
            for email in everyone {
                let (was, is) = (level(&before, email), level(&after, email));
                match previewed.get(email) {
                    Some((from, to)) => assert_eq!(
                        (from, to),
                        (&was, &is),
                        "{mode}: {email} on the {resource}: previewed {from} → {to}, the server {was} → {is}"
                    ),
                    None => assert_eq!(
                        was, is,
                        "{mode}: {email} on the {resource} moved without a line in the preview"
                    ),
                }
            }
        }
        let clean = orgdeck(&server, &key, &["plan", file.arg()], None).await;
        assert_eq!(clean.code, 0, "{}{}", clean.stdout, clean.stderr);
    }
}
