//! `flow_test`: runs a conversation test file's cases (runtime spec §9) against documents
//! given inline, with `botmesh-flow-runtime`, and reports each case, the totals and coverage.

use super::{document_property, input_schema};
use crate::catalogue::{Scope, Tool, ToolError};
use botmesh_flow_analyzer as analyzer;
use botmesh_flow_runtime as runtime;
use serde_json::{Map, Value, json};

const DOCUMENT: &str = "The flow document (JSON object, version 2) the cases start in unless a case's start says otherwise.";

const TESTS: &str = "The test file's object (the content of a *.flowtest.json file; its JSON Schema: flow_schema with form \"flowtest\"): { strict?, tests: [ { name, strict?, start?, contact?, variables?, handlers?, turns: [ { user: REPLY } | { bot: { text?, contains?, type?, step? } } ], expect?: { outcome?, step?, variables?, path?, notPath? } } ] }. A bot turn passes on the first message since the last match that satisfies it; strict: true (on a case, or at the top as every case's default) makes it take only the next message and fails the case if any message is left unchecked, so a message nobody expected fails the test. expect.notPath lists steps that must not run (a step id of the start flow, or \"flow/step\"). Its flows key, if any, is ignored: the documents are document and subflows.";

fn issues_schema() -> Value {
    let mut schema = super::issues_without_positions_schema();
    schema["description"] = json!(
        "Why nothing ran: the flow set's validation issues (source document or subflows/N, a pointer into that document) or the test file's (source tests, a pointer into it)."
    );
    schema
}

fn coverage_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "flows": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "flow": { "type": "string" },
                        "steps": { "type": "integer" },
                        "stepsCovered": { "type": "integer" },
                        "edges": { "type": "integer" },
                        "edgesCovered": { "type": "integer" },
                        "uncoveredSteps": { "type": "array", "items": { "type": "string" } },
                        "uncoveredEdges": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {
                                    "from": { "type": "string" },
                                    "to": { "type": "string" },
                                    "toFlow": { "type": "string" },
                                    "kind": { "type": "string" },
                                    "label": { "type": "string" }
                                }
                            }
                        }
                    }
                }
            }
        }
    })
}

fn invalid(issues: Vec<Value>) -> Value {
    json!({ "valid": false, "issues": issues })
}

pub(super) fn flow_test() -> Tool {
    let mut properties = Map::new();
    properties.insert("document".into(), document_property(DOCUMENT));
    properties.insert("subflows".into(), super::subflows_property());
    properties.insert(
        "tests".into(),
        json!({ "type": "object", "description": TESTS }),
    );
    properties.insert(
        "generate".into(),
        json!({ "type": "boolean", "description": "true: instead of tests, write a suite that covers every edge the search over the flow's choices reaches (each button and row, valid and invalid replies, values on both sides of the conditions, handler results), return it as tests with the edges it cannot cover in uncovered, and run it." }),
    );
    properties.insert("fullText".into(), super::full_text_property());
    let output = json!({
        "valid": { "type": "boolean" },
        "issues": issues_schema(),
        "cases": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": { "type": "string" },
                    "passed": { "type": "boolean" },
                    "failure": {
                        "type": "object",
                        "description": "The first failure: the JSON Pointer of the failing turn or expectation in the test file, what failed (check: \"turn 2\", \"turn 2 (strict)\", \"strict, after the last turn\", \"expect.outcome\", \"expect.notPath.0\"…), what was expected, what happened, and the flow step to look at.",
                        "properties": {
                            "path": { "type": "string" },
                            "check": { "type": "string" },
                            "expected": { "type": "string" },
                            "actual": { "type": "string" },
                            "at": {
                                "type": "object",
                                "description": "The flow step the failure points at, and why: unexpected-message (it sent the first message a strict case did not expect), not-path (it ran although expect.notPath names it), stopped (the conversation stopped or waits there). Absent when no flow started.",
                                "properties": {
                                    "flow": { "type": "string" },
                                    "step": { "type": "string" },
                                    "reason": { "type": "string", "enum": ["unexpected-message", "not-path", "stopped"] }
                                },
                                "required": ["flow", "step", "reason"]
                            }
                        },
                        "required": ["path", "check", "expected", "actual"]
                    }
                },
                "required": ["name", "passed"]
            }
        },
        "totals": {
            "type": "object",
            "properties": {
                "cases": { "type": "integer" },
                "passed": { "type": "integer" },
                "failed": { "type": "integer" }
            }
        },
        "coverage": coverage_schema(),
        "tests": { "type": "object", "description": "With generate: true, the generated test file." },
        "uncovered": { "type": "array", "items": { "type": "string" }, "description": "With generate: true, each edge no searched conversation took, with the reason." }
    });
    Tool {
        name: "flow_test",
        title: "Run conversation tests against a flow",
        description: "Run the cases of a conversation test file (the object of a *.flowtest.json: named \
         cases of user replies, expected bot messages and a final expect on outcome, step, \
         variables, path and notPath; strict: true makes a case fail on any message it does not \
         check) against a flow document and its subflows, with the simulator of flow_simulate. \
         Returns each case passed or failed (the first failure: the JSON Pointer of the failing \
         turn, what failed, expected and actual, and the flow step it points at), the totals, \
         and coverage: per flow the steps and graph edges the cases took, and the uncovered ones \
         by step and edge label. An invalid flow set or a malformed test file gives valid: false \
         with its issues and runs nothing. The file's JSON Schema: flow_schema with form \
         \"flowtest\".",
        scope: Scope::Flow,
        input_schema: input_schema(Value::Object(properties), &["document"]),
        output_schema: json!({
            "type": "object",
            "properties": output,
            "required": ["valid", "issues"]
        }),
        handler: Tool::handler(|_, arguments| {
            let document = super::arg(arguments, "document")?;
            let generate = match arguments.get("generate") {
                None => false,
                Some(Value::Bool(flag)) => *flag,
                Some(_) => {
                    return Err(ToolError(
                        "invalid arguments for flow_test: generate must be true or false"
                            .to_owned(),
                    ));
                }
            };
            if generate == arguments.contains_key("tests") {
                return Err(ToolError(
                    "invalid arguments for flow_test: give tests (a test file's object) or generate: true, exactly one of them".to_owned(),
                ));
            }
            let subflows = match arguments.get("subflows") {
                None => &[][..],
                Some(Value::Array(items)) => items.as_slice(),
                Some(_) => {
                    return Err(ToolError(
                        "invalid arguments for flow_test: subflows must be an array of flow documents"
                            .to_owned(),
                    ));
                }
            };
            let analysis = analyzer::analyze_set(document, subflows);
            if !analysis.valid {
                let issues = super::to_payload(&analysis.issues)?;
                return Ok(json!({ "valid": false, "issues": issues }).into());
            }
            let documents: Vec<&Value> = std::iter::once(document).chain(subflows).collect();
            let set = runtime::FlowSet::new(&documents)
                .map_err(|error| ToolError(format!("internal error: {error}")))?;
            let generated = generate.then(|| runtime::generate(&set, &documents));
            let tests = match &generated {
                Some(generated) => &generated.tests,
                None => super::arg(arguments, "tests")?,
            };
            let file = match runtime::TestFile::from_json(tests) {
                Ok(file) => file,
                Err(issues) => {
                    let issues = issues
                        .into_iter()
                        .map(|i| json!({ "path": i.path, "message": i.message, "source": "tests" }))
                        .collect();
                    return Ok(invalid(issues).into());
                }
            };
            let issues = file.check_against(&set);
            if !issues.is_empty() {
                let issues = issues
                    .into_iter()
                    .map(|i| json!({ "path": i.path, "message": i.message, "source": "tests" }))
                    .collect();
                return Ok(invalid(issues).into());
            }
            let runs = file.run(&set);
            let coverage = runtime::coverage(
                &documents,
                runs.iter()
                    .map(|r| (r.transitions.as_slice(), r.path.as_slice())),
            );
            let failed = runs.iter().filter(|r| r.failure.is_some()).count();
            let cases: Vec<Value> = runs
                .iter()
                .map(|run| {
                    let mut case = json!({ "name": run.name, "passed": run.failure.is_none() });
                    if let Some(failure) = &run.failure {
                        case["failure"] = json!({
                            "path": failure.path,
                            "check": failure.check,
                            "expected": failure.expected,
                            "actual": failure.actual,
                        });
                        if let Some(at) = &failure.at {
                            case["failure"]["at"] = json!({
                                "flow": at.flow,
                                "step": at.step,
                                "reason": at.reason,
                            });
                        }
                    }
                    case
                })
                .collect();
            let mut payload = json!({
                "valid": true,
                "issues": [],
                "cases": cases,
                "totals": { "cases": runs.len(), "passed": runs.len() - failed, "failed": failed },
                "coverage": super::to_payload(&coverage)?,
            });
            if let Some(generated) = generated {
                payload["tests"] = generated.tests;
                payload["uncovered"] = json!(generated.uncovered);
            }
            Ok(super::bounded_output(
                "flow_test",
                payload,
                &["tests"],
                &["cases", "uncovered"],
                arguments,
            ))
        }),
    }
}
