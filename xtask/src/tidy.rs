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
//!   no other source file lists them, as strings (an array, the arms of one `match` or an
//!   or-pattern naming more than half of the kinds) or as enum variants (all of them; tests
//!   may);
//! - every limit constant of the product (`MAX_*`, `MIN_*`, `*_LIMIT` in `crates/`) has a row
//!   in the Limits section of `ARCHITECTURE.md`;
//! - the product reads environment variables in one place, `crates/mcp-bin/src/env.rs`, whose
//!   list the end-to-end tests' `command()` clears;
//! - the product writes files only in the operator commands of `WRITERS`, and `ARCHITECTURE.md`,
//!   `README.md` and `docs/index.md` (EN, ES) name each of them;
//! - what `ARCHITECTURE.md` lists of the code is complete: every dependency of `xtask` and every
//!   item at `botmesh_mcp`'s root is named there;
//! - no file of the repository cites the contract folder outside it (`shared/…`): a clone has
//!   only what is in it (the contracts are `docs/spec/`);
//! - a count written in prose of what `COUNTS` knows (step kinds, platforms, npm packages,
//!   published crates) is the code's; other counts are better left out of prose.
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
    let metadata: serde_json::Value = serde_json::from_slice(&cargo_metadata(root)?)?;
    let mut problems = dependency_problems(&workspace_edges(&metadata)?);
    let architecture = std::fs::read_to_string(root.join("ARCHITECTURE.md"))?;
    problems.extend(xtask_dependency_problems(&metadata, &architecture));
    let root_api = std::fs::read_to_string(root.join(ROOT_API))?;
    problems.extend(root_api_problems(&root_api, &architecture));
    for page in WRITERS_NAMED_IN {
        let text = std::fs::read_to_string(root.join(page))?;
        problems.extend(writers_named_problems(page, &text));
    }
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
        problems.extend(environment_problems(&shown, &text));
        problems.extend(writer_problems(&shown, &text));
    }
    let counted = Counted {
        crates: metadata["packages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|package| {
                package["publish"]
                    .as_array()
                    .is_none_or(|to| !to.is_empty())
            })
            .count(),
    };
    for file in cited_files(root)? {
        let text = std::fs::read_to_string(&file)?;
        let shown = shown(root, &file);
        problems.extend(outside_citation_problems(&shown, &text));
        if !shown.ends_with(".rs") {
            problems.extend(count_problems(&shown, &text, &counted));
        }
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
fn workspace_edges(metadata: &serde_json::Value) -> Result<Vec<(String, String)>, Box<dyn Error>> {
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

/// Whether `path` is a test file (`tests.rs`, or under a `tests/` folder).
fn is_test_file(path: &str) -> bool {
    let path = path.replace('\\', "/");
    path.ends_with("tests.rs") || path.contains("/tests/")
}

/// The product's part of a source file: the text before its `#[cfg(test)] mod tests` module.
fn product_code(text: &str) -> &str {
    let mut from = 0;
    while let Some(at) = text[from..].find("#[cfg(test)]") {
        let at = from + at;
        let after = text[at + "#[cfg(test)]".len()..].trim_start();
        if after.starts_with("mod tests {") {
            return &text[..at];
        }
        from = at + 1;
    }
    text
}

/// A source file other than the declaration that holds a list of the step kinds: an array,
/// the arms of one `match` or an or-pattern whose string literals name more than half of the
/// kinds (a `match` on a few kinds is behaviour of those kinds; one on most of them is a second
/// list, which a new or renamed kind silently misses), or an enum with every kind as a variant
/// (a line `Message,` or `Message {`; an enum of most kinds is a model of steps, such as the
/// runtime's compiled ones). Tests are exempt: they may write documents of every kind.
fn step_kind_problems(path: &str, text: &str) -> Vec<String> {
    if path.replace('\\', "/") == STEP_SHAPES || is_test_file(path) {
        return Vec::new();
    }
    let text = product_code(text);
    let kinds = botmesh_flow_schema::StepKind::ALL;
    let most = |named: usize| named * 2 > kinds.len();
    let mut problems = Vec::new();
    let fix = format!("use botmesh_flow_schema::StepKind, declared once in {STEP_SHAPES}");
    for (line, literals) in crate::tokens::literal_groups(&crate::tokens::tokenize(text)) {
        let named: Vec<&str> = kinds
            .iter()
            .map(|kind| kind.as_str())
            .filter(|kind| literals.iter().any(|literal| literal == kind))
            .collect();
        if most(named.len()) {
            problems.push(format!(
                "{path}:{line}: lists {} of the {} step kinds as strings: {fix}",
                named.len(),
                kinds.len()
            ));
        }
    }
    problems.dedup();
    let variants = kinds
        .iter()
        .filter(|kind| {
            let variant = format!("{kind:?}");
            text.lines().any(|line| {
                line.trim()
                    .strip_prefix(&variant)
                    .is_some_and(|rest| matches!(rest.trim(), "," | "{" | "= {"))
            })
        })
        .count();
    if variants == kinds.len() {
        problems.push(format!(
            "{path}: declares every step kind as an enum variant: {fix}"
        ));
    }
    problems
}

/// The one file of the product that reads environment variables.
const ENVIRONMENT: &str = "crates/mcp-bin/src/env.rs";

/// A read of an environment variable in the product's sources outside [`ENVIRONMENT`]: a
/// variable the end-to-end tests would not clear, and a library deciding from the process's
/// surroundings. Benches, examples and tests are not the product.
fn environment_problems(path: &str, text: &str) -> Vec<String> {
    let product = path.starts_with("crates/") && path.contains("/src/") && !is_test_file(path);
    if !product || path == ENVIRONMENT {
        return Vec::new();
    }
    let reads = ["env::var(", "env::var_os(", "env::vars(", "env::vars_os("];
    let mut problems = Vec::new();
    for (index, line) in product_code(text).lines().enumerate() {
        if !line.trim_start().starts_with("//") && reads.iter().any(|read| line.contains(read)) {
            problems.push(format!(
                "{path}:{}: reads an environment variable here: read it through {ENVIRONMENT} (add it to `Var`), so the end-to-end tests' command() clears it and the docs can list it",
                index + 1
            ));
        }
    }
    problems
}

/// The product's sources that write files, and the operator command each serves: nothing else
/// writes (no tool writes to disk). The documents of [`WRITERS_NAMED_IN`] name every command.
const WRITERS: &[(&str, &str)] = &[
    ("crates/mcp-bin/src/chat.rs", "chat --save-test"),
    ("crates/mcp-bin/src/check.rs", "check --fix"),
    ("crates/mcp-bin/src/migrate.rs", "migrate --write"),
    ("crates/mcp-bin/src/render.rs", "render -o"),
    ("crates/mcp-http/src/audit.rs", "--audit"),
    ("crates/mcp-http/src/tokens.rs", "token new"),
];

/// The documents that say which commands write files.
const WRITERS_NAMED_IN: &[&str] = &[
    "ARCHITECTURE.md",
    "README.md",
    "docs/index.md",
    "docs/es/index.md",
];

/// A file write in the product's sources outside [`WRITERS`].
fn writer_problems(path: &str, text: &str) -> Vec<String> {
    let product = path.starts_with("crates/") && path.contains("/src/") && !is_test_file(path);
    if !product || WRITERS.iter().any(|(file, _)| *file == path) {
        return Vec::new();
    }
    let writes = [
        "fs::write(",
        "File::create(",
        "OpenOptions::new(",
        "fs::rename(",
        "fs::copy(",
        "fs::create_dir",
        "fs::remove_",
    ];
    let mut problems = Vec::new();
    for (index, line) in product_code(text).lines().enumerate() {
        let code = line.trim_start();
        if !code.starts_with("//") && writes.iter().any(|write| code.contains(write)) {
            problems.push(format!(
                "{path}:{}: writes a file here: only the operator commands of WRITERS in xtask/src/tidy.rs write files; if this is a new one, add it there and name it where ARCHITECTURE.md, README.md and docs/index.md (EN, ES) say which commands write files",
                index + 1
            ));
        }
    }
    problems
}

/// A document that does not name every command of [`WRITERS`] (in a code span, which may go
/// on with the value: `` `--audit FILE` ``).
fn writers_named_problems(page: &str, text: &str) -> Vec<String> {
    WRITERS
        .iter()
        .filter(|(_, command)| !text.contains(&format!("`{command}")))
        .map(|(file, command)| {
            format!(
                "{page}: does not name `{command}` ({file}) among the commands that write files"
            )
        })
        .collect()
}

/// `ARCHITECTURE.md`'s section on `xtask`, which names its dependencies.
fn xtask_section(architecture: &str) -> &str {
    architecture
        .split_once("\n### `xtask`\n")
        .map_or("", |(_, rest)| rest.split("\n## ").next().unwrap_or(rest))
}

/// A normal dependency of `xtask` that `ARCHITECTURE.md`'s `xtask` section does not name (a
/// workspace crate may be named without its `botmesh-` prefix).
fn xtask_dependency_problems(metadata: &serde_json::Value, architecture: &str) -> Vec<String> {
    let section = xtask_section(architecture);
    let packages = metadata["packages"].as_array().into_iter().flatten();
    let xtask = packages
        .into_iter()
        .find(|package| package["name"] == "xtask");
    let dependencies = xtask
        .and_then(|package| package["dependencies"].as_array())
        .into_iter()
        .flatten()
        .filter(|dependency| dependency["kind"].is_null())
        .filter_map(|dependency| dependency["name"].as_str());
    dependencies
        .filter(|name| {
            let short = name.strip_prefix("botmesh-").unwrap_or(name);
            !section.contains(&format!("`{name}`")) && !section.contains(&format!("`{short}`"))
        })
        .map(|name| {
            format!(
                "ARCHITECTURE.md, section xtask: the dependency `{name}` of xtask/Cargo.toml is not named: say what it is for"
            )
        })
        .collect()
}

/// The root of `botmesh_mcp`, whose items are its whole API.
const ROOT_API: &str = "crates/mcp-server/src/lib.rs";

/// The items a crate root exports: the names of `pub use` (after `as`) and of `pub` items.
fn root_items(lib: &str) -> Vec<String> {
    let mut items = Vec::new();
    let code = product_code(lib);
    for (at, _) in code.match_indices("\npub use ") {
        let statement = &code[at + "\npub use ".len()..];
        let statement = &statement[..statement.find(';').unwrap_or(statement.len())];
        let names = statement.split_once('{').map_or(statement, |(_, inside)| {
            inside.trim_end().trim_end_matches('}')
        });
        for name in names.split(',') {
            let name = name.trim();
            let name = name.rsplit(" as ").next().unwrap_or(name);
            let name = name.rsplit("::").next().unwrap_or(name).trim();
            if !name.is_empty() && name != "self" {
                items.push(name.to_owned());
            }
        }
    }
    for line in code.lines() {
        for keyword in [
            "const", "fn", "struct", "enum", "static", "type", "mod", "trait",
        ] {
            if let Some(rest) = line.strip_prefix(&format!("pub {keyword} ")) {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                items.push(name);
            }
        }
    }
    items
}

/// An item at `botmesh_mcp`'s root that `ARCHITECTURE.md`'s list of the semver-covered API
/// (the paragraph starting "**API Boundary:** the items named at the crate root") leaves out.
fn root_api_problems(lib: &str, architecture: &str) -> Vec<String> {
    let marker = "**API Boundary:** the items named at the crate root";
    let paragraph = architecture
        .split_once(marker)
        .map_or("", |(_, rest)| rest.split('\n').next().unwrap_or(rest));
    root_items(lib)
        .into_iter()
        .filter(|item| !paragraph.contains(&format!("`{item}`")))
        .map(|item| {
            format!(
                "ARCHITECTURE.md (mcp-server, \"{marker}\"): the root item `{item}` of {ROOT_API} is not named: add it to the list of the semver-covered API"
            )
        })
        .collect()
}

/// A count written in prose that tidy holds to the code: a number (digits, or a word in
/// English or Spanish) right before one of `nouns` (the longest that follows it).
struct Count {
    nouns: &'static [&'static str],
    /// The count, from the code.
    value: fn(&Counted) -> usize,
    /// Where the count comes from, for the message.
    source: &'static str,
}

/// What the counts are read from.
struct Counted {
    /// The crates published to crates.io (the workspace but `xtask`).
    crates: usize,
}

/// The counts prose may write (each held to the code); a count of something else that adds
/// nothing is better left out of prose.
const COUNTS: &[Count] = &[
    Count {
        nouns: &["step kinds", "tipos de paso"],
        value: |_| botmesh_flow_schema::StepKind::ALL.len(),
        source: "botmesh_flow_schema::StepKind::ALL",
    },
    Count {
        nouns: &[
            "platforms",
            "platform packages",
            "builds",
            "binaries",
            "plataformas",
            "paquetes de plataforma",
            "compilaciones",
        ],
        value: |_| crate::dist::PLATFORMS.len(),
        source: "PLATFORMS in xtask/src/dist.rs",
    },
    Count {
        nouns: &["npm packages", "packages", "paquetes npm", "paquetes"],
        value: |_| crate::dist::PLATFORMS.len() + 1,
        source: "PLATFORMS in xtask/src/dist.rs, and the launcher",
    },
    Count {
        nouns: &["crates"],
        value: |counted| counted.crates,
        source: "the published crates of the workspace (cargo metadata)",
    },
];

/// The number a word spells (`6`, `six`, `seis`), up to twenty.
fn number(word: &str) -> Option<usize> {
    const ENGLISH: [&str; 21] = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
        "twenty",
    ];
    const SPANISH: [&str; 21] = [
        "cero",
        "uno",
        "dos",
        "tres",
        "cuatro",
        "cinco",
        "seis",
        "siete",
        "ocho",
        "nueve",
        "diez",
        "once",
        "doce",
        "trece",
        "catorce",
        "quince",
        "dieciséis",
        "diecisiete",
        "dieciocho",
        "diecinueve",
        "veinte",
    ];
    let word = word.to_lowercase();
    let word = if word == "una" { "uno" } else { word.as_str() };
    word.parse().ok().or_else(|| {
        ENGLISH
            .iter()
            .position(|w| *w == word)
            .or_else(|| SPANISH.iter().position(|w| *w == word))
    })
}

/// The counts of [`COUNTS`] a page writes that the code disagrees with.
fn count_problems(path: &str, text: &str, counted: &Counted) -> Vec<String> {
    let mut problems = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let words: Vec<&str> = line
            .split(|c: char| !(c.is_alphanumeric() || c == ' '))
            .flat_map(|part| part.split(' ').chain(std::iter::once("")))
            .collect();
        for (at, word) in words.iter().enumerate() {
            let Some(written) = number(word) else {
                continue;
            };
            let rest = words[at + 1..].join(" ");
            let found = COUNTS
                .iter()
                .flat_map(|count| count.nouns.iter().map(move |noun| (count, *noun)))
                .filter(|(_, noun)| {
                    rest.strip_prefix(noun)
                        .is_some_and(|after| after.is_empty() || after.starts_with(' '))
                })
                .max_by_key(|(_, noun)| noun.len());
            if let Some((count, noun)) = found {
                let value = (count.value)(counted);
                if value != written {
                    problems.push(format!(
                        "{path}:{}: says {word} {noun}, but there are {value} ({}): write the number, or leave it out if it adds nothing",
                        index + 1,
                        count.source
                    ));
                }
            }
        }
    }
    problems
}

/// The repository's text files that may cite paths: Markdown pages (not the evaluation
/// corpora, which are other projects' pages), Rust sources, manifests and scripts.
fn cited_files(root: &Path) -> Result<Vec<std::path::PathBuf>, Box<dyn Error>> {
    let mut files = Vec::new();
    for extension in ["md", "rs", "toml", "sh"] {
        for file in crate::files_with_extension(root, extension)? {
            let rel = shown(root, &file);
            let corpus = rel.starts_with("eval/") && rel.contains("/corpus/");
            if !corpus {
                files.push(file);
            }
        }
    }
    Ok(files)
}

/// A citation of the contract folder outside the repository, which a clone does not have.
fn outside_citation_problems(path: &str, text: &str) -> Vec<String> {
    // This file quotes the rule's messages in its tests.
    if path == "xtask/src/tidy.rs" {
        return Vec::new();
    }
    // Spelled in pieces, so that this file does not match itself.
    let outside = [
        concat!("shared", "/spec/"),
        concat!("shared", "/seeds/"),
        concat!("shared", "/reference/"),
        concat!("shared", "/eval/"),
        concat!("shared", "/conventions/"),
        concat!("/work", "/shared"),
    ];
    let mut problems = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if let Some(cited) = outside.iter().find(|cited| line.contains(*cited)) {
            problems.push(format!(
                "{path}:{}: cites `{cited}…`, outside the repository, which a clone does not have: cite the copy in the repository (the contracts are docs/spec/), or copy what is needed into it",
                index + 1
            ));
        }
    }
    problems
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
        let quoted: Vec<String> = kinds
            .iter()
            .map(|k| format!("\"{}\"", k.as_str()))
            .collect();
        let strings = format!("//! x\nconst KINDS: &[&str] = &[{}];\n", quoted.join(", "));
        let variants: Vec<String> = kinds.iter().map(|k| format!("    {k:?},\n")).collect();
        let variants = format!("//! x\nenum Kind {{\n{}}}\n", variants.concat());
        expect_test::expect![[r#"
            crates/a/src/kinds.rs:2: lists 14 of the 14 step kinds as strings: use botmesh_flow_schema::StepKind, declared once in crates/flow-schema/src/model.rs
        "#]]
        .assert_eq(&(step_kind_problems("crates/a/src/kinds.rs", &strings).join("\n") + "\n"));
        assert_eq!(
            step_kind_problems("crates/a/src/kinds.rs", &variants),
            [
                "crates/a/src/kinds.rs: declares every step kind as an enum variant: use botmesh_flow_schema::StepKind, declared once in crates/flow-schema/src/model.rs"
            ]
        );
        // The runtime's dispatch of issue 43: a `match` on all kinds but one, the last one the
        // catch-all arm, and an or-pattern in `matches!`.
        let arms: Vec<String> = quoted[1..]
            .iter()
            .map(|k| format!("        {k} => {},\n", k.len()))
            .collect();
        let dispatch = format!(
            "//! x\nfn f(kind: &str) -> usize {{\n    match kind {{\n{}        _ => 0,\n    }}\n}}\n",
            arms.concat()
        );
        assert_eq!(
            step_kind_problems("crates/a/src/set.rs", &dispatch),
            [
                "crates/a/src/set.rs:4: lists 13 of the 14 step kinds as strings: use botmesh_flow_schema::StepKind, declared once in crates/flow-schema/src/model.rs"
            ]
        );
        let chain = format!(
            "//! x\nlet waits = matches!(k, {});\n",
            quoted[..8].join(" | ")
        );
        assert_eq!(step_kind_problems("crates/a/src/w.rs", &chain).len(), 1);
        // Half of the kinds or fewer is behaviour of those kinds (the shapes of a picture), and
        // tests, the declaration and a file's test module may list them all.
        let shapes = format!(
            "//! x\nfn shape(kind: &str) -> u8 {{ match kind {{ {} => 1, _ => 0 }} }}\n",
            quoted[..7].join(" | ")
        );
        assert!(step_kind_problems("crates/a/src/picture.rs", &shapes).is_empty());
        let keys = format!("//! x\nconst KEYS: [(&str, u8); 14] = [{}];\n", {
            let pairs: Vec<String> = quoted.iter().map(|k| format!("({k}, 1)")).collect();
            pairs.join(", ")
        });
        assert!(step_kind_problems("crates/a/src/keys.rs", &keys).is_empty());
        assert!(step_kind_problems("crates/a/src/tests.rs", &strings).is_empty());
        assert!(step_kind_problems("crates/a/tests/it/main.rs", &variants).is_empty());
        assert!(step_kind_problems(STEP_SHAPES, &variants).is_empty());
        let in_tests = format!("//! x\nfn f() {{}}\n\n#[cfg(test)]\nmod tests {{\n{strings}}}\n");
        assert!(step_kind_problems("crates/a/src/lib.rs", &in_tests).is_empty());
    }

    #[test]
    fn environment_reads_and_file_writes_are_found_outside_their_places() {
        let text = "//! x\nlet a = std::env::var(\"A\");\n// std::env::var_os(\"B\") in a comment\n\
                    std::fs::write(&path, text)?;\nlet f = std::fs::OpenOptions::new();\n\
                    let args = std::env::args_os();\n";
        expect_test::expect![[r#"
            crates/a/src/lib.rs:2: reads an environment variable here: read it through crates/mcp-bin/src/env.rs (add it to `Var`), so the end-to-end tests' command() clears it and the docs can list it
            crates/a/src/lib.rs:4: writes a file here: only the operator commands of WRITERS in xtask/src/tidy.rs write files; if this is a new one, add it there and name it where ARCHITECTURE.md, README.md and docs/index.md (EN, ES) say which commands write files
            crates/a/src/lib.rs:5: writes a file here: only the operator commands of WRITERS in xtask/src/tidy.rs write files; if this is a new one, add it there and name it where ARCHITECTURE.md, README.md and docs/index.md (EN, ES) say which commands write files
        "#]]
        .assert_eq(
            &([
                environment_problems("crates/a/src/lib.rs", text),
                writer_problems("crates/a/src/lib.rs", text),
            ]
            .concat()
            .join("\n")
                + "\n"),
        );
        assert!(environment_problems(ENVIRONMENT, text).is_empty());
        assert!(writer_problems("crates/mcp-bin/src/render.rs", text).is_empty());
        for elsewhere in [
            "crates/a/src/tests.rs",
            "crates/a/tests/it/main.rs",
            "crates/a/benches/b.rs",
            "crates/a/examples/e.rs",
            "xtask/src/dist.rs",
        ] {
            assert!(
                environment_problems(elsewhere, text).is_empty(),
                "{elsewhere}"
            );
            assert!(writer_problems(elsewhere, text).is_empty(), "{elsewhere}");
        }
        let page = "Only `chat --save-test FILE`, `check --fix`, `migrate --write`, `render -o FILE` and `token new` write files.";
        assert_eq!(
            writers_named_problems("README.md", page),
            [
                "README.md: does not name `--audit` (crates/mcp-http/src/audit.rs) among the commands that write files"
            ]
        );
    }

    #[test]
    fn architecture_lists_every_dependency_of_xtask_and_every_root_item() {
        let metadata = serde_json::json!({ "packages": [{ "name": "xtask", "dependencies": [
            { "name": "botmesh-flow-schema", "kind": null },
            { "name": "serde_json", "kind": null },
            { "name": "object", "kind": null },
            { "name": "expect-test", "kind": "dev" },
        ] }] });
        let architecture = "## Code Map\n`object` elsewhere\n### `xtask`\n\nIts dependencies are \
                            `flow-schema` and `serde_json`.\n\n## Next\n`object`\n";
        assert_eq!(
            xtask_dependency_problems(&metadata, architecture),
            [
                "ARCHITECTURE.md, section xtask: the dependency `object` of xtask/Cargo.toml is not named: say what it is for"
            ]
        );
        let lib = "//! x\nmod a;\npub use a::{B, C as D};\npub use e::{\n    F,\n    G,\n};\n\
                   pub use h::I;\npub const J: u8 = 1;\npub fn k() {}\nfn private() {}\n\
                   #[cfg(test)]\nmod tests {\npub fn l() {}\n}\n";
        assert_eq!(root_items(lib), ["B", "D", "F", "G", "I", "J", "k"]);
        let architecture = "**API Boundary:** the items named at the crate root are the API \
                            (`B`, `D`, `F`, `G`, `I`, `J`).\n`k` on another line\n";
        assert_eq!(root_api_problems(lib, architecture).len(), 1);
        assert!(root_api_problems(lib, architecture)[0].contains("the root item `k` of"));
    }

    #[test]
    fn a_count_in_prose_is_held_to_the_code() {
        let counted = Counted { crates: 9 };
        let text = "The 14 step kinds, los catorce tipos de paso, 12 of the 14 step kinds.\n\
                    All seven npm packages (the six platform packages and the launcher), the \
                    seven packages, los siete paquetes, seis plataformas; nine crates.\n\
                    Five crates of the workspace and 13 step kinds, six times faster, two tools.\n";
        expect_test::expect![[r#"
            README.md:3: says Five crates, but there are 9 (the published crates of the workspace (cargo metadata)): write the number, or leave it out if it adds nothing
            README.md:3: says 13 step kinds, but there are 14 (botmesh_flow_schema::StepKind::ALL): write the number, or leave it out if it adds nothing
        "#]]
        .assert_eq(&(count_problems("README.md", text, &counted).join("\n") + "\n"));
        assert_eq!(number("Seis"), Some(6));
        assert_eq!(number("una"), Some(1));
        assert_eq!(number("300"), Some(300));
        assert_eq!(number("steps"), None);
    }

    #[test]
    fn a_citation_outside_the_repository_is_found() {
        let text = format!(
            "//! See `{}` §3.\n// and `docs/spec/flow-runtime.md`, `flows/shared/menu.json`\n",
            concat!("shared", "/spec/flow-document.md")
        );
        expect_test::expect![[r#"
            crates/a/src/lib.rs:1: cites `shared/spec/…`, outside the repository, which a clone does not have: cite the copy in the repository (the contracts are docs/spec/), or copy what is needed into it
        "#]]
        .assert_eq(&(outside_citation_problems("crates/a/src/lib.rs", &text).join("\n") + "\n"));
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
