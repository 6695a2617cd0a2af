//! Every main screen at 80x24, 120x40 and 200x60 (issue 24, requirements
//! 4 and 5), against the demo seeded at a fixed moment, on a manual clock
//! the server and the console share: the footer ends with `? help`, the
//! breadcrumb keeps its last part, ids are as wide as the widest id,
//! relative times are never cut, the deliveries keep AGO and who was not
//! reached, the form keeps its hint in sight; and values in words (a
//! channel by its name, an integration by its name and state, an untitled
//! subscription by what it delivers, no next delivery for a paused one).

use std::time::Duration;

use orgdeck::clock::Clock;
use orgdeck::console::kit::theme::Theme;
use orgdeck::console::shell::Mode;
use orgdeck::console::{Context, Driver};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::KeyCode;

use crate::support::{TestServer, client_for, seeded};

const SETTLE: Duration = Duration::from_secs(30);

/// The sizes users reported the issue at.
const SIZES: [(u16, u16); 3] = [(80, 24), (120, 40), (200, 60)];

struct Demo {
    server: TestServer,
    clock: Clock,
    key: String,
    state: tempfile::TempDir,
}

impl Demo {
    async fn start() -> Demo {
        let clock = Clock::manual(seeded());
        let shared = clock.clone();
        let server = TestServer::demo_with(move |options| options.clock = shared).await;
        let key = server.key(&["*"]);
        Demo {
            server,
            clock,
            key,
            state: tempfile::tempdir().unwrap(),
        }
    }

    /// The console at this size, on Roles, its first pages loaded.
    async fn console(&self, size: (u16, u16), theme: Theme) -> Driver {
        let context = Context {
            host: "reference server".into(),
            organization: self.server.organization.clone(),
            project: self.server.project.to_string(),
            ..Context::default()
        };
        let mut driver = Driver::new(client_for(&self.server.base, &self.key), context, size, theme);
        driver.clock = self.clock.clone();
        driver.state_dir = self.state.path().to_path_buf();
        driver.app.window.now = self.clock.now();
        driver.start();
        assert!(driver.settle(SETTLE).await);
        driver
    }
}

async fn press(driver: &mut Driver, keys: &[KeyCode]) {
    for code in keys {
        driver.press(*code);
        assert!(driver.settle(SETTLE).await, "{}", driver.screen());
    }
}

async fn typed(driver: &mut Driver, text: &str) {
    driver.type_text(text);
    assert!(driver.settle(SETTLE).await);
}

/// `:` and a command, run.
async fn command(driver: &mut Driver, text: &str) {
    press(driver, &[KeyCode::Char(':')]).await;
    typed(driver, text).await;
    press(driver, &[KeyCode::Enter]).await;
}

/// The screen with the request timing (the one thing that varies)
/// cleared, after what every screen must do at every size: fill the
/// screen, and end its keys with `? help`.
fn screen(driver: &mut Driver) -> String {
    let text = drawn(driver);
    let (width, height) = driver.app.window.size;
    let keys = text.lines().nth(usize::from(height) - 2).unwrap_or_default();
    assert!(keys.ends_with("? help"), "{width}x{height}: {keys}\n{text}");
    text
}

/// The screen, timing cleared, filling the screen.
fn drawn(driver: &mut Driver) -> String {
    let on_health = driver.app.shown() == orgdeck::console::shell::ScreenId::Health;
    if let Some(log) = driver.app.requests.last.as_mut() {
        log.elapsed = Duration::ZERO;
        // A look's last read is whichever of those in flight ended last.
        if on_health && log.request.path.ends_with("/deliveries/") {
            log.request.path = "/api/projects/1/subscriptions/N/deliveries/".into();
        }
    }
    let text = driver.screen();
    assert_eq!(
        text.lines().count(),
        usize::from(driver.app.window.size.1),
        "{text}"
    );
    text
}

/// The table's data rows: the lines between its header and its bottom
/// border, the table's part of them (left of the detail pane).
fn rows(text: &str) -> Vec<String> {
    text.lines()
        .skip(4)
        .take_while(|line| !line.starts_with('╰'))
        .map(|line| {
            let table: String = line.chars().skip(1).take_while(|c| *c != '│').collect();
            table.trim_end().to_string()
        })
        .filter(|row| !row.is_empty())
        .collect()
}

/// The screen with the selected delivery's id (made when the demo is
/// seeded, so new on each run) masked, where the pane shows it whole or
/// wrapped over two lines.
fn masked(driver: &Driver, text: String) -> String {
    let Some(id) = driver
        .app
        .screens
        .deliveries
        .selected()
        .map(|delivery| delivery.id.clone())
    else {
        return text;
    };
    let mask = |part: &str| "x".repeat(part.chars().count());
    if text.contains(&id) {
        return text.replace(&id, &mask(&id));
    }
    for at in 4..id.len().saturating_sub(4) {
        let (head, tail) = id.split_at(at);
        let wrapped = text
            .lines()
            .zip(text.lines().skip(1))
            .any(|(line, next)| line.trim_end_matches(['│', ' ']).ends_with(head) && next.contains(tail));
        if wrapped {
            return text.replace(head, &mask(head)).replace(tail, &mask(tail));
        }
    }
    text
}

fn row<'a>(rows: &'a [String], holding: &str) -> &'a str {
    rows.iter()
        .find(|row| row.contains(holding))
        .unwrap_or_else(|| panic!("no row holds {holding}: {rows:#?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roles_and_a_roles_members_at_every_width() {
    let demo = Demo::start().await;
    for (width, height) in SIZES {
        let mut driver = demo.console((width, height), Theme::plain()).await;
        let roles = screen(&mut driver);
        assert!(row(&rows(&roles), "Engineering").contains("11"), "{roles}");
        insta::assert_snapshot!(format!("widths_roles_{width}x{height}"), roles);

        press(&mut driver, &[KeyCode::Enter]).await;
        let members = screen(&mut driver);
        // The breadcrumb keeps its last part, whatever the width.
        let tabs = members.lines().nth(1).unwrap();
        assert!(tabs.ends_with("› Engineering › members"), "{tabs}");
        // A name is shown whole before the e-mail or the dates are.
        assert!(
            row(&rows(&members), "Bruno Lindqvist ").contains("admin"),
            "{members}"
        );
        insta::assert_snapshot!(format!("widths_members_{width}x{height}"), members);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_at_every_width() {
    let demo = Demo::start().await;
    for (width, height) in SIZES {
        let mut driver = demo.console((width, height), Theme::plain()).await;
        press(&mut driver, &[KeyCode::Char('3')]).await;
        let list = screen(&mut driver);
        let shown = rows(&list);
        // Ids as wide as the widest id shown (three digits), then the title.
        assert!(list.lines().nth(3).unwrap().starts_with("│ID  TITLE"), "{list}");
        assert!(row(&shown, "120 Release metrics").contains("active"), "{list}");
        // A Slack target is its channel, with its workspace (the project
        // has two), never "slack C…|#…".
        let release = row(&shown, "Release metrics");
        assert!(release.contains("#release"), "{release}");
        assert!(!release.contains("slack"), "{release}");
        // Paused: no next delivery is promised.
        let paused = row(&shown, "Webinar signups");
        assert_eq!(paused.matches("paused").count(), 2, "{paused}");
        assert!(!paused.contains(" in ") && !paused.contains("now"), "{paused}");
        // The relative time is never cut.
        let next = row(&shown, "Deploy errors");
        assert!(next.contains("in 7h"), "{next}");
        assert!(
            !shown
                .iter()
                .any(|row| row.contains("in 7…") || row.contains("ago…"))
        );
        insta::assert_snapshot!(format!("widths_subscriptions_{width}x{height}"), list);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deliveries_keep_when_and_who_was_not_reached_at_every_width() {
    let demo = Demo::start().await;
    for (width, height) in SIZES {
        let mut driver = demo.console((width, height), Theme::plain()).await;
        press(&mut driver, &[KeyCode::Char('3')]).await;
        // #78 reaches two of its three recipients.
        command(&mut driver, "sub 78").await;
        let partial = screen(&mut driver);
        let partial = masked(&driver, partial);
        let tabs = partial.lines().nth(1).unwrap();
        assert!(tabs.ends_with("#78 Weekly revenue › deliveries"), "{tabs}");
        let shown = rows(&partial);
        assert!(shown.len() >= 4, "{partial}");
        for row in &shown {
            // AGO whole, and the error is who and why, not how many.
            assert!(row.contains(" ago "), "{row}");
            assert!(row.contains("accounts@…: Domain"), "{row}");
            assert!(!row.contains("recipients failed"), "{row}");
        }
        if width >= 200 {
            assert!(
                shown[0].contains("accounts@…: Domain hedgebox-finance.invalid does not exist"),
                "{partial}"
            );
            assert!(partial.contains("TIME (UTC)"), "{partial}");
        }
        insta::assert_snapshot!(format!("widths_deliveries_{width}x{height}"), partial);

        // #35 fails for its one recipient, at `.invalid`.
        press(&mut driver, &[KeyCode::Char('q')]).await;
        command(&mut driver, "sub 35").await;
        let failing = screen(&mut driver);
        let newest = rows(&failing).into_iter().next().unwrap();
        assert!(newest.contains("FAILED") && newest.contains(" ago "), "{failing}");
        assert!(newest.contains("support-leads@…: Domain"), "{failing}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_at_every_width() {
    let demo = Demo::start().await;
    for (width, height) in SIZES {
        let mut driver = demo.console((width, height), Theme::plain()).await;
        press(&mut driver, &[KeyCode::Char('H')]).await;
        let board = screen(&mut driver);
        let shown = rows(&board);
        assert!(
            row(&shown, "Support load check").starts_with("failing"),
            "{board}"
        );
        assert!(row(&shown, "Error rate").contains("auto-disabled"), "{board}");
        // The fix is kept before who it fails for and the streak.
        assert!(
            row(&shown, "Daily signups").contains("Slack integration"),
            "{board}"
        );
        if width >= 200 {
            assert!(row(&shown, "Daily signups").contains("#metrics: "), "{board}");
        }
        insta::assert_snapshot!(format!("widths_health_{width}x{height}"), board);
    }
}

/// The edit form of #13, the demo's subscription through the revoked
/// Slack integration.
async fn edit_13(driver: &mut Driver) {
    press(driver, &[KeyCode::Char('3'), KeyCode::Char('/')]).await;
    typed(driver, "Daily signups").await;
    press(driver, &[KeyCode::Enter]).await;
    assert_eq!(
        driver.app.screens.subscriptions.selected().map(|s| s.id),
        Some(13)
    );
    press(driver, &[KeyCode::Char('e')]).await;
    assert!(matches!(driver.app.mode, Mode::Form(..)), "{}", driver.screen());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_form_scrolls_inside_its_box_and_keeps_its_hint_at_every_width() {
    let demo = Demo::start().await;
    for (width, height) in SIZES {
        let mut driver = demo.console((width, height), Theme::plain()).await;
        edit_13(&mut driver).await;
        // The form covers the keys of the list under it on a short screen.
        let form = drawn(&mut driver);
        assert!(form.contains("Edit subscription #13"), "{form}");
        assert!(form.contains("Enter or Ctrl-S save · Esc cancel"), "{form}");
        insta::assert_snapshot!(format!("widths_form_{width}x{height}"), form);
        // To the last field: the fields scroll, the hint stays.
        for _ in 0..20 {
            press(&mut driver, &[KeyCode::Tab]).await;
            if let Mode::Form(form, _) = &driver.app.mode
                && form.fields[form.focus].name == "send_test_now"
            {
                break;
            }
        }
        let last = drawn(&mut driver);
        assert!(last.contains("› Deliver once on save"), "{last}");
        assert!(last.contains("Esc cancel"), "{last}");
        if height < 30 {
            assert!(last.contains("▲ more"), "{last}");
            assert!(!last.contains("Delivers   "), "scrolled: {last}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn values_are_shown_in_words() {
    let demo = Demo::start().await;
    let mut driver = demo.console((200, 60), Theme::colored()).await;
    press(&mut driver, &[KeyCode::Char('3')]).await;

    // An untitled subscription shows what it delivers, in the dim colour.
    let untitled = driver
        .app
        .screens
        .subscriptions
        .rows
        .list
        .loaded()
        .map(|(_, row)| row.clone())
        .find(|row| row.title.as_deref().is_none_or(|title| title.trim().is_empty()))
        .expect("the demo has an untitled subscription");
    let name = untitled.resource_name.clone().unwrap();
    let mut terminal = Terminal::new(TestBackend::new(200, 60)).unwrap();
    driver.draw(&mut terminal).unwrap();
    let buffer = terminal.backend().buffer();
    let id = format!("{} ", untitled.id);
    let y = (0..60)
        .find(|&y| {
            let line: String = (0..200).map(|x| buffer[(x, y)].symbol().to_string()).collect();
            line.starts_with(&format!("│{id}")) && line.contains(&name)
        })
        .unwrap_or_else(|| panic!("#{} shows {name}", untitled.id));
    let line: String = (0..200).map(|x| buffer[(x, y)].symbol().to_string()).collect();
    let x = line.find(&name).map(|at| line[..at].chars().count()).unwrap();
    assert_eq!(
        buffer[(u16::try_from(x).unwrap(), y)].fg,
        Theme::colored().dim.fg.unwrap(),
        "{line}"
    );

    // The detail names the integration and says it is revoked.
    press(&mut driver, &[KeyCode::Char('/')]).await;
    typed(&mut driver, "Daily signups").await;
    press(&mut driver, &[KeyCode::Enter]).await;
    let detail = driver.screen();
    assert!(detail.contains("target         Slack #metrics"), "{detail}");
    assert!(
        detail.contains("via            Hedgebox (old workspace), revoked"),
        "{detail}"
    );
    assert!(!detail.contains("integration 1"), "{detail}");
    assert!(detail.contains("none while paused"), "{detail}");

    // An edit's diff names the integrations, not their ids.
    press(&mut driver, &[KeyCode::Char('e')]).await;
    for _ in 0..20 {
        if let Mode::Form(form, _) = &driver.app.mode
            && form.fields[form.focus].name == "integration_id"
        {
            break;
        }
        press(&mut driver, &[KeyCode::Tab]).await;
    }
    press(&mut driver, &[KeyCode::Left, KeyCode::Enter]).await;
    let Mode::Confirm(confirm) = &driver.app.mode else {
        panic!("{}", driver.screen());
    };
    assert!(
        confirm
            .question
            .contains("Slack via: Hedgebox (old workspace) (revoked: cannot deliver) → Hedgebox"),
        "{}",
        confirm.question
    );
    assert!(!confirm.question.contains("revoked:1"), "{}", confirm.question);
}
