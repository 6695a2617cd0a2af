//! Offboarding a person (`O`): the options as toggles (all off to begin
//! with), the plan step by step as `people::offboard::plan` words it (made
//! again when an option changes), its warnings; then, once confirmed, each
//! step's outcome as it ends (✓ done, = already so, ✗ failed and why), and
//! at the end a summary and where the record went.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Block;
use serde::Serialize;

use crate::console::kit::detail::field;
use crate::console::kit::latest::Ticket;
use crate::console::kit::page::{Lines, PageItem, PageLines};
use crate::console::kit::view::ViewCx;
use crate::console::screens;
use crate::console::screens::shown::{Page, Place};
use crate::console::screens::{Ctx, ScreenId};
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

/// The offboarding page: the run planned or under way (kept while it
/// runs, whoever is shown), and its lines with the cursor over them.
#[derive(Debug, Default)]
pub struct Offboarding {
    pub screen: Option<Box<Screen>>,
    pub lines: Lines<Item>,
}

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

impl PageItem for Item {
    fn id(&self) -> String {
        match self {
            Item::Step { number, .. } => number.to_string(),
            Item::Option { toggle, .. } => format!("{toggle:?}"),
            Item::Heading { text } | Item::Warning { text } | Item::Text { text } => text.clone(),
        }
    }
}

impl screens::Screen for Offboarding {
    const ID: ScreenId = ScreenId::Offboard;
    const TITLE: &'static str = "Offboard";
    const TAB: ScreenId = ScreenId::People;
    const PARENT: Option<ScreenId> = Some(ScreenId::Person);
    const WRITE_SCOPE: &'static str = "organization:write";
    // Opened from another screen, or shown by a command of its own.
    const COMMANDS: &'static [(&'static str, &'static str)] = &[];
}

impl Offboarding {
    pub fn is_running(&self) -> bool {
        self.screen
            .as_ref()
            .is_some_and(|screen| matches!(screen.phase, Phase::Running { .. }))
    }

    /// The lines again, after the plan or its phase changed.
    pub fn redraw(&mut self, height: u64) {
        let items = self.screen.as_deref().map(items).unwrap_or_default();
        self.lines.hold(items, height);
    }

    /// The option under the cursor, if it is one.
    pub fn selected_toggle(&self) -> Option<Toggle> {
        match self.lines.selected()? {
            Item::Option { toggle, .. } => Some(*toggle),
            _ => None,
        }
    }

    /// The title of its frame: whom, and where the run is.
    pub fn heading(&self) -> String {
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

    /// A line told in full (`v`).
    fn detail_of(&self, item: &Item, view: &ViewCx) -> (String, Vec<Line<'static>>) {
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
                Offboarding::heading(self),
                vec![Line::raw(format!(" {}", crate::text::printable(said)))],
            ),
        }
    }
}

impl Page for Offboarding {
    fn place(&self) -> Place {
        Place::of::<Self>("line")
    }

    fn heading(&self) -> String {
        Offboarding::heading(self)
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
        self.lines.unfilter();
    }

    fn lines(&self) -> &dyn PageLines {
        &self.lines
    }

    fn lines_mut(&mut self) -> &mut dyn PageLines {
        &mut self.lines
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

    fn detail(&self, view: &ViewCx) -> Option<(String, Vec<Line<'static>>)> {
        Some(self.detail_of(self.lines.selected()?, view))
    }

    fn draw(&self, frame: &mut Frame, area: Rect, block: Block, view: &ViewCx) {
        super::draw::draw(self, frame, area, block, view);
    }

    /// Space turns its options on and off (`handle.rs`).
    fn takes_space(&self) -> bool {
        true
    }

    fn space(&mut self, ctx: &mut Ctx) {
        self.toggle_option(ctx);
    }
}
