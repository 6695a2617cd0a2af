//! Colours as a config file writes them (a profile's `color`, the
//! `[theme]` table): names, `#rrggbb` or a palette index, read into the
//! terminal's colours. Here, below the faces, so that the CLI checks a
//! profile's colour without reaching into the console.

use ratatui::style::Color;

/// The colour names a config file may use (the README lists them): the
/// terminal's sixteen, each of the eight in a dark and a light form, the
/// plain name being the dark one (as terminals draw it).
pub const COLOUR_NAMES: [&str; 24] = [
    "black",
    "red",
    "green",
    "yellow",
    "blue",
    "magenta",
    "cyan",
    "white",
    "gray",
    "darkred",
    "darkgreen",
    "darkyellow",
    "darkblue",
    "darkmagenta",
    "darkcyan",
    "darkgray",
    "lightred",
    "lightgreen",
    "lightyellow",
    "lightblue",
    "lightmagenta",
    "lightcyan",
    "lightgray",
    "reset",
];

/// What a colour may be, for messages.
pub const COLOUR_HELP: &str = "a name like darkred, lightblue or cyan, #rrggbb, or 0-255";

/// A colour as a config file writes it: one of [`COLOUR_NAMES`] (in any
/// case, with `-`, `_` or spaces between the words, `grey` for `gray`,
/// `bright` for `light`), `#rrggbb`, or a palette index 0-255.
pub fn parse_colour(text: &str) -> Option<Color> {
    let name: String = text
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| !matches!(c, ' ' | '-' | '_'))
        .collect();
    let name = name.replace("grey", "gray").replace("bright", "light");
    Some(match name.as_str() {
        "black" => Color::Black,
        "red" | "darkred" => Color::Red,
        "green" | "darkgreen" => Color::Green,
        "yellow" | "darkyellow" => Color::Yellow,
        "blue" | "darkblue" => Color::Blue,
        "magenta" | "darkmagenta" => Color::Magenta,
        "cyan" | "darkcyan" => Color::Cyan,
        "gray" | "lightgray" => Color::Gray,
        "darkgray" | "lightblack" => Color::DarkGray,
        "lightred" => Color::LightRed,
        "lightgreen" => Color::LightGreen,
        "lightyellow" => Color::LightYellow,
        "lightblue" => Color::LightBlue,
        "lightmagenta" => Color::LightMagenta,
        "lightcyan" => Color::LightCyan,
        "white" | "lightwhite" => Color::White,
        "reset" => Color::Reset,
        _ => return hex_or_index(text.trim()),
    })
}

/// `#rrggbb`, or a palette index.
fn hex_or_index(text: &str) -> Option<Color> {
    if let Ok(index) = text.parse::<u8>() {
        return Some(Color::Indexed(index));
    }
    let hex = text
        .strip_prefix('#')
        .filter(|hex| hex.len() == 6 && hex.is_ascii())?;
    let byte = |at: usize| u8::from_str_radix(hex.get(at..at + 2)?, 16).ok();
    Some(Color::Rgb(byte(0)?, byte(2)?, byte(4)?))
}

/// A profile's `color` as the console draws it, or why it is not one.
pub fn profile_color(text: &str) -> Result<Color, String> {
    parse_colour(text).ok_or_else(|| format!("color = \"{text}\" is not a colour ({COLOUR_HELP})"))
}
