//! The console's hot paths: `cargo bench --bench console`.
//!
//! - drawing the subscriptions tab at 200x50 (table, detail pane with the
//!   next deliveries, header, footer) for lists of 100 and 100,000 rows;
//! - handling a key press (moving the cursor through loaded rows);
//! - drawing the Health view of 10,000 subscriptions, and taking a batch
//!   of a look's rows into it;
//! - drawing the Access tab's grid of 1,000 people by 20 projects, and by
//!   one project's 35 columns, moving its cursor, and taking a project's
//!   cells into it.

// A benchmark's setup that fails has nothing to measure: it stops there, loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use orgdeck::api::health::{FailedRecipient, Health};
use orgdeck::api::time::parse_datetime;
use orgdeck::api::{Frequency, Page, Subscription, TargetType, User, Weekday};
use orgdeck::console::keymap::Keymap;
use orgdeck::console::kit::theme::Theme;
use orgdeck::console::screens;
use orgdeck::console::shell::draw;
use orgdeck::console::shell::{Effect, LookNews, ScreenId, ScreenPage, Ticket};
use orgdeck::console::{App, Context, Msg};
use orgdeck::health::{HealthRow, LookSummary};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn subscription(id: u64) -> Subscription {
    Subscription {
        id: id as i64,
        title: Some(format!("Weekly growth review ({id})")),
        target_type: Some(TargetType::Email),
        target_value: Some("oncall@hedgebox.dev, exec@hedgebox.dev".into()),
        frequency: Some(Frequency::Weekly),
        interval: Some(1),
        byweekday: Some(vec![Weekday::Monday, Weekday::Thursday]),
        start_date: parse_datetime("2026-01-05T09:00:00Z"),
        next_delivery_date: parse_datetime("2026-11-23T09:00:00Z"),
        summary: Some("sent every week".into()),
        created_by: Some(User {
            first_name: "Ada".into(),
            last_name: "Okafor".into(),
            email: "ada.okafor@hedgebox.dev".into(),
            ..User::default()
        }),
        ..Subscription::default()
    }
}

/// An app on the subscriptions tab of a list of `count` rows, with the
/// pages around a cursor in the middle loaded.
fn app(count: u64) -> App {
    let mut app = App::new(
        Context {
            host: "bench".into(),
            ..Context::default()
        },
        Keymap::default(),
        (200, 50),
    );
    app.window.now = parse_datetime("2026-11-22T10:00:00Z").unwrap_or_default();
    app.start();
    app.update(Msg::Key(KeyEvent::new(KeyCode::Char('3'), KeyModifiers::NONE)));
    let generation = app.screens.subscriptions.rows.list.generation();
    let page = |offset: u64| Msg::Page {
        list: ScreenId::Subscriptions,
        generation,
        offset,
        result: Ok(ScreenPage::new(Page {
            count,
            next: None,
            previous: None,
            results: (offset..(offset + 100).min(count)).map(subscription).collect(),
        })),
    };
    app.update(page(0));
    // The cursor in the middle, then the pages around it arrive, as they
    // would: every row on screen is a real row, the detail pane shows one.
    let height = app.table_height();
    app.screens.subscriptions.rows.move_to((count / 2) as i64, height);
    let middle = (count / 2 / 100) * 100;
    for offset in [middle.saturating_sub(100), middle, middle + 100] {
        if offset < count {
            app.update(page(offset));
        }
    }
    assert!(
        app.screens.subscriptions.rows.selected().is_some(),
        "the selected row is loaded"
    );
    let last_on_screen = (app.screens.subscriptions.rows.top + height - 1).min(count - 1);
    assert!(
        app.screens.subscriptions.rows.row(last_on_screen).is_some(),
        "every row on screen is loaded"
    );
    app
}

fn drawing(c: &mut Criterion) {
    let theme = Theme::colored();
    let mut group = c.benchmark_group("draw the subscriptions tab at 200x50");
    for count in [100, 100_000] {
        let app = app(count);
        let mut terminal = Terminal::new(TestBackend::new(200, 50)).expect("terminal");
        group.bench_with_input(
            BenchmarkId::from_parameter(format!("{count} rows")),
            &app,
            |b, app| {
                b.iter(|| {
                    terminal
                        .draw(|frame| draw::draw(frame, app, &theme))
                        .expect("draw");
                })
            },
        );
    }
    group.finish();
}

fn keys(c: &mut Criterion) {
    let mut app = app(100_000);
    let down = Msg::Key(KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE));
    let up = Msg::Key(KeyEvent::new(KeyCode::Char('k'), KeyModifiers::NONE));
    let mut flip = false;
    c.bench_function("handle a key press (100,000 rows)", |b| {
        b.iter(|| {
            flip = !flip;
            let key = if flip { &down } else { &up };
            let key = match key {
                Msg::Key(event) => Msg::Key(*event),
                _ => unreachable!("only keys here"),
            };
            app.update(key)
        })
    });
}

fn health_row(id: u64) -> HealthRow {
    let health = Health::ALL[(id % Health::ALL.len() as u64) as usize];
    HealthRow {
        id: id as i64,
        title: format!("Weekly growth review ({id})"),
        target: "email oncall@hedgebox.dev, exec@hedgebox.dev".into(),
        health,
        since: parse_datetime("2026-11-20T09:00:00Z"),
        streak: (id % 7) as u32,
        last_delivery: parse_datetime("2026-11-22T09:00:00Z"),
        failed_recipients: vec![FailedRecipient {
            recipient: "exec@hedgebox.invalid".into(),
            error: "Domain hedgebox.invalid does not exist".into(),
        }],
        next_delivery_date: parse_datetime("2026-11-23T09:00:00Z"),
        fix: Some("address does not exist: remove it from the recipients (e)".into()),
        newly: id.is_multiple_of(11),
        pending: false,
    }
}

/// An app on Health whose look sent `count` rows in batches of 500, in no
/// order, the cursor in the middle.
fn health(count: u64) -> (App, Ticket) {
    let mut app = App::new(
        Context {
            host: "bench".into(),
            ..Context::default()
        },
        Keymap::default(),
        (200, 50),
    );
    app.window.now = parse_datetime("2026-11-22T10:00:00Z").unwrap_or_default();
    app.start();
    let effects = app.update(Msg::Key(KeyEvent::new(KeyCode::Char('H'), KeyModifiers::NONE)));
    let ticket = effects
        .iter()
        .find_map(|effect| match effect {
            Effect::Ask(screens::ScreenAsk::Health(screens::health::Ask::Look { ticket, .. })) => {
                Some(*ticket)
            }
            _ => None,
        })
        .expect("a look");
    let ids: Vec<u64> = (0..count).map(|n| (n * 7_919) % count).collect();
    for batch in ids.chunks(500) {
        app.update(
            screens::health::Msg::LookNews {
                ticket,
                news: LookNews::Rows(batch.iter().map(|id| health_row(*id)).collect()),
            }
            .into(),
        );
    }
    app.update(
        screens::health::Msg::Looked {
            ticket,
            result: Ok(LookSummary {
                coverage: orgdeck::health::Coverage {
                    total: count,
                    known: count,
                    requests: count + 1,
                    ..orgdeck::health::Coverage::default()
                },
                read: count,
                ..LookSummary::default()
            }),
        }
        .into(),
    );
    let height = app.table_height();
    app.screens.health.rows.move_to((count / 2) as i64, height);
    assert_eq!(app.screens.health.rows.len(), count);
    (app, ticket)
}

fn health_view(c: &mut Criterion) {
    let theme = Theme::colored();
    let (app, _) = health(10_000);
    let mut terminal = Terminal::new(TestBackend::new(200, 50)).expect("terminal");
    c.bench_function("draw the Health view at 200x50 (10,000 rows)", |b| {
        b.iter(|| {
            terminal
                .draw(|frame| draw::draw(frame, &app, &theme))
                .expect("draw");
        })
    });
    // A look under way: a batch of 500 rows looked at again arrives.
    let (mut app, _) = health(10_000);
    let effects = app.update(Msg::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::NONE)));
    let ticket = effects
        .iter()
        .find_map(|effect| match effect {
            Effect::Ask(screens::ScreenAsk::Health(screens::health::Ask::Look { ticket, .. })) => {
                Some(*ticket)
            }
            _ => None,
        })
        .expect("a look");
    let batch: Vec<HealthRow> = (0..500).map(|n| health_row(n * 20)).collect();
    c.bench_function(
        "take a batch of 500 rows into the Health view (10,000 rows)",
        |b| {
            b.iter(|| {
                app.update(
                    screens::health::Msg::LookNews {
                        ticket,
                        news: LookNews::Rows(batch.clone()),
                    }
                    .into(),
                )
            })
        },
    );
}

/// An app on the Access tab holding a grid of `people` people by
/// `projects` projects, every cell read; and its read's ticket.
fn access(people: usize, projects: usize) -> (App, Ticket) {
    use orgdeck::access::directory::ProjectRef;
    use orgdeck::access::grid::{self, Cell, Frame, Kind, Level, News, ProjectCells, Subject};
    use orgdeck::api::access::AccessLevel;
    let mut app = App::new(
        Context {
            host: "bench".into(),
            ..Context::default()
        },
        Keymap::default(),
        (200, 50),
    );
    app.start();
    let effects = app.update(Msg::Key(KeyEvent::new(KeyCode::Char('5'), KeyModifiers::NONE)));
    let ticket = effects
        .iter()
        .find_map(|effect| match effect {
            Effect::Ask(screens::ScreenAsk::Access(screens::access::Ask::Read { ticket, .. })) => {
                Some(*ticket)
            }
            _ => None,
        })
        .expect("a read");
    let frame = Frame {
        organization: Default::default(),
        projects: (0..projects)
            .map(|id| ProjectRef {
                id: id as i64 + 1,
                name: format!("Hedgebox project {id}"),
            })
            .collect(),
        subjects: (0..people)
            .map(|n| Subject {
                id: format!("membership-{n}"),
                name: format!("Person Number {n}"),
                email: format!("person.{n}@hedgebox.dev"),
                level: "member".into(),
                admin: n % 50 == 0,
                roles: vec![format!("Role {}", n % 50)],
                members: 0,
            })
            .collect(),
    };
    let news = |news: News| {
        screens::access::Msg::News {
            ticket,
            kind: Kind::People,
            news,
        }
        .into()
    };
    app.update(news(News::Framed(Box::new(frame))));
    let levels = [
        AccessLevel::None,
        AccessLevel::Member,
        AccessLevel::Viewer,
        AccessLevel::Editor,
    ];
    for at in 0..projects {
        app.update(news(News::Project(Box::new(project(at, people, &levels)))));
    }
    fn project(at: usize, people: usize, levels: &[AccessLevel]) -> ProjectCells {
        let width = grid::column_count();
        ProjectCells {
            at,
            defaults: vec![
                Cell {
                    level: Level::of(Some(&AccessLevel::Member)),
                    source: 0,
                };
                width
            ],
            cells: (0..people * width)
                .map(|n| Cell {
                    level: Level::of(Some(&levels[n % levels.len()])),
                    source: (n % 3) as u16,
                })
                .collect(),
            sources: vec!["everyone".into(), "role Role 7".into(), "own rule".into()],
            ..ProjectCells::default()
        }
    }
    let height = app.table_height();
    app.screens.access.move_to((people / 2) as i64, height);
    (app, ticket)
}

fn access_view(c: &mut Criterion) {
    let theme = Theme::colored();
    let (mut app, _) = access(1_000, 20);
    let mut terminal = Terminal::new(TestBackend::new(200, 50)).expect("terminal");
    c.bench_function(
        "draw the Access grid at 200x50 (1,000 people x 20 projects)",
        |b| {
            b.iter(|| {
                terminal
                    .draw(|frame| draw::draw(frame, &app, &theme))
                    .expect("draw");
            })
        },
    );
    // One project's 35 columns, scrolled sideways.
    app.update(Msg::Key(KeyEvent::new(KeyCode::Char('P'), KeyModifiers::SHIFT)));
    c.bench_function(
        "draw the Access grid at 200x50 (1,000 people x one project's 35 columns)",
        |b| {
            b.iter(|| {
                terminal
                    .draw(|frame| draw::draw(frame, &app, &theme))
                    .expect("draw");
            })
        },
    );
    let mut flip = false;
    c.bench_function("move the Access grid's cursor a column (1,000 x 35)", |b| {
        b.iter(|| {
            flip = !flip;
            let code = if flip {
                KeyCode::Char('l')
            } else {
                KeyCode::Char('h')
            };
            app.update(Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)))
        })
    });
    c.bench_function(
        "narrow the Access grid to what differs, or back (1,000 x 35)",
        |b| b.iter(|| app.update(Msg::Key(KeyEvent::new(KeyCode::Char('o'), KeyModifiers::NONE)))),
    );
}

criterion_group!(console, drawing, keys, health_view, access_view);
criterion_main!(console);
