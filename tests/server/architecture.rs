//! The floors of the code (DEVELOPERS.md, design.md's Architecture), kept by
//! the suite: every `crate::` path in `src/` (in `use` lines and inline)
//! is read, and a path that runs up the floors, or sideways into another
//! module of the same floor, fails here with the file and line that wrote it.
//!
//! The crate's floors, top down: `main`, `cli`, then `console` and `server`
//! (which never see each other), `access`, then the domain (`people`,
//! `health`, `schedule`), `config`, `api`, and at the bottom `text`,
//! `clock`, `display` and `logging`. Inside the console: `kit`, `widgets`,
//! `table`, `screens`, `shell`, then the console's own root (`mod.rs`, the
//! terminal, the effects runner); nothing below the shell names the shell.
//!
//! Test code (`#[cfg(test)] mod tests`, `src/console/tests/`, `*_tests.rs`)
//! may reach anywhere: it drives the whole console through its keys.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The crate's top modules and their floors: a module may name only modules
/// on floors below its own.
const FLOORS: &[(&str, u8)] = &[
    ("main", 8),
    ("lib", 8),
    ("cli", 7),
    ("console", 6),
    ("server", 6),
    ("access", 5),
    ("people", 4),
    ("health", 4),
    ("schedule", 4),
    ("config", 3),
    ("api", 2),
    ("text", 1),
    ("clock", 1),
    ("display", 1),
    ("logging", 1),
];

/// The console's floors (its folders), bottom up. The console's root files
/// (`mod.rs`, `terminal.rs`, `effects.rs`, `signals.rs`) stand above them
/// all.
const CONSOLE_FLOORS: &[(&str, u8)] = &[
    ("kit", 0),
    ("widgets", 1),
    ("table", 2),
    ("screens", 3),
    ("shell", 4),
];

/// The console's folders from before issue 30's re-cut, not yet moved onto
/// a floor: what they import is not checked, and what imports them is
/// checked only against the floors that exist. Each one leaves this list
/// as its code moves into `kit`, `widgets`, `table`, `screens` or `shell`;
/// the re-cut is done when it is empty.
const CONSOLE_NOT_YET_PLACED: &[&str] = &[];

/// The console's root: above every floor.
const CONSOLE_ROOT: u8 = 5;

struct Import {
    file: String,
    line: usize,
    path: Vec<String>,
}

fn floor_of(module: &str) -> Option<u8> {
    FLOORS
        .iter()
        .find(|(name, _)| *name == module)
        .map(|(_, floor)| *floor)
}

/// The console floor of a module under `src/console/`, from its first
/// segment (`kit`, `shell`, …) or `None` for a folder not yet placed.
fn console_floor_of(segment: &str) -> Option<u8> {
    if CONSOLE_NOT_YET_PLACED.contains(&segment) {
        return None;
    }
    Some(
        CONSOLE_FLOORS
            .iter()
            .find(|(name, _)| *name == segment)
            .map_or(CONSOLE_ROOT, |(_, floor)| *floor),
    )
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// The file's code without its test module (`#[cfg(test)]` then `mod …
/// {`, to the end of the file, where this crate keeps them) and without
/// comments.
fn code_of(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut code = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let next = lines.get(at + 1).map(|next| next.trim_start()).unwrap_or("");
        if line.trim() == "#[cfg(test)]" && next.starts_with("mod ") && next.trim_end().ends_with('{') {
            break;
        }
        let without_comment = match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        };
        code.push(without_comment.to_string());
    }
    code
}

/// Every path after `crate::`, expanded through `{…}` groups: `use
/// crate::{api::Role, console::view::format}` gives `api::Role` and
/// `console::view::format`. Statements may span lines.
fn crate_paths(code: &[String]) -> Vec<(usize, Vec<String>)> {
    let mut found = Vec::new();
    let joined: String = code.iter().map(|line| format!("{line}\n")).collect();
    let line_of = |offset: usize| joined[..offset].matches('\n').count() + 1;
    let mut from = 0;
    while let Some(at) = joined[from..].find("crate::") {
        let start = from + at;
        from = start + "crate::".len();
        // `orgdeck_crate::`, `super::crate::` and the like are not this crate.
        let before = joined[..start].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        for path in expand(&joined[from..], Vec::new()) {
            found.push((line_of(start), path));
        }
    }
    found
}

/// The paths `text` (what follows a `::`) names: `a::b::{c, d::e}`.
fn expand(text: &str, prefix: Vec<String>) -> Vec<Vec<String>> {
    let text = text.trim_start();
    if let Some(group) = text.strip_prefix('{') {
        let mut depth = 0;
        let mut parts = Vec::new();
        let mut part_start = 0;
        for (at, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    parts.push(&group[part_start..at]);
                    break;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(&group[part_start..at]);
                    part_start = at + 1;
                }
                _ => {}
            }
        }
        return parts
            .into_iter()
            .filter(|part| !part.trim().is_empty())
            .flat_map(|part| expand(part, prefix.clone()))
            .collect();
    }
    let name: String = text
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    if name.is_empty() {
        return vec![prefix];
    }
    let mut path = prefix;
    path.push(name.clone());
    match text[name.len()..].strip_prefix("::") {
        Some(rest) => expand(rest, path),
        None => vec![path],
    }
}

fn imports() -> Vec<Import> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut imports = Vec::new();
    for path in files {
        let relative = path
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let test_code = relative.split('/').any(|part| part == "tests") || relative.ends_with("_tests.rs");
        if test_code {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (line, path) in crate_paths(&code_of(&text)) {
            if !path.is_empty() {
                imports.push(Import {
                    file: relative.clone(),
                    line,
                    path,
                });
            }
        }
    }
    imports
}

/// The module path of a file under `src/`: `console/view/format.rs` is
/// `console::view::format`, `console/mod.rs` is `console`.
fn module_of(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_string)
        .collect();
    if parts.last().is_some_and(|last| last == "mod") {
        parts.pop();
    }
    parts
}

/// Why an import runs the wrong way, if it does.
fn wrong_way(from: &[String], to: &[String]) -> Option<String> {
    let (from_top, to_top) = (from[0].as_str(), to[0].as_str());
    if from_top != to_top {
        let Some(from_floor) = floor_of(from_top) else {
            return Some(format!("{from_top} is on no floor: give it one in FLOORS"));
        };
        let Some(to_floor) = floor_of(to_top) else {
            return Some(format!("{to_top} is on no floor: give it one in FLOORS"));
        };
        return (to_floor >= from_floor)
            .then(|| format!("{from_top} (floor {from_floor}) names {to_top} (floor {to_floor})"));
    }
    if from_top != "console" || to.len() < 2 {
        return None;
    }
    // Inside the console. `console/mod.rs` and the root's files stand above
    // every floor; a folder not yet placed is not checked.
    let from_segment = from.get(1).map_or("mod", String::as_str);
    let to_segment = to[1].as_str();
    if from_segment == to_segment {
        return None;
    }
    let from_floor = console_floor_of(from_segment)?;
    match console_floor_of(to_segment) {
        Some(to_floor) if to_floor >= from_floor => Some(format!(
            "console::{from_segment} (floor {from_floor}) names console::{to_segment} (floor {to_floor})"
        )),
        // A placed floor never reaches into what is not yet placed: that
        // code is above it until it moves.
        None if from_floor < CONSOLE_ROOT => Some(format!(
            "console::{from_segment} (floor {from_floor}) names console::{to_segment}, which is not on a floor yet"
        )),
        _ => None,
    }
}

#[test]
fn every_crate_path_in_src_points_down_the_floors() {
    let imports = imports();
    assert!(imports.len() > 500, "read only {} crate:: paths", imports.len());
    let mut wrong: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for import in &imports {
        let from = module_of(&import.file);
        if let Some(why) = wrong_way(&from, &import.path) {
            wrong.entry(why).or_default().push(format!(
                "{}:{} crate::{}",
                import.file,
                import.line,
                import.path.join("::")
            ));
        }
    }
    let report: Vec<String> = wrong
        .iter()
        .map(|(why, at)| format!("{why}:\n    {}", at.join("\n    ")))
        .collect();
    assert!(
        report.is_empty(),
        "imports that run up the floors:\n{}",
        report.join("\n")
    );
}

#[test]
fn the_floor_check_catches_what_it_is_for() {
    let path = |text: &str| text.split("::").map(str::to_string).collect::<Vec<_>>();
    // The arrows issue 30 found, each caught.
    assert!(wrong_way(&path("console"), &path("cli::output")).is_some());
    assert!(wrong_way(&path("people::record"), &path("cli::output")).is_some());
    assert!(wrong_way(&path("cli::subscriptions"), &path("console::view::format")).is_none());
    assert!(wrong_way(&path("logging"), &path("config::platform_state_dir")).is_some());
    assert!(wrong_way(&path("server::routes"), &path("console::App")).is_some());
    assert!(wrong_way(&path("people::profile"), &path("health::Index")).is_some());
    assert!(wrong_way(&path("api::client"), &path("text::printable")).is_none());
    // Inside the console: up the floors, and into the shell from below.
    assert!(wrong_way(&path("console::kit::theme"), &path("console::shell::App")).is_some());
    assert!(wrong_way(&path("console::kit::theme"), &path("console::shell::App")).is_some());
    assert!(wrong_way(&path("console::shell::update"), &path("console::kit::Ticket")).is_none());
    assert!(wrong_way(&path("console::terminal"), &path("console::shell::App")).is_none());
    // Use groups are read whole.
    let code = vec!["use crate::{api::{Role, Client}, console::view::format};".to_string()];
    let found: Vec<String> = crate_paths(&code)
        .into_iter()
        .map(|(_, path)| path.join("::"))
        .collect();
    assert_eq!(found, ["api::Role", "api::Client", "console::view::format"]);
}
