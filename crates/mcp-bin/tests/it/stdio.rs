//! End-to-end: the real `botmesh-mcp` binary over real pipes.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::Stdio;

use crate::bench_flow::benchmark_flow;
use crate::hostile_flow::hostile_flow;
use crate::render::assert_too_large;
use crate::util::{command, run_with_input};

/// Runs the binary with `args`, feeds it `input`, closes stdin and collects everything.
fn run(args: &[&str], input: &str) -> (i32, String, String) {
    let mut binary = command();
    binary.args(args);
    let output = run_with_input(binary, input);
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).expect("utf-8 stdout"),
        String::from_utf8(output.stderr).expect("utf-8 stderr"),
    )
}

fn lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|_| panic!("stdout carries only JSON lines: {line}"))
        })
        .collect()
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}"#;

#[test]
fn a_session_over_real_pipes() {
    let input = [
        INIT,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"flow_validate","arguments":{"doc":{}}}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#,
    ]
    .join("\r\n");
    let (code, stdout, stderr) = run(&[], &input);
    assert_eq!(code, 0, "exit 0 when stdin ends; stderr: {stderr}");
    let answers = lines(&stdout);
    assert_eq!(
        answers.len(),
        4,
        "the last line without newline is answered too"
    );
    assert_eq!(answers[0]["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(
        answers[0]["result"]["serverInfo"]["version"],
        env!("CARGO_PKG_VERSION")
    );
    let names: Vec<&str> = answers[1]["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for name in [
        "flow_validate",
        "flow_migrate",
        "flow_diff",
        "flow_digest",
        "flow_schema",
        "flow_example",
        "flow_render",
    ] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    assert!(
        !names.iter().any(|name| name.starts_with("docs_")),
        "no docs tools without --docs"
    );
    assert_eq!(answers[2]["result"]["isError"], true);
    assert_eq!(
        answers[2]["result"]["content"][0]["text"],
        "invalid arguments for flow_validate: unknown argument \"doc\" (accepted: \"document\", \"documentText\", \"fullText\")"
    );
    assert_eq!(answers[3]["result"], json!({}));
}

#[test]
fn garbage_and_oversized_input_never_end_the_session() {
    let big = format!("{{\"x\":\"{}\"}}", "a".repeat(17 * 1024 * 1024));
    let input = format!(
        "{{oops\n{big}\n\u{feff}{INIT}\n[]\n{{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}}\n"
    );
    let (code, stdout, _) = run(&[], &input);
    assert_eq!(code, 0);
    let codes: Vec<Value> = lines(&stdout)
        .iter()
        .map(|a| a["error"]["code"].clone())
        .collect();
    assert_eq!(
        codes,
        [
            json!(-32700),
            json!(-32600),
            Value::Null,
            json!(-32600),
            Value::Null
        ]
    );
}

#[test]
fn an_unknown_method_with_array_params_is_32601_alone_and_in_a_batch() {
    let input = format!(
        "{INIT}\n{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":[]}}\n\
         [{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"x\",\"params\":[1]}},{{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":[]}}]\n"
    );
    let (code, stdout, _) = run(&[], &input);
    assert_eq!(code, 0);
    let answers = lines(&stdout);
    assert_eq!(answers[1]["error"]["code"], -32601, "{stdout}");
    assert_eq!(answers[1]["error"]["message"], "method not found: x");
    assert_eq!(answers[2][0]["error"]["code"], -32601, "{stdout}");
    // A known method still checks its params.
    assert_eq!(answers[2][1]["error"]["code"], -32602, "{stdout}");
}

#[test]
fn help_version_and_usage_errors() {
    let (code, stdout, _) = run(&["--help"], "");
    assert_eq!(code, 0);
    assert!(stdout.contains("Usage:") && stdout.contains("--docs DIR"));
    let (code, stdout, _) = run(&["--version"], "");
    assert_eq!(code, 0);
    assert_eq!(
        stdout.trim(),
        format!("botmesh-mcp {}", env!("CARGO_PKG_VERSION"))
    );
    let (code, stdout, stderr) = run(&["--frobnicate"], "");
    assert_eq!(code, 2);
    assert!(stdout.is_empty(), "usage errors never touch stdout");
    assert!(
        stderr.contains("--frobnicate") && stderr.contains("Usage:"),
        "{stderr}"
    );
    let (code, _, stderr) = run(&["--tools", "flow_validate,nope"], "");
    assert_eq!(code, 2);
    assert!(stderr.contains("unknown tool \"nope\""), "{stderr}");
}

#[test]
fn a_missing_docs_directory_is_reported_on_stderr() {
    let (code, stdout, stderr) = run(
        &["--docs", "no/such/dir"],
        &format!("{INIT}\n{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}}\n"),
    );
    assert_eq!(code, 0);
    assert!(stderr.contains("no/such/dir"), "{stderr}");
    assert!(!stdout.contains("docs_search"));
    let mut child = command()
        .env("BOTWA_DOCS_DIR", "legacy/missing")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("read");
    assert!(child.wait().expect("wait").success());
    assert!(
        stderr.contains("legacy/missing"),
        "the legacy variable is read: {stderr}"
    );
}

#[test]
fn tools_subset_from_the_command_line() {
    let (_, stdout, _) = run(
        &["--tools", "flow_digest"],
        &format!("{INIT}\n{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}}\n"),
    );
    let answers = lines(&stdout);
    let tools = answers[1]["result"]["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0]["name"], "flow_digest");
}

/// The MCP Apps view is offered to a client that declares it, unless `--no-ui` or
/// `BOTMESH_UI=0` (also `false`, `no`, `off`) turn it off; a `BOTMESH_UI` that is no switch at
/// all is a usage error, so a typo never leaves the view on without a word.
#[test]
fn the_view_is_offered_unless_turned_off() {
    let declared = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}},"clientInfo":{"name":"host","version":"1"}}}"#;
    let input = format!(
        "{declared}\n{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/read\",\"params\":{{\"uri\":\"ui://botmesh/flow\"}}}}\n"
    );
    let session = |args: &[&str], ui: Option<&str>| {
        let mut binary = command();
        binary.args(args);
        if let Some(value) = ui {
            binary.env("BOTMESH_UI", value);
        }
        let output = run_with_input(binary, &input);
        let stdout = String::from_utf8(output.stdout).expect("utf-8");
        (
            output.status.code(),
            lines(&stdout),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    for (args, ui) in [(&[][..], None), (&[][..], Some("1")), (&[][..], Some(""))] {
        let (code, answers, _) = session(args, ui);
        assert_eq!(code, Some(0));
        assert!(
            answers[0]["result"]["capabilities"]["resources"].is_object(),
            "{ui:?}"
        );
        let html = answers[1]["result"]["contents"][0]["text"]
            .as_str()
            .expect("the view");
        assert!(html.contains("<html"), "{ui:?}");
    }
    for (args, ui) in [
        (&["--no-ui"][..], None),
        (&[][..], Some("0")),
        (&[][..], Some("off")),
        (&["--no-ui"][..], Some("1")),
    ] {
        let (code, answers, _) = session(args, ui);
        assert_eq!(code, Some(0));
        assert_eq!(
            answers[0]["result"]["capabilities"],
            json!({ "tools": { "listChanged": false } }),
            "{args:?} {ui:?}"
        );
        assert_eq!(answers[1]["error"]["code"], -32601, "{args:?} {ui:?}");
    }
    let (code, answers, stderr) = session(&[], Some("nope"));
    assert_eq!(code, Some(2));
    assert!(answers.is_empty());
    assert!(stderr.contains("BOTMESH_UI: expected 0 or 1"), "{stderr}");
}

#[test]
fn a_closed_stdout_ends_writing_and_the_process_exits_cleanly() {
    let mut child = command()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    writeln!(stdin, "{INIT}").expect("write");
    let mut first = String::new();
    stdout.read_line(&mut first).expect("first answer");
    assert!(first.contains("protocolVersion"));
    drop(stdout); // The client closes its end of stdout.
    for id in 0..2000 {
        if writeln!(
            stdin,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#
        )
        .is_err()
        {
            break;
        }
    }
    drop(stdin);
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("read stderr");
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn pipelined_requests_are_answered_in_order() {
    let mut input = format!("{INIT}\n");
    for id in 2..502 {
        input.push_str(&format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"flow_digest\",\"arguments\":{{\"document\":{{\"version\":2,\"n\":{id}}}}}}}}}\n"));
    }
    let (code, stdout, _) = run(&[], &input);
    assert_eq!(code, 0);
    let answers = lines(&stdout);
    assert_eq!(answers.len(), 501);
    for (index, answer) in answers.iter().enumerate() {
        assert_eq!(answer["id"], json!(index + 1));
    }
}

#[test]
fn both_eras_on_the_same_binary() {
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"mcp","version":"0.1.0"},"io.modelcontextprotocol/clientCapabilities":{}}"#;
    let input = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{{{meta}}}}}\n{INIT}\n{{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{{{meta}}}}}\n{{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\"}}\n"
    );
    let (_, stdout, _) = run(&[], &input);
    let answers = lines(&stdout);
    assert_eq!(answers[0]["result"]["supportedVersions"][0], "2026-07-28");
    assert_eq!(answers[1]["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(answers[2]["result"]["resultType"], "complete");
    assert!(answers[3]["result"].get("resultType").is_none());
}

#[test]
fn flow_render_of_a_set_too_large_to_draw_is_an_error_result_and_the_session_goes_on() {
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "flow_render",
        "arguments": {"document": hostile_flow("big", 1), "subflows": [hostile_flow("other", 2)]}}});
    let input = format!("{INIT}\n{call}\n{{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}}\n");
    let (code, stdout, stderr) = run(&[], &input);
    assert_eq!(code, 0, "{stderr}");
    let answers = lines(&stdout);
    assert_eq!(answers.len(), 3, "{stdout}");
    let result = &answers[1]["result"];
    assert_eq!(result["isError"], true, "{result}");
    let content = result["content"].as_array().expect("content");
    assert_eq!(content.len(), 1, "one text item, no picture: {result}");
    assert_too_large(content[0]["text"].as_str().expect("text"), 2);
    assert_eq!(
        answers[2]["result"],
        json!({}),
        "the next request is answered"
    );
}

#[test]
fn flow_render_of_a_150_step_flow_is_an_overview_then_readable_pages_and_a_focus() {
    let document = benchmark_flow(150);
    let call = |id: u32, extra: Value| {
        let mut arguments = json!({"document": document});
        for (k, v) in extra.as_object().expect("object") {
            arguments[k] = v.clone();
        }
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "flow_render", "arguments": arguments}})
    };
    let calls = [
        call(2, json!({})),
        call(3, json!({"page": 1})),
        call(4, json!({"page": 2})),
        call(5, json!({"focus": "step_73", "depth": 1})),
        call(6, json!({"page": 99})),
        call(7, json!({"focus": "nowhere"})),
    ];
    let input = std::iter::once(INIT.to_owned())
        .chain(calls.iter().map(Value::to_string))
        .collect::<Vec<_>>()
        .join("\n")
        + "\n";
    let (code, stdout, stderr) = run(&[], &input);
    assert_eq!(code, 0, "{stderr}");
    let answers = lines(&stdout);
    assert_eq!(answers.len(), 7, "{stdout}");
    let size = |result: &Value| {
        let data = result["content"][0]["data"].as_str().expect("an image");
        assert_eq!(result["content"][0]["mimeType"], "image/png");
        assert!(data.starts_with("iVBORw0KGgo"), "a PNG");
        let s = &result["structuredContent"];
        (
            s["width"].as_u64().expect("width"),
            s["height"].as_u64().expect("height"),
        )
    };
    // The overview: within 1568 px, the pages counted and listed with their steps.
    let overview = &answers[1]["result"];
    let (w, h) = size(overview);
    assert!(w.max(h) <= 1568, "{w}x{h}");
    let pages = overview["structuredContent"]["pages"]
        .as_u64()
        .expect("pages");
    assert!(pages >= 2, "{overview}");
    let listed = overview["structuredContent"]["pageSteps"]
        .as_array()
        .expect("pageSteps");
    assert_eq!(listed.len() as u64, pages);
    let line = overview["content"][1]["text"].as_str().expect("line");
    assert!(line.contains("Call again with page: N"), "{line}");
    // Pages 1 and 2: readable tiles naming their steps and neighbours.
    for (answer, number) in [(&answers[2], 1), (&answers[3], 2)] {
        let result = &answer["result"];
        let (w, h) = size(result);
        assert!(w.max(h) <= 1568, "{w}x{h}");
        let s = &result["structuredContent"];
        assert_eq!(s["page"], number);
        assert_eq!(s["steps"], listed[number - 1]["steps"]);
        assert!(!s["steps"].as_array().expect("steps").is_empty());
        let next = if number == 1 { "below" } else { "above" };
        assert_eq!(
            s["neighbours"][next],
            if number == 1 { 2 } else { 1 },
            "{s}"
        );
    }
    assert!(
        answers[2]["result"]["structuredContent"]["steps"]
            .as_array()
            .expect("steps")
            .contains(&json!("step_0"))
    );
    // A focus: the step and its neighbours one edge away.
    let focus = &answers[4]["result"];
    size(focus);
    let steps = focus["structuredContent"]["steps"]
        .as_array()
        .expect("steps");
    for id in ["step_72", "step_73", "step_74"] {
        assert!(steps.contains(&json!(id)), "{id} in {steps:?}");
    }
    // Bad page and focus: the caller's fault, one sentence naming the argument.
    for (answer, start) in [
        (&answers[5], "page: there is no page 99"),
        (&answers[6], "focus: "),
    ] {
        assert_eq!(answer["result"]["isError"], true, "{answer}");
        let text = answer["result"]["content"][0]["text"]
            .as_str()
            .expect("text");
        assert!(text.starts_with(start), "{text}");
    }
}

/// A client that splits the stream with a Unicode-aware line splitter (Python's
/// `str.splitlines()` breaks on U+0085, U+2028 and U+2029 too) gets whole messages: the server
/// writes those characters escaped, in the schema's URL pattern and in any echoed document.
#[test]
fn answers_hold_no_raw_unicode_line_separator() {
    let document = json!({"version": 2, "id": "sep", "steps": [
        {"id": "hi", "kind": "message", "text": "one\u{2028}two\u{2029}three\u{85}four", "next": "bye"},
        {"id": "bye", "kind": "end"}
    ]});
    let input = [
        INIT.to_owned(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"flow_schema","arguments":{}}}"#.to_owned(),
        json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"flow_migrate","arguments":{"document": document}}}).to_string(),
        json!([{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"flow_diff","arguments":{"left": document, "right": {"version": 2, "id": "sep", "steps": [{"id": "bye", "kind": "end"}]}}}}]).to_string(),
    ]
    .join("\n");
    let (code, stdout, stderr) = run(&[], &input);
    assert_eq!(code, 0, "{stderr}");
    for separator in ['\u{85}', '\u{2028}', '\u{2029}'] {
        assert!(!stdout.contains(separator), "raw {separator:?} on stdout");
    }
    // What such a client does: split the Unicode way, parse every piece.
    let pieces: Vec<&str> = stdout
        .split([
            '\n', '\r', '\u{b}', '\u{c}', '\u{1c}', '\u{1d}', '\u{1e}', '\u{85}', '\u{2028}',
            '\u{2029}',
        ])
        .filter(|line| !line.is_empty())
        .collect();
    assert_eq!(pieces.len(), 4, "one piece per answer");
    let answers: Vec<Value> = pieces
        .iter()
        .map(|line| serde_json::from_str(line).expect("each piece is a whole JSON message"))
        .collect();
    assert!(stdout.contains("\\u2028"), "written as an escape");
    assert_eq!(
        answers[2]["result"]["structuredContent"]["document"]["steps"][0]["text"],
        "one\u{2028}two\u{2029}three\u{85}four",
        "the escaped text is the same string"
    );
    assert_eq!(answers[3][0]["id"], 4, "a batch answer is escaped too");
}
