//! The words a screen's keys are written in: what a key asks for
//! ([`Action`]), where it works ([`Scope`]), a key with its modifiers
//! ([`Chord`]) and one entry of the keymap ([`Binding`]). They sit on the
//! screens' floor, beside [`ScreenId`], so that a screen's folder lists its
//! own bindings (`screens/roles/keys.rs`); the shell's keymap gathers them
//! with the keys every screen shares and the config file's overrides.

use std::fmt;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::ScreenId;

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
    /// What a role grants, on its page.
    Grants,
    /// A key of the Access tab's own (`screens/access/keys.rs`).
    Access(super::access::keys::Key),
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
            | Action::MarkAll
            | Action::Grants
            | Action::Access(_) => false,
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

impl Binding {
    /// A binding of these keys, as help and the footer show it.
    pub fn new(
        chords: &[Chord],
        action: Action,
        scope: Scope,
        description: &'static str,
        footer: Option<&'static str>,
    ) -> Self {
        Binding {
            chords: chords.to_vec(),
            action,
            scope,
            description,
            footer,
        }
    }
}
