//! posthog.md 15-19: an owner is never removed, by themselves or by
//! another, races included; they are made admin by another owner first.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{ADMIN, OWNER, TestServer};

const REFUSED: &str = "Cannot leave the organization as its owner!";

struct Members<'a> {
    server: &'a TestServer,
    owner: String,
    path: String,
}

impl Members<'_> {
    fn of(server: &TestServer) -> Members<'_> {
        Members {
            server,
            owner: server.key(&["*"]),
            path: format!("/api/organizations/{}/members/", server.organization),
        }
    }

    async fn everyone(&self) -> Vec<Value> {
        self.server
            .all(&self.owner, &format!("{}?limit=100", self.path))
            .await
    }

    async fn uuid(&self, email: &str) -> String {
        self.everyone()
            .await
            .iter()
            .find(|member| member["user"]["email"] == email)
            .map(|member| member["user"]["uuid"].as_str().unwrap().to_string())
            .unwrap_or_else(|| panic!("{email} is not a member"))
    }

    async fn owners(&self) -> Vec<String> {
        self.everyone()
            .await
            .iter()
            .filter(|member| member["level"] == 15)
            .map(|member| member["user"]["email"].as_str().unwrap().to_string())
            .collect()
    }

    fn of_member(&self, uuid: &str) -> String {
        format!("{}{uuid}/", self.path)
    }
}

#[track_caller]
fn refused_as_an_owner(reply: &crate::support::Reply) {
    let detail = reply.expect_error(StatusCode::BAD_REQUEST, "validation_error", "invalid_input", None);
    assert_eq!(detail, REFUSED);
}

#[tokio::test]
async fn the_sole_owner_cannot_leave_nor_be_removed() {
    let server = TestServer::demo().await;
    let members = Members::of(&server);
    let ada = members.uuid(OWNER).await;
    refused_as_an_owner(&server.delete(&members.owner, &members.of_member(&ada)).await);
    // "@me" is the same membership.
    refused_as_an_owner(&server.delete(&members.owner, &members.of_member("@me")).await);
    // An admin is refused before that: an owner outranks them.
    let admin = server.key_for(ADMIN, &["*"]);
    let denied = server.delete(&admin, &members.of_member(&ada)).await;
    denied.expect_error(
        StatusCode::FORBIDDEN,
        "authentication_error",
        "permission_denied",
        None,
    );
    assert_eq!(members.owners().await, [OWNER]);
}

#[tokio::test]
async fn an_owner_cannot_remove_another_until_they_are_made_admin() {
    let server = TestServer::demo().await;
    let members = Members::of(&server);
    let bruno = members.uuid(ADMIN).await;
    let ada = members.uuid(OWNER).await;
    server
        .patch(&members.owner, &members.of_member(&bruno), json!({"level": 15}))
        .await
        .expect(StatusCode::OK);
    refused_as_an_owner(&server.delete(&members.owner, &members.of_member(&bruno)).await);
    let theirs = server.key_for(ADMIN, &["*"]);
    refused_as_an_owner(&server.delete(&theirs, &members.of_member(&ada)).await);
    let mut owners = members.owners().await;
    owners.sort();
    assert_eq!(owners, [OWNER, ADMIN]);
    // Made admin by another owner, they may go.
    server
        .patch(&members.owner, &members.of_member(&bruno), json!({"level": 8}))
        .await
        .expect(StatusCode::OK);
    let removed = server.delete(&members.owner, &members.of_member(&bruno)).await;
    assert_eq!(removed.status, StatusCode::NO_CONTENT, "{}", removed.text);
    assert_eq!(members.owners().await, [OWNER]);
}

/// Two owners leaving at once, and two owners making each other admin at
/// once: the check and the change share one transaction, so an owner
/// always remains.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn owners_racing_to_leave_always_leave_one_owner() {
    let server = TestServer::demo().await;
    let members = Members::of(&server);
    let bruno = members.uuid(ADMIN).await;
    let ada = members.uuid(OWNER).await;
    let (ada_key, bruno_key) = (members.owner.clone(), server.key_for(ADMIN, &["*"]));
    for round in 0..10 {
        // Both owners again (the round before left one).
        for (key, uuid) in [(&ada_key, &bruno), (&bruno_key, &ada)] {
            let reply = server
                .patch(key, &members.of_member(uuid), json!({"level": 15}))
                .await;
            assert!(
                reply.status == StatusCode::OK || reply.status == StatusCode::FORBIDDEN,
                "{}",
                reply.text
            );
        }
        assert_eq!(members.owners().await.len(), 2, "round {round}");

        let (me, of_bruno, of_ada) = (
            members.of_member("@me"),
            members.of_member(&bruno),
            members.of_member(&ada),
        );
        let (one, other) = tokio::join!(server.delete(&ada_key, &me), server.delete(&bruno_key, &me));
        refused_as_an_owner(&one);
        refused_as_an_owner(&other);
        let (one, other) = tokio::join!(
            server.delete(&ada_key, &of_bruno),
            server.delete(&bruno_key, &of_ada),
        );
        refused_as_an_owner(&one);
        refused_as_an_owner(&other);
        assert_eq!(members.owners().await.len(), 2, "round {round}");

        // Each makes the other admin at once: one wins, the loser is an
        // admin by then and may not change an owner.
        let (one, other) = tokio::join!(
            server.patch(&ada_key, &of_bruno, json!({"level": 8})),
            server.patch(&bruno_key, &of_ada, json!({"level": 8})),
        );
        let statuses = [one.status, other.status];
        assert!(
            statuses.contains(&StatusCode::OK) && statuses.contains(&StatusCode::FORBIDDEN),
            "round {round}: {} / {}",
            one.text,
            other.text
        );
        assert_eq!(members.owners().await.len(), 1, "round {round}");
    }
}
