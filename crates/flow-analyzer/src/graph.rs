//! The graph of spec §7 and [`describe`].

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use botmesh_flow_schema::StepKind;
use botmesh_flow_schema::program::{Body, Compiler, Flow, Target};

use crate::label::{edge_label, step_label};
use crate::set::{Uses, collect};

/// The kinds of edge of spec §7, decided with the compiled form in `botmesh-flow-schema`.
pub use botmesh_flow_schema::program::EdgeKind;

/// The id of the synthetic terminal that a path reaches when it falls off the end of `steps`
/// (also its `kind`).
pub const IMPLICIT_END: &str = "(end)";

/// The compiled form of a set of flows (spec §7), serialized exactly as the `graph` of
/// `flow_analyze`.
///
/// It borrows its ids and texts from the documents it describes (no copy of the set is made).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Graph<'a> {
    /// One entry per flow: the entry document first, then the subflows in the order given.
    pub flows: Vec<FlowGraph<'a>>,
}

/// One flow of a [`Graph`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FlowGraph<'a> {
    /// The flow id.
    pub id: &'a str,
    /// The id of the entry step (`steps[0]`).
    pub entry: &'a str,
    /// One node per step in document order, then [`IMPLICIT_END`] when some path falls off
    /// the end.
    pub nodes: Vec<Node<'a>>,
    /// Edges ordered by their source step, then by button, row or case order.
    pub edges: Vec<Edge<'a>>,
    /// Node ids that end the flow (`end`, `handoff`, then [`IMPLICIT_END`]), in node order.
    pub terminals: Vec<&'a str>,
    /// Variables read in this flow (conditions and `{{placeholders}}`), sorted, unique.
    pub reads: Vec<&'a str>,
    /// Variables written in this flow (`save`, `set.var`), sorted, unique.
    pub writes: Vec<&'a str>,
    /// Flow ids called by `subflow` steps, in document order, unique.
    pub calls: Vec<&'a str>,
}

/// One node: a step, or the synthetic [`IMPLICIT_END`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Node<'a> {
    /// The step id, or [`IMPLICIT_END`].
    pub id: &'a str,
    /// The step kind, or [`IMPLICIT_END`].
    pub kind: &'static str,
    /// The step's main text unshortened (`text`, `caption`, template `name`, `var = value`,
    /// `seconds`, handler, called flow…), empty when the step has none.
    pub label: Cow<'a, str>,
    /// True for steps that wait for the user (`buttons`, `list`, `ask`).
    pub waits: bool,
}

/// One edge. `to` names a node of the same flow, except for `call` edges, whose `to` is the
/// entry step of the flow named by `toFlow`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Edge<'a> {
    /// The source node id.
    pub from: &'a str,
    /// The target node id.
    pub to: &'a str,
    /// For `call` edges: the called flow.
    #[serde(rename = "toFlow", skip_serializing_if = "Option::is_none")]
    pub to_flow: Option<&'a str>,
    /// What makes control take this edge.
    pub kind: EdgeKind,
    /// The button or row title, the case's condition summary, `default` or `retries
    /// exhausted`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<Cow<'a, str>>,
}

/// Compiles a set of valid flow documents (the entry document first, then its subflows) into
/// a [`Graph`].
///
/// Every flow of the set is described, in the order given. A `subflow` step whose flow is in
/// the set gets a `call` edge to that flow's entry (the first flow with that id when ids
/// repeat); every `subflow` step gets a `return` edge to its successor.
pub fn describe<'a>(flows: &[&'a Value]) -> Graph<'a> {
    // Each flow is compiled, described and dropped in turn, so its JSON is still in cache while
    // its graph is built and only one compiled flow is held at a time (on a large set, a
    // separate pass over every flow costs a cache miss per step).
    let mut compiler = Compiler::new(flows);
    let flows = flows
        .iter()
        .map(|document| {
            let flow = compiler.flow(document);
            let uses = collect(&flow);
            describe_flow(&compiler, &flow, &uses)
        })
        .collect();
    Graph { flows }
}

/// The graph of one compiled flow; `compiler` resolves its calls.
pub(crate) fn describe_flow<'a>(
    compiler: &Compiler<'a>,
    flow: &Flow<'a>,
    uses: &Uses<'a>,
) -> FlowGraph<'a> {
    let id_of = |target: Target| match target {
        Target::Step(i) => flow.steps[i].id,
        Target::End => IMPLICIT_END,
    };
    // Room for `(end)` too: growing the vector by one would copy it.
    let mut nodes: Vec<Node<'_>> = Vec::with_capacity(flow.steps.len() + 1);
    nodes.extend(flow.steps.iter().map(|step| Node {
        id: step.id,
        kind: step.kind.as_str(),
        label: step_label(step),
        waits: step.waits(),
    }));
    let mut terminals: Vec<&str> = flow
        .steps
        .iter()
        .filter(|s| matches!(s.kind, StepKind::End | StepKind::Handoff))
        .map(|s| s.id)
        .collect();
    if flow.falls_off {
        nodes.push(Node {
            id: IMPLICIT_END,
            kind: IMPLICIT_END,
            label: Cow::Borrowed(""),
            waits: false,
        });
        terminals.push(IMPLICIT_END);
    }
    // The drawn edges plus one `call` edge per `subflow` step.
    let mut edges = Vec::with_capacity(flow.all_edges().len() + 4);
    let mut calls: Vec<&str> = Vec::new();
    for (position, step) in flow.steps.iter().enumerate() {
        if let Body::Subflow {
            flow: called,
            callee,
        } = step.body
        {
            if !calls.contains(&called) {
                calls.push(called);
            }
            if let Some(callee) = callee
                && let Some(entry) = compiler.entry_step(callee)
            {
                edges.push(Edge {
                    from: step.id,
                    to: entry,
                    to_flow: Some(compiler.flow_id(callee)),
                    kind: EdgeKind::Call,
                    label: None,
                });
            }
        }
        for edge in flow.edges(position).iter().filter(|e| e.drawn) {
            edges.push(Edge {
                from: step.id,
                to: id_of(edge.to),
                to_flow: None,
                kind: edge.kind,
                label: edge_label(step, edge),
            });
        }
    }
    FlowGraph {
        id: flow.id,
        entry: flow.steps.first().map_or("", |s| s.id),
        nodes,
        edges,
        terminals,
        reads: uses.read_names.clone(),
        writes: uses.write_names.clone(),
        calls,
    }
}
