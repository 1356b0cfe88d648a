//! End-to-end: the binary's HTTP and token command lines.

use std::process::Command;
// The HTTP server is stopped with a signal: those tests are Unix-only.
#[cfg(unix)]
use std::io::{BufRead, BufReader, Read, Write};
#[cfg(unix)]
use std::net::TcpStream;
#[cfg(unix)]
use std::process::Stdio;

const BIN: &str = env!("CARGO_BIN_EXE_botmesh-mcp");

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("botmesh-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

#[test]
fn token_new_prints_the_token_once_and_stores_only_its_hash() {
    let dir = temp_dir("token");
    let file = dir.join("tokens.jsonl");
    let output = Command::new(BIN)
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
    let bad = Command::new(BIN)
        .args(["token", "new", "--scopes", "admin", "--tokens"])
        .arg(&file)
        .output()
        .expect("run");
    assert_eq!(bad.status.code(), Some(2));
    let missing = Command::new(BIN)
        .args(["token", "new", "--scopes", "flow"])
        .output()
        .expect("run");
    assert_eq!(missing.status.code(), Some(2));
}

#[test]
fn http_refuses_unsafe_or_incomplete_command_lines() {
    let output = Command::new(BIN)
        .args(["--http", "0.0.0.0:0"])
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("without a tokens file"), "{stderr}");
    let output = Command::new(BIN)
        .args(["--stateless"])
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--stateless needs --http ADDR"));
    assert!(output.stdout.is_empty());
}

/// Starts `botmesh-mcp ARGS --http 127.0.0.1:0` and reads the bound address from its log: no
/// port is picked, released and reused. (Stopping it takes a signal: Unix only.)
#[cfg(unix)]
fn spawn_http(
    args: &[&str],
) -> (
    std::process::Child,
    u16,
    BufReader<std::process::ChildStderr>,
) {
    let mut child = Command::new(BIN)
        .args(args)
        .args(["--http", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let mut line = String::new();
    let port = loop {
        line.clear();
        let read = stderr.read_line(&mut line).expect("read stderr");
        assert!(read > 0, "the server exited before listening");
        if line.contains("listening over HTTP") {
            // `addr=127.0.0.1:1234` in text logs, `"addr":"127.0.0.1:1234"` in JSON ones.
            let rest = line
                .split_once("addr=")
                .or_else(|| line.split_once("\"addr\":\""))
                .map(|(_, rest)| rest.trim_start_matches('"'))
                .expect("the address in the log line");
            let addr: String = rest
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ':')
                .collect();
            let addr: std::net::SocketAddr = addr.parse().expect("an address");
            break addr.port();
        }
    };
    (child, port, stderr)
}

#[cfg(unix)]
#[test]
fn http_serves_initialize_and_stops_on_sigterm() {
    let (mut child, port, stderr_reader) = spawn_http(&[]);
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"cli","version":"1"}}}"#;
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("write");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("read");
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(
        response.to_ascii_lowercase().contains("mcp-session-id:"),
        "{response}"
    );
    assert!(response.contains("\"protocolVersion\":\"2025-11-25\""));
    let pid = child.id().to_string();
    let killed = Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill");
    assert!(killed.success());
    let status = child.wait().expect("wait");
    assert!(status.success(), "graceful shutdown exits 0: {status:?}");
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut stdout)
        .expect("read");
    assert!(
        stdout.is_empty(),
        "nothing on stdout in HTTP mode: {stdout}"
    );
    let stderr: Vec<String> = stderr_reader.lines().map_while(Result::ok).collect();
    assert!(
        stderr.iter().any(|line| line.contains("SIGTERM received")),
        "{stderr:?}"
    );
}

#[cfg(unix)]
#[test]
fn json_logs_and_health_probes() {
    let (mut child, port, stderr_reader) = spawn_http(&["--log-format", "json"]);
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    write!(
        stream,
        "GET /healthz HTTP/1.1\r\nHost: probe.internal\r\nConnection: close\r\n\r\n"
    )
    .expect("write");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("read");
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(response.ends_with("ok\n"), "{response}");
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    assert!(child.wait().expect("wait").success());
    let lines: Vec<serde_json::Value> = stderr_reader
        .lines()
        .map_while(Result::ok)
        .map(|line| serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}")))
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
        let output = Command::new(BIN).args(args).output().expect("run");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}
