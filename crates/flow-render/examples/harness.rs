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

/// A small deterministic generator (64-bit LCG).
struct Rng(u64);

impl Rng {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % n
    }
}

const WORDS: &[&str] = &[
    "Yes",
    "No",
    "Pizza",
    "longer words here",
    "😀",
    "你好",
    "é",
    "<&>",
    "ok",
];

fn text(rng: &mut Rng) -> String {
    (0..1 + rng.next(5))
        .map(|_| WORDS[rng.next(WORDS.len())])
        .collect::<Vec<_>>()
        .join(" ")
}

fn flow(rng: &mut Rng, id: &str, steps: usize, callee: Option<&str>) -> Value {
    let name = |i: usize| format!("s{i}");
    let list: Vec<Value> = (0..steps)
        .map(|i| {
            let to = name(rng.next(steps));
            let t = text(rng);
            match rng.next(8) {
                0 => json!({"id": name(i), "kind": "message", "text": t, "next": to}),
                1 => json!({"id": name(i), "kind": "message", "text": t}),
                2 => json!({"id": name(i), "kind": "ask", "text": t, "save": "name", "next": to}),
                3 => json!({"id": name(i), "kind": "buttons", "text": t, "buttons": [
                    {"id": "a", "title": text(rng), "next": to}, {"id": "b", "title": "B"}]}),
                4 => json!({"id": name(i), "kind": "branch", "cases": [
                    {"when": {"var": "name", "op": "eq", "value": t}, "next": to}]}),
                5 => json!({"id": name(i), "kind": "set", "var": "name", "value": t, "next": to}),
                6 if callee.is_some() => json!({"id": name(i), "kind": "subflow", "flow": callee}),
                _ => json!({"id": name(i), "kind": "end", "text": t}),
            }
        })
        .collect();
    json!({"version": 2, "id": id, "steps": list})
}

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
    let mut sets: Vec<(String, Vec<Value>)> = Vec::new();
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../flow-analyzer/test_data/fixtures"
    );
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for path in files {
        let value: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        sets.push((name, value["flows"].as_array().unwrap().clone()));
    }
    let mut rng = Rng(0x5eed);
    for i in 0..generated {
        let steps = 2 + rng.next(30);
        let mut flows = Vec::new();
        if rng.next(3) == 0 {
            flows.push(flow(&mut rng, "main", steps, Some("sub")));
            let sub = 2 + rng.next(10);
            flows.push(flow(&mut rng, "sub", sub, None));
        } else {
            flows.push(flow(&mut rng, "main", steps, None));
        }
        sets.push((format!("generated_{i:03}"), flows));
    }
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
