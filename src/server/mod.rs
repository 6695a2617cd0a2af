//! The reference server, on SQLite: today's PostHog as `spec/posthog.md`
//! describes it (roles, members and role memberships, subscriptions and
//! their deliveries, the pickers, access control, personal API keys and
//! their scopes), or with `--api seed` ([`Flavor::Seed`]) the older docs
//! snapshot of `spec/api.md` with `spec/compat.md`. It answers as PostHog
//! does: its errors, paging, throttling and permission checks, so that the
//! client and the console are tested against what they will meet.
//! `routes/` holds the handlers, one module per resource; `store/` the
//! database.

pub mod access;
mod auth;
pub mod body;
mod delivery_task;
pub mod demo;
mod error;
mod fields;
mod paging;
mod routes;
pub mod store;
mod throttle;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use axum::Router;
use axum::extract::{DefaultBodyLimit, OriginalUri, Request};
use axum::http::Method;
use axum::routing::get;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use serde::Serialize;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tower::util::{MapRequest, MapRequestLayer};
use tower::{Layer, ServiceExt};

use crate::clock::Clock;
pub use error::ApiError;
use routes::{integrations, members, memberships, pickers, roles, subscriptions};
use store::Db;
pub use throttle::RateLimit;

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    pub db: Db,
    /// Per-key rate limits, when the server was asked to apply them.
    pub throttle: Option<std::sync::Arc<throttle::Throttle>>,
    /// Added to every answer, to rehearse a distant or slow server.
    pub delay: Option<std::time::Duration>,
    /// What "now" is: the system's, or a test's manual clock.
    pub clock: Clock,
    /// The address clients reach the server at, without a trailing slash:
    /// paging links are built on it, never on a request's `Host:`.
    pub public_url: String,
    /// How long a client may take to send a request.
    pub read_timeouts: ReadTimeouts,
    /// Which PostHog to behave as.
    pub flavor: Flavor,
    /// Test deliveries' own limit: 10 a minute a project, always on.
    pub test_deliveries: std::sync::Arc<throttle::Throttle>,
    /// Told when a write may have changed when the next delivery is due.
    pub schedule_changed: std::sync::Arc<tokio::sync::Notify>,
    /// The plan's limit on a project's subscriptions, if any.
    pub subscription_limit: Option<u64>,
    /// The most rows a page may hold, if any.
    pub max_limit: Option<u64>,
    /// The most insights a dashboard subscription may export.
    pub export_cap: usize,
    /// The access control applied (posthog.md 16).
    pub access: access::AccessOptions,
    /// A member's keys are listed to a personal API key (see
    /// [`ServeOptions::keys_listed`]).
    pub keys_listed: bool,
}

/// How long a client may take to send a request before the server gives up
/// on it: a connection that dribbles its headers or body holds nothing for
/// long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadTimeouts {
    /// From the connection's first byte (or the end of its last answer) to
    /// the end of the request's headers; the connection is closed past it.
    pub header: Duration,
    /// For the whole body, once the headers are in; 408 past it.
    pub body: Duration,
}

impl Default for ReadTimeouts {
    fn default() -> Self {
        ReadTimeouts {
            header: Duration::from_secs(10),
            body: Duration::from_secs(30),
        }
    }
}

/// Which PostHog the server behaves as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Flavor {
    /// Today's PostHog, as `spec/posthog.md` describes it.
    #[default]
    Current,
    /// The older docs snapshot: `spec/api.md` with `spec/compat.md`, for
    /// older self-hosted instances.
    Seed,
}

impl Flavor {
    /// The schedule rules of this PostHog.
    pub fn rules(self) -> crate::schedule::Rules {
        match self {
            Flavor::Current => crate::schedule::Rules::Today,
            Flavor::Seed => crate::schedule::Rules::Older,
        }
    }
}

/// What the database is filled with when it is empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Seed {
    /// The demo organization, people, roles and subscriptions, and a key.
    Demo,
    /// Only an organization, a project and its owner.
    None,
}

/// How to run the server.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub listen: SocketAddr,
    pub db: PathBuf,
    pub seed: Seed,
    /// Synthetic subscriptions to add to the first project at start.
    pub generate_subscriptions: u64,
    /// Synthetic active members to add to the first organization at start.
    pub generate_members: u64,
    /// Per-key request limits; `None` serves without limits.
    pub rate_limit: Option<RateLimit>,
    /// Hold every answer this long (fault injection: a distant or slow server).
    pub delay: Option<std::time::Duration>,
    /// The server's time: for the demo data's dates, `created_at` and next
    /// deliveries. Tests hand in a manual clock so that the data, and the
    /// screens showing it, never change with the date.
    pub clock: Clock,
    /// The address clients reach the server at (behind a proxy, say);
    /// `None` for `http://` and the bound address.
    pub public_url: Option<String>,
    pub read_timeouts: ReadTimeouts,
    /// Which PostHog to behave as.
    pub flavor: Flavor,
    /// The plan's limit on a project's subscriptions (posthog.md 8.2-1);
    /// `None` for none.
    pub subscription_limit: Option<u64>,
    /// The most rows a page may hold (`serve --max-limit`); `None`, as in
    /// PostHog, for no limit on `limit`.
    pub max_limit: Option<u64>,
    /// The most insights a dashboard subscription may export
    /// (`serve --export-cap`, posthog.md 15-4).
    pub export_cap: usize,
    /// The plan's access control, the default resolution mode, and
    /// synthetic roles and projects with rules (posthog.md 16).
    pub access: access::AccessOptions,
    /// `members/:id/scoped_api_keys/` answers a personal API key too.
    /// Today's PostHog answers it to its web app's sessions alone and
    /// refuses every personal key (posthog.md 15-20), as this server does
    /// unless told so; the seed flavour answers it. For rehearsing what a
    /// session sees, and for tests of how a person's keys are shown.
    pub keys_listed: bool,
}

/// A free organization's cap on a dashboard subscription's insights
/// (posthog.md 15-4); paid plans have more.
pub const DEFAULT_EXPORT_CAP: usize = 6;

/// The ready line `serve` prints: where the server is and how to reach it.
#[derive(Debug, Clone, Serialize)]
pub struct Ready {
    pub base_url: String,
    pub organization_id: String,
    pub project_id: i64,
    /// An all-scopes key of the demo owner, minted when `--seed demo` filled
    /// an empty database.
    pub api_key: Option<String>,
}

/// A server running on this process's runtime.
pub struct RunningServer {
    pub ready: Ready,
    pub db: Db,
    /// The address the server listens on (`ready.base_url` may be a public
    /// address in front of it).
    address: SocketAddr,
    shutdown: Option<oneshot::Sender<()>>,
    task: JoinHandle<std::io::Result<()>>,
    deliveries: Option<(oneshot::Sender<()>, JoinHandle<()>)>,
}

impl RunningServer {
    /// The address the server listens on.
    pub fn local_address(&self) -> SocketAddr {
        self.address
    }

    /// Stops accepting, lets requests in flight finish, and waits.
    pub async fn stop(mut self) -> anyhow::Result<()> {
        if let Some(shutdown) = self.shutdown.take() {
            // The server may already have stopped; then there is no one to tell.
            let _ = shutdown.send(());
        }
        (&mut self.task).await.context("the server task failed")??;
        if let Some((stop, task)) = self.deliveries.take() {
            let _ = stop.send(());
            task.await.context("the delivery task failed")?;
        }
        Ok(())
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
    }
}

/// Opens the database, fills it when empty, binds and starts serving.
pub async fn start(options: ServeOptions) -> anyhow::Result<RunningServer> {
    let db_path = options.db.clone();
    let db = tokio::task::spawn_blocking(move || Db::open(&db_path))
        .await?
        .with_context(|| format!("cannot open the database {}", options.db.display()))?;
    let (seeded, generate, rules) = (
        options.seed,
        demo::Scale {
            subscriptions: options.generate_subscriptions,
            members: options.generate_members,
            roles: options.access.generate_roles,
            projects: options.access.generate_projects,
        },
        options.flavor.rules(),
    );
    let seed_time = options.clock.now();
    let seeding_db = db.clone();
    let seeded =
        tokio::task::spawn_blocking(move || demo::prepare(&seeding_db, seeded, generate, seed_time, rules))
            .await?
            .map_err(|error| anyhow::anyhow!("cannot prepare the database: {error:?}"))?;

    let listener = TcpListener::bind(options.listen)
        .await
        .with_context(|| format!("cannot listen on {}", options.listen))?;
    let address = listener.local_addr()?;
    let public_url = match options.public_url {
        Some(url) => url.trim_end_matches('/').to_string(),
        None => format!("http://{address}"),
    };
    let schedule_changed = std::sync::Arc::new(tokio::sync::Notify::new());
    let (stop_deliveries, deliveries_stopped) = oneshot::channel();
    let deliveries = delivery_task::spawn(
        db.clone(),
        options.clock.clone(),
        options.flavor.rules(),
        schedule_changed.clone(),
        deliveries_stopped,
    );
    let app = router(AppState {
        db: db.clone(),
        throttle: options
            .rate_limit
            .map(|limit| std::sync::Arc::new(throttle::Throttle::new(limit, options.clock.clone()))),
        delay: options.delay,
        clock: options.clock.clone(),
        public_url: public_url.clone(),
        read_timeouts: options.read_timeouts,
        flavor: options.flavor,
        test_deliveries: std::sync::Arc::new(throttle::Throttle::new(
            RateLimit {
                per_minute: 10,
                per_hour: 600,
            },
            options.clock.clone(),
        )),
        schedule_changed,
        subscription_limit: options.subscription_limit,
        max_limit: options.max_limit,
        export_cap: options.export_cap,
        access: options.access.for_flavor(options.flavor),
        keys_listed: options.keys_listed,
    });
    let (shutdown, shutdown_signal) = oneshot::channel::<()>();
    let task = tokio::spawn(accept(listener, app, options.read_timeouts, shutdown_signal));
    tracing::info!(%address, %public_url, "reference server listening");
    Ok(RunningServer {
        ready: Ready {
            base_url: public_url,
            organization_id: seeded.organization_id,
            project_id: seeded.project_id,
            api_key: seeded.api_key,
        },
        db,
        address,
        shutdown: Some(shutdown),
        task,
        deliveries: Some((stop_deliveries, deliveries)),
    })
}

/// The routes as one service.
type Routes = MapRequest<Router, fn(Request) -> Request>;

/// Accepts connections until told to stop, then lets the requests in
/// flight finish. Each connection speaks HTTP/1.1 with a header read
/// timeout, so that a client that never finishes its headers is let go.
async fn accept(
    listener: TcpListener,
    app: Routes,
    timeouts: ReadTimeouts,
    shutdown: oneshot::Receiver<()>,
) -> std::io::Result<()> {
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => stream,
                Err(error) => {
                    // Out of file descriptors, say: wait rather than spin.
                    tracing::warn!(%error, "cannot accept a connection");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "cannot set TCP_NODELAY");
        }
        let service = TowerToHyperService::new(
            app.clone()
                .map_request(|request: hyper::Request<Incoming>| request.map(axum::body::Body::new)),
        );
        let connection = http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(timeouts.header)
            .serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%error, "connection ended");
            }
        });
    }
    graceful.shutdown().await;
    Ok(())
}

/// Every route of api.md and compat.md. Paths answer with and without a
/// trailing slash: the slash is stripped before routing (the original address
/// is kept for paging links).
pub fn router(state: AppState) -> Routes {
    let mut routes = Router::new()
        .route("/api/organizations", get(pickers::organizations))
        .route("/api/organizations/{organization}", get(pickers::organization))
        .route("/api/organizations/{organization}/members", get(pickers::members))
        .route(
            "/api/organizations/{organization}/members/{user}",
            axum::routing::patch(members::update).delete(members::remove),
        )
        .route(
            "/api/organizations/{organization}/members/{user}/scoped_api_keys",
            get(members::scoped_api_keys),
        )
        .route(
            "/api/organizations/{organization}/roles",
            get(roles::list).post(roles::create),
        )
        .route(
            "/api/organizations/{organization}/roles/{id}",
            get(roles::retrieve)
                .patch(roles::update)
                .put(roles::replace)
                .delete(roles::delete),
        )
        .route(
            "/api/organizations/{organization}/roles/{role}/role_memberships",
            get(memberships::list).post(memberships::create),
        )
        .route(
            "/api/organizations/{organization}/roles/{role}/role_memberships/{id}",
            get(memberships::retrieve).delete(memberships::delete),
        )
        .route("/api/projects", get(pickers::projects))
        .route("/api/personal_api_keys/@current", get(pickers::current_key))
        .route("/api/users/@me", get(members::me));
    routes = routes::access::organization_routes(routes);
    // Today's PostHog answers every project path under /api/environments/
    // too (its legacy dual route).
    let prefixes: &[&str] = match state.flavor {
        Flavor::Current => &["/api/projects", "/api/environments"],
        Flavor::Seed => &["/api/projects"],
    };
    for prefix in prefixes {
        routes = routes
            .route(&format!("{prefix}/{{project}}"), get(pickers::project))
            .route(
                &format!("{prefix}/{{project}}/dashboards"),
                get(pickers::dashboards),
            )
            .route(
                &format!("{prefix}/{{project}}/dashboards/{{id}}"),
                get(integrations::dashboard),
            )
            .route(
                &format!("{prefix}/{{project}}/integrations"),
                get(integrations::list),
            )
            .route(
                &format!("{prefix}/{{project}}/integrations/{{id}}"),
                get(integrations::retrieve),
            )
            .route(
                &format!("{prefix}/{{project}}/integrations/{{id}}/channels"),
                get(integrations::channels),
            )
            .route(&format!("{prefix}/{{project}}/insights"), get(pickers::insights))
            .route(
                &format!("{prefix}/{{project}}/subscriptions"),
                get(subscriptions::list).post(subscriptions::create),
            )
            .route(
                &format!("{prefix}/{{project}}/subscriptions/{{id}}"),
                get(subscriptions::retrieve)
                    .patch(subscriptions::update)
                    .delete(subscriptions::delete),
            )
            .route(
                &format!("{prefix}/{{project}}/subscriptions/summary_quota"),
                get(subscriptions::deliveries::summary_quota),
            )
            .route(
                &format!("{prefix}/{{project}}/subscriptions/{{id}}/test-delivery"),
                axum::routing::post(subscriptions::deliveries::test_delivery),
            )
            .route(
                &format!("{prefix}/{{project}}/subscriptions/{{id}}/deliveries"),
                get(subscriptions::deliveries::list),
            )
            .route(
                &format!("{prefix}/{{project}}/subscriptions/{{id}}/deliveries/{{delivery}}"),
                get(subscriptions::deliveries::retrieve),
            );
        if state.flavor == Flavor::Current {
            routes = routes::access::project_routes(routes, prefix);
        }
    }
    let routes = routes
        .fallback(|| async { ApiError::not_found() })
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(body::BODY_LIMIT))
        .layer(axum::middleware::from_fn_with_state(state.clone(), delay_answers))
        .with_state(state);
    MapRequestLayer::new(strip_trailing_slash as fn(Request) -> Request).layer(routes)
}

/// Holds each answer for the configured delay, if any.
async fn delay_answers(
    axum::extract::State(state): axum::extract::State<AppState>,
    request: Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let response = next.run(request).await;
    if let Some(delay) = state.delay {
        tokio::time::sleep(delay).await;
    }
    response
}

/// A method the path does not allow, for an authenticated caller (an
/// unauthenticated one hears 401 first, as from PostHog).
async fn method_not_allowed(_caller: auth::Caller, method: Method) -> ApiError {
    ApiError::method_not_allowed(method.as_str())
}

fn strip_trailing_slash(mut request: Request) -> Request {
    let path = request.uri().path();
    if path.len() > 1 && path.ends_with('/') {
        let original = request.uri().clone();
        let trimmed = path.trim_end_matches('/');
        let rewritten = match original.query() {
            Some(query) => format!("{trimmed}?{query}"),
            None => trimmed.to_string(),
        };
        if let Ok(uri) = rewritten.parse() {
            request.extensions_mut().insert(OriginalUri(original));
            *request.uri_mut() = uri;
        }
    }
    request
}
