//! The server's first page against nginx serving the same bytes, and pages
//! never asked before: `cargo bench --bench first_page` (issue 33,
//! requirements 3 and 5).
//!
//! At n listed subscriptions and then 2n (n·10/9 generated, one in ten
//! deleted; `BENCH_ROWS` sets n, default 50,000), it starts the release
//! server, reads its first page of subscriptions, and starts nginx serving
//! those very bytes from a file (`sendfile`, as many workers as cores, a
//! keep-alive connection kept for ever), on the same machine in the same
//! run. When nginx is not installed, a minimal static server stands in:
//! hyper serving the bytes from memory on its own two threads (said in
//! the output). Both are then loaded in turn, `BENCH_ROUNDS` rounds
//! (default 3) of `BENCH_SECONDS` each (default 5), from 16 keep-alive
//! connections by a light generator (`common::hammer`: a request written,
//! the answer read by its length); the medians are compared.
//!
//! Then pages never asked before, which no remembered answer helps: a
//! filter (`target_type=slack`), two orderings (`-title`,
//! `next_delivery_date`) and the plain list, each at offsets taken in a
//! scattered order, every request a new one. Each is printed with the
//! server's CPU per request and the machine's load, and the ratios of 2n
//! to n at the end.

// A benchmark's setup that fails has nothing to measure: it stops there, loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::{Figures, Served, cpu_time, get_request, hammer, load, median, setting};

const CONNECTIONS: usize = 16;

/// The server that serves the same bytes as a baseline.
enum Static {
    Nginx { master: Child, address: SocketAddr },
    StandIn { address: SocketAddr },
}

impl Static {
    fn address(&self) -> SocketAddr {
        match self {
            Static::Nginx { address, .. } | Static::StandIn { address } => *address,
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Static::Nginx { .. } => "nginx",
            Static::StandIn { .. } => "static stand-in (hyper, from memory)",
        }
    }

    /// CPU time of the serving processes (nginx's workers and master);
    /// none for the stand-in, which shares the bench's process.
    fn cpu(&self) -> Option<Duration> {
        match self {
            Static::Nginx { master, .. } => {
                let pid = master.id();
                let children =
                    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
                let workers = children
                    .split_whitespace()
                    .filter_map(|child| child.parse::<u32>().ok());
                Some(
                    std::iter::once(pid)
                        .chain(workers)
                        .map(cpu_time)
                        .sum::<Duration>(),
                )
            }
            Static::StandIn { .. } => None,
        }
    }
}

impl Drop for Static {
    fn drop(&mut self) {
        if let Static::Nginx { master, .. } = self {
            // SIGTERM: nginx's master stops its workers and leaves.
            let _ = Command::new("kill").arg(master.id().to_string()).status();
            let _ = master.wait();
        }
    }
}

fn free_port() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("address")
}

fn find_nginx() -> Option<std::path::PathBuf> {
    let path = std::env::var("PATH").unwrap_or_default();
    path.split(':')
        .chain(["/usr/sbin", "/usr/local/sbin", "/usr/local/nginx/sbin"])
        .map(|dir| Path::new(dir).join("nginx"))
        .find(|candidate| candidate.is_file())
}

/// nginx serving `body` at `/page.json`, or the stand-in when there is no
/// nginx.
fn start_static(dir: &Path, body: &bytes::Bytes) -> Static {
    let Some(nginx) = find_nginx() else {
        return stand_in(body.clone());
    };
    let root = dir.join("nginx");
    std::fs::create_dir_all(root.join("root")).expect("nginx directory");
    std::fs::write(root.join("root/page.json"), body).expect("page");
    // Workers run as an unprivileged user when started by root: the
    // files must be theirs to read.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for path in [dir, &root, &root.join("root"), &root.join("root/page.json")] {
            let mode = if path.is_dir() { 0o755 } else { 0o644 };
            let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode));
        }
    }
    let address = free_port();
    let config = format!(
        "daemon off;
worker_processes auto;
pid {root}/nginx.pid;
error_log {root}/error.log;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  sendfile on;
  tcp_nopush on;
  tcp_nodelay on;
  keepalive_requests 100000000;
  keepalive_timeout 300s;
  default_type application/json;
  client_body_temp_path {root}/temp;
  proxy_temp_path {root}/temp;
  fastcgi_temp_path {root}/temp;
  uwsgi_temp_path {root}/temp;
  scgi_temp_path {root}/temp;
  server {{
    listen {address};
    root {root}/root;
  }}
}}
",
        root = root.display()
    );
    std::fs::write(root.join("nginx.conf"), config).expect("nginx.conf");
    let mut command = Command::new(&nginx);
    command
        .arg("-p")
        .arg(&root)
        .arg("-c")
        .arg(root.join("nginx.conf"))
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // nginx's master dies with the benchmark and stops its workers.
    common::die_with_this_process(&mut command);
    let mut master = command.spawn().expect("nginx");
    for _ in 0..100 {
        if std::net::TcpStream::connect(address).is_ok() {
            return Static::Nginx { master, address };
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = master.kill();
    let _ = master.wait();
    panic!(
        "nginx did not start: {}",
        std::fs::read_to_string(root.join("error.log")).unwrap_or_default()
    );
}

/// A minimal static server: hyper answering every request with `body`,
/// on a runtime of two threads of its own.
fn stand_in(body: bytes::Bytes) -> Static {
    use hyper::service::service_fn;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let address = listener.local_addr().expect("address");
    listener.set_nonblocking(true).expect("nonblocking");
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let _ = stream.set_nodelay(true);
                let body = body.clone();
                tokio::spawn(async move {
                    let service = service_fn(move |_request| {
                        let body = body.clone();
                        async move {
                            hyper::Response::builder()
                                .header("content-type", "application/json")
                                .body(axum::body::Body::from(body))
                        }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                        .await;
                });
            }
        });
    });
    Static::StandIn { address }
}

/// A load's figures and the CPU per request of whom it loaded.
fn line(label: &str, figures: &Figures, cpu: Option<Duration>) -> String {
    let per_request = cpu.map_or("-".to_string(), |cpu| {
        format!("{:.1?}", cpu.div_f64(figures.per_second.max(1.0)))
    });
    format!(
        "  {label:<40} {:>7.0} requests/s  p50 {:>9.2?}  p99 {:>9.2?}  CPU/request {per_request:>8}  \
         {} bytes  ({} failed)",
        figures.per_second, figures.p50, figures.p99, figures.body_bytes, figures.failed
    )
}

struct AtSize {
    rows: u64,
    ours: f64,
    theirs: f64,
    uncached: Vec<(&'static str, f64)>,
}

async fn size(dir: &Path, rows: u64, rounds: usize, seconds: f64) -> AtSize {
    let generated = (rows * 10).div_ceil(9).to_string();
    let served = Served::start(
        dir,
        &format!("first-page-{rows}"),
        &["--generate-subscriptions", &generated],
    );
    let path = "/api/projects/@current/subscriptions/";
    let http = reqwest::Client::new();
    let first = http
        .get(format!("{}{path}", served.base))
        .bearer_auth(&served.key)
        .send()
        .await
        .expect("first page");
    assert!(first.status().is_success());
    let body = first.bytes().await.expect("body");
    let count = serde_json::from_slice::<serde_json::Value>(&body).expect("JSON")["count"]
        .as_u64()
        .expect("count");
    let baseline = start_static(&dir.join(format!("static-{rows}")), &body);
    println!(
        "\n{count} subscriptions listed, a first page of {} bytes; against {} ({}):",
        body.len(),
        baseline.name(),
        load()
    );
    let ours_request = vec![get_request(served.address, path, Some(&served.key))];
    let theirs_request = vec![get_request(baseline.address(), "/page.json", None)];
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for round in 1..=rounds {
        let from = baseline.cpu();
        let figures = hammer(baseline.address(), theirs_request.clone(), CONNECTIONS, seconds).await;
        let cpu = baseline
            .cpu()
            .zip(from)
            .map(|(to, from)| to.saturating_sub(from).div_f64(seconds));
        println!(
            "{}",
            line(&format!("round {round}: {}", baseline.name()), &figures, cpu)
        );
        theirs.push(figures.per_second);
        let from = served.cpu();
        let figures = hammer(served.address, ours_request.clone(), CONNECTIONS, seconds).await;
        let cpu = served.cpu().saturating_sub(from).div_f64(seconds);
        println!(
            "{}",
            line(&format!("round {round}: orgdeck serve"), &figures, Some(cpu))
        );
        ours.push(figures.per_second);
    }
    let per_second = |figures: &[f64]| {
        let times: Vec<Duration> = figures.iter().map(|f| Duration::from_secs_f64(*f)).collect();
        median(&times).as_secs_f64()
    };
    let (ours, theirs) = (per_second(&ours), per_second(&theirs));
    println!(
        "  first page, medians: orgdeck serve {ours:.0}/s, {} {theirs:.0}/s: {:.2} of it (issue 33 asks at least 0.5)  ({})",
        baseline.name(),
        ours / theirs,
        load()
    );
    drop(baseline);

    let mut uncached = Vec::new();
    for (label, query) in [
        ("target_type=slack", "target_type=slack&"),
        ("ordering=-title", "ordering=-title&"),
        ("ordering=next_delivery_date", "ordering=next_delivery_date&"),
        ("no filter, no ordering", ""),
    ] {
        let listed = http
            .get(format!("{}{path}?{query}limit=1", served.base))
            .bearer_auth(&served.key)
            .send()
            .await
            .expect("count")
            .json::<serde_json::Value>()
            .await
            .expect("JSON")["count"]
            .as_u64()
            .expect("count");
        // Offsets in a scattered order, none twice: no answer remembered
        // helps, and the pages land all over the list.
        let mut seen = std::collections::HashSet::new();
        let requests: Vec<Vec<u8>> = (0..listed)
            .map(|n| (n * 7_919 + 13) % listed)
            .filter(|offset| seen.insert(*offset))
            .take(200_000)
            .map(|offset| {
                get_request(
                    served.address,
                    &format!("{path}?{query}offset={offset}"),
                    Some(&served.key),
                )
            })
            .collect();
        let from = served.cpu();
        let figures = hammer(served.address, requests, CONNECTIONS, seconds).await;
        let cpu = served.cpu().saturating_sub(from).div_f64(seconds);
        println!(
            "{}",
            line(&format!("never asked before: {label}"), &figures, Some(cpu))
        );
        uncached.push((label, figures.per_second));
    }
    println!("  ({})", load());
    AtSize {
        rows: count,
        ours,
        theirs,
        uncached,
    }
}

fn main() {
    if !common::benchmarking("first_page") {
        return;
    }
    let rows: u64 = setting("BENCH_ROWS", 50_000);
    let rounds: usize = setting("BENCH_ROUNDS", 3).max(1);
    let seconds: f64 = setting("BENCH_SECONDS", 5.0);
    let dir = tempfile::tempdir().expect("temporary directory");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        println!(
            "{CONNECTIONS} keep-alive connections, {rounds} rounds of {seconds} s, pages of 100; {}",
            load()
        );
        let small = size(dir.path(), rows, rounds, seconds).await;
        let large = size(dir.path(), rows * 2, rounds, seconds).await;
        println!(
            "\nRatios, {} subscriptions against {} (the same is 1.00):",
            large.rows, small.rows
        );
        println!(
            "  first page: x{:.2} (against the static server: {:.2} then {:.2})",
            large.ours / small.ours,
            small.ours / small.theirs,
            large.ours / large.theirs
        );
        for ((label, small), (_, large)) in small.uncached.iter().zip(&large.uncached) {
            println!("  never asked before, {label:<28} x{:.2}", large / small);
        }
        println!("  ({})", load());
    });
}
