//! A health look on its task: its events batched into messages, its
//! requests told to the footer (while Health is shown).

use super::Runner;
use crate::console::app::{About, LookFailure, LookNews, Stop, Ticket};
use crate::console::screens::health::Msg as HealthMsg;
use crate::health::index::Index;
use crate::health::{Look, LookEvent, LookOptions, LookSummary};

/// A look's rows sent at once, at most: what the list settles of 90,000
/// subscriptions comes in a few messages.
const LOOK_BATCH: usize = 5_000;
/// How long a look's news waits to gather more (a throttle on messages,
/// not a clock the look judges by).
const LOOK_PAUSE: std::time::Duration = std::time::Duration::from_millis(50);

impl Runner {
    /// A health look, its news sent in batches: rows gather until
    /// [`LOOK_BATCH`] of them or [`LOOK_PAUSE`] since the last news, so
    /// that rows read one by one show as they arrive and those the list
    /// and the index settle (thousands at once) come in a few messages.
    pub(super) async fn look(
        &self,
        ticket: Ticket,
        project: &str,
        stop: Stop,
        max_requests: Option<u64>,
    ) -> Result<LookSummary, LookFailure> {
        let host = self.client.base_url().as_str().trim_end_matches('/').to_string();
        let mut index = Index::open(&self.state_dir, &host, project).map_err(|error| LookFailure {
            message: format!("{error:#}"),
            unreachable: None,
        })?;
        let runner = self.observed(About::Look(ticket));
        let look = Look {
            client: &runner.client,
            project,
            clock: self.clock.clone(),
            options: LookOptions {
                max_rows: self.client.max_rows(),
                max_requests,
                keep_states: true,
                ..LookOptions::default()
            },
            stop: stop.0.clone(),
        };
        let messages = self.messages.clone();
        let send = move |news: LookNews| {
            // The loop has ended when the channel is closed: nothing to tell.
            let _ = messages.send(HealthMsg::LookNews { ticket, news }.into());
        };
        let mut rows = Vec::new();
        let mut last = std::time::Instant::now();
        let mut first = true;
        let result = look
            .run(&mut index, |event: LookEvent| match event {
                LookEvent::Listing { read, total } => {
                    if last.elapsed() >= LOOK_PAUSE || read >= total {
                        send(LookNews::Listing { read, total });
                        last = std::time::Instant::now();
                    }
                }
                LookEvent::Listed(coverage) => send(LookNews::Listed(coverage)),
                LookEvent::States(states) => send(LookNews::States(states)),
                LookEvent::Row(row) => {
                    rows.push(row);
                    if rows.len() >= LOOK_BATCH {
                        send(LookNews::Rows(std::mem::take(&mut rows)));
                        last = std::time::Instant::now();
                    }
                }
                LookEvent::Progress(coverage) => {
                    // The first comes once the list's rows are told: they
                    // show at once, whatever the reads wait for.
                    if first || last.elapsed() >= LOOK_PAUSE || coverage.left == 0 {
                        first = false;
                        if !rows.is_empty() {
                            send(LookNews::Rows(std::mem::take(&mut rows)));
                        }
                        send(LookNews::Progress(coverage));
                        last = std::time::Instant::now();
                    }
                }
            })
            .await;
        if !rows.is_empty() {
            send(LookNews::Rows(rows));
        }
        result.map_err(|error| LookFailure {
            message: error.to_string(),
            unreachable: error.unreachable(),
        })
    }
}
