//! The `flow_analyze` engine: validate every document, then describe, render and lint.

use rustc_hash::FxHashMap;
use std::str::FromStr;

use botmesh_flow_schema::SourceMap;
use serde::Serialize;
use serde_json::{Value, json};

use crate::error::Error;
use crate::graph::{Graph, describe_flow};
use crate::lint::{Diagnostic, Severity, flow_checks, set_checks, source_name};
use crate::mermaid::{Direction, render_mermaid};
use crate::set::FlowSet;

/// What `flow_analyze` returns besides the diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// Mermaid `flowchart` text in `mermaid` (the default).
    #[default]
    Mermaid,
    /// The graph of spec §7 in `graph`.
    Json,
}

impl Format {
    /// `mermaid` or `json`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Mermaid => "mermaid",
            Self::Json => "json",
        }
    }
}

impl FromStr for Format {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "mermaid" => Ok(Self::Mermaid),
            "json" => Ok(Self::Json),
            other => Err(Error::UnknownFormat(other.to_owned())),
        }
    }
}

/// A validation issue of one document of the set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourcedIssue {
    /// RFC 6901 JSON Pointer into that document.
    pub path: String,
    /// One short sentence naming the rule.
    pub message: String,
    /// `document` or `subflows/N` (N counts from 0).
    pub source: String,
    /// True when the issue is about a key (an unknown property), not its value: a position in
    /// the text points at the key. Not serialized.
    #[serde(skip)]
    pub at_key: bool,
    /// The repair, when it is determined (a patch of that document).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<botmesh_flow_schema::Fix>,
}

/// Counts that describe an analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct AnalysisSummary {
    /// Documents in the set: the document plus its subflows.
    pub flows: usize,
    /// Steps in all flows: the length of each document's `steps` array, also when the set is
    /// invalid (a document whose `steps` is not an array counts 0).
    pub steps: usize,
    /// Graph nodes, the synthetic `(end)` terminals included (0 when the set is invalid).
    pub nodes: usize,
    /// Graph edges, `call` edges included (0 when the set is invalid).
    pub edges: usize,
    /// Validation issues over the set.
    pub issues: usize,
    /// Diagnostics of severity `error`.
    pub errors: usize,
    /// Diagnostics of severity `warning`.
    pub warnings: usize,
    /// Diagnostics of severity `info`.
    pub infos: usize,
}

/// The typed result of [`analyze_set`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analysis<'a> {
    /// True when every document of the set is valid and the flow ids are unique.
    pub valid: bool,
    /// Validation issues of every document, the document's first, then each subflow's.
    pub issues: Vec<SourcedIssue>,
    /// Lint diagnostics (empty when not valid).
    pub diagnostics: Vec<Diagnostic>,
    /// The compiled graph (only when valid).
    pub graph: Option<Graph<'a>>,
    /// Counts.
    pub summary: AnalysisSummary,
}

impl Analysis<'_> {
    /// True when the set is invalid or some diagnostic has severity `error`.
    pub fn has_errors(&self) -> bool {
        !self.valid
            || self
                .diagnostics
                .iter()
                .any(|d| d.severity == Severity::Error)
    }
}

/// Validates the document and every subflow, then (only when all are valid and the flow ids
/// are unique) compiles, describes and lints the set.
///
/// Two documents of the set with the same `id` make the set invalid: the later one gets an
/// issue at `/id` naming where the id first appears.
pub fn analyze_set<'a>(document: &'a Value, subflows: &'a [Value]) -> Analysis<'a> {
    let documents: Vec<&'a Value> = std::iter::once(document).chain(subflows).collect();
    let mut issues = Vec::new();
    // Each document is compiled right after it is validated, while its JSON is in cache, and
    // described and given the checks that read only its own JSON at once (one compile for
    // the graph and the lint). After the first invalid document nothing more is compiled.
    let mut flow_graphs = Vec::with_capacity(documents.len());
    let mut early = Vec::new();
    let mut set = Some(FlowSet::new(&documents));
    for (index, doc) in documents.iter().enumerate() {
        let validation = botmesh_flow_schema::validate(doc);
        if !validation.issues.is_empty() {
            set = None;
        }
        issues.extend(validation.issues.into_iter().map(|issue| SourcedIssue {
            path: issue.path,
            message: issue.message,
            source: source_name(index),
            at_key: issue.at_key,
            fix: issue.fix,
        }));
        if let Some(set) = &mut set {
            set.push(doc, &mut |compiler, flow, uses| {
                flow_graphs.push(describe_flow(compiler, flow, uses));
                flow_checks(&mut early, flow, uses);
            });
        }
    }
    let mut first_with_id: FxHashMap<&str, usize> = FxHashMap::default();
    for (index, doc) in documents.iter().enumerate() {
        let Some(id) = doc.get("id").and_then(Value::as_str) else {
            continue;
        };
        if let Some(&first) = first_with_id.get(id) {
            issues.push(SourcedIssue {
                path: "/id".to_owned(),
                message: format!(
                    "duplicate flow id \"{id}\" in the set (first in {})",
                    source_name(first)
                ),
                source: source_name(index),
                at_key: false,
                fix: None,
            });
        } else {
            first_with_id.insert(id, index);
        }
    }
    let mut summary = AnalysisSummary {
        flows: documents.len(),
        steps: documents
            .iter()
            .filter_map(|doc| doc.get("steps").and_then(Value::as_array))
            .map(Vec::len)
            .sum(),
        issues: issues.len(),
        ..AnalysisSummary::default()
    };
    let Some(set) = set.filter(|_| issues.is_empty()) else {
        // Keep the set's order: the document's issues first, then each subflow's.
        issues.sort_by_key(|issue| source_rank(&issue.source));
        return Analysis {
            valid: false,
            issues,
            diagnostics: Vec::new(),
            graph: None,
            summary,
        };
    };
    let graph = Graph { flows: flow_graphs };
    let diagnostics = set_checks(&set, early);
    summary.nodes = graph.flows.iter().map(|f| f.nodes.len()).sum();
    summary.edges = graph.flows.iter().map(|f| f.edges.len()).sum();
    for diagnostic in &diagnostics {
        match diagnostic.severity {
            Severity::Error => summary.errors += 1,
            Severity::Warning => summary.warnings += 1,
            Severity::Info => summary.infos += 1,
        }
    }
    Analysis {
        valid: true,
        issues,
        diagnostics,
        graph: Some(graph),
        summary,
    }
}

fn source_rank(source: &str) -> usize {
    source
        .strip_prefix("subflows/")
        .and_then(|n| n.parse::<usize>().ok())
        .map_or(0, |n| n + 1)
}

/// The `flow_analyze` payload: `{ valid, issues, diagnostics, mermaid | graph, summary }`.
///
/// `mermaid` (for [`Format::Mermaid`]) or `graph` (for [`Format::Json`]) is present only when
/// `valid` is true. `summary` is [`AnalysisSummary`].
pub fn analyze(
    document: &Value,
    subflows: &[Value],
    format: Format,
    direction: Direction,
) -> Value {
    analyze_located(document, None, subflows, format, direction)
}

/// [`analyze`], with the positions of the document's own issues and diagnostics when its text's
/// source map is given: each of them (those with `source: "document"`) gets `line`, `column`,
/// `endLine` and `endColumn` of the member its pointer names (the key of an unknown property).
pub fn analyze_located(
    document: &Value,
    map: Option<&SourceMap>,
    subflows: &[Value],
    format: Format,
    direction: Direction,
) -> Value {
    let analysis = analyze_set(document, subflows);
    let mut payload = json!({
        "valid": analysis.valid,
        "issues": analysis.issues,
        "diagnostics": analysis.diagnostics,
        "summary": analysis.summary,
    });
    if let Some(map) = map {
        let keys: Vec<bool> = analysis.issues.iter().map(|i| i.at_key).collect();
        add_locations(&mut payload, map, &keys);
    }
    if let (Some(graph), Value::Object(map)) = (&analysis.graph, &mut payload) {
        match format {
            Format::Mermaid => {
                map.insert(
                    "mermaid".to_owned(),
                    Value::String(render_mermaid(graph, direction)),
                );
            }
            Format::Json => {
                map.insert("graph".to_owned(), json!(graph));
            }
        }
    }
    payload
}

/// Adds the positions of the document's own findings to a payload's `issues` and `diagnostics`
/// (either may be absent): [`add_location`] on each, `issue_at_key[i]` saying whether the i-th
/// issue is about a key (an issue's `at_key`, which is not serialized).
pub fn add_locations(payload: &mut Value, map: &SourceMap, issue_at_key: &[bool]) {
    for (list, at_key) in [("issues", issue_at_key), ("diagnostics", &[][..])] {
        if let Some(Value::Array(items)) = payload.get_mut(list) {
            for (index, item) in items.iter_mut().enumerate() {
                add_location(item, map, at_key.get(index) == Some(&true));
            }
        }
    }
}

/// Adds `line`, `column`, `endLine`, `endColumn` to an issue or diagnostic of the document
/// (its `source` is `document`, or it has none), from its `path`.
pub fn add_location(item: &mut Value, map: &SourceMap, at_key: bool) {
    let Value::Object(fields) = item else {
        return;
    };
    if fields
        .get("source")
        .is_some_and(|source| source != "document")
    {
        return;
    }
    let Some(at) = fields
        .get("path")
        .and_then(Value::as_str)
        .and_then(|path| map.locate(path, at_key))
    else {
        return;
    };
    fields.insert("line".to_owned(), at.line.into());
    fields.insert("column".to_owned(), at.column.into());
    fields.insert("endLine".to_owned(), at.end_line.into());
    fields.insert("endColumn".to_owned(), at.end_column.into());
}
