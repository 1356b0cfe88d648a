//! Every ```json example in `docs/` is checked against the flow contract.
//!
//! - Every ```json block parses as JSON.
//! - A block that is a flow document (an object with `"steps"`) and has version 2 validates with
//!   no issue; a legacy one (version 0 or 1, or no `version`) migrates to a valid version 2
//!   document.
//! - A block whose info string is `json invalid` is a deliberately invalid example: it must NOT
//!   validate. When a ```text block of `POINTER  MESSAGE` lines follows it, those lines must be
//!   exactly the issues `validate` returns, in order.
//! - After a legacy example, a version 2 document right after it must be its migration, and an
//!   array of `{ from, to, changes }` later on the page must be its `applied` list.
//!
//! More checks keep the documentation honest: every English page has its Spanish mirror under
//! `docs/es/` (but the English-only contracts in `docs/spec/`), every known-item search query of
//! `docs-search` points at a page and a heading that exist, and every relative link of the
//! Markdown files of the repository (`docs/`, the top-level pages, the crates' READMEs) points
//! at a file that exists.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use botmesh_flow_schema::{Issue, Migration, migrate, validate};
use serde_json::Value;

/// One fenced code block.
#[derive(Debug, PartialEq)]
struct Block {
    /// The info string after the opening fence, trimmed (`json`, `json invalid`, `bash`, ...).
    info: String,
    /// 1-based line of the opening fence.
    line: usize,
    /// The block's text.
    text: String,
}

impl Block {
    fn words(&self) -> Vec<&str> {
        self.info.split_whitespace().collect()
    }
    fn is_json(&self) -> bool {
        self.words().first() == Some(&"json")
    }
    fn is_invalid_example(&self) -> bool {
        self.is_json() && self.words().contains(&"invalid")
    }
}

/// The fence that opens or closes a code block on this line: its character and length.
fn fence(line: &str) -> Option<(char, usize, &str)> {
    let trimmed = line.trim_start_matches(' ');
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    ['`', '~'].into_iter().find_map(|c| {
        let run = trimmed.chars().take_while(|&x| x == c).count();
        (run >= 3).then(|| (c, run, &trimmed[run..]))
    })
}

/// A code block being read: its fence (character, length), info string, first line, lines.
struct OpenBlock<'a> {
    fence: (char, usize),
    info: String,
    line: usize,
    lines: Vec<&'a str>,
}

/// Fenced code blocks (``` or ~~~, at least three, indented at most three spaces) of a page.
fn fenced_blocks(markdown: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut open: Option<OpenBlock<'_>> = None;
    for (index, line) in markdown.lines().enumerate() {
        match (open.take(), fence(line)) {
            (None, Some((c, run, info))) => {
                open = Some(OpenBlock {
                    fence: (c, run),
                    info: info.trim().to_owned(),
                    line: index + 1,
                    lines: Vec::new(),
                });
            }
            (Some(block), Some((c, run, rest)))
                if block.fence.0 == c && run >= block.fence.1 && rest.trim().is_empty() =>
            {
                blocks.push(Block {
                    info: block.info,
                    line: block.line,
                    text: block.lines.join("\n"),
                });
            }
            (Some(mut block), _) => {
                block.lines.push(line);
                open = Some(block);
            }
            (None, None) => {}
        }
    }
    blocks
}

/// The lines of a page outside fenced code blocks, with their 1-based numbers.
fn prose_lines(markdown: &str) -> Vec<(usize, &str)> {
    let mut open: Option<(char, usize)> = None;
    let mut found = Vec::new();
    for (index, line) in markdown.lines().enumerate() {
        match (open, fence(line)) {
            (None, Some((c, run, _))) => open = Some((c, run)),
            (Some((c, run)), Some((fc, frun, rest)))
                if c == fc && frun >= run && rest.trim().is_empty() =>
            {
                open = None;
            }
            (Some(_), _) => {}
            (None, None) => found.push((index + 1, line)),
        }
    }
    found
}

/// ATX headings (outside code blocks) of a page, with inline code ticks removed.
fn headings(markdown: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (_, line) in prose_lines(markdown) {
        let trimmed = line.trim_start_matches(' ');
        let level = trimmed.chars().take_while(|&c| c == '#').count();
        let rest = &trimmed[level..];
        if (1..=6).contains(&level) && (rest.is_empty() || rest.starts_with(' ')) {
            found.push(rest.trim().trim_end_matches('#').trim().replace('`', ""));
        }
    }
    found
}

/// The targets of the inline links and images of a page (`[text](target)`), outside code blocks
/// and code spans, that point into the repository: no scheme, no bare `#anchor`; the anchor and
/// a title are cut off. With their line numbers.
fn relative_links(markdown: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (number, line) in prose_lines(markdown) {
        // Code spans out: the text between pairs of backticks.
        let prose: String = line
            .split('`')
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, part)| part)
            .collect::<Vec<_>>()
            .join(" ");
        for (at, _) in prose.match_indices("](") {
            let rest = &prose[at + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = rest[..end].split_whitespace().next().unwrap_or_default();
            let target = target.trim_start_matches('<').trim_end_matches('>');
            let path = target.split('#').next().unwrap_or_default();
            if path.is_empty() || path.contains("://") || path.starts_with("mailto:") {
                continue;
            }
            found.push((number, path.to_owned()));
        }
    }
    found
}

fn docs_dir() -> PathBuf {
    crate::project_root().join("docs")
}

/// Every `.md` file under `dir`, sorted, as paths relative to `dir` with `/` separators.
fn markdown_pages(dir: &Path) -> Vec<String> {
    let mut pages: Vec<String> = crate::files_with_extension(dir, "md")
        .expect("docs folder is readable")
        .iter()
        .map(|path| {
            let rel = path.strip_prefix(dir).expect("path is under the root");
            let parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            parts.join("/")
        })
        .collect();
    pages.sort();
    pages
}

fn render(issues: &[Issue]) -> String {
    issues
        .iter()
        .map(|i| format!("{}: {}", i.path, i.message))
        .collect::<Vec<_>>()
        .join("; ")
}

/// What a JSON block turned out to be, once checked.
#[derive(Debug, PartialEq, Eq)]
enum Checked {
    /// JSON that is not a flow document (a client config, a tool result, ...).
    NotAFlow,
    /// A version 2 document that validates.
    Current,
    /// A version 0 or 1 document that migrates to a valid document.
    Legacy,
    /// A `json invalid` document that indeed does not validate.
    Invalid,
}

/// Checks one block; `Err` carries the reason when the block breaks a rule.
fn check_block(block: &Block) -> Result<Checked, String> {
    let value: Value =
        serde_json::from_str(&block.text).map_err(|e| format!("not valid JSON: {e}"))?;
    let is_flow = value.as_object().is_some_and(|o| o.contains_key("steps"));
    if !is_flow {
        if block.is_invalid_example() {
            return Err("marked `json invalid` but is not a flow document".to_owned());
        }
        return Ok(Checked::NotAFlow);
    }
    let validation = validate(&value);
    if block.is_invalid_example() {
        if validation.valid {
            return Err("marked `json invalid` but validates".to_owned());
        }
        return Ok(Checked::Invalid);
    }
    let version = value.get("version");
    let is_current = version.and_then(Value::as_f64) == Some(2.0);
    if is_current {
        if !validation.valid || !validation.issues.is_empty() {
            return Err(format!(
                "version 2 example does not validate: {}",
                render(&validation.issues)
            ));
        }
        return Ok(Checked::Current);
    }
    let migration = migrate(&value, 2).map_err(|e| format!("legacy example: {e}"))?;
    let revalidated = validate(&migration.document);
    if !migration.issues.is_empty() || !revalidated.valid {
        let mut issues = migration.issues.clone();
        issues.extend(revalidated.issues);
        return Err(format!(
            "legacy example does not migrate to a valid document: {}",
            render(&issues)
        ));
    }
    Ok(Checked::Legacy)
}

/// The issues a ```text block lists, one `POINTER  MESSAGE` line each (two or more spaces
/// between), or `None` when the block is not such a listing.
fn listed_issues(block: &Block) -> Option<Vec<(String, String)>> {
    if block.info != "text" {
        return None;
    }
    block
        .text
        .lines()
        .map(|line| {
            let (path, message) = line.split_once("  ")?;
            path.starts_with('/')
                .then(|| (path.to_owned(), message.trim().to_owned()))
        })
        .collect()
}

/// When a `json invalid` block is directly followed by a listing of its issues, the listing
/// must be exactly what `validate` says, in order.
fn check_listing(block: &Block, listing: &[(String, String)]) -> Result<(), String> {
    let value: Value = serde_json::from_str(&block.text).map_err(|e| e.to_string())?;
    let actual: Vec<(String, String)> = validate(&value)
        .issues
        .into_iter()
        .map(|i| (i.path, i.message))
        .collect();
    if actual == listing {
        return Ok(());
    }
    let show = |issues: &[(String, String)]| {
        issues
            .iter()
            .map(|(p, m)| format!("\n    {p}  {m}"))
            .collect::<String>()
    };
    Err(format!(
        "the issues listed after it are not what validate says;\n  listed:{}\n  actual:{}",
        show(listing),
        show(&actual)
    ))
}

/// A block shown after a legacy example on the same page must be what `migrate` gives: a
/// version 2 document right after it is the migrated document, and an array of
/// `{ from, to, changes }` is the `applied` list. `Ok(true)` when the block was such a view.
fn check_migration_shown(
    block: &Block,
    migration: &Migration,
    right_after: bool,
) -> Result<bool, String> {
    let value: Value = serde_json::from_str(&block.text).map_err(|e| e.to_string())?;
    let is_applied = value
        .as_array()
        .is_some_and(|steps| !steps.is_empty() && steps.iter().all(|s| s.get("changes").is_some()));
    let is_document = right_after && value.get("steps").is_some();
    let expected = if is_applied {
        serde_json::to_value(&migration.applied).map_err(|e| e.to_string())?
    } else if is_document {
        migration.document.clone()
    } else {
        return Ok(false);
    };
    if value == expected {
        return Ok(true);
    }
    Err(format!(
        "shows a migration result that is not what migrate gives; migrate gives:\n{}",
        serde_json::to_string_pretty(&expected).map_err(|e| e.to_string())?
    ))
}

#[test]
fn every_json_example_in_docs_holds() {
    let dir = docs_dir();
    let mut failures = String::new();
    let mut flows = 0;
    let mut invalid_examples = 0;
    let mut legacy_examples = 0;
    let mut listings = 0;
    let mut migration_views = 0;
    for page in markdown_pages(&dir) {
        let text = fs::read_to_string(dir.join(&page)).expect("page is UTF-8 text");
        let blocks = fenced_blocks(&text);
        let json_blocks = blocks
            .iter()
            .enumerate()
            .filter(|(_, block)| block.is_json());
        // The migration of the page's latest legacy example, for the blocks that show it.
        let mut migrated: Option<(usize, Migration)> = None;
        for (index, (position, block)) in json_blocks.enumerate() {
            let mut outcome = check_block(block);
            if outcome == Ok(Checked::Invalid)
                && let Some(listing) = blocks.get(position + 1).and_then(listed_issues)
            {
                listings += 1;
                outcome = check_listing(block, &listing).map(|()| Checked::Invalid);
            }
            if outcome == Ok(Checked::Legacy) {
                let value: Value = serde_json::from_str(&block.text).expect("checked above");
                migrated = migrate(&value, 2).ok().map(|m| (position, m));
            } else if let (Ok(_), Some((legacy_at, migration))) = (&outcome, &migrated) {
                let right_after = position == legacy_at + 1;
                match check_migration_shown(block, migration, right_after) {
                    Ok(true) => migration_views += 1,
                    Ok(false) => {}
                    Err(reason) => outcome = Err(reason),
                }
            }
            match outcome {
                Ok(Checked::NotAFlow) => {}
                Ok(Checked::Current) => flows += 1,
                Ok(Checked::Legacy) => legacy_examples += 1,
                Ok(Checked::Invalid) => invalid_examples += 1,
                Err(reason) => {
                    let _ = writeln!(
                        failures,
                        "docs/{page}, json block {index} (line {}): {reason}",
                        block.line
                    );
                }
            }
        }
    }
    assert!(failures.is_empty(), "broken examples in docs/:\n{failures}");
    // Guard against a silently empty run (a moved docs folder, a broken extractor).
    assert!(flows >= 30, "only {flows} flow examples found in docs/");
    assert!(
        invalid_examples >= 2,
        "only {invalid_examples} `json invalid` examples found"
    );
    assert!(
        legacy_examples >= 2,
        "only {legacy_examples} legacy examples found"
    );
    assert!(listings >= 2, "only {listings} issue listings checked");
    assert!(
        migration_views >= 2,
        "only {migration_views} migration results checked"
    );
}

#[test]
fn every_english_page_has_a_spanish_mirror() {
    let dir = docs_dir();
    let pages = markdown_pages(&dir);
    let missing: Vec<&String> = pages
        .iter()
        // `spec/` holds the contracts the code follows, in English only: one text is the
        // contract (a translation would be a second one that can drift).
        .filter(|p| {
            !["es/", "schema/", "spec/"]
                .iter()
                .any(|dir| p.starts_with(dir))
        })
        .filter(|p| !pages.contains(&format!("es/{p}")))
        .collect();
    assert!(
        missing.is_empty(),
        "pages without docs/es/ mirror: {missing:?}"
    );
    let orphans: Vec<&String> = pages
        .iter()
        .filter_map(|p| p.strip_prefix("es/").map(|rest| (p, rest)))
        .filter(|(_, rest)| !pages.iter().any(|q| q == rest))
        .map(|(p, _)| p)
        .collect();
    assert!(
        orphans.is_empty(),
        "Spanish pages without English original: {orphans:?}"
    );
}

#[test]
fn known_search_items_point_at_real_sections() {
    let root = crate::project_root();
    let file = root.join("crates/docs-search/test_data/known_items.json");
    let items: Value =
        serde_json::from_str(&fs::read_to_string(file).expect("known_items.json is readable"))
            .expect("known_items.json is JSON");
    let items = items.as_array().expect("known_items.json is an array");
    assert!(items.len() >= 50, "only {} known items", items.len());
    let dir = docs_dir();
    let mut failures = Vec::new();
    let mut spanish = 0;
    for item in items {
        let query = item["query"].as_str().expect("query is a string");
        let path = item["path"].as_str().expect("path is a string");
        if path.starts_with("es/") {
            spanish += 1;
        }
        let Ok(text) = fs::read_to_string(dir.join(path)) else {
            failures.push(format!("{query:?}: no page {path}"));
            continue;
        };
        if let Some(heading) = item.get("heading") {
            let heading = heading.as_str().expect("heading is a string");
            if !headings(&text).iter().any(|h| h == heading) {
                failures.push(format!("{query:?}: no heading {heading:?} in {path}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "stale known items:\n{}",
        failures.join("\n")
    );
    assert!(spanish >= 15, "only {spanish} Spanish known items");
}

#[test]
fn every_relative_link_points_at_a_file() {
    let root = crate::project_root();
    let mut pages = Vec::new();
    for file in crate::files_with_extension(&root, "md").expect("the repository is readable") {
        let rel = file
            .strip_prefix(&root)
            .expect("under the root")
            .to_path_buf();
        // The evaluation corpora are other projects' pages, links and all.
        let corpus = rel.starts_with("eval") && rel.components().any(|c| c.as_os_str() == "corpus");
        if !corpus {
            pages.push(file);
        }
    }
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in &pages {
        let text = fs::read_to_string(page).expect("a Markdown file is UTF-8 text");
        let dir = page.parent().expect("a file has a folder");
        for (line, target) in relative_links(&text) {
            checked += 1;
            if !dir.join(&target).exists() {
                let shown = page
                    .strip_prefix(&root)
                    .unwrap_or(page)
                    .display()
                    .to_string();
                broken.push(format!(
                    "{}:{line}: no file {target}",
                    shown.replace('\\', "/")
                ));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(checked >= 50, "only {checked} relative links found");
}

#[test]
fn links_are_read_outside_code() {
    let page = "See [a](a.md#x) and ![p](img/p.png \"t\"), [w](https://x.y), [s](#here).\n\
                `[not](code.md)`\n```\n[no](block.md)\n```\n";
    assert_eq!(
        relative_links(page),
        vec![(1, "a.md".to_owned()), (1, "img/p.png".to_owned())]
    );
}

#[test]
fn extractor_finds_fences_and_info_strings() {
    let page = "# Title\n\n```json\n{\"a\": 1}\n```\n\n  ````json invalid\n{\n```\n}\n  ````\n\n~~~bash\n# not a heading\n~~~\n\n## Second `code`\n";
    let blocks = fenced_blocks(page);
    assert_eq!(
        blocks,
        vec![
            Block {
                info: "json".to_owned(),
                line: 3,
                text: "{\"a\": 1}".to_owned()
            },
            Block {
                info: "json invalid".to_owned(),
                line: 7,
                text: "{\n```\n}".to_owned()
            },
            Block {
                info: "bash".to_owned(),
                line: 13,
                text: "# not a heading".to_owned()
            },
        ]
    );
    assert!(blocks[0].is_json() && !blocks[0].is_invalid_example());
    assert!(blocks[1].is_invalid_example());
    assert!(!blocks[2].is_json());
    assert_eq!(headings(page), vec!["Title", "Second code"]);
}

#[test]
fn a_broken_example_is_reported() {
    let block = |info: &str, text: &str| Block {
        info: info.to_owned(),
        line: 1,
        text: text.to_owned(),
    };
    assert!(check_block(&block("json", "{ \"steps\": ")).is_err());
    assert!(check_block(&block("json invalid", "{ \"servers\": {} }")).is_err());
    assert_eq!(
        check_block(&block("json", "{ \"servers\": {} }")),
        Ok(Checked::NotAFlow)
    );
}

#[test]
fn an_issue_listing_must_match_validate() {
    let block = |info: &str, text: &str| Block {
        info: info.to_owned(),
        line: 1,
        text: text.to_owned(),
    };
    let listing = listed_issues(&block(
        "text",
        "/steps/0/text  must be a string\n/id    bad id",
    ));
    assert_eq!(
        listing,
        Some(vec![
            ("/steps/0/text".to_owned(), "must be a string".to_owned()),
            ("/id".to_owned(), "bad id".to_owned()),
        ])
    );
    assert_eq!(listed_issues(&block("text", "no pointer here")), None);
    assert_eq!(listed_issues(&block("bash", "/x  y")), None);
    let invalid = block(
        "json invalid",
        r#"{ "version": 2, "id": "a", "steps": [] }"#,
    );
    let wrong = vec![("/nowhere".to_owned(), "made up".to_owned())];
    assert!(check_listing(&invalid, &wrong).is_err());
}
