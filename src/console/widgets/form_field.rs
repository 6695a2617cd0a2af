//! A form's fields: text (checked as it is typed), a select of one option,
//! choices of several, and how an option is found from what is typed.

use tui_input::Input;

/// Checks a text field's value; `Err` says what is wrong.
pub type Check = fn(&str) -> Result<(), String>;

#[derive(Debug, Clone)]
pub enum Value {
    Text {
        input: Input,
        check: Option<Check>,
    },
    /// One of several (value sent, label shown).
    Select {
        options: Vec<(String, String)>,
        chosen: usize,
    },
    /// Any of several: ←/→ move, Space chooses; no more than `most`.
    Choices {
        options: Vec<(String, String)>,
        chosen: Vec<bool>,
        at: usize,
        most: usize,
    },
}

#[derive(Debug, Clone)]
pub struct Field {
    /// The API's name for the field, which `attr` refers to.
    pub name: &'static str,
    pub label: &'static str,
    pub value: Value,
    pub error: Option<String>,
    /// What was typed to find an option of a select.
    pub typed: String,
    /// Not shown, not focused, not checked: a field that does not apply
    /// to what the other fields say (a prompt, unless an AI report).
    pub hidden: bool,
}

impl Field {
    pub fn text(name: &'static str, label: &'static str, initial: &str, check: Option<Check>) -> Field {
        Field {
            name,
            label,
            value: Value::Text {
                input: Input::new(initial.to_string()),
                check,
            },
            error: None,
            typed: String::new(),
            hidden: false,
        }
    }

    pub fn select(name: &'static str, label: &'static str, options: &[(&str, &str)], chosen: &str) -> Field {
        let options: Vec<(String, String)> = options
            .iter()
            .map(|(v, l)| (v.to_string(), l.to_string()))
            .collect();
        let chosen = options.iter().position(|(value, _)| value == chosen).unwrap_or(0);
        Field {
            name,
            label,
            value: Value::Select { options, chosen },
            error: None,
            typed: String::new(),
            hidden: false,
        }
    }

    /// Any of `options`, those in `chosen` chosen.
    pub fn choices(
        name: &'static str,
        label: &'static str,
        options: &[(&str, &str)],
        chosen: &[String],
    ) -> Field {
        let flags = options
            .iter()
            .map(|(value, _)| chosen.iter().any(|c| c == value))
            .collect();
        let options = options
            .iter()
            .map(|(v, l)| (v.to_string(), l.to_string()))
            .collect();
        Field {
            name,
            label,
            value: Value::Choices {
                options,
                chosen: flags,
                at: 0,
                most: usize::MAX,
            },
            error: None,
            typed: String::new(),
            hidden: false,
        }
    }

    /// Any of `options`, no more than `most` at once; a choice beyond
    /// that is refused as it is made.
    pub fn at_most(mut self, most: usize) -> Field {
        if let Value::Choices { most: limit, .. } = &mut self.value {
            *limit = most;
        }
        self
    }

    /// Replaces a text field's value.
    pub fn set_text(&mut self, text: &str) {
        if let Value::Text { input, .. } = &mut self.value {
            *input = Input::new(text.to_string());
        }
    }

    /// Replaces a select's options, keeping the choice when it still exists.
    pub fn set_options(&mut self, new: Vec<(String, String)>) {
        if let Value::Select { options, chosen } = &mut self.value {
            let current = options.get(*chosen).cloned();
            let mut new = new;
            *chosen = match current {
                Some((value, _)) if value.is_empty() => 0,
                Some((value, label)) => match new.iter().position(|(v, _)| *v == value) {
                    Some(at) => at,
                    // Not in the new list: kept, rather than changed behind the user's back.
                    None => {
                        new.push((value, label));
                        new.len() - 1
                    }
                },
                None => 0,
            };
            *options = new;
        }
    }

    /// The value as sent (chosen values joined by commas).
    pub fn current(&self) -> String {
        match &self.value {
            Value::Text { input, .. } => input.value().to_string(),
            Value::Select { options, chosen } => {
                options.get(*chosen).map(|(v, _)| v.clone()).unwrap_or_default()
            }
            Value::Choices { options, chosen, .. } => options
                .iter()
                .zip(chosen)
                .filter(|(_, chosen)| **chosen)
                .map(|((value, _), _)| value.as_str())
                .collect::<Vec<_>>()
                .join(","),
        }
    }

    /// The value as shown.
    pub fn shown(&self) -> String {
        match &self.value {
            Value::Text { input, .. } => input.value().to_string(),
            Value::Select { options, chosen } => {
                options.get(*chosen).map(|(_, l)| l.clone()).unwrap_or_default()
            }
            Value::Choices {
                options, chosen, at, ..
            } => options
                .iter()
                .zip(chosen)
                .enumerate()
                .map(|(index, ((_, label), chosen))| {
                    let mark = if *chosen { "■" } else { "□" };
                    if index == *at {
                        format!("[{mark}{label}]")
                    } else {
                        format!(" {mark}{label} ")
                    }
                })
                .collect::<Vec<_>>()
                .join(""),
        }
    }

    /// A value of this field as the form shows it: a choice by its label
    /// (an integration's name, not its id), several joined by commas.
    pub fn label_of(&self, value: &str) -> String {
        let label = |options: &[(String, String)], value: &str| {
            options
                .iter()
                .find(|(option, _)| option == value)
                .map_or_else(|| value.to_string(), |(_, label)| label.clone())
        };
        match &self.value {
            Value::Text { .. } => value.to_string(),
            Value::Select { options, .. } => label(options, value),
            Value::Choices { options, .. } => value
                .split(',')
                .filter(|value| !value.is_empty())
                .map(|value| label(options, value))
                .collect::<Vec<_>>()
                .join(", "),
        }
    }

    pub(super) fn check(&mut self) {
        if self.hidden {
            self.error = None;
        } else if let Value::Text {
            input,
            check: Some(check),
        } = &self.value
        {
            self.error = check(input.value()).err();
        } else {
            self.error = None;
        }
    }
}

/// The first option whose label holds `typed` (lowercase).
pub(super) fn find_option(options: &[(String, String)], typed: &str) -> Option<usize> {
    matching(options, typed).first().copied()
}

/// The options whose label holds what was typed (lower case), in order.
pub fn matching(options: &[(String, String)], typed: &str) -> Vec<usize> {
    if typed.is_empty() {
        return Vec::new();
    }
    options
        .iter()
        .enumerate()
        .filter(|(_, (_, label))| label.to_lowercase().contains(typed))
        .map(|(at, _)| at)
        .collect()
}

/// The option `step` matches away from `chosen`, going round: with
/// something typed, ←/→ go through what matches, not through everything.
pub(super) fn step_among(options: &[(String, String)], typed: &str, chosen: usize, step: isize) -> usize {
    let found = matching(options, typed);
    if found.is_empty() {
        let count = options.len().max(1) as isize;
        return (chosen as isize + step).rem_euclid(count) as usize;
    }
    let at = found.iter().position(|&index| index == chosen);
    let next = match at {
        Some(at) => (at as isize + step).rem_euclid(found.len() as isize) as usize,
        None => 0,
    };
    found[next]
}
