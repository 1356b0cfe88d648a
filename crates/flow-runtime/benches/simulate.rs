//! Benchmark of the simulator on 500-step flows with loops, branches and a subflow:
//! - `conversation`: a 1,000-reply conversation, from start to the result's JSON (what
//!   `flow_simulate` computes once the set is compiled);
//! - `spin`: a flow that runs 499 steps (sends, sets, branches, a subflow call and return)
//!   between two replies, 200 replies: the simulation's 100,000-step limit; reported as steps
//!   per second;
//! - `compile`: building the [`FlowSet`] (validation included) of the conversation's set;
//! - `text`, `text (spin)`: `flow_simulate`'s text of the conversation's and the spin's results
//!   (one line per entry, loop rounds folded, cut at 100,000 characters as the tool does).
//!
//! A hand-rolled loop: prints the median and minimum wall time of each benchmark.
//! Run: `cargo bench -p botmesh-flow-runtime --bench simulate`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use botmesh_flow_runtime::{FlowSet, Simulation, run, simulate, simulation_text};
use serde_json::{Value, json};

/// A 500-step flow: every ten steps an ask, a message, a branch, a menu looping back, a set, a
/// subflow call, a list, a delay and a media.
fn conversation_flow() -> Value {
    let steps = 499;
    let id = |i: usize| format!("s{}", i.min(steps - 1));
    let mut out = Vec::new();
    for i in 0..steps {
        let var = format!("v{}", i % 5);
        let step = if i + 1 == steps {
            json!({ "id": id(i), "kind": "buttons", "text": "Again?", "buttons": [
                { "id": "again", "title": "Again", "next": "s0" }, { "id": "stop", "title": "Stop", "next": "bye" }] })
        } else {
            match i % 10 {
                0 => {
                    json!({ "id": id(i), "kind": "ask", "text": "Value for {{v1}}?", "save": var, "input": "number", "retries": 1 })
                }
                1 | 5 => {
                    json!({ "id": id(i), "kind": "message", "text": format!("Got {{{{{var}}}}} at {i}") })
                }
                2 => json!({ "id": id(i), "kind": "branch", "cases": [
                    { "when": { "var": var, "op": "gt", "value": 100 }, "next": id(i + 3) },
                    { "when": { "all": [{ "var": "v2", "op": "exists" }, { "not": { "var": "v3", "op": "eq", "value": "x" } }] }, "next": id(i + 1) }
                ] }),
                3 => json!({ "id": id(i), "kind": "buttons", "text": "Pick {{v0}}", "buttons": [
                    { "id": "a", "title": "Again", "next": id(i.saturating_sub(3)) },
                    { "id": "b", "title": "On" },
                    { "id": "c", "title": "Skip", "next": id(i + 4) }] }),
                4 => {
                    json!({ "id": id(i), "kind": "set", "var": var, "value": "{{v0}}-{{last_message}}" })
                }
                6 => json!({ "id": id(i), "kind": "subflow", "flow": "helper" }),
                7 => {
                    json!({ "id": id(i), "kind": "list", "text": "Choose", "button": "Open", "save": "row",
                    "sections": [{ "rows": [{ "id": "r1", "title": "First" }, { "id": "r2", "title": "Back", "next": id(i - 4) }] }] })
                }
                8 => json!({ "id": id(i), "kind": "delay", "seconds": 1 }),
                _ => {
                    json!({ "id": id(i), "kind": "media", "media": "image", "url": "https://example.com/a.png", "caption": "Pic {{v4}}" })
                }
            }
        };
        out.push(step);
    }
    out.push(json!({ "id": "bye", "kind": "end", "text": "Bye" }));
    json!({ "version": 2, "id": "main", "steps": out })
}

fn helper_flow() -> Value {
    json!({ "version": 2, "id": "helper", "steps": [
        { "id": "h1", "kind": "set", "var": "seen", "value": true },
        { "id": "h2", "kind": "action", "handler": "crm.note", "args": { "v": "{{v1}}" }, "save": "note" },
        { "id": "h3", "kind": "end" }
    ]})
}

/// 499 steps that never wait (sets, messages, branches, a subflow call), then a menu back.
fn spin_flow() -> Value {
    let mut out = Vec::new();
    for i in 0..499 {
        let step = match i % 5 {
            0 => json!({ "id": format!("s{i}"), "kind": "set", "var": "n", "value": i }),
            1 => json!({ "id": format!("s{i}"), "kind": "message", "text": "n is {{n}}" }),
            2 => json!({ "id": format!("s{i}"), "kind": "branch", "cases": [
                { "when": { "var": "n", "op": "lt", "value": 0 }, "next": "s0" }] }),
            3 if i % 50 == 3 => {
                json!({ "id": format!("s{i}"), "kind": "subflow", "flow": "helper" })
            }
            _ => json!({ "id": format!("s{i}"), "kind": "set", "var": "m", "value": "{{n}}" }),
        };
        out.push(step);
    }
    out.push(json!({ "id": "again", "kind": "buttons", "text": "Again?", "buttons": [{ "id": "a", "title": "Again", "next": "s0" }] }));
    json!({ "version": 2, "id": "spin", "steps": out })
}

fn conversation_replies() -> Value {
    let cycle = [
        json!("7"),
        json!({ "tap": "b" }),
        json!({ "tap": "r1" }),
        json!("x"),
        json!("12"),
        json!("First"),
    ];
    Value::Array((0..1000).map(|i| cycle[i % cycle.len()].clone()).collect())
}

#[expect(clippy::print_stdout, reason = "a benchmark reports on stdout")]
fn measure(name: &str, runs: usize, mut f: impl FnMut() -> usize) {
    let mut times: Vec<Duration> = Vec::with_capacity(runs);
    let mut count = 0;
    for _ in 0..runs {
        let start = Instant::now();
        count = black_box(f());
        times.push(start.elapsed());
    }
    times.sort();
    let median = times[times.len() / 2];
    let min = times[0];
    let per = |d: Duration| count as f64 / d.as_secs_f64();
    println!(
        "{name:<14} median {:>8.3} ms  min {:>8.3} ms  {count} steps  {:>6.2} M steps/s (median)",
        median.as_secs_f64() * 1e3,
        min.as_secs_f64() * 1e3,
        per(median) / 1e6
    );
}

#[expect(clippy::print_stdout, reason = "a benchmark reports on stdout")]
fn main() {
    let main = conversation_flow();
    let helper = helper_flow();
    let set = FlowSet::new(&[&main, &helper]).expect("the benchmark flow is valid");
    let arguments = json!({ "replies": conversation_replies(), "handlers": { "crm.note": { "returns": "ok" } } });
    let simulation =
        Simulation::from_arguments(arguments.as_object().expect("object")).expect("arguments");
    let conversation = run(&set, &simulation).expect("runs");
    let steps = conversation.path().count();
    println!(
        "conversation: 1000 replies, {} left over, outcome {}, {} transcript entries",
        conversation.leftover(),
        conversation.outcome().kind.as_str(),
        conversation.transcript_len()
    );
    measure("conversation", 200, || {
        let result = simulate(&set, &simulation).expect("runs");
        black_box(result.len());
        steps
    });
    let result = simulate(&set, &simulation).expect("runs");
    measure("text", 50, || {
        simulation_text("main", &result, Some(100_000)).len()
    });
    measure("compile", 50, || {
        FlowSet::new(&[&main, &helper])
            .map(|s| s.flow_ids().count())
            .unwrap_or(0)
    });
    let spin = spin_flow();
    let spin_set = FlowSet::new(&[&spin, &helper]).expect("the spin flow is valid");
    let taps = json!({ "replies": vec![json!({ "tap": "a" }); 200], "handlers": { "crm.note": { "returns": 1 } } });
    let spin_simulation =
        Simulation::from_arguments(taps.as_object().expect("object")).expect("arguments");
    measure("spin", 30, || {
        let conversation = run(&spin_set, &spin_simulation).expect("runs");
        conversation.path().count()
    });
    measure("spin + result", 30, || {
        let conversation = run(&spin_set, &spin_simulation).expect("runs");
        black_box(conversation.result_json().len());
        conversation.path().count()
    });
    let spin_result = simulate(&spin_set, &spin_simulation).expect("runs");
    println!(
        "text (spin): {} characters, {} uncut",
        simulation_text("spin", &spin_result, Some(100_000))
            .chars()
            .count(),
        simulation_text("spin", &spin_result, None).chars().count()
    );
    measure("text (spin)", 30, || {
        simulation_text("spin", &spin_result, Some(100_000)).len()
    });
}
