//! The project's subscriptions set aside as they are walked, for
//! `export` and for `plan` and `apply`. The walk comes in the server's
//! order (`-created_at`, posthog.md §4) and the file is ordered by id, so
//! each entry is written, as it arrives, to an unnamed temporary file
//! (owner-only, gone when closed) and only its id and where it lies are
//! held: 24 bytes a subscription against `--max-held-mib`. `export` then
//! writes the file an entry at a time, in id order, each read back from
//! where it lies; `plan` reads back each entry the file names, by id, as
//! it compares them: what either holds no longer grows with the size of
//! each subscription, and nothing but that index grows at all.

use std::collections::HashMap;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::sync::Mutex;

use crate::api::{Client, List, NamedItem, Subscription, SubscriptionFilter};

use super::file::{CodeFile, Names, SubscriptionEntry};
use super::sorted::Sorted;
use crate::cli::output::{self, Format};

/// The subscriptions of a project, set aside: each one's id, offset and
/// length in `file`, in id order.
pub struct Spilled {
    file: Mutex<std::fs::File>,
    index: Vec<(i64, u64, u64)>,
    /// Each insight's short id, from the insights' list and from the
    /// subscriptions that name one: entries read back name their insights
    /// by it.
    shorts: HashMap<i64, String>,
}

impl std::fmt::Debug for Spilled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Spilled")
            .field("subscriptions", &self.index.len())
            .finish_non_exhaustive()
    }
}

/// Each insight's short id as the subscriptions of a walk name it, the
/// first a walk gave kept.
pub type NamedBySubscriptions = HashMap<i64, String>;

impl Spilled {
    /// Reads every subscription of `project` (and its insights' short ids),
    /// setting each aside as its page arrives.
    pub async fn read(client: &Client, project: &str) -> anyhow::Result<Spilled> {
        let insight_list = List::<NamedItem>::insights(project);
        let ((mut spilled, named_by_subscriptions), insights) =
            tokio::try_join!(Spilled::walk(client, project), async {
                anyhow::Ok(client.all(&insight_list, &super::all_options()).await?)
            },)?;
        let mut shorts = HashMap::new();
        for insight in insights {
            if let Some(short) = insight.short_id.filter(|short| !short.is_empty()) {
                shorts.insert(insight.id, short);
            }
        }
        // A subscription names its insight's short id even where the
        // insight list does not.
        for (id, short) in named_by_subscriptions {
            shorts.entry(id).or_insert(short);
        }
        spilled.shorts = shorts;
        Ok(spilled)
    }

    /// Reads every subscription of `project`, setting each aside as its
    /// page arrives; with the short ids of the insights they name. Entries
    /// read back name their insights by id until [`Spilled::name_by`].
    pub async fn walk(client: &Client, project: &str) -> anyhow::Result<(Spilled, NamedBySubscriptions)> {
        let subscription_list = List::subscriptions(project, &SubscriptionFilter::default());
        let mut out = BufWriter::new(tempfile::tempfile()?);
        let mut written = 0u64;
        // Distinct insights only: at most one a subscription, usually far fewer.
        let mut named_by_subscriptions: NamedBySubscriptions = HashMap::new();
        let no_shorts = HashMap::new();
        let found = client
            .gather(
                &subscription_list,
                &super::all_options(),
                |page: Vec<Subscription>| {
                    let mut index = Vec::with_capacity(page.len());
                    for subscription in &page {
                        if let (Some(id), Some(short)) =
                            (subscription.insight, &subscription.insight_short_id)
                        {
                            named_by_subscriptions.entry(id).or_insert_with(|| short.clone());
                        }
                        let entry = super::subscription_entry(subscription, &no_shorts);
                        let bytes = serde_json::to_vec(&entry)?;
                        out.write_all(&bytes)?;
                        index.push((subscription.id, written, bytes.len() as u64));
                        written += bytes.len() as u64;
                    }
                    anyhow::Ok(index)
                },
            )
            .await?;
        let file = out.into_inner().map_err(|error| error.into_error())?;
        let mut index = found.into_vec();
        // Stable: as the entries were ordered when they were held.
        index.sort_by_key(|(id, _, _)| *id);
        let spilled = Spilled {
            file: Mutex::new(file),
            index,
            shorts: HashMap::new(),
        };
        Ok((spilled, named_by_subscriptions))
    }

    /// Entries read back name their insights by these short ids.
    pub fn name_by(&mut self, shorts: HashMap<i64, String>) {
        self.shorts = shorts;
    }

    /// How many subscriptions were read.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Where the subscription `id` stands among them (in id order), if
    /// it was read.
    pub fn place(&self, id: i64) -> Option<usize> {
        // The first of equal ids, as a map built in id order would keep.
        let at = self.index.partition_point(|(found, _, _)| *found < id);
        self.index
            .get(at)
            .filter(|(found, _, _)| *found == id)
            .map(|_| at)
    }

    /// The entry of the subscription `id`, its insights named by short id
    /// where one is known; `None` when it was not read.
    pub fn get(&self, id: i64) -> anyhow::Result<Option<SubscriptionEntry>> {
        self.place(id).map(|place| self.entry(place)).transpose()
    }

    /// The id of the subscription at `place` (in id order); 0 past them.
    pub fn id(&self, place: usize) -> i64 {
        self.index.get(place).map_or(0, |(id, _, _)| *id)
    }

    /// The entry at `place` (in id order; see [`Spilled::place`]).
    pub fn entry(&self, place: usize) -> anyhow::Result<SubscriptionEntry> {
        self.at(place, &mut Vec::new())
    }

    /// The entry at `place` (in id order), read back into `bytes`.
    fn at(&self, place: usize, bytes: &mut Vec<u8>) -> anyhow::Result<SubscriptionEntry> {
        let &(_, offset, length) = self
            .index
            .get(place)
            .ok_or_else(|| anyhow::anyhow!("no subscription was set aside at {place}"))?;
        bytes.resize(usize::try_from(length)?, 0);
        {
            // A poisoned lock held only a file position, set again here.
            let mut file = self.file.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            file.seek(SeekFrom::Start(offset))?;
            file.read_exact(bytes)?;
        }
        let mut entry: SubscriptionEntry = serde_json::from_slice(bytes)?;
        super::name_insights(&mut entry, &self.shorts);
        Ok(entry)
    }

    /// Gives `each` every entry in id order, its insights named by short
    /// id where one is known, one entry held at a time.
    pub fn each(&self, mut each: impl FnMut(&SubscriptionEntry) -> anyhow::Result<()>) -> anyhow::Result<()> {
        let mut bytes = Vec::new();
        for place in 0..self.index.len() {
            each(&self.at(place, &mut bytes)?)?;
        }
        Ok(())
    }
}

/// What `export` set aside to write back as it writes the file: each
/// role's members (beside `file`'s roles, in their order) and the
/// subscriptions.
#[derive(Default)]
pub struct Aside<'a> {
    pub role_members: Option<&'a [Sorted]>,
    pub subscriptions: Option<&'a Spilled>,
}

/// Writes the file: `file` (its subscriptions, if any, an empty list)
/// with each role's members and the subscriptions `aside` holds, byte for
/// byte as [`CodeFile::to_toml`] and [`CodeFile::to_json`] write the whole
/// file, a member and an entry at a time.
pub fn write(
    out: &mut dyn Write,
    format: Format,
    file: &CodeFile,
    names: &Names,
    aside: &Aside<'_>,
) -> anyhow::Result<()> {
    match format {
        Format::Json => {
            let streamed = StreamedFile {
                top: file.to_json(),
                aside,
            };
            output::write_at(&mut &mut *out, &streamed, 0)?;
            out.write_all(b"\n")?;
        }
        Format::Table => {
            file.write_toml_head(names, aside.role_members, out)?;
            if let Some(spilled) = aside.subscriptions {
                spilled.each(|entry| Ok(out.write_all(entry.to_toml().as_bytes())?))?;
            }
        }
    }
    Ok(())
}

/// The file as JSON ([`CodeFile::to_json`], its roles' members and its
/// subscriptions empty), with what was set aside written in their place
/// as it is read back.
struct StreamedFile<'a> {
    top: serde_json::Value,
    aside: &'a Aside<'a>,
}

impl serde::Serialize for StreamedFile<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let serde_json::Value::Object(top) = &self.top else {
            return self.top.serialize(serializer);
        };
        let mut map = serializer.serialize_map(Some(top.len()))?;
        for (key, value) in top {
            match (key.as_str(), value, self.aside) {
                (
                    "roles",
                    serde_json::Value::Array(roles),
                    Aside {
                        role_members: Some(members),
                        ..
                    },
                ) => map.serialize_entry(key, &StreamedRoles { roles, members })?,
                (
                    "subscriptions",
                    _,
                    Aside {
                        subscriptions: Some(spilled),
                        ..
                    },
                ) => map.serialize_entry(key, &StreamedSubscriptions(spilled))?,
                _ => map.serialize_entry(key, value)?,
            }
        }
        map.end()
    }
}

/// The roles, each with its members read back from where they were set
/// aside (`members` beside `roles`).
struct StreamedRoles<'a> {
    roles: &'a [serde_json::Value],
    members: &'a [Sorted],
}

impl serde::Serialize for StreamedRoles<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        let mut roles = serializer.serialize_seq(Some(self.roles.len()))?;
        for (at, role) in self.roles.iter().enumerate() {
            let (serde_json::Value::Object(fields), Some(members)) = (role, self.members.get(at)) else {
                roles.serialize_element(role)?;
                continue;
            };
            struct Role<'a>(&'a serde_json::Map<String, serde_json::Value>, &'a Sorted);
            impl serde::Serialize for Role<'_> {
                fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                    let mut map = serializer.serialize_map(Some(self.0.len()))?;
                    for (key, value) in self.0 {
                        match key.as_str() {
                            "members" => map.serialize_entry(key, &StreamedMembers(self.1))?,
                            _ => map.serialize_entry(key, value)?,
                        }
                    }
                    map.end()
                }
            }
            roles.serialize_element(&Role(fields, members))?;
        }
        roles.end()
    }
}

/// A role's members, read back one at a time.
struct StreamedMembers<'a>(&'a Sorted);

impl serde::Serialize for StreamedMembers<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeSeq};
        let length = usize::try_from(self.0.len()).ok();
        let mut members = serializer.serialize_seq(length)?;
        for member in self.0.read::<String>().map_err(S::Error::custom)? {
            members.serialize_element(&member.map_err(S::Error::custom)?)?;
        }
        members.end()
    }
}

/// The subscriptions, read back one at a time in id order.
struct StreamedSubscriptions<'a>(&'a Spilled);

impl serde::Serialize for StreamedSubscriptions<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeSeq};
        let mut entries = serializer.serialize_seq(Some(self.0.len()))?;
        let mut failed = None;
        let each = self.0.each(|entry| {
            entries.serialize_element(&entry.to_json()).map_err(|error| {
                let said = error.to_string();
                failed = Some(error);
                anyhow::anyhow!(said)
            })
        });
        if let Some(error) = failed {
            return Err(error);
        }
        each.map_err(|error| S::Error::custom(format!("{error:#}")))?;
        entries.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::code::file::{Header, InsightRef, RoleEntry};

    /// Entries set aside in the order a walk gives them.
    fn spilled(entries: &[SubscriptionEntry], shorts: HashMap<i64, String>) -> Spilled {
        let mut out = BufWriter::new(tempfile::tempfile().unwrap());
        let mut index = Vec::new();
        let mut written = 0;
        for entry in entries {
            let bytes = serde_json::to_vec(entry).unwrap();
            out.write_all(&bytes).unwrap();
            index.push((entry.id.unwrap(), written, bytes.len() as u64));
            written += bytes.len() as u64;
        }
        index.sort_by_key(|(id, _, _)| *id);
        Spilled {
            file: Mutex::new(out.into_inner().unwrap()),
            index,
            shorts,
        }
    }

    #[test]
    fn the_streamed_file_is_the_whole_file_byte_for_byte() {
        let entry = |id: i64, insight: Option<InsightRef>, title: &str| SubscriptionEntry {
            id: Some(id),
            title: Some(title.into()),
            insight,
            export_insights: vec![InsightRef::Id(7), InsightRef::Short("s8".into())],
            target_type: "email".into(),
            target_value: "a@b.c,\u{202e}d@e.f".into(),
            frequency: "weekly".into(),
            interval: 2,
            byweekday: vec!["monday".into(), "friday".into()],
            start_date: "2026-01-05T09:00:00Z".into(),
            until_date: Some("2027-01-05T09:00:00Z".into()),
            enabled: id % 2 == 0,
            summary: Some("sent\nweekly \u{1b}[31m".into()),
            next_delivery: Some("2026-01-12T09:00:00Z".into()),
            ..SubscriptionEntry::default()
        };
        // As walked: newest first, not by id; one insight named by id only.
        let walked = vec![
            entry(30, Some(InsightRef::Id(7)), "third \"quoted\""),
            entry(4, Some(InsightRef::Id(99)), "fourth\u{9b}"),
            entry(12, None, "twelfth"),
        ];
        let shorts = HashMap::from([(7, "s7".to_string())]);
        let mut whole = CodeFile {
            header: Header {
                host: "http://127.0.0.1:1".into(),
                organization: "org".into(),
                project: 2,
            },
            roles: Some(vec![RoleEntry {
                id: Some("r1".into()),
                name: "Role".into(),
                ..RoleEntry::default()
            }]),
            subscriptions: None,
            access: None,
            members: Default::default(),
        };
        let mut expected = walked.clone();
        for entry in &mut expected {
            super::super::name_insights(entry, &shorts);
        }
        expected.sort_by_key(|entry| entry.id);
        let names = Names::default();
        for (roles, entries) in [
            (true, walked.clone()),
            (false, walked.clone()),
            (true, Vec::new()),
        ] {
            let mut head = whole.clone();
            if !roles {
                head.roles = None;
            }
            head.subscriptions = Some(Vec::new());
            whole.roles = head.roles.clone();
            whole.subscriptions = Some(if entries.is_empty() {
                Vec::new()
            } else {
                expected.clone()
            });
            for format in [Format::Json, Format::Table] {
                let mut streamed = Vec::new();
                let aside = spilled(&entries, shorts.clone());
                let aside = Aside {
                    role_members: None,
                    subscriptions: Some(&aside),
                };
                write(&mut streamed, format, &head, &names, &aside).unwrap();
                let at_once = match format {
                    Format::Json => crate::text::to_safe_json(&whole.to_json()).unwrap() + "\n",
                    Format::Table => whole.to_toml(&names),
                };
                assert_eq!(String::from_utf8(streamed).unwrap(), at_once, "{format:?}");
            }
        }
        // Without subscriptions at all, the file as before.
        whole.subscriptions = None;
        let mut streamed = Vec::new();
        write(&mut streamed, Format::Table, &whole, &names, &Aside::default()).unwrap();
        assert_eq!(String::from_utf8(streamed).unwrap(), whole.to_toml(&names));
    }

    /// Each role's members read back from where they were set aside, in
    /// TOML and JSON, one a line, sorted and each once: the file reads
    /// back with them.
    #[test]
    fn roles_members_aside_are_written_and_read_back() {
        use crate::cli::code::sorted::Sorter;
        let members = [vec!["b@x.io", "a@x.io", "a@x.io", "c\"\u{202e}@x.io"], vec![]];
        let head = CodeFile {
            header: Header {
                host: "http://127.0.0.1:1".into(),
                organization: "org".into(),
                project: 2,
            },
            roles: Some(
                (0..members.len())
                    .map(|at| RoleEntry {
                        id: Some(format!("r{at}")),
                        name: format!("Role {at}"),
                        feature_flags_access_level: Some(21),
                        ..RoleEntry::default()
                    })
                    .collect(),
            ),
            subscriptions: None,
            access: None,
            members: Default::default(),
        };
        let aside: Vec<Sorted> = members
            .iter()
            .map(|emails| {
                let mut sorter = Sorter::new(1);
                for email in emails {
                    sorter.push(email.to_string()).unwrap();
                }
                sorter.finish().unwrap().set_aside().unwrap()
            })
            .collect();
        let names = Names::default();
        for format in [Format::Json, Format::Table] {
            let mut streamed = Vec::new();
            let held = Aside {
                role_members: Some(&aside),
                subscriptions: None,
            };
            write(&mut streamed, format, &head, &names, &held).unwrap();
            let text = String::from_utf8(streamed).unwrap();
            if format == Format::Table {
                assert!(
                    text.contains("members = [\n  \"a@x.io\",\n  \"b@x.io\",\n  \"c\\\"\\u202E@x.io\",\n]\n"),
                    "{text}"
                );
                assert!(text.contains("members = []\n"), "{text}");
            }
            let back = crate::cli::code::file::parse(&text).unwrap();
            assert_eq!(
                back.members.written(0),
                ["a@x.io", "b@x.io", "c\"\u{202e}@x.io"],
                "{format:?}"
            );
            assert!(back.members.written(1).is_empty());
            assert_eq!(back.roles.unwrap().len(), 2);
        }
    }
}
