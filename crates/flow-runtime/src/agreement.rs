//! Lint against the runtime: on generated sets with hostile placeholders and random replies,
//! every `{{v}} is unset` (or null) warning of a run is a finding of lint for `v` at that flow
//! and step (runtime §2 "Entry flows": runs start at an entry and the caller passes no
//! variables; every handler is mocked with a value), and every fix `flow_fix` applies without
//! being asked for unsafe ones leaves a valid set as it was. Both engines read the set through
//! `botmesh-flow-schema`'s compiled form; this checks they agree on what it means.

use proptest::prelude::*;
use serde_json::{Value, json};

use crate::{FlowSet, Simulation, run};

/// A small deterministic generator (xorshift64*), so one `u64` makes one case.
struct Dice(u64);

impl Dice {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, in_ten: usize) -> bool {
        self.below(10) < in_ten
    }

    fn pick<'t>(&mut self, items: &[&'t str]) -> &'t str {
        items[self.below(items.len())]
    }
}

const VARS: &[&str] = &["a", "b", "c", "d"];

/// Texts as authors (and hostile ones) write them: spaces inside the braces, braces around
/// them, built-ins, malformed ones that read nothing.
const TEXTS: &[&str] = &[
    "Hi {{a}}",
    "{{ b }} and {{c}}",
    "{{{c}}}",
    "{{d }}!",
    "x{{  a}}y{{b}}",
    "{{A}} {{a",
    "}}{{b}}{{",
    "no placeholder",
    "{{contact_name}} {{last_message}}",
    "{{{{d}}}}",
    "{{ a b }} {{b}}",
];

fn text(dice: &mut Dice) -> Value {
    json!(dice.pick(TEXTS))
}

fn condition(dice: &mut Dice, depth: usize) -> Value {
    let var = dice.pick(VARS);
    match dice.below(if depth > 1 { 6 } else { 9 }) {
        0 => json!({ "var": var, "op": "exists" }),
        1 => json!({ "var": var, "op": "eq", "value": null }),
        2 => json!({ "var": var, "op": "ne", "value": null }),
        3 => json!({ "var": var, "op": "eq", "value": "hello" }),
        4 => json!({ "var": var, "op": "gt", "value": 2 }),
        5 => json!({ "var": var, "op": "ne", "value": "x" }),
        6 => json!({ "all": [condition(dice, depth + 1), condition(dice, depth + 1)] }),
        7 => json!({ "any": [condition(dice, depth + 1), condition(dice, depth + 1)] }),
        _ => json!({ "not": condition(dice, depth + 1) }),
    }
}

/// A flow of a few steps; `others` are the flows its `subflow` steps may call.
fn flow(dice: &mut Dice, id: &str, others: &[&str], entry: bool) -> Value {
    let count = 2 + dice.below(8);
    let target = |dice: &mut Dice| format!("s{}", dice.below(count));
    let mut steps = Vec::new();
    for i in 0..count {
        let mut step = match dice.below(14) {
            0 | 1 => json!({ "kind": "message", "text": text(dice) }),
            2 | 3 => {
                let inputs = ["text", "number", "yesno", "email"];
                let input = inputs[dice.below(inputs.len())];
                let mut ask = json!({ "kind": "ask", "text": text(dice), "save": dice.pick(VARS),
                    "input": input, "retries": dice.below(3) });
                if dice.chance(4) {
                    ask["onFail"] = json!(target(dice));
                }
                if dice.chance(3) {
                    ask["retryText"] = text(dice);
                }
                if input == "text" && dice.chance(3) {
                    ask["pattern"] = json!("^[a-z]+$");
                }
                ask
            }
            4 => {
                let mut menu = json!({ "kind": "buttons", "text": text(dice), "buttons": [
                    { "id": "b0", "title": "Zero", "next": target(dice) }, { "id": "b1", "title": "One" }] });
                if dice.chance(5) {
                    menu["save"] = json!(dice.pick(VARS));
                }
                menu
            }
            5 => {
                let cases: Vec<Value> = (0..1 + dice.below(2))
                    .map(|_| json!({ "when": condition(dice, 0), "next": target(dice) }))
                    .collect();
                let mut branch = json!({ "kind": "branch", "cases": cases });
                if dice.chance(5) {
                    branch["default"] = json!(target(dice));
                }
                branch
            }
            6 => {
                let value = match dice.below(4) {
                    0 => Value::Null,
                    1 => json!(3),
                    _ => text(dice),
                };
                json!({ "kind": "set", "var": dice.pick(VARS), "value": value })
            }
            7 => {
                let mut action = json!({ "kind": "action", "handler": "h",
                    "args": { "x": text(dice), "list": [text(dice), { "deep": text(dice) }, 1] } });
                if dice.chance(5) {
                    action["save"] = json!(dice.pick(VARS));
                }
                action
            }
            8 if !others.is_empty() => {
                json!({ "kind": "subflow", "flow": others[dice.below(others.len())] })
            }
            9 => json!({ "kind": "end", "text": text(dice) }),
            10 => json!({ "kind": "handoff", "text": text(dice) }),
            11 => json!({ "kind": "template", "name": "t", "language": "en",
                "parameters": [text(dice), text(dice)] }),
            12 => json!({ "kind": "media", "media": "image", "url": "https://x.example/a.png",
                "caption": text(dice) }),
            _ => json!({ "kind": "delay", "seconds": 1 }),
        };
        step["id"] = json!(format!("s{i}"));
        let jumps = !matches!(step["kind"].as_str(), Some("branch" | "end" | "handoff"));
        if jumps && dice.chance(3) {
            step["next"] = json!(target(dice));
        }
        steps.push(step);
    }
    let mut document = json!({ "version": 2, "id": id, "steps": steps });
    let mut variables = serde_json::Map::new();
    for var in VARS {
        match dice.below(5) {
            0 => drop(variables.insert((*var).into(), json!({ "type": "string" }))),
            1 => drop(variables.insert((*var).into(), json!({ "type": "string", "default": "d" }))),
            _ => {}
        }
    }
    if !variables.is_empty() {
        document["variables"] = Value::Object(variables);
    }
    if entry {
        document["trigger"] = if dice.chance(5) {
            json!({ "keywords": ["go"] })
        } else {
            json!({ "fallback": true })
        };
    }
    document
}

fn flow_set(seed: u64) -> Vec<Value> {
    let mut dice = Dice(seed | 1);
    let subflows = dice.below(3);
    let ids: Vec<String> = (0..subflows).map(|i| format!("f{i}")).collect();
    let mut all: Vec<&str> = ids.iter().map(String::as_str).collect();
    all.push("main");
    let mut set = vec![flow(&mut dice, "main", &all[..subflows], false)];
    for (i, id) in ids.iter().enumerate() {
        // Some subflows are entries of their own (a trigger), most are only called.
        let entry = dice.chance(3);
        let callees: Vec<&str> = all.iter().copied().filter(|c| *c != id).collect();
        let callees = if i + 1 == subflows {
            &callees[..0]
        } else {
            &callees[..]
        };
        set.push(flow(&mut dice, id, callees, entry));
    }
    set
}

fn arguments(seed: u64) -> Value {
    let mut dice = Dice(seed.rotate_left(17) | 1);
    let replies: Vec<Value> = (0..dice.below(12))
        .map(|_| match dice.below(9) {
            0 => json!(""),
            1 => json!("hello"),
            2 => json!("3"),
            3 => json!("yes"),
            4 => json!("ana@example.com"),
            5 => json!({ "tap": "b0" }),
            6 => json!({ "tap": "b1" }),
            7 => json!("Zero"),
            _ => json!({ "tap": "zz" }),
        })
        .collect();
    let start = match dice.below(3) {
        0 => json!({ "message": "go" }),
        1 => json!({ "message": "something else" }),
        _ => json!({ "flow": "main" }),
    };
    json!({ "replies": replies, "start": start,
        "handlers": { "h": { "returnsEach": ["ok", 2, true] } } })
}

/// The runs of a set that break the rule, as sentences.
fn misses(documents: &[Value], arguments: &Value) -> Vec<String> {
    let refs: Vec<&Value> = documents.iter().collect();
    let Ok(set) = FlowSet::new(&refs) else {
        return vec!["the generated set is not valid".to_owned()];
    };
    let Some(arguments) = arguments.as_object() else {
        return Vec::new();
    };
    let Ok(simulation) = Simulation::from_arguments(arguments) else {
        return vec!["the generated arguments are refused".to_owned()];
    };
    let Ok(conversation) = run(&set, &simulation) else {
        return vec!["the generated run is refused".to_owned()];
    };
    let diagnostics = botmesh_flow_analyzer::lint(&refs);
    let mut out = Vec::new();
    for warning in conversation.warnings() {
        let Some((flow, step)) = warning.at else {
            continue;
        };
        let Some(name) = warning
            .message
            .strip_prefix("{{")
            .and_then(|rest| rest.split_once("}} is "))
            .map(|(name, _)| name)
        else {
            continue;
        };
        let flow_id = set.flow_ids().nth(flow).unwrap_or("");
        let step_id = set.step_ids(flow).nth(step).unwrap_or("");
        let quoted = format!("variable \"{name}\"");
        let found = diagnostics.iter().any(|d| {
            matches!(
                d.code,
                botmesh_flow_analyzer::Code::PossiblyUnsetVariable
                    | botmesh_flow_analyzer::Code::UndefinedVariable
            ) && d.flow == flow_id
                && d.step.as_deref() == Some(step_id)
                && d.message.contains(&quoted)
        });
        if !found {
            out.push(format!(
                "{flow_id}/{step_id}: the run warned \"{}\" and lint said nothing",
                warning.message
            ));
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 768, failure_persistence: None, rng_seed: proptest::test_runner::RngSeed::Fixed(36), ..ProptestConfig::default() })]

    #[test]
    fn every_unset_read_of_a_run_is_a_lint_finding(seed in any::<u64>()) {
        let documents = flow_set(seed);
        let arguments = arguments(seed);
        let misses = misses(&documents, &arguments);
        prop_assert!(misses.is_empty(), "{misses:#?}\n{}\n{arguments}", serde_json::to_string_pretty(&documents).unwrap_or_default());
    }

    #[test]
    fn fixes_that_need_no_permission_change_no_valid_set(seed in any::<u64>()) {
        let documents = flow_set(seed);
        let (document, subflows) = documents.split_first().expect("a document");
        let fixed = botmesh_flow_analyzer::fix_document(document, subflows, false);
        prop_assert!(fixed.valid);
        prop_assert!(fixed.applied.is_empty(), "{:?}", fixed.applied);
        prop_assert_eq!(&fixed.document, document);
    }
}

#[test]
fn the_generator_makes_runs_that_warn() {
    // The property above is only worth something if runs do read unset variables.
    let warned = (1..200u64)
        .filter(|&seed| {
            let documents = flow_set(seed);
            let refs: Vec<&Value> = documents.iter().collect();
            let Ok(set) = FlowSet::new(&refs) else {
                return false;
            };
            let arguments = arguments(seed);
            let Some(simulation) = arguments
                .as_object()
                .and_then(|a| Simulation::from_arguments(a).ok())
            else {
                return false;
            };
            run(&set, &simulation)
                .is_ok_and(|c| c.warnings().iter().any(|w| w.message.contains("is unset")))
        })
        .count();
    assert!(
        warned > 40,
        "only {warned} of 199 runs read an unset variable"
    );
}

/// The unset reads of a run, as `flow/step {{name}}`.
fn warned(documents: &[Value], arguments: Value) -> Vec<String> {
    let refs: Vec<&Value> = documents.iter().collect();
    let set = FlowSet::new(&refs).expect("a valid set");
    let simulation =
        Simulation::from_arguments(arguments.as_object().expect("an object")).expect("arguments");
    let conversation = run(&set, &simulation).expect("runs");
    conversation
        .warnings()
        .iter()
        .filter_map(|w| {
            let (flow, step) = w.at?;
            let name = w.message.strip_prefix("{{")?.split_once("}} is ")?.0;
            let flow_id = set.flow_ids().nth(flow)?;
            let step_id = set.step_ids(flow).nth(step)?;
            Some(format!("{flow_id}/{step_id} {{{{{name}}}}}"))
        })
        .collect()
}

/// Lint's unset-variable findings, as `flow/step {{name}} at path`.
fn reported(documents: &[Value]) -> Vec<String> {
    let refs: Vec<&Value> = documents.iter().collect();
    botmesh_flow_analyzer::lint(&refs)
        .iter()
        .filter(|d| {
            matches!(
                d.code,
                botmesh_flow_analyzer::Code::PossiblyUnsetVariable
                    | botmesh_flow_analyzer::Code::UndefinedVariable
            )
        })
        .map(|d| {
            let name = d.message.split('"').nth(1).unwrap_or("");
            format!(
                "{}/{} {{{{{name}}}}} at {}",
                d.flow,
                d.step.as_deref().unwrap_or(""),
                d.path
            )
        })
        .collect()
}

fn codes(documents: &[Value]) -> Vec<&'static str> {
    let refs: Vec<&Value> = documents.iter().collect();
    botmesh_flow_analyzer::lint(&refs)
        .iter()
        .map(|d| d.code.as_str())
        .collect()
}

fn one(steps: Value) -> Vec<Value> {
    vec![json!({ "version": 2, "id": "main", "steps": steps })]
}

#[test]
fn an_ask_whose_retries_run_out_without_on_fail_leaves_its_save_unset() {
    let hit = one(json!([
        { "id": "email", "kind": "ask", "text": "Email?", "save": "email", "input": "email" },
        { "id": "thanks", "kind": "end", "text": "We will write to {{email}}" }
    ]));
    // A sticker, a voice note, a photo: the empty text, three times.
    let replies = json!({ "replies": ["", "", ""] });
    assert_eq!(warned(&hit, replies.clone()), ["main/thanks {{email}}"]);
    assert_eq!(reported(&hit), ["main/thanks {{email}} at /steps/1/text"]);
    // Near miss: retries running out lead elsewhere.
    let near = one(json!([
        { "id": "email", "kind": "ask", "text": "Email?", "save": "email", "input": "email", "onFail": "agent" },
        { "id": "thanks", "kind": "end", "text": "We will write to {{email}}" },
        { "id": "agent", "kind": "handoff" }
    ]));
    assert!(warned(&near, replies).is_empty());
    assert!(reported(&near).is_empty());
}

#[test]
fn an_ask_without_a_pattern_can_take_its_on_fail() {
    let flow = one(json!([
        { "id": "name", "kind": "ask", "text": "Name?", "save": "name", "onFail": "agent", "retries": 0 },
        { "id": "hi", "kind": "end", "text": "Hi {{name}}" },
        { "id": "agent", "kind": "handoff", "queue": "people" }
    ]));
    let refs: Vec<&Value> = flow.iter().collect();
    let set = FlowSet::new(&refs).expect("valid");
    let arguments = json!({ "replies": [""] });
    let simulation =
        Simulation::from_arguments(arguments.as_object().expect("object")).expect("arguments");
    let conversation = run(&set, &simulation).expect("runs");
    assert_eq!(conversation.outcome().kind.as_str(), "handoff");
    // Lint says nothing about it (`unreachable-on-fail` is withdrawn) and has no fix for it.
    assert!(codes(&flow).is_empty(), "{:?}", codes(&flow));
    let fixed = botmesh_flow_analyzer::fix_document(&flow[0], &[], true);
    assert!(fixed.applied.is_empty());
}

#[test]
fn spaces_and_triple_braces_are_placeholders_for_both() {
    let hit = one(json!([
        { "id": "a", "kind": "message", "text": "Total {{ total }} and {{{code}}}" },
        { "id": "b", "kind": "ask", "text": "Name?", "save": "total" },
        { "id": "c", "kind": "set", "var": "code", "value": 1 }
    ]));
    assert_eq!(
        warned(&hit, json!({})),
        ["main/a {{total}}", "main/a {{code}}"]
    );
    assert_eq!(
        reported(&hit),
        [
            "main/a {{total}} at /steps/0/text",
            "main/a {{code}} at /steps/0/text"
        ]
    );
    // Neither is malformed.
    assert!(!codes(&hit).contains(&"malformed-placeholder"));
    // Near miss: written first, nothing unset, nothing reported.
    let near = one(json!([
        { "id": "c", "kind": "set", "var": "code", "value": 1 },
        { "id": "d", "kind": "set", "var": "total", "value": 2 },
        { "id": "a", "kind": "end", "text": "Total {{ total }} and {{{code}}}" }
    ]));
    assert!(warned(&near, json!({})).is_empty());
    assert!(codes(&near).is_empty(), "{:?}", codes(&near));
}

#[test]
fn action_args_set_values_and_retry_texts_are_reads() {
    let hit = one(json!([
        { "id": "q", "kind": "ask", "text": "Code?", "save": "code", "input": "number", "retryText": "Not {{last_message}} {{hint}}", "onFail": "bye" },
        { "id": "call", "kind": "action", "handler": "crm.note", "args": { "note": { "lines": ["{{ note }}", 1] } } },
        { "id": "s", "kind": "set", "var": "copy", "value": "x{{other}}" },
        { "id": "bye", "kind": "end", "text": "{{copy}}" },
        { "id": "w", "kind": "set", "var": "note", "value": "n" },
        { "id": "w2", "kind": "set", "var": "other", "value": "o" },
        { "id": "w3", "kind": "set", "var": "hint", "value": "h" }
    ]));
    let arguments =
        json!({ "replies": ["abc", "7"], "handlers": { "crm.note": { "returns": 1 } } });
    assert_eq!(
        warned(&hit, arguments),
        ["main/q {{hint}}", "main/call {{note}}", "main/s {{other}}"]
    );
    assert_eq!(
        reported(&hit),
        [
            "main/q {{hint}} at /steps/0/retryText",
            "main/call {{note}} at /steps/1/args/note/lines/0",
            "main/s {{other}} at /steps/2/value",
            "main/bye {{copy}} at /steps/3/text",
        ]
    );
}

#[test]
fn a_declared_variable_without_a_default_is_unset_until_written() {
    let with = |declaration: Value| {
        vec![
            json!({ "version": 2, "id": "main", "variables": { "plan": declaration },
            "steps": [{ "id": "a", "kind": "end", "text": "Plan {{plan}}" }] }),
        ]
    };
    let hit = with(json!({ "type": "string" }));
    assert_eq!(warned(&hit, json!({})), ["main/a {{plan}}"]);
    assert_eq!(reported(&hit), ["main/a {{plan}} at /steps/0/text"]);
    let near = with(json!({ "type": "string", "default": "free" }));
    assert!(warned(&near, json!({})).is_empty());
    assert!(reported(&near).is_empty());
}

fn caller_and_callee(caller: Value, callee: Value) -> Vec<Value> {
    vec![
        json!({ "version": 2, "id": "main", "steps": caller }),
        callee,
    ]
}

#[test]
fn a_flow_only_calls_enter_gets_what_every_caller_wrote() {
    let callee = json!({ "version": 2, "id": "greet", "steps": [
        { "id": "hi", "kind": "end", "text": "Hi {{name}}" }] });
    // Near miss: the one caller writes it before the call.
    let near = caller_and_callee(
        json!([
            { "id": "n", "kind": "set", "var": "name", "value": "Ana" },
            { "id": "call", "kind": "subflow", "flow": "greet" }
        ]),
        callee.clone(),
    );
    assert!(warned(&near, json!({})).is_empty());
    assert!(reported(&near).is_empty());
    // Hit: a second call site does not.
    let hit = caller_and_callee(
        json!([
            { "id": "pick", "kind": "buttons", "text": "?", "buttons": [
                { "id": "x", "title": "X", "next": "n" }, { "id": "y", "title": "Y", "next": "bare" }] },
            { "id": "n", "kind": "set", "var": "name", "value": "Ana" },
            { "id": "call", "kind": "subflow", "flow": "greet", "next": "bye" },
            { "id": "bare", "kind": "subflow", "flow": "greet" },
            { "id": "bye", "kind": "end" }
        ]),
        callee.clone(),
    );
    assert_eq!(
        warned(&hit, json!({ "replies": [{ "tap": "y" }] })),
        ["greet/hi {{name}}"]
    );
    assert_eq!(reported(&hit), ["greet/hi {{name}} at /steps/0/text"]);
    // A flow with a trigger is an entry: a conversation can begin there without the caller.
    let mut triggered = callee;
    triggered["trigger"] = json!({ "keywords": ["hi"] });
    let entry = caller_and_callee(
        json!([
            { "id": "n", "kind": "set", "var": "name", "value": "Ana" },
            { "id": "call", "kind": "subflow", "flow": "greet" }
        ]),
        triggered,
    );
    assert_eq!(
        warned(&entry, json!({ "start": { "message": "hi" } })),
        ["greet/hi {{name}}"]
    );
    assert_eq!(reported(&entry), ["greet/hi {{name}} at /steps/0/text"]);
}

#[test]
fn a_default_does_not_replace_a_null_when_a_call_enters() {
    let callee = json!({ "version": 2, "id": "show", "variables": { "x": { "type": "string", "default": "d" } },
        "steps": [{ "id": "say", "kind": "end", "text": "x is {{x}}" }] });
    let hit = caller_and_callee(
        json!([
            { "id": "clear", "kind": "set", "var": "x", "value": null },
            { "id": "call", "kind": "subflow", "flow": "show" }
        ]),
        callee.clone(),
    );
    assert_eq!(warned(&hit, json!({})), ["show/say {{x}}"]);
    assert_eq!(reported(&hit), ["show/say {{x}} at /steps/0/text"]);
    // Near miss: unset, not null, so the default fills it.
    let near = caller_and_callee(
        json!([{ "id": "call", "kind": "subflow", "flow": "show" }]),
        callee,
    );
    assert!(warned(&near, json!({})).is_empty());
    assert!(reported(&near).is_empty());
}

#[test]
fn what_a_called_flow_clears_is_unset_after_it_returns() {
    let hit = caller_and_callee(
        json!([
            { "id": "w", "kind": "set", "var": "x", "value": "v" },
            { "id": "call", "kind": "subflow", "flow": "reset" },
            { "id": "say", "kind": "end", "text": "{{x}}" }
        ]),
        json!({ "version": 2, "id": "reset", "steps": [{ "id": "z", "kind": "set", "var": "x", "value": null }] }),
    );
    assert_eq!(warned(&hit, json!({})), ["main/say {{x}}"]);
    assert_eq!(reported(&hit), ["main/say {{x}} at /steps/2/text"]);
    let near = caller_and_callee(
        json!([
            { "id": "w", "kind": "set", "var": "x", "value": "v" },
            { "id": "call", "kind": "subflow", "flow": "reset" },
            { "id": "say", "kind": "end", "text": "{{x}}" }
        ]),
        json!({ "version": 2, "id": "reset", "steps": [{ "id": "z", "kind": "set", "var": "x", "value": "w" }] }),
    );
    assert!(warned(&near, json!({})).is_empty());
    assert!(reported(&near).is_empty());
}

#[test]
fn a_shadowed_keyword_is_one_the_runtime_never_picks_its_flow_for() {
    // `ⓐ` is a symbol (category So), not a letter: it bounds a word for the runtime.
    let flows = |keyword: &str| {
        vec![
            json!({ "version": 2, "id": "main", "trigger": { "keywords": ["pizza"], "match": "contains" },
                "steps": [{ "id": "a", "kind": "end" }] }),
            json!({ "version": 2, "id": "offers", "trigger": { "keywords": [keyword], "match": "contains" },
                "steps": [{ "id": "b", "kind": "end" }] }),
        ]
    };
    let started = |documents: &[Value], message: &str| {
        let refs: Vec<&Value> = documents.iter().collect();
        let set = FlowSet::new(&refs).expect("valid");
        let arguments = json!({ "start": { "message": message } });
        let simulation =
            Simulation::from_arguments(arguments.as_object().expect("object")).expect("arguments");
        let conversation = run(&set, &simulation).expect("runs");
        conversation.path().next().map(|(flow, _)| flow)
    };
    let hit = flows("ⓐpizza");
    assert_eq!(started(&hit, "ⓐpizza"), Some(0));
    assert_eq!(codes(&hit), ["keyword-shadowed"]);
    let near = flows("apizza");
    assert_eq!(started(&near, "apizza"), Some(1));
    assert!(codes(&near).is_empty(), "{:?}", codes(&near));
}
