//! A set of valid flows compiled for running: step references resolved to indices, keywords
//! and titles normalized, patterns compiled, once per set.

use std::collections::HashMap;

use botmesh_flow_schema::{InputKind, MatchMode, StepKind};
use serde_json::{Map, Value};

use crate::regex::{Pattern, PatternError};
use crate::text::normalize;
use crate::value::Scalar;

/// Why documents could not be compiled into a [`FlowSet`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetError {
    /// A document is not a valid version 2 flow document: validate it first.
    #[error("document {index} of the set is not a valid flow document ({message})")]
    Invalid {
        /// Its position in the set (0: the document, then the subflows).
        index: usize,
        /// The first validation issue, `path: message`.
        message: String,
    },
    /// The set has no document.
    #[error("the set has no flow document")]
    Empty,
}

/// Where control goes inside a flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// A step, by index.
    Step(usize),
    /// The end of the flow (behaves as an `end` without text).
    End,
}

/// A set of valid flow documents, compiled: the document first, then its subflows, in the
/// order given ("set order").
#[derive(Debug)]
pub struct FlowSet {
    pub(crate) flows: Vec<Flow>,
}

/// One compiled flow.
#[derive(Debug)]
pub(crate) struct Flow {
    pub(crate) id: String,
    pub(crate) steps: Vec<CompiledStep>,
    /// Declared variables and their defaults, by name.
    pub(crate) declarations: Vec<(String, Option<Scalar>)>,
    /// The trigger's mode and normalized keywords (empty when it has none).
    pub(crate) mode: MatchMode,
    pub(crate) keywords: Vec<String>,
    pub(crate) fallback: bool,
}

/// One compiled step.
#[derive(Debug)]
pub(crate) struct CompiledStep {
    pub(crate) id: String,
    /// `next`, else the following step, else the end of the flow.
    pub(crate) successor: Target,
    pub(crate) action: Action,
}

/// A menu item (a button or a row), flattened.
#[derive(Debug)]
pub(crate) struct Item {
    pub(crate) id: String,
    pub(crate) title: String,
    pub(crate) normalized: String,
    pub(crate) target: Target,
}

/// What a step does, with its references resolved.
#[derive(Debug)]
pub(crate) enum Action {
    Message {
        text: String,
    },
    Media {
        media: String,
        url: String,
        caption: Option<String>,
        filename: Option<String>,
    },
    Template {
        name: String,
        language: String,
        parameters: Vec<String>,
    },
    Location {
        latitude: Value,
        longitude: Value,
        name: Option<String>,
        address: Option<String>,
    },
    Buttons {
        text: String,
        items: Vec<Item>,
        header: Option<String>,
        footer: Option<String>,
        save: Option<String>,
    },
    List {
        text: String,
        button: String,
        /// The sections as sent: titles, rows' ids, titles and descriptions (no `next`).
        sections: Value,
        items: Vec<Item>,
        header: Option<String>,
        footer: Option<String>,
        save: Option<String>,
    },
    Ask {
        text: String,
        save: String,
        input: InputKind,
        pattern: Option<Result<Pattern, PatternError>>,
        retries: u64,
        retry_text: Option<String>,
        on_fail: Option<Target>,
    },
    Branch {
        cases: Vec<(Cond, Target)>,
        /// `default`, else the following step.
        default: Target,
    },
    Set {
        var: String,
        value: Scalar,
    },
    Delay {
        seconds: u64,
        typing: bool,
    },
    Call {
        handler: String,
        args: Map<String, Value>,
        save: Option<String>,
    },
    Subflow {
        flow: String,
        /// The first flow of the set with that id.
        index: Option<usize>,
    },
    Handoff {
        queue: Option<String>,
        text: Option<String>,
    },
    End {
        text: Option<String>,
    },
}

/// A compiled condition.
#[derive(Debug)]
pub(crate) enum Cond {
    All(Vec<Cond>),
    Any(Vec<Cond>),
    Not(Box<Cond>),
    Leaf { var: String, op: Op },
}

/// A compiled comparison.
#[derive(Debug)]
pub(crate) enum Op {
    Eq(Scalar),
    Ne(Scalar),
    Lt(f64),
    Lte(f64),
    Gt(f64),
    Gte(f64),
    /// The value normalized.
    Contains(String),
    StartsWith(String),
    Matches(Result<Pattern, PatternError>),
    Exists,
    In(Vec<Scalar>),
}

impl FlowSet {
    /// Compiles a set: `documents[0]` is the bot's own flow, the rest its subflows. Each is
    /// validated first; an invalid one is [`SetError::Invalid`].
    pub fn new(documents: &[&Value]) -> Result<Self, SetError> {
        if documents.is_empty() {
            return Err(SetError::Empty);
        }
        for (index, document) in documents.iter().enumerate() {
            let validation = botmesh_flow_schema::validate(document);
            if let Some(issue) = validation.issues.first() {
                return Err(SetError::Invalid {
                    index,
                    message: format!("{}: {}", issue.path, issue.message),
                });
            }
        }
        let mut first_by_id: HashMap<&str, usize> = HashMap::new();
        for (index, document) in documents.iter().enumerate() {
            first_by_id.entry(str_of(document, "id")).or_insert(index);
        }
        let flows = documents
            .iter()
            .map(|document| compile_flow(document, &first_by_id))
            .collect();
        Ok(Self { flows })
    }

    /// The id of the bot's own flow (the first document).
    pub fn entry_flow(&self) -> &str {
        self.flows.first().map_or("", |f| f.id.as_str())
    }

    /// The index of the first flow with this id.
    pub(crate) fn flow_index(&self, id: &str) -> Option<usize> {
        self.flows.iter().position(|f| f.id == id)
    }

    /// The ids of the flows, in set order.
    pub fn flow_ids(&self) -> impl Iterator<Item = &str> {
        self.flows.iter().map(|f| f.id.as_str())
    }

    /// The ids of the steps of flow `flow` (set order), in document order.
    pub fn step_ids(&self, flow: usize) -> impl Iterator<Item = &str> {
        self.flows
            .get(flow)
            .into_iter()
            .flat_map(|f| f.steps.iter().map(|s| s.id.as_str()))
    }
}

fn str_of<'v>(value: &'v Value, key: &str) -> &'v str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

fn string(value: &Value, key: &str) -> String {
    str_of(value, key).to_owned()
}

fn optional(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn array<'v>(value: &'v Value, key: &str) -> &'v [Value] {
    value
        .get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// Compiles a document `validate` accepted (so every field has its type and every reference
/// names a step; the fallbacks below are never taken).
fn compile_flow(flow: &Value, first_by_id: &HashMap<&str, usize>) -> Flow {
    let steps = array(flow, "steps");
    let mut index: HashMap<&str, usize> = HashMap::with_capacity(steps.len());
    for (position, step) in steps.iter().enumerate() {
        index.entry(str_of(step, "id")).or_insert(position);
    }
    let count = steps.len();
    let resolve = |name: &str| index.get(name).map_or(Target::End, |&i| Target::Step(i));
    let compiled = steps
        .iter()
        .enumerate()
        .map(|(position, step)| {
            let following = if position + 1 < count {
                Target::Step(position + 1)
            } else {
                Target::End
            };
            let successor = step
                .get("next")
                .and_then(Value::as_str)
                .map_or(following, resolve);
            let item_target = |item: &Value| {
                item.get("next")
                    .and_then(Value::as_str)
                    .map_or(successor, resolve)
            };
            let item = |item: &Value| {
                let title = string(item, "title");
                Item {
                    id: string(item, "id"),
                    normalized: normalize(&title),
                    title,
                    target: item_target(item),
                }
            };
            let action = match StepKind::parse(str_of(step, "kind")) {
                Some(StepKind::Media) => Action::Media {
                    media: string(step, "media"),
                    url: string(step, "url"),
                    caption: optional(step, "caption"),
                    filename: optional(step, "filename"),
                },
                Some(StepKind::Template) => Action::Template {
                    name: string(step, "name"),
                    language: string(step, "language"),
                    parameters: array(step, "parameters")
                        .iter()
                        .map(|p| p.as_str().unwrap_or("").to_owned())
                        .collect(),
                },
                Some(StepKind::Location) => Action::Location {
                    latitude: step.get("latitude").cloned().unwrap_or(Value::Null),
                    longitude: step.get("longitude").cloned().unwrap_or(Value::Null),
                    name: optional(step, "name"),
                    address: optional(step, "address"),
                },
                Some(StepKind::Buttons) => Action::Buttons {
                    text: string(step, "text"),
                    items: array(step, "buttons").iter().map(item).collect(),
                    header: optional(step, "header"),
                    footer: optional(step, "footer"),
                    save: optional(step, "save"),
                },
                Some(StepKind::List) => {
                    let sections = array(step, "sections");
                    Action::List {
                        text: string(step, "text"),
                        button: string(step, "button"),
                        sections: sections.iter().map(section_as_sent).collect(),
                        items: sections
                            .iter()
                            .flat_map(|s| array(s, "rows"))
                            .map(item)
                            .collect(),
                        header: optional(step, "header"),
                        footer: optional(step, "footer"),
                        save: optional(step, "save"),
                    }
                }
                Some(StepKind::Ask) => Action::Ask {
                    text: string(step, "text"),
                    save: string(step, "save"),
                    input: input_kind(str_of(step, "input")),
                    pattern: step
                        .get("pattern")
                        .and_then(Value::as_str)
                        .map(|p| Pattern::new(p, true)),
                    retries: step.get("retries").and_then(integer).unwrap_or(2),
                    retry_text: optional(step, "retryText"),
                    on_fail: step.get("onFail").and_then(Value::as_str).map(resolve),
                },
                Some(StepKind::Branch) => Action::Branch {
                    cases: array(step, "cases")
                        .iter()
                        .map(|case| {
                            let when = case.get("when").unwrap_or(&Value::Null);
                            (condition(when), resolve(str_of(case, "next")))
                        })
                        .collect(),
                    default: step
                        .get("default")
                        .and_then(Value::as_str)
                        .map_or(following, resolve),
                },
                Some(StepKind::Set) => Action::Set {
                    var: string(step, "var"),
                    value: step
                        .get("value")
                        .and_then(Scalar::from_json)
                        .unwrap_or(Scalar::Null),
                },
                Some(StepKind::Delay) => Action::Delay {
                    seconds: step.get("seconds").and_then(integer).unwrap_or(1),
                    typing: step.get("typing").and_then(Value::as_bool) == Some(true),
                },
                Some(StepKind::Action) => Action::Call {
                    handler: string(step, "handler"),
                    args: step
                        .get("args")
                        .and_then(Value::as_object)
                        .cloned()
                        .unwrap_or_default(),
                    save: optional(step, "save"),
                },
                Some(StepKind::Subflow) => {
                    let flow = string(step, "flow");
                    let index = first_by_id.get(flow.as_str()).copied();
                    Action::Subflow { flow, index }
                }
                Some(StepKind::Handoff) => Action::Handoff {
                    queue: optional(step, "queue"),
                    text: optional(step, "text"),
                },
                Some(StepKind::End) => Action::End {
                    text: optional(step, "text"),
                },
                // Sets are validated: no other kind reaches here.
                Some(StepKind::Message) | None => Action::Message {
                    text: string(step, "text"),
                },
            };
            CompiledStep {
                id: string(step, "id"),
                successor,
                action,
            }
        })
        .collect();
    let declarations = flow
        .get("variables")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(name, declaration)| {
            let default = declaration.get("default").and_then(Scalar::from_json);
            (name.clone(), default)
        })
        .collect();
    let trigger = flow.get("trigger");
    let mode = match trigger.map_or("", |t| str_of(t, "match")) {
        "contains" => MatchMode::Contains,
        "startsWith" => MatchMode::StartsWith,
        _ => MatchMode::Exact,
    };
    Flow {
        id: string(flow, "id"),
        steps: compiled,
        declarations,
        mode,
        keywords: trigger
            .map(|t| array(t, "keywords"))
            .unwrap_or_default()
            .iter()
            .map(|k| normalize(k.as_str().unwrap_or("")))
            .collect(),
        fallback: trigger
            .and_then(|t| t.get("fallback"))
            .and_then(Value::as_bool)
            == Some(true),
    }
}

/// An integer as validation accepts it (`2`, `2.0`, `2e0`).
fn integer(value: &Value) -> Option<u64> {
    value.as_u64().or_else(|| {
        let f = value.as_f64()?;
        #[expect(
            clippy::cast_possible_truncation,
            reason = "validated: a small whole number"
        )]
        let n = f as u64;
        (f >= 0.0 && f.fract() == 0.0).then_some(n)
    })
}

fn input_kind(name: &str) -> InputKind {
    match name {
        "number" => InputKind::Number,
        "email" => InputKind::Email,
        "phone" => InputKind::Phone,
        "date" => InputKind::Date,
        "yesno" => InputKind::Yesno,
        _ => InputKind::Text,
    }
}

/// A list section as the send carries it: its title, and each row's id, title and description.
fn section_as_sent(section: &Value) -> Value {
    let mut out = Map::new();
    if let Some(title) = section.get("title") {
        out.insert("title".into(), title.clone());
    }
    let rows = array(section, "rows")
        .iter()
        .map(|row| {
            let mut r = Map::new();
            for key in ["id", "title", "description"] {
                if let Some(value) = row.get(key) {
                    r.insert(key.into(), value.clone());
                }
            }
            Value::Object(r)
        })
        .collect();
    out.insert("rows".into(), Value::Array(rows));
    Value::Object(out)
}

fn number(value: &Value) -> f64 {
    value.as_f64().unwrap_or(0.0)
}

fn condition(condition: &Value) -> Cond {
    let children = |key: &str| array(condition, key).iter().map(self::condition).collect();
    if condition.get("all").is_some() {
        return Cond::All(children("all"));
    }
    if condition.get("any").is_some() {
        return Cond::Any(children("any"));
    }
    if let Some(inner) = condition.get("not") {
        return Cond::Not(Box::new(self::condition(inner)));
    }
    let value = condition.get("value").unwrap_or(&Value::Null);
    let scalar = || Scalar::from_json(value).unwrap_or(Scalar::Null);
    let text = || normalize(value.as_str().unwrap_or(""));
    let op = match str_of(condition, "op") {
        "eq" => Op::Eq(scalar()),
        "ne" => Op::Ne(scalar()),
        "lt" => Op::Lt(number(value)),
        "lte" => Op::Lte(number(value)),
        "gt" => Op::Gt(number(value)),
        "gte" => Op::Gte(number(value)),
        "contains" => Op::Contains(text()),
        "startsWith" => Op::StartsWith(text()),
        "matches" => Op::Matches(Pattern::new(value.as_str().unwrap_or(""), false)),
        "in" => Op::In(
            value
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Scalar::from_json)
                .collect(),
        ),
        _ => Op::Exists,
    };
    Cond::Leaf {
        var: string(condition, "var"),
        op,
    }
}
