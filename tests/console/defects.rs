//! The day's defects of issue 29 in the console, each against the
//! reference server: `/` finds ids, Esc clears a filter before it goes
//! back, `p` asks before a resume delivers, the keys a notice names work
//! where it is shown, and Space marks in every picker.

use orgdeck::api::{FetchAll, List, Subscription, SubscriptionFilter};
use orgdeck::console::Driver;
use orgdeck::console::lists::AnyTable;
use ratatui::crossterm::event::KeyCode;

use crate::drive::{self, keys, typed};
use crate::support::{TestServer, client_for};

async fn console(server: &TestServer, key: &str) -> Driver {
    drive::console(server, key, (140, 40)).await
}

/// The rows of a list the console shows, in its order.
fn shown_subscriptions(driver: &Driver) -> Vec<Subscription> {
    let rows = &driver.app.lists.subscriptions.rows;
    (0..rows.len()).filter_map(|at| rows.row(at).cloned()).collect()
}

/// Every subscription of the demo's project, as the API lists them.
async fn every_subscription(server: &TestServer) -> Vec<Subscription> {
    let api = client_for(&server.base, &server.key(&["*"]));
    let list = List::subscriptions(&server.project.to_string(), &SubscriptionFilter::default());
    api.all(&list, &FetchAll::default()).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slash_finds_a_subscription_and_a_role_by_id() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let all = every_subscription(&server).await;
    // The oldest one whose id no title or name holds: the server's search
    // cannot find it by its id.
    let names = |row: &Subscription| {
        format!(
            "{} {}",
            row.title.clone().unwrap_or_default(),
            row.resource_name.clone().unwrap_or_default()
        )
    };
    let target = all
        .iter()
        .rev()
        .find(|row| all.iter().all(|other| !names(other).contains(&row.id.to_string())))
        .expect("an id no title holds");
    let mut driver = console(&server, &key).await;
    keys(&mut driver, &[KeyCode::Char('3')]).await;
    for typed_id in [target.id.to_string(), format!("#{}", target.id)] {
        keys(&mut driver, &[KeyCode::Char('/')]).await;
        typed(&mut driver, &typed_id).await;
        keys(&mut driver, &[KeyCode::Enter]).await;
        let rows = shown_subscriptions(&driver);
        assert_eq!(
            rows.first().map(|row| row.id),
            Some(target.id),
            "/{typed_id}: {}",
            driver.screen()
        );
        assert_eq!(
            driver.app.lists.subscriptions.selected().map(|row| row.id),
            Some(target.id)
        );
        // Esc clears the filter: every subscription again, still here.
        keys(&mut driver, &[KeyCode::Esc]).await;
        assert_eq!(driver.app.shown(), orgdeck::console::lists::ListId::Subscriptions);
        assert!(driver.app.lists.subscriptions.filter().is_empty());
    }
    // A role by the start of its id.
    keys(&mut driver, &[KeyCode::Char('1'), KeyCode::Char('j'), KeyCode::Char('j')]).await;
    let role = driver.app.lists.roles.selected().unwrap().clone();
    keys(&mut driver, &[KeyCode::Char('g'), KeyCode::Char('/')]).await;
    typed(&mut driver, &role.id[..13]).await;
    keys(&mut driver, &[KeyCode::Enter]).await;
    let rows = &driver.app.lists.roles.rows;
    assert_eq!(rows.len(), 1, "{}", driver.screen());
    assert_eq!(rows.row(0).map(|row| row.id.clone()), Some(role.id));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn esc_on_a_filtered_list_clears_the_filter_before_it_goes_back() {
    use orgdeck::console::lists::ListId;
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let mut driver = console(&server, &key).await;
    // A role's members, filtered.
    keys(&mut driver, &[KeyCode::Char('j'), KeyCode::Enter]).await;
    assert_eq!(driver.app.shown(), ListId::Members);
    let everyone = driver.app.lists.members.rows.len();
    assert!(everyone > 1, "{}", driver.screen());
    keys(&mut driver, &[KeyCode::Char('/')]).await;
    typed(&mut driver, "zzz-nobody").await;
    keys(&mut driver, &[KeyCode::Enter]).await;
    assert_eq!(driver.app.lists.members.rows.len(), 0);
    // Esc: the filter goes, the members stay on screen.
    keys(&mut driver, &[KeyCode::Esc]).await;
    assert_eq!(driver.app.shown(), ListId::Members, "{}", driver.screen());
    assert!(driver.app.lists.members.filter().is_empty());
    assert_eq!(driver.app.lists.members.rows.len(), everyone);
    // Esc again: back to the roles.
    keys(&mut driver, &[KeyCode::Esc]).await;
    assert_eq!(driver.app.shown(), ListId::Roles);
    // On Subscriptions, a search the server answered goes with it too.
    keys(&mut driver, &[KeyCode::Char('3')]).await;
    let count = driver.app.lists.subscriptions.rows.list.count();
    keys(&mut driver, &[KeyCode::Char('/')]).await;
    typed(&mut driver, "weekly").await;
    keys(&mut driver, &[KeyCode::Enter]).await;
    assert_ne!(driver.app.lists.subscriptions.rows.list.count(), count);
    keys(&mut driver, &[KeyCode::Esc]).await;
    assert_eq!(driver.app.lists.subscriptions.rows.list.count(), count);
    assert_eq!(driver.app.shown(), ListId::Subscriptions);
}

/// The shortest start of a name (spaces left out) that the picker's
/// search finds in no one else: not in their names, with or without
/// spaces, nor in their e-mail addresses.
fn unique_prefix(name: &str, everyone: &[(String, String)]) -> Option<String> {
    let compact = name.to_lowercase().replace(' ', "");
    (3..=compact.len()).map(|n| compact[..n].to_string()).find(|prefix| {
        everyone
            .iter()
            .filter(|(other, _)| other.to_lowercase().replace(' ', "") != compact)
            .all(|(other, email)| {
                let other = other.to_lowercase();
                !other.contains(prefix.as_str())
                    && !other.replace(' ', "").contains(prefix.as_str())
                    && !email.to_lowercase().contains(prefix.as_str())
            })
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_assign_picker_marks_with_space_and_five_named_people_take_few_keys() {
    use orgdeck::api::OrganizationMember;
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let api = client_for(&server.base, &key);
    let members: Vec<OrganizationMember> = api
        .all(&List::members("@current"), &FetchAll::default())
        .await
        .unwrap();
    let names: Vec<(String, String)> = members
        .iter()
        .map(|member| (member.user.display_name(), member.user.email.clone()))
        .collect();
    // Five people, each found by a short search of their name.
    let wanted: Vec<(String, String)> = members
        .iter()
        .filter_map(|member| {
            let name = member.user.display_name();
            unique_prefix(&name, &names)
                .filter(|prefix| prefix.len() <= 4)
                .map(|prefix| (member.user.uuid.clone(), prefix))
        })
        .take(5)
        .collect();
    assert_eq!(wanted.len(), 5, "{names:?}");
    let mut driver = console(&server, &key).await;
    keys(&mut driver, &[KeyCode::End, KeyCode::Enter]).await; // Contractors: nobody yet
    let mut pressed = 0;
    typed(&mut driver, "a").await;
    pressed += 1;
    for (_, prefix) in &wanted {
        typed(&mut driver, prefix).await;
        // Space marks the one the search shows, and empties the search.
        keys(&mut driver, &[KeyCode::Char(' ')]).await;
        pressed += prefix.len() + 1;
    }
    assert_eq!(driver.screen().matches("[x]").count(), 5, "{}", driver.screen());
    keys(&mut driver, &[KeyCode::Enter]).await;
    pressed += 1;
    assert!(pressed < 38, "{pressed} keys");
    let role = driver.app.lists.members.resource.role.clone().unwrap();
    let mut assigned: Vec<String> = api
        .all(&List::memberships("@current", &role.id), &FetchAll::default())
        .await
        .unwrap()
        .into_iter()
        .filter_map(|membership| membership.user.map(|user| user.uuid))
        .collect();
    assigned.sort();
    let mut expected: Vec<String> = wanted.into_iter().map(|(uuid, _)| uuid).collect();
    expected.sort();
    assert_eq!(assigned, expected);
}
