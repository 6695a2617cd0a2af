//! The console: tabs for roles, members, subscriptions and people that page
//! through the API, and Health, a look across the project's subscriptions; the
//! network is kept apart from the drawing by channels.

mod effects;
pub mod kit;
pub mod screens;
pub mod shell;
mod signals;
pub mod table;
mod terminal;
#[cfg(test)]
mod tests;
pub mod widgets;

pub use shell::keymap;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::{Backend, TestBackend};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tokio::sync::mpsc::UnboundedReceiver;

use crate::api::Client;
use crate::clock::Clock;
use crate::config::ConfigFile;
use crate::console::screens::offboard::Write as OffboardWrite;
use kit::theme::Theme;
pub use shell::{App, Context, Effect, Msg, Origin};

pub use terminal::Ending;

/// Opens the console on `client` until the user quits or a signal ends it,
/// with the keys and colours of the config file (as already read).
pub async fn run(client: Client, context: Context, file: Option<ConfigFile>) -> anyhow::Result<Ending> {
    let (keymap, theme) = look(file.unwrap_or_default())?;
    let mut driver = Driver::new(client, context, (80, 24), theme);
    driver.app.keymap = keymap;
    if let Some(path) = crate::config::config_path() {
        driver.use_config_file(&path);
    }
    terminal::run(driver).await
}

/// The config file's `[keys]` and `[theme]` over the defaults; a mistake in
/// either (an unknown action, a key bound twice, a colour that is not one)
/// is reported before the console starts.
pub fn look(file: ConfigFile) -> anyhow::Result<(keymap::Keymap, Theme)> {
    let keys = file
        .keys
        .into_iter()
        .map(|(action, keys)| (action, keys.into_vec()))
        .collect();
    let keymap = keymap::Keymap::with_overrides(&keys).map_err(anyhow::Error::msg)?;
    let theme = Theme::from_environment()
        .with_colors(&file.theme)
        .map_err(anyhow::Error::msg)?;
    Ok((keymap, theme))
}

/// The app with its effects runner and message channel: what the event
/// loop drives with terminal events, and tests drive with synthetic keys.
pub struct Driver {
    pub app: App,
    runner: effects::Runner,
    messages: UnboundedReceiver<Msg>,
    pub theme: Theme,
    /// Where `app.window.now` comes from before each draw: the system's clock, or a
    /// test's manual one.
    pub clock: Clock,
    /// Debounced searches not yet due.
    pending_searches: usize,
    /// Where Health's looks keep their index and offboardings their
    /// records: `ORGDECK_STATE_DIR` or the platform's state directory;
    /// tests give their own.
    pub state_dir: std::path::PathBuf,
}

impl Driver {
    pub fn new(client: Client, context: Context, size: (u16, u16), theme: Theme) -> Driver {
        let (sender, messages) = tokio::sync::mpsc::unbounded_channel();
        Driver {
            runner: effects::Runner::new(client, context.clone(), sender),
            app: App::new(context, keymap::Keymap::default(), size),
            messages,
            theme,
            clock: Clock::system(),
            pending_searches: 0,
            state_dir: crate::config::state_dir(),
        }
    }

    /// Reads `:ctx`'s profiles from this file.
    pub fn use_config_file(&mut self, path: &Path) {
        self.runner.config_file = Some(Arc::from(path));
    }

    /// Starts the first requests.
    pub fn start(&mut self) -> Vec<String> {
        let effects = self.app.start();
        self.perform(effects)
    }

    /// Feeds one message to the app and starts its effects; returns text to
    /// put on the clipboard, which only the terminal can do.
    pub fn send(&mut self, msg: Msg) -> Vec<String> {
        if matches!(
            msg,
            Msg::Timer {
                timer: shell::Timer::Search,
                ..
            }
        ) {
            self.pending_searches = self.pending_searches.saturating_sub(1);
        }
        // `:ctx` reached a new connection: every request from here on goes over it.
        if let Msg::Connected {
            ticket,
            result: Ok(connected),
        } = &msg
            && self.app.awaits_connection(*ticket)
        {
            self.runner.client = connected.client.clone();
        }
        // What a timer or the minute does may depend on the time (a refresh
        // says when it ran, overdue rows are judged), and so does a page
        // (a server not reached is tried again from then): the clock's, now.
        if matches!(msg, Msg::Timer { .. } | Msg::Minute | Msg::Page { .. }) {
            self.app.window.now = self.clock.now();
        }
        let in_flight = self.app.requests.in_flight;
        let effects = self.app.update(msg);
        // The spinner shows while anything is in flight: its end is a change to draw.
        if self.app.requests.in_flight != in_flight {
            self.app.window.dirty = true;
        }
        self.perform(effects)
    }

    fn perform(&mut self, effects: Vec<Effect>) -> Vec<String> {
        let mut copies = Vec::new();
        // Timers of the connection and of `--refresh` run on this clock.
        self.runner.clock = self.clock.clone();
        for effect in effects {
            if matches!(
                effect,
                Effect::Timer {
                    timer: shell::Timer::Search,
                    ..
                }
            ) {
                self.pending_searches += 1;
            }
            // A look's index and an offboarding's record go to the state directory.
            if matches!(
                effect,
                Effect::Ask(screens::ScreenAsk::Health(screens::health::Ask::Look { .. }))
                    | Effect::Write {
                        write: shell::Write::Offboard(OffboardWrite { .. }),
                        ..
                    }
            ) {
                self.runner.state_dir = self.state_dir.clone();
            }
            copies.extend(self.runner.run(effect));
        }
        copies
    }

    /// Waits for the next message from the effects.
    pub async fn next_message(&mut self) -> Option<Msg> {
        self.messages.recv().await
    }

    /// Presses a key.
    pub fn press(&mut self, code: KeyCode) -> Vec<String> {
        let modifiers = match code {
            KeyCode::Char(c) if c.is_ascii_uppercase() => KeyModifiers::SHIFT,
            _ => KeyModifiers::NONE,
        };
        self.send(Msg::Key(KeyEvent::new(code, modifiers)))
    }

    /// Types text, a key at a time.
    pub fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            self.press(KeyCode::Char(c));
        }
    }

    /// Handles answers until nothing is in flight and no search is due,
    /// or `limit` passes.
    pub async fn settle(&mut self, limit: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + limit;
        while self.app.requests.in_flight > 0 || self.pending_searches > 0 {
            match tokio::time::timeout_at(deadline, self.messages.recv()).await {
                Ok(Some(msg)) => {
                    self.send(msg);
                }
                _ => return false,
            }
        }
        true
    }

    /// Draws the app on any backend.
    pub fn draw<B: Backend>(&mut self, terminal: &mut Terminal<B>) -> Result<(), B::Error> {
        let theme = self.theme;
        terminal.draw(|frame| shell::draw::draw(frame, &self.app, &theme))?;
        self.app.window.dirty = false;
        Ok(())
    }

    /// The screen as text, drawn at the app's size: for tests.
    pub fn screen(&mut self) -> String {
        let (width, height) = self.app.window.size;
        let Ok(mut terminal) = Terminal::new(TestBackend::new(width, height));
        if self.draw(&mut terminal).is_err() {
            return String::new();
        }
        let buffer = terminal.backend().buffer();
        (0..height)
            .map(|y| {
                let line: String = (0..width).map(|x| buffer[(x, y)].symbol().to_string()).collect();
                line.trim_end().to_string()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}
