use super::*;
use crate::access::directory::{Person, ProjectRef, RoleInfo, RoleMember};
use crate::api::access::AccessControl;

fn person(name: &str, level: i64) -> Person {
    Person {
        membership_id: format!("m-{name}"),
        user_uuid: format!("u-{name}"),
        email: format!("{name}@hedgebox.dev"),
        name: name.to_string(),
        level,
        last_login: None,
    }
}

fn rule(
    resource: &str,
    id: Option<&str>,
    role: Option<&str>,
    member: Option<&str>,
    level: &str,
) -> AccessControl {
    AccessControl {
        access_level: Some(AccessLevel::from_wire(level)),
        resource: resource.into(),
        resource_id: id.map(str::to_string),
        role: role.map(str::to_string),
        organization_member: member.map(str::to_string),
        ..AccessControl::default()
    }
}

fn web(mode: Option<Mode>) -> World {
    let people = vec![person("ada", 1), person("ivan", 1), person("bruno", 8)];
    let roles = vec![
        RoleInfo {
            id: "r-contractors".into(),
            name: "Contractors".into(),
            members: Vec::new(),
        },
        RoleInfo {
            id: "r-engineering".into(),
            name: "Engineering".into(),
            members: vec![RoleMember {
                membership_id: Some("m-ivan".into()),
                user_uuid: Some("u-ivan".into()),
                email: "ivan@hedgebox.dev".into(),
                name: "ivan".into(),
            }],
        },
    ];
    let rules = vec![
        rule("dashboard", None, None, None, "editor"),
        rule("dashboard", None, Some("r-contractors"), None, "viewer"),
        rule("project", Some("1"), Some("r-engineering"), None, "admin"),
        rule("project", Some("1"), None, Some("m-ivan"), "member"),
    ];
    World {
        people,
        roles,
        projects: vec![ProjectWorld {
            project: ProjectRef {
                id: 1,
                name: "Hedgebox Web".into(),
            },
            rules,
            locked: false,
        }],
        plan: Plan::default(),
        mode,
        objects: Vec::new(),
        notes: Vec::new(),
    }
}

#[test]
fn joining_a_role_lowers_access_once_the_most_specific_rule_wins() {
    let join = Change::Join {
        role_id: "r-contractors".into(),
        membership_id: "m-ada".into(),
    };
    let effect = preview(&web(Some(Mode::MostSpecific)), &join);
    assert_eq!(effect.lines.len(), 1, "{effect:#?}");
    let line = &effect.lines[0];
    assert_eq!(line.what(), "dashboards editor → viewer in Hedgebox Web (1)");
    assert_eq!(
        line.because,
        "the rule of Contractors (viewer) is more specific than everyone's (editor)"
    );
    assert!(line.loses);
    let other = line.other_mode.as_ref().unwrap();
    assert_eq!(
        (other.mode, &other.before, &other.after),
        ("highest-wins", &AccessLevel::Editor, &AccessLevel::Editor)
    );
    assert_eq!(
        other.because,
        "everyone's rule (editor) is higher than their roles' (viewer), and the highest rule wins"
    );
    assert_eq!((effect.people, effect.losing), (1, 1));

    // While the highest rule wins, nothing moves in that mode: the line is
    // there for the other mode alone, and nobody loses.
    let effect = preview(&web(Some(Mode::HighestWins)), &join);
    assert_eq!(effect.lines.len(), 1);
    assert_eq!(effect.lines[0].before, effect.lines[0].after);
    assert_eq!(effect.losing, 0);
    // A server that does not say its mode: a loss in either counts.
    assert_eq!(preview(&web(None), &join).losing, 1);
}

#[test]
fn deleting_a_role_and_removing_an_own_rule_say_why() {
    let world = web(Some(Mode::MostSpecific));
    let effect = preview(
        &world,
        &Change::DeleteRole {
            role_id: "r-engineering".into(),
        },
    );
    // Ivan's own rule decided already in this mode: nothing moves for him.
    assert!(
        effect.lines.iter().all(|line| line.other_mode.is_some()),
        "{effect:#?}"
    );
    let unset = Change::Rule {
        project: 1,
        resource: "project".into(),
        resource_id: Some("1".into()),
        subject: Subject::Member("m-ivan".into()),
        level: None,
    };
    let effect = preview(&world, &unset);
    assert_eq!(effect.lines.len(), 1);
    assert_eq!(
        effect.lines[0].what(),
        "project member → admin in Hedgebox Web (1)"
    );
    assert_eq!(effect.lines[0].because, "the rule of Engineering (admin)");
    assert!(!effect.lines[0].loses);
}

#[test]
fn the_switch_names_the_rule_and_the_fix() {
    let found = switch(&web(Some(Mode::HighestWins)));
    assert_eq!((found.from, found.to), ("highest-wins", "most-specific"));
    // Ivan: admin by Engineering today, member by his own rule after.
    assert_eq!(found.lines.len(), 1, "{found:#?}");
    let ivan = &found.lines[0];
    assert_eq!(
        (ivan.today.as_str(), ivan.after_switch.as_str()),
        ("admin", "member")
    );
    assert_eq!(
        ivan.because,
        "their own rule (member) is more specific than their roles' (admin)"
    );
    assert_eq!(
        ivan.fix,
        "give ivan@hedgebox.dev their own rule: the project admin"
    );
    // Admins bypass rules in both modes.
    assert!(found.lines.iter().all(|line| line.email != "bruno@hedgebox.dev"));
}

#[test]
fn a_locked_terraform_rule_is_named() {
    let mut world = web(Some(Mode::HighestWins));
    world.projects[0].locked = true;
    world.projects[0].rules[1].managed_by = Some("terraform".into());
    let effect = preview(
        &world,
        &Change::DeleteRole {
            role_id: "r-contractors".into(),
        },
    );
    assert_eq!(
        effect.locked,
        ["role Contractors's rule on dashboards (viewer, managed by Terraform) in Hedgebox Web (1)"]
    );
    world.projects[0].locked = false;
    assert!(
        preview(
            &world,
            &Change::DeleteRole {
                role_id: "r-contractors".into()
            }
        )
        .locked
        .is_empty()
    );
}

#[test]
fn a_preview_cut_builds_only_the_rows_it_shows_and_counts_the_rest() {
    let mut world = web(Some(Mode::HighestWins));
    world
        .people
        .extend((0..30).map(|n| person(&format!("p{n:02}"), 1)));
    // Everyone's dashboards editor → viewer: each member but the owner
    // and Ivan (admin through Engineering) loses it.
    let change = Change::Rule {
        project: 1,
        resource: "dashboard".into(),
        resource_id: None,
        subject: Subject::Everyone,
        level: Some(AccessLevel::Viewer),
    };
    let effect = preview(&world, &change);
    let whole = told::text(&effect, "Who:");
    let lines = whole.lines().count();
    assert!(lines > 20, "{whole}");
    // Nothing cut: the same words as the CLI's.
    assert_eq!(told::text_cut(&effect, "Who:", usize::MAX, |_| 1), whole);
    assert_eq!(told::text_cut(&effect, "Who:", lines, |_| 1), whole);
    // Ten rows: three of heading, six lines, and the rest counted.
    let cut = told::text_cut(&effect, "Who:", 10, |_| 1);
    assert_eq!(cut.lines().count(), 10, "{cut}");
    assert_eq!(
        cut.lines().take(9).collect::<Vec<_>>(),
        whole.lines().take(9).collect::<Vec<_>>()
    );
    assert_eq!(
        cut.lines().last(),
        Some(format!("  … and {} more lines", lines - 9).as_str())
    );
    // A line taking two rows (a popup wraps it) leaves room for fewer.
    let cut = told::text_cut(
        &effect,
        "Who:",
        10,
        |line| {
            if line.starts_with("  - ") { 2 } else { 1 }
        },
    );
    assert_eq!(cut.lines().count(), 7, "{cut}");
}
