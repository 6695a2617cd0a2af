//! As-code files at any size and with any text (issue 28, reqs 8 and 9;
//! issue 29, req 6): hidden characters escaped on export and read back as
//! the same text, problems found in linear time and bounded memory, the
//! input bound, duplicate JSON keys, a problem list that no value can
//! forge a line of; the older PostHog's access level exported and applied;
//! plan's usage errors.

use std::process::Stdio;
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::json;

use super::apply::Workspace;
use super::cli::{Run, orgdeck};
use crate::support::{DEMO_INSIGHT, MEMBER, TestServer};

/// Names and titles with C1 controls, bidi overrides and isolates, the
/// line separators, invisible characters and a tag character.
const HOSTILE: &str = "Ops\u{9b}31m \u{202e}drowssap\u{202c} \u{2066}x\u{2069}\u{85}\u{2028}Ad\u{200b}min\u{feff}\u{e0041}\u{7f}";

fn nothing_hidden(text: &str) {
    let hidden: Vec<char> = text
        .chars()
        .filter(|c| *c != '\n' && orgdeck::text::is_unsafe(*c))
        .collect();
    assert!(hidden.is_empty(), "{hidden:?} in the file");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_names_are_escaped_on_export_and_read_back_the_same() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    server
        .post(&key, &server.roles_path(), json!({"name": HOSTILE}))
        .await
        .expect(StatusCode::CREATED);
    server
        .post(
            &key,
            &server.subscriptions_path(),
            json!({"insight": DEMO_INSIGHT, "target_type": "email", "target_value": MEMBER,
                   "frequency": "daily", "interval": 1, "start_date": "2026-12-07T09:00:00Z",
                   "title": &HOSTILE[..HOSTILE.len() - 8], "send_test_now": false}),
        )
        .await
        .expect(StatusCode::CREATED);

    let toml = Workspace::new("org.toml");
    orgdeck(&server, &key, &["export", toml.arg()], None).await.ok();
    let text = toml.read();
    nothing_hidden(&text);
    for escape in [
        "\\u009B",
        "\\u202E",
        "\\u2066",
        "\\u0085",
        "\\u2028",
        "\\u200B",
        "\\uFEFF",
        "\\U000E0041",
    ] {
        assert!(text.contains(escape), "{escape}");
    }
    // Read back, it is the same text: nothing to change.
    let plan = orgdeck(&server, &key, &["plan", toml.arg()], None).await.ok();
    assert!(plan.stdout.starts_with("No changes"), "{}", plan.stdout);

    let json_file = Workspace::new("org.json");
    orgdeck(&server, &key, &["export", "-o", "json", json_file.arg()], None)
        .await
        .ok();
    let text = json_file.read();
    nothing_hidden(&text);
    assert!(
        text.contains("\\u202e") && text.contains("\\udb40\\udc41"),
        "{text}"
    );
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(
        value["roles"]
            .as_array()
            .unwrap()
            .iter()
            .any(|role| role["name"] == HOSTILE)
    );
    let plan = orgdeck(&server, &key, &["plan", json_file.arg()], None)
        .await
        .ok();
    assert!(plan.stdout.starts_with("No changes"), "{}", plan.stdout);

    // To the terminal, the same escapes.
    let shown = orgdeck(&server, &key, &["export", "--roles"], None).await.ok();
    nothing_hidden(&shown.stdout);
}

/// Runs the binary to its end, with its peak memory (KiB) when GNU time
/// can say it. (A child's own accounting is no good here: Linux keeps the
/// peak across exec, so a child spawned by this test process would carry
/// the test's own memory.)
fn measured(server: &TestServer, key: &str, args: &[&str]) -> (Run, Option<u64>, Duration) {
    use std::io::Read as _;
    let dir = tempfile::tempdir().unwrap();
    let peak_file = dir.path().join("peak");
    let time = std::path::Path::new("/usr/bin/time");
    let mut command = if time.exists() {
        let mut command = std::process::Command::new(time);
        command
            .arg("-f")
            .arg("%M")
            .arg("-o")
            .arg(&peak_file)
            .arg(env!("CARGO_BIN_EXE_orgdeck"));
        command
    } else {
        std::process::Command::new(env!("CARGO_BIN_EXE_orgdeck"))
    };
    let started = Instant::now();
    let mut child = command
        .args(args)
        .env("ORGDECK_HOST", &server.base)
        .env("ORGDECK_API_KEY", key)
        .env("ORGDECK_LOG", dir.path().join("log"))
        .env("ORGDECK_CONFIG", dir.path().join("none.toml"))
        .env_remove("ORGDECK_ORG")
        .env_remove("ORGDECK_PROJECT")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Both streams read at once: a full pipe would stop the child.
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut stderr = String::new();
        err.read_to_string(&mut stderr).unwrap();
        stderr
    });
    let mut stdout = String::new();
    child.stdout.take().unwrap().read_to_string(&mut stdout).unwrap();
    let stderr = reader.join().unwrap();
    let status = child.wait().unwrap();
    let peak = std::fs::read_to_string(&peak_file)
        .ok()
        .and_then(|text| text.lines().last()?.trim().parse().ok());
    // GNU time adds a line of its own on a failure exit.
    let stderr = stderr
        .lines()
        .filter(|line| !line.starts_with("Command exited with non-zero status"))
        .map(|line| format!("{line}\n"))
        .collect();
    (
        Run {
            code: status.code().unwrap_or(-1),
            stdout,
            stderr,
        },
        peak,
        started.elapsed(),
    )
}

fn header(server: &TestServer) -> String {
    format!(
        "[orgdeck]\nhost = \"{}\"\norganization = \"{}\"\nproject = {}\n",
        server.base, server.organization, server.project
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_of_any_size_cost_time_and_memory_in_proportion() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);

    // 100,000 inline roles on one line, each with an address that is not
    // one: every problem at its column, in linear time (17 s before, in a
    // release build; the bound here is for a debug build).
    let file = Workspace::new("inline.toml");
    let roles: Vec<String> = (0..100_000)
        .map(|n| format!("{{name = \"r{n}\", members = [\"bad{n}\"]}}"))
        .collect();
    file.write(&format!("roles = [{}]\n{}", roles.join(", "), header(&server)));
    let (run, _, took) = measured(&server, &key, &["plan", file.arg()]);
    assert_eq!(run.code, 1, "{}", &run.stderr[..run.stderr.len().min(500)]);
    assert!(
        run.stderr.starts_with(&format!(
            "orgdeck: {} has 100000 problems; nothing was compared:\n",
            file.arg()
        )),
        "{}",
        &run.stderr[..500]
    );
    let last = run.stderr.lines().last().unwrap();
    assert!(
        last.contains(": line 1, column 42777") && last.ends_with(": \"bad99999\" is not an e-mail address"),
        "{last}"
    );
    assert!(took < Duration::from_secs(10), "took {took:?}");

    // 20 MB of blank lines cost no more than the text (947 MiB before).
    let blank = Workspace::new("blank.toml");
    blank.write(&format!(
        "{}{}stray = 1\n",
        "\n".repeat(20_000_000),
        header(&server)
    ));
    let (run, peak, _) = measured(&server, &key, &["plan", blank.arg()]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .contains("line 20000005, column 1: unknown key `stray` in [orgdeck]"),
        "{}",
        run.stderr
    );
    if let Some(peak) = peak {
        assert!(peak < 150 * 1024, "peak {peak} KiB");
    }

    // Past the bound, a clear refusal without reading it.
    let huge = Workspace::new("huge.toml");
    std::fs::File::create(&huge.path)
        .unwrap()
        .set_len(64 * 1024 * 1024 + 1)
        .unwrap();
    let (run, peak, _) = measured(&server, &key, &["plan", huge.arg()]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .contains("the file is 65 MiB, more than the 64 MiB orgdeck reads of an as-code file"),
        "{}",
        run.stderr
    );
    if let Some(peak) = peak {
        assert!(peak < 64 * 1024, "peak {peak} KiB");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn duplicate_json_keys_are_refused_and_no_value_forges_a_line() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let file = Workspace::new("org.json");
    file.write(&format!(
        "{{\n  \"orgdeck\": {{\"host\": \"{}\", \"organization\": \"{}\", \"project\": {}}},\n  \"roles\": [\n    {{\"name\": \"A\", \"members\": [], \"name\": \"B\"}}\n  ],\n  \"roles\": []\n}}\n",
        server.base, server.organization, server.project
    ));
    let run = orgdeck(&server, &key, &["plan", file.arg()], None).await;
    assert_eq!(run.code, 1);
    let shown = run.stderr.replace(file.arg(), "FILE");
    assert_eq!(
        shown,
        "orgdeck: FILE has 2 problems; nothing was compared:\n  FILE: line 4, column 34: the key `name` is given twice in one object (first at line 4, column 6); JSON keeps only one, so orgdeck refuses both\n  FILE: line 6, column 3: the key `roles` is given twice in one object (first at line 3, column 3); JSON keeps only one, so orgdeck refuses both\n"
    );

    // A value with a line break and a terminal escape: one problem, one line.
    let file = Workspace::new("org.toml");
    file.write(&format!(
        "{}\n[[roles]]\nname = \"Support\"\nmembers = [\"x\\n  FILE: line 1, column 1: all is well\\u001b[2J\"]\n",
        header(&server)
    ));
    let run = orgdeck(&server, &key, &["plan", file.arg()], None).await;
    assert_eq!(run.code, 1);
    assert_eq!(run.stderr.lines().count(), 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("\"x\\n  FILE: line 1, column 1: all is well\\u{1b}[2J\" is not an e-mail address"),
        "{}",
        run.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plans_usage_errors_exit_1_and_changes_alone_exit_2() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    for args in [
        vec!["plan"],
        vec!["plan", "--no-such-flag", "x.toml"],
        vec!["plan", "--prune=everything", "x.toml"],
    ] {
        let run = orgdeck(&server, &key, &args, None).await;
        assert_eq!(run.code, 1, "{args:?}: {}", run.stderr);
        assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
    }
    // Other commands keep clap's 2.
    assert_eq!(
        orgdeck(&server, &key, &["roles", "--no-such-flag"], None)
            .await
            .code,
        2
    );
    assert_eq!(orgdeck(&server, &key, &["plan", "--help"], None).await.code, 0);
}

/// The older PostHog keeps `feature_flags_access_level` on roles (compat.md):
/// export writes it, plan compares it, apply sends it, so a role is never
/// made or left at the default behind the file's back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_older_servers_access_level_is_exported_and_applied() {
    let server = TestServer::seed().await;
    let key = server.key(&["*"]);
    let file = Workspace::new("roles.toml");
    let view_only = |roles: &[serde_json::Value]| {
        roles
            .iter()
            .filter(|role| role["feature_flags_access_level"] == json!(21))
            .count()
    };
    let before = view_only(&server.all(&key, &server.roles_path()).await);
    orgdeck(&server, &key, &["export", "--roles", file.arg()], None)
        .await
        .ok();
    let text = file.read();
    assert!(text.contains("\nfeature_flags_access_level = 37\n"), "{text}");
    // The first role's level goes to view only, and a new role is view only.
    let edited = text.replacen(
        "feature_flags_access_level = 37\n",
        "feature_flags_access_level = 21\n",
        1,
    );
    file.write(&format!(
        "{edited}\n[[roles]]\nname = \"Viewers\"\nfeature_flags_access_level = 21\nmembers = []\n"
    ));
    let planned = orgdeck(&server, &key, &["plan", file.arg()], None).await;
    assert_eq!(planned.code, 2, "{}", planned.stderr);
    assert!(
        planned
            .stdout
            .contains("    feature_flags_access_level: 37 → 21\n")
            && planned.stdout.contains("    feature_flags_access_level = 21\n"),
        "{}",
        planned.stdout
    );
    let applied = orgdeck(&server, &key, &["apply", "--yes", file.arg()], None).await;
    assert_eq!(applied.code, 0, "{}{}", applied.stdout, applied.stderr);
    assert!(applied.stdout.contains("✓ change role \""), "{}", applied.stdout);
    let roles = server.all(&key, &server.roles_path()).await;
    let viewers = roles.iter().find(|role| role["name"] == "Viewers").unwrap();
    assert_eq!(viewers["feature_flags_access_level"], json!(21));
    assert_eq!(view_only(&roles), before + 2);
    let again = orgdeck(&server, &key, &["plan", file.arg()], None).await.ok();
    assert!(again.stdout.starts_with("No changes"), "{}", again.stdout);
    // An out-of-range level is a problem of the file, at its line.
    file.write(&file.read().replace(
        "feature_flags_access_level = 21\nmembers = []",
        "feature_flags_access_level = 5\nmembers = []",
    ));
    let refused = orgdeck(&server, &key, &["plan", file.arg()], None).await;
    assert_eq!(refused.code, 1);
    assert!(
        refused
            .stderr
            .contains("feature_flags_access_level 5 is not 21 (view only) or 37 (can edit)"),
        "{}",
        refused.stderr
    );
}

/// A Slack subscription whose integration is gone (PostHog keeps it with
/// `integration: null`) is exported without one and read back: a fresh
/// export plans nothing. Only a new Slack entry must name its integration.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slack_subscriptions_without_an_integration_export_and_plan_clean() {
    let server = TestServer::start(orgdeck::server::Seed::Demo, 300).await;
    let key = server.key(&["*"]);
    let file = Workspace::new("org.toml");
    orgdeck(&server, &key, &["export", file.arg()], None).await.ok();
    let text = file.read();
    assert!(
        text.contains("target_type = \"slack\""),
        "no Slack subscription generated"
    );
    let plan = orgdeck(&server, &key, &["plan", file.arg()], None).await;
    assert_eq!(plan.code, 0, "{}\n{}", plan.stdout, plan.stderr);
    assert!(plan.stdout.contains("No changes"), "{}", plan.stdout);

    // A new Slack entry without one is refused, naming the line.
    file.write(&format!(
        "{text}\n[[subscriptions]]\ntitle = \"New to Slack\"\ninsight = {DEMO_INSIGHT}\ntarget_type = \"slack\"\ntarget_value = \"#ops\"\nfrequency = \"daily\"\nstart_date = \"2026-12-07T09:00:00Z\"\n"
    ));
    let plan = orgdeck(&server, &key, &["plan", file.arg()], None).await;
    assert_eq!(plan.code, 1, "{}", plan.stderr);
    assert!(
        plan.stderr
            .contains("a new Slack subscription needs `integration`"),
        "{}",
        plan.stderr
    );
}
