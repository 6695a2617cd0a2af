//! Forms: one field focused at a time (Tab / Shift-Tab), selects for
//! enumerations, Enter or Ctrl-S to submit, Esc to leave (asking "Discard
//! changes?" first when something changed, Enter saying no). Fields check
//! what is typed as it is typed; a refusal from the server lands on the
//! field its `attr` names, or at the top. Nothing typed is ever lost to a
//! failed save.

use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use tui_input::backend::crossterm::EventHandler;

use crate::api::Refusal;

use super::question::{self, Answer};

#[path = "form_field.rs"]
mod field;
pub use field::{Check, Field, Value, matching};
use field::{find_option, step_among};

/// What a key did to the form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Editing,
    Submit,
    /// Leave without saving.
    Cancel,
}

#[derive(Debug, Clone)]
pub struct Form {
    pub title: String,
    pub fields: Vec<Field>,
    pub focus: usize,
    /// An error that is about no one field.
    pub error: Option<String>,
    /// A save is on its way: a second submit does nothing, and neither do edits.
    pub saving: bool,
    /// The ticket of the write on its way, whose answer this form takes.
    pub pending: Option<crate::console::kit::latest::Ticket>,
    /// Esc was pressed with changes: "Discard changes?" is asked.
    pub confirm_discard: bool,
    /// A save was asked for and the fields' own checks refused it: the
    /// owner may add what it checks across fields, so that every error
    /// shows at once.
    pub refused_save: bool,
    original: Vec<String>,
}

impl Form {
    pub fn new(title: impl Into<String>, fields: Vec<Field>) -> Form {
        let original = fields.iter().map(Field::current).collect();
        Form {
            title: title.into(),
            fields,
            focus: 0,
            error: None,
            saving: false,
            pending: None,
            confirm_discard: false,
            refused_save: false,
            original,
        }
    }

    /// Adds a field once the form is open, as what the server offers comes
    /// to be known; it starts unchanged, and the focus stays on its field.
    pub fn insert_field(&mut self, at: usize, field: Field) {
        let at = at.min(self.fields.len());
        self.original.insert(at, field.current());
        self.fields.insert(at, field);
        if self.focus >= at && self.fields.len() > 1 {
            self.focus += 1;
        }
    }

    /// Takes away a field that no longer fits what the form says (the
    /// insights of a dashboard no longer chosen); the focus stays on the
    /// field it was on, or the one after.
    pub fn remove_field(&mut self, name: &str) {
        let Some(at) = self.position(name) else {
            return;
        };
        self.fields.remove(at);
        self.original.remove(at);
        if self.focus > at || self.focus >= self.fields.len() {
            self.focus = self.focus.saturating_sub(1);
        }
    }

    /// Where the field of this name is.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|field| field.name == name)
    }

    /// Whether the form has a field of this name.
    pub fn has(&self, name: &str) -> bool {
        self.position(name).is_some()
    }

    pub fn value(&self, name: &str) -> String {
        self.fields
            .iter()
            .find(|field| field.name == name)
            .map(Field::current)
            .unwrap_or_default()
    }

    /// Whether anything differs from what the form opened with.
    pub fn changed(&self) -> bool {
        self.fields
            .iter()
            .zip(&self.original)
            .any(|(field, original)| field.current() != *original)
    }

    /// The fields that differ: (label, before, after), for a change
    /// summary; choices by their labels, as the form shows them.
    pub fn changes(&self) -> Vec<(&'static str, String, String)> {
        self.fields
            .iter()
            .zip(&self.original)
            .filter(|(field, original)| field.current() != **original)
            .map(|(field, original)| {
                (
                    field.label,
                    field.label_of(original),
                    field.label_of(&field.current()),
                )
            })
            .collect()
    }

    /// Whether a field changed (an edit sends only those).
    pub fn field_changed(&self, name: &str) -> bool {
        self.fields
            .iter()
            .zip(&self.original)
            .any(|(field, original)| field.name == name && field.current() != *original)
    }

    /// Checks every field; true when all are right.
    pub fn validate(&mut self) -> bool {
        for field in &mut self.fields {
            field.check();
        }
        self.fields.iter().all(|field| field.error.is_none())
    }

    pub fn key(&mut self, key: KeyEvent) -> Outcome {
        // "Discard changes?": y discards; n, Esc and Enter (no is
        // highlighted) keep the form with everything typed; any other key
        // leaves the question open.
        if self.confirm_discard {
            return match question::answer(&key, Answer::No) {
                Some(Answer::Yes) => Outcome::Cancel,
                Some(Answer::No) => {
                    self.confirm_discard = false;
                    Outcome::Editing
                }
                None => Outcome::Editing,
            };
        }
        if self.saving && key.code != KeyCode::Esc {
            return Outcome::Editing;
        }
        let control = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc if self.changed() => {
                self.confirm_discard = true;
                Outcome::Editing
            }
            KeyCode::Esc => Outcome::Cancel,
            KeyCode::Enter => self.submit(),
            KeyCode::Char('s') if control => self.submit(),
            KeyCode::Tab | KeyCode::Down => {
                self.step_focus(1);
                Outcome::Editing
            }
            KeyCode::BackTab | KeyCode::Up => {
                self.step_focus(-1);
                Outcome::Editing
            }
            _ => self.field_key(key),
        }
    }

    /// A key for the focused field: typed into a text, a select stepped
    /// or searched, a choice moved to or chosen; then, as the user types,
    /// what is wrong is said beside the field.
    fn field_key(&mut self, key: KeyEvent) -> Outcome {
        let Some(field) = self.fields.get_mut(self.focus) else {
            return Outcome::Editing;
        };
        match &mut field.value {
            Value::Text { input, .. } => {
                input.handle_event(&Event::Key(key));
            }
            Value::Select { options, chosen } => select_key(options, chosen, &mut field.typed, key.code),
            Value::Choices {
                options,
                chosen,
                at,
                most,
            } => {
                if let Err(full) = choices_key(options.len(), chosen, at, *most, key.code) {
                    field.error = Some(full);
                    return Outcome::Editing;
                }
            }
        }
        field.check();
        Outcome::Editing
    }

    /// Moves the focus to the next (or previous) field that is shown.
    pub fn step_focus(&mut self, step: isize) {
        let count = self.fields.len();
        for _ in 0..count {
            self.focus = (self.focus as isize + step).rem_euclid(count.max(1) as isize) as usize;
            if !self.fields[self.focus].hidden {
                break;
            }
        }
        self.fields.iter_mut().for_each(|field| field.typed.clear());
    }

    /// Shows or hides a field; the focus leaves a field that goes.
    pub fn show(&mut self, name: &str, shown: bool) {
        let Some(at) = self.position(name) else {
            return;
        };
        self.fields[at].hidden = !shown;
        if !shown {
            self.fields[at].error = None;
            if self.focus == at {
                self.step_focus(1);
            }
        }
    }

    fn submit(&mut self) -> Outcome {
        if self.saving {
            return Outcome::Editing;
        }
        if !self.validate() {
            self.refused_save = true;
            self.focus_first_error();
            return Outcome::Editing;
        }
        Outcome::Submit
    }

    /// Every error at once, each beside its field (those already there
    /// kept), and the focus on the first field with one.
    pub fn show_errors(&mut self, errors: Vec<(&str, String)>) {
        self.saving = false;
        for (name, message) in errors {
            match self.fields.iter_mut().find(|field| field.name == name) {
                Some(field) => {
                    field.hidden = false;
                    if field.error.is_none() {
                        field.error = Some(message);
                    }
                }
                None => self.error = Some(message),
            }
        }
        self.focus_first_error();
    }

    fn focus_first_error(&mut self) {
        if let Some(at) = self
            .fields
            .iter()
            .position(|field| !field.hidden && field.error.is_some())
        {
            self.focus = at;
        }
    }

    /// Puts a refusal on the field it names, or at the top; the form stays
    /// open with everything typed.
    pub fn refused(&mut self, message: String, attr: Option<&str>) {
        self.saving = false;
        let field = attr
            .map(|attr| attr.split("__").next().unwrap_or(attr))
            .and_then(|attr| self.fields.iter().position(|field| field.name == attr));
        match field {
            Some(index) => {
                self.fields[index].error = Some(message);
                self.focus = index;
                self.error = None;
            }
            None => self.error = Some(message),
        }
        // A refusal of a field that is not shown shows it.
        if let Some(field) = self.fields.get_mut(self.focus) {
            field.hidden = false;
        }
    }

    /// A refusal of the API: its detail on the field, or the whole line at the top.
    pub fn refused_by(&mut self, refusal: &Refusal, whole: String) {
        match &refusal.attr {
            Some(attr)
                if self
                    .fields
                    .iter()
                    .any(|field| Some(field.name) == attr.split("__").next()) =>
            {
                self.refused(refusal.detail.clone(), Some(attr))
            }
            _ => self.refused(whole, None),
        }
    }
}

/// A key for a select: ←/→ step through the options (those matching
/// what is typed), Space steps when nothing is typed; typing finds an
/// option: long lists of dashboards and insights are searched rather
/// than stepped through.
fn select_key(options: &[(String, String)], chosen: &mut usize, typed: &mut String, code: KeyCode) {
    match code {
        KeyCode::Left => *chosen = step_among(options, typed, *chosen, -1),
        KeyCode::Right => *chosen = step_among(options, typed, *chosen, 1),
        KeyCode::Char(' ') if typed.is_empty() => *chosen = step_among(options, "", *chosen, 1),
        KeyCode::Char(c) => {
            typed.extend(c.to_lowercase());
            if let Some(at) = find_option(options, typed) {
                *chosen = at;
            }
        }
        KeyCode::Backspace => {
            typed.pop();
            if let Some(at) = find_option(options, typed) {
                *chosen = at;
            }
        }
        _ => {}
    }
}

/// A key for a field of choices: ←/→ move among them, Space chooses or
/// frees the one at the pointer; choosing past `most` is refused, with
/// what to do.
fn choices_key(
    options: usize,
    chosen: &mut [bool],
    at: &mut usize,
    most: usize,
    code: KeyCode,
) -> Result<(), String> {
    match code {
        KeyCode::Left => *at = at.saturating_sub(1),
        KeyCode::Right => *at = (*at + 1).min(options.saturating_sub(1)),
        KeyCode::Char(' ') => {
            let full = chosen.iter().filter(|chosen| **chosen).count() >= most;
            match chosen.get_mut(*at) {
                Some(flag) if !*flag && full => {
                    return Err(format!("at most {most}: Space on a chosen one frees a place"));
                }
                Some(flag) => *flag = !*flag,
                None => {}
            }
        }
        _ => {}
    }
    Ok(())
}

/// Field checks shared by the forms.
pub mod checks {
    pub fn required(text: &str) -> Result<(), String> {
        if text.trim().is_empty() {
            Err("required".into())
        } else {
            Ok(())
        }
    }

    /// A role name: required, at most 200 characters.
    pub fn role_name(text: &str) -> Result<(), String> {
        required(text)?;
        let length = text.trim().chars().count();
        if length > 200 {
            Err(format!("at most 200 characters ({length} now)"))
        } else {
            Ok(())
        }
    }
}

#[path = "form_draw.rs"]
mod draw;
pub use draw::draw;

#[cfg(test)]
#[path = "form_tests.rs"]
mod tests;
