//! The Streamable HTTP transport: messages, sessions, headers and status codes.
use crate::*;
use botmesh_mcp_http::HttpOptions;
use serde_json::json;
use std::time::Duration;

fn open() -> Server {
    Server::start(HttpOptions::default().with_rate_limit_per_minute(0))
}

#[test]
fn a_session_initializes_lists_and_calls() {
    let server = open();
    let reply = post(&server, &[], &initialize_message("2025-06-18"));
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("application/json"));
    let id = reply.header("mcp-session-id").unwrap();
    assert!(id.len() >= 32, "at least 128 bits in hex: {id}");
    assert!(id.bytes().all(|b| (0x21..=0x7e).contains(&b)));
    let again = post(&server, &[], &initialize_message("2025-06-18"));
    assert_ne!(
        again.header("mcp-session-id"),
        Some(id),
        "every session gets its own id"
    );

    let session = open_session(&server, "2025-06-18", &[]);
    let with = [("Mcp-Session-Id", session.as_str())];
    let list = post(
        &server,
        &with,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    );
    assert_eq!(list.status, 200);
    let tools = list.json()["result"]["tools"].as_array().unwrap().len();
    assert!(tools >= 7, "{}", list.body);
    let digest = post(
        &server,
        &with,
        &call(3, "flow_digest", json!({"document": small_flow()})),
    );
    assert_eq!(digest.status, 200);
    let result = &digest.json()["result"];
    assert_eq!(result.get("isError"), None, "{result}");
    assert!(
        result["structuredContent"]["digest"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );
}

#[test]
fn notifications_and_responses_answer_202_without_body() {
    let server = open();
    let session = open_session(&server, "2025-11-25", &[]);
    let with = [("Mcp-Session-Id", session.as_str())];
    let note =
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}});
    let reply = post(&server, &with, &note);
    assert_eq!((reply.status, reply.body.as_str()), (202, ""));
    let response = json!({"jsonrpc": "2.0", "id": 5, "result": {}});
    let reply = post(&server, &with, &response);
    assert_eq!((reply.status, reply.body.as_str()), (202, ""));
}

#[test]
fn session_header_missing_is_400_unknown_is_404_and_delete_ends_it() {
    let server = open();
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    assert_eq!(post(&server, &[], &list).status, 400);
    assert_eq!(
        post(&server, &[("Mcp-Session-Id", "nope")], &list).status,
        404
    );

    let session = open_session(&server, "2025-11-25", &[]);
    let with = [("Mcp-Session-Id", session.as_str())];
    assert_eq!(post(&server, &with, &list).status, 200);
    assert_eq!(request(&server, "DELETE", "/mcp", &[], "").status, 400);
    assert_eq!(request(&server, "DELETE", "/mcp", &with, "").status, 204);
    assert_eq!(
        post(&server, &with, &list).status,
        404,
        "a closed session is gone"
    );
    assert_eq!(request(&server, "DELETE", "/mcp", &with, "").status, 404);
}

#[test]
fn sessions_expire_after_the_idle_time() {
    // The steps of idleness are checked in `state.rs` with an injected clock; here, over the
    // wire, an idle time of zero expires a session before its next request, deterministically.
    let server = Server::start(
        HttpOptions::default()
            .with_rate_limit_per_minute(0)
            .with_session_idle(Duration::ZERO),
    );
    let opened = post(&server, &[], &initialize_message("2025-11-25"));
    assert_eq!(opened.status, 200);
    let session = opened.header("mcp-session-id").unwrap().to_owned();
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let with = [("Mcp-Session-Id", session.as_str())];
    assert_eq!(post(&server, &with, &ping).status, 404);
    let server = Server::start(
        HttpOptions::default()
            .with_rate_limit_per_minute(0)
            .with_session_idle(Duration::from_secs(3600)),
    );
    let session = open_session(&server, "2025-11-25", &[]);
    let with = [("Mcp-Session-Id", session.as_str())];
    assert_eq!(post(&server, &with, &ping).status, 200);
}

#[test]
fn get_and_other_methods_answer_405_with_allow_and_other_paths_404() {
    let server = open();
    let get = request(
        &server,
        "GET",
        "/mcp",
        &[("Accept", "text/event-stream")],
        "",
    );
    assert_eq!(get.status, 405);
    assert_eq!(get.header("allow"), Some("POST, DELETE, OPTIONS"));
    assert_eq!(request(&server, "PUT", "/mcp", &[], "").status, 405);
    let elsewhere = request(&server, "POST", "/other", &[JSON, ACCEPT], "{}");
    assert_eq!(elsewhere.status, 404);
    let custom = Server::start(HttpOptions::default().with_path("/mcp/tools"));
    assert_eq!(
        post(&custom, &[], &initialize_message("2025-11-25")).status,
        404
    );
    let init = initialize_message("2025-11-25").to_string();
    assert_eq!(
        request(&custom, "POST", "/mcp/tools", &[JSON, ACCEPT], &init).status,
        200
    );
}

#[test]
fn accept_and_content_type_are_checked() {
    let server = open();
    let init = initialize_message("2025-11-25").to_string();
    let no_accept = request(&server, "POST", "/mcp", &[JSON], &init);
    assert_eq!(no_accept.status, 406);
    let html = request(
        &server,
        "POST",
        "/mcp",
        &[JSON, ("Accept", "text/html")],
        &init,
    );
    assert_eq!(html.status, 406);
    let text = request(
        &server,
        "POST",
        "/mcp",
        &[ACCEPT, ("Content-Type", "text/plain")],
        &init,
    );
    assert_eq!(text.status, 415);
    let charset = [("Content-Type", "application/json; charset=utf-8"), ACCEPT];
    assert_eq!(
        request(&server, "POST", "/mcp", &charset, &init).status,
        200
    );
    // A client that accepts only an event stream gets the answer as one SSE event.
    let sse = request(
        &server,
        "POST",
        "/mcp",
        &[JSON, ("Accept", "text/event-stream")],
        &init,
    );
    assert_eq!(sse.status, 200);
    assert_eq!(sse.header("content-type"), Some("text/event-stream"));
    let data = sse
        .body
        .strip_prefix("event: message\ndata: ")
        .unwrap()
        .trim_end();
    let answer: serde_json::Value = serde_json::from_str(data).unwrap();
    assert_eq!(answer["result"]["protocolVersion"], "2025-11-25");
}

#[test]
fn protocol_version_header_is_checked_but_not_required() {
    let server = open();
    let init = initialize_message("2025-06-18");
    let bad = post(&server, &[("MCP-Protocol-Version", "1999-01-01")], &init);
    assert_eq!(bad.status, 400);
    let supported = bad.json()["error"]["data"]["supported"].clone();
    assert!(
        supported.as_array().unwrap().contains(&json!("2025-11-25")),
        "{supported}"
    );
    assert!(
        bad.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("2025-06-18")
    );

    let session = open_session(&server, "2025-06-18", &[]);
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    for header in [None, Some("2025-06-18"), Some("2025-03-26")] {
        let mut with = vec![("Mcp-Session-Id", session.as_str())];
        with.extend(header.map(|h| ("MCP-Protocol-Version", h)));
        assert_eq!(post(&server, &with, &ping).status, 200, "{header:?}");
    }
    let with = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-13-01"),
    ];
    assert_eq!(post(&server, &with, &ping).status, 400);
}

#[test]
fn batches_only_under_2025_03_26() {
    let server = open();
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 0}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    ]);
    let old = open_session(&server, "2025-03-26", &[]);
    let reply = post(&server, &[("Mcp-Session-Id", old.as_str())], &batch);
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.json().as_array().unwrap().len(),
        2,
        "no entry for the notification"
    );
    let only_notes = json!([{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 0}}]);
    assert_eq!(
        post(&server, &[("Mcp-Session-Id", old.as_str())], &only_notes).status,
        202
    );

    let new = open_session(&server, "2025-06-18", &[]);
    let refused = post(&server, &[("Mcp-Session-Id", new.as_str())], &batch);
    assert_eq!(refused.status, 400);
    assert_eq!(refused.json()["error"]["code"], -32600);
}

#[test]
fn malformed_json_is_400_with_parse_error() {
    let server = open();
    let reply = request(&server, "POST", "/mcp", &[JSON, ACCEPT], "{\"jsonrpc\":");
    assert_eq!(reply.status, 400);
    assert_eq!(reply.json()["error"]["code"], -32700);
    assert_eq!(reply.json()["id"], serde_json::Value::Null);
    let scalar = request(&server, "POST", "/mcp", &[JSON, ACCEPT], "42");
    assert_eq!(scalar.status, 400);
    assert_eq!(scalar.json()["error"]["code"], -32600);
}

#[test]
fn stateless_mode_issues_no_session_ids() {
    let server = Server::start(
        HttpOptions::default()
            .with_stateless(true)
            .with_rate_limit_per_minute(0),
    );
    let init = post(&server, &[], &initialize_message("2025-11-25"));
    assert_eq!(init.status, 200);
    assert_eq!(init.header("mcp-session-id"), None);
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let legacy = post(&server, &[("MCP-Protocol-Version", "2025-11-25")], &list);
    assert_eq!(legacy.status, 200);
    let tool = &legacy.json()["result"]["tools"][0];
    assert!(
        tool.get("outputSchema").is_some(),
        "shaped for 2025-11-25: {tool}"
    );
    let old = post(&server, &[], &list);
    assert_eq!(old.status, 200, "no header means 2025-03-26");
    let tool = &old.json()["result"]["tools"][0];
    assert!(
        tool.get("outputSchema").is_none(),
        "shaped for 2025-03-26: {tool}"
    );
    assert_eq!(
        request(&server, "DELETE", "/mcp", &[("Mcp-Session-Id", "x")], "").status,
        405
    );
}

#[test]
fn the_stateless_revision_header_routes_to_the_stateless_path() {
    let server = open();
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let reply = post(&server, &[("MCP-Protocol-Version", "2026-07-28")], &list);
    assert_eq!(reply.status, 400, "{}", reply.body);
    assert_eq!(
        reply.json()["error"]["code"],
        -32602,
        "the _meta envelope is missing"
    );
    assert_eq!(reply.header("mcp-session-id"), None);
    let mut init = initialize_message("2025-11-25");
    init["params"]["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let init = post(
        &server,
        &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "initialize"),
        ],
        &init,
    );
    assert_eq!(
        init.status, 404,
        "initialize is unknown there: {}",
        init.body
    );
    assert_eq!(init.header("mcp-session-id"), None);
}

#[test]
fn a_full_session_table_answers_503() {
    let server = Server::start(
        HttpOptions::default()
            .with_rate_limit_per_minute(0)
            .with_max_sessions(1),
    );
    let first = open_session(&server, "2025-11-25", &[]);
    let full = post(&server, &[], &initialize_message("2025-11-25"));
    assert_eq!(full.status, 503);
    assert!(full.header("retry-after").is_some());
    let with = [("Mcp-Session-Id", first.as_str())];
    assert_eq!(request(&server, "DELETE", "/mcp", &with, "").status, 204);
    assert_eq!(
        post(&server, &[], &initialize_message("2025-11-25")).status,
        200,
        "room again"
    );
}

#[test]
fn stateless_posts_must_repeat_the_body_in_their_routing_headers() {
    let server = open();
    let meta = |version: &str| {
        json!({
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {}
        })
    };
    let mut digest = call(9, "flow_digest", json!({ "document": small_flow() }));
    digest["params"]["_meta"] = meta("2026-07-28");
    let good = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "  flow_digest "),
    ];
    let reply = post(&server, &good, &digest);
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.json()["result"]["resultType"], "complete");
    let encoded = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "=?base64?Zmxvd19kaWdlc3Q=?="),
    ];
    assert_eq!(post(&server, &encoded, &digest).status, 200);
    let bad: [&[(&str, &str)]; 4] = [
        &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Name", "flow_digest"),
        ],
        &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "TOOLS/CALL"),
            ("Mcp-Name", "flow_digest"),
        ],
        &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "flow_schema"),
        ],
        &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
        ],
    ];
    for headers in bad {
        let reply = post(&server, headers, &digest);
        assert_eq!(reply.status, 400, "{headers:?}: {}", reply.body);
        assert_eq!(reply.json()["error"]["code"], -32020, "{headers:?}");
        assert_eq!(reply.json()["id"], 9, "the error echoes the request id");
    }
    let mut other_version = digest.clone();
    other_version["params"]["_meta"] = meta("v999");
    let reply = post(&server, &good, &other_version);
    assert_eq!(reply.status, 400);
    assert_eq!(
        reply.json()["error"]["code"],
        -32020,
        "headers are checked before the version"
    );
    let reply = post(
        &server,
        &[
            ("MCP-Protocol-Version", "v999"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "flow_digest"),
        ],
        &other_version,
    );
    assert_eq!(reply.status, 400, "{}", reply.body);
    assert_eq!(
        reply.json()["error"]["code"],
        -32022,
        "an unknown version in the envelope"
    );
    assert_eq!(reply.json()["error"]["data"]["requested"], "v999");
    assert_eq!(reply.json()["error"]["data"]["supported"][0], "2026-07-28");
    assert_eq!(reply.json()["id"], 9);
    let mut ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"});
    ping["params"] = json!({ "_meta": meta("2026-07-28") });
    let reply = post(
        &server,
        &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "ping"),
        ],
        &ping,
    );
    assert_eq!(
        reply.status, 404,
        "ping is gone in 2026-07-28: {}",
        reply.body
    );
    assert_eq!(reply.json()["error"]["code"], -32601);
}

#[test]
fn line_separators_are_escaped_in_answers() {
    let server = open();
    let session = open_session(&server, "2025-06-18", &[]);
    let with = [("Mcp-Session-Id", session.as_str())];
    // flow_schema's URL pattern holds U+2028 and U+2029 (as characters it refuses).
    let reply = post(&server, &with, &call(2, "flow_schema", json!({})));
    assert_eq!(reply.status, 200);
    assert!(
        !reply.body.contains(['\u{85}', '\u{2028}', '\u{2029}']),
        "no raw separator in the body"
    );
    assert!(reply.body.contains("\\u2028"), "{}", reply.body);
    let pattern = &reply.json()["result"]["structuredContent"]["limits"];
    assert!(!pattern.is_null(), "the schema came back whole");
}
