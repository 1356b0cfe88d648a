//! Compresses the MCP Apps view (`ui/flow-view.html`, built from `tools/ui/` by `cargo xtask ui`)
//! into `OUT_DIR` for `src/apps.rs` to embed: zlib at miniz's best level keeps about a quarter of
//! the HTML in the binary, whose size is budgeted; the server inflates it once, on the first read.

use std::error::Error;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn Error>> {
    println!("cargo::rerun-if-changed=ui/flow-view.html");
    let html = std::fs::read("ui/flow-view.html")?;
    let compressed = miniz_oxide::deflate::compress_to_vec_zlib(&html, 10);
    let out = PathBuf::from(std::env::var("OUT_DIR")?).join("flow-view.html.zlib");
    std::fs::write(out, compressed)?;
    Ok(())
}
