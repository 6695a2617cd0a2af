//! One rule for every question the console asks (a confirmation before a
//! write, "Discard changes?" on a form): `y` means yes, `n` or Esc means
//! no, and Enter chooses the highlighted answer. The highlighted answer is
//! "no" for anything that deletes, removes, or sends to people outside the
//! console, so that Enter out of habit changes nothing; for harmless
//! questions (pause, save) it is "yes". Every other key leaves the question
//! open. The answers are drawn with the highlighted one visible:
//! `[y] yes  [N] no`.

use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::{Line, Span};

use crate::console::kit::theme::Theme;

/// An answer to a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Yes,
    No,
}

impl Answer {
    /// The answer Enter gives to a question whose yes does this: "no" when
    /// it destroys something or reaches people, "yes" when it is harmless.
    pub fn on_enter(harmful: bool) -> Answer {
        if harmful { Answer::No } else { Answer::Yes }
    }
}

/// The answer a key gives to a question whose highlighted answer is
/// `highlighted`; `None`: the key is no answer, the question stays.
pub fn answer(key: &KeyEvent, highlighted: Answer) -> Option<Answer> {
    match key.code {
        KeyCode::Char('y') | KeyCode::Char('Y') => Some(Answer::Yes),
        KeyCode::Char('n') | KeyCode::Char('N') | KeyCode::Esc => Some(Answer::No),
        KeyCode::Enter => Some(highlighted),
        _ => None,
    }
}

/// The answers as drawn: ` [y] yes  [N] no · Enter: no`, the highlighted
/// one in capitals and in the selection's style.
pub fn answers(highlighted: Answer, theme: &Theme) -> Line<'static> {
    let choice = |key: char, word: &'static str, answer: Answer| -> Span<'static> {
        if answer == highlighted {
            Span::styled(format!("[{}] {word}", key.to_ascii_uppercase()), theme.selected)
        } else {
            Span::styled(format!("[{key}] {word}"), theme.dim)
        }
    };
    let enter = match highlighted {
        Answer::Yes => "yes",
        Answer::No => "no",
    };
    Line::from(vec![
        Span::raw(" "),
        choice('y', "yes", Answer::Yes),
        Span::raw("  "),
        choice('n', "no", Answer::No),
        Span::styled(format!("  · Enter: {enter}"), theme.dim),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::KeyModifiers;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn y_is_yes_n_and_esc_are_no_enter_is_the_highlighted_one() {
        for highlighted in [Answer::Yes, Answer::No] {
            assert_eq!(answer(&key(KeyCode::Char('y')), highlighted), Some(Answer::Yes));
            assert_eq!(answer(&key(KeyCode::Char('n')), highlighted), Some(Answer::No));
            assert_eq!(answer(&key(KeyCode::Esc), highlighted), Some(Answer::No));
            assert_eq!(answer(&key(KeyCode::Enter), highlighted), Some(highlighted));
            assert_eq!(answer(&key(KeyCode::Char('j')), highlighted), None);
        }
        assert_eq!(Answer::on_enter(true), Answer::No);
        assert_eq!(Answer::on_enter(false), Answer::Yes);
    }

    #[test]
    fn the_highlighted_answer_is_drawn_in_capitals() {
        let theme = Theme::plain();
        let text = |line: Line| {
            line.spans
                .iter()
                .map(|span| span.content.to_string())
                .collect::<String>()
        };
        assert_eq!(text(answers(Answer::No, &theme)), " [y] yes  [N] no  · Enter: no");
        assert_eq!(
            text(answers(Answer::Yes, &theme)),
            " [Y] yes  [n] no  · Enter: yes"
        );
    }
}
