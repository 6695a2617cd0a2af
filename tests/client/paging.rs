//! Random access, following `next`, and the concurrent whole-list fetch.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use orgdeck::api::{FetchAll, List, SubscriptionFilter};
use orgdeck::server::Seed;

use crate::support::{DEMO_INSIGHT, DEMO_SLACK, TestServer};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_way_of_paging_agrees() {
    let server = TestServer::start(Seed::Demo, 1000).await;
    let client = server.client();
    let list = List::subscriptions(&server.project.to_string(), &SubscriptionFilter::default());
    let whole = client.page(&list, 100_000, 0).await.unwrap();
    assert!(whole.count > 900);
    assert_eq!(whole.results.len() as u64, whole.count);

    let progress = Arc::new(AtomicU64::new(0));
    let seen = progress.clone();
    let options = FetchAll {
        page_size: 37,
        concurrency: 6,
        progress: Some(Arc::new(move |fetched, total| {
            assert!(fetched <= total);
            seen.store(fetched, Ordering::Relaxed);
        })),
        max_rows: None,
        pace: None,
    };
    let concurrent = client.all(&list, &options).await.unwrap();
    assert_eq!(
        concurrent.into_vec(),
        whole.results,
        "the concurrent fetch keeps the server's order"
    );
    assert_eq!(progress.load(Ordering::Relaxed), whole.count);
    let sequential = client.all_by_next(&list, 37).await.unwrap();
    assert_eq!(sequential.into_vec(), whole.results);

    for offset in [0, 1, 500, whole.count - 10] {
        let page = client.page(&list, 25, offset).await.unwrap();
        let end = (offset as usize + 25).min(whole.results.len());
        assert_eq!(
            page.results,
            whole.results[offset as usize..end],
            "offset {offset}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_that_changes_during_the_fetch_is_read_again_or_refused_never_taken_in_part() {
    let server = TestServer::start(Seed::Demo, 3000).await;
    let client = server.client();
    let project = server.project.to_string();
    let list = List::subscriptions(&project, &SubscriptionFilter::default());
    let before: HashSet<i64> = client
        .page(&list, 100_000, 0)
        .await
        .unwrap()
        .results
        .iter()
        .map(|s| s.id)
        .collect();

    let writer = {
        let client = client.clone();
        let project = project.clone();
        tokio::spawn(async move {
            for n in 0..40 {
                let body = serde_json::json!({"target_type": "slack", "target_value": format!("#c{n}"),
                                              "integration_id": DEMO_SLACK, "insight": DEMO_INSIGHT,
                                              "frequency": "daily", "interval": 1,
                                              "start_date": "2026-01-01T00:00:00Z"});
                client.create_subscription(&project, &body).await.unwrap();
            }
        })
    };
    let options = FetchAll {
        page_size: 50,
        concurrency: 4,
        progress: None,
        max_rows: None,
        pace: None,
    };
    let fetched = client.all(&list, &options).await;
    writer.await.unwrap();
    match fetched {
        Ok(fetched) => {
            let ids: Vec<i64> = fetched.iter().map(|s| s.id).collect();
            let unique: HashSet<i64> = ids.iter().copied().collect();
            assert_eq!(unique.len(), ids.len(), "no row repeated");
            assert!(
                before.is_subset(&unique),
                "no row that was there all along is dropped"
            );
            let created: Vec<_> = fetched.iter().map(|s| s.created_at).collect();
            assert!(
                created.windows(2).all(|pair| pair[0] >= pair[1]),
                "the server's order is kept"
            );
        }
        // Changed under every read: refused, never taken in part.
        Err(orgdeck::api::Error::Incomplete(incomplete)) => {
            assert!(incomplete.changed_to.is_some(), "{incomplete}");
            assert_eq!(incomplete.reads, 3, "{incomplete}");
            assert!(
                incomplete
                    .to_string()
                    .contains("changed while it was read, 3 reads in a row"),
                "{incomplete}"
            );
        }
        Err(error) => panic!("{error}"),
    }
    // Once it is quiet, it reads whole: every row, the new ones too.
    let after = client.all(&list, &options).await.unwrap();
    assert_eq!(after.len(), before.len() + 40);
}
