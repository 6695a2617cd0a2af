//! The `:` command line: parsing, completion, and the list of commands
//! shown while one is typed.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use crate::console::lists::ListId;
use crate::console::view::theme::Theme;

/// Every command with what it does, in the order completion offers them.
pub const COMMANDS: [(&str, &str); 15] = [
    ("roles", "show the roles"),
    ("members", "show the members of a role"),
    ("subs", "show the subscriptions"),
    ("subscriptions", "show the subscriptions"),
    ("health", "the health of every subscription, worst first (a look)"),
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
    (
        "bulk",
        "the results of the last bulk action (d, p or t on marked rows)",
    ),
    ("q", "quit"),
    ("quit", "quit"),
];

/// Other names of commands above, left out where the commands are listed.
pub const ALIASES: [&str; 2] = ["subscriptions", "quit"];

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Show a list.
    Show(ListId),
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
    // A profile's name may hold spaces; every other argument is one word.
    let argument = (!rest.is_empty()).then_some(rest);
    if name != "ctx" && rest.split_whitespace().count() > 1 {
        return Err(format!(":{name} takes one argument, not \"{rest}\""));
    }

    match (name, argument) {
        ("roles", _) => Ok(Command::Show(ListId::Roles)),
        ("members", _) => Ok(Command::Show(ListId::Members)),
        ("subs" | "subscriptions", _) => Ok(Command::Show(ListId::Subscriptions)),
        ("deliveries", _) => Ok(Command::Show(ListId::Deliveries)),
        ("health", _) => Ok(Command::Show(ListId::Health)),
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
        ("bulk", _) => Ok(Command::Results),
        _ => Err(format!(
            ":{name} is not a command; : lists them, and Tab completes what is typed"
        )),
    }
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

/// The commands that match what is typed, over the bottom of `area`.
pub fn draw_completions(frame: &mut Frame, area: Rect, typed: &str, theme: &Theme) {
    let found = candidates(typed);
    if found.is_empty() {
        return;
    }
    let lines: Vec<Line> = found
        .iter()
        .map(|(name, what)| {
            Line::from(vec![
                Span::styled(format!(" :{name:<14}"), theme.accent),
                Span::raw(*what),
            ])
        })
        .collect();
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
    fn completion_goes_as_far_as_the_candidates_agree() {
        assert_eq!(complete("r"), Some("roles ".into()));
        assert_eq!(complete("sub"), Some("subs".into()));
        assert_eq!(
            complete("subs"),
            None,
            "subs and subscriptions: nothing more in common"
        );
        assert_eq!(complete("p"), Some("project ".into()));
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
