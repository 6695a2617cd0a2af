//! `apply` against interruptions and a changing organization (issue 28):
//! the real binary killed with SIGKILL at several moments and run again,
//! two applies of one file at once, saved plans after a colleague's edit,
//! stale plans and plans for another project, the create answered 500
//! after it was saved. The server always runs on the system's clock here:
//! a create is looked for by its time.

use std::process::Stdio;

use reqwest::StatusCode;
use serde_json::{Value, json};

use super::cli::{Run, orgdeck_at};
use crate::support::proxy::{Fault, FaultProxy};
use crate::support::{ADMIN, DEMO_INSIGHT, MEMBER, OWNER, TestServer};

/// A file of its own in a directory of its own, with the binary's log,
/// config and state there too.
pub(crate) struct Workspace {
    pub dir: tempfile::TempDir,
    pub path: std::path::PathBuf,
}

impl Workspace {
    pub(crate) fn new(name: &str) -> Workspace {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        Workspace { dir, path }
    }

    pub(crate) fn arg(&self) -> &str {
        self.path.to_str().unwrap()
    }

    pub(crate) fn read(&self) -> String {
        std::fs::read_to_string(&self.path).unwrap()
    }

    pub(crate) fn write(&self, text: &str) {
        std::fs::write(&self.path, text).unwrap();
    }

    pub(crate) fn beside(&self, name: &str) -> String {
        self.dir.path().join(name).to_str().unwrap().to_string()
    }
}

/// The binary running `args` against `base`, to be killed or waited for.
fn start(base: &str, key: &str, args: &[&str], env: &[(&str, &str)]) -> tokio::process::Child {
    let state = tempfile::tempdir().unwrap().keep();
    tokio::process::Command::new(env!("CARGO_BIN_EXE_orgdeck"))
        .args(args)
        .env("ORGDECK_HOST", base)
        .env("ORGDECK_API_KEY", key)
        .env("ORGDECK_LOG", state.join("log"))
        .env("ORGDECK_CONFIG", state.join("no-config.toml"))
        .env("ORGDECK_STATE_DIR", state.join("state"))
        .envs(env.iter().copied())
        .env_remove("ORGDECK_ORG")
        .env_remove("ORGDECK_PROJECT")
        .env_remove("ORGDECK_CLOCK_OFFSET")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap()
}

async fn finish(child: tokio::process::Child) -> Run {
    let output = child.wait_with_output().await.unwrap();
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// SIGKILL, then reaped.
async fn kill_9(mut child: tokio::process::Child) {
    child.start_kill().unwrap();
    let status = child.wait().await.unwrap();
    assert_eq!(status.code(), None, "killed by a signal");
}

async fn run(base: &str, key: &str, args: &[&str]) -> Run {
    orgdeck_at(base, key, args, None, &[]).await
}

/// A new subscription entry, titled.
fn new_subscription(title: &str) -> String {
    format!(
        "\n[[subscriptions]]\ntitle = \"{title}\"\ninsight = {DEMO_INSIGHT}\ntarget_type = \"email\"\ntarget_value = \"{MEMBER}\"\nfrequency = \"weekly\"\nbyweekday = [\"monday\"]\nstart_date = \"2026-12-07T09:00:00Z\"\n"
    )
}

/// How many live subscriptions carry each title.
async fn titles(server: &TestServer, key: &str) -> std::collections::HashMap<String, usize> {
    let mut counts = std::collections::HashMap::new();
    for row in server.all(key, &server.subscriptions_path()).await {
        *counts
            .entry(row["title"].as_str().unwrap_or_default().to_string())
            .or_insert(0) += 1;
    }
    counts
}

async fn roles_named(server: &TestServer, key: &str, name: &str) -> Vec<Value> {
    server
        .all(key, &server.roles_path())
        .await
        .into_iter()
        .filter(|role| role["name"] == json!(name))
        .collect()
}

fn subscription_block(text: &str, id: i64) -> (usize, usize) {
    let start = text.find(&format!("[[subscriptions]]\nid = {id}\n")).unwrap();
    let end = text[start..].find("\n\n").map_or(text.len(), |at| start + at + 1);
    (start, end)
}

/// The file with one line of a subscription's entry replaced.
fn set_field(text: &str, id: i64, field: &str, line: &str) -> String {
    let (start, end) = subscription_block(text, id);
    let block = &text[start..end];
    let at = block.find(&format!("\n{field} = ")).unwrap() + 1;
    let line_end = at + block[at..].find('\n').unwrap();
    format!(
        "{}{}{}{}",
        &text[..start],
        &block[..at],
        line,
        &text[start + line_end..]
    )
}

/// The ids of the file's first subscriptions that have a title.
fn first_ids(text: &str, how_many: usize) -> Vec<i64> {
    text.split("[[subscriptions]]\nid = ")
        .skip(1)
        .filter(|rest| rest[..rest.find("\n\n").unwrap_or(rest.len())].contains("\ntitle = "))
        .take(how_many)
        .map(|rest| rest[..rest.find('\n').unwrap()].parse().unwrap())
        .collect()
}

const ROLE: &str = "\n[[roles]]\nname = \"Night shift\"\nmembers = [\n  \"{MEMBER}\",\n  \"{ADMIN}\",\n]\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_at_any_moment_a_second_apply_creates_nothing_twice() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let proxy = FaultProxy::start(&server.base).await;
    let file = Workspace::new("org.toml");
    run(&server.base, &key, &["export", file.arg()]).await.ok();
    let wanted: Vec<String> = (1..=12).map(|n| format!("Report {n:02}")).collect();
    let mut text = file.read();
    // The new role first in the file's roles: created before the subscriptions.
    text.push_str(&ROLE.replace("{MEMBER}", MEMBER).replace("{ADMIN}", ADMIN));
    for title in &wanted {
        text.push_str(&new_subscription(title));
    }
    file.write(&text);
    let roles_path = format!("POST {}", server.roles_path());
    let creates = format!("POST {}", server.subscriptions_path());

    // 1. Killed while the role's create is in flight, after the server saved it.
    proxy.push_for(&format!("{roles_path} "), 0, Fault::ForwardThenHold);
    let child = start(&proxy.base, &key, &["apply", "--yes", file.arg()], &[]);
    proxy.until_held(1).await;
    kill_9(child).await;
    // 2. Killed while adding its first member, after the server saved it.
    proxy.push_for(&roles_path, 0, Fault::ForwardThenHold);
    let child = start(&proxy.base, &key, &["apply", "--yes", file.arg()], &[]);
    proxy.until_held(2).await;
    kill_9(child).await;
    // 3. Killed while the 4th subscription's create is in flight, saved.
    proxy.push_for(&creates, 3, Fault::ForwardThenHold);
    let child = start(&proxy.base, &key, &["apply", "--yes", file.arg()], &[]);
    proxy.until_held(3).await;
    // The ids of the creates answered reach the file while the run goes on.
    let ids = |text: &str| text.matches("[[subscriptions]]\nid = ").count();
    let before = ids(&text);
    for _ in 0..200 {
        if ids(&file.read()) >= before + 3 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    kill_9(child).await;
    let after_third = file.read();
    // 4. Killed while a create is held before it reached the server.
    proxy.push_for(&creates, 1, Fault::Hold);
    let child = start(&proxy.base, &key, &["apply", "--yes", file.arg()], &[]);
    proxy.until_held(4).await;
    kill_9(child).await;
    let lock = format!("{}.lock", file.arg());
    assert!(
        std::fs::read_to_string(&lock).unwrap().contains("\"sending\""),
        "the journal holds the creates in flight"
    );
    // Ids written as the server answered: some are in the file already.
    assert!(ids(&after_third) >= before + 3, "ids written before the kill");

    // Then the same apply, to the end.
    let done = run(&proxy.base, &key, &["apply", "--yes", file.arg()]).await;
    assert_eq!(done.code, 0, "{}{}", done.stdout, done.stderr);
    assert!(
        done.stderr.contains("note: took over the lock"),
        "{}",
        done.stderr
    );
    assert!(
        done.stderr.contains("of the apply interrupted at") && done.stderr.contains("was not made"),
        "the create held before the server is known not made: {}",
        done.stderr
    );
    let counts = titles(&server, &key).await;
    for title in &wanted {
        assert_eq!(counts.get(title), Some(&1), "{title}: {counts:?}");
    }
    let roles = roles_named(&server, &key, "Night shift").await;
    assert_eq!(roles.len(), 1);
    let members = server
        .all(
            &key,
            &format!(
                "{}{}/role_memberships/",
                server.roles_path(),
                roles[0]["id"].as_str().unwrap()
            ),
        )
        .await;
    assert_eq!(members.len(), 2, "{members:?}");
    // Every new entry has its id, the lock is gone, and nothing is left to do.
    let after = file.read();
    assert_eq!(
        after.matches("[[subscriptions]]\nid = ").count(),
        after.matches("[[subscriptions]]").count()
    );
    assert!(!std::path::Path::new(&lock).exists());
    let again = run(&server.base, &key, &["plan", file.arg()]).await;
    assert_eq!(again.code, 0, "{}{}", again.stdout, again.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_apply_of_the_same_file_refuses_at_once_naming_the_first() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let proxy = FaultProxy::start(&server.base).await;
    let file = Workspace::new("org.toml");
    run(&server.base, &key, &["export", "--subscriptions", file.arg()])
        .await
        .ok();
    let mut text = file.read();
    text.push_str(&new_subscription("Once"));
    file.write(&text);
    proxy.push_for(&format!("POST {}", server.subscriptions_path()), 0, Fault::Hold);
    let first = start(&proxy.base, &key, &["apply", "--yes", file.arg()], &[]);
    proxy.until_held(1).await;
    let pid = first.id().unwrap();
    let started = std::time::Instant::now();
    let second = run(&server.base, &key, &["apply", "--yes", file.arg()]).await;
    assert_eq!(second.code, 1, "{}{}", second.stdout, second.stderr);
    assert!(
        second
            .stderr
            .contains(&format!("is being applied by pid {pid} on ")),
        "{}",
        second.stderr
    );
    assert!(second.stderr.contains("nothing was done"), "{}", second.stderr);
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    proxy.release();
    let first = finish(first).await;
    assert_eq!(first.code, 0, "{}{}", first.stdout, first.stderr);
    assert_eq!(titles(&server, &key).await.get("Once"), Some(&1));

    // Five at once: one applies, the others refuse or find it done.
    let mut text = file.read();
    for n in 1..=5 {
        text.push_str(&new_subscription(&format!("Five {n}")));
    }
    file.write(&text);
    let children: Vec<_> = (0..5)
        .map(|_| start(&server.base, &key, &["apply", "--yes", file.arg()], &[]))
        .collect();
    let mut applied = 0;
    for child in children {
        let done = finish(child).await;
        match done.code {
            0 if done.stdout.contains("✓ create subscription") => applied += 1,
            0 => assert!(done.stdout.starts_with("Nothing to do"), "{}", done.stdout),
            _ => assert!(
                done.stderr.contains("is being applied by pid"),
                "{}{}",
                done.stdout,
                done.stderr
            ),
        }
    }
    assert_eq!(applied, 1);
    let counts = titles(&server, &key).await;
    for n in 1..=5 {
        assert_eq!(counts.get(&format!("Five {n}")), Some(&1), "{counts:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_saved_plan_refuses_the_step_a_colleague_changed_and_does_the_rest() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let file = Workspace::new("org.toml");
    run(&server.base, &key, &["export", "--subscriptions", file.arg()])
        .await
        .ok();
    let text = file.read();
    let ids = first_ids(&text, 3);
    let (kept, changed, pruned) = (ids[0], ids[1], ids[2]);
    let mut edited = set_field(&text, kept, "title", "title = \"Ours, kept\"");
    edited = set_field(&edited, changed, "title", "title = \"Ours, changed\"");
    let (start, end) = subscription_block(&edited, pruned);
    edited = format!("{}{}", &edited[..start], &edited[end..]);
    edited.push_str(&new_subscription("New in the plan"));
    file.write(&edited);
    let plan_path = file.beside("reviewed.plan");
    let planned = run(
        &server.base,
        &key,
        &["plan", "--prune", file.arg(), "--save", &plan_path],
    )
    .await;
    assert_eq!(planned.code, 2, "{}{}", planned.stdout, planned.stderr);
    assert!(
        planned.stdout.ends_with(&format!(
            "Plan: 1 to add, 2 to change, 1 to remove.\n\nSaved the plan to {plan_path}: `orgdeck apply {plan_path}` applies exactly it, within 60 minutes.\n"
        )),
        "{}",
        planned.stdout
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&plan_path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&plan_path).unwrap()).unwrap();
    assert_eq!(saved["steps"].as_array().unwrap().len(), 4);
    assert!(saved["steps"][1]["before"]["title"].is_string(), "{saved}");

    // A colleague changes the one subscription meanwhile, and makes another.
    let path = |id: i64| format!("{}{id}/", server.subscriptions_path());
    server
        .patch(&key, &path(changed), json!({"interval": 7}))
        .await
        .expect(StatusCode::OK);
    let theirs = server
        .post(
            &key,
            &server.subscriptions_path(),
            json!({"insight": DEMO_INSIGHT, "target_type": "email", "target_value": OWNER,
                   "frequency": "daily", "interval": 1, "start_date": "2026-12-07T09:00:00Z",
                   "title": "Made after the review", "send_test_now": false}),
        )
        .await;
    let theirs = theirs.expect(StatusCode::CREATED)["id"].as_i64().unwrap();

    let applied = run(&server.base, &key, &["apply", &plan_path]).await;
    assert_eq!(applied.code, 1, "{}{}", applied.stdout, applied.stderr);
    assert!(
        applied.stdout.contains(&format!(
            "✗ change subscription \"Ours, changed\" ({changed}): interval changed since the plan, from "
        )),
        "{}",
        applied.stdout
    );
    assert!(
        applied
            .stdout
            .contains(&format!("✓ change subscription \"Ours, kept\" ({kept})\n")),
        "{}",
        applied.stdout
    );
    assert!(
        applied
            .stdout
            .contains("✓ create subscription \"New in the plan\" ("),
        "{}",
        applied.stdout
    );
    assert!(
        applied.stdout.contains(&format!("({pruned}) (soft delete)")),
        "the plan is shown: {}",
        applied.stdout
    );
    assert!(
        applied
            .stderr
            .contains("1 of 4 steps failed (the others were done):\n  change subscription \"Ours, changed\""),
        "{}",
        applied.stderr
    );
    // The colleague's edit stands; what the plan did not read is untouched.
    let read = |id: i64| {
        let path = path(id);
        let server = &server;
        let key = &key;
        async move { server.get(key, &path).await.json }
    };
    assert!(applied.stdout.contains(" to 7; not done\n"), "{}", applied.stdout);
    let now = read(changed).await;
    assert_eq!(now["interval"], json!(7));
    assert_ne!(now["title"], "Ours, changed");
    assert_eq!(read(kept).await["title"], "Ours, kept");
    assert_eq!(read(pruned).await["deleted"], json!(true));
    assert_eq!(read(theirs).await["deleted"], json!(false));

    // Run again (as after an interruption): what is done is said so, the
    // refused step is refused again, nothing is made twice.
    let again = run(&server.base, &key, &["apply", &plan_path]).await;
    assert_eq!(again.code, 1, "{}{}", again.stdout, again.stderr);
    assert!(
        again
            .stdout
            .contains("✓ create subscription \"New in the plan\": in the file as "),
        "{}{}",
        again.stdout,
        again.stderr
    );
    assert!(
        again.stdout.contains(&format!("({pruned}): already deleted\n")),
        "{}",
        again.stdout
    );
    assert!(
        again.stdout.contains(&format!("({kept}): already as planned\n")),
        "{}",
        again.stdout
    );
    assert_eq!(titles(&server, &key).await.get("New in the plan"), Some(&1));

    // A symbolic link at the plan's path is refused, not followed.
    #[cfg(unix)]
    {
        let victim = file.beside("victim");
        std::fs::write(&victim, "keep").unwrap();
        let link = file.beside("link.plan");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let refused = run(&server.base, &key, &["plan", file.arg(), "--save", &link]).await;
        assert_eq!(refused.code, 1, "{}", refused.stderr);
        assert!(refused.stderr.contains("symbolic link"), "{}", refused.stderr);
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_too_old_for_another_project_or_of_a_changed_file_is_refused_whole() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let file = Workspace::new("org.toml");
    run(&server.base, &key, &["export", "--subscriptions", file.arg()])
        .await
        .ok();
    let mut text = file.read();
    text.push_str(&new_subscription("Planned"));
    file.write(&text);
    let plan_path = file.beside("org.plan");
    let before = titles(&server, &key).await;

    // Made two hours ago (this machine's clock then).
    let old = orgdeck_at(
        &server.base,
        &key,
        &["plan", file.arg(), "--save", &plan_path],
        None,
        &[("ORGDECK_CLOCK_OFFSET", std::ffi::OsStr::new("-2h"))],
    )
    .await;
    assert_eq!(old.code, 2, "{}", old.stderr);
    let refused = run(&server.base, &key, &["apply", &plan_path]).await;
    assert_eq!(refused.code, 1);
    assert!(
        refused
            .stderr
            .contains("more than 60 minutes ago, so nothing was applied"),
        "{}",
        refused.stderr
    );

    // For project 1, applied to project 2.
    assert_eq!(
        run(&server.base, &key, &["plan", file.arg(), "--save", &plan_path])
            .await
            .code,
        2
    );
    let elsewhere = run(&server.base, &key, &["--project", "2", "apply", &plan_path]).await;
    assert_eq!(elsewhere.code, 1);
    assert!(
        elsewhere.stderr.contains(&format!(
            "was made for project {} (this connection: 2; pass --project), so nothing was applied",
            server.project
        )),
        "{}",
        elsewhere.stderr
    );

    // The file changed since the plan.
    file.write(&text.replace("title = \"Planned\"", "title = \"Planned, then edited\""));
    let changed = run(&server.base, &key, &["apply", &plan_path]).await;
    assert_eq!(changed.code, 1);
    assert!(
        changed.stderr.contains("changed since the plan") && changed.stderr.contains("nothing was applied"),
        "{}",
        changed.stderr
    );
    // --prune belongs to the plan.
    let prune = run(&server.base, &key, &["apply", "--prune", &plan_path]).await;
    assert_eq!(prune.code, 1);
    assert!(
        prune.stderr.contains("holds its own removals"),
        "{}",
        prune.stderr
    );
    assert_eq!(titles(&server, &key).await, before, "nothing was applied");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_made_while_apply_asked_is_never_overwritten() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let file = Workspace::new("org.toml");
    run(&server.base, &key, &["export", "--subscriptions", file.arg()])
        .await
        .ok();
    let text = file.read();
    let ids = first_ids(&text, 2);
    let edited = set_field(&text, ids[0], "title", "title = \"Reviewed title\"");
    let edited = set_field(&edited, ids[1], "interval", "interval = 4");
    file.write(&edited);

    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_orgdeck"))
        .args(["apply", "--prune", file.arg()])
        .env("ORGDECK_HOST", &server.base)
        .env("ORGDECK_API_KEY", &key)
        .env("ORGDECK_LOG", file.beside("log"))
        .env("ORGDECK_CONFIG", file.beside("none.toml"))
        .env_remove("ORGDECK_ORG")
        .env_remove("ORGDECK_PROJECT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let mut asked = Vec::new();
    while !String::from_utf8_lossy(&asked).contains("Apply these changes?") {
        let mut chunk = [0u8; 256];
        let read = stderr.read(&mut chunk).await.unwrap();
        assert!(read > 0, "{}", String::from_utf8_lossy(&asked));
        asked.extend_from_slice(&chunk[..read]);
    }
    // While the question waits: a colleague retitles the first, and makes
    // a new one (not in the file, not in the plan reviewed).
    let path = format!("{}{}/", server.subscriptions_path(), ids[0]);
    server
        .patch(&key, &path, json!({"title": "The colleague's title"}))
        .await
        .expect(StatusCode::OK);
    let theirs = server
        .post(
            &key,
            &server.subscriptions_path(),
            json!({"insight": DEMO_INSIGHT, "target_type": "email", "target_value": OWNER,
                   "frequency": "daily", "interval": 1, "start_date": "2026-12-07T09:00:00Z",
                   "title": "Made while it asked", "send_test_now": false}),
        )
        .await;
    let theirs = theirs.expect(StatusCode::CREATED)["id"].as_i64().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"yes\n").await.unwrap();
    drop(stdin);
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).await.unwrap();
    let output = child.wait_with_output().await.unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stdout}{rest}");
    assert!(
        stdout.contains("title changed since the plan, from \"")
            && stdout.contains("to \"The colleague's title\"; not done"),
        "{stdout}"
    );
    assert!(stdout.contains(&format!("({})\n", ids[1])), "{stdout}");
    let now = server.get(&key, &path).await.json;
    assert_eq!(now["title"], "The colleague's title");
    let theirs = server
        .get(&key, &format!("{}{theirs}/", server.subscriptions_path()))
        .await
        .json;
    assert_eq!(
        theirs["deleted"],
        json!(false),
        "never pruned: made after the review"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_create_saved_then_answered_500_is_applied_once_and_its_id_written() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let proxy = FaultProxy::start(&server.base).await;
    let file = Workspace::new("org.toml");
    run(&server.base, &key, &["export", "--subscriptions", file.arg()])
        .await
        .ok();
    let mut text = file.read();
    for title in ["First of three", "Second of three", "Third of three"] {
        text.push_str(&new_subscription(title));
    }
    file.write(&text);
    proxy.push_for(
        &format!("POST {}", server.subscriptions_path()),
        1,
        Fault::ForwardThenAnswer(
            500,
            r#"{"type":"server_error","code":"error","detail":"A server error occurred.","attr":null}"#
                .into(),
        ),
    );
    let applied = run(&proxy.base, &key, &["apply", "--yes", file.arg()]).await;
    assert_eq!(applied.code, 0, "{}{}", applied.stdout, applied.stderr);
    let counts = titles(&server, &key).await;
    for title in ["First of three", "Second of three", "Third of three"] {
        assert_eq!(counts.get(title), Some(&1), "{counts:?}");
    }
    assert_eq!(proxy.count("POST"), 3);
    let after = file.read();
    assert_eq!(
        after.matches("[[subscriptions]]\nid = ").count(),
        after.matches("[[subscriptions]]").count()
    );
}
