//! The real binary in a pseudo-terminal, as a person runs it: start `demo`,
//! switch tabs, page to the end of the subscriptions, filter, quit, and find
//! the terminal restored (alternate screen left, cursor shown).

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

const ROWS: u16 = 40;
const COLUMNS: u16 = 140;

struct Screen {
    parser: Arc<Mutex<vt100::Parser>>,
}

impl Screen {
    fn text(&self) -> String {
        self.parser.lock().unwrap().screen().contents()
    }

    /// Waits until the screen shows `what`.
    #[track_caller]
    fn wait_for(&self, what: &str) {
        let started = Instant::now();
        while !self.text().contains(what) {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "never showed {what:?}; the screen:\n{}",
                self.text()
            );
            std::thread::sleep(Duration::from_millis(25));
        }
    }
}

#[test]
fn demo_in_a_pseudo_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: ROWS,
            cols: COLUMNS,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_orgdeck"));
    command.arg("demo");
    command.env("ORGDECK_LOG", dir.path().join("log"));
    command.env("TERM", "xterm-256color");
    let mut child = pair.slave.spawn_command(command).unwrap();
    drop(pair.slave);

    let size = |n: u16| std::num::NonZeroU16::new(n).unwrap();
    let parser = Arc::new(Mutex::new(vt100::Parser::new(size(ROWS), size(COLUMNS), 0)));
    let mut reader = pair.master.try_clone_reader().unwrap();
    let feed = parser.clone();
    std::thread::spawn(move || {
        let mut buffer = [0u8; 65536];
        while let Ok(read) = reader.read(&mut buffer) {
            if read == 0 {
                break;
            }
            feed.lock().unwrap().process(&buffer[..read]);
        }
    });
    let mut keys = pair.master.take_writer().unwrap();
    let mut type_keys = |text: &str| {
        keys.write_all(text.as_bytes()).unwrap();
        keys.flush().unwrap();
    };
    let screen = Screen {
        parser: parser.clone(),
    };

    screen.wait_for("1 Roles (8)");
    assert!(screen.text().contains("DEMO"));
    assert!(parser.lock().unwrap().screen().alternate_screen());
    type_keys("3");
    screen.wait_for("Subscriptions 1/540");
    type_keys("G");
    screen.wait_for("Subscriptions 540/540");
    type_keys("/board");
    screen.wait_for("/board");
    std::thread::sleep(Duration::from_millis(600)); // the search goes to the server
    type_keys("\r");
    screen.wait_for("filter \"board\"");
    let filtered = screen.text();
    assert!(
        !filtered.contains("1/540"),
        "the server's search narrowed the list:\n{filtered}"
    );
    type_keys("2");
    screen.wait_for("choose a role (Enter)");
    type_keys("q");

    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "orgdeck did not quit on q"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status:?}");
    std::thread::sleep(Duration::from_millis(200)); // the last bytes reach the parser
    let parser = parser.lock().unwrap();
    assert!(
        !parser.screen().alternate_screen(),
        "the alternate screen was left"
    );
    assert!(!parser.screen().hide_cursor(), "the cursor is shown again");
}
