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

#[path = "../src/bench_flow.rs"]
mod bench_flow;

use bench_flow::benchmark_flow;
use botmesh_flow_analyzer::{Direction, describe};
use botmesh_flow_render::{Options, Theme, layout};

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
    let document = benchmark_flow(500);
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
