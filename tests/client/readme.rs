//! The README's examples work on the demo data as written.

use crate::profiles::with_config_and_input;
use crate::support::TestServer;

/// The quoted argument of `flag` on the README's line that starts with `command`.
fn quoted(readme: &str, command: &str, flag: &str) -> String {
    let line = readme
        .lines()
        .find(|line| line.trim_start().starts_with(command))
        .unwrap_or_else(|| panic!("the README has no `{command}`"));
    let rest = line.split(&format!("{flag} \"")).nth(1).unwrap();
    rest.split('"').next().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readmes_role_example_creates_a_role_on_the_demo_data() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let name = quoted(&readme, "orgdeck roles create", "--name");
    // `orgdeck demo` serves today's PostHog.
    let server = TestServer::demo_with(|options| options.flavor = orgdeck::server::Flavor::Current).await;
    let dir = tempfile::tempdir().unwrap();
    let key = server.key(&["*"]);
    let (run, _) = with_config_and_input(
        &dir.path().join("none.toml"),
        &["roles", "create", "--name", &name],
        &[("ORGDECK_HOST", &server.base), ("ORGDECK_API_KEY", &key)],
        "",
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
}
