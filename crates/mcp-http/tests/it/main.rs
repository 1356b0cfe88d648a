//! Integration tests: a real server on a loopback port, raw HTTP/1.1 over `TcpStream`.
//!
//! Each test starts its own server on port 0 and stops it at the end; requests are written by
//! hand so every header (or its absence) is under the test's control.
#![expect(
    clippy::unwrap_used,
    reason = "test helpers outside #[test] functions panic on unexpected replies by design"
)]
mod apps;
mod limits;
mod operations;
mod safety;
mod same_words;
mod transport;

use botmesh_mcp::{ServerOptions, create_mcp_server};
use botmesh_mcp_http::{Error, HttpOptions, Listening, serve_with};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

/// Who uses loopback ports: the tests run in parallel, and the system may give a port freed by
/// one test's server at once to another's, so a test that checks that a stopped server's port
/// is closed must be alone ([`ports_to_myself`]).
#[derive(Debug)]
struct Ports {
    /// Running servers of the other tests.
    servers: usize,
    /// Whether a test has the ports to itself.
    alone: bool,
}

static PORTS: Mutex<Ports> = Mutex::new(Ports {
    servers: 0,
    alone: false,
});
static PORTS_CHANGED: Condvar = Condvar::new();

fn ports() -> MutexGuard<'static, Ports> {
    PORTS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// One running server counted in [`PORTS`] until dropped (also when its start panics).
struct SharedPorts;

/// Waits until no other test has the ports to itself, then counts one more server. A test may
/// run several servers at once (they never wait for each other).
fn share_ports() -> SharedPorts {
    let mut ports = ports();
    while ports.alone {
        ports = PORTS_CHANGED
            .wait(ports)
            .unwrap_or_else(PoisonError::into_inner);
    }
    ports.servers += 1;
    SharedPorts
}

impl Drop for SharedPorts {
    fn drop(&mut self) {
        ports().servers -= 1;
        PORTS_CHANGED.notify_all();
    }
}

/// The ports to one test until dropped: no other test's server runs meanwhile. Start the
/// test's own server with [`Server::start_holding_ports`].
#[must_use = "the ports are the test's only while the guard lives"]
pub(crate) struct PortsToMyself;

pub(crate) fn ports_to_myself() -> PortsToMyself {
    let mut ports = ports();
    while ports.alone || ports.servers > 0 {
        ports = PORTS_CHANGED
            .wait(ports)
            .unwrap_or_else(PoisonError::into_inner);
    }
    ports.alone = true;
    PortsToMyself
}

impl Drop for PortsToMyself {
    fn drop(&mut self) {
        ports().alone = false;
        PORTS_CHANGED.notify_all();
    }
}

/// A running server; stopped (gracefully) on drop.
pub(crate) struct Server {
    pub(crate) addr: SocketAddr,
    /// The `metrics_addr` listener, when the options asked for one.
    pub(crate) metrics: Option<SocketAddr>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<Result<(), Error>>>,
    /// Counted in [`PORTS`] (not when its test has them alone); released after the server has
    /// stopped, as fields drop after `drop`.
    _shared: Option<SharedPorts>,
}

impl Server {
    pub(crate) fn start(options: HttpOptions) -> Server {
        Self::start_with(ServerOptions::default(), options)
    }

    pub(crate) fn start_with(server: ServerOptions, options: HttpOptions) -> Server {
        let shared = share_ports();
        Self::launch(server, options, Some(shared))
    }

    /// Starts a server for a test that holds [`ports_to_myself`].
    pub(crate) fn start_holding_ports(options: HttpOptions) -> Server {
        Self::launch(ServerOptions::default(), options, None)
    }

    fn launch(server: ServerOptions, options: HttpOptions, shared: Option<SharedPorts>) -> Server {
        capture_logs();
        let options = options.with_addr("127.0.0.1:0".parse().unwrap());
        let options = match options.metrics_addr {
            Some(_) => options.with_metrics_addr(Some("127.0.0.1:0".parse().unwrap())),
            None => options,
        };
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (tx, rx) = std::sync::mpsc::channel();
        let server = create_mcp_server(server).expect("valid server options");
        let thread = std::thread::spawn(move || {
            serve_with(
                server,
                options,
                async move {
                    let _ = stopped.await;
                },
                move |listening: Listening| tx.send(listening).unwrap(),
            )
        });
        let listening = rx
            .recv_timeout(Duration::from_secs(10))
            .expect("server did not start");
        Server {
            addr: listening.http,
            metrics: listening.metrics,
            stop: Some(stop),
            thread: Some(thread),
            _shared: shared,
        }
    }

    /// Asks for a graceful shutdown and waits for `serve_with` to return.
    pub(crate) fn stop(mut self) -> Result<(), Error> {
        self.stop_inner()
    }

    /// Asks for a graceful shutdown without waiting; `join` waits for it.
    pub(crate) fn begin_stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }

    fn stop_inner(&mut self) -> Result<(), Error> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        match self.thread.take() {
            Some(thread) => thread.join().expect("server thread panicked"),
            None => Ok(()),
        }
    }

    pub(crate) fn host(&self) -> String {
        format!("127.0.0.1:{}", self.addr.port())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.stop_inner();
    }
}

/// A fresh temporary directory, unique per test name and process (removed on drop).
pub(crate) struct TempDir(pub(crate) PathBuf);

impl TempDir {
    pub(crate) fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("botmesh-http-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One parsed HTTP response.
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: String,
}

impl Reply {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.body))
    }
}

/// Parses a complete `Connection: close` response.
pub(crate) fn parse_reply(raw: &[u8]) -> Reply {
    let text = String::from_utf8_lossy(raw).into_owned();
    let (head, body) = text
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no head: {text:?}"));
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap();
    let status = status_line.split(' ').nth(1).unwrap().parse().unwrap();
    let headers = lines
        .map(|l| {
            let (n, v) = l.split_once(':').unwrap();
            (n.trim().to_owned(), v.trim().to_owned())
        })
        .collect();
    Reply {
        status,
        headers,
        body: body.to_owned(),
    }
}

pub(crate) fn connect(addr: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
}

pub(crate) fn read_all(stream: &mut TcpStream) -> Vec<u8> {
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    raw
}

/// Sends one request (adding `Host`, `Content-Length` and `Connection: close` unless given).
pub(crate) fn request(
    server: &Server,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Reply {
    let mut head = format!("{method} {path} HTTP/1.1\r\n");
    let has = |n: &str| headers.iter().any(|(h, _)| h.eq_ignore_ascii_case(n));
    if !has("host") {
        head.push_str(&format!("Host: {}\r\n", server.host()));
    }
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    let mut stream = connect(server.addr);
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body.as_bytes()).unwrap();
    parse_reply(&read_all(&mut stream))
}

pub(crate) const JSON: (&str, &str) = ("Content-Type", "application/json");
pub(crate) const ACCEPT: (&str, &str) = ("Accept", "application/json, text/event-stream");

/// A POST to `/mcp` with the usual `Accept` and `Content-Type` plus `extra` headers.
pub(crate) fn post(server: &Server, extra: &[(&str, &str)], body: &Value) -> Reply {
    let mut headers = vec![JSON, ACCEPT];
    headers.extend_from_slice(extra);
    request(server, "POST", "/mcp", &headers, &body.to_string())
}

pub(crate) fn initialize_message(revision: &str) -> Value {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": revision,
            "capabilities": {},
            "clientInfo": { "name": "it", "version": "1" }
        }
    })
}

/// Opens a session at `revision` (with `extra` headers, e.g. a bearer token); returns its id.
pub(crate) fn open_session(server: &Server, revision: &str, extra: &[(&str, &str)]) -> String {
    let reply = post(server, extra, &initialize_message(revision));
    assert_eq!(reply.status, 200, "{reply:?}");
    assert_eq!(reply.json()["result"]["protocolVersion"], revision);
    let id = reply
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    let mut headers = extra.to_vec();
    headers.push(("Mcp-Session-Id", &id));
    let done = post(
        server,
        &headers,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    assert_eq!(done.status, 202, "{done:?}");
    id
}

pub(crate) fn call(id: u64, tool: &str, arguments: Value) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": { "name": tool, "arguments": arguments }
    })
}

pub(crate) fn small_flow() -> Value {
    serde_json::from_str(botmesh_mcp::EXAMPLE_FLOW_DOCUMENT).unwrap()
}

/// A GET to `addr` (the server's or its metrics listener) with `Host: 127.0.0.1` and `extra`.
pub(crate) fn get(addr: SocketAddr, path: &str, extra: &[(&str, &str)]) -> Reply {
    let mut head = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n", addr.port());
    for (name, value) in extra {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("Connection: close\r\n\r\n");
    let mut stream = connect(addr);
    stream.write_all(head.as_bytes()).unwrap();
    parse_reply(&read_all(&mut stream))
}

/// The value of an unlabelled sample (`name value`) or of a sample with exactly these labels
/// (`name{labels} value`) in a Prometheus text page; 0 when absent.
pub(crate) fn sample(page: &str, series: &str) -> f64 {
    page.lines()
        .filter(|line| !line.starts_with('#'))
        .find_map(|line| {
            let (name, value) = line.rsplit_once(' ')?;
            (name == series).then(|| value.parse().unwrap())
        })
        .unwrap_or(0.0)
}

/// Polls `condition` every 10 ms until it holds, for at most 10 s: waiting on an event the test
/// can observe, never on a guessed duration.
pub(crate) fn wait_until(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !condition() {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Everything the server logged (all tests share one subscriber; filter by something unique).
pub(crate) fn logs() -> String {
    let buffer = LOGS.get().expect("capture installed");
    String::from_utf8_lossy(&buffer.lock().unwrap()).into_owned()
}

static LOGS: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();

struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn capture_logs() {
    LOGS.get_or_init(|| {
        let buffer = Arc::new(Mutex::new(Vec::new()));
        let writer = buffer.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(false)
            .with_max_level(tracing::Level::INFO)
            .with_writer(move || Capture(writer.clone()))
            .finish();
        tracing::subscriber::set_global_default(subscriber).unwrap();
        buffer
    });
}
