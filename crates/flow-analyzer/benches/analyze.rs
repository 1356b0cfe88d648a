//! Benchmark of describe + lint + Mermaid rendering (and the whole `analyze` payload) on the
//! example document and on generated 500-step flows with 1, 5 and 20 subflows of 500 steps
//! each. A hand-rolled loop: prints the median, min and max of several runs per case, and the
//! time per step, which stays flat when growth is linear.
//!
//! Run: `cargo bench -p botmesh-flow-analyzer --bench analyze`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use botmesh_flow_analyzer::{Direction, Format, analyze, describe, lint, render_mermaid};
use serde_json::{Value, json};

/// A valid 500-step flow that uses most kinds, forward branches, backward button loops (through
/// waiting steps), placeholders and, when `callees` is not empty, subflow calls.
fn generated_flow(id: &str, steps: usize, callees: &[String]) -> Value {
    let step_id = |i: usize| format!("s{i}");
    let mut out = Vec::with_capacity(steps);
    for i in 0..steps {
        let forward = |d: usize| step_id((i + d).min(steps - 1));
        let back = step_id(i.saturating_sub(9));
        let var = format!("v{}", i % 7);
        let step = if i + 1 == steps {
            json!({"id": step_id(i), "kind": "end", "text": "Bye {{v1}}"})
        } else {
            match i % 10 {
                0 => json!({"id": step_id(i), "kind": "ask", "text": "Value?", "save": var}),
                1 | 5 => {
                    json!({"id": step_id(i), "kind": "message", "text": format!("Got {{{{{var}}}}} at {i}")})
                }
                2 => json!({"id": step_id(i), "kind": "branch", "cases": [
                    {"when": {"var": var, "op": "eq", "value": i}, "next": forward(3)},
                    {"when": {"all": [{"var": "v2", "op": "exists"}, {"not": {"var": "v3", "op": "gt", "value": 4}}]}, "next": forward(5)}
                ]}),
                3 => json!({"id": step_id(i), "kind": "buttons", "text": "Pick", "buttons": [
                    {"id": "a", "title": "Again", "next": back},
                    {"id": "b", "title": "On"},
                    {"id": "c", "title": "Skip", "next": forward(4)}
                ]}),
                4 => json!({"id": step_id(i), "kind": "set", "var": var, "value": "{{v0}}"}),
                6 if !callees.is_empty() => {
                    json!({"id": step_id(i), "kind": "subflow", "flow": callees[i / 10 % callees.len()]})
                }
                7 => {
                    json!({"id": step_id(i), "kind": "list", "text": "Choose", "button": "Open", "sections": [
                        {"rows": [{"id": "r1", "title": "First"}, {"id": "r2", "title": "Back", "next": back}]}
                    ]})
                }
                8 => json!({"id": step_id(i), "kind": "delay", "seconds": 1}),
                _ => {
                    json!({"id": step_id(i), "kind": "media", "media": "image", "url": "https://example.com/a.png", "caption": "Pic {{v4}}"})
                }
            }
        };
        out.push(step);
    }
    json!({"version": 2, "id": id, "steps": out})
}

fn set_with(subflows: usize) -> (Value, Vec<Value>) {
    let names: Vec<String> = (0..subflows).map(|k| format!("sub{k}")).collect();
    let document = generated_flow("main", 500, &names);
    let subs = names.iter().map(|n| generated_flow(n, 500, &[])).collect();
    (document, subs)
}

fn measure(mut f: impl FnMut(), budget: Duration) -> (Duration, Duration, Duration, usize) {
    f();
    let mut samples = Vec::new();
    let start = Instant::now();
    while samples.len() < 11 || (start.elapsed() < budget && samples.len() < 200) {
        let t = Instant::now();
        f();
        samples.push(t.elapsed());
    }
    samples.sort();
    (
        samples[samples.len() / 2],
        samples[0],
        samples[samples.len() - 1],
        samples.len(),
    )
}

#[expect(clippy::print_stdout, reason = "a benchmark reports on stdout")]
fn report(
    name: &str,
    steps: usize,
    (median, min, max, runs): (Duration, Duration, Duration, usize),
) {
    let per_step = median.as_nanos() as f64 / steps.max(1) as f64;
    println!(
        "{name:<44} steps {steps:>6}  median {:>9.3} ms  min {:>9.3} ms  max {:>9.3} ms  {per_step:>7.1} ns/step  ({runs} runs)",
        median.as_secs_f64() * 1e3,
        min.as_secs_f64() * 1e3,
        max.as_secs_f64() * 1e3,
    );
}

fn main() {
    let budget = Duration::from_secs(2);
    let example: Value = serde_json::from_str(botmesh_flow_schema::EXAMPLE_FLOW_DOCUMENT)
        .expect("the example document is JSON");
    let example_steps = example["steps"].as_array().map_or(0, Vec::len);
    report(
        "example: describe+lint+render",
        example_steps,
        measure(
            || {
                let graph = describe(&[&example]);
                black_box(lint(&[&example]));
                black_box(render_mermaid(&graph, Direction::TD));
            },
            budget,
        ),
    );
    for subflows in [0, 1, 5, 20] {
        let (document, subs) = set_with(subflows);
        let refs: Vec<&Value> = std::iter::once(&document).chain(&subs).collect();
        let steps = 500 * (1 + subflows);
        report(
            &format!("500 steps + {subflows} subflows: describe+lint+render"),
            steps,
            measure(
                || {
                    let graph = describe(&refs);
                    black_box(lint(&refs));
                    black_box(render_mermaid(&graph, Direction::TD));
                },
                budget,
            ),
        );
        report(
            &format!("500 steps + {subflows} subflows: analyze (mermaid)"),
            steps,
            measure(
                || {
                    black_box(analyze(&document, &subs, Format::Mermaid, Direction::TD));
                },
                budget,
            ),
        );
    }
}
