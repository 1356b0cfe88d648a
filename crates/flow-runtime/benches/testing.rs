//! Benchmark of conversation tests (runtime §9): `run-1000`, reading a test file of 1,000
//! cases (the five hand-written cases of `examples/tests/support-menu.flowtest.json`, 200
//! times each) and running every case against the example support menu and its order-status
//! subflow, coverage included; the set is compiled once, as `botmesh-mcp test` does per file.
//!
//! A hand-rolled loop: prints the median and minimum wall time. Target: ≤ 100 ms.
//! Run: `cargo bench -p botmesh-flow-runtime --bench testing`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use botmesh_flow_runtime::{FlowSet, TestFile, coverage, run_case};
use serde_json::Value;

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

fn main() {
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
