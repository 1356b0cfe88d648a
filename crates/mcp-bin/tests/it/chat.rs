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
