//! Colours and text styles. `NO_COLOR` turns colour off; emphasis stays.

use ratatui::style::{Color, Modifier, Style};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub accent: Style,
    pub dim: Style,
    pub selected: Style,
    pub header: Style,
    pub error: Style,
    pub warning: Style,
    pub ok: Style,
    pub demo: Style,
}

impl Theme {
    pub fn colored() -> Self {
        Theme {
            accent: Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
            dim: Style::new().fg(Color::DarkGray),
            selected: Style::new()
                .bg(Color::Blue)
                .fg(Color::White)
                .add_modifier(Modifier::BOLD),
            header: Style::new().add_modifier(Modifier::BOLD),
            error: Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
            warning: Style::new().fg(Color::Yellow),
            ok: Style::new().fg(Color::Green),
            demo: Style::new()
                .fg(Color::Black)
                .bg(Color::Yellow)
                .add_modifier(Modifier::BOLD),
        }
    }

    pub fn plain() -> Self {
        let bold = Style::new().add_modifier(Modifier::BOLD);
        Theme {
            accent: bold,
            dim: Style::new(),
            selected: Style::new().add_modifier(Modifier::REVERSED),
            header: bold,
            error: bold,
            warning: Style::new(),
            ok: Style::new(),
            demo: Style::new().add_modifier(Modifier::REVERSED),
        }
    }

    /// Colour unless `NO_COLOR` is set (to anything).
    pub fn from_environment() -> Self {
        if std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty()) {
            Theme::plain()
        } else {
            Theme::colored()
        }
    }
}
