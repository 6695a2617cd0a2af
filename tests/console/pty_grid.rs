//! The Access tab on a real terminal (issue 31 req 6 and 9): `orgdeck
//! demo`, `5`, and the grid tells the demo's stories (Tomás reaches
//! Hedgebox Mobile through On-call alone, an organization admin bypasses
//! every rule, Contractors have none there by their own rule), `/`
//! narrows it, `R` turns to roles and back, Enter opens a person's page
//! and `q` comes back to the grid, then quits with the terminal restored.

use crate::pty::Demo;

#[test]
fn the_access_tab_on_a_terminal() {
    let mut console = Demo::spawn(&["demo"], &[]);
    console.wait_for("1 Roles (8)");
    console.type_keys("5");
    console.wait_for("Access · people · every project");
    console.wait_for("Hedgebox Mobile");
    // Every cell read: none is "·" any more, and the admins are starred.
    console.wait_for("Ada Okafor ★");

    console.type_keys("/tomas\r");
    console.type_keys("l");
    console.wait_for("Tomás Novák · Hedgebox Mobile: member · role On-call");
    console.type_keys("\x1b");
    console.wait_for("filter cleared");
    console.type_keys("/bruno\r");
    console.wait_for("Bruno Lindqvist · Hedgebox Mobile: admin · organization admin");

    console.type_keys("\x1b");
    // The filter cleared: everyone again (a key typed at once after Esc
    // would read as Alt and that key).
    console.wait_for("Ada Okafor ★");
    // Roles, read the first time R is pressed; Contractors, first by name.
    console.type_keys("R");
    console.wait_for("Access · roles · every project");
    // The heading shows at once; the roles' rows once read: `l` then.
    console.wait_for("Contractors · Hedgebox Web");
    console.type_keys("l");
    console.wait_for("Contractors · Hedgebox Mobile: none · own rule");
    console.type_keys("R");
    console.wait_for("Access · people · every project");

    console.type_keys("/jade\r");
    console.wait_for("Jade Nguyen · Hedgebox Mobile: admin · own rule");
    console.type_keys("\r");
    console.wait_for("Jade Nguyen <jade.nguyen@hedgebox.dev>");
    console.type_keys("q");
    console.wait_for("Access · people · every project");
    console.type_keys("q");
    assert!(console.assert_ends_restored().success());
}
