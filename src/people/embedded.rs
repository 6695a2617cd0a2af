//! The roles of one person read from the members PostHog embeds in each
//! role of its list (posthog.md 5): one walk of the roles list, each role's
//! members decoded as the answer arrives and let go but for that person's,
//! rather than the list (its members cut out unread) and then every role's
//! memberships a page at a time, which read each membership twice.
//!
//! The answer is as large as the organization (some 2 KB a membership:
//! 355 MB for 180,000 people in two roles each), so it is never held: a
//! decoder on a blocking thread reads its chunks as they come and sends
//! back that person's memberships and each role once it ends, with how
//! many members it had. Its bytes are bounded as every answer decoded as
//! it arrives is (`Client::max_fed`). A server that embeds no members in
//! a role, or answers 500 to roles asked a page at a time (older
//! PostHogs), gets `None`, and the caller reads the roles and their
//! memberships as before.

use std::collections::HashSet;
use std::fmt;

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::{RoleIndex, RoleRef};
use crate::api::Client;
use crate::api::chunks::Chunks;
use crate::api::error::{Error, Incomplete, RequestLabel, Result};

/// Roles a page of the list: PostHog's own page size.
const ROLES_PAGE: u64 = 100;

/// Reads of the list that each saw it change before one is taken.
const TRIES: usize = 3;

/// Chunks of the answer and decoded events waiting their turn.
const CHUNKS_AHEAD: usize = 8;
const EVENTS_AHEAD: usize = 64;

/// Bytes the decoder reads from the chunks at a time.
const READ_BUFFER: usize = 64 * 1024;

/// The index of `user` (lower case) alone, from the roles' embedded
/// members, or `None` when a role came without them. `progress` hears
/// (roles read, roles in all) as each role ends.
pub(super) async fn index_of(
    client: &Client,
    organization: &str,
    user: &str,
    progress: &(dyn Fn(usize, usize) + Send + Sync),
) -> Result<Option<RoleIndex>> {
    let mut reads = 0;
    loop {
        reads += 1;
        match walk(client, organization, user, reads, progress).await? {
            Walked::Whole(roles, theirs) => return Ok(roles.map(|roles| index(roles, theirs, user))),
            Walked::Changed(count, changed_to) if reads < TRIES => {
                tracing::info!(
                    reads,
                    count,
                    changed_to,
                    "the roles changed while they were read; reading them again"
                );
            }
            Walked::Changed(count, changed_to) => {
                return Err(incomplete(
                    client,
                    organization,
                    count,
                    0,
                    0,
                    Some(changed_to),
                    reads,
                ));
            }
        }
    }
}

/// The roles list read short, with rows twice, or changing as it was read.
fn incomplete(
    client: &Client,
    organization: &str,
    count: u64,
    rows: u64,
    repeated: u64,
    changed_to: Option<u64>,
    reads: usize,
) -> Error {
    Error::Incomplete(Box::new(Incomplete {
        request: label(client, organization),
        list: "roles".into(),
        count,
        rows,
        repeated,
        changed_to,
        reads,
    }))
}

/// A role of the list, as it ended: its id, name and member count, or
/// `None` for members not embedded.
#[derive(Debug)]
struct Listed {
    id: String,
    name: String,
    members: Option<usize>,
}

/// One membership of the person, in the role at `role` (its place in the
/// list as read).
#[derive(Debug)]
struct Theirs {
    role: usize,
    id: String,
    joined_at: Option<DateTime<Utc>>,
}

enum Walked {
    /// Every role, each once, as many as the count said (`None` when one
    /// came without its members), and the person's memberships.
    Whole(Option<Vec<Listed>>, Vec<Theirs>),
    /// The count of roles changed while they were read: from, to.
    Changed(u64, u64),
}

/// One read of the roles list (the `reads`th), page after page: a list
/// that ends before its count, or sends a role twice, is refused.
async fn walk(
    client: &Client,
    organization: &str,
    user: &str,
    reads: usize,
    progress: &(dyn Fn(usize, usize) + Send + Sync),
) -> Result<Walked> {
    let mut roles: Vec<Listed> = Vec::new();
    let mut theirs = Vec::new();
    let mut count: Option<u64> = None;
    // What the walk keeps (the roles and the person's memberships) is
    // counted against the command's budget as it is kept, and given back
    // once the index is made of it (as the list read whole would be).
    let holding = client.holding();
    let mut held = 0u64;
    let mut refused = false;
    loop {
        let offset = roles.len();
        let page = page(client, organization, user, offset, |event| {
            let size = match &event {
                Event::Theirs(membership) => std::mem::size_of::<Theirs>() + membership.id.len(),
                Event::Role(role) => std::mem::size_of::<Listed>() + role.id.len() + role.name.len(),
            } as u64;
            if !holding.take(size) {
                refused = true;
                return false;
            }
            held += size;
            match event {
                Event::Theirs(membership) => theirs.push(membership),
                Event::Role(role) => {
                    roles.push(role);
                    let total = usize::try_from(count.unwrap_or(0)).unwrap_or(usize::MAX);
                    progress(roles.len(), total.max(roles.len()));
                }
            }
            true
        })
        .await;
        if refused {
            holding.give_back(held);
            return Err(Error::TooMuchHeld {
                request: label(client, organization),
                limit: holding.limit(),
                rows: roles.len() as u64,
            });
        }
        let page = match page {
            Ok(page) => page,
            // An older PostHog answers 500 to its roles asked by `limit`
            // and `offset`: the caller reads them as the list read whole
            // does, asked without them.
            Err(error) if offset == 0 && error.status() == Some(500) => {
                holding.give_back(held);
                return Ok(Walked::Whole(None, Vec::new()));
            }
            Err(error) => {
                holding.give_back(held);
                return Err(error);
            }
        };
        let first = *count.get_or_insert(page.count);
        if first != page.count {
            holding.give_back(held);
            return Ok(Walked::Changed(first, page.count));
        }
        let read = roles.len() - offset;
        if !page.next || read == 0 || roles.len() as u64 >= page.count {
            break;
        }
    }
    holding.give_back(held);
    let count = count.unwrap_or(0);
    let mut ids = HashSet::new();
    let distinct = roles.iter().filter(|role| ids.insert(role.id.as_str())).count() as u64;
    let repeated = roles.len() as u64 - distinct;
    if distinct < count || repeated > 0 {
        return Err(incomplete(
            client,
            organization,
            count,
            distinct,
            repeated,
            None,
            reads,
        ));
    }
    if distinct > count {
        return Err(Error::Decode {
            request: label(client, organization),
            status: 200,
            message: format!("the server sent {distinct} roles where its count said {count}"),
            snippet: String::new(),
        });
    }
    progress(roles.len(), roles.len());
    if roles.iter().any(|role| role.members.is_none()) {
        return Ok(Walked::Whole(None, Vec::new()));
    }
    Ok(Walked::Whole(Some(roles), theirs))
}

/// The index of the person's memberships: the roles by name (then id, as
/// [`RoleIndex::load`] sorts them), each role's size.
fn index(roles: Vec<Listed>, theirs: Vec<Theirs>, user: &str) -> RoleIndex {
    let mut order: Vec<usize> = (0..roles.len()).collect();
    order.sort_by(|&a, &b| {
        roles[a]
            .name
            .to_lowercase()
            .cmp(&roles[b].name.to_lowercase())
            .then(roles[a].id.cmp(&roles[b].id))
    });
    let mut place = vec![0u32; roles.len()];
    for (at, &listed) in order.iter().enumerate() {
        place[listed] = u32::try_from(at).unwrap_or(u32::MAX);
    }
    let mut index = RoleIndex {
        roles: order
            .iter()
            .map(|&listed| RoleRef {
                id: roles[listed].id.clone(),
                name: roles[listed].name.clone(),
            })
            .collect(),
        ..RoleIndex::default()
    };
    for role in &roles {
        index.sizes.insert(role.id.clone(), role.members.unwrap_or(0));
    }
    for membership in theirs {
        index.push(place[membership.role], user, &membership.id, membership.joined_at);
    }
    index.sort();
    index
}

/// What a page said of itself.
#[derive(Debug)]
struct Head {
    count: u64,
    next: bool,
}

/// What the decoder sends back as it reads.
enum Event {
    Theirs(Theirs),
    Role(Listed),
}

fn label(client: &Client, organization: &str) -> RequestLabel {
    RequestLabel {
        method: "GET".into(),
        path: client
            .url(&["api", "organizations", organization, "roles"])
            .path()
            .to_string(),
    }
}

/// The page of roles at `offset`, decoded as it arrives: the person's
/// memberships and each role as it ends go to `sink`.
async fn page(
    client: &Client,
    organization: &str,
    user: &str,
    offset: usize,
    mut sink: impl FnMut(Event) -> bool,
) -> Result<Head> {
    let mut url = client.url(&["api", "organizations", organization, "roles"]);
    url.query_pairs_mut()
        .append_pair("limit", &ROLES_PAGE.to_string())
        .append_pair("offset", &offset.to_string());
    let request = label(client, organization);
    let (chunks_to, chunks) = tokio::sync::mpsc::channel::<bytes::Bytes>(CHUNKS_AHEAD);
    let (events_to, mut events) = tokio::sync::mpsc::channel::<Event>(EVENTS_AHEAD);
    let user = user.to_string();
    let most_roles = client.max_rows();
    let decoder = tokio::task::spawn_blocking(move || {
        // Buffered: serde_json reads a reader a byte at a time.
        let reader = std::io::BufReader::with_capacity(READ_BUFFER, Chunks::new(chunks));
        let mut deserializer = serde_json::Deserializer::from_reader(reader);
        let decoded = PageSeed {
            user: &user,
            offset,
            most_roles,
            events: &events_to,
        }
        .deserialize(&mut deserializer)
        .and_then(|head| deserializer.end().map(|()| head));
        decoded.map_err(|error| error.to_string())
    });
    let fetch = async move {
        let to = chunks_to;
        client.get_fed(url, &to).await
    };
    // A sink that takes no more drops the events' end: the decoder stops,
    // and with it the read.
    let take = async move {
        while let Some(event) = events.recv().await {
            if !sink(event) {
                break;
            }
        }
    };
    let (fetched, ()) = tokio::join!(fetch, take);
    fetched?;
    let decoded = decoder.await.map_err(|error| error.to_string());
    decoded.and_then(|head| head).map_err(|message| Error::Decode {
        request,
        status: 200,
        message,
        snippet: String::new(),
    })
}

type Events<'a> = &'a tokio::sync::mpsc::Sender<Event>;

fn send<E: de::Error>(events: Events<'_>, event: Event) -> std::result::Result<(), E> {
    events
        .blocking_send(event)
        .map_err(|_| E::custom("the answer's reader stopped"))
}

/// `{count, next, previous, results: [role, …]}`.
struct PageSeed<'a> {
    user: &'a str,
    offset: usize,
    most_roles: u64,
    events: Events<'a>,
}

impl<'de> DeserializeSeed<'de> for PageSeed<'_> {
    type Value = Head;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> std::result::Result<Head, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for PageSeed<'_> {
    type Value = Head;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a page of roles")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Head, A::Error> {
        let (mut count, mut next, mut results) = (None, false, false);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "count" => count = Some(map.next_value::<u64>()?),
                "next" => next = map.next_value::<Option<String>>()?.is_some(),
                "results" => {
                    results = true;
                    map.next_value_seed(RolesSeed {
                        user: self.user,
                        offset: self.offset,
                        most_roles: self.most_roles,
                        events: self.events,
                    })?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if !results {
            return Err(de::Error::missing_field("results"));
        }
        let count = count.ok_or_else(|| de::Error::missing_field("count"))?;
        Ok(Head { count, next })
    }
}

/// The page's roles.
struct RolesSeed<'a> {
    user: &'a str,
    offset: usize,
    most_roles: u64,
    events: Events<'a>,
}

impl<'de> DeserializeSeed<'de> for RolesSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> std::result::Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for RolesSeed<'_> {
    type Value = ();

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a list of roles")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<(), A::Error> {
        let mut place = self.offset;
        while let Some(role) = seq.next_element_seed(RoleSeed {
            user: self.user,
            place,
            events: self.events,
        })? {
            send(self.events, Event::Role(role))?;
            place += 1;
            if place as u64 > self.most_roles {
                return Err(de::Error::custom(format!(
                    "more than {} roles, the most orgdeck reads of a list",
                    self.most_roles
                )));
            }
        }
        Ok(())
    }
}

/// A role: its id, its name, its members (each of the person's sent as it
/// is decoded, the others counted); its other fields passed over.
struct RoleSeed<'a> {
    user: &'a str,
    place: usize,
    events: Events<'a>,
}

impl<'de> DeserializeSeed<'de> for RoleSeed<'_> {
    type Value = Listed;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> std::result::Result<Listed, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for RoleSeed<'_> {
    type Value = Listed;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a role")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Listed, A::Error> {
        let (mut id, mut name, mut members) = (None, None, None);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "id" => id = map.next_value::<Option<String>>()?,
                "name" => name = map.next_value::<Option<String>>()?,
                "members" => {
                    members = map.next_value_seed(MembersSeed {
                        user: self.user,
                        place: self.place,
                        events: self.events,
                    })?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Listed {
            id: id.unwrap_or_default(),
            name: name.unwrap_or_default(),
            members,
        })
    }
}

/// A role's `members`: a list (the count of them, the person's sent on),
/// or anything else (`null`, a text: not embedded).
struct MembersSeed<'a> {
    user: &'a str,
    place: usize,
    events: Events<'a>,
}

impl<'de> DeserializeSeed<'de> for MembersSeed<'_> {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> std::result::Result<Option<usize>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for MembersSeed<'_> {
    type Value = Option<usize>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a role's members")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Option<usize>, A::Error> {
        let mut members = 0;
        while let Some(member) = seq.next_element::<Member>()? {
            members += 1;
            if member.user().as_deref() == Some(self.user) {
                send(
                    self.events,
                    Event::Theirs(Theirs {
                        role: self.place,
                        id: member.id.unwrap_or_default(),
                        joined_at: member.joined_at,
                    }),
                )?;
            }
        }
        Ok(Some(members))
    }

    fn visit_unit<E: de::Error>(self) -> std::result::Result<Option<usize>, E> {
        Ok(None)
    }

    fn visit_none<E: de::Error>(self) -> std::result::Result<Option<usize>, E> {
        Ok(None)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> std::result::Result<Option<usize>, E> {
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Option<usize>, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

/// An embedded membership: what says whose it is, its id and since when.
#[derive(Deserialize)]
struct Member {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    user: Option<UserOf>,
    #[serde(default)]
    organization_member: Option<MemberOf>,
    #[serde(default)]
    user_uuid: Option<String>,
    #[serde(default, with = "crate::api::time::flexible_datetime")]
    joined_at: Option<DateTime<Utc>>,
}

#[derive(Deserialize)]
struct UserOf {
    #[serde(default)]
    uuid: Option<String>,
}

#[derive(Deserialize)]
struct MemberOf {
    #[serde(default)]
    user: Option<UserOf>,
}

impl Member {
    /// The user UUID, lower case, whichever way the server says it (as
    /// [`super::membership_user`] reads it).
    fn user(&self) -> Option<String> {
        self.user
            .as_ref()
            .map(|user| user.uuid.clone().unwrap_or_default())
            .or_else(|| {
                self.organization_member
                    .as_ref()
                    .and_then(|member| member.user.as_ref())
                    .map(|user| user.uuid.clone().unwrap_or_default())
            })
            .or_else(|| self.user_uuid.clone())
            .filter(|uuid| !uuid.is_empty())
            .map(|uuid| uuid.to_lowercase())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the decoder sends back of `page` for `user`, and the head.
    fn decoded(page: &str, user: &str) -> (std::result::Result<Head, String>, Vec<Event>) {
        let (events_to, mut events) = tokio::sync::mpsc::channel(1_000);
        let mut deserializer = serde_json::Deserializer::from_str(page);
        let head = PageSeed {
            user,
            offset: 10,
            most_roles: 100,
            events: &events_to,
        }
        .deserialize(&mut deserializer)
        .map_err(|error| error.to_string());
        drop(events_to);
        let mut sent = Vec::new();
        while let Ok(event) = events.try_recv() {
            sent.push(event);
        }
        (head, sent)
    }

    const ADA: &str = "0190c3a5-6d0e-7000-8000-00000000000a";
    const BOB: &str = "0190c3a5-6d0e-7000-8000-00000000000b";

    #[test]
    fn the_person_s_memberships_are_sent_as_read_and_each_role_counted_as_it_ends() {
        // Members before the id, the user said three ways, one in capitals,
        // a role whose members are not embedded, fields not read passed over.
        let page = format!(
            r#"{{"count": 12, "next": "http://x/?offset=110", "previous": null, "results": [
              {{"members": [
                 {{"id": "m1", "user": {{"uuid": "{ADA}"}}, "joined_at": "2026-01-02T03:04:05Z", "extra": [1, {{"a": null}}]}},
                 {{"id": "m2", "organization_member": {{"user": {{"uuid": "{BOB}"}}}}}},
                 {{"id": "m3", "user_uuid": "{}"}}
               ], "id": "r1", "name": "Engineers", "created_by": {{"uuid": "{ADA}"}}}},
              {{"id": "r2", "name": "Old", "members": null, "is_default": false}},
              {{"id": "r3", "name": "Empty", "members": []}}
            ]}}"#,
            ADA.to_uppercase()
        );
        let (head, events) = decoded(&page, ADA);
        let head = head.unwrap();
        assert_eq!((head.count, head.next), (12, true));
        let mut theirs = Vec::new();
        let mut roles = Vec::new();
        for event in events {
            match event {
                Event::Theirs(membership) => {
                    theirs.push((membership.role, membership.id, membership.joined_at))
                }
                Event::Role(role) => roles.push((role.id, role.name, role.members)),
            }
        }
        let joined = "2026-01-02T03:04:05Z".parse().ok();
        assert_eq!(
            theirs,
            [(10, "m1".to_string(), joined), (10, "m3".to_string(), None)]
        );
        assert_eq!(
            roles,
            [
                ("r1".to_string(), "Engineers".to_string(), Some(3)),
                ("r2".to_string(), "Old".to_string(), None),
                ("r3".to_string(), "Empty".to_string(), Some(0)),
            ]
        );
    }

    #[test]
    fn a_page_without_its_results_or_count_or_cut_short_is_refused() {
        for page in [
            r#"{"count": 1}"#,
            r#"{"results": []}"#,
            r#"{"count": 1, "results": [{"id": "r1", "members": [{"id": "m1""#,
            r#"[]"#,
        ] {
            assert!(decoded(page, ADA).0.is_err(), "{page}");
        }
    }

    #[test]
    fn more_roles_than_the_client_reads_are_refused() {
        let roles: Vec<String> = (0..120)
            .map(|at| format!(r#"{{"id": "r{at}", "members": []}}"#))
            .collect();
        let page = format!(r#"{{"count": 120, "results": [{}]}}"#, roles.join(","));
        let refused = decoded(&page, ADA).0.unwrap_err();
        assert!(refused.contains("more than 100 roles"), "{refused}");
    }

    #[test]
    fn the_index_orders_the_roles_by_name_and_knows_each_one_s_size() {
        let listed = |id: &str, name: &str, members| Listed {
            id: id.into(),
            name: name.into(),
            members: Some(members),
        };
        let roles = vec![
            listed("r1", "support", 5),
            listed("r2", "Admins", 2),
            listed("r3", "Billing", 0),
        ];
        let theirs = vec![
            Theirs {
                role: 0,
                id: "m1".into(),
                joined_at: None,
            },
            Theirs {
                role: 1,
                id: "m2".into(),
                joined_at: None,
            },
        ];
        let index = index(roles, theirs, ADA);
        let names: Vec<&str> = index.roles.iter().map(|role| role.name.as_str()).collect();
        assert_eq!(names, ["Admins", "Billing", "support"]);
        let held: Vec<(String, String)> = index
            .of(ADA)
            .into_iter()
            .map(|role| (role.name, role.membership_id))
            .collect();
        assert_eq!(
            held,
            [
                ("Admins".to_string(), "m2".to_string()),
                ("support".to_string(), "m1".to_string())
            ]
        );
        assert_eq!((index.size("r1"), index.size("r2"), index.size("r3")), (5, 2, 0));
        assert!(index.of(BOB).is_empty());
    }
}
