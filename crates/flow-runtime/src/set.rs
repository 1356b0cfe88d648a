//! A set of valid flows compiled for running: step references resolved to indices, keywords
//! and titles normalized, patterns compiled, once per set.

use std::collections::HashMap;

use botmesh_flow_schema::{
    Button, Comparison, Condition, FlowDocument, InputKind, MatchMode, MediaKind, Row, Section,
    Step, Variable,
};
use serde_json::Value;

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
        media: MediaKind,
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
        sections: Vec<Section>,
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
        args: serde_json::Map<String, Value>,
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
        let mut typed = Vec::with_capacity(documents.len());
        for (index, document) in documents.iter().enumerate() {
            let validation = botmesh_flow_schema::validate(document);
            if let Some(issue) = validation.issues.first() {
                return Err(SetError::Invalid {
                    index,
                    message: format!("{}: {}", issue.path, issue.message),
                });
            }
            let flow = FlowDocument::deserialize_valid(document)
                .map_err(|message| SetError::Invalid { index, message })?;
            typed.push(flow);
        }
        let mut first_by_id: HashMap<&str, usize> = HashMap::new();
        for (index, flow) in typed.iter().enumerate() {
            first_by_id.entry(flow.id.as_str()).or_insert(index);
        }
        let flows = typed
            .iter()
            .map(|flow| compile_flow(flow, &first_by_id))
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

/// Deserializes a document that `validate` accepted.
trait DeserializeValid: Sized {
    fn deserialize_valid(document: &Value) -> Result<Self, String>;
}

impl DeserializeValid for FlowDocument {
    fn deserialize_valid(document: &Value) -> Result<Self, String> {
        serde_json::from_value(document.clone()).map_err(|e| e.to_string())
    }
}

fn compile_flow(flow: &FlowDocument, first_by_id: &HashMap<&str, usize>) -> Flow {
    let mut index: HashMap<&str, usize> = HashMap::with_capacity(flow.steps.len());
    for (position, step) in flow.steps.iter().enumerate() {
        index.entry(step_id(step)).or_insert(position);
    }
    let count = flow.steps.len();
    // Validation holds every reference to a step of the document.
    let resolve = |name: &str| index.get(name).map_or(Target::End, |&i| Target::Step(i));
    let steps = flow
        .steps
        .iter()
        .enumerate()
        .map(|(position, step)| {
            let following = if position + 1 < count {
                Target::Step(position + 1)
            } else {
                Target::End
            };
            let successor = step_next(step).map_or(following, resolve);
            let item_target = |next: &Option<String>| next.as_deref().map_or(successor, resolve);
            let action = match step {
                Step::Message { text, .. } => Action::Message { text: text.clone() },
                Step::Media {
                    media,
                    url,
                    caption,
                    filename,
                    ..
                } => Action::Media {
                    media: *media,
                    url: url.clone(),
                    caption: caption.clone(),
                    filename: filename.clone(),
                },
                Step::Template {
                    name,
                    language,
                    parameters,
                    ..
                } => Action::Template {
                    name: name.clone(),
                    language: language.clone(),
                    parameters: parameters.clone().unwrap_or_default(),
                },
                Step::Location {
                    latitude,
                    longitude,
                    name,
                    address,
                    ..
                } => Action::Location {
                    latitude: crate::value::number_json(*latitude),
                    longitude: crate::value::number_json(*longitude),
                    name: name.clone(),
                    address: address.clone(),
                },
                Step::Buttons {
                    text,
                    buttons,
                    header,
                    footer,
                    save,
                    ..
                } => Action::Buttons {
                    text: text.clone(),
                    items: buttons
                        .iter()
                        .map(|b: &Button| item(&b.id, &b.title, item_target(&b.next)))
                        .collect(),
                    header: header.clone(),
                    footer: footer.clone(),
                    save: save.clone(),
                },
                Step::List {
                    text,
                    button,
                    sections,
                    header,
                    footer,
                    save,
                    ..
                } => Action::List {
                    text: text.clone(),
                    button: button.clone(),
                    sections: sections.clone(),
                    items: sections
                        .iter()
                        .flat_map(|s| &s.rows)
                        .map(|r: &Row| item(&r.id, &r.title, item_target(&r.next)))
                        .collect(),
                    header: header.clone(),
                    footer: footer.clone(),
                    save: save.clone(),
                },
                Step::Ask {
                    text,
                    save,
                    input,
                    pattern,
                    retries,
                    retry_text,
                    on_fail,
                    ..
                } => Action::Ask {
                    text: text.clone(),
                    save: save.clone(),
                    input: input.unwrap_or(InputKind::Text),
                    pattern: pattern.as_deref().map(|p| Pattern::new(p, true)),
                    retries: retries.unwrap_or(2),
                    retry_text: retry_text.clone(),
                    on_fail: on_fail.as_deref().map(resolve),
                },
                Step::Branch { cases, default, .. } => Action::Branch {
                    cases: cases
                        .iter()
                        .map(|case| (condition(&case.when), resolve(&case.next)))
                        .collect(),
                    default: default.as_deref().map_or(following, resolve),
                },
                Step::Set { var, value, .. } => Action::Set {
                    var: var.clone(),
                    value: model_scalar(value),
                },
                Step::Delay {
                    seconds, typing, ..
                } => Action::Delay {
                    seconds: *seconds,
                    typing: typing.unwrap_or(false),
                },
                Step::Action {
                    handler,
                    args,
                    save,
                    ..
                } => Action::Call {
                    handler: handler.clone(),
                    args: args.clone().unwrap_or_default(),
                    save: save.clone(),
                },
                Step::Subflow { flow, .. } => Action::Subflow {
                    flow: flow.clone(),
                    index: first_by_id.get(flow.as_str()).copied(),
                },
                Step::Handoff { queue, text, .. } => Action::Handoff {
                    queue: queue.clone(),
                    text: text.clone(),
                },
                Step::End { text, .. } => Action::End { text: text.clone() },
            };
            CompiledStep {
                id: step_id(step).to_owned(),
                successor,
                action,
            }
        })
        .collect();
    let declarations = flow
        .variables
        .iter()
        .flatten()
        .map(|(name, declaration)| {
            let default = match declaration {
                Variable::String { default, .. } => default.clone().map(Scalar::String),
                Variable::Number { default, .. } => default
                    .as_ref()
                    .map(|n| Scalar::Number(n.as_f64().unwrap_or(0.0))),
                Variable::Boolean { default, .. } => default.map(Scalar::Bool),
            };
            (name.clone(), default)
        })
        .collect();
    let trigger = flow.trigger.as_ref();
    Flow {
        id: flow.id.clone(),
        steps,
        declarations,
        mode: trigger
            .and_then(|t| t.match_mode)
            .unwrap_or(MatchMode::Exact),
        keywords: trigger
            .and_then(|t| t.keywords.as_ref())
            .map(|k| k.iter().map(|k| normalize(k)).collect())
            .unwrap_or_default(),
        fallback: trigger.and_then(|t| t.fallback) == Some(true),
    }
}

fn item(id: &str, title: &str, target: Target) -> Item {
    Item {
        id: id.to_owned(),
        title: title.to_owned(),
        normalized: normalize(title),
        target,
    }
}

fn model_scalar(value: &botmesh_flow_schema::Scalar) -> Scalar {
    match value {
        botmesh_flow_schema::Scalar::Null => Scalar::Null,
        botmesh_flow_schema::Scalar::Bool(b) => Scalar::Bool(*b),
        botmesh_flow_schema::Scalar::Number(n) => Scalar::Number(n.as_f64().unwrap_or(0.0)),
        botmesh_flow_schema::Scalar::String(s) => Scalar::String(s.clone()),
    }
}

fn number(n: &serde_json::Number) -> f64 {
    n.as_f64().unwrap_or(0.0)
}

fn condition(condition: &Condition) -> Cond {
    match condition {
        Condition::All { all } => Cond::All(all.iter().map(self::condition).collect()),
        Condition::Any { any } => Cond::Any(any.iter().map(self::condition).collect()),
        Condition::Not { not } => Cond::Not(Box::new(self::condition(not))),
        Condition::Compare(comparison) => {
            let (var, op) = match comparison {
                Comparison::Eq { var, value } => (var, Op::Eq(model_scalar(value))),
                Comparison::Ne { var, value } => (var, Op::Ne(model_scalar(value))),
                Comparison::Lt { var, value } => (var, Op::Lt(number(value))),
                Comparison::Lte { var, value } => (var, Op::Lte(number(value))),
                Comparison::Gt { var, value } => (var, Op::Gt(number(value))),
                Comparison::Gte { var, value } => (var, Op::Gte(number(value))),
                Comparison::Contains { var, value } => (var, Op::Contains(normalize(value))),
                Comparison::StartsWith { var, value } => (var, Op::StartsWith(normalize(value))),
                Comparison::Matches { var, value } => {
                    (var, Op::Matches(Pattern::new(value, false)))
                }
                Comparison::Exists { var } => (var, Op::Exists),
                Comparison::In { var, value } => {
                    (var, Op::In(value.iter().map(model_scalar).collect()))
                }
            };
            Cond::Leaf {
                var: var.clone(),
                op,
            }
        }
    }
}

fn step_id(step: &Step) -> &str {
    match step {
        Step::Message { id, .. }
        | Step::Media { id, .. }
        | Step::Buttons { id, .. }
        | Step::List { id, .. }
        | Step::Template { id, .. }
        | Step::Location { id, .. }
        | Step::Ask { id, .. }
        | Step::Branch { id, .. }
        | Step::Set { id, .. }
        | Step::Delay { id, .. }
        | Step::Action { id, .. }
        | Step::Subflow { id, .. }
        | Step::Handoff { id, .. }
        | Step::End { id, .. } => id,
    }
}

fn step_next(step: &Step) -> Option<&str> {
    match step {
        Step::Message { next, .. }
        | Step::Media { next, .. }
        | Step::Buttons { next, .. }
        | Step::List { next, .. }
        | Step::Template { next, .. }
        | Step::Location { next, .. }
        | Step::Ask { next, .. }
        | Step::Set { next, .. }
        | Step::Delay { next, .. }
        | Step::Action { next, .. }
        | Step::Subflow { next, .. } => next.as_deref(),
        Step::Branch { .. } | Step::Handoff { .. } | Step::End { .. } => None,
    }
}
