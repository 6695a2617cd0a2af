//! The member picker: the organization's members, searchable as you type
//! by name or e-mail, with their level, those already in the role marked;
//! Space marks the one under the cursor and moves down, as in the tables
//! (Tab too, as in fzf), and Enter assigns the marked ones. Space is
//! never typed: a search matches a name with or without its spaces
//! ("adalove" finds Ada Lovelace). When a search shows one person, Space
//! marks them and empties the search, ready for the next name: five named
//! people take five short searches and five Spaces. Where the members
//! endpoint is refused, a field for a user's UUID takes its place.
//!
//! It holds at most [`PICKER_ROWS`] members: in a larger organization it
//! says it shows the first ones, and what is typed is searched on the
//! server (the members' `search`), the answer replacing what it holds.
//! Those chosen stay chosen across searches.

use std::collections::HashSet;

use ratatui::crossterm::event::{Event, KeyCode, KeyEvent};
use tui_input::Input;
use tui_input::backend::crossterm::EventHandler;

use crate::api::{OrganizationMember, PICKER_ROWS};
use crate::text::printable;

use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph};

use crate::console::kit::theme::Theme;
use crate::console::widgets::popup::{WIDTH, centered, clear, wrap};

// Someone to assign is the kit's (writes name them too).
pub use crate::console::kit::person::Person;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Picking,
    Assign,
    Cancel,
}

#[derive(Debug, Clone)]
pub struct Picker {
    pub role_name: String,
    pub query: Input,
    /// The organization's members (at most [`PICKER_ROWS`]); `None` while
    /// they load.
    pub people: Option<Vec<OrganizationMember>>,
    /// The organization has more members than `people` holds.
    pub more: bool,
    /// What the server was last asked to search for; empty for the first
    /// members, unsearched.
    pub searched: String,
    /// A search is on its way.
    pub searching: bool,
    /// User UUIDs already in the role.
    pub in_role: HashSet<String>,
    /// Chosen people, in the order chosen.
    pub chosen: Vec<Person>,
    pub cursor: usize,
    /// The UUID field, when the members endpoint was refused (and why).
    pub fallback: Option<(Input, String)>,
    pub error: Option<String>,
    pub saving: bool,
    /// The ticket of the write on its way, whose answer this picker takes.
    pub pending: Option<crate::console::kit::latest::Ticket>,
}

impl Picker {
    pub fn new(role_name: String, in_role: HashSet<String>) -> Picker {
        Picker {
            role_name,
            query: Input::default(),
            people: None,
            more: false,
            searched: String::new(),
            searching: false,
            in_role,
            chosen: Vec::new(),
            cursor: 0,
            fallback: None,
            error: None,
            saving: false,
            pending: None,
        }
    }

    /// The members that match what is typed: in their name (spaces or
    /// not) or e-mail address.
    pub fn shown(&self) -> Vec<&OrganizationMember> {
        let needle = self.query.value().trim().to_lowercase();
        self.people
            .iter()
            .flatten()
            .filter(|member| {
                let name = member.user.display_name().to_lowercase();
                needle.is_empty()
                    || name.contains(&needle)
                    || name.replace(' ', "").contains(&needle)
                    || member.user.email.to_lowercase().contains(&needle)
            })
            .collect()
    }

    /// What is typed, for the server to search, when it must: the first
    /// members were not all of them (or a search is in force) and what is
    /// typed differs from what was searched.
    pub fn search_wanted(&self) -> Option<String> {
        let typed = self.query.value().trim();
        let in_force = self.more || !self.searched.is_empty();
        (self.fallback.is_none() && in_force && typed != self.searched).then(|| typed.to_string())
    }

    /// Whether this person is chosen.
    pub fn is_chosen(&self, uuid: &str) -> bool {
        self.chosen.iter().any(|person| person.uuid == uuid)
    }

    /// The organization's members arrived (the first ones, or those a
    /// search found, and whether there are more), or were refused: then a
    /// UUID field. `in_role`: everyone already in the role, not just the
    /// rows loaded.
    pub fn arrived(
        &mut self,
        result: Result<(Vec<OrganizationMember>, bool), crate::api::Error>,
        in_role: Option<Vec<String>>,
    ) {
        self.in_role.extend(in_role.into_iter().flatten());
        self.searching = false;
        match result {
            Ok((people, more)) => {
                self.people = Some(people);
                self.more = more;
                self.cursor = self.cursor.min(self.shown().len().saturating_sub(1));
            }
            Err(error) => self.fall_back(format!("the organization's members cannot be listed ({error})")),
        }
    }

    /// The members endpoint was refused: take a UUID instead.
    pub fn fall_back(&mut self, reason: String) {
        self.people = Some(Vec::new());
        self.fallback = Some((Input::default(), reason));
    }

    /// Who Enter assigns: the chosen, or the one under the cursor.
    pub fn selection(&self) -> Vec<Person> {
        if let Some((input, _)) = &self.fallback {
            let uuid = input.value().trim().to_string();
            return vec![Person {
                label: uuid.clone(),
                uuid,
            }];
        }
        if self.chosen.is_empty() {
            return self
                .shown()
                .get(self.cursor)
                .filter(|member| !self.in_role.contains(&member.user.uuid))
                .map(|member| vec![person(member)])
                .unwrap_or_default();
        }
        self.chosen.clone()
    }

    pub fn key(&mut self, key: KeyEvent) -> Outcome {
        if self.saving && key.code != KeyCode::Esc {
            return Outcome::Picking;
        }
        match key.code {
            KeyCode::Esc => return Outcome::Cancel,
            KeyCode::Enter if self.saving => {}
            KeyCode::Enter => {
                if let Some((input, _)) = &self.fallback
                    && uuid::Uuid::parse_str(input.value().trim()).is_err()
                {
                    self.error = Some("a user's UUID looks like 8-4-4-4-12 hexadecimal digits".into());
                    return Outcome::Picking;
                }
                if self.selection().is_empty() {
                    self.error = Some("choose someone not yet in the role (Space marks)".into());
                    return Outcome::Picking;
                }
                return Outcome::Assign;
            }
            KeyCode::Up => self.cursor = self.cursor.saturating_sub(1),
            KeyCode::Down => self.cursor = (self.cursor + 1).min(self.shown().len().saturating_sub(1)),
            // Space (or Tab) marks the one under the cursor, or unmarks
            // them, and moves down.
            KeyCode::Char(' ') | KeyCode::Tab if self.fallback.is_none() => {
                let shown = self.shown().len();
                let Some(under) = self.shown().get(self.cursor).map(|member| person(member)) else {
                    return Outcome::Picking;
                };
                if self.in_role.contains(&under.uuid) {
                    self.error = Some("already in the role".into());
                } else if let Some(at) = self.chosen.iter().position(|chosen| chosen.uuid == under.uuid) {
                    self.chosen.remove(at);
                    self.error = None;
                } else {
                    self.chosen.push(under);
                    self.error = None;
                }
                if shown == 1 && !self.query.value().is_empty() && self.error.is_none() {
                    // The one the search was for: ready for the next name.
                    self.query = Input::default();
                    self.cursor = 0;
                } else {
                    self.cursor = (self.cursor + 1).min(shown.saturating_sub(1));
                }
            }
            // A UUID holds no space.
            KeyCode::Char(' ') => {}
            _ => {
                let input = match &mut self.fallback {
                    Some((input, _)) => input,
                    None => &mut self.query,
                };
                input.handle_event(&Event::Key(key));
                self.cursor = 0;
                self.error = None;
            }
        }
        Outcome::Picking
    }
}

/// Someone to assign, from the organization's members.
fn person(member: &OrganizationMember) -> Person {
    Person {
        label: format!("{} <{}>", member.user.display_name(), member.user.email),
        uuid: member.user.uuid.clone(),
    }
}

/// What the picker says of the members it holds, when they are not all:
/// "showing the first 5,000; type to search"; and, after the server was
/// searched, how many it found: "1 matching \"halvorsen\" on the server"
/// (without it, the server's whole answer would look like the first
/// members filtered here).
pub fn extent(picker: &Picker) -> Option<String> {
    if picker.searching {
        return Some(format!(
            "searching the server for \"{}\"…",
            printable(picker.query.value().trim())
        ));
    }
    if !picker.more {
        if picker.searched.is_empty() {
            return None;
        }
        let found = picker.people.as_ref().map_or(0, Vec::len);
        return Some(format!(
            "{} matching \"{}\" on the server",
            crate::text::thousands(found as u64),
            printable(&picker.searched)
        ));
    }
    let most = crate::text::thousands(PICKER_ROWS as u64);
    Some(if picker.searched.is_empty() {
        format!("showing the first {most}; type to search")
    } else {
        format!(
            "showing the first {most} matching \"{}\"; type more to narrow",
            printable(&picker.searched)
        )
    })
}

/// The member picker: the search line, the members that match, and the hint.
pub fn draw(frame: &mut Frame, picker: &Picker, theme: &Theme) {
    let screen = frame.area();
    let height = screen.height.saturating_sub(4).clamp(8, 30);
    let list_rows = height.saturating_sub(7) as usize;
    let mut lines = Vec::new();
    let cursor;
    match &picker.fallback {
        Some((input, reason)) => {
            for line in wrap(reason, WIDTH) {
                lines.push(Line::styled(format!(" {line}"), theme.warning));
            }
            lines.push(Line::raw(""));
            cursor = Some((lines.len() as u16, 11 + input.visual_cursor() as u16));
            lines.push(Line::from(vec![
                Span::styled(" user UUID ", theme.accent),
                Span::raw(input.value().to_string()),
            ]));
        }
        None => {
            cursor = Some((0, 9 + picker.query.visual_cursor() as u16));
            lines.push(Line::from(vec![
                Span::styled(" search ", theme.accent),
                Span::raw(printable(picker.query.value()).into_owned()),
            ]));
            match extent(picker) {
                Some(extent) => lines.push(Line::styled(format!(" {extent}"), theme.dim)),
                None => lines.push(Line::raw("")),
            }
            match &picker.people {
                None => lines.push(Line::styled(" loading the organization's members…", theme.dim)),
                Some(_) => lines.extend(member_lines(picker, list_rows, theme)),
            }
        }
    }
    lines.push(Line::raw(""));
    if let Some(error) = &picker.error {
        lines.push(Line::styled(format!(" {error}"), theme.error));
    }
    lines.push(Line::styled(format!(" {}", hint(picker)), theme.dim));
    let area = centered(screen, WIDTH as u16 + 4, lines.len() as u16 + 2);
    clear(frame, area);
    let title = format!(" Assign people to {} ", printable(&picker.role_name));
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().border_type(BorderType::Rounded).title(title)),
        area,
    );
    if let Some((row, column)) = cursor
        && row + 1 < area.height
        && column + 1 < area.width
    {
        frame.set_cursor_position((area.x + 1 + column, area.y + 1 + row));
    }
}

/// The members that match, as many as `list_rows` around the cursor,
/// each marked in the role, chosen or not; or that nobody matches.
fn member_lines(picker: &Picker, list_rows: usize, theme: &Theme) -> Vec<Line<'static>> {
    use crate::api::models::level;
    let mut lines = Vec::new();
    let shown = picker.shown();
    let top = picker.cursor.saturating_sub(list_rows.saturating_sub(1));
    for (at, member) in shown.iter().enumerate().skip(top).take(list_rows) {
        let uuid = &member.user.uuid;
        let in_role = picker.in_role.contains(uuid);
        let mark = if in_role {
            "[in role]"
        } else if picker.is_chosen(uuid) {
            "[x]      "
        } else {
            "[ ]      "
        };
        let text = format!(
            " {mark} {} <{}>  {}",
            printable(&member.user.display_name()),
            printable(&member.user.email),
            level::name(member.level)
        );
        let style = if at == picker.cursor {
            theme.selected
        } else if in_role {
            theme.dim
        } else {
            ratatui::style::Style::new()
        };
        lines.push(Line::styled(text, style));
    }
    if shown.is_empty() {
        lines.push(Line::styled(" nobody matches", theme.dim));
    }
    lines
}

/// The picker's hint: the keys it takes, or that it is assigning.
fn hint(picker: &Picker) -> String {
    if picker.saving {
        "assigning…".to_string()
    } else if picker.fallback.is_some() {
        "Enter assign · Esc cancel".to_string()
    } else {
        format!(
            "{} marked · Space mark · ↑/↓ move · Enter assign · Esc cancel",
            picker.chosen.len()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::User;
    use ratatui::crossterm::event::KeyModifiers;

    fn member(name: &str, uuid: &str) -> OrganizationMember {
        OrganizationMember {
            user: User {
                first_name: name.into(),
                email: format!("{}@x.io", name.to_lowercase()),
                uuid: uuid.into(),
                ..User::default()
            },
            level: 1,
            ..OrganizationMember::default()
        }
    }

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn search_choose_several_and_skip_those_in_the_role() {
        let mut picker = Picker::new("Ops".into(), HashSet::from(["u2".to_string()]));
        picker.people = Some(vec![
            member("Ada", "u1"),
            member("Bruno", "u2"),
            member("Chiara", "u3"),
        ]);
        // Space marks and moves down, as in the tables; Tab does the same.
        picker.key(key(KeyCode::Char(' ')));
        assert_eq!(picker.cursor, 1);
        picker.key(key(KeyCode::Tab));
        assert_eq!(picker.error.as_deref(), Some("already in the role"));
        assert_eq!(picker.cursor, 2);
        picker.key(key(KeyCode::Char(' ')));
        assert_eq!(picker.cursor, 2, "the last row stays under the cursor");
        let chosen: Vec<&str> = picker.chosen.iter().map(|person| person.uuid.as_str()).collect();
        assert_eq!(chosen, ["u1", "u3"]);
        for c in "chi".chars() {
            picker.key(key(KeyCode::Char(c)));
        }
        assert_eq!(picker.shown().len(), 1);
        assert_eq!(picker.key(key(KeyCode::Enter)), Outcome::Assign);
        let uuids: Vec<String> = picker.selection().into_iter().map(|p| p.uuid).collect();
        assert_eq!(uuids, ["u1", "u3"]);
    }

    #[test]
    fn a_cut_list_says_so_searches_the_server_and_keeps_the_chosen() {
        let mut picker = Picker::new("Ops".into(), HashSet::new());
        picker.people = Some(vec![member("Ada", "u1"), member("Bruno", "u2")]);
        assert_eq!(
            picker.search_wanted(),
            None,
            "all of them are here: filtered here"
        );
        assert_eq!(extent(&picker), None);
        picker.more = true;
        assert_eq!(
            extent(&picker).as_deref(),
            Some("showing the first 5,000; type to search")
        );
        picker.key(key(KeyCode::Char(' ')));
        for c in "zo".chars() {
            picker.key(key(KeyCode::Char(c)));
        }
        assert_eq!(picker.search_wanted().as_deref(), Some("zo"));
        picker.searched = "zo".into();
        picker.people = Some(vec![member("Zoë", "u9")]);
        assert_eq!(picker.search_wanted(), None);
        // The server found fewer than it holds: the picker says it searched,
        // and how many it found, not a blank line.
        picker.more = false;
        assert_eq!(
            extent(&picker).as_deref(),
            Some("1 matching \"zo\" on the server")
        );
        picker.more = true;
        assert!(extent(&picker).unwrap().contains("matching \"zo\""));
        picker.key(key(KeyCode::Tab));
        // Ada, chosen before the search, is still chosen, and Zoë with her.
        let uuids: Vec<String> = picker.selection().into_iter().map(|p| p.uuid).collect();
        assert_eq!(uuids, ["u1", "u9"]);
        // Back to nothing typed: the first members again.
        picker.key(key(KeyCode::Backspace));
        picker.key(key(KeyCode::Backspace));
        assert_eq!(picker.search_wanted().as_deref(), Some(""));
        assert_eq!(crate::text::thousands(1_234_567), "1,234,567");
        assert_eq!(crate::text::thousands(12), "12");
    }

    #[test]
    fn space_marks_rather_than_typing_and_names_are_found_without_their_spaces() {
        let mut picker = Picker::new("Ops".into(), HashSet::new());
        let mut ada = member("Ada", "u1");
        ada.user.last_name = "Lovelace".into();
        picker.people = Some(vec![ada, member("Bruno", "u2")]);
        for c in "adalove".chars() {
            picker.key(key(KeyCode::Char(c)));
        }
        assert_eq!(picker.shown().len(), 1, "\"adalove\" finds Ada Lovelace");
        picker.key(key(KeyCode::Char(' ')));
        let chosen: Vec<&str> = picker.chosen.iter().map(|person| person.uuid.as_str()).collect();
        assert_eq!(chosen, ["u1"]);
        // The search found the one it was for: it is emptied, not typed into.
        assert_eq!(picker.query.value(), "");
        assert_eq!(picker.shown().len(), 2);
        // Several shown: Space marks and moves down, the search kept.
        picker.key(key(KeyCode::Char('o')));
        assert_eq!(picker.shown().len(), 2);
        picker.key(key(KeyCode::Char(' ')));
        assert_eq!(picker.query.value(), "o");
        assert_eq!(picker.cursor, 1);
        assert!(picker.chosen.is_empty(), "Ada, marked again, is unmarked");
    }

    #[test]
    fn the_fallback_field_checks_the_uuid() {
        let mut picker = Picker::new("Ops".into(), HashSet::new());
        picker.fall_back("403".into());
        for c in "nope".chars() {
            picker.key(key(KeyCode::Char(c)));
        }
        assert_eq!(picker.key(key(KeyCode::Enter)), Outcome::Picking);
        assert!(picker.error.as_deref().unwrap().contains("UUID"));
        let mut picker = Picker::new("Ops".into(), HashSet::new());
        picker.fall_back("403".into());
        for c in "8f2b7f46-1b6d-4ad3-9a55-1f1d9a1c2b3e".chars() {
            picker.key(key(KeyCode::Char(c)));
        }
        assert_eq!(picker.key(key(KeyCode::Enter)), Outcome::Assign);
    }
}
