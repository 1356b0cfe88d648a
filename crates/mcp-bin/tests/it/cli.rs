//! End-to-end: the binary's HTTP and token command lines.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, ChildStderr, Stdio};
use std::thread::JoinHandle;

use crate::util::{Dir, command};

#[test]
fn token_new_prints_the_token_once_and_stores_only_its_hash() {
    let dir = Dir::new("token");
    let file = dir.path().join("tokens.jsonl");
    let output = command()
        .args(["token", "new", "--scopes", "flow,docs", "--tokens"])
        .arg(&file)
        .output()
        .expect("run");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let token = String::from_utf8(output.stdout).expect("utf-8");
    let token = token.trim();
    assert!(token.len() > 32, "{token}");
    let stored = std::fs::read_to_string(&file).expect("tokens file");
    assert!(!stored.contains(token), "the token itself is never stored");
    assert!(stored.contains("flow") && stored.contains("docs"));
    let bad = command()
        .args(["token", "new", "--scopes", "admin", "--tokens"])
        .arg(&file)
        .output()
        .expect("run");
    assert_eq!(bad.status.code(), Some(2));
    let missing = command()
        .args(["token", "new", "--scopes", "flow"])
        .output()
        .expect("run");
    assert_eq!(missing.status.code(), Some(2));
}

#[test]
fn http_refuses_unsafe_or_incomplete_command_lines() {
    let output = command()
        .args(["--http", "0.0.0.0:0"])
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("without a tokens file"), "{stderr}");
    let output = command().args(["--stateless"]).output().expect("run");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--stateless needs --http ADDR"));
    assert!(output.stdout.is_empty());
}

/// `botmesh-mcp --http 127.0.0.1:0`, running: the system picks a free port and the server
/// names it in its `listening` log line, which is read before any request is sent (no port
/// chosen in advance, no connection retried until the server is up).
struct HttpServer {
    child: Child,
    addr: SocketAddr,
    /// The rest of stderr, collected until the server exits.
    stderr: JoinHandle<String>,
}

impl HttpServer {
    /// Starts the server with `args` before `--http 127.0.0.1:0`.
    fn start(args: &[&str]) -> HttpServer {
        let mut child = command()
            .args(args)
            .args(["--http", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
        let mut seen = String::new();
        let addr = loop {
            let mut line = String::new();
            let read = stderr.read_line(&mut line).expect("read stderr");
            assert!(read > 0, "the server exited before listening: {seen}");
            seen.push_str(&line);
            if line.contains("listening over HTTP") {
                // `addr=127.0.0.1:1234` in text logs, `"addr":"127.0.0.1:1234"` in JSON ones.
                let rest = line
                    .split_once("addr=")
                    .or_else(|| line.split_once("\"addr\":\""))
                    .map(|(_, rest)| rest.trim_start_matches('"'))
                    .unwrap_or_else(|| panic!("the listening line names its address: {line}"));
                let addr: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ':')
                    .collect();
                break addr.parse().expect("a socket address");
            }
        };
        let stderr = std::thread::spawn(move || rest(stderr, seen));
        HttpServer {
            child,
            addr,
            stderr,
        }
    }

    /// Sends one `initialize` over a fresh connection; returns the raw HTTP response.
    fn initialize(&self) -> String {
        let mut stream = TcpStream::connect(self.addr).expect("connect");
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"cli","version":"1"}}}"#;
        write!(
            stream,
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.addr,
            body.len()
        )
        .expect("write");
        let mut response = String::new();
        stream.read_to_string(&mut response).expect("read");
        response
    }
}

impl HttpServer {
    /// Sends SIGTERM (Unix's; on Windows the server stops on Ctrl+C, which a test cannot send
    /// to one child process without `unsafe` code) and waits for the exit.
    #[cfg(unix)]
    fn terminate(&mut self) -> std::process::ExitStatus {
        let killed = std::process::Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill");
        assert!(killed.success());
        self.child.wait().expect("wait")
    }
}

/// Everything left on `stderr` until it closes, after what was `seen` already.
fn rest(mut stderr: BufReader<ChildStderr>, mut seen: String) -> String {
    let _ = stderr.read_to_string(&mut seen);
    seen
}

#[test]
fn http_serves_initialize_on_the_address_it_logs() {
    let mut server = HttpServer::start(&[]);
    assert!(server.addr.ip().is_loopback() && server.addr.port() != 0);
    let response = server.initialize();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(
        response.to_ascii_lowercase().contains("mcp-session-id:"),
        "{response}"
    );
    assert!(response.contains("\"protocolVersion\":\"2025-11-25\""));
    server.child.kill().expect("kill");
    server.child.wait().expect("wait");
    let _ = server.stderr.join();
}

/// SIGTERM is Unix's (see [`HttpServer::terminate`]).
#[cfg(unix)]
#[test]
fn http_stops_gracefully_on_sigterm() {
    let mut server = HttpServer::start(&[]);
    assert!(server.initialize().starts_with("HTTP/1.1 200"));
    let status = server.terminate();
    assert!(status.success(), "graceful shutdown exits 0: {status:?}");
    let mut stdout = String::new();
    server
        .child
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut stdout)
        .expect("read");
    assert!(
        stdout.is_empty(),
        "nothing on stdout in HTTP mode: {stdout}"
    );
    let stderr = server.stderr.join().expect("stderr");
    assert!(stderr.contains("SIGTERM received"), "{stderr}");
}

/// SIGTERM is Unix's (see [`HttpServer::terminate`]).
#[cfg(unix)]
#[test]
fn json_logs_and_health_probes() {
    let mut server = HttpServer::start(&["--log-format", "json"]);
    let mut stream = TcpStream::connect(server.addr).expect("connect");
    write!(
        stream,
        "GET /healthz HTTP/1.1\r\nHost: probe.internal\r\nConnection: close\r\n\r\n"
    )
    .expect("write");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("read");
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(response.ends_with("ok\n"), "{response}");
    assert!(server.terminate().success());
    let stderr = server.stderr.join().expect("stderr");
    let lines: Vec<serde_json::Value> = stderr
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    assert!(
        lines
            .iter()
            .any(|l| l["message"] == "SIGTERM received" && l["level"] == "INFO"),
        "{lines:?}"
    );
}

#[test]
fn operations_flags_are_checked() {
    for (args, expected) in [
        (
            &["--metrics", "127.0.0.1:0"][..],
            "--metrics needs --http ADDR",
        ),
        (&["--http", "0", "--log-format", "xml"][..], "--log-format"),
        (
            &["--http", "0", "--max-inflight-body", "lots"][..],
            "not a byte count",
        ),
    ] {
        let output = command().args(args).output().expect("run");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}
