//! Behaviour tests of the engine over temporary bilingual trees, and the
//! known-item evaluation over the project's own `docs/`.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::{DocsIndex, Error, SearchHit};

/// A temporary folder removed on drop.
struct TempTree {
    dir: PathBuf,
}

impl TempTree {
    fn new() -> TempTree {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "botmesh-docs-search-test-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        TempTree { dir }
    }

    fn write(&self, rel: &str, text: &str) -> &Self {
        let path = self.dir.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
        self
    }

    fn path(&self) -> &Path {
        &self.dir
    }
}

impl Drop for TempTree {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

fn paths(hits: &[SearchHit]) -> Vec<&str> {
    hits.iter().map(|h| h.path.as_str()).collect()
}

/// A small bilingual tree with decoys in every excluded folder at several depths.
fn bilingual_tree() -> TempTree {
    let tree = TempTree::new();
    tree.write(
        "guide/logging.md",
        "# Logging\n\nCall `appendLog` to add a line to the durable log.\n\n## Durability\n\nWrites are flushed (durabilidad).\n",
    )
    .write(
        "es/guide/configuracion.md",
        "---\ntitle: Configuración del servidor\n---\n\n# Configuración\n\nEl árbol de opciones y la durabilidad.\n",
    )
    .write("guide/durable.md", "# Notes\n\nDurabilidad everywhere. durabilidad.\n")
    .write("es/guide/notas.md", "# Notas\n\nMás durabilidad.\n")
    .write("index.md", "Welcome page without a heading, about durabilidad.\n");
    for decoy in [
        "api/decoy.md",
        "dist/decoy.md",
        ".vitepress/decoy.md",
        "superpowers/decoy.md",
        "es/api/decoy.md",
        "es/.vitepress/decoy.md",
        "guide/deep/dist/decoy.md",
        "a/b/superpowers/decoy.md",
        "spec/decoy.md",
        ".hidden/decoy.md",
        "es/.cache/decoy.md",
        "guide/.draft.md",
    ] {
        tree.write(decoy, "# Decoy\n\nzebradecoy appendLog configuración\n");
    }
    tree.write("guide/notes.txt", "zebradecoy\n");
    tree
}

#[test]
fn excluded_folders_hidden_files_and_other_extensions_are_not_indexed() {
    let tree = bilingual_tree();
    let docs = DocsIndex::new(tree.path()).unwrap();
    assert_eq!(docs.search("zebradecoy", 25).unwrap(), Vec::new());
    let stats = docs.stats();
    assert_eq!(stats.pages, 5);
    for decoy in [
        "api/decoy.md",
        "es/.vitepress/decoy.md",
        "a/b/superpowers/decoy.md",
        "guide/.draft.md",
    ] {
        assert_eq!(
            docs.page(decoy).unwrap_err().to_string(),
            format!("page not found: {decoy}")
        );
    }
}

#[test]
fn folding_makes_accents_and_case_irrelevant() {
    let tree = bilingual_tree();
    let docs = DocsIndex::new(tree.path()).unwrap();
    for query in ["configuracion", "CONFIGURACIÓN", "Configuración"] {
        let hits = docs.search(query, 5).unwrap();
        assert_eq!(hits[0].path, "es/guide/configuracion.md", "{query}");
        assert_eq!(hits[0].heading, "Configuración");
        assert_eq!(hits[0].title, "Configuración del servidor");
    }
    let hits = docs.search("ÁRBOL", 5).unwrap();
    assert_eq!(paths(&hits), vec!["es/guide/configuracion.md"]);
}

#[test]
fn identifiers_match_whole_and_by_parts() {
    let tree = bilingual_tree();
    let docs = DocsIndex::new(tree.path()).unwrap();
    for query in [
        "appendLog",
        "appendlog",
        "append log",
        "append_log",
        "APPEND",
    ] {
        let hits = docs.search(query, 5).unwrap();
        assert_eq!(
            hits.first().map(|h| h.path.as_str()),
            Some("guide/logging.md"),
            "{query}"
        );
        assert_eq!(hits[0].heading, "Logging");
    }
}

#[test]
fn a_rare_identifier_outranks_a_word_on_every_page() {
    let tree = bilingual_tree();
    let docs = DocsIndex::new(tree.path()).unwrap();
    let hits = docs.search("durabilidad appendLog", 10).unwrap();
    assert_eq!(
        (hits[0].path.as_str(), hits[0].heading.as_str()),
        ("guide/logging.md", "Logging")
    );
}

#[test]
fn repetitions_count_but_saturate_and_long_sections_are_normalised() {
    let tree = TempTree::new();
    let filler = "word ".repeat(40);
    let long = format!("# L\n\n{}\n", format!("durabilidad {filler}").repeat(20));
    tree.write(
        "a.md",
        &format!("# A\n\ndurabilidad durabilidad durabilidad {filler}\n"),
    )
    .write("b.md", &format!("# B\n\ndurabilidad and more {filler}\n"))
    .write("c.md", "# C\n\nnothing to see\n")
    .write("d.md", "# D\n\ndurabilidad matters, durabilidad is kept.\n")
    .write("l.md", &long);
    let docs = DocsIndex::new(tree.path()).unwrap();
    let hits = docs.search("durabilidad", 10).unwrap();
    // The short section that says it twice beats the sections of 40-odd
    // words that say it three times and once, and the long one that says it
    // twenty times among 800 other words; three mentions beat one in
    // sections of the same length.
    assert_eq!(paths(&hits), vec!["d.md", "a.md", "b.md", "l.md"]);
    // Saturation: three mentions are worth less than three times one.
    assert!(hits[1].score < 3.0 * hits[2].score);
}

#[test]
fn spanish_typed_without_accents_stems_like_with_them() {
    let tree = TempTree::new();
    tree.write("es/a.md", "# A\n\nLa configuración del servidor.\n")
        .write(
            "es/b.md",
            "# B\n\nPara configurar el servidor, edita el archivo.\n",
        )
        .write("es/c.md", "# C\n\nOtra cosa.\n");
    let docs = DocsIndex::new(tree.path()).unwrap();
    let accented = docs.search("configuración", 10).unwrap();
    // `configuración` stems with `configurar` (Snowball needs the accent).
    assert_eq!(paths(&accented), vec!["es/a.md", "es/b.md"]);
    assert_eq!(docs.search("configuracion", 10).unwrap(), accented);
    assert_eq!(docs.search("CONFIGURACION", 10).unwrap(), accented);
}

#[test]
fn a_query_prefers_the_pages_of_its_language() {
    let tree = TempTree::new();
    tree.write(
        "guide/retry.md",
        "# Retries\n\nThe `retryText` is sent when the answer is not valid.\n",
    )
    .write(
        "es/guide/retry.md",
        "# Reintentos\n\nEl `retryText` se envía cuando la respuesta no es válida.\n",
    )
    .write("guide/other.md", "# Other\n\nThe answer is elsewhere.\n")
    .write(
        "es/guide/otra.md",
        "# Otra\n\nLa respuesta está en otra parte.\n",
    );
    let docs = DocsIndex::new(tree.path()).unwrap();
    let top = |query: &str| docs.search(query, 1).unwrap()[0].path.clone();
    assert_eq!(top("retryText"), "guide/retry.md");
    assert_eq!(top("when is retryText sent"), "guide/retry.md");
    assert_eq!(top("cuando se envia el retryText"), "es/guide/retry.md");
    assert_eq!(top("respuesta no valida"), "es/guide/retry.md");
}

#[test]
fn headings_weigh_double_and_phrases_get_a_bonus() {
    let tree = TempTree::new();
    tree.write(
        "a.md",
        "# Intro\n\nThe retry policy is described elsewhere.\n",
    )
    .write("b.md", "# Retry policy\n\nHow it works.\n")
    .write("c.md", "# Intro\n\nA policy on retry counts.\n")
    .write("d.md", "# Other\n\nNothing relevant here.\n");
    let docs = DocsIndex::new(tree.path()).unwrap();
    let hits = docs.search("retry policy", 10).unwrap();
    assert_eq!(paths(&hits), vec!["b.md", "a.md", "c.md"]);
    assert!(
        hits[1].score > hits[2].score,
        "the phrase bonus separates a.md from c.md"
    );
    let hits = docs.search("nothing", 10).unwrap();
    assert_eq!(paths(&hits), vec!["d.md"]);
}

#[test]
fn a_section_that_shows_code_outranks_its_twin_in_prose() {
    let tree = TempTree::new();
    // The same prose in three pages: alone, with a code block, with an included code file.
    let prose = "# Retries\n\nRetry a failed webhook call with a backoff.\n";
    tree.write("a.md", prose)
        .write(
            "b.md",
            &format!("{prose}\n```json\n{{\"limit\": 3}}\n```\n"),
        )
        .write("c.md", &format!("{prose}\n<<< @/limit.json\n"))
        .write(
            "d.md",
            "# Limits\n\nNothing about it.\n\n```json\n{\"limit\": 3}\n```\n",
        );
    let docs = DocsIndex::new(tree.path()).unwrap();
    let hits = docs.search("retry a failed webhook call", 10).unwrap();
    assert_eq!(paths(&hits), vec!["b.md", "c.md", "a.md"], "{hits:#?}");
    assert_eq!(hits[0].score, hits[1].score, "an include counts as a block");
    assert!(hits[1].score > hits[2].score);
}

#[test]
fn a_section_borrows_from_its_neighbours_on_the_same_page_only() {
    let tree = TempTree::new();
    // The same section on two pages: in `z.md` the section before it tells
    // the problem the query also names; in `a.md` the page ends with it, and
    // the next page (`b.md`, the next section in the index) tells the same
    // problem, which must not count for `a.md`.
    let fix = "## Override a dependency\n\nPut a replacement in `dependency_overrides`.\n";
    let problem = "An external auth provider that tests cannot call.\n";
    tree.write("a.md", &format!("# Testing\n\nAbout tests.\n\n{fix}"))
        .write("b.md", &format!("# Use cases\n\n{problem}"))
        .write(
            "z.md",
            &format!("# Testing\n\nAbout tests.\n\n## Use cases\n\n{problem}\n{fix}"),
        );
    let docs = DocsIndex::new(tree.path()).unwrap();
    let hits = docs
        .search("override a dependency of the auth provider", 10)
        .unwrap();
    let found: Vec<(&str, &str)> = hits
        .iter()
        .map(|h| (h.path.as_str(), h.heading.as_str()))
        .collect();
    assert_eq!(
        found[..2],
        [
            ("z.md", "Override a dependency"),
            ("a.md", "Override a dependency")
        ],
        "{hits:#?}"
    );
    assert!(hits[0].score > hits[1].score);
}

#[test]
fn a_page_the_markdown_parser_fails_on_is_still_searchable() {
    // pulldown-cmark panics on this page; the tree stays searchable, that
    // page included (parsed without definition lists).
    let tree = TempTree::new();
    tree.write(
        "odd.md",
        "Quirky words\n::: tip Title\n    {* app.py *}\n    ===\n",
    )
    .write("fine.md", "# Fine\n\nOrdinary words.\n");
    let docs = DocsIndex::new(tree.path()).unwrap();
    assert_eq!(paths(&docs.search("quirky", 5).unwrap()), ["odd.md"]);
    assert_eq!(paths(&docs.search("ordinary", 5).unwrap()), ["fine.md"]);
}

#[test]
fn a_plain_question_finds_the_short_reference_entry_named_by_an_identifier() {
    // A configuration reference: short entries named by the option, each with
    // the same `Usage` sub-heading; and a long API page full of the question's
    // words.
    let tree = TempTree::new();
    tree.write(
        "config/server-options.md",
        "# Server Options\n\n\
         ## `server.host`\n\nSpecify which IP addresses the server should listen on.\n\n\
         ### Usage\n\n```js\nexport default { server: { host: true } }\n```\n\n\
         ## `server.port`\n\nSpecify the server port. If the port is already used, the next free one is tried.\n\n\
         ### Usage\n\n```js\nexport default { server: { port: 3030 } }\n```\n\n\
         ## `canvasWidth`\n\nThe width of the slides' canvas, in pixels.\n",
    );
    let mut api = String::from("# JavaScript API\n\n## `createServer`\n\n");
    for _ in 0..12 {
        api.push_str(
            "The dev server runs until you close it; you can change how the server starts, \
             which files it watches, and how it reloads the page when a file changes. \
             The object it returns has the resolved options, the URLs it runs on and the \
             methods to restart or close it from your own script.\n\n",
        );
    }
    api.push_str(
        "```js\nconst server = await createServer({ port })\nawait server.listen()\n```\n",
    );
    tree.write("guide/api.md", &api);
    // Guides that use the question's common words, as any docs tree does.
    for (i, topic) in ["theme", "fonts", "layout", "notes", "export", "build"]
        .iter()
        .enumerate()
    {
        tree.write(
            &format!("guide/g{i}.md"),
            &format!(
                "# The {topic}\n\n## Change the {topic}\n\nWhile the dev server runs, change the \
                 {topic} and the page reloads. Each change runs the {topic} step again on the \
                 server.\n"
            ),
        );
    }
    let docs = DocsIndex::new(tree.path()).unwrap();
    let hits = docs
        .search("how do I change the port the dev server runs on?", 5)
        .unwrap();
    assert_eq!(
        (hits[0].path.as_str(), hits[0].heading.as_str()),
        ("config/server-options.md", "server.port"),
        "{hits:#?}"
    );
    // The entry is read with its `Usage`, which is no result of its own.
    assert!(hits.iter().all(|h| h.heading != "Usage"), "{hits:#?}");
    let entry = docs.section(&hits[0].path, &hits[0].anchor).unwrap();
    assert!(entry.markdown.contains("port: 3030"), "{}", entry.markdown);
    // An identifier heading's parts are words of the heading.
    let hits = docs.search("canvas width", 5).unwrap();
    assert_eq!(hits[0].heading, "canvasWidth");
}

#[test]
fn coverage_beats_a_single_rare_term() {
    let tree = TempTree::new();
    tree.write("a.md", "# A\n\nThe webhook signature.\n")
        .write("b.md", "# B\n\nOnly the webhook.\n")
        .write(
            "c.md",
            "# C\n\nA signature, a token and a webhook, all three in one longer sentence.\n",
        )
        .write("d.md", "# D\n\nA token.\n");
    let docs = DocsIndex::new(tree.path()).unwrap();
    let hits = docs.search("webhook token signature", 10).unwrap();
    assert_eq!(paths(&hits)[..2], ["c.md", "a.md"]);
}

#[test]
fn ties_go_to_the_smaller_path_then_the_earlier_section() {
    let tree = TempTree::new();
    let page = "# One\n\nshared word\n\n# Two\n\nshared word\n";
    tree.write("b.md", page)
        .write("a.md", page)
        .write("guide/a.md", page);
    let docs = DocsIndex::new(tree.path()).unwrap();
    let hits = docs.search("shared", 10).unwrap();
    let got: Vec<_> = hits
        .iter()
        .map(|h| (h.path.as_str(), h.heading.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("a.md", "One"),
            ("a.md", "Two"),
            ("b.md", "One"),
            ("b.md", "Two"),
            ("guide/a.md", "One"),
            ("guide/a.md", "Two")
        ]
    );
    assert!(hits.windows(2).all(|w| w[0].score == w[1].score));
    assert_eq!(docs.search("shared", 2).unwrap().len(), 2);
    assert_eq!(docs.search("shared", 0).unwrap(), Vec::new());
    assert_eq!(docs.search("  ¿? ", 5).unwrap(), Vec::new());
    assert_eq!(docs.search("unknownword", 5).unwrap(), Vec::new());
}

#[test]
fn titles_fall_back_to_the_first_h1_then_the_file_name() {
    let tree = TempTree::new();
    tree.write(
        "guide/front.md",
        "---\ntitle: 'From front matter'\n---\n# Heading one\n\nalpha\n",
    )
    .write(
        "guide/h1.md",
        "Intro alpha.\n\n## Sub\n\n# Real title\n\nalpha\n",
    )
    .write("guide/no-title.md", "## Only h2\n\nalpha\n");
    let docs = DocsIndex::new(tree.path()).unwrap();
    let hits = docs.search("alpha", 10).unwrap();
    let mut titles: Vec<_> = hits
        .iter()
        .map(|h| (h.path.as_str(), h.title.as_str()))
        .collect();
    titles.sort();
    assert_eq!(
        titles,
        vec![
            ("guide/front.md", "From front matter"),
            ("guide/h1.md", "Real title"),
            ("guide/h1.md", "Real title"),
            ("guide/no-title.md", "no-title")
        ]
    );
    // Front matter is not body text.
    assert_eq!(
        docs.search("front matter title", 5).unwrap()[0].heading,
        "Heading one"
    );
    assert!(docs.search("layout", 5).unwrap().is_empty());
}

#[test]
fn snippets_are_plain_text_around_the_match_and_bounded() {
    let tree = TempTree::new();
    let filler = "Filler words that say nothing at all. ".repeat(20);
    tree.write(
        "long.md",
        &format!("# Long\n\n{filler}**Bold** text with `needleword` and a [link](https://x.invalid).\n\n{filler}\n"),
    );
    let docs = DocsIndex::new(tree.path()).unwrap();
    let hit = &docs.search("needleword", 1).unwrap()[0];
    assert!(hit.snippet.chars().count() <= 200, "{}", hit.snippet);
    assert!(
        hit.snippet
            .contains("Bold text with needleword and a link."),
        "{}",
        hit.snippet
    );
    assert!(
        !hit.snippet.contains(['*', '`', '[', '(']),
        "{}",
        hit.snippet
    );
}

#[test]
fn edits_additions_and_removals_show_at_the_next_search() {
    let tree = TempTree::new();
    tree.write("a.md", "# A\n\nfirstword\n");
    let docs = DocsIndex::new(tree.path()).unwrap();
    assert_eq!(paths(&docs.search("firstword", 5).unwrap()), vec!["a.md"]);
    // A different length guarantees a different stamp even on coarse clocks.
    tree.write("a.md", "# A\n\nsecondword, edited\n");
    assert!(docs.search("firstword", 5).unwrap().is_empty());
    assert_eq!(paths(&docs.search("secondword", 5).unwrap()), vec!["a.md"]);
    tree.write("es/b.md", "# B\n\nsecondword también\n");
    assert_eq!(
        paths(&docs.search("secondword", 5).unwrap()),
        vec!["a.md", "es/b.md"]
    );
    fs::remove_file(tree.path().join("a.md")).unwrap();
    assert_eq!(
        paths(&docs.search("secondword", 5).unwrap()),
        vec!["es/b.md"]
    );
    assert_eq!(docs.stats().pages, 1);
}

#[test]
fn pages_are_read_only_from_inside_the_root() {
    let tree = bilingual_tree();
    tree.write("../outside-secret.md", "secret\n");
    let docs = DocsIndex::new(tree.path()).unwrap();
    assert!(
        docs.page("guide/logging.md")
            .unwrap()
            .starts_with("# Logging")
    );
    assert!(
        docs.page("./guide//logging.md")
            .unwrap()
            .starts_with("# Logging")
    );
    let root = tree.path().to_str().unwrap().to_owned();
    let cases = [
        (
            "../outside-secret.md",
            "path must stay inside the docs root: ../outside-secret.md",
        ),
        (
            "guide/../../outside-secret.md",
            "path must stay inside the docs root: guide/../../outside-secret.md",
        ),
        (
            "/etc/passwd",
            "path must be relative to the docs root: /etc/passwd",
        ),
        (
            "C:/docs/x.md",
            "path must be relative to the docs root: C:/docs/x.md",
        ),
        ("c:x.md", "path must be relative to the docs root: c:x.md"),
        (
            "guide\\logging.md",
            "path must use `/` separators: guide\\logging.md",
        ),
        ("guide/logging.md\0", "path must not contain a NUL byte"),
        (
            "guide/notes.txt",
            "only `.md` pages can be read: guide/notes.txt",
        ),
        ("guide/missing.md", "page not found: guide/missing.md"),
        ("", "path must name a page: \"\""),
        ("guide/", "only `.md` pages can be read: guide/"),
    ];
    for (asked, message) in cases {
        let error = docs.page(asked).unwrap_err();
        assert_eq!(error.to_string(), message, "{asked:?}");
    }
    let absolute = format!("{root}/guide/logging.md");
    let error = docs.page(&absolute).unwrap_err().to_string();
    assert!(error.starts_with("path must be relative"), "{error}");
    fs::remove_file(tree.path().join("../outside-secret.md")).unwrap();
}

/// Every Windows spelling that could reach another file, a device or an excluded folder is
/// refused with one sentence on every system (the same forms run against the Windows binary
/// under Wine in `.ci/parts/platforms.sh`).
#[test]
fn windows_path_forms_are_refused_everywhere() {
    let tree = bilingual_tree();
    tree.write("API/x.md", "# Upper\n\nhiddenupper\n");
    tree.write("guide/Dist/x.md", "# Upper\n\nhiddenupper\n");
    let docs = DocsIndex::new(tree.path()).unwrap();
    let not_portable = |path: &str| {
        format!(
            "path must name the same page on every system (no `:`, no Windows device name such as CON or NUL, no name ending in a dot or space): {path}"
        )
    };
    let cases = [
        ("..\\", "path must use `/` separators: ..\\".to_owned()),
        (
            "guide\\..\\..\\x.md",
            "path must use `/` separators: guide\\..\\..\\x.md".to_owned(),
        ),
        (
            "C:\\x.md",
            "path must be relative to the docs root: C:\\x.md".to_owned(),
        ),
        (
            "C:x.md",
            "path must be relative to the docs root: C:x.md".to_owned(),
        ),
        (
            "//server/share/x.md",
            "path must be relative to the docs root: //server/share/x.md".to_owned(),
        ),
        ("CON.md", not_portable("CON.md")),
        ("nul.md", not_portable("nul.md")),
        ("COM1.md", not_portable("COM1.md")),
        ("guide/aux.md", not_portable("guide/aux.md")),
        ("index.md:x", not_portable("index.md:x")),
        ("index.md::$DATA", not_portable("index.md::$DATA")),
        ("index.md.", not_portable("index.md.")),
        ("index.md ", not_portable("index.md ")),
        ("api./x.md", not_portable("api./x.md")),
        (
            "GETTIN~1.MD",
            "only `.md` pages can be read: GETTIN~1.MD".to_owned(),
        ),
        ("API/x.md", "page not found: API/x.md".to_owned()),
        (
            "guide/Dist/x.md",
            "page not found: guide/Dist/x.md".to_owned(),
        ),
    ];
    for (asked, message) in cases {
        let error = docs.page(asked).unwrap_err();
        assert_eq!(error.to_string(), message, "{asked:?}");
    }
    let found = docs.search("hiddenupper", 10).unwrap();
    assert!(
        found.is_empty(),
        "excluded folders in another case were indexed: {found:?}"
    );
}

#[cfg(unix)]
#[test]
fn symlinks_leaving_the_root_are_refused_and_not_indexed() {
    use std::os::unix::fs::symlink;
    let tree = bilingual_tree();
    let outside = TempTree::new();
    outside.write("secret.md", "# Secret\n\noutsidesecret\n");
    outside.write("dir/inner.md", "# Inner\n\noutsidesecret\n");
    symlink(
        outside.path().join("secret.md"),
        tree.path().join("guide/leak.md"),
    )
    .unwrap();
    symlink(
        outside.path().join("dir"),
        tree.path().join("guide/leakdir"),
    )
    .unwrap();
    symlink(
        tree.path().join("api/decoy.md"),
        tree.path().join("guide/api-link.md"),
    )
    .unwrap();
    symlink(
        tree.path().join("guide/logging.md"),
        tree.path().join("es/registro.md"),
    )
    .unwrap();
    symlink(tree.path(), tree.path().join("guide/loop")).unwrap();
    let docs = DocsIndex::new(tree.path()).unwrap();
    assert!(docs.search("outsidesecret", 5).unwrap().is_empty());
    assert!(docs.search("zebradecoy", 5).unwrap().is_empty());
    assert_eq!(
        paths(&docs.search("appendLog", 5).unwrap()),
        vec!["guide/logging.md", "es/registro.md"]
    );
    assert_eq!(
        docs.page("guide/leak.md").unwrap_err().to_string(),
        "path must stay inside the docs root: guide/leak.md"
    );
    assert_eq!(
        docs.page("guide/leakdir/inner.md").unwrap_err().to_string(),
        "path must stay inside the docs root: guide/leakdir/inner.md"
    );
    assert_eq!(
        docs.page("guide/api-link.md").unwrap_err().to_string(),
        "page not found: guide/api-link.md"
    );
    assert!(docs.page("es/registro.md").unwrap().contains("appendLog"));
}

#[test]
fn no_message_contains_the_absolute_root() {
    let tree = bilingual_tree();
    let root = tree.path().to_str().unwrap().to_owned();
    let missing = DocsIndex::new(tree.path().join("nope")).unwrap_err();
    assert_eq!(missing.to_string(), "the docs root is not a directory");
    let file = DocsIndex::new(tree.path().join("index.md")).unwrap_err();
    assert!(matches!(file, Error::RootNotDirectory));
    let docs = DocsIndex::new(tree.path()).unwrap();
    for asked in [
        "../x.md",
        "/x.md",
        "missing.md",
        "a\\b.md",
        "x.txt",
        "api/decoy.md",
    ] {
        let message = docs.page(asked).unwrap_err().to_string();
        assert!(!message.contains(&root), "{message}");
    }
}

#[test]
fn the_index_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<DocsIndex>();
}

#[test]
fn search_output_over_the_fixture_tree() {
    let docs = DocsIndex::new(concat!(env!("CARGO_MANIFEST_DIR"), "/test_data/fixture")).unwrap();
    let mut out = String::new();
    for query in [
        "appendLog",
        "durabilidad",
        "configuracion del arbol",
        "retry policy",
        "registrar el servidor",
    ] {
        let hits = docs.search(query, 3).unwrap();
        out.push_str(&format!(
            "## {query}\n{}\n",
            serde_json::to_string_pretty(&hits).unwrap()
        ));
    }
    expect_test::expect_file!["../test_data/fixture.search.txt"].assert_eq(&out);
}

/// One known-item query of `test_data/known_items.json`.
#[derive(Debug, serde::Deserialize)]
struct KnownItem {
    query: String,
    path: String,
    heading: Option<String>,
}

/// The known items of `test_data/known_items.json`.
fn known_items() -> Vec<KnownItem> {
    let text = fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/test_data/known_items.json"
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn known_item_evaluation_over_the_project_docs() {
    let items = known_items();
    assert!(
        items.len() >= 40,
        "the evaluation needs at least 40 queries"
    );
    assert!(
        items.iter().any(|i| i.path.starts_with("es/")),
        "the evaluation needs Spanish queries"
    );
    let docs = DocsIndex::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs")).unwrap();
    let mut reciprocal = 0.0;
    let mut first = 0;
    let mut misses = Vec::new();
    for item in &items {
        let hits = docs.search(&item.query, 10).unwrap();
        let rank = hits.iter().position(|h| {
            h.path == item.path
                && item
                    .heading
                    .as_ref()
                    .is_none_or(|heading| *heading == h.heading)
        });
        match rank {
            Some(0) => first += 1,
            _ => misses.push(format!(
                "{:?} → want {} #{:?} at {:?}; got {:?}",
                item.query,
                item.path,
                item.heading,
                rank.map(|r| r + 1),
                hits.iter()
                    .take(3)
                    .map(|h| format!("{} #{} {}", h.path, h.heading, h.score))
                    .collect::<Vec<_>>()
            )),
        }
        reciprocal += rank.map_or(0.0, |r| 1.0 / (r as f64 + 1.0));
    }
    let n = items.len() as f64;
    let mrr = reciprocal / n;
    let recall = f64::from(first) / n;
    println!(
        "known items: {}; MRR@10 {mrr:.3}; Recall@1 {recall:.3}",
        items.len()
    );
    for miss in &misses {
        println!("  {miss}");
    }
    assert!(mrr >= 0.89, "MRR@10 {mrr:.3} is under the 0.89 floor");
    assert!(
        recall >= 0.80,
        "Recall@1 {recall:.3} is under the 0.80 floor"
    );
}

/// Strips accents the way a person typing on a keyboard without them would:
/// `á` → `a`, `ñ` → `n`, `¿` kept.
fn without_accents(text: &str) -> String {
    use unicode_normalization::{UnicodeNormalization, char::is_combining_mark};
    text.nfd().filter(|&c| !is_combining_mark(c)).collect()
}

#[test]
fn every_spanish_query_ranks_the_same_typed_without_accents() {
    // The Spanish known items' queries and expected headings, as queries:
    // typed without accents, every result (order, snippet, score) is the one
    // typed with them.
    let docs = DocsIndex::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs")).unwrap();
    let items = known_items();
    let mut queries: Vec<String> = items
        .iter()
        .filter(|i| i.path.starts_with("es/"))
        .flat_map(|i| [i.query.clone(), i.heading.clone().unwrap_or_default()])
        .collect();
    queries.retain(|q| *q != without_accents(q));
    assert!(queries.len() >= 10, "too few accented queries: {queries:?}");
    for query in &queries {
        let plain = without_accents(query);
        assert_eq!(
            docs.search(&plain, 10).unwrap(),
            docs.search(query, 10).unwrap(),
            "{query:?} typed as {plain:?}"
        );
    }
}

mod properties {
    use super::*;
    use proptest::prelude::*;
    use std::sync::OnceLock;

    /// The index of the project's docs and its known items, built once.
    fn project_docs() -> &'static (DocsIndex, Vec<KnownItem>) {
        static DOCS: OnceLock<(DocsIndex, Vec<KnownItem>)> = OnceLock::new();
        DOCS.get_or_init(|| {
            let docs = DocsIndex::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs")).unwrap();
            (docs, known_items())
        })
    }

    /// Pieces of pages and queries for the random trees.
    const PIECES: &[&str] = &[
        "# Título",
        "## Sub heading",
        "### Tercer nivel",
        "Setext",
        "======",
        "---",
        "prose words here",
        "la configuración del árbol",
        "ÁRBOL Árbol arbol",
        "naïve café",
        "appendLog getHTTPResponse snake_case_name Jinja2Templates oauth2 v1 2FA",
        "日本語のテキスト",
        "שלום עולם",
        "e\u{301}\u{301}\u{301}",
        "🙂🚀",
        "\u{200b}\u{feff}",
        "```python",
        "```",
        "    indented code",
        "!!! note \"Heads up\"",
        "=== \"Tab\"",
        "::: tip",
        ":::",
        "::: pkg.Name",
        "/// note | Title",
        "///",
        "> [!NOTE]",
        "- item",
        "1. first",
        "| a | b |",
        "|---|---|",
        ": definition",
        "{* ../src/app.py *}",
        "",
        "the of de la",
        "¿cómo?",
        "`code`",
        "[link](other.md)",
        "<div>html</div>",
    ];

    fn config() -> ProptestConfig {
        ProptestConfig {
            cases: 96,
            rng_seed: proptest::test_runner::RngSeed::Fixed(0x0d0c5),
            failure_persistence: None,
            ..ProptestConfig::default()
        }
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn any_query_gives_bounded_sorted_repeatable_results(
            query in "[a-zA-Z_ÁáéÉñÑüç0-9 /.,¿?#`*-]{0,60}",
            limit in 0usize..8,
        ) {
            let tree = bilingual_tree();
            let docs = DocsIndex::new(tree.path()).unwrap();
            let hits = docs.search(&query, limit).unwrap();
            prop_assert!(hits.len() <= limit);
            for pair in hits.windows(2) {
                prop_assert!(pair[0].score >= pair[1].score, "{:?}", hits);
            }
            for hit in &hits {
                prop_assert!(hit.score.is_finite() && hit.score > 0.0);
                prop_assert_eq!((hit.score * 1000.0).round() / 1000.0, hit.score);
                prop_assert!(hit.snippet.chars().count() <= 200);
                prop_assert!(!hit.path.starts_with("api/") && !hit.path.contains("/."));
            }
            prop_assert_eq!(docs.search(&query, limit).unwrap(), hits);
        }

        /// The best `limit` results are the first `limit` of a longer list
        /// (the neighbour and phrase steps skip sections that cannot reach
        /// the limit: that must not change which ones do). Queries are runs
        /// of words from the known items over the project's docs (so phrases
        /// occur), or words picked across them.
        #[test]
        fn a_short_list_is_the_start_of_a_long_one(
            item in 0usize..1000,
            from in 0usize..8,
            len in 1usize..7,
            picks in proptest::collection::vec(0usize..10_000, 0..4),
            limit in 1usize..12,
        ) {
            let (docs, items) = project_docs();
            let words: Vec<&str> = items[item % items.len()].query.split(' ').collect();
            let from = from % words.len();
            let mut query: Vec<&str> = words[from..(from + len).min(words.len())].to_vec();
            for pick in picks {
                let other: Vec<&str> = items[pick % items.len()].query.split(' ').collect();
                query.push(other[pick % other.len()]);
            }
            let query = query.join(" ");
            let long = docs.search(&query, 200).unwrap();
            let short = docs.search(&query, limit).unwrap();
            prop_assert_eq!(&short[..], &long[..limit.min(long.len())], "{}", query);
        }

        /// Random trees of random pages (Markdown markers, identifiers,
        /// accents, scripts without spaces, combining marks, emoji) under
        /// random folders, searched with queries made of the same pieces:
        /// no panic, and every answer is well-formed, from a written page,
        /// and the same twice.
        #[test]
        fn random_trees_and_queries_give_well_formed_answers(
            pages in proptest::collection::vec(
                (
                    proptest::sample::select(vec![
                        "a.md", "es/b.md", "guide/c.md", "es/guide/d.md", "pt-br/e.md", "x/y/z.md",
                        // Copies of one page in three languages: mirror groups.
                        "es/a.md", "pt-br/a.md",
                    ]),
                    proptest::collection::vec(proptest::sample::select(PIECES.to_vec()), 0..30),
                ),
                1..6,
            ),
            query in proptest::collection::vec(proptest::sample::select(PIECES.to_vec()), 0..6),
            limit in 1usize..12,
        ) {
            let tree = TempTree::new();
            let mut written = Vec::new();
            for (path, lines) in &pages {
                tree.write(path, &lines.join("\n"));
                written.push(*path);
            }
            let docs = DocsIndex::new(tree.path()).unwrap();
            let query = query.join(" ");
            let hits = docs.search(&query, limit).unwrap();
            prop_assert!(hits.len() <= limit);
            for pair in hits.windows(2) {
                prop_assert!(pair[0].score >= pair[1].score, "{:?}", hits);
            }
            let mut places = Vec::new();
            for hit in &hits {
                prop_assert!(written.contains(&hit.path.as_str()), "{}", hit.path);
                prop_assert!(hit.score.is_finite() && hit.score > 0.0);
                prop_assert!(hit.snippet.chars().count() <= 200);
                // Every section takes one place at most, as a result or as a mirror, and
                // every one can be read by the anchor given.
                places.push((hit.path.clone(), hit.anchor.clone()));
                for mirror in &hit.mirrors {
                    prop_assert!(written.contains(&mirror.path.as_str()), "{}", mirror.path);
                    prop_assert_ne!(&mirror.path, &hit.path);
                    places.push((mirror.path.clone(), mirror.anchor.clone()));
                }
                let section = docs.section(&hit.path, &hit.anchor).unwrap();
                prop_assert_eq!(&section.heading, &hit.heading);
            }
            let distinct: std::collections::BTreeSet<_> = places.iter().collect();
            prop_assert_eq!(distinct.len(), places.len(), "{:?}", hits);
            prop_assert_eq!(&docs.search(&query, limit).unwrap(), &hits);
            let long = docs.search(&query, 50).unwrap();
            prop_assert_eq!(&hits[..], &long[..hits.len()]);
        }

        #[test]
        fn folding_is_idempotent_and_keeps_words_whole(word in "\\PC{1,12}") {
            let once = crate::text::fold(&word);
            prop_assert_eq!(crate::text::fold(&once), once.clone());
            for (_, w) in crate::text::words(&word) {
                prop_assert!(!w.is_empty());
                prop_assert!(word.contains(w));
            }
        }
    }
}

#[cfg(unix)]
#[test]
fn a_listed_page_swapped_for_a_symlink_out_of_the_root_is_not_read() {
    use std::os::unix::fs::symlink;
    let tree = TempTree::new();
    tree.write("guide/page.md", "# Page\n\ninside\n");
    let outside = TempTree::new();
    outside.write("secret.md", "# Secret\n\noutsidesecret\n");
    let root = crate::root::Root::new(tree.path().to_path_buf()).unwrap();
    assert_eq!(
        root.read_listed("guide/page.md").unwrap(),
        "# Page\n\ninside\n"
    );
    // Between the scan and the read, the page becomes a link to a file outside the root.
    fs::remove_file(tree.path().join("guide/page.md")).unwrap();
    symlink(
        outside.path().join("secret.md"),
        tree.path().join("guide/page.md"),
    )
    .unwrap();
    let error = root.read_listed("guide/page.md").unwrap_err().to_string();
    assert_eq!(error, "path must stay inside the docs root: guide/page.md");
}

/// Runs the freshness cases with the change check in `mode`: every change
/// made before a search shows in that search, with no sleep in between.
fn changes_show_at_the_next_search(mode: crate::watch::Mode) {
    use crate::watch::Mode;
    let tree = TempTree::new();
    tree.write("guide/a.md", "# A\n\nfirstword\n")
        .write("es/b.md", "# B\n\nsegunda\n")
        .write("api/decoy.md", "# Decoy\n\nnothing\n");
    let docs = DocsIndex::with_mode(tree.path().to_path_buf(), mode).unwrap();
    // Walks are counted below: no safety-net walk may blur the count.
    docs.set_walk_interval(std::time::Duration::from_secs(3600));
    let watching = mode == Mode::Watch && cfg!(target_os = "linux");
    assert_eq!(docs.watching(), watching);
    // The pages found, sorted (the ranking is not what this test is about).
    let search = |query: &str| {
        let hits = docs.search(query, 5).unwrap();
        let mut found = paths(&hits);
        found.sort_unstable();
        found.join(" ")
    };
    assert_eq!(search("firstword"), "guide/a.md");
    // Quiet tree: a watched tree is not walked again (beyond the one walk
    // that follows the first watches); the fallback walks at every search.
    assert_eq!(search("firstword"), "guide/a.md");
    let walks = docs.walks();
    assert_eq!(search("firstword"), "guide/a.md");
    assert_eq!(docs.walks(), if watching { walks } else { walks + 1 });

    // Edited (a different length: a different stamp even on coarse clocks).
    tree.write("guide/a.md", "# A\n\nsecondword, edited\n");
    assert_eq!(search("firstword"), "");
    assert_eq!(search("secondword"), "guide/a.md");

    // Added, in an existing folder and in a new subfolder.
    tree.write("es/c.md", "# C\n\nsecondword también\n");
    assert_eq!(search("secondword"), "es/c.md guide/a.md");
    tree.write("es/new/deep/d.md", "# D\n\nthirdword\n");
    assert_eq!(search("thirdword"), "es/new/deep/d.md");
    // The new subfolder is watched from now on.
    tree.write("es/new/deep/d.md", "# D\n\nfourthword, later\n");
    assert_eq!(search("thirdword"), "");
    assert_eq!(search("fourthword"), "es/new/deep/d.md");
    tree.write("es/new/deep/e.md", "# E\n\nfourthword again\n");
    assert_eq!(search("fourthword"), "es/new/deep/d.md es/new/deep/e.md");

    // Removed: a page, then a whole folder.
    fs::remove_file(tree.path().join("es/c.md")).unwrap();
    assert_eq!(search("secondword"), "guide/a.md");
    fs::remove_dir_all(tree.path().join("es/new")).unwrap();
    assert_eq!(search("fourthword"), "");

    // Renamed, within a folder and into another one.
    fs::rename(
        tree.path().join("guide/a.md"),
        tree.path().join("guide/z.md"),
    )
    .unwrap();
    assert_eq!(search("secondword"), "guide/z.md");
    fs::rename(tree.path().join("guide/z.md"), tree.path().join("es/z.md")).unwrap();
    assert_eq!(search("secondword"), "es/z.md");
    // A folder renamed: its pages move, and it stays watched under its new name.
    fs::rename(tree.path().join("guide"), tree.path().join("manual")).unwrap();
    tree.write("manual/f.md", "# F\n\nfifthword\n");
    assert_eq!(search("fifthword"), "manual/f.md");
    tree.write("manual/f.md", "# F\n\nsixthword, renamed folder\n");
    assert_eq!(search("sixthword"), "manual/f.md");

    // An edit inside an excluded folder changes nothing (and, watched, walks nothing).
    assert_eq!(search("nothing"), "");
    let walks = docs.walks();
    tree.write("api/decoy.md", "# Decoy\n\nnothing, edited nothingword\n");
    tree.write("api/deeper/more.md", "# More\n\nnothingword\n");
    assert_eq!(search("nothingword"), "");
    if watching {
        assert_eq!(docs.walks(), walks, "no walk for an excluded folder");
    }
    // Nor does a file that is no page (an editor's swap file, a text file).
    let walks = docs.walks();
    tree.write("es/.z.md.swp", "swapword\n")
        .write("es/notes.txt", "swapword\n");
    assert_eq!(search("swapword"), "");
    if watching {
        assert_eq!(docs.walks(), walks, "no walk for files that are no pages");
    }

    // A page edited through a symlink inside the root.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(
            tree.path().join("manual/f.md"),
            tree.path().join("es/enlace.md"),
        )
        .unwrap();
        assert_eq!(search("sixthword"), "es/enlace.md manual/f.md");
        fs::write(
            tree.path().join("es/enlace.md"),
            "# F\n\nseventhword, through the link\n",
        )
        .unwrap();
        assert_eq!(search("sixthword"), "");
        assert_eq!(search("seventhword"), "es/enlace.md manual/f.md");
    }
}

#[test]
fn changes_show_at_the_next_search_with_the_watcher() {
    changes_show_at_the_next_search(crate::watch::Mode::Watch);
}

#[test]
fn changes_show_at_the_next_search_with_the_walk_fallback() {
    changes_show_at_the_next_search(crate::watch::Mode::Walk);
}

/// Windows: a docs root in verbatim form (`\\?\C:\…`, what `fs::canonicalize` returns there,
/// where `/` is no separator) serves its pages like any other root.
#[cfg(windows)]
#[test]
fn a_verbatim_root_serves_its_pages() {
    let tree = bilingual_tree();
    let verbatim = fs::canonicalize(tree.path()).unwrap();
    assert!(
        verbatim.to_str().unwrap().starts_with(r"\\?\"),
        "{verbatim:?}"
    );
    let docs = DocsIndex::new(verbatim).unwrap();
    assert!(
        docs.page("es/guide/configuracion.md")
            .unwrap()
            .contains("Configuración")
    );
    assert_eq!(
        paths(&docs.search("appendLog", 5).unwrap()),
        vec!["guide/logging.md"]
    );
}

#[test]
fn a_section_is_read_by_its_anchor_or_heading_with_its_parts_and_heading_path() {
    let tree = TempTree::new();
    let page = "---\ntitle: Hooks\n---\nIntro before any heading.\n\n# Hooks\n\nAll hooks.\n\n\
## useState { #use-state }\n\nState.\n\n### Parameters\n\n`initialState`: the first value.\n\n\
## useRef {/*use-ref*/}\n\nRefs.\n\n### Parameters\n\n`initialValue`: the ref's first value.\n\n\
```js\n# not a heading\n```\n\n### Parameters\n\nA third one.\n";
    tree.write("reference/hooks.md", page);
    let docs = DocsIndex::new(tree.path()).unwrap();

    // Results carry the anchor to pass. A heading repeated under each entry
    // (`Parameters`) is a part of its entry: the entry is the result, and is
    // read with its parts.
    let hits = docs.search("initialValue ref first value", 3).unwrap();
    assert_eq!(hits[0].heading, "useRef");
    assert_eq!(hits[0].anchor, "use-ref");
    assert!(hits.iter().all(|h| h.heading != "Parameters"), "{hits:#?}");
    let section = docs.section("reference/hooks.md", &hits[0].anchor).unwrap();
    assert_eq!(
        section.markdown,
        "## useRef {/*use-ref*/}\n\nRefs.\n\n### Parameters\n\n`initialValue`: the ref's first value.\n\n\
```js\n# not a heading\n```\n\n### Parameters\n\nA third one.\n"
    );
    assert_eq!(section.heading_path, ["Hooks", "useRef"]);
    // A part asked for by its own (unique) anchor is read alone.
    let part = docs.section("reference/hooks.md", "parameters-1").unwrap();
    assert_eq!(
        part.markdown,
        "### Parameters\n\n`initialValue`: the ref's first value.\n\n```js\n# not a heading\n```\n\n"
    );
    assert_eq!(part.heading_path, ["Hooks", "useRef", "Parameters"]);
    assert_eq!(
        docs.section("reference/hooks.md", "parameters-2")
            .unwrap()
            .markdown,
        "### Parameters\n\nA third one.\n"
    );

    // The heading's own anchor, with or without `#`, or its text in any case.
    for asked in [
        "use-state",
        "#use-state",
        "USE-STATE",
        "usestate",
        "  useState ",
    ] {
        let section = docs.section("reference/hooks.md", asked).unwrap();
        assert_eq!(section.heading, "useState", "{asked}");
        assert_eq!(section.anchor, "use-state");
        assert_eq!(
            section.markdown,
            "## useState { #use-state }\n\nState.\n\n### Parameters\n\n`initialState`: the first value.\n\n"
        );
        assert_eq!(section.heading_path, ["Hooks", "useState"]);
    }
    assert_eq!(
        docs.section("reference/hooks.md", "use-ref")
            .unwrap()
            .heading,
        "useRef"
    );
    // A heading text names the first section that has it.
    assert_eq!(
        docs.section("reference/hooks.md", "parameters")
            .unwrap()
            .heading_path,
        ["Hooks", "useState", "Parameters"]
    );
    // The text before the first heading, without the front matter.
    let intro = docs.section("reference/hooks.md", "").unwrap();
    assert_eq!(intro.markdown, "Intro before any heading.\n\n");
    assert!(intro.heading_path.is_empty());

    assert_eq!(
        docs.section("reference/hooks.md", "useEffect")
            .unwrap_err()
            .to_string(),
        "heading \"useEffect\" names no section of reference/hooks.md (pass the heading or the anchor of a docs_search result)"
    );
    assert_eq!(
        docs.section("../x.md", "a").unwrap_err().to_string(),
        "path must stay inside the docs root: ../x.md"
    );
}

#[test]
fn a_mirrored_section_takes_one_place_and_names_its_copy() {
    let tree = TempTree::new();
    tree.write(
        "guide/retry.md",
        "# Retries\n\nThe `retryText` is sent when the answer is not valid.\n\n## Limits\n\nAt most three retries of `retryText`.\n",
    )
    .write(
        "es/guide/retry.md",
        "# Reintentos\n\nEl `retryText` se envía cuando la respuesta no es válida.\n\n## Límites\n\nComo mucho tres reintentos de `retryText`.\n",
    )
    .write(
        "guide/other.md",
        "# Other\n\nThe `retryText` is mentioned here too.\n",
    );
    let docs = DocsIndex::new(tree.path()).unwrap();
    let hits = docs.search("retryText", 5).unwrap();
    // Four sections hold the word, but the two mirrored pairs take one place each.
    let mut found = paths(&hits);
    found.sort_unstable();
    assert_eq!(
        found,
        ["guide/other.md", "guide/retry.md", "guide/retry.md"]
    );
    let retries = hits.iter().find(|h| h.heading == "Retries").unwrap();
    assert_eq!(
        retries.mirrors,
        [crate::Mirror {
            path: "es/guide/retry.md".into(),
            heading: "Reintentos".into(),
            anchor: "reintentos".into(),
        }]
    );
    let limits = hits.iter().find(|h| h.heading == "Limits").unwrap();
    assert_eq!(limits.mirrors[0].heading, "Límites");
    assert_eq!(limits.mirrors[0].anchor, "límites");
    let other = hits.iter().find(|h| h.path == "guide/other.md").unwrap();
    assert!(other.mirrors.is_empty());
    // A Spanish query shows the Spanish copy and names the English one.
    let es = docs.search("cuando se envia el retryText", 5).unwrap();
    assert_eq!(es[0].path, "es/guide/retry.md");
    assert_eq!(es[0].mirrors[0].path, "guide/retry.md");
    assert!(["retries", "limits"].contains(&es[0].mirrors[0].anchor.as_str()));
    // A short list is still the start of a long one.
    for limit in 1..5 {
        assert_eq!(
            docs.search("retryText", limit).unwrap()[..],
            hits[..limit.min(3)]
        );
    }
}

#[test]
fn sections_of_copies_pair_by_their_own_anchors_before_their_place() {
    let tree = TempTree::new();
    // FastAPI's Spanish pages keep the English anchors; this copy has a section more.
    tree.write(
        "en/tutorial/body.md",
        "# Body { #body }\n\nRequest body.\n\n## Create a model { #create-your-data-model }\n\nUse zebramodel.\n",
    )
    .write(
        "es/tutorial/body.md",
        "# Cuerpo { #body }\n\nCuerpo.\n\n## Nota\n\nExtra.\n\n## Crea un modelo { #create-your-data-model }\n\nUsa zebramodel.\n",
    );
    let docs = DocsIndex::new(tree.path()).unwrap();
    let hits = docs.search("zebramodel", 5).unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0].mirrors.len(), 1);
    let copy = &hits[0].mirrors[0];
    let other = if hits[0].path.starts_with("en/") {
        "es/tutorial/body.md"
    } else {
        "en/tutorial/body.md"
    };
    assert_eq!(copy.path, other);
    assert_eq!(copy.anchor, "create-your-data-model");
    // The section without a counterpart stands alone.
    let nota = docs.search("extra nota", 5).unwrap();
    assert_eq!(nota[0].heading, "Nota");
    assert!(nota[0].mirrors.is_empty());
}
