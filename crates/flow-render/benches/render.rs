//! Benchmark: layout, SVG and PNG of one 500-step flow (a chain of messages, buttons with a
//! loop back every 10 steps, and branches), median of 15 runs each after a warm-up.
//!
//! Run: `cargo bench -p botmesh-flow-render --bench render`
#![expect(
    clippy::print_stdout,
    clippy::unwrap_used,
    reason = "a benchmark prints its numbers"
)]

use std::time::{Duration, Instant};

use botmesh_flow_analyzer::{Direction, Value, describe};
use botmesh_flow_render::{Options, Theme, layout};
use serde_json::json;

fn flow(steps: usize) -> Value {
    let list: Vec<Value> = (0..steps)
        .map(|i| {
            let id = format!("step_{i}");
            match i % 10 {
                _ if i + 1 == steps => json!({"id": id, "kind": "end", "text": "Bye"}),
                3 => json!({"id": id, "kind": "buttons", "text": "Continue?", "buttons": [
                    {"id": "y", "title": "Yes, continue"},
                    {"id": "n", "title": "Start again", "next": format!("step_{}", i - 3)}]}),
                7 => json!({"id": id, "kind": "branch", "cases": [
                    {"when": {"var": "name", "op": "eq", "value": "x"}, "next": format!("step_{}", (i + 5).min(steps - 1))}]}),
                _ => json!({"id": id, "kind": "message", "text": format!("Message number {i} of the flow")}),
            }
        })
        .collect();
    json!({"version": 2, "id": "bench", "steps": list})
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn measure(mut f: impl FnMut()) -> Duration {
    f();
    median(
        (0..15)
            .map(|_| {
                let start = Instant::now();
                f();
                start.elapsed()
            })
            .collect(),
    )
}

fn main() {
    let document = flow(500);
    let graph = describe(&[&document]);
    let options = Options {
        direction: Direction::TD,
        theme: Theme::Light,
    };
    let picture = layout(&graph, &options).unwrap();
    let layout_time = measure(|| {
        layout(&graph, &options).unwrap();
    });
    let svg_time = measure(|| {
        picture.to_svg().unwrap();
    });
    let png_time = measure(|| {
        picture.to_png(1.0).unwrap();
    });
    println!(
        "500 steps: {} nodes, {} edges, {}x{} px, {} crossings",
        picture.nodes.len(),
        picture.edges.len(),
        picture.width,
        picture.height,
        picture.crossings
    );
    println!("layout  median {:?}", layout_time);
    println!("svg     median {:?}", svg_time);
    println!("png 1x  median {:?}", png_time);
}
