//! What a role grants: in each project, its project access, its rules on
//! resources and objects, and what its members get from it, with its
//! members (count and names). Asked per role (`?role_id=`).

use serde::Serialize;

use super::Unknown;
use super::directory::{Directory, Organization, ProjectRef, RoleInfo};
use super::explain::{Ignored, ProjectRules, Why, explain};
use super::person::{Line, ObjectLine, Others, RuleNote, unknown_or_stop};
use super::read::{ReadResult, Reader};
use crate::api::access::levels::{AccessLevel, PROJECT};
use crate::api::access::{AccessControls, AccessTarget, RoleAccess, SettingsEntry, Subject};

/// Everything `access role` tells.
#[derive(Debug, Clone, Serialize)]
pub struct RoleGrants {
    pub role: RoleInfo,
    pub organization: Organization,
    pub projects: Vec<RoleProject>,
}

/// One project of what a role grants.
#[derive(Debug, Clone, Serialize)]
pub struct RoleProject {
    pub project: ProjectRef,
    #[serde(flatten)]
    pub outcome: RoleOutcome,
}

#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum RoleOutcome {
    Known(Box<RoleKnown>),
    Unknown(Unknown),
}

/// A project whose answers about the role were read.
#[derive(Debug, Clone, Serialize)]
pub struct RoleKnown {
    pub notes: Vec<String>,
    /// What the role's members get on the project from the role and
    /// everyone's rule (their own rules aside), and why.
    #[serde(rename = "project_level")]
    pub project: Line,
    /// The resources the role has a rule on, or whose level for it is not
    /// the project's default.
    pub resources: Vec<Line>,
    pub others: Vec<Others>,
    pub object_rules: Vec<ObjectLine>,
}

impl RoleGrants {
    /// Reads what `role` grants in every project of the directory (or
    /// those given); `done` hears (projects read, in all).
    pub async fn read(
        reader: &Reader,
        directory: &Directory,
        role: &RoleInfo,
        projects: Option<Vec<ProjectRef>>,
        done: &(dyn Fn(usize, usize) + Sync),
    ) -> ReadResult<RoleGrants> {
        let projects = projects.unwrap_or_else(|| directory.projects.clone());
        let total = projects.len();
        let finished = std::sync::atomic::AtomicUsize::new(0);
        let reads = projects.into_iter().map(|project| {
            let finished = &finished;
            async move {
                let outcome = role_project(reader, &directory.organization, role, &project).await;
                done(
                    finished.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1,
                    total,
                );
                outcome.map(|outcome| RoleProject { project, outcome })
            }
        });
        let projects = futures_util::future::join_all(reads)
            .await
            .into_iter()
            .collect::<ReadResult<Vec<_>>>()?;
        Ok(RoleGrants {
            role: role.clone(),
            organization: directory.organization.clone(),
            projects,
        })
    }
}

async fn role_project(
    reader: &Reader,
    organization: &Organization,
    role: &RoleInfo,
    project: &ProjectRef,
) -> ReadResult<RoleOutcome> {
    let id = project.id.to_string();
    let id = id.as_str();
    let role_id = role.id.as_str();
    let row = reader.read(|client| async move {
        let mut found = None;
        client
            .access_control_roles(id, Some(role_id), |row: RoleAccess| {
                if row.role_id.eq_ignore_ascii_case(role_id) {
                    found = Some(row);
                }
                Ok::<_, crate::api::Error>(())
            })
            .await?;
        Ok(found)
    });
    let project_rules =
        reader.read(|client| async move { client.access_controls(id, AccessTarget::Project).await });
    let resource_rules = reader.read(|client| async move { client.resource_access_controls(id).await });
    let objects = reader
        .read(|client| async move { client.object_rules(id, &Subject::Role(role_id.to_string())).await });
    let (row, project_rules, resource_rules, objects) =
        tokio::join!(row, project_rules, resource_rules, objects);
    let row = match unknown_or_stop(row, |error| Unknown::refused_role(error).unknown)? {
        Ok(Some(row)) => row,
        Ok(None) => {
            return Ok(RoleOutcome::Unknown(Unknown {
                unknown: "the server does not list this role in this project".into(),
            }));
        }
        Err(words) => return Ok(RoleOutcome::Unknown(Unknown { unknown: words })),
    };
    let mut notes = Vec::new();
    let mut rules = match (
        unknown_or_stop(project_rules, |error| error.to_string())?,
        unknown_or_stop(resource_rules, |error| error.to_string())?,
    ) {
        (Ok(project), Ok(resources)) => ProjectRules::new(&project, &resources),
        (Err(error), _) | (_, Err(error)) => {
            notes.push(format!(
                "the project's rules could not be read ({error}): defaults are the built-in ones"
            ));
            ProjectRules::new(&AccessControls::default(), &AccessControls::default())
        }
    };
    if rules.has_managed() {
        rules.set_locked(super::terraform_lock(reader, id).await?);
    }
    let seen = Ignored::seen_in(
        &rules,
        &|resource| rules.role(role_id, resource).cloned(),
        std::iter::once((PROJECT, &row.project)).chain(row.resources.iter()),
        true,
    );
    let ignored = Ignored {
        all_rules: organization.access_control.map_or(seen.all_rules, |has| !has),
        role_rules: organization.role_based_access.map_or(seen.role_rules, |has| !has),
    };
    notes.extend(ignored.note().map(str::to_string));
    let line = |resource: &str, entry: &SettingsEntry| -> (Line, bool) {
        let own_name = |level: &AccessLevel| -> Vec<String> {
            if rules.role(role_id, resource) == Some(level) {
                vec![role.name.clone()]
            } else {
                Vec::new()
            }
        };
        let cell = explain(entry, resource, &own_name);
        let (default, default_why) = rules.default_of(resource, !ignored.all_rules);
        // Its own rule from the answer, else from the rules (a plan that
        // does not read roles' rules leaves it out of the answer).
        let own = cell
            .own
            .clone()
            .or_else(|| rules.role(role_id, resource).cloned());
        let mut outranked = Vec::new();
        if let Some(own) = &own
            && cell.why != Why::OwnRule
        {
            outranked.push(RuleNote {
                by: "own rule".into(),
                level: own.clone(),
            });
        }
        let worth = own.is_some() || cell.level.as_ref() != Some(&default);
        let terraform = rules.terraform(None, &[(role_id, role.name.as_str())], resource);
        (
            Line {
                resource: resource.to_string(),
                cell,
                default,
                default_why,
                outranked,
                server: entry.clone(),
                terraform_lock: rules.locked() && !terraform.is_empty(),
                terraform,
            },
            worth,
        )
    };
    let (project_line, _) = line(PROJECT, &row.project);
    let mut resources = Vec::new();
    let mut others: Vec<Others> = Vec::new();
    for (resource, entry) in row.resources.iter() {
        let (line, worth) = line(resource, entry);
        if worth {
            resources.push(line);
        } else if let Some(group) = others
            .iter_mut()
            .find(|group| group.level == line.default && group.why == line.default_why)
        {
            group.resources.push(resource.to_string());
        } else {
            others.push(Others {
                level: line.default,
                why: line.default_why,
                resources: vec![resource.to_string()],
            });
        }
    }
    let mut object_rules = Vec::new();
    match unknown_or_stop(objects, |error| error.to_string())? {
        Ok(found) => {
            for rule in found.results {
                object_rules.push(ObjectLine {
                    resource: rule.resource,
                    resource_id: rule.resource_id,
                    name: rule.name,
                    short_id: rule.short_id,
                    rule: rule.access_level,
                    by: "own rule".into(),
                    effective: None,
                    effective_source: None,
                    effective_unknown: None,
                    managed_by: None,
                    terraform_lock: false,
                });
            }
        }
        Err(error) => notes.push(format!("its object rules could not be read: {error}")),
    }
    let objects: Vec<(String, String, Option<String>)> = object_rules
        .iter()
        .map(|rule| {
            (
                rule.resource.clone(),
                rule.resource_id.clone(),
                rule.short_id.clone(),
            )
        })
        .collect();
    let (managers, locked) = super::object_managers(
        reader,
        id,
        &objects,
        rules.has_managed().then_some(rules.locked()),
    )
    .await?;
    let subject = super::subject_key(None, Some(role_id));
    for rule in &mut object_rules {
        rule.managed_by = managers
            .get(&(rule.resource.clone(), rule.resource_id.clone(), subject.clone()))
            .cloned();
        rule.terraform_lock = locked && rule.managed_by.is_some();
    }
    object_rules.sort_by(|a, b| {
        (
            a.resource.as_str(),
            a.name.as_deref().unwrap_or_default().to_lowercase(),
        )
            .cmp(&(
                b.resource.as_str(),
                b.name.as_deref().unwrap_or_default().to_lowercase(),
            ))
    });
    Ok(RoleOutcome::Known(Box::new(RoleKnown {
        notes,
        project: project_line,
        resources,
        others,
        object_rules,
    })))
}
