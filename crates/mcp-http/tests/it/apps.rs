//! MCP Apps over HTTP: the view is served to a session whose client declared the extension
//! (the table's, a sealed id's on every instance sharing the secret) and to a 2026-07-28 POST
//! that declares it, reading it needs the `flow` scope, and every other client is served as if
//! the extension did not exist.
use crate::*;
use botmesh_mcp_http::{HttpOptions, new_token};
use serde_json::json;

/// The extension as a client declares it.
fn declared() -> Value {
    json!({ "extensions": { "io.modelcontextprotocol/ui": { "mimeTypes": ["text/html;profile=mcp-app"] } } })
}

/// Opens a session whose client declares `capabilities`; returns its id.
fn open_with(server: &Server, capabilities: Value, extra: &[(&str, &str)]) -> String {
    let mut init = initialize_message("2025-11-25");
    init["params"]["capabilities"] = capabilities;
    let reply = post(server, extra, &init);
    assert_eq!(reply.status, 200, "{reply:?}");
    reply
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned()
}

fn read_view(id: u64) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"resources/read","params":{"uri":"ui://botmesh/flow"}})
}

#[test]
fn a_declaring_session_reads_the_view_and_another_gets_method_not_found() {
    let server = Server::start(HttpOptions::default().with_rate_limit_per_minute(0));
    let with_ui = open_with(&server, declared(), &[]);
    let without = open_with(&server, json!({}), &[]);
    let reply = post(&server, &[("Mcp-Session-Id", &with_ui)], &read_view(2));
    assert_eq!(reply.status, 200, "{reply:?}");
    let content = &reply.json()["result"]["contents"][0];
    assert_eq!(content["mimeType"], "text/html;profile=mcp-app");
    assert!(content["text"].as_str().unwrap().contains("<html"));
    let list = json!({"jsonrpc":"2.0","id":3,"method":"tools/list"});
    let tools = post(&server, &[("Mcp-Session-Id", &with_ui)], &list).json();
    let linked: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["_meta"]["ui"]["resourceUri"] == "ui://botmesh/flow")
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(linked, ["flow_render", "flow_simulate"]);
    let refused = post(&server, &[("Mcp-Session-Id", &without)], &read_view(4)).json();
    assert_eq!(refused["error"]["code"], -32601, "{refused}");
}

#[test]
fn reading_the_view_needs_a_token_with_the_flow_scope() {
    let dir = TempDir::new("apps-tokens");
    let file = dir.0.join("tokens.jsonl");
    let flow = format!("Bearer {}", new_token(&file, &["flow".to_owned()]).unwrap());
    let docs = format!("Bearer {}", new_token(&file, &["docs".to_owned()]).unwrap());
    let server = Server::start(
        HttpOptions::default()
            .with_tokens_file(Some(file))
            .with_rate_limit_per_minute(0),
    );
    for (token, allowed) in [(&flow, true), (&docs, false)] {
        let auth = ("Authorization", token.as_str());
        let session = open_with(&server, declared(), &[auth]);
        let reply = post(
            &server,
            &[auth, ("Mcp-Session-Id", &session)],
            &read_view(2),
        )
        .json();
        if allowed {
            assert_eq!(reply["result"]["contents"][0]["uri"], "ui://botmesh/flow");
        } else {
            assert_eq!(
                reply["error"]["message"],
                "resource ui://botmesh/flow needs the \"flow\" scope, which this token does not have"
            );
        }
    }
}

#[test]
fn a_sealed_session_carries_the_view_to_every_instance() {
    let dir = TempDir::new("apps-sealed");
    let secret = dir.0.join("secret");
    std::fs::write(&secret, "0123456789abcdef0123456789abcdef").unwrap();
    let options = || {
        HttpOptions::default()
            .with_rate_limit_per_minute(0)
            .with_session_secret_file(Some(secret.clone()))
    };
    let (a, b) = (Server::start(options()), Server::start(options()));
    let with_ui = open_with(&a, declared(), &[]);
    assert!(with_ui.starts_with("s1.2025-11-25+ui."), "{with_ui}");
    let without = open_with(&a, json!({}), &[]);
    assert!(without.starts_with("s1.2025-11-25."), "{without}");
    let read = post(&b, &[("Mcp-Session-Id", &with_ui)], &read_view(2)).json();
    assert_eq!(read["result"]["contents"][0]["uri"], "ui://botmesh/flow");
    let refused = post(&b, &[("Mcp-Session-Id", &without)], &read_view(3)).json();
    assert_eq!(refused["error"]["code"], -32601);
    let forged = without.replacen("2025-11-25", "2025-11-25+ui", 1);
    assert_eq!(
        post(&b, &[("Mcp-Session-Id", &forged)], &read_view(4)).status,
        404
    );
}

#[test]
fn a_stateless_post_is_served_the_view_by_its_own_capabilities() {
    let server = Server::start(HttpOptions::default().with_rate_limit_per_minute(0));
    let request = |capabilities: Value| {
        let mut message = read_view(1);
        message["params"]["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        });
        post(
            &server,
            &[
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "resources/read"),
                ("Mcp-Name", "ui://botmesh/flow"),
            ],
            &message,
        )
    };
    let served = request(declared());
    assert_eq!(served.status, 200, "{served:?}");
    let result = served.json()["result"].clone();
    assert_eq!(result["contents"][0]["uri"], "ui://botmesh/flow");
    assert_eq!(result["cacheScope"], "public");
    let refused = request(json!({}));
    assert_eq!(
        refused.status, 404,
        "an unknown method in 2026-07-28: {refused:?}"
    );
    assert_eq!(refused.json()["error"]["code"], -32601);
}

#[test]
fn a_server_without_the_view_never_offers_it() {
    let server = Server::start_with(
        botmesh_mcp::ServerOptions::default().with_ui(false),
        HttpOptions::default().with_rate_limit_per_minute(0),
    );
    let mut init = initialize_message("2025-11-25");
    init["params"]["capabilities"] = declared();
    let reply = post(&server, &[], &init).json();
    assert_eq!(
        reply["result"]["capabilities"],
        json!({ "tools": { "listChanged": false } })
    );
}
