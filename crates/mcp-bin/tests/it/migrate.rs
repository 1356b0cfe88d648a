//! End-to-end tests of `botmesh-mcp migrate`: the document on stdout and what was done on
//! stderr, `--write` in place, the same result as `flow_migrate`, and exit codes 0, 1 and 2.

use std::process::Output;

use crate::util::Dir;

const LEGACY: &str = "{\n  \"name\": \"Pedidos\",\n  \"steps\": [\n    { \"type\": \"question\", \"message\": \"¿Número?\", \"variable\": \"order\" },\n    { \"type\": \"wait\", \"ms\": 1500 },\n    { \"type\": \"end\", \"message\": \"Gracias\" }\n  ]\n}\n";

fn migrate(dir: &Dir, args: &[&str]) -> Output {
    dir.command()
        .arg("migrate")
        .args(args)
        .output()
        .expect("run botmesh-mcp migrate")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8")
}

#[test]
fn prints_the_version_2_document_on_stdout_and_the_changes_on_stderr() {
    let dir = Dir::new("migrate-print");
    dir.write("legacy.json", LEGACY);
    let output = migrate(&dir, &["legacy.json"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    // The same document flow_migrate returns.
    let expected = botmesh_flow_schema::migrate(
        &serde_json::from_str(LEGACY).expect("JSON"),
        botmesh_flow_schema::CURRENT_VERSION,
    )
    .expect("migrates")
    .document;
    assert_eq!(document, expected);
    assert!(
        text(&output.stdout).starts_with("{\n  \"version\": 2,\n  \"id\": \"pedidos\",\n"),
        "{}",
        text(&output.stdout)
    );
    let stderr = text(&output.stderr);
    assert!(
        stderr.starts_with("legacy.json: version 0 → 2\n"),
        "{stderr}"
    );
    assert!(stderr.contains("  1 → 2: "), "{stderr}");
    // The file itself is untouched.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("legacy.json")).unwrap(),
        LEGACY
    );
}

#[test]
fn write_rewrites_in_place_and_exit_codes_say_what_is_left() {
    let dir = Dir::new("migrate-write");
    dir.write("legacy.json", LEGACY).write(
        "current.json",
        "{\"version\": 2, \"id\": \"a\", \"steps\": [{\"id\": \"e\", \"kind\": \"end\"}]}",
    );
    let output = migrate(&dir, &["--write", "legacy.json", "current.json"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
    let stdout = text(&output.stdout);
    assert!(
        stdout.starts_with("legacy.json: version 0 → 2 (rewritten)\n"),
        "{stdout}"
    );
    assert!(stdout.ends_with("current.json: already version 2, nothing to migrate\n"));
    let written = std::fs::read_to_string(dir.path().join("legacy.json")).unwrap();
    let document: serde_json::Value = serde_json::from_str(&written).expect("JSON");
    assert!(botmesh_flow_schema::validate(&document).valid);
    // Run again: nothing to do.
    let again = migrate(&dir, &["--write", "legacy.json"]);
    assert_eq!(
        text(&again.stdout),
        "legacy.json: already version 2, nothing to migrate\n"
    );
    // A version no migration knows: exit 1, the file untouched.
    dir.write("future.json", "{\"version\": 3, \"steps\": []}");
    let future = migrate(&dir, &["--write", "future.json"]);
    assert_eq!(future.status.code(), Some(1));
    assert_eq!(
        text(&future.stdout),
        "future.json: cannot migrate: version must be an integer from 0 to 2, found 3\n"
    );
    // A file that cannot be read: exit 2, and nothing is written, not even the others.
    dir.write("legacy2.json", LEGACY);
    let missing = migrate(&dir, &["--write", "legacy2.json", "missing.json"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("botmesh-mcp migrate: cannot read missing.json"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("legacy2.json")).unwrap(),
        LEGACY
    );
    let usage = migrate(&dir, &[]);
    assert_eq!(usage.status.code(), Some(2));
    assert!(text(&usage.stderr).contains("usage: botmesh-mcp migrate [--write] FILE..."));
}
