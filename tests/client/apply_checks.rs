//! `apply` checks the key before its first step, as offboarding does: a
//! key that cannot make every step of the plan (a plain member's, one
//! without a scope) is refused whole, before it is asked and before any
//! write, naming what is missing and the steps it stops; a saved plan too.

use crate::apply::Workspace;
use crate::cli::orgdeck_at;
use crate::support::proxy::FaultProxy;
use crate::support::{ADMIN, DEMO_INSIGHT, MEMBER, TestServer};

fn wanted(exported: &str) -> String {
    format!(
        "{exported}\n[[roles]]\nname = \"Night shift\"\nmembers = [\n  \"{MEMBER}\",\n]\n\n[[subscriptions]]\ntitle = \"Checked first\"\ninsight = {DEMO_INSIGHT}\ntarget_type = \"email\"\ntarget_value = \"{ADMIN}\"\nfrequency = \"weekly\"\nbyweekday = [\"monday\"]\nstart_date = \"2026-12-07T09:00:00Z\"\n"
    )
}

fn writes(proxy: &FaultProxy) -> Vec<String> {
    proxy
        .requests()
        .into_iter()
        .filter(|line| !line.starts_with("GET "))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_that_cannot_make_every_step_is_refused_before_any() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    let proxy = FaultProxy::start(&server.base).await;
    let file = Workspace::new("org.toml");
    orgdeck_at(&server.base, &owner, &["export", file.arg()], None, &[])
        .await
        .ok();
    file.write(&wanted(&file.read()));

    // A plain member's key: every scope, not the level roles need.
    let member = server.key_for(MEMBER, &["*"]);
    let run = orgdeck_at(&proxy.base, &member, &["apply", "--yes", file.arg()], None, &[]).await;
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    for expected in [
        "not applied: nothing was changed, because this key cannot make every step",
        "is a member, and only an admin may change roles (step 1)",
    ] {
        assert!(
            run.stderr.contains(expected),
            "{expected} missing: {}",
            run.stderr
        );
    }
    assert!(writes(&proxy).is_empty(), "{:?}", writes(&proxy));

    // The owner's key without subscription:write: the subscription's step
    // named, the roles' steps not.
    let narrow = server.key(&[
        "organization:write",
        "organization:read",
        "organization_member:read",
        "project:read",
        "subscription:read",
        "insight:read",
        "dashboard:read",
        "user:read",
    ]);
    let run = orgdeck_at(&proxy.base, &narrow, &["apply", "--yes", file.arg()], None, &[]).await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("the key lacks the 'subscription:write' scope (step 3)"),
        "{}",
        run.stderr
    );
    assert!(writes(&proxy).is_empty(), "{:?}", writes(&proxy));

    // A saved plan is checked the same way before its first step.
    let plan = file.beside("reviewed.plan");
    orgdeck_at(
        &proxy.base,
        &owner,
        &["plan", file.arg(), "--save", &plan],
        None,
        &[],
    )
    .await;
    let run = orgdeck_at(&proxy.base, &member, &["apply", &plan], None, &[]).await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("cannot make every step"), "{}", run.stderr);
    assert!(writes(&proxy).is_empty(), "{:?}", writes(&proxy));

    // The owner's whole key makes them all.
    let run = orgdeck_at(&server.base, &owner, &["apply", "--yes", file.arg()], None, &[]).await;
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
}
