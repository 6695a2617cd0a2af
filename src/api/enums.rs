//! Enumerated string fields of subscriptions.
//!
//! Each enum knows the values compat.md lists and keeps any other value a
//! server sends in `Other`, so that a newer server never breaks decoding.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Declares a string enum with known values, an `Other(String)` fallback,
/// `as_str`, `Display`, `FromStr` (known values only) and serde.
macro_rules! string_enum {
    ($(#[$meta:meta])* $name:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $name {
            $($variant,)+
            /// A value this version does not know.
            Other(String),
        }

        impl $name {
            /// Every known value, in their natural order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub fn as_str(&self) -> &str {
                match self {
                    $($name::$variant => $text,)+
                    $name::Other(text) => text,
                }
            }

            /// Parses any text, keeping unknown values in `Other`.
            pub fn from_wire(text: &str) -> Self {
                text.parse().unwrap_or_else(|_| $name::Other(text.to_string()))
            }

            pub fn is_known(&self) -> bool {
                !matches!(self, $name::Other(_))
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $name {
            type Err = UnknownValue;

            /// Accepts the known values only.
            fn from_str(text: &str) -> Result<Self, Self::Err> {
                match text {
                    $($text => Ok($name::$variant),)+
                    _ => Err(UnknownValue(text.to_string())),
                }
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = String::deserialize(deserializer)?;
                Ok($name::from_wire(&text))
            }
        }
    };
}

pub(crate) use string_enum;

/// A value outside an enum's known set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("\"{0}\" is not a valid choice.")]
pub struct UnknownValue(pub String);

string_enum!(
    /// Where a subscription delivers.
    TargetType {
        Email => "email",
        Slack => "slack",
        Webhook => "webhook",
    }
);

string_enum!(
    /// What a subscription delivers (posthog.md 8.1), derived by the server:
    /// an insight, a dashboard, or an AI report from a prompt.
    ResourceType {
        Insight => "insight",
        Dashboard => "dashboard",
        AiPrompt => "ai_prompt",
    }
);

string_enum!(
    /// What started a delivery (posthog.md 9).
    TriggerType {
        Scheduled => "scheduled",
        TargetChange => "target_change",
        Manual => "manual",
    }
);

string_enum!(
    /// How a delivery went (posthog.md 9).
    DeliveryStatus {
        Starting => "starting",
        Completed => "completed",
        Failed => "failed",
        Skipped => "skipped",
    }
);

string_enum!(
    /// How a delivery went for one recipient.
    RecipientStatus {
        Success => "success",
        Failed => "failed",
        Partial => "partial",
    }
);

string_enum!(
    /// How often a subscription recurs.
    Frequency {
        Daily => "daily",
        Weekly => "weekly",
        Monthly => "monthly",
        Yearly => "yearly",
    }
);

string_enum!(
    /// A day of the week, as subscriptions name them.
    Weekday {
        Monday => "monday",
        Tuesday => "tuesday",
        Wednesday => "wednesday",
        Thursday => "thursday",
        Friday => "friday",
        Saturday => "saturday",
        Sunday => "sunday",
    }
);

impl Frequency {
    /// The unit of one interval in words ("day", "week", ...).
    pub fn unit(&self) -> Option<&'static str> {
        match self {
            Frequency::Daily => Some("day"),
            Frequency::Weekly => Some("week"),
            Frequency::Monthly => Some("month"),
            Frequency::Yearly => Some("year"),
            Frequency::Other(_) => None,
        }
    }
}

impl Weekday {
    /// The name with a capital first letter ("Monday").
    pub fn capitalised(&self) -> String {
        let text = self.as_str();
        let mut chars = text.chars();
        match chars.next() {
            Some(first) => first.to_uppercase().chain(chars).collect(),
            None => String::new(),
        }
    }

    /// The chrono weekday, for known days.
    pub fn to_chrono(&self) -> Option<chrono::Weekday> {
        Some(match self {
            Weekday::Monday => chrono::Weekday::Mon,
            Weekday::Tuesday => chrono::Weekday::Tue,
            Weekday::Wednesday => chrono::Weekday::Wed,
            Weekday::Thursday => chrono::Weekday::Thu,
            Weekday::Friday => chrono::Weekday::Fri,
            Weekday::Saturday => chrono::Weekday::Sat,
            Weekday::Sunday => chrono::Weekday::Sun,
            Weekday::Other(_) => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_and_unknown_values_round_trip() {
        assert_eq!("weekly".parse::<Frequency>(), Ok(Frequency::Weekly));
        assert!("hourly".parse::<Frequency>().is_err());
        let other: TargetType = serde_json::from_str("\"teams\"").unwrap();
        assert_eq!(other, TargetType::Other("teams".into()));
        assert_eq!(serde_json::to_string(&other).unwrap(), "\"teams\"");
        assert_eq!(Weekday::Friday.capitalised(), "Friday");
    }
}
