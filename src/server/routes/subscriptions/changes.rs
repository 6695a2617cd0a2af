//! What a create or update body asks for, field by field, checked in the
//! serializer's order (api.md 2.6; posthog.md 8.1 for today's fields).

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use super::ai_fields;
use crate::api::{Frequency, SubscriptionContext, TargetType, Weekday};
use crate::server::Flavor;
use crate::server::error::{ApiError, ApiResult};
use crate::server::fields;
use crate::server::store::subscriptions::{SubscriptionValues, TodayFields};

const TITLE_MAX: usize = 100;
const INT32_MAX: i64 = i32::MAX as i64;
/// posthog.md 8.1: a prompt is at most this long once stripped.
pub const PROMPT_MAX: usize = 4000;
const SUMMARY_GUIDE_MAX: usize = 500;

/// The writable fields a body sends: `None` for a field left out; for a
/// nullable field, `Some(None)` for an explicit null.
#[derive(Debug, Clone, Default)]
pub struct Changes {
    pub dashboard: Option<Option<i64>>,
    pub insight: Option<Option<i64>>,
    pub target_type: Option<TargetType>,
    pub target_value: Option<String>,
    pub frequency: Option<Frequency>,
    pub interval: Option<i64>,
    pub byweekday: Option<Option<Vec<Weekday>>>,
    pub bysetpos: Option<Option<i64>>,
    pub count: Option<Option<i64>>,
    pub start_date: Option<DateTime<Utc>>,
    pub until_date: Option<Option<DateTime<Utc>>>,
    pub deleted: Option<bool>,
    pub title: Option<Option<String>>,
    pub invite_message: Option<Option<String>>,
    // Today's PostHog only; the seed flavor ignores them as unknown fields.
    pub enabled: Option<bool>,
    pub integration_id: Option<Option<i64>>,
    pub dashboard_export_insights: Option<Vec<i64>>,
    pub prompt: Option<Option<String>>,
    pub summary_enabled: Option<bool>,
    pub summary_prompt_guide: Option<String>,
    pub ai_prompt_config: Option<Value>,
    pub contexts: Option<Vec<SubscriptionContext>>,
    /// Write-only (posthog.md 15-1): deliver once on this save (`true`),
    /// never (`false`), or as the save itself decides (left out).
    pub send_test_now: Option<bool>,
}

impl Changes {
    /// Reads and checks every field present, in the serializer's order.
    pub fn parse(body: &Map<String, Value>, flavor: Flavor) -> ApiResult<Changes> {
        let bysetpos = match flavor {
            // compat.md: a non-zero position within a year.
            Flavor::Seed => {
                let bysetpos = fields::ranged_integer(body, "bysetpos", -366, 366)?.nullable();
                if bysetpos == Some(Some(0)) {
                    return Err(ApiError::validation(
                        "invalid_input",
                        "bysetpos must be a non-zero integer from -366 to 366.",
                    )
                    .on("bysetpos"));
                }
                bysetpos
            }
            // posthog.md 8.1: any 32-bit integer.
            Flavor::Current => {
                fields::ranged_integer(body, "bysetpos", -INT32_MAX - 1, INT32_MAX)?.nullable()
            }
        };
        let mut changes = Changes {
            dashboard: fields::integer(body, "dashboard")?.nullable(),
            insight: fields::integer(body, "insight")?.nullable(),
            ..Changes::default()
        };
        if flavor == Flavor::Current {
            changes.dashboard_export_insights = export_insights(body)?;
            changes.prompt = prompt(body)?;
            changes.ai_prompt_config = ai_fields::ai_prompt_config(body)?;
        }
        changes.target_type = fields::choice(body, "target_type")?.not_null("target_type")?;
        changes.target_value =
            fields::checked_string(body, "target_value", None, false)?.not_null("target_value")?;
        changes.frequency = fields::choice(body, "frequency")?.not_null("frequency")?;
        changes.interval = fields::ranged_integer(body, "interval", 1, INT32_MAX)?.not_null("interval")?;
        changes.byweekday = fields::choice_list(body, "byweekday")?
            .nullable()
            .map(|days| days.map(each_day_once));
        changes.bysetpos = bysetpos;
        changes.count = fields::ranged_integer(body, "count", 1, INT32_MAX)?.nullable();
        changes.start_date = fields::datetime(body, "start_date")?.not_null("start_date")?;
        changes.until_date = fields::datetime(body, "until_date")?.nullable();
        changes.deleted = fields::boolean(body, "deleted")?.not_null("deleted")?;
        if flavor == Flavor::Current {
            changes.enabled = fields::boolean(body, "enabled")?.not_null("enabled")?;
        }
        changes.title = fields::checked_string(body, "title", Some(TITLE_MAX), true)?.nullable();
        if flavor == Flavor::Current {
            changes.integration_id = fields::integer(body, "integration_id")?.nullable();
        }
        changes.invite_message = fields::checked_string(body, "invite_message", None, true)?.nullable();
        if flavor == Flavor::Current {
            changes.summary_enabled =
                fields::boolean(body, "summary_enabled")?.not_null("summary_enabled")?;
            changes.summary_prompt_guide =
                fields::checked_string(body, "summary_prompt_guide", Some(SUMMARY_GUIDE_MAX), true)?
                    .not_null("summary_prompt_guide")?;
            changes.send_test_now = fields::boolean(body, "send_test_now")?.not_null("send_test_now")?;
            changes.contexts = ai_fields::contexts(body)?;
        }
        Ok(changes)
    }

    /// The values of a new subscription: compat.md's four required fields,
    /// and in today's PostHog `interval` too.
    pub fn into_new(self, flavor: Flavor) -> ApiResult<SubscriptionValues> {
        let required = |name: &str| ApiError::required(name);
        let target_type = self.target_type.clone().ok_or_else(|| required("target_type"))?;
        let target_value = self
            .target_value
            .clone()
            .ok_or_else(|| required("target_value"))?;
        let frequency = self.frequency.clone().ok_or_else(|| required("frequency"))?;
        let interval = match (self.interval, flavor) {
            (Some(interval), _) => interval,
            (None, Flavor::Seed) => 1,
            (None, Flavor::Current) => return Err(required("interval")),
        };
        let start_date = self.start_date.ok_or_else(|| required("start_date"))?;
        let defaults = TodayFields::default();
        Ok(SubscriptionValues {
            target_type,
            target_value,
            frequency,
            start_date,
            dashboard: self.dashboard.flatten(),
            insight: self.insight.flatten(),
            interval,
            byweekday: self.byweekday.flatten(),
            bysetpos: self.bysetpos.flatten(),
            count: self.count.flatten(),
            until_date: self.until_date.flatten(),
            deleted: self.deleted.unwrap_or(false),
            title: self.title.flatten(),
            invite_message: self.invite_message.flatten(),
            today: TodayFields {
                enabled: self.enabled.unwrap_or(defaults.enabled),
                integration_id: self.integration_id.flatten(),
                dashboard_export_insights: self.dashboard_export_insights.unwrap_or_default(),
                prompt: self.prompt.flatten(),
                summary_enabled: self.summary_enabled.unwrap_or(defaults.summary_enabled),
                summary_prompt_guide: self.summary_prompt_guide.unwrap_or_default(),
                ai_prompt_config: self.ai_prompt_config.unwrap_or(defaults.ai_prompt_config),
                contexts: self.contexts.unwrap_or_default(),
            },
        })
    }

    /// The stored values with these changes applied.
    pub fn apply(self, stored: SubscriptionValues) -> SubscriptionValues {
        let today = stored.today;
        SubscriptionValues {
            dashboard: self.dashboard.unwrap_or(stored.dashboard),
            insight: self.insight.unwrap_or(stored.insight),
            target_type: self.target_type.unwrap_or(stored.target_type),
            target_value: self.target_value.unwrap_or(stored.target_value),
            frequency: self.frequency.unwrap_or(stored.frequency),
            interval: self.interval.unwrap_or(stored.interval),
            byweekday: self.byweekday.unwrap_or(stored.byweekday),
            bysetpos: self.bysetpos.unwrap_or(stored.bysetpos),
            count: self.count.unwrap_or(stored.count),
            start_date: self.start_date.unwrap_or(stored.start_date),
            until_date: self.until_date.unwrap_or(stored.until_date),
            deleted: self.deleted.unwrap_or(stored.deleted),
            title: self.title.unwrap_or(stored.title),
            invite_message: self.invite_message.unwrap_or(stored.invite_message),
            today: TodayFields {
                enabled: self.enabled.unwrap_or(today.enabled),
                integration_id: self.integration_id.unwrap_or(today.integration_id),
                dashboard_export_insights: self
                    .dashboard_export_insights
                    .unwrap_or(today.dashboard_export_insights),
                prompt: self.prompt.unwrap_or(today.prompt),
                summary_enabled: self.summary_enabled.unwrap_or(today.summary_enabled),
                summary_prompt_guide: self.summary_prompt_guide.unwrap_or(today.summary_prompt_guide),
                ai_prompt_config: self.ai_prompt_config.unwrap_or(today.ai_prompt_config),
                contexts: self.contexts.unwrap_or(today.contexts),
            },
        }
    }
}

/// `dashboard_export_insights`: a list of integers (posthog.md 8.2-5's
/// field-type errors).
fn export_insights(body: &Map<String, Value>) -> ApiResult<Option<Vec<i64>>> {
    const FIELD: &str = "dashboard_export_insights";
    let Some(value) = body.get(FIELD) else {
        return Ok(None);
    };
    let invalid = |detail: &str| ApiError::validation("invalid_input", detail).on(FIELD);
    match value {
        Value::Null => Ok(Some(Vec::new())),
        Value::Array(items) => items
            .iter()
            .map(|item| {
                item.as_i64()
                    .ok_or_else(|| invalid("All items must be integers."))
            })
            .collect::<ApiResult<Vec<i64>>>()
            // Each insight once, where it first stands: PostHog checks the
            // distinct ones, and repeats kept would let one write store a
            // list as long as the body allows.
            .map(|ids| {
                let mut seen = std::collections::HashSet::new();
                Some(ids.into_iter().filter(|id| seen.insert(*id)).collect())
            }),
        _ => Err(invalid("Expected a list of insight IDs.")),
    }
}

/// `prompt`: stripped, at most 4,000 characters; blank is none.
fn prompt(body: &Map<String, Value>) -> ApiResult<Option<Option<String>>> {
    let prompt = fields::checked_string(body, "prompt", None, true)?.nullable();
    match prompt {
        Some(Some(text)) => {
            let text = text.trim().to_string();
            if text.chars().count() > PROMPT_MAX {
                return Err(
                    ApiError::validation("invalid_input", "Prompt cannot exceed 4000 characters.")
                        .on("prompt"),
                );
            }
            Ok(Some((!text.is_empty()).then_some(text)))
        }
        other => Ok(other),
    }
}

/// Each weekday once, where it first stands (the summary names the days
/// in the order sent, as PostHog's does): a repeated day means nothing
/// more to a recurrence, and kept it would let one write store (and every
/// list page then carry, summary included) a list as long as the body
/// allows.
fn each_day_once(days: Vec<Weekday>) -> Vec<Weekday> {
    let mut kept: Vec<Weekday> = Vec::with_capacity(7);
    for day in days {
        if !kept.contains(&day) {
            kept.push(day);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weekdays_are_kept_once_where_they_first_stand() {
        let days = vec![
            Weekday::Friday,
            Weekday::Monday,
            Weekday::Friday,
            Weekday::Monday,
            Weekday::Wednesday,
        ];
        assert_eq!(
            each_day_once(days),
            [Weekday::Friday, Weekday::Monday, Weekday::Wednesday]
        );
        assert_eq!(each_day_once(vec![Weekday::Sunday; 115_000]), [Weekday::Sunday]);
    }
}
