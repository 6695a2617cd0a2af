use super::*;

const PID: &str = "7";

fn rule(resource: &str, id: Option<&str>, subject: Subject, level: AccessLevel) -> Rule {
    Rule {
        resource: resource.into(),
        resource_id: id.map(str::to_string),
        subject,
        level,
    }
}

fn member(id: &str, level: i64, roles: &[&str]) -> Member {
    Member {
        membership_id: id.into(),
        user_id: format!("user-{id}"),
        organization_level: level,
        role_ids: roles.iter().map(|role| role.to_string()).collect(),
    }
}

fn role(id: &str) -> Subject {
    Subject::Role(id.into())
}

fn own(id: &str) -> Subject {
    Subject::Member(id.into())
}

use AccessLevel::{Admin, Editor, Manager, Viewer};
use AccessLevel::{Member as MemberLevel, None as NoAccess};

fn both(rules: &RuleSet) -> [Resolver<'_>; 2] {
    Mode::BOTH.map(|mode| Resolver::new(rules, Plan::default(), mode))
}

#[test]
fn without_rules_the_built_in_default_applies() {
    let rules = RuleSet::default();
    let ada = member("m1", 1, &[]);
    for resolver in both(&rules) {
        let project = resolver
            .object(Principal::Member(&ada), Target::project(PID))
            .unwrap();
        assert_eq!((project.level, project.source), (Admin, Source::SystemDefault));
        let flags = resolver.resource(Principal::Member(&ada), "feature_flag");
        assert_eq!((flags.level, flags.source), (Editor, Source::SystemDefault));
        assert_eq!(
            resolver.resource(Principal::Member(&ada), "toolbar").level,
            Viewer
        );
    }
}

#[test]
fn organization_admins_bypass_every_rule() {
    let rules = RuleSet::new([
        rule("project", Some(PID), Subject::Everyone, NoAccess),
        rule("dashboard", None, Subject::Everyone, NoAccess),
    ]);
    let admin = member("m1", 8, &[]);
    for resolver in both(&rules) {
        let project = resolver
            .object(Principal::Member(&admin), Target::project(PID))
            .unwrap();
        assert_eq!((project.level, project.source), (Admin, Source::OrgAdmin));
        let dashboards = resolver.resource(Principal::Member(&admin), "dashboard");
        assert_eq!((dashboards.level, dashboards.source), (Manager, Source::OrgAdmin));
        // A rule still shows no admin the project through the hidden list.
        assert!(!resolver.project_scoped(Principal::Member(&admin), Target::project(PID)));
    }
}

#[test]
fn an_object_s_creator_has_the_highest_level_on_it() {
    let rules = RuleSet::new([rule("dashboard", Some("5"), Subject::Everyone, NoAccess)]);
    let dev = member("m1", 1, &[]);
    let theirs = Target {
        resource: "dashboard",
        id: "5",
        creator: Some("user-m1"),
    };
    for resolver in both(&rules) {
        let resolved = resolver.object(Principal::Member(&dev), theirs).unwrap();
        assert_eq!((resolved.level, resolved.source), (Manager, Source::Creator));
        assert!(resolver.visible(Principal::Member(&dev), theirs));
        assert!(resolver.can_modify(Principal::Member(&dev), theirs, Target::project(PID)));
    }
}

#[test]
fn an_own_rule_lower_than_a_role_s_differs_between_the_modes() {
    let rules = RuleSet::new([
        rule("project", Some(PID), own("m1"), MemberLevel),
        rule("project", Some(PID), role("eng"), Admin),
    ]);
    let dev = member("m1", 1, &["eng"]);
    let project = Target::project(PID);
    let [highest, specific] = both(&rules);
    let by_role = highest.object(Principal::Member(&dev), project).unwrap();
    assert_eq!(
        (by_role.level, by_role.source, by_role.subject),
        (Admin, Source::Object, Some(SubjectKind::Role))
    );
    let by_own = specific.object(Principal::Member(&dev), project).unwrap();
    assert_eq!(
        (by_own.level, by_own.subject),
        (MemberLevel, Some(SubjectKind::Member))
    );
    // Without their own rule, their role's applies in both modes.
    for resolver in [highest, specific] {
        let inherited = resolver
            .inherited_object(Principal::Member(&dev), project)
            .unwrap();
        assert_eq!(
            (inherited.level, inherited.subject),
            (Admin, Some(SubjectKind::Role))
        );
        assert_eq!(
            resolver.stored(Principal::Member(&dev), "project", Some(PID)),
            Some(MemberLevel)
        );
    }
}

#[test]
fn a_role_rule_below_everyone_s_lowers_access_only_in_the_most_specific_mode() {
    let rules = RuleSet::new([
        rule("dashboard", None, Subject::Everyone, Editor),
        rule("dashboard", None, role("contractors"), Viewer),
    ]);
    let ada = member("m1", 1, &["contractors"]);
    let [highest, specific] = both(&rules);
    let high = highest.resource(Principal::Member(&ada), "dashboard");
    assert_eq!((high.level, high.subject), (Editor, Some(SubjectKind::Default)));
    let low = specific.resource(Principal::Member(&ada), "dashboard");
    assert_eq!(
        (low.level, low.source, low.subject),
        (Viewer, Source::Resource, Some(SubjectKind::Role))
    );
}

#[test]
fn a_resource_rule_beats_the_object_s_rule_for_everyone_when_highest_wins() {
    let rules = RuleSet::new([
        rule("insight", Some("3"), Subject::Everyone, NoAccess),
        rule("insight", None, Subject::Everyone, Viewer),
    ]);
    let ada = member("m1", 1, &[]);
    let target = Target {
        resource: "insight",
        id: "3",
        creator: None,
    };
    let [highest, specific] = both(&rules);
    let resolved = highest.object(Principal::Member(&ada), target).unwrap();
    assert_eq!((resolved.level, resolved.source), (Viewer, Source::Resource));
    let resolved = specific.object(Principal::Member(&ada), target).unwrap();
    assert_eq!((resolved.level, resolved.source), (NoAccess, Source::Object));
}

#[test]
fn an_object_rule_for_a_role_shows_a_dashboard_to_that_role_alone() {
    let rules = RuleSet::new([
        rule("dashboard", Some("9"), Subject::Everyone, NoAccess),
        rule("dashboard", Some("9"), role("finance"), Viewer),
    ]);
    let board = Target {
        resource: "dashboard",
        id: "9",
        creator: None,
    };
    let finance = member("m1", 1, &["finance"]);
    let other = member("m2", 1, &["eng"]);
    let admin = member("m3", 8, &[]);
    for resolver in both(&rules) {
        assert!(resolver.visible(Principal::Member(&finance), board));
        assert!(!resolver.visible(Principal::Member(&other), board));
        // PostHog's lists hide it from admins too: their rules deny it.
        assert!(!resolver.visible(Principal::Member(&admin), board));
        assert_eq!(
            resolver.object(Principal::Member(&other), board).unwrap().level,
            NoAccess
        );
        assert_eq!(
            resolver.object(Principal::Member(&finance), board).unwrap().level,
            Viewer
        );
    }
}

#[test]
fn without_role_based_access_role_rules_are_ignored() {
    let rules = RuleSet::new([
        rule("project", Some(PID), Subject::Everyone, NoAccess),
        rule("project", Some(PID), role("eng"), MemberLevel),
    ]);
    let dev = member("m1", 1, &["eng"]);
    let plan = Plan {
        access_control: true,
        role_based_access: false,
    };
    let resolver = Resolver::new(&rules, plan, Mode::HighestWins);
    let resolved = resolver
        .object(Principal::Member(&dev), Target::project(PID))
        .unwrap();
    assert_eq!(
        (resolved.level, resolved.subject),
        (NoAccess, Some(SubjectKind::Default))
    );
    assert_eq!(
        resolver.stored(Principal::Role("eng"), "project", Some(PID)),
        None
    );
}

#[test]
fn without_access_control_no_rule_is_read() {
    let rules = RuleSet::new([rule("project", Some(PID), Subject::Everyone, NoAccess)]);
    let dev = member("m1", 1, &[]);
    let plan = Plan {
        access_control: false,
        role_based_access: true,
    };
    for mode in Mode::BOTH {
        let resolver = Resolver::new(&rules, plan, mode);
        let resolved = resolver
            .object(Principal::Member(&dev), Target::project(PID))
            .unwrap();
        assert_eq!((resolved.level, resolved.source), (Admin, Source::SystemDefault));
        assert_eq!(
            resolver.stored(Principal::Member(&dev), "project", Some(PID)),
            None
        );
        assert!(
            resolver
                .object_explicit(Principal::Member(&dev), Target::project(PID))
                .is_none()
        );
    }
}

#[test]
fn inherited_resources_resolve_as_their_parent() {
    let rules = RuleSet::new([rule("dashboard", None, Subject::Everyone, Viewer)]);
    let dev = member("m1", 1, &[]);
    for resolver in both(&rules) {
        let resolved = resolver.resource(Principal::Member(&dev), "dashboard_template");
        assert_eq!(
            (resolved.level, resolved.resource.as_str()),
            (Viewer, "dashboard")
        );
    }
}

#[test]
fn everyone_s_project_access_inherits_nothing() {
    let rules = RuleSet::new([rule("project", Some(PID), Subject::Everyone, MemberLevel)]);
    for resolver in both(&rules) {
        assert_eq!(
            resolver.inherited_object(Principal::Everyone, Target::project(PID)),
            None
        );
        let notebook = Target {
            resource: "notebook",
            id: "n1",
            creator: None,
        };
        let inherited = resolver.inherited_object(Principal::Everyone, notebook).unwrap();
        assert_eq!(
            (inherited.level, inherited.source, inherited.resource.as_str()),
            (Editor, Source::SystemDefault, "notebook")
        );
    }
}

#[test]
fn who_may_change_rules() {
    let rules = RuleSet::new([
        rule("project", Some(PID), own("lead"), Admin),
        rule("dashboard", Some("4"), own("owner4"), Manager),
    ]);
    let project = Target::project(PID);
    let dashboard = Target {
        resource: "dashboard",
        id: "4",
        creator: None,
    };
    let lead = member("lead", 1, &[]);
    let manager = member("owner4", 1, &[]);
    let plain = member("plain", 1, &[]);
    let admin = member("admin", 8, &[]);
    for resolver in both(&rules) {
        assert!(resolver.can_modify(Principal::Member(&lead), project, project));
        assert!(resolver.can_modify(Principal::Member(&admin), project, project));
        assert!(!resolver.can_modify(Principal::Member(&plain), project, project));
        assert!(resolver.can_modify(Principal::Member(&manager), dashboard, project));
        assert!(!resolver.can_modify(Principal::Member(&manager), project, project));
        assert!(!resolver.can_modify(Principal::Member(&plain), dashboard, project));
    }
}

#[test]
fn users_with_access_name_their_source() {
    let rules = RuleSet::new([
        rule("notebook", Some("n1"), own("m1"), Viewer),
        rule("notebook", Some("n1"), role("data"), Editor),
        rule("project", Some(PID), own("m3"), Admin),
    ]);
    let notebook = Target {
        resource: "notebook",
        id: "n1",
        creator: Some("user-m4"),
    };
    let project = Target::project(PID);
    let resolver = Resolver::new(&rules, Plan::default(), Mode::HighestWins);
    let source = |who: &Member| resolver.access_source(Principal::Member(who), notebook, project);
    assert_eq!(source(&member("m1", 1, &[])), AccessSource::ExplicitMember);
    assert_eq!(source(&member("m2", 1, &["data"])), AccessSource::ExplicitRole);
    assert_eq!(source(&member("m3", 1, &[])), AccessSource::ProjectAdmin);
    assert_eq!(source(&member("m4", 1, &[])), AccessSource::Creator);
    assert_eq!(source(&member("m5", 8, &[])), AccessSource::OrganizationAdmin);
    assert_eq!(source(&member("m6", 1, &[])), AccessSource::Default);
}

#[test]
fn rule_sets_upsert_and_forget_deleted_roles() {
    let mut rules = RuleSet::new([rule("dashboard", None, role("eng"), Viewer)]);
    rules.insert(rule("dashboard", None, role("eng"), Editor));
    assert_eq!(rules.len(), 1);
    rules.insert(rule("dashboard", Some("1"), role("eng"), NoAccess));
    rules.remove_role("eng");
    assert!(rules.is_empty());
    rules.insert(rule("dashboard", None, Subject::Everyone, Viewer));
    assert!(rules.remove("dashboard", None, &Subject::Everyone).is_some());
    assert!(rules.is_empty());
}
