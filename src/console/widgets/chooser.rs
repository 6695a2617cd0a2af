//! A short list to choose from, over the screen: one choice (Enter takes
//! the one under the cursor) or several (Space marks each and moves down,
//! as in the tables, Tab too; Enter takes the marked ones, or the one
//! under the cursor when none is). Resource-agnostic:
//! each choice is an id, a label and a note.

use std::collections::BTreeSet;

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph};

use super::popup::{WIDTH, centered, clear, wrap};
use crate::console::kit::theme::Theme;
use crate::text::printable;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub id: String,
    pub label: String,
    /// Said after the label, dimmed ("current", "6 people").
    pub note: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Choosing,
    Cancel,
    /// The chosen choices, by position, in order.
    Chosen(Vec<usize>),
}

#[derive(Debug, Clone)]
pub struct Chooser {
    pub title: String,
    /// A line above the choices (what they are for).
    pub intro: String,
    pub choices: Vec<Choice>,
    pub cursor: usize,
    /// Several may be chosen (Space marks).
    pub multi: bool,
    pub marked: BTreeSet<usize>,
}

impl Chooser {
    pub fn new(title: String, intro: String, choices: Vec<Choice>, multi: bool) -> Chooser {
        Chooser {
            title,
            intro,
            choices,
            cursor: 0,
            multi,
            marked: BTreeSet::new(),
        }
    }

    pub fn key(&mut self, key: KeyEvent) -> Outcome {
        let last = self.choices.len().saturating_sub(1);
        match key.code {
            KeyCode::Esc | KeyCode::Char('q') => return Outcome::Cancel,
            KeyCode::Down | KeyCode::Char('j') => self.cursor = (self.cursor + 1).min(last),
            KeyCode::Up | KeyCode::Char('k') => self.cursor = self.cursor.saturating_sub(1),
            KeyCode::Home | KeyCode::Char('g') => self.cursor = 0,
            KeyCode::End | KeyCode::Char('G') => self.cursor = last,
            KeyCode::Char(' ') | KeyCode::Tab if self.multi && !self.choices.is_empty() => {
                if !self.marked.remove(&self.cursor) {
                    self.marked.insert(self.cursor);
                }
                self.cursor = (self.cursor + 1).min(last);
            }
            KeyCode::Enter if self.choices.is_empty() => return Outcome::Cancel,
            KeyCode::Enter if self.marked.is_empty() => return Outcome::Chosen(vec![self.cursor]),
            KeyCode::Enter => return Outcome::Chosen(self.marked.iter().copied().collect()),
            _ => {}
        }
        Outcome::Choosing
    }
}

pub fn draw(frame: &mut Frame, chooser: &Chooser, theme: &Theme) {
    let mut lines: Vec<Line> = wrap(&printable(&chooser.intro), WIDTH - 2)
        .into_iter()
        .map(|line| Line::raw(format!(" {line}")))
        .collect();
    lines.push(Line::raw(""));
    // Room for the choices around the cursor, whatever the screen's height.
    let room = usize::from(frame.area().height.saturating_sub(8)).max(1);
    let first = chooser.cursor.saturating_sub(room.saturating_sub(1));
    if chooser.choices.is_empty() {
        lines.push(Line::styled(" nothing to choose", theme.dim));
    }
    for (at, choice) in chooser.choices.iter().enumerate().skip(first).take(room) {
        let mark = match (chooser.multi, chooser.marked.contains(&at)) {
            (true, true) => "[x] ",
            (true, false) => "[ ] ",
            (false, _) => "",
        };
        let style = if at == chooser.cursor {
            theme.selected
        } else {
            ratatui::style::Style::new()
        };
        let mut spans = vec![
            Span::styled(format!(" {mark}"), style),
            Span::styled(printable(&choice.label).into_owned(), style),
        ];
        if !choice.note.is_empty() {
            spans.push(Span::styled(format!("  {}", printable(&choice.note)), theme.dim));
        }
        lines.push(Line::from(spans));
    }
    lines.push(Line::raw(""));
    let keys = if chooser.multi {
        " Space marks · Enter: the marked ones (or the one here) · Esc: cancel"
    } else {
        " Enter chooses · Esc: cancel"
    };
    lines.push(Line::styled(keys, theme.dim));
    let area = centered(frame.area(), WIDTH as u16 + 2, lines.len() as u16 + 2);
    clear(frame, area);
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .title(format!(" {} ", printable(&chooser.title)));
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::KeyModifiers;

    fn press(chooser: &mut Chooser, code: KeyCode) -> Outcome {
        chooser.key(KeyEvent::new(code, KeyModifiers::NONE))
    }

    fn choices(n: usize) -> Vec<Choice> {
        (0..n)
            .map(|at| Choice {
                id: at.to_string(),
                label: format!("role {at}"),
                note: String::new(),
            })
            .collect()
    }

    #[test]
    fn space_marks_several_and_enter_takes_them_or_the_one_under_the_cursor() {
        let mut chooser = Chooser::new("t".into(), "i".into(), choices(3), true);
        assert_eq!(press(&mut chooser, KeyCode::Enter), Outcome::Chosen(vec![0]));
        press(&mut chooser, KeyCode::Char(' '));
        press(&mut chooser, KeyCode::Char(' '));
        assert_eq!(press(&mut chooser, KeyCode::Enter), Outcome::Chosen(vec![0, 1]));
        press(&mut chooser, KeyCode::Char('k'));
        press(&mut chooser, KeyCode::Char(' '));
        assert_eq!(press(&mut chooser, KeyCode::Enter), Outcome::Chosen(vec![0]));
        // Tab marks and moves down as Space does.
        press(&mut chooser, KeyCode::Tab);
        assert_eq!(chooser.cursor, 2);
        assert_eq!(press(&mut chooser, KeyCode::Enter), Outcome::Chosen(vec![0, 2]));
        assert_eq!(press(&mut chooser, KeyCode::Esc), Outcome::Cancel);
    }

    #[test]
    fn one_choice_ignores_space() {
        let mut chooser = Chooser::new("t".into(), "i".into(), choices(3), false);
        press(&mut chooser, KeyCode::Char(' '));
        press(&mut chooser, KeyCode::Down);
        press(&mut chooser, KeyCode::Down);
        press(&mut chooser, KeyCode::Down);
        assert_eq!(press(&mut chooser, KeyCode::Enter), Outcome::Chosen(vec![2]));
        let mut empty = Chooser::new("t".into(), "i".into(), Vec::new(), true);
        assert_eq!(press(&mut empty, KeyCode::Enter), Outcome::Cancel);
    }
}
