//! `:org` and `:project` without an argument: pickers fed by the API's lists
//! of organizations and projects (the same answer that names them in the
//! header).

use ratatui::crossterm::event::KeyEvent;

use super::{App, Effect, Mode};
use crate::api::{Organization, Project};
use crate::console::switcher::{Choice, Outcome, Scope, Switcher};

impl App {
    pub(super) fn open_switcher(&mut self, scope: Scope) -> Vec<Effect> {
        let current = match scope {
            Scope::Organization => self.context.organization.clone(),
            Scope::Project => self.context.project.clone(),
        };
        self.mode = Mode::Switcher(Box::new(Switcher::new(scope, current)));
        self.dirty = true;
        vec![self.load_names()]
    }

    /// The lists arrived: the open picker takes the one it shows.
    pub(super) fn fill_switcher(
        &mut self,
        organizations: Option<&[Organization]>,
        projects: Option<&[Project]>,
    ) {
        let Mode::Switcher(switcher) = &mut self.mode else {
            return;
        };
        let context = &self.context;
        let choices = match switcher.scope {
            Scope::Organization => organizations.map(|organizations| {
                organizations
                    .iter()
                    .map(|organization| Choice {
                        id: organization.id.clone(),
                        name: organization.name.clone(),
                    })
                    .collect::<Vec<_>>()
            }),
            // The organization's projects; `@current` leaves it to the server.
            Scope::Project => projects.map(|projects| {
                projects
                    .iter()
                    .filter(|project| {
                        context.organization == "@current"
                            || project
                                .organization
                                .as_deref()
                                .is_none_or(|organization| organization == context.organization)
                    })
                    .map(|project| Choice {
                        id: project.id.to_string(),
                        name: project.name.clone(),
                    })
                    .collect::<Vec<_>>()
            }),
        };
        match choices {
            Some(choices) => {
                // `@current` is marked by the name the header shows.
                let current_name = match switcher.scope {
                    Scope::Organization => context.organization_name.as_deref(),
                    Scope::Project => context.project_name.as_deref(),
                };
                if switcher.current == "@current"
                    && let Some(found) = choices
                        .iter()
                        .find(|choice| Some(choice.name.as_str()) == current_name)
                {
                    switcher.current = found.id.clone();
                }
                switcher.fill(choices);
            }
            None => {
                switcher.choices = Some(Vec::new());
                switcher.error = Some(format!(
                    "the {}s cannot be listed with this key; type :{} ID instead",
                    switcher.scope.noun(),
                    switcher.scope.command()
                ));
            }
        }
    }

    pub(super) fn switcher_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Mode::Switcher(switcher) = &mut self.mode else {
            return Vec::new();
        };
        let scope = switcher.scope;
        let current = switcher.current.clone();
        match switcher.key(key) {
            Outcome::Picking => Vec::new(),
            Outcome::Cancel => {
                self.mode = Mode::Normal;
                Vec::new()
            }
            Outcome::Switch(id) => {
                self.mode = Mode::Normal;
                if id == current {
                    return Vec::new();
                }
                match scope {
                    Scope::Organization => self.switch_organization(id),
                    Scope::Project => self.switch_project(id),
                }
            }
        }
    }
}
