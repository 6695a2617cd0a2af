//! Offboarding interrupted, refused and kept honest, run as the real binary
//! against the reference server: the journal after SIGINT and after kill
//! -9 (a proxy holds the server's answers so that the run is stopped
//! between two known steps), the next run going on in the same record, a
//! record that cannot be written (before the first step, and when the disk
//! fills mid-run), the state-path plants at `--record`, a key that cannot
//! do every step refused before any, and owners kept.

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
use crate::support::{ADMIN, LEAVER, MEMBER, OWNER, TestServer};

/// The person offboarded: in the role Data, and (once [`mail_them`] ran)
/// the recipient of `MAILED` subscriptions more, beside one other person.
const PERSON: &str = "sven.aalto@hedgebox.dev";
const MAILED: usize = 12;

/// Makes `MAILED` subscriptions that mail [`PERSON`] and one other.
async fn mail_them(server: &TestServer, key: &str) {
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
async fn snapshot(server: &TestServer, key: &str) -> BTreeMap<i64, Value> {
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
fn changed(before: &BTreeMap<i64, Value>, after: &BTreeMap<i64, Value>) -> BTreeSet<i64> {
    before
        .iter()
        .filter(|(id, was)| after.get(id) != Some(was))
        .map(|(id, _)| *id)
        .collect()
}

/// The subscriptions a run's plan edits (its opening line's).
fn planned_edits(opening: &Value) -> BTreeSet<i64> {
    opening["plan"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|step| step["action"] == "edit_subscription")
        .map(|step| step["subscription"].as_i64().unwrap())
        .collect()
}

/// The subscriptions of the record's steps done, in order, repeats kept.
fn done_edits(lines: &[Value]) -> Vec<i64> {
    steps(lines)
        .iter()
        .filter(|step| step["status"] == "done")
        .filter_map(|step| step["subscription"].as_i64())
        .collect()
}

/// Each once: the set, after checking that nothing repeats.
#[track_caller]
fn each_once(ids: &[i64]) -> BTreeSet<i64> {
    let set: BTreeSet<i64> = ids.iter().copied().collect();
    assert_eq!(set.len(), ids.len(), "a subscription edited twice: {ids:?}");
    set
}

/// Whether [`PERSON`] is still in a role.
async fn in_a_role(server: &TestServer, key: &str) -> bool {
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
fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

fn events(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .map(|line| line["event"].as_str().unwrap().to_string())
        .collect()
}

fn steps(lines: &[Value]) -> Vec<&Value> {
    lines.iter().filter(|line| line["event"] == "step").collect()
}

/// The only record in a state directory.
fn the_record(state: &Path) -> PathBuf {
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
async fn offboard(base: &str, key: &str, state: &Path, more: &[&str]) -> Run {
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

/// Runs `people offboard PERSON --yes ARGS` with the file size limited to
/// `limit` bytes (a full disk, as far as the record is concerned).
async fn offboard_with_file_limit(base: &str, key: &str, state: &Path, limit: u64, more: &[&str]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_orgdeck"));
    command
        .args(["people", "offboard", PERSON, "--yes"])
        .args(more)
        .env("ORGDECK_HOST", base)
        .env("ORGDECK_API_KEY", key)
        .env("ORGDECK_LOG", "/dev/null")
        .env("ORGDECK_CONFIG", dir.path().join("no-config.toml"))
        .env("ORGDECK_STATE_DIR", state)
        .env_remove("ORGDECK_ORG")
        .env_remove("ORGDECK_PROJECT")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: runs in the child before exec, and calls only setrlimit(2)
    // and signal(2), both async-signal-safe. An ignored SIGXFSZ stays
    // ignored across exec, so a write past the limit fails with EFBIG.
    unsafe {
        command.pre_exec(move || {
            let bound = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &bound) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
    let output = command.output().await.unwrap();
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_that_cannot_be_written_stops_the_run_before_any_step() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    mail_them(&server, &key).await;
    let before = snapshot(&server, &key).await;
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let unchanged = |run: &Run| {
        assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
        assert!(
            run.stderr
                .contains("nothing was changed: the record cannot be written"),
            "{}",
            run.stderr
        );
        assert!(!run.stdout.contains("Record:"), "{}", run.stdout);
    };

    // Its directory cannot be made: a file stands where it would be.
    let blocker = dir.path().join("a-file");
    std::fs::write(&blocker, "here").unwrap();
    let inside = blocker.join("sven.jsonl");
    let run = offboard(
        &server.base,
        &key,
        &state,
        &["--record", inside.to_str().unwrap()],
    )
    .await;
    unchanged(&run);

    // No room for even the opening line: no empty record is left behind.
    let run = offboard_with_file_limit(&server.base, &key, &state, 64, &[]).await;
    unchanged(&run);
    assert!(run.stderr.contains("File too large"), "{}", run.stderr);
    let left: Vec<_> = std::fs::read_dir(state.join("offboarding"))
        .map(|entries| entries.collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");

    // The state-path plants: a link to a victim, a device, a FIFO.
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "keep me").unwrap();
    let link = dir.path().join("link.jsonl");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let run = offboard(&server.base, &key, &state, &["--record", link.to_str().unwrap()]).await;
    unchanged(&run);
    assert!(run.stderr.contains("symbolic link"), "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
    let run = offboard(&server.base, &key, &state, &["--record", "/dev/zero"]).await;
    unchanged(&run);
    assert!(run.stderr.contains("not a regular file"), "{}", run.stderr);
    let fifo = dir.path().join("fifo.jsonl");
    let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo(3) with a NUL-terminated path we own.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o644) }, 0);
    let started = Instant::now();
    let run = offboard(&server.base, &key, &state, &["--record", fifo.to_str().unwrap()]).await;
    unchanged(&run);
    assert!(run.stderr.contains("not a regular file"), "{}", run.stderr);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "a FIFO is never waited on"
    );

    assert_eq!(snapshot(&server, &key).await, before, "a step ran");
    assert!(in_a_role(&server, &key).await, "a step ran");

    // A file that was there, open to others, is taken owner-only and emptied.
    let mine = dir.path().join("mine.jsonl");
    std::fs::write(&mine, "an older file\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&mine, std::fs::Permissions::from_mode(0o644)).unwrap();
    let run = offboard(&server.base, &key, &state, &["--record", mine.to_str().unwrap()]).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        std::fs::metadata(&mine).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let written = lines(&mine);
    assert_eq!(events(&written).first().map(String::as_str), Some("started"));
    assert_eq!(events(&written).last().map(String::as_str), Some("closed"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_mid_run_stops_the_run_and_says_so() {
    // Two servers alike: a run on the first measures the record's opening
    // line; on the second, the disk has room for that line and no step.
    let (measured, full) = (TestServer::demo().await, TestServer::demo().await);
    let (first_key, key) = (measured.key(&["*"]), full.key(&["*"]));
    mail_them(&measured, &first_key).await;
    mail_them(&full, &key).await;
    let before = snapshot(&full, &key).await;
    let dir = tempfile::tempdir().unwrap();
    let sample = dir.path().join("sample.jsonl");
    offboard(
        &measured.base,
        &first_key,
        &dir.path().join("s1"),
        &["--record", sample.to_str().unwrap()],
    )
    .await
    .ok();
    let opening = std::fs::read_to_string(&sample)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .len() as u64
        + 1;

    let state = dir.path().join("state");
    let run = offboard_with_file_limit(&full.base, &key, &state, opening + 40, &[]).await;
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("could not be written") && run.stderr.contains("the run stopped"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("File too large"), "{}", run.stderr);
    assert!(!run.stdout.contains("Record:"), "{}", run.stdout);
    let record = the_record(&state);
    assert!(std::fs::metadata(&record).unwrap().len() <= opening + 40);
    assert_eq!(events(&lines(&record)), ["started"]);
    // No step started after the record failed: those under way at most.
    let planned = planned_edits(&lines(&record)[0]);
    let edited = changed(&before, &snapshot(&full, &key).await);
    assert!(edited.len() <= 4, "{edited:?}");

    // Room again: the next run goes on in the same record and finishes.
    let again = offboard(&full.base, &key, &state, &[]).await;
    assert_eq!(again.code, 0, "{}\n{}", again.stdout, again.stderr);
    assert!(again.stdout.contains("Going on in the unfinished record"));
    assert_eq!(the_record(&state), record);
    let written = lines(&record);
    assert_eq!(events(&written).last().map(String::as_str), Some("closed"));
    assert_eq!(written.last().unwrap()["outcome"], "completed");
    assert_eq!(changed(&before, &snapshot(&full, &key).await), planned);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_that_cannot_do_every_step_is_refused_before_any() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    let proxy = FaultProxy::start(&server.base).await;
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let before = still_mailing_leaver(&server, &owner).await;
    // A plain member's key: every scope, not the level.
    let member = server.key_for(MEMBER, &["*"]);
    let run = orgdeck_at(
        &proxy.base,
        &member,
        &[
            "people",
            "offboard",
            LEAVER,
            "--yes",
            "--remove-from-organization",
        ],
        None,
        &[("ORGDECK_STATE_DIR", state.as_os_str())],
    )
    .await;
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    for expected in [
        "this key cannot do every step of the plan, so nothing was changed",
        "elif.demir@hedgebox.dev (the key's user) is a member, and only an admin may change who is in a role (step 1)",
        "only an admin may remove a member (step 7)",
    ] {
        assert!(
            run.stderr.contains(expected),
            "{expected} missing: {}",
            run.stderr
        );
    }
    let writes: Vec<String> = proxy
        .requests()
        .into_iter()
        .filter(|line| !line.starts_with("GET "))
        .collect();
    assert!(writes.is_empty(), "{writes:?}");
    assert_eq!(still_mailing_leaver(&server, &owner).await, before);
    assert!(!state.join("offboarding").exists(), "no record for a run refused");

    // The dry run says so too, and changes nothing.
    let dry = orgdeck_at(
        &server.base,
        &member,
        &["people", "offboard", LEAVER, "--dry-run"],
        None,
        &[],
    )
    .await;
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert!(
        dry.stdout.contains("This key cannot do every step:") && dry.stdout.contains("(step 1)"),
        "{}",
        dry.stdout
    );

    // The owner's key without the scope roles need.
    let narrow = server.key(&[
        "subscription:write",
        "organization:read",
        "organization_member:read",
        "project:read",
    ]);
    let run = orgdeck_at(
        &server.base,
        &narrow,
        &["people", "offboard", LEAVER, "--yes"],
        None,
        &[],
    )
    .await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("the key lacks the 'organization:write' scope (step 1)"),
        "{}",
        run.stderr
    );
    assert_eq!(still_mailing_leaver(&server, &owner).await, before);
}

async fn level_of_bruno(server: &TestServer, key: &str) -> Option<i64> {
    let members = format!(
        "/api/organizations/{}/members/?email={ADMIN}",
        server.organization
    );
    server.get(key, &members).await.expect(StatusCode::OK)["results"][0]["level"].as_i64()
}

async fn still_mailing_leaver(server: &TestServer, key: &str) -> usize {
    server
        .all(key, &server.subscriptions_path())
        .await
        .iter()
        .filter(|row| row["target_value"].as_str().is_some_and(|to| to.contains(LEAVER)))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_is_made_admin_by_another_owner_before_leaving() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    let members = format!("/api/organizations/{}/members/", server.organization);
    let bruno = server
        .get(&owner, &format!("{members}?email={ADMIN}"))
        .await
        .expect(StatusCode::OK)["results"][0]["user"]["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    server
        .patch(&owner, &format!("{members}{bruno}/"), json!({"level": 15}))
        .await
        .expect(StatusCode::OK);
    let removing = ["people", "offboard", ADMIN, "--remove-from-organization"];

    let plan = orgdeck_at(
        &server.base,
        &owner,
        &[&removing[..], &["--dry-run", "-o", "json"]].concat(),
        None,
        &[],
    )
    .await
    .ok()
    .json();
    let actions: Vec<&str> = plan["plan"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| step["action"].as_str().unwrap())
        .collect();
    assert_eq!(&actions[actions.len() - 2..], ["make_admin", "remove_member"]);
    assert_eq!(plan["missing"], json!([]));

    // An admin's key cannot change an owner: said, nothing done.
    let admin = server.key_for("chiara.rossi@hedgebox.dev", &["*"]);
    let refused = orgdeck_at(
        &server.base,
        &admin,
        &[&removing[..], &["--yes"]].concat(),
        None,
        &[],
    )
    .await;
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .contains("is an admin, and only an owner may change an owner's level"),
        "{}",
        refused.stderr
    );
    assert_eq!(level_of_bruno(&server, &owner).await, Some(15));

    // The owner themselves cannot: nobody changes their own level.
    let theirs = server.key_for(ADMIN, &["*"]);
    let refused = orgdeck_at(
        &server.base,
        &theirs,
        &[&removing[..], &["--yes"]].concat(),
        None,
        &[],
    )
    .await;
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("cannot change their own level"),
        "{}",
        refused.stderr
    );

    // Another owner's key: made admin, then removed; the record says both.
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("bruno.jsonl");
    let run = orgdeck_at(
        &server.base,
        &owner,
        &[&removing[..], &["--yes", "--record", record.to_str().unwrap()]].concat(),
        None,
        &[],
    )
    .await;
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(level_of_bruno(&server, &owner).await, None, "no longer a member");
    let written = lines(&record);
    let done: Vec<&str> = steps(&written)
        .iter()
        .filter(|step| step["status"] == "done")
        .map(|step| step["action"].as_str().unwrap())
        .collect();
    assert!(done.ends_with(&["make_admin", "remove_member"]), "{done:?}");
}
