//! The person page is gathered from whole lists or not at all: behind a
//! proxy that ends the subscriptions list early, the page says why it
//! could not be gathered, and nothing can be offboarded from it.

use std::time::Duration;

use orgdeck::console::kit::theme::Theme;
use orgdeck::console::screens::ScreenId;
use orgdeck::console::{Context, Driver};
use ratatui::crossterm::event::KeyCode;

use crate::support::proxy::FaultProxy;
use crate::support::{LEAVER, TestServer, client_for};

const SETTLE: Duration = Duration::from_secs(30);

async fn press(driver: &mut Driver, keys: &[KeyCode]) {
    for code in keys {
        driver.press(*code);
        assert!(driver.settle(SETTLE).await, "{}", driver.screen());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_s_page_is_not_drawn_from_part_of_a_list() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let proxy = FaultProxy::start(&server.base).await;
    proxy.cut_list("/subscriptions/", 2);
    let context = Context {
        host: "reference server".into(),
        organization: server.organization.clone(),
        project: server.project.to_string(),
        ..Context::default()
    };
    let mut driver = Driver::new(client_for(&proxy.base, &key), context, (120, 40), Theme::plain());
    let state = tempfile::tempdir().unwrap();
    driver.state_dir = state.path().to_path_buf();
    driver.start();
    assert!(driver.settle(SETTLE).await);
    press(&mut driver, &[KeyCode::Char('4')]).await;
    let rows = &driver.app.screens.people.rows;
    let at = (0..rows.len())
        .find(|at| rows.row(*at).is_some_and(|member| member.user.email == LEAVER))
        .expect("the leaver is listed");
    press(&mut driver, &[KeyCode::Char('g')]).await;
    for _ in 0..at {
        press(&mut driver, &[KeyCode::Char('j')]).await;
    }
    press(&mut driver, &[KeyCode::Enter]).await;
    assert_eq!(driver.app.shown(), ScreenId::Person);
    let page = &driver.app.screens.person;
    assert!(page.profile.is_none(), "a page was drawn from part of a list");
    let error = page.error.clone().unwrap_or_default();
    assert!(
        error.contains("the list of subscriptions came back incomplete: it ended after 2 rows where the server's count said"),
        "{error}"
    );
    let screen = driver.screen();
    assert!(screen.contains("could not be gathered"), "{screen}");
    // Nothing to offboard from: O opens no plan, and nothing is written.
    press(&mut driver, &[KeyCode::Char('O')]).await;
    assert_ne!(driver.app.shown(), ScreenId::Offboard, "{}", driver.screen());
    for method in ["POST", "PATCH", "DELETE"] {
        assert_eq!(proxy.count(method), 0, "{method}");
    }
}
