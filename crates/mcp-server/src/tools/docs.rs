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
         path, title, heading, snippet, score. Read a page with docs_page.",
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
                            "snippet": { "type": "string" },
                            "score": { "type": "number" }
                        },
                        "required": ["path", "title", "heading", "snippet", "score"]
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
         root). A page longer than length characters (default 40000) is cut at a line end, and \
         the text ends with one line giving the exact call that reads on.",
        scope: Scope::Docs,
        input_schema: input_schema(
            json!({
                "path": { "type": "string", "minLength": 1, "maxLength": 1024, "description": "Page path relative to the docs root." },
                "offset": { "type": "integer", "minimum": 0, "default": 0, "description": "First character to return (the next of a cut read)." },
                "length": { "type": "integer", "minimum": 1, "maximum": MAX_PAGE_LENGTH, "default": DEFAULT_PAGE_LENGTH, "description": "Most characters to return; the cut falls at a line end." }
            }),
            &["path"],
        ),
        output_schema: json!({
            "type": "object",
            "properties": {
                "path": { "type": "string" },
                "markdown": { "type": "string" },
                "offset": { "type": "integer" },
                "total": { "type": "integer", "description": "Characters in the whole page." },
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
            let page = index(context)?
                .page(path)
                .map_err(|error| ToolError(error.to_string()))?;
            let part = slice_page(&page, offset, length)
                .map_err(|error| ToolError(format!("{error}: {path}")))?;
            let mut payload = json!({
                "path": path,
                "markdown": part.text,
                "offset": part.offset,
                "total": part.total,
            });
            let mut text = part.text.to_owned();
            let end = part.offset + part.text.chars().count();
            let whole = part.offset == 0 && part.next.is_none();
            if !whole {
                // Always one newline before the line, so a reader knows where the part ends.
                text.push('\n');
                text.push_str(&format!(
                    "[docs_page: characters {}-{end} of {}",
                    part.offset, part.total
                ));
            }
            match part.next {
                Some(next) => {
                    payload["next"] = json!(next);
                    let mut again = json!({ "path": path, "offset": next });
                    if length_asked {
                        again["length"] = json!(length);
                    }
                    text.push_str(&format!("; read on with docs_page {again}]"));
                }
                None if !whole => text.push_str("; the end of the page]"),
                None => {}
            }
            Ok(ToolOutput {
                payload,
                text: Some(text),
            })
        }),
    }
}
