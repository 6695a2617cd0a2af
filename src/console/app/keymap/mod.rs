//! The console's keys: one table of bindings that both handles keys and
//! writes the help, so that help can never drift from behaviour.

use std::fmt;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::console::screens::ScreenId;

mod defaults;
mod rebinding;

pub use rebinding::{ACTION_NAMES, parse_chord};

/// What a key asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// Back, and on the top level, quit.
    Quit,
    /// Back (dismiss, leave a role, close a view); never quits.
    Back,
    /// A tab's list.
    Show(ScreenId),
    NextTab,
    PreviousTab,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Open,
    Filter,
    Command,
    Refresh,
    Sort,
    ToggleDeleted,
    ToggleJson,
    CopyId,
    CopyJson,
    Help,
    New,
    Edit,
    Delete,
    Restore,
    Assign,
    DetailDown,
    DetailUp,
    /// A test delivery of the subscription, after asking.
    TestDelivery,
    /// Pause or resume the subscription.
    Pause,
    /// The next state the subscriptions are narrowed to.
    CycleState,
    /// Only the overdue subscriptions, or all again.
    Overdue,
    /// Only the failed deliveries, or all again.
    OnlyFailed,
    /// A narrowed list's look goes on past where it stopped.
    LookFurther,
    /// Mark or unmark the row under the cursor, for a bulk action.
    Mark,
    /// Mark every row the filter shows.
    MarkAll,
    /// A member's level, from a small chooser, confirmed.
    SetLevel,
    /// Offboard the person: their plan, then (confirmed) its steps.
    Offboard,
}

impl Action {
    /// Whether the action changes something on the server (and so needs
    /// the list's write scope, and is off under --read-only).
    pub fn writes(self) -> bool {
        match self {
            Action::New
            | Action::Edit
            | Action::Delete
            | Action::Restore
            | Action::Assign
            | Action::TestDelivery
            | Action::Pause
            | Action::SetLevel
            | Action::Offboard => true,
            Action::Quit
            | Action::Back
            | Action::Show(_)
            | Action::NextTab
            | Action::PreviousTab
            | Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom
            | Action::Open
            | Action::Filter
            | Action::Command
            | Action::Refresh
            | Action::Sort
            | Action::ToggleDeleted
            | Action::ToggleJson
            | Action::CopyId
            | Action::CopyJson
            | Action::Help
            | Action::DetailDown
            | Action::DetailUp
            | Action::CycleState
            | Action::Overdue
            | Action::OnlyFailed
            | Action::LookFurther
            | Action::Mark
            | Action::MarkAll => false,
        }
    }
}

/// Where a binding works: everywhere, or on one list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Everywhere,
    On(ScreenId),
}

/// A key with its modifiers (Shift is part of the character).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chord {
    pub code: KeyCode,
    pub control: bool,
}

impl Chord {
    pub const fn key(code: KeyCode) -> Self {
        Chord { code, control: false }
    }

    pub const fn char(c: char) -> Self {
        Chord::key(KeyCode::Char(c))
    }

    pub fn of(event: &KeyEvent) -> Self {
        Chord {
            code: event.code,
            control: event.modifiers.contains(KeyModifiers::CONTROL),
        }
    }
}

impl fmt::Display for Chord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.control {
            f.write_str("Ctrl-")?;
        }
        match self.code {
            KeyCode::Char(' ') => f.write_str("Space"),
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::Up => f.write_str("↑"),
            KeyCode::Down => f.write_str("↓"),
            KeyCode::Left => f.write_str("←"),
            KeyCode::Right => f.write_str("→"),
            KeyCode::PageUp => f.write_str("PgUp"),
            KeyCode::PageDown => f.write_str("PgDn"),
            KeyCode::Home => f.write_str("Home"),
            KeyCode::End => f.write_str("End"),
            KeyCode::Enter => f.write_str("Enter"),
            KeyCode::Esc => f.write_str("Esc"),
            KeyCode::Tab => f.write_str("Tab"),
            KeyCode::BackTab => f.write_str("Shift-Tab"),
            KeyCode::F(n) => write!(f, "F{n}"),
            other => write!(f, "{other:?}"),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Binding {
    pub chords: Vec<Chord>,
    pub action: Action,
    pub scope: Scope,
    pub description: &'static str,
    /// The word for the footer's short list of keys, if it is listed there.
    pub footer: Option<&'static str>,
}

#[derive(Debug, Clone)]
pub struct Keymap {
    bindings: Vec<Binding>,
}

impl Keymap {
    fn bindings_on(&self, screen: ScreenId) -> impl Iterator<Item = &Binding> {
        self.bindings
            .iter()
            .filter(move |binding| binding.scope == Scope::Everywhere || binding.scope == Scope::On(screen))
    }

    /// The bindings a screen's help and footer list: those whose keys an
    /// earlier binding on the screen does not all take first (Health's
    /// own `r` and Esc, before the ones everywhere).
    fn listed_on(&self, screen: ScreenId) -> impl Iterator<Item = &Binding> {
        let on: Vec<&Binding> = self.bindings_on(screen).collect();
        on.clone()
            .into_iter()
            .enumerate()
            .filter_map(move |(at, binding)| {
                let shadowed = binding
                    .chords
                    .iter()
                    .all(|chord| on.iter().take(at).any(|earlier| earlier.chords.contains(chord)));
                (!shadowed).then_some(binding)
            })
    }

    /// The first key of an action that works everywhere (a tab's), as shown.
    pub fn key_for(&self, action: Action) -> String {
        self.bindings
            .iter()
            .find(|binding| binding.action == action && binding.scope == Scope::Everywhere)
            .and_then(|binding| binding.chords.first())
            .map(Chord::to_string)
            .unwrap_or_default()
    }

    /// The action of a key on a screen, if any.
    pub fn action(&self, event: &KeyEvent, screen: ScreenId) -> Option<Action> {
        let chord = Chord::of(event);
        self.bindings_on(screen)
            .find(|binding| binding.chords.contains(&chord))
            .map(|binding| binding.action)
    }

    /// Every binding that works on a screen, for the help.
    pub fn help(&self, screen: ScreenId) -> Vec<(String, &'static str, Action)> {
        self.listed_on(screen)
            .map(|binding| {
                let keys: Vec<String> = binding.chords.iter().map(Chord::to_string).collect();
                (keys.join(" "), binding.description, binding.action)
            })
            .collect()
    }

    /// The short list of keys for the footer.
    pub fn footer(&self, screen: ScreenId) -> Vec<(String, &'static str, Action)> {
        self.listed_on(screen)
            .filter_map(|binding| {
                binding
                    .footer
                    .map(|label| (binding.chords[0].to_string(), label, binding.action))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::KeyEventKind;

    fn key(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent::new_with_kind(code, modifiers, KeyEventKind::Press)
    }

    #[test]
    fn keys_map_to_actions_on_their_screens() {
        let keymap = Keymap::default();
        let (roles, subscriptions) = (ScreenId::Roles, ScreenId::Subscriptions);
        let shifted = |c| key(KeyCode::Char(c), KeyModifiers::SHIFT);
        let plain = |c| key(KeyCode::Char(c), KeyModifiers::NONE);
        assert_eq!(keymap.action(&shifted('G'), roles), Some(Action::Bottom));
        assert_eq!(
            keymap.action(&key(KeyCode::End, KeyModifiers::NONE), roles),
            Some(Action::Bottom)
        );
        assert_eq!(keymap.action(&shifted('D'), roles), None);
        assert_eq!(
            keymap.action(&shifted('D'), subscriptions),
            Some(Action::ToggleDeleted)
        );
        assert_eq!(
            keymap.action(&key(KeyCode::Char('j'), KeyModifiers::CONTROL), roles),
            None
        );
        assert_eq!(keymap.action(&plain('n'), subscriptions), Some(Action::New));
        assert_eq!(keymap.action(&plain('a'), subscriptions), None);
        assert_eq!(keymap.action(&plain('n'), roles), Some(Action::New));
        assert_eq!(
            keymap.action(&plain('d'), ScreenId::Members),
            Some(Action::Delete)
        );
    }

    #[test]
    fn help_lists_every_binding_of_the_screen() {
        let keymap = Keymap::default();
        let help = keymap.help(ScreenId::Subscriptions);
        assert!(
            help.iter()
                .any(|(keys, what, _)| keys == "g Home" && *what == "first row")
        );
        assert!(help.iter().any(|(keys, _, _)| keys == "D"));
        assert!(
            !keymap
                .help(ScreenId::Roles)
                .iter()
                .any(|(keys, _, _)| keys == "D")
        );
        assert!(
            keymap
                .help(ScreenId::Members)
                .iter()
                .any(|(_, what, _)| what.starts_with("remove from the role"))
        );
        let footer = keymap.footer(ScreenId::Subscriptions);
        assert!(
            footer
                .iter()
                .any(|(keys, what, _)| keys == "D" && *what == "deleted")
        );
    }
}
