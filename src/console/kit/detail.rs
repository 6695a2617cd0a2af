//! The pieces a row's detail is built of: a field (its name in a column,
//! its value escaped), a heading, a user's fields. Every screen builds its
//! detail from them and the shell's pane draws what they make.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::api::User;
use crate::console::kit::theme::Theme;
use crate::text::printable;

/// A field: its name in a column of its own, its value (escaped) after.
pub fn field(name: &str, value: impl Into<String>, theme: &Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!(" {name:<15}"), theme.dim),
        Span::raw(printable(&value.into()).into_owned()),
    ])
}

/// A field whose value stands out (an error, a warning), escaped as
/// [`field`] is.
pub fn marked(name: &str, value: impl Into<String>, style: Style, theme: &Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!(" {name:<15}"), theme.dim),
        Span::styled(printable(&value.into()).into_owned(), style),
    ])
}

pub fn heading(text: &str, theme: &Theme) -> Line<'static> {
    Line::styled(format!(" {}", printable(text)), theme.accent)
}

/// A user's fields, indented under a heading.
pub fn user_lines(user: &User, theme: &Theme) -> Vec<Line<'static>> {
    vec![
        field("  name", user.display_name(), theme),
        field("  email", user.email.clone(), theme),
        field("  user id", format!("{} ({})", user.id, user.uuid), theme),
        field(
            "  verified",
            user.is_email_verified
                .map(|v| if v { "yes" } else { "no" })
                .unwrap_or("-"),
            theme,
        ),
    ]
}

/// A value, or `-` where there is none.
pub fn optional(value: Option<impl ToString>) -> String {
    value.map(|v| v.to_string()).unwrap_or_else(|| "-".into())
}
