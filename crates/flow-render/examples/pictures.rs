//! Writes the pictures of `docs/images/` that show how `flow_render` draws flows of 20, 60,
//! 150 and 500 steps at the default `maxSize`: the whole picture when it fits, else the
//! overview and page 1, and the neighbourhood of one step.
//!
//! Usage: `cargo run --release -p botmesh-flow-render --example pictures -- DIR`
#![expect(
    clippy::print_stderr,
    clippy::unwrap_used,
    reason = "a tool that writes files"
)]

#[path = "../src/bench_flow.rs"]
mod bench_flow;

use bench_flow::benchmark_flow;
use botmesh_flow_analyzer::describe;
use botmesh_flow_render::{DEFAULT_MAX_SIZE, Options, layout};

fn main() {
    let dir = std::env::args().nth(1).expect("usage: pictures DIR");
    let max = DEFAULT_MAX_SIZE;
    for steps in [20, 60, 150, 500] {
        let document = benchmark_flow(steps);
        let picture = layout(&describe(&[&document]), &Options::default()).unwrap();
        let name = |what: &str| format!("{dir}/flow-{steps}-{what}.png");
        match picture.fit_within(max) {
            Some(scale) => {
                std::fs::write(name("whole"), picture.to_png(scale).unwrap()).unwrap();
                eprintln!("{steps} steps: whole, {:?}", picture.png_size(scale));
            }
            None => {
                let paging = picture.paging(max);
                let (overview, size) = picture.overview_png(&paging, max).unwrap();
                std::fs::write(name("overview"), overview).unwrap();
                let page = picture.page(&paging, 1).unwrap();
                std::fs::write(name("page-1"), picture.framed_png(&page).unwrap()).unwrap();
                eprintln!(
                    "{steps} steps: {}x{} units, overview {size:?}, {} pages in {} bands",
                    picture.width,
                    picture.height,
                    paging.pages.len(),
                    paging.bands
                );
            }
        }
        let focus = picture
            .nodes
            .iter()
            .position(|n| n.id == "step_13")
            .unwrap();
        let framed = picture.focus(focus, 2, max);
        std::fs::write(name("focus"), picture.framed_png(&framed).unwrap()).unwrap();
    }
}
