//! End-to-end tests of `botmesh-mcp chat` with stdin a pipe: one reply per line (numbers tap
//! the menu's items, commands work), the transcript in `flow_simulate`'s text at the end, and
//! the exit codes (0 ran, 1 invalid, 2 usage or unreadable). The terminal side runs in a real
//! pseudo-terminal in CI (`.ci/parts/chat.sh`).

use std::process::Output;

use crate::util::{Dir, run_with_input};

const SHOP: &str = r#"{"version": 2, "id": "shop", "steps": [
  {"id": "menu", "kind": "buttons", "text": "Hi {{contact_name}}, what now?", "save": "choice", "buttons": [
    {"id": "pay", "title": "Pay", "next": "go"},
    {"id": "again", "title": "Show again", "next": "menu"}]},
  {"id": "go", "kind": "subflow", "flow": "pay"},
  {"id": "bye", "kind": "end", "text": "Bye, {{amount}} paid ({{receipt}})"}
]}"#;

const PAY: &str = r#"{"version": 2, "id": "pay", "steps": [
  {"id": "amount", "kind": "ask", "text": "How much?", "save": "amount", "input": "number"},
  {"id": "charge", "kind": "action", "handler": "cards.charge", "args": {"amount": "{{amount}}"}, "save": "receipt"},
  {"id": "done", "kind": "end"}
]}"#;

fn chat(dir: &Dir, args: &[&str], input: &str) -> Output {
    let mut command = dir.command();
    command.arg("chat").args(args);
    run_with_input(command, input)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8")
}

fn shop() -> Dir {
    let dir = Dir::new("chat");
    dir.create_dir("subflows");
    dir.write("shop.json", SHOP).write("subflows/pay.json", PAY);
    dir
}

#[test]
fn a_piped_conversation_prints_its_transcript() {
    let dir = shop();
    let output = chat(
        &dir,
        &[
            "shop.json",
            "--subflows",
            "subflows",
            "--contact",
            "Ana",
            "--handler",
            r#"cards.charge={"returns": "R-1"}"#,
        ],
        "2\n/vars\nPay\nten\n/text 10\nleft over\n",
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    let expected = r#"variables: {"choice":"again"}
flow_simulate of "shop": valid, no issues
bot shop/menu buttons: "Hi Ana, what now?" [pay] "Pay" [again] "Show again"
user taps: "again"
· shop/menu save choice = "again"
bot shop/menu buttons: "Hi Ana, what now?" [pay] "Pay" [again] "Show again"
user: "Pay"
· shop/menu save choice = "pay"
· shop/go call pay
bot pay/amount: "How much?"
user: "ten"
· pay/amount retry
bot pay/amount: "How much?"
user: "10"
· pay/amount save amount = 10
· pay/charge action cards.charge {"amount":"10"} → "R-1"
· pay/charge save receipt = "R-1"
· pay/done return shop
bot shop/bye: "Bye, 10 paid (R-1)"
outcome: ended at shop/bye
path (7 steps): [shop] menu menu go [pay] amount charge done [shop] bye
variables: {"amount":10,"choice":"pay","receipt":"R-1"}
clock: 0 s
warning: 1 reply was left over after the conversation stopped (ended)
"#;
    assert_eq!(stdout, expected);
}

#[test]
fn a_first_message_picks_the_flow_and_bad_input_exits_2_or_1() {
    let dir = shop();
    // No trigger matches and there is no fallback: no-flow, the lines are left over.
    let output = chat(&dir, &["shop.json", "--message", "hola"], "x\n");
    assert_eq!(output.status.code(), Some(0));
    assert!(
        text(&output.stdout).contains("\noutcome: no-flow, message "),
        "{}",
        text(&output.stdout)
    );
    for (args, message) in [
        (
            &["shop.json", "--flow", "nope"][..],
            "--flow \"nope\" is not a flow of the set (its flows: \"shop\")",
        ),
        (&["missing.json"][..], "cannot read missing.json"),
        (
            &["shop.json", "--var", "contact_name=x"][..],
            "--var: variables.contact_name is a built-in variable",
        ),
        (&[][..], "no FILE to chat with"),
    ] {
        let output = chat(&dir, args, "");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            text(&output.stderr).contains(message),
            "{args:?}: {}",
            text(&output.stderr)
        );
    }
    dir.write("bad.json", r#"{"version": 2, "id": "bad", "steps": []}"#);
    let output = chat(&dir, &["bad.json"], "");
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stdout),
        "bad.json: error /steps: must be an array of 1-500 steps, found 0\n"
    );
}

fn read(dir: &Dir, rel: &str) -> String {
    std::fs::read_to_string(dir.path().join(rel)).expect("the test file")
}

fn test_run(dir: &Dir, args: &[&str]) -> Output {
    let mut command = dir.command();
    command.arg("test").args(args);
    run_with_input(command, "")
}

#[test]
fn save_test_keeps_a_piped_conversation_as_a_strict_case_that_passes_and_fails_where_the_bot_changes()
 {
    let dir = shop();
    dir.create_dir("tests");
    let args = [
        "shop.json",
        "--subflows",
        "subflows",
        "--contact",
        "Ana",
        "--handler",
        r#"cards.charge={"returns": "R-1"}"#,
        "--save-test",
        "tests/shop.flowtest.json",
    ];
    let output = chat(&dir, &args, "2\nPay\nten\n10\nleft over\n");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stderr),
        "botmesh-mcp chat: saved the conversation as the test case \"again\" (9 turns) in tests/shop.flowtest.json\n"
    );
    // The transcript on stdout is what it was without --save-test.
    assert!(text(&output.stdout).starts_with("flow_simulate of \"shop\""));
    let expected = r#"{
  "flows": ["../shop.json", "../subflows/pay.json"],
  "tests": [
    {
      "name": "again",
      "strict": true,
      "contact": { "name": "Ana" },
      "handlers": { "cards.charge": { "returns": "R-1" } },
      "turns": [
        { "bot": { "step": "menu", "text": "Hi Ana, what now?" } },
        { "user": { "tap": "again" } },
        { "bot": { "step": "menu", "text": "Hi Ana, what now?" } },
        { "user": "Pay" },
        { "bot": { "step": "amount", "text": "How much?" } },
        { "user": "ten" },
        { "bot": { "step": "amount", "text": "How much?" } },
        { "user": "10" },
        { "bot": { "step": "bye", "text": "Bye, 10 paid (R-1)" } }
      ],
      "expect": { "outcome": "ended", "variables": { "amount": 10, "choice": "pay", "receipt": "R-1" } }
    }
  ]
}
"#;
    assert_eq!(read(&dir, "tests/shop.flowtest.json"), expected);
    let passed = test_run(&dir, &["tests/shop.flowtest.json"]);
    assert_eq!(passed.status.code(), Some(0), "{}", text(&passed.stdout));

    // Again, with --name and /save: appended, named apart, saved once per state.
    let output = chat(
        &dir,
        &[
            "shop.json",
            "--subflows",
            "subflows",
            "--save-test",
            "tests/shop.flowtest.json",
            "--name",
            "again",
        ],
        "Pay\n/save\n/save\n",
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stderr),
        "botmesh-mcp chat: saved the conversation as the test case \"again (2)\" (3 turns) in tests/shop.flowtest.json\n\
         botmesh-mcp chat: this conversation is in tests/shop.flowtest.json already, as it is now\n"
    );
    let saved = read(&dir, "tests/shop.flowtest.json");
    assert!(
        saved.starts_with(&expected[..expected.len() - 7]),
        "{saved}"
    );
    assert!(
        saved.ends_with(
            "    },\n    {\n      \"name\": \"again (2)\",\n      \"strict\": true,\n      \"turns\": [\n        { \"bot\": { \"step\": \"menu\", \"text\": \"Hi Test User, what now?\" } },\n        { \"user\": \"Pay\" },\n        { \"bot\": { \"step\": \"amount\", \"text\": \"How much?\" } }\n      ],\n      \"expect\": { \"outcome\": \"waiting\", \"variables\": { \"choice\": \"pay\" } }\n    }\n  ]\n}\n"
        ),
        "{saved}"
    );
    let passed = test_run(&dir, &["tests/shop.flowtest.json"]);
    assert_eq!(passed.status.code(), Some(0), "{}", text(&passed.stdout));

    // The bot says something else: the first case fails on the turn of that message.
    dir.write("shop.json", &SHOP.replace("Bye, ", "Goodbye, "));
    let failed = test_run(&dir, &["tests/shop.flowtest.json"]);
    assert_eq!(failed.status.code(), Some(1));
    let report = text(&failed.stdout);
    assert!(
        report.contains("FAIL tests/shop.flowtest.json:18:9: again, turn 8 (strict)"),
        "{report}"
    );
    // The bot goes somewhere else: "Show again" leads to the payment.
    dir.write(
        "shop.json",
        &SHOP.replace(
            r#""title": "Show again", "next": "menu""#,
            r#""title": "Show again", "next": "go""#,
        ),
    );
    let failed = test_run(&dir, &["tests/shop.flowtest.json"]);
    let report = text(&failed.stdout);
    assert!(
        report.contains("again, turn 2 (strict)")
            && report.contains("[pay/amount] text: \"How much?\""),
        "{report}"
    );
}

#[test]
fn save_test_refuses_a_file_of_other_flows_before_the_conversation() {
    let dir = shop();
    dir.write(
        "other.json",
        r#"{"version": 2, "id": "other", "steps": [{"id": "a", "kind": "end"}]}"#,
    );
    dir.write(
        "other.flowtest.json",
        r#"{ "tests": [{ "name": "x", "turns": [] }] }"#,
    );
    dir.write("notes.flowtest.json", "[1, 2]");
    for (file, message) in [
        (
            "other.flowtest.json",
            "other.flowtest.json tests the flows other.json, not this chat's shop.json: save the case to another file",
        ),
        (
            "notes.flowtest.json",
            "notes.flowtest.json is not a conversation test file (: a test file must be an object, found an array); it is left as it is",
        ),
        (
            "missing/x.flowtest.json",
            "cannot write missing/x.flowtest.json: its folder missing does not exist",
        ),
    ] {
        let output = chat(&dir, &["shop.json", "--save-test", file], "Pay\n");
        assert_eq!(output.status.code(), Some(2), "{file}");
        assert_eq!(
            text(&output.stderr),
            format!("botmesh-mcp chat: {message}\n"),
            "{file}"
        );
        assert!(output.stdout.is_empty(), "{file}");
    }
    assert_eq!(read(&dir, "notes.flowtest.json"), "[1, 2]");
    // /save FILE on another file reports the same and the conversation goes on.
    let output = chat(
        &dir,
        &["shop.json"],
        "/save\n/save other.flowtest.json\n/save shop.flowtest.json\n",
    );
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        text(&output.stderr),
        "botmesh-mcp chat: /save needs a FILE (or start chat with --save-test FILE)\n\
         botmesh-mcp chat: other.flowtest.json tests the flows other.json, not this chat's shop.json: save the case to another file\n\
         botmesh-mcp chat: saved the conversation as the test case \"the start\" (1 turns) in shop.flowtest.json\n"
    );
    // NAME.flowtest.json beside NAME.json tests it without flows: it takes the case.
    let output = chat(
        &dir,
        &["shop.json", "--save-test", "shop.flowtest.json"],
        "1\n",
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let passed = test_run(&dir, &["shop.flowtest.json"]);
    assert_eq!(passed.status.code(), Some(0), "{}", text(&passed.stdout));
    assert!(
        text(&passed.stdout).contains("2 cases: 2 passed"),
        "{}",
        text(&passed.stdout)
    );
    // --name goes with --save-test.
    let output = chat(&dir, &["shop.json", "--name", "x"], "");
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("--name names the case of --save-test FILE; give both"));
}
