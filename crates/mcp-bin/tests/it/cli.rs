//! End-to-end: the binary's HTTP and token command lines.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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

#[test]
fn http_serves_initialize_and_stops_on_sigterm() {
    // Pick a free port, then hand it to the server.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let mut child = Command::new(BIN)
        .args(["--http", &format!("127.0.0.1:{port}")])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let started = Instant::now();
    let mut stream = loop {
        match TcpStream::connect(("127.0.0.1", port)) {
            Ok(stream) => break stream,
            Err(_) if started.elapsed() < Duration::from_secs(10) => {
                std::thread::sleep(Duration::from_millis(20))
            }
            Err(error) => panic!("the server never listened: {error}"),
        }
    };
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
    let stderr: Vec<String> = BufReader::new(child.stderr.take().expect("stderr"))
        .lines()
        .map_while(Result::ok)
        .collect();
    assert!(
        stderr.iter().any(|line| line.contains("listening")),
        "{stderr:?}"
    );
}
