//! Every catchable signal leaves the terminal as the console found it.
//!
//! - Those that would end the process (SIGTERM, SIGHUP, SIGINT, SIGQUIT,
//!   SIGUSR1 and 2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGIO,
//!   and on Linux SIGSTKFLT, SIGPWR and the real-time signals) come to the
//!   event loop ([`Signals`]), which ends the console the ordinary way and
//!   exits 128 + the signal's number.
//! - SIGTSTP suspends it: the terminal restored, the process stopped; on
//!   SIGCONT the console takes the terminal again and draws it whole.
//! - Faults and aborts (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP,
//!   SIGSYS), and any ending signal the event loop could not take, go to a
//!   last-resort handler that restores the terminal with async-signal-safe
//!   calls alone. Sent by a process, the signal then ends orgdeck as it
//!   would have; raised by a fault, the previous handler (Rust's report of
//!   a stack overflow) meets it when the instruction runs again.
//!
//! SIGKILL and SIGSTOP cannot be caught; SIGPIPE is ignored (Rust's
//! default), SIGCHLD, SIGURG and SIGWINCH end nothing.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicI32, Ordering};

use futures_util::StreamExt;
use futures_util::stream::{BoxStream, SelectAll};
use tokio::signal::unix::{SignalKind, signal};

/// What the terminal's settings were before raw mode, for the last resort.
static SAVED: OnceLock<libc::termios> = OnceLock::new();
/// The terminal those settings are of (-1: none).
static TERMINAL: AtomicI32 = AtomicI32::new(-1);
/// The handlers the last resort replaced, by signal.
static PREVIOUS: OnceLock<Vec<(libc::c_int, libc::sigaction)>> = OnceLock::new();

/// What leaves mouse reports, the alternate screen and a hidden cursor, as
/// crossterm's own commands write it.
const LEAVE: &[u8] = b"\x1b[?1006l\x1b[?1015l\x1b[?1003l\x1b[?1002l\x1b[?1000l\x1b[?1049l\x1b[?25h";

/// Signals that end a process unless handled, and are not faults.
fn ending() -> Vec<libc::c_int> {
    let mut all = vec![
        libc::SIGTERM,
        libc::SIGHUP,
        libc::SIGINT,
        libc::SIGQUIT,
        libc::SIGUSR1,
        libc::SIGUSR2,
        libc::SIGALRM,
        libc::SIGVTALRM,
        libc::SIGPROF,
        libc::SIGXCPU,
        libc::SIGXFSZ,
        libc::SIGIO,
    ];
    #[cfg(target_os = "linux")]
    {
        all.extend([libc::SIGSTKFLT, libc::SIGPWR]);
        all.extend(libc::SIGRTMIN()..=libc::SIGRTMAX());
    }
    all
}

/// Faults and aborts: only the last resort may meet them.
const FAULTS: [libc::c_int; 7] = [
    libc::SIGSEGV,
    libc::SIGBUS,
    libc::SIGILL,
    libc::SIGFPE,
    libc::SIGABRT,
    libc::SIGTRAP,
    libc::SIGSYS,
];

/// A signal the event loop takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Received {
    /// It ends the console: its number.
    End(i32),
    /// Ctrl-Z's signal: suspend.
    Suspend,
    /// Continued after a stop.
    Continue,
}

/// The signals the event loop listens to, as one stream.
pub struct Signals {
    streams: SelectAll<BoxStream<'static, Received>>,
}

impl Signals {
    /// Listens to every ending signal it can, and to SIGTSTP and SIGCONT;
    /// an ending signal that cannot be listened to gets the last resort.
    /// Call [`remember_terminal`] first.
    pub fn listen() -> Signals {
        let mut streams = SelectAll::new();
        let mut unheard = Vec::new();
        let mut add = |number: libc::c_int, received: Received| match signal(SignalKind::from_raw(number)) {
            Ok(listener) => {
                let stream = futures_util::stream::unfold(listener, move |mut listener| async move {
                    listener.recv().await.map(|()| (received, listener))
                });
                streams.push(stream.boxed());
            }
            Err(_) => unheard.push(number),
        };
        for number in ending() {
            add(number, Received::End(number));
        }
        add(libc::SIGTSTP, Received::Suspend);
        add(libc::SIGCONT, Received::Continue);
        unheard.extend(FAULTS);
        install_last_resort(&unheard);
        Signals { streams }
    }

    /// The next signal; never ends while a listener lives.
    pub async fn next(&mut self) -> Received {
        match self.streams.next().await {
            Some(received) => received,
            None => std::future::pending().await,
        }
    }
}

/// Keeps the terminal's settings (before raw mode) for the last resort.
pub fn remember_terminal() {
    // SAFETY: isatty(3) and tcgetattr(3) take a descriptor and write only
    // into the termios passed, which is ours and fully sized.
    unsafe {
        let fd = if libc::isatty(libc::STDIN_FILENO) == 1 {
            libc::STDIN_FILENO
        } else {
            return;
        };
        let mut settings: libc::termios = std::mem::zeroed();
        if libc::tcgetattr(fd, &mut settings) == 0 {
            // The first console of the process saw the terminal as it was.
            let _ = SAVED.set(settings);
            TERMINAL.store(fd, Ordering::SeqCst);
        }
    }
}

/// Puts the last-resort handler on `numbers`, once per process.
fn install_last_resort(numbers: &[libc::c_int]) {
    if PREVIOUS.get().is_some() {
        return;
    }
    let mut previous = Vec::new();
    for &number in numbers {
        // SAFETY: sigaction(2) with a handler that only makes
        // async-signal-safe calls; the structures are ours and zeroed
        // before use, as the C API expects.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = last_resort as *const () as libc::sighandler_t;
            // On the alternate stack Rust keeps for a stack overflow.
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(number, &action, &mut old) == 0 {
                previous.push((number, old));
            }
        }
    }
    let _ = PREVIOUS.set(previous);
}

/// Restores the terminal, then lets the signal do what it would have:
/// a signal sent by a process (`si_code` ≤ 0) is raised again with its
/// default action; a fault returns to the instruction, which meets the
/// previous handler.
extern "C" fn last_resort(number: libc::c_int, info: *mut libc::siginfo_t, _context: *mut libc::c_void) {
    // SAFETY: only async-signal-safe calls (tcsetattr, write, sigaction,
    // raise); the statics are read without locks (OnceLock::get is an
    // atomic load of a value set before this handler was installed).
    unsafe {
        let fd = TERMINAL.load(Ordering::SeqCst);
        if let (true, Some(saved)) = (fd >= 0, SAVED.get()) {
            libc::tcsetattr(fd, libc::TCSANOW, saved);
        }
        libc::write(libc::STDOUT_FILENO, LEAVE.as_ptr().cast(), LEAVE.len());
        let sent = info.is_null() || (*info).si_code <= 0;
        let previous = PREVIOUS
            .get()
            .and_then(|all| all.iter().find(|(signal, _)| *signal == number))
            .map(|(_, action)| action);
        if sent {
            let mut default: libc::sigaction = std::mem::zeroed();
            default.sa_sigaction = libc::SIG_DFL;
            libc::sigaction(number, &default, std::ptr::null_mut());
            libc::raise(number);
        } else if let Some(previous) = previous {
            libc::sigaction(number, previous, std::ptr::null_mut());
        } else {
            let mut default: libc::sigaction = std::mem::zeroed();
            default.sa_sigaction = libc::SIG_DFL;
            libc::sigaction(number, &default, std::ptr::null_mut());
        }
    }
}

/// Stops the process as SIGTSTP would have (the terminal restored first
/// by the caller); returns once it is continued.
pub fn stop_here() {
    // SAFETY: raise(3) takes a signal number; SIGSTOP cannot be caught, so
    // it stops this process until SIGCONT.
    unsafe {
        libc::raise(libc::SIGSTOP);
    }
}
