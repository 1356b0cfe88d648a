//! End-to-end tests of `botmesh-mcp test`: the report of a failing case (its FILE:LINE:COL,
//! expected, actual, the conversation), the default flow beside the test file, folders,
//! `--subflows`, coverage, the json, github and junit formats, and exit codes 0, 1 and 2.
//! The JUnit output is read by a real JUnit parser in CI (`.ci/parts/flowtest.sh`).

use std::process::Output;

use crate::util::Dir;

const SHOP: &str = r#"{"version": 2, "id": "shop", "steps": [
  {"id": "menu", "kind": "buttons", "text": "What now?", "buttons": [
    {"id": "pay", "title": "Pay", "next": "go"},
    {"id": "leave", "title": "Leave", "next": "bye"}]},
  {"id": "go", "kind": "subflow", "flow": "pay"},
  {"id": "bye", "kind": "end", "text": "Bye, {{amount}} paid"}
]}"#;

const PAY: &str = r#"{"version": 2, "id": "pay", "steps": [
  {"id": "amount", "kind": "ask", "text": "How much?", "save": "amount", "input": "number"},
  {"id": "done", "kind": "end"}
]}"#;

const TESTS: &str = r#"{
  "tests": [
    {
      "name": "pays ten",
      "turns": [
        { "user": { "tap": "pay" } },
        { "user": "10" },
        { "bot": { "text": "Bye, 10 paid" } }
      ],
      "expect": { "outcome": "ended", "variables": { "amount": 10 } }
    },
    {
      "name": "pays twenty",
      "turns": [
        { "user": "Pay" },
        { "user": "20" },
        { "bot": { "contains": "30 paid" } }
      ]
    }
  ]
}
"#;

fn test(dir: &Dir, args: &[&str]) -> Output {
    let mut command = dir.command();
    command.arg("test").args(args);
    command.output().expect("run botmesh-mcp test")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8")
}

fn shop() -> Dir {
    let dir = Dir::new("test");
    dir.create_dir("flows");
    dir.write("shop.json", SHOP)
        .write("flows/pay.json", PAY)
        .write("shop.flowtest.json", TESTS);
    dir
}

#[test]
fn a_failing_case_names_its_line_expected_actual_and_the_conversation() {
    let dir = shop();
    let output = test(&dir, &["--subflows", "flows", "shop.flowtest.json"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        "ok   shop.flowtest.json: pays ten
FAIL shop.flowtest.json:17:9: pays twenty, turn 2
  expected: a message containing \"30 paid\"
  actual:   [shop/menu] buttons: \"What now?\"; [pay/amount] text: \"How much?\"; [shop/bye] text: \"Bye, 20 paid\"
  at:       shop.json:6:4: step bye (flow shop) is where the conversation stopped or waits
  conversation:
    bot shop/menu buttons: \"What now?\" [pay] \"Pay\" [leave] \"Leave\"
    user: \"Pay\"
    · shop/go call pay
    bot pay/amount: \"How much?\"
    user: \"20\"
    · pay/amount save amount = 20
    · pay/done return shop
    bot shop/bye: \"Bye, 20 paid\"
2 cases: 1 passed, 1 failed
"
    );
    assert_eq!(text(&output.stderr), "");
}

#[test]
fn a_passing_folder_with_coverage_lists_what_no_case_took() {
    let dir = shop();
    let passing = TESTS.replace("30 paid", "20 paid");
    dir.create_dir("tests").write(
        "tests/shop.flowtest.json",
        &passing.replace(
            "\"tests\": [",
            "\"flows\": [\"../shop.json\", \"../flows/pay.json\"], \"tests\": [",
        ),
    );
    let output = test(&dir, &["--coverage", "tests"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert!(
        stdout.ends_with(
            "2 cases: 2 passed, 0 failed

coverage
  flow             steps            edges
  shop        3/3 100.0%       3/4  75.0%
  pay         2/2 100.0%       1/1 100.0%
  total       5/5 100.0%       4/5  80.0%
uncovered:
  shop: edge menu → \"Leave\"
"
        ),
        "{stdout}"
    );
    let json = test(&dir, &["--coverage", "--format", "json", "tests"]);
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(report["totals"]["passed"], 2);
    assert_eq!(
        report["coverage"]["flows"][0]["uncoveredEdges"][0]["label"],
        "menu → \"Leave\""
    );
    assert_eq!(report["coverage"]["flows"][0]["edgesCovered"], 3);
}

#[test]
fn github_and_junit_point_at_the_failing_turn() {
    let dir = shop();
    let github = test(
        &dir,
        &[
            "--subflows",
            "flows",
            "--format",
            "github",
            "shop.flowtest.json",
        ],
    );
    assert_eq!(github.status.code(), Some(1));
    let first = text(&github.stdout).lines().next().map(str::to_owned);
    assert_eq!(
        first.as_deref(),
        Some(
            "::error file=shop.flowtest.json,line=17,col=9,title=pays twenty%2C turn 2::expected: a message containing \"30 paid\"%0Aactual: [shop/menu] buttons: \"What now?\"; [pay/amount] text: \"How much?\"; [shop/bye] text: \"Bye, 20 paid\""
        )
    );
    let junit = test(
        &dir,
        &[
            "--subflows",
            "flows",
            "--format",
            "junit",
            "shop.flowtest.json",
        ],
    );
    assert_eq!(junit.status.code(), Some(1));
    let xml = text(&junit.stdout);
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"botmesh-mcp test\" tests=\"2\" failures=\"1\" errors=\"0\">\n"), "{xml}");
    assert!(xml.contains("<testcase name=\"pays ten\" classname=\"shop.flowtest.json\" file=\"shop.flowtest.json\" line=\"3\"/>"), "{xml}");
    assert!(xml.contains("<testcase name=\"pays twenty\" classname=\"shop.flowtest.json\" file=\"shop.flowtest.json\" line=\"17\">"), "{xml}");
    assert!(
        xml.contains(
            "<failure message=\"turn 2: expected a message containing &quot;30 paid&quot;"
        ),
        "{xml}"
    );
}

#[test]
fn malformed_files_exit_2_naming_file_line_and_column_with_stdout_empty() {
    let dir = shop();
    dir.write(
        "bad.flowtest.json",
        "{ \"tests\": [\n  { \"name\": \"x\",\n    \"turns\": [ { \"usr\": \"hi\" } ] }\n] }\n",
    )
    .write(
        "broken.flowtest.json",
        "{ \"tests\": [\n  { \"name\": \"x\" ,, }\n] }\n",
    )
    .write("lonely.flowtest.json", "{ \"tests\": [] }");
    let output = test(
        &dir,
        &[
            "bad.flowtest.json",
            "broken.flowtest.json",
            "lonely.flowtest.json",
        ],
    );
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(text(&output.stdout), "");
    let stderr = text(&output.stderr);
    assert!(stderr.contains("botmesh-mcp test: bad.flowtest.json:3:18: a turn must be { \"user\": REPLY } or { \"bot\": { text?, contains?, type?, step? } }, found the key \"usr\"\n"), "{stderr}");
    assert!(
        stderr.contains("botmesh-mcp test: broken.flowtest.json:2:18: not JSON:"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "botmesh-mcp test: lonely.flowtest.json: its flow lonely.json cannot be read: not found"
        ),
        "{stderr}"
    );
    let usage = test(&dir, &["--format", "xml", "shop.flowtest.json"]);
    assert_eq!(usage.status.code(), Some(2));
    assert!(text(&usage.stderr).contains("unknown report format"));
    let none = test(&dir, &[]);
    assert_eq!(none.status.code(), Some(2));
}

#[test]
fn an_invalid_flow_set_fails_its_cases_naming_the_issue() {
    let dir = shop();
    // Without --subflows, shop calls a flow that is not in the set.
    dir.write(
        "shop.json",
        &SHOP.replace("\"kind\": \"end\"", "\"kind\": \"finish\""),
    );
    let output = test(&dir, &["--subflows", "flows", "shop.flowtest.json"]);
    assert_eq!(output.status.code(), Some(1));
    let stdout = text(&output.stdout);
    assert!(
        stdout.contains("expected: a valid flow set\n  actual:   shop.json is not valid:"),
        "{stdout}"
    );
}

#[test]
fn generate_prints_a_suite_that_passes_with_every_edge_covered() {
    let dir = shop();
    let output = test(&dir, &["--generate", "shop.json", "--subflows", "flows"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(text(&output.stderr), "", "nothing is left uncovered");
    let suite: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(
        suite["flows"],
        serde_json::json!(["shop.json", "flows/pay.json"])
    );
    // Written as the testing guide writes a file: the flows on one line, one line per turn.
    let written = text(&output.stdout);
    assert!(
        written.starts_with("{\n  \"flows\": [\"shop.json\", \"flows/pay.json\"],\n"),
        "{written}"
    );
    assert!(
        written
            .lines()
            .filter(|line| line.trim_start().starts_with("{ \"bot\": {"))
            .all(|line| line.trim_end().ends_with("} },") || line.trim_end().ends_with("} }")),
        "{written}"
    );
    assert!(
        written.contains("\n        { \"bot\": { \"step\": "),
        "{written}"
    );
    dir.write("generated.flowtest.json", &written);
    let run = test(&dir, &["--coverage", "generated.flowtest.json"]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stdout));
    assert!(
        text(&run.stdout).contains("every step and edge was covered"),
        "{}",
        text(&run.stdout)
    );
    // A case no conversation can take is listed on stderr with its reason, with exit 0.
    dir.write(
        "pick.json",
        r#"{"version": 2, "id": "pick", "steps": [
      {"id": "code", "kind": "ask", "text": "Code?", "save": "code", "pattern": "^[0-9]{4}$"},
      {"id": "route", "kind": "branch", "cases": [
        {"when": {"var": "code", "op": "eq", "value": "abcd"}, "next": "z"}]},
      {"id": "plain", "kind": "end"},
      {"id": "z", "kind": "end"}]}"#,
    );
    let partial = test(&dir, &["--generate", "pick.json"]);
    assert_eq!(partial.status.code(), Some(0));
    let stderr = text(&partial.stderr);
    assert!(
        stderr.starts_with("botmesh-mcp test: uncovered: pick: route → case code == \"abcd\" — needs code = \"abcd\", which ask code never saves (its pattern \"^[0-9]{4}$\" rejects that reply;"),
        "{stderr}"
    );
    let usage = test(&dir, &["--generate", "pick.json", "shop.flowtest.json"]);
    assert_eq!(usage.status.code(), Some(2));
}

/// The four flows of issue 37 (`crates/flow-runtime/test_data/generate`): `--generate` writes
/// a strict suite for each that passes with every edge covered, and lists nothing uncovered.
#[test]
fn generated_suites_of_flows_users_wrote_pass_with_every_edge() {
    let fixtures = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../flow-runtime/test_data/generate"
    );
    let dir = Dir::new("generate-fixtures");
    for name in [
        "pizza-delivery",
        "pizza-builder",
        "cita",
        "alta-paciente",
        "support",
    ] {
        let json = std::fs::read_to_string(format!("{fixtures}/{name}.json")).expect("fixture");
        dir.write(&format!("{name}.json"), &json);
    }
    for (flow, subflows, edges) in [
        ("pizza-delivery", &[][..], 17),
        ("pizza-builder", &[][..], 16),
        ("cita", &["--subflows", "alta-paciente.json"][..], 14),
        ("support", &[][..], 14),
    ] {
        let mut args = vec!["--generate".to_owned(), format!("{flow}.json")];
        args.extend(subflows.iter().map(|a| (*a).to_owned()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = test(&dir, &args);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        assert_eq!(
            text(&output.stderr),
            "",
            "{flow}: nothing is left uncovered"
        );
        let suite: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
        assert_eq!(suite["strict"], true, "{flow}");
        dir.write(&format!("{flow}.flowtest.json"), &text(&output.stdout));
        let run = test(
            &dir,
            &[
                "--coverage",
                "--min-coverage",
                "100",
                "--format",
                "json",
                &format!("{flow}.flowtest.json"),
            ],
        );
        assert_eq!(run.status.code(), Some(0), "{}", text(&run.stdout));
        let report: serde_json::Value = serde_json::from_slice(&run.stdout).expect("JSON");
        assert_eq!(report["totals"]["failed"], 0, "{flow}");
        let flows = report["coverage"]["flows"].as_array().expect("flows");
        let covered: u64 = flows
            .iter()
            .map(|f| f["edgesCovered"].as_u64().unwrap_or(0))
            .sum();
        let total: u64 = flows.iter().map(|f| f["edges"].as_u64().unwrap_or(0)).sum();
        assert_eq!((covered, total), (edges, edges), "{flow}");
    }
}

/// Issue 37's bill flow: `cancel` says "Bye now" and ends.
const BILLING: &str = r#"{
  "version": 2,
  "id": "billing",
  "steps": [
    { "id": "menu", "kind": "buttons", "text": "Send an invoice or cancel?", "buttons": [
      { "id": "invoice", "title": "Invoice", "next": "invoice" },
      { "id": "cancel", "title": "Cancel", "next": "cancel" } ] },
    { "id": "invoice", "kind": "ask", "text": "Which invoice?", "save": "invoice", "next": "thanks" },
    { "id": "cancel", "kind": "message", "text": "Bye now", "next": "done" },
    { "id": "thanks", "kind": "message", "text": "Thanks! We got invoice {{invoice}}." },
    { "id": "done", "kind": "end" }
  ]
}
"#;

const BILLING_TESTS: &str = r#"{
  "tests": [
    {
      "name": "cancel says bye (loose)",
      "turns": [
        { "user": { "tap": "cancel" } },
        { "bot": { "step": "cancel", "text": "Bye now" } }
      ],
      "expect": { "outcome": "ended" }
    },
    {
      "name": "cancel says bye and nothing else",
      "strict": true,
      "turns": [
        { "bot": { "type": "buttons" } },
        { "user": { "tap": "cancel" } },
        { "bot": { "step": "cancel", "text": "Bye now" } }
      ],
      "expect": { "outcome": "ended" }
    },
    {
      "name": "cancel never thanks",
      "turns": [
        { "user": { "tap": "cancel" } },
        { "bot": { "step": "cancel", "text": "Bye now" } }
      ],
      "expect": { "outcome": "ended", "notPath": ["thanks"] }
    }
  ]
}
"#;

fn billing(regressed: bool) -> Dir {
    let dir = Dir::new("test-billing");
    let flow = if regressed {
        // The regression: `cancel` loses its next, so it falls through into the thanks.
        BILLING.replace(
            r#""text": "Bye now", "next": "done" }"#,
            r#""text": "Bye now" }"#,
        )
    } else {
        BILLING.to_owned()
    };
    dir.write("flows/billing.json", &flow)
        .write("flows/billing.flowtest.json", BILLING_TESTS);
    dir
}

#[test]
fn a_strict_case_and_not_path_catch_the_fall_through_a_loose_case_misses() {
    let good = billing(false);
    // The file by name, not its folder: the reports name it as given, on every platform.
    let output = test(&good, &["flows/billing.flowtest.json"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
    let broken = billing(true);
    let output = test(&broken, &["flows/billing.flowtest.json"]);
    assert_eq!(output.status.code(), Some(1));
    let stdout = text(&output.stdout);
    let summary: Vec<&str> = stdout.lines().filter(|l| !l.starts_with(' ')).collect();
    assert_eq!(
        summary,
        [
            "ok   flows/billing.flowtest.json: cancel says bye (loose)",
            "FAIL flows/billing.flowtest.json:17:9: cancel says bye and nothing else, strict, after the last turn",
            "FAIL flows/billing.flowtest.json:27:51: cancel never thanks, expect.notPath.0",
            "3 cases: 1 passed, 2 failed",
        ],
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "  expected: no more messages
  actual:   the bot also sent [billing/thanks] text: \"Thanks! We got invoice .\"
  at:       flows/billing.json:10:7: step thanks (flow billing) sent the first message the case did not expect
"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "  expected: step thanks not to run
  actual:   steps executed: menu, cancel, thanks, done
  at:       flows/billing.json:10:7: step thanks (flow billing) ran although expect.notPath names it
"
        ),
        "{stdout}"
    );
    // GitHub: each failure on the test file, and again on the flow line that changed.
    let github = test(
        &broken,
        &["--format", "github", "flows/billing.flowtest.json"],
    );
    assert_eq!(github.status.code(), Some(1));
    let annotations: Vec<String> = text(&github.stdout)
        .lines()
        .filter(|l| l.starts_with("::"))
        .map(|l| l.split("::").take(2).collect::<Vec<_>>().join("::"))
        .collect();
    assert_eq!(
        annotations,
        [
            "::error file=flows/billing.flowtest.json,line=17,col=9,title=cancel says bye and nothing else%2C strict%2C after the last turn",
            "::error file=flows/billing.json,line=10,col=7,endLine=10,endColumn=11,title=cancel says bye and nothing else%2C strict%2C after the last turn",
            "::error file=flows/billing.flowtest.json,line=27,col=51,title=cancel never thanks%2C expect.notPath.0",
            "::error file=flows/billing.json,line=10,col=7,endLine=10,endColumn=11,title=cancel never thanks%2C expect.notPath.0",
        ]
    );
    assert!(text(&github.stdout).contains("::in case \"cancel says bye and nothing else\" (flows/billing.flowtest.json:17:9), step thanks sent the first message the case did not expect%0Aexpected: no more messages%0Aactual: the bot also sent [billing/thanks] text: \"Thanks! We got invoice .\"\n"));
    // JSON: the flow step with its file and position.
    let json = test(
        &broken,
        &["--format", "json", "flows/billing.flowtest.json"],
    );
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(
        report["files"][0]["cases"][1]["failure"]["at"],
        serde_json::json!({ "flow": "billing", "step": "thanks", "reason": "unexpected-message",
            "file": "flows/billing.json", "line": 10, "column": 7 })
    );
}

#[test]
fn min_coverage_fails_below_it_with_the_figure_in_every_format() {
    let dir = billing(false);
    // The three cases take the cancel path only: 2 of the 5 edges.
    let below = test(&dir, &["--min-coverage", "90", "flows"]);
    assert_eq!(
        below.status.code(),
        Some(1),
        "the cases pass, the gate does not"
    );
    let stdout = text(&below.stdout);
    assert!(stdout.starts_with("ok   "), "{stdout}");
    assert!(
        stdout.ends_with("edge coverage 40.0% (2/5 edges) is below --min-coverage 90%\n"),
        "{stdout}"
    );
    let met = test(&dir, &["--min-coverage", "40", "flows"]);
    assert_eq!(met.status.code(), Some(0));
    assert!(
        text(&met.stdout).ends_with("edge coverage 40.0% (2/5 edges) meets --min-coverage 40%\n")
    );
    let json = test(&dir, &["--min-coverage", "90", "--format", "json", "flows"]);
    assert_eq!(json.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(report["coverage"]["minimum"], 90.0);
    assert_eq!(report["coverage"]["met"], false);
    assert_eq!(report["coverage"]["total"]["edgesCovered"], 2);
    assert_eq!(report["coverage"]["total"]["edgesPercent"], 40.0);
    let github = test(
        &dir,
        &["--min-coverage", "90", "--format", "github", "flows"],
    );
    assert_eq!(github.status.code(), Some(1));
    assert!(text(&github.stdout).contains(
        "::error title=coverage::edge coverage 40.0%25 (2/5 edges) is below --min-coverage 90%25\n"
    ));
    let junit = test(
        &dir,
        &["--min-coverage", "90", "--format", "junit", "flows"],
    );
    assert_eq!(junit.status.code(), Some(1));
    let xml = text(&junit.stdout);
    assert!(
        xml.contains(
            "<testsuites name=\"botmesh-mcp test\" tests=\"4\" failures=\"1\" errors=\"0\">"
        ),
        "{xml}"
    );
    assert!(
        xml.contains("<testcase name=\"edge coverage at least 90%\" classname=\"botmesh-mcp coverage\">\n      <failure message=\"edge coverage 40.0% (2/5 edges) is below --min-coverage 90%\" type=\"coverage\">"),
        "{xml}"
    );
}

#[test]
fn an_invalid_flow_set_leaves_coverage_not_measured_never_100_percent() {
    let dir = shop();
    dir.write(
        "shop.json",
        &SHOP.replace("\"kind\": \"end\"", "\"kind\": \"finish\""),
    );
    let output = test(
        &dir,
        &["--subflows", "flows", "--coverage", "shop.flowtest.json"],
    );
    assert_eq!(output.status.code(), Some(1));
    let stdout = text(&output.stdout);
    assert!(
        stdout.ends_with(
            "2 cases: 0 passed, 2 failed

coverage
  not measured: no test file has a valid flow set
not measured: shop.flowtest.json: its flows are not a valid set
"
        ),
        "{stdout}"
    );
    assert!(!stdout.contains("100.0%") && !stdout.contains("every step"));
    let gate = test(
        &dir,
        &[
            "--subflows",
            "flows",
            "--min-coverage",
            "0",
            "--format",
            "json",
            "shop.flowtest.json",
        ],
    );
    let report: serde_json::Value = serde_json::from_slice(&gate.stdout).expect("JSON");
    assert_eq!(report["coverage"]["total"], serde_json::Value::Null);
    assert_eq!(report["coverage"]["met"], false);
    assert_eq!(
        report["coverage"]["notMeasured"],
        serde_json::json!(["shop.flowtest.json: its flows are not a valid set"])
    );
}
