//! The tool tables of `README.md` and of the tools reference (`docs/reference/tools.md`, EN and
//! ES) against the catalogue, so that a tool or an argument added, renamed or removed without
//! its documentation fails here, naming the page, the tool and the argument:
//! - each table of tools (first column `tool` or `herramienta`, second its arguments) has one
//!   row per tool, and a row's arguments are the tool's `inputSchema` properties: an optional
//!   one written `name?`, a required one `name`, and two that a call gives one of (neither
//!   required) written "`a` or `b`" ("`a` o `b`");
//! - in the reference, a tool's section (`## name`) with a table of arguments (first column
//!   `argument` or `argumento`) names every argument of the tool there, and nothing else.

use botmesh_mcp::{ServerOptions, Session, create_mcp_server};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::Path;

/// The repository's root.
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// The pages with a table of tools.
const PAGES: [&str; 3] = [
    "README.md",
    "docs/reference/tools.md",
    "docs/es/reference/tools.md",
];

/// Every tool the server can serve (the docs tools included) with its argument names and the
/// required ones.
fn catalogue() -> Vec<(String, BTreeSet<String>, BTreeSet<String>)> {
    let options = ServerOptions::default().with_docs_dir(Some(Path::new(ROOT).join("docs")));
    let server = create_mcp_server(options).expect("a server");
    let mut session = Session::new();
    let initialize = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": { "name": "documented", "version": "1" } } });
    server.handle_value(&mut session, initialize);
    let list = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list" });
    let answer = server
        .handle_value(&mut session, list)
        .expect("a tools/list answer");
    let names = |value: &Value| -> BTreeSet<String> {
        match value {
            Value::Object(map) => map.keys().cloned().collect(),
            Value::Array(items) => items
                .iter()
                .filter_map(|item| item.as_str().map(str::to_owned))
                .collect(),
            _ => BTreeSet::new(),
        }
    };
    let tools = answer["result"]["tools"].as_array().expect("tools");
    assert!(tools.len() >= 10, "{answer}");
    tools
        .iter()
        .map(|tool| {
            let schema = &tool["inputSchema"];
            (
                tool["name"].as_str().expect("a name").to_owned(),
                names(&schema["properties"]),
                names(&schema["required"]),
            )
        })
        .collect()
}

/// The cells of a Markdown table row (`|` escaped as `\|` stays in its cell).
fn cells(line: &str) -> Option<Vec<String>> {
    let line = line.trim();
    let inner = line.strip_prefix('|')?.strip_suffix('|')?;
    let mut cells = vec![String::new()];
    let mut escaped = false;
    for c in inner.chars() {
        match c {
            '|' if !escaped => cells.push(String::new()),
            _ => {
                if let Some(cell) = cells.last_mut() {
                    cell.push(c);
                }
            }
        }
        escaped = c == '\\';
    }
    Some(cells.iter().map(|cell| cell.trim().to_owned()).collect())
}

/// The code spans of a cell, in order.
fn code_spans(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

/// The tables of a page (or of part of one) whose header's first cell is one of `first`: each
/// as its data rows.
fn tables(page: &str, first: &[&str]) -> Vec<Vec<Vec<String>>> {
    let mut found = Vec::new();
    let mut lines = page.lines().peekable();
    while let Some(line) = lines.next() {
        let header = cells(line);
        if !header.is_some_and(|h| h.first().is_some_and(|c| first.contains(&c.as_str()))) {
            continue;
        }
        let mut rows = Vec::new();
        lines.next(); // the `| --- |` line
        while let Some(row) = lines.peek().and_then(|line| cells(line)) {
            rows.push(row);
            lines.next();
        }
        found.push(rows);
    }
    found
}

/// What is wrong with the arguments `cell` gives `tool`: each argument once, `?` exactly on
/// the optional ones, alternatives ("`a` or `b`") only between optional ones.
fn argument_problems(
    page: &str,
    tool: &str,
    cell: &str,
    properties: &BTreeSet<String>,
    required: &BTreeSet<String>,
) -> Vec<String> {
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for item in cell.split(", ") {
        let spans = code_spans(item);
        let alternatives = spans.len() > 1;
        for span in spans {
            let (name, marked) = match span.strip_suffix('?') {
                Some(name) => (name, true),
                None => (span, false),
            };
            if !properties.contains(name) {
                problems.push(format!(
                    "{page}: the row of `{tool}` names `{span}`, which is not an argument of {tool} (its arguments: {})",
                    properties.iter().cloned().collect::<Vec<_>>().join(", ")
                ));
                continue;
            }
            seen.insert(name.to_owned());
            let optional = !required.contains(name);
            if marked && !optional {
                problems.push(format!(
                    "{page}: the row of `{tool}` marks `{name}` optional, but {tool} requires it: write `{name}`"
                ));
            } else if marked && alternatives {
                problems.push(format!(
                    "{page}: the row of `{tool}` writes `{span}` in an alternative: write \"`a` or `b`\" without `?`"
                ));
            } else if !marked && optional && !alternatives {
                problems.push(format!(
                    "{page}: the row of `{tool}` writes `{name}` as required, but it is optional: write `{name}?`"
                ));
            } else if !optional && alternatives {
                problems.push(format!(
                    "{page}: the row of `{tool}` offers `{name}` as an alternative, but {tool} requires it"
                ));
            }
        }
    }
    for missing in properties.difference(&seen) {
        let mark = if required.contains(missing) { "" } else { "?" };
        problems.push(format!(
            "{page}: the row of `{tool}` lacks the argument `{missing}{mark}`, which its inputSchema has"
        ));
    }
    problems
}

#[test]
fn every_table_of_tools_lists_each_tool_with_its_arguments() {
    let catalogue = catalogue();
    let mut problems = Vec::new();
    for page in PAGES {
        let text = std::fs::read_to_string(Path::new(ROOT).join(page)).expect("a page");
        let found = tables(&text, &["tool", "herramienta"]);
        assert!(!found.is_empty(), "{page} has no table of tools");
        for rows in found {
            let row_of = |tool: &str| {
                rows.iter()
                    .find(|row| row.first().map(|c| code_spans(c)) == Some(vec![tool]))
            };
            for (tool, properties, required) in &catalogue {
                let Some(row) = row_of(tool) else {
                    problems.push(format!(
                        "{page}: the table of tools has no row for `{tool}`"
                    ));
                    continue;
                };
                let cell = row.get(1).map_or("", String::as_str);
                problems.extend(argument_problems(page, tool, cell, properties, required));
            }
            for row in &rows {
                let name = row.first().map(|c| code_spans(c)).unwrap_or_default();
                if !catalogue.iter().any(|(tool, ..)| name == [tool.as_str()]) {
                    problems.push(format!(
                        "{page}: the table of tools has a row for {}, which is no tool",
                        row.first().map_or("", String::as_str)
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_argument_table_of_the_reference_names_its_tools_arguments() {
    let catalogue = catalogue();
    let mut problems = Vec::new();
    let mut checked = 0;
    for page in &PAGES[1..] {
        let text = std::fs::read_to_string(Path::new(ROOT).join(page)).expect("a page");
        for section in text.split("\n## ").skip(1) {
            let heading = section.lines().next().unwrap_or_default().trim();
            let Some((tool, properties, _)) = catalogue.iter().find(|(t, ..)| t == heading) else {
                continue;
            };
            let section = section.split("\n### ").next().unwrap_or(section);
            for rows in tables(section, &["argument", "argumento"]) {
                checked += 1;
                let mut named = BTreeSet::new();
                for row in &rows {
                    for name in code_spans(row.first().map_or("", String::as_str)) {
                        if !properties.contains(name) {
                            problems.push(format!(
                                "{page}, section {tool}: the table of arguments names `{name}`, which is not an argument of {tool}"
                            ));
                        }
                        named.insert(name.to_owned());
                    }
                }
                for missing in properties.difference(&named) {
                    problems.push(format!(
                        "{page}, section {tool}: the table of arguments lacks `{missing}`, which its inputSchema has"
                    ));
                }
            }
        }
    }
    assert!(checked >= 8, "only {checked} argument tables found");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_row_is_read_as_its_arguments() {
    let set = |names: &[&str]| {
        names
            .iter()
            .map(|n| (*n).to_owned())
            .collect::<BTreeSet<_>>()
    };
    let properties = set(&["document", "documentText", "subflows", "left"]);
    let required = set(&["left"]);
    let cell = "`document` or `documentText`, `subflows?`, `left`";
    assert!(argument_problems("p", "t", cell, &properties, &required).is_empty());
    let wrong = "`document`, `subflows`, `left?`, `gone`";
    assert_eq!(
        argument_problems("p", "t", wrong, &properties, &required),
        [
            "p: the row of `t` writes `document` as required, but it is optional: write `document?`",
            "p: the row of `t` writes `subflows` as required, but it is optional: write `subflows?`",
            "p: the row of `t` marks `left` optional, but t requires it: write `left`",
            "p: the row of `t` names `gone`, which is not an argument of t (its arguments: document, documentText, left, subflows)",
            "p: the row of `t` lacks the argument `documentText?`, which its inputSchema has",
        ]
    );
    assert_eq!(
        cells("| `a` | `{ x \\| y }` |"),
        Some(vec!["`a`".to_owned(), "`{ x \\| y }`".to_owned()])
    );
}
