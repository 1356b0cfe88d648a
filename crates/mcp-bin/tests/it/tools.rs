//! End-to-end: what an agent does with the flow tools, on the real binary over real pipes. A
//! 2023 dashboard export migrated and then run; `flow_fix` on a document's text agreeing with
//! `botmesh-mcp check --fix` on the same file.

use serde_json::{Value, json};

use crate::util::{Dir, command, run_with_input};

/// One session: `initialize`, then each tool call in order; the result of each call.
fn calls(calls: &[(&str, Value)]) -> Vec<Value> {
    let mut input = String::from(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}"#,
    );
    input.push('\n');
    for (id, (name, arguments)) in calls.iter().enumerate() {
        let call = json!({ "jsonrpc": "2.0", "id": id + 1, "method": "tools/call",
            "params": { "name": name, "arguments": arguments } });
        input.push_str(&format!("{call}\n"));
    }
    let output = run_with_input(command(), &input);
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    let answers: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    assert_eq!(answers.len(), calls.len() + 1, "{stdout}");
    answers[1..]
        .iter()
        .map(|answer| {
            let result = &answer["result"];
            assert_eq!(result.get("isError"), None, "{answer}");
            result["structuredContent"].clone()
        })
        .collect()
}

/// The export of the 2023 dashboard that `flow-schema`'s migration tests hold.
const EXPORT: &str =
    include_str!("../../../flow-schema/test_data/flows/v0/dashboard-support-2023.json");

/// The steps a conversation ran, by id.
fn path(result: &Value) -> Vec<&str> {
    result["path"]
        .as_array()
        .expect("path")
        .iter()
        .map(|entry| entry["step"].as_str().expect("step"))
        .collect()
}

#[test]
fn a_dashboard_export_migrates_with_no_hand_edit_and_runs_where_its_menu_pointed() {
    let export: Value = serde_json::from_str(EXPORT).expect("JSON");
    let migrated = &calls(&[("flow_migrate", json!({ "document": export }))])[0];
    assert_eq!(migrated["issues"], json!([]), "{migrated}");
    let document = &migrated["document"];
    // Each menu row of the export, tapped, goes where its `goto` went.
    let rows = document["steps"][1]["sections"][0]["rows"]
        .as_array()
        .expect("rows");
    let runs: Vec<(&str, Value)> = rows
        .iter()
        .map(|row| {
            (
                "flow_simulate",
                json!({ "document": document, "replies": [{ "tap": row["id"] }] }),
            )
        })
        .collect();
    let results = calls(&runs);
    let options = export["steps"][1]["options"].as_array().expect("options");
    for (option, result) in options.iter().zip(&results) {
        assert_eq!(result["valid"], true, "{result}");
        assert_eq!(path(result)[2], option["goto"], "{result}");
    }
    // The billing path: a wrong invoice number, then a right one, saved lower-cased.
    let billing = &calls(&[(
        "flow_simulate",
        json!({ "document": document, "contact": { "name": "Ana" },
                "replies": ["Billing question", "1234", "INV-2041"] }),
    )])[0];
    assert_eq!(billing["outcome"]["kind"], "ended", "{billing}");
    assert_eq!(billing["variables"]["invoice"], "INV-2041");
    assert_eq!(
        path(billing),
        ["welcome", "main_menu", "ask_invoice", "invoice_ok", "bye"]
    );
    // The transfer is a handoff to its queue; a retry run out goes to it too (onFail).
    let agent = &calls(&[(
        "flow_simulate",
        json!({ "document": document, "replies": ["Billing question", "no", "still no"] }),
    )])[0];
    assert_eq!(
        agent["outcome"],
        json!({ "kind": "handoff", "flow": "acme-support-bot", "step": "to_agent", "queue": "support-tier1" })
    );
    // An order number: the capitalised variable of the export is read by the branch.
    let order = &calls(&[(
        "flow_simulate",
        json!({ "document": document, "replies": ["Track my order", "123456"] }),
    )])[0];
    assert_eq!(order["variables"]["ordernumber"], 123456);
    assert_eq!(path(order)[3..], ["check_order", "order_found", "bye"]);
}

/// Two more exports of the 2023 dashboard that `flow-schema`'s migration tests hold: a support
/// bot (`"Support Bot"`, `{ label, goto }` options, `{{Invoice}}` read in three texts) and a
/// help desk (`{ title, next }` options as a list, an `action` whose args read `{{OrderId}}`).
const SUPPORT_BOT: &str =
    include_str!("../../../flow-schema/test_data/flows/v0/dashboard-support-bot-2023.json");
const HELPDESK: &str =
    include_str!("../../../flow-schema/test_data/flows/v0/dashboard-helpdesk-2023.json");

/// The bot's texts of a simulation, in order.
fn said(result: &Value) -> Vec<&str> {
    result["transcript"]
        .as_array()
        .expect("transcript")
        .iter()
        .filter_map(|entry| entry["bot"]["text"].as_str())
        .collect()
}

/// `flow_migrate`'s document of an export, which must be valid and name no variable with
/// capitals anywhere.
fn migrated(export: &str) -> Value {
    let export: Value = serde_json::from_str(export).expect("JSON");
    let migrated = calls(&[("flow_migrate", json!({ "document": export }))]).remove(0);
    assert_eq!(migrated["issues"], json!([]), "{migrated}");
    let text = migrated["document"].to_string();
    for capital in ["Invoice", "OrderId", "Status", "Email", "Topic"] {
        assert!(
            !text.contains(&format!("{{{{{capital}}}}}")),
            "{capital} in {text}"
        );
        assert!(
            !text.contains(&format!("{{{{ {capital} }}}}")),
            "{capital} in {text}"
        );
        assert!(
            !text.contains(&format!("\"{capital}\"")),
            "{capital} in {text}"
        );
    }
    migrated["document"].clone()
}

#[test]
fn the_support_bot_export_runs_with_its_invoice_in_every_message() {
    let document = migrated(SUPPORT_BOT);
    assert_eq!(document["id"], "support-bot");
    let run = |replies: Value| {
        calls(&[(
            "flow_simulate",
            json!({ "document": document, "contact": { "name": "Ana" }, "replies": replies }),
        )])
        .remove(0)
    };
    let invoice = run(json!(["An invoice", "1234", "INV-1234", "No, thanks"]));
    assert_eq!(invoice["outcome"]["kind"], "ended", "{invoice}");
    assert_eq!(
        path(&invoice),
        [
            "hello",
            "menu",
            "ask_invoice",
            "invoice_found",
            "more",
            "bye"
        ]
    );
    let texts = said(&invoice);
    assert!(
        texts.contains(&"Invoice INV-1234 is paid. We sent a copy to your email."),
        "{texts:?}"
    );
    assert!(
        texts.contains(&"Sorry, that is not an invoice number. Try again, like INV-1234."),
        "{texts:?}"
    );
    // The refund branch reads the lower-cased variable; a 9 goes to billing with its number.
    let billing = run(json!(["A refund", "INV-9001"]));
    assert_eq!(
        billing["outcome"],
        json!({ "kind": "handoff", "flow": "support-bot", "step": "transfer_billing", "queue": "billing" })
    );
    assert!(said(&billing).contains(&"Invoice INV-9001 needs a person from billing. One moment."));
    let refund = run(json!(["A refund", "INV-1234", "Yes", "An agent"]));
    assert!(said(&refund).contains(&"The refund of INV-1234 is on its way: 3 to 5 working days."));
    assert_eq!(
        path(&refund),
        [
            "hello",
            "menu",
            "ask_refund",
            "refund_check",
            "refund_ok",
            "more",
            "menu",
            "transfer_agent"
        ]
    );
    assert_eq!(refund["outcome"]["queue"], "support");
}

#[test]
fn the_helpdesk_export_runs_each_row_where_it_went_and_reads_its_variables() {
    let export: Value = serde_json::from_str(HELPDESK).expect("JSON");
    let document = migrated(HELPDESK);
    assert_eq!(document["id"], "mesa-de-ayuda-24h");
    let rows = document["steps"][1]["sections"][0]["rows"]
        .as_array()
        .expect("rows");
    let runs: Vec<(&str, Value)> = rows
        .iter()
        .map(|row| {
            (
                "flow_simulate",
                json!({ "document": document, "replies": [{ "tap": row["id"] }] }),
            )
        })
        .collect();
    let options = export["steps"][1]["options"].as_array().expect("options");
    for (option, result) in options.iter().zip(calls(&runs)) {
        assert_eq!(path(&result)[2], option["next"], "{result}");
    }
    let order = calls(&[(
        "flow_simulate",
        json!({ "document": document, "replies": ["Estado de mi pedido", "123456"],
                "handlers": { "orders.status": { "returns": "packing" } } }),
    )])
    .remove(0);
    assert_eq!(order["outcome"]["kind"], "ended", "{order}");
    assert_eq!(order["variables"]["orderid"], "123456");
    assert!(
        said(&order).contains(&"Tu pedido 123456 está en preparación (packing)."),
        "{order}"
    );
    // What the handler received: the args interpolated with the lower-cased variable.
    let action = order["transcript"]
        .as_array()
        .expect("transcript")
        .iter()
        .find(|entry| entry["event"] == "action")
        .expect("an action event");
    assert_eq!(
        action["args"],
        json!({ "order": "123456", "contact": { "phone": "+15550000000" } }),
        "{action}"
    );
    let email = calls(&[(
        "flow_simulate",
        json!({ "document": document, "replies": ["Cambiar mi correo", "ana@example.com"] }),
    )])
    .remove(0);
    assert!(
        said(&email).contains(&"Listo: te escribiremos a ana@example.com."),
        "{email}"
    );
}

#[test]
fn flow_fix_on_a_text_writes_what_check_fix_writes() {
    let text = "{\r\n\t\"id\": \"Support Bot\", \"version\": 2,\r\n\t\"steps\": [\r\n\t\t{\"id\": \"q\", \"kind\": \"ask\", \"text\": \"¿Factura? 🧾\", \"var\": \"invoice\", \"validate\": \"^INV-[0-9]{4}$\", \"input\": \"txet\"},\r\n\t\t{\"type\": \"end\", \"id\": \"bye\", \"text\": \"Gracias {{invoice}}\", \"next\": \"q\"}\r\n\t]\r\n}\r\n";
    let fixed = &calls(&[("flow_fix", json!({ "documentText": text }))])[0];
    let dir = Dir::new("tools-fix");
    dir.write("bot.json", text);
    let output = dir
        .command()
        .args(["check", "--fix", "bot.json"])
        .output()
        .expect("check runs");
    let written = std::fs::read_to_string(dir.path().join("bot.json")).expect("the file");
    assert_ne!(written, text, "check --fix wrote the fixes");
    assert_eq!(fixed["text"], written, "one rule, one place");
    assert_eq!(fixed.get("textRewritten"), None);
    // What is left carries its place in the fixed text, as check prints it.
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    let issue = &fixed["issues"][0];
    assert_eq!(issue["path"], "/steps/0/input", "{fixed}");
    let place = format!(
        "bot.json:{}:{}: error[invalid]",
        issue["line"], issue["column"]
    );
    assert!(stdout.contains(&place), "{place} in {stdout}");
}

#[test]
fn a_variable_with_capitals_is_renamed_everywhere_by_flow_fix_and_check_fix() {
    let text = "{\n  \"version\": 2, \"id\": \"Support Bot\",\n  \"steps\": [\n    { \"id\": \"q\", \"kind\": \"ask\", \"text\": \"Invoice?\", \"save\": \"Invoice\" },\n    { \"id\": \"b\", \"kind\": \"branch\", \"cases\": [{ \"when\": { \"var\": \"Invoice\", \"op\": \"exists\" }, \"next\": \"m\" }] },\n    { \"id\": \"m\", \"kind\": \"end\", \"text\": \"Got {{Invoice}}, {{ Invoice }}\" }\n  ]\n}\n";
    let fixed = &calls(&[("flow_fix", json!({ "documentText": text }))])[0];
    assert_eq!(fixed["issues"], json!([]), "{fixed}");
    assert_eq!(
        fixed["text"],
        text.replace("Support Bot", "support-bot")
            .replace("\"Invoice\"", "\"invoice\"")
            .replace("{{Invoice}}", "{{invoice}}")
            .replace("{{ Invoice }}", "{{ invoice }}")
    );
    let dir = Dir::new("tools-fix-capitals");
    dir.write("bot.json", text);
    dir.command()
        .args(["check", "--fix", "bot.json"])
        .output()
        .expect("check runs");
    let written = std::fs::read_to_string(dir.path().join("bot.json")).expect("the file");
    assert_eq!(fixed["text"], written, "one rule, one place");
}

/// The text item of one call.
fn text_of(name: &str, arguments: Value) -> String {
    let input = format!(
        "{}\n{}\n",
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}"#,
        json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": { "name": name, "arguments": arguments } })
    );
    let output = run_with_input(command(), &input);
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    let answer: Value =
        serde_json::from_str(stdout.lines().nth(1).expect("an answer")).expect("JSON");
    answer["result"]["content"][0]["text"]
        .as_str()
        .expect("a text item")
        .to_owned()
}

/// A 500-step document of menus, each step's text and first title ending with `word`.
fn menus(prefix: &str, word: &str) -> Value {
    let steps: Vec<Value> = (0..500)
        .map(|i| {
            json!({ "id": format!("{prefix}{i}"), "kind": "buttons", "text": format!("Question {i} {word}"),
                "buttons": [{ "id": "a", "title": format!("Yes {word}"), "next": format!("{prefix}{}", (i + 1) % 500) },
                            { "id": "b", "title": "No" }] })
        })
        .collect();
    json!({ "version": 2, "id": "big", "steps": steps })
}

#[test]
fn flow_diff_of_two_large_documents_keeps_its_text_under_the_limit() {
    for (right, list) in [
        (menus("s", "two"), "changedSteps"),
        (menus("t", "two"), "removedSteps"),
    ] {
        let arguments = json!({ "left": menus("s", "one"), "right": right });
        let text = text_of("flow_diff", arguments.clone());
        assert!(text.chars().count() <= 100_000, "{}", text.len());
        let last = text.lines().last().expect("a last line");
        assert!(
            last.starts_with(&format!("[flow_diff: \"{list}\" after the first ")),
            "{last}"
        );
        let mut full = arguments;
        full["fullText"] = json!(true);
        let whole: Value = serde_json::from_str(&text_of("flow_diff", full)).expect("JSON");
        assert_eq!(whole[list].as_array().map(Vec::len), Some(500));
    }
    // A changed title is one value with the two titles.
    let one = &calls(&[(
        "flow_diff",
        json!({ "left": menus("s", "one"), "right": menus("s", "two") }),
    )])[0];
    assert_eq!(
        one["changedSteps"][7]["values"][0],
        json!({ "field": "buttons", "path": "/steps/7/buttons/0/title", "before": "Yes one", "after": "Yes two" })
    );
}
