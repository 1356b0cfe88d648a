//! Tokens and scopes, DNS-rebinding protection, CORS, the refusal to listen unprotected, audit.
use crate::*;
use botmesh_mcp_http::{Error, HttpOptions, new_token, serve_until};
use serde_json::json;

fn scopes(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

fn token_id(token: &str) -> &str {
    token.split_once('.').unwrap().0
}

#[test]
fn tokens_are_required_checked_and_scoped() {
    let dir = TempDir::new("tokens");
    let file = dir.0.join("tokens.jsonl");
    let flow = new_token(&file, &scopes(&["flow"])).unwrap();
    let docs = new_token(&file, &scopes(&["docs"])).unwrap();
    let stored = std::fs::read_to_string(&file).unwrap();
    assert!(
        !stored.contains(&flow) && !stored.contains(&docs),
        "only hashes are stored"
    );
    assert!(stored.contains(token_id(&flow)));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "owner-only permissions");
    }

    let server = Server::start(
        HttpOptions::default()
            .with_tokens_file(Some(file.clone()))
            .with_rate_limit_per_minute(0),
    );
    let init = initialize_message("2025-11-25");
    let missing = post(&server, &[], &init);
    assert_eq!(missing.status, 401);
    assert!(
        missing
            .header("www-authenticate")
            .unwrap()
            .starts_with("Bearer")
    );
    let wrong = format!("Bearer {}x", flow);
    let invalid = post(&server, &[("Authorization", &wrong)], &init);
    assert_eq!(invalid.status, 401);
    assert!(
        invalid
            .header("www-authenticate")
            .unwrap()
            .contains("invalid_token")
    );
    let basic = post(&server, &[("Authorization", "Basic dXNlcjpwYXNz")], &init);
    assert_eq!(basic.status, 401);

    let flow_auth = format!("Bearer {flow}");
    let docs_auth = format!("Bearer {docs}");
    let session = open_session(&server, "2025-11-25", &[("Authorization", &flow_auth)]);
    let with = [
        ("Authorization", flow_auth.as_str()),
        ("Mcp-Session-Id", session.as_str()),
    ];
    let ok = post(
        &server,
        &with,
        &call(2, "flow_digest", json!({"document": small_flow()})),
    );
    assert_eq!(ok.status, 200);
    assert_eq!(ok.json()["result"].get("isError"), None);

    // A session belongs to the token that opened it.
    let other = [
        ("Authorization", docs_auth.as_str()),
        ("Mcp-Session-Id", session.as_str()),
    ];
    assert_eq!(
        post(&server, &other, &call(3, "flow_digest", json!({}))).status,
        404
    );
    assert_eq!(request(&server, "DELETE", "/mcp", &other, "").status, 404);

    // Out of scope: a tool result naming the scope, and the session goes on.
    let docs_session = open_session(&server, "2025-11-25", &[("Authorization", &docs_auth)]);
    let with_docs = [
        ("Authorization", docs_auth.as_str()),
        ("Mcp-Session-Id", docs_session.as_str()),
    ];
    let denied = post(
        &server,
        &with_docs,
        &call(4, "flow_digest", json!({"document": small_flow()})),
    );
    assert_eq!(denied.status, 200);
    let result = &denied.json()["result"];
    assert_eq!(result["isError"], true);
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("\"flow\" scope"),
        "{result}"
    );
    let ping = json!({"jsonrpc": "2.0", "id": 5, "method": "ping"});
    assert_eq!(post(&server, &with_docs, &ping).status, 200);
}

#[test]
fn a_new_token_works_without_a_restart() {
    let dir = TempDir::new("reload");
    let file = dir.0.join("tokens.jsonl");
    let first = new_token(&file, &scopes(&["flow"])).unwrap();
    let server = Server::start(
        HttpOptions::default()
            .with_tokens_file(Some(file.clone()))
            .with_rate_limit_per_minute(0),
    );
    // The file's content is compared, not its modification time: no sleep for coarse clocks.
    let second = new_token(&file, &scopes(&["docs", "flow"])).unwrap();
    let auth = format!("Bearer {second}");
    let init = initialize_message("2025-11-25");
    let mut status = 0;
    wait_until("the new token to be picked up", || {
        status = post(&server, &[("Authorization", &auth)], &init).status;
        status == 200
    });
    assert_eq!(status, 200, "the new token is picked up");
    let auth = format!("Bearer {first}");
    assert_eq!(
        post(&server, &[("Authorization", &auth)], &init).status,
        200
    );
}

#[test]
fn token_issue_rejects_bad_scopes() {
    let dir = TempDir::new("scopes");
    let file = dir.0.join("tokens.jsonl");
    let unknown = new_token(&file, &scopes(&["admin"])).unwrap_err();
    assert_eq!(
        unknown.to_string(),
        "unknown scope `admin` (the scopes are `docs`, `flow`)"
    );
    assert!(matches!(new_token(&file, &[]), Err(Error::NoScopes)));
    std::fs::write(&file, "garbage\n").unwrap();
    let malformed = new_token(&file, &scopes(&["flow"])).unwrap_err();
    assert_eq!(
        malformed.to_string(),
        "line 1 of the tokens file is not a token entry"
    );
    let refused = serve_until(
        botmesh_mcp::create_mcp_server(Default::default()).unwrap(),
        HttpOptions::default().with_tokens_file(Some(file.clone())),
        async {},
        |_| {},
    );
    assert!(matches!(refused, Err(Error::MalformedTokens { line: 1 })));
    let message = refused.unwrap_err().to_string();
    assert!(
        !message.contains(dir.0.to_str().unwrap()),
        "no path in: {message}"
    );
}

#[test]
fn a_public_address_without_tokens_is_refused_with_a_reason() {
    let options = HttpOptions::default().with_addr("0.0.0.0:0".parse().unwrap());
    let refused = serve_until(
        botmesh_mcp::create_mcp_server(Default::default()).unwrap(),
        options,
        async {},
        |_| panic!("must not listen"),
    );
    let error = refused.unwrap_err();
    assert!(matches!(error, Error::InsecureBind { .. }));
    let message = error.to_string();
    assert!(message.contains("without a tokens file"), "{message}");
    assert!(message.contains("anyone who can reach"), "{message}");
    assert_eq!(botmesh_mcp_http::DEFAULT_ADDR.to_string(), "127.0.0.1:3000");
}

#[test]
fn foreign_host_or_origin_is_403_and_loopback_names_pass() {
    let server = Server::start(
        HttpOptions::default()
            .with_rate_limit_per_minute(0)
            .with_allowed_origins(vec!["https://mcp.example.com".to_owned()]),
    );
    let init = initialize_message("2025-11-25").to_string();
    let send = |headers: &[(&str, &str)]| {
        let mut all = vec![JSON, ACCEPT];
        all.extend_from_slice(headers);
        request(&server, "POST", "/mcp", &all, &init).status
    };
    assert_eq!(send(&[("Host", "evil.example.com")]), 403);
    assert_eq!(
        send(&[
            ("Host", "evil.example.com"),
            ("Origin", "http://evil.example.com")
        ]),
        403
    );
    assert_eq!(send(&[("Origin", "http://evil.example.com")]), 403);
    assert_eq!(send(&[("Origin", "null")]), 403);
    assert_eq!(
        send(&[("Host", "localhost\u{e9}")]),
        403,
        "a non-ASCII host is not absent"
    );
    let port = server.addr.port();
    for host in [
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        format!("[::1]:{port}"),
    ] {
        let origin = format!("http://{host}");
        assert_eq!(send(&[("Host", &host), ("Origin", &origin)]), 200, "{host}");
    }
    assert_eq!(
        send(&[
            ("Host", "mcp.example.com"),
            ("Origin", "https://mcp.example.com")
        ]),
        200
    );
}

#[test]
fn cors_answers_preflight_and_exposes_the_session_id() {
    let app = "https://app.example.com";
    let server = Server::start(
        HttpOptions::default()
            .with_rate_limit_per_minute(0)
            .with_cors_origins(vec![app.to_owned()]),
    );
    let preflight = request(
        &server,
        "OPTIONS",
        "/mcp",
        &[
            ("Origin", app),
            ("Access-Control-Request-Method", "POST"),
            (
                "Access-Control-Request-Headers",
                "content-type, mcp-session-id",
            ),
        ],
        "",
    );
    assert_eq!(preflight.status, 204);
    assert_eq!(preflight.header("access-control-allow-origin"), Some(app));
    let allowed = preflight
        .header("access-control-allow-headers")
        .unwrap()
        .to_ascii_lowercase();
    for h in [
        "content-type",
        "mcp-session-id",
        "authorization",
        "mcp-protocol-version",
    ] {
        assert!(allowed.contains(h), "{allowed}");
    }
    assert!(
        preflight
            .header("access-control-allow-methods")
            .unwrap()
            .contains("POST")
    );

    let init = post(
        &server,
        &[("Origin", app)],
        &initialize_message("2025-11-25"),
    );
    assert_eq!(init.status, 200);
    assert_eq!(init.header("access-control-allow-origin"), Some(app));
    assert!(
        init.header("access-control-expose-headers")
            .unwrap()
            .contains("Mcp-Session-Id")
    );

    // A loopback page that is not a CORS origin is served but gets no CORS headers.
    let local = format!("http://localhost:{}", server.addr.port());
    let plain = post(
        &server,
        &[("Origin", &local)],
        &initialize_message("2025-11-25"),
    );
    assert_eq!(plain.status, 200);
    assert_eq!(plain.header("access-control-allow-origin"), None);

    let off = Server::start(HttpOptions::default());
    let no_cors = post(&off, &[("Origin", app)], &initialize_message("2025-11-25"));
    assert_eq!(no_cors.status, 403, "CORS is off by default");
}

#[test]
fn every_tool_call_writes_one_audit_line_without_secrets() {
    let dir = TempDir::new("audit");
    let file = dir.0.join("tokens.jsonl");
    let token = new_token(&file, &scopes(&["flow"])).unwrap();
    let docs = new_token(&file, &scopes(&["docs"])).unwrap();
    let server = Server::start(
        HttpOptions::default()
            .with_tokens_file(Some(file.clone()))
            .with_rate_limit_per_minute(0),
    );
    let auth = format!("Bearer {token}");
    let session = open_session(&server, "2025-11-25", &[("Authorization", &auth)]);
    let with = [
        ("Authorization", auth.as_str()),
        ("Mcp-Session-Id", session.as_str()),
    ];
    let mut document = small_flow();
    document["title"] = json!("secret-argument-marker-7f3a");
    post(
        &server,
        &with,
        &call(2, "flow_digest", json!({"document": document})),
    );
    post(&server, &with, &call(3, "flow_digest", json!({"wrong": 1})));
    post(
        &server,
        &with,
        &call(4, "no such tool\nforged line", json!({})),
    );
    let docs_auth = format!("Bearer {docs}");
    let docs_session = open_session(&server, "2025-11-25", &[("Authorization", &docs_auth)]);
    let with_docs = [
        ("Authorization", docs_auth.as_str()),
        ("Mcp-Session-Id", docs_session.as_str()),
    ];
    post(
        &server,
        &with_docs,
        &call(5, "flow_digest", json!({"document": small_flow()})),
    );

    let id = token_id(&token);
    let logs = logs();
    let lines: Vec<&str> = logs
        .lines()
        .filter(|l| l.contains(id) && l.contains("audit"))
        .collect();
    assert_eq!(lines.len(), 3, "{logs}");
    assert!(
        lines[0].contains("tool=\"flow_digest\"") && lines[0].contains("outcome=\"ok\""),
        "{}",
        lines[0]
    );
    assert!(lines[0].contains("duration_us="), "{}", lines[0]);
    assert!(lines[1].contains("outcome=\"tool_error\""), "{}", lines[1]);
    assert!(
        lines[2].contains("tool=\"<unknown tool>\"")
            && lines[2].contains("outcome=\"protocol_error\""),
        "{}",
        lines[2]
    );
    let secret = token.split_once('.').unwrap().1;
    assert!(!logs.contains(secret), "the token never reaches a log");
    assert!(
        !logs.contains("secret-argument-marker-7f3a"),
        "arguments never reach a log"
    );
    assert!(!logs.contains("forged line"));
    let denied: Vec<&str> = logs
        .lines()
        .filter(|l| l.contains(token_id(&docs)))
        .collect();
    assert_eq!(denied.len(), 1, "{logs}");
    assert!(
        denied[0].contains("outcome=\"scope_denied\""),
        "{}",
        denied[0]
    );
}

/// A `docs_search` call over HTTP: in a session (`session` is its id), or stateless
/// (2026-07-28, with its routing headers) when `session` is `None`.
fn docs_search(server: &Server, auth: &str, session: Option<&str>, id: u64) -> Reply {
    let mut message = call(id, "docs_search", json!({"query": "greeting"}));
    match session {
        Some(session) => post(
            server,
            &[("Authorization", auth), ("Mcp-Session-Id", session)],
            &message,
        ),
        None => {
            message["params"]["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}
            });
            let headers = [
                ("Authorization", auth),
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", "docs_search"),
            ];
            post(server, &headers, &message)
        }
    }
}

/// True when the reply is the scope refusal of `docs_search`.
fn refused_for_docs(reply: &Reply) -> bool {
    reply.status == 200
        && reply.json()["result"]["isError"] == true
        && reply.json()["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("tool docs_search needs the \"docs\" scope"))
}

/// A narrowed token narrows every request from the next one on: in a session opened before the
/// change (the session table, and sealed sessions) as in a stateless request; a removed token
/// is refused in its old session too.
#[test]
fn a_narrowed_token_narrows_open_sessions_of_every_store() {
    let dir = TempDir::new("narrow");
    let docs = dir.0.join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(docs.join("hello.md"), "# Greeting\n\nA greeting page.\n").unwrap();
    let secret = dir.0.join("secret");
    std::fs::write(&secret, "0123456789abcdef0123456789abcdef\n").unwrap();
    for store in ["table", "sealed", "stateless"] {
        let file = dir.0.join(format!("tokens-{store}.jsonl"));
        let token = new_token(&file, &scopes(&["docs", "flow"])).unwrap();
        let wide_lines = std::fs::read_to_string(&file).unwrap();
        let other = new_token(&file, &scopes(&["flow"])).unwrap();
        let mut options = HttpOptions::default()
            .with_tokens_file(Some(file.clone()))
            .with_rate_limit_per_minute(0);
        if store == "sealed" {
            options = options.with_session_secret_file(Some(secret.clone()));
        }
        let server = Server::start_with(
            ServerOptions::default().with_docs_dir(Some(docs.clone())),
            options,
        );
        let auth = format!("Bearer {token}");
        let session = match store {
            "stateless" => None,
            _ => Some(open_session(
                &server,
                "2025-06-18",
                &[("Authorization", &auth)],
            )),
        };
        let before = docs_search(&server, &auth, session.as_deref(), 2);
        assert_eq!(before.status, 200, "{store}: {}", before.body);
        assert_eq!(
            before.json()["result"].get("isError"),
            None,
            "{store}: {}",
            before.body
        );

        // The token's line rewritten with `flow` alone (atomically, as an operator would).
        let narrowed = wide_lines.replace(r#"["docs","flow"]"#, r#"["flow"]"#);
        assert_ne!(
            narrowed, wide_lines,
            "{store}: the scopes are where expected"
        );
        let other_line = std::fs::read_to_string(&file).unwrap()[wide_lines.len()..].to_owned();
        let next = dir.0.join("tokens.next");
        std::fs::write(&next, format!("{narrowed}{other_line}")).unwrap();
        std::fs::rename(&next, &file).unwrap();
        // A fresh stateless request sees the reload first.
        wait_until("the narrowed scopes to be read", || {
            refused_for_docs(&docs_search(&server, &auth, None, 3))
        });
        let after = docs_search(&server, &auth, session.as_deref(), 4);
        assert!(refused_for_docs(&after), "{store}: {}", after.body);
        if let Some(session) = &session {
            let with = [
                ("Authorization", auth.as_str()),
                ("Mcp-Session-Id", session),
            ];
            let digest = call(5, "flow_digest", json!({"document": small_flow()}));
            let kept = post(&server, &with, &digest);
            assert_eq!(
                kept.json()["result"].get("isError"),
                None,
                "{store}: flow stays"
            );
        }

        // The token removed: refused in its old session as everywhere.
        let next = dir.0.join("tokens.next");
        std::fs::write(&next, &other_line).unwrap();
        std::fs::rename(&next, &file).unwrap();
        let other_auth = format!("Bearer {other}");
        wait_until("the removed token to be refused", || {
            docs_search(&server, &auth, None, 6).status == 401
        });
        assert_eq!(
            docs_search(&server, &auth, session.as_deref(), 7).status,
            401,
            "{store}"
        );
        // The other token's line stays valid: its own session opens and is scoped.
        let opened = session
            .is_some()
            .then(|| open_session(&server, "2025-06-18", &[("Authorization", &other_auth)]));
        let reply = docs_search(&server, &other_auth, opened.as_deref(), 8);
        assert!(refused_for_docs(&reply), "{store}: {}", reply.body);
    }
}
