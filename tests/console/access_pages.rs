//! Access on a person's page, on a role's page and on `:who` (issue 31
//! reqs 3, 4 and 5, console halves) against the reference server's demo:
//! the Contractors member with none on Hedgebox Mobile, Ivan's own rule
//! outranked by his role, an organization admin past every rule, a plan
//! without access control said in words, what Contractors grants, and who
//! reaches the board pack, Finance's alone; Enter on `:who`'s list opens
//! the person's page.

use std::time::Duration;

use orgdeck::console::kit::theme::Theme;
use orgdeck::console::screens::ScreenId;
use orgdeck::console::screens::person::access::Kind;
use orgdeck::console::screens::person::page::Item;
use orgdeck::console::{Context, Driver};
use ratatui::crossterm::event::KeyCode;
use reqwest::StatusCode;
use serde_json::json;

use crate::support::proxy::{Fault, FaultProxy};
use crate::support::{OWNER, TestServer, client_for};

const SETTLE: Duration = Duration::from_secs(30);
const AMARA: &str = "amara.eze@hedgebox.dev";
const IVAN: &str = "ivan.petrov@hedgebox.dev";
const TOMAS: &str = "tomas.novak@hedgebox.dev";
const FATIMA: &str = "fatima.alsayed@hedgebox.dev";

struct Console {
    driver: Driver,
    _state: tempfile::TempDir,
}

async fn console(server: &TestServer, key: &str) -> Console {
    console_at(server, &server.base, key).await
}

async fn console_at(server: &TestServer, base: &str, key: &str) -> Console {
    let context = Context {
        host: "reference server".into(),
        organization: server.organization.clone(),
        project: server.project.to_string(),
        ..Context::default()
    };
    let mut driver = Driver::new(client_for(base, key), context, (200, 50), Theme::plain());
    let state = tempfile::tempdir().unwrap();
    driver.state_dir = state.path().to_path_buf();
    driver.start();
    assert!(driver.settle(SETTLE).await);
    Console {
        driver,
        _state: state,
    }
}

async fn press(driver: &mut Driver, keys: &[KeyCode]) {
    for code in keys {
        driver.press(*code);
        assert!(driver.settle(SETTLE).await, "{}", driver.screen());
    }
}

async fn command(driver: &mut Driver, line: &str) {
    press(driver, &[KeyCode::Char(':')]).await;
    for c in line.chars() {
        press(driver, &[KeyCode::Char(c)]).await;
    }
    press(driver, &[KeyCode::Enter]).await;
}

/// People, then the page of the person with this address.
async fn open_page(driver: &mut Driver, email: &str) {
    press(driver, &[KeyCode::Char('4')]).await;
    let rows = &driver.app.screens.people.rows;
    let at = (0..rows.len())
        .find(|at| rows.row(*at).is_some_and(|member| member.user.email == email))
        .unwrap_or_else(|| panic!("{email} is not shown"));
    press(driver, &[KeyCode::Char('g')]).await;
    for _ in 0..at {
        press(driver, &[KeyCode::Char('j')]).await;
    }
    press(driver, &[KeyCode::Enter]).await;
    assert_eq!(driver.app.shown(), ScreenId::Person);
}

/// The Access section of the page shown, a line each, as said.
fn access_lines(driver: &Driver) -> Vec<(Kind, String)> {
    let lines = &driver.app.screens.person.lines;
    (0..)
        .map_while(|at| lines.row(at))
        .filter_map(|item| match item {
            Item::Access(said) => Some((said.kind, said.text.clone())),
            _ => None,
        })
        .collect()
}

fn has(lines: &[(Kind, String)], kind: Kind, text: &str) -> bool {
    lines
        .iter()
        .any(|(said, line)| *said == kind && line.contains(text))
}

async fn join_role(server: &TestServer, owner: &str, role: &str, email: &str) {
    let roles = server.all(owner, &server.roles_path()).await;
    let role = roles.iter().find(|found| found["name"] == role).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let member = server
        .get(
            owner,
            &format!(
                "/api/organizations/{}/members/?email={email}",
                server.organization
            ),
        )
        .await;
    let uuid = member.json["results"][0]["user"]["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    server
        .post(
            owner,
            &format!("{}{role}/role_memberships/", server.roles_path()),
            json!({"user_uuid": uuid}),
        )
        .await
        .expect(StatusCode::CREATED);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_s_page_ends_with_their_access_in_every_project_and_why() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    join_role(&server, &owner, "Contractors", AMARA).await;
    let mut console = console(&server, &owner).await;
    let driver = &mut console.driver;

    // The agency's contractor: none on Mobile, by her role; on Web the
    // flags are everyone's viewer, her role's none outranked.
    open_page(driver, AMARA).await;
    let amara = access_lines(driver);
    assert!(
        has(
            &amara,
            Kind::Note,
            "Hedgebox Inc. resolves access by the highest rule (highest-wins)."
        ),
        "{amara:#?}"
    );
    assert!(
        has(&amara, Kind::Project, "Hedgebox Web (1): member · everyone"),
        "{amara:#?}"
    );
    assert!(
        has(
            &amara,
            Kind::Project,
            "Hedgebox Mobile (2): none · role Contractors"
        ),
        "{amara:#?}"
    );
    assert!(
        amara.iter().any(|(kind, line)| *kind == Kind::Row
            && line.starts_with("feature flags")
            && line.contains("viewer")
            && line.ends_with("role Contractors: none")),
        "{amara:#?}"
    );
    assert!(has(&amara, Kind::Columns, "WHAT"), "{amara:#?}");
    assert!(
        has(&amara, Kind::Note, "the rest as the project's default:"),
        "{amara:#?}"
    );
    let page = &driver.app.screens.person;
    assert!(page.access.reading.is_none(), "the read ended");
    let heading = (0..)
        .map_while(|at| page.lines.row(at))
        .find_map(|item| match item {
            Item::Heading { text } if text.starts_with("Access") => Some(text.clone()),
            _ => None,
        });
    assert_eq!(heading.as_deref(), Some("Access (2 projects)"));

    // Ivan: admin of Web by Engineering, his own rule's member outranked.
    press(driver, &[KeyCode::Esc]).await;
    open_page(driver, IVAN).await;
    let ivan = access_lines(driver);
    assert!(
        has(&ivan, Kind::Project, "Hedgebox Web (1): admin · role Engineering"),
        "{ivan:#?}"
    );
    assert!(
        ivan.iter().any(|(kind, line)| *kind == Kind::Row
            && line.starts_with("project")
            && line.ends_with("own rule: member")),
        "{ivan:#?}"
    );

    // An organization admin passes every rule: one row says so.
    press(driver, &[KeyCode::Esc]).await;
    open_page(driver, OWNER).await;
    let ada = access_lines(driver);
    assert!(
        has(
            &ada,
            Kind::Project,
            "Hedgebox Mobile (2): admin · organization admin"
        ),
        "{ada:#?}"
    );
    assert!(
        ada.iter().any(|(kind, line)| *kind == Kind::Row
            && line.starts_with("every resource")
            && line.contains("highest")),
        "{ada:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leaving_a_page_stops_the_read_of_their_access_and_drops_it() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    let proxy = FaultProxy::start(&server.base).await;
    proxy.always(|line| line.contains("access_control_members"), Fault::Hold);
    let mut console = console_at(&server, &proxy.base, &owner).await;
    let driver = &mut console.driver;
    press(driver, &[KeyCode::Char('4')]).await;
    let rows = &driver.app.screens.people.rows;
    let at = (0..rows.len())
        .find(|at| rows.row(*at).is_some_and(|member| member.user.email == IVAN))
        .unwrap();
    for _ in 0..at {
        press(driver, &[KeyCode::Char('j')]).await;
    }
    driver.press(KeyCode::Enter);
    // The page is gathered; its access waits on the held answers.
    tokio::select! {
        () = proxy.until_held(2) => {}
        _ = driver.settle(SETTLE) => panic!("the access read never asked"),
    }
    let _ = driver.settle(Duration::from_millis(200)).await;
    assert!(driver.app.screens.person.profile.is_some());
    assert!(driver.app.screens.person.access.reading.is_some());
    let screen = driver.screen();
    assert!(screen.contains("Access · reading"), "{screen}");
    assert!(
        screen.contains("access: 0 of 2 projects · Esc leaves"),
        "{screen}"
    );
    let asked = proxy.count("GET");

    // Esc leaves at once; what was held comes back too late to land.
    press(driver, &[KeyCode::Esc]).await;
    assert_eq!(driver.app.shown(), ScreenId::People);
    proxy.release();
    assert!(driver.settle(SETTLE).await);
    let page = &driver.app.screens.person;
    assert!(page.access.access.is_none() && page.access.reading.is_none());
    assert!(access_lines(driver).is_empty());
    assert_eq!(proxy.count("GET"), asked, "nothing more was asked after Esc");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_without_access_control_is_said_on_the_page() {
    let server = TestServer::demo_with(|options| {
        options.access.plan = orgdeck::api::access::Plan {
            access_control: false,
            role_based_access: true,
        };
    })
    .await;
    let owner = server.key(&["*"]);
    let mut console = console(&server, &owner).await;
    let driver = &mut console.driver;
    open_page(driver, AMARA).await;
    let amara = access_lines(driver);
    assert!(
        has(
            &amara,
            Kind::Project,
            "Hedgebox Mobile (2): admin · built-in default"
        ),
        "{amara:#?}"
    );
    assert!(
        has(&amara, Kind::Note, "note: the server reads no access rule here"),
        "{amara:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn who_reaches_the_board_pack_and_enter_opens_their_page() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    let mut console = console(&server, &owner).await;
    let driver = &mut console.driver;
    command(driver, "who dashboard board PACK").await;
    assert_eq!(driver.app.shown(), ScreenId::Who);
    let who = &driver.app.screens.who;
    let rows: Vec<_> = (0..who.rows.len())
        .filter_map(|at| who.rows.row(at).cloned())
        .collect();
    let how = |email: &str| {
        rows.iter()
            .find(|row| row.email == email)
            .map(|row| (row.level.to_string(), row.how.clone()))
    };
    assert_eq!(how(TOMAS), Some(("manager".into(), "created it".into())));
    assert_eq!(
        how(FATIMA),
        Some((
            "viewer".into(),
            "role Finance (viewer, managed by Terraform)".into()
        ))
    );
    assert_eq!(how(OWNER), Some(("manager".into(), "organization admin".into())));
    assert_eq!(
        how("elif.demir@hedgebox.dev"),
        None,
        "Product's Elif is not among them"
    );
    let screen = driver.screen();
    assert!(
        screen.contains("people reach dashboard \"Board pack\""),
        "{screen}"
    );
    for column in ["LEVEL", "NAME", "EMAIL", "HOW", "ORG LEVEL"] {
        assert!(screen.contains(column), "{column}: {screen}");
    }

    // Enter on Fatima's row: her page, and back returns to the list.
    let at = rows.iter().position(|row| row.email == FATIMA).unwrap();
    press(driver, &[KeyCode::Char('g')]).await;
    for _ in 0..at {
        press(driver, &[KeyCode::Char('j')]).await;
    }
    press(driver, &[KeyCode::Enter]).await;
    assert_eq!(driver.app.shown(), ScreenId::Person);
    assert_eq!(
        driver
            .app
            .screens
            .person
            .chosen
            .as_ref()
            .map(|chosen| chosen.email.as_str()),
        Some(FATIMA)
    );
    assert!(!access_lines(driver).is_empty(), "{}", driver.screen());
    press(driver, &[KeyCode::Esc]).await;
    assert_eq!(driver.app.shown(), ScreenId::Who);

    // The project, and what is not there, in words.
    command(driver, "who project 2").await;
    let screen = driver.screen();
    assert!(
        screen.contains("reach the project Hedgebox Mobile (2)"),
        "{screen}"
    );
    assert!(screen.contains("own rule (admin)"), "{screen}");
    command(driver, "who dashboard Nope").await;
    let screen = driver.screen();
    assert!(screen.contains("is called \"Nope\""), "{screen}");
}

/// The lines of the role's page, as said.
fn grants_lines(driver: &Driver) -> Vec<(Kind, String)> {
    let lines = &driver.app.screens.grants.lines;
    (0..)
        .map_while(|at| lines.row(at))
        .map(|said| (said.kind, said.text.clone()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn w_on_roles_shows_what_the_role_grants_and_who_is_in_it() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    join_role(&server, &owner, "Contractors", AMARA).await;
    let mut console = console(&server, &owner).await;
    let driver = &mut console.driver;
    press(driver, &[KeyCode::Char('1')]).await;
    let rows = &driver.app.screens.roles.rows;
    let at = (0..rows.len())
        .find(|at| rows.row(*at).is_some_and(|role| role.name == "Contractors"))
        .unwrap();
    press(driver, &[KeyCode::Char('g')]).await;
    for _ in 0..at {
        press(driver, &[KeyCode::Char('j')]).await;
    }
    press(driver, &[KeyCode::Char('w')]).await;
    assert_eq!(driver.app.shown(), ScreenId::Grants);
    let contractors = grants_lines(driver);
    assert!(
        has(
            &contractors,
            Kind::Project,
            "Role Contractors · 1 member: Amara Eze <amara.eze@hedgebox.dev>"
        ),
        "{contractors:#?}"
    );
    assert!(
        // The role's own rule, as `access role` words it.
        has(
            &contractors,
            Kind::Project,
            "Hedgebox Mobile (2): none · own rule"
        ),
        "{contractors:#?}"
    );
    // On Web its none on the flags loses to everyone's viewer.
    assert!(
        contractors.iter().any(|(kind, line)| *kind == Kind::Row
            && line.starts_with("feature flags")
            && line.split_whitespace().collect::<Vec<_>>()[2..5] == ["none", "viewer", "everyone"]),
        "{contractors:#?}"
    );
    assert!(has(&contractors, Kind::Columns, "ITS RULE"), "{contractors:#?}");
    assert!(
        has(&contractors, Kind::Note, "no object rules"),
        "{contractors:#?}"
    );
    let screen = driver.screen();
    assert!(screen.contains("What Contractors grants"), "{screen}");

    // Back on Roles; from Finance's members, `w` says what Finance grants:
    // the board pack, its rule managed by Terraform.
    press(driver, &[KeyCode::Esc]).await;
    assert_eq!(driver.app.shown(), ScreenId::Roles);
    command(driver, "role finance").await;
    assert_eq!(driver.app.shown(), ScreenId::Members);
    press(driver, &[KeyCode::Char('w')]).await;
    assert_eq!(driver.app.shown(), ScreenId::Grants);
    let finance = grants_lines(driver);
    assert!(
        finance.iter().any(|(kind, line)| *kind == Kind::Row
            && line.starts_with("dashboard \"Board pack\"")
            && line.contains("managed by Terraform")),
        "{finance:#?}"
    );
    assert!(has(&finance, Kind::Project, "Role Finance · "), "{finance:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leaving_a_role_from_their_page_reads_their_access_again() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    let mut console = console(&server, &owner).await;
    let driver = &mut console.driver;
    open_page(driver, IVAN).await;
    assert!(
        has(
            &access_lines(driver),
            Kind::Project,
            "Hedgebox Mobile (2): member · roles Engineering, On-call"
        ),
        "{:#?}",
        access_lines(driver)
    );
    let at = driver
        .app
        .screens
        .person
        .lines
        .position(|item| matches!(item, Item::Role(role) if role.name == "On-call"))
        .unwrap();
    press(driver, &[KeyCode::Char('g')]).await;
    for _ in 0..at {
        press(driver, &[KeyCode::Char('j')]).await;
    }
    press(driver, &[KeyCode::Char('d'), KeyCode::Char('y')]).await;
    let ivan = access_lines(driver);
    assert!(
        has(
            &ivan,
            Kind::Project,
            "Hedgebox Mobile (2): member · role Engineering"
        ),
        "{ivan:#?}"
    );
}

/// The figure of issue 31 req 10 for the page (the CLI's are in
/// `tests/client/access_figures.rs`): through a proxy holding each request
/// and each answer 50 ms, a generated member's access across the demo
/// grown to 1,000 members, 50 roles and 20 projects, timed from their page
/// being gathered to their access on it (`ORGDECK_TEST_BIN` names the
/// server's binary: the release build, to measure it):
///
/// ```sh
/// cargo test --release --test console -- --ignored page_access_figure --nocapture
/// ```
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: run it against the release build (see its comment)"]
async fn page_access_figure() {
    let dir = tempfile::tempdir().unwrap();
    let binary = std::env::var_os("ORGDECK_TEST_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_orgdeck").into());
    let mut serve = std::process::Command::new(&binary)
        .args(["serve", "--listen", "127.0.0.1:0", "--seed", "demo", "--db"])
        .arg(dir.path().join("big.sqlite"))
        .args([
            "--generate-members",
            "960",
            "--generate-roles",
            "42",
            "--generate-projects",
            "18",
        ])
        .env("ORGDECK_LOG", dir.path().join("serve.log"))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(serve.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let _serve = crate::support::KillOnDrop(serve);
    let ready: serde_json::Value = serde_json::from_str(&line).unwrap();
    let proxy = FaultProxy::start(ready["base_url"].as_str().unwrap()).await;
    proxy.set_latency(Duration::from_millis(50));
    let context = Context {
        host: "reference server".into(),
        organization: "@current".into(),
        project: "@current".into(),
        ..Context::default()
    };
    let key = ready["api_key"].as_str().unwrap();
    let mut driver = Driver::new(client_for(&proxy.base, key), context, (200, 50), Theme::plain());
    let state = tempfile::tempdir().unwrap();
    driver.state_dir = state.path().to_path_buf();
    driver.start();
    assert!(driver.settle(SETTLE).await);
    let driver = &mut driver;
    press(driver, &[KeyCode::Char('4')]).await;
    // A generated member, some way down the list.
    for _ in 0..12 {
        press(driver, &[KeyCode::PageDown]).await;
    }
    driver.press(KeyCode::Enter);
    let started = std::time::Instant::now();
    let mut gathered = None;
    while driver.app.screens.person.access.access.is_none() {
        assert!(started.elapsed() < Duration::from_secs(60), "{}", driver.screen());
        let _ = driver.settle(Duration::from_millis(2)).await;
        if gathered.is_none() && driver.app.screens.person.profile.is_some() {
            gathered = Some(std::time::Instant::now());
        }
    }
    let took = gathered.unwrap().elapsed();
    let access = driver.app.screens.person.access.access.as_ref().unwrap();
    let requests = proxy.count("GET");
    eprintln!(
        "a person's access on their page ({} roles, {} projects): {took:?} after the page \
         ({requests} GETs through the proxy in all)",
        access.roles.len(),
        access.projects.len()
    );
    assert_eq!(access.projects.len(), 20);
    assert!(took < Duration::from_secs(1), "{took:?}");
}

/// Another organization (here `:org` naming the same one, which starts
/// over as a switch does): a role's page and `:who` read of the old one
/// are left, not shown with what they said of it, and the Access tab reads
/// again rather than saying it is reading.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_switch_of_organization_leaves_a_role_s_page_and_who() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    let mut console = console(&server, &owner).await;
    let driver = &mut console.driver;
    let organization = server.organization.clone();

    press(driver, &[KeyCode::Char('1')]).await;
    press(driver, &[KeyCode::Char('w')]).await;
    assert_eq!(driver.app.shown(), ScreenId::Grants);
    command(driver, &format!("org {organization}")).await;
    assert_eq!(driver.app.shown(), ScreenId::Roles, "{}", driver.screen());

    command(driver, "who dashboard board PACK").await;
    assert_eq!(driver.app.shown(), ScreenId::Who);
    assert!(driver.screen().contains("Fatima"), "{}", driver.screen());
    command(driver, &format!("org {organization}")).await;
    assert_ne!(driver.app.shown(), ScreenId::Who, "{}", driver.screen());
    assert_eq!(driver.app.screens.who.rows.len(), 0);
    assert!(driver.app.screens.who.resource.asked.is_none());

    press(driver, &[KeyCode::Char('5')]).await;
    assert!(driver.screen().contains("Hedgebox Mobile"), "{}", driver.screen());
    command(driver, &format!("org {organization}")).await;
    assert!(driver.settle(SETTLE).await);
    let grid = driver.screen();
    assert!(grid.contains("Ada Okafor") && grid.contains("admin"), "{grid}");
}
