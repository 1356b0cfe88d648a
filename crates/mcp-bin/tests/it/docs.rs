//! End-to-end: `docs_search` and `docs_page` through the real binary, over a
//! temporary bilingual docs tree with decoys in every excluded folder.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

use serde_json::{Value, json};

use crate::util::{Dir, command};

/// Folders never indexed, each at several depths.
const DECOYS: [&str; 13] = [
    "api/decoy.md",
    "dist/decoy.md",
    ".vitepress/decoy.md",
    "superpowers/decoy.md",
    "es/api/decoy.md",
    "es/.vitepress/decoy.md",
    "es/dist/deep/decoy.md",
    "guide/superpowers/decoy.md",
    "guide/a/b/api/decoy.md",
    "guide/a/.vitepress/decoy.md",
    "guide/spec/decoy.md",
    ".hidden/decoy.md",
    "guide/.cache/decoy.md",
];

/// A bilingual docs tree (English at the root, Spanish under `es/`) with decoys.
fn docs_tree() -> Dir {
    let tree = Dir::new("docs");
    tree.write(
        "guide/logging.md",
        "---\ntitle: Logging\n---\n\n# Logging\n\nCall `appendLog` to add a line to the durable log.\n\n\
         ```ts\n# not a heading\nappendLog(\"hi\");\n```\n\n## Durability\n\nEvery write is flushed.\n",
    )
    .write(
        "es/guide/configuracion.md",
        "# Configuración del servidor\n\nEl árbol de opciones vive en `serverOptions`.\n\n\
         ## Registro\n\nUsa `appendLog` para añadir una línea al registro.\n",
    )
    .write("guide/setup.md", "Setup\n=====\n\nRegister the server in your editor.\n")
    .write("index.md", "# Home\n\nWelcome to the docs.\n");
    for decoy in DECOYS {
        tree.write(decoy, "# Decoy\n\nzebradecoy appendLog configuración\n");
    }
    tree
}

/// One running server, spoken to one line at a time.
struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Session {
    fn start(docs: &Path) -> Session {
        let mut child = command()
            .arg("--docs")
            .arg(docs)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn botmesh-mcp");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut session = Session {
            child,
            stdin,
            stdout,
            next_id: 1,
        };
        let init = session.request(
            "initialize",
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": { "name": "docs-e2e", "version": "1" }
            }),
        );
        assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
        session.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
        session
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").expect("write a line");
        self.stdin.flush().expect("flush");
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("read an answer");
        let answer: Value = serde_json::from_str(&line)
            .unwrap_or_else(|_| panic!("stdout carries only JSON lines: {line:?}"));
        assert_eq!(answer["id"], id, "{answer}");
        answer
    }

    /// Calls a tool; returns its result object.
    fn call(&mut self, name: &str, arguments: Value) -> Value {
        let answer = self.request(
            "tools/call",
            json!({ "name": name, "arguments": arguments }),
        );
        answer
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("a result: {answer}"))
    }

    /// `docs_search`: the results, checked to be the same in the text item
    /// and in `structuredContent`.
    fn search(&mut self, query: &str, limit: Option<u64>) -> Vec<Value> {
        let mut arguments = json!({ "query": query });
        if let Some(limit) = limit {
            arguments["limit"] = json!(limit);
        }
        let result = self.call("docs_search", arguments);
        assert_ne!(result["isError"], true, "{result}");
        let text = result["content"][0]["text"].as_str().expect("a text item");
        let from_text: Value = serde_json::from_str(text).expect("the text item is JSON");
        assert_eq!(
            from_text, result["structuredContent"],
            "text and structured content agree"
        );
        assert_eq!(
            text,
            serde_json::to_string(&from_text).expect("compact JSON"),
            "the text item is compact JSON"
        );
        let results = result["structuredContent"]["results"]
            .as_array()
            .expect("results")
            .clone();
        for hit in &results {
            for field in ["path", "title", "heading", "snippet"] {
                assert!(hit[field].is_string(), "{field} in {hit}");
            }
            assert!(hit["score"].is_number(), "{hit}");
            let snippet = hit["snippet"].as_str().unwrap_or_default();
            assert!(snippet.chars().count() <= 200, "{snippet}");
            assert!(
                !hit["path"].as_str().unwrap_or_default().contains('\\'),
                "{hit}"
            );
        }
        results
    }

    /// `docs_page`: `Ok(markdown)` or `Err(message)` for an `isError` result.
    fn page(&mut self, path: &str) -> Result<String, String> {
        let result = self.call("docs_page", json!({ "path": path }));
        let text = result["content"][0]["text"]
            .as_str()
            .expect("a text item")
            .to_owned();
        if result["isError"] == true {
            Err(text)
        } else {
            Ok(text)
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn paths(results: &[Value]) -> Vec<&str> {
    results.iter().filter_map(|r| r["path"].as_str()).collect()
}

#[test]
fn docs_tools_are_advertised_with_a_docs_folder() {
    let tree = docs_tree();
    let mut session = Session::start(tree.path());
    let tools = session.request("tools/list", json!({}));
    let names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"docs_search"), "{names:?}");
    assert!(names.contains(&"docs_page"), "{names:?}");
}

#[test]
fn search_reaches_both_languages_and_skips_every_excluded_folder() {
    let tree = docs_tree();
    let mut session = Session::start(tree.path());
    assert_eq!(session.search("zebradecoy", Some(25)), Vec::<Value>::new());
    let results = session.search("appendLog", Some(25));
    assert_eq!(
        paths(&results),
        vec!["guide/logging.md", "es/guide/configuracion.md"]
    );
    assert_eq!(results[0]["title"], "Logging");
    assert_eq!(results[0]["heading"], "Logging");
    assert_eq!(results[1]["heading"], "Registro");
    let snippet = results[0]["snippet"].as_str().unwrap_or_default();
    assert!(
        snippet.contains("Call appendLog to add a line"),
        "plain text: {snippet}"
    );
    // The default limit is 5, and a limit is honoured.
    assert_eq!(session.search("the", Some(1)).len(), 1);
    // A `#` inside a code fence is not a heading.
    for hit in session.search("not a heading", Some(25)) {
        assert_ne!(hit["heading"], "not a heading", "{hit}");
    }
}

#[test]
fn accents_case_and_identifiers_are_folded() {
    let tree = docs_tree();
    let mut session = Session::start(tree.path());
    for query in ["configuracion", "CONFIGURACIÓN", "Configuración"] {
        let results = session.search(query, None);
        assert_eq!(results[0]["path"], "es/guide/configuracion.md", "{query}");
        assert_eq!(
            results[0]["heading"], "Configuración del servidor",
            "{query}"
        );
    }
    assert_eq!(
        paths(&session.search("ÁRBOL", None)),
        vec!["es/guide/configuracion.md"]
    );
    for query in ["append log", "append_log", "APPENDLOG"] {
        let results = session.search(query, None);
        assert_eq!(results[0]["path"], "guide/logging.md", "{query}");
    }
    assert_eq!(
        paths(&session.search("server options", None))[0],
        "es/guide/configuracion.md"
    );
}

#[test]
fn pages_are_served_only_from_inside_the_root() {
    let tree = docs_tree();
    let outside = Dir::new("docs-outside");
    outside.write("secret.md", "# Secret\n\noutsidesecret\n");
    #[cfg(unix)]
    {
        use std::os::unix::fs::symlink;
        symlink(
            outside.path().join("secret.md"),
            tree.path().join("guide/leak.md"),
        )
        .expect("a symlink to a file outside");
        symlink(outside.path(), tree.path().join("guide/leakdir")).expect("a symlinked folder");
    }
    let mut session = Session::start(tree.path());
    let page = session.page("guide/logging.md").expect("a page");
    assert!(
        page.starts_with("---\ntitle: Logging"),
        "the Markdown itself: {page}"
    );
    let outside_root = outside.root().to_owned();
    let cases = [
        (
            "../secret.md",
            "path must stay inside the docs root: ../secret.md",
        ),
        (
            "guide/../../secret.md",
            "path must stay inside the docs root: guide/../../secret.md",
        ),
        (
            "/etc/passwd",
            "path must be relative to the docs root: /etc/passwd",
        ),
        (
            "C:/docs/x.md",
            "path must be relative to the docs root: C:/docs/x.md",
        ),
        (
            "C:\\docs\\x.md",
            "path must be relative to the docs root: C:\\docs\\x.md",
        ),
        (
            "guide\\logging.md",
            "path must use `/` separators: guide\\logging.md",
        ),
        ("guide/logging.md\u{0}", "path must not contain a NUL byte"),
        ("guide/x.md", "page not found: guide/x.md"),
        ("api/decoy.md", "page not found: api/decoy.md"),
        (
            "es/.vitepress/decoy.md",
            "page not found: es/.vitepress/decoy.md",
        ),
    ];
    for (asked, message) in cases {
        let error = session.page(asked).expect_err(asked);
        assert_eq!(error, message, "{asked:?}");
        assert!(
            !error.contains(tree.root()) && !error.contains(&outside_root),
            "{error}"
        );
    }
    let absolute = format!("{}/guide/logging.md", tree.root());
    let error = session.page(&absolute).expect_err("an absolute path");
    assert!(
        error.starts_with("path must be relative to the docs root"),
        "{error}"
    );
    #[cfg(unix)]
    {
        for asked in ["guide/leak.md", "guide/leakdir/secret.md"] {
            let error = session.page(asked).expect_err(asked);
            assert_eq!(
                error,
                format!("path must stay inside the docs root: {asked}")
            );
        }
        assert_eq!(session.search("outsidesecret", None), Vec::<Value>::new());
    }
}

#[test]
fn edits_additions_and_removals_show_at_the_next_search() {
    let tree = docs_tree();
    let mut session = Session::start(tree.path());
    assert_eq!(
        paths(&session.search("flushed", None)),
        vec!["guide/logging.md"]
    );
    // An edit (a different size, so even a coarse clock sees it).
    tree.write(
        "guide/logging.md",
        "# Logging\n\nEvery write is persisted, eventually.\n",
    );
    assert_eq!(session.search("flushed", None), Vec::<Value>::new());
    assert_eq!(
        paths(&session.search("persisted", None)),
        vec!["guide/logging.md"]
    );
    // An addition, in Spanish.
    tree.write(
        "es/guide/persistencia.md",
        "# Persistencia\n\nCada escritura queda persisted.\n",
    );
    assert_eq!(
        paths(&session.search("persisted", None)),
        vec!["guide/logging.md", "es/guide/persistencia.md"]
    );
    assert!(session.page("es/guide/persistencia.md").is_ok());
    // A removal.
    fs::remove_file(tree.path().join("guide/logging.md")).expect("remove a page");
    assert_eq!(
        paths(&session.search("persisted", None)),
        vec!["es/guide/persistencia.md"]
    );
    assert_eq!(
        session.page("guide/logging.md"),
        Err("page not found: guide/logging.md".to_owned())
    );
}

#[test]
fn a_result_names_its_section_and_docs_page_reads_that_section_alone() {
    let tree = docs_tree();
    tree.write(
        "es/guide/logging.md",
        "# Registro\n\nLlama a `appendLog` para añadir una línea.\n\n```ts\nappendLog(\"hola\");\n```\n\n## Durabilidad\n\nCada escritura se vuelca.\n",
    );
    let mut session = Session::start(tree.path());
    let results = session.search("every write is flushed", None);
    let hit = &results[0];
    assert_eq!(hit["path"], "guide/logging.md");
    assert_eq!(hit["heading"], "Durability");
    assert_eq!(hit["anchor"], "durability");
    // The Spanish copy of the section is folded into the result, not given a place of its own.
    assert_eq!(
        hit["mirrors"],
        json!([{ "path": "es/guide/logging.md", "heading": "Durabilidad", "anchor": "durabilidad" }])
    );
    assert!(
        results
            .iter()
            .all(|r| r["path"] != "es/guide/logging.md" || r["heading"] != "Durabilidad"),
        "{results:?}"
    );

    let result = session.call(
        "docs_page",
        json!({ "path": "guide/logging.md", "heading": hit["anchor"] }),
    );
    assert_ne!(result["isError"], true, "{result}");
    let section = &result["structuredContent"];
    assert_eq!(
        section["markdown"],
        "## Durability\n\nEvery write is flushed.\n"
    );
    assert_eq!(section["headingPath"], json!(["Logging", "Durability"]));
    assert_eq!(section["anchor"], "durability");
    assert_eq!(section["total"], 39);
    assert_eq!(
        result["content"][0]["text"],
        "## Durability\n\nEvery write is flushed.\n\n[docs_page: section \"Durability\" (anchor \"durability\") under Logging of guide/logging.md]"
    );
    // By the heading's text too, and cut like a page, the read-on call keeping the heading.
    let result = session.call(
        "docs_page",
        json!({ "path": "guide/logging.md", "heading": "logging", "length": 20 }),
    );
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        text.ends_with(
            "[docs_page: section \"Logging\" (anchor \"logging\") of guide/logging.md; characters 0-11 of 107; read on with docs_page {\"heading\":\"logging\",\"length\":20,\"offset\":11,\"path\":\"guide/logging.md\"}]"
        ),
        "{text}"
    );
    let result = session.call(
        "docs_page",
        json!({ "path": "guide/logging.md", "heading": "Retries" }),
    );
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(
        result["content"][0]["text"],
        "heading \"Retries\" names no section of guide/logging.md (pass the heading or the anchor of a docs_search result)"
    );
}
