//! The connection, always named; and no key lost.
//!
//! A request that finds no server (no connection, no answer in time, a
//! connection dropped) takes the console [`Offline`]: the footer and the
//! list say which server and why, the rows keep their last known values
//! (drawn dimmed, "stale since" in the table's title) and the server is
//! tried again after 1, 2, 4, 8, 16, then every 30 s: a timer runs only
//! while disconnected, and `r` tries at once. The first answer, whatever
//! it is, brings the console back: "reconnected", and what is on screen is
//! read again.
//!
//! Keys typed while the rows they act on are on their way (a move before
//! the list's length is known, Enter on a row whose page is in flight)
//! are held, with every key after them, and applied in order as pages
//! arrive; a failed load drops them and says so. Back and quit are never
//! held: they drop what waits and leave.

use std::collections::VecDeque;

use chrono::{DateTime, TimeDelta, Utc};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::keymap::Action;
use super::{App, Effect, Mode, Notice, ScreenId, Ticket, Timer};
use crate::api;

/// The longest wait between two tries of a server that went away.
pub const MAX_BACKOFF: u32 = 30;

/// The most keys held for a list on its way; more are dropped, said so.
pub const HELD_KEYS: usize = 64;

/// Seconds before the next try, after `tries` tries that failed: 1, 2, 4,
/// 8, 16, then 30.
pub fn backoff(tries: u32) -> u32 {
    1u32.checked_shl(tries).unwrap_or(u32::MAX).min(MAX_BACKOFF)
}

/// The server could not be reached.
#[derive(Debug, Clone, PartialEq)]
pub struct Offline {
    /// The server as a person names it: `http://127.0.0.1:8010`.
    pub server: String,
    /// Why, in a few words: "connection refused".
    pub reason: String,
    /// When a request first found no server: the rows shown are stale
    /// since then.
    pub since: DateTime<Utc>,
    /// Tries since then that failed.
    pub tries: u32,
    /// When the next try is due; `None` while one is on its way.
    pub retry_at: Option<DateTime<Utc>>,
    /// The list and generation the last try read: its answer is the
    /// reading of what is on screen, which then is not read again.
    probe: Option<(ScreenId, Ticket)>,
}

impl Offline {
    /// "cannot reach http://127.0.0.1:8010: connection refused".
    pub fn cannot_reach(&self) -> String {
        format!("cannot reach {}: {}", self.server, self.reason)
    }

    /// "retrying in 4 s · r retries now", or "retrying now" while a try
    /// is on its way.
    pub fn retrying(&self, now: DateTime<Utc>) -> String {
        match self.retry_at {
            Some(at) => {
                let millis = u64::try_from((at - now).num_milliseconds()).unwrap_or(0);
                format!("retrying in {} s · r retries now", millis.div_ceil(1000).max(1))
            }
            None => "retrying now".into(),
        }
    }

    /// The whole of it, for the footer and the list.
    pub fn line(&self, now: DateTime<Utc>) -> String {
        format!("{} · {}", self.cannot_reach(), self.retrying(now))
    }
}

/// Whether an action moves the cursor.
fn moves(action: Action) -> bool {
    matches!(
        action,
        Action::Up | Action::Down | Action::PageUp | Action::PageDown | Action::Top | Action::Bottom
    )
}

/// Whether an action acts on the row under the cursor of this list.
fn needs_row(action: Action, shown: ScreenId) -> bool {
    match action {
        Action::Open | Action::CopyId | Action::CopyJson => shown != ScreenId::Health,
        Action::Edit => matches!(shown, ScreenId::Roles | ScreenId::Subscriptions),
        Action::Delete => matches!(
            shown,
            ScreenId::Roles | ScreenId::Members | ScreenId::Subscriptions
        ),
        Action::TestDelivery | Action::Pause => shown == ScreenId::Subscriptions,
        _ => false,
    }
}

impl App {
    /// Keys held until the rows they act on arrive.
    pub fn held_keys(&self) -> usize {
        self.connection.held.len()
    }

    /// A key pressed: held behind the keys that wait (or because it must
    /// wait itself), or handled now.
    pub(super) fn take_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        if key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL) {
            return self.key(key);
        }
        // Keys held for a list that is no longer loading wait for nothing.
        let mut effects = self.replay();
        let action = self.action_of(&key);
        if !self.connection.held.is_empty() && matches!(action, Some(Action::Back | Action::Quit)) {
            // Leaving: what was typed for the list left goes with it.
            let dropped = self.connection.held.len();
            self.connection.held.clear();
            self.notice.shown = Some(Notice::done(format!(
                "dropped on leaving: {} typed while the list loaded",
                crate::text::counted(dropped, "key")
            )));
        } else if !self.connection.held.is_empty() || action.is_some_and(|action| self.must_wait(action)) {
            if self.connection.held.len() >= HELD_KEYS {
                self.notice.shown = Some(Notice::error(format!(
                    "{HELD_KEYS} keys already wait for the list to load: this one was dropped"
                )));
            } else {
                self.connection.held.push_back(key);
            }
            return effects;
        }
        effects.extend(self.key(key));
        effects
    }

    /// Applies the keys held, in order, as far as the rows they need have
    /// arrived.
    pub(super) fn replay(&mut self) -> Vec<Effect> {
        let mut effects = Vec::new();
        while let Some(&key) = self.connection.held.front() {
            if self.action_of(&key).is_some_and(|action| self.must_wait(action)) {
                break;
            }
            self.connection.held.pop_front();
            effects.extend(self.key(key));
            self.window.dirty = true;
        }
        effects
    }

    /// The action a key means now, in the list view (other modes take
    /// keys as typing, which never waits).
    fn action_of(&self, key: &KeyEvent) -> Option<Action> {
        match self.mode {
            Mode::Normal => self.keymap.action(key, self.shown()),
            _ => None,
        }
    }

    /// Whether an action must wait for rows on their way: a move before
    /// the list's length is known, an action on the row under the cursor
    /// before that row has arrived.
    fn must_wait(&self, action: Action) -> bool {
        let table = self.screens.shown(self.shown());
        if !table.is_loading() {
            return false;
        }
        if moves(action) {
            table.count().is_none()
        } else {
            needs_row(action, self.shown()) && table.selected_id().is_none()
        }
    }

    /// An action on the row under the cursor when that row is not loaded
    /// (and not on its way): says why, in words that fit the state, rather
    /// than what the action does on a row.
    pub(super) fn not_loaded(&mut self, action: Action) -> Option<Vec<Effect>> {
        let table = self.screens.shown(self.shown());
        if !needs_row(action, self.shown()) || table.selected_id().is_some() {
            return None;
        }
        // An empty list is the action's to answer.
        if table.count().is_some() && table.is_empty() {
            return None;
        }
        let why = match &self.connection.offline {
            Some(offline) => offline.line(self.window.now),
            None if table.is_loading() => "its page is on its way".into(),
            None if table.has_failed() => "the list could not be read: r tries again".into(),
            None => "r reads the list again".into(),
        };
        self.notice.shown = Some(Notice::error(format!("not loaded: {why}")));
        Some(Vec::new())
    }

    /// A page of `list` failed. A server not reached takes the console
    /// offline (the footer and the list say so, and it is tried again);
    /// any other failure is an answer, so the server is back, and the error
    /// is told. Keys held for the list go, said so.
    pub(super) fn page_failed(&mut self, list: ScreenId, error: &api::Error) -> Vec<Effect> {
        let dropped = match list == self.shown() {
            true => std::mem::take(&mut self.connection.held).len(),
            false => 0,
        };
        let dropped = (dropped > 0).then(|| {
            format!(
                "dropped: {} typed while the list loaded",
                crate::text::counted(dropped, "key")
            )
        });
        match error.unreachable() {
            Some(unreachable) => {
                let effects = self.unreachable(unreachable);
                if let (Some(dropped), Some(offline)) = (dropped, &self.connection.offline) {
                    self.notice.shown = Some(Notice::error(format!("{}\n{dropped}", offline.cannot_reach())));
                }
                effects
            }
            None => {
                self.learn_from(error);
                let mut text = error.to_string();
                if let Some(dropped) = dropped {
                    text = format!("{text}\n{dropped}");
                }
                self.notice.shown = Some(Notice::error(text));
                let generation = self.screens.generation(list);
                match error.status() {
                    Some(_) => self.reached(Some((list, generation))),
                    None => Vec::new(),
                }
            }
        }
    }

    /// A request found no server: offline from now (or still), and the
    /// next try set unless one is already.
    pub(super) fn unreachable(&mut self, unreachable: api::Unreachable) -> Vec<Effect> {
        self.window.dirty = true;
        let api::Unreachable { server, reason } = unreachable;
        let tries = match self.connection.offline.as_mut() {
            None => {
                self.connection.offline = Some(Offline {
                    server,
                    reason,
                    since: self.window.now,
                    tries: 0,
                    retry_at: None,
                    probe: None,
                });
                0
            }
            Some(offline) => {
                offline.server = server;
                offline.reason = reason;
                if offline.retry_at.is_some() {
                    return Vec::new();
                }
                offline.tries = offline.tries.saturating_add(1);
                offline.tries
            }
        };
        self.next_try(backoff(tries))
    }

    /// Sets the next try of the server in `seconds`.
    fn next_try(&mut self, seconds: u32) -> Vec<Effect> {
        let Some(offline) = self.connection.offline.as_mut() else {
            return Vec::new();
        };
        offline.retry_at = Some(self.window.now + TimeDelta::seconds(i64::from(seconds)));
        vec![Effect::Timer {
            timer: Timer::Reconnect(seconds),
            ticket: self.connection.reconnects.issue(),
        }]
    }

    /// The time to try the server again has come.
    pub(super) fn reconnect_due(&mut self, ticket: Ticket) -> Vec<Effect> {
        if !self.connection.reconnects.is_current(ticket) {
            return Vec::new();
        }
        let Some(offline) = self.connection.offline.as_mut() else {
            return Vec::new();
        };
        offline.retry_at = None;
        self.window.dirty = true;
        self.try_server()
    }

    /// `r` while offline: the server is tried now, the timer's try with it.
    pub(super) fn retry_now(&mut self) -> Vec<Effect> {
        self.connection.reconnects.issue();
        let Some(offline) = self.connection.offline.as_mut() else {
            return Vec::new();
        };
        offline.retry_at = None;
        self.try_server()
    }

    /// Reads what is on screen again (or, where the screen shows no list
    /// of the server's, the first roles): its answer says whether the
    /// server is back. A request already on its way says it as well.
    fn try_server(&mut self) -> Vec<Effect> {
        let shown = self.shown();
        let list = if self.screens.asks(shown, self.scope()) {
            shown
        } else {
            ScreenId::Roles
        };
        if self.screens.shown(list).is_loading() {
            return Vec::new();
        }
        let effects = self.reread(list);
        let generation = self.screens.generation(list);
        match self.connection.offline.as_mut() {
            Some(offline) if effects.iter().any(Effect::is_request) => {
                offline.probe = Some((list, generation));
                effects
            }
            // Nothing to ask (a list that needs a row first): the next try is set.
            Some(offline) => {
                offline.tries = offline.tries.saturating_add(1);
                let wait = backoff(offline.tries);
                self.next_try(wait)
            }
            None => effects,
        }
    }

    /// A list again from the server, its rows kept (stale) until theirs
    /// come back and the cursor kept on its row.
    fn reread(&mut self, list: ScreenId) -> Vec<Effect> {
        if !self.screens.asks(list, self.scope()) {
            return Vec::new();
        }
        let Some(table) = self.screens.list_mut(list) else {
            return Vec::new();
        };
        table.remember_selected();
        table.restart(false);
        self.fetch_list(list)
    }

    /// `:ctx` reached another connection: the server that could not be
    /// reached, its next try and the keys held for its lists are forgotten.
    pub(super) fn forget_the_old_server(&mut self) {
        self.connection.offline = None;
        self.connection.reconnects.issue();
        self.connection.held.clear();
    }

    /// A write's answer, for the connection: one that found no server
    /// takes the console offline (the write's own error says the rest);
    /// any answer of the server's brings it back.
    pub(super) fn write_answered(&mut self, error: Option<&api::Error>) -> Vec<Effect> {
        match error {
            None => self.reached(None),
            Some(error) => match error.unreachable() {
                Some(unreachable) => self.unreachable(unreachable),
                None if error.status().is_some() => self.reached(None),
                None => Vec::new(),
            },
        }
    }

    /// The server answered (a page of a list, with its generation, or any
    /// other answer): back online if it was not, saying so, and what is on
    /// screen, read before it went away, is read again.
    pub(super) fn reached(&mut self, page: Option<(ScreenId, Ticket)>) -> Vec<Effect> {
        let Some(offline) = self.connection.offline.take() else {
            return Vec::new();
        };
        // The timer set for the next try has nothing left to do.
        self.connection.reconnects.issue();
        self.window.dirty = true;
        self.notice.shown = Some(Notice::done(format!("reconnected to {}", offline.server)));
        let mut effects = Vec::new();
        if self.context.organization_name.is_none() {
            effects.push(self.load_names());
        }
        let shown = self.shown();
        // The answer that came may be the reading of what is on screen.
        let read = page.is_some_and(|(list, _)| list == shown) && offline.probe == page;
        if !read {
            effects.extend(self.reread(shown));
        }
        let (screens, mut ctx) = self.lend();
        effects.extend(screens.health.look_again_if_cut(&mut ctx).map(Effect::from));
        effects
    }
}

/// Keys kept in order (a few dozen at most).
pub type Held = VecDeque<KeyEvent>;

/// The connection and its switching: which server answers belong to, a
/// `:ctx` on its way, whether the server is out of reach and the next try,
/// and the keys held.
pub struct Connection {
    /// The context the console started with, for `:ctx` to go back to.
    pub(super) start: super::Context,
    /// Which connection answers belong to: it changes with each `:ctx`, so
    /// that a late answer over the previous one is dropped.
    pub(super) answers: super::Latest,
    /// The last `:ctx` asked for; only its answer is taken.
    pub(super) connects: super::Latest,
    /// Where a `:ctx` is going; writes wait until it answers.
    pub(super) switching: Option<super::Target>,
    /// Whether the connection is still the one the console started with.
    pub(super) at_start: bool,
    /// Set by `:org`: the project must then be one of the new organization's.
    pub(super) project_follows: bool,
    /// The timer of the next try of the server; only the last one set counts.
    pub(super) reconnects: super::Latest,
    /// Keys typed while the rows they act on were on their way, in order.
    pub(super) held: Held,
    /// Set while the server cannot be reached: which, why, since when,
    /// and when it is tried again.
    pub offline: Option<Offline>,
}

impl Connection {
    /// The connection the console starts with, to `start`.
    pub(super) fn new(start: super::Context) -> Self {
        Connection {
            start,
            answers: Default::default(),
            connects: Default::default(),
            switching: None,
            at_start: true,
            project_follows: false,
            reconnects: Default::default(),
            held: Held::new(),
            offline: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tries_back_off_to_half_a_minute() {
        let waits: Vec<u32> = (0..8).map(backoff).collect();
        assert_eq!(waits, [1, 2, 4, 8, 16, 30, 30, 30]);
        assert_eq!(backoff(u32::MAX), MAX_BACKOFF);
    }

    #[test]
    fn the_line_names_the_server_the_reason_and_the_wait() {
        let now = crate::clock::system_now();
        let mut offline = Offline {
            server: "http://127.0.0.1:8010".into(),
            reason: "connection refused".into(),
            since: now,
            tries: 2,
            retry_at: Some(now + TimeDelta::milliseconds(3_200)),
            probe: None,
        };
        assert_eq!(
            offline.line(now),
            "cannot reach http://127.0.0.1:8010: connection refused · retrying in 4 s · r retries now"
        );
        offline.retry_at = None;
        assert_eq!(
            offline.line(now),
            "cannot reach http://127.0.0.1:8010: connection refused · retrying now"
        );
    }
}
