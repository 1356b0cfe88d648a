//! Project automation, the cargo-xtask way: `cargo xtask <task>`.
//!
//! - `cargo xtask picture [--check]`: regenerate (or check) the example flow's pictures in
//!   `docs/images/`, drawn by `botmesh-flow-render`.
//! - `cargo xtask schema [--check]`: regenerate (or check) `docs/schema/flow.schema.json` and
//!   its embedded copy `crates/flow-schema/flow.schema.json`.
//! - `cargo xtask dist [--target TRIPLE]`: build the release binary an npm platform package
//!   ships (static on Linux), check its structure and print its path.
//! - `cargo xtask inspect PLATFORM FILE`: the structural checks of `dist` on any file.
//! - `cargo xtask figures`: measure the shipped binary against a bare serde_json loop and write
//!   the figures into the getting-started guide (EN and ES).
//! - `cargo xtask npm [--all-platforms]`: build the binaries and assemble the npm packages in
//!   `target/npm/`.
//! - `cargo xtask docs-eval [--check] [--set NAME] [--eval DIR]`: the docs-search evaluations
//!   vendored in `eval/` (FastAPI, React, Slidev) against the release binary (all queries, the
//!   English and Spanish halves, the odd and even halves, beside BM25), with per-set floors
//!   under `--check`.
//! - `cargo xtask release <version | crate-order | publish-crates VERSION>`: the release steps
//!   of `release.yml` (the version gate, the crates' publishing order, publishing to crates.io),
//!   with the one lockstep rule of versions.
//! - `cargo xtask ui [--check]`: build (or check) the MCP Apps view
//!   `crates/mcp-server/ui/flow-view.html` from its sources in `tools/ui/` (needs Node and npm).
//! - `cargo xtask tidy`: the project's structural rules (`tidy.rs` lists them; also a
//!   `#[test]`).
#![expect(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "an xtask is a command-line program"
)]

mod dist;
mod docs_eval;
mod figures;
mod generated;
mod inspect;
mod npm;
mod picture;
mod release;
mod schema;
mod tidy;
mod tokens;
mod ui;

use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    match try_main() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("xtask: {error}");
            ExitCode::FAILURE
        }
    }
}

fn try_main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rest: Vec<&str> = args.iter().skip(1).map(String::as_str).collect();
    match args.first().map(String::as_str) {
        Some("schema") => schema::run(&rest),
        Some("picture") => picture::run(&rest),
        Some("npm") => npm::run(&rest),
        Some("dist") => dist::run(&rest),
        Some("inspect") => inspect::run(&rest),
        Some("figures") => figures::run(&rest),
        Some("tidy") => tidy::run(&rest),
        Some("docs-eval") => docs_eval::run(&rest),
        Some("release") => release::run(&rest),
        Some("ui") => ui::run(&rest),
        _ => {
            eprintln!(
                "usage: cargo xtask <schema [--check] | picture [--check] | dist [--locked] [--target TRIPLE] | inspect PLATFORM FILE | figures [--runs N] [--binary PATH] | npm [--locked] [--no-build] [--all-platforms] | tidy | ui [--check] | docs-eval [--check] [--set NAME] [--eval DIR] [--binary PATH] | release <version [--dry-run] | crate-order [--check] | publish-crates VERSION [--dry-run]>>"
            );
            Err("unknown or missing task".into())
        }
    }
}

/// The workspace root (the parent of this crate's folder).
pub(crate) fn project_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(1)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// `$CARGO_TARGET_DIR` when set, else `<root>/target`.
pub(crate) fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from)
}

#[cfg(test)]
mod docs_examples;

/// Every file under `dir` whose name ends in `.{extension}`, sorted. Hidden folders (`.vscode`)
/// are searched; `.git`, `node_modules` and Cargo's build folders (marked by a `CACHEDIR.TAG`)
/// are not.
pub(crate) fn files_with_extension(dir: &Path, extension: &str) -> std::io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let path = entry.path();
            let kind = entry.file_type()?;
            if kind.is_dir() {
                let name = entry.file_name();
                if !matches!(name.to_str(), Some("node_modules" | ".git"))
                    && !path.join("CACHEDIR.TAG").exists()
                {
                    pending.push(path);
                }
            } else if path.extension().is_some_and(|found| found == extension) {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}
