//! The compiled form: targets, edges and their effects, interpolated fields and their
//! pointers, reads, entry flows.

use serde_json::{Value, json};

use super::*;
use crate::validate;

fn valid(document: Value) -> Value {
    let validation = validate(&document);
    assert!(validation.valid, "{:?}", validation.issues);
    document
}

fn edges_of(flow: &Flow<'_>, step: usize) -> Vec<String> {
    flow.edges(step)
        .iter()
        .map(|e| {
            let to = match e.to {
                Target::Step(i) => flow.steps[i].id.to_owned(),
                Target::End => "(end)".to_owned(),
            };
            let effect = match &e.effect {
                Effect::None => String::new(),
                Effect::Write(v) => format!(" writes {v}"),
                Effect::Clear(v) => format!(" clears {v}"),
                Effect::Guard(names) => format!(" guards {}", names.join(",")),
                Effect::Return(callee) => format!(" returns from {callee:?}"),
            };
            let hidden = if e.drawn { "" } else { " (not drawn)" };
            format!("{} {}→{to}{effect}{hidden}", e.kind.as_str(), e.index)
        })
        .collect()
}

#[test]
fn every_ask_can_run_out_of_retries_and_then_writes_nothing() {
    let document = valid(json!({ "version": 2, "id": "f", "steps": [
        { "id": "a", "kind": "ask", "text": "Email?", "save": "email", "input": "email" },
        { "id": "b", "kind": "ask", "text": "Name?", "save": "name", "onFail": "d", "next": "d" },
        { "id": "c", "kind": "message", "text": "x" },
        { "id": "d", "kind": "end" }
    ]}));
    let program = Program::compile(&[&document]);
    let flow = &program.flows[0];
    assert_eq!(
        edges_of(flow, 0),
        ["next 0→b writes email", "next 0→b (not drawn)"]
    );
    assert_eq!(
        edges_of(flow, 1),
        ["next 0→d writes name", "retry-exhausted 0→d"]
    );
    assert_eq!(edges_of(flow, 3), Vec::<String>::new());
    let Body::Ask(ask) = &flow.steps[0].body else {
        panic!("an ask")
    };
    assert_eq!(
        (ask.retries, ask.input, ask.on_fail),
        (2, InputKind::Email, None)
    );
}

#[test]
fn menus_branches_sets_actions_and_subflows_say_what_they_write() {
    let main = valid(json!({ "version": 2, "id": "main", "steps": [
        { "id": "m", "kind": "buttons", "text": "Pick", "save": "size", "buttons": [
            { "id": "s", "title": "Small", "next": "l" }, { "id": "b", "title": "Big" } ] },
        { "id": "l", "kind": "list", "text": "Rows", "button": "Open", "sections": [
            { "title": "A", "rows": [{ "id": "r1", "title": "One" }] },
            { "rows": [{ "id": "r2", "title": "Two", "description": "2", "next": "m" }] } ] },
        { "id": "br", "kind": "branch", "cases": [
            { "when": { "all": [{ "var": "a", "op": "gt", "value": 1 }, { "var": "b", "op": "ne", "value": null }] }, "next": "m" },
            { "when": { "any": [{ "var": "a", "op": "exists" }, { "all": [{ "var": "a", "op": "eq", "value": 2 }, { "var": "c", "op": "in", "value": [1] }] }] }, "next": "m" },
            { "when": { "not": { "var": "d", "op": "exists" } }, "next": "m" },
            { "when": { "var": "e", "op": "eq", "value": null }, "next": "m" },
            { "when": { "var": "f", "op": "ne", "value": "x" }, "next": "m" }
        ] },
        { "id": "s1", "kind": "set", "var": "x", "value": null },
        { "id": "s2", "kind": "set", "var": "y", "value": "{{x}}" },
        { "id": "act", "kind": "action", "handler": "h", "save": "r" },
        { "id": "call", "kind": "subflow", "flow": "sub" },
        { "id": "gone", "kind": "subflow", "flow": "missing", "next": "m" }
    ]}));
    let sub = valid(json!({ "version": 2, "id": "sub", "steps": [{ "id": "x", "kind": "end" }] }));
    let program = Program::compile(&[&main, &sub]);
    let flow = &program.flows[0];
    assert_eq!(
        edges_of(flow, 0),
        ["button 0→l writes size", "button 1→l writes size"]
    );
    assert_eq!(edges_of(flow, 1), ["row 0→br", "row 1→m"]);
    assert_eq!(
        edges_of(flow, 2),
        [
            "case 0→m guards a,b",
            "case 1→m guards a",
            "case 2→m",
            "case 3→m",
            "case 4→m",
            "default 0→s1"
        ]
    );
    assert_eq!(edges_of(flow, 3), ["next 0→s2 clears x"]);
    assert_eq!(edges_of(flow, 4), ["next 0→act writes y"]);
    assert_eq!(edges_of(flow, 5), ["next 0→call writes r"]);
    assert_eq!(edges_of(flow, 6), ["return 0→gone returns from Some(1)"]);
    assert_eq!(edges_of(flow, 7), ["return 0→m returns from None"]);
    assert!(!flow.falls_off);
    assert!(!program.flows[1].falls_off);
    let Body::Menu(list) = &flow.steps[1].body else {
        panic!("a menu")
    };
    assert_eq!(list.sections[1].rows, 1..2);
    assert_eq!(list.items[1].description, Some("2"));
}

#[test]
fn targets_resolve_to_steps_or_the_end() {
    let document = valid(json!({ "version": 2, "id": "f", "steps": [
        { "id": "a", "kind": "message", "text": "1", "next": "c" },
        { "id": "b", "kind": "branch", "cases": [{ "when": { "var": "v", "op": "exists" }, "next": "a" }] },
        { "id": "c", "kind": "delay", "seconds": 2.0 }
    ]}));
    let program = Program::compile(&[&document]);
    let flow = &program.flows[0];
    assert_eq!(flow.steps[0].successor, Target::Step(2));
    assert_eq!(flow.steps[1].successor, Target::Step(2));
    assert_eq!(flow.steps[2].successor, Target::End);
    assert_eq!(edges_of(flow, 1), ["case 0→a guards v", "default 0→c"]);
    assert!(flow.falls_off);
    assert!(matches!(flow.steps[2].body, Body::Delay { seconds: 2, .. }));
}

#[test]
fn every_interpolated_field_is_scanned_and_has_its_pointer() {
    let document = valid(json!({ "version": 2, "id": "f", "steps": [
        { "id": "a", "kind": "ask", "text": "{{ q }}", "save": "v", "retryText": "Again {{{r}}}" },
        { "id": "m", "kind": "media", "media": "image", "url": "https://x.example/a.png", "caption": "{{c}}" },
        { "id": "t", "kind": "template", "name": "t", "language": "en", "parameters": ["x", "{{p}}"] },
        { "id": "s", "kind": "set", "var": "w", "value": "{{s}}" },
        { "id": "act", "kind": "action", "handler": "h", "args": {
            "a/b": "{{k1}}", "n": 1, "list": ["{{k2}}", { "deep": "{{k3}} {{k3}}" }] } },
        { "id": "h", "kind": "handoff", "text": "{{h}}" }
    ]}));
    let program = Program::compile(&[&document]);
    let flow = &program.flows[0];
    let mut seen = Vec::new();
    for (index, step) in flow.steps.iter().enumerate() {
        step.for_each_read(|read| {
            seen.push(format!("{} {}", read.name, read.at.pointer(index, step)));
        });
    }
    assert_eq!(
        seen,
        [
            "q /steps/0/text",
            "r /steps/0/retryText",
            "c /steps/1/caption",
            "p /steps/2/parameters/1",
            "s /steps/3/value",
            "k1 /steps/4/args/a~1b",
            "k2 /steps/4/args/list/0",
            "k3 /steps/4/args/list/1/deep",
            "k3 /steps/4/args/list/1/deep",
            "h /steps/5/text",
        ]
    );
    for (pointer, expected) in seen.iter().map(|s| s.split_once(' ').map(|(_, p)| p)).zip([
        "{{ q }}",
        "Again {{{r}}}",
        "{{c}}",
        "{{p}}",
        "{{s}}",
        "{{k1}}",
        "{{k2}}",
        "{{k3}} {{k3}}",
    ]) {
        assert_eq!(
            document.pointer(pointer.unwrap_or("")),
            Some(&json!(expected))
        );
    }
}

#[test]
fn condition_reads_point_at_their_leaf() {
    let document = valid(json!({ "version": 2, "id": "f", "steps": [
        { "id": "b", "kind": "branch", "cases": [
            { "when": { "var": "a", "op": "exists" }, "next": "b" },
            { "when": { "any": [{ "var": "b", "op": "lt", "value": 1 }, { "not": { "all": [{ "var": "c", "op": "eq", "value": 1 }, { "var": "d", "op": "matches", "value": "^x" }] } }] }, "next": "b" }
        ] }
    ]}));
    let program = Program::compile(&[&document]);
    let step = &program.flows[0].steps[0];
    let mut seen = Vec::new();
    step.for_each_read(|read| {
        let pointer = read.at.pointer(0, step);
        assert_eq!(
            document.pointer(&pointer),
            Some(&json!(read.name)),
            "{pointer}"
        );
        seen.push(pointer);
    });
    assert_eq!(
        seen,
        [
            "/steps/0/cases/0/when/var",
            "/steps/0/cases/1/when/any/0/var",
            "/steps/0/cases/1/when/any/1/not/all/0/var",
            "/steps/0/cases/1/when/any/1/not/all/1/var",
        ]
    );
    assert_eq!(
        program.patterns,
        [PatternRef {
            text: "^x",
            index: 0,
            whole: false
        }]
    );
}

#[test]
fn conditions_compare_by_value() {
    let document = valid(json!({ "version": 2, "id": "f", "steps": [
        { "id": "b", "kind": "branch", "cases": [
            { "when": { "var": "a", "op": "in", "value": [1, "x", null] }, "next": "b" },
            { "when": { "var": "a", "op": "in", "value": [1.0, "x", null] }, "next": "b" },
            { "when": { "var": "a", "op": "in", "value": ["x", 1, null] }, "next": "b" },
            { "when": { "all": [{ "var": "a", "op": "lt", "value": 2 }] }, "next": "b" },
            { "when": { "all": [{ "var": "a", "op": "lt", "value": 2e0 }] }, "next": "b" },
            { "when": { "any": [{ "var": "a", "op": "lt", "value": 2 }] }, "next": "b" }
        ] }
    ]}));
    let program = Program::compile(&[&document]);
    let Body::Branch { cases, .. } = &program.flows[0].steps[0].body else {
        panic!("a branch")
    };
    let same = |a: usize, b: usize| cases[a].when.same(&cases[b].when);
    assert!(same(0, 1));
    assert!(!same(0, 2));
    assert!(same(3, 4));
    assert!(!same(3, 5));
}

#[test]
fn entry_flows_are_the_document_and_the_triggered_ones() {
    let flow = |id: &str, trigger: Option<Value>| {
        let mut document =
            json!({ "version": 2, "id": id, "steps": [{ "id": "a", "kind": "end" }] });
        if let Some(trigger) = trigger {
            document["trigger"] = trigger;
        }
        valid(document)
    };
    let documents = [
        flow("main", None),
        flow("called", None),
        flow("keyword", Some(json!({ "keywords": ["Menú"] }))),
        flow("fallback", Some(json!({ "fallback": true }))),
        flow("not_fallback", Some(json!({ "fallback": false }))),
    ];
    let refs: Vec<&Value> = documents.iter().collect();
    let program = Program::compile(&refs);
    let entries: Vec<bool> = program.flows.iter().map(|f| f.entry).collect();
    assert_eq!(entries, [true, false, true, true, false]);
    let trigger = program.flows[2].trigger.as_ref().map(|t| &t.keywords[0]);
    assert_eq!(trigger.map(|k| k.normalized.as_str()), Some("menu"));
    assert_eq!(program.flow_index("fallback"), Some(3));
}

#[test]
fn declarations_keep_their_defaults() {
    let document = valid(json!({ "version": 2, "id": "f",
        "variables": { "a": { "type": "number", "default": 2 }, "b": { "type": "string" } },
        "steps": [{ "id": "x", "kind": "end" }] }));
    let program = Program::compile(&[&document]);
    let flow = &program.flows[0];
    assert_eq!(
        flow.declaration("a").map(|d| d.default),
        Some(Some(Literal::Number(2.0)))
    );
    assert_eq!(
        flow.declaration("b").map(|d| (d.kind, d.default)),
        Some(("string", None))
    );
}

#[test]
fn anything_compiles_without_a_panic() {
    for document in [
        json!(null),
        json!({ "steps": 3 }),
        json!({ "steps": [1, "x", { "kind": "branch", "cases": [{ "when": 5 }] }, { "kind": "nope", "next": "zz" }] }),
        json!({ "steps": [{ "kind": "action", "args": [1] }, { "kind": "list", "sections": [{ "rows": 2 }] }] }),
        json!({ "trigger": { "keywords": [1, "a"] }, "variables": { "x": 1 }, "steps": [] }),
    ] {
        let program = Program::compile(&[&document, &document]);
        assert_eq!(program.flows.len(), 2);
    }
}
