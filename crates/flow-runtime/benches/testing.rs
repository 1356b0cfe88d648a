//! Benchmark of conversation tests (runtime §9): `run-1000`, reading a test file of 1,000
//! cases (the five hand-written cases of `examples/tests/support-menu.flowtest.json`, 200
//! times each) and running every case against the example support menu and its order-status
//! subflow, coverage included; the set is compiled once, as `botmesh-mcp test` does per file.
//!
//! `generate-500`: generating the suite of a 500-step flow (50 blocks of a message, a
//! two-button menu with a detour, a number ask with a retry, a branch on it and its two
//! sides, a set and a delay; 100 waits from start to end), with its uncovered list.
//!
//! A hand-rolled loop: prints the median and minimum wall time. Targets: run-1000 ≤ 100 ms,
//! generate-500 ≤ 1 s.
//! Run: `cargo bench -p botmesh-flow-runtime --bench testing`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use botmesh_flow_runtime::{FlowSet, TestFile, coverage, generate, run_case};
use serde_json::{Value, json};

const MENU: &str = include_str!("../../../examples/flows/support-menu.json");
const ORDER: &str = include_str!("../../../examples/flows/order-status.json");
const TESTS: &str = include_str!("../../../examples/tests/support-menu.flowtest.json");

#[expect(clippy::print_stdout, reason = "a benchmark reports on stdout")]
fn measure(name: &str, rounds: usize, mut work: impl FnMut()) {
    let mut times: Vec<Duration> = (0..rounds)
        .map(|_| {
            let start = Instant::now();
            work();
            start.elapsed()
        })
        .collect();
    times.sort();
    println!(
        "{name}: median {:.2} ms, min {:.2} ms ({rounds} rounds)",
        times[rounds / 2].as_secs_f64() * 1e3,
        times[0].as_secs_f64() * 1e3
    );
}

fn block_flow() -> Value {
    let mut steps = Vec::new();
    for b in 0..50 {
        let id = |s: &str| format!("{s}{b}");
        let next = if b == 49 {
            "hello0".to_owned()
        } else {
            format!("hello{}", b + 1)
        };
        steps.extend([
            json!({ "id": id("hello"), "kind": "message", "text": format!("Block {b}") }),
            json!({ "id": id("menu"), "kind": "buttons", "text": "Go on?", "save": "pick", "buttons": [
                { "id": "on", "title": "On", "next": id("qty") },
                { "id": "detour", "title": "Detour", "next": id("detour") }] }),
            json!({ "id": id("detour"), "kind": "message", "text": "A detour." }),
            json!({ "id": id("qty"), "kind": "ask", "text": "How many?", "save": "qty", "input": "number", "retries": 1, "onFail": id("few") }),
            json!({ "id": id("check"), "kind": "branch", "cases": [
                { "when": { "var": "qty", "op": "gt", "value": 4 }, "next": id("many") }], "default": id("few") }),
            json!({ "id": id("many"), "kind": "message", "text": "Many.", "next": id("note") }),
            json!({ "id": id("few"), "kind": "message", "text": "Few." }),
            json!({ "id": id("note"), "kind": "set", "var": "seen", "value": b }),
            json!({ "id": id("wait"), "kind": "delay", "seconds": 1 }),
            if b == 49 {
                json!({ "id": id("last"), "kind": "end", "text": "Bye." })
            } else {
                json!({ "id": id("last"), "kind": "message", "text": "Next block.", "next": next })
            },
        ]);
    }
    json!({ "version": 2, "id": "blocks", "steps": steps })
}

#[expect(clippy::print_stdout, reason = "a benchmark reports on stdout")]
fn main() {
    let blocks = block_flow();
    let block_set = FlowSet::new(&[&blocks]).expect("valid 500-step flow");
    measure("generate-500", 5, || {
        let generated = generate(&block_set, &[&blocks]);
        black_box(generated);
    });
    let generated = generate(&block_set, &[&blocks]);
    let cases = generated.tests["tests"].as_array().map_or(0, Vec::len);
    println!(
        "generate-500: {cases} cases, {} conversations searched, {} edges uncovered",
        generated.runs,
        generated.uncovered.len()
    );

    let menu: Value = serde_json::from_str(MENU).expect("menu");
    let order: Value = serde_json::from_str(ORDER).expect("order");
    let tests: Value = serde_json::from_str(TESTS).expect("tests");
    let cases = tests["tests"].as_array().expect("cases");
    let many: Vec<Value> = (0..1000)
        .map(|i| {
            let mut case = cases[i % cases.len()].clone();
            case["name"] = Value::from(format!("case {i}"));
            case
        })
        .collect();
    let file_json = serde_json::json!({ "tests": many });
    let set = FlowSet::new(&[&menu, &order]).expect("valid set");
    measure("run-1000", 21, || {
        let file = TestFile::from_json(black_box(&file_json)).expect("well-formed");
        let runs: Vec<_> = file
            .tests
            .iter()
            .enumerate()
            .map(|(i, case)| run_case(&set, case, i))
            .collect();
        assert!(runs.iter().all(|r| r.failure.is_none()));
        let covered = coverage(
            &[&menu, &order],
            runs.iter()
                .map(|r| (r.transitions.as_slice(), r.path.as_slice())),
        );
        // The support menu's cases cover every edge of the menu (not all of the subflow's).
        assert_eq!(covered.flows[0].edges_covered, covered.flows[0].edges);
        black_box(covered);
    });
}
