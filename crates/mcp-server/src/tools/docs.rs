//! The docs tools: search and read the Markdown guides under the docs directory.

use super::{arg, input_schema};
use crate::catalogue::{Scope, Tool, ToolContext, ToolError, ToolOutput};
use botmesh_docs_search::{DocsIndex, slice_page};
use serde_json::{Value, json};

/// Default and largest number of search results.
const DEFAULT_LIMIT: u64 = 5;
const MAX_LIMIT: u64 = 25;

/// Default and largest number of characters `docs_page` returns: the default keeps a page
/// under about 10,000 tokens (the size clients start warning at); more must be asked for.
const DEFAULT_PAGE_LENGTH: u64 = 40_000;
const MAX_PAGE_LENGTH: u64 = 1_000_000;

pub(super) fn tools() -> Vec<Tool> {
    vec![docs_search(), docs_page()]
}

fn index<'a>(context: &ToolContext<'a>) -> Result<&'a DocsIndex, ToolError> {
    context
        .docs
        .ok_or_else(|| ToolError("no docs directory is configured".to_owned()))
}

fn docs_search() -> Tool {
    Tool {
        name: "docs_search",
        title: "Search the botmesh guides",
        description: "Search the project's Markdown guides (English and Spanish; case- and \
         accent-insensitive; identifiers like appendLog match whole and split), best first: \
         path, title, heading, anchor, snippet, score, and mirrors (the same section in the \
         other language's page). Read the section alone with docs_page {path, heading: anchor}, \
         or the whole page with docs_page {path}.",
        scope: Scope::Docs,
        input_schema: input_schema(
            json!({
                "query": { "type": "string", "minLength": 1, "maxLength": 500, "description": "Words, an identifier or an exact phrase." },
                "limit": { "type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT, "description": "Most results to return (default 5)." }
            }),
            &["query"],
        ),
        output_schema: json!({
            "type": "object",
            "properties": {
                "results": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "path": { "type": "string", "description": "Page path relative to the docs root, / separated." },
                            "title": { "type": "string" },
                            "heading": { "type": "string" },
                            "anchor": { "type": "string", "description": "The section's anchor, unique in the page: pass it to docs_page as heading to read this section alone (empty: the text before the first heading)." },
                            "snippet": { "type": "string" },
                            "score": { "type": "number" },
                            "mirrors": {
                                "type": "array",
                                "description": "Present when the page has copies in other languages: the same section there, folded into this result.",
                                "items": {
                                    "type": "object",
                                    "properties": {
                                        "path": { "type": "string" },
                                        "heading": { "type": "string" },
                                        "anchor": { "type": "string" }
                                    },
                                    "required": ["path", "heading", "anchor"]
                                }
                            }
                        },
                        "required": ["path", "title", "heading", "anchor", "snippet", "score"]
                    }
                }
            },
            "required": ["results"]
        }),
        handler: Tool::handler(|context, arguments| {
            let query = arg(arguments, "query")?.as_str().unwrap_or_default();
            let limit = arguments
                .get("limit")
                .and_then(Value::as_f64)
                .map_or(DEFAULT_LIMIT, |l| l as u64);
            let hits = index(context)?
                .search(query, usize::try_from(limit).unwrap_or(5))
                .map_err(|error| ToolError(error.to_string()))?;
            Ok(json!({ "results": super::to_payload(hits)? }).into())
        }),
    }
}

fn docs_page() -> Tool {
    Tool {
        name: "docs_page",
        title: "Read one botmesh guide page",
        description: "Return the Markdown of one page of the guides, by the path docs_search gave \
         (relative to the docs root, e.g. guide/getting-started.md; only .md files under the \
         root). With heading (a docs_search result's anchor, or a heading's text), only that \
         section, up to the next heading (with the sub-headings a page repeats under each \
         entry, such as Usage), with its heading path. A text longer than length \
         characters (default 40000) is cut at a line end, and the text ends with one line \
         giving the exact call that reads on.",
        scope: Scope::Docs,
        input_schema: input_schema(
            json!({
                "path": { "type": "string", "minLength": 1, "maxLength": 1024, "description": "Page path relative to the docs root." },
                "heading": { "type": "string", "maxLength": 1024, "description": "Read only this section: the anchor a docs_search result gave, or the heading's text (the first section with it); empty for the text before the first heading." },
                "offset": { "type": "integer", "minimum": 0, "default": 0, "description": "First character to return (the next of a cut read)." },
                "length": { "type": "integer", "minimum": 1, "maximum": MAX_PAGE_LENGTH, "default": DEFAULT_PAGE_LENGTH, "description": "Most characters to return; the cut falls at a line end." }
            }),
            &["path"],
        ),
        output_schema: json!({
            "type": "object",
            "properties": {
                "path": { "type": "string" },
                "heading": { "type": "string", "description": "With heading asked: the section's heading." },
                "anchor": { "type": "string", "description": "With heading asked: the section's anchor." },
                "headingPath": { "type": "array", "items": { "type": "string" }, "description": "With heading asked: the headings from the top of the page down to the section's own." },
                "markdown": { "type": "string" },
                "offset": { "type": "integer" },
                "total": { "type": "integer", "description": "Characters in the whole page (with heading: in the whole section)." },
                "next": { "type": "integer", "description": "Present when the page goes on: the offset to read from." }
            },
            "required": ["path", "markdown", "offset", "total"]
        }),
        handler: Tool::handler(|context, arguments| {
            let path = arg(arguments, "path")?.as_str().unwrap_or_default();
            // The argument checker has verified integers in range (possibly spelled `2.0`).
            let integer = |name: &str, default: u64| {
                arguments
                    .get(name)
                    .and_then(Value::as_f64)
                    .map_or(default, |n| n as u64)
            };
            let offset = usize::try_from(integer("offset", 0)).unwrap_or(usize::MAX);
            let length_asked = arguments.contains_key("length");
            let length =
                usize::try_from(integer("length", DEFAULT_PAGE_LENGTH)).unwrap_or(usize::MAX);
            let docs = index(context)?;
            let heading = arguments.get("heading").and_then(Value::as_str);
            let (source, section) = match heading {
                Some(heading) => {
                    let section = docs
                        .section(path, heading)
                        .map_err(|error| ToolError(error.to_string()))?;
                    (section.markdown.clone(), Some((heading, section)))
                }
                None => (
                    docs.page(path)
                        .map_err(|error| ToolError(error.to_string()))?,
                    None,
                ),
            };
            let part = slice_page(&source, offset, length).map_err(|error| {
                let error = error.to_string();
                match &section {
                    Some((asked, _)) => ToolError(format!(
                        "{}: {path}, heading {asked:?}",
                        error.replace("of the page", "of the section")
                    )),
                    None => ToolError(format!("{error}: {path}")),
                }
            })?;
            let mut payload = json!({ "path": path });
            if let Some((_, section)) = &section {
                payload["heading"] = json!(section.heading);
                payload["anchor"] = json!(section.anchor);
                payload["headingPath"] = json!(section.heading_path);
            }
            payload["markdown"] = json!(part.text);
            payload["offset"] = json!(part.offset);
            payload["total"] = json!(part.total);
            let mut text = part.text.to_owned();
            let end = part.offset + part.text.chars().count();
            let whole = part.offset == 0 && part.next.is_none();
            // One line after the Markdown says what was read when it is not a whole page: a
            // section (always), with its heading path; a part, with how to read on.
            let mut facts = Vec::new();
            if let Some((_, section)) = &section {
                facts.push(match section.heading_path.split_last() {
                    None => format!("the text before the first heading of {path}"),
                    Some((_, above)) => {
                        let under = if above.is_empty() {
                            String::new()
                        } else {
                            format!(" under {}", above.join(" › "))
                        };
                        format!(
                            "section {:?} (anchor {:?}){under} of {path}",
                            section.heading, section.anchor
                        )
                    }
                });
            }
            if !whole {
                facts.push(format!(
                    "characters {}-{end} of {}",
                    part.offset, part.total
                ));
                facts.push(match part.next {
                    Some(next) => {
                        payload["next"] = json!(next);
                        let mut again = json!({ "path": path, "offset": next });
                        if let Some((asked, _)) = &section {
                            again["heading"] = json!(asked);
                        }
                        if length_asked {
                            again["length"] = json!(length);
                        }
                        format!("read on with docs_page {again}")
                    }
                    None if section.is_some() => "the end of the section".to_owned(),
                    None => "the end of the page".to_owned(),
                });
            }
            if !facts.is_empty() {
                // Always one newline before the line, so a reader knows where the part ends.
                text.push('\n');
                text.push_str(&format!("[docs_page: {}]", facts.join("; ")));
            }
            Ok(ToolOutput {
                payload,
                text: Some(text),
                leading: None,
                meta: None,
            })
        }),
    }
}
