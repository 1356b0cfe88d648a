//! End-to-end tests of `botmesh-mcp check`: the real binary on real files, its exit codes
//! (0, 1, 2), its three output formats with positions, and an empty stdout when a file cannot
//! be read.

use std::process::Output;

use botmesh_flow_analyzer::parse_source;

use crate::util::Dir;

const CLEAN: &str = r#"{"version": 2, "id": "main", "steps": [
  {"id": "ask_name", "kind": "ask", "text": "Your name?", "save": "name", "onFail": "agent"},
  {"id": "bye", "kind": "end", "text": "Bye {{name}}"},
  {"id": "agent", "kind": "handoff"}
]}"#;

const CALLS_PAY: &str = r#"{"version": 2, "id": "shop", "steps": [
  {"id": "go", "kind": "subflow", "flow": "pay"},
  {"id": "bye", "kind": "end"}
]}"#;

const PAY: &str = r#"{"version": 2, "id": "pay", "steps": [
  {"id": "amount", "kind": "ask", "text": "How much?", "save": "amount", "input": "number", "onFail": "none"},
  {"id": "done", "kind": "end", "text": "Paid {{amount}}"},
  {"id": "none", "kind": "end", "text": "Nothing paid"}
]}"#;

const VERSION_1: &str = r#"{"version": 1, "id": "old", "steps": [{"id": "a", "kind": "end"}]}"#;

/// A temporary folder holding the given files and an empty `subflows/`.
fn scratch(test: &str, files: &[(&str, &str)]) -> Dir {
    let dir = Dir::new(&format!("check-{test}"));
    dir.create_dir("subflows");
    for (name, text) in files {
        dir.write(name, text);
    }
    dir
}

/// `botmesh-mcp check ARGS` run inside `dir`.
fn check(dir: &Dir, args: &[&str]) -> Output {
    dir.command()
        .arg("check")
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("stderr is UTF-8")
}

#[test]
fn a_clean_file_exits_0() {
    let dir = scratch("clean", &[("main.json", CLEAN)]);
    let output = check(&dir, &["main.json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "checked 1 file: 0 errors, 0 warnings, 0 infos\n"
    );
}

#[test]
fn an_error_diagnostic_exits_1_in_every_format() {
    let dir = scratch(
        "errors",
        &[("shop.json", CALLS_PAY), ("subflows/pay.json", PAY)],
    );
    let text = check(&dir, &["shop.json"]);
    assert_eq!(text.status.code(), Some(1));
    assert_eq!(
        stdout(&text),
        "shop.json:2:43: error[missing-subflow] /steps/0/flow: flow \"pay\" is not in the set; pass it in subflows or correct the flow id\n\
         checked 1 file: 1 error, 0 warnings, 0 infos\n"
    );
    let github = check(&dir, &["--format", "github", "shop.json"]);
    assert_eq!(github.status.code(), Some(1));
    assert!(
        stdout(&github)
            .starts_with("::error file=shop.json,line=2,col=43,endLine=2,endColumn=48,title=missing-subflow::/steps/0/flow: "),
        "{}",
        stdout(&github)
    );
    let json = check(&dir, &["--format=json", "shop.json"]);
    assert_eq!(json.status.code(), Some(1));
    let report = parse_source("stdout", &stdout(&json)).unwrap();
    assert_eq!(report["summary"]["errors"], 1);
    assert_eq!(report["files"][0]["file"], "shop.json");
    let finding = &report["files"][0]["findings"][0];
    assert_eq!(finding["code"], "missing-subflow");
    assert_eq!(
        [
            &finding["line"],
            &finding["column"],
            &finding["endLine"],
            &finding["endColumn"]
        ],
        [2, 43, 2, 48]
    );
    // With its subflow directory, the same file is clean.
    let fixed = check(&dir, &["--subflows", "subflows", "shop.json"]);
    assert_eq!(fixed.status.code(), Some(0), "{}", stdout(&fixed));
}

#[test]
fn warnings_alone_exit_0() {
    let unreachable = r#"{"version": 2, "id": "w", "steps": [
      {"id": "a", "kind": "end"}, {"id": "orphan", "kind": "end"}]}"#;
    let dir = scratch("warnings", &[("w.json", unreachable)]);
    let output = check(&dir, &["w.json"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(stdout(&output).contains("w.json:2:35: warning[unreachable-step] /steps/1: "));
}

#[test]
fn max_warnings_fails_above_it_and_infos_do_not_count() {
    // One warning (an unreachable step) and one info (a path falling off the end).
    let flow = r#"{"version": 2, "id": "w", "steps": [
      {"id": "a", "kind": "message", "text": "Hi", "next": "b"}, {"id": "orphan", "kind": "end"},
      {"id": "b", "kind": "message", "text": "Bye"}]}"#;
    let dir = scratch("max-warnings", &[("w.json", flow)]);
    let counts = check(&dir, &["w.json"]);
    assert!(
        stdout(&counts).ends_with("checked 1 file: 0 errors, 1 warning, 1 info\n"),
        "{}",
        stdout(&counts)
    );
    let within = check(&dir, &["--max-warnings", "1", "w.json"]);
    assert_eq!(within.status.code(), Some(0), "{}", stdout(&within));
    assert!(!stdout(&within).contains("too many"));
    let above = check(&dir, &["--max-warnings=0", "w.json"]);
    assert_eq!(above.status.code(), Some(1));
    assert!(
        stdout(&above).ends_with(
            "checked 1 file: 0 errors, 1 warning, 1 info\ntoo many warnings: 1, more than --max-warnings 0 allows\n"
        ),
        "{}",
        stdout(&above)
    );
    let github = check(
        &dir,
        &["--max-warnings", "0", "--format", "github", "w.json"],
    );
    assert_eq!(github.status.code(), Some(1));
    assert!(
        stdout(&github).ends_with(
            "::error title=max-warnings::too many warnings: 1, more than --max-warnings 0 allows\n"
        ),
        "{}",
        stdout(&github)
    );
    let json = check(&dir, &["--max-warnings", "0", "--format", "json", "w.json"]);
    assert_eq!(json.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(report["summary"]["tooManyWarnings"], true);
    let usage = check(&dir, &["--max-warnings", "-1", "w.json"]);
    assert_eq!(usage.status.code(), Some(2));
    assert!(
        stderr(&usage)
            .contains("--max-warnings takes a whole number of warnings (0 or more), not \"-1\""),
        "{}",
        stderr(&usage)
    );
}

#[test]
fn a_folder_is_its_flows_and_a_test_file_is_told_to_run_with_test() {
    let tests = r#"{ "tests": [ { "name": "hi", "turns": [] } ] }"#;
    let dir = scratch(
        "folder",
        &[
            ("flows/main.json", CLEAN),
            ("flows/main.flowtest.json", tests),
            ("flows/shop.json", CALLS_PAY),
            ("flows/pay.json", PAY),
        ],
    );
    // The folder is its three flows (the test file beside them is left out), and as subflows too.
    let output = check(&dir, &["--subflows", "flows", "flows"]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert_eq!(
        stdout(&output),
        "checked 3 files: 0 errors, 0 warnings, 0 infos\n"
    );
    // Given by name, a test file is recognised by its shape (whatever its name) and not checked.
    dir.write("tests.json", tests);
    let output = check(&dir, &["tests.json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert_eq!(
        stdout(&output),
        "tests.json:1:3: info[flowtest-file] /tests: this is a conversation test file (a \"tests\" array and no \"steps\"), not a flow; run it with botmesh-mcp test tests.json\nchecked 1 file: 0 errors, 0 warnings, 1 info\n"
    );
    // --fix leaves a test file alone.
    let fix = check(&dir, &["--fix", "tests.json"]);
    assert_eq!(fix.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("tests.json")).unwrap(),
        tests
    );
    dir.create_dir("empty");
    let empty = check(&dir, &["empty"]);
    assert_eq!(empty.status.code(), Some(2));
    assert!(stderr(&empty).contains("empty has no flow file (*.json, not *.flowtest.json)"));
}

#[test]
fn a_document_to_migrate_is_an_error_naming_the_migrate_command_and_flow_migrate() {
    let dir = scratch("migrate", &[("old.json", VERSION_1)]);
    let output = check(&dir, &["old.json"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "old.json:1:13: error[migration-needed] /version: this is a version 1 document; migrate it to version 2 with botmesh-mcp migrate --write old.json (flow_migrate over MCP), then check it again\nchecked 1 file: 1 error, 0 warnings, 0 infos\n"
    );
    // The command it names does it: afterwards the file checks clean.
    let migrate = dir
        .command()
        .args(["migrate", "--write", "old.json"])
        .output()
        .expect("run botmesh-mcp migrate");
    assert_eq!(migrate.status.code(), Some(0), "{}", stdout(&migrate));
    let output = check(&dir, &["old.json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
}

#[test]
fn an_invalid_document_exits_1_with_its_issues() {
    let invalid = r#"{"version": 2, "id": "Not An Id", "steps": []}"#;
    let dir = scratch("invalid", &[("bad.json", invalid), ("main.json", CLEAN)]);
    let output = check(&dir, &["main.json", "bad.json"]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() >= 3, "{text}");
    assert!(
        lines[..lines.len() - 1]
            .iter()
            .all(|l| l.starts_with("bad.json:1:")),
        "{text}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("bad.json:1:22: error[invalid] /id: ")),
        "{text}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("bad.json:1:44: error[invalid] /steps: ")),
        "{text}"
    );
}

#[test]
fn an_unreadable_file_exits_2_naming_it_with_nothing_on_stdout_and_not_json_is_located() {
    let dir = scratch(
        "unreadable",
        &[("main.json", CLEAN), ("broken.json", "{ nope")],
    );
    let missing = check(&dir, &["main.json", "missing.json"]);
    assert_eq!(missing.status.code(), Some(2));
    assert_eq!(stdout(&missing), "");
    assert!(
        stderr(&missing).contains("missing.json"),
        "{}",
        stderr(&missing)
    );
    // A checked file that is not JSON is an error at the place it breaks (exit 1); as a
    // subflow it cannot join the set (exit 2, nothing on stdout).
    let broken = check(&dir, &["main.json", "broken.json"]);
    assert_eq!(broken.status.code(), Some(1));
    assert_eq!(
        stdout(&broken),
        "broken.json:1:3: error[not-json] (root): the file is not JSON: key must be a string\n\
         checked 2 files: 1 error, 0 warnings, 0 infos\n"
    );
    let github = check(&dir, &["--format", "github", "broken.json"]);
    assert!(
        stdout(&github).starts_with(
            "::error file=broken.json,line=1,col=3,endLine=1,endColumn=4,title=not-json::"
        ),
        "{}",
        stdout(&github)
    );
    let broken_subflow = check(&dir, &["--subflows", "broken.json", "main.json"]);
    assert_eq!(broken_subflow.status.code(), Some(2));
    assert_eq!(stdout(&broken_subflow), "");
    assert!(
        stderr(&broken_subflow)
            .contains("broken.json is not JSON: key must be a string at line 1 column 3"),
        "{}",
        stderr(&broken_subflow)
    );
    let bad_subflow = check(&dir, &["--subflows", "nowhere.json", "main.json"]);
    assert_eq!(bad_subflow.status.code(), Some(2));
    assert_eq!(stdout(&bad_subflow), "");
    assert!(stderr(&bad_subflow).contains("nowhere.json"));
}

#[test]
fn usage_errors_exit_2() {
    let dir = scratch("usage", &[("main.json", CLEAN)]);
    for args in [
        &[][..],
        &["--format", "xml", "main.json"],
        &["--nope", "main.json"],
    ] {
        let output = check(&dir, args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(stdout(&output), "");
        assert!(
            stderr(&output).contains("usage: botmesh-mcp check"),
            "{args:?}"
        );
    }
}

/// Files saved with Windows line ends (CRLF) check like any other.
#[test]
fn crlf_files_check_clean() {
    let dir = scratch(
        "crlf",
        &[
            ("shop.json", &CALLS_PAY.replace('\n', "\r\n")),
            ("subflows/pay.json", &PAY.replace('\n', "\r\n")),
        ],
    );
    let output = check(&dir, &["--subflows", "subflows", "shop.json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert_eq!(
        stdout(&output),
        "checked 1 file: 0 errors, 0 warnings, 0 infos\n"
    );
}

/// Windows: paths written with backslashes and drive letters are files like any other, and
/// each diagnostic names the file as the user spelled it.
#[cfg(windows)]
#[test]
fn windows_paths_with_backslashes_and_drive_letters() {
    let dir = scratch(
        "windows",
        &[("flows/shop.json", CALLS_PAY), ("subflows/pay.json", PAY)],
    );
    let text = check(&dir, &["flows\\shop.json"]);
    assert_eq!(text.status.code(), Some(1));
    assert!(
        stdout(&text).starts_with("flows\\shop.json:2:43: error[missing-subflow] /steps/0/flow: "),
        "{}",
        stdout(&text)
    );
    let absolute = dir.path().join("flows").join("shop.json");
    let absolute = absolute.to_str().expect("a UTF-8 path");
    assert!(absolute.as_bytes()[1] == b':', "a drive letter: {absolute}");
    let subflows = dir.path().join("subflows");
    let fixed = check(
        &dir,
        &[
            "--subflows",
            subflows.to_str().expect("a UTF-8 path"),
            absolute,
        ],
    );
    assert_eq!(fixed.status.code(), Some(0), "{}", stdout(&fixed));
}

/// `check --fix` rewrites only the fixed spots (indentation, key order and spacing stay byte
/// for byte), `--diff` prints the edits and writes nothing, `--unsafe-fixes` adds the unsafe
/// ones, and a fixed file checks clean with nothing more to fix.
#[test]
fn fix_rewrites_the_fixed_spots_only() {
    let broken = "{\n    \"version\": 2,\n    \"id\": \"fixme\",\n    \"steps\": [\n        {   \"id\": \"a\",  \"type\": \"message\", \"text\": \"Hi\", \"goto\": \"b\" },\n        { \"kind\": \"transfer\",\n          \"id\": \"b\" }\n    ]\n}\n";
    let dir = scratch("fix", &[("fixme.json", broken)]);
    let read = || std::fs::read_to_string(dir.path().join("fixme.json")).expect("the file");

    let diff = check(&dir, &["--fix", "--diff", "fixme.json"]);
    assert_eq!(read(), broken, "--diff writes nothing");
    assert_eq!(
        stdout(&diff),
        "fixme.json: fixed: rename \"goto\" to \"next\"\n\
         fixme.json: fixed: rename \"type\" to \"kind\"\n\
         fixme.json: fixed: change kind \"transfer\" to \"handoff\"\n\
         --- fixme.json\n+++ fixme.json\n@@ -3,6 +3,6 @@\n     \"id\": \"fixme\",\n     \"steps\": [\n\
         -        {   \"id\": \"a\",  \"type\": \"message\", \"text\": \"Hi\", \"goto\": \"b\" },\n\
         -        { \"kind\": \"transfer\",\n\
         +        {   \"id\": \"a\",  \"kind\": \"message\", \"text\": \"Hi\", \"next\": \"b\" },\n\
         +        { \"kind\": \"handoff\",\n           \"id\": \"b\" }\n     ]\n\
         checked 1 file: 0 errors, 0 warnings, 0 infos\n"
    );
    assert_eq!(diff.status.code(), Some(0));

    let fixed = check(&dir, &["--fix", "fixme.json"]);
    assert_eq!(fixed.status.code(), Some(0), "{}", stdout(&fixed));
    assert_eq!(
        read(),
        broken
            .replace("\"type\"", "\"kind\"")
            .replace("\"goto\"", "\"next\"")
            .replace("transfer", "handoff"),
        "only the fixed spots changed"
    );
    let again = check(&dir, &["--fix", "fixme.json"]);
    assert_eq!(
        stdout(&again),
        "checked 1 file: 0 errors, 0 warnings, 0 infos\n",
        "nothing more to fix"
    );

    // An unknown next needs an unsafe fix: left as it is unless asked.
    let guess = "{\"version\": 2, \"id\": \"g\", \"steps\": [\n  {\"id\": \"a\", \"kind\": \"message\", \"text\": \"Hi\", \"next\": \"bey\"},\n  {\"id\": \"bye\", \"kind\": \"end\"}\n]}\n";
    dir.write("guess.json", guess);
    let safe_only = check(&dir, &["--fix", "guess.json"]);
    assert_eq!(safe_only.status.code(), Some(1));
    assert!(
        stdout(&safe_only).starts_with("guess.json:2:56: error[invalid] /steps/0/next: "),
        "{}",
        stdout(&safe_only)
    );
    let risky = check(&dir, &["--fix", "--unsafe-fixes", "guess.json"]);
    assert_eq!(risky.status.code(), Some(0), "{}", stdout(&risky));
    assert!(stdout(&risky).starts_with("guess.json: fixed: point next at the nearest step id, \"bye\" (check it is the step meant) (unsafe)\n"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("guess.json")).unwrap(),
        guess.replace("\"bey\"", "\"bye\"")
    );
    let usage = check(&dir, &["--diff", "guess.json"]);
    assert_eq!(usage.status.code(), Some(2));
}
