//! The graph of spec §7 and [`describe`].

use std::collections::BTreeSet;

use serde::Serialize;
use serde_json::Value;

use crate::flow::{FlowSet, Target, step_label};
use crate::vars;

/// The id of the synthetic terminal that a path reaches when it falls off the end of `steps`
/// (also its `kind`).
pub const IMPLICIT_END: &str = "(end)";

/// The compiled form of a set of flows (spec §7), serialized exactly as the `graph` of
/// `flow_analyze`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Graph {
    /// One entry per flow: the entry document first, then the subflows in the order given.
    pub flows: Vec<FlowGraph>,
}

/// One flow of a [`Graph`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FlowGraph {
    /// The flow id.
    pub id: String,
    /// The id of the entry step (`steps[0]`).
    pub entry: String,
    /// One node per step in document order, then [`IMPLICIT_END`] when some path falls off
    /// the end.
    pub nodes: Vec<Node>,
    /// Edges ordered by their source step, then by button, row or case order.
    pub edges: Vec<Edge>,
    /// Node ids that end the flow (`end`, `handoff`, then [`IMPLICIT_END`]), in node order.
    pub terminals: Vec<String>,
    /// Variables read in this flow (conditions and `{{placeholders}}`), sorted, unique.
    pub reads: Vec<String>,
    /// Variables written in this flow (`save`, `set.var`), sorted, unique.
    pub writes: Vec<String>,
    /// Flow ids called by `subflow` steps, in document order, unique.
    pub calls: Vec<String>,
}

/// One node: a step, or the synthetic [`IMPLICIT_END`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Node {
    /// The step id, or [`IMPLICIT_END`].
    pub id: String,
    /// The step kind, or [`IMPLICIT_END`].
    pub kind: String,
    /// The step's main text unshortened (`text`, `caption`, template `name`, `var = value`,
    /// `seconds`, handler, called flow…), empty when the step has none.
    pub label: String,
    /// True for steps that wait for the user (`buttons`, `list`, `ask`).
    pub waits: bool,
}

/// One edge. `to` names a node of the same flow, except for `call` edges, whose `to` is the
/// entry step of the flow named by `toFlow`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Edge {
    /// The source node id.
    pub from: String,
    /// The target node id.
    pub to: String,
    /// For `call` edges: the called flow.
    #[serde(rename = "toFlow", skip_serializing_if = "Option::is_none")]
    pub to_flow: Option<String>,
    /// What makes control take this edge.
    pub kind: EdgeKind,
    /// The button or row title, the case's condition summary, `default` or `retries
    /// exhausted`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// The kinds of edge of spec §7.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EdgeKind {
    /// `next`, explicit or falling through to the following step.
    Next,
    /// A reply button of a `buttons` step.
    Button,
    /// A row of a `list` step.
    Row,
    /// A `branch` case.
    Case,
    /// A `branch` default (explicit or falling through).
    Default,
    /// `ask` → `onFail` when retries run out.
    RetryExhausted,
    /// `subflow` step → the called flow's entry.
    Call,
    /// `subflow` step → the step control returns to when the called flow ends.
    Return,
}

impl EdgeKind {
    /// The spelling used in the graph JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Next => "next",
            Self::Button => "button",
            Self::Row => "row",
            Self::Case => "case",
            Self::Default => "default",
            Self::RetryExhausted => "retry-exhausted",
            Self::Call => "call",
            Self::Return => "return",
        }
    }
}

/// Compiles a set of valid flow documents (the entry document first, then its subflows) into
/// a [`Graph`].
///
/// Every flow of the set is described, in the order given. A `subflow` step whose flow is in
/// the set gets a `call` edge to that flow's entry (the first flow with that id when ids
/// repeat); every `subflow` step gets a `return` edge to its successor.
pub fn describe(flows: &[&Value]) -> Graph {
    describe_set(&FlowSet::compile(flows))
}

pub(crate) fn describe_set(set: &FlowSet<'_>) -> Graph {
    let mut out = Vec::with_capacity(set.flows.len());
    for flow in &set.flows {
        let id_of = |target: Target| match target {
            Target::Step(i) => flow.steps[i].id.to_owned(),
            Target::End => IMPLICIT_END.to_owned(),
        };
        let mut nodes: Vec<Node> = flow
            .steps
            .iter()
            .map(|step| Node {
                id: step.id.to_owned(),
                kind: step.kind.as_str().to_owned(),
                label: step_label(step),
                waits: step.kind.waits(),
            })
            .collect();
        let mut terminals: Vec<String> = flow
            .steps
            .iter()
            .filter(|s| matches!(s.kind, crate::flow::Kind::End | crate::flow::Kind::Handoff))
            .map(|s| s.id.to_owned())
            .collect();
        if flow.falls_off {
            nodes.push(Node {
                id: IMPLICIT_END.to_owned(),
                kind: IMPLICIT_END.to_owned(),
                label: String::new(),
                waits: false,
            });
            terminals.push(IMPLICIT_END.to_owned());
        }
        let mut edges = Vec::new();
        let mut calls: Vec<String> = Vec::new();
        for step in &flow.steps {
            if step.kind == crate::flow::Kind::Subflow {
                if let Some(called) = step.str_field("flow")
                    && !calls.iter().any(|c| c == called)
                {
                    calls.push(called.to_owned());
                }
                if let Some(callee) = set.callee(step)
                    && let Some(entry) = set.flows[callee].steps.first()
                {
                    edges.push(Edge {
                        from: step.id.to_owned(),
                        to: entry.id.to_owned(),
                        to_flow: Some(set.flows[callee].id.to_owned()),
                        kind: EdgeKind::Call,
                        label: None,
                    });
                }
            }
            for edge in &step.edges {
                edges.push(Edge {
                    from: step.id.to_owned(),
                    to: id_of(edge.to),
                    to_flow: None,
                    kind: edge.kind,
                    label: edge.label.map(crate::flow::Label::text),
                });
            }
        }
        let uses = vars::collect(flow);
        let reads: BTreeSet<&str> = uses.reads.iter().map(|u| u.name).collect();
        let writes: BTreeSet<&str> = uses.writes.iter().map(|u| u.name).collect();
        out.push(FlowGraph {
            id: flow.id.to_owned(),
            entry: flow
                .steps
                .first()
                .map(|s| s.id.to_owned())
                .unwrap_or_default(),
            nodes,
            edges,
            terminals,
            reads: reads.into_iter().map(str::to_owned).collect(),
            writes: writes.into_iter().map(str::to_owned).collect(),
            calls,
        });
    }
    Graph { flows: out }
}
