//! Coverage (runtime spec §9): which steps and which edges of `flow_analyze`'s graph the
//! conversations of a run took, per flow, with the uncovered ones by step and edge label.

use std::collections::HashSet;

use botmesh_flow_analyzer::{self as analyzer, IMPLICIT_END};
use serde::Serialize;
use serde_json::Value;

use crate::conversation::{EdgeKind, Transition};

/// The coverage of one flow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FlowCoverage {
    /// The flow id.
    pub flow: String,
    /// Steps of the flow (the synthetic end excluded).
    pub steps: usize,
    /// Steps executed at least once.
    #[serde(rename = "stepsCovered")]
    pub steps_covered: usize,
    /// Edges of the flow's graph.
    pub edges: usize,
    /// Edges taken at least once.
    #[serde(rename = "edgesCovered")]
    pub edges_covered: usize,
    /// The step ids never executed, in document order.
    #[serde(rename = "uncoveredSteps")]
    pub uncovered_steps: Vec<String>,
    /// The edges never taken, in graph order.
    #[serde(rename = "uncoveredEdges")]
    pub uncovered_edges: Vec<UncoveredEdge>,
}

/// An edge no conversation took.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UncoveredEdge {
    /// The source step.
    pub from: String,
    /// The target step (`(end)` for the end of the flow; a call's target is the called
    /// flow's entry).
    pub to: String,
    /// For a call: the called flow.
    #[serde(rename = "toFlow", skip_serializing_if = "Option::is_none")]
    pub to_flow: Option<String>,
    /// The analyzer's kind (`next`, `button`, …).
    pub kind: &'static str,
    /// How reports name it: `menu → "Store hours"`, `route → case order_state = "shipped"`,
    /// `ask → retries exhausted`, `a → b`.
    pub label: String,
}

/// The coverage of a run, flow by flow in set order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Coverage {
    /// One entry per flow of the set.
    pub flows: Vec<FlowCoverage>,
}

impl Coverage {
    /// Steps and edges of every flow, and how many were covered.
    pub fn totals(&self) -> (usize, usize, usize, usize) {
        self.flows.iter().fold((0, 0, 0, 0), |t, f| {
            (
                t.0 + f.steps_covered,
                t.1 + f.steps,
                t.2 + f.edges_covered,
                t.3 + f.edges,
            )
        })
    }

    /// True when every edge of every flow was taken.
    pub fn all_edges(&self) -> bool {
        self.flows.iter().all(|f| f.edges_covered == f.edges)
    }
}

/// Percent, one decimal, of `part` in `whole` (100 when there is nothing to cover).
pub fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        return 100.0;
    }
    (part as f64 * 1000.0 / whole as f64).floor() / 10.0
}

pub(crate) fn label(edge: &analyzer::Edge<'_>) -> String {
    let to = match edge.to_flow {
        Some(flow) => format!("{flow}:{}", edge.to),
        None => edge.to.to_owned(),
    };
    match edge.kind {
        analyzer::EdgeKind::Button | analyzer::EdgeKind::Row => match &edge.label {
            Some(label) => format!("{} → \"{label}\"", edge.from),
            None => format!("{} → {to}", edge.from),
        },
        analyzer::EdgeKind::Case => {
            format!(
                "{} → case {}",
                edge.from,
                edge.label.as_deref().unwrap_or("")
            )
        }
        analyzer::EdgeKind::Default => format!("{} → default ({to})", edge.from),
        analyzer::EdgeKind::RetryExhausted => format!("{} → retries exhausted ({to})", edge.from),
        analyzer::EdgeKind::Call => format!("{} → call {to}", edge.from),
        analyzer::EdgeKind::Return => format!("{} → return ({to})", edge.from),
        analyzer::EdgeKind::Next => format!("{} → {to}", edge.from),
    }
}

/// One edge of a flow's graph, keyed by what a transition knows of it.
#[derive(Debug, Clone)]
struct EdgeInfo {
    /// (source step, kind, position among the source's edges of that kind).
    key: (String, &'static str, usize),
    uncovered: UncoveredEdge,
}

#[derive(Debug, Clone)]
struct FlowEntry {
    id: String,
    steps: Vec<String>,
    edges: Vec<EdgeInfo>,
    covered_steps: HashSet<String>,
    covered_edges: HashSet<(String, &'static str, usize)>,
}

/// Counts coverage over the runs of one or more sets (several test files may share a flow):
/// a flow is known by its id, and its graph is the one of the first set it was seen in with
/// the most edges (a `call` edge exists only when the called flow is in the set).
#[derive(Debug, Clone, Default)]
pub struct CoverageCounter {
    flows: Vec<FlowEntry>,
}

impl CoverageCounter {
    /// An empty counter.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the runs of one set over its documents (the entry document first, then its
    /// subflows: the order of [`crate::FlowSet::new`]).
    pub fn add<'r>(
        &mut self,
        documents: &[&Value],
        runs: impl IntoIterator<Item = (&'r [Transition], &'r [(usize, usize)])>,
    ) {
        let graph = analyzer::describe(documents);
        let mut slots = Vec::with_capacity(graph.flows.len());
        for flow in &graph.flows {
            let steps: Vec<String> = flow
                .nodes
                .iter()
                .map(|n| n.id)
                .filter(|id| *id != IMPLICIT_END)
                .map(str::to_owned)
                .collect();
            let mut seen: Vec<(&str, &'static str)> = Vec::new();
            let edges: Vec<EdgeInfo> = flow
                .edges
                .iter()
                .map(|e| {
                    let kind = e.kind.as_str();
                    let position = seen.iter().filter(|s| **s == (e.from, kind)).count();
                    seen.push((e.from, kind));
                    EdgeInfo {
                        key: (e.from.to_owned(), kind, position),
                        uncovered: UncoveredEdge {
                            from: e.from.to_owned(),
                            to: e.to.to_owned(),
                            to_flow: e.to_flow.map(str::to_owned),
                            kind,
                            label: label(e),
                        },
                    }
                })
                .collect();
            let slot = match self.flows.iter().position(|f| f.id == flow.id) {
                Some(slot) => {
                    if self.flows[slot].edges.len() < edges.len() {
                        self.flows[slot].edges = edges;
                    }
                    slot
                }
                None => {
                    self.flows.push(FlowEntry {
                        id: flow.id.to_owned(),
                        steps: steps.clone(),
                        edges,
                        covered_steps: HashSet::new(),
                        covered_edges: HashSet::new(),
                    });
                    self.flows.len() - 1
                }
            };
            slots.push((slot, steps));
        }
        for (transitions, path) in runs {
            for &(flow, step) in path {
                if let Some((slot, steps)) = slots.get(flow)
                    && let Some(id) = steps.get(step)
                {
                    self.flows[*slot].covered_steps.insert(id.clone());
                }
            }
            for t in transitions {
                let Some((slot, steps)) = slots.get(t.flow) else {
                    continue;
                };
                let Some(from) = steps.get(t.from) else {
                    continue;
                };
                let position = match t.kind {
                    EdgeKind::Button(i) | EdgeKind::Row(i) | EdgeKind::Case(i) => i,
                    _ => 0,
                };
                self.flows[*slot]
                    .covered_edges
                    .insert((from.clone(), t.kind.as_str(), position));
            }
        }
    }

    /// The coverage of everything added, flow by flow in the order first seen.
    pub fn finish(&self) -> Coverage {
        let flows = self
            .flows
            .iter()
            .map(|flow| {
                let uncovered_steps: Vec<String> = flow
                    .steps
                    .iter()
                    .filter(|s| !flow.covered_steps.contains(*s))
                    .cloned()
                    .collect();
                let uncovered_edges: Vec<UncoveredEdge> = flow
                    .edges
                    .iter()
                    .filter(|e| !flow.covered_edges.contains(&e.key))
                    .map(|e| e.uncovered.clone())
                    .collect();
                FlowCoverage {
                    flow: flow.id.clone(),
                    steps: flow.steps.len(),
                    steps_covered: flow.steps.len() - uncovered_steps.len(),
                    edges: flow.edges.len(),
                    edges_covered: flow.edges.len() - uncovered_edges.len(),
                    uncovered_steps,
                    uncovered_edges,
                }
            })
            .collect();
        Coverage { flows }
    }
}

/// Coverage of the runs' transitions and paths over one set's documents (the entry document
/// first, then its subflows).
pub fn coverage<'r>(
    documents: &[&Value],
    runs: impl IntoIterator<Item = (&'r [Transition], &'r [(usize, usize)])>,
) -> Coverage {
    let mut counter = CoverageCounter::new();
    counter.add(documents, runs);
    counter.finish()
}
