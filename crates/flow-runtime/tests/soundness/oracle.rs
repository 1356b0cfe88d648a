//! The two engines as their users see them, through public APIs only (so the harness outlives a
//! rewrite of either): `botmesh_flow_runtime::simulate` with `flow_simulate`'s JSON arguments,
//! `botmesh_flow_analyzer::analyze` (`flow_analyze`'s payload) and `fix_document` (`flow_fix`),
//! `botmesh_flow_schema::apply_patch`; and what the harness reads from their answers: the
//! `{{v}} is unset` warnings of a run, the `possibly-unset-variable` and `undefined-variable`
//! diagnostics, whether a run starts at an entry (runtime spec §2), and what a customer sees.

use std::collections::HashSet;

use botmesh_flow_analyzer::{Direction, Format, analyze};
use botmesh_flow_runtime::{FlowSet, Simulation};
use serde_json::{Map, Value, json};

/// How one conversation goes: `flow_simulate`'s arguments besides the documents.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Run {
    /// `{ "flow": ID }`, `{ "message": TEXT }`, or the document's flow.
    pub(crate) start: Option<Value>,
    /// Each a string, `{ "text" }` or `{ "tap" }`.
    pub(crate) replies: Vec<Value>,
    /// Initial variables (excluded from the check: the caller passed them in).
    pub(crate) variables: Map<String, Value>,
    /// Handler mocks.
    pub(crate) handlers: Map<String, Value>,
}

impl Run {
    /// The `flow_simulate` arguments (without the documents).
    pub(crate) fn arguments(&self) -> Map<String, Value> {
        let mut arguments = Map::new();
        if let Some(start) = &self.start {
            arguments.insert("start".into(), start.clone());
        }
        arguments.insert("replies".into(), Value::Array(self.replies.clone()));
        if !self.variables.is_empty() {
            arguments.insert("variables".into(), Value::Object(self.variables.clone()));
        }
        if !self.handlers.is_empty() {
            arguments.insert("handlers".into(), Value::Object(self.handlers.clone()));
        }
        arguments
    }

    /// The whole `flow_simulate` call, documents included: what a failure prints.
    pub(crate) fn tool_arguments(&self, docs: &[Value]) -> Value {
        let mut arguments = Map::new();
        arguments.insert("document".into(), docs[0].clone());
        if docs.len() > 1 {
            arguments.insert("subflows".into(), Value::Array(docs[1..].to_vec()));
        }
        arguments.extend(self.arguments());
        Value::Object(arguments)
    }
}

/// Runs `run` on the compiled set. The harness only makes valid arguments, so a caller error
/// is a bug of the harness (or a changed argument contract) and stops the test.
pub(crate) fn simulate(set: &FlowSet<'_>, run: &Run) -> Map<String, Value> {
    let simulation = Simulation::from_arguments(&run.arguments())
        .unwrap_or_else(|e| panic!("the harness made invalid arguments: {e}"));
    botmesh_flow_runtime::simulate(set, &simulation)
        .unwrap_or_else(|e| panic!("the harness made invalid arguments: {e}"))
}

/// Compiles `docs` for the runtime (None when a document is invalid).
pub(crate) fn compile(docs: &[Value]) -> Option<FlowSet<'_>> {
    let refs: Vec<&Value> = docs.iter().collect();
    FlowSet::new(&refs).ok()
}

/// Simulates `run` on `docs` (None when the set is invalid or the run does not fit it: a
/// shrunk set may have lost the flow the run starts at).
pub(crate) fn simulate_docs(docs: &[Value], run: &Run) -> Option<Map<String, Value>> {
    let simulation = Simulation::from_arguments(&run.arguments()).ok()?;
    botmesh_flow_runtime::simulate(&compile(docs)?, &simulation).ok()
}

/// `flow_analyze`'s answer, as its payload says it.
pub(crate) struct Lint {
    /// The set is valid (documents and unique flow ids).
    pub(crate) valid: bool,
    /// Validation issues (when not valid).
    pub(crate) issues: Vec<Value>,
    /// Lint diagnostics.
    pub(crate) diagnostics: Vec<Value>,
}

/// A read lint reports: (flow, step, variable).
pub(crate) type Place = (String, String, String);

impl Lint {
    /// Analyzes the set (`docs[0]` the document, the rest its subflows).
    pub(crate) fn of(docs: &[Value]) -> Lint {
        let payload = analyze(&docs[0], &docs[1..], Format::Json, Direction::TD);
        let list = |key: &str| payload[key].as_array().cloned().unwrap_or_default();
        Lint {
            valid: payload["valid"] == true,
            issues: list("issues"),
            diagnostics: list("diagnostics"),
        }
    }

    /// Every place reported by `possibly-unset-variable` or `undefined-variable`.
    pub(crate) fn unset_places(&self) -> HashSet<Place> {
        self.diagnostics
            .iter()
            .filter(|d| d["code"] == "possibly-unset-variable" || d["code"] == "undefined-variable")
            .filter_map(|d| {
                Some((
                    d["flow"].as_str()?.to_owned(),
                    d["step"].as_str()?.to_owned(),
                    quoted_variable(d["message"].as_str()?)?,
                ))
            })
            .collect()
    }

    /// The safe fixes of the diagnostics: (code, index of the document in the set, patch).
    pub(crate) fn safe_fixes(&self) -> Vec<(String, usize, Vec<Value>)> {
        self.diagnostics
            .iter()
            .filter(|d| d["fix"]["applicability"] == "safe")
            .filter_map(|d| {
                let index = match d["source"].as_str()? {
                    "document" => 0,
                    other => other.strip_prefix("subflows/")?.parse::<usize>().ok()? + 1,
                };
                Some((
                    d["code"].as_str()?.to_owned(),
                    index,
                    d["fix"]["patch"].as_array()?.clone(),
                ))
            })
            .collect()
    }
}

/// The variable a diagnostic names: `variable "NAME" …`, else its first quoted word.
fn quoted_variable(message: &str) -> Option<String> {
    let rest = message
        .split_once("variable \"")
        .map(|(_, rest)| rest)
        .or_else(|| message.split_once('"').map(|(_, rest)| rest))?;
    let name = rest.split_once('"')?.0;
    Some(
        name.trim_matches(|c| c == '{' || c == '}' || c == ' ')
            .to_owned(),
    )
}

/// True when a conversation can begin in `flow` without `start: { flow }` (runtime spec §2,
/// "Entry flows"): the document's own flow, or a flow with a keyword or `fallback: true`.
pub(crate) fn is_entry(docs: &[Value], flow: &str) -> bool {
    docs.iter().enumerate().any(|(index, doc)| {
        doc["id"] == flow
            && (index == 0
                || doc["trigger"]["fallback"] == true
                || doc["trigger"]["keywords"]
                    .as_array()
                    .is_some_and(|k| !k.is_empty()))
    })
}

/// The flow a run starts in (None for `no-flow`).
pub(crate) fn start_flow(docs: &[Value], run: &Run, result: &Map<String, Value>) -> Option<String> {
    match &run.start {
        None => docs[0]["id"].as_str().map(str::to_owned),
        Some(start) => match start.get("flow") {
            Some(flow) => flow.as_str().map(str::to_owned),
            None => result["path"][0]["flow"].as_str().map(str::to_owned),
        },
    }
}

/// True when lint must be sound for the run: it starts at an entry (a message always picks
/// one).
pub(crate) fn held(docs: &[Value], run: &Run) -> bool {
    match run.start.as_ref().and_then(|s| s.get("flow")) {
        Some(flow) => flow.as_str().is_some_and(|f| is_entry(docs, f)),
        None => true,
    }
}

/// Why a read found no value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Missing {
    /// The variable was never written (`{{v}} is unset`).
    Unset,
    /// The document wrote null (`set` to null).
    NullSet,
    /// A handler returned null (a mock, or no mock): outside the document, not held.
    NullHandler,
}

/// One warning about a placeholder that found no value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Read {
    /// The flow and step of the warning.
    pub(crate) flow: String,
    /// The step.
    pub(crate) step: String,
    /// The variable.
    pub(crate) var: String,
    /// Why it had no value.
    pub(crate) missing: Missing,
}

/// The placeholders of a run that found no value, the caller's own variables left out. An
/// `Err` names a warning about a placeholder the harness cannot read (the warning's shape
/// changed: the harness must be taught it, or it would find nothing).
pub(crate) fn empty_reads(
    docs: &[Value],
    run: &Run,
    result: &Map<String, Value>,
) -> Result<Vec<Read>, String> {
    let mut reads = Vec::new();
    for warning in result["warnings"].as_array().into_iter().flatten() {
        let message = warning["message"].as_str().unwrap_or("");
        if !message.starts_with("{{") && !message.contains("unset") {
            continue;
        }
        let parsed = message.strip_prefix("{{").and_then(|rest| {
            let (name, rest) = rest.split_once("}} is ")?;
            let name = name.trim_matches(' ');
            let bytes = name.as_bytes();
            let is_name = matches!(bytes.first(), Some(b'a'..=b'z' | b'_'))
                && bytes
                    .iter()
                    .all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'_'));
            if !is_name {
                return None;
            }
            let null = if rest.starts_with("unset") {
                false
            } else if rest.starts_with("null") {
                true
            } else {
                return None;
            };
            Some((name, null))
        });
        let (Some((name, null)), Some(flow), Some(step)) =
            (parsed, warning["flow"].as_str(), warning["step"].as_str())
        else {
            return Err(format!("a warning the harness cannot read: {warning}"));
        };
        if run.variables.contains_key(name) {
            continue;
        }
        let missing = if !null {
            Missing::Unset
        } else if handler_wrote_null(docs, result, name) {
            Missing::NullHandler
        } else {
            Missing::NullSet
        };
        reads.push(Read {
            flow: flow.to_owned(),
            step: step.to_owned(),
            var: name.to_owned(),
            missing,
        });
    }
    Ok(reads)
}

/// True when an `action` of the run saved null in `var`.
fn handler_wrote_null(docs: &[Value], result: &Map<String, Value>, var: &str) -> bool {
    result["transcript"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|entry| {
            entry["event"] == "save"
                && entry["var"] == var
                && entry["value"].is_null()
                && crate::script::step(docs, &entry["flow"], &entry["step"])
                    .is_some_and(|s| s["kind"] == "action")
        })
}

/// What the customer (and the bot's handlers) see of a run: every transcript entry without
/// the flow and step it came from, and how it ended (the kind and the queue). A safe fix must
/// leave it as it was.
pub(crate) fn seen(result: &Map<String, Value>) -> Value {
    let transcript: Vec<Value> = result["transcript"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|entry| {
            let mut entry = entry.clone();
            if let Value::Object(fields) = &mut entry {
                fields.remove("flow");
                fields.remove("step");
            }
            entry
        })
        .collect();
    json!({
        "transcript": transcript,
        "outcome": result["outcome"]["kind"],
        "queue": result["outcome"]["queue"],
    })
}

/// The placeholders of `text` as runtime spec §5 says: `{{`, spaces (U+0020), a variable name,
/// spaces, `}}`; leftmost first, so `{{{x}}}` holds `{{x}}` at byte 1. Each is
/// (start byte, end byte, name). The harness's own reading of the spec, on purpose
/// independent of both engines' scanners.
pub(crate) fn placeholders(text: &str) -> Vec<(usize, usize, String)> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    while at + 1 < bytes.len() {
        if bytes[at] != b'{' || bytes[at + 1] != b'{' {
            at += 1;
            continue;
        }
        let mut i = at + 2;
        while bytes.get(i) == Some(&b' ') {
            i += 1;
        }
        let name_start = i;
        if matches!(bytes.get(i), Some(b'a'..=b'z' | b'_')) {
            i += 1;
            while matches!(bytes.get(i), Some(b'a'..=b'z' | b'0'..=b'9' | b'_')) {
                i += 1;
            }
        }
        let name_end = i;
        while bytes.get(i) == Some(&b' ') {
            i += 1;
        }
        if name_end > name_start
            && name_end - name_start <= 64
            && bytes.get(i..i + 2) == Some(b"}}")
        {
            found.push((at, i + 2, text[name_start..name_end].to_owned()));
            at = i + 2;
        } else {
            at += 1;
        }
    }
    found
}

/// Every interpolated string of a step (runtime spec §3, flow-document §2): (JSON Pointer
/// below the step, the field's name as `kind.field`, the text).
pub(crate) fn interpolated(step: &Value) -> Vec<(String, String, String)> {
    let kind = step["kind"].as_str().unwrap_or("");
    let mut out = Vec::new();
    let mut field = |pointer: String, name: &str, value: &Value| {
        if let Some(text) = value.as_str() {
            out.push((pointer, format!("{kind}.{name}"), text.to_owned()));
        }
    };
    match kind {
        "message" | "buttons" | "list" | "handoff" | "end" => {
            field("/text".into(), "text", &step["text"]);
        }
        "ask" => {
            field("/text".into(), "text", &step["text"]);
            field("/retryText".into(), "retryText", &step["retryText"]);
        }
        "media" => field("/caption".into(), "caption", &step["caption"]),
        "template" => {
            for (i, parameter) in step["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .enumerate()
            {
                field(format!("/parameters/{i}"), "parameters", parameter);
            }
        }
        "set" => field("/value".into(), "value", &step["value"]),
        "action" => {
            let mut stack = vec![("/args".to_owned(), &step["args"])];
            while let Some((pointer, value)) = stack.pop() {
                match value {
                    Value::Array(items) => stack.extend(
                        items
                            .iter()
                            .enumerate()
                            .map(|(i, v)| (format!("{pointer}/{i}"), v)),
                    ),
                    Value::Object(map) => stack.extend(map.iter().map(|(k, v)| {
                        (
                            format!("{pointer}/{}", k.replace('~', "~0").replace('/', "~1")),
                            v,
                        )
                    })),
                    _ => field(pointer, "args", value),
                }
            }
        }
        _ => {}
    }
    out
}
