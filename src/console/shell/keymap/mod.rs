//! The console's keys: one table of bindings that both handles keys and
//! writes the help, so that help can never drift from behaviour.

use ratatui::crossterm::event::KeyEvent;

use crate::console::screens::ScreenId;
pub use crate::console::screens::keys::{Action, Binding, Chord, Scope};

mod defaults;
mod rebinding;

pub use rebinding::{ACTION_NAMES, parse_chord};

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
    use ratatui::crossterm::event::{KeyCode, KeyEventKind, KeyModifiers};

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
