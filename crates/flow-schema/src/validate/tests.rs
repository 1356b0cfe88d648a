//! Golden-style tests of `validate`: valid documents, a table of invalid ones with their exact
//! issues, the fixtures under `test_data/flows/`, and arbitrary JSON that must never panic.
use expect_test::{Expect, expect};
use serde_json::{Value, json};

use crate::{EXAMPLE_FLOW_DOCUMENT, FlowDocument, validate};

fn issues(document: &Value) -> String {
    validate(document)
        .issues
        .iter()
        .map(|i| format!("{}: {}\n", i.path, i.message))
        .collect()
}

fn check(document: Value, expected: Expect) {
    expected.assert_eq(&issues(&document));
}

#[test]
fn the_example_validates_uses_at_least_12_kinds_and_deserializes() {
    let document: Value = serde_json::from_str(EXAMPLE_FLOW_DOCUMENT).unwrap();
    let validation = validate(&document);
    assert_eq!(validation.issues, []);
    let summary = validation.summary.unwrap();
    assert!(summary.kinds.len() >= 12, "{:?}", summary.kinds);
    assert_eq!(summary.id, "pizza-order");
    assert_eq!(summary.steps, document["steps"].as_array().unwrap().len());
    let model: FlowDocument = serde_json::from_value(document.clone()).unwrap();
    assert_eq!(serde_json::to_value(&model).unwrap(), document);
}

/// A valid document around the given steps.
fn with_steps(steps: Value) -> Value {
    json!({ "version": 2, "id": "test", "steps": steps })
}

#[test]
fn minimal_documents_and_integer_spellings_are_valid() {
    check(
        json!({ "version": 2.0, "id": "a", "steps": [{ "id": "a", "kind": "end" }] }),
        expect![[""]],
    );
    check(
        with_steps(json!([
            { "id": "wait", "kind": "delay", "seconds": 2e0 },
            { "id": "ask", "kind": "ask", "text": "Age?", "save": "age", "input": "number", "retries": 5.0 },
            { "id": "limits", "kind": "message", "text": "😀".repeat(4096) },
        ])),
        expect![[""]],
    );
    let summary = validate(&with_steps(json!([
        { "id": "a", "kind": "message", "text": "hi" },
        { "id": "b", "kind": "message", "text": "bye" },
        { "id": "c", "kind": "end" },
    ])))
    .summary
    .unwrap();
    expect![[r#"{"version":2,"id":"test","steps":3,"kinds":{"end":1,"message":2}}"#]]
        .assert_eq(&serde_json::to_string(&summary).unwrap());
}

#[test]
fn version_other_than_2_is_one_issue_that_says_to_migrate() {
    check(
        json!({ "id": "a", "steps": "nonsense" }),
        expect![[r#"
            /version: document has no version (read as version 0), the current version is 2: migrate it first (flow_migrate, or botmesh-mcp migrate FILE on the command line)
        "#]],
    );
    check(
        json!({ "version": 1, "id": "a", "steps": [] }),
        expect![[r#"
            /version: document version is 1, the current version is 2: migrate it first (flow_migrate, or botmesh-mcp migrate FILE on the command line)
        "#]],
    );
    check(
        json!({ "version": 0.0 }),
        expect![[r#"
            /version: document version is 0, the current version is 2: migrate it first (flow_migrate, or botmesh-mcp migrate FILE on the command line)
        "#]],
    );
    check(
        json!({ "version": "2", "steps": 1 }),
        expect![[r#"
            /version: unsupported version "2": the current version is 2 (flow_migrate, or botmesh-mcp migrate FILE on the command line, upgrades versions 0 and 1)
        "#]],
    );
    check(
        json!({ "version": 3 }),
        expect![[r#"
            /version: unsupported version 3: the current version is 2 (flow_migrate, or botmesh-mcp migrate FILE on the command line, upgrades versions 0 and 1)
        "#]],
    );
    check(
        json!([1, 2]),
        expect![[r#"
            : must be an object (a flow document), found an array
        "#]],
    );
}

#[test]
fn top_level_metadata_trigger_and_variables() {
    let mut many = serde_json::Map::new();
    for i in 0..101 {
        many.insert(format!("v{i}"), json!({ "type": "boolean" }));
    }
    check(
        json!({
            "version": 2,
            "$schema": "",
            "id": "Pizza Order",
            "name": "legacy",
            "stpes": [],
            "a/b~c": 1,
            "metadata": {
                "title": "",
                "description": "x".repeat(1001),
                "locale": "es_ES",
                "tags": ["food", "é".repeat(41), "food"],
                "author": "me"
            },
            "trigger": { "keywords": [], "match": "startswith", "fallback": "yes" },
            "variables": {
                "Name": { "type": "string" },
                "age": { "type": "int" },
                "vip": { "type": "boolean", "default": "yes", "description": "", "defualt": true }
            }
        }),
        expect![[r#"
            : missing required property "steps"
            /$schema: must be a non-empty string, found an empty string
            /id: must be a flow id: a lowercase letter, then up to 63 lowercase letters, digits, "_" or "-", found "Pizza Order" (did you mean "pizza-order"?)
            /metadata/title: must be a string of 1-120 characters, found an empty string
            /metadata/description: must be a string of 1-1000 characters, found 1001
            /metadata/locale: must be a locale such as "en" or "pt-BR", found "es_ES"
            /metadata/tags/1: must be a string of 1-40 characters, found 41
            /metadata/tags/2: duplicate tag "food" (first at /metadata/tags/0)
            /metadata/author: unknown property "author"
            /trigger/keywords: must be an array of 1-50 keywords, found 0
            /trigger/match: must be one of "exact", "contains", "startsWith", found "startswith" (did you mean "startsWith"?)
            /trigger/fallback: must be a boolean, found "yes"
            /variables/Name: invalid variable name "Name": must be a variable name: a lowercase letter or "_", then up to 63 lowercase letters, digits or "_" (did you mean "name"?)
            /variables/age/type: must be one of "string", "number", "boolean", found "int" (did you mean "number"?)
            /variables/vip/default: must be a boolean (the declared type), found a string
            /variables/vip/description: must be a string of 1-200 characters, found an empty string
            /variables/vip/defualt: unknown property "defualt" (did you mean "default"?)
            /a~1b~0c: unknown property "a/b~c"
            /name: unknown property "name"
            /stpes: unknown property "stpes" (did you mean "steps"?)
        "#]],
    );
    check(
        json!({ "version": 2, "id": "a", "variables": many, "steps": [], "trigger": { "keywords": ["hi", "hi"] } }),
        expect![[r#"
            /trigger/keywords/1: duplicate keyword "hi" (first at /trigger/keywords/0)
            /variables: must be an object of at most 100 variables, found 101
            /steps: must be an array of 1-500 steps, found 0
        "#]],
    );
}

#[test]
fn step_ids_kinds_and_properties() {
    check(
        with_steps(json!([
            "hello",
            {},
            { "id": "a", "kind": "mesage", "text": "hi" },
            { "id": "b", "kind": "carousel" },
            { "id": "c", "kind": 5 },
            { "id": "a", "kind": "message", "text": "again", "type": "message", "goto": "b" },
            { "id": "9lives", "kind": "message", "text": "x", "buttons": [] },
            { "id": "d", "kind": "end", "next": "a" },
            { "id": "e", "kind": "branch", "cases": [{ "when": { "var": "x", "op": "exists" }, "next": "a" }], "next": "a" },
            { "id": "f", "kind": "handoff", "queue": "q".repeat(65), "text": "", "next": "a" },
        ])),
        expect![[r#"
            /steps/0: must be an object (a step), found a string
            /steps/1: missing required property "id"
            /steps/1: missing required property "kind"
            /steps/2/kind: unknown step kind "mesage" (did you mean "message"?)
            /steps/3/kind: unknown step kind "carousel": must be one of "message", "media", "buttons", "list", "template", "location", "ask", "branch", "set", "delay", "action", "subflow", "handoff", "end"
            /steps/4/kind: must be one of "message", "media", "buttons", "list", "template", "location", "ask", "branch", "set", "delay", "action", "subflow", "handoff", "end", found 5
            /steps/5/id: duplicate step id "a" (first at /steps/2)
            /steps/5/goto: unknown property "goto" (did you mean "next"?)
            /steps/5/type: unknown property "type" (did you mean "kind"?)
            /steps/6/id: must be a step id: a letter, then up to 63 letters, digits, "_" or "-", found "9lives"
            /steps/6/buttons: "buttons" is not allowed on a message step
            /steps/7/next: "next" is not allowed on an end step: the flow ends there (inside a subflow, control returns to the caller)
            /steps/8/next: "next" is not allowed on a branch step (did you mean "default"?)
            /steps/9/queue: must be a string of 1-64 characters, found 65
            /steps/9/text: must be a string of 1-1024 characters, found an empty string
            /steps/9/next: "next" is not allowed on a handoff step: the conversation leaves the bot there
        "#]],
    );
}

/// Other platforms' names and the names of versions 0 and 1 get the name this version uses.
#[test]
fn kinds_and_properties_other_tools_use() {
    check(
        with_steps(json!([
            { "id": "a", "kind": "transfer", "queue": "sales" },
            { "id": "b", "kind": "agent" },
            { "id": "c", "kind": "input", "text": "?", "save": "x" },
            { "id": "d", "kind": "prompt" },
            { "id": "e", "kind": "question" },
            { "id": "f", "kind": "text", "text": "hi" },
            { "id": "g", "kind": "menu", "options": ["a", "b"] },
            { "id": "h", "kind": "buttons", "text": "?", "choices": [], "buttons": [{ "id": "y", "title": "Yes" }] },
            { "id": "i", "kind": "list", "text": "?", "button": "Pick", "options": [], "sections": [{ "rows": [{ "id": "r", "title": "R" }] }] },
            { "id": "j", "kind": "message", "text": "hi", "goto": "a" },
            { "id": "k", "kind": "end" },
        ])),
        expect![[r#"
            /steps/0/kind: unknown step kind "transfer" (did you mean "handoff"?)
            /steps/1/kind: unknown step kind "agent" (did you mean "handoff"?)
            /steps/2/kind: unknown step kind "input" (did you mean "ask"?)
            /steps/3/kind: unknown step kind "prompt" (did you mean "ask"?)
            /steps/4/kind: unknown step kind "question" (did you mean "ask"? "question" is the version 0 name, which flow_migrate and botmesh-mcp migrate convert)
            /steps/5/kind: unknown step kind "text" (did you mean "message"? "text" is the version 0 name, which flow_migrate and botmesh-mcp migrate convert)
            /steps/6/kind: unknown step kind "menu": version 0's menu, which flow_migrate and botmesh-mcp migrate turn into "buttons" (up to 3 options) or "list"
            /steps/6/options: unknown property "options"
            /steps/7/choices: unknown property "choices" (did you mean "buttons"?)
            /steps/8/options: unknown property "options" (did you mean "sections"?)
            /steps/9/goto: unknown property "goto" (did you mean "next"?)
        "#]],
    );
}

#[test]
fn references_between_steps() {
    check(
        with_steps(json!([
            { "id": "start", "kind": "message", "text": "hi", "next": "pay" },
            { "id": "ask", "kind": "ask", "text": "?", "save": "x", "onFail": "strat", "next": "bad id" },
            { "id": "pick", "kind": "branch", "cases": [{ "when": { "var": "x", "op": "exists" }, "next": "nowhere" }], "default": "pay_now" },
            { "id": "pay_now", "kind": "end" },
        ])),
        expect![[r#"
            /steps/0/next: unknown step "pay" in next (did you mean "pay_now"?)
            /steps/1/onFail: unknown step "strat" in onFail (did you mean "start"?)
            /steps/1/next: must be a step id: a letter, then up to 63 letters, digits, "_" or "-", found "bad id"
            /steps/2/cases/0/next: unknown step "nowhere" in next
        "#]],
    );
}

#[test]
fn sending_steps() {
    check(
        with_steps(json!([
            { "id": "m1", "kind": "media", "media": "gif", "url": "http://x.com/a.png" },
            { "id": "m2", "kind": "media", "media": "audio", "url": "https://x.com/a b.ogg", "caption": "listen", "filename": "a.ogg" },
            { "id": "m3", "kind": "media", "media": "document", "url": "https://x.com/a.pdf", "filename": "", "caption": "é".repeat(1025) },
            { "id": "t1", "kind": "template", "name": "Order-Ready", "language": "pt-BR", "parameters": ["", "ok"] },
            { "id": "t2", "kind": "template", "name": "ok", "language": "en", "parameters": vec!["p"; 21] },
            { "id": "l1", "kind": "location", "latitude": 91, "longitude": "0", "name": "", "address": "a".repeat(301) },
            { "id": "end", "kind": "end", "text": "😀".repeat(4097) },
        ])),
        expect![[r#"
            /steps/0/media: must be one of "image", "video", "audio", "document", "sticker", found "gif"
            /steps/0/url: must be an https:// URL of at most 2048 characters without spaces or control characters, found "http://x.com/a.png"
            /steps/1/url: must be an https:// URL of at most 2048 characters without spaces or control characters, found "https://x.com/a b.ogg"
            /steps/1/caption: "caption" is not allowed for audio media
            /steps/1/filename: "filename" is only allowed for document media
            /steps/2/caption: must be a string of 1-1024 characters, found 1025
            /steps/2/filename: must be a string of 1-240 characters, found an empty string
            /steps/3/name: must be a template name of 1-512 lowercase letters, digits or "_", found "Order-Ready"
            /steps/3/language: must be a template language such as "en" or "pt_BR", found "pt-BR"
            /steps/3/parameters/0: must be a string of 1-1024 characters, found an empty string
            /steps/4/parameters: must be an array of at most 20 parameters, found 21
            /steps/5/latitude: must be a number from -90 to 90, found 91
            /steps/5/longitude: must be a number from -180 to 180, found "0"
            /steps/5/name: must be a string of 1-100 characters, found an empty string
            /steps/5/address: must be a string of 1-300 characters, found 301
            /steps/6/text: must be a string of 1-4096 characters, found 4097
        "#]],
    );
}

#[test]
fn buttons_and_lists() {
    let row = |id: &str| json!({ "id": id, "title": "Row" });
    check(
        with_steps(json!([
            { "id": "b1", "kind": "buttons", "text": "Pick", "header": "", "footer": "f".repeat(61), "buttons": [
                { "id": "x", "title": "A" },
                { "id": "x", "title": "Twenty-one characters", "next": "nope" },
                { "title": "C", "label": "c" },
                { "id": "", "title": "D" }
            ] },
            { "id": "l1", "kind": "list", "text": "Pick", "button": "Open the list of all options", "sections": [
                { "title": "Twenty-five characters!!!", "rows": [row("r1"), row("r2"), row("r3"), row("r4"), row("r5"), row("r6")] },
                { "rows": [row("r7"), row("r8"), row("r9"), row("r10"), row("r1")] },
                { "rows": [] }
            ] },
            { "id": "l2", "kind": "list", "text": "Pick", "button": "Open", "sections": [
                { "rows": [{ "id": "a", "title": "t".repeat(25), "description": "d".repeat(73), "next": "b1" }] }
            ] },
            { "id": "end", "kind": "end" },
        ])),
        expect![[r#"
            /steps/0/buttons: must be an array of 1-3 buttons, found 4 (for up to 10 choices use a list step)
            /steps/0/buttons/1/id: duplicate button id "x" (first at /steps/0/buttons/0)
            /steps/0/buttons/1/title: must be a string of 1-20 characters, found 21
            /steps/0/buttons/1/next: unknown step "nope" in next
            /steps/0/buttons/2: missing required property "id"
            /steps/0/buttons/2/label: unknown property "label"
            /steps/0/buttons/3/id: must be a string of 1-256 characters, found an empty string
            /steps/0/header: must be a string of 1-60 characters, found an empty string
            /steps/0/footer: must be a string of 1-60 characters, found 61
            /steps/1/button: must be a string of 1-20 characters, found 28
            /steps/1/sections: a list has at most 10 rows in all sections together, found 11
            /steps/1/sections/0/title: must be a string of 1-24 characters, found 25
            /steps/1/sections/1/rows/4/id: duplicate row id "r1" (first at /steps/1/sections/0/rows/0)
            /steps/1/sections/2/rows: must be an array of 1-10 rows, found 0
            /steps/2/sections/0/rows/0/title: must be a string of 1-24 characters, found 25
            /steps/2/sections/0/rows/0/description: must be a string of 1-72 characters, found 73
        "#]],
    );
}

#[test]
fn a_menu_saves_the_picked_id_in_a_variable_it_may_write() {
    let row = |id: &str| json!({ "id": id, "title": id });
    check(
        with_steps(json!([
            { "id": "b1", "kind": "buttons", "text": "Size?", "save": "size", "buttons": [row("s")] },
            { "id": "b2", "kind": "buttons", "text": "Size?", "save": "contact_name", "buttons": [row("s")] },
            { "id": "l1", "kind": "list", "text": "Pizza?", "button": "See", "save": "pizza", "sections": [{ "rows": [row("m")] }] },
            { "id": "l2", "kind": "list", "text": "Pizza?", "button": "See", "save": "Pizza Id", "sections": [{ "rows": [row("m")] }] },
            { "id": "l3", "kind": "list", "text": "Pizza?", "button": "See", "save": 3, "sections": [{ "rows": [row("m")] }] },
            { "id": "end", "kind": "end" },
        ])),
        expect![[r#"
            /steps/1/save: cannot write the built-in variable "contact_name" (it is read-only)
            /steps/3/save: must be a variable name: a lowercase letter or "_", then up to 63 lowercase letters, digits or "_", found "Pizza Id"
            /steps/4/save: must be a variable name: a lowercase letter or "_", then up to 63 lowercase letters, digits or "_", found a number
        "#]],
    );
}

#[test]
fn asks_sets_delays_actions_and_subflows() {
    let mut deep = json!(1);
    for _ in 0..32 {
        deep = json!([deep]);
    }
    check(
        with_steps(json!([
            { "id": "a1", "kind": "ask", "text": "Name?", "save": "contact_name", "pattern": "(?=a)b", "retries": 6 },
            { "id": "a2", "kind": "ask", "text": "Age?", "save": "age", "input": "number", "pattern": "^\\d+$", "retries": 2.5, "retryText": "" },
            { "id": "a3", "kind": "ask", "text": "Word?", "save": "w", "input": "txt", "pattern": "(a)\\1" },
            { "id": "s1", "kind": "set", "var": "last_message", "value": {} },
            { "id": "s2", "kind": "set", "var": "Total", "value": [1] },
            { "id": "d1", "kind": "delay", "seconds": 0, "typing": "yes" },
            { "id": "d2", "kind": "delay", "seconds": 86401 },
            { "id": "x1", "kind": "action", "handler": "1abc", "args": [], "save": "flow_id" },
            { "id": "x2", "kind": "action", "handler": "orders.place", "args": { "deep": deep } },
            { "id": "f1", "kind": "subflow", "flow": "Payment" },
            { "id": "end", "kind": "end" },
        ])),
        expect![[r#"
            /steps/0/save: cannot write the built-in variable "contact_name" (it is read-only)
            /steps/0/pattern: must be a regular expression in RE2 syntax: look-around, including look-ahead and look-behind, is not supported
            /steps/0/retries: must be an integer from 0 to 5, found 6
            /steps/1/pattern: "pattern" is only allowed with input "text"
            /steps/1/retries: must be an integer from 0 to 5, found 2.5
            /steps/1/retryText: must be a string of 1-1024 characters, found an empty string
            /steps/2/input: must be one of "text", "number", "email", "phone", "date", "yesno", found "txt" (did you mean "text"?)
            /steps/2/pattern: must be a regular expression in RE2 syntax: backreferences are not supported
            /steps/3/var: cannot write the built-in variable "last_message" (it is read-only)
            /steps/3/value: must be a string, number, boolean or null, found an object
            /steps/4/var: must be a variable name: a lowercase letter or "_", then up to 63 lowercase letters, digits or "_", found "Total" (did you mean "total"?)
            /steps/4/value: must be a string, number, boolean or null, found an array
            /steps/5/seconds: must be an integer from 1 to 86400, found 0
            /steps/5/typing: must be a boolean, found "yes"
            /steps/6/seconds: must be an integer from 1 to 86400, found 86401
            /steps/7/handler: must be a handler name: a letter, then up to 127 letters, digits, "_" or ".", found "1abc"
            /steps/7/args: must be an object, found an array
            /steps/7/save: cannot write the built-in variable "flow_id" (it is read-only)
            /steps/8/args/deep/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0: args nest at most 32 levels deep
            /steps/9/flow: must be a flow id: a lowercase letter, then up to 63 lowercase letters, digits, "_" or "-", found "Payment" (did you mean "payment"?)
        "#]],
    );
}

#[test]
fn conditions() {
    let mut deep = json!({ "var": "x", "op": "exists" });
    for _ in 0..8 {
        deep = json!({ "not": deep });
    }
    let case = |when: Value| json!({ "when": when, "next": "end" });
    check(
        with_steps(json!([
            { "id": "b1", "kind": "branch", "cases": [
                case(json!({ "var": "age", "op": "lt", "value": "5" })),
                case(json!({ "var": "age", "op": "exists", "value": 1 })),
                case(json!({ "var": "age", "op": "eq" })),
                case(json!({ "var": "Age", "op": "equals", "value": 1 })),
                case(json!({ "var": "x", "op": "in", "value": [1, [2]] })),
                case(json!({ "var": "x", "op": "matches", "value": "(" })),
                case(json!({ "var": "x", "op": "contains", "value": 1, "extra": true })),
                case(json!({ "all": [], "any": [] })),
                case(json!({ "not": { "var": "x", "op": "exists" }, "var": "x" })),
                case(json!({ "any": [{ "all": [{ "var": "x", "op": "startsWith", "value": null }] }] })),
                case(json!("x == 1")),
                case(deep),
                { "next": "end", "if": {} }
            ] },
            { "id": "b2", "kind": "branch", "cases": [] },
            { "id": "end", "kind": "end" },
        ])),
        expect![[r#"
            /steps/0/cases/0/when/value: must be a number, found "5"
            /steps/0/cases/1/when/value: "value" is not allowed with op "exists"
            /steps/0/cases/2/when: missing required property "value"
            /steps/0/cases/3/when/var: must be a variable name: a lowercase letter or "_", then up to 63 lowercase letters, digits or "_", found "Age" (lower-cased it would be "age", which this document already uses at /steps/0/cases/0/when/var: rename one of them)
            /steps/0/cases/3/when/op: must be one of "eq", "ne", "lt", "lte", "gt", "gte", "contains", "startsWith", "matches", "exists", "in", found "equals" (did you mean "eq"?)
            /steps/0/cases/4/when/value: must be an array of 1-50 strings, numbers, booleans or nulls, found an array among them
            /steps/0/cases/5/when/value: must be a regular expression in RE2 syntax: unclosed group
            /steps/0/cases/6/when/value: must be a string, found 1
            /steps/0/cases/6/when/extra: unknown property "extra"
            /steps/0/cases/7/when: must have exactly one of "all", "any", "not", found "all" and "any"
            /steps/0/cases/8/when/var: unknown property "var"
            /steps/0/cases/9/when/any/0/all/0/value: must be a string, found null
            /steps/0/cases/10/when: must be a condition: an object with "var" and "op", or with one of "all", "any", "not", found a string
            /steps/0/cases/11/when/not/not/not/not/not/not/not/not: conditions nest at most 8 levels deep
            /steps/0/cases/12: missing required property "when"
            /steps/0/cases/12/if: unknown property "if"
            /steps/1/cases: must be an array of 1-20 cases, found 0
        "#]],
    );
}

/// Spec §3: every string has at least 1 character, values included (`set.value`, a string
/// variable's `default`, the `value` of `eq`, `ne`, `contains`, `startsWith` and the elements
/// of `in`); one character, `null`, numbers and booleans are still fine.
#[test]
fn value_strings_are_not_empty() {
    let case = |when: Value| json!({ "when": when, "next": "end" });
    let variables = json!({
        "name": { "type": "string", "default": "" },
        "nick": { "type": "string", "default": "é" },
        "age": { "type": "number", "default": 0 },
    });
    let mut document = with_steps(json!([
        { "id": "s1", "kind": "set", "var": "name", "value": "" },
        { "id": "s2", "kind": "set", "var": "name", "value": "😀" },
        { "id": "s3", "kind": "set", "var": "name", "value": null },
        { "id": "b1", "kind": "branch", "cases": [
            case(json!({ "var": "name", "op": "eq", "value": "" })),
            case(json!({ "var": "name", "op": "ne", "value": "" })),
            case(json!({ "var": "name", "op": "contains", "value": "" })),
            case(json!({ "var": "name", "op": "startsWith", "value": "" })),
            case(json!({ "var": "name", "op": "in", "value": ["a", "", 1, null, ""] })),
            case(json!({ "var": "name", "op": "in", "value": [[""], ""] })),
            case(json!({ "any": [{ "not": { "var": "name", "op": "eq", "value": "" } }] })),
            case(json!({ "var": "name", "op": "eq", "value": "x" })),
            case(json!({ "var": "name", "op": "ne", "value": null })),
            case(json!({ "var": "name", "op": "contains", "value": "x" })),
            case(json!({ "var": "name", "op": "startsWith", "value": "+" })),
            case(json!({ "var": "name", "op": "in", "value": ["x", 0, false, null] })),
        ] },
        { "id": "end", "kind": "end" },
    ]));
    document["variables"] = variables;
    check(
        document,
        expect![[r#"
            /variables/name/default: must be a non-empty string, found an empty string
            /steps/0/value: must be a non-empty string, found an empty string
            /steps/3/cases/0/when/value: must be a non-empty string, found an empty string
            /steps/3/cases/1/when/value: must be a non-empty string, found an empty string
            /steps/3/cases/2/when/value: must be a non-empty string, found an empty string
            /steps/3/cases/3/when/value: must be a non-empty string, found an empty string
            /steps/3/cases/4/when/value/1: must be a non-empty string, found an empty string
            /steps/3/cases/4/when/value/4: must be a non-empty string, found an empty string
            /steps/3/cases/5/when/value: must be an array of 1-50 strings, numbers, booleans or nulls, found an array among them
            /steps/3/cases/5/when/value/1: must be a non-empty string, found an empty string
            /steps/3/cases/6/when/any/0/not/value: must be a non-empty string, found an empty string
        "#]],
    );
    // An empty default of a number variable is one issue: the type.
    check(
        json!({ "version": 2, "id": "a", "variables": { "n": { "type": "number", "default": "" } }, "steps": [{ "id": "a", "kind": "end" }] }),
        expect![[r#"
            /variables/n/default: must be a number (the declared type), found a string
        "#]],
    );
}

/// `test_data/flows/v2-valid/*.json` validate; each `v2-invalid/NAME.json` has exactly the
/// issues written in `v2-invalid/NAME.issues.txt` (rewritten with `UPDATE_EXPECT=1`).
#[test]
fn fixtures() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/flows");
    let read = |dir: &str| {
        let mut files: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        files
    };
    let valid = read("v2-valid");
    assert!(valid.len() >= 3);
    for path in valid {
        let document: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(issues(&document), "", "{}", path.display());
        let _: FlowDocument = serde_json::from_value(document).unwrap();
    }
    let invalid = read("v2-invalid");
    assert!(invalid.len() >= 4);
    for path in invalid {
        let document: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let actual = issues(&document);
        assert_ne!(actual, "", "{}", path.display());
        let expected_path = path.with_extension("issues.txt");
        if std::env::var_os("UPDATE_EXPECT").is_some() {
            std::fs::write(&expected_path, &actual).unwrap();
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        assert_eq!(actual, expected, "{}", path.display());
    }
}

fn arbitrary_json() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let key = prop::sample::select(vec![
        "version",
        "id",
        "kind",
        "steps",
        "next",
        "text",
        "cases",
        "when",
        "all",
        "not",
        "op",
        "value",
        "var",
        "buttons",
        "sections",
        "rows",
        "args",
        "media",
        "input",
        "pattern",
        "metadata",
        "variables",
        "type",
        "default",
        "~/",
        "",
    ]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        prop::sample::select(vec![
            "a", "2", "exists", "message", "end", "(?=x)", "é😀", "s0", ""
        ])
        .prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(6, 64, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(key.clone(), inner, 0..8).prop_map(|m| {
                let mut m: serde_json::Map<String, Value> =
                    m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
                if m.contains_key("steps") || m.contains_key("id") {
                    m.insert("version".into(), json!(2));
                }
                Value::Object(m)
            }),
        ]
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 512,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5EED_0002),
        ..proptest::prelude::ProptestConfig::default()
    })]

    /// Any JSON at all: no panic, `valid` matches the issues, and every path points into the
    /// document (or at `/version`, or at a missing property's object).
    #[test]
    fn never_panics_on_arbitrary_json(document in arbitrary_json()) {
        let validation = validate(&document);
        proptest::prop_assert_eq!(validation.valid, validation.issues.is_empty());
        proptest::prop_assert_eq!(validation.summary.is_some(), validation.valid);
        for issue in &validation.issues {
            let points_in = document.pointer(&issue.path).is_some() || issue.path == "/version";
            proptest::prop_assert!(points_in, "{} not in {}", issue.path, document);
        }
    }

    /// The same on arbitrary steps inside an otherwise valid document.
    #[test]
    fn never_panics_on_arbitrary_steps(steps in proptest::collection::vec(arbitrary_json(), 1..6)) {
        let document = json!({ "version": 2, "id": "p", "steps": steps });
        let validation = validate(&document);
        for issue in &validation.issues {
            proptest::prop_assert!(document.pointer(&issue.path).is_some(), "{}", issue.path);
        }
    }
}

#[test]
fn the_example_fixture_is_the_example() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("test_data/flows/v2-valid/pizza-order.json");
    assert_eq!(
        std::fs::read_to_string(path).unwrap(),
        EXAMPLE_FLOW_DOCUMENT
    );
}

#[test]
fn quoted_user_text_is_short_and_oversized_documents_get_no_suggestions() {
    let long_kind = "k".repeat(5000);
    let doc = json!({"version": 2, "id": "a", "steps": [{"id": "x", "kind": long_kind}]});
    let issues = validate(&doc).issues;
    assert!(
        issues[0].message.chars().count() < 300,
        "{}",
        issues[0].message
    );
    assert!(issues[0].message.contains('…'));
    // 2,000 steps (over the 500 limit), each pointing at an unknown step: one issue each, and
    // no suggestion search across every id.
    let steps: Vec<serde_json::Value> = (0..2000)
        .map(
            |i| json!({"id": format!("s{i}"), "kind": "end", "text": "x", "next": format!("t{i}")}),
        )
        .collect();
    let doc = json!({"version": 2, "id": "a", "steps": steps});
    let issues = validate(&doc).issues;
    assert!(
        issues
            .iter()
            .all(|issue| !issue.message.contains("did you mean") || !issue.path.ends_with("/next"))
    );
    let within: Vec<serde_json::Value> = vec![
        json!({"id": "pay_now", "kind": "message", "text": "x", "next": "pay_nw"}),
        json!({"id": "b", "kind": "end"}),
    ];
    let doc = json!({"version": 2, "id": "a", "steps": within});
    assert_eq!(
        validate(&doc).issues[0].message,
        "unknown step \"pay_nw\" in next (did you mean \"pay_now\"?)"
    );
}

/// The issues whose repair is determined carry a fix: safe ones keep the meaning, unsafe ones
/// guess; each patch starts with a test of what it changes, and applying every fix of the
/// document leaves those issues gone.
#[test]
fn determined_repairs_carry_fixes() {
    let document = with_steps(json!([
        { "id": "a", "type": "message", "text": "hi" },
        { "id": "b", "kind": "transfer", "queue": "sales" },
        { "id": "c", "kind": "buttons", "text": "?", "buttons": [
            { "id": "y", "title": "A title that is much too long" },
            { "id": "y", "title": "Other", "next": "bey" },
            { "id": "y_2", "title": "Third" }
        ] },
        { "id": "bye", "kind": "end", "txet": "Bye", "ms": 5 },
    ]));
    let validation = validate(&document);
    let fixes: String = validation
        .issues
        .iter()
        .map(|i| match &i.fix {
            Some(fix) => format!(
                "{}: {:?} {} {}\n",
                i.path,
                fix.applicability,
                fix.description,
                serde_json::to_string(&fix.patch).unwrap()
            ),
            None => format!("{}: no fix\n", i.path),
        })
        .collect();
    expect![[r#"
        /steps/0: no fix
        /steps/0/type: Safe rename "type" to "kind" [{"op":"test","path":"/steps/0/type","value":"message"},{"from":"/steps/0/type","op":"move","path":"/steps/0/kind"}]
        /steps/1/kind: Safe change kind "transfer" to "handoff" [{"op":"test","path":"/steps/1/kind","value":"transfer"},{"op":"replace","path":"/steps/1/kind","value":"handoff"}]
        /steps/2/buttons/0/title: Safe cut the title to 20 characters: "A title that is muc…" [{"op":"test","path":"/steps/2/buttons/0/title","value":"A title that is much too long"},{"op":"replace","path":"/steps/2/buttons/0/title","value":"A title that is muc…"}]
        /steps/2/buttons/1/id: Safe rename the duplicate button id "y" to "y_3" [{"op":"test","path":"/steps/2/buttons/1/id","value":"y"},{"op":"replace","path":"/steps/2/buttons/1/id","value":"y_3"}]
        /steps/2/buttons/1/next: Unsafe point next at the nearest step id, "bye" (check it is the step meant) [{"op":"test","path":"/steps/2/buttons/1/next","value":"bey"},{"op":"replace","path":"/steps/2/buttons/1/next","value":"bye"}]
        /steps/3/ms: no fix
        /steps/3/txet: Safe rename "txet" to "text" [{"op":"test","path":"/steps/3/txet","value":"Bye"},{"from":"/steps/3/txet","op":"move","path":"/steps/3/text"}]
    "#]]
    .assert_eq(&fixes);
    let mut fixed = document.clone();
    for issue in &validation.issues {
        if let Some(fix) = &issue.fix {
            crate::apply_patch(&mut fixed, &fix.patch).unwrap();
        }
    }
    assert_eq!(
        issues(&fixed),
        "/steps/3/ms: unknown property \"ms\"\n",
        "only the issue without a fix is left"
    );
    // A stale patch fails at its test instead of changing the document.
    let patch = &validation.issues[1].fix.as_ref().unwrap().patch;
    let mut stale = fixed.clone();
    assert!(crate::apply_patch(&mut stale, patch).is_err());
    assert_eq!(stale, fixed);
}

/// Each issue of `document` (`PATH: [fix]`, with its message when `message`), and the document
/// with every fix applied.
fn fixes_of(document: &Value, message: bool) -> (String, Value) {
    let validation = validate(document);
    let mut fixed = document.clone();
    let mut found = String::new();
    for issue in &validation.issues {
        let fix = issue.fix.as_ref().map_or_else(
            || "no fix".to_owned(),
            |f| format!("{:?} {}", f.applicability, f.description),
        );
        if let Some(fix) = &issue.fix {
            crate::apply_patch(&mut fixed, &fix.patch).unwrap();
        }
        let message = if message {
            format!(" {}", issue.message)
        } else {
            String::new()
        };
        found.push_str(&format!("{}:{message} [{fix}]\n", issue.path));
    }
    (found, fixed)
}

/// The 2023 dashboard's words, written by hand in a version 2 document, name the word this
/// version uses and carry the fix; a flow id written as a name gets its slug.
#[test]
fn dashboard_words_name_their_fix() {
    let document = json!({ "version": 2, "id": "Support Bot", "steps": [
        { "id": "q", "kind": "ask", "text": "Invoice?", "var": "invoice", "validate": "^INV-[0-9]{4}$" },
        { "id": "s", "kind": "set", "save": "plan", "value": "basic" },
        { "id": "m", "kind": "message", "text": "hi", "var": "x" },
        { "id": "call", "kind": "subflow", "flow": "Billing Bot" },
        { "id": "odd", "kind": "subflow", "flow": "日本語" }
    ]});
    let (found, fixed) = fixes_of(&document, true);
    expect![[r#"
        /id: must be a flow id: a lowercase letter, then up to 63 lowercase letters, digits, "_" or "-", found "Support Bot" (did you mean "support-bot"?) [Safe change the flow id to "support-bot"]
        /steps/0: missing required property "save" ("var" is there: rename it to "save") [no fix]
        /steps/0/validate: unknown property "validate" (did you mean "pattern"?) [Safe rename "validate" to "pattern"]
        /steps/0/var: "var" is not allowed on an ask step (did you mean "save"?) [Safe rename "var" to "save"]
        /steps/1: missing required property "var" ("save" is there: rename it to "var") [no fix]
        /steps/1/save: "save" is not allowed on a set step (did you mean "var"?) [Safe rename "save" to "var"]
        /steps/2/var: "var" is not allowed on a message step [no fix]
        /steps/3/flow: must be a flow id: a lowercase letter, then up to 63 lowercase letters, digits, "_" or "-", found "Billing Bot" (did you mean "billing-bot"?) [Safe change the flow id to "billing-bot"]
        /steps/4/flow: must be a flow id: a lowercase letter, then up to 63 lowercase letters, digits, "_" or "-", found "日本語" [no fix]
    "#]]
    .assert_eq(&found);
    assert_eq!(fixed["id"], "support-bot");
    assert_eq!(fixed["steps"][0]["save"], "invoice");
    assert_eq!(fixed["steps"][0]["pattern"], "^INV-[0-9]{4}$");
    assert_eq!(fixed["steps"][1]["var"], "plan");
}

/// A variable name with capitals (the 2023 dashboard's `Invoice`) suggests the lower-cased
/// name, and each issue about it carries the one fix that renames it everywhere the document
/// names it: its writes, the conditions and placeholders that read it, its declaration. A
/// lower-cased name that is taken is said, with no fix.
#[test]
fn variable_names_with_capitals_are_lower_cased_everywhere_by_their_fix() {
    let document = json!({ "version": 2, "id": "caps", "variables": { "Invoice": { "type": "string" } }, "steps": [
        { "id": "q", "kind": "ask", "text": "Invoice?", "save": "Invoice", "retryText": "{{Invoice}} is no invoice" },
        { "id": "b", "kind": "branch", "cases": [{ "when": { "not": { "var": "Invoice", "op": "exists" } }, "next": "q" }] },
        { "id": "m", "kind": "message", "text": "Got {{Invoice}}, {{ Invoice }} for {{Contact_Name}}" },
        { "id": "a", "kind": "action", "handler": "billing.find", "args": { "ids": ["{{Invoice}}"] }, "save": "Total" },
        { "id": "t", "kind": "message", "text": "{{total}}" },
        { "id": "c1", "kind": "set", "var": "Code", "value": 1 },
        { "id": "c2", "kind": "set", "var": "CODE", "value": 2 },
        { "id": "n", "kind": "set", "var": "Contact_Phone", "value": "x" }
    ]});
    let validation = validate(&document);
    let found: String = validation
        .issues
        .iter()
        .map(|issue| {
            let fix = issue.fix.as_ref().map_or_else(
                || "no fix".to_owned(),
                |f| format!("{:?} {}", f.applicability, f.description),
            );
            format!("{}: {} [{fix}]\n", issue.path, issue.message)
        })
        .collect();
    expect![[r#"
        /variables/Invoice: invalid variable name "Invoice": must be a variable name: a lowercase letter or "_", then up to 63 lowercase letters, digits or "_" (did you mean "invoice"?) [Safe rename the variable "Invoice" to "invoice" everywhere the document names it (1 write, 1 condition, 4 placeholders, 1 declaration)]
        /steps/0/save: must be a variable name: a lowercase letter or "_", then up to 63 lowercase letters, digits or "_", found "Invoice" (did you mean "invoice"?) [Safe rename the variable "Invoice" to "invoice" everywhere the document names it (1 write, 1 condition, 4 placeholders, 1 declaration)]
        /steps/1/cases/0/when/not/var: must be a variable name: a lowercase letter or "_", then up to 63 lowercase letters, digits or "_", found "Invoice" (did you mean "invoice"?) [Safe rename the variable "Invoice" to "invoice" everywhere the document names it (1 write, 1 condition, 4 placeholders, 1 declaration)]
        /steps/3/save: must be a variable name: a lowercase letter or "_", then up to 63 lowercase letters, digits or "_", found "Total" (lower-cased it would be "total", which this document already uses at /steps/4/text: rename one of them) [no fix]
        /steps/5/var: must be a variable name: a lowercase letter or "_", then up to 63 lowercase letters, digits or "_", found "Code" (lower-cased it would be "code", as would "CODE": rename one of them) [no fix]
        /steps/6/var: must be a variable name: a lowercase letter or "_", then up to 63 lowercase letters, digits or "_", found "CODE" (lower-cased it would be "code", as would "Code": rename one of them) [no fix]
        /steps/7/var: must be a variable name: a lowercase letter or "_", then up to 63 lowercase letters, digits or "_", found "Contact_Phone" (lower-cased it would be the built-in "contact_phone", which is read-only: choose another name) [no fix]
    "#]]
    .assert_eq(&found);
    // One fix renames every place; the others about the same name are then gone.
    let mut fixed = document.clone();
    let fix = validation.issues[1].fix.as_ref().unwrap();
    crate::apply_patch(&mut fixed, &fix.patch).unwrap();
    assert_eq!(
        fixed["variables"],
        json!({ "invoice": { "type": "string" } })
    );
    assert_eq!(fixed["steps"][0]["save"], "invoice");
    assert_eq!(fixed["steps"][0]["retryText"], "{{invoice}} is no invoice");
    assert_eq!(
        fixed["steps"][1]["cases"][0]["when"]["not"]["var"],
        "invoice"
    );
    assert_eq!(
        fixed["steps"][2]["text"],
        "Got {{invoice}}, {{ invoice }} for {{Contact_Name}}"
    );
    assert_eq!(fixed["steps"][3]["args"]["ids"][0], "{{invoice}}");
    let left: Vec<String> = validate(&fixed)
        .issues
        .into_iter()
        .map(|i| i.path)
        .collect();
    assert_eq!(
        left,
        [
            "/steps/3/save",
            "/steps/5/var",
            "/steps/6/var",
            "/steps/7/var"
        ]
    );
}

/// Another name for an enumeration's value (`greater`, `int`, `photo`, another case) and a
/// `next` where it is never taken carry fixes; once applied the document is valid.
#[test]
fn other_names_for_values_and_terminal_next_carry_fixes() {
    let document = json!({ "version": 2, "id": "fixes", "variables": { "age": { "type": "int" } },
        "trigger": { "keywords": ["hi"], "match": "StartsWith" }, "steps": [
        { "id": "q", "kind": "ask", "text": "Age?", "save": "age", "input": "integer" },
        { "id": "b", "kind": "branch", "cases": [{ "when": { "var": "age", "op": ">=", "value": 18 }, "next": "adult" }], "next": "minor" },
        { "id": "adult", "kind": "media", "media": "photo", "url": "https://example.com/a.png", "next": "bye" },
        { "id": "minor", "kind": "handoff", "queue": "guardians", "next": "bye" },
        { "id": "bye", "kind": "end", "next": "q" },
        { "id": "odd", "kind": "ask", "text": "?", "save": "x", "input": "txet" }
    ]});
    let (found, fixed) = fixes_of(&document, false);
    expect![[r#"
        /trigger/match: [Safe change "StartsWith" to "startsWith"]
        /variables/age/type: [Safe change "int" to "number"]
        /steps/0/input: [Safe change "integer" to "number"]
        /steps/1/cases/0/when/op: [Safe change ">=" to "gte"]
        /steps/1/next: [Safe rename "next" to "default"]
        /steps/2/media: [Safe change "photo" to "image"]
        /steps/3/next: [Safe remove the "next" of this handoff step, which is never taken]
        /steps/4/next: [Safe remove the "next" of this end step, which is never taken]
        /steps/5/input: [no fix]
    "#]]
    .assert_eq(&found);
    assert_eq!(
        issues(&fixed),
        "/steps/5/input: must be one of \"text\", \"number\", \"email\", \"phone\", \"date\", \"yesno\", found \"txet\" (did you mean \"text\"?)\n",
        "a spelling alone is suggested, not fixed"
    );
    assert_eq!(fixed["steps"][1]["default"], "minor");
}
