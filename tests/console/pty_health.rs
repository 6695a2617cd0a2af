//! Health in a pseudo-terminal, as on-call meets it: the server restarted
//! under the console (the look that failed starts again by itself once it
//! answers, never a ✓ meanwhile), and `subs health` printing what it finds
//! as it finds it, then the sorted table.

use crate::pty::Demo;
use crate::support::{KillOnDrop, spawn_serve};

/// A port free now, to start a server on again and again.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn a_server_restarted_under_health_is_looked_at_again_by_itself() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("demo.sqlite");
    let log = dir.path().join("serve.log");
    let listen = format!("127.0.0.1:{}", free_port());
    let db_arg = db.to_str().unwrap();
    let serve = || spawn_serve(&["--listen", &listen, "--seed", "demo", "--db", db_arg], &log);
    let (server, ready) = serve();
    let mut server = KillOnDrop(server);
    let key = ready["api_key"].as_str().unwrap().to_string();
    let host = format!("http://{listen}");
    let mut console = Demo::spawn(
        &["--host", &host],
        &[("ORGDECK_API_KEY", std::ffi::OsStr::new(&key))],
    );
    console.wait_for("1 Roles (8)");

    // The server goes away, then Health is asked for.
    server.0.kill().unwrap();
    server.0.wait().unwrap();
    console.type_keys("H");
    console.wait_for("cannot reach");
    console.wait_for("the look failed");
    let screen = console.text();
    assert!(!screen.contains('✓'), "{screen}");
    assert!(screen.contains("look failed"), "{screen}");

    // It comes back on the same address: the console finds it, and looks.
    let (restarted, _) = serve();
    let _restarted = KillOnDrop(restarted);
    console.wait_for("reconnected");
    console.wait_for("looked at all 95");
    let screen = console.text();
    assert!(screen.contains("H Health 4 failing"), "{screen}");
    assert!(screen.contains("looked at all 95"), "{screen}");
    console.type_keys("q");
    assert!(console.assert_ends_restored().success());
}

#[test]
fn subs_health_on_a_terminal_prints_each_finding_then_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let (server, ready) =
        crate::support::spawn_demo_serve(&dir.path().join("demo.sqlite"), &dir.path().join("log"));
    let _server = KillOnDrop(server);
    let key = ready["api_key"].as_str().unwrap().to_string();
    let host = ready["base_url"].as_str().unwrap().to_string();
    let mut run = Demo::spawn(
        &[
            "subs",
            "health",
            "--budget",
            "off",
            "--state",
            "failing,partial",
            "--host",
            &host,
        ],
        &[("ORGDECK_API_KEY", std::ffi::OsStr::new(&key))],
    );
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = run.child_status() {
            break status;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "{}",
            run.text()
        );
        std::thread::sleep(std::time::Duration::from_millis(25));
    };
    let screen = run.text();
    assert!(status.success(), "{screen}");
    let lines: Vec<&str> = screen.lines().collect();
    let found = lines
        .iter()
        .position(|line| line.starts_with("failing") && line.contains("#35 Support load check"))
        .unwrap_or_else(|| panic!("no line as it was found:\n{screen}"));
    let table = lines
        .iter()
        .position(|line| line.starts_with("HEALTH"))
        .unwrap_or_else(|| panic!("no table:\n{screen}"));
    assert!(found < table, "found first, the table after:\n{screen}");
    assert!(
        lines[found].contains("→ address does not exist"),
        "with what fixes it:\n{screen}"
    );
    assert!(screen.contains("looked at all 95"), "{screen}");
}
