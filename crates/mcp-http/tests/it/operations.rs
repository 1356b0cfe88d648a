//! What an operator relies on: the body budget and the per-token cap decided from headers,
//! health, readiness and metrics, the audit file, SIGHUP, and sessions shared by instances.
use crate::*;
use botmesh_mcp_http::{HttpOptions, new_token};
use serde_json::json;
use std::io::Write;
use std::net::TcpStream;

fn metrics_page(server: &Server) -> String {
    let reply = get(server.metrics.expect("a metrics listener"), "/metrics", &[]);
    assert_eq!(reply.status, 200, "{reply:?}");
    reply.body
}

/// Sends a POST's head and `sent` bytes of a `length`-byte body, and leaves it in flight.
fn start_post(server: &Server, extra: &[(&str, &str)], length: usize, sent: &str) -> TcpStream {
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: {length}\r\nConnection: close\r\n",
        server.host()
    );
    for (name, value) in extra {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    head.push_str(sent);
    let mut stream = connect(server.addr);
    stream.write_all(head.as_bytes()).unwrap();
    stream
}

/// An `initialize` padded with spaces to exactly `length` bytes.
fn padded_initialize(length: usize) -> String {
    let mut text = initialize_message("2025-11-25").to_string();
    assert!(text.len() <= length);
    text.push_str(&" ".repeat(length - text.len()));
    text
}

fn bytes_in_flight(server: &Server) -> f64 {
    sample(
        &metrics_page(server),
        "botmesh_mcp_http_body_bytes_in_flight",
    )
}

#[test]
fn a_full_body_budget_answers_503_before_the_body_and_frees_on_completion() {
    let server = Server::start(
        HttpOptions::default()
            .with_rate_limit_per_minute(0)
            .with_max_inflight_body(6000)
            .with_metrics_addr(Some("127.0.0.1:0".parse().unwrap())),
    );
    let body = padded_initialize(800);
    // The first request holds twice its 800 bytes (bytes, then parsed) while its body arrives.
    let mut first = start_post(&server, &[], body.len(), &body[..10]);
    wait_until("the first body's reservation", || {
        bytes_in_flight(&server) == 1600.0
    });
    // The second announces 2300 bytes (4600 more): refused from its headers alone.
    let mut second = start_post(&server, &[], 2300, "");
    let refused = parse_reply(&read_all(&mut second));
    assert_eq!(refused.status, 503, "{refused:?}");
    assert_eq!(refused.header("retry-after"), Some("1"));
    assert_eq!(refused.json()["error"]["code"], -32000);
    // A body larger than half the budget could never fit: 413, not an endless 503.
    let mut huge = start_post(&server, &[], 3001, "");
    assert_eq!(parse_reply(&read_all(&mut huge)).status, 413);
    // The first finishes normally, and its bytes go back to the budget.
    first.write_all(&body.as_bytes()[10..]).unwrap();
    assert_eq!(parse_reply(&read_all(&mut first)).status, 200);
    wait_until("the budget to empty", || bytes_in_flight(&server) == 0.0);
    let page = metrics_page(&server);
    assert_eq!(
        sample(&page, "botmesh_mcp_http_budget_refused_total"),
        1.0,
        "{page}"
    );
    assert_eq!(
        request(&server, "POST", "/mcp", &[JSON, ACCEPT], &body).status,
        200
    );
}

#[test]
fn a_chunked_body_that_outgrows_the_budget_answers_503() {
    let server = Server::start(
        HttpOptions::default()
            .with_rate_limit_per_minute(0)
            .with_max_inflight_body(20_000)
            .with_metrics_addr(Some("127.0.0.1:0".parse().unwrap())),
    );
    // Another request holds 6000 of the 20,000 bytes.
    let held_body = padded_initialize(3000);
    let mut held = start_post(&server, &[], held_body.len(), &held_body[..10]);
    wait_until("the held reservation", || {
        bytes_in_flight(&server) == 6000.0
    });
    let chunked_head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        server.host()
    );
    let mut stream = connect(server.addr);
    stream.write_all(chunked_head.as_bytes()).unwrap();
    let chunk = "x".repeat(2000);
    // 8000 bytes count 16,000, more than the 14,000 left (and within the 10,000-byte limit).
    for _ in 0..4 {
        let _ = stream.write_all(format!("{:x}\r\n{chunk}\r\n", chunk.len()).as_bytes());
    }
    let reply = parse_reply(&read_all(&mut stream));
    assert_eq!(reply.status, 503, "{reply:?}");
    assert_eq!(reply.header("retry-after"), Some("1"));
    held.write_all(&held_body.as_bytes()[10..]).unwrap();
    assert_eq!(parse_reply(&read_all(&mut held)).status, 200);
    // A chunked body within the budget is served.
    let text = padded_initialize(2000);
    let mut stream = connect(server.addr);
    stream.write_all(chunked_head.as_bytes()).unwrap();
    stream
        .write_all(format!("{:x}\r\n{text}\r\n0\r\n\r\n", text.len()).as_bytes())
        .unwrap();
    assert_eq!(parse_reply(&read_all(&mut stream)).status, 200);
}

#[test]
fn a_body_whose_parsed_form_exceeds_the_budget_answers_413() {
    let server = Server::start(
        HttpOptions::default()
            .with_rate_limit_per_minute(0)
            .with_max_inflight_body(64 * 1024),
    );
    // About 12 KiB of tiny objects: within the 32 KiB body limit, about 1 MiB once parsed.
    let mut message = call(1, "flow_digest", json!({}));
    message["params"]["arguments"]["document"] = json!({ "steps": vec![json!({"a": 1}); 1500] });
    let text = message.to_string();
    assert!(text.len() < 32 * 1024, "{}", text.len());
    let reply = request(&server, "POST", "/mcp", &[JSON, ACCEPT], &text);
    assert_eq!(reply.status, 413, "{reply:?}");
    // As many bytes in one string parse to about their size: served.
    let mut flat = initialize_message("2025-11-25");
    flat["params"]["clientInfo"]["name"] = json!("x".repeat(text.len()));
    let reply = request(&server, "POST", "/mcp", &[JSON, ACCEPT], &flat.to_string());
    assert_eq!(reply.status, 200, "{reply:?}");
}

#[test]
fn tokens_and_the_per_token_cap_are_decided_from_headers() {
    let dir = TempDir::new("ops-cap");
    let file = dir.0.join("tokens.jsonl");
    let scopes = vec!["flow".to_owned(), "docs".to_owned()];
    let a = format!("Bearer {}", new_token(&file, &scopes).unwrap());
    let b = format!("Bearer {}", new_token(&file, &scopes).unwrap());
    let server = Server::start(
        HttpOptions::default()
            .with_rate_limit_per_minute(0)
            .with_tokens_file(Some(file))
            .with_max_concurrent_per_token(1)
            .with_metrics_addr(Some("127.0.0.1:0".parse().unwrap())),
    );
    // Without a token: 401 at once, although 10 MB are announced and none sent.
    let mut anonymous = start_post(&server, &[], 10_000_000, "");
    assert_eq!(parse_reply(&read_all(&mut anonymous)).status, 401);
    let body = padded_initialize(400);
    let mut held = start_post(&server, &[("Authorization", &a)], body.len(), &body[..5]);
    wait_until("the held request", || {
        sample(&metrics_page(&server), "botmesh_mcp_http_bodies_in_flight") == 1.0
    });
    let mut second = start_post(&server, &[("Authorization", &a)], body.len(), "");
    let refused = parse_reply(&read_all(&mut second));
    assert_eq!(refused.status, 429, "{refused:?}");
    assert_eq!(refused.header("retry-after"), Some("1"));
    let other = request(
        &server,
        "POST",
        "/mcp",
        &[JSON, ACCEPT, ("Authorization", &b)],
        &body,
    );
    assert_eq!(other.status, 200, "another token is not held back");
    held.write_all(&body.as_bytes()[5..]).unwrap();
    assert_eq!(parse_reply(&read_all(&mut held)).status, 200);
    let again = request(
        &server,
        "POST",
        "/mcp",
        &[JSON, ACCEPT, ("Authorization", &a)],
        &body,
    );
    assert_eq!(again.status, 200, "the slot came back");
    assert_eq!(
        sample(
            &metrics_page(&server),
            "botmesh_mcp_http_concurrency_refused_total"
        ),
        1.0
    );
}

#[test]
fn health_and_readiness_need_nothing_and_metrics_follow_the_token_rule() {
    let dir = TempDir::new("ops-health");
    let file = dir.0.join("tokens.jsonl");
    let token = new_token(&file, &["flow".to_owned()]).unwrap();
    let auth = format!("Bearer {token}");
    let server = Server::start(
        HttpOptions::default()
            .with_rate_limit_per_minute(0)
            .with_tokens_file(Some(file)),
    );
    // A load balancer's probe: no token, its own Host.
    let probe = [("Host", "10.0.0.7:3000")];
    let health = get(server.addr, "/healthz", &probe);
    assert_eq!((health.status, health.body.as_str()), (200, "ok\n"));
    let ready = get(server.addr, "/readyz", &probe);
    assert_eq!((ready.status, ready.body.as_str()), (200, "ready\n"));
    assert_eq!(get(server.addr, "/metrics", &[]).status, 401);
    let session = open_session(&server, "2025-11-25", &[("Authorization", &auth)]);
    let with = [
        ("Authorization", auth.as_str()),
        ("Mcp-Session-Id", &session),
    ];
    let digest = call(2, "flow_digest", json!({ "document": small_flow() }));
    assert_eq!(post(&server, &with, &digest).status, 200);
    let series =
        r#"botmesh_mcp_http_requests_total{method="tools/call",tool="flow_digest",status="200"}"#;
    let page = get(server.addr, "/metrics", &[("Authorization", &auth)]);
    assert_eq!(page.status, 200);
    assert!(
        page.header("content-type")
            .is_some_and(|t| t.starts_with("text/plain; version=0.0.4")),
        "{page:?}"
    );
    assert_eq!(sample(&page.body, series), 1.0, "{}", page.body);
    assert_eq!(post(&server, &with, &digest).status, 200);
    let page = get(server.addr, "/metrics", &[("Authorization", &auth)]).body;
    assert_eq!(sample(&page, series), 2.0);
    assert_eq!(
        sample(
            &page,
            r#"botmesh_mcp_http_request_duration_seconds_count{method="tools/call"}"#
        ),
        2.0
    );
    assert_eq!(sample(&page, "botmesh_mcp_http_sessions"), 1.0);
    assert!(!page.contains("healthz"), "probes are not counted");
    assert!(
        !logs().contains(&token[token.find('.').unwrap()..]),
        "no secret in the logs"
    );
}

#[test]
fn shutdown_turns_readiness_off_and_finishes_the_request_in_flight() {
    // Alone on the ports until the end, so "no longer listening" is about this server.
    let _ports = ports_to_myself();
    let mut server = Server::start_holding_ports(
        HttpOptions::default()
            .with_rate_limit_per_minute(0)
            .with_metrics_addr(Some("127.0.0.1:0".parse().unwrap())),
    );
    let metrics = server.metrics.unwrap();
    let addr = server.addr;
    let body = initialize_message("2025-11-25").to_string();
    let mut stream = start_post(&server, &[], body.len(), &body[..20]);
    // Events, not sleeps: the request is in flight, then shutdown has begun.
    wait_until("the request in flight", || {
        sample(&metrics_page(&server), "botmesh_mcp_http_bodies_in_flight") == 1.0
    });
    assert_eq!(get(metrics, "/readyz", &[]).status, 200);
    server.begin_stop();
    wait_until("readiness to turn off", || {
        get(metrics, "/readyz", &[]).status == 503
    });
    assert_eq!(get(metrics, "/healthz", &[]).status, 200, "still alive");
    stream.write_all(&body.as_bytes()[20..]).unwrap();
    let reply = parse_reply(&read_all(&mut stream));
    assert_eq!(reply.status, 200, "the in-flight request is answered");
    assert_eq!(reply.json()["result"]["protocolVersion"], "2025-11-25");
    server.stop().unwrap();
    assert!(TcpStream::connect(addr).is_err(), "no longer listening");
}

#[test]
fn the_audit_file_has_one_line_per_call_before_the_answer() {
    let dir = TempDir::new("ops-audit");
    let audit = dir.0.join("audit.jsonl");
    let server = Server::start(
        HttpOptions::default()
            .with_rate_limit_per_minute(0)
            .with_audit_file(Some(audit.clone())),
    );
    let session = open_session(&server, "2025-11-25", &[]);
    let with = [("Mcp-Session-Id", session.as_str())];
    let secret_text = "a-value-that-must-not-be-audited";
    let mut flow = small_flow();
    flow["title"] = json!(secret_text);
    assert_eq!(
        post(
            &server,
            &with,
            &call(2, "flow_digest", json!({ "document": flow }))
        )
        .status,
        200
    );
    // Read right after the answer: the line was written before it.
    let text = std::fs::read_to_string(&audit).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "{text}");
    let line = &lines[0];
    assert_eq!(line["tool"], "flow_digest");
    assert_eq!(line["status"], "ok");
    assert_eq!(line["token_id"], Value::Null);
    assert!(line["duration_us"].is_u64());
    assert!(
        line["time"]
            .as_str()
            .is_some_and(|t| t.len() == 24 && t.ends_with('Z')),
        "{line}"
    );
    assert!(!text.contains(secret_text), "no arguments in the audit");
    assert_eq!(
        post(&server, &with, &call(3, "no_such_tool", json!({}))).status,
        200
    );
    let text = std::fs::read_to_string(&audit).unwrap();
    assert_eq!(text.lines().count(), 2);
    assert!(text.contains(r#""tool":"<unknown tool>""#), "{text}");
}

/// Sends SIGHUP to this test process (every server in it reloads).
#[cfg(unix)]
fn hangup() {
    let status = std::process::Command::new("kill")
        .args(["-HUP", &std::process::id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

#[cfg(unix)]
#[test]
fn sighup_revokes_removed_tokens_keeps_them_on_a_bad_file_and_reopens_the_audit() {
    let dir = TempDir::new("ops-sighup");
    let file = dir.0.join("tokens.jsonl");
    let audit = dir.0.join("audit.jsonl");
    let keep = new_token(&file, &["flow".to_owned()]).unwrap();
    let kept_lines = std::fs::read_to_string(&file).unwrap();
    let revoke = new_token(&file, &["flow".to_owned()]).unwrap();
    let server = Server::start(
        HttpOptions::default()
            .with_rate_limit_per_minute(0)
            .with_tokens_file(Some(file.clone()))
            .with_audit_file(Some(audit.clone())),
    );
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "", "version": ""}}});
    let status = |token: &str| {
        let auth = format!("Bearer {token}");
        post(&server, &[("Authorization", &auth)], &ping).status
    };
    assert_eq!((status(&keep), status(&revoke)), (200, 200));

    // Replaced as an operator should, atomically (write a new file, rename it over the old).
    let replace = |text: &str| {
        let next = dir.0.join("tokens.next");
        std::fs::write(&next, text).unwrap();
        std::fs::rename(&next, &file).unwrap();
    };
    // A malformed file: the old tokens stay, the reason is logged.
    replace("not json\n");
    hangup();
    wait_until("the malformed file to be refused", || {
        logs().contains("tokens file not reloaded")
    });
    assert_eq!((status(&keep), status(&revoke)), (200, 200));

    // The revoked token's line removed: refused from the next request after the reload.
    replace(&kept_lines);
    hangup();
    wait_until("the revoked token to be refused", || status(&revoke) == 401);
    assert_eq!(status(&keep), 200);

    // logrotate: move the audit file away, SIGHUP, and new lines go to a new file.
    let rotated = dir.0.join("audit.jsonl.1");
    std::fs::rename(&audit, &rotated).unwrap();
    hangup();
    let auth = format!("Bearer {keep}");
    let session = open_session(&server, "2025-11-25", &[("Authorization", &auth)]);
    let with = [
        ("Authorization", auth.as_str()),
        ("Mcp-Session-Id", &session),
    ];
    let mut id = 10;
    wait_until("the audit file to be reopened", || {
        id += 1;
        post(
            &server,
            &with,
            &call(id, "flow_digest", json!({"document": small_flow()})),
        );
        std::fs::read_to_string(&audit).is_ok_and(|t| t.contains("flow_digest"))
    });
    let keep_id = &keep[..keep.find('.').unwrap()];
    assert!(
        std::fs::read_to_string(&audit)
            .unwrap()
            .contains(&format!(r#""token_id":"{keep_id}""#))
    );
}

#[test]
fn instances_sharing_a_session_secret_accept_each_others_sessions() {
    let dir = TempDir::new("ops-sealed");
    let secret = dir.0.join("secret");
    std::fs::write(&secret, "0123456789abcdef0123456789abcdef\n").unwrap();
    let other_secret = dir.0.join("other");
    std::fs::write(&other_secret, "fedcba9876543210fedcba9876543210").unwrap();
    let options = || {
        HttpOptions::default()
            .with_rate_limit_per_minute(0)
            .with_session_secret_file(Some(secret.clone()))
    };
    let a = Server::start(options());
    let b = Server::start(options());
    let stranger = Server::start(
        HttpOptions::default()
            .with_rate_limit_per_minute(0)
            .with_session_secret_file(Some(other_secret)),
    );
    let session = open_session(&a, "2025-06-18", &[]);
    let with = [("Mcp-Session-Id", session.as_str())];
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    for server in [&a, &b] {
        let reply = post(server, &with, &list);
        assert_eq!(reply.status, 200, "{reply:?}");
        assert!(reply.json()["result"]["tools"].is_array());
    }
    // The revision travels with the id: 2025-06-18 has structured output, 2025-03-26 not.
    let digest = call(3, "flow_digest", json!({"document": small_flow()}));
    assert!(post(&b, &with, &digest).json()["result"]["structuredContent"].is_object());
    assert_eq!(post(&stranger, &with, &list).status, 404, "another secret");
    let forged = session.replacen("2025-06-18", "2025-03-26", 1);
    assert_eq!(
        post(&b, &[("Mcp-Session-Id", &forged)], &list).status,
        404,
        "an altered id"
    );
    assert_eq!(post(&b, &[("Mcp-Session-Id", "s1.x")], &list).status, 404);
    let short = dir.0.join("short");
    std::fs::write(&short, "short").unwrap();
    let refused = serve_with(
        botmesh_mcp::create_mcp_server(Default::default()).unwrap(),
        HttpOptions::default()
            .with_addr("127.0.0.1:0".parse().unwrap())
            .with_session_secret_file(Some(short)),
        async {},
        |_| panic!("must not listen"),
    );
    assert!(
        refused
            .unwrap_err()
            .to_string()
            .contains("at least 32 bytes")
    );
}
