//! A fault-injecting HTTP proxy in front of a real reference server.
//!
//! Each connection carries one request (every answer says
//! `Connection: close`). Faults queued with [`FaultProxy::push`] apply to the
//! next requests in order; with none queued, the request is forwarded to the
//! server and its answer relayed. Every request line seen is recorded.
//!
//! [`FaultProxy::answer_matching`] answers every request whose request
//! line holds a text with a fixed answer (an endpoint PostHog refuses), and
//! [`FaultProxy::set_latency`] holds each request and each answer a while,
//! like a distant server.
//!
//! The server can also go away as a whole and come back on the same
//! address: [`FaultProxy::refuse`] closes the port (connections are
//! refused), [`FaultProxy::stop_answering`] takes requests and never
//! answers them, [`FaultProxy::come_back`] serves again.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

#[derive(Debug, Clone)]
pub enum Fault {
    /// Answer with this status and JSON body instead of forwarding.
    Answer(u16, String),
    /// Forward (so the server acts on it), then close without answering.
    ForwardThenDrop,
    /// Answer 200 with a body that is not JSON.
    Garbage,
    /// Never answer.
    Hang,
}

/// Whether the proxy's server is there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    /// Requests are served (faults queued first).
    Up,
    /// The port is closed: every connection is refused.
    Refusing,
    /// Connections are taken and requests read, but nothing answers them
    /// (until the server comes back, when they are closed unanswered).
    Silent,
}

#[derive(Clone)]
pub struct FaultProxy {
    pub base: String,
    faults: Arc<Mutex<VecDeque<Fault>>>,
    requests: Arc<Mutex<Vec<String>>>,
    /// What the server does now; the accept loop follows it.
    presence: Arc<watch::Sender<Presence>>,
    /// Whether the port is open: the accept loop tells it.
    listening: Arc<watch::Sender<bool>>,
    /// Requests whose line holds the text get the answer (status, body).
    matching: Arc<Mutex<Vec<(String, u16, String)>>>,
    /// Held before a request goes on, and again before its answer comes back.
    latency: Arc<Mutex<Duration>>,
}

impl FaultProxy {
    pub async fn start(upstream: &str) -> FaultProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let base = format!("http://{address}");
        let upstream = upstream.trim_start_matches("http://").to_string();
        let proxy = FaultProxy {
            base,
            faults: Arc::default(),
            requests: Arc::default(),
            presence: Arc::new(watch::channel(Presence::Up).0),
            listening: Arc::new(watch::channel(true).0),
            matching: Arc::default(),
            latency: Arc::default(),
        };
        let shared = proxy.clone();
        tokio::spawn(async move {
            let mut presence = shared.presence.subscribe();
            let mut listener = Some(listener);
            loop {
                match &listener {
                    Some(open) => tokio::select! {
                        accepted = open.accept() => {
                            let Ok((client, _)) = accepted else { break };
                            let (shared, upstream) = (shared.clone(), upstream.clone());
                            tokio::spawn(async move {
                                let _ = shared.serve(client, &upstream).await;
                            });
                        }
                        changed = presence.changed() => {
                            if changed.is_err() {
                                break;
                            }
                            if *presence.borrow_and_update() == Presence::Refusing {
                                listener = None;
                                shared.listening.send_replace(false);
                            }
                        }
                    },
                    None => {
                        if presence.changed().await.is_err() {
                            break;
                        }
                        if *presence.borrow_and_update() != Presence::Refusing {
                            listener = Some(rebind(address).await);
                            shared.listening.send_replace(true);
                        }
                    }
                }
            }
        });
        proxy
    }

    /// The server goes away: its port is closed, so every connection is
    /// refused, from the moment this returns.
    pub async fn refuse(&self) {
        self.presence.send_replace(Presence::Refusing);
        self.until_listening(false).await;
    }

    /// The server stops answering: connections are taken, requests read,
    /// and nothing comes back.
    pub async fn stop_answering(&self) {
        self.presence.send_replace(Presence::Silent);
        self.until_listening(true).await;
    }

    /// The server is back on the same address, from the moment this returns.
    pub async fn come_back(&self) {
        self.presence.send_replace(Presence::Up);
        self.until_listening(true).await;
    }

    async fn until_listening(&self, open: bool) {
        let mut listening = self.listening.subscribe();
        tokio::time::timeout(Duration::from_secs(10), listening.wait_for(|now| *now == open))
            .await
            .expect("the proxy's port follows")
            .expect("the proxy runs");
    }

    /// Answers every request whose request line holds `fragment` with this
    /// status and JSON body, from now on.
    pub fn answer_matching(&self, fragment: &str, status: u16, body: &str) {
        self.matching
            .lock()
            .unwrap()
            .push((fragment.to_string(), status, body.to_string()));
    }

    /// Holds each request this long before it goes on, and its answer as
    /// long again before it comes back (a round trip of twice `each_way`).
    pub fn set_latency(&self, each_way: Duration) {
        *self.latency.lock().unwrap() = each_way;
    }

    /// Queues a fault for the next request that reaches the proxy.
    pub fn push(&self, fault: Fault) {
        self.faults.lock().unwrap().push_back(fault);
    }

    /// The request lines seen so far ("POST /api/... HTTP/1.1").
    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }

    /// How many requests with this method reached the proxy.
    pub fn count(&self, method: &str) -> usize {
        let start = format!("{method} ");
        self.requests()
            .iter()
            .filter(|line| line.starts_with(&start))
            .count()
    }

    async fn serve(&self, mut client: TcpStream, upstream: &str) -> std::io::Result<()> {
        let Some(request) = read_request(&mut client).await? else {
            return Ok(());
        };
        let head = String::from_utf8_lossy(&request).to_string();
        self.requests
            .lock()
            .unwrap()
            .push(head.lines().next().unwrap_or_default().to_string());
        if *self.presence.borrow() == Presence::Silent {
            // Nothing answers; once the server is back, the connection closes.
            let mut presence = self.presence.subscribe();
            let _ = presence.wait_for(|now| *now != Presence::Silent).await;
            return Ok(());
        }
        let latency = *self.latency.lock().unwrap();
        if !latency.is_zero() {
            tokio::time::sleep(latency).await;
        }
        let line = head.lines().next().unwrap_or_default().to_string();
        let matched = self
            .matching
            .lock()
            .unwrap()
            .iter()
            .find(|(fragment, _, _)| line.contains(fragment.as_str()))
            .map(|(_, status, body)| (*status, body.clone()));
        if let Some((status, body)) = matched {
            if !latency.is_zero() {
                tokio::time::sleep(latency).await;
            }
            return client.write_all(&answer(status, &body)).await;
        }
        let fault = self.faults.lock().unwrap().pop_front();
        match fault {
            Some(Fault::Answer(status, body)) => client.write_all(&answer(status, &body)).await,
            Some(Fault::Garbage) => {
                client
                    .write_all(&answer(200, "<html>upstream error</html>"))
                    .await
            }
            Some(Fault::Hang) => {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                Ok(())
            }
            Some(Fault::ForwardThenDrop) => {
                forward(&request, upstream).await?;
                Ok(()) // the client connection closes unanswered
            }
            None => {
                let response = forward(&request, upstream).await?;
                if !latency.is_zero() {
                    tokio::time::sleep(latency).await;
                }
                client.write_all(&response).await
            }
        }
    }
}

/// The proxy's address again, once its port was closed (tokio sets
/// `SO_REUSEADDR`; a few tries cover a port still being released).
async fn rebind(address: std::net::SocketAddr) -> TcpListener {
    for _ in 0..100 {
        if let Ok(listener) = TcpListener::bind(address).await {
            return listener;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("cannot listen on {address} again");
}

fn answer(status: u16, body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 {status} Fault\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Reads one request: the head, then as many body bytes as it announces.
async fn read_request(client: &mut TcpStream) -> std::io::Result<Option<Vec<u8>>> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        let read = client.read(&mut chunk).await?;
        if read == 0 {
            return Ok(None);
        }
        buffer.extend_from_slice(&chunk[..read]);
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or(0);
    while buffer.len() < head_end + length {
        let read = client.read(&mut chunk).await?;
        if read == 0 {
            break;
        }
        buffer.extend_from_slice(&chunk[..read]);
    }
    Ok(Some(rewrite_connection(&buffer, head_end)))
}

/// Makes the request close its connection, so that the whole answer can be
/// read to the end.
fn rewrite_connection(request: &[u8], head_end: usize) -> Vec<u8> {
    let head = String::from_utf8_lossy(&request[..head_end - 4]);
    let mut lines: Vec<&str> = head
        .split("\r\n")
        .filter(|line| !line.to_ascii_lowercase().starts_with("connection:"))
        .collect();
    lines.push("Connection: close");
    let mut out = lines.join("\r\n").into_bytes();
    out.extend_from_slice(b"\r\n\r\n");
    out.extend_from_slice(&request[head_end..]);
    out
}

async fn forward(request: &[u8], upstream: &str) -> std::io::Result<Vec<u8>> {
    let mut server = TcpStream::connect(upstream).await?;
    server.write_all(request).await?;
    let mut response = Vec::new();
    server.read_to_end(&mut response).await?;
    Ok(response)
}
