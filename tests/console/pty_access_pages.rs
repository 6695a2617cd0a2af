//! A person's page on a real terminal (issue 31 req 3): `orgdeck demo`,
//! People, Ivan's page, and at its end his access in every project, read
//! after the page: admin of Hedgebox Web by Engineering, his own rule
//! outranked, and Hedgebox Mobile by his two roles; `q` back, `q` quits,
//! the terminal restored.

use std::time::{Duration, Instant};

use crate::pty::Demo;

#[test]
fn a_person_s_page_shows_their_access_on_a_terminal() {
    let mut console = Demo::spawn(&["demo"], &[]);
    console.wait_for("1 Roles (8)");
    console.type_keys("4");
    console.wait_for("4 People (40)");
    console.type_keys("/ivan\r");
    let started = Instant::now();
    let narrowed = |screen: String| screen.contains("Ivan Petrov") && !screen.contains("ada.okafor");
    while !narrowed(console.text()) {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "People never narrowed to Ivan:\n{}",
            console.text()
        );
        std::thread::sleep(Duration::from_millis(25));
    }
    console.type_keys("\r");
    console.wait_for("Roles (2)");
    // The section comes once the page is gathered; then the last line.
    console.wait_for("Access (2 projects)");
    console.type_keys("G");
    console.wait_for("Hedgebox Web (1): admin · role Engineering");
    console.wait_for("Hedgebox Mobile (2): member · roles Engineering, On-call");
    let screen = console.text();
    assert!(screen.contains("resolves access by the highest rule"), "{screen}");
    assert!(screen.contains("RULES OUTRANKED"), "{screen}");
    assert!(!screen.contains("access: "), "the read ended:\n{screen}");
    console.type_keys("q");
    console.wait_for("4 People");
    console.type_keys("q");
    assert!(console.assert_ends_restored().success());
}
