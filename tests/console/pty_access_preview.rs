//! A change that takes access away asks twice in the console, Enter
//! meaning no, on a real terminal (issue 32 req 2, console): `orgdeck
//! demo`, Roles, `d` on On-call, whose deletion cuts Tomás off Hedgebox
//! Mobile: the question names him once the rules are read; Enter keeps the
//! role, `y` then Enter at "1 person loses access. Go on?" keeps it too,
//! and `y` `y` deletes it, the notice saying the server's levels are as
//! previewed.

use std::time::{Duration, Instant};

use crate::pty::Demo;

/// Waits until the screen no longer shows `what`.
#[track_caller]
fn wait_gone(console: &Demo, what: &str) {
    let started = Instant::now();
    while console.text().contains(what) {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "still shows {what:?}:\n{}",
            console.text()
        );
        std::thread::sleep(Duration::from_millis(25));
    }
}

#[test]
fn a_change_that_takes_access_away_asks_twice_enter_meaning_no() {
    let mut console = Demo::spawn(&["demo"], &[]);
    console.wait_for("1 Roles (8)");
    // On-call is the sixth role.
    console.type_keys("jjjjj");
    console.wait_for("Roles 6/8");
    console.type_keys("d");
    console.wait_for("1 person loses access:");
    let screen = console.text();
    assert!(screen.contains("Delete the role On-call"), "{screen}");
    assert!(screen.contains("Tomás Novák"), "{screen}");
    assert!(screen.contains("Enter: no"), "{screen}");
    console.type_keys("\r");
    wait_gone(&console, "1 person loses access:");

    // Still there, its six memberships with it: y, then Enter at the second question.
    console.type_keys("d");
    console.wait_for("Delete the role On-call and its 6 memberships?");
    console.wait_for("1 person loses access:");
    console.type_keys("y");
    console.wait_for("1 person loses access. Go on?");
    console.type_keys("\r");
    wait_gone(&console, "Go on?");

    // Still there: y, y deletes it, and the preview is checked.
    console.type_keys("d");
    console.wait_for("Delete the role On-call and its 6 memberships?");
    console.wait_for("1 person loses access:");
    console.type_keys("y");
    console.wait_for("1 person loses access. Go on?");
    console.type_keys("y");
    console.wait_for("Roles (7)");
    console.wait_for("as previewed");
    console.type_keys("q");
    assert!(console.assert_ends_restored().success());
}
