//! The detail pane: every field of the selected row, nested users and
//! members readable, the next deliveries of a subscription, or the raw JSON
//! (`v`).

use crate::api::SubscriptionState;
use crate::text::printable;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph, Wrap};

use super::format::{access_level, level, next_delivery, relative, when};
use super::theme::Theme;
use crate::api::{ListOrText, OrganizationMember, Role, RoleMembership, Subscription, User};
use crate::console::app::{App, ListId};
use crate::console::rows::Tabular;
use crate::schedule::Schedule;

/// Deliveries listed for a subscription.
const UPCOMING: usize = 5;

pub fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let (title, lines) = match app.shown() {
        ListId::Roles => lines_of(app.roles.selected(), app.detail_json, theme, role),
        ListId::Members => lines_of(app.members.selected(), app.detail_json, theme, membership),
        ListId::Subscriptions => {
            let now = app.now;
            lines_of(
                app.subscriptions.selected(),
                app.detail_json,
                theme,
                |s, theme| subscription(s, theme, now),
            )
        }
    };
    let view = if app.detail_json {
        "JSON (v: fields)"
    } else {
        "fields (v: JSON)"
    };
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .title(Line::from(vec![
            Span::styled(format!(" {} ", printable(&title)), theme.accent),
            Span::styled(format!("{view} "), theme.dim),
        ]));
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false })
            .scroll((app.detail_scroll, 0)),
        area,
    );
}

fn lines_of<'a, T: Tabular>(
    selected: Option<&'a T>,
    json: bool,
    theme: &Theme,
    fields: impl Fn(&'a T, &Theme) -> (String, Vec<Line<'static>>),
) -> (String, Vec<Line<'static>>) {
    match selected {
        None => (
            "detail".into(),
            vec![Line::styled(" nothing selected", theme.dim)],
        ),
        Some(row) if json => (
            format!("#{}", row.id()),
            row.json()
                .lines()
                .map(|line| Line::raw(printable(line).into_owned()))
                .collect(),
        ),
        Some(row) => fields(row, theme),
    }
}

fn field(name: &str, value: impl Into<String>, theme: &Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!(" {name:<15}"), theme.dim),
        Span::raw(printable(&value.into()).into_owned()),
    ])
}

fn heading(text: &str, theme: &Theme) -> Line<'static> {
    Line::styled(format!(" {text}"), theme.accent)
}

fn user_lines(user: &User, theme: &Theme) -> Vec<Line<'static>> {
    vec![
        field("  name", user.display_name(), theme),
        field("  email", user.email.clone(), theme),
        field("  user id", format!("{} ({})", user.id, user.uuid), theme),
        field(
            "  verified",
            user.is_email_verified
                .map(|v| if v { "yes" } else { "no" })
                .unwrap_or("-"),
            theme,
        ),
    ]
}

fn optional(value: Option<impl ToString>) -> String {
    value.map(|v| v.to_string()).unwrap_or_else(|| "-".into())
}

fn role(role: &Role, theme: &Theme) -> (String, Vec<Line<'static>>) {
    let mut lines = vec![
        field("id", role.id.clone(), theme),
        field("name", role.name.clone(), theme),
        field(
            "access level",
            role.feature_flags_access_level
                .map(|level| format!("{} ({level})", access_level::name(level)))
                .unwrap_or_else(|| "-".into()),
            theme,
        ),
        field("created at", when(role.created_at), theme),
    ];
    if let Some(user) = &role.created_by {
        lines.push(heading("created by", theme));
        lines.extend(user_lines(user, theme));
    }
    match &role.members {
        Some(ListOrText::List(members)) => {
            lines.push(heading(&format!("members ({})", members.len()), theme));
            for membership in members {
                let user = membership.user.clone().unwrap_or_default();
                lines.push(Line::raw(format!("   {} <{}>", user.display_name(), user.email)));
            }
        }
        Some(ListOrText::Text(text)) => lines.push(field("members", text.clone(), theme)),
        _ => {}
    }
    if let Some(ListOrText::List(flags)) = &role.associated_flags {
        let keys: Vec<&str> = flags.iter().map(|flag| flag.key.as_str()).collect();
        lines.push(field(
            "feature flags",
            if keys.is_empty() {
                "-".into()
            } else {
                keys.join(", ")
            },
            theme,
        ));
    }
    (role.name.clone(), lines)
}

fn member_lines(member: &OrganizationMember, theme: &Theme) -> Vec<Line<'static>> {
    vec![
        field("  member id", member.id.clone(), theme),
        field(
            "  level",
            format!("{} ({})", level::name(member.level), member.level),
            theme,
        ),
        field("  joined org", when(member.joined_at), theme),
        field(
            "  2FA",
            optional(member.is_2fa_enabled.map(|v| if v { "on" } else { "off" })),
            theme,
        ),
        field(
            "  social login",
            optional(member.has_social_auth.map(|v| if v { "yes" } else { "no" })),
            theme,
        ),
    ]
}

fn membership(membership: &RoleMembership, theme: &Theme) -> (String, Vec<Line<'static>>) {
    let mut lines = vec![
        field("membership", membership.id.clone(), theme),
        field("role", membership.role_id.clone(), theme),
        field("joined role", when(membership.joined_at), theme),
        field("updated", when(membership.updated_at), theme),
    ];
    let name = membership
        .user
        .as_ref()
        .map(|user| user.display_name())
        .unwrap_or_default();
    if let Some(user) = &membership.user {
        lines.push(heading("user", theme));
        lines.extend(user_lines(user, theme));
    }
    if let Some(member) = &membership.organization_member {
        lines.push(heading("organization member", theme));
        lines.extend(member_lines(member, theme));
    }
    (name, lines)
}

fn subscription(
    subscription: &Subscription,
    theme: &Theme,
    now: chrono::DateTime<chrono::Utc>,
) -> (String, Vec<Line<'static>>) {
    let state = subscription.state(now);
    let state_line = match state {
        SubscriptionState::Overdue => Line::from(vec![
            Span::styled(format!(" {:<15}", "state"), theme.dim),
            Span::styled("OVERDUE: the next delivery is past and was not sent", theme.error),
        ]),
        SubscriptionState::Paused => Line::from(vec![
            Span::styled(format!(" {:<15}", "state"), theme.dim),
            Span::styled("PAUSED: nothing is delivered until it is resumed", theme.warning),
        ]),
        other => field("state", other.as_str(), theme),
    };
    let mut lines = vec![
        field("id", subscription.id.to_string(), theme),
        field("title", optional(subscription.title.clone()), theme),
        state_line,
        field(
            "target",
            format!(
                "{} {}",
                optional(subscription.target_type.clone()),
                optional(subscription.target_value.clone())
            ),
            theme,
        ),
        field("dashboard", optional(subscription.dashboard), theme),
        field("insight", optional(subscription.insight), theme),
        field("schedule", optional(subscription.summary.clone()), theme),
        field(
            "rule",
            format!(
                "{} every {} · days {} · position {} · count {}",
                optional(subscription.frequency.clone()),
                optional(subscription.interval),
                subscription
                    .byweekday
                    .as_ref()
                    .map(|days| days.iter().map(|d| d.as_str()).collect::<Vec<_>>().join(","))
                    .unwrap_or_else(|| "-".into()),
                optional(subscription.bysetpos),
                optional(subscription.count),
            ),
            theme,
        ),
        field("starts", when(subscription.start_date), theme),
        field("until", when(subscription.until_date), theme),
        field(
            "next delivery",
            next_delivery(subscription.next_delivery_date, now),
            theme,
        ),
        field(
            "invite message",
            optional(subscription.invite_message.clone()),
            theme,
        ),
        field("created", when(subscription.created_at), theme),
        field(
            "deleted",
            if subscription.deleted {
                "yes (soft-deleted)"
            } else {
                "no"
            },
            theme,
        ),
    ];
    if let Some(user) = &subscription.created_by {
        lines.push(heading("created by", theme));
        lines.extend(user_lines(user, theme));
    }
    lines.push(heading(&format!("next {UPCOMING} deliveries"), theme));
    let upcoming = Schedule::of(subscription)
        .map(|schedule| schedule.occurrences_after(now, UPCOMING))
        .unwrap_or_default();
    if upcoming.is_empty() {
        lines.push(Line::styled("   none left in the schedule", theme.warning));
    }
    for at in upcoming {
        lines.push(Line::raw(format!("   {}  {}", when(Some(at)), relative(at, now))));
    }
    (format!("#{}", subscription.id), lines)
}
