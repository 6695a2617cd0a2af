//! The `:` command line as k9s users expect it: jumps by id and by name,
//! arguments completed with Tab, and a history walked with ↑ and ↓.

use orgdeck::console::Driver;
use orgdeck::console::screens::ScreenId;
use orgdeck::console::shell::Mode;
use ratatui::crossterm::event::KeyCode;

use crate::drive::{self, SETTLE, command};
use crate::support::TestServer;

async fn console(server: &TestServer) -> Driver {
    drive::console(server, &server.key(&["*"]), (160, 40)).await
}

fn typed(driver: &Driver) -> String {
    match &driver.app.mode {
        Mode::Command(input) => input.value().to_string(),
        other => panic!("the command line is not open: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sub_jumps_to_a_subscription_never_loaded_and_role_to_a_role_by_name() {
    let server = TestServer::demo().await;
    let mut driver = console(&server).await;
    // From the Roles tab, to a subscription no page of the list has held.
    command(&mut driver, "sub 117").await;
    assert_eq!(driver.app.shown(), ScreenId::Deliveries, "{}", driver.screen());
    let opened = driver
        .app
        .screens
        .deliveries
        .resource
        .subscription
        .clone()
        .unwrap();
    assert_eq!(opened.id, 117);
    assert!(!opened.title.is_empty(), "the title is the subscription's");
    assert!(driver.screen().contains("#117"), "{}", driver.screen());
    // q goes back to the subscriptions.
    driver.press(KeyCode::Char('q'));
    assert_eq!(driver.app.shown(), ScreenId::Subscriptions);

    // One that does not exist is named as such.
    command(&mut driver, "sub 99999").await;
    let notice = driver.app.notice.shown.clone().unwrap().text;
    assert!(notice.contains("#99999") && notice.contains("404"), "{notice}");
    assert_eq!(driver.app.shown(), ScreenId::Subscriptions);

    // A role by its name in any case, then one that does not exist.
    command(&mut driver, "role on-call").await;
    assert_eq!(driver.app.shown(), ScreenId::Members);
    assert_eq!(
        driver.app.screens.members.resource.role.as_ref().unwrap().name,
        "On-call"
    );
    assert!(driver.screen().contains("Kwame Asante"), "{}", driver.screen());
    command(&mut driver, "role Astronauts").await;
    let notice = driver.app.notice.shown.clone().unwrap().text;
    assert!(notice.contains("no role is named \"Astronauts\""), "{notice}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tab_completes_arguments_and_arrows_walk_the_history() {
    let server = TestServer::demo().await;
    let mut driver = console(&server).await;
    driver.press(KeyCode::Char(':'));
    driver.type_text("state pa");
    driver.press(KeyCode::Tab);
    assert_eq!(typed(&driver), "state paused");
    driver.press(KeyCode::Esc);
    // The popup lists the arguments that match, with what each means.
    driver.press(KeyCode::Char(':'));
    driver.type_text("state ");
    let screen = driver.screen();
    assert!(
        screen.contains("arguments (Tab completes)") && screen.contains(":state overdue"),
        "{screen}"
    );
    driver.press(KeyCode::Esc);
    // Role names come from the roles loaded.
    driver.press(KeyCode::Char(':'));
    driver.type_text("role fin");
    driver.press(KeyCode::Tab);
    assert_eq!(typed(&driver), "role Finance");
    driver.press(KeyCode::Esc);

    command(&mut driver, "subs").await;
    command(&mut driver, "target slack").await;
    driver.press(KeyCode::Char(':'));
    driver.type_text("half");
    driver.press(KeyCode::Up);
    assert_eq!(typed(&driver), "target slack");
    driver.press(KeyCode::Up);
    assert_eq!(typed(&driver), "subs");
    driver.press(KeyCode::Down);
    driver.press(KeyCode::Down);
    assert_eq!(typed(&driver), "half", "back to what was being typed");
    driver.press(KeyCode::Up);
    driver.press(KeyCode::Enter);
    assert!(driver.settle(SETTLE).await);
    assert_eq!(
        driver
            .app
            .screens
            .subscriptions
            .resource
            .filter
            .target_type
            .as_deref(),
        Some("slack")
    );
}
