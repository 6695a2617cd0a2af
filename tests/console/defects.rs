//! The day's defects of issue 29 in the console, each against the
//! reference server: `/` finds ids, Esc clears a filter before it goes
//! back, `p` asks before a resume delivers, the keys a notice names work
//! where it is shown, and Space marks in every picker.

use orgdeck::api::{FetchAll, List, Subscription, SubscriptionFilter};
use orgdeck::console::Driver;
use orgdeck::console::screens::list::List as _;
use ratatui::crossterm::event::KeyCode;

use crate::drive::{self, keys, typed};
use crate::support::{TestServer, client_for};

async fn console(server: &TestServer, key: &str) -> Driver {
    drive::console(server, key, (140, 40)).await
}

/// The rows of a list the console shows, in its order.
fn shown_subscriptions(driver: &Driver) -> Vec<Subscription> {
    let rows = &driver.app.screens.subscriptions.rows;
    (0..rows.len()).filter_map(|at| rows.row(at).cloned()).collect()
}

/// Every subscription of the demo's project, as the API lists them.
async fn every_subscription(server: &TestServer) -> Vec<Subscription> {
    let api = client_for(&server.base, &server.key(&["*"]));
    let list = List::subscriptions(&server.project.to_string(), &SubscriptionFilter::default());
    api.all(&list, &FetchAll::default()).await.unwrap().into_vec()
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
        .find(|row| {
            all.iter()
                .all(|other| !names(other).contains(&row.id.to_string()))
        })
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
            driver.app.screens.subscriptions.selected().map(|row| row.id),
            Some(target.id)
        );
        // Esc clears the filter: every subscription again, still here.
        keys(&mut driver, &[KeyCode::Esc]).await;
        assert_eq!(
            driver.app.shown(),
            orgdeck::console::screens::ScreenId::Subscriptions
        );
        assert!(driver.app.screens.subscriptions.filter().is_empty());
    }
    // A role by the start of its id.
    keys(
        &mut driver,
        &[KeyCode::Char('1'), KeyCode::Char('j'), KeyCode::Char('j')],
    )
    .await;
    let role = driver.app.screens.roles.selected().unwrap().clone();
    keys(&mut driver, &[KeyCode::Char('g'), KeyCode::Char('/')]).await;
    typed(&mut driver, &role.id[..13]).await;
    keys(&mut driver, &[KeyCode::Enter]).await;
    let rows = &driver.app.screens.roles.rows;
    assert_eq!(rows.len(), 1, "{}", driver.screen());
    assert_eq!(rows.row(0).map(|row| row.id.clone()), Some(role.id));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn esc_on_a_filtered_list_clears_the_filter_before_it_goes_back() {
    use orgdeck::console::screens::ScreenId;
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let mut driver = console(&server, &key).await;
    // A role's members, filtered.
    keys(&mut driver, &[KeyCode::Char('j'), KeyCode::Enter]).await;
    assert_eq!(driver.app.shown(), ScreenId::Members);
    let everyone = driver.app.screens.members.rows.len();
    assert!(everyone > 1, "{}", driver.screen());
    keys(&mut driver, &[KeyCode::Char('/')]).await;
    typed(&mut driver, "zzz-nobody").await;
    keys(&mut driver, &[KeyCode::Enter]).await;
    assert_eq!(driver.app.screens.members.rows.len(), 0);
    // Esc: the filter goes, the members stay on screen.
    keys(&mut driver, &[KeyCode::Esc]).await;
    assert_eq!(driver.app.shown(), ScreenId::Members, "{}", driver.screen());
    assert!(driver.app.screens.members.filter().is_empty());
    assert_eq!(driver.app.screens.members.rows.len(), everyone);
    // Esc again: back to the roles.
    keys(&mut driver, &[KeyCode::Esc]).await;
    assert_eq!(driver.app.shown(), ScreenId::Roles);
    // On Subscriptions, a search the server answered goes with it too.
    keys(&mut driver, &[KeyCode::Char('3')]).await;
    let count = driver.app.screens.subscriptions.rows.list.count();
    keys(&mut driver, &[KeyCode::Char('/')]).await;
    typed(&mut driver, "weekly").await;
    keys(&mut driver, &[KeyCode::Enter]).await;
    assert_ne!(driver.app.screens.subscriptions.rows.list.count(), count);
    keys(&mut driver, &[KeyCode::Esc]).await;
    assert_eq!(driver.app.screens.subscriptions.rows.list.count(), count);
    assert_eq!(driver.app.shown(), ScreenId::Subscriptions);
}

/// The shortest start of a name (spaces left out) that the picker's
/// search finds in no one else: not in their names, with or without
/// spaces, nor in their e-mail addresses.
fn unique_prefix(name: &str, everyone: &[(String, String)]) -> Option<String> {
    let compact = name.to_lowercase().replace(' ', "");
    (3..=compact.len())
        .map(|n| compact[..n].to_string())
        .find(|prefix| {
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
        .unwrap()
        .into_vec();
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
    // Who gains access is shown before anyone is added: y adds them.
    let shown = driver.screen();
    assert!(shown.contains("Who gains and who loses access"), "{shown}");
    keys(&mut driver, &[KeyCode::Char('y')]).await;
    pressed += 2;
    assert!(pressed < 39, "{pressed} keys");
    let role = driver.app.screens.members.resource.role.clone().unwrap();
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

/// The question on screen, if one is open.
fn question(driver: &Driver) -> Option<String> {
    match &driver.app.mode {
        orgdeck::console::shell::Mode::Confirm(confirm) => Some(confirm.question.clone()),
        _ => None,
    }
}

/// Puts the cursor of Subscriptions on this subscription (it must be loaded).
async fn cursor_on(driver: &mut Driver, id: i64) {
    keys(driver, &[KeyCode::Char('g')]).await;
    for _ in 0..200 {
        if driver.app.screens.subscriptions.selected().map(|row| row.id) == Some(id) {
            return;
        }
        keys(driver, &[KeyCode::Char('j')]).await;
    }
    panic!("#{id} is not on screen: {}", driver.screen());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn p_asks_before_a_resume_and_says_how_many_it_delivers_to() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let api = client_for(&server.base, &key);
    let project = server.project.to_string();
    let all = every_subscription(&server).await;
    // Paused ones a resume would deliver to: supported, not deleted; the
    // one resumed is mailed (its Slack ones may be through the revoked
    // integration, which the server refuses).
    let paused: Vec<&Subscription> = all
        .iter()
        .filter(|row| !row.is_enabled() && row.is_supported() && !row.deleted)
        .collect();
    let one = *paused
        .iter()
        .find(|row| row.target_type == Some(orgdeck::api::TargetType::Email))
        .expect("the demo has a paused subscription by e-mail");
    let paused: Vec<&Subscription> = paused.into_iter().filter(|row| row.id != one.id).collect();
    assert!(paused.len() >= 2, "the demo has paused subscriptions");
    let mut driver = console(&server, &key).await;
    keys(&mut driver, &[KeyCode::Char('3')]).await;
    cursor_on(&mut driver, one.id).await;
    keys(&mut driver, &[KeyCode::Char('p')]).await;
    let asked = question(&driver).unwrap_or_else(|| panic!("p resumed without asking: {}", driver.screen()));
    assert!(asked.starts_with(&format!("Resume #{}", one.id)), "{asked}");
    let recipients = one.recipients();
    assert!(
        asked.contains(&format!(
            "delivered at once to {recipients} recipient{}",
            if recipients == 1 { "" } else { "s" }
        )),
        "{asked}"
    );
    // Enter says no: nothing is sent.
    keys(&mut driver, &[KeyCode::Enter]).await;
    assert!(question(&driver).is_none());
    assert_eq!(
        api.subscription(&project, one.id).await.unwrap().enabled,
        Some(false)
    );
    // y resumes it.
    keys(&mut driver, &[KeyCode::Char('p'), KeyCode::Char('y')]).await;
    assert_eq!(
        api.subscription(&project, one.id).await.unwrap().enabled,
        Some(true)
    );

    // Marked paused ones: one question, every recipient counted; Enter says no.
    let (two, three) = (paused[0], paused[1]);
    let marked = vec![two.id, three.id];
    for id in &marked {
        cursor_on(&mut driver, *id).await;
        keys(&mut driver, &[KeyCode::Char(' ')]).await;
    }
    keys(&mut driver, &[KeyCode::Char('p')]).await;
    let asked = question(&driver).unwrap_or_else(|| panic!("{}", driver.screen()));
    let total: usize = marked
        .iter()
        .map(|id| all.iter().find(|row| row.id == *id).unwrap().recipients())
        .sum();
    assert!(asked.contains(&format!("{total} recipients in all")), "{asked}");
    keys(&mut driver, &[KeyCode::Enter]).await;
    for id in &marked {
        assert_eq!(
            api.subscription(&project, *id).await.unwrap().enabled,
            Some(false)
        );
    }
    keys(&mut driver, &[KeyCode::Esc]).await; // the marks go

    // On Health, the row's subscription: asked the same way.
    keys(&mut driver, &[KeyCode::Char('H')]).await;
    assert!(driver.settle(drive::SETTLE).await);
    let rows = &driver.app.screens.health.rows;
    let at = (0..rows.len())
        .find(|at| rows.row(*at).is_some_and(|row| row.id == two.id))
        .unwrap_or_else(|| panic!("#{} is on Health: {}", two.id, driver.screen()));
    keys(&mut driver, &[KeyCode::Char('g')]).await;
    for _ in 0..at {
        keys(&mut driver, &[KeyCode::Char('j')]).await;
    }
    keys(&mut driver, &[KeyCode::Char('p')]).await;
    let asked = question(&driver).unwrap_or_else(|| panic!("{}", driver.screen()));
    assert!(asked.starts_with(&format!("Resume #{}", two.id)), "{asked}");
    keys(&mut driver, &[KeyCode::Enter]).await;
    assert_eq!(
        api.subscription(&project, two.id).await.unwrap().enabled,
        Some(false)
    );
}

/// The form open for a subscription, if one is.
fn editing(driver: &Driver) -> Option<i64> {
    match &driver.app.mode {
        orgdeck::console::shell::Mode::Form(
            _,
            orgdeck::console::shell::FormPurpose::EditSubscription { id },
        ) => Some(*id),
        _ => None,
    }
}

/// Takes messages (timers included) until `done` says so.
async fn until(driver: &mut Driver, what: &str, done: impl Fn(&Driver) -> bool) {
    let deadline = tokio::time::Instant::now() + drive::SETTLE;
    while !done(driver) {
        match tokio::time::timeout_at(deadline, driver.next_message()).await {
            Ok(Some(msg)) => {
                driver.send(msg);
            }
            _ => panic!("never {what}: {}", driver.screen()),
        }
    }
}

/// A resume the server undoes (through the revoked Slack integration) says
/// "e edits the target" on the deliveries screen it was asked from: `e`
/// there edits their subscription, whether Subscriptions has loaded it or
/// the deliveries were opened with `:sub`; and `u`, which a soft-deleted
/// one's `p` names, restores it from its deliveries.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_keys_a_notice_names_work_on_the_deliveries_it_is_shown_on() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let api = client_for(&server.base, &key);
    let project = server.project.to_string();
    let all = every_subscription(&server).await;
    let revoked = all
        .iter()
        .find(|row| row.id == 13 && !row.is_enabled())
        .expect("the demo's #13 is auto-disabled through the revoked integration");
    let mut driver = console(&server, &key).await;
    keys(&mut driver, &[KeyCode::Char('3')]).await;
    cursor_on(&mut driver, revoked.id).await;
    keys(&mut driver, &[KeyCode::Enter]).await;
    assert_eq!(
        driver.app.shown(),
        orgdeck::console::screens::ScreenId::Deliveries
    );
    keys(&mut driver, &[KeyCode::Char('p'), KeyCode::Char('y')]).await;
    until(&mut driver, "told why it was paused again", |driver| {
        driver
            .app
            .notice
            .shown
            .as_ref()
            .is_some_and(|notice| notice.text.contains("paused it again") && notice.text.contains("e edits"))
    })
    .await;
    keys(&mut driver, &[KeyCode::Char('e')]).await;
    assert_eq!(editing(&driver), Some(revoked.id), "{}", driver.screen());
    keys(&mut driver, &[KeyCode::Esc]).await;
    assert_eq!(
        driver.app.shown(),
        orgdeck::console::screens::ScreenId::Deliveries
    );

    // Deliveries opened by :sub, their subscription not loaded anywhere:
    // e reads it, then edits it.
    keys(&mut driver, &[KeyCode::Char('1')]).await;
    drive::command(&mut driver, &format!("sub {}", revoked.id)).await;
    assert_eq!(
        driver.app.shown(),
        orgdeck::console::screens::ScreenId::Deliveries
    );
    keys(&mut driver, &[KeyCode::Char('e')]).await;
    assert_eq!(editing(&driver), Some(revoked.id), "{}", driver.screen());
    keys(&mut driver, &[KeyCode::Esc]).await;

    // A soft-deleted one: p on its deliveries says u restores it, and u does.
    let gone = all
        .iter()
        .find(|row| row.is_enabled() && !row.deleted && row.is_supported())
        .unwrap();
    api.soft_delete_subscription(&project, gone.id).await.unwrap();
    keys(&mut driver, &[KeyCode::Char('3'), KeyCode::Char('r')]).await;
    drive::command(&mut driver, &format!("sub {}", gone.id)).await;
    keys(&mut driver, &[KeyCode::Char('p')]).await;
    let notice = driver.app.notice.text().to_string();
    assert!(notice.contains("u restores it"), "{notice}\n{}", driver.screen());
    keys(&mut driver, &[KeyCode::Esc, KeyCode::Char('u')]).await;
    assert!(
        !api.subscription(&project, gone.id).await.unwrap().deleted,
        "{}",
        driver.screen()
    );
}
