//! Offboarding a person (`O`): the options as toggles (all off to begin
//! with), the plan step by step as `people::offboard::plan` words it (made
//! again when an option changes), its warnings; then, once confirmed, each
//! step's outcome as it ends (✓ done, = already so, ✗ failed and why), and
//! at the end a summary and where the record went.

use std::cmp::Ordering;

use ratatui::layout::Constraint;
use ratatui::text::{Line, Span};
use serde::Serialize;

use crate::console::kit::cell::contains;
use crate::console::kit::column::{Column, Sort};
use crate::console::kit::detail::field;
use crate::console::kit::latest::Ticket;
use crate::console::kit::scope::Scope;
use crate::console::kit::view::ViewCx;
use crate::console::screens;
use crate::console::screens::list::Resource;
use crate::console::screens::{Held, ScreenId};
use crate::console::table::Table;
use crate::console::table::hooks::Hooks;
use crate::console::table::listing::Listing;
use crate::people::offboard::{self, Options, Plan, Status, Step};
use crate::people::profile::Profile;
use crate::text::plural;

/// One of the plan's options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Toggle {
    PauseCreated,
    DeleteSole,
    RemoveFromOrganization,
}

impl Toggle {
    pub const ALL: [Toggle; 3] = [
        Toggle::PauseCreated,
        Toggle::DeleteSole,
        Toggle::RemoveFromOrganization,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Toggle::PauseCreated => "pause the subscriptions they created",
            Toggle::DeleteSole => "soft-delete those that mail them alone (else paused)",
            Toggle::RemoveFromOrganization => "remove them from the organization",
        }
    }

    pub fn is_on(self, options: &Options) -> bool {
        match self {
            Toggle::PauseCreated => options.pause_created,
            Toggle::DeleteSole => options.delete_sole,
            Toggle::RemoveFromOrganization => options.remove_from_organization,
        }
    }

    pub fn flip(self, options: &mut Options) {
        let option = match self {
            Toggle::PauseCreated => &mut options.pause_created,
            Toggle::DeleteSole => &mut options.delete_sole,
            Toggle::RemoveFromOrganization => &mut options.remove_from_organization,
        };
        *option = !*option;
    }
}

/// Where the offboarding is.
#[derive(Debug, Clone, PartialEq)]
pub enum Phase {
    /// The plan is shown; options may change.
    Planning,
    /// Sent with this write's ticket; steps report as they end.
    Running { ticket: Ticket },
    /// Ended: where the record went, or why it could not be written.
    Done {
        record: Result<std::path::PathBuf, String>,
    },
}

/// The offboarding of one person.
#[derive(Debug, Clone)]
pub struct Screen {
    pub profile: Box<Profile>,
    pub plan: Plan,
    pub phase: Phase,
}

impl Screen {
    pub fn new(profile: Box<Profile>) -> Screen {
        let plan = offboard::plan(&profile, Options::default());
        Screen {
            profile,
            plan,
            phase: Phase::Planning,
        }
    }

    /// An option changed: the plan is made again.
    pub fn toggle(&mut self, toggle: Toggle) {
        let mut options = self.plan.options;
        toggle.flip(&mut options);
        self.plan = offboard::plan(&self.profile, options);
    }

    /// "4 done, 0 already so, 0 failed".
    pub fn summary(&self) -> String {
        format!(
            "{} done, {} already so, {} failed",
            self.plan.count(Status::Done),
            self.plan.count(Status::Unchanged),
            self.plan.failed()
        )
    }

    /// Steps that write and have ended.
    pub fn ended(&self) -> usize {
        self.plan
            .steps
            .iter()
            .filter(|step| matches!(step.status, Status::Done | Status::Unchanged | Status::Failed))
            .count()
    }
}

/// A line of the screen.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Item {
    Heading { text: String },
    Option { toggle: Toggle, on: bool },
    Warning { text: String },
    Step { number: usize, step: Box<Step> },
    Text { text: String },
}

#[derive(Debug, Default)]
pub struct Offboarding {
    pub screen: Option<Box<Screen>>,
}

impl Offboarding {
    pub fn is_running(&self) -> bool {
        self.screen
            .as_ref()
            .is_some_and(|screen| matches!(screen.phase, Phase::Running { .. }))
    }
}

const COLUMNS: [Column; 1] = [Column::new("", Constraint::Fill(1), 0)];

const SORTS: [Sort; 1] = [Sort {
    label: "in order",
    column: None,
    descending: false,
    ordering: None,
}];

/// The screen's lines.
pub fn items(screen: &Screen) -> Vec<Item> {
    let plan = &screen.plan;
    let mut items = Vec::new();
    if screen.phase == Phase::Planning {
        items.push(Item::Heading {
            text: "Options (Space turns the one under the cursor on or off)".into(),
        });
        items.extend(Toggle::ALL.into_iter().map(|toggle| Item::Option {
            toggle,
            on: toggle.is_on(&plan.options),
        }));
    }
    items.extend(
        plan.warnings
            .iter()
            .map(|text| Item::Warning { text: text.clone() }),
    );
    let changes = plan.changes();
    items.push(Item::Heading {
        text: format!("Plan: {changes} change{}", plural(changes)),
    });
    items.extend(plan.steps.iter().enumerate().map(|(at, step)| Item::Step {
        number: at + 1,
        step: Box::new(step.clone()),
    }));
    match &screen.phase {
        Phase::Planning if changes == 0 => items.push(Item::Text {
            text: "nothing to change: every step is done already".into(),
        }),
        Phase::Planning => items.push(Item::Text {
            text: "Enter runs it, after asking".into(),
        }),
        Phase::Running { .. } => items.push(Item::Text {
            text: format!("running: {} of {changes} ended", screen.ended()),
        }),
        Phase::Done { record } => {
            items.push(Item::Heading {
                text: format!("Done: {}", screen.summary()),
            });
            items.push(Item::Text {
                text: match record {
                    Ok(path) => format!("record: {}", path.display()),
                    Err(error) => format!("the record could not be written: {error}"),
                },
            });
        }
    }
    items
}

impl Listing for Offboarding {
    type Row = Item;
    const NOUN: &'static str = "line";

    fn columns(&self) -> &'static [Column] {
        &COLUMNS
    }

    fn cells(&self, item: &Item, view: &ViewCx) -> Vec<Span<'static>> {
        super::draw::cells(item, view)
    }

    fn detail(&self, item: &Item, view: &ViewCx) -> (String, Vec<Line<'static>>) {
        let theme = view.theme;
        match item {
            Item::Step { number, step } => {
                let shown = |value: &Option<serde_json::Value>| {
                    value
                        .as_ref()
                        .map(|value| value.to_string())
                        .unwrap_or_else(|| "-".into())
                };
                let mut lines = vec![
                    field("step", step.description.clone(), theme),
                    field("status", format!("{:?}", step.status).to_lowercase(), theme),
                    field("before", shown(&step.before), theme),
                    field("after", shown(&step.after), theme),
                ];
                if let Some(error) = &step.error {
                    lines.push(field("error", error.clone(), theme));
                }
                (format!("step {number}"), lines)
            }
            Item::Option { toggle, on } => (
                "option".into(),
                vec![
                    field("option", toggle.label(), theme),
                    field("now", if *on { "on" } else { "off" }, theme),
                ],
            ),
            Item::Heading { text: said } | Item::Warning { text: said } | Item::Text { text: said } => (
                self.heading(),
                vec![Line::raw(format!(" {}", crate::text::printable(said)))],
            ),
        }
    }

    fn id(item: &Item) -> String {
        match item {
            Item::Step { number, .. } => number.to_string(),
            Item::Option { toggle, .. } => format!("{toggle:?}"),
            Item::Heading { text } | Item::Warning { text } | Item::Text { text } => text.clone(),
        }
    }

    fn matches(item: &Item, needle: &str) -> bool {
        serde_json::to_string(item).is_ok_and(|json| contains(&json, needle))
    }

    fn sorts(&self) -> &'static [Sort] {
        &SORTS
    }

    fn compare(_a: &Item, _b: &Item, _sort: &Sort) -> Ordering {
        Ordering::Equal
    }
}

impl screens::Screen for Offboarding {
    const ID: ScreenId = ScreenId::Offboard;
    const TITLE: &'static str = "Offboard";
    const TAB: ScreenId = ScreenId::People;
    const PARENT: Option<ScreenId> = Some(ScreenId::Person);
    const WRITE_SCOPE: &'static str = "organization:write";
}

impl Hooks for Offboarding {
    type Pager = crate::console::table::pager::Whole;
}

impl Resource for Offboarding {
    type Request = Held<Item>;

    fn heading(&self) -> String {
        let Some(screen) = &self.screen else {
            return <Self as screens::Screen>::TITLE.into();
        };
        let person = &screen.plan.person;
        let state = match &screen.phase {
            Phase::Planning => "plan",
            Phase::Running { .. } => "running",
            Phase::Done { .. } => "done",
        };
        format!("Offboard {} <{}> · {state}", person.name, person.email)
    }

    fn is_open(&self) -> bool {
        self.screen.is_some()
    }

    /// Leaving forgets the plan, unless it is running: its steps go on,
    /// and `O` comes back to them.
    fn close(&mut self) {
        if !self.is_running() {
            self.screen = None;
        }
    }

    fn query(&self, _scope: Scope) -> Option<Held<Item>> {
        None
    }

    fn empty(&self) -> &'static str {
        "no plan"
    }

    fn status(&self, view: &ViewCx) -> Option<Line<'static>> {
        let theme = view.theme;
        let screen = self.screen.as_ref()?;
        let said = match &screen.phase {
            Phase::Planning => " Space: option · Enter: run (asks first) · Esc: back ".to_string(),
            Phase::Running { .. } => format!(
                " {} of {} ended · Esc leaves; the steps sent go on ",
                screen.ended(),
                screen.plan.changes()
            ),
            Phase::Done { .. } => format!(" {} ", screen.summary()),
        };
        Some(Line::styled(said, theme.dim))
    }
}

impl Table<Offboarding> {
    /// The lines again, after the plan or its phase changed.
    pub fn redraw(&mut self, height: u64) {
        let items = self.resource.screen.as_deref().map(items).unwrap_or_default();
        let cursor = self.rows.cursor as i64;
        self.rows.list.hold_all(items);
        self.apply_view(height);
        self.rows.move_to(cursor, height);
    }

    /// The option under the cursor, if it is one.
    pub fn selected_toggle(&self) -> Option<Toggle> {
        match self.selected()? {
            Item::Option { toggle, .. } => Some(*toggle),
            _ => None,
        }
    }
}
