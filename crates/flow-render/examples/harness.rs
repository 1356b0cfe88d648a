//! The comparison harness's Rust half: lays out the analyzer's fixtures and N generated flows
//! (a seeded generator with gotos, buttons, branches and subflow calls) and writes, per graph,
//! the node and label sizes, the edges, and our geometry, as JSON for
//! `tools/render-compare/compare.mjs`, which lays the same graphs out with dagre.
//!
//! Usage: `cargo run --release -p botmesh-flow-render --example harness -- OUT.json [N]`
#![expect(
    clippy::print_stderr,
    clippy::unwrap_used,
    reason = "a measurement tool"
)]

use botmesh_flow_analyzer::{Direction, Value, describe};
use botmesh_flow_render::{Options, Picture, Theme, layout};
use serde_json::json;
use std::time::Instant;

#[path = "../src/harness_flows.rs"]
mod harness_flows;

use harness_flows::harness_sets;

fn dump(name: &str, picture: &Picture, micros: u128) -> Value {
    let nodes: Vec<Value> = picture
        .nodes
        .iter()
        .map(|n| {
            json!({"flow": n.flow, "id": n.id, "width": n.rect.width, "height": n.rect.height,
            "x": n.rect.x, "y": n.rect.y})
        })
        .collect();
    let labels: Vec<Value> = picture
        .labels
        .iter()
        .map(|l| json!({"width": l.rect.width, "height": l.rect.height, "x": l.rect.x, "y": l.rect.y}))
        .collect();
    json!({"name": name, "nodes": nodes, "labels": labels, "layoutMicros": micros as u64,
        "crossings": picture.crossings,
        "edges": picture.edges.iter().map(|e| json!({"points": e.points, "label": e.label})).collect::<Vec<_>>()})
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = args.first().expect("usage: harness OUT.json [N]");
    let generated: usize = args.get(1).map_or(400, |n| n.parse().unwrap());
    let sets = harness_sets(generated);
    let mut graphs = Vec::new();
    for (name, flows) in &sets {
        let refs: Vec<&Value> = flows.iter().collect();
        let graph = describe(&refs);
        let start = Instant::now();
        let picture = layout(
            &graph,
            &Options {
                direction: Direction::TD,
                theme: Theme::Light,
            },
        )
        .unwrap();
        let micros = start.elapsed().as_micros();
        // HARNESS_SHOW=DIR:NAME,NAME… also writes those graphs as PNG, to look at.
        if let Ok(show) = std::env::var("HARNESS_SHOW")
            && let Some((dir, names)) = show.split_once(':')
            && names.split(',').any(|n| n == name)
        {
            std::fs::write(format!("{dir}/{name}.png"), picture.to_png(1.0).unwrap()).unwrap();
        }
        graphs.push(dump(name, &picture, micros));
    }
    std::fs::write(out, serde_json::to_string(&graphs).unwrap()).unwrap();
    eprintln!("wrote {} graphs to {out}", graphs.len());
}
