//! The context budget: what a fixed set of typical calls costs an agent.
//!
//! Run with `cargo bench -p botmesh-mcp --bench budget`. It prints a Markdown table: for each
//! call, the bytes of the whole answer line (what a stdio client reads, exactly as
//! `serve_stream` writes it, after a `2025-11-25` `initialize`), an estimate of tokens
//! (bytes / 4, rounded up: a rough rule for JSON and English text, not a tokenizer), the
//! characters of the text item, the bytes of `structuredContent` serialized compactly, and the
//! bytes of the same answer to a `2024-11-05` client (no `structuredContent`: the text alone).
//! The figures are deterministic (no clock), so one run is enough.
#![expect(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark program reports on stdout"
)]

use botmesh_mcp::Session;
use botmesh_mcp::{EXAMPLE_FLOW_DOCUMENT, ServerOptions, create_mcp_server};
use serde_json::{Value, json};
use std::path::Path;

const INVALID: &str =
    include_str!("../../flow-schema/test_data/flows/v2-invalid/dangling-references.json");
const V0: &str = include_str!("../../flow-schema/test_data/flows/v0/pizza-es.json");
const DIFF_LEFT: &str = include_str!("../../flow-schema/test_data/diff/legacy-vs-edited.left.json");
const DIFF_RIGHT: &str =
    include_str!("../../flow-schema/test_data/diff/legacy-vs-edited.right.json");

fn document(text: &str) -> Value {
    serde_json::from_str(text).expect("a JSON test document")
}

/// A session initialized at `revision`.
fn open_session(server: &botmesh_mcp::McpServer, revision: &str) -> Session {
    let mut session = Session::new();
    let initialize = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": { "protocolVersion": revision, "capabilities": {}, "clientInfo": { "name": "budget", "version": "1" } },
    });
    server
        .handle_text(&mut session, &initialize.to_string())
        .expect("initialize answers");
    session
}

fn main() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs");
    let server = create_mcp_server(ServerOptions::default().with_docs_dir(Some(docs)))
        .expect("the options are valid");
    let mut session = open_session(&server, "2025-11-25");
    // A client without structuredContent reads the text item alone.
    let mut legacy = open_session(&server, "2024-11-05");
    let example = document(EXAMPLE_FLOW_DOCUMENT);
    let calls: Vec<(&str, &str, Value)> = vec![
        (
            "validate (valid)",
            "flow_validate",
            json!({ "document": example }),
        ),
        (
            "validate (invalid)",
            "flow_validate",
            json!({ "document": document(INVALID) }),
        ),
        (
            "analyze (mermaid)",
            "flow_analyze",
            json!({ "document": example }),
        ),
        (
            "analyze (json)",
            "flow_analyze",
            json!({ "document": example, "format": "json" }),
        ),
        (
            "migrate (v0)",
            "flow_migrate",
            json!({ "document": document(V0) }),
        ),
        (
            "diff",
            "flow_diff",
            json!({ "left": document(DIFF_LEFT), "right": document(DIFF_RIGHT) }),
        ),
        (
            "fix (invalid)",
            "flow_fix",
            json!({ "document": document(INVALID) }),
        ),
        (
            "simulate (order)",
            "flow_simulate",
            json!({
                "document": example,
                "replies": [{ "tap": "margherita" }, { "tap": "large" }, "Calle Mayor 1, Madrid"],
            }),
        ),
        (
            "test (generated)",
            "flow_test",
            json!({ "document": example, "generate": true }),
        ),
        ("digest", "flow_digest", json!({ "document": example })),
        ("schema", "flow_schema", json!({})),
        ("example", "flow_example", json!({})),
        ("docs search", "docs_search", json!({ "query": "subflow" })),
        (
            "docs page",
            "docs_page",
            json!({ "path": "reference/flow-document.md" }),
        ),
    ];
    println!(
        "| call | answer bytes | ≈ tokens | text chars | structuredContent bytes | 2024-11-05 answer bytes |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    let (mut total, mut total_legacy) = (0, 0);
    for (id, (label, name, arguments)) in calls.into_iter().enumerate() {
        let request = json!({
            "jsonrpc": "2.0", "id": id + 1, "method": "tools/call",
            "params": { "name": name, "arguments": arguments },
        })
        .to_string();
        let line = server
            .handle_text(&mut session, &request)
            .expect("a request is answered");
        let legacy_line = server
            .handle_text(&mut legacy, &request)
            .expect("a request is answered");
        let answer: Value = serde_json::from_str(&line).unwrap();
        let result = &answer["result"];
        assert!(result["isError"] != json!(true), "{label}: {line}");
        let text: usize = result["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|item| item["text"].as_str())
            .map(|text| text.chars().count())
            .sum();
        let structured = serde_json::to_string(&result["structuredContent"])
            .unwrap()
            .len();
        total += line.len();
        total_legacy += legacy_line.len();
        println!(
            "| {label} | {} | {} | {text} | {structured} | {} |",
            line.len(),
            line.len().div_ceil(4),
            legacy_line.len()
        );
    }
    let list = r#"{"jsonrpc":"2.0","id":99,"method":"tools/list"}"#;
    let line = server
        .handle_text(&mut session, list)
        .expect("tools/list answers");
    let legacy_line = server
        .handle_text(&mut legacy, list)
        .expect("tools/list answers");
    total += line.len();
    total_legacy += legacy_line.len();
    println!(
        "| tools/list | {} | {} | | | {} |",
        line.len(),
        line.len().div_ceil(4),
        legacy_line.len()
    );
    println!(
        "| **total** | **{total}** | **{}** | | | **{total_legacy}** |",
        total.div_ceil(4)
    );
}
