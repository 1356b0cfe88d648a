//! The built-in tools, one module per family; each tool declares its schemas beside its handler.

mod docs;
mod flow;
mod render;
mod simulate;
mod test;

use crate::catalogue::{Catalogue, ToolError, ToolOutput};
use serde_json::{Map, Value, json};

/// The built-in catalogue: the flow tools, and the docs tools when a docs directory exists.
pub(crate) fn builtin(with_docs: bool) -> Catalogue {
    let mut catalogue = Catalogue::new();
    for tool in flow::tools() {
        catalogue.register(tool);
    }
    catalogue.register(render::flow_render());
    catalogue.register(simulate::flow_simulate());
    catalogue.register(test::flow_test());
    if with_docs {
        for tool in docs::tools() {
            catalogue.register(tool);
        }
    }
    catalogue
}

/// The names of every built-in tool, docs tools included.
pub(crate) fn builtin_tool_names() -> Vec<&'static str> {
    builtin(true).tools().map(|tool| tool.name).collect()
}

/// The `subflows` argument of the tools that take a set of documents (`flow_analyze`,
/// `flow_render`).
pub(crate) fn subflows_property() -> Value {
    json!({
        "type": "array",
        "items": { "type": "object" },
        "description": "Flow documents the document calls with subflow steps (each validated first)."
    })
}

/// The `issues` of a set of documents: each with its pointer, its sentence and its `source`
/// (`document` or `subflows/N`), as `flow_analyze` and `flow_render` return them.
pub(crate) fn sourced_issues_schema() -> Value {
    let mut schema = issues_without_positions_schema();
    location_properties(&mut schema["items"]["properties"]);
    schema
}

/// The lint `diagnostics` of a set of documents (`flow_analyze`, `flow_fix`), with line and
/// column for the document's own when it came as `documentText`.
pub(crate) fn diagnostics_schema() -> Value {
    json!({
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "code": { "type": "string" },
                "severity": { "type": "string", "enum": ["error", "warning", "info"] },
                "flow": { "type": "string" },
                "step": { "type": "string" },
                "path": { "type": "string" },
                "message": { "type": "string" },
                "source": { "type": "string" },
                "line": { "type": "integer", "description": "With documentText: where the member the path names is." },
                "column": { "type": "integer" },
                "endLine": { "type": "integer" },
                "endColumn": { "type": "integer" }
            },
            "required": ["code", "severity", "flow", "path", "message", "source"]
        }
    })
}

/// The same issues without line and column (`flow_test`'s, whose documents arrive as JSON).
pub(crate) fn issues_without_positions_schema() -> Value {
    json!({
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "path": { "type": "string" },
                "message": { "type": "string" },
                "source": { "type": "string" }
            },
            "required": ["path", "message", "source"]
        }
    })
}

/// `{"type": "object", "description": ...}`: a document argument (validated by the tool itself,
/// never by an embedded schema, so every client accepts the declaration).
pub(crate) fn document_property(description: &str) -> Value {
    json!({ "type": "object", "description": description })
}

/// `documentText`: the document as the text of its file, instead of `document` (exclusive).
pub(crate) fn document_text_property() -> Value {
    json!({
        "type": "string",
        "description": "The document as JSON text, instead of document: findings then carry line and column."
    })
}

/// The document a tool reads: given as a value (`document`) or as text (`documentText`).
pub(crate) enum DocumentSource<'a> {
    /// `document`.
    Value(&'a Value),
    /// `documentText` that parses: the value and where each member stands.
    Text(Value, botmesh_flow_schema::SourceMap),
    /// `documentText` that is not JSON.
    NotJson(botmesh_flow_schema::SyntaxError),
}

impl DocumentSource<'_> {
    /// The parsed document, unless the text is not JSON.
    pub(crate) fn value(&self) -> Option<&Value> {
        match self {
            DocumentSource::Value(value) => Some(value),
            DocumentSource::Text(value, _) => Some(value),
            DocumentSource::NotJson(_) => None,
        }
    }

    /// The source map, when the document came as text.
    pub(crate) fn map(&self) -> Option<&botmesh_flow_schema::SourceMap> {
        match self {
            DocumentSource::Text(_, map) => Some(map),
            _ => None,
        }
    }
}

/// Reads `document` or `documentText` (exactly one must be given) for the tool `tool`.
pub(crate) fn document_source<'a>(
    tool: &str,
    arguments: &'a Map<String, Value>,
) -> Result<DocumentSource<'a>, ToolError> {
    match (arguments.get("document"), arguments.get("documentText")) {
        (Some(_), Some(_)) => Err(ToolError(format!(
            "invalid arguments for {tool}: give either \"document\" or \"documentText\", not both"
        ))),
        (Some(value), None) => Ok(DocumentSource::Value(value)),
        (None, Some(text)) => {
            // The schema checker has verified a string.
            let text = text.as_str().unwrap_or_default();
            Ok(match botmesh_flow_schema::parse_with_positions(text) {
                Ok((value, map)) => DocumentSource::Text(value, map),
                Err(error) => DocumentSource::NotJson(error),
            })
        }
        (None, None) => Err(ToolError(format!(
            "invalid arguments for {tool}: missing required argument \"document\" (or \"documentText\", the document as JSON text)"
        ))),
    }
}

/// The issue of a `documentText` that is not JSON, at the place it breaks (with `source` when
/// the tool's issues carry one).
pub(crate) fn not_json_issue(error: &botmesh_flow_schema::SyntaxError, source: bool) -> Value {
    let mut issue = json!({
        "path": "",
        "message": format!("the text is {error}"),
        "line": error.line,
        "column": error.column,
        "endLine": error.line,
        "endColumn": error.column + 1,
    });
    if source {
        issue["source"] = json!("document");
    }
    issue
}

/// The `line`/`column`/`endLine`/`endColumn` properties of a located issue or diagnostic.
pub(crate) fn location_properties(properties: &mut Value) {
    properties["line"] = json!({
        "type": "integer",
        "description": "With documentText: where the member the path names is (from 1; columns in characters; the end just past it)."
    });
    for name in ["column", "endLine", "endColumn"] {
        properties[name] = json!({ "type": "integer" });
    }
}

/// An input schema with the given properties and required names, and no other key allowed.
pub(crate) fn input_schema(properties: Value, required: &[&str]) -> Value {
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), properties);
    if !required.is_empty() {
        schema.insert("required".into(), json!(required));
    }
    schema.insert("additionalProperties".into(), json!(false));
    Value::Object(schema)
}

/// An argument the schema checker has already verified to be present with this type.
pub(crate) fn arg<'a>(
    arguments: &'a Map<String, Value>,
    name: &str,
) -> Result<&'a Value, ToolError> {
    arguments
        .get(name)
        .ok_or_else(|| ToolError(format!("missing required argument \"{name}\"")))
}

/// Serializes a payload computed by a library into a JSON value.
pub(crate) fn to_payload(value: impl serde::Serialize) -> Result<Value, ToolError> {
    serde_json::to_value(value).map_err(|error| ToolError(format!("internal error: {error}")))
}

/// The most characters a tool's text item holds unless the caller asked for more (`docs_page`
/// `length`, `fullText: true`).
pub(crate) const TEXT_LIMIT: usize = 100_000;

/// The `fullText` argument of the tools whose text can grow with the document.
pub(crate) fn full_text_property() -> Value {
    json!({
        "type": "boolean",
        "default": false,
        "description": "Keep the whole result in the text past 100000 characters."
    })
}

/// Room kept under [`TEXT_LIMIT`] for the line that says what a text leaves out.
const NOTE_ROOM: usize = 1_000;

/// A payload whose text is its compact JSON, unless that would pass [`TEXT_LIMIT`] and the
/// caller did not ask for `fullText`. Then the text leaves the `bulk` fields out, then (if still
/// too long) keeps only the first items of the `lists` that fit, and ends with one line naming
/// what was left out and how to get it (`structuredContent` keeps everything).
pub(crate) fn bounded_output(
    tool: &str,
    payload: Value,
    bulk: &[&str],
    lists: &[&str],
    arguments: &Map<String, Value>,
) -> ToolOutput {
    let full = arguments.get("fullText").and_then(Value::as_bool) == Some(true);
    let text = payload.to_string();
    let length = |value: &Value| value.to_string().chars().count();
    if full || text.chars().count() <= TEXT_LIMIT {
        return ToolOutput {
            payload,
            text: Some(text),
            leading: None,
            meta: None,
        };
    }
    let budget = TEXT_LIMIT - NOTE_ROOM;
    let mut shown = payload.clone();
    let mut left_out = Vec::new();
    if let Value::Object(fields) = &mut shown {
        for name in bulk {
            if let Some(value) = fields.remove(*name) {
                left_out.push(format!("\"{name}\" ({} characters)", length(&value)));
            }
        }
    }
    for name in lists {
        let size = length(&shown);
        let Some(Value::Array(items)) = shown.get_mut(*name) else {
            continue;
        };
        if size <= budget {
            break;
        }
        let total = items.len();
        let all: usize = items.iter().map(|item| length(item) + 1).sum();
        // What the text holds without this list's items; then as many items as fit.
        let mut room = budget.saturating_sub(size.saturating_sub(all));
        let kept = items
            .iter()
            .take_while(|item| {
                let cost = length(item) + 1;
                let fits = cost <= room;
                room = room.saturating_sub(cost);
                fits
            })
            .count();
        if kept == total {
            continue;
        }
        items.truncate(kept);
        left_out.push(format!("\"{name}\" after the first {kept} of {total}"));
    }
    let text = format!(
        "{shown}\n[{tool}: {} left out of this text to keep it under {TEXT_LIMIT} characters; \
         complete in structuredContent, or call again with \"fullText\": true to get it here]",
        left_out.join(" and ")
    );
    ToolOutput {
        payload,
        text: Some(text),
        leading: None,
        meta: None,
    }
}
