//! What the Health screen's request runs: a look at the project's
//! subscriptions ([`Ask::Look`]), on the effects runner's task, its
//! events batched into the screen's own messages as it goes and its end
//! the screen's [`Msg::Looked`]. The runner lends it the client (one that
//! tells the footer of each try while Health is shown), the console's
//! clock, the state directory where a look keeps its index, and how to
//! tell its news.

use super::msg::{LookFailure, LookNews};
use super::{Ask, Msg};
use crate::console::kit::latest::Ticket;
use crate::console::kit::stop::Stop;
use crate::console::screens::request::Lent;
use crate::health::index::Index;
use crate::health::{Look, LookEvent, LookOptions, LookSummary};

/// A look's rows sent at once, at most: what the list settles of 90,000
/// subscriptions comes in a few messages.
const LOOK_BATCH: usize = 5_000;
/// How long a look's news waits to gather more (a throttle on messages,
/// not a clock the look judges by).
const LOOK_PAUSE: std::time::Duration = std::time::Duration::from_millis(50);

/// Runs what Health asks; its end is the screen's message.
pub async fn run(ask: Ask, lent: Lent<'_, Msg>) -> Msg {
    match ask {
        Ask::Look {
            ticket,
            project,
            stop,
            max_requests,
        } => {
            let result = look(ticket, &project, stop, max_requests, lent).await;
            Msg::Looked { ticket, result }
        }
    }
}

/// A health look, its news sent in batches: rows gather until
/// [`LOOK_BATCH`] of them or [`LOOK_PAUSE`] since the last news, so
/// that rows read one by one show as they arrive and those the list
/// and the index settle (thousands at once) come in a few messages.
async fn look(
    ticket: Ticket,
    project: &str,
    stop: Stop,
    max_requests: Option<u64>,
    lent: Lent<'_, Msg>,
) -> Result<LookSummary, LookFailure> {
    let client = lent.client;
    let host = client.base_url().as_str().trim_end_matches('/').to_string();
    let mut index = Index::open(lent.state_dir, &host, project).map_err(|error| LookFailure {
        message: format!("{error:#}"),
        unreachable: None,
    })?;
    let look = Look {
        client,
        project,
        clock: lent.clock,
        options: LookOptions {
            max_rows: client.max_rows(),
            max_requests,
            keep_states: true,
            ..LookOptions::default()
        },
        stop: stop.0.clone(),
    };
    let tell = lent.tell;
    let send = move |news: LookNews| tell(Msg::LookNews { ticket, news });
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
