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

/// Writes the file: `file` (its subscriptions, if any, an empty list)
/// with the subscriptions `spilled` holds, byte for byte as
/// [`CodeFile::to_toml`] and [`CodeFile::to_json`] write the whole file,
/// an entry at a time.
pub fn write(
    out: &mut dyn Write,
    format: Format,
    file: &CodeFile,
    names: &Names,
    spilled: Option<&Spilled>,
) -> anyhow::Result<()> {
    match (format, spilled) {
        (Format::Json, Some(spilled)) if spilled.len() > 0 => {
            let head = crate::text::to_safe_json(&file.to_json())?;
            // The subscriptions are the last key, an empty list: `[]` then
            // the object's end. The entries go in it, laid out two deep.
            let open = head
                .strip_suffix("[]\n}")
                .ok_or_else(|| anyhow::anyhow!("the file's subscriptions are not its last key"))?;
            out.write_all(open.as_bytes())?;
            out.write_all(b"[")?;
            let mut first = true;
            spilled.each(|entry| {
                out.write_all(if first { b"\n    " } else { b",\n    " })?;
                first = false;
                output::write_at(&mut &mut *out, &entry.to_json(), 2)?;
                Ok(())
            })?;
            out.write_all(b"\n  ]\n}\n")?;
        }
        (Format::Json, _) => {
            out.write_all(crate::text::to_safe_json(&file.to_json())?.as_bytes())?;
            out.write_all(b"\n")?;
        }
        (Format::Table, spilled) => {
            file.write_toml_head(names, out)?;
            if let Some(spilled) = spilled {
                spilled.each(|entry| Ok(out.write_all(entry.to_toml().as_bytes())?))?;
            }
        }
    }
    Ok(())
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
                members: vec!["a@b.c".into()],
                ..RoleEntry::default()
            }]),
            subscriptions: None,
            access: None,
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
                write(&mut streamed, format, &head, &names, Some(&aside)).unwrap();
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
        write(&mut streamed, Format::Table, &whole, &names, None).unwrap();
        assert_eq!(String::from_utf8(streamed).unwrap(), whole.to_toml(&names));
    }
}
