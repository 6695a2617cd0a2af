//! Offboarding's files: a record that cannot be written (before the first
//! step, and when the disk fills mid-run), the state-path plants at
//! `--record` (a link to a victim, `/dev/zero`, a FIFO), an existing file
//! taken owner-only, and the state directory and log made owner-only.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::cli::Run;
use crate::offboarding::{
    PERSON, changed, events, in_a_role, lines, mail_them, offboard, planned_edits, snapshot, the_record,
};
use crate::support::TestServer;

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

/// `orgdeck roles list` with the platform's state directory under `home`
/// (no `ORGDECK_LOG`, no `ORGDECK_STATE_DIR`): the log goes there.
async fn with_platform_state(server: &TestServer, key: &str, home: &Path) -> Run {
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_orgdeck"))
        .args(["roles", "list"])
        .env("ORGDECK_HOST", &server.base)
        .env("ORGDECK_API_KEY", key)
        .env("ORGDECK_CONFIG", home.join("no-config.toml"))
        .env("HOME", home)
        .env("XDG_STATE_HOME", home.join("state"))
        .env_remove("ORGDECK_LOG")
        .env_remove("ORGDECK_STATE_DIR")
        .env_remove("ORGDECK_ORG")
        .env_remove("ORGDECK_PROJECT")
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_state_directory_and_its_log_are_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    let server = TestServer::demo().await;
    let key = server.key(&["organization:read"]);
    let home = tempfile::tempdir().unwrap();
    let state = home.path().join("state").join("orgdeck");

    // Made owner-only.
    with_platform_state(&server, &key, home.path()).await.ok();
    assert_eq!(mode(&state), 0o700);
    assert_eq!(mode(&state.join("orgdeck.log")), 0o600);

    // An older orgdeck's directory (0755) and log (0644) are made so too.
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(state.join("orgdeck.log"), std::fs::Permissions::from_mode(0o644)).unwrap();
    with_platform_state(&server, &key, home.path()).await.ok();
    assert_eq!(mode(&state), 0o700);
    assert_eq!(mode(&state.join("orgdeck.log")), 0o600);

    // A link planted at the log's path is refused, never followed.
    let victim = home.path().join("victim");
    std::fs::write(&victim, "keep me").unwrap();
    std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::remove_file(state.join("orgdeck.log")).unwrap();
    std::os::unix::fs::symlink(&victim, state.join("orgdeck.log")).unwrap();
    let refused = with_platform_state(&server, &key, home.path()).await.fails(1);
    assert!(refused.stderr.contains("symbolic link"), "{}", refused.stderr);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
    assert_eq!(mode(&victim), 0o644);
}
