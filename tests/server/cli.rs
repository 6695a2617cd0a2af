//! The binary's server commands as a user runs them: `serve` and its ready
//! line and signals, `keys create`, and the determinism of the demo data.

use std::process::{Child, Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

fn orgdeck(args: &[&str], log: &std::path::Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_orgdeck"))
        .args(args)
        .env("ORGDECK_LOG", log)
        .output()
        .unwrap()
}

fn stop(mut child: Child) -> std::process::ExitStatus {
    let pid = child.id().to_string();
    Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "serve did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn serve_prints_one_ready_line_and_stops_cleanly_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bare.sqlite");
    let log = dir.path().join("log");
    let (child, ready) =
        crate::support::spawn_serve(&["--listen", "127.0.0.1:0", "--db", db.to_str().unwrap()], &log);
    let object = ready.as_object().unwrap();
    let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["api_key", "base_url", "organization_id", "project_id"]);
    assert!(
        ready["base_url"]
            .as_str()
            .unwrap()
            .starts_with("http://127.0.0.1:")
    );
    assert_ne!(ready["base_url"], "http://127.0.0.1:0");
    uuid::Uuid::parse_str(ready["organization_id"].as_str().unwrap()).unwrap();
    assert!(ready["project_id"].is_i64());
    assert_eq!(ready["api_key"], Value::Null, "--seed none mints no key");
    assert!(stop(child).success());
    assert!(
        std::fs::read_to_string(&log)
            .unwrap()
            .contains("reference server listening")
    );
}

#[test]
fn keys_create_prints_the_key_alone_and_it_works() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("keys.sqlite");
    let db_arg = db.to_str().unwrap();
    let log = dir.path().join("log");
    // A path that names no database is a typo until said otherwise.
    let typo = orgdeck(
        &["keys", "create", "--db", db_arg, "--scopes", "organization:read"],
        &log,
    );
    assert_eq!(typo.status.code(), Some(1));
    assert!(typo.stdout.is_empty(), "no key for a database nobody serves");
    let said = String::from_utf8_lossy(&typo.stderr);
    assert!(said.contains(db_arg) && said.contains("--create"), "{said}");
    assert!(!db.exists(), "nothing was created");
    // With --create, the key belongs to the owner `keys create` sets up,
    // in a file its owner alone can read.
    let owner = orgdeck(
        &[
            "keys",
            "create",
            "--db",
            db_arg,
            "--scopes",
            "organization:read",
            "--create",
        ],
        &log,
    );
    assert!(
        owner.status.success(),
        "{}",
        String::from_utf8_lossy(&owner.stderr)
    );
    let owner_key = String::from_utf8(owner.stdout).unwrap();
    assert!(owner_key.starts_with("phx_") && owner_key.ends_with('\n') && owner_key.lines().count() == 1);
    assert_private(&db);

    let (child, ready) = crate::support::spawn_serve(&["--listen", "127.0.0.1:0", "--db", db_arg], &log);
    let base = ready["base_url"].as_str().unwrap();
    let status_of = |key: &str, path: &str| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            reqwest::Client::new()
                .get(format!("{base}{path}"))
                .bearer_auth(key.trim())
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        })
    };
    assert_eq!(status_of(&owner_key, "/api/organizations/@current/roles/"), 200);
    assert_eq!(
        status_of(&owner_key, "/api/projects/@current/subscriptions/"),
        403
    );
    let current = status_of(&owner_key, "/api/personal_api_keys/@current/");
    assert_eq!(current, 200);
    assert!(stop(child).success());

    let bad_scope = orgdeck(
        &["keys", "create", "--db", db_arg, "--scopes", "roles:delete"],
        &log,
    );
    assert!(!bad_scope.status.success());
    assert!(String::from_utf8_lossy(&bad_scope.stderr).contains("\"roles:delete\" is not a scope"));
    assert!(bad_scope.stdout.is_empty());
    let nobody = orgdeck(
        &[
            "keys",
            "create",
            "--db",
            db_arg,
            "--scopes",
            "*",
            "--email",
            "nobody@x.io",
        ],
        &log,
    );
    assert!(!nobody.status.success());
    assert!(String::from_utf8_lossy(&nobody.stderr).contains("no user with the e-mail address nobody@x.io"));
    let usage = orgdeck(&["keys", "create", "--db", db_arg], &log);
    assert_eq!(usage.status.code(), Some(2), "a usage error exits 2");
}

/// The database and its WAL and SHM files are readable by their owner alone.
#[track_caller]
fn assert_private(db: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    let mut seen = 0;
    for suffix in ["", "-wal", "-shm"] {
        let path = std::path::PathBuf::from(format!("{}{suffix}", db.display()));
        if let Ok(metadata) = std::fs::metadata(&path) {
            seen += 1;
            assert_eq!(metadata.permissions().mode() & 0o777, 0o600, "{}", path.display());
        }
    }
    assert!(seen >= 1, "no database at {}", db.display());
}

/// Scoped keys minted by the binary and used by the binary: a key scoped to
/// a project lists its subscriptions and is refused on roles; one scoped to
/// an organization that is not there, or to an unknown project, is not minted.
#[test]
fn keys_create_mints_scoped_keys() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("demo.sqlite");
    let log = dir.path().join("log");
    let (child, ready) = crate::support::spawn_demo_serve(&db, &log);
    assert_private(&db);
    let base = ready["base_url"].as_str().unwrap().to_string();
    let project = ready["project_id"].as_i64().unwrap().to_string();
    let organization = ready["organization_id"].as_str().unwrap().to_string();
    let db_arg = db.to_str().unwrap();
    let mint = |extra: &[&str]| {
        let mut args = vec!["keys", "create", "--db", db_arg, "--scopes", "*"];
        args.extend_from_slice(extra);
        orgdeck(&args, &log)
    };
    let cli = |key: &str, args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_orgdeck"))
            .args(["--host", &base, "--project", &project, "--org", &organization])
            .args(args)
            .env("ORGDECK_API_KEY", key)
            .env("ORGDECK_LOG", &log)
            .env("ORGDECK_CONFIG", dir.path().join("none.toml"))
            .output()
            .unwrap()
    };

    let scoped = mint(&["--scoped-project", &project]);
    assert!(
        scoped.status.success(),
        "{}",
        String::from_utf8_lossy(&scoped.stderr)
    );
    let key = String::from_utf8(scoped.stdout).unwrap().trim().to_string();
    let listed = cli(&key, &["subs", "list", "-o", "json"]);
    assert!(
        listed.status.success(),
        "{}",
        String::from_utf8_lossy(&listed.stderr)
    );
    let roles = cli(&key, &["roles", "list"]);
    assert!(!roles.status.success());
    let said = String::from_utf8_lossy(&roles.stderr);
    assert!(
        said.contains("403")
            && said.contains("API keys with scoped projects are only supported on project-based endpoints."),
        "{said}"
    );

    let elsewhere = uuid::Uuid::new_v4().to_string();
    let unknown = mint(&["--scoped-organization", &elsewhere, "--scoped-project", "424242"]);
    assert_eq!(unknown.status.code(), Some(1));
    let said = String::from_utf8_lossy(&unknown.stderr);
    assert!(
        said.contains(&elsewhere) && said.contains("project 424242"),
        "{said}"
    );
    assert!(unknown.stdout.is_empty());
    let not_a_uuid = mint(&["--scoped-organization", "hedgebox"]);
    assert_eq!(not_a_uuid.status.code(), Some(2));

    let mine = mint(&["--scoped-organization", &organization]);
    let key = String::from_utf8(mine.stdout).unwrap().trim().to_string();
    assert!(cli(&key, &["roles", "list"]).status.success());
    assert!(stop(child).success());
}

#[test]
fn the_demo_data_is_the_same_every_time() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let mut snapshots = Vec::new();
    for name in ["one.sqlite", "two.sqlite"] {
        let db = dir.path().join(name);
        let (child, _) = crate::support::spawn_demo_serve(&db, &log);
        assert!(stop(child).success());
        let connection = rusqlite::Connection::open(&db).unwrap();
        let mut rows = Vec::new();
        for sql in [
            "SELECT id || name FROM organizations",
            "SELECT uuid || email || distinct_id FROM users ORDER BY id",
            "SELECT id || name || feature_flags_access_level FROM roles ORDER BY id",
            "SELECT id || role_id || user_id FROM role_memberships ORDER BY id",
            "SELECT id || target_type || target_value || frequency || ifnull(title, '-') || deleted || summary FROM subscriptions ORDER BY id",
        ] {
            let mut statement = connection.prepare(sql).unwrap();
            let values: Vec<String> = statement
                .query_map([], |r| r.get(0))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            rows.push(values);
        }
        snapshots.push(rows);
    }
    assert_eq!(snapshots[0], snapshots[1]);
    assert!(snapshots[0][4].len() > 100);
}
