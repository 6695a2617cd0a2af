//! The terminal: raw mode and the alternate screen while the console runs,
//! restored on every way out (quit, error, panic, SIGTERM, SIGHUP); and the
//! event loop, which waits on the terminal, the effects' channel and the
//! signals together and draws only when something changed. Nothing ticks
//! while idle: the spinner's timer runs only while a request is in flight.

use std::io::{Stdout, Write, stdout};
use std::time::Duration;

use super::Driver;
use super::app::Msg;
use futures_util::StreamExt;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::cursor::Show;
use ratatui::crossterm::event::{Event, EventStream, KeyEventKind};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use tokio::signal::unix::{SignalKind, signal};

/// The spinner's beat while requests are in flight.
const SPINNER_BEAT: Duration = Duration::from_millis(100);

/// The terminal in raw mode on the alternate screen; dropping it restores
/// the terminal, as does a panic.
struct Session {
    terminal: Terminal<CrosstermBackend<Stdout>>,
}

impl Session {
    fn start() -> anyhow::Result<Session> {
        install_panic_hook();
        enable_raw_mode()?;
        let session = Session {
            terminal: Terminal::new(CrosstermBackend::new(stdout()))?,
        };
        execute!(stdout(), EnterAlternateScreen)?;
        Ok(session)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        restore();
    }
}

/// Leaves raw mode and the alternate screen and shows the cursor. Safe to
/// call more than once.
pub fn restore() {
    let _ = disable_raw_mode();
    let _ = execute!(stdout(), LeaveAlternateScreen, Show);
}

fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
}

/// Only presses (and held keys) count: terminals that report releases
/// would otherwise act twice. Everything else but resizes is ignored.
fn message(event: Event) -> Option<Msg> {
    match event {
        Event::Key(key) if key.kind != KeyEventKind::Release => Some(Msg::Key(key)),
        Event::Resize(width, height) => Some(Msg::Resize { width, height }),
        _ => None,
    }
}

/// Puts text on the clipboard of the terminal (OSC 52), which works over SSH.
fn copy_to_clipboard(text: &str) {
    use base64::Engine;
    let encoded = base64::engine::general_purpose::STANDARD.encode(text);
    let mut out = stdout();
    let _ = write!(out, "\x1b]52;c;{encoded}\x07");
    let _ = out.flush();
}

/// Runs the console until the user quits or a signal ends it.
pub async fn run(mut driver: Driver) -> anyhow::Result<()> {
    let mut session = Session::start()?;
    let mut events = EventStream::new();
    let mut terminate = signal(SignalKind::terminate())?;
    let mut hangup = signal(SignalKind::hangup())?;
    let mut interrupt = signal(SignalKind::interrupt())?;
    let size = session.terminal.size()?;
    driver.app.size = (size.width, size.height);
    driver.start();
    loop {
        if driver.app.quit {
            break;
        }
        if driver.app.dirty {
            driver.app.now = driver.clock.now();
            driver.draw(&mut session.terminal)?;
        }
        let spinning = driver.app.in_flight > 0;
        let msg = tokio::select! {
            event = events.next() => match event {
                Some(Ok(event)) => match message(event) {
                    Some(msg) => msg,
                    None => continue,
                },
                Some(Err(error)) => return Err(error.into()),
                None => break,
            },
            Some(msg) = driver.next_message() => msg,
            _ = tokio::time::sleep(SPINNER_BEAT), if spinning => Msg::Tick,
            _ = terminate.recv() => break,
            _ = hangup.recv() => break,
            _ = interrupt.recv() => break,
        };
        for text in driver.send(msg) {
            copy_to_clipboard(&text);
        }
    }
    drop(session);
    Ok(())
}
