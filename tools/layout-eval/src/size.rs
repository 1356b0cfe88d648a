//! `layout-eval size`: builds `size/` once per feature with the shipped release profile (LTO,
//! one codegen unit, stripped, opt-level 3) and prints how many bytes each layout crate adds
//! to the baseline program.

use std::path::Path;
use std::process::Command;

const FEATURES: &[&str] = &[
    "layout-rs",
    "rust-sugiyama",
    "dagre",
    "dagre-dgl-rs",
    "dagre_rust",
    "bra0-layout",
    "dagre-rs",
    "ours-base",
    "ours",
];

fn build(dir: &Path, feature: Option<&str>) -> Result<u64, String> {
    let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cargo
        .current_dir(dir)
        .args(["build", "--release", "--quiet"])
        .arg("--target-dir")
        .arg(dir.join("target"));
    if let Some(f) = feature {
        cargo.args(["--features", f]);
    }
    let status = cargo.status().map_err(|e| e.to_string())?;
    if !status.success() {
        return Err(format!("building size/ with {feature:?} failed"));
    }
    let binary = dir
        .join("target/release")
        .join(format!("layout-size{}", std::env::consts::EXE_SUFFIX));
    Ok(std::fs::metadata(&binary)
        .map_err(|e| format!("{}: {e}", binary.display()))?
        .len())
}

pub fn run() -> Result<(), String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("size");
    let base = build(&dir, None)?;
    println!("| build | binary | added |");
    println!("|---|---|---|");
    println!("| baseline (no layout) | {base} B | — |");
    let mut ours_base = base;
    for f in FEATURES {
        let size = build(&dir, Some(f))?;
        let (shown, against) = match *f {
            "ours-base" => {
                ours_base = size;
                ("analyzer `describe` alone (baseline for ours)", base)
            }
            "ours" => (
                "ours: flow-render `layout` (text measurement and font included)",
                ours_base,
            ),
            other => (other, base),
        };
        let added = size as i64 - against as i64;
        println!(
            "| {shown} | {size} B | {added:+} B ({:+.1} KiB) |",
            added as f64 / 1024.0
        );
    }
    Ok(())
}
