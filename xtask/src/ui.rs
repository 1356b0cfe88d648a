//! `cargo xtask ui [--check]`: builds (or checks) the MCP Apps view of the server,
//! `crates/mcp-server/ui/flow-view.html`, from its sources in `tools/ui/` (the view's script
//! bundled with the official `App` class of `@modelcontextprotocol/ext-apps` by esbuild, all
//! inlined into one HTML file). It needs Node and npm: it installs `tools/ui/node_modules` from
//! the lock file when that changed (`npm ci`), then runs `node tools/ui/build.mjs [--check]`,
//! which fails under `--check` unless the committed file is byte for byte what the sources build.
//!
//! Without Node, a test here recomputes the stamp the build writes into the file (the SHA-256 of
//! the files it names) from the sources as they are, so a source edited without a rebuild fails
//! `cargo test`; `.ci/parts/ui.sh` runs the full `--check`.
use std::error::Error;
use std::path::Path;
use std::process::Command;

/// The built view, relative to the workspace root.
const VIEW: &str = "crates/mcp-server/ui/flow-view.html";

/// The view's sources, relative to the workspace root.
const SOURCES: &str = "tools/ui";

pub(crate) fn run(args: &[&str]) -> Result<(), Box<dyn Error>> {
    let check = match args {
        [] => false,
        ["--check"] => true,
        _ => return Err("usage: cargo xtask ui [--check]".into()),
    };
    let dir = crate::project_root().join(SOURCES);
    install(&dir)?;
    let mut build = Command::new("node");
    build.arg("build.mjs").current_dir(&dir);
    if check {
        build.arg("--check");
    }
    let status = build
        .status()
        .map_err(|error| format!("cannot run node (is Node.js installed?): {error}"))?;
    if !status.success() {
        return Err(if check {
            format!("{VIEW} is stale: run `cargo xtask ui`").into()
        } else {
            "the view's build failed".into()
        });
    }
    Ok(())
}

/// `npm ci` in `dir` unless `node_modules` was installed from this very lock file.
fn install(dir: &Path) -> Result<(), Box<dyn Error>> {
    let lock = std::fs::read(dir.join("package-lock.json"))?;
    let marker = dir.join("node_modules/.installed-package-lock.json");
    if std::fs::read(&marker).ok().as_deref() == Some(&lock[..]) {
        return Ok(());
    }
    let status = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
        .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
        .current_dir(dir)
        .status()
        .map_err(|error| format!("cannot run npm (is Node.js installed?): {error}"))?;
    if !status.success() {
        return Err("npm ci failed in tools/ui".into());
    }
    std::fs::write(marker, lock)?;
    Ok(())
}

/// The stamp the build writes for the sources in `dir` as they are now: `sha256 of FILES: HEX`,
/// FILES being `build.mjs`, `package.json`, `package-lock.json` and every file of `src/` in name
/// order, HEX the SHA-256 over each file's name, a NUL, its text with CRLF read as LF, a NUL
/// (`stamp()` in `tools/ui/build.mjs`).
#[cfg(test)]
fn stamp(dir: &Path) -> Result<String, Box<dyn Error>> {
    use sha2::{Digest, Sha256};
    let mut sources: Vec<String> = std::fs::read_dir(dir.join("src"))?
        .map(|entry| Ok(format!("src/{}", entry?.file_name().to_string_lossy())))
        .collect::<Result<_, std::io::Error>>()?;
    sources.sort();
    let mut files = vec![
        "build.mjs".to_owned(),
        "package.json".to_owned(),
        "package-lock.json".to_owned(),
    ];
    files.extend(sources);
    let mut hash = Sha256::new();
    for file in &files {
        let text = std::fs::read_to_string(dir.join(file))?.replace("\r\n", "\n");
        hash.update(file.as_bytes());
        hash.update([0]);
        hash.update(text.as_bytes());
        hash.update([0]);
    }
    let hex: String = hash
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    Ok(format!("sha256 of {}: {hex}", files.join(" ")))
}

#[test]
fn the_view_is_built_from_its_sources_as_they_are() {
    let root = crate::project_root();
    let view = std::fs::read_to_string(root.join(VIEW)).unwrap();
    let expected = stamp(&root.join(SOURCES)).unwrap();
    let line = view.lines().nth(1).unwrap_or_default();
    assert!(
        line.contains(&format!(" {expected} -->")),
        "{VIEW} was not built from the sources in {SOURCES} as they are: run `cargo xtask ui`\n\
         its stamp: {line}\nthe sources': {expected}"
    );
}

#[test]
fn the_view_is_one_document_that_fetches_nothing() {
    let view = std::fs::read_to_string(crate::project_root().join(VIEW)).unwrap();
    assert!(view.starts_with("<!doctype html>\n<!-- botmesh-mcp flow view"));
    assert_eq!(view.matches("<script").count(), 1, "one inline script");
    assert_eq!(view.matches("</script>").count(), 1);
    for reference in ["<script src", "<link", "@import", "url(http", "src=\"http"] {
        assert!(!view.contains(reference), "the view refers to {reference}");
    }
}
