//! The compiled form of a set of flows: steps, successor edges and subflow calls.
//!
//! Compilation walks the JSON directly. It never panics: a reference that does not resolve
//! (impossible in a valid document) is skipped rather than followed.

use std::collections::HashMap;

use serde_json::Value;

use crate::graph::EdgeKind;
use crate::text::{condition_summary, value_summary};

/// The 14 step kinds of spec §2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Message,
    Media,
    Buttons,
    List,
    Template,
    Location,
    Ask,
    Branch,
    Set,
    Delay,
    Action,
    Subflow,
    Handoff,
    End,
}

impl Kind {
    fn parse(kind: &str) -> Option<Self> {
        Some(match kind {
            "message" => Self::Message,
            "media" => Self::Media,
            "buttons" => Self::Buttons,
            "list" => Self::List,
            "template" => Self::Template,
            "location" => Self::Location,
            "ask" => Self::Ask,
            "branch" => Self::Branch,
            "set" => Self::Set,
            "delay" => Self::Delay,
            "action" => Self::Action,
            "subflow" => Self::Subflow,
            "handoff" => Self::Handoff,
            "end" => Self::End,
            _ => return None,
        })
    }

    /// The spelling used in documents.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Message => "message",
            Self::Media => "media",
            Self::Buttons => "buttons",
            Self::List => "list",
            Self::Template => "template",
            Self::Location => "location",
            Self::Ask => "ask",
            Self::Branch => "branch",
            Self::Set => "set",
            Self::Delay => "delay",
            Self::Action => "action",
            Self::Subflow => "subflow",
            Self::Handoff => "handoff",
            Self::End => "end",
        }
    }

    /// Steps that wait for the user's answer.
    pub(crate) fn waits(self) -> bool {
        matches!(self, Self::Buttons | Self::List | Self::Ask)
    }
}

/// Where an edge leads inside its flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    Step(usize),
    /// The synthetic `(end)` terminal: the path falls off the end of `steps`.
    End,
}

/// Where an edge's label comes from; built into text only when a graph is described (lint
/// never needs it).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Label<'a> {
    /// A button or row title.
    Title(&'a str),
    /// A branch case's condition.
    Condition(&'a Value),
    /// A fixed text.
    Fixed(&'static str),
}

impl Label<'_> {
    pub(crate) fn text(self) -> String {
        match self {
            Self::Title(title) => title.to_owned(),
            Self::Condition(condition) => condition_summary(condition),
            Self::Fixed(text) => text.to_owned(),
        }
    }
}

/// One edge inside a flow.
#[derive(Debug, Clone)]
pub(crate) struct LocalEdge<'a> {
    pub(crate) to: Target,
    pub(crate) kind: EdgeKind,
    pub(crate) label: Option<Label<'a>>,
}

/// One step of a compiled flow.
#[derive(Debug)]
pub(crate) struct Step<'a> {
    pub(crate) id: &'a str,
    pub(crate) kind: Kind,
    pub(crate) value: &'a Value,
    pub(crate) edges: Vec<LocalEdge<'a>>,
}

impl<'a> Step<'a> {
    pub(crate) fn str_field(&self, key: &str) -> Option<&'a str> {
        self.value.get(key).and_then(Value::as_str)
    }
}

/// One compiled flow.
#[derive(Debug)]
pub(crate) struct Flow<'a> {
    pub(crate) id: &'a str,
    pub(crate) document: &'a Value,
    pub(crate) steps: Vec<Step<'a>>,
    /// True when some step has an edge to [`Target::End`].
    pub(crate) falls_off: bool,
}

/// A compiled set: the entry document first, then the subflows in order.
#[derive(Debug)]
pub(crate) struct FlowSet<'a> {
    pub(crate) flows: Vec<Flow<'a>>,
    by_id: HashMap<&'a str, usize>,
}

impl<'a> FlowSet<'a> {
    pub(crate) fn compile(documents: &[&'a Value]) -> Self {
        let flows: Vec<Flow<'a>> = documents.iter().map(|d| compile_flow(d)).collect();
        let mut by_id = HashMap::new();
        for (index, flow) in flows.iter().enumerate() {
            by_id.entry(flow.id).or_insert(index);
        }
        Self { flows, by_id }
    }

    /// The index of the first flow with this id.
    pub(crate) fn find(&self, id: &str) -> Option<usize> {
        self.by_id.get(id).copied()
    }

    /// The flow a `subflow` step calls, when it is in the set.
    pub(crate) fn callee(&self, step: &Step<'_>) -> Option<usize> {
        if step.kind != Kind::Subflow {
            return None;
        }
        step.str_field("flow").and_then(|id| self.find(id))
    }
}

fn compile_flow<'a>(document: &'a Value) -> Flow<'a> {
    let id = document.get("id").and_then(Value::as_str).unwrap_or("");
    let raw: &[Value] = document
        .get("steps")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut steps = Vec::with_capacity(raw.len());
    for (position, value) in raw.iter().enumerate() {
        let step_id = value.get("id").and_then(Value::as_str).unwrap_or("");
        index.entry(step_id).or_insert(position);
        let kind = value
            .get("kind")
            .and_then(Value::as_str)
            .and_then(Kind::parse)
            .unwrap_or(Kind::Message);
        steps.push(Step {
            id: step_id,
            kind,
            value,
            edges: Vec::new(),
        });
    }
    let count = steps.len();
    let resolve = |name: Option<&Value>| -> Option<Target> {
        let name = name?.as_str()?;
        index.get(name).map(|&i| Target::Step(i))
    };
    let mut falls_off = false;
    for (position, step) in steps.iter_mut().enumerate() {
        let following = if position + 1 < count {
            Target::Step(position + 1)
        } else {
            Target::End
        };
        let successor = match step.value.get("next") {
            Some(next) => resolve(Some(next)),
            None => Some(following),
        };
        let mut edges = Vec::new();
        let mut push = |to: Option<Target>, kind: EdgeKind, label: Option<Label<'a>>| {
            if let Some(to) = to {
                edges.push(LocalEdge { to, kind, label });
            }
        };
        match step.kind {
            Kind::Buttons => {
                for button in array(step.value, "buttons") {
                    let to = match button.get("next") {
                        Some(next) => resolve(Some(next)),
                        None => successor,
                    };
                    push(to, EdgeKind::Button, title(button));
                }
            }
            Kind::List => {
                for section in array(step.value, "sections") {
                    for row in array(section, "rows") {
                        let to = match row.get("next") {
                            Some(next) => resolve(Some(next)),
                            None => successor,
                        };
                        push(to, EdgeKind::Row, title(row));
                    }
                }
            }
            Kind::Branch => {
                for case in array(step.value, "cases") {
                    let label = case.get("when").map(Label::Condition);
                    push(resolve(case.get("next")), EdgeKind::Case, label);
                }
                let to = match step.value.get("default") {
                    Some(default) => resolve(Some(default)),
                    None => Some(following),
                };
                push(to, EdgeKind::Default, Some(Label::Fixed("default")));
            }
            Kind::Ask => {
                push(successor, EdgeKind::Next, None);
                if step.value.get("onFail").is_some() {
                    let to = resolve(step.value.get("onFail"));
                    push(
                        to,
                        EdgeKind::RetryExhausted,
                        Some(Label::Fixed("retries exhausted")),
                    );
                }
            }
            Kind::Subflow => push(successor, EdgeKind::Return, None),
            Kind::Handoff | Kind::End => {}
            _ => push(successor, EdgeKind::Next, None),
        }
        falls_off |= edges.iter().any(|e| e.to == Target::End);
        step.edges = edges;
    }
    Flow {
        id,
        document,
        steps,
        falls_off,
    }
}

fn array<'v>(value: &'v Value, key: &str) -> &'v [Value] {
    value
        .get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn title(option: &Value) -> Option<Label<'_>> {
    option
        .get("title")
        .and_then(Value::as_str)
        .map(Label::Title)
}

/// The node label of a step: its main text, or a short description for steps without one.
pub(crate) fn step_label(step: &Step<'_>) -> String {
    let text = |key: &str| step.str_field(key).map(str::to_owned);
    let label = match step.kind {
        Kind::Message | Kind::Buttons | Kind::List | Kind::Ask => text("text"),
        Kind::Media => text("caption")
            .or_else(|| text("filename"))
            .or_else(|| text("media")),
        Kind::Template => text("name"),
        Kind::Location => text("name").or_else(|| text("address")).or_else(|| {
            let lat = step.value.get("latitude")?;
            let lon = step.value.get("longitude")?;
            Some(format!("{lat}, {lon}"))
        }),
        Kind::Branch => None,
        Kind::Set => {
            let var = step.str_field("var").unwrap_or("?");
            let value = step.value.get("value").unwrap_or(&Value::Null);
            Some(format!("{var} = {}", value_summary(value)))
        }
        Kind::Delay => step.value.get("seconds").map(|s| {
            let typing = step.value.get("typing").and_then(Value::as_bool) == Some(true);
            if typing {
                format!("{s} s, typing")
            } else {
                format!("{s} s")
            }
        }),
        Kind::Action => text("handler").map(|h| match step.str_field("save") {
            Some(save) => format!("{h} → {save}"),
            None => h,
        }),
        Kind::Subflow => text("flow"),
        Kind::Handoff => text("text").or_else(|| text("queue")),
        Kind::End => text("text"),
    };
    label.unwrap_or_default()
}
