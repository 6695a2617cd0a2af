//! The client's access-control calls (posthog.md 16.3-16.7): every rule
//! endpoint of a project and of its objects, the settings page's endpoints
//! (read row by row within the byte limit, see `stream`), Terraform's
//! management endpoints, and the organization's resolution mode.

use reqwest::Method;

use super::levels::AccessLevel;
use super::models::{
    AccessControl, AccessControls, AccessDefaults, AccessItem, FeatureFlag, ManagementClaim,
    ManagementSettings, ManagementState, MemberAccess, Notebook, ObjectRules, ObjectSearch, RoleAccess,
    RuleInput, SettingsHeader, UsersWithAccess,
};
use super::resolve::Subject;
use super::stream::{self, Stopped};
use crate::api::client::Client;
use crate::api::error::{Error, RequestLabel, Result};
use crate::api::models::Organization;
use crate::api::paging::{List, Row};

/// What a rule endpoint is about: the project itself, or one object of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessTarget<'a> {
    Project,
    /// An object by the key its address uses: a dashboard's, insight's or
    /// feature flag's id, a notebook's short id.
    Object {
        resource: &'a str,
        key: &'a str,
    },
}

impl<'a> AccessTarget<'a> {
    pub fn dashboard(id: &'a str) -> Self {
        AccessTarget::Object {
            resource: "dashboard",
            key: id,
        }
    }

    pub fn insight(id: &'a str) -> Self {
        AccessTarget::Object {
            resource: "insight",
            key: id,
        }
    }

    pub fn notebook(short_id: &'a str) -> Self {
        AccessTarget::Object {
            resource: "notebook",
            key: short_id,
        }
    }

    pub fn feature_flag(id: &'a str) -> Self {
        AccessTarget::Object {
            resource: "feature_flag",
            key: id,
        }
    }
}

/// The collection of a resource's objects in a project's paths.
pub fn collection(resource: &str) -> Option<&'static str> {
    match resource {
        "dashboard" => Some("dashboards"),
        "insight" => Some("insights"),
        "notebook" => Some("notebooks"),
        "feature_flag" => Some("feature_flags"),
        _ => None,
    }
}

/// Which object rules a settings call lists: everyone's, a member's or a
/// role's.
fn subject_objects(subject: &Subject) -> (&'static str, Option<(&'static str, &str)>) {
    match subject {
        Subject::Everyone => ("access_control_default_objects", None),
        Subject::Member(id) => ("access_control_member_objects", Some(("member_id", id.as_str()))),
        Subject::Role(id) => ("access_control_role_objects", Some(("role_id", id.as_str()))),
    }
}

impl Row for Notebook {
    fn row_id(&self) -> String {
        self.id.clone()
    }
}

impl Row for FeatureFlag {
    fn row_id(&self) -> String {
        self.id.to_string()
    }
}

impl Row for AccessItem {
    fn row_id(&self) -> String {
        self.id.to_string()
    }
}

impl List<Notebook> {
    pub fn notebooks(project: &str) -> Self {
        List::new(&["api", "projects", project, "notebooks"])
    }
}

impl List<FeatureFlag> {
    pub fn feature_flags(project: &str) -> Self {
        List::new(&["api", "projects", project, "feature_flags"])
    }
}

impl List<AccessItem> {
    /// Dashboards with their creators and the caller's level on each.
    pub fn dashboards_with_access(project: &str) -> Self {
        List::new(&["api", "projects", project, "dashboards"])
    }

    /// Insights with their creators and the caller's level on each.
    pub fn insights_with_access(project: &str) -> Self {
        List::new(&["api", "projects", project, "insights"])
    }
}

impl Client {
    fn target_url(&self, project: &str, target: AccessTarget, action: &str) -> Result<url::Url> {
        match target {
            AccessTarget::Project => Ok(self.url(&["api", "projects", project, action])),
            AccessTarget::Object { resource, key } => {
                let collection = collection(resource).ok_or_else(|| {
                    Error::Invalid(format!("{resource} has no objects orgdeck can address"))
                })?;
                Ok(self.url(&["api", "projects", project, collection, key, action]))
            }
        }
    }

    /// The rules on the project or one of its objects, with the levels they
    /// may take and what the caller has.
    pub async fn access_controls(&self, project: &str, target: AccessTarget<'_>) -> Result<AccessControls> {
        let url = self.target_url(project, target, "access_controls")?;
        self.call(Method::GET, url, None::<&()>).await
    }

    /// Sets (or with no level removes) a subject's rule on the project or
    /// one of its objects: the rule written, or `None` when it was removed.
    pub async fn set_access_control(
        &self,
        project: &str,
        target: AccessTarget<'_>,
        subject: &Subject,
        level: Option<AccessLevel>,
    ) -> Result<Option<AccessControl>> {
        let url = self.target_url(project, target, "access_controls")?;
        let body = RuleInput::new(subject, level);
        self.call_optional(Method::PUT, url, Some(&body)).await
    }

    /// Every resource-wide rule of the project.
    pub async fn resource_access_controls(&self, project: &str) -> Result<AccessControls> {
        let url = self.url(&["api", "projects", project, "resource_access_controls"]);
        self.call(Method::GET, url, None::<&()>).await
    }

    /// Sets (or removes) a subject's rule on a whole resource of the project.
    pub async fn set_resource_access_control(
        &self,
        project: &str,
        resource: &str,
        subject: &Subject,
        level: Option<AccessLevel>,
    ) -> Result<Option<AccessControl>> {
        let url = self.url(&["api", "projects", project, "resource_access_controls"]);
        let body = RuleInput::new(subject, level).on(resource, None);
        self.call_optional(Method::PUT, url, Some(&body)).await
    }

    /// Sets (or removes) a subject's rule on an object named by its primary
    /// key (`access_control_object_rules`).
    pub async fn set_object_rule(
        &self,
        project: &str,
        resource: &str,
        resource_id: &str,
        subject: &Subject,
        level: Option<AccessLevel>,
    ) -> Result<Option<AccessControl>> {
        let url = self.url(&["api", "projects", project, "access_control_object_rules"]);
        let body = RuleInput::new(subject, level).on(resource, Some(resource_id));
        self.call_optional(Method::PUT, url, Some(&body)).await
    }

    /// Everyone who reaches the project or object, their level and how.
    pub async fn users_with_access(
        &self,
        project: &str,
        target: AccessTarget<'_>,
    ) -> Result<UsersWithAccess> {
        let url = self.target_url(project, target, "users_with_access")?;
        self.call(Method::GET, url, None::<&()>).await
    }

    /// The project's default access and everyone's rule on each resource.
    pub async fn access_control_defaults(&self, project: &str) -> Result<AccessDefaults> {
        let url = self.url(&["api", "projects", project, "access_control_defaults"]);
        self.call(Method::GET, url, None::<&()>).await
    }

    /// Every member's access in the project (one member's with `member`,
    /// their membership id), handed to `sink` a member at a time.
    pub async fn access_control_members<E: From<Error>>(
        &self,
        project: &str,
        member: Option<&str>,
        sink: impl FnMut(MemberAccess) -> std::result::Result<(), E>,
    ) -> std::result::Result<SettingsHeader, E> {
        let filter = member.map(|id| ("member_id", id));
        self.settings_rows(project, "access_control_members", filter, sink)
            .await
    }

    /// One member's access in the project; `None` when the server lists no
    /// such member.
    pub async fn member_access(&self, project: &str, membership_id: &str) -> Result<Option<MemberAccess>> {
        let mut found = None;
        self.access_control_members(project, Some(membership_id), |row: MemberAccess| {
            if row.organization_membership_id == membership_id {
                found = Some(row);
            }
            Ok::<_, Error>(())
        })
        .await?;
        Ok(found)
    }

    /// Every role's access in the project (one role's with `role`).
    pub async fn access_control_roles<E: From<Error>>(
        &self,
        project: &str,
        role: Option<&str>,
        sink: impl FnMut(RoleAccess) -> std::result::Result<(), E>,
    ) -> std::result::Result<SettingsHeader, E> {
        let filter = role.map(|id| ("role_id", id));
        self.settings_rows(project, "access_control_roles", filter, sink)
            .await
    }

    /// The object rules of everyone, a member or a role in the project.
    pub async fn object_rules(&self, project: &str, subject: &Subject) -> Result<ObjectRules> {
        let (action, filter) = subject_objects(subject);
        let mut url = self.url(&["api", "projects", project, action]);
        if let Some((name, value)) = filter {
            url.query_pairs_mut().append_pair(name, value);
        }
        self.call(Method::GET, url, None::<&()>).await
    }

    /// Objects of a resource the caller can see, by name (`search`) or by
    /// id or insight short id (`id`); at most 20.
    pub async fn search_objects(
        &self,
        project: &str,
        resource: &str,
        search: Option<&str>,
        id: Option<&str>,
    ) -> Result<ObjectSearch> {
        let mut url = self.url(&["api", "projects", project, "access_control_object_search"]);
        {
            let mut query = url.query_pairs_mut();
            query.append_pair("resource", resource);
            if let Some(search) = search {
                query.append_pair("search", search);
            }
            if let Some(id) = id {
                query.append_pair("id", id);
            }
        }
        self.call(Method::GET, url, None::<&()>).await
    }

    /// Claims a rule for a manager (`terraform`) or, with `None`, releases it.
    pub async fn claim_access_control(
        &self,
        project: &str,
        claim: &ManagementClaim,
    ) -> Result<ManagementState> {
        let url = self.url(&["api", "projects", project, "access_control_management"]);
        self.call(Method::PUT, url, Some(claim)).await
    }

    /// The project's Terraform lock and whether Terraform manages any rule.
    pub async fn management_settings(&self, project: &str) -> Result<ManagementSettings> {
        let url = self.url(&["api", "projects", project, "access_control_management_settings"]);
        self.call(Method::GET, url, None::<&()>).await
    }

    /// Turns the project's Terraform lock on or off.
    pub async fn set_terraform_lock(&self, project: &str, locked: bool) -> Result<ManagementSettings> {
        let url = self.url(&["api", "projects", project, "access_control_management_settings"]);
        let body = serde_json::json!({ "lock_terraform_managed_rules": locked });
        self.call(Method::PATCH, url, Some(&body)).await
    }

    /// Switches the organization between the two resolution modes
    /// (`uses_most_specific_access_resolution`).
    pub async fn set_access_resolution(
        &self,
        organization: &str,
        most_specific: bool,
    ) -> Result<Organization> {
        let url = self.url(&["api", "organizations", organization]);
        let body = serde_json::json!({ "uses_most_specific_access_resolution": most_specific });
        self.call(Method::PATCH, url, Some(&body)).await
    }

    /// One notebook, by its short id.
    pub async fn notebook(&self, project: &str, short_id: &str) -> Result<Notebook> {
        let url = self.url(&["api", "projects", project, "notebooks", short_id]);
        self.call(Method::GET, url, None::<&()>).await
    }

    /// One feature flag.
    pub async fn feature_flag(&self, project: &str, id: i64) -> Result<FeatureFlag> {
        let url = self.url(&["api", "projects", project, "feature_flags", &id.to_string()]);
        self.call(Method::GET, url, None::<&()>).await
    }

    /// Reads a settings answer as it arrives and hands its rows to `sink`
    /// one at a time (see `stream`): a decoder on a blocking thread reads
    /// the body's chunks, a few at a time, and sends the rows back a few
    /// at a time; past the row cap, or when `sink` refuses one, it stops.
    async fn settings_rows<T, E>(
        &self,
        project: &str,
        action: &str,
        filter: Option<(&str, &str)>,
        sink: impl FnMut(T) -> std::result::Result<(), E>,
    ) -> std::result::Result<SettingsHeader, E>
    where
        T: for<'de> serde::Deserialize<'de> + Send + 'static,
        E: From<Error>,
    {
        /// Chunks of the body and rows decoded waiting their turn: what is
        /// held in flight whatever the size of the answer.
        const CHUNKS_AHEAD: usize = 8;
        const ROWS_AHEAD: usize = 64;
        let mut url = self.url(&["api", "projects", project, action]);
        if let Some((name, value)) = filter {
            url.query_pairs_mut().append_pair(name, value);
        }
        let request = RequestLabel {
            method: "GET".into(),
            path: url.path().to_string(),
        };
        let (chunks_to, chunks) = tokio::sync::mpsc::channel::<bytes::Bytes>(CHUNKS_AHEAD);
        let (rows_to, mut rows) = tokio::sync::mpsc::channel::<T>(ROWS_AHEAD);
        let cap = self.max_rows();
        let decoder = tokio::task::spawn_blocking(move || {
            stream::rows_from(crate::api::chunks::Chunks::new(chunks), cap, |row: T| {
                rows_to.blocking_send(row)
            })
        });
        // Each side drops its end when done, so that the other stops.
        let fetch = async move {
            let to = chunks_to;
            self.get_fed(url, &to).await
        };
        let mut sink = sink;
        let take = async move {
            while let Some(row) = rows.recv().await {
                sink(row)?;
            }
            Ok::<(), E>(())
        };
        let (fetched, taken) = tokio::join!(fetch, take);
        // The sink's refusal first, then the request's, then the decoder's.
        taken?;
        fetched?;
        let decoded = decoder.await.map_err(|error| Error::Decode {
            request: request.clone(),
            status: 200,
            message: format!("the answer's decoder stopped: {error}"),
            snippet: String::new(),
        })?;
        match decoded {
            Ok((header, _rows)) => Ok(header),
            Err(Stopped::TooMany) => Err(Error::TooManyRows {
                request,
                limit: self.max_rows(),
            }
            .into()),
            Err(Stopped::Malformed(message)) => Err(Error::Decode {
                request,
                status: 200,
                message,
                snippet: String::new(),
            }
            .into()),
            // The rows' end was dropped: the sink stopped, and said why above.
            Err(Stopped::Sink(_)) => Err(Error::Decode {
                request,
                status: 200,
                message: "the answer's rows were left unread".into(),
                snippet: String::new(),
            }
            .into()),
        }
    }
}
