//! The pickers of `:ctx`, `:org` and `:project` without an argument: the
//! config file's profiles or the API's lists, searchable as you type by name
//! or id, the one in use marked; Enter switches to the one under the cursor.

use ratatui::crossterm::event::{Event, KeyCode, KeyEvent};
use tui_input::Input;
use tui_input::backend::crossterm::EventHandler;

use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph};

use super::popup::{WIDTH, centered, clear, wrap};
use crate::console::kit::theme::Theme;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The config file's profiles (and the connection the console started with).
    Profile,
    Organization,
    Project,
}

impl Scope {
    pub fn noun(self) -> &'static str {
        match self {
            Scope::Profile => "profile",
            Scope::Organization => "organization",
            Scope::Project => "project",
        }
    }

    /// The `:` command that switches by id.
    pub fn command(self) -> &'static str {
        match self {
            Scope::Profile => "ctx",
            Scope::Organization => "org",
            Scope::Project => "project",
        }
    }
}

/// One profile, organization or project to switch to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// The id, or the profile's name; empty for the connection the console
    /// started with.
    pub id: String,
    /// The name, or where a profile points.
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Picking,
    Switch(String),
    Cancel,
}

#[derive(Debug, Clone)]
pub struct Switcher {
    pub scope: Scope,
    /// The id in use, marked in the list.
    pub current: String,
    pub query: Input,
    /// The choices; `None` while they load.
    pub choices: Option<Vec<Choice>>,
    pub cursor: usize,
    /// Why the list could not be read.
    pub error: Option<String>,
    /// The list holds the first few thousand of more: said under it.
    pub cut: bool,
}

impl Switcher {
    pub fn new(scope: Scope, current: String) -> Switcher {
        Switcher {
            scope,
            current,
            query: Input::default(),
            choices: None,
            cursor: 0,
            error: None,
            cut: false,
        }
    }

    /// The list arrived: the cursor starts on the one in use.
    pub fn fill(&mut self, choices: Vec<Choice>) {
        self.cursor = choices
            .iter()
            .position(|choice| choice.id == self.current)
            .unwrap_or(0);
        self.choices = Some(choices);
    }

    /// The choices that match what is typed.
    pub fn shown(&self) -> Vec<&Choice> {
        let needle = self.query.value().trim().to_lowercase();
        self.choices
            .iter()
            .flatten()
            .filter(|choice| {
                needle.is_empty()
                    || choice.name.to_lowercase().contains(&needle)
                    || choice.id.to_lowercase().contains(&needle)
            })
            .collect()
    }

    pub fn key(&mut self, key: KeyEvent) -> Outcome {
        match key.code {
            KeyCode::Esc => return Outcome::Cancel,
            KeyCode::Enter => {
                return match self.shown().get(self.cursor) {
                    Some(choice) => Outcome::Switch(choice.id.clone()),
                    None => Outcome::Picking,
                };
            }
            KeyCode::Up => self.cursor = self.cursor.saturating_sub(1),
            KeyCode::Down => self.cursor = (self.cursor + 1).min(self.shown().len().saturating_sub(1)),
            _ => {
                let before = self.query.value().to_string();
                self.query.handle_event(&Event::Key(key));
                if self.query.value() != before {
                    self.cursor = 0;
                }
            }
        }
        Outcome::Picking
    }
}

/// The picker of `:ctx`, `:org` or `:project`.
pub fn draw(frame: &mut Frame, switcher: &Switcher, theme: &Theme) {
    let screen = frame.area();
    let height = screen.height.saturating_sub(4).clamp(8, 30);
    let list_rows = height.saturating_sub(7) as usize;
    let noun = switcher.scope.noun();
    let mut lines = vec![
        Line::from(vec![
            Span::styled(" search ", theme.accent),
            Span::raw(crate::text::printable(switcher.query.value()).into_owned()),
        ]),
        Line::raw(""),
    ];
    match &switcher.choices {
        None => lines.push(Line::styled(format!(" loading the {noun}s…"), theme.dim)),
        Some(_) => {
            let shown = switcher.shown();
            let top = switcher.cursor.saturating_sub(list_rows.saturating_sub(1));
            for (at, choice) in shown.iter().enumerate().skip(top).take(list_rows) {
                let mark = if choice.id == switcher.current { "●" } else { " " };
                let text = match switcher.scope {
                    Scope::Profile if choice.id.is_empty() => {
                        format!(" {mark} (as started)  {}", choice.name)
                    }
                    Scope::Profile => format!(" {mark} {}  {}", choice.id, choice.name),
                    _ => format!(" {mark} {}  ({})", choice.name, choice.id),
                };
                let style = if at == switcher.cursor {
                    theme.selected
                } else {
                    ratatui::style::Style::new()
                };
                lines.push(Line::styled(crate::text::printable(&text).into_owned(), style));
            }
            if shown.is_empty() && switcher.error.is_none() {
                lines.push(Line::styled(format!(" no {noun} matches"), theme.dim));
            }
            if switcher.cut {
                lines.push(Line::styled(
                    format!(
                        " showing the first {} {noun}s of more; type to narrow",
                        crate::api::PICKER_ROWS
                    ),
                    theme.warning,
                ));
            }
        }
    }
    lines.push(Line::raw(""));
    if let Some(error) = &switcher.error {
        for line in wrap(error, WIDTH) {
            lines.push(Line::styled(format!(" {line}"), theme.error));
        }
    }
    lines.push(Line::styled(
        " type to search · ↑/↓ move · Enter switch · Esc cancel",
        theme.dim,
    ));
    let area = centered(screen, WIDTH as u16 + 4, lines.len() as u16 + 2);
    clear(frame, area);
    frame.render_widget(
        Paragraph::new(lines).block(
            Block::bordered()
                .border_type(BorderType::Rounded)
                .title(format!(" Switch {noun} ")),
        ),
        area,
    );
    let column = 9 + switcher.query.visual_cursor() as u16;
    if column + 1 < area.width && area.height > 2 {
        frame.set_cursor_position((area.x + 1 + column, area.y + 1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::KeyModifiers;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn choice(id: &str, name: &str) -> Choice {
        Choice {
            id: id.into(),
            name: name.into(),
        }
    }

    #[test]
    fn starts_on_the_one_in_use_and_searches_by_name_or_id() {
        let mut switcher = Switcher::new(Scope::Project, "2".into());
        assert_eq!(
            switcher.key(key(KeyCode::Enter)),
            Outcome::Picking,
            "nothing loaded yet"
        );
        switcher.fill(vec![
            choice("1", "Web"),
            choice("2", "Mobile"),
            choice("31", "Data"),
        ]);
        assert_eq!(switcher.key(key(KeyCode::Enter)), Outcome::Switch("2".into()));
        switcher.key(key(KeyCode::Char('3')));
        assert_eq!(switcher.shown().len(), 1);
        assert_eq!(switcher.key(key(KeyCode::Enter)), Outcome::Switch("31".into()));
        switcher.key(key(KeyCode::Backspace));
        for c in "web".chars() {
            switcher.key(key(KeyCode::Char(c)));
        }
        assert_eq!(switcher.key(key(KeyCode::Enter)), Outcome::Switch("1".into()));
        switcher.key(key(KeyCode::Char('x')));
        assert!(switcher.shown().is_empty());
        assert_eq!(switcher.key(key(KeyCode::Enter)), Outcome::Picking);
        assert_eq!(switcher.key(key(KeyCode::Esc)), Outcome::Cancel);
    }
}
