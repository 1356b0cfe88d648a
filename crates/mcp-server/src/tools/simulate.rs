//! `flow_simulate`: replays a conversation with a flow, run by `botmesh-flow-runtime`.

use super::{TEXT_LIMIT, document_property, full_text_property, input_schema};
use crate::catalogue::{Scope, Tool, ToolError, ToolOutput};
use botmesh_flow_analyzer as analyzer;
use botmesh_flow_runtime as runtime;
use serde_json::{Map, Value, json};

/// The line before the case in the text of a call with `asTest: true`.
const CASE_HEADING: &str = "test (a strict case that replays this conversation):\n";

const DOCUMENT: &str = "The bot's flow document (JSON object, version 2): where the conversation starts unless start says otherwise.";

/// The `start`, `replies`, `contact`, `variables` and `handlers` arguments, shared with
/// `flow_test`'s cases.
pub(crate) fn conversation_properties() -> Map<String, Value> {
    let properties = json!({
        "start": {
            "type": "object",
            "description": "How the conversation starts: { \"flow\": ID } (default: the document's own flow) or { \"message\": TEXT }, a first message that picks the flow by its trigger keywords.",
            "properties": {
                "flow": { "type": "string", "description": "The id of a flow of the set." },
                "message": { "type": "string", "description": "The user's first message." }
            },
            "additionalProperties": false
        },
        "replies": {
            "type": "array",
            "description": "The user's replies in order, at most 1000: each a string (typed text), { \"text\": TEXT } or { \"tap\": ID } (a tap on a button or row by its id). The bot consumes one whenever it waits.",
            "items": { "description": "A string, { \"text\": TEXT } or { \"tap\": ID }." }
        },
        "contact": {
            "type": "object",
            "description": "Who talks to the bot: contact_name and contact_phone (default \"Test User\", \"+15550000000\").",
            "properties": {
                "name": { "type": "string" },
                "phone": { "type": "string" }
            },
            "additionalProperties": false
        },
        "variables": {
            "type": "object",
            "description": "Variables known before the conversation starts: name → string, number, boolean or null (they win over declared defaults; built-ins cannot be set)."
        },
        "handlers": {
            "type": "object",
            "description": "What each action handler returns: name → { \"returns\": VALUE }, { \"returnsEach\": [VALUE, …] } (one per call, the last repeated) or { \"fails\": \"reason\" } (the conversation stops: handler-failed). A handler without a mock returns null, with a warning."
        }
    });
    match properties {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// The output schema of one simulation's result (without `valid` and `issues`).
pub(crate) fn result_properties() -> Map<String, Value> {
    let located = |extra: Value| {
        let mut object = json!({
            "type": "object",
            "properties": { "flow": { "type": "string" }, "step": { "type": "string" } }
        });
        if let (Some(properties), Value::Object(extra)) =
            (object["properties"].as_object_mut(), extra)
        {
            properties.extend(extra);
        }
        object
    };
    let properties = json!({
        "outcome": located(json!({
            "kind": { "type": "string", "enum": runtime::OutcomeKind::ALL.map(runtime::OutcomeKind::as_str) },
            "queue": { "type": ["string", "null"], "description": "For handoff: the queue (null when the step has none)." },
            "message": { "type": "string", "description": "For loop, error and handler-failed: what happened." }
        })),
        "transcript": {
            "type": "array",
            "description": "In order: { user: { text } | { tap } } for the first message and each reply consumed, { bot: SEND, flow, step } for each message sent, and events { event, flow, step, … } (retry, save, action, delay, call, return).",
            "items": { "type": "object" }
        },
        "path": {
            "type": "array",
            "description": "Every step executed, in order.",
            "items": {
                "type": "object",
                "properties": { "flow": { "type": "string" }, "step": { "type": "string" } },
                "required": ["flow", "step"]
            }
        },
        "variables": { "type": "object", "description": "The final values (built-ins excluded)." },
        "clock": { "type": "integer", "description": "Seconds of delay steps passed (a virtual clock)." },
        "warnings": {
            "type": "array",
            "items": located(json!({ "message": { "type": "string" } }))
        }
    });
    match properties {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

pub(super) fn flow_simulate() -> Tool {
    let mut properties = Map::new();
    properties.insert("document".into(), document_property(DOCUMENT));
    properties.insert("subflows".into(), super::subflows_property());
    properties.extend(conversation_properties());
    properties.insert(
        "asTest".into(),
        json!({
            "type": "boolean",
            "default": false,
            "description": "Also return test: this conversation as a strict case for flow_test (or a *.flowtest.json file): a user turn per reply, a bot turn (step, text) per message, expect with the outcome and the variables written. It fails on the turn where the bot says or goes elsewhere."
        }),
    );
    properties.insert("fullText".into(), full_text_property());
    let mut output = Map::new();
    output.insert("valid".into(), json!({ "type": "boolean" }));
    output.insert("issues".into(), super::sourced_issues_schema());
    output.extend(result_properties());
    output.insert(
        "test".into(),
        json!({
            "type": "object",
            "description": "With asTest: the strict case that replays the conversation.",
            "properties": {
                "name": { "type": "string" },
                "strict": { "const": true },
                "turns": { "type": "array", "items": { "type": "object" } },
                "expect": { "type": "object" }
            },
            "required": ["name", "strict", "turns", "expect"]
        }),
    );
    Tool {
        name: "flow_simulate",
        title: "Run a conversation with a flow",
        description: "Run a flow document (and the subflows it calls) as the bot would, without a phone: start at \
         a flow or with a first message (picked by trigger keywords), feed the replies one at a \
         time (typed text or a tap on a button/row id), mock what action handlers return, and \
         get back the transcript (every message sent, every save, retry, action, delay, call and \
         return), the steps executed, the final variables, the outcome (waiting, ended, handoff, \
         loop, handler-failed, no-flow, error) and warnings. Deterministic: a virtual clock, no \
         network. An invalid document or subflow gives valid: false with its issues and runs \
         nothing. The text item is the transcript, one line per entry; rounds of a loop that \
         repeat the same lines are given once, then a line saying how many more times they \
         came (the path writes them (a b)×N), and structuredContent has every entry. With \
         asTest: true, also test: the conversation as a strict test case, written after the \
         transcript.",
        scope: Scope::Flow,
        input_schema: input_schema(Value::Object(properties), &["document"]),
        output_schema: json!({
            "type": "object",
            "properties": output,
            "required": ["valid", "issues"]
        }),
        handler: Tool::handler(|_, arguments| {
            // The caller's own faults first, before the documents: one sentence each.
            let simulation = runtime::Simulation::from_arguments(arguments).map_err(|error| {
                ToolError(format!("invalid arguments for flow_simulate: {error}"))
            })?;
            let document = super::arg(arguments, "document")?;
            let subflows = arguments
                .get("subflows")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice);
            let analysis = analyzer::analyze_set(document, subflows);
            if !analysis.valid {
                let issues = super::to_payload(&analysis.issues)?;
                return Ok(json!({ "valid": false, "issues": issues }).into());
            }
            let documents: Vec<&Value> = std::iter::once(document).chain(subflows).collect();
            let set = runtime::FlowSet::new(&documents)
                .map_err(|error| ToolError(format!("internal error: {error}")))?;
            let conversation = runtime::run(&set, &simulation).map_err(|error| {
                ToolError(format!("invalid arguments for flow_simulate: {error}"))
            })?;
            let result = conversation.result_json();
            let full = arguments.get("fullText").and_then(Value::as_bool) == Some(true);
            let as_test = arguments.get("asTest").and_then(Value::as_bool) == Some(true);
            let case = as_test
                .then(|| runtime::record_case(&conversation, &simulation.start, &simulation.setup));
            let case_text = case
                .as_ref()
                .map(|case| runtime::case_text(case, "", "  ", "\n"));
            let mut limit = (!full).then_some(TEXT_LIMIT);
            // The case takes its room first, unless it would take more than half the text.
            let case_shown = case_text.filter(|text| {
                limit.is_none_or(|limit| text.chars().count() + CASE_HEADING.len() <= limit / 2)
            });
            if let (Some(room), Some(text)) = (limit.as_mut(), &case_shown) {
                *room -= text.chars().count() + CASE_HEADING.len() + 1;
            }
            let mut text = runtime::simulation_text(set.entry_flow(), &result, limit);
            match (&case, case_shown) {
                (_, Some(case_text)) => {
                    text.push_str(CASE_HEADING);
                    text.push_str(&case_text);
                    text.push('\n');
                }
                (Some(case), None) => {
                    let length = serde_json::to_string(case).map_or(0, |t| t.chars().count());
                    text.push_str(&format!(
                        "[flow_simulate: the test case ({length} characters of JSON) is left out of this text; structuredContent.test has it, or call again with fullText: true]\n"
                    ));
                }
                (None, None) => {}
            }
            let mut payload = Map::new();
            payload.insert("valid".into(), Value::Bool(true));
            payload.insert("issues".into(), Value::Array(Vec::new()));
            payload.extend(result);
            if let Some(case) = case {
                payload.insert("test".into(), super::to_payload(&case)?);
            }
            Ok(ToolOutput {
                payload: Value::Object(payload),
                text: Some(text),
                leading: None,
                meta: None,
            })
        }),
    }
}
