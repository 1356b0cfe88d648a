//! [`fix_text`] on documents written with odd formatting: the fixed text says what the fixed
//! document says, only the fixed spots change (tabs, CRLF line ends, one-line documents, key
//! order and Unicode stay as written), and fixing the fixed text changes nothing.

use super::{fix_document, fix_text};
use expect_test::{Expect, expect};
use serde_json::Value;

/// Fixes `text` (safe and unsafe fixes), checks what every fixed text must hold, and compares
/// the fixed text with `expected`.
fn check(text: &str, expected: Expect) {
    let fixed = fix_text(text, &[], true).expect("JSON");
    let edited = fixed.text.expect("every fix is a text edit");
    let parsed: Value = serde_json::from_str(&edited).expect("the fixed text is JSON");
    assert_eq!(
        parsed, fixed.outcome.document,
        "the text says what the document says"
    );
    let document: Value = serde_json::from_str(text).expect("JSON");
    assert_eq!(
        fixed.outcome,
        fix_document(&document, &[], true),
        "the same fixes as on the value"
    );
    assert!(
        !fixed.outcome.applied.is_empty(),
        "the case has something to fix"
    );
    // The writing stays: no tab, CRLF or bare LF line end where the text had none.
    let style = |text: &str| {
        let crlf = text.matches("\r\n").count();
        let tabs = text.contains('\t');
        (tabs, crlf > 0, text.matches('\n').count() > crlf)
    };
    assert_eq!(style(&edited), style(text));
    // Fixing the fixed text applies nothing and changes no byte.
    let again = fix_text(&edited, &[], true).expect("JSON");
    assert_eq!(again.outcome.applied, []);
    assert_eq!(again.text.as_deref(), Some(edited.as_str()));
    expected.assert_eq(&edited.replace('\r', "␍").replace('\t', "␉"));
}

#[test]
fn tabs_and_crlf_stay() {
    check(
        "{\r\n\t\"version\": 2,\r\n\t\"id\": \"tabs\",\r\n\t\"steps\": [\r\n\t\t{ \"id\": \"a\", \"type\": \"message\", \"text\": \"Hi\", \"goto\": \"b\" },\r\n\t\t{ \"id\": \"b\", \"kind\": \"transfer\", \"queue\": \"sales\" }\r\n\t]\r\n}\r\n",
        expect![[r#"
            {␍
            ␉"version": 2,␍
            ␉"id": "tabs",␍
            ␉"steps": [␍
            ␉␉{ "id": "a", "kind": "message", "text": "Hi", "next": "b" },␍
            ␉␉{ "id": "b", "kind": "handoff", "queue": "sales" }␍
            ␉]␍
            }␍
        "#]],
    );
}

#[test]
fn a_one_line_document_stays_on_one_line() {
    check(
        r#"{"steps":[{"kind":"mesage","text":"Hi","id":"a"},{"kind":"end","id":"e","txet":"Bye"}],"id":"Compact Bot","version":2}"#,
        expect![[
            r#"{"steps":[{"kind":"message","text":"Hi","id":"a"},{"kind":"end","id":"e","text":"Bye"}],"id":"compact-bot","version":2}"#
        ]],
    );
}

#[test]
fn keys_in_odd_order_and_unicode_stay() {
    check(
        "{\n    \"steps\" : [\n        {\n            \"text\" : \"¿Número de factura? 🧾 \\u00e9\",\n            \"var\" : \"factura\",\n            \"validate\" : \"^F-[0-9]{3}$\",\n            \"kind\" : \"ask\",\n            \"id\" : \"pregunta\"\n        },\n        {\n            \"text\" : \"Gracias, {{factura}} — adiós\",\n            \"id\" : \"fin\",\n            \"kind\" : \"end\"\n        }\n    ],\n    \"id\" : \"Soporte Técnico\",\n    \"version\" : 2\n}",
        expect![[r#"
            {
                "steps" : [
                    {
                        "text" : "¿Número de factura? 🧾 \u00e9",
                        "save" : "factura",
                        "pattern" : "^F-[0-9]{3}$",
                        "kind" : "ask",
                        "id" : "pregunta"
                    },
                    {
                        "text" : "Gracias, {{factura}} — adiós",
                        "id" : "fin",
                        "kind" : "end"
                    }
                ],
                "id" : "soporte-tecnico",
                "version" : 2
            }"#]],
    );
}

#[test]
fn an_appended_step_follows_the_elements_before_it() {
    // The unsafe fix adds an `end` after the last step, with the separator the steps use.
    check(
        "{ \"version\": 2, \"id\": \"tail\",\n  \"steps\": [\n    { \"id\": \"a\", \"kind\": \"message\", \"text\": \"One\" },\n    { \"id\": \"b\", \"type\": \"message\", \"text\": \"Two\" },\n    { \"id\": \"c\", \"kind\": \"message\", \"text\": \"Three\" }\n  ]\n}\n",
        expect![[r#"
            { "version": 2, "id": "tail",
              "steps": [
                { "id": "a", "kind": "message", "text": "One" },
                { "id": "b", "kind": "message", "text": "Two" },
                { "id": "c", "kind": "message", "text": "Three" },
                {"id":"end","kind":"end"}
              ]
            }
        "#]],
    );
}

#[test]
fn text_that_is_not_json_is_an_error() {
    let error = fix_text("{ \"version\": 2,\n  oops }", &[], false).expect_err("not JSON");
    assert_eq!((error.line, error.column), (2, 3));
}

/// The example document written in one of several styles.
fn written(document: &Value, style: u8) -> String {
    let pretty = serde_json::to_string_pretty(document).expect("JSON");
    match style % 4 {
        0 => document.to_string(),
        1 => pretty,
        2 => pretty.replace("  ", "\t"),
        _ => pretty.replace('\n', "\r\n") + "\r\n",
    }
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config {
        cases: 64,
        rng_seed: proptest::test_runner::RngSeed::Fixed(38),
        failure_persistence: None,
        ..proptest::test_runner::Config::default()
    })]

    /// The example with fixable mistakes (old key names, a misspelt kind, a flow id written as
    /// a name), written in any style: the fixed text is the fixed document, in the same style.
    #[test]
    fn fixed_text_is_the_fixed_document_in_any_style(
        mistakes in proptest::collection::vec((0usize..64, 0u8..4), 1..6),
        style in 0u8..4,
    ) {
        let mut document: Value =
            serde_json::from_str(botmesh_flow_schema::EXAMPLE_FLOW_DOCUMENT).expect("JSON");
        let count = document["steps"].as_array().map_or(0, Vec::len);
        for (at, mistake) in mistakes {
            let Some(step) = document["steps"][at % count].as_object_mut() else {
                continue;
            };
            match mistake {
                0 => {
                    if let Some(kind) = step.remove("kind") {
                        step.insert("type".into(), kind);
                    }
                }
                1 => {
                    if let Some(next) = step.remove("next") {
                        step.insert("goto".into(), next);
                    }
                }
                2 => {
                    if step.get("kind") == Some(&Value::from("message")) {
                        step.insert("kind".into(), Value::from("mesage"));
                    }
                }
                _ => {
                    document["id"] = Value::from("Pizza Bot 2023");
                }
            }
        }
        let text = written(&document, style);
        let fixed = fix_text(&text, &[], false).expect("JSON");
        let edited = fixed.text.expect("every fix is a text edit");
        let parsed: Value = serde_json::from_str(&edited).expect("JSON");
        proptest::prop_assert_eq!(&parsed, &fixed.outcome.document);
        proptest::prop_assert!(fixed.outcome.valid, "{:?}", fixed.outcome.issues);
        proptest::prop_assert_eq!(edited.contains('\t'), text.contains('\t'));
        proptest::prop_assert_eq!(edited.contains("\r\n"), text.contains("\r\n"));
        proptest::prop_assert_eq!(edited.lines().count(), text.lines().count());
    }
}
