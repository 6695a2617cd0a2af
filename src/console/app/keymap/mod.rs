//! The console's keys: one table of bindings that both handles keys and
//! writes the help, so that help can never drift from behaviour.

use std::fmt;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::console::lists::ListId;

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
    Show(ListId),
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
    On(ListId),
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

impl Default for Keymap {
    /// The keys of design.md.
    fn default() -> Self {
        use Action::*;
        use KeyCode as K;
        let bind = |chords: &[Chord], action, scope, description, footer| Binding {
            chords: chords.to_vec(),
            action,
            scope,
            description,
            footer,
        };
        let c = Chord::char;
        let k = Chord::key;
        let all = Scope::Everywhere;
        Keymap {
            bindings: vec![
                bind(&[c('1')], Show(ListId::Roles), all, "roles", None),
                bind(&[c('2')], Show(ListId::Members), all, "members", None),
                bind(&[c('3')], Show(ListId::Subscriptions), all, "subscriptions", None),
                bind(&[c('4')], Show(ListId::People), all, "people", None),
                bind(
                    &[c('H')],
                    Show(ListId::Health),
                    all,
                    "health: every subscription, worst first",
                    None,
                ),
                bind(&[k(K::Tab)], NextTab, all, "next tab", None),
                bind(&[k(K::BackTab)], PreviousTab, all, "previous tab", None),
                bind(&[c('k'), k(K::Up)], Up, all, "up", None),
                bind(&[c('j'), k(K::Down)], Down, all, "down", None),
                bind(&[k(K::PageUp)], PageUp, all, "page up", None),
                bind(&[k(K::PageDown)], PageDown, all, "page down", None),
                bind(&[c('g'), k(K::Home)], Top, all, "first row", None),
                bind(&[c('G'), k(K::End)], Bottom, all, "last row", None),
                bind(
                    &[k(K::Enter)],
                    Open,
                    Scope::On(ListId::People),
                    "the person's page: roles, subscriptions, keys, if they left",
                    Some("open"),
                ),
                bind(
                    &[k(K::Enter)],
                    Open,
                    Scope::On(ListId::Person),
                    "on a subscription: show it on Subscriptions",
                    Some("open"),
                ),
                bind(
                    &[k(K::Enter)],
                    Open,
                    Scope::On(ListId::Offboard),
                    "run the plan (asks first: only y runs it)",
                    Some("run"),
                ),
                bind(
                    &[k(K::Enter)],
                    Open,
                    all,
                    "open: a role's members, a subscription's deliveries, or the detail of a row",
                    Some("open"),
                ),
                bind(&[c('/')], Filter, all, "filter", Some("filter")),
                bind(&[c(':')], Command, all, "command line", Some("command")),
                bind(
                    &[c('s')],
                    Sort,
                    Scope::On(ListId::Roles),
                    "sort by the next column",
                    Some("sort"),
                ),
                bind(
                    &[c('s')],
                    Sort,
                    Scope::On(ListId::Members),
                    "sort by the next column",
                    Some("sort"),
                ),
                bind(
                    &[c('s')],
                    Sort,
                    Scope::On(ListId::Subscriptions),
                    "order: newest, next delivery, title (both ways)",
                    Some("sort"),
                ),
                bind(&[c('n')], New, Scope::On(ListId::Roles), "new role", Some("new")),
                bind(
                    &[c('e')],
                    Edit,
                    Scope::On(ListId::Roles),
                    "rename, change access",
                    Some("edit"),
                ),
                bind(
                    &[c('d')],
                    Delete,
                    Scope::On(ListId::Roles),
                    "delete the role, or every marked one (asks first)",
                    Some("delete"),
                ),
                bind(
                    &[c('a')],
                    Assign,
                    Scope::On(ListId::Roles),
                    "assign people to the role (opens its members)",
                    None,
                ),
                bind(
                    &[c('a')],
                    Assign,
                    Scope::On(ListId::Members),
                    "assign people to the role",
                    Some("assign"),
                ),
                bind(
                    &[c('d')],
                    Delete,
                    Scope::On(ListId::Members),
                    "remove from the role, or every marked one (asks first)",
                    Some("remove"),
                ),
                bind(
                    &[c('d')],
                    Delete,
                    Scope::On(ListId::Subscriptions),
                    "soft-delete, or every marked one (asks first)",
                    Some("delete"),
                ),
                bind(
                    &[c('u')],
                    Restore,
                    Scope::On(ListId::Subscriptions),
                    "restore a soft-deleted one, or undo",
                    Some("restore"),
                ),
                bind(
                    &[c('D')],
                    ToggleDeleted,
                    Scope::On(ListId::Subscriptions),
                    "show or hide deleted",
                    Some("deleted"),
                ),
                bind(
                    &[c('n')],
                    New,
                    Scope::On(ListId::Subscriptions),
                    "new subscription",
                    Some("new"),
                ),
                bind(
                    &[c('e')],
                    Edit,
                    Scope::On(ListId::Subscriptions),
                    "edit the subscription",
                    Some("edit"),
                ),
                bind(
                    &[c('t')],
                    TestDelivery,
                    Scope::On(ListId::Subscriptions),
                    "test delivery now, or of every marked one (asks first)",
                    Some("test"),
                ),
                bind(
                    &[c('p')],
                    Pause,
                    Scope::On(ListId::Subscriptions),
                    "pause or resume, or every marked one (asks first)",
                    Some("pause"),
                ),
                bind(
                    &[c('f')],
                    CycleState,
                    Scope::On(ListId::Subscriptions),
                    "only one state: overdue, paused, ended, active, unsupported, then all",
                    Some("state"),
                ),
                bind(
                    &[c('o')],
                    Overdue,
                    Scope::On(ListId::Subscriptions),
                    "only the overdue ones (again: all)",
                    None,
                ),
                bind(
                    &[c('L')],
                    LookFurther,
                    Scope::On(ListId::Subscriptions),
                    "a state's look stopped at 5,000 rows: look through 5,000 more",
                    None,
                ),
                bind(
                    &[c('f')],
                    OnlyFailed,
                    Scope::On(ListId::Deliveries),
                    "only the failed and partial ones (again: all)",
                    Some("failed"),
                ),
                bind(
                    &[c('t')],
                    TestDelivery,
                    Scope::On(ListId::Deliveries),
                    "send a test delivery of this subscription now (asks first)",
                    Some("test"),
                ),
                bind(
                    &[c('p')],
                    Pause,
                    Scope::On(ListId::Deliveries),
                    "pause or resume this subscription (asks first)",
                    Some("pause"),
                ),
                bind(
                    &[c('e')],
                    Edit,
                    Scope::On(ListId::Deliveries),
                    "edit this subscription (its target, its recipients)",
                    Some("edit"),
                ),
                bind(
                    &[c('u')],
                    Restore,
                    Scope::On(ListId::Deliveries),
                    "restore this subscription when it is soft-deleted",
                    None,
                ),
                bind(
                    &[c('t')],
                    TestDelivery,
                    Scope::On(ListId::Health),
                    "test delivery of the row's subscription, or every marked one's (asks first)",
                    Some("test"),
                ),
                bind(
                    &[c('p')],
                    Pause,
                    Scope::On(ListId::Health),
                    "pause or resume the row's subscription, or every marked one's",
                    Some("pause"),
                ),
                bind(
                    &[c('e')],
                    Edit,
                    Scope::On(ListId::Health),
                    "edit the row's subscription (its target, its recipients)",
                    Some("edit"),
                ),
                bind(
                    &[c('u')],
                    Restore,
                    Scope::On(ListId::Health),
                    "restore the row's subscription when it is soft-deleted",
                    None,
                ),
                bind(
                    &[c('r')],
                    Refresh,
                    Scope::On(ListId::Health),
                    "look again (reads only what changed since the last look)",
                    Some("look again"),
                ),
                bind(
                    &[k(K::Esc)],
                    Back,
                    Scope::On(ListId::Health),
                    "clear the marks; else stop the look under way; else clear the filter; else back",
                    Some("stop"),
                ),
                bind(
                    &[k(K::Esc)],
                    Back,
                    Scope::On(ListId::People),
                    "clear the marks, then the filter; stop the look of :no-role; clear :no-role or :has-role; else back",
                    None,
                ),
                bind(
                    &[c('s')],
                    Sort,
                    Scope::On(ListId::People),
                    "order: joined, newest or oldest first",
                    Some("sort"),
                ),
                bind(
                    &[c('a')],
                    Assign,
                    Scope::On(ListId::People),
                    "add the person to roles (choose several)",
                    Some("add to roles"),
                ),
                bind(
                    &[c('L')],
                    SetLevel,
                    Scope::On(ListId::People),
                    "change the person's level (member, admin, owner)",
                    Some("level"),
                ),
                bind(
                    &[c('O')],
                    Offboard,
                    Scope::On(ListId::People),
                    "offboard the person: their plan, then its steps (asks first)",
                    Some("offboard"),
                ),
                bind(
                    &[c('a')],
                    Assign,
                    Scope::On(ListId::Person),
                    "add them to roles (choose several)",
                    Some("add to roles"),
                ),
                bind(
                    &[c('d')],
                    Delete,
                    Scope::On(ListId::Person),
                    "remove them from the role under the cursor (asks first)",
                    Some("remove"),
                ),
                bind(
                    &[c('L')],
                    SetLevel,
                    Scope::On(ListId::Person),
                    "change their level (member, admin, owner)",
                    Some("level"),
                ),
                bind(
                    &[c('O')],
                    Offboard,
                    Scope::On(ListId::Person),
                    "offboard them: their plan, then its steps (asks first)",
                    Some("offboard"),
                ),
                bind(
                    &[c('r')],
                    Refresh,
                    Scope::On(ListId::Person),
                    "gather their page again (and who holds which role)",
                    Some("refresh"),
                ),
                bind(
                    &[c(' ')],
                    Mark,
                    Scope::On(ListId::Offboard),
                    "turn the option under the cursor on or off (the plan follows)",
                    Some("option"),
                ),
                bind(
                    &[k(K::Esc)],
                    Back,
                    Scope::On(ListId::Offboard),
                    "back (a run under way goes on)",
                    Some("back"),
                ),
                bind(&[c('v')], ToggleJson, all, "detail: fields or raw JSON", None),
                bind(&[c('J')], DetailDown, all, "scroll the detail down", None),
                bind(&[c('K')], DetailUp, all, "scroll the detail up", None),
                bind(&[c('r')], Refresh, all, "refresh", Some("refresh")),
                bind(&[c('y')], CopyId, all, "copy id", None),
                bind(&[c('Y')], CopyJson, all, "copy JSON", None),
                bind(&[c('?')], Help, all, "help", Some("help")),
                bind(
                    &[c(' ')],
                    Mark,
                    all,
                    "mark or unmark the row: d, p, t (on People: a) act on every marked row",
                    None,
                ),
                bind(
                    &[c('*')],
                    MarkAll,
                    all,
                    "mark every row the filter shows (at most 1,000)",
                    None,
                ),
                bind(
                    &[k(K::Esc)],
                    Back,
                    all,
                    "clear the marks, then the filter; else back, dismiss",
                    None,
                ),
                bind(
                    &[c('q')],
                    Quit,
                    all,
                    "back; quit on the top level",
                    Some("back/quit"),
                ),
            ],
        }
    }
}

impl Keymap {
    fn bindings_on(&self, screen: ListId) -> impl Iterator<Item = &Binding> {
        self.bindings
            .iter()
            .filter(move |binding| binding.scope == Scope::Everywhere || binding.scope == Scope::On(screen))
    }

    /// The bindings a screen's help and footer list: those whose keys an
    /// earlier binding on the screen does not all take first (Health's
    /// own `r` and Esc, before the ones everywhere).
    fn listed_on(&self, screen: ListId) -> impl Iterator<Item = &Binding> {
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
    pub fn action(&self, event: &KeyEvent, screen: ListId) -> Option<Action> {
        let chord = Chord::of(event);
        self.bindings_on(screen)
            .find(|binding| binding.chords.contains(&chord))
            .map(|binding| binding.action)
    }

    /// Every binding that works on a screen, for the help.
    pub fn help(&self, screen: ListId) -> Vec<(String, &'static str, Action)> {
        self.listed_on(screen)
            .map(|binding| {
                let keys: Vec<String> = binding.chords.iter().map(Chord::to_string).collect();
                (keys.join(" "), binding.description, binding.action)
            })
            .collect()
    }

    /// The short list of keys for the footer.
    pub fn footer(&self, screen: ListId) -> Vec<(String, &'static str, Action)> {
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
        let (roles, subscriptions) = (ListId::Roles, ListId::Subscriptions);
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
        assert_eq!(keymap.action(&plain('d'), ListId::Members), Some(Action::Delete));
    }

    #[test]
    fn help_lists_every_binding_of_the_screen() {
        let keymap = Keymap::default();
        let help = keymap.help(ListId::Subscriptions);
        assert!(
            help.iter()
                .any(|(keys, what, _)| keys == "g Home" && *what == "first row")
        );
        assert!(help.iter().any(|(keys, _, _)| keys == "D"));
        assert!(!keymap.help(ListId::Roles).iter().any(|(keys, _, _)| keys == "D"));
        assert!(
            keymap
                .help(ListId::Members)
                .iter()
                .any(|(_, what, _)| what.starts_with("remove from the role"))
        );
        let footer = keymap.footer(ListId::Subscriptions);
        assert!(
            footer
                .iter()
                .any(|(keys, what, _)| keys == "D" && *what == "deleted")
        );
    }
}
