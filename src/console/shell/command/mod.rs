//! The `:` command line: parsing, completion of command names and of
//! their arguments (states, targets, role names…), and the list of what
//! matches shown while one is typed. The history of what was run lives
//! with the app's state (`History`, below, is its shape).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use crate::console::kit::theme::Theme;
use crate::console::screens::{ScreenId, Screens};
use strum::IntoEnumIterator;

/// A command where completion and help list it: a screen's `:name`s (its
/// `Screen::COMMANDS`, asked through `Screens::commands`), or one of the
/// command line's own.
enum Listed {
    Screen(ScreenId),
    Own(&'static str, &'static str),
}

/// The commands in the order completion offers them.
const LISTED: [Listed; 16] = [
    Listed::Screen(ScreenId::Roles),
    Listed::Own("role", "open a role's members: :role NAME"),
    Listed::Screen(ScreenId::Members),
    Listed::Screen(ScreenId::Subscriptions),
    Listed::Own("sub", "jump to a subscription's deliveries: :sub ID"),
    Listed::Screen(ScreenId::Health),
    Listed::Own(
        "people",
        "every member with their roles (clears :no-role and :has-role)",
    ),
    Listed::Own(
        "no-role",
        "people in no role (looks through every member; Esc stops)",
    ),
    Listed::Own(
        "has-role",
        "the people of one role: :has-role NAME (Tab completes it)",
    ),
    Listed::Own(
        "who",
        "who reaches the project, or :who dashboard|insight|flag NAME (:who project ID)",
    ),
    Listed::Screen(ScreenId::Deliveries),
    Listed::Own(
        "state",
        "subscriptions in one state: active, paused, overdue, ended, deleted, unsupported (none: all)",
    ),
    Listed::Own("target", "subscriptions delivered by email or slack (none: all)"),
    Listed::Own(
        "delivers",
        "subscriptions of an insight, dashboard or ai (none: all)",
    ),
    Listed::Own("org", "switch organization: pick from a list, or :org UUID"),
    Listed::Own("project", "switch project: pick from a list, or :project ID"),
];

/// The command line's own commands listed after every screen's.
const LAST: [(&str, &str); 4] = [
    ("ctx", "switch profile: pick from the config file, or :ctx NAME"),
    (
        "bulk",
        "the results of the last bulk action (d, p or t on marked rows)",
    ),
    ("q", "quit"),
    ("quit", "quit"),
];

/// Every command with what it does, in the order completion offers them:
/// as [`LISTED`], then the `:name`s of a screen not placed there, then
/// [`LAST`].
pub fn commands() -> Vec<(&'static str, &'static str)> {
    let placed = |id: ScreenId| {
        LISTED
            .iter()
            .any(|listed| matches!(listed, Listed::Screen(screen) if *screen == id))
    };
    let mut commands = Vec::new();
    for listed in &LISTED {
        match listed {
            Listed::Screen(id) => commands.extend_from_slice(Screens::commands(*id)),
            Listed::Own(name, what) => commands.push((*name, *what)),
        }
    }
    for id in ScreenId::iter().filter(|id| !placed(*id)) {
        commands.extend_from_slice(Screens::commands(id));
    }
    commands.extend_from_slice(&LAST);
    commands
}

/// Whether `name` is another name of a command above, left out where the
/// commands are listed: `:quit`, and a screen's names after its first.
pub fn is_alias(name: &str) -> bool {
    name == "quit"
        || ScreenId::iter().any(|id| {
            Screens::commands(id)
                .iter()
                .skip(1)
                .any(|(alias, _)| *alias == name)
        })
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Show a list.
    Show(ScreenId),
    /// `:people`: every member again, no narrowing.
    People,
    /// `:no-role`: the people in no role.
    NoRole,
    /// `:has-role NAME`: the people of one role.
    HasRole(String),
    /// `:state NAME`: subscriptions in one state; `None`: every state.
    State(Option<crate::api::SubscriptionState>),
    /// `:target email|slack`: the server's `target_type` filter.
    Target(Option<String>),
    /// `:delivers insight|dashboard|ai`: the server's `resource_type`.
    Delivers(Option<String>),
    Organization(String),
    Project(String),
    /// `:org` alone: pick from the organizations the key reaches.
    PickOrganization,
    /// `:project` alone: pick from the organization's projects.
    PickProject,
    /// `:ctx NAME`: switch to a profile of the config file.
    Profile(String),
    /// `:ctx` alone: pick from the config file's profiles.
    PickProfile,
    /// `:sub ID`: jump to a subscription.
    Subscription(i64),
    /// `:role NAME`: open a role's members.
    Role(String),
    /// `:who [project ID | dashboard NAME | insight NAME | flag KEY]`:
    /// who reaches it (`project`: the one named, else the current one).
    Who {
        project: Option<String>,
        thing: crate::access::who::Thing,
    },
    /// `:access [PROJECT] [RESOURCE]`: the Access tab, its columns chosen.
    Access(Option<String>),
    /// `:bulk`: the last bulk action's results.
    Results,
    Quit,
    Nothing,
}

/// Reads a command line (without its `:`).
pub fn parse(line: &str) -> Result<Command, String> {
    let line = line.trim();
    let (name, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let rest = rest.trim();
    if name.is_empty() {
        return Ok(Command::Nothing);
    }
    // A profile's or a role's name may hold spaces; every other argument is one word.
    let argument = (!rest.is_empty()).then_some(rest);
    // Access takes a project's name, which may hold spaces, and a resource.
    if name == "access" {
        return Ok(Command::Access(argument.map(str::to_string)));
    }
    if !matches!(name, "ctx" | "role" | "has-role" | "who") && rest.split_whitespace().count() > 1 {
        return Err(format!(":{name} takes one argument, not \"{rest}\""));
    }

    // A screen's `:name` shows it (its `Screen::COMMANDS`).
    if let Some(screen) =
        ScreenId::iter().find(|id| Screens::commands(*id).iter().any(|(command, _)| *command == name))
    {
        return Ok(Command::Show(screen));
    }
    match (name, argument) {
        ("people", _) => Ok(Command::People),
        ("no-role", _) => Ok(Command::NoRole),
        ("has-role", Some(role)) => Ok(Command::HasRole(role.to_string())),
        ("has-role", None) => Err(":has-role takes a role's name (Tab completes it)".into()),
        ("q" | "quit", _) => Ok(Command::Quit),
        ("state", None | Some("all" | "none")) => Ok(Command::State(None)),
        ("state", Some(name)) => crate::api::SubscriptionState::ALL
            .into_iter()
            .find(|state| state.as_str() == name.to_lowercase())
            .map(|state| Command::State(Some(state)))
            .ok_or_else(|| {
                format!(":state takes active, paused, overdue, ended, deleted or unsupported, not \"{name}\"")
            }),
        ("target", None | Some("all" | "none")) => Ok(Command::Target(None)),
        ("target", Some(kind @ ("email" | "slack"))) => Ok(Command::Target(Some(kind.to_string()))),
        ("target", Some(other)) => Err(format!(":target takes email or slack, not \"{other}\"")),
        ("delivers", None | Some("all" | "none")) => Ok(Command::Delivers(None)),
        ("delivers", Some(what)) => match what.to_lowercase().as_str() {
            "insight" | "insights" => Ok(Command::Delivers(Some("insight".into()))),
            "dashboard" | "dashboards" => Ok(Command::Delivers(Some("dashboard".into()))),
            "ai" | "prompt" | "ai_prompt" => Ok(Command::Delivers(Some("ai_prompt".into()))),
            _ => Err(format!(
                ":delivers takes insight, dashboard or ai, not \"{what}\""
            )),
        },
        ("org", Some(id)) => Ok(Command::Organization(id.to_string())),
        ("project", Some(id)) => Ok(Command::Project(id.to_string())),
        ("org", None) => Ok(Command::PickOrganization),
        ("project", None) => Ok(Command::PickProject),
        ("ctx", Some(name)) => Ok(Command::Profile(name.to_string())),
        ("ctx", None) => Ok(Command::PickProfile),
        ("sub", Some(id)) => id
            .trim_start_matches('#')
            .parse::<i64>()
            .ok()
            .filter(|id| *id > 0)
            .map(Command::Subscription)
            .ok_or_else(|| format!(":sub takes a subscription's id (a number), not \"{id}\"")),
        ("sub", None) => Err(":sub takes a subscription's id: :sub 42".into()),
        ("role", Some(name)) => Ok(Command::Role(name.to_string())),
        ("role", None) => Err(":role takes a role's name: :role Engineering (Tab completes it)".into()),
        ("bulk", _) => Ok(Command::Results),
        ("who", argument) => who(argument),
        _ => Err(format!(
            ":{name} is not a command; : lists them, and Tab completes what is typed"
        )),
    }
}

/// `:who`'s argument: nothing (the current project), `project ID`, or a
/// kind and what names the thing (its id, or its name with any spaces).
fn who(argument: Option<&str>) -> Result<Command, String> {
    use crate::access::who::Thing;
    let Some(argument) = argument else {
        return Ok(Command::Who {
            project: None,
            thing: Thing::Project,
        });
    };
    let (kind, named) = argument.split_once(char::is_whitespace).unwrap_or((argument, ""));
    let named = named.trim().to_string();
    let needs = |what: &str| format!(":who {kind} takes {what}: :who {kind} {}", example(kind));
    if named.is_empty() {
        return Err(match kind.to_lowercase().as_str() {
            "project" => needs("a project's id"),
            "dashboard" | "insight" => needs("its name or id"),
            "flag" | "feature-flag" | "feature_flag" => needs("its key, name or id"),
            _ => WHO_TAKES.to_string(),
        });
    }
    let thing = match kind.to_lowercase().as_str() {
        "project" if named.split_whitespace().count() == 1 => {
            return Ok(Command::Who {
                project: Some(named),
                thing: Thing::Project,
            });
        }
        "project" => return Err(needs("a project's id")),
        "dashboard" => Thing::Dashboard(named),
        "insight" => Thing::Insight(named),
        "flag" | "feature-flag" | "feature_flag" => Thing::FeatureFlag(named),
        _ => return Err(WHO_TAKES.to_string()),
    };
    Ok(Command::Who { project: None, thing })
}

const WHO_TAKES: &str = ":who takes nothing (the project), project ID, dashboard NAME, insight NAME or flag KEY (Tab completes the kind)";

fn example(kind: &str) -> &'static str {
    match kind {
        "project" => "2",
        "dashboard" => "Board pack",
        "insight" => "Weekly revenue",
        _ => "new-checkout",
    }
}

/// The fixed arguments of a command, with what each means.
fn fixed_arguments(command: &str) -> &'static [(&'static str, &'static str)] {
    match command {
        "state" => &[
            ("active", "enabled, delivering on schedule"),
            ("paused", "paused by a person or by the server"),
            ("overdue", "enabled, its delivery past with none since"),
            ("ended", "past its end date or count"),
            ("deleted", "soft-deleted (u restores)"),
            ("unsupported", "webhooks PostHog no longer delivers"),
            ("all", "every state"),
        ],
        "target" => &[
            ("email", "delivered by e-mail"),
            ("slack", "posted to Slack"),
            ("all", "either"),
        ],
        "delivers" => &[
            ("insight", "an insight"),
            ("dashboard", "a dashboard"),
            ("ai", "an AI report"),
            ("all", "any"),
        ],
        "who" => &[
            ("project", "a project, by id: :who project 2"),
            ("dashboard", "a dashboard of the project, by name or id"),
            ("insight", "an insight of the project, by name, short id or id"),
            ("flag", "a feature flag of the project, by key, name or id"),
        ],
        _ => &[],
    }
}

/// What completion may offer beyond fixed words: names the app knows.
#[derive(Debug, Clone, Copy, Default)]
pub struct Known<'a> {
    /// The organization's roles, by name.
    pub roles: &'a [String],
}

/// A candidate: what completes the line, and what it means.
pub type Candidate = (String, String);

/// The commands that start with what is typed or, once a command and a
/// space are typed, that command's arguments that start with the rest (in
/// any case).
pub fn candidates(typed: &str, known: Known) -> Vec<Candidate> {
    let typed = typed.trim_start();
    if let Some((name, partial)) = typed.split_once(' ') {
        let partial = partial.trim_start().to_lowercase();
        let starts = |word: &str| word.to_lowercase().starts_with(&partial);
        let mut found: Vec<Candidate> = fixed_arguments(name)
            .iter()
            .filter(|(word, _)| starts(word))
            .map(|(word, what)| (word.to_string(), what.to_string()))
            .collect();
        if matches!(name, "role" | "has-role") {
            found.extend(
                known
                    .roles
                    .iter()
                    .filter(|role| starts(role))
                    .map(|role| (role.clone(), "open its members".to_string())),
            );
        }
        return found;
    }
    commands()
        .into_iter()
        .filter(|(name, _)| name.starts_with(typed))
        .map(|(name, what)| (name.to_string(), what.to_string()))
        .collect()
}

/// Completes the command name, or its argument, as far as the candidates
/// agree; a single candidate is completed whole.
pub fn complete(typed: &str, known: Known) -> Option<String> {
    let found = candidates(typed, known);
    let first = &found.first()?.0;
    let common = found.iter().fold(first.chars().count(), |len, (name, _)| {
        first
            .chars()
            .zip(name.chars())
            .take(len)
            .take_while(|(a, b)| a.to_lowercase().eq(b.to_lowercase()))
            .count()
    });
    let agreed: String = first.chars().take(common).collect();
    let typed_start = typed.trim_start();
    let completed = match typed_start.split_once(' ') {
        Some((name, partial)) => {
            // What was typed is kept where the candidates add nothing.
            let agreed = if agreed.chars().count() >= partial.trim_start().chars().count() {
                agreed
            } else {
                partial.trim_start().to_string()
            };
            format!("{name} {agreed}")
        }
        None => {
            let mut completed = agreed;
            if found.len() == 1 {
                completed.push(' ');
            }
            completed
        }
    };
    (completed.trim_end() != typed.trim()).then_some(completed)
}

/// Lines run at the `:` command line, newest last, kept while the console
/// runs: ↑ and ↓ walk them, the line being typed kept aside.
#[derive(Debug, Clone, Default)]
pub struct History {
    lines: Vec<String>,
    /// Where ↑/↓ stand: `None` on the line being typed.
    at: Option<usize>,
    /// The line being typed when ↑ was first pressed.
    typed: String,
}

/// Lines a history keeps.
const HISTORY_LINES: usize = 100;

impl History {
    /// Remembers a line run (not twice in a row, not a blank one).
    pub fn push(&mut self, line: &str) {
        let line = line.trim();
        self.at = None;
        if line.is_empty() || self.lines.last().is_some_and(|last| last == line) {
            return;
        }
        if self.lines.len() == HISTORY_LINES {
            self.lines.remove(0);
        }
        self.lines.push(line.to_string());
    }

    /// ↑: the line before, or `None` at the oldest.
    pub fn older(&mut self, typed: &str) -> Option<&str> {
        let at = match self.at {
            None => {
                self.typed = typed.to_string();
                self.lines.len().checked_sub(1)?
            }
            Some(at) => at.checked_sub(1)?,
        };
        self.at = Some(at);
        self.lines.get(at).map(String::as_str)
    }

    /// ↓: the line after, then the one that was being typed.
    pub fn newer(&mut self) -> Option<&str> {
        let at = self.at?;
        if at + 1 < self.lines.len() {
            self.at = Some(at + 1);
            return self.lines.get(at + 1).map(String::as_str);
        }
        self.at = None;
        Some(&self.typed)
    }

    /// Forgets where ↑/↓ stood (the command line closed).
    pub fn reset(&mut self) {
        self.at = None;
    }
}

/// The commands that match what is typed, over the bottom of `area`.
pub fn draw_completions(frame: &mut Frame, area: Rect, typed: &str, known: Known, theme: &Theme) {
    let found = candidates(typed, known);
    if found.is_empty() {
        return;
    }
    let command = typed.trim_start().split_once(' ').map(|(name, _)| name);
    let lines: Vec<Line> = found
        .iter()
        .map(|(name, what)| {
            let shown = match command {
                Some(command) => format!(" :{command} {}", crate::text::printable(name)),
                None => format!(" :{name}"),
            };
            Line::from(vec![
                Span::styled(format!("{shown:<22}"), theme.accent),
                Span::raw(what.clone()),
            ])
        })
        .collect();
    // Inside the table's border, over its last rows.
    let inside = area.inner(ratatui::layout::Margin::new(1, 1));
    let height = (lines.len() as u16 + 2).min(inside.height);
    let area = Rect::new(
        inside.x,
        inside.y + inside.height - height,
        inside.width.min(76),
        height,
    );
    let title = if command.is_some() {
        " arguments (Tab completes) "
    } else {
        " commands (Tab completes) "
    };
    crate::console::widgets::popup::clear(frame, area);
    frame.render_widget(Paragraph::new(lines).block(Block::bordered().title(title)), area);
}

#[cfg(test)]
mod tests;
