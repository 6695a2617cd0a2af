//! The command line's parsing and completion, checked: the order of the
//! commands, each command's arguments, and what Tab offers.

use super::*;

#[test]
fn the_screens_names_stand_where_completion_and_help_always_listed_them() {
    let names: Vec<&str> = commands().into_iter().map(|(name, _)| name).collect();
    assert_eq!(
        names,
        [
            "roles",
            "role",
            "members",
            "subs",
            "subscriptions",
            "sub",
            "health",
            "people",
            "no-role",
            "has-role",
            "who",
            "deliveries",
            "state",
            "target",
            "delivers",
            "org",
            "project",
            "access",
            "switch-preview",
            "ctx",
            "bulk",
            "q",
            "quit",
        ]
    );
    for (name, screen) in [
        ("roles", ScreenId::Roles),
        ("members", ScreenId::Members),
        ("subscriptions", ScreenId::Subscriptions),
        ("deliveries", ScreenId::Deliveries),
        ("switch-preview", ScreenId::Switch),
        ("health", ScreenId::Health),
    ] {
        assert_eq!(parse(name), Ok(Command::Show(screen)), ":{name}");
    }
    assert_eq!(parse("people"), Ok(Command::People));
    assert_eq!(parse("access"), Ok(Command::Access(None)));
    assert_eq!(
        parse("access Hedgebox Web dashboard"),
        Ok(Command::Access(Some("Hedgebox Web dashboard".into())))
    );
    let aliases: Vec<&str> = names.into_iter().filter(|name| is_alias(name)).collect();
    assert_eq!(aliases, ["subscriptions", "quit"]);
}

#[test]
fn commands_parse() {
    assert_eq!(parse("subs"), Ok(Command::Show(ScreenId::Subscriptions)));
    assert_eq!(parse(" org  1234 "), Ok(Command::Organization("1234".into())));
    assert_eq!(parse("project @current"), Ok(Command::Project("@current".into())));
    assert_eq!(parse(""), Ok(Command::Nothing));
    assert_eq!(parse("org"), Ok(Command::PickOrganization));
    assert_eq!(parse(" project "), Ok(Command::PickProject));
    assert_eq!(parse("ctx"), Ok(Command::PickProfile));
    assert_eq!(parse("ctx cloud"), Ok(Command::Profile("cloud".into())));
    assert_eq!(parse("ctx  my cloud "), Ok(Command::Profile("my cloud".into())));
    assert!(parse("org a b").unwrap_err().contains("one argument"));
    assert!(parse("frob").unwrap_err().contains("not a command"));
}

#[test]
fn has_role_completes_the_role_s_name_in_any_case() {
    let names: Vec<String> = ["Data", "Design", "Engineering"].map(String::from).to_vec();
    let complete_with = |typed: &str, names: &[String]| complete(typed, Known { roles: names });
    assert_eq!(
        complete_with("has-role e", &names),
        Some("has-role Engineering".into())
    );
    assert_eq!(complete_with("has-role d", &names), Some("has-role D".into()));
    assert_eq!(complete_with("has-role da", &names), Some("has-role Data".into()));
    assert_eq!(complete_with("has-role Data", &names), None);
    assert_eq!(complete_with("has-r", &names), Some("has-role ".into()));
    assert_eq!(
        parse("has-role Customer Success"),
        Ok(Command::HasRole("Customer Success".into()))
    );
    assert!(parse("has-role").is_err());
    assert_eq!(parse("no-role"), Ok(Command::NoRole));
}

#[test]
fn completion_goes_as_far_as_the_candidates_agree() {
    let none = Known::default();
    assert_eq!(complete("r", none), Some("role".into()));
    assert_eq!(complete("roles", none), None, "roles is whole; role is shorter");
    assert_eq!(complete("su", none), Some("sub".into()));
    assert_eq!(
        complete("subs", none),
        None,
        "subs and subscriptions: nothing more in common"
    );
    assert_eq!(complete("pr", none), Some("project ".into()));
    assert_eq!(complete("p", none), None, "people and project");
    assert_eq!(complete("x", none), None);
    assert_eq!(candidates("q", none).len(), 2);
    assert_eq!(complete("d", none), Some("deliver".into()));
    assert_eq!(complete("deliveri", none), Some("deliveries ".into()));
    assert_eq!(
        parse("state overdue"),
        Ok(Command::State(Some(crate::api::SubscriptionState::Overdue)))
    );
    assert_eq!(parse("state"), Ok(Command::State(None)));
    assert_eq!(
        parse("state unsupported"),
        Ok(Command::State(Some(crate::api::SubscriptionState::Unsupported)))
    );
    assert!(
        parse("state sleeping")
            .unwrap_err()
            .contains("active, paused, overdue, ended, deleted or unsupported")
    );
    assert_eq!(parse("target slack"), Ok(Command::Target(Some("slack".into()))));
    assert!(parse("target webhook").is_err());
    assert_eq!(
        parse("delivers ai"),
        Ok(Command::Delivers(Some("ai_prompt".into())))
    );
}

#[test]
fn arguments_complete_too_from_fixed_words_and_known_names() {
    let roles = [
        "Engineering".to_string(),
        "On-call".to_string(),
        "Data".to_string(),
    ];
    let known = Known { roles: &roles };
    assert_eq!(complete("state pa", known), Some("state paused".into()));
    assert_eq!(complete("state ", known), None, "seven states agree on nothing");
    assert_eq!(candidates("state ", known).len(), 7);
    assert_eq!(complete("target s", known), Some("target slack".into()));
    assert_eq!(complete("delivers D", known), Some("delivers dashboard".into()));
    assert_eq!(complete("role on", known), Some("role On-call".into()));
    assert_eq!(complete("role e", known), Some("role Engineering".into()));
    assert!(candidates("role x", known).is_empty());
    assert!(candidates("org a", known).is_empty());
    assert_eq!(parse("sub 42"), Ok(Command::Subscription(42)));
    assert_eq!(parse("sub #7"), Ok(Command::Subscription(7)));
    assert!(parse("sub many").unwrap_err().contains("a number"));
    assert_eq!(parse("role  On call "), Ok(Command::Role("On call".into())));
}

#[test]
fn who_takes_a_kind_and_a_name_with_its_spaces_and_tab_completes_the_kind() {
    use crate::access::who::Thing;
    let none = Known::default();
    assert_eq!(
        parse("who"),
        Ok(Command::Who {
            project: None,
            thing: Thing::Project
        })
    );
    assert_eq!(
        parse("who project 2"),
        Ok(Command::Who {
            project: Some("2".into()),
            thing: Thing::Project
        })
    );
    assert_eq!(
        parse("who dashboard  Board pack "),
        Ok(Command::Who {
            project: None,
            thing: Thing::Dashboard("Board pack".into())
        })
    );
    assert_eq!(
        parse("who flag new-checkout"),
        Ok(Command::Who {
            project: None,
            thing: Thing::FeatureFlag("new-checkout".into())
        })
    );
    assert_eq!(
        parse("who insight abc123"),
        Ok(Command::Who {
            project: None,
            thing: Thing::Insight("abc123".into())
        })
    );
    assert!(parse("who dashboard").unwrap_err().contains("its name or id"));
    assert!(
        parse("who notebook x")
            .unwrap_err()
            .contains("Tab completes the kind")
    );
    assert!(parse("who project 1 2").is_err());
    assert_eq!(complete("who d", none), Some("who dashboard".into()));
    assert_eq!(complete("who f", none), Some("who flag".into()));
    assert_eq!(complete("wh", none), Some("who ".into()));
    assert_eq!(candidates("who ", none).len(), 4);
}

#[test]
fn history_walks_back_and_returns_to_what_was_typed() {
    let mut history = History::default();
    assert_eq!(history.older("x"), None);
    history.push("state paused");
    history.push("state paused");
    history.push(" ");
    history.push("sub 42");
    assert_eq!(history.older("half"), Some("sub 42"));
    assert_eq!(history.older("ignored"), Some("state paused"));
    assert_eq!(history.older("ignored"), None, "no older line");
    assert_eq!(history.newer(), Some("sub 42"));
    assert_eq!(history.newer(), Some("half"), "back to what was typed");
    assert_eq!(history.newer(), None);
    for n in 0..150 {
        history.push(&format!("sub {n}"));
    }
    let mut seen = 0;
    while history.older("").is_some() {
        seen += 1;
    }
    assert_eq!(seen, 100);
}
