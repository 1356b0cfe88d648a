//! Rate limits, the body limit and slow clients.
use crate::*;
use botmesh_mcp_http::HttpOptions;
use serde_json::json;
use std::io::Write;
use std::time::{Duration, Instant};

#[test]
fn the_rate_limit_answers_429_with_retry_after() {
    let server = Server::start(
        HttpOptions::default()
            .with_stateless(true)
            .with_rate_limit_per_minute(3),
    );
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    for _ in 0..3 {
        assert_eq!(post(&server, &[], &ping).status, 200);
    }
    let limited = post(&server, &[], &ping);
    assert_eq!(limited.status, 429);
    let wait: u64 = limited.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=20).contains(&wait), "{wait}");
}

#[test]
fn an_oversized_declared_body_is_refused_before_it_is_sent() {
    let server = Server::start(HttpOptions::default().with_max_body_bytes(Some(1024)));
    let mut stream = connect(server.addr);
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: 104857600\r\n\r\n",
        server.host()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(b"{\"jsonrpc\":").unwrap();
    // The answer comes although 100 MB were announced and almost none sent.
    let reply = parse_reply(&read_all(&mut stream));
    assert_eq!(reply.status, 413);
    assert_eq!(reply.json()["error"]["code"], -32600);
}

#[test]
fn an_oversized_chunked_body_is_refused_while_streaming() {
    let server = Server::start(HttpOptions::default().with_max_body_bytes(Some(1024)));
    let mut stream = connect(server.addr);
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
        server.host()
    );
    stream.write_all(head.as_bytes()).unwrap();
    let chunk = "x".repeat(800);
    for _ in 0..2 {
        stream
            .write_all(format!("{:x}\r\n{chunk}\r\n", chunk.len()).as_bytes())
            .unwrap();
    }
    // No terminating chunk: the server must decide from what it has.
    let reply = parse_reply(&read_all(&mut stream));
    assert_eq!(reply.status, 413);

    // Exactly at the limit is fine.
    let at_limit = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "", "version": ""}}});
    let mut text = at_limit.to_string();
    text.push_str(&" ".repeat(1024 - text.len()));
    assert_eq!(
        request(&server, "POST", "/mcp", &[JSON, ACCEPT], &text).status,
        200
    );
    text.push(' ');
    assert_eq!(
        request(&server, "POST", "/mcp", &[JSON, ACCEPT], &text).status,
        413
    );
}

#[test]
fn a_stalled_body_times_out_with_408() {
    let timeout = Duration::from_millis(300);
    let server = Server::start(HttpOptions::default().with_request_timeout(timeout));
    let mut stream = connect(server.addr);
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: 100\r\n\r\n{{\"jsonrpc\"",
        server.host()
    );
    let start = Instant::now();
    stream.write_all(head.as_bytes()).unwrap();
    let reply = parse_reply(&read_all(&mut stream));
    assert_eq!(reply.status, 408);
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn stalled_headers_close_the_connection() {
    let server =
        Server::start(HttpOptions::default().with_request_timeout(Duration::from_millis(300)));
    let mut stream = connect(server.addr);
    let start = Instant::now();
    stream
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .unwrap();
    let raw = read_all(&mut stream);
    let elapsed = start.elapsed();
    assert!(elapsed < Duration::from_secs(5), "closed after {elapsed:?}");
    let text = String::from_utf8_lossy(&raw);
    assert!(
        text.is_empty() || text.starts_with("HTTP/1.1 408"),
        "{text}"
    );
}

// Graceful shutdown is tested with readiness in operations.rs, ordered by events.
