//! `cargo bench -p botmesh-flow-schema --bench validate`: median time of `validate` on a ~1 KB
//! document and on a 500-step document (target: at most 1 ms for 500 steps in release).
#![expect(
    clippy::print_stdout,
    reason = "a benchmark reports its figures on stdout"
)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use botmesh_flow_schema::validate;
use serde_json::{Value, json};

/// A document of `count` steps cycling through the kinds, every reference valid; every `ask`
/// has its own pattern, so the per-document pattern cache does not help.
fn document(count: usize) -> Value {
    let id = |i: usize| format!("step_{}", i.min(count - 1));
    let steps: Vec<Value> = (0..count)
        .map(|i| match i % 10 {
            _ if i == count - 1 => json!({ "id": id(i), "kind": "end", "text": "Bye {{name}}!" }),
            0 => json!({ "id": id(i), "kind": "message", "text": "Hello {{contact_name}}, welcome to the shop." }),
            1 => json!({ "id": id(i), "kind": "buttons", "text": "What would you like?", "buttons": [
                { "id": "a", "title": "Order", "next": id(i + 1) },
                { "id": "b", "title": "Track" },
                { "id": "c", "title": "Help", "next": id(i + 2) }
            ] }),
            2 => json!({ "id": id(i), "kind": "ask", "text": "Your name?", "save": "name", "pattern": format!("^[A-Za-z ]{{2,{}}}$", 40 + i), "retries": 2, "onFail": id(i + 3) }),
            3 => json!({ "id": id(i), "kind": "branch", "cases": [
                { "when": { "all": [{ "var": "name", "op": "exists" }, { "not": { "var": "age", "op": "lt", "value": 18 } }] }, "next": id(i + 1) },
                { "when": { "var": "name", "op": "in", "value": ["a", "b", "c"] }, "next": id(i + 2) }
            ], "default": id(i + 1) }),
            4 => json!({ "id": id(i), "kind": "set", "var": "total", "value": 12.5, "next": id(i + 1) }),
            5 => json!({ "id": id(i), "kind": "media", "media": "image", "url": "https://cdn.example.com/menu.jpg", "caption": "Our menu" }),
            6 => json!({ "id": id(i), "kind": "list", "text": "Pick a pizza", "button": "Pizzas", "sections": [
                { "title": "Classics", "rows": [{ "id": "m", "title": "Margherita" }, { "id": "p", "title": "Pepperoni", "description": "Spicy" }] }
            ] }),
            7 => json!({ "id": id(i), "kind": "action", "handler": "orders.quote", "args": { "size": "L", "extras": [1, 2, { "x": true }] }, "save": "quote" }),
            8 => json!({ "id": id(i), "kind": "delay", "seconds": 2, "typing": true }),
            _ => json!({ "id": id(i), "kind": "template", "name": "order_ready", "language": "en", "parameters": ["{{name}}"] }),
        })
        .collect();
    json!({
        "version": 2,
        "id": "bench",
        "metadata": { "title": "Benchmark", "locale": "en", "tags": ["bench"] },
        "trigger": { "keywords": ["shop"] },
        "variables": { "name": { "type": "string" }, "age": { "type": "number" } },
        "steps": steps,
    })
}

/// Median of `runs` timings, each the mean over `iterations` calls.
fn median(document: &Value, runs: usize, iterations: u32) -> Duration {
    let mut timings: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..iterations {
                black_box(validate(black_box(document)));
            }
            start.elapsed() / iterations
        })
        .collect();
    timings.sort();
    timings[runs / 2]
}

fn main() {
    let small = document(6);
    let large = document(500);
    assert!(validate(&small).valid && validate(&large).valid);
    let bytes = |d: &Value| serde_json::to_string(d).map_or(0, |s| s.len());
    println!(
        "validate ~1 KB ({} bytes, 6 steps): median {:?}",
        bytes(&small),
        median(&small, 15, 2000)
    );
    println!(
        "validate 500 steps ({} bytes): median {:?}",
        bytes(&large),
        median(&large, 15, 40)
    );
}
