//! The Access tab against the reference server's demo (issue 31 req 6 and
//! 9): the grid of people by project tells the demo's stories (Hedgebox
//! Mobile closed but to its teams, Tomás in through On-call, Jade's own
//! rule, Ivan's outranked, an organization admin, Contractors none on
//! Hedgebox Mobile), `/` narrows the rows, a project's resources are
//! the columns on `:access`, `o` keeps what differs from the default, `A`
//! the organization admins, `R` turns to roles, and Enter opens a
//! person's page or a role's members, back returning to the grid.

use orgdeck::console::Driver;
use orgdeck::console::screens::ScreenId;
use ratatui::crossterm::event::KeyCode;

use crate::drive::{command, console, keys, typed};
use crate::support::{ADMIN, OWNER, TestServer};

/// The status line (the cursor cell's source), the screen's second line
/// from the bottom or so: the whole screen is searched.
fn shows(driver: &mut Driver, text: &str) -> bool {
    driver.screen().contains(text)
}

/// Filters the rows to `text`, then puts the cursor on the column of the
/// project named `project` (every project shown).
async fn on(driver: &mut Driver, text: &str, column: usize) {
    keys(driver, &[KeyCode::Esc]).await;
    keys(driver, &[KeyCode::Char('/')]).await;
    typed(driver, text).await;
    keys(driver, &[KeyCode::Enter, KeyCode::Char('g')]).await;
    for _ in 0..4 {
        keys(driver, &[KeyCode::Char('h')]).await;
    }
    for _ in 0..column {
        keys(driver, &[KeyCode::Char('l')]).await;
    }
}

#[tokio::test]
async fn the_grid_tells_the_demo_s_stories() {
    let server = TestServer::demo().await;
    let key = server.key_for(OWNER, &["*"]);
    let mut driver = console(&server, &key, (150, 40)).await;
    keys(&mut driver, &[KeyCode::Char('5')]).await;
    assert_eq!(driver.app.shown(), ScreenId::Access);
    let screen = driver.screen();
    assert!(screen.contains("Access · people · every project"), "{screen}");
    assert!(
        screen.contains("Hedgebox Web") && screen.contains("Hedgebox Mob"),
        "{screen}"
    );
    assert!(!screen.contains(" of 2 projects"), "the read is done: {screen}");
    assert!(!screen.contains(" ·  "), "every cell is read: {screen}");

    // Hedgebox Mobile is closed to everyone but its teams: Amara, in no
    // role, has none there; Tomás reaches it through On-call alone.
    on(&mut driver, "amara", 1).await;
    let screen = driver.screen();
    assert!(
        screen.contains("Amara Eze · Hedgebox Mobile: none · everyone"),
        "{screen}"
    );
    on(&mut driver, "tomas", 1).await;
    let screen = driver.screen();
    assert!(
        screen.contains("Tomás Novák · Hedgebox Mobile: member · role On-call"),
        "{screen}"
    );

    // Ivan's own rule says member on Hedgebox Web, but while the highest
    // rule wins Engineering's admin does; Jade administers Hedgebox
    // Mobile by a rule of her own.
    on(&mut driver, "ivan.petrov", 0).await;
    let screen = driver.screen();
    assert!(
        screen.contains("Ivan Petrov · Hedgebox Web: admin · role Engineering"),
        "{screen}"
    );
    on(&mut driver, "jade", 1).await;
    let screen = driver.screen();
    assert!(
        screen.contains("Jade Nguyen · Hedgebox Mobile: admin · own rule"),
        "{screen}"
    );

    // An organization admin bypasses every rule.
    on(&mut driver, ADMIN, 1).await;
    let screen = driver.screen();
    assert!(
        screen.contains("Hedgebox Mobile: admin · organization admin"),
        "{screen}"
    );

    // `A`: only organization admins; Amara is not one.
    keys(&mut driver, &[KeyCode::Esc, KeyCode::Char('A')]).await;
    let screen = driver.screen();
    assert!(screen.contains("only organization admins"), "{screen}");
    assert!(
        screen.contains("Ada Okafor") && !screen.contains("Amara Eze"),
        "{screen}"
    );
    keys(&mut driver, &[KeyCode::Char('A')]).await;
    assert!(shows(&mut driver, "Amara Eze"));

    // A project's resources as the columns: feature flags for a contractor.
    command(&mut driver, "access Hedgebox Web").await;
    on(&mut driver, "amara", 0).await;
    let screen = driver.screen();
    assert!(screen.contains("Access · people · Hedgebox Web (1)"), "{screen}");
    assert!(screen.contains("actions"), "{screen}");
    // `o`: only what differs from the project's default; Amara's levels
    // are all the project's defaults while the highest rule wins.
    keys(&mut driver, &[KeyCode::Char('o')]).await;
    let screen = driver.screen();
    assert!(screen.contains("only what differs from the default"), "{screen}");
    assert!(!screen.contains("Amara Eze"), "{screen}");
    keys(&mut driver, &[KeyCode::Char('o'), KeyCode::Esc]).await;
    command(&mut driver, "access feature flags").await;
    let screen = driver.screen();
    assert!(screen.contains("feature flags"), "{screen}");
    // A project of two words, then a resource of two.
    command(&mut driver, "access Hedgebox Mobile feature flags").await;
    let screen = driver.screen();
    assert!(
        screen.contains("Access · people · Hedgebox Mobile (2)"),
        "{screen}"
    );
    assert!(!screen.contains(":access takes a project"), "{screen}");
    command(&mut driver, "access").await;
    assert!(shows(&mut driver, "Access · people · every project"));
    command(&mut driver, "access nowhere").await;
    assert!(shows(&mut driver, ":access takes a project"));
    keys(&mut driver, &[KeyCode::Esc]).await;

    // Enter: the person's page; back: the grid again.
    on(&mut driver, "amara", 0).await;
    keys(&mut driver, &[KeyCode::Enter]).await;
    assert_eq!(driver.app.shown(), ScreenId::Person);
    assert!(shows(&mut driver, "Amara Eze <amara.eze@hedgebox.dev>"));
    keys(&mut driver, &[KeyCode::Char('q')]).await;
    assert_eq!(driver.app.shown(), ScreenId::Access);

    // R: roles. Contractors has none on Hedgebox Mobile by its own rule.
    keys(&mut driver, &[KeyCode::Esc, KeyCode::Char('R')]).await;
    let screen = driver.screen();
    assert!(screen.contains("Access · roles · every project"), "{screen}");
    on(&mut driver, "contractors", 1).await;
    assert!(
        shows(&mut driver, "Contractors · Hedgebox Mobile: none · own rule"),
        "{}",
        driver.screen()
    );
    keys(&mut driver, &[KeyCode::Enter]).await;
    assert_eq!(driver.app.shown(), ScreenId::Members);
    keys(&mut driver, &[KeyCode::Char('q')]).await;
    assert_eq!(driver.app.shown(), ScreenId::Access);
}

/// Esc stops the read under way and keeps what arrived (here, before
/// anything did: the tab says so, and `r` reads again); on a plan without
/// access control every level is the built-in default, and the tab says
/// the rules stored are not enforced rather than guessing.
#[tokio::test]
async fn esc_stops_the_read_and_what_the_server_cannot_say_is_said() {
    let server = TestServer::demo_with(|options| {
        options.access.plan = orgdeck::api::access::Plan {
            access_control: false,
            role_based_access: true,
        };
    })
    .await;
    let key = server.key_for(OWNER, &["*"]);
    let mut driver = console(&server, &key, (150, 40)).await;
    // Esc before any answer is heard: nothing is read, and nothing more
    // is sent.
    driver.press(KeyCode::Char('5'));
    driver.press(KeyCode::Esc);
    assert!(driver.settle(crate::drive::SETTLE).await);
    let screen = driver.screen();
    assert!(
        screen.contains("stopped before anyone was read: r reads again"),
        "{screen}"
    );
    assert!(driver.app.screens.access.loaded().frame.is_none());

    keys(&mut driver, &[KeyCode::Char('r')]).await;
    on(&mut driver, "amara", 1).await;
    let screen = driver.screen();
    assert!(
        screen.contains("Amara Eze · Hedgebox Mobile: admin · built-in default"),
        "{screen}"
    );
    assert!(
        screen.contains("the server reads no access rule here"),
        "{screen}"
    );
}

/// A member's key: the grid holds the projects the key lists (Amara does
/// not reach Hedgebox Mobile, and PostHog does not list it to her), never
/// a column guessed; what she reaches is read as the server resolves it.
#[tokio::test]
async fn a_member_s_key_sees_the_projects_it_lists() {
    let server = TestServer::demo().await;
    let key = server.key_for("amara.eze@hedgebox.dev", &["*"]);
    let mut driver = console(&server, &key, (150, 40)).await;
    keys(&mut driver, &[KeyCode::Char('5')]).await;
    on(&mut driver, "ivan.petrov", 1).await;
    let screen = driver.screen();
    assert!(!screen.contains("Hedgebox Mobile"), "{screen}");
    assert!(
        screen.contains("Ivan Petrov · Hedgebox Web: admin · role Engineering"),
        "{screen}"
    );
    let loaded = driver.app.screens.access.loaded();
    assert_eq!(loaded.total(), Some(1));
    assert!(loaded.error.is_none());
}

/// The grid's cells are held until the tab is left, so they are bounded as
/// a list read whole is (`--max-held-mib`): a grid larger than that is
/// refused before any project is read, in words that say what to do.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grid_larger_than_the_client_may_hold_is_refused_in_words() {
    use orgdeck::api::{ApiKey, Client, ClientConfig};
    use orgdeck::console::Context;
    use orgdeck::console::kit::theme::Theme;
    let server = TestServer::demo().await;
    let key = server.key_for(OWNER, &["*"]);
    let mut config = ClientConfig::new(server.base.clone(), ApiKey::new(&key));
    // The demo's grid: 40 people, 2 projects, 35 columns, 4 bytes a cell
    // (11,200 bytes); the client may hold 8 KiB.
    config.max_held = 8 * 1024;
    let context = Context {
        host: "reference server".into(),
        organization: server.organization.clone(),
        project: server.project.to_string(),
        ..Context::default()
    };
    let mut driver = Driver::new(Client::new(config).unwrap(), context, (150, 40), Theme::plain());
    driver.start();
    assert!(driver.settle(crate::drive::SETTLE).await);
    keys(&mut driver, &[KeyCode::Char('5')]).await;
    let screen = driver.screen();
    assert!(screen.contains("--max-held-mib"), "{screen}");
    assert!(!screen.contains("Amara Eze  "), "{screen}");
}
