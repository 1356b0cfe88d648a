//! The runtime's behaviour, rule by rule (runtime §1–§8), and properties over generated flows:
//! same input, same result; every run stops within the limits; every transition is an edge of
//! the analyzer's graph; the text reads back into the result.

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use crate::{FlowSet, OutcomeKind, Simulation, simulate, simulation_text};

/// Simulates `documents` (the first is the bot's flow) with the simulation's JSON arguments.
fn sim(documents: &[Value], arguments: Value) -> Map<String, Value> {
    let refs: Vec<&Value> = documents.iter().collect();
    let set = FlowSet::new(&refs).unwrap_or_else(|e| panic!("{e}"));
    let simulation =
        Simulation::from_arguments(arguments.as_object().expect("object")).expect("arguments");
    let result = simulate(&set, &simulation).expect("simulation");
    // Every result reads back from its text.
    let text = simulation_text(set.entry_flow(), &result, None);
    assert_eq!(parse_text(&text), result, "{text}");
    result
}

fn flow(steps: Value) -> Value {
    json!({ "version": 2, "id": "main", "steps": steps })
}

/// The bot's sends, as compact lines (for short assertions).
fn said(result: &Map<String, Value>) -> Vec<String> {
    result["transcript"]
        .as_array()
        .expect("transcript")
        .iter()
        .filter(|e| e.get("bot").is_some())
        .map(|e| match e["bot"]["type"].as_str() {
            Some("text") => e["bot"]["text"].as_str().unwrap_or("").to_owned(),
            _ => e["bot"].to_string(),
        })
        .collect()
}

fn events(result: &Map<String, Value>, kind: &str) -> Vec<Value> {
    result["transcript"]
        .as_array()
        .expect("transcript")
        .iter()
        .filter(|e| e["event"] == kind)
        .cloned()
        .collect()
}

fn steps(result: &Map<String, Value>) -> Vec<String> {
    result["path"]
        .as_array()
        .expect("path")
        .iter()
        .map(|p| {
            format!(
                "{}/{}",
                p["flow"].as_str().unwrap_or(""),
                p["step"].as_str().unwrap_or("")
            )
        })
        .collect()
}

fn size_menu() -> Value {
    flow(json!([
        { "id": "size", "kind": "buttons", "text": "Size?", "save": "size", "buttons": [
            { "id": "small", "title": "Small" },
            { "id": "large", "title": "Large", "next": "big" }
        ]},
        { "id": "done", "kind": "end", "text": "A {{size}} one ({{last_message}})." },
        { "id": "big", "kind": "end", "text": "Big! {{size}}" }
    ]))
}

#[test]
fn a_tap_saves_the_id_and_takes_the_buttons_next() {
    let result = sim(&[size_menu()], json!({ "replies": [{ "tap": "large" }] }));
    assert_eq!(
        result["outcome"],
        json!({ "kind": "ended", "flow": "main", "step": "big" })
    );
    assert_eq!(result["variables"], json!({ "size": "large" }));
    assert_eq!(said(&result)[1], "Big! large");
    assert_eq!(
        events(&result, "save"),
        [
            json!({ "event": "save", "var": "size", "value": "large", "flow": "main", "step": "size" })
        ]
    );
}

#[test]
fn a_typed_title_picks_its_button_a_number_or_prefix_does_not() {
    let result = sim(
        &[size_menu()],
        json!({ "replies": ["1", "Sma", "  sMÁLL "] }),
    );
    // Two re-sends, then the typed title (normalized) picks `small`, whose title is the
    // last message.
    assert_eq!(events(&result, "retry").len(), 2);
    assert_eq!(said(&result).len(), 4);
    assert_eq!(said(&result)[3], "A small one (Small).");
    assert_eq!(steps(&result), ["main/size", "main/done"]);
    // A tap on an id the step does not offer picks nothing, and the bot keeps waiting.
    let result = sim(&[size_menu()], json!({ "replies": [{ "tap": "medium" }] }));
    assert_eq!(
        result["outcome"],
        json!({ "kind": "waiting", "flow": "main", "step": "size" })
    );
    assert_eq!(result["variables"], json!({}));
}

fn age_question(retries: Option<u64>) -> Value {
    let mut ask = json!({ "id": "age", "kind": "ask", "text": "Age?", "save": "age", "input": "number",
        "retryText": "A number, please.", "onFail": "agent" });
    if let Some(retries) = retries {
        ask["retries"] = json!(retries);
    }
    flow(json!([
        ask,
        { "id": "ok", "kind": "end", "text": "You are {{age}}." },
        { "id": "agent", "kind": "handoff", "queue": "people" }
    ]))
}

#[test]
fn retries_two_allows_three_answers_in_all() {
    let result = sim(
        &[age_question(None)],
        json!({ "replies": ["x", "y", "42"] }),
    );
    assert_eq!(
        said(&result),
        [
            "Age?",
            "A number, please.",
            "A number, please.",
            "You are 42."
        ]
    );
    assert_eq!(result["variables"], json!({ "age": 42 }));
    let result = sim(
        &[age_question(None)],
        json!({ "replies": ["x", "y", "z", "42"] }),
    );
    assert_eq!(
        result["outcome"],
        json!({ "kind": "handoff", "flow": "main", "step": "agent", "queue": "people" })
    );
    // The variable stays unset, and the fourth reply is left over.
    assert_eq!(result["variables"], json!({}));
    assert_eq!(
        result["warnings"][0]["message"],
        "1 reply was left over after the conversation stopped (handoff)"
    );
    let result = sim(&[age_question(Some(0))], json!({ "replies": ["x"] }));
    assert_eq!(result["outcome"]["kind"], "handoff");
    assert_eq!(events(&result, "retry"), Vec::<Value>::new());
}

#[test]
fn without_on_fail_exhausted_retries_fall_through_and_a_handoff_has_a_null_queue() {
    let document = flow(json!([
        { "id": "mail", "kind": "ask", "text": "Mail?", "save": "mail", "input": "email", "retries": 1 },
        { "id": "bye", "kind": "handoff" }
    ]));
    let result = sim(&[document], json!({ "replies": ["nope", "still no"] }));
    assert_eq!(
        result["outcome"],
        json!({ "kind": "handoff", "flow": "main", "step": "bye", "queue": null })
    );
    // Without retryText the question is asked again.
    assert_eq!(said(&result), ["Mail?", "Mail?"]);
}

#[test]
fn answers_are_parsed_by_input_kind() {
    let ask = |input: &str| {
        flow(
            json!([{ "id": "q", "kind": "ask", "text": "?", "save": "v", "input": input, "retries": 0 }]),
        )
    };
    let cases = [
        ("date", "5/1/2024", json!("2024-01-05")),
        ("number", "3,5", json!(3.5)),
        ("yesno", "Sí", json!(true)),
        ("phone", "+34 600 12 34 56", json!("+34600123456")),
        ("email", " ana@example.com ", json!("ana@example.com")),
        ("text", "  hola  ", json!("hola")),
    ];
    for (input, reply, saved) in cases {
        let result = sim(&[ask(input)], json!({ "replies": [reply] }));
        assert_eq!(result["variables"]["v"], saved, "{input} {reply}");
        assert_eq!(result["outcome"]["kind"], "ended");
    }
    // A tap sent to an ask is a text reply of its id; an empty reply is never accepted.
    let result = sim(&[ask("text")], json!({ "replies": [{ "tap": "b1" }] }));
    assert_eq!(result["variables"]["v"], "b1");
    let result = sim(&[ask("text")], json!({ "replies": ["   "] }));
    assert_eq!(result["variables"], json!({}));
}

#[test]
fn a_pattern_must_match_the_whole_reply() {
    let document = flow(json!([
        { "id": "zip", "kind": "ask", "text": "Zip?", "save": "zip", "pattern": "\\d{5}", "retries": 1 },
        { "id": "bye", "kind": "end" }
    ]));
    let result = sim(&[document], json!({ "replies": ["280101", "28010"] }));
    assert_eq!(result["variables"], json!({ "zip": "28010" }));
    assert_eq!(events(&result, "retry").len(), 1);
}

fn keyword_flows() -> Vec<Value> {
    let with = |id: &str, keywords: Value, mode: &str, fallback: bool| {
        json!({ "version": 2, "id": id,
            "trigger": { "keywords": keywords, "match": mode, "fallback": fallback },
            "steps": [{ "id": "hi", "kind": "end", "text": id }] })
    };
    vec![
        with("appointments", json!(["cita"]), "contains", false),
        with("greeting", json!(["hola"]), "startsWith", false),
        with("menu", json!(["Menú"]), "exact", false),
        with("help", json!(["ayuda"]), "exact", true),
    ]
}

#[test]
fn a_first_message_picks_the_flow_by_whole_words_and_tiers() {
    let pick = |message: &str| {
        let result = sim(&keyword_flows(), json!({ "start": { "message": message } }));
        result["outcome"]["flow"]
            .as_str()
            .unwrap_or("no-flow")
            .to_owned()
    };
    assert_eq!(pick("Quiero una cita"), "appointments");
    assert_eq!(pick("cita_hoy"), "appointments");
    // Not inside a longer word: the fallback answers.
    assert_eq!(pick("felicitaciones"), "help");
    assert_eq!(
        pick("¡Hola! felicidades"),
        "help",
        "startsWith needs the start"
    );
    assert_eq!(
        pick("hola, quiero una cita"),
        "greeting",
        "startsWith beats contains"
    );
    assert_eq!(pick("  MENU "), "menu");
    assert_eq!(pick("menu cita"), "appointments");
    let mut flows = keyword_flows();
    flows.pop();
    let result = sim(
        &flows,
        json!({ "start": { "message": "felicitaciones" }, "replies": ["a", "b"] }),
    );
    assert_eq!(
        result["outcome"],
        json!({ "kind": "no-flow", "message": "no flow's trigger matches the first message, and no flow has fallback: true" })
    );
    assert_eq!(
        result["transcript"],
        json!([{ "user": { "text": "felicitaciones" } }])
    );
    assert_eq!(
        result["warnings"][0]["message"],
        "2 replies were left over after the conversation stopped (no-flow)"
    );
}

#[test]
fn the_first_message_is_the_last_message_until_a_reply() {
    let document = json!({ "version": 2, "id": "main", "trigger": { "keywords": ["pizza"], "match": "contains" },
        "steps": [{ "id": "hi", "kind": "message", "text": "You said {{last_message}}" }] });
    let result = sim(
        &[document],
        json!({ "start": { "message": "  una pizza  " } }),
    );
    assert_eq!(said(&result), ["You said una pizza"]);
    assert_eq!(
        result["transcript"][0],
        json!({ "user": { "text": "  una pizza  " } })
    );
}

fn caller_and_subflow() -> Vec<Value> {
    vec![
        json!({ "version": 2, "id": "main", "variables": { "plan": { "type": "string", "default": "free" } }, "steps": [
            { "id": "who", "kind": "subflow", "flow": "collect" },
            { "id": "hi", "kind": "message", "text": "{{nickname}} on {{plan}} in {{flow_id}}" }
        ]}),
        json!({ "version": 2, "id": "collect", "variables": { "plan": { "type": "string", "default": "pro" } }, "steps": [
            { "id": "nick", "kind": "ask", "text": "Nickname for {{plan}} ({{flow_id}})?", "save": "nickname" },
            { "id": "done", "kind": "end" }
        ]}),
    ]
}

#[test]
fn a_subflow_shares_the_callers_variables_and_returns_to_its_successor() {
    let result = sim(&caller_and_subflow(), json!({ "replies": ["Neo"] }));
    // The caller's default wins: it was set when the conversation started.
    assert_eq!(
        said(&result),
        ["Nickname for free (collect)?", "Neo on free in main"]
    );
    assert_eq!(
        steps(&result),
        ["main/who", "collect/nick", "collect/done", "main/hi"]
    );
    assert_eq!(
        events(&result, "call"),
        [json!({ "event": "call", "to": "collect", "flow": "main", "step": "who" })]
    );
    assert_eq!(
        events(&result, "return"),
        [json!({ "event": "return", "to": "main", "flow": "collect", "step": "done" })]
    );
    // Falling off the end of the top flow right after: the last step of the path.
    assert_eq!(
        result["outcome"],
        json!({ "kind": "ended", "flow": "main", "step": "hi" })
    );
}

#[test]
fn initial_values_win_over_defaults_and_null_is_set() {
    let documents = caller_and_subflow();
    let result = sim(
        &documents,
        json!({ "variables": { "plan": null }, "replies": ["Neo"] }),
    );
    assert_eq!(said(&result)[0], "Nickname for  (collect)?");
    assert_eq!(result["variables"]["plan"], Value::Null);
    assert_eq!(
        result["warnings"][0]["message"],
        "{{plan}} is null, so it reads as \"\""
    );
    assert_eq!(
        result["warnings"][1]["message"],
        "{{plan}} is null, so it reads as \"\""
    );
}

#[test]
fn a_missing_or_too_deep_subflow_stops_with_an_error() {
    let result = sim(
        &[flow(
            json!([{ "id": "pay", "kind": "subflow", "flow": "payment" }]),
        )],
        json!({}),
    );
    assert_eq!(
        result["outcome"],
        json!({ "kind": "error", "flow": "main", "step": "pay", "message": "flow \"payment\" is not in the set, so it cannot be called" })
    );
    assert_eq!(steps(&result), ["main/pay"]);
    let recursive = flow(json!([{ "id": "again", "kind": "subflow", "flow": "main" }]));
    let result = sim(&[recursive], json!({}));
    assert_eq!(result["outcome"]["kind"], "error");
    assert_eq!(result["path"].as_array().map(Vec::len), Some(17));
    assert_eq!(events(&result, "call").len(), 16);
}

fn order_flow() -> Value {
    flow(json!([
        { "id": "quote", "kind": "action", "handler": "orders.quote", "args": { "who": "{{contact_name}}", "items": ["{{n}}", 2] }, "save": "total" },
        { "id": "again", "kind": "action", "handler": "orders.quote", "save": "total2" },
        { "id": "bye", "kind": "end", "text": "{{total}} then {{total2}}" }
    ]))
}

#[test]
fn handler_mocks_return_fail_or_are_missing() {
    let result = sim(
        &[order_flow()],
        json!({ "contact": { "name": "Ana" }, "variables": { "n": 3 },
                "handlers": { "orders.quote": { "returnsEach": [12.5, "x"] } } }),
    );
    assert_eq!(said(&result), ["12.5 then x"]);
    assert_eq!(
        events(&result, "action")[0],
        json!({ "event": "action", "handler": "orders.quote", "args": { "who": "Ana", "items": ["3", 2] },
                "result": 12.5, "flow": "main", "step": "quote" })
    );
    let result = sim(
        &[order_flow()],
        json!({ "handlers": { "orders.quote": { "fails": "timeout" } } }),
    );
    assert_eq!(
        result["outcome"],
        json!({ "kind": "handler-failed", "flow": "main", "step": "quote", "message": "timeout" })
    );
    assert!(events(&result, "action")[0].get("result").is_none());
    let result = sim(&[order_flow()], json!({}));
    assert_eq!(
        result["variables"],
        json!({ "total": null, "total2": null })
    );
    let messages: Vec<&str> = result["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .filter_map(|w| w["message"].as_str())
        .collect();
    assert_eq!(
        messages,
        [
            "{{n}} is unset, so it reads as \"\"",
            "handler \"orders.quote\" has no mock, so its result is null",
            "handler \"orders.quote\" has no mock, so its result is null",
            "{{total}} is null, so it reads as \"\"",
            "{{total2}} is null, so it reads as \"\"",
        ]
    );
}

#[test]
fn interpolation_follows_the_placeholder_rules() {
    let document = flow(json!([
        { "id": "a", "kind": "set", "var": "x", "value": 2.5 },
        { "id": "b", "kind": "set", "var": "big", "value": 1e21 },
        { "id": "c", "kind": "set", "var": "t", "value": "{{ x }}|{{{x}}}|{{X}}|{{big}}|{{x}" },
        { "id": "d", "kind": "message", "text": "{{t}} {{yes}}" },
        { "id": "e", "kind": "set", "var": "yes", "value": true },
        { "id": "f", "kind": "template", "name": "t1", "language": "en" },
        { "id": "g", "kind": "message", "text": "{{yes}}" }
    ]));
    let result = sim(&[document], json!({}));
    assert_eq!(said(&result)[0], "2.5|{2.5}|{{X}}|1e+21|{{x} ");
    assert_eq!(said(&result)[2], "true");
    assert_eq!(
        result["transcript"][1]["bot"],
        json!({ "type": "template", "name": "t1", "language": "en", "parameters": [] })
    );
}

#[test]
fn conditions_read_unset_null_numbers_and_strings_without_coercion() {
    let case = |when: Value, to: &str| json!({ "when": when, "next": to });
    let document = flow(json!([
        { "id": "check", "kind": "branch", "cases": [
            case(json!({ "var": "missing", "op": "eq", "value": null }), "one"),
        ], "default": "zero" },
        { "id": "one", "kind": "branch", "cases": [
            case(json!({ "var": "n", "op": "eq", "value": "1" }), "zero"),
            case(json!({ "var": "n", "op": "gt", "value": 0.5 }), "two"),
        ]},
        { "id": "zero", "kind": "end", "text": "wrong" },
        { "id": "two", "kind": "branch", "cases": [
            case(json!({ "all": [
                { "var": "name", "op": "contains", "value": "JOSÉ" },
                { "var": "name", "op": "matches", "value": "^Mar" },
                { "not": { "var": "missing", "op": "exists" } },
                { "var": "missing", "op": "ne", "value": 3 },
                { "var": "n", "op": "in", "value": ["x", 1.0] }
            ]}), "right"),
        ], "default": "zero" },
        { "id": "right", "kind": "end", "text": "right" }
    ]));
    let result = sim(
        &[document],
        json!({ "variables": { "n": 1, "name": "María José" } }),
    );
    assert_eq!(said(&result), ["right"]);
    assert_eq!(
        steps(&result),
        ["main/check", "main/one", "main/two", "main/right"]
    );
}

#[test]
fn delays_advance_the_clock_and_nothing_is_sent() {
    let document = flow(json!([
        { "id": "wait", "kind": "delay", "seconds": 30, "typing": true },
        { "id": "more", "kind": "delay", "seconds": 12 }
    ]));
    let result = sim(&[document], json!({}));
    assert_eq!(result["clock"], 42);
    assert_eq!(said(&result), Vec::<String>::new());
    assert_eq!(
        events(&result, "delay"),
        [
            json!({ "event": "delay", "seconds": 30, "typing": true, "flow": "main", "step": "wait" }),
            json!({ "event": "delay", "seconds": 12, "typing": false, "flow": "main", "step": "more" })
        ]
    );
    assert_eq!(
        result["outcome"],
        json!({ "kind": "ended", "flow": "main", "step": "more" })
    );
}

#[test]
fn a_bot_that_never_waits_stops_at_the_loop_limit() {
    let document = flow(json!([
        { "id": "a", "kind": "set", "var": "x", "value": 1 },
        { "id": "b", "kind": "set", "var": "y", "value": 2, "next": "a" }
    ]));
    let result = sim(&[document], json!({}));
    assert_eq!(result["path"].as_array().map(Vec::len), Some(1000));
    assert_eq!(
        result["outcome"],
        json!({ "kind": "loop", "flow": "main", "step": "a",
                "message": "1000 steps ran without waiting for a reply, so the bot would spin" })
    );
}

#[test]
fn the_simulation_limit_stops_a_long_conversation() {
    // 500 steps per reply, 1,000 replies: 100,000 steps are reached after 200 of them.
    let mut steps = vec![
        json!({ "id": "q", "kind": "buttons", "text": "Go?", "buttons": [{ "id": "go", "title": "Go" }] }),
    ];
    for i in 0..498 {
        steps.push(json!({ "id": format!("s{i}"), "kind": "set", "var": "x", "value": i }));
    }
    steps.push(json!({ "id": "back", "kind": "set", "var": "y", "value": 1, "next": "q" }));
    let document = json!({ "version": 2, "id": "main", "steps": steps });
    let replies: Vec<Value> = (0..1000).map(|_| json!({ "tap": "go" })).collect();
    let result = sim(&[document], json!({ "replies": replies }));
    assert_eq!(result["outcome"]["kind"], "loop");
    assert_eq!(
        result["outcome"]["message"],
        "the simulation ran 100000 steps, its limit"
    );
    assert_eq!(result["path"].as_array().map(Vec::len), Some(100_000));
    assert_eq!(
        result["warnings"][0]["message"],
        "800 replies were left over after the conversation stopped (loop)"
    );
}

#[test]
fn a_text_too_long_after_interpolation_stops_with_an_error() {
    let document = flow(json!([
        { "id": "a", "kind": "set", "var": "x", "value": "{{last_message}}{{last_message}}" },
        { "id": "q", "kind": "ask", "text": "Say {{x}}", "save": "y" }
    ]));
    let long = "a".repeat(40_000);
    let result = sim(
        &[document],
        json!({ "start": { "flow": "main" }, "variables": {}, "replies": [] }),
    );
    assert_eq!(result["outcome"]["kind"], "waiting");
    let document = flow(json!([
        { "id": "q", "kind": "ask", "text": "Say", "save": "y" },
        { "id": "a", "kind": "set", "var": "x", "value": "{{y}}{{y}}" }
    ]));
    let result = sim(&[document], json!({ "replies": [long] }));
    assert_eq!(
        result["outcome"],
        json!({ "kind": "error", "flow": "main", "step": "a",
                "message": "a text of this step is longer than 65536 characters after interpolation" })
    );
}

#[test]
fn caller_errors_name_the_argument() {
    let menu = size_menu();
    let bad = |arguments: Value| -> String {
        let set = FlowSet::new(&[&menu]).expect("valid");
        match Simulation::from_arguments(arguments.as_object().expect("object")) {
            Err(error) => error.to_string(),
            Ok(simulation) => match simulate(&set, &simulation) {
                Err(error) => error.to_string(),
                Ok(_) => String::new(),
            },
        }
    };
    let cases = [
        (
            json!({ "start": { "flow": "nope" } }),
            "start.flow \"nope\" is not a flow of the set (its flows: \"main\")",
        ),
        (
            json!({ "start": { "flow": "main", "message": "x" } }),
            "start must be { \"flow\": ID } or { \"message\": TEXT }, exactly one of them",
        ),
        (
            json!({ "start": {} }),
            "start must be { \"flow\": ID } or { \"message\": TEXT }, exactly one of them",
        ),
        (
            json!({ "replies": [1] }),
            "replies[0] must be a string, { \"text\": … } or { \"tap\": ID }",
        ),
        (
            json!({ "replies": ["a", { "tap": 3 }] }),
            "replies[1] must be a string, { \"text\": … } or { \"tap\": ID }",
        ),
        (
            json!({ "replies": vec!["a"; 1001] }),
            "replies has 1001 replies, more than the 1000 a simulation takes",
        ),
        (
            json!({ "handlers": { "h": { "returns": [1] } } }),
            "handlers.h.returns must be a string, number, boolean or null",
        ),
        (
            json!({ "handlers": { "h": { "returnsEach": [] } } }),
            "handlers.h.returnsEach must be a non-empty array of strings, numbers, booleans or nulls",
        ),
        (
            json!({ "handlers": { "h": { "returns": 1, "fails": "x" } } }),
            "handlers.h must be { \"returns\": VALUE }, { \"returnsEach\": [VALUE, …] } or { \"fails\": \"reason\" }, exactly one of them",
        ),
        (
            json!({ "variables": { "last_message": "x" } }),
            "variables.last_message is a built-in variable, which a simulation sets itself (use contact for contact_name and contact_phone)",
        ),
        (
            json!({ "variables": { "x": { "a": 1 } } }),
            "variables.x must be a string, number, boolean or null",
        ),
        (
            json!({ "contact": { "email": "a@b.c" } }),
            "contact has an unknown key \"email\" (accepted: \"name\", \"phone\")",
        ),
    ];
    for (arguments, message) in cases {
        assert_eq!(bad(arguments.clone()), message, "{arguments}");
    }
}

#[test]
fn the_example_flow_runs_to_its_end() {
    let example: Value =
        serde_json::from_str(botmesh_flow_schema::EXAMPLE_FLOW_DOCUMENT).expect("example");
    let result = sim(
        &[example],
        json!({
            "start": { "message": "I want a pizza" },
            "contact": { "name": "Ana" },
            "handlers": { "orders.quote": { "returns": 31.5 }, "orders.place": { "returns": "A-17" } },
            "replies": [{ "tap": "margherita" }, "Large", "Calle Mayor 5, Madrid", { "tap": "confirm" }]
        }),
    );
    assert_eq!(
        result["outcome"],
        json!({ "kind": "ended", "flow": "pizza-order", "step": "done" })
    );
    assert_eq!(result["variables"]["size"], "large");
    assert_eq!(result["variables"]["pizza"], "Margherita");
    assert_eq!(result["clock"], 3);
    assert_eq!(result["warnings"], json!([]));
    assert!(
        said(&result)
            .contains(&"Order A-17 is in the oven. Thank you, and buon appetito!".to_owned())
    );
}

// ---------------------------------------------------------------------------------------------
// The text reads back into the result.

/// Reads one JSON value at the start of `text`; answers it and the rest.
fn take_json(text: &str) -> (Value, &str) {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let value = stream.next().expect("a value").expect("JSON");
    let used = stream.byte_offset();
    (value, &text[used..])
}

fn take_place(text: &str) -> (String, String, &str) {
    let end = text.find([' ', ':', ',']).unwrap_or(text.len());
    let (place, rest) = text.split_at(end);
    let (flow, step) = place.split_once('/').expect("flow/step");
    (flow.to_owned(), step.to_owned(), rest)
}

fn take_item_id(text: &str) -> (String, &str) {
    let text = text.strip_prefix(" [").expect("[");
    if text.starts_with('"') {
        let (id, rest) = take_json(text);
        (
            id.as_str().expect("id").to_owned(),
            rest.strip_prefix(']').expect("]"),
        )
    } else {
        let end = text.find(']').expect("]");
        (text[..end].to_owned(), &text[end + 1..])
    }
}

fn take_keyed<'t>(mut rest: &'t str, keys: &[&str], object: &mut Map<String, Value>) -> &'t str {
    for key in keys {
        if let Some(after) = rest.strip_prefix(&format!(" {key}: ")) {
            let (value, more) = take_json(after);
            object.insert((*key).to_owned(), value);
            rest = more;
        }
    }
    rest
}

fn parse_bot(line: &str) -> Value {
    let (flow, step, rest) = take_place(line);
    let mut send = Map::new();
    let rest = if let Some(rest) = rest.strip_prefix(": ") {
        let (text, rest) = take_json(rest);
        send.insert("type".into(), "text".into());
        send.insert("text".into(), text);
        rest
    } else if let Some(rest) = rest.strip_prefix(" buttons: ") {
        send.insert("type".into(), "buttons".into());
        let (text, mut rest) = take_json(rest);
        send.insert("text".into(), text);
        let mut buttons = Vec::new();
        while rest.starts_with(" [") {
            let (id, after) = take_item_id(rest);
            let (title, after) = take_json(after.strip_prefix(' ').expect("space"));
            buttons.push(json!({ "id": id, "title": title }));
            rest = after;
        }
        send.insert("buttons".into(), Value::Array(buttons));
        take_keyed(rest, &["header", "footer"], &mut send)
    } else if let Some(rest) = rest.strip_prefix(" list ") {
        send.insert("type".into(), "list".into());
        let (button, rest) = take_json(rest);
        send.insert("button".into(), button);
        let (text, mut rest) = take_json(rest.strip_prefix(": ").expect(": "));
        send.insert("text".into(), text);
        let mut sections = Vec::new();
        while let Some(after) = rest.strip_prefix(" §") {
            let mut section = Map::new();
            rest = after;
            if let Some(after) = rest.strip_prefix(' ').filter(|r| r.starts_with('"')) {
                let (title, after) = take_json(after);
                section.insert("title".into(), title);
                rest = after;
            }
            let mut rows = Vec::new();
            while rest.starts_with(" [") {
                let (id, after) = take_item_id(rest);
                let (title, after) = take_json(after.strip_prefix(' ').expect("space"));
                let mut row = json!({ "id": id, "title": title });
                rest = after;
                if let Some(after) = rest.strip_prefix(" — ") {
                    let (description, after) = take_json(after);
                    row["description"] = description;
                    rest = after;
                }
                rows.push(row);
            }
            section.insert("rows".into(), Value::Array(rows));
            sections.push(Value::Object(section));
        }
        send.insert("sections".into(), Value::Array(sections));
        take_keyed(rest, &["header", "footer"], &mut send)
    } else if let Some(rest) = rest.strip_prefix(" template ") {
        send.insert("type".into(), "template".into());
        let (name, rest) = rest.split_once(" (").expect("name (");
        let (language, rest) = rest.split_once("): ").expect("language): ");
        send.insert("name".into(), name.into());
        send.insert("language".into(), language.into());
        let (parameters, rest) = take_json(rest);
        send.insert("parameters".into(), parameters);
        rest
    } else if let Some(rest) = rest.strip_prefix(" location ") {
        send.insert("type".into(), "location".into());
        let (latitude, rest) = take_json(rest);
        let (longitude, rest) = take_json(rest.strip_prefix(',').expect(","));
        send.insert("latitude".into(), latitude);
        send.insert("longitude".into(), longitude);
        take_keyed(rest, &["name", "address"], &mut send)
    } else {
        let rest = rest.strip_prefix(' ').expect("media");
        let (media, rest) = rest.split_once(' ').expect("media kind");
        send.insert("type".into(), "media".into());
        send.insert("media".into(), media.into());
        let (url, rest) = take_json(rest);
        send.insert("url".into(), url);
        take_keyed(rest, &["caption", "filename"], &mut send)
    };
    assert_eq!(rest, "", "{line}");
    json!({ "bot": send, "flow": flow, "step": step })
}

fn parse_event(line: &str) -> Value {
    let (flow, step, rest) = take_place(line);
    let rest = rest.strip_prefix(' ').expect("space");
    let (kind, rest) = rest.split_once(' ').unwrap_or((rest, ""));
    let mut event = match kind {
        "retry" => json!({ "event": "retry" }),
        "save" => {
            let (var, value) = rest.split_once(" = ").expect("=");
            json!({ "event": "save", "var": var, "value": take_json(value).0 })
        }
        "action" => {
            let (handler, rest) = rest.split_once(' ').expect("handler");
            let (args, rest) = take_json(rest);
            let mut event = json!({ "event": "action", "handler": handler, "args": args });
            if let Some(result) = rest.strip_prefix(" → ") {
                event["result"] = take_json(result).0;
            } else {
                assert_eq!(rest, " failed");
            }
            event
        }
        "delay" => {
            let (seconds, rest) = rest.split_once(" s").expect("s");
            json!({ "event": "delay", "seconds": seconds.parse::<u64>().expect("seconds"), "typing": rest == " typing" })
        }
        "call" | "return" => json!({ "event": kind, "to": rest }),
        other => panic!("event {other}"),
    };
    event["flow"] = flow.into();
    event["step"] = step.into();
    event
}

/// A path line's words with each folded run (`(a b)×3`, `a×3`) written out in full.
fn unfold_path(words: &str) -> String {
    let mut out = Vec::new();
    let mut group: Option<Vec<&str>> = None;
    for word in words.split_whitespace() {
        let word = match (&mut group, word.strip_prefix('(')) {
            (None, Some(first)) => {
                group = Some(Vec::new());
                first
            }
            _ => word,
        };
        if let Some(run) = &mut group {
            match word.split_once(")×") {
                Some((last, times)) => {
                    run.push(last);
                    let times: usize = times.parse().expect("×N");
                    assert!(times >= crate::format::FOLD_REPEATS);
                    for _ in 0..times {
                        out.extend(run.iter().map(|w| (*w).to_owned()));
                    }
                    group = None;
                }
                None => run.push(word),
            }
        } else if let Some((step, times)) = word.split_once('×') {
            let times: usize = times.parse().expect("×N");
            assert!(times >= crate::format::FOLD_REPEATS);
            out.extend(std::iter::repeat_n(step.to_owned(), times));
        } else {
            out.push(word.to_owned());
        }
    }
    assert!(group.is_none(), "an unclosed run in {words}");
    out.join(" ")
}

/// Reads a text of `simulation_text` (not cut) back into the result.
fn parse_text(text: &str) -> Map<String, Value> {
    let mut result = Map::new();
    let mut transcript = Vec::new();
    let mut warnings = Vec::new();
    let mut lines = text.lines();
    assert!(lines.next().expect("head").ends_with(": valid, no issues"));
    for line in lines {
        if let Some(rest) = line.strip_prefix("user: ") {
            transcript.push(json!({ "user": { "text": take_json(rest).0 } }));
        } else if let Some(rest) = line.strip_prefix("user taps: ") {
            transcript.push(json!({ "user": { "tap": take_json(rest).0 } }));
        } else if let Some(rest) = line.strip_prefix("bot ") {
            transcript.push(parse_bot(rest));
        } else if let Some(rest) = line.strip_prefix("· ") {
            transcript.push(parse_event(rest));
        } else if let Some(rest) = line.strip_prefix("outcome: ") {
            let (kind, mut rest) = rest.split_at(rest.find([' ', ',']).unwrap_or(rest.len()));
            let mut outcome = json!({ "kind": kind });
            if let Some(after) = rest.strip_prefix(" at ") {
                let (flow, step, after) = take_place(after);
                outcome["flow"] = flow.into();
                outcome["step"] = step.into();
                rest = after;
            }
            if let Some(after) = rest.strip_prefix(", queue ") {
                let (queue, after) = take_json(after);
                outcome["queue"] = queue;
                rest = after;
            }
            if let Some(after) = rest.strip_prefix(", message ") {
                let (message, after) = take_json(after);
                outcome["message"] = message;
                rest = after;
            }
            assert_eq!(rest, "", "{line}");
            result.insert("outcome".into(), outcome);
        } else if let Some(rest) = line
            .strip_prefix('[')
            .and_then(|r| r.strip_suffix(" times in all]"))
        {
            // `[the 2 lines above repeat 499 more times, 500 times in all]`: the entries above
            // again, that many more times.
            let (what, times) = rest.rsplit_once(", ").expect(", N times in all");
            let lines = if what.starts_with("the line above repeats ") {
                1
            } else {
                let count = what.strip_prefix("the ").expect("the N lines");
                count
                    .split_once(' ')
                    .expect("N lines")
                    .0
                    .parse::<usize>()
                    .expect("N")
            };
            let more = what.rsplit(' ').nth(2).expect("M more times");
            let more: usize = more.parse().expect("M");
            assert_eq!(more + 1, times.parse::<usize>().expect("times"), "{line}");
            assert!(more + 1 >= crate::format::FOLD_REPEATS, "{line}");
            // It follows the warnings once they have begun, else the transcript.
            let list = if warnings.is_empty() {
                &mut transcript
            } else {
                &mut warnings
            };
            let block: Vec<Value> = list[list.len() - lines..].to_vec();
            for _ in 0..more {
                list.extend(block.iter().cloned());
            }
        } else if let Some(rest) = line.strip_prefix("path (") {
            let (count, rest) = rest
                .split_once(" steps):")
                .or_else(|| rest.split_once(" step):"))
                .expect("steps");
            let rest = unfold_path(rest);
            let mut path = Vec::new();
            let mut flow = String::new();
            for word in rest.split_whitespace() {
                if let Some(name) = word.strip_prefix('[').and_then(|w| w.strip_suffix(']')) {
                    flow = name.to_owned();
                } else {
                    path.push(json!({ "flow": flow, "step": word }));
                }
            }
            assert_eq!(count.parse::<usize>().ok(), Some(path.len()));
            result.insert("path".into(), Value::Array(path));
        } else if let Some(rest) = line.strip_prefix("variables: ") {
            result.insert("variables".into(), take_json(rest).0);
        } else if let Some(rest) = line.strip_prefix("clock: ") {
            let seconds = rest.strip_suffix(" s").expect("s");
            result.insert("clock".into(), take_json(seconds).0);
        } else if let Some(rest) = line.strip_prefix("warning: ") {
            warnings.push(json!({ "message": rest }));
        } else if let Some(rest) = line.strip_prefix("warning ") {
            let (flow, step, rest) = take_place(rest);
            let message = rest.strip_prefix(": ").expect(": ");
            warnings.push(json!({ "flow": flow, "step": step, "message": message }));
        } else {
            panic!("unexpected line {line:?}");
        }
    }
    result.insert("transcript".into(), Value::Array(transcript));
    result.insert("warnings".into(), Value::Array(warnings));
    result
}

#[test]
fn a_cut_text_keeps_its_tail_and_says_what_it_left_out() {
    let document = flow(json!([
        { "id": "q", "kind": "ask", "text": "Again?", "save": "a", "next": "q" }
    ]));
    let replies: Vec<Value> = (0..1000)
        .map(|i| json!(format!("reply number {i} {}", "x".repeat(100))))
        .collect();
    let refs = [&document];
    let set = FlowSet::new(&refs).expect("valid");
    let simulation =
        Simulation::from_arguments(json!({ "replies": replies }).as_object().expect("o"))
            .expect("ok");
    let result = simulate(&set, &simulation).expect("runs");
    let text = simulation_text("main", &result, Some(100_000));
    assert!(text.chars().count() <= 100_000, "{}", text.len());
    assert!(text.contains("transcript entries left out of this text"));
    assert!(text.contains("\noutcome: waiting at main/q\n"));
    assert!(text.contains("\npath (1001 steps): [main] q×1001\n"));
    let whole = simulation_text("main", &result, None);
    assert_eq!(parse_text(&whole), result);
}

/// 500 identical rounds of a menu loop print once, then one line saying how many more times
/// they came; the path folds the same way; reading the text back gives every entry again.
#[test]
fn repeated_rounds_of_a_loop_are_folded_and_say_how_many() {
    let document = flow(json!([
        { "id": "menu", "kind": "buttons", "text": "Again?", "save": "pick",
          "buttons": [{ "id": "again", "title": "Again" }, { "id": "stop", "title": "Stop", "next": "bye" }] },
        { "id": "count", "kind": "set", "var": "n", "value": "{{pick}}", "next": "menu" },
        { "id": "bye", "kind": "end", "text": "Bye" }
    ]));
    let mut replies = vec![json!({ "tap": "again" }); 500];
    replies.push(json!("Stop"));
    let result = sim(&[document], json!({ "replies": replies }));
    let text = simulation_text("main", &result, None);
    assert!(
        text.chars().count() < 1_000,
        "{} characters:\n{text}",
        text.len()
    );
    expect_test::expect![[r#"
        flow_simulate of "main": valid, no issues
        bot main/menu buttons: "Again?" [again] "Again" [stop] "Stop"
        user taps: "again"
        · main/menu save pick = "again"
        [the 3 lines above repeat 499 more times, 500 times in all]
        bot main/menu buttons: "Again?" [again] "Again" [stop] "Stop"
        user: "Stop"
        · main/menu save pick = "stop"
        bot main/bye: "Bye"
        outcome: ended at main/bye
        path (1002 steps): [main] (menu count)×500 menu bye
        variables: {"n":"again","pick":"stop"}
        clock: 0 s
    "#]]
    .assert_eq(&text);
    // A run through a subflow that ends in another flow than it starts in names its flows.
    let caller = flow(json!([
        { "id": "go", "kind": "subflow", "flow": "sub" },
        { "id": "menu", "kind": "buttons", "text": "Again?",
          "buttons": [{ "id": "again", "title": "Again", "next": "go" }, { "id": "stop", "title": "Stop", "next": "bye" }] },
        { "id": "bye", "kind": "end" }
    ]));
    let sub = json!({ "version": 2, "id": "sub", "steps": [{ "id": "hi", "kind": "message", "text": "Hi" }] });
    let mut replies = vec![json!({ "tap": "again" }); 4];
    replies.push(json!({ "tap": "stop" }));
    let result = sim(&[caller, sub], json!({ "replies": replies }));
    let text = simulation_text("main", &result, None);
    assert!(
        text.contains("\npath (16 steps): ([main] go [sub] hi [main] menu)×5 bye\n"),
        "{text}"
    );
}

/// A loop that warns on every round folds its warnings too, and a text cut to the limit stays
/// under it even when the warnings alone would not.
#[test]
fn repeated_warnings_fold_and_a_cut_text_stays_under_the_limit() {
    let document = flow(json!([
        { "id": "ask", "kind": "ask", "text": "Hi {{nobody}}, again?", "save": "reply" },
        { "id": "say", "kind": "message", "text": "You said {{reply}} to {{nobody}}", "next": "ask" }
    ]));
    let replies: Vec<Value> = (0..1000).map(|i| json!(format!("reply {i}"))).collect();
    let result = sim(&[document], json!({ "replies": replies }));
    assert_eq!(result["warnings"].as_array().map(Vec::len), Some(2001));
    let text = simulation_text("main", &result, None);
    assert!(
        text.ends_with(
            "warning main/ask: {{nobody}} is unset, so it reads as \"\"\n\
         warning main/say: {{nobody}} is unset, so it reads as \"\"\n\
         [the 2 lines above repeat 999 more times, 1000 times in all]\n\
         warning main/ask: {{nobody}} is unset, so it reads as \"\"\n"
        ),
        "{text}"
    );
    for limit in [2_000, 10_000, 100_000] {
        let cut = simulation_text("main", &result, Some(limit));
        assert!(
            cut.chars().count() <= limit,
            "{limit}: {}",
            cut.chars().count()
        );
        assert!(cut.contains("\noutcome: waiting at main/ask\n"), "{cut}");
    }
}

// ---------------------------------------------------------------------------------------------
// Generated flows and reply scripts.

const KEYWORDS: &[&str] = &["pizza", "hola", "cita", "menú", "ayuda"];
const CONDITIONS: &[&str] = &[
    r#"{"var":"v","op":"eq","value":"T0"}"#,
    r#"{"var":"n","op":"gt","value":4}"#,
    r#"{"var":"v","op":"exists"}"#,
    r#"{"var":"last_message","op":"contains","value":"t1"}"#,
    r#"{"var":"v","op":"matches","value":"^[a-z]+$"}"#,
    r#"{"not":{"var":"n","op":"in","value":[1,2,"x"]}}"#,
    r#"{"any":[{"var":"flag","op":"eq","value":true},{"var":"n","op":"lte","value":0}]}"#,
];
const REPLIES: &[&str] = &[
    "T0",
    "t1",
    "T2",
    "yes",
    "no",
    "12",
    "-3,5",
    "2024-01-05",
    "5/13/2024",
    "a@b.co",
    "+34 600 123 456",
    "",
    "abc",
    "hola",
    "{{v}}",
];
const INPUTS: &[&str] = &["text", "number", "email", "phone", "date", "yesno"];

/// A flow of `count` steps from the choices in `picks` (each a small number), its targets
/// among its own steps; `others` are the flow ids a `subflow` step may call.
fn generated_flow(id: &str, picks: &[(u8, u8, u8)], others: &[&str], trigger: (u8, u8)) -> Value {
    let count = picks.len();
    let step_id = |i: usize| format!("s{}", i % count.max(1));
    let mut steps = Vec::new();
    for (i, &(kind, a, b)) in picks.iter().enumerate() {
        let to = step_id(usize::from(a));
        let mut step = match kind % 14 {
            0 => json!({ "kind": "message", "text": format!("m{i} {{{{v}}}} {{{{n}}}}") }),
            1 => {
                json!({ "kind": "buttons", "text": "Pick", "buttons": (0..=usize::from(b % 3)).map(|k| {
                    let mut button = json!({ "id": format!("b{k}"), "title": format!("T{k}") });
                    if a.wrapping_add(k as u8).is_multiple_of(2) { button["next"] = json!(step_id(usize::from(a) + k)); }
                    button
                }).collect::<Vec<_>>() })
            }
            2 => {
                json!({ "kind": "list", "text": "Rows", "button": "Open", "save": "v", "sections": [
                    { "title": "S", "rows": [{ "id": "r0", "title": "T0", "next": to }, { "id": "r1", "title": "t1" }] },
                    { "rows": [{ "id": "r2", "title": "T2", "description": "d" }] }] })
            }
            3 => {
                let input = INPUTS[usize::from(b) % INPUTS.len()];
                let mut ask = json!({ "kind": "ask", "text": "Q {{v}}", "save": if input == "number" { "n" } else { "v" },
                    "input": input, "retries": b % 3 });
                if a % 2 == 0 {
                    ask["onFail"] = json!(to);
                }
                if input == "text" && b % 4 == 0 {
                    ask["pattern"] = json!("^[a-z]+$");
                }
                if b % 5 == 0 {
                    ask["retryText"] = json!("Again {{last_message}}");
                }
                ask
            }
            4 => {
                let cases: Vec<Value> = (0..=usize::from(b % 3)).map(|k| json!({
                    "when": serde_json::from_str::<Value>(CONDITIONS[(usize::from(a) + k) % CONDITIONS.len()]).unwrap_or(Value::Null),
                    "next": step_id(usize::from(a) + 2 * k + 1) })).collect();
                let mut branch = json!({ "kind": "branch", "cases": cases });
                if b % 2 == 0 {
                    branch["default"] = json!(to);
                }
                branch
            }
            5 => json!({ "kind": "set", "var": "n", "value": i64::from(a % 7) }),
            6 => json!({ "kind": "set", "var": "v", "value": "x{{n}}" }),
            7 => json!({ "kind": "delay", "seconds": 1 + u64::from(b % 5), "typing": a % 2 == 0 }),
            8 => json!({ "kind": "action", "handler": if b % 2 == 0 { "h.a" } else { "h.b" },
                    "args": { "v": "{{v}}", "list": ["{{n}}", 1] }, "save": "flag" }),
            9 => {
                json!({ "kind": "subflow", "flow": others.get(usize::from(b) % (others.len() + 1)).copied().unwrap_or("missing") })
            }
            10 => json!({ "kind": "handoff", "queue": "q" }),
            11 => json!({ "kind": "end", "text": "bye {{v}}" }),
            12 => {
                json!({ "kind": "template", "name": "tpl", "language": "es", "parameters": ["{{v}}"] })
            }
            _ => {
                json!({ "kind": "media", "media": "image", "url": "https://x.example/a.png", "caption": "c {{n}}" })
            }
        };
        step["id"] = json!(step_id(i));
        if !matches!(kind % 14, 4 | 10 | 11) && a % 3 == 0 {
            step["next"] = json!(to);
        }
        steps.push(step);
    }
    let mut document = json!({ "version": 2, "id": id, "steps": steps,
        "variables": { "n": { "type": "number", "default": 1 } } });
    if !trigger.0.is_multiple_of(3) {
        let mode = ["exact", "contains", "startsWith"][usize::from(trigger.1 % 3)];
        document["trigger"] = json!({
            "keywords": [KEYWORDS[usize::from(trigger.0) % KEYWORDS.len()]],
            "match": mode, "fallback": trigger.1.is_multiple_of(4) });
    }
    document
}

type Picks = Vec<(u8, u8, u8)>;

pub(crate) fn flow_set() -> impl Strategy<Value = Vec<Value>> {
    let picks = || proptest::collection::vec((any::<u8>(), any::<u8>(), any::<u8>()), 1..12);
    (
        picks(),
        proptest::collection::vec(picks(), 0..3),
        any::<(u8, u8)>(),
        any::<(u8, u8)>(),
    )
        .prop_map(
            |(main, subs, t0, t1): (Picks, Vec<Picks>, (u8, u8), (u8, u8))| {
                let ids: Vec<String> = (0..subs.len()).map(|i| format!("sub{i}")).collect();
                let mut others: Vec<&str> = ids.iter().map(String::as_str).collect();
                others.push("main");
                let mut set = vec![generated_flow("main", &main, &others, t0)];
                for (i, picks) in subs.iter().enumerate() {
                    set.push(generated_flow(&ids[i], picks, &others, t1));
                }
                set
            },
        )
}

fn arguments() -> impl Strategy<Value = Value> {
    let reply = (any::<u8>(), any::<bool>()).prop_map(|(i, tap)| {
        let text = REPLIES[usize::from(i) % REPLIES.len()];
        if tap {
            let id = ["b0", "b1", "b2", "r0", "r1", "r2", "zz"][usize::from(i) % 7];
            json!({ "tap": id })
        } else {
            json!(text)
        }
    });
    (proptest::collection::vec(reply, 0..40), any::<u8>(), any::<u8>()).prop_map(|(replies, start, mocks)| {
        let mut arguments = json!({ "replies": replies });
        match start % 3 {
            0 => {}
            1 => arguments["start"] = json!({ "message": format!("una {}", KEYWORDS[usize::from(start) % KEYWORDS.len()]) }),
            _ => arguments["start"] = json!({ "message": "nothing matches this" }),
        }
        arguments["handlers"] = match mocks % 4 {
            0 => json!({}),
            1 => json!({ "h.a": { "returns": true }, "h.b": { "returnsEach": [false, "x", 3] } }),
            2 => json!({ "h.a": { "fails": "down" } }),
            _ => json!({ "h.b": { "returns": null } }),
        };
        arguments
    })
}

/// Checks that every transition is an edge of the analyzer's graph and that the transitions
/// are the path: each one that leads to a step leads to the next step of the path.
fn check_against_graph(
    documents: &[Value],
    conversation: &crate::Conversation<'_>,
) -> Result<(), TestCaseError> {
    let refs: Vec<&Value> = documents.iter().collect();
    let graph = botmesh_flow_analyzer::describe(&refs);
    let set = conversation.set();
    let flow_ids: Vec<&str> = set.flow_ids().collect();
    let step_id = |flow: usize, step: usize| set.step_ids(flow).nth(step).unwrap_or("").to_owned();
    let path: Vec<(usize, usize)> = conversation.path().collect();
    let mut next_in_path = 1;
    for transition in conversation.transitions() {
        let flow_graph = &graph.flows[transition.flow];
        let from = step_id(transition.flow, transition.from);
        let (to_flow, to) = match (transition.to_flow, transition.to) {
            (Some(called), _) => (called, step_id(called, 0)),
            (None, Some(step)) => (transition.flow, step_id(transition.flow, step)),
            (None, None) => (
                transition.flow,
                botmesh_flow_analyzer::IMPLICIT_END.to_owned(),
            ),
        };
        let same_kind: Vec<_> = flow_graph
            .edges
            .iter()
            .filter(|e| e.from == from && e.kind.as_str() == transition.kind.as_str())
            .collect();
        let position = match transition.kind {
            crate::EdgeKind::Button(i) | crate::EdgeKind::Row(i) | crate::EdgeKind::Case(i) => i,
            _ => 0,
        };
        let edge = same_kind.get(position);
        prop_assert!(
            edge.is_some(),
            "no {:?} edge from {from} in {}",
            transition.kind,
            flow_graph.id
        );
        let edge = edge.expect("checked");
        prop_assert_eq!(edge.to, to.as_str(), "{:?}", transition);
        if transition.kind == crate::EdgeKind::Call {
            prop_assert_eq!(edge.to_flow, Some(flow_ids[to_flow]));
        }
        if to != botmesh_flow_analyzer::IMPLICIT_END {
            let target = (
                to_flow,
                if transition.to_flow.is_some() {
                    0
                } else {
                    transition.to.unwrap_or(0)
                },
            );
            match path.get(next_in_path) {
                Some(&step) => {
                    prop_assert_eq!(step, target, "transition {:?}", transition);
                    next_in_path += 1;
                }
                // Only a loop stop leaves a transition without its step run.
                None => prop_assert_eq!(conversation.outcome().kind, OutcomeKind::Loop),
            }
        }
    }
    prop_assert_eq!(
        next_in_path.min(path.len()),
        path.len(),
        "every step after the first was reached by a transition"
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, rng_seed: proptest::test_runner::RngSeed::Fixed(25), ..ProptestConfig::default() })]

    #[test]
    fn generated_conversations_are_deterministic_bounded_and_follow_the_graph(documents in flow_set(), arguments in arguments()) {
        let refs: Vec<&Value> = documents.iter().collect();
        let Ok(set) = FlowSet::new(&refs) else {
            // Generated targets can name an id twice in one set only by construction bugs.
            return Err(TestCaseError::reject("invalid"));
        };
        let simulation = Simulation::from_arguments(arguments.as_object().expect("object")).expect("arguments");
        let conversation = crate::run(&set, &simulation).expect("runs");
        let result = conversation.result_json();
        // Same input, same result.
        let again = simulate(&set, &simulation).expect("runs");
        prop_assert_eq!(&result, &again);
        prop_assert!(OutcomeKind::ALL.iter().any(|k| k.as_str() == result["outcome"]["kind"]));
        prop_assert!(conversation.path().count() <= crate::MAX_SIMULATION_STEPS);
        check_against_graph(&documents, &conversation)?;
        let text = simulation_text(set.entry_flow(), &result, None);
        prop_assert_eq!(parse_text(&text), result);
    }
}
