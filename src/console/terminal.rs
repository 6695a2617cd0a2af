//! The terminal: raw mode and the alternate screen while the console runs,
//! restored on every way out (quit, error, panic, and every catchable
//! signal: see `signals`), a signal that ends it then told in the exit
//! status as a shell would (128 + its number: 143 for SIGTERM, 131 for
//! SIGQUIT); suspended on SIGTSTP and taken again on SIGCONT; and the event
//! loop, which waits on the terminal, the effects' channel and the signals
//! together and draws only when something changed. Nothing ticks
//! while idle: the spinner's timer runs only while a request is in flight,
//! and the countdown to the next try only while the server is away.

use std::io::{Stdout, Write, stdout};
use std::time::Duration;

use super::Driver;
use super::shell::Msg;
use futures_util::StreamExt;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::cursor::Show;
use ratatui::crossterm::event::{
    DisableMouseCapture, EnableMouseCapture, Event, EventStream, KeyEventKind, MouseEventKind,
};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    Clear, ClearType, EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};

use super::signals::{self, Received, Signals};

/// The spinner's beat while requests are in flight.
const SPINNER_BEAT: Duration = Duration::from_millis(100);
/// The beat of the countdown to the next try of a server not reached.
const COUNTDOWN_BEAT: Duration = Duration::from_secs(1);

/// The terminal in raw mode on the alternate screen; dropping it restores
/// the terminal, as does a panic.
struct Session {
    terminal: Terminal<CrosstermBackend<Stdout>>,
}

impl Session {
    /// With `mouse`, clicks and the wheel come as events (the terminal's
    /// own selection then needs Shift, as in every mouse-aware TUI).
    fn start(mouse: bool) -> anyhow::Result<Session> {
        install_panic_hook();
        signals::remember_terminal();
        enable_raw_mode()?;
        let session = Session {
            terminal: Terminal::new(CrosstermBackend::new(stdout()))?,
        };
        enter(mouse)?;
        Ok(session)
    }

    /// Ctrl-Z (SIGTSTP): the terminal restored, the process stopped; once
    /// continued, the console takes the terminal again.
    fn suspend(&mut self, mouse: bool) -> anyhow::Result<()> {
        restore();
        signals::stop_here();
        self.take_again(mouse)
    }

    /// After a stop (or SIGCONT after one orgdeck did not see): raw mode and
    /// the alternate screen again, whatever the shell did meanwhile, and
    /// the next draw whole.
    fn take_again(&mut self, mouse: bool) -> anyhow::Result<()> {
        let _ = disable_raw_mode();
        enable_raw_mode()?;
        enter(mouse)?;
        // A new terminal draws every cell next time, on a cleared screen,
        // without asking the terminal where its cursor is (as clear() would).
        execute!(stdout(), Clear(ClearType::All))?;
        self.terminal = Terminal::new(CrosstermBackend::new(stdout()))?;
        Ok(())
    }
}

/// The alternate screen, and mouse reports when asked for.
fn enter(mouse: bool) -> anyhow::Result<()> {
    execute!(stdout(), EnterAlternateScreen)?;
    if mouse {
        execute!(stdout(), EnableMouseCapture)?;
    }
    Ok(())
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
    // Turning mouse reports off when they were never on is harmless.
    let _ = execute!(stdout(), DisableMouseCapture, LeaveAlternateScreen, Show);
}

fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
}

/// Only presses (and held keys) count: terminals that report releases
/// would otherwise act twice. Of the mouse, a left click and the wheel;
/// everything else but resizes is ignored (moves and drags would wake the
/// console for nothing).
fn message(event: Event) -> Option<Msg> {
    match event {
        Event::Key(key) if key.kind != KeyEventKind::Release => Some(Msg::Key(key)),
        Event::Resize(width, height) => Some(Msg::Resize { width, height }),
        Event::Mouse(mouse)
            if matches!(
                mouse.kind,
                MouseEventKind::Down(ratatui::crossterm::event::MouseButton::Left)
                    | MouseEventKind::ScrollUp
                    | MouseEventKind::ScrollDown
            ) =>
        {
            Some(Msg::Mouse(mouse))
        }
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

/// At most this many messages are taken before a draw, so that a flood
/// of keys still shows progress.
const BURST: usize = 1_000;
/// And for at most this long.
const BURST_TIME: Duration = Duration::from_millis(50);

/// Handles every terminal event and message already waiting, without
/// waiting for more.
///
/// Both are polled with this task's own waker, never a no-op one:
/// crossterm's `EventStream` keeps the waker of a pending poll for its
/// wake-up thread, and a lost waker would leave the console deaf to keys.
async fn take_what_is_ready(driver: &mut Driver, events: &mut EventStream) -> anyhow::Result<()> {
    let started = std::time::Instant::now();
    for _ in 0..BURST {
        if driver.app.window.quit || started.elapsed() > BURST_TIME {
            break;
        }
        let msg = tokio::select! {
            biased;
            event = events.next() => match event {
                Some(Ok(event)) => match message(event) {
                    Some(msg) => msg,
                    None => continue,
                },
                Some(Err(error)) => return Err(error.into()),
                None => break,
            },
            Some(msg) = driver.next_message() => msg,
            () = std::future::ready(()) => break,
        };
        for text in driver.send(msg) {
            copy_to_clipboard(&text);
        }
    }
    Ok(())
}

/// The wait until the clock's minute turns (and a little after, so that
/// "in 3m" has become "in 2m" when it is drawn).
fn until_next_minute(now: chrono::DateTime<chrono::Utc>) -> Duration {
    use chrono::Timelike;
    let into_minute = Duration::from_secs(u64::from(now.second()))
        + Duration::from_nanos(u64::from(now.nanosecond() % 1_000_000_000));
    Duration::from_secs(60).saturating_sub(into_minute) + Duration::from_millis(50)
}

/// How the console ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The user quit.
    Quit,
    /// A signal ended it: its number.
    Signal(i32),
}

impl Ending {
    /// The exit status: 0 for a quit, 128 + the signal's number for a
    /// signal, as a shell reports a process a signal ended.
    pub fn exit_code(self) -> std::process::ExitCode {
        match self {
            Ending::Quit => std::process::ExitCode::SUCCESS,
            Ending::Signal(number) => std::process::ExitCode::from(128 + number.clamp(0, 127) as u8),
        }
    }
}

/// Runs the console until the user quits or a signal ends it; the terminal
/// is restored before this returns, whichever it was.
pub async fn run(mut driver: Driver) -> anyhow::Result<Ending> {
    let mouse = driver.app.context.mouse;
    let mut session = Session::start(mouse)?;
    let mut events = EventStream::new();
    let mut signals = Signals::listen();
    let size = session.terminal.size()?;
    driver.app.window.size = (size.width, size.height);
    driver.start();
    let mut ending = Ending::Quit;
    loop {
        if driver.app.window.quit {
            break;
        }
        if driver.app.window.dirty {
            driver.app.window.now = driver.clock.now();
            driver.draw(&mut session.terminal)?;
        }
        // The spinner turns while requests are in flight; while the server
        // is away, the wait before its next try counts down. Nothing else beats.
        let beat = if driver.app.requests.in_flight > 0 {
            Some(SPINNER_BEAT)
        } else if driver
            .app
            .connection
            .offline
            .as_ref()
            .is_some_and(|offline| offline.retry_at.is_some())
        {
            Some(COUNTDOWN_BEAT)
        } else {
            None
        };
        // Relative times are redrawn as each minute turns, and only while
        // one is on screen: otherwise nothing wakes while idle.
        let minute = driver
            .app
            .shows_relative_times()
            .then(|| until_next_minute(driver.clock.now()));
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
            _ = tokio::time::sleep(beat.unwrap_or_default()), if beat.is_some() => Msg::Tick,
            _ = tokio::time::sleep(minute.unwrap_or_default()), if minute.is_some() => Msg::Minute,
            received = signals.next() => match received {
                Received::End(number) => {
                    ending = Ending::Signal(number);
                    break;
                }
                Received::Suspend => {
                    session.suspend(mouse)?;
                    driver.app.window.dirty = true;
                    continue;
                }
                Received::Continue => {
                    session.take_again(mouse)?;
                    driver.app.window.dirty = true;
                    continue;
                }
            },
        };
        for text in driver.send(msg) {
            copy_to_clipboard(&text);
        }
        // Keys that came together (a held key, a paste) and answers already
        // here are all taken before the next draw: one draw per burst.
        take_what_is_ready(&mut driver, &mut events).await?;
    }
    drop(session);
    Ok(ending)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signal_is_told_as_a_shell_tells_it() {
        assert_eq!(Ending::Quit.exit_code(), std::process::ExitCode::SUCCESS);
        assert_eq!(
            Ending::Signal(libc::SIGTERM).exit_code(),
            std::process::ExitCode::from(143)
        );
        assert_eq!(
            Ending::Signal(libc::SIGHUP).exit_code(),
            std::process::ExitCode::from(129)
        );
        assert_eq!(
            Ending::Signal(libc::SIGINT).exit_code(),
            std::process::ExitCode::from(130)
        );
        assert_eq!(
            Ending::Signal(libc::SIGQUIT).exit_code(),
            std::process::ExitCode::from(131)
        );
    }
}
