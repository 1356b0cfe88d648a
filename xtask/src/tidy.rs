//! `cargo xtask tidy`: the project's structural rules, also run as a `#[test]` so `cargo test`
//! enforces them:
//! - the crates depend on each other only along the arrows listed here in `ALLOWED` (normal,
//!   dev and build dependencies alike; `ARCHITECTURE.md` draws them), and every workspace crate
//!   is listed, so a new crate or
//!   a new arrow is a decision, not an accident;
//! - `botmesh-mcp-http` carries messages and makes no protocol decision: its sources never look
//!   into a JSON-RPC message or answer (`method`, `params`, `id`, `result`, `error`, a JSON
//!   pointer), they ask `botmesh_mcp` (`McpServer::plan`, `McpServer::serve`);
//! - every Rust file starts with a `//!` comment saying what it is for;
//! - no test is marked to expect a panic or to be skipped, also through `cfg_attr` (a test that
//!   cannot fail, or does not run, is a defect);
//! - the step kinds are declared once (`step_shapes!` in `crates/flow-schema/src/model.rs`):
//!   no other source file lists them all, as strings or as enum variants (tests may);
//! - every limit constant of the product (`MAX_*`, `MIN_*`, `*_LIMIT` in `crates/`) has a row
//!   in the Limits section of `ARCHITECTURE.md`.
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
    (
        "botmesh-flow-render",
        &["botmesh-flow-analyzer", "botmesh-flow-schema"],
    ),
    // The analyzer: coverage counts the edges of its graph (and a test checks every
    // transition is one of them).
    (
        "botmesh-flow-runtime",
        &["botmesh-flow-schema", "botmesh-flow-analyzer"],
    ),
    ("botmesh-docs-search", &[]),
    (
        "botmesh-mcp",
        &[
            "botmesh-jsonrpc",
            "botmesh-flow-schema",
            "botmesh-flow-analyzer",
            "botmesh-flow-render",
            "botmesh-flow-runtime",
            "botmesh-docs-search",
        ],
    ),
    ("botmesh-mcp-http", &["botmesh-mcp"]),
    // `check` runs the analyzer, `render` the renderer and `migrate` flow-schema's migration
    // directly (`botmesh_mcp` exports no engine).
    (
        "botmesh-mcp-cli",
        &[
            "botmesh-mcp",
            "botmesh-mcp-http",
            "botmesh-flow-schema",
            "botmesh-flow-analyzer",
            "botmesh-flow-render",
            "botmesh-flow-runtime",
        ],
    ),
    (
        "xtask",
        &[
            "botmesh-flow-schema",
            "botmesh-flow-render",
            "botmesh-flow-runtime",
        ],
    ),
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
    let architecture = std::fs::read_to_string(root.join("ARCHITECTURE.md"))?;
    let mut files = Vec::new();
    for folder in SOURCE_FOLDERS {
        files.extend(crate::files_with_extension(&root.join(folder), "rs")?);
    }
    for file in files {
        let text = std::fs::read_to_string(&file)?;
        let shown = shown(root, &file);
        problems.extend(file_problems(&shown, &text));
        problems.extend(transport_problems(&shown, &text));
        problems.extend(step_kind_problems(&shown, &text));
        problems.extend(limit_problems(&shown, &text, &architecture));
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
pub(crate) fn cargo_metadata(root: &Path) -> Result<Vec<u8>, Box<dyn Error>> {
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
                 depend on there (and draw it in ARCHITECTURE.md)"
            )),
            None => {}
            Some((_, allowed)) if !to.is_empty() && !allowed.contains(&to.as_str()) => {
                problems.push(format!(
                    "{from} must not depend on {to} (it may depend on: {}); the arrows are ALLOWED in xtask/src/tidy.rs",
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

/// The HTTP transport's sources (its tests may read answers).
const TRANSPORT_SOURCES: &str = "crates/mcp-http/src/";

/// A line of the HTTP transport's sources that looks into a JSON-RPC message or answer: a
/// protocol decision made outside `botmesh_mcp`.
fn transport_problems(path: &str, text: &str) -> Vec<String> {
    if !path.starts_with(TRANSPORT_SOURCES) {
        return Vec::new();
    }
    let keys = ["method", "params", "id", "result", "error"];
    let mut problems = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        let looks = keys.iter().any(|key| {
            code.contains(&format!(".get(\"{key}\")")) || code.contains(&format!("[\"{key}\"]"))
        }) || code.contains(".pointer(");
        if looks {
            problems.push(format!(
                "{path}:{}: the HTTP transport reads a JSON-RPC message or answer here: ask botmesh_mcp (McpServer::plan, McpServer::serve) instead",
                index + 1
            ));
        }
    }
    problems
}

/// The file that declares the step kinds.
const STEP_SHAPES: &str = "crates/flow-schema/src/model.rs";

/// A source file other than the declaration that names every step kind, as a string literal
/// (`"message"`) or as an enum variant (a line `Message,` or `Message {`), holds a second list
/// of the kinds. Tests are exempt: they may write documents of every kind.
fn step_kind_problems(path: &str, text: &str) -> Vec<String> {
    let path_slashes = path.replace('\\', "/");
    let test = path_slashes.ends_with("tests.rs") || path_slashes.contains("/tests/");
    if path_slashes == STEP_SHAPES || test {
        return Vec::new();
    }
    let kinds = botmesh_flow_schema::StepKind::ALL;
    let as_strings = kinds
        .iter()
        .all(|kind| text.contains(&format!("\"{}\"", kind.as_str())));
    let as_variants = kinds.iter().all(|kind| {
        let variant = format!("{kind:?}");
        text.lines().any(|line| {
            line.trim()
                .strip_prefix(&variant)
                .is_some_and(|rest| matches!(rest.trim(), "," | "{" | "= {"))
        })
    });
    if as_strings || as_variants {
        vec![format!(
            "{path}: lists every step kind again: use botmesh_flow_schema::StepKind, declared once in {STEP_SHAPES}"
        )]
    } else {
        Vec::new()
    }
}

/// Limit constants of the product's crates (not tests) that the Limits table of
/// `ARCHITECTURE.md` does not name (as `` `NAME` `` or `` `path::NAME` ``).
fn limit_problems(path: &str, text: &str, architecture: &str) -> Vec<String> {
    let path_slashes = path.replace('\\', "/");
    let test = path_slashes.ends_with("tests.rs") || path_slashes.contains("/tests/");
    if !path_slashes.starts_with("crates/") || test {
        return Vec::new();
    }
    let limits = architecture
        .split_once("\n## Limits\n")
        .map_or("", |(_, rest)| rest.split("\n## ").next().unwrap_or(rest));
    let mut problems = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let Some((_, rest)) = line.split_once("const ") else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
            .collect();
        let limit = name.starts_with("MAX_")
            || name.starts_with("MIN_")
            || name.starts_with("DEFAULT_MAX_")
            || name.ends_with("_LIMIT");
        if limit && !line.trim_start().starts_with("//") && !limits.contains(&format!("{name}`")) {
            problems.push(format!(
                "{path}:{}: the limit {name} has no row in the Limits section of ARCHITECTURE.md: add one naming it",
                index + 1
            ));
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
            botmesh-flow-schema must not depend on botmesh-mcp (it may depend on: no workspace crate); the arrows are ALLOWED in xtask/src/tidy.rs
            botmesh-mcp-http must not depend on botmesh-jsonrpc (it may depend on: botmesh-mcp); the arrows are ALLOWED in xtask/src/tidy.rs
            the crate botmesh-new is not in xtask/src/tidy.rs: list the workspace crates it may depend on there (and draw it in ARCHITECTURE.md)
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

    #[test]
    fn the_http_transport_may_not_look_into_messages() {
        let text = "//! x\nlet m = message.get(\"method\");\n// message.get(\"id\") in a comment\n\
                    let c = answer.pointer(\"/error/code\");\nlet p = &message[\"params\"];\n\
                    let h = headers.get(\"mcp-method\");\n";
        expect_test::expect![[r#"
            crates/mcp-http/src/service.rs:2: the HTTP transport reads a JSON-RPC message or answer here: ask botmesh_mcp (McpServer::plan, McpServer::serve) instead
            crates/mcp-http/src/service.rs:4: the HTTP transport reads a JSON-RPC message or answer here: ask botmesh_mcp (McpServer::plan, McpServer::serve) instead
            crates/mcp-http/src/service.rs:5: the HTTP transport reads a JSON-RPC message or answer here: ask botmesh_mcp (McpServer::plan, McpServer::serve) instead
        "#]]
        .assert_eq(&(transport_problems("crates/mcp-http/src/service.rs", text).join("\n") + "\n"));
        assert!(transport_problems("crates/mcp-http/tests/it/main.rs", text).is_empty());
        assert!(transport_problems("crates/mcp-server/src/exchange.rs", text).is_empty());
    }

    #[test]
    fn a_second_list_of_the_step_kinds_is_found() {
        let kinds = botmesh_flow_schema::StepKind::ALL;
        let strings: Vec<String> = kinds
            .iter()
            .map(|k| format!("\"{}\"", k.as_str()))
            .collect();
        let strings = format!("//! x\nconst KINDS: &[&str] = &[{}];\n", strings.join(", "));
        let variants: Vec<String> = kinds.iter().map(|k| format!("    {k:?},\n")).collect();
        let variants = format!("//! x\nenum Kind {{\n{}}}\n", variants.concat());
        expect_test::expect![[r#"
            crates/a/src/kinds.rs: lists every step kind again: use botmesh_flow_schema::StepKind, declared once in crates/flow-schema/src/model.rs
        "#]]
        .assert_eq(&(step_kind_problems("crates/a/src/kinds.rs", &strings).join("\n") + "\n"));
        assert_eq!(
            step_kind_problems("crates/a/src/kinds.rs", &variants).len(),
            1
        );
        // One kind fewer is not a list of the kinds; tests and the declaration may list them.
        let fewer = strings.replacen(&format!("\"{}\"", kinds[0].as_str()), "\"x\"", 1);
        assert!(step_kind_problems("crates/a/src/kinds.rs", &fewer).is_empty());
        assert!(step_kind_problems("crates/a/src/tests.rs", &strings).is_empty());
        assert!(step_kind_problems("crates/a/tests/it/main.rs", &variants).is_empty());
        assert!(step_kind_problems(STEP_SHAPES, &variants).is_empty());
    }

    #[test]
    fn a_limit_missing_from_the_architecture_table_is_found() {
        let architecture = "# A\n`MAX_B`\n## Limits\n| x | 1 | `a::MAX_A` |\n## Next\n`MAX_C`\n";
        let text = "//! x\npub const MAX_A: usize = 1;\nconst MAX_B: u8 = 2;\n// const MIN_X: u8 = 0;\n\
                    pub(crate) const BODY_LIMIT: usize = 3;\nconst MAXIMUM: u8 = 4;\n";
        expect_test::expect![[r#"
            crates/a/src/lib.rs:3: the limit MAX_B has no row in the Limits section of ARCHITECTURE.md: add one naming it
            crates/a/src/lib.rs:5: the limit BODY_LIMIT has no row in the Limits section of ARCHITECTURE.md: add one naming it
        "#]]
        .assert_eq(&(limit_problems("crates/a/src/lib.rs", text, architecture).join("\n") + "\n"));
        assert!(limit_problems("crates/a/src/tests.rs", text, architecture).is_empty());
        assert!(limit_problems("xtask/src/dist.rs", text, architecture).is_empty());
    }
}
