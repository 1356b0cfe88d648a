//! In-process tests: transcripts through `serve_stream`, and the rules each revision relies on.

use crate::catalogue::{Tool, ToolError, ToolOutput};
use crate::{McpServer, OptionsError, Scope, ServerOptions, Session, StreamOptions, serve_stream};

/// A server from options that are known to be valid.
fn create_mcp_server(options: ServerOptions) -> McpServer {
    crate::create_mcp_server(options).expect("valid options")
}
use serde_json::{Value, json};

/// The built-in catalogue plus two test tools: `add` (numbers in, sum out) and `boom` (panics).
fn test_server() -> McpServer {
    let mut catalogue = crate::tools::builtin(false);
    catalogue.register(Tool {
        name: "add",
        title: "Add two numbers",
        description: "Add two numbers.",
        scope: Scope::Flow,
        input_schema: json!({
            "type": "object",
            "properties": { "a": { "type": "number" }, "b": { "type": "number" } },
            "required": ["a", "b"],
            "additionalProperties": false
        }),
        output_schema: json!({ "type": "object", "properties": { "sum": { "type": "number" } }, "required": ["sum"] }),
        handler: Tool::handler(|_, arguments| {
            let a = arguments["a"].as_f64().unwrap_or_default();
            let b = arguments["b"].as_f64().unwrap_or_default();
            if a < 0.0 {
                return Err(ToolError("a must not be negative".into()));
            }
            Ok(ToolOutput::from(json!({ "sum": a + b })))
        }),
    });
    catalogue.register(Tool {
        name: "boom",
        title: "Panic",
        description: "Always panics.",
        scope: Scope::Docs,
        input_schema: json!({ "type": "object", "properties": {}, "additionalProperties": false }),
        output_schema: json!({ "type": "object" }),
        handler: Tool::handler(|_, _| panic!("boom")),
    });
    McpServer::with_catalogue(catalogue, None, 4096)
}

/// The built-in catalogue with the project's own `docs/` tree.
fn docs_server() -> McpServer {
    let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs");
    create_mcp_server(ServerOptions::default().with_docs_dir(Some(docs)))
}

/// The error code of each answer (0 for a result).
fn error_codes(out: &[Value]) -> Vec<i64> {
    out.iter()
        .map(|a| a["error"]["code"].as_i64().unwrap_or(0))
        .collect()
}

fn serve(server: McpServer, input: &str) -> Vec<String> {
    let mut out = Vec::new();
    serve_stream(
        input.as_bytes(),
        StreamOptions::new(server, |line: &str| {
            out.push(line.to_owned());
            Ok(())
        }),
    )
    .expect("in-memory input");
    out
}

fn answers(server: McpServer, input: &str) -> Vec<Value> {
    serve(server, input)
        .iter()
        .map(|line| serde_json::from_str(line).expect("JSON"))
        .collect()
}

fn init(revision: &str, id: u64) -> String {
    json!({"jsonrpc":"2.0","id":id,"method":"initialize","params":{"protocolVersion":revision,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}).to_string()
}

fn call(id: u64, name: &str, arguments: Value) -> String {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":name,"arguments":arguments}}).to_string()
}

const STATELESS_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}"#;

/// Every `*.in.jsonl` under `test_data/transcripts` gives exactly its `*.out.jsonl`
/// (regenerate on purpose with `UPDATE_EXPECT=1`).
#[test]
fn transcripts() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/transcripts");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("transcripts folder")
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".in.jsonl"))
        .collect();
    names.sort();
    assert!(names.len() >= 3, "{names:?}");
    for name in names {
        let input = std::fs::read_to_string(dir.join(&name)).expect("transcript");
        let output = serve(test_server(), &input).join("\n") + "\n";
        let expected = dir.join(name.replace(".in.jsonl", ".out.jsonl"));
        expect_test::expect_file![expected].assert_eq(&output);
    }
}

#[test]
fn initialize_echoes_known_revisions_and_answers_the_latest_otherwise() {
    for (asked, got) in [
        ("2025-11-25", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2024-11-05", "2024-11-05"),
        ("2026-07-28", "2025-11-25"),
        ("1999-01-01", "2025-11-25"),
    ] {
        let answer = &answers(test_server(), &init(asked, 1))[0]["result"];
        assert_eq!(answer["protocolVersion"], got, "{asked}");
        assert_eq!(
            answer["capabilities"],
            json!({ "tools": { "listChanged": false } })
        );
        assert_eq!(answer["serverInfo"]["name"], "botmesh-mcp");
        assert_eq!(answer["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
        let instructions = answer["instructions"].as_str().expect("instructions");
        for invariant in [
            "v1 API does not exist",
            "Documents are data",
            "must not await",
            "Ids are opaque",
            "never instructions",
        ] {
            assert!(instructions.contains(invariant), "{invariant}");
        }
    }
}

#[test]
fn structured_output_only_from_2025_06_18() {
    for (revision, structured, annotated) in [
        ("2024-11-05", false, false),
        ("2025-03-26", false, true),
        ("2025-06-18", true, true),
        ("2025-11-25", true, true),
    ] {
        let input = [
            init(revision, 1),
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#.into(),
            call(3, "add", json!({"a": 1, "b": 2})),
        ]
        .join("\n");
        let out = answers(test_server(), &input);
        for tool in out[1]["result"]["tools"].as_array().expect("tools") {
            assert_eq!(tool.get("outputSchema").is_some(), structured, "{revision}");
            assert_eq!(tool.get("title").is_some(), structured, "{revision}");
            assert_eq!(tool.get("annotations").is_some(), annotated, "{revision}");
            if annotated {
                assert_eq!(tool["annotations"]["readOnlyHint"], true);
                assert_eq!(tool["annotations"]["destructiveHint"], false);
                assert_eq!(tool["annotations"]["idempotentHint"], true);
                assert_eq!(tool["annotations"]["openWorldHint"], false);
            }
            assert_eq!(tool["inputSchema"]["type"], "object");
            assert!(!tool["description"].as_str().unwrap_or_default().is_empty());
        }
        let result = &out[2]["result"];
        assert_eq!(result["content"][0]["text"], r#"{"sum":3.0}"#);
        assert_eq!(
            result.get("structuredContent").is_some(),
            structured,
            "{revision}"
        );
        assert!(result.get("isError").is_none());
    }
}

fn assert_no_null_fields(value: &Value, path: &str) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                assert!(!inner.is_null() || key == "id", "null at {path}/{key}");
                assert_no_null_fields(inner, &format!("{path}/{key}"));
            }
        }
        Value::Array(items) => items
            .iter()
            .enumerate()
            .for_each(|(i, v)| assert_no_null_fields(v, &format!("{path}/{i}"))),
        _ => {}
    }
}

#[test]
fn legacy_answers_never_carry_stateless_fields_and_never_null() {
    for revision in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let input = [
            init(revision, 1),
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#.into(),
            r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#.into(),
            call(4, "add", json!({"a": 1, "b": 2})),
            call(5, "add", json!({"a": 1})),
            call(6, "flow_example", json!({})),
        ]
        .join("\n");
        for answer in answers(test_server(), &input) {
            let result = &answer["result"];
            for field in ["resultType", "ttlMs", "cacheScope", "_meta"] {
                assert!(
                    result.get(field).is_none(),
                    "{revision}: {field} in {answer}"
                );
            }
            assert_no_null_fields(&answer, "");
        }
    }
    let ping = answers(test_server(), r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#);
    assert_eq!(ping[0]["result"], json!({}), "ping stays exactly {{}}");
}

#[test]
fn argument_checks_are_tool_errors_with_one_sentence() {
    let cases = [
        (
            "flow_validate",
            json!({"doc": {}}),
            "invalid arguments for flow_validate: unknown argument \"doc\" (accepted: \"document\", \"documentText\", \"fullText\")",
        ),
        (
            "flow_validate",
            json!({}),
            "invalid arguments for flow_validate: missing required argument \"document\" (or \"documentText\", the document as JSON text)",
        ),
        (
            "flow_analyze",
            json!({"document": {}, "documentText": "{}"}),
            "invalid arguments for flow_analyze: give either \"document\" or \"documentText\", not both",
        ),
        (
            "flow_validate",
            json!({"documentText": {}}),
            "invalid arguments for flow_validate: argument \"documentText\" must be a string, not an object",
        ),
        (
            "flow_validate",
            json!({"document": "x"}),
            "invalid arguments for flow_validate: argument \"document\" must be an object, not a string",
        ),
        (
            "flow_migrate",
            json!({"document": {}, "target": 3}),
            "invalid arguments for flow_migrate: argument \"target\" must be at most 2, not 3",
        ),
        (
            "flow_schema",
            json!({"form": "yaml"}),
            "invalid arguments for flow_schema: argument \"form\" must be one of \"compact\", \"json-schema\", \"flowtest\", not \"yaml\"",
        ),
        (
            "flow_example",
            json!({"x": 1}),
            "invalid arguments for flow_example: unknown argument \"x\" (this tool takes no arguments)",
        ),
        ("add", json!({"a": -1, "b": 0}), "a must not be negative"),
    ];
    for (tool, arguments, message) in cases {
        let out = answers(test_server(), &call(1, tool, arguments));
        assert_eq!(out[0]["result"]["isError"], true, "{tool}");
        assert_eq!(out[0]["result"]["content"][0]["text"], message);
        assert!(out[0]["result"].get("structuredContent").is_none());
    }
    let mut deep = json!(0);
    for _ in 0..70 {
        deep = json!({ "a": deep });
    }
    let out = answers(
        test_server(),
        &call(1, "flow_digest", json!({ "document": deep })),
    );
    assert_eq!(
        out[0]["result"]["content"][0]["text"],
        "invalid arguments for flow_digest: argument \"document\" is nested more than 64 levels deep"
    );
}

#[test]
fn protocol_errors() {
    let input = [
        call(1, "nope", json!({})),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":[1]}}"#
            .into(),
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{}}"#.into(),
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":"abc"}}"#.into(),
        call(5, "boom", json!({})),
        r#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#.into(),
    ]
    .join("\n");
    let out = answers(test_server(), &input);
    let codes = error_codes(&out);
    assert_eq!(codes, [-32602, -32602, -32602, -32602, -32603, 0]);
    assert_eq!(out[0]["error"]["message"], "unknown tool: nope");
    assert_eq!(
        out[5]["result"],
        json!({}),
        "the session continues after a panic"
    );
    for method in [
        "resources/list",
        "resources/read",
        "prompts/list",
        "prompts/get",
        "logging/setLevel",
        "completion/complete",
        "sampling/createMessage",
    ] {
        let out = answers(
            test_server(),
            &format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{}}}}"#),
        );
        assert_eq!(out[0]["error"]["code"], -32601, "{method}");
    }
}

#[test]
fn an_unknown_method_is_32601_whatever_its_params_also_in_a_batch() {
    for params in [
        r#","params":[]"#,
        r#","params":[1,2]"#,
        r#","params":{}"#,
        "",
    ] {
        let single = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"x"{params}}}"#);
        let out = answers(test_server(), &single);
        assert_eq!(error_codes(&out), [-32601], "{single}");
        assert_eq!(out[0]["error"]["message"], "method not found: x");
        let batch = format!(
            r#"[{{"jsonrpc":"2.0","id":1,"method":"ping"}},{{"jsonrpc":"2.0","id":2,"method":"x"{params}}},{{"jsonrpc":"2.0","id":3,"method":"tools/list","params":[]}}]"#
        );
        let out = answers(test_server(), &batch);
        let batch_codes: Vec<i64> = out[0]
            .as_array()
            .expect("a batch answer")
            .iter()
            .map(|a| a["error"]["code"].as_i64().unwrap_or(0))
            .collect();
        // A known method still checks its params: tools/list with an array is -32602.
        assert_eq!(batch_codes, [0, -32601, -32602], "{batch}");
    }
}

#[test]
fn scopes_restrict_tools_without_ending_the_session() {
    let server = test_server();
    let mut session = Session::new();
    session.set_scopes(Some(vec![Scope::Docs]));
    assert!(session.allows(Scope::Docs) && !session.allows(Scope::Flow));
    let answer = server
        .handle_text(&mut session, &call(1, "add", json!({"a": 1, "b": 1})))
        .expect("answer");
    let answer: Value = serde_json::from_str(&answer).expect("json");
    assert_eq!(answer["result"]["isError"], true);
    assert_eq!(
        answer["result"]["content"][0]["text"],
        "tool add needs the \"flow\" scope, which this token does not have"
    );
    session.set_scopes(None);
    let answer = server
        .handle_value(
            &mut session,
            serde_json::from_str(&call(2, "add", json!({"a": 1, "b": 1}))).expect("json"),
        )
        .expect("answer");
    assert_eq!(answer["result"]["structuredContent"]["sum"], 2.0);
}

#[test]
fn tools_subset_and_docs_tools_only_with_a_docs_directory() {
    let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let names = |server: McpServer| -> Vec<String> {
        answers(server, list)[0]["result"]["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .map(|t| t["name"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    let all = names(create_mcp_server(ServerOptions::default()));
    assert!(all.iter().all(|name| name.starts_with("flow_")), "{all:?}");
    let missing = names(create_mcp_server(
        ServerOptions::default().with_docs_dir(Some("/definitely/not/here".into())),
    ));
    assert_eq!(all, missing);
    let subset = names(create_mcp_server(
        ServerOptions::default().with_tools(Some(vec!["flow_digest".into(), "flow_schema".into()])),
    ));
    assert_eq!(subset, ["flow_digest", "flow_schema"]);
    let out = answers(
        create_mcp_server(ServerOptions::default().with_tools(Some(vec!["flow_digest".into()]))),
        &call(1, "flow_validate", json!({"document": {}})),
    );
    assert_eq!(
        out[0]["error"]["code"], -32602,
        "a tool outside the subset is unknown"
    );
    let typo = crate::create_mcp_server(
        ServerOptions::default().with_tools(Some(vec!["flow_digest".into(), "flow_digset".into()])),
    );
    let Err(error) = typo else {
        panic!("a misspelt tool name must not serve fewer tools silently");
    };
    assert!(matches!(&error, OptionsError::UnknownTool { name, .. } if name == "flow_digset"));
    assert!(
        error
            .to_string()
            .starts_with("unknown tool \"flow_digset\" (known: flow_validate, "),
        "{error}"
    );
    let docs_without_docs = names(create_mcp_server(
        ServerOptions::default().with_tools(Some(vec!["flow_digest".into(), "docs_page".into()])),
    ));
    assert_eq!(
        docs_without_docs,
        ["flow_digest"],
        "a docs tool without a docs directory is left out, not an error"
    );
}

#[test]
fn both_eras_on_one_stream() {
    let input = [
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{STATELESS_META}}}}}"#),
        init("2025-06-18", 2),
        format!(r#"{{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{{{STATELESS_META}}}}}"#),
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/list"}"#.into(),
        format!(r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"name":"add","arguments":{{"a":1,"b":2}},{STATELESS_META}}}}}"#),
        call(6, "add", json!({"a": 1, "b": 2})),
        format!(r#"{{"jsonrpc":"2.0","id":7,"method":"ping","params":{{{STATELESS_META}}}}}"#),
        r#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#.into(),
        r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"progressToken":"p"}}}"#.into(),
    ]
    .join("\n");
    let out = answers(test_server(), &input);
    let discover = &out[0]["result"];
    assert_eq!(discover["resultType"], "complete");
    assert_eq!(discover["supportedVersions"][0], "2026-07-28");
    assert_eq!(discover["capabilities"], json!({ "tools": {} }));
    assert_eq!(discover["cacheScope"], "public");
    assert!(discover["ttlMs"].as_u64().is_some());
    assert_eq!(
        discover["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "botmesh-mcp"
    );
    assert_eq!(out[1]["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(out[2]["result"]["resultType"], "complete");
    assert!(out[2]["result"]["ttlMs"].is_u64());
    assert!(
        out[2]["result"]["tools"][0].get("outputSchema").is_some(),
        "stateless lists are full"
    );
    assert!(
        out[3]["result"].get("resultType").is_none(),
        "legacy list has no stateless field"
    );
    assert_eq!(out[4]["result"]["resultType"], "complete");
    assert_eq!(out[4]["result"]["structuredContent"]["sum"], 3.0);
    assert!(out[5]["result"].get("resultType").is_none());
    assert_eq!(
        out[6]["error"]["code"], -32601,
        "ping is gone in 2026-07-28"
    );
    assert_eq!(
        out[7]["result"],
        json!({}),
        "ping still works in the legacy session"
    );
    assert!(
        out[8]["result"].get("resultType").is_none(),
        "a bare _meta (progressToken) stays legacy"
    );
}

#[test]
fn stateless_errors() {
    let meta = |version: &str| {
        format!(
            r#""_meta":{{"io.modelcontextprotocol/protocolVersion":{version},"io.modelcontextprotocol/clientCapabilities":{{}}}}"#
        )
    };
    let input = [
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{}}}}}"#, meta("\"2027-01-01\"")),
        format!(r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{{}}}}}"#, meta("\"2025-11-25\"")),
        format!(r#"{{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{{{}}}}}"#, meta("7")),
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#.into(),
        r#"{"jsonrpc":"2.0","id":5,"method":"server/discover"}"#.into(),
        r#"{"jsonrpc":"2.0","id":6,"method":"server/discover","params":{"_meta":{}}}"#.into(),
        format!(r#"{{"jsonrpc":"2.0","id":7,"method":"logging/setLevel","params":{{"level":"info",{}}}}}"#, meta("\"2026-07-28\"")),
        format!(r#"{{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{{"name":"nope",{}}}}}"#, meta("\"2026-07-28\"")),
        format!(r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"add","arguments":{{"a":1}},{}}}}}"#, meta("\"2026-07-28\"")),
    ]
    .join("\n");
    let out = answers(test_server(), &input);
    let codes = error_codes(&out);
    assert_eq!(
        codes,
        [
            -32022, -32022, -32602, -32602, -32602, -32602, -32601, -32602, 0
        ]
    );
    assert_eq!(out[0]["error"]["data"]["requested"], "2027-01-01");
    assert_eq!(
        out[0]["error"]["data"]["supported"],
        json!(crate::PROTOCOL_REVISIONS)
    );
    assert_eq!(out[8]["result"]["isError"], true);
    assert_eq!(out[8]["result"]["resultType"], "complete");
    let mut stateless = Session::stateless();
    let answer = test_server()
        .handle_text(&mut stateless, &init("2025-11-25", 1))
        .expect("answer");
    assert!(
        answer.contains("-32602") || answer.contains("-32601"),
        "initialize on a stateless session: {answer}"
    );
}

/// Keywords every client accepts in an `inputSchema` (see the client-compatibility notes).
const BASIC_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "enum",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "items",
    "description",
    "default",
    "additionalProperties",
];

fn assert_basic_schema(schema: &Value, tool: &str) {
    if let Value::Object(map) = schema {
        for (key, value) in map {
            assert!(
                BASIC_KEYWORDS.contains(&key.as_str()),
                "{tool}: keyword {key} is not in the basic subset"
            );
            match key.as_str() {
                "properties" => {
                    for (name, property) in value.as_object().expect("properties object") {
                        let ok = !name.is_empty()
                            && name.len() <= 64
                            && name
                                .chars()
                                .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c));
                        assert!(ok, "{tool}: property name {name}");
                        assert_basic_schema(property, tool);
                    }
                }
                "items" => assert_basic_schema(value, tool),
                _ => {}
            }
        }
    }
}

#[test]
fn every_tool_declaration_is_accepted_by_strict_clients() {
    let server = docs_server();
    let list = answers(server, r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    let tools = list[0]["result"]["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), 13, "eleven flow tools and two docs tools");
    for tool in tools {
        let name = tool["name"].as_str().expect("name");
        assert!(
            name.len() <= 64
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
            "{name}"
        );
        assert!(
            tool["description"].as_str().is_some_and(|d| d.len() > 40),
            "{name}"
        );
        assert_eq!(tool["inputSchema"]["type"], "object", "{name}");
        assert_eq!(tool["outputSchema"]["type"], "object", "{name}");
        assert_basic_schema(&tool["inputSchema"], name);
        assert!(!tool["outputSchema"].to_string().contains("$ref"), "{name}");
        jsonschema::validator_for(&tool["outputSchema"])
            .unwrap_or_else(|error| panic!("{name}: {error}"));
    }
}

/// Typical calls of every built-in tool (each tool at least once, each form of its answer).
fn typical_calls() -> Vec<(&'static str, Value)> {
    let example: Value = serde_json::from_str(crate::EXAMPLE_FLOW_DOCUMENT).expect("example");
    let legacy = json!({ "name": "Pedidos", "steps": [{ "type": "text", "message": "Hola" }] });
    vec![
        ("flow_validate", json!({ "document": example })),
        (
            "flow_validate",
            json!({ "document": { "version": 2, "id": "x", "steps": [{ "id": "a", "kind": "message" }] } }),
        ),
        ("flow_analyze", json!({ "document": example })),
        (
            "flow_analyze",
            json!({ "document": example, "format": "json", "direction": "LR" }),
        ),
        (
            "flow_analyze",
            json!({ "document": { "version": 2 }, "subflows": [{}] }),
        ),
        ("flow_fix", json!({ "document": example })),
        (
            "flow_fix",
            json!({ "documentText": "{\"version\": 2, \"id\": \"x\", \"steps\": [{\"id\": \"a\", \"type\": \"message\", \"text\": \"hi\", \"goto\": \"bye\"}, {\"id\": \"bye\", \"kind\": \"message\", \"text\": \"bye\"}]}", "unsafe": true }),
        ),
        ("flow_migrate", json!({ "document": legacy })),
        ("flow_migrate", json!({ "document": legacy, "target": 1 })),
        ("flow_diff", json!({ "left": legacy, "right": example })),
        ("flow_digest", json!({ "document": example })),
        ("flow_schema", json!({})),
        ("flow_schema", json!({ "form": "json-schema" })),
        ("flow_schema", json!({ "form": "flowtest" })),
        ("flow_example", json!({})),
        ("flow_render", json!({ "document": example })),
        (
            "flow_render",
            json!({ "document": example, "format": "svg", "direction": "LR", "theme": "dark" }),
        ),
        ("flow_render", json!({ "document": { "version": 2 } })),
        (
            "flow_simulate",
            json!({ "document": example, "start": { "message": "una pizza" },
                    "handlers": { "orders.quote": { "returns": 31.5 }, "orders.place": { "fails": "kitchen closed" } },
                    "replies": [{ "tap": "margherita" }, "Large", "short", "Calle Mayor 5, Madrid", { "tap": "confirm" }] }),
        ),
        (
            "flow_simulate",
            json!({ "document": example, "replies": ["x"] }),
        ),
        (
            "flow_simulate",
            json!({ "document": example, "start": { "message": "una pizza" }, "asTest": true,
                    "contact": { "name": "Ana" }, "handlers": { "orders.quote": { "returns": 31.5 } },
                    "replies": [{ "tap": "margherita" }, "Large"] }),
        ),
        ("flow_simulate", json!({ "document": { "version": 2 } })),
        (
            "flow_test",
            json!({ "document": example, "tests": { "tests": [
                { "name": "a pizza starts", "start": { "message": "una pizza" }, "turns": [{ "bot": { "type": "buttons" } }] },
                { "name": "a message it never sends", "turns": [{ "bot": { "text": "no such message" } }] },
                { "name": "strict: nothing else", "strict": true, "start": { "message": "una pizza" },
                  "turns": [{ "bot": { "type": "buttons" } }], "expect": { "notPath": ["quote"] } }
            ] } }),
        ),
        (
            "flow_test",
            json!({ "document": example, "tests": { "tests": [{ "name": "x", "turns": [{ "usr": "hi" }] }] } }),
        ),
        (
            "flow_test",
            json!({ "document": { "version": 2 }, "tests": { "tests": [] } }),
        ),
        (
            "docs_search",
            json!({ "query": "flow_validate", "limit": 3 }),
        ),
        ("docs_page", json!({ "path": "index.md" })),
        (
            "docs_page",
            json!({ "path": "reference/flow-document.md", "offset": 100, "length": 2000 }),
        ),
        (
            "docs_page",
            json!({ "path": "reference/tools.md", "heading": "docs_page" }),
        ),
        (
            "docs_page",
            json!({ "path": "es/reference/tools.md", "heading": "docs_search", "length": 500 }),
        ),
    ]
}

#[test]
fn every_structured_result_matches_its_output_schema() {
    let server = docs_server();
    let calls = typical_calls();
    let list = answers(
        server.clone(),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
    );
    for (name, arguments) in calls {
        let tool = list[0]["result"]["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .find(|t| t["name"] == name)
            .expect("tool listed");
        let validator = jsonschema::validator_for(&tool["outputSchema"]).expect("schema compiles");
        let result = &answers(server.clone(), &call(1, name, arguments.clone()))[0]["result"];
        assert!(
            result.get("isError").is_none(),
            "{name} {arguments}: {result}"
        );
        let structured = &result["structuredContent"];
        assert!(structured.is_object(), "{name}");
        let problems: Vec<String> = validator
            .iter_errors(structured)
            .map(|e| e.to_string())
            .collect();
        assert!(problems.is_empty(), "{name}: {problems:?}");
        // flow_render's picture comes first, then a line of facts (checked by the text rule).
        let picture = result["content"].as_array().is_some_and(|c| c.len() == 2);
        let transcript = name == "flow_simulate" && structured["valid"] == true;
        if name != "docs_page" && !picture && !transcript {
            let text: Value =
                serde_json::from_str(result["content"][0]["text"].as_str().expect("text"))
                    .expect("text is JSON");
            assert_eq!(&text, structured, "{name}: the text item is the payload");
        }
    }
}

#[test]
fn the_example_validates_and_lints_clean() {
    let example: Value = serde_json::from_str(crate::EXAMPLE_FLOW_DOCUMENT).expect("example");
    let out = answers(
        test_server(),
        &call(1, "flow_analyze", json!({ "document": example })),
    );
    let payload = &out[0]["result"]["structuredContent"];
    assert_eq!(payload["valid"], true, "{payload}");
    assert_eq!(payload["diagnostics"], json!([]), "{payload}");
}

#[test]
fn a_stateless_call_is_fully_structured_whatever_the_legacy_session_negotiated() {
    let input = [
        init("2024-11-05", 1),
        format!(r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"add","arguments":{{"a":1,"b":2}},{STATELESS_META}}}}}"#),
        call(3, "add", json!({"a": 1, "b": 2})),
    ]
    .join("\n");
    let out = answers(test_server(), &input);
    assert_eq!(out.len(), 3);
    assert_eq!(
        out[1]["result"]["structuredContent"]["sum"], 3.0,
        "{}",
        out[1]
    );
    assert_eq!(out[1]["result"]["resultType"], "complete");
    assert!(
        out[2]["result"].get("structuredContent").is_none(),
        "the legacy call keeps 2024-11-05's shape"
    );
}

/// The text item and `structuredContent` of a successful call under 2025-11-25, and the text
/// item of the same call under 2024-11-05 (no `structuredContent` there).
fn text_and_structured(server: &McpServer, name: &str, arguments: &Value) -> (String, Value) {
    let input = format!(
        "{}\n{}\n",
        init("2025-11-25", 0),
        call(1, name, arguments.clone())
    );
    let out = answers(server.clone(), &input);
    let result = &out[1]["result"];
    assert!(
        result.get("isError").is_none(),
        "{name} {arguments}: {result}"
    );
    let content = result["content"].as_array().expect("content");
    // flow_render leads with its picture (an image, or the SVG as text); the last item is the
    // text the rule is about.
    let leading = usize::from(name == "flow_render" && content.len() == 2);
    assert_eq!(content.len(), 1 + leading, "{name}: one text item");
    let text = content[leading]["text"]
        .as_str()
        .expect("a text item")
        .to_owned();
    let legacy = format!(
        "{}\n{}\n",
        init("2024-11-05", 0),
        call(1, name, arguments.clone())
    );
    let legacy = answers(server.clone(), &legacy);
    assert_eq!(
        legacy[1]["result"]["content"][leading]["text"], text,
        "{name}: the same text for a client without structuredContent"
    );
    (text, result["structuredContent"].clone())
}

/// The facts of a `docs_page` range line: offset, end, total, and the call that reads on.
type RangeLine = (u64, u64, u64, Option<Value>);

/// Reads a `docs_page` text: the Markdown, then (unless the whole page was read) one line
/// `[docs_page: characters A-B of T; read on with docs_page {...}]` or `...; the end of the page]`
/// after one newline.
/// Returns the Markdown and the facts of the line (`offset`, `end`, `total`, the next call).
///
/// A section read (`heading`) has the line even when read whole: first `section "H" (anchor
/// "a") under A › B of PATH` (or `the text before the first heading of PATH`), then, when cut,
/// the range as for a page; [`section_fact`] reads that part.
fn read_page_text(text: &str) -> (String, Option<RangeLine>) {
    let Some(start) = text.rfind("\n[docs_page: ").map(|at| at + 1) else {
        return (text.to_owned(), None);
    };
    let (markdown, line) = text.split_at(start);
    let line = line
        .strip_prefix("[docs_page: ")
        .and_then(|line| line.strip_suffix(']'))
        .expect("the continuation line");
    let line = match section_fact(line) {
        Some(fact) => match line[fact.len()..].strip_prefix("; ") {
            Some(rest) => rest,
            None => {
                let markdown = markdown
                    .strip_suffix('\n')
                    .expect("a newline before the line");
                return (markdown.to_owned(), None);
            }
        },
        None => line,
    };
    let line = line
        .strip_prefix("characters ")
        .expect("the range starts the line");
    let (range, rest) = line.split_once("; ").expect("range; rest");
    let (span, total) = range.split_once(" of ").expect("A-B of T");
    let (offset, end) = span.split_once('-').expect("A-B");
    let next = match rest {
        "the end of the page" | "the end of the section" => None,
        call => Some(
            serde_json::from_str(
                call.strip_prefix("read on with docs_page ")
                    .expect("a call"),
            )
            .expect("the call's arguments are JSON"),
        ),
    };
    let number = |text: &str| text.parse::<u64>().expect("a number");
    // One newline separates the part from the line.
    let markdown = markdown
        .strip_suffix('\n')
        .expect("a newline before the line");
    (
        markdown.to_owned(),
        Some((number(offset), number(end), number(total), next)),
    )
}

/// The section clause that starts a `docs_page` line (without `[docs_page: `), if any.
fn section_fact(line: &str) -> Option<&str> {
    if !(line.starts_with("section ") || line.starts_with("the text before the first heading")) {
        return None;
    }
    Some(line.split_once("; ").map_or(line, |(fact, _)| fact))
}

/// The text rule of docs/reference/tools.md: the text item of every tool carries every fact of
/// its `structuredContent`, the same for clients with and without `structuredContent`.
#[test]
fn every_tools_text_carries_the_facts_of_its_structured_content() {
    let server = docs_server();
    let calls = typical_calls();
    for tool in server.catalogue().tools() {
        assert!(
            calls.iter().any(|(name, _)| *name == tool.name),
            "{}: add a typical call, and state its text rule in docs/reference/tools.md",
            tool.name
        );
    }
    for (name, arguments) in &calls {
        let (text, structured) = text_and_structured(&server, name, arguments);
        assert!(
            text.chars().count() <= 100_000,
            "{name}: {} characters",
            text.len()
        );
        if *name == "flow_render" && structured["valid"] == true {
            // One line after the picture: every number of the payload, and the verdict.
            let facts = format!(
                "{} of flow \"pizza-order\" ({}×{} px): {} nodes, {} edges, ",
                structured["format"]
                    .as_str()
                    .expect("format")
                    .to_uppercase(),
                structured["width"],
                structured["height"],
                structured["nodes"],
                structured["edges"],
            );
            assert!(text.starts_with(&facts), "{text}");
            let crossings = structured["crossings"].as_u64().expect("crossings");
            assert!(text.contains(&format!(" {crossings} crossing")), "{text}");
            assert!(text.ends_with("; valid, no issues."), "{text}");
            assert_eq!(structured["issues"], json!([]));
            continue;
        }
        if *name == "flow_simulate" && structured["valid"] == true {
            // The transcript, one line per entry in order, then the outcome, the path, the
            // variables, the clock and the warnings (the runtime's tests read such a text back
            // into the result exactly).
            let structured = structured.as_object().expect("object");
            let flow = arguments["document"]["id"].as_str().expect("id");
            let transcript = botmesh_flow_runtime::simulation_text(flow, structured, Some(100_000));
            match structured.get("test") {
                // With asTest: the transcript, then the case one line per turn.
                Some(test) => {
                    let file =
                        botmesh_flow_runtime::TestFile::from_json(&json!({ "tests": [test] }))
                            .expect("the test is a case");
                    let case = botmesh_flow_runtime::case_text(&file.tests[0], "", "  ", "\n");
                    assert_eq!(
                        text,
                        format!(
                            "{transcript}test (a strict case that replays this conversation):\n{case}\n"
                        )
                    );
                }
                None => assert_eq!(text, transcript),
            }
            let mut at = 0;
            for entry in structured["transcript"].as_array().expect("transcript") {
                let line = format!("\n{}\n", botmesh_flow_runtime::entry_line(entry));
                let found = text[at..]
                    .find(&line)
                    .unwrap_or_else(|| panic!("{line} in {text}"));
                at += found + 1;
            }
            assert!(text.contains(&format!("\nvariables: {}\n", structured["variables"])));
            assert!(text.contains(&format!("\nclock: {} s\n", structured["clock"])));
            assert!(text.contains(&format!(
                "\noutcome: {}",
                structured["outcome"]["kind"].as_str().expect("kind")
            )));
            continue;
        }
        if *name != "docs_page" {
            // Compact JSON of the payload: parsing the text gives structuredContent back.
            let parsed: Value = serde_json::from_str(&text)
                .unwrap_or_else(|error| panic!("{name}: the text is not JSON ({error})"));
            assert_eq!(parsed, structured, "{name} {arguments}");
            assert!(
                !text.contains("\n  "),
                "{name}: compact, not pretty-printed"
            );
            continue;
        }
        // docs_page: the Markdown itself, then the range line when the page was not read whole.
        let (markdown, line) = read_page_text(&text);
        assert_eq!(markdown, structured["markdown"], "{arguments}");
        assert_eq!(structured["path"], arguments["path"]);
        if arguments.get("heading").is_some() {
            // A section names its heading, anchor, heading path and page in the line.
            let last = &text[text.rfind("\n[docs_page: ").expect("a section's line") + 13..];
            let fact = section_fact(last.trim_end_matches(']')).expect("the section clause");
            let trail = structured["headingPath"].as_array().expect("headingPath");
            let (own, above) = trail.split_last().expect("a heading");
            assert_eq!(own, &structured["heading"]);
            let mut expected = format!(
                "section {} (anchor {}) under ",
                structured["heading"], structured["anchor"]
            );
            let above: Vec<&str> = above.iter().filter_map(Value::as_str).collect();
            expected.push_str(&above.join(" › "));
            expected.push_str(&format!(
                " of {}",
                arguments["path"].as_str().unwrap_or_default()
            ));
            assert_eq!(fact, expected, "{arguments}");
        } else {
            assert!(structured.get("anchor").is_none());
        }
        match line {
            None => {
                assert_eq!(structured["offset"], 0);
                assert_eq!(structured["total"], markdown.chars().count());
                assert!(structured.get("next").is_none());
            }
            Some((offset, end, total, next)) => {
                assert_eq!(structured["offset"], offset);
                assert_eq!(end, offset + markdown.chars().count() as u64);
                assert_eq!(structured["total"], total);
                match next {
                    None => assert!(structured.get("next").is_none()),
                    Some(call) => {
                        assert_eq!(structured["next"], call["offset"]);
                        assert_eq!(call["path"], structured["path"]);
                    }
                }
            }
        }
    }
}

#[test]
fn a_cut_page_says_exactly_how_to_read_on_and_the_parts_make_the_page() {
    let server = docs_server();
    let path = "reference/flow-document.md";
    let (whole, _) = text_and_structured(&server, "docs_page", &json!({ "path": path }));
    let mut arguments = json!({ "path": path, "length": 3000 });
    let mut read = String::new();
    let mut parts = 0;
    loop {
        let (text, structured) = text_and_structured(&server, "docs_page", &arguments);
        let (markdown, line) = read_page_text(&text);
        let (_, _, total, next) = line.expect("a part of a page ends with the range line");
        assert!(markdown.chars().count() <= 3000);
        assert_eq!(total, whole.chars().count() as u64);
        read.push_str(&markdown);
        parts += 1;
        match next {
            Some(call) => {
                assert!(markdown.ends_with('\n'), "cut at a line end");
                assert_eq!(call["length"], 3000, "the call keeps the length asked");
                assert_eq!(structured["next"], call["offset"]);
                arguments = call;
            }
            None => break,
        }
    }
    assert!(parts >= 4, "{parts}");
    assert_eq!(read, whole);
    // Past the end: a tool error naming the page.
    let out = answers(
        server,
        &call(
            1,
            "docs_page",
            json!({ "path": path, "offset": 10_000_000 }),
        ),
    );
    assert_eq!(out[0]["result"]["isError"], true);
    let message = out[0]["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        message.starts_with("offset 10000000 is past the end of the page ("),
        "{message}"
    );
    assert!(message.ends_with(path), "{message}");
}

/// A docs tree under the system temporary folder, removed on drop.
struct TempDocs(std::path::PathBuf);

impl TempDocs {
    fn new(name: &str) -> TempDocs {
        let dir = std::env::temp_dir().join(format!("botmesh-mcp-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp docs");
        TempDocs(dir)
    }
}

impl Drop for TempDocs {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn a_long_page_is_cut_under_the_text_limit_unless_more_is_asked() {
    let docs = TempDocs::new("long-page");
    let line = "A line of the guide, about the same length as a real one, with ñ and é.\n";
    let page = format!("# Long\n\n{}", line.repeat(4000));
    std::fs::write(docs.0.join("long.md"), &page).expect("write page");
    let server = create_mcp_server(ServerOptions::default().with_docs_dir(Some(docs.0.clone())));
    let (text, structured) =
        text_and_structured(&server, "docs_page", &json!({ "path": "long.md" }));
    assert!(text.chars().count() <= 40_200, "{}", text.chars().count());
    assert_eq!(structured["total"], page.chars().count());
    let next = structured["next"].as_u64().expect("cut");
    assert!(text.ends_with(&format!(
        "; read on with docs_page {{\"offset\":{next},\"path\":\"long.md\"}}]"
    )));
    // Asked for: the whole page in one text, past the limit.
    let (text, structured) = text_and_structured(
        &server,
        "docs_page",
        &json!({ "path": "long.md", "length": 1_000_000 }),
    );
    assert_eq!(text, page);
    assert!(structured.get("next").is_none());
}

/// A valid version 2 document of 500 message steps with texts of 400 characters.
fn huge_document() -> Value {
    let text = "Ñ".repeat(400);
    let steps: Vec<Value> = (0..500)
        .map(|i| json!({ "id": format!("s{i}"), "kind": "message", "text": text }))
        .collect();
    json!({ "version": 2, "id": "huge", "steps": steps })
}

#[test]
fn huge_results_leave_their_bulk_out_of_the_text_unless_asked() {
    let server = docs_server();
    let document = huge_document();
    let mut v1 = document.clone();
    v1["version"] = json!(1);
    // Mermaid labels are short: a drawing passes the limit only with many steps (subflows).
    let mut huge = document.clone();
    huge["id"] = json!("other");
    let cases = [
        ("flow_migrate", json!({ "document": v1 }), "document"),
        (
            "flow_analyze",
            json!({ "document": document, "format": "json" }),
            "graph",
        ),
        (
            "flow_analyze",
            json!({ "document": document, "subflows": [huge] }),
            "mermaid",
        ),
    ];
    for (name, arguments, bulk) in cases {
        let (text, structured) = text_and_structured(&server, name, &arguments);
        let full = structured.to_string();
        assert!(
            full.chars().count() > 100_000,
            "{name} {bulk}: {}",
            full.len()
        );
        assert!(
            text.chars().count() <= 100_000,
            "{name} {bulk}: {}",
            text.len()
        );
        let (json_part, note) = text.split_once('\n').expect("JSON, then the note");
        let mut without: Value = serde_json::from_str(json_part).expect("JSON");
        let mut expected = structured.clone();
        let left_out = expected
            .as_object_mut()
            .and_then(|fields| fields.remove(bulk))
            .expect("the bulk is in structuredContent");
        assert_eq!(without, expected, "{name}: every other fact is in the text");
        assert_eq!(
            note,
            format!(
                "[{name}: \"{bulk}\" ({} characters) left out of this text to keep it under 100000 \
                 characters; complete in structuredContent, or call again with \"fullText\": true \
                 to get it here]",
                left_out.to_string().chars().count()
            )
        );
        // Asked for: the whole payload in the text.
        let mut asked = arguments.clone();
        asked["fullText"] = json!(true);
        let (text, structured) = text_and_structured(&server, name, &asked);
        without = serde_json::from_str(&text).expect("JSON");
        assert_eq!(without, structured);
    }
}

#[test]
fn a_huge_list_of_issues_keeps_its_first_items_in_the_text_unless_asked() {
    let server = docs_server();
    let steps: Vec<Value> = (0..500)
        .map(|i| json!({ "id": format!("s{i}"), "kind": "end", "a": 1, "b": 2, "c": 3, "d": 4, "e": 5 }))
        .collect();
    let arguments = json!({ "document": { "version": 2, "id": "bad", "steps": steps } });
    let (text, structured) = text_and_structured(&server, "flow_validate", &arguments);
    let all = structured["issues"].as_array().expect("issues");
    assert!(all.len() >= 2500, "{}", all.len());
    assert!(text.chars().count() <= 100_000, "{}", text.len());
    let (json_part, note) = text.split_once('\n').expect("JSON, then the note");
    let shown: Value = serde_json::from_str(json_part).expect("JSON");
    let kept = shown["issues"].as_array().expect("issues").len();
    assert!(kept > 100 && kept < all.len(), "{kept}");
    assert_eq!(shown["issues"].as_array().expect("issues")[..], all[..kept]);
    assert_eq!(shown["valid"], false);
    assert_eq!(
        note,
        format!(
            "[flow_validate: \"issues\" after the first {kept} of {} left out of this text to keep \
             it under 100000 characters; complete in structuredContent, or call again with \
             \"fullText\": true to get it here]",
            all.len()
        )
    );
    let mut asked = arguments.clone();
    asked["fullText"] = json!(true);
    let (text, structured) = text_and_structured(&server, "flow_validate", &asked);
    assert_eq!(
        serde_json::from_str::<Value>(&text).expect("JSON"),
        structured
    );
}

#[test]
fn a_huge_test_run_keeps_its_first_cases_in_the_text_unless_asked() {
    let server = docs_server();
    let document = json!({ "version": 2, "id": "hi", "steps": [
        { "id": "hello", "kind": "end", "text": "Hello." }
    ]});
    let cases: Vec<Value> = (0..4000)
        .map(|i| {
            json!({ "name": format!("case number {i} of a generated suite that is long"),
                         "turns": [{ "user": "hi" }] })
        })
        .collect();
    let arguments = json!({ "document": document, "tests": { "tests": cases } });
    let (text, structured) = text_and_structured(&server, "flow_test", &arguments);
    assert_eq!(structured["totals"]["cases"], 4000);
    assert!(structured.to_string().chars().count() > 100_000);
    assert!(text.chars().count() <= 100_000, "{}", text.len());
    let (json_part, note) = text.split_once('\n').expect("JSON, then the note");
    let shown: Value = serde_json::from_str(json_part).expect("JSON");
    let kept = shown["cases"].as_array().expect("cases").len();
    assert!(kept > 100 && kept < 4000, "{kept}");
    assert_eq!(shown["totals"], structured["totals"]);
    assert_eq!(shown["coverage"], structured["coverage"]);
    assert!(
        note.starts_with(&format!(
            "[flow_test: \"cases\" after the first {kept} of 4000 left out"
        )),
        "{note}"
    );
    let mut asked = arguments.clone();
    asked["fullText"] = json!(true);
    let (text, structured) = text_and_structured(&server, "flow_test", &asked);
    assert_eq!(
        serde_json::from_str::<Value>(&text).expect("JSON"),
        structured
    );
}

#[test]
fn flow_render_returns_an_image_item_then_a_line_of_facts() {
    let example: Value = serde_json::from_str(crate::EXAMPLE_FLOW_DOCUMENT).expect("example");
    let out = answers(
        test_server(),
        &call(1, "flow_render", json!({ "document": example })),
    );
    let result = &out[0]["result"];
    assert!(result.get("isError").is_none(), "{result}");
    let content = result["content"].as_array().expect("content");
    assert_eq!(content.len(), 2, "{result}");
    assert_eq!(content[0]["type"], "image");
    assert_eq!(content[0]["mimeType"], "image/png");
    let data = content[0]["data"].as_str().expect("base64");
    // "\x89PNG\r\n\x1a\n" in base64.
    assert!(data.starts_with("iVBORw0KGgo"), "{}", &data[..20]);
    assert_eq!(content[1]["type"], "text");
    let line = content[1]["text"].as_str().expect("text");
    assert!(!line.contains('\n'), "{line}");
    let payload = &result["structuredContent"];
    assert_eq!(payload["valid"], true);
    assert_eq!(payload["format"], "png");
    let steps = example["steps"].as_array().expect("steps").len();
    assert_eq!(payload["nodes"], steps, "{payload}");
    assert!(payload["width"].as_i64().expect("width") > 100);

    let out = answers(
        test_server(),
        &call(
            2,
            "flow_render",
            json!({ "document": example, "format": "svg", "direction": "TB" }),
        ),
    );
    let result = &out[0]["result"];
    let content = result["content"].as_array().expect("content");
    assert_eq!(content.len(), 2);
    let svg = content[0]["text"].as_str().expect("svg");
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
        "{svg}"
    );
    assert!(svg.contains(&format!(
        "width=\"{}\"",
        result["structuredContent"]["width"]
    )));
}

#[test]
fn flow_render_names_the_characters_it_cannot_draw_and_draws_emoji() {
    let document = json!({ "version": 2, "id": "hola", "steps": [
        { "id": "hi", "kind": "message", "text": "Welcome 🍕 你好" }] });
    let out = answers(
        test_server(),
        &call(1, "flow_render", json!({ "document": document })),
    );
    let result = &out[0]["result"];
    let payload = &result["structuredContent"];
    // The emoji is drawn; the two Chinese characters are written as code points, and said.
    assert_eq!(
        payload["missingGlyphs"],
        json!(["U+4F60 你", "U+597D 好"]),
        "{payload}"
    );
    let line = result["content"][1]["text"].as_str().expect("text");
    assert!(
        line.contains(
            "valid, no issues. 2 characters no embedded font draws are written as code points: \
             U+4F60 你, U+597D 好."
        ),
        "{line}"
    );
    // Without such characters the field is absent.
    let out = answers(
        test_server(),
        &call(
            2,
            "flow_render",
            json!({ "document": { "version": 2, "id": "hola", "steps": [
                { "id": "hi", "kind": "message", "text": "Welcome 🍕 ✅" }] } }),
        ),
    );
    assert!(
        out[0]["result"]["structuredContent"]
            .get("missingGlyphs")
            .is_none(),
        "{}",
        out[0]
    );
}

#[test]
fn flow_render_of_an_invalid_document_is_valid_false_without_a_picture() {
    let out = answers(
        test_server(),
        &call(
            1,
            "flow_render",
            json!({ "document": { "version": 2, "id": "x", "steps": [] }, "subflows": [{}] }),
        ),
    );
    let result = &out[0]["result"];
    assert!(result.get("isError").is_none(), "{result}");
    let content = result["content"].as_array().expect("content");
    assert_eq!(content.len(), 1);
    assert_eq!(content[0]["type"], "text");
    let payload = &result["structuredContent"];
    assert_eq!(payload["valid"], false);
    let issues = payload["issues"].as_array().expect("issues");
    assert!(
        issues.iter().any(|i| i["source"] == "document"),
        "{payload}"
    );
    assert!(
        issues.iter().any(|i| i["source"] == "subflows/0"),
        "{payload}"
    );
    assert!(payload.get("width").is_none());
    let out = answers(
        test_server(),
        &call(2, "flow_render", json!({ "document": {}, "theme": "pink" })),
    );
    assert_eq!(out[0]["result"]["isError"], true, "{}", out[0]);
}

#[test]
fn document_text_gives_positions_and_a_text_that_is_not_json_is_invalid() {
    let text = "{\n  \"version\": 2,\n  \"id\": \"t\",\n  \"steps\": [\n    { \"id\": \"a\", \"kind\": \"message\", \"text\": \"hi\", \"goto\": \"b\" },\n    { \"id\": \"b\", \"kind\": \"end\" },\n    { \"id\": \"c\", \"kind\": \"end\" }\n  ]\n}\n";
    let out = answers(
        test_server(),
        &call(1, "flow_validate", json!({ "documentText": text })),
    );
    let result = &out[0]["result"]["structuredContent"];
    assert_eq!(
        result["issues"],
        json!([{ "path": "/steps/0/goto", "message": "unknown property \"goto\" (did you mean \"next\"?)",
                 "line": 5, "column": 51, "endLine": 5, "endColumn": 57,
                 "fix": { "applicability": "safe", "description": "rename \"goto\" to \"next\"",
                          "patch": [{ "op": "test", "path": "/steps/0/goto", "value": "b" },
                                    { "op": "move", "from": "/steps/0/goto", "path": "/steps/0/next" }] } }])
    );
    // With the key fixed, the lint's diagnostics point at their steps.
    let fixed = text.replace("\"goto\"", "\"next\"");
    let out = answers(
        test_server(),
        &call(
            1,
            "flow_analyze",
            json!({ "documentText": fixed, "format": "json" }),
        ),
    );
    let result = &out[0]["result"]["structuredContent"];
    assert_eq!(result["valid"], true);
    let unreachable = result["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "unreachable-step")
        .expect("step c is unreachable");
    assert_eq!(
        [
            &unreachable["line"],
            &unreachable["column"],
            &unreachable["endColumn"]
        ],
        [7, 5, 33]
    );
    // Not JSON: a successful call, valid false, naming the line and column.
    for tool in ["flow_validate", "flow_analyze"] {
        let out = answers(
            test_server(),
            &call(1, tool, json!({ "documentText": "{\n  \"id\": \"a\",\n}" })),
        );
        let result = &out[0]["result"];
        assert_eq!(result.get("isError"), None, "{tool}");
        let issue = &result["structuredContent"]["issues"][0];
        assert_eq!(result["structuredContent"]["valid"], false);
        assert_eq!(
            issue["message"],
            "the text is not JSON: trailing comma at line 3 column 1"
        );
        assert_eq!([&issue["line"], &issue["column"]], [3, 1]);
    }
}

#[test]
fn flow_fix_applies_safe_fixes_then_unsafe_ones_when_asked_and_is_idempotent() {
    let broken = json!({ "version": 2, "id": "f", "steps": [
        { "id": "a", "type": "message", "text": "Hi", "next": "bey" },
        { "id": "b", "kind": "transfer" },
        { "id": "bye", "kind": "message", "text": "Bye" },
    ]});
    let result = |arguments: Value| -> Value {
        let out = answers(test_server(), &call(1, "flow_fix", arguments));
        assert_eq!(out[0]["result"].get("isError"), None, "{}", out[0]);
        out[0]["result"]["structuredContent"].clone()
    };
    let safe = result(json!({ "document": broken }));
    assert_eq!(
        safe["applied"],
        json!([
            "rename \"type\" to \"kind\"",
            "change kind \"transfer\" to \"handoff\""
        ])
    );
    assert_eq!(safe["valid"], false, "the unknown next needs an unsafe fix");
    assert_eq!(safe["issues"][0]["path"], "/steps/0/next");
    let all = result(json!({ "document": broken, "unsafe": true }));
    assert_eq!(all["valid"], true, "{all}");
    assert!(
        all["applied"].as_array().unwrap().contains(&json!(
            "point next at the nearest step id, \"bye\" (check it is the step meant) (unsafe)"
        )),
        "{all}"
    );
    assert_eq!(
        all["digest"],
        json!(botmesh_flow_schema::digest(&all["document"]).digest)
    );
    let again = result(json!({ "document": all["document"], "unsafe": true }));
    assert_eq!(again["applied"], json!([]));
    assert_eq!(again["document"], all["document"]);
    let out = answers(
        test_server(),
        &call(1, "flow_fix", json!({ "documentText": "{ nope" })),
    );
    assert_eq!(out[0]["result"]["isError"], true);
}

/// The batch rule (`accepts_batches`) holds for `handle_value` and `handle_text` alike: a
/// batch is answered before and after `initialize` at every revision, and refused as a whole
/// (`-32600`, no id) in a stateless session.
#[test]
fn batches_follow_the_revision_rule_on_every_entry_point() {
    let server = test_server();
    let batch = json!([
        { "jsonrpc": "2.0", "id": 1, "method": "ping" },
        { "jsonrpc": "2.0", "id": 2, "method": "tools/list" }
    ]);
    let mut fresh = Session::new();
    let answer = server
        .handle_value(&mut fresh, batch.clone())
        .expect("answer");
    assert_eq!(answer.as_array().map(Vec::len), Some(2), "{answer}");
    for revision in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut session = Session::new();
        server.handle_text(&mut session, &init(revision, 0));
        assert!(crate::accepts_batches(revision));
        let answer = server
            .handle_value(&mut session, batch.clone())
            .expect("answer");
        assert_eq!(
            answer.as_array().map(Vec::len),
            Some(2),
            "{revision}: {answer}"
        );
        let text = server
            .handle_text(&mut session, &format!(" \n{batch}"))
            .expect("answer");
        assert!(text.starts_with('['), "{revision}: {text}");
    }
    let mut stateless = Session::stateless();
    let refused = server
        .handle_value(&mut stateless, batch.clone())
        .expect("answer");
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert_eq!(refused["id"], Value::Null);
    let text = server
        .handle_text(&mut stateless, &format!("\t{batch}"))
        .expect("answer");
    let text: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(text, refused, "both entry points answer the same");
    assert!(!crate::accepts_batches(crate::LATEST_PROTOCOL_REVISION));
    assert!(!crate::accepts_batches("2027-01-01"));
}

/// `plan` is a transport's whole protocol knowledge: the route from the version header and the
/// body, and labels that a client's strings never reach.
#[test]
fn plan_routes_by_header_and_body_and_names_only_known_methods_and_tools() {
    use crate::{Plan, Route};
    let server = test_server();
    let message = |text: &str| serde_json::from_str::<Value>(text).expect("json");
    let initialize = message(&init("2025-06-18", 1));
    let digest = message(&call(2, "flow_digest", json!({})));
    let unknown = message(&call(3, "nope\"", json!({})));
    let stateless = message(&format!(
        r#"{{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{{{STATELESS_META}}}}}"#
    ));
    let evil = json!({"jsonrpc": "2.0", "id": 5, "method": "evil\"method"});
    let batch = json!([digest.clone()]);
    let plan = |header: Option<&str>, m: &Value| server.plan(header, m);
    assert_eq!(plan(None, &initialize).route, Route::Open);
    assert_eq!(plan(Some("2025-06-18"), &initialize).route, Route::Open);
    assert_eq!(
        plan(Some("2027-01-01"), &initialize).route,
        Route::UnsupportedVersion
    );
    assert_eq!(
        plan(None, &digest),
        Plan {
            route: Route::Resume {
                revision: "2025-03-26"
            },
            method: "tools/call",
            tool: "flow_digest",
        },
        "no header: 2025-03-26, as the Streamable HTTP transport assumes"
    );
    assert_eq!(
        plan(Some(" 2025-11-25 "), &digest).route,
        Route::Resume {
            revision: "2025-11-25"
        }
    );
    assert_eq!(plan(Some("2026-07-28"), &digest).route, Route::Stateless);
    assert_eq!(plan(Some("2027-01-01"), &stateless).route, Route::Stateless);
    assert_eq!(
        plan(Some("2027-01-01"), &digest).route,
        Route::UnsupportedVersion
    );
    assert_eq!(plan(None, &unknown).tool, crate::UNKNOWN_TOOL);
    assert_eq!(plan(None, &evil).method, "other");
    assert_eq!(
        (plan(None, &batch).method, plan(None, &batch).tool),
        ("batch", "")
    );
}

/// `serve` reports every tool call it served (the catalogue's name, the scope decision, the
/// outcome) and the revision of a session an `initialize` opened; the routing headers of a
/// 2026-07-28 POST are checked after the `_meta` keys and before the version.
#[test]
fn serve_reports_tool_calls_opened_sessions_and_checks_routing_headers() {
    use crate::{CallOutcome, RoutingHeaders, ToolCall};
    let server = test_server();
    let message = |text: &str| serde_json::from_str::<Value>(text).expect("json");
    let mut session = Session::new();
    let opened = server.serve(&mut session, message(&init("2025-06-18", 1)), None);
    assert_eq!(opened.opened, Some("2025-06-18"));
    assert!(opened.tool_calls.is_empty());
    session.set_scopes(Some(vec![Scope::Flow]));
    let batch = json!([
        message(&call(2, "add", json!({"a": 1, "b": 2}))),
        message(&call(3, "add", json!({"a": -1, "b": 2}))),
        message(&call(4, "boom", json!({}))),
        message(&call(5, "nope", json!({}))),
        {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "add"}},
    ]);
    let served = server.serve(&mut session, batch, None);
    assert_eq!(served.opened, None);
    let outcome = |tool, outcome| ToolCall { tool, outcome };
    assert_eq!(
        served.tool_calls,
        [
            outcome("add", CallOutcome::Ok),
            outcome("add", CallOutcome::ToolError),
            outcome("boom", CallOutcome::ScopeDenied),
            outcome(crate::UNKNOWN_TOOL, CallOutcome::ProtocolError),
        ],
        "requests only, in order"
    );
    assert_eq!(served.error_code(), None, "a batch answer is an array");
    let names: Vec<_> = served
        .tool_calls
        .iter()
        .map(|c| c.outcome.as_str())
        .collect();
    assert_eq!(
        names,
        ["ok", "tool_error", "scope_denied", "protocol_error"]
    );

    let stateless = |version: &str| {
        message(&format!(
            r#"{{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{{"name":"add","arguments":{{"a":1,"b":1}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"{version}","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
        ))
    };
    let headers = |method: &str, name: &str| RoutingHeaders {
        version: "2026-07-28".into(),
        methods: vec![method.as_bytes().to_vec()],
        names: vec![name.as_bytes().to_vec()],
    };
    let good = headers("tools/call", "add");
    let served = server.serve(
        &mut Session::stateless(),
        stateless("2026-07-28"),
        Some(&good),
    );
    assert_eq!(served.error_code(), None, "{:?}", served.answer);
    assert_eq!(served.tool_calls, [outcome("add", CallOutcome::Ok)]);
    let wrong = headers("tools/call", "boom");
    let served = server.serve(
        &mut Session::stateless(),
        stateless("2026-07-28"),
        Some(&wrong),
    );
    assert_eq!(served.error_code(), Some(-32020));
    assert_eq!(
        served.answer.as_ref().map(|a| a["id"].clone()),
        Some(json!(6))
    );
    assert_eq!(
        served.tool_calls,
        [outcome("add", CallOutcome::ProtocolError)]
    );
    let served = server.serve(&mut Session::stateless(), stateless("v9"), Some(&good));
    assert_eq!(
        served.error_code(),
        Some(-32020),
        "headers before the version"
    );
    let mut v9 = good.clone();
    v9.version = "v9".into();
    let served = server.serve(&mut Session::stateless(), stateless("v9"), Some(&v9));
    assert_eq!(served.error_code(), Some(-32022));
    let mut bare = stateless("2026-07-28");
    bare["params"]["_meta"] = json!({});
    let served = server.serve(&mut Session::stateless(), bare, Some(&wrong));
    assert_eq!(
        served.error_code(),
        Some(-32602),
        "a missing _meta key comes first"
    );
    assert!(
        Session::at_revision("2025-03-26")
            .is_some_and(|s| s.protocol_revision() == Some("2025-03-26"))
    );
}

#[test]
fn flow_test_reports_the_failing_turn_totals_and_coverage() {
    let document = json!({ "version": 2, "id": "shop", "steps": [
        { "id": "menu", "kind": "buttons", "text": "Pick", "buttons": [
            { "id": "a", "title": "Apples", "next": "apples" },
            { "id": "b", "title": "Bread", "next": "bread" }] },
        { "id": "apples", "kind": "end", "text": "Apples it is." },
        { "id": "bread", "kind": "end", "text": "Bread it is." }
    ]});
    let tests = json!({ "tests": [
        { "name": "apples", "turns": [{ "user": { "tap": "a" } }, { "bot": { "text": "Apples it is." } }],
          "expect": { "outcome": "ended", "step": "apples" } },
        { "name": "wrong text", "turns": [{ "user": "Apples" }, { "bot": { "contains": "Pears" } }] }
    ]});
    let out = answers(
        test_server(),
        &call(
            1,
            "flow_test",
            json!({ "document": document, "tests": tests }),
        ),
    );
    let result = &out[0]["result"];
    assert!(result.get("isError").is_none(), "{result}");
    let structured = &result["structuredContent"];
    assert_eq!(structured["valid"], true);
    assert_eq!(
        structured["totals"],
        json!({ "cases": 2, "passed": 1, "failed": 1 })
    );
    assert_eq!(
        structured["cases"][0],
        json!({ "name": "apples", "passed": true })
    );
    let failure = &structured["cases"][1]["failure"];
    assert_eq!(failure["path"], "/tests/1/turns/1");
    assert_eq!(failure["check"], "turn 1");
    assert_eq!(failure["expected"], "a message containing \"Pears\"");
    // Every message since the start: no bot turn matched before.
    assert_eq!(
        failure["actual"],
        "[shop/menu] buttons: \"Pick\"; [shop/apples] text: \"Apples it is.\""
    );
    assert_eq!(
        failure["at"],
        json!({ "flow": "shop", "step": "apples", "reason": "stopped" })
    );
    let flow = &structured["coverage"]["flows"][0];
    assert_eq!(flow["steps"], 3);
    assert_eq!(flow["stepsCovered"], 2);
    assert_eq!(flow["uncoveredSteps"], json!(["bread"]));
    assert_eq!(flow["uncoveredEdges"][0]["label"], "menu → \"Bread\"");
    assert_eq!(flow["edgesCovered"], 1);
}

#[test]
fn flow_test_strict_cases_fail_on_a_message_no_turn_expects() {
    let document = json!({ "version": 2, "id": "shop", "steps": [
        { "id": "hi", "kind": "message", "text": "Hello" },
        { "id": "menu", "kind": "buttons", "text": "Pick", "buttons": [
            { "id": "a", "title": "Apples", "next": "apples" },
            { "id": "b", "title": "Bread", "next": "bread" }] },
        { "id": "apples", "kind": "message", "text": "Apples it is." },
        { "id": "bread", "kind": "end", "text": "Bread it is." }
    ]});
    // Apples falls through into bread: a strict case that checks apples alone catches it.
    let tests = json!({ "strict": true, "tests": [
        { "name": "every message", "turns": [
            { "bot": { "text": "Hello" } }, { "bot": { "step": "menu" } }, { "user": { "tap": "b" } },
            { "bot": { "text": "Bread it is." } }] },
        { "name": "apples and nothing else", "turns": [
            { "bot": { "text": "Hello" } }, { "bot": { "step": "menu" } }, { "user": { "tap": "a" } },
            { "bot": { "text": "Apples it is." } }] },
        { "name": "apples, loose", "strict": false, "turns": [
            { "user": { "tap": "a" } }, { "bot": { "text": "Apples it is." } }],
          "expect": { "notPath": ["bread"] } }
    ]});
    let out = answers(
        test_server(),
        &call(
            1,
            "flow_test",
            json!({ "document": document, "tests": tests }),
        ),
    );
    let structured = &out[0]["result"]["structuredContent"];
    assert_eq!(structured["totals"]["passed"], 1, "{structured}");
    let strict = &structured["cases"][1]["failure"];
    assert_eq!(strict["check"], "strict, after the last turn");
    assert_eq!(
        strict["actual"],
        "the bot also sent [shop/bread] text: \"Bread it is.\""
    );
    assert_eq!(strict["at"]["reason"], "unexpected-message");
    let not_path = &structured["cases"][2]["failure"];
    assert_eq!(not_path["path"], "/tests/2/expect/notPath/0");
    assert_eq!(
        not_path["at"],
        json!({ "flow": "shop", "step": "bread", "reason": "not-path" })
    );
    // A notPath entry that names no step is a malformed file, not a test that always passes.
    let typo = json!({ "tests": [{ "name": "x", "expect": { "notPath": ["braed"] } }] });
    let out = answers(
        test_server(),
        &call(
            2,
            "flow_test",
            json!({ "document": document, "tests": typo }),
        ),
    );
    let structured = &out[0]["result"]["structuredContent"];
    assert_eq!(structured["valid"], false);
    assert_eq!(structured["issues"][0]["path"], "/tests/0/expect/notPath/0");
}

#[test]
fn a_simulated_conversation_as_a_test_passes_on_its_flows_and_fails_where_they_change() {
    let example: Value = serde_json::from_str(crate::EXAMPLE_FLOW_DOCUMENT).expect("example");
    let simulation = json!({ "document": example, "start": { "message": "una pizza" },
        "contact": { "name": "Ana" }, "asTest": true,
        "handlers": { "orders.quote": { "returns": 31.5 }, "orders.place": { "returns": "N-7" } },
        "replies": [{ "tap": "margherita" }, "Large", "short", "Calle Mayor 5, Madrid", { "tap": "confirm" }] });
    let out = answers(docs_server(), &call(1, "flow_simulate", simulation));
    let structured = &out[0]["result"]["structuredContent"];
    let test = structured["test"].clone();
    assert_eq!(test["strict"], true, "{test}");
    assert_eq!(test["name"], "margherita");
    assert_eq!(test["start"], json!({ "message": "una pizza" }));
    assert_eq!(test["expect"]["outcome"], structured["outcome"]["kind"]);
    assert_eq!(
        test["expect"]["variables"]["address"],
        "Calle Mayor 5, Madrid"
    );
    // Every message of the transcript is one bot turn; every reply one user turn.
    let transcript = structured["transcript"].as_array().expect("transcript");
    let turns = test["turns"].as_array().expect("turns");
    let count = |key: &str| transcript.iter().filter(|e| e.get(key).is_some()).count();
    assert_eq!(turns.len(), count("bot") + count("user") - 1, "{test}");
    let run = |document: &Value| {
        let arguments = json!({ "document": document, "tests": { "tests": [test.clone()] } });
        let out = answers(docs_server(), &call(2, "flow_test", arguments));
        let structured = &out[0]["result"]["structuredContent"];
        assert_eq!(structured["valid"], true, "{}", out[0]);
        structured["cases"][0].clone()
    };
    assert_eq!(
        run(&example),
        json!({ "name": "margherita", "passed": true })
    );
    // The bot says something else: the turn of that message fails.
    let position = |step: &str| {
        turns
            .iter()
            .position(|t| t["bot"]["step"] == step)
            .expect("a turn of the step")
    };
    let mut said = example.clone();
    said["steps"][4]["text"] = json!("Which size for your {{pizza}}?");
    let failure = &run(&said)["failure"];
    assert_eq!(
        failure["path"],
        format!("/tests/0/turns/{}", position("choose_size")),
        "{failure}"
    );
    // The bot goes somewhere else: a large pizza gets no free delivery any more.
    let mut went = example.clone();
    went["steps"][7]["cases"][0]["when"]["value"] = json!(40);
    let failure = &run(&went)["failure"];
    assert_eq!(
        failure["path"],
        format!("/tests/0/turns/{}", position("free_delivery")),
        "{failure}"
    );
    assert_eq!(failure["at"]["step"], "summary", "{failure}");
}

#[test]
fn flow_schema_flowtest_is_the_published_test_file_schema_and_accepts_the_examples() {
    let out = answers(
        test_server(),
        &call(1, "flow_schema", json!({ "form": "flowtest" })),
    );
    let structured = &out[0]["result"]["structuredContent"];
    assert_eq!(structured["form"], "flowtest");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let published: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("docs/schema/flowtest.schema.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(structured["schema"], published);
    let validator = jsonschema::draft202012::new(&structured["schema"]).expect("a schema");
    let mut checked = 0;
    for entry in std::fs::read_dir(root.join("examples/tests")).unwrap() {
        let path = entry.unwrap().path();
        let file: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&file)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}", path.display());
        checked += 1;
    }
    assert!(checked >= 3);
    // The reader refuses what the schema refuses, and the other way round, on the new keys.
    for (file, ok) in [
        (
            json!({ "strict": true, "tests": [{ "name": "a", "strict": false, "expect": { "notPath": ["x", "f/y"] } }] }),
            true,
        ),
        (json!({ "strict": null, "tests": [] }), false),
        (
            json!({ "tests": [{ "name": "a", "strict": "yes" }] }),
            false,
        ),
        (
            json!({ "tests": [{ "name": "a", "expect": { "notPath": "x" } }] }),
            false,
        ),
    ] {
        assert_eq!(validator.is_valid(&file), ok, "{file}");
        assert_eq!(
            botmesh_flow_runtime::TestFile::from_json(&file).is_ok(),
            ok,
            "{file}"
        );
    }
}

#[test]
fn flow_test_with_a_malformed_test_file_is_invalid_not_an_error() {
    let document = json!({ "version": 2, "id": "x", "steps": [{ "id": "bye", "kind": "end" }] });
    let tests = json!({ "tests": [{ "name": "x", "turns": [{ "bot": { "txt": "hi" } }] },
                                  { "name": "y", "start": { "flow": "nope" } }] });
    let out = answers(
        test_server(),
        &call(
            1,
            "flow_test",
            json!({ "document": document, "tests": tests }),
        ),
    );
    let result = &out[0]["result"];
    assert!(result.get("isError").is_none(), "{result}");
    let structured = &result["structuredContent"];
    assert_eq!(structured["valid"], false);
    assert_eq!(structured["issues"][0]["path"], "/tests/0/turns/0/bot/txt");
    assert_eq!(structured["issues"][0]["source"], "tests");
    // The start flow needs the set: checked once the shape is right.
    let tests = json!({ "tests": [{ "name": "y", "start": { "flow": "nope" } }] });
    let out = answers(
        test_server(),
        &call(
            1,
            "flow_test",
            json!({ "document": document, "tests": tests }),
        ),
    );
    let structured = &out[0]["result"]["structuredContent"];
    assert_eq!(structured["valid"], false);
    assert_eq!(structured["issues"][0]["path"], "/tests/0/start/flow");
}

#[test]
fn flow_test_generates_a_suite_that_passes_and_covers_every_edge() {
    let document = json!({ "version": 2, "id": "shop", "steps": [
        { "id": "menu", "kind": "buttons", "text": "Pick", "buttons": [
            { "id": "a", "title": "Apples", "next": "qty" },
            { "id": "b", "title": "Bread", "next": "bread" }] },
        { "id": "qty", "kind": "ask", "text": "How many?", "save": "qty", "input": "number" },
        { "id": "check", "kind": "branch", "cases": [
            { "when": { "var": "qty", "op": "gt", "value": 4 }, "next": "many" }], "default": "bread" },
        { "id": "many", "kind": "end", "text": "Many." },
        { "id": "bread", "kind": "end", "text": "Bread it is." }
    ]});
    let out = answers(
        test_server(),
        &call(
            1,
            "flow_test",
            json!({ "document": document, "generate": true }),
        ),
    );
    let structured = &out[0]["result"]["structuredContent"];
    assert_eq!(structured["valid"], true, "{structured}");
    assert_eq!(structured["totals"]["failed"], 0, "{structured}");
    assert_eq!(structured["uncovered"], json!([]));
    let flow = &structured["coverage"]["flows"][0];
    assert_eq!(flow["edgesCovered"], flow["edges"], "{flow}");
    let names: Vec<&str> = structured["tests"]["tests"]
        .as_array()
        .expect("cases")
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert!(
        names.iter().any(|n| n.contains("check → case qty > 4")),
        "{names:?}"
    );
    // tests and generate: true are exclusive.
    let both = answers(
        test_server(),
        &call(
            2,
            "flow_test",
            json!({ "document": document, "generate": true, "tests": { "tests": [] } }),
        ),
    );
    assert_eq!(both[0]["result"]["isError"], true);
}

/// An `initialize` whose client declares `capabilities` (MCP Apps or not).
fn init_with(revision: &str, id: u64, capabilities: Value) -> String {
    json!({"jsonrpc":"2.0","id":id,"method":"initialize","params":{"protocolVersion":revision,"capabilities":capabilities,"clientInfo":{"name":"t","version":"1"}}}).to_string()
}

/// MCP Apps as the extension declares it, under `field` (`extensions` or `experimental`).
fn apps_capabilities(field: &str) -> Value {
    json!({ field: { "io.modelcontextprotocol/ui": { "mimeTypes": ["text/html;profile=mcp-app"] } } })
}

/// The requests of a session after its `initialize`: every method MCP Apps changes.
fn apps_session_requests(first_id: u64) -> Vec<String> {
    let example: Value = serde_json::from_str(crate::EXAMPLE_FLOW_DOCUMENT).expect("example");
    [
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        json!({"jsonrpc":"2.0","id":first_id,"method":"tools/list"}),
        json!({"jsonrpc":"2.0","id":first_id + 1,"method":"resources/list"}),
        json!({"jsonrpc":"2.0","id":first_id + 2,"method":"resources/read","params":{"uri":"ui://botmesh/flow"}}),
        json!({"jsonrpc":"2.0","id":first_id + 3,"method":"resources/read","params":{"uri":"ui://botmesh/nope"}}),
        json!({"jsonrpc":"2.0","id":first_id + 4,"method":"resources/templates/list"}),
        json!({"jsonrpc":"2.0","id":first_id + 5,"method":"tools/call","params":{"name":"flow_render","arguments":{"document":example,"format":"svg"}}}),
    ]
    .iter()
    .map(Value::to_string)
    .collect()
}

/// The linked tools' `_meta`, by name, from a `tools/list` result.
fn tool_metas(list: &Value) -> Vec<(String, Value)> {
    list["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter(|tool| tool.get("_meta").is_some())
        .map(|tool| {
            (
                tool["name"].as_str().unwrap_or("").to_owned(),
                tool["_meta"].clone(),
            )
        })
        .collect()
}

/// A client that declares MCP Apps with the `text/html;profile=mcp-app` MIME type, in
/// `capabilities.extensions` or `capabilities.experimental`, gets resources, the linked tools
/// and the view, in every `initialize` revision; the server declares the extension where the
/// client did.
#[test]
fn a_client_that_declares_mcp_apps_gets_the_view_in_every_revision() {
    let view = json!({ "ui": { "resourceUri": "ui://botmesh/flow" } });
    for revision in crate::protocol::Revision::ALL.map(crate::protocol::Revision::as_str) {
        for (field, declared) in [
            ("extensions", apps_capabilities("extensions")),
            ("experimental", apps_capabilities("experimental")),
        ] {
            let mut input = vec![init_with(revision, 1, declared)];
            input.extend(apps_session_requests(2));
            let out = answers(test_server(), &input.join("\n"));
            let capabilities = &out[0]["result"]["capabilities"];
            assert_eq!(
                capabilities["resources"],
                json!({ "listChanged": false, "subscribe": false }),
                "{revision} {field}"
            );
            assert_eq!(
                capabilities[field],
                json!({ "io.modelcontextprotocol/ui": {} })
            );
            let other = if field == "extensions" {
                "experimental"
            } else {
                "extensions"
            };
            assert!(capabilities.get(other).is_none(), "{capabilities}");
            assert_eq!(
                tool_metas(&out[1]["result"]),
                [
                    ("flow_render".to_owned(), view.clone()),
                    ("flow_simulate".to_owned(), view.clone())
                ],
                "{revision}"
            );
            let listed = &out[2]["result"]["resources"][0];
            assert_eq!(listed["uri"], "ui://botmesh/flow");
            assert_eq!(listed["mimeType"], "text/html;profile=mcp-app");
            assert_eq!(
                listed.get("title").is_some(),
                revision >= "2025-06-18",
                "title from 2025-06-18 on: {listed}"
            );
            let read = &out[3]["result"]["contents"][0];
            assert_eq!(read["uri"], "ui://botmesh/flow");
            assert_eq!(read["mimeType"], "text/html;profile=mcp-app");
            assert_eq!(read["text"], include_str!("../ui/flow-view.html"));
            assert_eq!(read["_meta"], json!({ "ui": { "prefersBorder": true } }));
            assert_eq!(out[4]["error"]["code"], -32002, "{}", out[4]);
            assert_eq!(out[4]["error"]["data"]["uri"], "ui://botmesh/nope");
            assert_eq!(out[5]["result"], json!({ "resourceTemplates": [] }));
            let picture = &out[6]["result"]["_meta"]["io.github.botmesh/picture"];
            assert!(picture.is_object(), "{}", out[6]["result"]["_meta"]);
        }
    }
}

/// Every other client (no declaration, another MIME type, a malformed declaration), and every
/// client of a server made without the view, sees exactly the server without MCP Apps: the
/// same bytes as a client that declares nothing, `-32601` for `resources/*` included.
#[test]
fn any_other_client_sees_the_server_without_mcp_apps_byte_for_byte() {
    let session = |capabilities: Value| {
        let mut input = vec![init_with("2025-11-25", 1, capabilities)];
        input.extend(apps_session_requests(2));
        input.join("\n")
    };
    let baseline = serve(test_server(), &session(json!({})));
    let odd_params = [
        init_with("2025-11-25", 1, json!({})),
        r#"{"jsonrpc":"2.0","id":2,"method":"resources/list","params":[1]}"#.to_owned(),
    ]
    .join("\n");
    assert_eq!(
        error_codes(&answers(test_server(), &odd_params)),
        [0, -32601],
        "an unknown method whatever its params"
    );
    assert_eq!(
        error_codes(&answers(test_server(), &session(json!({}))))[2..6],
        [-32601, -32601, -32601, -32601]
    );
    assert!(baseline[1].contains("\"tools\""));
    for other in [
        json!({ "extensions": { "io.modelcontextprotocol/ui": { "mimeTypes": ["text/html"] } } }),
        json!({ "extensions": { "io.modelcontextprotocol/ui": {} } }),
        json!({ "extensions": { "io.modelcontextprotocol/ui": { "mimeTypes": "text/html;profile=mcp-app" } } }),
        json!({ "extensions": { "io.modelcontextprotocol/apps": { "mimeTypes": ["text/html;profile=mcp-app"] } } }),
        json!({ "io.modelcontextprotocol/ui": { "mimeTypes": ["text/html;profile=mcp-app"] } }),
        json!({ "extensions": { "io.modelcontextprotocol/ui": { "mimeTypes": ["TEXT/HTML;PROFILE=MCP-APP"] } } }),
    ] {
        assert_eq!(
            serve(test_server(), &session(other.clone())),
            baseline,
            "{other}"
        );
    }
    let without_ui = create_mcp_server(ServerOptions::default().with_ui(false));
    let with_ui_default = create_mcp_server(ServerOptions::default());
    let declared = session(apps_capabilities("extensions"));
    assert_eq!(
        serve(without_ui, &declared),
        serve(with_ui_default.clone(), &session(json!({}))),
        "--no-ui: a declaring client is served as one that declares nothing"
    );
    let tools = |names: &[&str]| {
        ServerOptions::default().with_tools(Some(names.iter().map(|n| (*n).to_owned()).collect()))
    };
    assert_eq!(
        serve(
            create_mcp_server(tools(&["flow_validate", "flow_simulate"])),
            &declared
        ),
        serve(
            create_mcp_server(tools(&["flow_validate", "flow_simulate"])),
            &session(json!({}))
        ),
        "a server without flow_render, which the view draws with, offers no view"
    );
    assert_ne!(
        serve(create_mcp_server(tools(&["flow_render"])), &declared),
        serve(
            create_mcp_server(tools(&["flow_render"])),
            &session(json!({}))
        ),
    );
    assert_ne!(
        serve(with_ui_default, &declared),
        serve(
            create_mcp_server(ServerOptions::default()),
            &session(json!({}))
        ),
        "the default serves the view"
    );
}

/// A second `initialize` on one stream decides again: the view follows the latest declaration.
#[test]
fn a_new_initialize_decides_the_view_again() {
    let input = [
        init_with("2025-11-25", 1, apps_capabilities("extensions")),
        r#"{"jsonrpc":"2.0","id":2,"method":"resources/list"}"#.to_owned(),
        init_with("2025-11-25", 3, json!({})),
        r#"{"jsonrpc":"2.0","id":4,"method":"resources/list"}"#.to_owned(),
    ]
    .join("\n");
    assert_eq!(
        error_codes(&answers(test_server(), &input)),
        [0, 0, 0, -32601]
    );
}

/// In 2026-07-28 the client capabilities of each request decide for that request: the same
/// stream (and the same legacy session) answers a request with the declaration with the view
/// and one without as if MCP Apps did not exist.
#[test]
fn stateless_requests_get_the_view_by_their_own_capabilities() {
    let example: Value = serde_json::from_str(crate::EXAMPLE_FLOW_DOCUMENT).expect("example");
    let meta = |capabilities: &Value| {
        json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        })
    };
    let declared = apps_capabilities("extensions");
    let none = json!({});
    let request = |id: u64, method: &str, mut params: Value, capabilities: &Value| {
        params["_meta"] = meta(capabilities);
        json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}).to_string()
    };
    let render = json!({"name":"flow_render","arguments":{"document":example,"format":"svg"}});
    let view = json!({"uri":"ui://botmesh/flow"});
    let input = [
        // A legacy session that declared the view: stateless requests decide for themselves.
        init_with("2025-11-25", 1, declared.clone()),
        request(2, "server/discover", json!({}), &declared),
        request(3, "server/discover", json!({}), &none),
        request(4, "tools/list", json!({}), &declared),
        request(5, "tools/list", json!({}), &none),
        request(6, "resources/list", json!({}), &declared),
        request(7, "resources/list", json!({}), &none),
        request(8, "resources/read", view.clone(), &declared),
        request(9, "resources/read", view, &none),
        request(10, "resources/read", json!({"uri":"ui://other"}), &declared),
        request(11, "tools/call", render.clone(), &declared),
        request(12, "tools/call", render, &none),
        request(13, "resources/templates/list", json!({}), &declared),
    ]
    .join("\n");
    let out = answers(test_server(), &input);
    let discover = &out[1]["result"];
    assert_eq!(
        discover["capabilities"],
        json!({
            "tools": {},
            "resources": { "listChanged": false, "subscribe": false },
            "extensions": { "io.modelcontextprotocol/ui": {} },
        })
    );
    assert_eq!(out[2]["result"]["capabilities"], json!({ "tools": {} }));
    assert_eq!(tool_metas(&out[3]["result"]).len(), 2);
    assert!(tool_metas(&out[4]["result"]).is_empty());
    for answer in [&out[3], &out[5], &out[7], &out[12]] {
        let result = &answer["result"];
        assert_eq!(result["resultType"], "complete", "{answer}");
        assert_eq!(result["cacheScope"], "public", "{answer}");
        assert!(result["ttlMs"].is_u64(), "{answer}");
    }
    assert_eq!(
        out[7]["result"]["contents"][0]["text"],
        include_str!("../ui/flow-view.html")
    );
    assert_eq!(
        error_codes(&out)[6..10],
        [-32601, 0, -32601, -32602],
        "no declaration: resources/* are unknown; an unknown uri is -32602 in 2026-07-28"
    );
    assert_eq!(
        out[6]["error"]["message"],
        "method not found in revision 2026-07-28: resources/list"
    );
    // The tool result for the view: its own `_meta` carries the picture and the server
    // identity, then `resultType`; without the declaration, only the identity.
    let with = &out[10]["result"];
    assert!(with["_meta"]["io.github.botmesh/picture"].is_object());
    assert_eq!(
        with["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "botmesh-mcp"
    );
    assert_eq!(with["resultType"], "complete");
    let line = serve(test_server(), &input)[10].clone();
    assert_eq!(line.matches("\"_meta\"").count(), 1, "one _meta key");
    assert!(line.ends_with(r#""resultType":"complete"}}"#), "{line}");
    let without = &out[11]["result"];
    assert_eq!(
        without["_meta"],
        json!({ "io.modelcontextprotocol/serverInfo": { "name": "botmesh-mcp", "title": crate::SERVER_TITLE, "version": crate::SERVER_VERSION } })
    );
}

/// What the view needs of a picture comes in `_meta` of a `flow_render` SVG result, for a
/// client that declared MCP Apps only: the set's flow ids, every node with its step and box,
/// every edge with its ends and points, and the diagnostics; a PNG result has none.
#[test]
fn the_picture_meta_describes_every_node_and_edge_of_the_svg() {
    let example: Value = serde_json::from_str(crate::EXAMPLE_FLOW_DOCUMENT).expect("example");
    let sub = json!({"version":2,"id":"helper","steps":[{"id":"hi","kind":"message","text":"hi"}]});
    let mut document = example.clone();
    document["steps"][0] = json!({"id":"welcome","kind":"subflow","flow":"helper"});
    let input = [
        init_with("2025-11-25", 1, apps_capabilities("extensions")),
        call(
            2,
            "flow_render",
            json!({"document": document, "subflows": [sub], "format": "svg"}),
        ),
        call(3, "flow_render", json!({"document": example})),
        call(
            4,
            "flow_render",
            json!({"document": {"version": 2}, "format": "svg"}),
        ),
    ]
    .join("\n");
    let out = answers(test_server(), &input);
    let result = &out[1]["result"];
    let picture = &result["_meta"]["io.github.botmesh/picture"];
    assert_eq!(picture["flows"], json!(["pizza-order", "helper"]));
    let payload = &result["structuredContent"];
    assert_eq!(picture["width"], payload["width"]);
    assert_eq!(picture["height"], payload["height"]);
    let nodes = picture["nodes"].as_array().expect("nodes");
    let edges = picture["edges"].as_array().expect("edges");
    assert_eq!(
        nodes.len(),
        payload["nodes"].as_u64().expect("count") as usize
    );
    assert_eq!(
        edges.len(),
        payload["edges"].as_u64().expect("count") as usize
    );
    let steps: Vec<(u64, &str)> = nodes
        .iter()
        .map(|n| {
            (
                n["flow"].as_u64().expect("flow"),
                n["step"].as_str().expect("step"),
            )
        })
        .collect();
    for step in document["steps"].as_array().expect("steps") {
        assert!(
            steps.contains(&(0, step["id"].as_str().expect("id"))),
            "{step}"
        );
    }
    assert!(steps.contains(&(1, "hi")));
    for node in nodes {
        assert!(node["width"].as_i64() > Some(0) && node["height"].as_i64() > Some(0));
    }
    let welcome = steps
        .iter()
        .position(|s| *s == (0, "welcome"))
        .expect("welcome");
    let hi = steps.iter().position(|s| *s == (1, "hi")).expect("hi");
    assert!(
        edges
            .iter()
            .any(|e| e["from"] == welcome && e["to"] == hi && e["kind"] == "call"),
        "the call edge: {edges:?}"
    );
    for edge in edges {
        assert!(edge["points"].as_array().expect("points").len() >= 2);
    }
    assert!(picture["diagnostics"].is_array());
    assert!(
        out[2]["result"].get("_meta").is_none(),
        "a PNG result carries no picture meta"
    );
    assert_eq!(out[3]["result"]["structuredContent"]["valid"], false);
    assert!(out[3]["result"].get("_meta").is_none());
}

/// Reading the view needs the `flow` scope (the view calls the flow tools); a session whose
/// token lacks it is refused with one sentence.
#[test]
fn reading_the_view_needs_the_flow_scope() {
    let server = test_server();
    let mut session = Session::new();
    server.handle_text(
        &mut session,
        &init_with("2025-11-25", 1, apps_capabilities("extensions")),
    );
    let read = r#"{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"ui://botmesh/flow"}}"#;
    session.set_scopes(Some(vec![Scope::Docs]));
    let answer: Value =
        serde_json::from_str(&server.handle_text(&mut session, read).expect("answer"))
            .expect("json");
    assert_eq!(answer["error"]["code"], -32602);
    assert_eq!(
        answer["error"]["message"],
        "resource ui://botmesh/flow needs the \"flow\" scope, which this token does not have"
    );
    session.set_scopes(Some(vec![Scope::Flow]));
    let answer: Value =
        serde_json::from_str(&server.handle_text(&mut session, read).expect("answer"))
            .expect("json");
    assert_eq!(answer["result"]["contents"][0]["uri"], "ui://botmesh/flow");
}

/// A session's resume key carries the view: a transport that keeps only the key (sealed HTTP
/// session ids) serves the resumed session as the one `initialize` opened.
#[test]
fn a_resumed_session_keeps_the_view() {
    let server = test_server();
    let mut session = Session::new();
    assert_eq!(session.resume_key(), None);
    server.handle_text(
        &mut session,
        &init_with("2025-06-18", 1, apps_capabilities("experimental")),
    );
    assert_eq!(session.resume_key().as_deref(), Some("2025-06-18+ui"));
    let mut resumed = Session::from_resume_key("2025-06-18+ui").expect("key");
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"resources/list"}"#;
    assert!(
        server
            .handle_text(&mut resumed, list)
            .expect("answer")
            .contains("ui://botmesh/flow")
    );
    let mut plain = Session::from_resume_key("2025-06-18").expect("key");
    assert!(
        server
            .handle_text(&mut plain, list)
            .expect("answer")
            .contains("-32601")
    );
    for junk in ["", "+ui", "2025-06-18+ui+ui", "2026-07-28", "2026-07-28+ui"] {
        assert!(Session::from_resume_key(junk).is_none(), "{junk}");
    }
}
