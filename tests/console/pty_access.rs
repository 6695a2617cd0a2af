//! A change that takes access away asks a second time on a real terminal
//! (issue 32, req 2 and 7): `orgdeck members remove` taking Tomás out of
//! On-call cuts him off Hedgebox Mobile, so after the preview the command
//! asks "1 person loses access. Go on?"; Enter there means no, and nothing
//! is sent.

use std::time::{Duration, Instant};

use crate::pty::Demo;

#[test]
fn enter_at_the_second_question_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("demo.sqlite");
    let log = dir.path().join("serve.log");
    let (mut server, ready) = crate::support::spawn_serve(
        &[
            "--listen",
            "127.0.0.1:0",
            "--seed",
            "demo",
            "--db",
            db.to_str().unwrap(),
        ],
        &log,
    );
    let base = ready["base_url"].as_str().unwrap().to_string();
    let key = ready["api_key"].as_str().unwrap().to_string();
    let config = dir.path().join("no-config.toml");
    let environment: [(&str, &std::ffi::OsStr); 3] = [
        ("ORGDECK_HOST", base.as_ref()),
        ("ORGDECK_API_KEY", key.as_ref()),
        ("ORGDECK_CONFIG", config.as_os_str()),
    ];
    let mut removing = Demo::spawn(
        &[
            "members",
            "remove",
            "--role",
            "On-call",
            "--email",
            "tomas.novak@hedgebox.dev",
        ],
        &environment,
    );
    removing.wait_for("1 person loses access. Go on? Type yes to go on, Enter means no:");
    assert!(
        removing
            .text()
            .contains("project member → none in Hedgebox Mobile (2)"),
        "{}",
        removing.text()
    );
    removing.type_keys("\r");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = removing.child_status() {
            break status;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "{}", removing.text());
        std::thread::sleep(Duration::from_millis(25));
    };
    assert!(!status.success());
    removing.wait_for("nothing was changed (only 'yes' goes on)");

    // Tomás is still in On-call, through the API.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let api = crate::support::client_for(&base, &key);
        let roles = api
            .all(&orgdeck::api::List::roles("@current"), &Default::default())
            .await
            .unwrap();
        let on_call = roles.iter().find(|role| role.name == "On-call").unwrap();
        let members = api
            .all(
                &orgdeck::api::List::memberships("@current", &on_call.id),
                &Default::default(),
            )
            .await
            .unwrap();
        assert!(
            members.iter().any(|membership| {
                membership
                    .user
                    .as_ref()
                    .or(membership.organization_member.as_ref().map(|member| &member.user))
                    .is_some_and(|user| user.email == "tomas.novak@hedgebox.dev")
            }),
            "Tomás left On-call though Enter meant no"
        );
    });
    server.kill().unwrap();
    server.wait().unwrap();
}
