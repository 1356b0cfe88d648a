//! Benchmark of describe + lint + Mermaid rendering (each public function on its own, so the set
//! is compiled twice) and of the whole `analyze` payload (validation, one compile, graph, lint,
//! Mermaid, JSON) on the example document and on a generated 500-step flow with 0, 1, 5 and 20
//! subflows of 500 steps each. A hand-rolled loop: prints the median and minimum wall time,
//! the mean CPU time per run (robust on a shared machine) and the time per step.
//!
//! Run: `cargo bench -p botmesh-flow-analyzer --bench analyze`; a further argument runs only
//! the benchmarks whose name contains it (e.g. `-- 5x500: describe` for a profile).

use std::hint::black_box;
use std::time::{Duration, Instant};

use botmesh_flow_analyzer::{
    Direction, Format, analyze, analyze_set, describe, lint, render_mermaid,
};
use serde_json::{Value, json};

/// A valid 500-step flow that uses most kinds, forward branches, backward button loops (through
/// waiting steps), placeholders and, when `callees` is not empty, subflow calls. With
/// `on_fail`, every `ask` has a `pattern` and an `onFail` to the last step: then an `ask`'s
/// retries running out lead away from what follows it, which versions before issue 36 assumed
/// of every `ask` (they lint such a flow as the current version does, so the two compare on
/// the same findings).
fn generated_flow(id: &str, steps: usize, callees: &[String], on_fail: bool) -> Value {
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
                0 if on_fail => json!({"id": step_id(i), "kind": "ask", "text": "Value?",
                    "save": var, "pattern": "^[a-z ]+$", "onFail": step_id(steps - 1)}),
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

fn set_with(subflows: usize, on_fail: bool) -> (Value, Vec<Value>) {
    let names: Vec<String> = (0..subflows).map(|k| format!("sub{k}")).collect();
    let document = generated_flow("main", 500, &names, on_fail);
    let subs = names
        .iter()
        .map(|n| generated_flow(n, 500, &[], on_fail))
        .collect();
    (document, subs)
}

/// CPU time this thread has used, from `/proc/thread-self/stat` (user + system, in clock ticks
/// of 10 ms). On a shared machine a wall-clock sample includes time spent waiting for a core;
/// CPU time summed over many runs does not.
fn cpu_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // The command name may hold spaces: the fields resume after its closing parenthesis.
    let rest = stat.get(stat.rfind(')')? + 2..)?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
}

struct Measured {
    median: Duration,
    min: Duration,
    runs: usize,
    /// Mean CPU time per run, when `/proc` is there and enough ticks went by.
    cpu: Option<Duration>,
}

fn measure(mut f: impl FnMut(), budget: Duration) -> Measured {
    f();
    let mut samples = Vec::new();
    let cpu_start = cpu_ticks();
    let start = Instant::now();
    while samples.len() < 11 || (start.elapsed() < budget && samples.len() < 5000) {
        let t = Instant::now();
        f();
        samples.push(t.elapsed());
    }
    let runs = u32::try_from(samples.len()).unwrap_or(u32::MAX);
    let cpu = match (cpu_start, cpu_ticks()) {
        (Some(a), Some(b)) if b >= a + 50 => Some(Duration::from_millis((b - a) * 10) / runs),
        _ => None,
    };
    samples.sort();
    Measured {
        median: samples[samples.len() / 2],
        min: samples[0],
        runs: samples.len(),
        cpu,
    }
}

#[expect(clippy::print_stdout, reason = "a benchmark reports on stdout")]
fn report(name: &str, steps: usize, m: &Measured) {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let cpu = m
        .cpu
        .map_or_else(|| "     n/a".to_owned(), |c| format!("{:>8.3}", ms(c)));
    let per_step = |d: Duration| d.as_nanos() as f64 / steps.max(1) as f64;
    println!(
        "{name:<40} steps {steps:>6}  median {:>8.3} ms  min {:>8.3} ms  cpu/run {cpu} ms  \
         {:>6.0} ns/step (min)  {:>5} runs",
        ms(m.median),
        ms(m.min),
        per_step(m.min),
        m.runs,
    );
}

/// Runs `f` and reports it, when `name` contains the filter (or there is none).
fn bench(filter: Option<&str>, name: &str, steps: usize, f: impl FnMut()) {
    if filter.is_none_or(|filter| name.contains(filter)) {
        report(name, steps, &measure(f, Duration::from_secs(3)));
    }
}

fn main() {
    // `cargo bench` passes `--bench`; the first other argument filters by name.
    let filter = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    let filter = filter.as_deref();
    let example: Value = serde_json::from_str(botmesh_flow_schema::EXAMPLE_FLOW_DOCUMENT)
        .expect("the example document is JSON");
    let example_steps = example["steps"].as_array().map_or(0, Vec::len);
    bench(filter, "example: analyze", example_steps, || {
        black_box(analyze(&example, &[], Format::Mermaid, Direction::TD));
    });
    // The same 500 steps per call, but 21 separate copies analyzed in turn: as much JSON to
    // go through as `500+20x500`, so this separates the cost of the set's size in memory
    // (cache misses) from the work per step.
    let copies: Vec<Value> = (0..21).map(|_| set_with(0, false).0).collect();
    let mut turn = 0;
    bench(filter, "500+0x500, 21 copies in turn: d+l+r", 500, || {
        let refs = [&copies[turn % copies.len()]];
        turn += 1;
        let graph = describe(&refs);
        black_box(lint(&refs));
        black_box(render_mermaid(&graph, Direction::TD));
    });
    for (subflows, on_fail) in [(0, false), (0, true), (1, false), (5, false), (20, false)] {
        let (document, subs) = set_with(subflows, on_fail);
        let refs: Vec<&Value> = std::iter::once(&document).chain(&subs).collect();
        let steps = 500 * (1 + subflows);
        // Measure the full path: an invalid set would stop after validation.
        let analysis = analyze_set(&document, &subs);
        assert!(
            analysis.valid,
            "generated set invalid: {:?}",
            analysis.issues.first()
        );
        let asks = if on_fail { " asks with onFail" } else { "" };
        let name = |what: &str| format!("500+{subflows}x500{asks}: {what}");
        if filter.is_none_or(|filter| name("").contains(filter)) {
            // What the runs below report, for comparing them across versions.
            #[expect(clippy::print_stdout, reason = "a benchmark reports on stdout")]
            {
                println!("{}{} diagnostics", name(""), analysis.diagnostics.len());
            }
        }
        bench(filter, &name("describe+lint+render"), steps, || {
            let graph = describe(&refs);
            black_box(lint(&refs));
            black_box(render_mermaid(&graph, Direction::TD));
        });
        bench(filter, &name("analyze (mermaid)"), steps, || {
            black_box(analyze(&document, &subs, Format::Mermaid, Direction::TD));
        });
        // The share of `analyze` that is flow-schema's validation of every document.
        bench(filter, &name("of which validate"), steps, || {
            for doc in &refs {
                black_box(botmesh_flow_schema::validate(doc));
            }
        });
    }
}
