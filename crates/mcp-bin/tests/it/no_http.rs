//! End-to-end, in a build without the `http` feature (`--no-default-features`): every HTTP flag
//! and `token` are usage errors that say the build has no HTTP, and stdio still serves.

use std::io::Write;
use std::process::Stdio;

use crate::util::command;

#[test]
fn http_flags_and_token_say_the_build_has_no_http() {
    let lines: [&[&str]; 4] = [
        &["--http", "127.0.0.1:8080"],
        &["--docs", "docs", "--stateless"],
        &["--tokens", "tokens.jsonl"],
        &[
            "token",
            "new",
            "--scopes",
            "flow",
            "--tokens",
            "tokens.jsonl",
        ],
    ];
    for args in lines {
        let output = command().args(args).output().expect("run");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?}");
        assert!(
            stderr.contains("built without HTTP support") && stderr.contains("Usage:"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn stdio_serves_without_http() {
    let mut child = command()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"flow_digest","arguments":{"document":{"version":2}}}}
"#,
        )
        .expect("write");
    drop(stdin);
    let output = child.wait_with_output().expect("wait");
    assert_eq!(output.status.code(), Some(0));
    let answer: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("one JSON answer");
    let digest = answer["result"]["structuredContent"]["digest"]
        .as_str()
        .unwrap_or_default();
    assert!(
        digest.starts_with("sha256:") && digest.len() == 71,
        "{answer}"
    );
}
