//! The config file's `[keys]` table: actions by name, keys as people
//! write them, and the default keymap with the table over it, every
//! mistake reported before the console starts.

use ratatui::crossterm::event::KeyCode;

use strum::IntoEnumIterator;

use super::{Action, Chord, Keymap};
use crate::console::screens::ScreenId;
use crate::console::screens::access::keys::Key as AccessKey;

/// Every action by the name the config file's `[keys]` table uses.
pub const ACTION_NAMES: [(&str, Action); 51] = [
    ("quit", Action::Quit),
    ("back", Action::Back),
    ("roles_tab", Action::Show(ScreenId::Roles)),
    ("members_tab", Action::Show(ScreenId::Members)),
    ("subscriptions_tab", Action::Show(ScreenId::Subscriptions)),
    ("people_tab", Action::Show(ScreenId::People)),
    ("health_tab", Action::Show(ScreenId::Health)),
    ("access_tab", Action::Show(ScreenId::Access)),
    ("next_tab", Action::NextTab),
    ("previous_tab", Action::PreviousTab),
    ("up", Action::Up),
    ("down", Action::Down),
    ("page_up", Action::PageUp),
    ("page_down", Action::PageDown),
    ("top", Action::Top),
    ("bottom", Action::Bottom),
    ("open", Action::Open),
    ("filter", Action::Filter),
    ("command", Action::Command),
    ("refresh", Action::Refresh),
    ("sort", Action::Sort),
    ("toggle_deleted", Action::ToggleDeleted),
    ("toggle_json", Action::ToggleJson),
    ("copy_id", Action::CopyId),
    ("copy_json", Action::CopyJson),
    ("help", Action::Help),
    ("new", Action::New),
    ("edit", Action::Edit),
    ("delete", Action::Delete),
    ("restore", Action::Restore),
    ("assign", Action::Assign),
    ("detail_down", Action::DetailDown),
    ("detail_up", Action::DetailUp),
    ("test_delivery", Action::TestDelivery),
    ("pause", Action::Pause),
    ("cycle_state", Action::CycleState),
    ("overdue", Action::Overdue),
    ("only_failed", Action::OnlyFailed),
    ("look_further", Action::LookFurther),
    ("mark", Action::Mark),
    ("mark_all", Action::MarkAll),
    ("set_level", Action::SetLevel),
    ("offboard", Action::Offboard),
    ("grants", Action::Grants),
    ("access_left", Action::Access(AccessKey::Left)),
    ("access_right", Action::Access(AccessKey::Right)),
    ("access_roles", Action::Access(AccessKey::Kind)),
    ("access_project", Action::Access(AccessKey::Project)),
    ("access_resource", Action::Access(AccessKey::Resource)),
    ("access_differs", Action::Access(AccessKey::Differs)),
    ("access_admins", Action::Access(AccessKey::Admins)),
];

/// Reads a key as people write it: `q`, `G`, `ctrl-r`, `enter`, `esc`,
/// `tab`, `shift-tab`, `up`, `pgdn`, `home`, `space`, `f5`.
pub fn parse_chord(text: &str) -> Result<Chord, String> {
    let lowered = text.trim().to_ascii_lowercase();
    let (control, rest) = match lowered
        .strip_prefix("ctrl-")
        .or_else(|| lowered.strip_prefix("ctrl+"))
    {
        Some(rest) => (true, rest),
        None => (false, lowered.as_str()),
    };
    let code = match rest {
        "enter" | "return" => KeyCode::Enter,
        "esc" | "escape" => KeyCode::Esc,
        "tab" => KeyCode::Tab,
        "shift-tab" | "backtab" => KeyCode::BackTab,
        "up" => KeyCode::Up,
        "down" => KeyCode::Down,
        "left" => KeyCode::Left,
        "right" => KeyCode::Right,
        "pgup" | "pageup" => KeyCode::PageUp,
        "pgdn" | "pagedown" => KeyCode::PageDown,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        "space" => KeyCode::Char(' '),
        key if key.starts_with('f') && key.len() > 1 && key[1..].parse::<u8>().is_ok() => {
            KeyCode::F(key[1..].parse().unwrap_or(1))
        }
        _ => {
            // A single character, keeping its case (G is not g).
            let original = text.trim();
            let character = if control {
                original.get(5..).unwrap_or("")
            } else {
                original
            };
            let mut chars = character.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => KeyCode::Char(if control { c.to_ascii_lowercase() } else { c }),
                _ => return Err(format!("\"{text}\" is not a key orgdeck knows")),
            }
        }
    };
    Ok(Chord { code, control })
}

impl Keymap {
    /// The default keys with the config file's `[keys]` table over them:
    /// each named action takes the keys given, on every screen it works on.
    /// Every mistake is reported at once, one per line: an unknown action,
    /// a key that is not one, a key bound to two actions on one screen.
    pub fn with_overrides(
        overrides: &std::collections::BTreeMap<String, Vec<String>>,
    ) -> Result<Keymap, String> {
        let mut keymap = Keymap::default();
        let mut problems = Vec::new();
        for (name, keys) in overrides {
            let Some(action) = ACTION_NAMES
                .iter()
                .find(|(known, _)| known == name)
                .map(|(_, action)| *action)
            else {
                problems.push(format!(
                    "[keys] has \"{name}\", which is not an action; the actions are: {}",
                    action_list()
                ));
                continue;
            };
            let mut chords = Vec::new();
            for key in keys {
                match parse_chord(key) {
                    Ok(chord) => chords.push(chord),
                    Err(error) => problems.push(format!("[keys] {name}: {error}")),
                }
            }
            for binding in keymap
                .bindings
                .iter_mut()
                .filter(|binding| binding.action == action)
            {
                binding.chords = chords.clone();
            }
        }
        problems.extend(keymap.conflicts());
        if problems.is_empty() {
            Ok(keymap)
        } else {
            Err(problems.join("\n"))
        }
    }

    /// Every key bound to two actions on one screen, once each.
    fn conflicts(&self) -> Vec<String> {
        let mut found = Vec::new();
        for screen in ScreenId::iter() {
            let mut seen: Vec<(Chord, Action)> = Vec::new();
            for binding in self.bindings_on(screen) {
                for chord in &binding.chords {
                    match seen.iter().find(|(known, _)| known == chord) {
                        Some((_, other)) if *other != binding.action => {
                            let line = format!(
                                "[keys]: {chord} is bound to both {} and {}",
                                action_name(*other),
                                action_name(binding.action)
                            );
                            if !found.contains(&line) {
                                found.push(line);
                            }
                        }
                        Some(_) => {}
                        None => seen.push((*chord, binding.action)),
                    }
                }
            }
        }
        found
    }
}

fn action_name(action: Action) -> &'static str {
    ACTION_NAMES
        .iter()
        .find(|(_, known)| *known == action)
        .map(|(name, _)| *name)
        .unwrap_or("?")
}

fn action_list() -> String {
    ACTION_NAMES
        .iter()
        .map(|(name, _)| *name)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::{KeyEvent, KeyModifiers};
    use std::collections::BTreeMap;

    fn overrides(pairs: &[(&str, &[&str])]) -> BTreeMap<String, Vec<String>> {
        pairs
            .iter()
            .map(|(name, keys)| (name.to_string(), keys.iter().map(|k| k.to_string()).collect()))
            .collect()
    }

    #[test]
    fn keys_can_be_rebound_and_help_follows() {
        let keymap =
            Keymap::with_overrides(&overrides(&[("quit", &["ctrl-q", "Q"]), ("refresh", &["f5"])])).unwrap();
        let event = KeyEvent::new(KeyCode::Char('q'), KeyModifiers::CONTROL);
        assert_eq!(keymap.action(&event, ScreenId::Roles), Some(Action::Quit));
        let plain_q = KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE);
        assert_eq!(keymap.action(&plain_q, ScreenId::Roles), None, "q is free now");
        assert!(
            keymap
                .help(ScreenId::Roles)
                .iter()
                .any(|(keys, what, _)| keys == "F5" && *what == "refresh")
        );
    }

    #[test]
    fn mistakes_are_reported() {
        assert!(
            Keymap::with_overrides(&overrides(&[("launch", &["x"])]))
                .unwrap_err()
                .contains("not an action")
        );
        assert!(
            Keymap::with_overrides(&overrides(&[("quit", &["hyper-q"])]))
                .unwrap_err()
                .contains("not a key")
        );
        let conflict = Keymap::with_overrides(&overrides(&[("refresh", &["j"])])).unwrap_err();
        assert!(conflict.contains("bound to both"), "{conflict}");
        let all = Keymap::with_overrides(&overrides(&[
            ("refresh", &["j"]),
            ("new", &["s"]),
            ("launch", &["x"]),
        ]))
        .unwrap_err();
        assert_eq!(all.lines().count(), 3, "every mistake at once, each once: {all}");
        assert_eq!(parse_chord("G").unwrap(), Chord::char('G'));
        assert_eq!(
            parse_chord("ctrl-r").unwrap(),
            Chord {
                code: KeyCode::Char('r'),
                control: true
            }
        );
    }
}
