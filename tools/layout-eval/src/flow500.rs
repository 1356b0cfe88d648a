//! The 500-step flow of flow-render's benchmark (`crates/flow-render/src/bench_flow.rs`: a
//! chain of messages, buttons with a loop back every 10 steps, and branches), laid out by us
//! and written in the harness's format, so every candidate gets the same nodes, sizes and
//! edges, and compare.mjs can lay it out with dagre.js.

use botmesh_flow_analyzer::{Direction, Value, describe};
use botmesh_flow_render::{Options, Picture, Theme, layout};
use serde_json::json;

use crate::bench_flow::benchmark_flow;

const OPTIONS: Options = Options {
    direction: Direction::TD,
    theme: Theme::Light,
};

fn dump(picture: &Picture, micros: u128) -> Value {
    let nodes: Vec<Value> = picture
        .nodes
        .iter()
        .map(|n| json!({"flow": n.flow, "id": n.id, "width": n.rect.width, "height": n.rect.height, "x": n.rect.x, "y": n.rect.y}))
        .collect();
    let labels: Vec<Value> = picture
        .labels
        .iter()
        .map(|l| json!({"width": l.rect.width, "height": l.rect.height, "x": l.rect.x, "y": l.rect.y}))
        .collect();
    let edges: Vec<Value> = picture
        .edges
        .iter()
        .map(|e| json!({"points": e.points, "label": e.label}))
        .collect();
    json!([{"name": "flow_500", "nodes": nodes, "labels": labels, "layoutMicros": micros as u64,
        "crossings": picture.crossings, "edges": edges}])
}

/// The 500-step flow as a one-graph harness file, with our layout of it.
pub fn graph() -> Result<Value, String> {
    let document = benchmark_flow(500);
    let graph = describe(&[&document]);
    let start = std::time::Instant::now();
    let picture = layout(&graph, &OPTIONS).map_err(|e| e.to_string())?;
    Ok(dump(&picture, start.elapsed().as_micros()))
}

/// Our layout of the 500-step flow, timed as the benchmark times it (the graph described once,
/// text measurement included): the median of `runs` runs after a warm-up, in microseconds.
pub fn ours_median(runs: usize) -> Result<u128, String> {
    let document = benchmark_flow(500);
    let graph = describe(&[&document]);
    layout(&graph, &OPTIONS).map_err(|e| e.to_string())?;
    let mut times = Vec::new();
    for _ in 0..runs {
        let start = std::time::Instant::now();
        layout(&graph, &OPTIONS).map_err(|e| e.to_string())?;
        times.push(start.elapsed().as_micros());
    }
    times.sort_unstable();
    Ok(times[times.len() / 2])
}
