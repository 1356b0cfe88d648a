//! Benchmark: layout, SVG and PNG of one 500-step flow (a chain of messages, buttons with a
//! loop back every 10 steps, and branches), and what `flow_render` draws of it at the default
//! `maxSize` (the overview, one page: layout included, as the tool pays it), median of 15 runs
//! each after a warm-up.
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
use botmesh_flow_render::{DEFAULT_MAX_SIZE, Options, Theme, layout};

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
    let paged = |page: Option<usize>| {
        let picture = layout(&graph, &options).unwrap();
        let paging = picture.paging(DEFAULT_MAX_SIZE);
        match page {
            None => {
                picture.overview_png(&paging, DEFAULT_MAX_SIZE).unwrap();
            }
            Some(number) => {
                let framed = picture.page(&paging, number).unwrap();
                picture.framed_png(&framed).unwrap();
            }
        }
    };
    let overview_time = measure(|| paged(None));
    let page_time = measure(|| paged(Some(12)));
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
    println!(
        "overview (layout + PNG) median {:?}, page 12 (layout + PNG) median {:?}, together {:?}",
        overview_time,
        page_time,
        overview_time + page_time
    );
}
