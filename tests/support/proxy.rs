//! A fault-injecting HTTP proxy in front of a real reference server.
//!
//! Each connection carries one request (every answer says
//! `Connection: close`). Faults queued with [`FaultProxy::push`] apply to the
//! next requests in order; with none queued, the request is forwarded to the
//! server and its answer relayed. Every request line seen is recorded.
//!
//! The server can also go away as a whole and come back on the same
//! address: [`FaultProxy::refuse`] closes the port (connections are
//! refused), [`FaultProxy::stop_answering`] takes requests and never
//! answers them, [`FaultProxy::come_back`] serves again.
//!
//! A slow server, held at a chosen moment: [`FaultProxy::hold`] lets the
//! first requests of a method through and keeps the next ones, unforwarded,
//! until [`FaultProxy::release`] sends them on or
//! [`FaultProxy::drop_held`] closes them unanswered (the server never sees
//! them), so that a test can stop a client between two known requests.
//!
//! And it can lie about a list: [`FaultProxy::cut_list`] ends a list
//! early under the server's true count.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{oneshot, watch};

#[derive(Debug, Clone)]
pub enum Fault {
    /// Answer with this status and JSON body instead of forwarding.
    Answer(u16, String),
    /// Forward (so the server acts on it), then close without answering.
    ForwardThenDrop,
    /// Forward (so the server acts on it), then answer this status and
    /// JSON body in place of the server's answer: PostHog of July 2026
    /// saves a subscription and then answers 500 (posthog.md 15-20).
    ForwardThenAnswer(u16, String),
    /// Forward (so the server acts on it), then keep the connection open
    /// and never answer: the client is killed while it waits.
    ForwardThenHold,
    /// Hold the request, unanswered and not forwarded, until the test calls
    /// [`FaultProxy::release`]; then forward it and relay the answer.
    Hold,
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

/// A fault, with the text its request line must hold (`None`: any).
type Queued = (Option<String>, Fault);

#[derive(Clone)]
pub struct FaultProxy {
    pub base: String,
    faults: Arc<Mutex<VecDeque<Queued>>>,
    /// Faults for the requests whose line starts with a prefix, after
    /// letting a number of them pass: (prefix, still to pass, fault).
    rules: Arc<Mutex<Vec<(String, usize, Fault)>>>,
    /// Set once [`FaultProxy::release`] lets `Fault::Hold` requests go on.
    released: Arc<watch::Sender<bool>>,
    requests: Arc<Mutex<Vec<String>>>,
    /// What the server does now; the accept loop follows it.
    presence: Arc<watch::Sender<Presence>>,
    /// Whether the port is open: the accept loop tells it.
    listening: Arc<watch::Sender<bool>>,
    hold: Arc<Mutex<Option<Hold>>>,
    /// How many requests are held now (by [`FaultProxy::hold`],
    /// `Fault::Hold` or `Fault::ForwardThenHold`).
    held: Arc<watch::Sender<usize>>,
    /// Lists ended early: (how their path ends, the rows they end after).
    cuts: Arc<Mutex<Vec<(String, u64)>>>,
}

/// Requests of `method` past the first `pass` are kept back.
struct Hold {
    method: String,
    pass: usize,
    seen: usize,
    /// Each held request's answer: `true` forwards it, dropped closes it.
    waiting: Vec<oneshot::Sender<bool>>,
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
            rules: Arc::default(),
            released: Arc::new(watch::channel(false).0),
            requests: Arc::default(),
            presence: Arc::new(watch::channel(Presence::Up).0),
            listening: Arc::new(watch::channel(true).0),
            hold: Arc::default(),
            held: Arc::new(watch::channel(0).0),
            cuts: Arc::default(),
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

    /// From now on, requests with `method` past the first `pass` are held
    /// back, unforwarded.
    pub fn hold(&self, method: &str, pass: usize) {
        *self.hold.lock().unwrap() = Some(Hold {
            method: format!("{method} "),
            pass,
            seen: 0,
            waiting: Vec::new(),
        });
        self.held.send_replace(0);
    }

    /// Waits until `count` requests are held.
    pub async fn until_held(&self, count: usize) {
        let mut held = self.held.subscribe();
        tokio::time::timeout(Duration::from_secs(30), held.wait_for(|now| *now >= count))
            .await
            .unwrap_or_else(|_| panic!("{count} requests were never held"))
            .expect("the proxy runs");
    }

    /// Forwards the held requests and holds no more (those held by
    /// `Fault::Hold` too, now and from now on).
    pub fn release(&self) {
        self.released.send_replace(true);
        self.end_hold(true);
    }

    /// Closes the held requests unanswered (the server never sees them)
    /// and holds no more.
    pub fn drop_held(&self) {
        self.end_hold(false);
    }

    fn end_hold(&self, forward: bool) {
        if let Some(hold) = self.hold.lock().unwrap().take() {
            for waiting in hold.waiting {
                let _ = waiting.send(forward);
            }
        }
        self.held.send_replace(0);
    }

    /// Whether this request is held; `Some` waits for its fate.
    fn held_back(&self, line: &str) -> Option<oneshot::Receiver<bool>> {
        let mut hold = self.hold.lock().unwrap();
        let hold = hold.as_mut().filter(|hold| line.starts_with(&hold.method))?;
        hold.seen += 1;
        if hold.seen <= hold.pass {
            return None;
        }
        let (sender, receiver) = oneshot::channel();
        hold.waiting.push(sender);
        self.held.send_replace(hold.waiting.len());
        Some(receiver)
    }

    /// Queues a fault for the next request that reaches the proxy.
    pub fn push(&self, fault: Fault) {
        self.faults.lock().unwrap().push_back((None, fault));
    }

    /// Queues a fault for the next request whose request line holds
    /// `text` (`/deliveries/`); other requests pass it by.
    pub fn push_on(&self, text: &str, fault: Fault) {
        self.faults
            .lock()
            .unwrap()
            .push_back((Some(text.to_string()), fault));
    }

    /// From now on, every list whose path ends with `path_end`
    /// (`/subscriptions/`) ends after `after` rows: its pages past them come
    /// empty and the page that holds the last one says there is no `next`,
    /// while each keeps the server's true `count`.
    pub fn cut_list(&self, path_end: &str, after: u64) {
        self.cuts.lock().unwrap().push((path_end.to_string(), after));
    }

    /// Queues a fault for a request whose line starts with `prefix`
    /// ("POST /api/projects/1/subscriptions/"), after `pass` such requests
    /// went through untouched.
    pub fn push_for(&self, prefix: &str, pass: usize, fault: Fault) {
        self.rules.lock().unwrap().push((prefix.to_string(), pass, fault));
    }

    /// The fault for a request line: a matching rule's, else the first
    /// queued one meant for it.
    fn fault_for(&self, line: &str) -> Option<Fault> {
        let mut rules = self.rules.lock().unwrap();
        if let Some(index) = rules
            .iter()
            .position(|(prefix, ..)| line.starts_with(prefix.as_str()))
        {
            let rule = &mut rules[index];
            if rule.1 == 0 {
                return Some(rules.remove(index).2);
            }
            rule.1 -= 1;
            return None;
        }
        drop(rules);
        let mut faults = self.faults.lock().unwrap();
        let at = faults
            .iter()
            .position(|(on, _)| on.as_deref().is_none_or(|text| line.contains(text)));
        at.and_then(|at| faults.remove(at)).map(|(_, fault)| fault)
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
        let line = head.lines().next().unwrap_or_default().to_string();
        self.requests.lock().unwrap().push(line.clone());
        if let Some(fate) = self.held_back(&line)
            && fate.await != Ok(true)
        {
            return Ok(()); // closed unanswered, never forwarded
        }
        if *self.presence.borrow() == Presence::Silent {
            // Nothing answers; once the server is back, the connection closes.
            let mut presence = self.presence.subscribe();
            let _ = presence.wait_for(|now| *now != Presence::Silent).await;
            return Ok(());
        }
        let fault = self.fault_for(&line);
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
            Some(Fault::ForwardThenAnswer(status, body)) => {
                forward(&request, upstream).await?;
                client.write_all(&answer(status, &body)).await
            }
            Some(Fault::ForwardThenHold) => {
                forward(&request, upstream).await?;
                self.held.send_modify(|held| *held += 1);
                tokio::time::sleep(Duration::from_secs(3600)).await;
                Ok(())
            }
            Some(Fault::Hold) => {
                self.held.send_modify(|held| *held += 1);
                let mut released = self.released.subscribe();
                let _ = released.wait_for(|now| *now).await;
                let response = forward(&request, upstream).await?;
                client.write_all(&response).await
            }
            None => {
                let mut response = forward(&request, upstream).await?;
                if let Some((offset, after)) = self.cut_of(&head) {
                    response = cut(&response, offset, after).unwrap_or(response);
                }
                client.write_all(&response).await
            }
        }
    }
}

impl FaultProxy {
    /// The offset a GET of a cut list asks for, and where the list ends.
    fn cut_of(&self, head: &str) -> Option<(u64, u64)> {
        let target = head.strip_prefix("GET ")?.split(' ').next()?;
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        let after = self
            .cuts
            .lock()
            .unwrap()
            .iter()
            .find(|(end, _)| path.ends_with(end.as_str()))
            .map(|(_, after)| *after)?;
        let offset = form_urlencoded::parse(query.as_bytes())
            .find(|(name, _)| name == "offset")
            .and_then(|(_, value)| value.parse().ok())
            .unwrap_or(0);
        Some((offset, after))
    }
}

/// A 200 page of a list, its rows from `offset` on, cut to end after
/// `after` rows of the list; `None` for any other answer.
fn cut(response: &[u8], offset: u64, after: u64) -> Option<Vec<u8>> {
    let head_end = response.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let head = String::from_utf8_lossy(&response[..head_end]).to_ascii_lowercase();
    if !head.starts_with("http/1.1 200") {
        return None;
    }
    let body = if head.contains("transfer-encoding: chunked") {
        unchunk(&response[head_end..])?
    } else {
        response[head_end..].to_vec()
    };
    let mut page: serde_json::Value = serde_json::from_slice(&body).ok()?;
    let results = page.get_mut("results")?.as_array_mut()?;
    let keep = after.saturating_sub(offset) as usize;
    results.truncate(keep);
    if offset + results.len() as u64 >= after {
        page["next"] = serde_json::Value::Null;
    }
    let body = page.to_string();
    Some(
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .into_bytes(),
    )
}

/// A chunked body's bytes.
fn unchunk(mut body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = body.windows(2).position(|w| w == b"\r\n")?;
        let size_text = String::from_utf8_lossy(&body[..line_end]);
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        body = &body[line_end + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(body.get(..size)?);
        body = body.get(size + 2..)?;
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
