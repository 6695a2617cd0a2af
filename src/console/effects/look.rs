//! A health look on its task: its events batched into messages.

use super::Runner;
use crate::console::app::{LookNews, Msg, Stop, Ticket};
use crate::health::index::Index;
use crate::health::{Look, LookEvent, LookOptions, LookSummary};

/// A look's rows sent at once, at most.
const LOOK_BATCH: usize = 500;
/// How long a look's news waits to gather more (a throttle on messages,
/// not a clock the look judges by).
const LOOK_PAUSE: std::time::Duration = std::time::Duration::from_millis(50);

impl Runner {
    /// A health look, its news sent in batches: rows gather until
    /// [`LOOK_BATCH`] of them or [`LOOK_PAUSE`] since the last news, so
    /// that rows read one by one show as they arrive and those the index
    /// knows (thousands at once) come in a few messages.
    pub(super) async fn look(
        &self,
        ticket: Ticket,
        project: &str,
        stop: Stop,
    ) -> Result<LookSummary, String> {
        let host = self.client.base_url().as_str().trim_end_matches('/').to_string();
        let mut index = Index::open(&self.state_dir, &host, project).map_err(|error| format!("{error:#}"))?;
        let look = Look {
            client: &self.client,
            project,
            clock: self.clock.clone(),
            options: LookOptions {
                max_rows: self.client.max_rows(),
                ..LookOptions::default()
            },
            stop: stop.0.clone(),
        };
        let messages = self.messages.clone();
        let send = move |news: LookNews| {
            // The loop has ended when the channel is closed: nothing to tell.
            let _ = messages.send(Msg::LookNews { ticket, news });
        };
        let mut rows = Vec::new();
        let mut last = std::time::Instant::now();
        let result = look
            .run(&mut index, |event: LookEvent| match event {
                LookEvent::Listed { total, .. } => send(LookNews::Listed { total }),
                LookEvent::Row(row) => {
                    rows.push(row);
                    if rows.len() >= LOOK_BATCH {
                        send(LookNews::Rows(std::mem::take(&mut rows)));
                        last = std::time::Instant::now();
                    }
                }
                LookEvent::Progress {
                    done,
                    total,
                    requests,
                } => {
                    if last.elapsed() >= LOOK_PAUSE || done >= total {
                        if !rows.is_empty() {
                            send(LookNews::Rows(std::mem::take(&mut rows)));
                        }
                        send(LookNews::Progress {
                            done,
                            total,
                            requests,
                        });
                        last = std::time::Instant::now();
                    }
                }
            })
            .await;
        if !rows.is_empty() {
            send(LookNews::Rows(rows));
        }
        result.map_err(|error| format!("{error:#}"))
    }
}
