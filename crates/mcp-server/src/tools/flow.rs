//! The flow tools: thin wrappers over `botmesh-flow-schema` and `botmesh-flow-analyzer`.

use super::{
    DocumentSource, arg, bounded_output, document_property, document_source,
    document_text_property, full_text_property, input_schema, location_properties, not_json_issue,
    to_payload,
};
use crate::catalogue::{Scope, Tool, ToolError, ToolOutput};
use botmesh_flow_analyzer as analyzer;
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
                    if let (Some(map), Some(Value::Array(issues))) =
                        (source.map(), payload.get_mut("issues"))
                    {
                        for (issue, at_key) in issues.iter_mut().zip(keys) {
                            analyzer::add_location(issue, map, at_key);
                        }
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
         JSON with format: \"json\") and lint the set (17 stable codes). Issues and diagnostics \
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
                "diagnostics": {
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
                },
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
         digest, each fix as a sentence, and the issues and diagnostics left.",
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
                "digest": { "type": "string" },
                "valid": { "type": "boolean" },
                "applied": { "type": "array", "items": { "type": "string" } },
                "issues": super::sourced_issues_schema(),
                "diagnostics": { "type": "array", "items": { "type": "object" } }
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
            let payload = match &source {
                DocumentSource::NotJson(error) => {
                    return Err(ToolError(format!(
                        "argument \"documentText\" is {error}; fix the JSON first (flow_validate with documentText says where)"
                    )));
                }
                _ => {
                    let document = source.value().unwrap_or(&Value::Null);
                    let outcome = analyzer::fix_document(document, subflows, include_unsafe);
                    let applied: Vec<String> = outcome
                        .applied
                        .iter()
                        .map(|fix| match fix.applicability {
                            schema::Applicability::Safe => fix.description.clone(),
                            schema::Applicability::Unsafe => {
                                format!("{} (unsafe)", fix.description)
                            }
                        })
                        .collect();
                    json!({
                        "digest": schema::digest(&outcome.document).digest,
                        "document": outcome.document,
                        "valid": outcome.valid,
                        "applied": applied,
                        "issues": outcome.issues,
                        "diagnostics": outcome.diagnostics,
                    })
                }
            };
            Ok(bounded_output(
                "flow_fix",
                payload,
                &["document"],
                &["issues", "diagnostics"],
                arguments,
            ))
        }),
    }
}

fn flow_migrate() -> Tool {
    Tool {
        name: "flow_migrate",
        title: "Migrate a flow document",
        description: "Migrate a flow document from version 0 (no version key) or 1 to target (default 2): \
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
    Tool {
        name: "flow_diff",
        title: "Compare two flow documents",
        description: "Compare two flow documents step by step (matched by id, both migrated to version 2 \
         first): metadata changes, added, removed and changed steps with their fields, \
         reordering, and the digests of both sides. Key order, whitespace and number spelling \
         never count as changes.",
        scope: Scope::Flow,
        input_schema: input_schema(
            json!({
                "left": document_property("The earlier flow document."),
                "right": document_property("The later flow document.")
            }),
            &["left", "right"],
        ),
        output_schema: json!({
            "type": "object",
            "properties": {
                "changed": { "type": "boolean" },
                "metadata": { "type": "array", "items": { "type": "string" } },
                "added": { "type": "array", "items": { "type": "string" } },
                "removed": { "type": "array", "items": { "type": "string" } },
                "changedSteps": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "id": { "type": "string" },
                            "fields": { "type": "array", "items": { "type": "string" } },
                            "values": {
                                "type": "array",
                                "description": "before absent when added, after when removed; over 200 characters of JSON: cut with … and cut: true.",
                                "items": {
                                    "type": "object",
                                    "properties": {
                                        "field": { "type": "string" },
                                        "before": {},
                                        "after": {},
                                        "cut": { "type": "boolean" }
                                    },
                                    "required": ["field"]
                                }
                            }
                        },
                        "required": ["id", "fields", "values"]
                    }
                },
                "reordered": { "type": "boolean", "description": "True when steps present on both sides appear in a different order." },
                "before": { "type": "string" },
                "after": { "type": "string" }
            },
            "required": ["changed", "metadata", "added", "removed", "changedSteps", "before", "after"]
        }),
        handler: Tool::handler(|_, arguments| {
            let diff = schema::diff(arg(arguments, "left")?, arg(arguments, "right")?)
                .map_err(|error| ToolError(error.to_string()))?;
            Ok(to_payload(diff)?.into())
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

fn flow_schema() -> Tool {
    let compact: OnceLock<Value> = OnceLock::new();
    let full: OnceLock<Value> = OnceLock::new();
    Tool {
        name: "flow_schema",
        title: "Get the flow document schema",
        description: "Describe a version 2 flow document. form \"compact\" (default) gives what you need to \
         write one: the top-level fields, every step kind with its fields (\"name?\" = optional; \
         type, bounds, meaning), the shared types and every limit by name. form \"json-schema\" \
         gives the full draft 2020-12 JSON Schema instead, for a validator or an editor.",
        scope: Scope::Flow,
        input_schema: input_schema(
            json!({
                "form": {
                    "type": "string",
                    "enum": ["compact", "json-schema"],
                    "default": "compact",
                    "description": "json-schema: the full JSON Schema, in `schema`."
                }
            }),
            &[],
        ),
        output_schema: json!({
            "type": "object",
            "properties": {
                "form": { "type": "string", "enum": ["compact", "json-schema"] },
                "document": { "type": "object" },
                "step": { "type": "object" },
                "kinds": { "type": "object" },
                "types": { "type": "object" },
                "schema": { "type": "object" },
                "limits": { "type": "object" },
                "stepKinds": { "type": "array", "items": { "type": "string" } },
                "version": { "type": "integer" }
            },
            "required": ["form", "limits", "stepKinds", "version"]
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
