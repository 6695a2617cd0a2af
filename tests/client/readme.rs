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

/// The commands of the README's CLI section, continuation lines joined.
fn cli_examples(readme: &str) -> Vec<String> {
    let section = readme
        .split("## The scriptable CLI")
        .nth(1)
        .and_then(|rest| rest.split("```sh").nth(1))
        .and_then(|rest| rest.split("```").next())
        .expect("the README's CLI section has a sh block");
    let mut commands = Vec::new();
    let mut current = String::new();
    for line in section.lines() {
        match line.trim_end().strip_suffix('\\') {
            Some(start) => {
                current.push_str(start);
                current.push(' ');
            }
            None => {
                current.push_str(line);
                if current.trim_start().starts_with("orgdeck ") {
                    commands.push(std::mem::take(&mut current));
                }
                current.clear();
            }
        }
    }
    commands
}

fn on_path(program: &str) -> bool {
    std::process::Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success())
}

/// Every command of the README's CLI section runs as printed, through a
/// shell and the real binary, against `orgdeck serve --seed demo` (today's
/// PostHog, as `orgdeck demo` serves), and succeeds.
#[test]
fn the_readmes_cli_examples_run_as_printed_on_the_demo() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let commands = cli_examples(&readme);
    assert!(commands.len() >= 15, "{commands:#?}");
    let dir = tempfile::tempdir().unwrap();
    let (server, ready) =
        crate::support::spawn_demo_serve(&dir.path().join("demo.sqlite"), &dir.path().join("log"));
    let _server = crate::support::KillOnDrop(server);
    let binary = std::path::Path::new(env!("CARGO_BIN_EXE_orgdeck"));
    let path = format!(
        "{}:{}",
        binary.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let has_jq = on_path("jq");
    for command in &commands {
        // Without jq the pipe's first half runs, and its JSON is checked
        // here the way the jq filter reads it.
        let (script, piped_to_jq) = match command.split_once(" | jq ") {
            Some((first, _)) if !has_jq => (first.to_string(), true),
            _ => (command.clone(), false),
        };
        let output = std::process::Command::new("bash")
            .args(["-o", "pipefail", "-c", &script])
            .env("PATH", &path)
            .env("ORGDECK_HOST", ready["base_url"].as_str().unwrap())
            .env("ORGDECK_API_KEY", ready["api_key"].as_str().unwrap())
            .env("ORGDECK_CONFIG", dir.path().join("none.toml"))
            .env("ORGDECK_LOG", dir.path().join("cli.log"))
            .env("ORGDECK_STATE_DIR", dir.path().join("state"))
            .env_remove("ORGDECK_PROFILE")
            .current_dir(dir.path())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "`{command}` failed: {}\n{stdout}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(!stdout.trim().is_empty(), "`{command}` printed nothing");
        if piped_to_jq {
            let rows: Vec<serde_json::Value> = serde_json::from_str(&stdout).unwrap();
            assert!(rows.iter().any(|row| row["next_delivery_date"].is_null()));
        }
    }
}

/// The README's blocks fenced as `language`.
fn fenced<'a>(readme: &'a str, language: &str) -> Vec<&'a str> {
    readme
        .split(&format!("```{language}\n"))
        .skip(1)
        .filter_map(|rest| rest.split("```").next())
        .collect()
}

/// Every example config file of the README is read as orgdeck reads one
/// (unknown settings refused), and everything in it the console takes
/// works: each profile's colour and zone, the keys, the theme's colours.
#[test]
fn every_example_config_in_the_readme_is_read_and_used_as_written() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let blocks = fenced(&readme, "toml");
    assert!(!blocks.is_empty(), "the README shows a config file");
    let dir = tempfile::tempdir().unwrap();
    for (at, block) in blocks.iter().enumerate() {
        let path = dir.path().join(format!("config-{at}.toml"));
        std::fs::write(&path, block).unwrap();
        let (file, _) = orgdeck::config::load_from(path)
            .unwrap_or_else(|error| panic!("the README's config #{at} is not read: {error:#}\n{block}"))
            .expect("the file is there");
        assert!(!file.profiles.is_empty(), "{block}");
        for (name, profile) in &file.profiles {
            let look = profile.look();
            if let Some(color) = &look.color {
                orgdeck::config::colour::profile_color(color)
                    .unwrap_or_else(|error| panic!("profile {name}: {error}"));
            }
            if let Some(zone) = &look.tz {
                zone.parse::<orgdeck::display::Zone>()
                    .unwrap_or_else(|error| panic!("profile {name}: tz {zone}: {error}"));
            }
        }
        orgdeck::console::look(file.clone())
            .unwrap_or_else(|error| panic!("the README's config #{at}: {error:#}"));
    }
}

/// Every colour name the README names is one a config file may use, and
/// the README names every one there is.
#[test]
fn every_colour_name_the_readme_names_is_a_colour() {
    use orgdeck::config::colour::{COLOUR_NAMES, parse_colour};
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let flat = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    let list = flat
        .split("one of the terminal's own names: ")
        .nth(1)
        .and_then(|rest| rest.split(" (in any case").next())
        .expect("the README lists the colour names");
    let named: Vec<&str> = list.split(", ").collect();
    assert_eq!(named.len(), COLOUR_NAMES.len(), "{named:?}");
    for name in &named {
        assert!(
            parse_colour(name).is_some(),
            "the README names {name}, which is not read"
        );
        assert!(COLOUR_NAMES.contains(name), "{name}");
    }
    // And the ones it writes elsewhere: the example's, and its words' forms.
    for written in [
        "darkred",
        "blue",
        "magenta",
        "#ff8800",
        "dark-red",
        "Dark Red",
        "grey",
        "bright_blue",
        "208",
    ] {
        assert!(parse_colour(written).is_some(), "{written}");
    }
    assert!(parse_colour("grassy").is_none());
    assert!(parse_colour("#ff880").is_none());
}

/// The README opens with what orgdeck does today, and its status says
/// nothing that is done is still to come.
#[test]
fn the_readmes_opening_and_status_say_what_orgdeck_does_today() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let opening = readme
        .split("# orgdeck\n")
        .nth(1)
        .and_then(|rest| rest.trim_start().split("\n\n").next())
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    // What is done, in the words a reader looks for.
    let done = [
        "people",
        "health",
        "offboard",
        "as code",
        "mouse",
        "zone",
        "complet",
        "deliveries",
    ];
    for word in done {
        assert!(
            opening.contains(word),
            "the opening paragraph says nothing of {word}: {opening}"
        );
    }
    let status: String = readme
        .lines()
        .skip_while(|line| !line.starts_with("> Status:"))
        .take_while(|line| line.starts_with('>'))
        .map(|line| line.trim_start_matches('>').trim())
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    let (in_place, not_yet) = status.split_once("not yet").unwrap_or((&status, ""));
    for word in done {
        assert!(
            in_place.contains(word),
            "the status does not say {word} is in place: {status}"
        );
        assert!(
            !not_yet.contains(word),
            "the status says {word} is not yet done: {status}"
        );
    }
}
