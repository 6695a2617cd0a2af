//! A write sent and its answer: each kind of change over the one client,
//! and a new dashboard subscription's exports filled in as PostHog's own
//! form does.

use super::*;
use crate::console::screens::roles;

impl Runner {
    /// Sends a change and says how it went; the footer's record of it comes
    /// from the client.
    pub(super) async fn write(&self, ticket: Ticket, write: Write) -> Msg {
        let client = &self.client;
        let subscription =
            |subscription: Raw<Subscription>| Written::Subscription(Box::new(subscription.into_typed()));
        let result = match &write {
            Write::Role(write) => write.send(client).await.map(|answer| match answer {
                roles::writes::Answer::Saved(role) => Written::Role(role),
                roles::writes::Answer::Deleted => Written::Deleted,
            }),
            Write::RemoveMember {
                organization,
                role,
                id,
            } => client
                .remove_member(organization, role, id)
                .await
                .map(|()| Written::Deleted),
            Write::AssignMembers {
                organization,
                role,
                people,
            } => {
                let mut results = Vec::new();
                for person in people {
                    let outcome = client
                        .add_member(organization, role, &person.uuid)
                        .await
                        .map(Raw::into_typed);
                    results.push((person.label.clone(), outcome.map_err(refused)));
                }
                Ok(Written::Assigned(results))
            }
            Write::AddToRoles {
                organization,
                people,
                roles,
            } => Ok(self.add_to_roles(organization, people, roles).await),
            Write::SetLevel {
                organization,
                person,
                level,
            } => client
                .set_member_level(organization, &person.uuid, *level)
                .await
                .map(|member| Written::Member(Box::new(member.into_typed()))),
            Write::Offboard { organization, plan } => self.offboard(ticket, organization, plan).await,
            Write::CreateSubscription { project, body } => match self.with_exports(project, body).await {
                Ok(body) => client.create_subscription(project, &body).await.map(subscription),
                Err(error) => Err(error),
            },
            Write::UpdateSubscription { project, id, body } => match self.with_exports(project, body).await {
                Ok(body) => client
                    .update_subscription(project, *id, &body)
                    .await
                    .map(subscription),
                Err(error) => Err(error),
            },
            Write::SoftDelete { project, id } => client
                .soft_delete_subscription(project, *id)
                .await
                .map(subscription),
            Write::Restore { project, id } => {
                client.restore_subscription(project, *id).await.map(subscription)
            }
            Write::TestDelivery { project, id } => client
                .test_delivery(project, *id)
                .await
                .map(|()| Written::Accepted),
            Write::SetEnabled { project, id, enabled } => {
                client.set_enabled(project, *id, *enabled).await.map(subscription)
            }
        };
        Msg::Written(Box::new(WriteAnswer {
            ticket,
            write,
            result,
        }))
    }

    /// A body that sets a dashboard without saying which of its insights to
    /// export exports every one on it, as PostHog's own form starts with
    /// (the cap is the server's to say: its refusal lands on the form); on
    /// a server that shows no tiles (an older PostHog) the body goes as it
    /// is.
    pub(super) async fn with_exports(
        &self,
        project: &str,
        body: &crate::api::SubscriptionInput,
    ) -> Result<crate::api::SubscriptionInput, crate::api::Error> {
        let mut body = body.clone();
        if let Some(Some(dashboard)) = body.dashboard
            && body.dashboard_export_insights.is_none()
            && let Some(found) = self.client.dashboard_tiles(project, dashboard).await?
        {
            let chosen: Vec<i64> = found.default_exports().iter().map(|insight| insight.id).collect();
            body.dashboard_export_insights = Some(chosen);
        }
        Ok(body)
    }
}
