//! The flow tools: thin wrappers over `botmesh-flow-schema` and `botmesh-flow-analyzer`.

use super::{
    DocumentSource, arg, bounded_output, document_property, document_source,
    document_text_property, full_text_property, input_schema, location_properties, not_json_issue,
    to_payload,
};
use crate::catalogue::{Scope, Tool, ToolError, ToolOutput};
use botmesh_flow_analyzer as analyzer;
use botmesh_flow_runtime as runtime;
use botmesh_flow_schema as schema;
use serde_json::{Value, json};
use std::sync::OnceLock;

const DOCUMENT: &str = "A flow document (JSON object).";

fn issues_schema() -> Value {
    let mut schema = json!({
        "type": "array",
        "description": "Every problem, in document order.",
        "items": {
            "type": "object",
            "properties": {
                "path": { "type": "string", "description": "RFC 6901 JSON Pointer into the document." },
                "message": { "type": "string", "description": "One sentence naming the rule." }
            },
            "required": ["path", "message"]
        }
    });
    location_properties(&mut schema["items"]["properties"]);
    schema
}

pub(super) fn tools() -> Vec<Tool> {
    vec![
        flow_validate(),
        flow_analyze(),
        flow_fix(),
        flow_migrate(),
        flow_diff(),
        flow_digest(),
        flow_schema(),
        flow_example(),
    ]
}

fn flow_validate() -> Tool {
    Tool {
        name: "flow_validate",
        title: "Validate a flow document",
        description: "Validate a version 2 flow document against the flow contract (shape, limits, patterns, \
         per-kind fields, references): valid, every issue in document order ({ path: JSON \
         Pointer, message: one sentence naming the rule }), and a summary when valid. A version 0 \
         or 1 document gets one issue: call flow_migrate first. Send documentText (the file's \
         text) instead of document to get line and column with each issue.",
        scope: Scope::Flow,
        input_schema: input_schema(
            json!({
                "document": document_property(DOCUMENT),
                "documentText": document_text_property(),
                "fullText": full_text_property()
            }),
            &[],
        ),
        output_schema: json!({
            "type": "object",
            "properties": {
                "valid": { "type": "boolean" },
                "issues": issues_schema(),
                "summary": {
                    "type": "object",
                    "description": "Present when valid: version, id, step count, count per kind.",
                    "properties": {
                        "version": { "type": "integer" },
                        "id": { "type": "string" },
                        "steps": { "type": "integer" },
                        "kinds": { "type": "object" }
                    }
                }
            },
            "required": ["valid", "issues"]
        }),
        handler: Tool::handler(|_, arguments| {
            let source = document_source("flow_validate", arguments)?;
            let validation = match &source {
                DocumentSource::NotJson(error) => {
                    json!({ "valid": false, "issues": [not_json_issue(error, false)] })
                }
                _ => {
                    let document = source.value().unwrap_or(&Value::Null);
                    let validation = schema::validate(document);
                    let keys: Vec<bool> = validation.issues.iter().map(|i| i.at_key).collect();
                    let mut payload = to_payload(validation)?;
                    if let Some(map) = source.map() {
                        analyzer::add_locations(&mut payload, map, &keys);
                    }
                    payload
                }
            };
            Ok(bounded_output(
                "flow_validate",
                validation,
                &[],
                &["issues"],
                arguments,
            ))
        }),
    }
}

fn flow_analyze() -> Tool {
    Tool {
        name: "flow_analyze",
        title: "Analyze, draw and lint a flow document",
        description: "Validate a flow document and the subflows it calls, draw its graph (Mermaid by default, \
         JSON with format: \"json\") and lint the set (stable codes, listed in the docs). Issues and diagnostics \
         carry source (\"document\" or \"subflows/N\"), a JSON Pointer and what to change; an \
         invalid input gives its issues and no drawing. Send documentText (the file's text) \
         instead of document to get line and column with the document's findings.",
        scope: Scope::Flow,
        input_schema: input_schema(
            json!({
                "document": document_property(DOCUMENT),
                "documentText": document_text_property(),
                "subflows": super::subflows_property(),
                "format": {
                    "type": "string",
                    "enum": ["mermaid", "json"],
                    "default": "mermaid",
                    "description": "mermaid: a flowchart in `mermaid`; json: the graph in `graph`."
                },
                "direction": {
                    "type": "string",
                    "enum": ["TD", "LR", "BT", "RL"],
                    "default": "TD",
                    "description": "Mermaid flowchart direction."
                },
                "fullText": full_text_property()
            }),
            &[],
        ),
        output_schema: json!({
            "type": "object",
            "properties": {
                "valid": { "type": "boolean" },
                "issues": super::sourced_issues_schema(),
                "diagnostics": super::diagnostics_schema(),
                "mermaid": { "type": "string", "description": "Present with format mermaid when valid." },
                "graph": { "type": "object", "description": "Present with format json when valid." },
                "summary": { "type": "object" }
            },
            "required": ["valid", "issues", "diagnostics", "summary"]
        }),
        handler: Tool::handler(|_, arguments| {
            let format = match arguments.get("format").and_then(Value::as_str) {
                None => analyzer::Format::default(),
                Some(format) => format
                    .parse()
                    .map_err(|error: analyzer::Error| ToolError(error.to_string()))?,
            };
            let direction = match arguments.get("direction").and_then(Value::as_str) {
                None => analyzer::Direction::default(),
                Some(direction) => direction
                    .parse()
                    .map_err(|error: analyzer::Error| ToolError(error.to_string()))?,
            };
            let subflows = arguments
                .get("subflows")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice);
            let source = document_source("flow_analyze", arguments)?;
            let analysis = match &source {
                DocumentSource::NotJson(error) => json!({
                    "valid": false,
                    "issues": [not_json_issue(error, true)],
                    "diagnostics": [],
                    "summary": analyzer::AnalysisSummary {
                        flows: 1 + subflows.len(),
                        issues: 1,
                        ..analyzer::AnalysisSummary::default()
                    },
                }),
                _ => analyzer::analyze_located(
                    source.value().unwrap_or(&Value::Null),
                    source.map(),
                    subflows,
                    format,
                    direction,
                ),
            };
            Ok(bounded_output(
                "flow_analyze",
                analysis,
                &["mermaid", "graph"],
                &["issues", "diagnostics"],
                arguments,
            ))
        }),
    }
}

fn flow_fix() -> Tool {
    Tool {
        name: "flow_fix",
        title: "Apply the fixes of a flow document",
        description: "Apply the fixes validation and lint carry (safe ones keep the meaning; unsafe: true \
         adds plausible repairs that change behaviour) until none applies: the document, its \
         digest, each fix as a sentence, and the issues and diagnostics left. Send documentText \
         (the file's text) instead of document to get the fixed text back in text, edited only \
         where a fix applied (indentation, key order and spacing kept), with line and column on \
         the findings left.",
        scope: Scope::Flow,
        input_schema: input_schema(
            json!({
                "document": document_property(DOCUMENT),
                "documentText": document_text_property(),
                "subflows": super::subflows_property(),
                "unsafe": {
                    "type": "boolean",
                    "default": false,
                    "description": "Also apply unsafe fixes."
                },
                "fullText": full_text_property()
            }),
            &[],
        ),
        output_schema: json!({
            "type": "object",
            "properties": {
                "document": { "type": "object" },
                "text": {
                    "type": "string",
                    "description": "With documentText: the fixed text, the input edited only where a fix applied (what botmesh-mcp check --fix writes)."
                },
                "textRewritten": {
                    "type": "boolean",
                    "description": "Present (true) when some fix could not be written as an edit of documentText: text is then the fixed document printed anew."
                },
                "digest": { "type": "string" },
                "valid": { "type": "boolean" },
                "applied": { "type": "array", "items": { "type": "string" } },
                "issues": super::sourced_issues_schema(),
                "diagnostics": super::diagnostics_schema()
            },
            "required": ["document", "digest", "valid", "applied", "issues", "diagnostics"]
        }),
        handler: Tool::handler(|_, arguments| {
            let source = document_source("flow_fix", arguments)?;
            let subflows = arguments
                .get("subflows")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice);
            let include_unsafe = arguments.get("unsafe").and_then(Value::as_bool) == Some(true);
            let (outcome, text) = match &source {
                DocumentSource::NotJson(error) => {
                    return Err(ToolError(format!(
                        "argument \"documentText\" is {error}; fix the JSON first (flow_validate with documentText says where)"
                    )));
                }
                DocumentSource::Text(..) => {
                    // The schema checker has verified a string, which parsed.
                    let given = arguments
                        .get("documentText")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    let fixed = analyzer::fix_text(given, subflows, include_unsafe)
                        .map_err(|error| ToolError(format!("internal error: {error}")))?;
                    (fixed.outcome, Some(fixed.text))
                }
                DocumentSource::Value(document) => (
                    analyzer::fix_document(document, subflows, include_unsafe),
                    None,
                ),
            };
            let applied: Vec<String> = outcome
                .applied
                .iter()
                .map(|fix| match fix.applicability {
                    schema::Applicability::Safe => fix.description.clone(),
                    schema::Applicability::Unsafe => format!("{} (unsafe)", fix.description),
                })
                .collect();
            let keys: Vec<bool> = outcome.issues.iter().map(|i| i.at_key).collect();
            let mut payload = json!({
                "digest": schema::digest(&outcome.document).digest,
                "valid": outcome.valid,
                "applied": applied,
                "issues": outcome.issues,
                "diagnostics": outcome.diagnostics,
            });
            if let Some(text) = text {
                let (text, rewritten) = match text {
                    Some(text) => (text, false),
                    None => (pretty_json(&outcome.document), true),
                };
                if let Ok((_, map)) = schema::parse_with_positions(&text) {
                    analyzer::add_locations(&mut payload, &map, &keys);
                }
                payload["text"] = Value::String(text);
                if rewritten {
                    payload["textRewritten"] = Value::Bool(true);
                }
            }
            payload["document"] = outcome.document;
            Ok(bounded_output(
                "flow_fix",
                payload,
                &["document", "text"],
                &["issues", "diagnostics"],
                arguments,
            ))
        }),
    }
}

/// A document printed anew: two-space indentation and a final newline.
fn pretty_json(document: &Value) -> String {
    let mut text = serde_json::to_string_pretty(document).unwrap_or_default();
    text.push('\n');
    text
}

fn flow_migrate() -> Tool {
    Tool {
        name: "flow_migrate",
        title: "Migrate a flow document",
        description: "Migrate a flow document from version 0 (no version key; the 2023 dashboard's exports \
         too: input, transfer, menu options as { label, goto }) or 1 to target (default 2): \
         the document, from, to, every change as a sentence (nothing is dropped silently) and, \
         for target 2, its validation issues. A version outside 0-2 or a target below the \
         document's is an error.",
        scope: Scope::Flow,
        input_schema: input_schema(
            json!({
                "document": document_property(DOCUMENT),
                "target": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": schema::CURRENT_VERSION,
                    "default": schema::CURRENT_VERSION,
                    "description": "Version to migrate to (default: the current version, 2)."
                },
                "fullText": full_text_property()
            }),
            &["document"],
        ),
        output_schema: json!({
            "type": "object",
            "properties": {
                "document": { "type": "object" },
                "from": { "type": "integer" },
                "to": { "type": "integer" },
                "applied": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "from": { "type": "integer" },
                            "to": { "type": "integer" },
                            "changes": { "type": "array", "items": { "type": "string" } }
                        },
                        "required": ["from", "to", "changes"]
                    }
                },
                "issues": issues_schema()
            },
            "required": ["document", "from", "to", "applied", "issues"]
        }),
        handler: Tool::handler(|_, arguments| {
            let target = match arguments.get("target") {
                None => schema::CURRENT_VERSION,
                // The argument checker has verified an integer 0-2 (possibly spelled `2.0`).
                Some(target) => target
                    .as_f64()
                    .map_or(schema::CURRENT_VERSION, |t| t as u64),
            };
            let migration = schema::migrate(arg(arguments, "document")?, target)
                .map_err(|error| ToolError(error.to_string()))?;
            Ok(bounded_output(
                "flow_migrate",
                to_payload(migration)?,
                &["document"],
                &["issues"],
                arguments,
            ))
        }),
    }
}

fn flow_diff() -> Tool {
    let value_changes = |description: &str| {
        json!({
            "type": "array",
            "description": description,
            "items": {
                "type": "object",
                "properties": {
                    "field": { "type": "string", "description": "The step (or top-level) key it is under." },
                    "path": { "type": "string", "description": "JSON Pointer in the right document (removed: where it was)." },
                    "before": {},
                    "after": {},
                    "cut": { "type": "boolean", "description": "A value over 200 characters of JSON, cut with …." }
                },
                "required": ["field", "path"]
            }
        })
    };
    let step_entries = |description: &str| {
        json!({
            "type": "array",
            "description": description,
            "items": {
                "type": "object",
                "properties": {
                    "id": { "type": "string" },
                    "path": { "type": "string", "description": "Its pointer in the document that has it." },
                    "step": { "type": "object" },
                    "note": { "type": "string", "description": "Why it is matched by position." }
                },
                "required": ["id", "path", "step"]
            }
        })
    };
    Tool {
        name: "flow_diff",
        title: "Compare two flow documents",
        description: "Compare two flow documents step by step (matched by id, both migrated to version 2 \
         first): what changed, each value at the deepest place it changed with its JSON Pointer \
         and its value before and after (a renamed row title is one entry with the two titles), \
         metadata changes with their values, added and removed steps whole, reordering, and the \
         digests of both sides. Key order, whitespace and number spelling never count as changes.",
        scope: Scope::Flow,
        input_schema: input_schema(
            json!({
                "left": document_property("The earlier flow document."),
                "right": document_property("The later flow document."),
                "fullText": full_text_property()
            }),
            &["left", "right"],
        ),
        output_schema: json!({
            "type": "object",
            "properties": {
                "changed": { "type": "boolean" },
                "metadata": { "type": "array", "items": { "type": "string" } },
                "metadataValues": value_changes("Each top-level value that changed."),
                "added": { "type": "array", "items": { "type": "string" } },
                "removed": { "type": "array", "items": { "type": "string" } },
                "addedSteps": step_entries("Steps only on the right, whole."),
                "removedSteps": step_entries("Steps only on the left, whole."),
                "changedSteps": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "id": { "type": "string" },
                            "fields": { "type": "array", "items": { "type": "string" } },
                            "values": value_changes("Each value that changed, where it changed."),
                            "note": { "type": "string" }
                        },
                        "required": ["id", "fields", "values"]
                    }
                },
                "reordered": { "type": "boolean", "description": "True when steps present on both sides appear in a different order." },
                "before": { "type": "string" },
                "after": { "type": "string" }
            },
            "required": ["changed", "metadata", "metadataValues", "added", "removed", "addedSteps", "removedSteps", "changedSteps", "before", "after"]
        }),
        handler: Tool::handler(|_, arguments| {
            let diff = schema::diff(arg(arguments, "left")?, arg(arguments, "right")?)
                .map_err(|error| ToolError(error.to_string()))?;
            Ok(bounded_output(
                "flow_diff",
                to_payload(diff)?,
                &[],
                // The ids stay in added and removed; what was removed goes first.
                &[
                    "removedSteps",
                    "addedSteps",
                    "changedSteps",
                    "metadataValues",
                ],
                arguments,
            ))
        }),
    }
}

fn flow_digest() -> Tool {
    Tool {
        name: "flow_digest",
        title: "Digest a flow document",
        description: "The canonical digest of a flow document, \"sha256:<64 hex>\" over its RFC 8785 JSON \
         (blind to key order, whitespace and number spelling), and its version (0 when it has \
         none). Equal digests mean equal documents.",
        scope: Scope::Flow,
        input_schema: input_schema(
            json!({ "document": document_property(DOCUMENT) }),
            &["document"],
        ),
        output_schema: json!({
            "type": "object",
            "properties": {
                "digest": { "type": "string", "description": "sha256: followed by 64 lowercase hex digits." },
                "version": { "type": "integer" }
            },
            "required": ["digest", "version"]
        }),
        handler: Tool::handler(|_, arguments| {
            Ok(to_payload(schema::digest(arg(arguments, "document")?))?.into())
        }),
    }
}

/// The forms `flow_schema` answers in, in its input and output schemas.
const SCHEMA_FORMS: [&str; 3] = ["compact", "json-schema", "flowtest"];

fn flow_schema() -> Tool {
    let compact: OnceLock<Value> = OnceLock::new();
    let full: OnceLock<Value> = OnceLock::new();
    let tests: OnceLock<Value> = OnceLock::new();
    Tool {
        name: "flow_schema",
        title: "Get the flow document schema",
        description: "Describe a version 2 flow document. form \"compact\" (default) gives what you need to \
         write one: the top-level fields, every step kind with its fields (\"name?\" = optional; \
         type, bounds, meaning), the shared types and every limit by name. form \"json-schema\" \
         gives the full draft 2020-12 JSON Schema instead, for a validator or an editor. form \
         \"flowtest\" gives the JSON Schema of a conversation test file (*.flowtest.json, what \
         flow_test runs: cases, turns, strict, expect with path and notPath) in schema.",
        scope: Scope::Flow,
        input_schema: input_schema(
            json!({
                "form": {
                    "type": "string",
                    "enum": SCHEMA_FORMS,
                    "default": "compact",
                    "description": "json-schema: the flow document's full JSON Schema, in `schema`; flowtest: the JSON Schema of a conversation test file (*.flowtest.json), in `schema`."
                }
            }),
            &[],
        ),
        output_schema: json!({
            "type": "object",
            "description": "compact and json-schema: limits, stepKinds and version always; flowtest: form and schema.",
            "properties": {
                "form": { "type": "string", "enum": SCHEMA_FORMS },
                "document": { "type": "object" },
                "step": { "type": "object" },
                "kinds": { "type": "object" },
                "types": { "type": "object" },
                "schema": { "type": "object" },
                "limits": { "type": "object" },
                "stepKinds": { "type": "array", "items": { "type": "string" } },
                "version": { "type": "integer" }
            },
            "required": ["form"]
        }),
        handler: Tool::handler(move |_, arguments| {
            // The embedded copy, not `json_schema()`: the server does not link the generator.
            let document_schema = || -> Result<Value, ToolError> {
                serde_json::from_str(schema::FLOW_SCHEMA_JSON).map_err(|error| {
                    ToolError(format!(
                        "internal error: the embedded schema is not JSON: {error}"
                    ))
                })
            };
            let payload = match arguments.get("form").and_then(Value::as_str) {
                // The embedded copy of what `cargo xtask schema` writes to
                // docs/schema/flowtest.schema.json.
                Some("flowtest") => match tests.get() {
                    Some(payload) => payload,
                    None => {
                        let schema: Value =
                            serde_json::from_str(runtime::FLOWTEST_SCHEMA_JSON).map_err(|error| {
                                ToolError(format!(
                                    "internal error: the embedded test file schema is not JSON: {error}"
                                ))
                            })?;
                        tests.get_or_init(|| json!({ "form": "flowtest", "schema": schema }))
                    }
                },
                Some("json-schema") => match full.get() {
                    Some(payload) => payload,
                    None => {
                        let document_schema = document_schema()?;
                        full.get_or_init(|| {
                            json!({
                                "form": "json-schema",
                                "stepKinds": schema::step_kinds(&document_schema),
                                "schema": document_schema,
                                "limits": schema::limits_json(),
                                "version": schema::CURRENT_VERSION,
                            })
                        })
                    }
                },
                _ => match compact.get() {
                    Some(payload) => payload,
                    None => {
                        let mut payload = schema::compact_schema(&document_schema()?);
                        payload["form"] = json!("compact");
                        compact.get_or_init(|| payload)
                    }
                },
            };
            Ok(ToolOutput::from(payload.clone()))
        }),
    }
}

fn flow_example() -> Tool {
    Tool {
        name: "flow_example",
        title: "Get an example flow document",
        description: "A complete version 2 flow document that validates and lints clean: a starting point to \
         adapt, showing how each step kind is written.",
        scope: Scope::Flow,
        input_schema: input_schema(json!({}), &[]),
        output_schema: json!({
            "type": "object",
            "description": "A version 2 flow document.",
            "properties": {
                "version": { "type": "integer" },
                "id": { "type": "string" },
                "steps": { "type": "array", "items": { "type": "object" } }
            },
            "required": ["version", "id", "steps"]
        }),
        handler: Tool::handler(|_, _| {
            let document: Value =
                serde_json::from_str(schema::EXAMPLE_FLOW_DOCUMENT).map_err(|error| {
                    ToolError(format!("internal error: the example is not JSON: {error}"))
                })?;
            Ok(document.into())
        }),
    }
}
