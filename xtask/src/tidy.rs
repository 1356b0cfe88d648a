//! `cargo xtask tidy`: the project's structural rules, also run as a `#[test]` so `cargo test`
//! enforces them:
//! - the crates depend on each other only along the arrows of `ARCHITECTURE.md` (normal, dev
//!   and build dependencies alike), and every workspace crate is listed here, so a new crate or
//!   a new arrow is a decision, not an accident;
//! - every Rust file starts with a `//!` comment saying what it is for;
//! - no test is marked to expect a panic or to be skipped, also through `cfg_attr` (a test that
//!   cannot fail, or does not run, is a defect).
//!
//! Printing from libraries is left to the workspace's clippy lints (`print_stdout`,
//! `print_stderr`), which see through macros better than a text search would.
use std::error::Error;
use std::path::Path;

/// Each workspace crate and the workspace crates it may depend on.
const ALLOWED: &[(&str, &[&str])] = &[
    ("botmesh-jsonrpc", &[]),
    ("botmesh-flow-schema", &[]),
    ("botmesh-flow-analyzer", &["botmesh-flow-schema"]),
    ("botmesh-docs-search", &[]),
    (
        "botmesh-mcp",
        &[
            "botmesh-jsonrpc",
            "botmesh-flow-schema",
            "botmesh-flow-analyzer",
            "botmesh-docs-search",
        ],
    ),
    ("botmesh-mcp-http", &["botmesh-mcp"]),
    ("botmesh-mcp-cli", &["botmesh-mcp", "botmesh-mcp-http"]),
    ("xtask", &["botmesh-flow-schema"]),
];

/// The folders whose Rust files are checked.
const SOURCE_FOLDERS: &[&str] = &["crates", "xtask"];

pub(crate) fn run(args: &[&str]) -> Result<(), Box<dyn Error>> {
    if !args.is_empty() {
        return Err("usage: cargo xtask tidy".into());
    }
    let problems = problems(&crate::project_root())?;
    for problem in &problems {
        eprintln!("{problem}");
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{} tidy problem(s)", problems.len()).into())
    }
}

/// Every broken rule, one sentence each.
pub(crate) fn problems(root: &Path) -> Result<Vec<String>, Box<dyn Error>> {
    let mut problems = dependency_problems(&workspace_edges(root)?);
    let mut files = Vec::new();
    for folder in SOURCE_FOLDERS {
        files.extend(crate::files_with_extension(&root.join(folder), "rs")?);
    }
    for file in files {
        let text = std::fs::read_to_string(&file)?;
        problems.extend(file_problems(&shown(root, &file), &text));
    }
    Ok(problems)
}

/// `file` relative to `root`, `/`-separated on every platform: the rules name files (and
/// exempt this one) by that spelling.
fn shown(root: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(root).unwrap_or(file);
    let parts: Vec<_> = relative
        .components()
        .map(|part| part.as_os_str().to_string_lossy())
        .collect();
    parts.join("/")
}

/// `(crate, workspace crate it depends on)` pairs, from `cargo metadata`.
fn workspace_edges(root: &Path) -> Result<Vec<(String, String)>, Box<dyn Error>> {
    let metadata: serde_json::Value = serde_json::from_slice(&cargo_metadata(root)?)?;
    let packages = metadata["packages"]
        .as_array()
        .ok_or("cargo metadata printed no packages")?;
    let names: Vec<&str> = packages
        .iter()
        .filter_map(|package| package["name"].as_str())
        .collect();
    let mut edges = Vec::new();
    for package in packages {
        let name = package["name"].as_str().unwrap_or_default();
        edges.push((name.to_owned(), String::new()));
        for dependency in package["dependencies"].as_array().into_iter().flatten() {
            if let Some(target) = dependency["name"].as_str()
                && names.contains(&target)
            {
                edges.push((name.to_owned(), target.to_owned()));
            }
        }
    }
    Ok(edges)
}

/// What `cargo metadata --format-version 1 --no-deps` prints for the workspace at `root`; read
/// from the file `XTASK_CARGO_METADATA` names when it is set, for test runs that cannot start
/// the host's cargo (the Windows suite under Wine, `.ci/parts/windows.sh`, writes that file).
fn cargo_metadata(root: &Path) -> Result<Vec<u8>, Box<dyn Error>> {
    if let Some(file) = std::env::var_os("XTASK_CARGO_METADATA") {
        return Ok(std::fs::read(file)?);
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .arg("--manifest-path")
        .arg(root.join("Cargo.toml"))
        .output()?;
    if !output.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        )
        .into());
    }
    Ok(output.stdout)
}

/// The rule on arrows between crates. An edge to `""` only says the crate exists.
fn dependency_problems(edges: &[(String, String)]) -> Vec<String> {
    let mut problems = Vec::new();
    for (from, to) in edges {
        match ALLOWED.iter().find(|(name, _)| name == from) {
            None if to.is_empty() => problems.push(format!(
                "the crate {from} is not in xtask/src/tidy.rs: list the workspace crates it may \
                 depend on there (and in ARCHITECTURE.md)"
            )),
            None => {}
            Some((_, allowed)) if !to.is_empty() && !allowed.contains(&to.as_str()) => {
                problems.push(format!(
                    "{from} must not depend on {to} (it may depend on: {}); see ARCHITECTURE.md",
                    if allowed.is_empty() {
                        "no workspace crate".to_owned()
                    } else {
                        allowed.join(", ")
                    }
                ));
            }
            Some(_) => {}
        }
    }
    problems.dedup();
    problems
}

/// The rules on one Rust file's text.
fn file_problems(path: &str, text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if !text.starts_with("//!") {
        problems.push(format!(
            "{path}: start the file with a //! comment saying what it is for"
        ));
    }
    // Spelled in pieces, so that this file does not match itself.
    let rules = [
        (
            concat!("should", "_panic"),
            "assert on a returned error instead",
        ),
        (
            concat!("ig", "nore"),
            "a test that does not run is a defect",
        ),
    ];
    // This file quotes the attributes in its tests.
    let lines = if path.ends_with("xtask/src/tidy.rs") {
        ""
    } else {
        text
    };
    for (index, line) in lines.lines().enumerate() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        // Every `#[…]` on the line, spaces taken out: `#[ignore]`, `#[ ignore = "…" ]`,
        // `#[cfg_attr(not(x), ignore)]`.
        for attribute in code.split("#[").skip(1) {
            let attribute: String = attribute
                .split(']')
                .next()
                .unwrap_or_default()
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            let inner = attribute
                .strip_prefix("cfg_attr(")
                .and_then(|rest| rest.split_once(',').map(|(_, then)| then))
                .unwrap_or(&attribute);
            for (name, why) in rules {
                let named = inner.strip_prefix(name).is_some_and(|rest| {
                    matches!(rest.chars().next(), None | Some('(' | '=' | ')'))
                });
                if named {
                    problems.push(format!(
                        "{path}:{}: #[{name}] is not used here: {why}",
                        index + 1
                    ));
                }
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tidy() {
        let problems = problems(&crate::project_root()).unwrap();
        assert!(
            problems.is_empty(),
            "cargo xtask tidy:\n{}",
            problems.join("\n")
        );
    }

    #[test]
    fn files_are_shown_with_slashes_on_every_platform() {
        let root = crate::project_root();
        let file = root.join("xtask").join("src").join("tidy.rs");
        assert_eq!(shown(&root, &file), "xtask/src/tidy.rs");
    }

    #[test]
    fn each_rule_names_the_place_and_the_fix() {
        let edge = |from: &str, to: &str| (from.to_owned(), to.to_owned());
        expect_test::expect![[r#"
            botmesh-flow-schema must not depend on botmesh-mcp (it may depend on: no workspace crate); see ARCHITECTURE.md
            botmesh-mcp-http must not depend on botmesh-jsonrpc (it may depend on: botmesh-mcp); see ARCHITECTURE.md
            the crate botmesh-new is not in xtask/src/tidy.rs: list the workspace crates it may depend on there (and in ARCHITECTURE.md)
        "#]]
        .assert_eq(
            &(dependency_problems(&[
                edge("botmesh-flow-schema", "botmesh-mcp"),
                edge("botmesh-flow-analyzer", "botmesh-flow-schema"),
                edge("botmesh-mcp-http", "botmesh-jsonrpc"),
                edge("botmesh-new", ""),
            ])
            .join("\n")
                + "\n"),
        );
        let (panic, skip) = (concat!("should", "_panic"), concat!("ig", "nore"));
        let text = format!(
            "use x;\n#[test]\n#[{panic}]\nfn a() {{}}\n    #[test] #[ {skip} = \"slow\" ]\n\
             #[cfg_attr(not(feature = \"slow\"), {skip})]\n// #[{skip}] in a comment\n\
             #[{skip}_for_lint]\nfn b() {{}}\n",
        );
        expect_test::expect![[r#"
            src/a.rs: start the file with a //! comment saying what it is for
            src/a.rs:3: #[should_panic] is not used here: assert on a returned error instead
            src/a.rs:5: #[ignore] is not used here: a test that does not run is a defect
            src/a.rs:6: #[ignore] is not used here: a test that does not run is a defect
        "#]]
        .assert_eq(&(file_problems("src/a.rs", &text).join("\n") + "\n"));
        assert!(file_problems("src/b.rs", "//! Fine.\nfn main() {}\n").is_empty());
    }
}
