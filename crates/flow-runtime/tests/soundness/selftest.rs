//! The harness's own pieces on hand-written cases, independent of what lint says: a harness
//! whose oracle read nothing would pass every engine.

use serde_json::{Value, json};

use crate::classify::{retarget, with_probe};
use crate::oracle::{Missing, Read, Run, empty_reads, held, is_entry, placeholders, simulate_docs};

#[test]
fn placeholders_are_found_as_runtime_spec_5_says() {
    let names = |text: &str| -> Vec<(usize, usize, String)> { placeholders(text) };
    assert_eq!(names("{{x}}"), [(0, 5, "x".to_owned())]);
    assert_eq!(names("{{ total  }}"), [(0, 12, "total".to_owned())]);
    // Leftmost first: `{{{x}}}` is `{` + x + `}`.
    assert_eq!(names("{{{x}}}"), [(1, 6, "x".to_owned())]);
    assert_eq!(names("{{x}}}"), [(0, 5, "x".to_owned())]);
    assert_eq!(names("{{ {{x}} }}"), [(3, 8, "x".to_owned())]);
    assert_eq!(names("{{a{{b}}}}"), [(3, 8, "b".to_owned())]);
    for none in [
        "{{}}", "{{X}}", "{{ x}", "{{\tx}}", "{{x.y}}", "{{ñ}}", "{x}",
    ] {
        assert!(names(none).is_empty(), "{none}");
    }
    let long = "a".repeat(65);
    assert!(names(&format!("{{{{{long}}}}}")).is_empty());
}

fn set() -> Vec<Value> {
    vec![
        json!({ "version": 2, "id": "main", "variables": { "email": { "type": "string" } }, "steps": [
            { "id": "ask", "kind": "ask", "text": "Email?", "save": "email", "input": "email", "retries": 0 },
            { "id": "bye", "kind": "end", "text": "We will write to {{ email }}." }
        ]}),
        json!({ "version": 2, "id": "inner", "trigger": { "fallback": false }, "steps": [
            { "id": "hi", "kind": "message", "text": "{{email}}" }
        ]}),
        json!({ "version": 2, "id": "help", "trigger": { "keywords": ["help"] }, "steps": [
            { "id": "null", "kind": "set", "var": "email", "value": null },
            { "id": "hi", "kind": "message", "text": "{{email}}" }
        ]}),
    ]
}

fn reads(run: &Run) -> Vec<Read> {
    let docs = set();
    let result = simulate_docs(&docs, run).expect("a valid set and run");
    empty_reads(&docs, run, &result).expect("readable warnings")
}

fn read(flow: &str, step: &str, missing: Missing) -> Read {
    Read {
        flow: flow.to_owned(),
        step: step.to_owned(),
        var: "email".to_owned(),
        missing,
    }
}

#[test]
fn a_run_gives_each_empty_read_with_its_flow_step_and_cause() {
    // A voice note (the empty reply) exhausts the ask; the end reads `email` unset.
    let run = Run {
        replies: vec![json!("")],
        ..Run::default()
    };
    assert!(held(&set(), &run));
    assert_eq!(reads(&run), [read("main", "bye", Missing::Unset)]);
    // An accepted answer: nothing is empty.
    let run = Run {
        replies: vec![json!("ana@example.com")],
        ..Run::default()
    };
    assert_eq!(reads(&run), []);
    // A variable the caller passed in is not the document's to write.
    let mut run = Run {
        replies: vec![json!("")],
        ..Run::default()
    };
    run.variables.insert("email".into(), Value::Null);
    assert_eq!(reads(&run), []);
    // A null the document set is held; so is the flow a keyword starts.
    let run = Run {
        start: Some(json!({ "message": "HELP" })),
        ..Run::default()
    };
    assert!(held(&set(), &run));
    assert_eq!(reads(&run), [read("help", "hi", Missing::NullSet)]);
}

#[test]
fn only_runs_that_start_at_an_entry_are_held() {
    let docs = set();
    assert!(is_entry(&docs, "main"));
    assert!(is_entry(&docs, "help"));
    // A trigger without keywords or `fallback: true` starts nothing.
    assert!(!is_entry(&docs, "inner"));
    let run = Run {
        start: Some(json!({ "flow": "inner" })),
        ..Run::default()
    };
    assert!(!held(&docs, &run));
    assert_eq!(reads(&run), [read("inner", "hi", Missing::Unset)]);
    let run = Run {
        start: Some(json!({ "flow": "help" })),
        ..Run::default()
    };
    assert!(held(&docs, &run));
}

#[test]
fn the_probe_takes_every_edge_into_the_step() {
    let docs = vec![json!({ "version": 2, "id": "main", "steps": [
        { "id": "menu", "kind": "buttons", "text": "?", "buttons": [{ "id": "a", "title": "A", "next": "x" }], "next": "x" },
        { "id": "if", "kind": "branch", "cases": [{ "when": { "var": "v", "op": "exists" }, "next": "x" }], "default": "x" },
        { "id": "x", "kind": "message", "text": "{{v}}" }
    ]})];
    let (probed, probe) = with_probe(&docs, 0, 2, "v");
    assert_eq!(probe, "probe1");
    let steps = &probed[0]["steps"];
    assert_eq!(steps[0]["next"], "probe1");
    assert_eq!(steps[0]["buttons"][0]["next"], "probe1");
    assert_eq!(steps[1]["cases"][0]["next"], "probe1");
    assert_eq!(steps[1]["default"], "probe1");
    assert_eq!(
        steps[2],
        json!({ "id": "probe1", "kind": "message", "text": "{{v}}", "next": "x" })
    );
    let mut step = json!({ "id": "l", "kind": "list", "text": "?", "button": "b",
        "sections": [{ "rows": [{ "id": "r", "title": "R", "next": "x" }] }] });
    retarget(&mut step, &json!("x"), &json!("y"));
    assert_eq!(step["sections"][0]["rows"][0]["next"], "y");
}
