//! Offboarding interrupted, run as the real binary against the reference
//! server: the journal after SIGINT and after kill -9 (a proxy holds the
//! server's answers so that the run is stopped between two known steps),
//! and the next run going on in the same record, editing nothing twice.
//! The helpers serve `offboarding_files` and `offboarding_checks` too.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::io::AsyncReadExt;

use crate::cli::{Run, orgdeck_at};
use crate::support::proxy::FaultProxy;
use crate::support::{OWNER, TestServer};

/// The person offboarded: in the role Data, and (once [`mail_them`] ran)
/// the recipient of `MAILED` subscriptions more, beside one other person.
pub(crate) const PERSON: &str = "sven.aalto@hedgebox.dev";
pub(crate) const MAILED: usize = 12;

/// Makes `MAILED` subscriptions that mail [`PERSON`] and one other.
pub(crate) async fn mail_them(server: &TestServer, key: &str) {
    for n in 0..MAILED {
        server
            .post(
                key,
                &server.subscriptions_path(),
                json!({"insight": 1, "target_type": "email",
                       "target_value": format!("{PERSON},other{n}@hedgebox.dev"),
                       "frequency": "weekly", "interval": 1, "start_date": "2026-11-23T07:00:00Z",
                       "title": format!("Journal {n}")}),
            )
            .await
            .expect(StatusCode::CREATED);
    }
}

/// What an edit may change of every subscription of the project, by id.
pub(crate) async fn snapshot(server: &TestServer, key: &str) -> BTreeMap<i64, Value> {
    server
        .all(key, &server.subscriptions_path())
        .await
        .iter()
        .map(|row| {
            (
                row["id"].as_i64().unwrap(),
                json!([row["target_value"], row["enabled"], row["deleted"]]),
            )
        })
        .collect()
}

/// The subscriptions that differ between two snapshots.
pub(crate) fn changed(before: &BTreeMap<i64, Value>, after: &BTreeMap<i64, Value>) -> BTreeSet<i64> {
    before
        .iter()
        .filter(|(id, was)| after.get(id) != Some(was))
        .map(|(id, _)| *id)
        .collect()
}

/// The subscriptions a run's plan edits (its opening line's).
pub(crate) fn planned_edits(opening: &Value) -> BTreeSet<i64> {
    opening["plan"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|step| step["action"] == "edit_subscription")
        .map(|step| step["subscription"].as_i64().unwrap())
        .collect()
}

/// The subscriptions of the record's steps done, in order, repeats kept.
pub(crate) fn done_edits(lines: &[Value]) -> Vec<i64> {
    steps(lines)
        .iter()
        .filter(|step| step["status"] == "done")
        .filter_map(|step| step["subscription"].as_i64())
        .collect()
}

/// Each once: the set, after checking that nothing repeats.
#[track_caller]
pub(crate) fn each_once(ids: &[i64]) -> BTreeSet<i64> {
    let set: BTreeSet<i64> = ids.iter().copied().collect();
    assert_eq!(set.len(), ids.len(), "a subscription edited twice: {ids:?}");
    set
}

/// Whether [`PERSON`] is still in a role.
pub(crate) async fn in_a_role(server: &TestServer, key: &str) -> bool {
    for role in server.all(key, &server.roles_path()).await {
        let path = format!(
            "{}{}/role_memberships/",
            server.roles_path(),
            role["id"].as_str().unwrap()
        );
        if server
            .all(key, &path)
            .await
            .iter()
            .any(|membership| membership["user"]["email"] == PERSON)
        {
            return true;
        }
    }
    false
}

/// Every line of a record that parses.
pub(crate) fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

pub(crate) fn events(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .map(|line| line["event"].as_str().unwrap().to_string())
        .collect()
}

pub(crate) fn steps(lines: &[Value]) -> Vec<&Value> {
    lines.iter().filter(|line| line["event"] == "step").collect()
}

/// The only record in a state directory.
pub(crate) fn the_record(state: &Path) -> PathBuf {
    let records: Vec<PathBuf> = std::fs::read_dir(state.join("offboarding"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert_eq!(records.len(), 1, "{records:?}");
    records[0].clone()
}

/// Waits until the record holds `count` steps.
async fn until_steps(path: impl Fn() -> Option<PathBuf>, count: usize) {
    let started = Instant::now();
    loop {
        if let Some(path) = path().filter(|path| path.exists())
            && steps(&lines(&path)).len() >= count
        {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the record never held {count} steps"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The real binary running, its output read as it comes.
struct Running {
    child: tokio::process::Child,
    stdout: Arc<Mutex<Vec<u8>>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    _dir: tempfile::TempDir,
}

impl Running {
    fn start(base: &str, key: &str, args: &[&str], state: &Path) -> Running {
        let dir = tempfile::tempdir().unwrap();
        let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_orgdeck"))
            .args(args)
            .env("ORGDECK_HOST", base)
            .env("ORGDECK_API_KEY", key)
            .env("ORGDECK_LOG", dir.path().join("log"))
            .env("ORGDECK_CONFIG", dir.path().join("no-config.toml"))
            .env("ORGDECK_STATE_DIR", state)
            .env("COLUMNS", "100")
            .env_remove("ORGDECK_ORG")
            .env_remove("ORGDECK_PROJECT")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let drain = |mut from: Box<dyn tokio::io::AsyncRead + Unpin + Send>| {
            let into = Arc::new(Mutex::new(Vec::new()));
            let kept = into.clone();
            tokio::spawn(async move {
                let mut buffer = [0u8; 4096];
                while let Ok(read) = from.read(&mut buffer).await {
                    if read == 0 {
                        break;
                    }
                    kept.lock().unwrap().extend_from_slice(&buffer[..read]);
                }
            });
            into
        };
        let stdout = drain(Box::new(child.stdout.take().unwrap()));
        let stderr = drain(Box::new(child.stderr.take().unwrap()));
        Running {
            child,
            stdout,
            stderr,
            _dir: dir,
        }
    }

    fn signal(&self, signal: libc::c_int) {
        let pid = self.child.id().unwrap() as libc::pid_t;
        // SAFETY: kill(2) to our own child, which has not been reaped.
        assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
    }

    fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned()
    }

    async fn until_stderr(&self, wanted: &str) {
        let started = Instant::now();
        while !self.stderr().contains(wanted) {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "never said {wanted:?}: {}",
                self.stderr()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    async fn end(mut self) -> (std::process::ExitStatus, String, String) {
        let status = tokio::time::timeout(Duration::from_secs(60), self.child.wait())
            .await
            .expect("orgdeck ended")
            .unwrap();
        // The last bytes reach the buffers once the pipes close.
        tokio::time::sleep(Duration::from_millis(50)).await;
        let stdout = String::from_utf8_lossy(&self.stdout.lock().unwrap()).into_owned();
        (status, stdout, self.stderr())
    }
}

/// `people offboard PERSON --yes` against `base`, state in `state`.
pub(crate) async fn offboard(base: &str, key: &str, state: &Path, more: &[&str]) -> Run {
    let mut args = vec!["people", "offboard", PERSON, "--yes"];
    args.extend(more);
    orgdeck_at(
        base,
        key,
        &args,
        None,
        &[("ORGDECK_STATE_DIR", state.as_os_str())],
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_lets_the_steps_under_way_end_closes_the_record_and_the_next_run_goes_on_in_it() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    mail_them(&server, &key).await;
    let before = snapshot(&server, &key).await;
    let proxy = FaultProxy::start(&server.base).await;
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("sven.jsonl");
    let record_arg = record.to_str().unwrap();
    // Four edits go through; the next four wait at the proxy.
    proxy.hold("PATCH", 4);
    let running = Running::start(
        &proxy.base,
        &key,
        &["people", "offboard", PERSON, "--yes", "--record", record_arg],
        &dir.path().join("state"),
    );
    proxy.until_held(4).await;
    // The role and four edits ended, each in the record before the next.
    until_steps(|| Some(record.clone()), 5).await;
    running.signal(libc::SIGINT);
    running.until_stderr("stopping").await;
    proxy.release();
    let (status, stdout, stderr) = running.end().await;
    let written = lines(&record);
    let planned = planned_edits(&written[0]);
    assert!(planned.len() >= MAILED, "{planned:?}");
    let left = planned.len() - 8;
    assert_eq!(status.code(), Some(130), "{stdout}\n{stderr}");
    assert!(
        stderr.contains(&format!("interrupted: {left} steps not run")),
        "{stderr}"
    );
    assert!(
        stdout.contains(&format!("{left} not run. Record: {record_arg}")),
        "{stdout}"
    );
    assert_eq!(written[0]["event"], "started");
    assert_eq!(written[0]["person"]["email"], PERSON);
    assert_eq!(written[0]["by"]["email"], OWNER);
    assert_eq!(
        steps(&written).len(),
        9,
        "the five before Ctrl-C and the four under way"
    );
    assert!(steps(&written).iter().all(|step| step["status"] == "done"));
    let closed = written.last().unwrap();
    assert_eq!(
        (closed["event"].as_str(), closed["outcome"].as_str()),
        (Some("closed"), Some("interrupted"))
    );
    assert_eq!(closed["summary"]["planned"], left);
    // The record and the server agree: what it says was done, and no more.
    let done = each_once(&done_edits(&written));
    assert_eq!(done.len(), 8);
    assert_eq!(changed(&before, &snapshot(&server, &key).await), done);
    assert!(!in_a_role(&server, &key).await);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&record).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    // The next run (on the same host: the proxy, no longer holding)
    // finishes, in the same record.
    let again = offboard(
        &proxy.base,
        &key,
        &dir.path().join("state"),
        &["--record", record_arg],
    )
    .await;
    assert_eq!(again.code, 0, "{}\n{}", again.stdout, again.stderr);
    assert!(
        again.stdout.contains("Going on in the unfinished record"),
        "{}",
        again.stdout
    );
    assert!(
        again
            .stdout
            .contains(&format!("{left} done, 0 already so, 0 failed")),
        "{}",
        again.stdout
    );
    let written = lines(&record);
    assert_eq!(
        events(&written)
            .iter()
            .filter(|event| *event != "step")
            .collect::<Vec<_>>(),
        ["started", "closed", "resumed", "closed"]
    );
    assert_eq!(written.last().unwrap()["outcome"], "completed");
    assert_eq!(each_once(&done_edits(&written)), planned);
    assert_eq!(changed(&before, &snapshot(&server, &key).await), planned);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_leaves_every_finished_step_and_the_next_run_goes_on_in_the_same_record() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    mail_them(&server, &key).await;
    let before = snapshot(&server, &key).await;
    let proxy = FaultProxy::start(&server.base).await;
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    proxy.hold("PATCH", 4);
    let running = Running::start(
        &proxy.base,
        &key,
        &["people", "offboard", PERSON, "--yes"],
        &state,
    );
    proxy.until_held(4).await;
    let find = || {
        std::fs::read_dir(state.join("offboarding"))
            .ok()?
            .next()?
            .ok()
            .map(|entry| entry.path())
    };
    until_steps(find, 5).await;
    running.signal(libc::SIGKILL);
    let (status, _, _) = running.end().await;
    assert_eq!(status.code(), None, "killed");
    // What was under way never reaches the server.
    proxy.drop_held();
    let record = the_record(&state);
    assert!(record.to_str().unwrap().ends_with(".jsonl"));
    let written = lines(&record);
    let planned = planned_edits(&written[0]);
    assert_eq!(events(&written)[0], "started");
    assert_eq!(steps(&written).len(), 5, "every step that ended, no more");
    assert!(events(&written).iter().all(|event| event != "closed"));
    let done = each_once(&done_edits(&written));
    assert_eq!(done.len(), 4);
    assert_eq!(changed(&before, &snapshot(&server, &key).await), done);
    assert!(!in_a_role(&server, &key).await);

    let again = offboard(&proxy.base, &key, &state, &[]).await;
    assert_eq!(again.code, 0, "{}\n{}", again.stdout, again.stderr);
    assert!(
        again
            .stdout
            .contains(&format!("Going on in the unfinished record {}", record.display())),
        "{}",
        again.stdout
    );
    assert_eq!(the_record(&state), record, "one record, gone on in");
    let written = lines(&record);
    assert_eq!(
        events(&written)
            .iter()
            .filter(|event| *event != "step")
            .collect::<Vec<_>>(),
        ["started", "resumed", "closed"]
    );
    let resumed = written.iter().find(|line| line["event"] == "resumed").unwrap();
    assert_eq!(
        planned_edits(resumed),
        planned.difference(&done).copied().collect(),
        "the next run plans only what is left"
    );
    assert_eq!(each_once(&done_edits(&written)), planned);
    assert_eq!(changed(&before, &snapshot(&server, &key).await), planned);
}

/// Two runs of the same offboarding at once: the second finds the first's
/// record held and refuses before any step.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_run_of_the_same_offboarding_at_once_is_refused() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    mail_them(&server, &key).await;
    let proxy = FaultProxy::start(&server.base).await;
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    proxy.hold("PATCH", 0);
    let first = Running::start(
        &proxy.base,
        &key,
        &["people", "offboard", PERSON, "--yes"],
        &state,
    );
    proxy.until_held(4).await;
    let before = snapshot(&server, &key).await;
    let second = offboard(&proxy.base, &key, &state, &[]).await;
    assert_eq!(second.code, 1, "{}\n{}", second.stdout, second.stderr);
    assert!(
        second
            .stderr
            .contains("another offboarding of the same person is running"),
        "{}",
        second.stderr
    );
    assert_eq!(
        snapshot(&server, &key).await,
        before,
        "the second run changed something"
    );
    proxy.release();
    let (status, stdout, stderr) = first.end().await;
    assert_eq!(status.code(), Some(0), "{stdout}\n{stderr}");
    let written = lines(&the_record(&state));
    assert_eq!(
        events(&written)
            .iter()
            .filter(|event| *event == "started")
            .count(),
        1
    );
    assert_eq!(written.last().unwrap()["outcome"], "completed");
}
