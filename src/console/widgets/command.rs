//! The `:` command line: parsing, completion, and the list of commands
//! shown while one is typed.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use crate::console::lists::ListId;
use crate::console::view::theme::Theme;

/// Every command with what it does, in the order completion offers them.
pub const COMMANDS: [(&str, &str); 17] = [
    ("roles", "show the roles"),
    ("members", "show the members of a role"),
    ("subs", "show the subscriptions"),
    ("subscriptions", "show the subscriptions"),
    ("health", "the health of every subscription, worst first (a look)"),
    (
        "people",
        "every member with their roles (clears :no-role and :has-role)",
    ),
    (
        "no-role",
        "people in no role (looks through every member; Esc stops)",
    ),
    (
        "has-role",
        "the people of one role: :has-role NAME (Tab completes it)",
    ),
    (
        "deliveries",
        "the deliveries of the subscription under the cursor",
    ),
    (
        "state",
        "subscriptions in one state: active, paused, overdue, ended, deleted, unsupported (none: all)",
    ),
    ("target", "subscriptions delivered by email or slack (none: all)"),
    (
        "delivers",
        "subscriptions of an insight, dashboard or ai (none: all)",
    ),
    ("org", "switch organization: pick from a list, or :org UUID"),
    ("project", "switch project: pick from a list, or :project ID"),
    ("ctx", "switch profile: pick from the config file, or :ctx NAME"),
    ("q", "quit"),
    ("quit", "quit"),
];

/// Other names of commands above, left out where the commands are listed.
pub const ALIASES: [&str; 2] = ["subscriptions", "quit"];

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Show a list.
    Show(ListId),
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
    if name != "ctx" && name != "has-role" && rest.split_whitespace().count() > 1 {
        return Err(format!(":{name} takes one argument, not \"{rest}\""));
    }

    match (name, argument) {
        ("roles", _) => Ok(Command::Show(ListId::Roles)),
        ("members", _) => Ok(Command::Show(ListId::Members)),
        ("subs" | "subscriptions", _) => Ok(Command::Show(ListId::Subscriptions)),
        ("deliveries", _) => Ok(Command::Show(ListId::Deliveries)),
        ("health", _) => Ok(Command::Show(ListId::Health)),
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
        _ => Err(format!(
            ":{name} is not a command; : lists them, and Tab completes what is typed"
        )),
    }
}

/// Commands whose argument is one of a list of names (`:has-role`'s roles).
const NAMED_ARGUMENT: &str = "has-role ";

/// The names (`names`, any case) that complete the argument typed, for the
/// commands that take one of them.
pub fn argument_candidates<'a>(typed: &str, names: &'a [String]) -> Vec<&'a str> {
    let Some(partial) = typed.trim_start().strip_prefix(NAMED_ARGUMENT) else {
        return Vec::new();
    };
    let partial = partial.trim_start().to_lowercase();
    names
        .iter()
        .filter(|name| name.to_lowercase().starts_with(&partial))
        .map(String::as_str)
        .collect()
}

/// Completes what is typed: the command's name, or its argument among
/// `names` as far as they agree (a role's name, in its own case).
pub fn complete_with(typed: &str, names: &[String]) -> Option<String> {
    let found = argument_candidates(typed, names);
    let Some(first) = found.first() else {
        return complete(typed);
    };
    let lowered: Vec<String> = found.iter().map(|name| name.to_lowercase()).collect();
    let common = lowered.iter().fold(lowered[0].chars().count(), |len, name| {
        lowered[0]
            .chars()
            .zip(name.chars())
            .take(len)
            .take_while(|(a, b)| a == b)
            .count()
    });
    let argument: String = if found.len() == 1 {
        first.to_string()
    } else {
        first.chars().take(common).collect()
    };
    let completed = format!("{NAMED_ARGUMENT}{argument}");
    (completed != typed.trim_start()).then_some(completed)
}

/// The commands that start with what is typed.
pub fn candidates(typed: &str) -> Vec<(&'static str, &'static str)> {
    let typed = typed.trim_start();
    if typed.contains(' ') {
        return Vec::new();
    }
    COMMANDS
        .into_iter()
        .filter(|(name, _)| name.starts_with(typed))
        .collect()
}

/// Completes the command name as far as the candidates agree.
pub fn complete(typed: &str) -> Option<String> {
    let found = candidates(typed);
    let first = found.first()?.0;
    let common = found.iter().fold(first.len(), |len, (name, _)| {
        first
            .chars()
            .zip(name.chars())
            .take(len)
            .take_while(|(a, b)| a == b)
            .count()
    });
    let mut completed = first[..common].to_string();
    if found.len() == 1 {
        completed.push(' ');
    }
    (completed.trim_end() != typed.trim()).then_some(completed)
}

/// The commands that match what is typed (or the names its argument may
/// be), over the bottom of `area`.
pub fn draw_completions(frame: &mut Frame, area: Rect, typed: &str, names: &[String], theme: &Theme) {
    let lines: Vec<Line> = match argument_candidates(typed, names) {
        found if !found.is_empty() => found
            .iter()
            .map(|name| {
                Line::from(vec![
                    Span::styled(format!(" :{NAMED_ARGUMENT}"), theme.dim),
                    Span::styled(crate::text::printable(name).into_owned(), theme.accent),
                ])
            })
            .collect(),
        _ => candidates(typed)
            .iter()
            .map(|(name, what)| {
                Line::from(vec![
                    Span::styled(format!(" :{name:<14}"), theme.accent),
                    Span::raw(*what),
                ])
            })
            .collect(),
    };
    if lines.is_empty() {
        return;
    }
    let height = (lines.len() as u16 + 2).min(area.height);
    let area = Rect::new(area.x, area.y + area.height - height, area.width.min(72), height);
    super::popup::clear(frame, area);
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" commands (Tab completes) ")),
        area,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_parse() {
        assert_eq!(parse("subs"), Ok(Command::Show(ListId::Subscriptions)));
        assert_eq!(parse(" org  1234 "), Ok(Command::Organization("1234".into())));
        assert_eq!(parse("project @current"), Ok(Command::Project("@current".into())));
        assert_eq!(parse(""), Ok(Command::Nothing));
        assert_eq!(parse("org"), Ok(Command::PickOrganization));
        assert_eq!(parse(" project "), Ok(Command::PickProject));
        assert_eq!(parse("ctx"), Ok(Command::PickProfile));
        assert_eq!(parse("ctx cloud"), Ok(Command::Profile("cloud".into())));
        assert_eq!(parse("ctx  my cloud "), Ok(Command::Profile("my cloud".into())));
        assert!(parse("org a b").unwrap_err().contains("one argument"));
        assert!(parse("frob").unwrap_err().contains("not a command"));
    }

    #[test]
    fn has_role_completes_the_role_s_name_in_any_case() {
        let names: Vec<String> = ["Data", "Design", "Engineering"].map(String::from).to_vec();
        assert_eq!(
            complete_with("has-role e", &names),
            Some("has-role Engineering".into())
        );
        assert_eq!(complete_with("has-role d", &names), Some("has-role D".into()));
        assert_eq!(complete_with("has-role da", &names), Some("has-role Data".into()));
        assert_eq!(complete_with("has-role Data", &names), None);
        assert_eq!(complete_with("has-r", &names), Some("has-role ".into()));
        assert_eq!(
            parse("has-role Customer Success"),
            Ok(Command::HasRole("Customer Success".into()))
        );
        assert!(parse("has-role").is_err());
        assert_eq!(parse("no-role"), Ok(Command::NoRole));
    }

    #[test]
    fn completion_goes_as_far_as_the_candidates_agree() {
        assert_eq!(complete("r"), Some("roles ".into()));
        assert_eq!(complete("sub"), Some("subs".into()));
        assert_eq!(
            complete("subs"),
            None,
            "subs and subscriptions: nothing more in common"
        );
        assert_eq!(complete("pr"), Some("project ".into()));
        assert_eq!(complete("pe"), Some("people ".into()));
        assert_eq!(complete("x"), None);
        assert_eq!(candidates("q").len(), 2);
        assert_eq!(complete("d"), Some("deliver".into()));
        assert_eq!(complete("deliveri"), Some("deliveries ".into()));
        assert_eq!(
            parse("state overdue"),
            Ok(Command::State(Some(crate::api::SubscriptionState::Overdue)))
        );
        assert_eq!(parse("state"), Ok(Command::State(None)));
        assert_eq!(
            parse("state unsupported"),
            Ok(Command::State(Some(crate::api::SubscriptionState::Unsupported)))
        );
        assert!(
            parse("state sleeping")
                .unwrap_err()
                .contains("active, paused, overdue, ended, deleted or unsupported")
        );
        assert_eq!(parse("target slack"), Ok(Command::Target(Some("slack".into()))));
        assert!(parse("target webhook").is_err());
        assert_eq!(
            parse("delivers ai"),
            Ok(Command::Delivers(Some("ai_prompt".into())))
        );
    }
}
