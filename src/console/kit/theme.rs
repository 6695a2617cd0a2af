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
    /// Rows marked for a bulk action (with a ● before them, for screens
    /// without colour).
    pub marked: Style,
    /// The badge of a production profile.
    pub production: Style,
    /// Whether a profile's `color` tints the title bar (not under `NO_COLOR`).
    pub tints: bool,
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
            marked: Style::new().fg(Color::Magenta).add_modifier(Modifier::BOLD),
            production: Style::new()
                .fg(Color::White)
                .bg(Color::Red)
                .add_modifier(Modifier::BOLD),
            tints: true,
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
            marked: Style::new().add_modifier(Modifier::BOLD),
            production: Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD),
            tints: false,
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

impl Theme {
    /// This theme with the config file's colours over it (none under `NO_COLOR`).
    pub fn with_colors(mut self, colors: &crate::config::ThemeColors) -> Result<Theme, String> {
        // Every colour is checked, under NO_COLOR too: a typo is reported
        // wherever the file is used.
        let parse = |name: &str, value: &Option<String>| -> Result<Option<Color>, String> {
            value
                .as_deref()
                .map(|text| {
                    parse_colour(text)
                        .ok_or_else(|| format!("[theme] {name} = \"{text}\" is not a colour ({COLOUR_HELP})"))
                })
                .transpose()
        };
        let colors = ParsedColors {
            accent: parse("accent", &colors.accent)?,
            dim: parse("dim", &colors.dim)?,
            selected: parse("selected", &colors.selected)?,
            error: parse("error", &colors.error)?,
            warning: parse("warning", &colors.warning)?,
            ok: parse("ok", &colors.ok)?,
            marked: parse("marked", &colors.marked)?,
        };
        if std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty()) {
            return Ok(self);
        }
        if let Some(color) = colors.accent {
            self.accent = self.accent.fg(color);
        }
        if let Some(color) = colors.dim {
            self.dim = self.dim.fg(color);
        }
        if let Some(color) = colors.selected {
            self.selected = self.selected.bg(color);
        }
        if let Some(color) = colors.error {
            self.error = self.error.fg(color);
        }
        if let Some(color) = colors.warning {
            self.warning = self.warning.fg(color);
        }
        if let Some(color) = colors.ok {
            self.ok = self.ok.fg(color);
        }
        if let Some(color) = colors.marked {
            self.marked = self.marked.fg(color);
        }
        Ok(self)
    }
}

/// The config file's colours, read.
struct ParsedColors {
    accent: Option<Color>,
    dim: Option<Color>,
    selected: Option<Color>,
    error: Option<Color>,
    warning: Option<Color>,
    ok: Option<Color>,
    marked: Option<Color>,
}

pub use crate::config::colour::{COLOUR_HELP, COLOUR_NAMES, parse_colour};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_come_from_the_config_and_bad_ones_are_reported() {
        let colors = crate::config::ThemeColors {
            accent: Some("#ff8800".into()),
            selected: Some("magenta".into()),
            ..Default::default()
        };
        let theme = Theme::colored().with_colors(&colors).unwrap();
        assert_eq!(theme.accent.fg, Some(Color::Rgb(255, 136, 0)));
        assert_eq!(theme.selected.bg, Some(Color::Magenta));
        let bad = crate::config::ThemeColors {
            ok: Some("grassy".into()),
            ..Default::default()
        };
        assert!(
            Theme::colored()
                .with_colors(&bad)
                .unwrap_err()
                .contains("[theme] ok")
        );
    }
}
