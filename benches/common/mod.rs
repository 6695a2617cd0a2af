//! Shared by the benchmarks that measure the server (`walk`, `first_page`,
//! `server`): the release server started as its own process, its CPU time
//! read from `/proc`, the machine's load, and a light HTTP/1.1 load
//! generator.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// `orgdeck serve`, started for a benchmark and stopped when dropped.
pub struct Served {
    child: Child,
    pub base: String,
    pub address: SocketAddr,
    pub key: String,
    pub organization: String,
    pub db: PathBuf,
    /// From start to the ready line.
    pub started_in: Duration,
}

impl Served {
    /// `orgdeck serve --seed demo` on a fresh database `dir/name.sqlite`
    /// with `args` added (what to generate).
    pub fn start(dir: &Path, name: &str, args: &[&str]) -> Served {
        let db = dir.join(format!("{name}.sqlite"));
        let started = Instant::now();
        let mut command = Command::new(env!("CARGO_BIN_EXE_orgdeck"));
        command
            .args(["serve", "--listen", "127.0.0.1:0", "--seed", "demo", "--db"])
            .arg(&db)
            .args(args)
            .env("ORGDECK_LOG", dir.join(format!("{name}.log")))
            .stdout(Stdio::piped());
        die_with_this_process(&mut command);
        let mut child = command.spawn().expect("orgdeck serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("ready line");
        let ready: serde_json::Value =
            serde_json::from_str(&line).unwrap_or_else(|_| panic!("ready line: {line:?}"));
        let base = ready["base_url"].as_str().expect("base_url").to_string();
        let address = base
            .trim_start_matches("http://")
            .parse()
            .expect("the server's address");
        Served {
            child,
            address,
            key: ready["api_key"].as_str().expect("api_key").to_string(),
            organization: ready["organization_id"]
                .as_str()
                .expect("organization_id")
                .to_string(),
            base,
            db,
            started_in: started.elapsed(),
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The server's CPU time (user and system) so far.
    pub fn cpu(&self) -> Duration {
        cpu_time(self.pid())
    }

    /// A commit by another process (a key minted beside the server):
    /// everything the server remembers of the data is forgotten, so that
    /// what follows is measured from nothing remembered. No list changes.
    pub fn forget(&self) {
        let status = Command::new(env!("CARGO_BIN_EXE_orgdeck"))
            .args(["keys", "create", "--scopes", "*", "--db"])
            .arg(&self.db)
            .stdout(Stdio::null())
            .status()
            .expect("orgdeck keys create");
        assert!(status.success(), "orgdeck keys create failed");
    }
}

/// Whether this run is `cargo bench`'s (which passes `--bench`): `cargo
/// test --all-targets` runs a benchmark's `main` too, unoptimised, where
/// these take many minutes; there they only say how to run them.
pub fn benchmarking(name: &str) -> bool {
    if std::env::args().any(|arg| arg == "--bench") {
        return true;
    }
    println!("{name}: run it with `cargo bench --bench {name}`");
    false
}

/// The child started by `command` is killed when this process ends, however
/// it ends (a benchmark stopped by a signal drops nothing), and inherits
/// none of its files but its standard ones: `flock LOCK cargo bench` passes
/// the lock down open, and a server left running would hold it for ever.
pub fn die_with_this_process(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec the closure calls two system calls
    // alone, which allocate nothing and take no lock.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // Every descriptor past stderr closed at exec (a kernel without
            // close_range leaves them: the death signal still holds).
            libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, libc::CLOSE_RANGE_CLOEXEC);
            Ok(())
        });
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// User and system CPU time of a process (all its threads, those ended
/// too) so far.
pub fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let fields: Vec<&str> = stat.rsplit(") ").next().unwrap_or("").split(' ').collect();
    let ticks: u64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i)?.parse::<u64>().ok())
        .sum();
    // Linux's USER_HZ is 100 on every architecture it runs on.
    Duration::from_millis(ticks * 10)
}

/// The machine's load averages (1, 5 and 15 minutes) and its cores.
pub fn load() -> String {
    let averages = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let averages: Vec<&str> = averages.split_whitespace().take(3).collect();
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    format!("load {} on {cores} cores", averages.join(" "))
}

/// The median of some durations (zero for none).
pub fn median(times: &[Duration]) -> Duration {
    let mut sorted = times.to_vec();
    sorted.sort();
    sorted.get(sorted.len() / 2).copied().unwrap_or_default()
}

/// Requests/s and latencies under load.
pub struct Figures {
    pub per_second: f64,
    pub p50: Duration,
    pub p99: Duration,
    pub failed: u64,
    /// Bytes of body received, per answer.
    pub body_bytes: u64,
}

/// `connections` keep-alive connections to `address` send `requests`
/// (whole HTTP/1.1 requests, taken in turn) for `seconds`, each waiting
/// for its answer before the next. The answer is read by its
/// `Content-Length` and only its status is looked at: the generator costs
/// a few system calls a request, so that what is measured is the server.
pub async fn hammer(
    address: SocketAddr,
    requests: Vec<Vec<u8>>,
    connections: usize,
    seconds: f64,
) -> Figures {
    let requests = Arc::new(requests);
    let stop = Arc::new(AtomicBool::new(false));
    let failed = Arc::new(AtomicU64::new(0));
    let bytes = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::new();
    for connection in 0..connections {
        let (requests, stop, failed, bytes) = (requests.clone(), stop.clone(), failed.clone(), bytes.clone());
        tasks.push(tokio::spawn(async move {
            let mut times = Vec::new();
            let mut stream = connect(address).await;
            let mut buffer = vec![0u8; 256 * 1024];
            let mut n = connection;
            while !stop.load(Ordering::Relaxed) {
                let request = &requests[n % requests.len()];
                n += connections;
                let at = Instant::now();
                match exchange(&mut stream, request, &mut buffer).await {
                    Ok((status, body)) if (200..300).contains(&status) => {
                        times.push(at.elapsed());
                        bytes.fetch_add(body, Ordering::Relaxed);
                    }
                    Ok(_) => {
                        failed.fetch_add(1, Ordering::Relaxed);
                    }
                    Err(_) => {
                        failed.fetch_add(1, Ordering::Relaxed);
                        stream = connect(address).await;
                    }
                }
            }
            times
        }));
    }
    let started = Instant::now();
    tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
    stop.store(true, Ordering::Relaxed);
    let mut times = Vec::new();
    for task in tasks {
        times.extend(task.await.expect("load task"));
    }
    let elapsed = started.elapsed().as_secs_f64();
    times.sort();
    let at = |p: f64| {
        times
            .get(((times.len().max(1) - 1) as f64 * p).round() as usize)
            .copied()
            .unwrap_or_default()
    };
    Figures {
        per_second: times.len() as f64 / elapsed,
        p50: at(0.5),
        p99: at(0.99),
        failed: failed.load(Ordering::Relaxed),
        body_bytes: bytes.load(Ordering::Relaxed) / times.len().max(1) as u64,
    }
}

async fn connect(address: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect(address).await.expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    stream
}

/// Sends one request and reads its whole answer: the status and the
/// body's length.
async fn exchange(stream: &mut TcpStream, request: &[u8], buffer: &mut [u8]) -> std::io::Result<(u16, u64)> {
    stream.write_all(request).await?;
    let mut held = 0;
    let (head_end, status, length) = loop {
        let read = stream.read(&mut buffer[held..]).await?;
        if read == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        held += read;
        if let Some(end) = buffer[..held].windows(4).position(|w| w == b"\r\n\r\n") {
            let head = std::str::from_utf8(&buffer[..end]).map_err(std::io::Error::other)?;
            let status = head
                .split(' ')
                .nth(1)
                .and_then(|code| code.parse::<u16>().ok())
                .ok_or_else(|| std::io::Error::other("no status"))?;
            let length = head
                .lines()
                .find_map(|line| {
                    let (name, value) = line.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse::<u64>().ok())
                        .flatten()
                })
                .ok_or_else(|| std::io::Error::other("no Content-Length"))?;
            break (end + 4, status, length);
        }
        if held == buffer.len() {
            return Err(std::io::Error::other("headers too long"));
        }
    };
    let mut left = length.saturating_sub((held - head_end) as u64);
    while left > 0 {
        let read = stream.read(buffer).await?;
        if read == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        left = left.saturating_sub(read as u64);
    }
    Ok((status, length))
}

/// A keep-alive GET of `path` with the key, as bytes to send.
pub fn get_request(address: SocketAddr, path: &str, key: Option<&str>) -> Vec<u8> {
    let authorization = key.map_or(String::new(), |key| format!("Authorization: Bearer {key}\r\n"));
    format!("GET {path} HTTP/1.1\r\nHost: {address}\r\n{authorization}Accept: application/json\r\n\r\n")
        .into_bytes()
}

/// `BENCH_*` settings from the environment.
pub fn setting<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}
