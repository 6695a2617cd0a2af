//! The preview of a change of access (issue 32, req 8): `cargo bench
//! --bench preview`.
//!
//! An organization of 1,000 members, 50 roles (each member in two or
//! three) and 20 projects, each project with everyone's rule, a few
//! roles' rules and a few members' own rules on its resources and on the
//! project: the rules as `access::preview::world` reads them, held in
//! memory. Measured: the preview of one person joining a role (what
//! `members add` shows), of a role's rule changed (`access set`), and of
//! switching the organization to the other mode (`access switch-preview`),
//! each in the organization's mode with the other mode beside it. The
//! reading of the rules, over the network, is measured apart
//! (tests/client/access_figures.rs).

// A benchmark's setup that fails has nothing to measure: it stops there, loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use criterion::{Criterion, criterion_group, criterion_main};
use orgdeck::access::directory::{Person, ProjectRef, RoleInfo, RoleMember};
use orgdeck::access::preview::{Change, ProjectWorld, World, preview, switch};
use orgdeck::api::access::levels::{AccessLevel, PROJECT, RESOURCES};
use orgdeck::api::access::{AccessControl, Mode, Plan};

const MEMBERS: usize = 1_000;
const ROLES: usize = 50;
const PROJECTS: usize = 20;

fn world(mode: Mode) -> World {
    let people: Vec<Person> = (0..MEMBERS)
        .map(|at| Person {
            membership_id: format!("m-{at:04}"),
            user_uuid: format!("u-{at:04}"),
            email: format!("person{at:04}@hedgebox.dev"),
            name: format!("Person {at}"),
            level: if at < 5 { 8 } else { 1 },
            last_login: None,
        })
        .collect();
    let roles: Vec<RoleInfo> = (0..ROLES)
        .map(|role| RoleInfo {
            id: format!("r-{role:02}"),
            name: format!("Role {role}"),
            members: people
                .iter()
                .enumerate()
                .filter(|(at, _)| at % ROLES == role || (at * 7) % ROLES == role || (at * 13) % ROLES == role)
                .map(|(_, person)| RoleMember {
                    membership_id: Some(person.membership_id.clone()),
                    user_uuid: Some(person.user_uuid.clone()),
                    email: person.email.clone(),
                    name: person.name.clone(),
                })
                .collect(),
        })
        .collect();
    let levels = [
        AccessLevel::None,
        AccessLevel::Viewer,
        AccessLevel::Editor,
        AccessLevel::Manager,
    ];
    let projects = (0..PROJECTS)
        .map(|project| {
            let id = project as i64 + 1;
            let mut rules = vec![AccessControl {
                access_level: Some(AccessLevel::Member),
                resource: PROJECT.into(),
                resource_id: Some(id.to_string()),
                ..AccessControl::default()
            }];
            for (at, resource) in RESOURCES.iter().enumerate() {
                rules.push(AccessControl {
                    access_level: Some(levels[(at + project) % 4].clone()),
                    resource: resource.to_string(),
                    ..AccessControl::default()
                });
                for role in [(at + project) % ROLES, (at * 3 + project) % ROLES] {
                    rules.push(AccessControl {
                        access_level: Some(levels[(role + at) % 4].clone()),
                        resource: resource.to_string(),
                        role: Some(format!("r-{role:02}")),
                        ..AccessControl::default()
                    });
                }
                let member = (at * 31 + project * 17) % MEMBERS;
                rules.push(AccessControl {
                    access_level: Some(levels[(member + at) % 4].clone()),
                    resource: resource.to_string(),
                    organization_member: Some(format!("m-{member:04}")),
                    ..AccessControl::default()
                });
            }
            ProjectWorld {
                project: ProjectRef {
                    id,
                    name: format!("Project {id}"),
                },
                rules,
                locked: false,
            }
        })
        .collect();
    World {
        people,
        roles,
        projects,
        plan: Plan {
            access_control: true,
            role_based_access: true,
        },
        mode: Some(mode),
        objects: Vec::new(),
        notes: Vec::new(),
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("preview");
    group.sample_size(20);
    for mode in [Mode::HighestWins, Mode::MostSpecific] {
        let world = world(mode);
        let join = Change::Join {
            role_id: "r-07".into(),
            membership_id: "m-0500".into(),
        };
        let effect = preview(&world, &join);
        eprintln!(
            "{}: joining a role moves {} people ({} lines)",
            mode.as_str(),
            effect.people,
            effect.lines.len()
        );
        group.bench_function(format!("join a role, {}", mode.as_str()), |b| {
            b.iter(|| preview(&world, &join))
        });
        let rule = Change::Rule {
            project: 3,
            resource: "dashboard".into(),
            resource_id: None,
            subject: orgdeck::api::access::Subject::Role("r-07".into()),
            level: Some(AccessLevel::Viewer),
        };
        group.bench_function(format!("a role's rule, {}", mode.as_str()), |b| {
            b.iter(|| preview(&world, &rule))
        });
        group.bench_function(format!("switch, {}", mode.as_str()), |b| {
            b.iter(|| switch(&world))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
